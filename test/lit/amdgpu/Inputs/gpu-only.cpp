// A kernel only the amdgcn preprocessing defines: the host twin cannot have it.
#include <hrx/kernel.h>

#if defined(__HRX_TARGET_AMDGPU__)
extern "C" HRX_KERNEL void only_gpu(float *x) { x[hrx_global_id(0)] = 1.0f; }
#endif
extern "C" HRX_KERNEL void both(float *x) { x[hrx_global_id(0)] = 2.0f; }
