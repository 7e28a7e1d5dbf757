// A C++-linkage kernel with a HIP launch bound and no fixed grid: the launch program sizes the
// grid from the workload (total work-items in x).
#include <hip/hip_runtime.h>

namespace demo {
__global__ void __launch_bounds__(128) scale(float *data, float factor, uint32_t count) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) data[i] *= factor;
}
}  // namespace demo
