// A kernel with a buffer parameter it never uses: still a binding of the code object.
#include <hrx/kernel.h>

extern "C" HRX_KERNEL [[loom::workgroup_size(64, 1, 1), loom::workgroup_count(1, 1, 1)]]
void fill_one(float *out, float *unused) { out[hrx_global_id(0)] = 1.0f; }
