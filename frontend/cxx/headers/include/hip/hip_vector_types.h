// hrx <hip/hip_vector_types.h>: part of the HIP device API of <hip/hip_runtime.h>.
#include <hip/hip_runtime.h>
