// hrx <hip/math_functions.h>: part of the HIP device API of <hip/hip_runtime.h>.
#include <hip/hip_runtime.h>
