// Compiles only as C++2c/C++26: checks the standard the driver forwarded.
static_assert(__cplusplus > 202302L, "needs C++26");
int twice(int x) { return 2 * x; }
