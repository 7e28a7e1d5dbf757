#include <hip/hip_runtime.h>
__device__ int device_square(int x);
namespace lib {
__device__ float halve(float x);
}
