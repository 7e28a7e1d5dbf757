// A C23 kernel through <hrx/kernel.h>, for the GPU and the host, next to a bf16 vector helper.
// RUN: hrx-cxx-import --target=gfx1151 --emit=llvm %s | FileCheck %s --check-prefix=GPU
// RUN: hrx-cxx-import --target=host --emit=signatures %s | FileCheck %s --check-prefix=SIG
#include <hrx/kernel.h>
#include <hrx/worker.h>

// GPU: define protected amdgpu_kernel void @saxpy(ptr noundef %{{.*}}, ptr noundef %{{.*}}, float noundef %{{.*}})
// GPU: "amdgpu-flat-work-group-size"="64,64"
// SIG:      kernel saxpy symbol=saxpy result=void
// SIG-NEXT:   param x: const f32* (pointee 4 B, addrspace 0)
// SIG-NEXT:   param y: f32* (pointee 4 B, addrspace 0)
// SIG-NEXT:   param a: f32
// SIG-NEXT:   workgroup_size 64,1,1
HRX_KERNEL HRX_WORKGROUP_SIZE(64, 1, 1) void saxpy(const float *x, float *y, float a) {
  uint32_t i = hrx_global_id(0);
  y[i] = a * x[i] + y[i];
  hrx_barrier();
}

// SIG:      function widen symbol=widen result=void
// SIG-NEXT:   param in: const bf16x32* (pointee 64 B, addrspace 0)
// SIG-NEXT:   param out: f32x32* (pointee 128 B, addrspace 0)
// SIG-DAG: host-builtin __hrx_host_barrier
// SIG-DAG: host-builtin __hrx_host_workitem_id
void widen(const hrx_bf16x32 *in, hrx_f32x32 *out) { *out = hrx_f32x32_from_bf16x32(*in); }
