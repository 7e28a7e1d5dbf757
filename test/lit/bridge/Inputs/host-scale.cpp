// No fixed grid or size: the grid comes from the workload (work-items in x) and the launch bound.
// The queries go through a helper, in 2-D, with a run-time dimension, to check their inlining.
#include <hip/hip_runtime.h>
#include <hrx/kernel.h>

namespace demo {
static uint32_t linear(uint32_t dim) { return hrx_workgroup_id(dim) * hrx_workgroup_size(dim) + hrx_workitem_id(dim); }

__global__ void __launch_bounds__(64) scale(int32_t *data, int32_t factor, uint32_t count, uint32_t dim) {
  uint32_t i = linear(dim);
  if (i < count && gridDim.y == 1 && hrx_workitem_id(1) == 0) data[i] = data[i] * factor + int32_t(hrx_workgroup_count(0));
}
}  // namespace demo
