// A device library: C++ __device__ functions and no kernel.
#include "square.h"
__device__ int device_square(int x) { return x * x; }
namespace lib {
__device__ float halve(float x) { return x * 0.5f; }
}  // namespace lib
