// Compiles only as C2y or newer: a default (C23) compile fails the assertion.
_Static_assert(__STDC_VERSION__ > 202311L, "needs a standard newer than C23");
int add(int a, int b) { return a + b; }
