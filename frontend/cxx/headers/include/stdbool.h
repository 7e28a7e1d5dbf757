/* hrx freestanding <stdbool.h>: C23 and C++ already have bool, true and false. */
#ifndef HRX_STDBOOL_H
#define HRX_STDBOOL_H
#define __bool_true_false_are_defined 1
#endif /* HRX_STDBOOL_H */
