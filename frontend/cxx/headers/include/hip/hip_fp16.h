// hrx <hip/hip_fp16.h>: part of the HIP device API of <hip/hip_runtime.h>.
#include <hip/hip_runtime.h>
