// hrx <hip/hip_runtime.h>. In a HIP unit (.hip, -x hip) this is the HIP device API of
// <hip/__hrx_hip_device.h>, which every HIP unit already includes first (docs/cxx.md, "HIP
// sources"). In a plain C++ unit it is the kernel-language subset on <hrx/kernel.h> below.
#ifndef HRX_HIP_RUNTIME_H
#define HRX_HIP_RUNTIME_H

#ifndef __cplusplus
#error "<hip/hip_runtime.h> is C++ only"
#endif

#if defined(__HIP__)
#include <hip/__hrx_hip_device.h>
#else
#include <hrx/kernel.h>

#define __global__ [[loom::kernel]]
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
// An upper bound on the workgroup size, as in HIP (not a fixed size: that is loom::workgroup_size).
// The annotation tells every target's launch program the bound; the minimum-blocks hint is ignored.
#define __HRX_LAUNCH_BOUND_ANNOTATION(max_threads, ...) __attribute__((annotate("loom.launch_bounds", max_threads)))
#if defined(__HRX_TARGET_AMDGPU__)
#define __launch_bounds__(...)                                   \
  __HRX_LAUNCH_BOUND_ANNOTATION(__VA_ARGS__, 0)                  \
  __attribute__((amdgpu_flat_work_group_size(1, __HRX_LAUNCH_BOUND_FIRST(__VA_ARGS__, 0))))
#define __HRX_LAUNCH_BOUND_FIRST(max_threads, ...) max_threads
#else
#define __launch_bounds__(...) __HRX_LAUNCH_BOUND_ANNOTATION(__VA_ARGS__, 0)
#endif
// Workgroup (LDS) memory: one instance per workgroup, uninitialised as in HIP.
#if defined(__HRX_TARGET_AMDGPU__)
#define __shared__ static __attribute__((address_space(3), loader_uninitialized))
#else
// The host device runs one workgroup per thread at a time, so thread-local storage is
// workgroup storage there.
#define __shared__ static thread_local
#endif

#define __HRX_HIP_DIM3_BUILTIN(TYPE, QUERY)                                              \
  struct TYPE {                                                                          \
    static __forceinline__ uint32_t __fetch_x() { return QUERY(0); }                     \
    static __forceinline__ uint32_t __fetch_y() { return QUERY(1); }                     \
    static __forceinline__ uint32_t __fetch_z() { return QUERY(2); }                     \
    __declspec(property(get = __fetch_x)) uint32_t x;                                    \
    __declspec(property(get = __fetch_y)) uint32_t y;                                    \
    __declspec(property(get = __fetch_z)) uint32_t z;                                    \
  }
__HRX_HIP_DIM3_BUILTIN(__hrx_hip_threadIdx, hrx_workitem_id);
__HRX_HIP_DIM3_BUILTIN(__hrx_hip_blockIdx, hrx_workgroup_id);
__HRX_HIP_DIM3_BUILTIN(__hrx_hip_blockDim, hrx_workgroup_size);
__HRX_HIP_DIM3_BUILTIN(__hrx_hip_gridDim, hrx_workgroup_count);
#undef __HRX_HIP_DIM3_BUILTIN

inline constexpr __hrx_hip_threadIdx threadIdx{};
inline constexpr __hrx_hip_blockIdx blockIdx{};
inline constexpr __hrx_hip_blockDim blockDim{};
inline constexpr __hrx_hip_gridDim gridDim{};

struct dim3 {
  uint32_t x = 1, y = 1, z = 1;
  constexpr dim3(uint32_t x_ = 1, uint32_t y_ = 1, uint32_t z_ = 1) : x(x_), y(y_), z(z_) {}
};

__forceinline__ void __syncthreads() { hrx_barrier(); }

#endif  // __HIP__

#endif  // HRX_HIP_RUNTIME_H
