// Provided as the virtual header hrx/util.h through --header (depfile.test).
static inline int zero(void) { return 0; }
