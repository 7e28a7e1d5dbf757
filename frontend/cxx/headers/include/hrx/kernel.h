/* hrx <hrx/kernel.h>: the portable GPU kernel interface (C23 and C++26).
 *
 * On amdgcn the work-item queries are Clang's AMDGPU builtins. On the host reference device
 * they are the __hrx_host_* functions, which the importer leaves undefined on purpose: the
 * bridge's host target supplies them when it wraps a kernel into the host-code ABI (one call
 * runs every work-item of one workgroup; see docs/cxx.md). */
#ifndef HRX_KERNEL_H
#define HRX_KERNEL_H

#include <stdint.h>

#if defined(__HRX_TARGET_XDNA__)
#error "<hrx/kernel.h> declares GPU kernels; NPU workers are plain functions called by a Loom pipeline"
#endif

/* Attributes the importer recognises (see docs/cxx.md). */
#define HRX_KERNEL [[loom::kernel]]
#define HRX_WORKGROUP_SIZE(x, y, z) [[loom::workgroup_size(x, y, z)]]
#define HRX_WORKGROUP_COUNT(x, y, z) [[loom::workgroup_count(x, y, z)]]

#ifdef __cplusplus
#define HRX_C_BEGIN extern "C" {
#define HRX_C_END }
#else
#define HRX_C_BEGIN
#define HRX_C_END
#endif

#define HRX_INLINE static inline __attribute__((always_inline))

#if defined(__HRX_TARGET_AMDGPU__)

HRX_INLINE uint32_t hrx_workitem_id(uint32_t dim) {
  return dim == 0 ? __builtin_amdgcn_workitem_id_x()
       : dim == 1 ? __builtin_amdgcn_workitem_id_y()
                  : __builtin_amdgcn_workitem_id_z();
}
HRX_INLINE uint32_t hrx_workgroup_id(uint32_t dim) {
  return dim == 0 ? __builtin_amdgcn_workgroup_id_x()
       : dim == 1 ? __builtin_amdgcn_workgroup_id_y()
                  : __builtin_amdgcn_workgroup_id_z();
}
HRX_INLINE uint32_t hrx_workgroup_size(uint32_t dim) {
  return dim == 0 ? __builtin_amdgcn_workgroup_size_x()
       : dim == 1 ? __builtin_amdgcn_workgroup_size_y()
                  : __builtin_amdgcn_workgroup_size_z();
}
HRX_INLINE uint32_t hrx_workgroup_count(uint32_t dim) {
  return dim == 0 ? __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x()
       : dim == 1 ? __builtin_amdgcn_grid_size_y() / __builtin_amdgcn_workgroup_size_y()
                  : __builtin_amdgcn_grid_size_z() / __builtin_amdgcn_workgroup_size_z();
}
HRX_INLINE void hrx_barrier(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

#else /* host reference device */

HRX_C_BEGIN
uint32_t __hrx_host_workitem_id(uint32_t dim);
uint32_t __hrx_host_workgroup_id(uint32_t dim);
uint32_t __hrx_host_workgroup_size(uint32_t dim);
uint32_t __hrx_host_workgroup_count(uint32_t dim);
void __hrx_host_barrier(void);
HRX_C_END

HRX_INLINE uint32_t hrx_workitem_id(uint32_t dim) { return __hrx_host_workitem_id(dim); }
HRX_INLINE uint32_t hrx_workgroup_id(uint32_t dim) { return __hrx_host_workgroup_id(dim); }
HRX_INLINE uint32_t hrx_workgroup_size(uint32_t dim) { return __hrx_host_workgroup_size(dim); }
HRX_INLINE uint32_t hrx_workgroup_count(uint32_t dim) { return __hrx_host_workgroup_count(dim); }
HRX_INLINE void hrx_barrier(void) { __hrx_host_barrier(); }

#endif

HRX_INLINE uint32_t hrx_global_id(uint32_t dim) {
  return hrx_workgroup_id(dim) * hrx_workgroup_size(dim) + hrx_workitem_id(dim);
}

/* Float atomic max as an integer compare/exchange loop over the float bits. Native float
 * atomic max does not update coherent (Stream::allocate_shared) memory on gfx1151; this loop
 * works on every allocation class. NaN inputs leave the stored value unchanged. */
typedef uint32_t __attribute__((__may_alias__)) hrx_f32_bits;
HRX_INLINE float hrx_atomic_max_f32(float *address, float value) {
  hrx_f32_bits *bits = (hrx_f32_bits *)address;
  uint32_t old = __atomic_load_n(bits, __ATOMIC_RELAXED);
  while (__builtin_bit_cast(float, old) < value &&
         !__atomic_compare_exchange_n(bits, &old, __builtin_bit_cast(uint32_t, value), false,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return __builtin_bit_cast(float, old);
}

#endif /* HRX_KERNEL_H */
