// A recursive helper asks for the work-item id.
#include <hrx/kernel.h>

static uint32_t depth(uint32_t n) { return n == 0 ? hrx_workitem_id(0) : depth(n - 1) + 1; }

extern "C" HRX_KERNEL void recurse(uint32_t *output, uint32_t n) { output[hrx_global_id(0)] = depth(n); }
