/* hrx freestanding <stddef.h>. */
#ifndef HRX_STDDEF_H
#define HRX_STDDEF_H

typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
#ifndef __cplusplus
typedef __WCHAR_TYPE__ wchar_t;
typedef typeof(nullptr) nullptr_t;
#endif
typedef struct {
  long long __hrx_ll __attribute__((__aligned__(__alignof__(long long))));
  long double __hrx_ld __attribute__((__aligned__(__alignof__(long double))));
} max_align_t;

#ifdef __cplusplus
#define NULL nullptr
#else
#define NULL ((void *)0)
#endif
#define offsetof(type, member) __builtin_offsetof(type, member)
#ifndef __cplusplus
#define unreachable() __builtin_unreachable()
#endif

#endif /* HRX_STDDEF_H */
