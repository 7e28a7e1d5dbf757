// hrx's HIP device API (docs/cxx.md, "HIP sources"). Included before every HIP unit, as Clang
// includes its runtime wrapper. On amdgcn the math is Clang's own HIP math header over ROCm's
// ocml; on the host reference device it is the host libm, atomics are __atomic operations, and
// barriers and warp functions run a workgroup's work-items cooperatively (fibers).
#ifndef HRX_HIP_DEVICE_H
#define HRX_HIP_DEVICE_H

#if !defined(__HIP__)
#error "<hip/__hrx_hip_device.h> is for HIP units (.hip or -x hip)"
#endif

#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <float.h>

#if defined(__HRX_TARGET_AMDGPU__)
#if defined(__HRX_HOST_HEADERS__)
// Over the host's C/C++ headers (hrxcc --host-headers): Clang's wrapper as Clang includes it,
// with <cmath>, <cstdlib>, <algorithm>, <complex> and <new>.
#include <__clang_hip_runtime_wrapper.h>
#else
// Clang's wrapper in its freestanding (hipRTC) form: attributes, malloc/free and the HIP math
// API over ocml/ockl.
#define __HIPCC_RTC__ 1
#include <__clang_hip_runtime_wrapper.h>
#undef __HIPCC_RTC__
#endif
// ROCm's device libraries as Debian ships them (5.2) end at gfx1036: the ISA version they read
// for gfx1151 is defined here (major 11, minor 5, stepping 1).
extern "C" __attribute__((weak, visibility("hidden"))) __constant__ const int __oclc_ISA_version = 11501;
#else
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#if defined(__HRX_HOST_HEADERS__)
// The host twin over the host's headers: device code runs on the host, so the C library and
// libstdc++'s math are callable from it (host and device), as the host libm serves the twin.
// The C library's own headers (the importer names them: __HRX_LIBC_*_H) are read here, for host
// and device; <new> stays host-only (Clang's CUDA wrapper adds the device operator new over
// malloc); C++ overloads (std::sin(float)...) stay the host's alone.
extern "C" __host__ __device__ void *malloc(size_t) noexcept;
extern "C" __host__ __device__ void free(void *) noexcept;
#include <new>
#pragma clang force_cuda_host_device begin
#include __HRX_LIBC_STDLIB_H
#include __HRX_LIBC_STRING_H
#include __HRX_LIBC_MATH_H
#include __HRX_LIBC_STDIO_H
#include <mm_malloc.h>  // (x86) re-declares posix_memalign: it must agree with <stdlib.h>
#pragma clang force_cuda_host_device end
// What Clang's runtime wrapper includes for the GPU, so that host code parses the same way.
#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <complex>
#endif
#endif

#define __HIP_PLATFORM_AMD__ 1
#define __HIP_PLATFORM_HCC__ 1
#define __HIP_DEVICE_COMPILE__ 1
// (A host's ROCm hip_version.h may have been read through Clang's wrapper: hrx's API wins.)
#undef HIP_VERSION_MAJOR
#undef HIP_VERSION_MINOR
#undef HIP_VERSION_PATCH
#undef HIP_VERSION
#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 0
#define HIP_VERSION_PATCH 0
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)
#define __HRX_HIP__ 1
// ROCm's spelling of a dynamic LDS array (used without a trailing semicolon).
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#if defined(__HRX_TARGET_AMDGPU__)
// Clang 22 records launch_bounds but does not bound the flat workgroup size with it; hrx does.
#define __HRX_LAUNCH_BOUND_FIRST(max_threads, ...) max_threads
#define __launch_bounds__(...) \
  __attribute__((launch_bounds(__VA_ARGS__), amdgpu_flat_work_group_size(1, __HRX_LAUNCH_BOUND_FIRST(__VA_ARGS__, 0))))
#else
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#endif
#define __restrict__ __restrict
#define __HRX_HD __host__ __device__ __forceinline__
#define __HRX_D __device__ __forceinline__

// ---- Coordinates ------------------------------------------------------------------------------
#if defined(__HRX_TARGET_AMDGPU__)
#define __HRX_ITEM_X __builtin_amdgcn_workitem_id_x()
#define __HRX_ITEM_Y __builtin_amdgcn_workitem_id_y()
#define __HRX_ITEM_Z __builtin_amdgcn_workitem_id_z()
#define __HRX_GROUP_X __builtin_amdgcn_workgroup_id_x()
#define __HRX_GROUP_Y __builtin_amdgcn_workgroup_id_y()
#define __HRX_GROUP_Z __builtin_amdgcn_workgroup_id_z()
#define __HRX_SIZE_X __builtin_amdgcn_workgroup_size_x()
#define __HRX_SIZE_Y __builtin_amdgcn_workgroup_size_y()
#define __HRX_SIZE_Z __builtin_amdgcn_workgroup_size_z()
#define __HRX_COUNT_X (__builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x())
#define __HRX_COUNT_Y (__builtin_amdgcn_grid_size_y() / __builtin_amdgcn_workgroup_size_y())
#define __HRX_COUNT_Z (__builtin_amdgcn_grid_size_z() / __builtin_amdgcn_workgroup_size_z())
#else
// Left undefined on purpose: the host twin supplies them (docs/cxx.md).
extern "C" __device__ uint32_t __hrx_host_workitem_id(uint32_t dim);
extern "C" __device__ uint32_t __hrx_host_workgroup_id(uint32_t dim);
extern "C" __device__ uint32_t __hrx_host_workgroup_size(uint32_t dim);
extern "C" __device__ uint32_t __hrx_host_workgroup_count(uint32_t dim);
extern "C" __device__ void __hrx_host_barrier(void);
// Every work-item of the caller's wave that reaches a warp function posts `value`; each gets
// all posted values (values[lane]) and the mask of the lanes that posted.
extern "C" __device__ uint64_t __hrx_host_warp_gather(uint64_t value, uint64_t *values);
#define __HRX_ITEM_X __hrx_host_workitem_id(0)
#define __HRX_ITEM_Y __hrx_host_workitem_id(1)
#define __HRX_ITEM_Z __hrx_host_workitem_id(2)
#define __HRX_GROUP_X __hrx_host_workgroup_id(0)
#define __HRX_GROUP_Y __hrx_host_workgroup_id(1)
#define __HRX_GROUP_Z __hrx_host_workgroup_id(2)
#define __HRX_SIZE_X __hrx_host_workgroup_size(0)
#define __HRX_SIZE_Y __hrx_host_workgroup_size(1)
#define __HRX_SIZE_Z __hrx_host_workgroup_size(2)
#define __HRX_COUNT_X __hrx_host_workgroup_count(0)
#define __HRX_COUNT_Y __hrx_host_workgroup_count(1)
#define __HRX_COUNT_Z __hrx_host_workgroup_count(2)
#endif

#define __HRX_HIP_DIM3_BUILTIN(TYPE, X, Y, Z)                                      \
  struct TYPE {                                                                    \
    static __HRX_D uint32_t __get_x() { return X; }                                \
    static __HRX_D uint32_t __get_y() { return Y; }                                \
    static __HRX_D uint32_t __get_z() { return Z; }                                \
    __declspec(property(get = __get_x)) uint32_t x;                                \
    __declspec(property(get = __get_y)) uint32_t y;                                \
    __declspec(property(get = __get_z)) uint32_t z;                                \
  }
__HRX_HIP_DIM3_BUILTIN(__hip_builtin_threadIdx_t, __HRX_ITEM_X, __HRX_ITEM_Y, __HRX_ITEM_Z);
__HRX_HIP_DIM3_BUILTIN(__hip_builtin_blockIdx_t, __HRX_GROUP_X, __HRX_GROUP_Y, __HRX_GROUP_Z);
__HRX_HIP_DIM3_BUILTIN(__hip_builtin_blockDim_t, __HRX_SIZE_X, __HRX_SIZE_Y, __HRX_SIZE_Z);
__HRX_HIP_DIM3_BUILTIN(__hip_builtin_gridDim_t, __HRX_COUNT_X, __HRX_COUNT_Y, __HRX_COUNT_Z);
#undef __HRX_HIP_DIM3_BUILTIN
extern const __device__ __attribute__((weak)) __hip_builtin_threadIdx_t threadIdx;
extern const __device__ __attribute__((weak)) __hip_builtin_blockIdx_t blockIdx;
extern const __device__ __attribute__((weak)) __hip_builtin_blockDim_t blockDim;
extern const __device__ __attribute__((weak)) __hip_builtin_gridDim_t gridDim;

#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

// gfx1151 runs wave32; the host twin emulates 32-lane waves.
#ifndef __AMDGCN_WAVEFRONT_SIZE
#define __AMDGCN_WAVEFRONT_SIZE 32
#endif
static constexpr int warpSize = 32;

// ---- Synchronisation --------------------------------------------------------------------------
#if defined(__HRX_TARGET_AMDGPU__)
__HRX_D void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__HRX_D void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
__HRX_D void __threadfence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }
__HRX_D void __threadfence_system() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, ""); }
__HRX_D unsigned __lane_id() { return __builtin_amdgcn_mbcnt_lo(~0u, 0u); }
__HRX_D void __builtin_hrx_wave_barrier() { __builtin_amdgcn_wave_barrier(); }
#else
__HRX_D void __syncthreads() { __hrx_host_barrier(); }
__HRX_D void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
__HRX_D void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
__HRX_D void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
__HRX_D unsigned __lane_id() {
  return (__HRX_ITEM_X + __HRX_SIZE_X * (__HRX_ITEM_Y + __HRX_SIZE_Y * __HRX_ITEM_Z)) % 32u;
}
#endif

// ---- Warp functions ---------------------------------------------------------------------------
#if defined(__HRX_TARGET_AMDGPU__)
__HRX_D unsigned long long __ballot(int predicate) { return __builtin_amdgcn_ballot_w32(predicate != 0); }
__HRX_D int __hrx_permute32(int index, int value) { return __builtin_amdgcn_ds_bpermute(index << 2, value); }
#else
__HRX_D unsigned long long __ballot(int predicate) {
  uint64_t values[64];
  uint64_t mask = __hrx_host_warp_gather(predicate != 0, values);
  unsigned long long out = 0;
  for (int lane = 0; lane < 32; ++lane)
    if ((mask >> lane & 1) && values[lane]) out |= 1ull << lane;
  return out;
}
#endif
__HRX_D unsigned long long __ballot64(int predicate) { return __ballot(predicate); }
__HRX_D unsigned long long __activemask() { return __ballot(1); }
__HRX_D int __any(int predicate) { return __ballot(predicate) != 0; }
__HRX_D int __all(int predicate) { return __ballot(predicate) == __ballot(1); }
__HRX_D void __syncwarp(unsigned long long = ~0ull) {}

// The source lane of each shuffle, as HIP defines it (out-of-segment sources read the caller).
__HRX_D int __hrx_shfl_index(int self, int src, int width) { return src + (self & ~(width - 1)); }
__HRX_D int __hrx_shfl_up_index(int self, unsigned delta, int width) {
  int index = self - (int)delta;
  return index < (self & ~(width - 1)) ? self : index;
}
__HRX_D int __hrx_shfl_down_index(int self, unsigned delta, int width) {
  return (int)((self & (width - 1)) + delta) >= width ? self : self + (int)delta;
}
__HRX_D int __hrx_shfl_xor_index(int self, int mask, int width) {
  int index = self ^ mask;
  return index >= ((self + width) & ~(width - 1)) ? self : index;
}

#if defined(__HRX_TARGET_AMDGPU__)
__HRX_D uint32_t __hrx_shfl_bits32(uint32_t bits, int index) { return (uint32_t)__hrx_permute32(index, (int)bits); }
__HRX_D uint64_t __hrx_shfl_bits64(uint64_t bits, int index) {
  return (uint64_t)__hrx_shfl_bits32((uint32_t)bits, index) |
         ((uint64_t)__hrx_shfl_bits32((uint32_t)(bits >> 32), index) << 32);
}
#else
__HRX_D uint64_t __hrx_shfl_bits64(uint64_t bits, int index) {
  uint64_t values[64];
  uint64_t mask = __hrx_host_warp_gather(bits, values);
  index &= 31;
  return (mask >> index & 1) ? values[index] : bits;
}
__HRX_D uint32_t __hrx_shfl_bits32(uint32_t bits, int index) { return (uint32_t)__hrx_shfl_bits64(bits, index); }
#endif

template <typename T>
__HRX_D T __hrx_shfl_any(T value, int index) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 2, "HIP shuffles move 2-, 4- or 8-byte values");
  if constexpr (sizeof(T) == 8) {
    return __builtin_bit_cast(T, __hrx_shfl_bits64(__builtin_bit_cast(uint64_t, value), index));
  } else if constexpr (sizeof(T) == 4) {
    return __builtin_bit_cast(T, __hrx_shfl_bits32(__builtin_bit_cast(uint32_t, value), index));
  } else {
    return __builtin_bit_cast(T, (uint16_t)__hrx_shfl_bits32(__builtin_bit_cast(uint16_t, value), index));
  }
}
template <typename T>
__HRX_D T __shfl(T var, int src_lane, int width = warpSize) {
  return __hrx_shfl_any(var, __hrx_shfl_index((int)__lane_id(), src_lane, width));
}
template <typename T>
__HRX_D T __shfl_up(T var, unsigned int delta, int width = warpSize) {
  return __hrx_shfl_any(var, __hrx_shfl_up_index((int)__lane_id(), delta, width));
}
template <typename T>
__HRX_D T __shfl_down(T var, unsigned int delta, int width = warpSize) {
  return __hrx_shfl_any(var, __hrx_shfl_down_index((int)__lane_id(), delta, width));
}
template <typename T>
__HRX_D T __shfl_xor(T var, int lane_mask, int width = warpSize) {
  return __hrx_shfl_any(var, __hrx_shfl_xor_index((int)__lane_id(), lane_mask, width));
}
template <typename T>
__HRX_D T __shfl_sync(unsigned long long, T var, int src_lane, int width = warpSize) { return __shfl(var, src_lane, width); }
template <typename T>
__HRX_D T __shfl_up_sync(unsigned long long, T var, unsigned delta, int width = warpSize) { return __shfl_up(var, delta, width); }
template <typename T>
__HRX_D T __shfl_down_sync(unsigned long long, T var, unsigned delta, int width = warpSize) { return __shfl_down(var, delta, width); }
template <typename T>
__HRX_D T __shfl_xor_sync(unsigned long long, T var, int mask, int width = warpSize) { return __shfl_xor(var, mask, width); }

// __syncthreads_count/_and/_or: a barrier that also counts the predicate over the workgroup.
__HRX_D int __syncthreads_count(int predicate) {
  __shared__ int __hrx_count;
  if (__HRX_ITEM_X == 0 && __HRX_ITEM_Y == 0 && __HRX_ITEM_Z == 0) __hrx_count = 0;
  __syncthreads();
  if (predicate) __hip_atomic_fetch_add(&__hrx_count, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __syncthreads();
  int count = __hrx_count;
  __syncthreads();
  return count;
}
__HRX_D int __syncthreads_and(int predicate) {
  return __syncthreads_count(predicate) ==
         (int)(__HRX_SIZE_X * __HRX_SIZE_Y * __HRX_SIZE_Z);
}
__HRX_D int __syncthreads_or(int predicate) { return __syncthreads_count(predicate) != 0; }

// ---- Integer intrinsics -----------------------------------------------------------------------
__HRX_HD int __popc(unsigned int x) { return __builtin_popcount(x); }
__HRX_HD int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__HRX_HD int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
__HRX_HD int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
__HRX_HD int __ffs(int x) { return __builtin_ffs(x); }
__HRX_HD int __ffsll(long long x) { return __builtin_ffsll(x); }
__HRX_HD unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
__HRX_HD unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
__HRX_HD int __mul24(int x, int y) { return ((x << 8) >> 8) * ((y << 8) >> 8); }
__HRX_HD unsigned int __umul24(unsigned int x, unsigned int y) { return (x & 0xFFFFFFu) * (y & 0xFFFFFFu); }
__HRX_HD int __mulhi(int x, int y) { return (int)(((long long)x * y) >> 32); }
__HRX_HD unsigned int __umulhi(unsigned int x, unsigned int y) { return (unsigned)(((unsigned long long)x * y) >> 32); }
__HRX_HD long long __mul64hi(long long x, long long y) { return (long long)(((__int128)x * y) >> 64); }
__HRX_HD unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}
__HRX_HD unsigned int __bitextract_u32(unsigned int src, unsigned int offset, unsigned int width) {
  offset &= 31;
  width &= 31;
  return width == 0 ? 0u : (src << (32 - offset - width)) >> (32 - width);
}
#if !defined(__HRX_TARGET_AMDGPU__)
// The host twin replaces the body of a function the host cannot compile (an amdgcn builtin or
// inline assembly) with a call to this; kernels that reach it get no host code (docs/host-twin.md).
extern "C" [[noreturn]] __host__ __device__ __attribute__((noinline)) inline void __hrx_host_unavailable(int) {
  __builtin_trap();
}
#endif
// hcc's spelling (hcc-era samples call it under __HIP_PLATFORM_HCC__, which hrx defines).
namespace hc {
using ::__bitextract_u32;
}
__HRX_HD unsigned int __sad(int x, int y, unsigned int z) { return z + (x > y ? (unsigned)(x - y) : (unsigned)(y - x)); }
__HRX_HD unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return z + (x > y ? x - y : y - x); }
__HRX_HD int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
__HRX_HD int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
__HRX_HD unsigned int __uhadd(unsigned int x, unsigned int y) { return (unsigned)(((unsigned long long)x + y) >> 1); }
__HRX_HD unsigned int __urhadd(unsigned int x, unsigned int y) { return (unsigned)(((unsigned long long)x + y + 1) >> 1); }

#if defined(__HRX_TARGET_AMDGPU__)
__HRX_D unsigned long long clock64() { return __builtin_readcyclecounter(); }
__HRX_D unsigned long long wall_clock64() { return __builtin_amdgcn_s_memrealtime(); }
#else
__HRX_D unsigned long long clock64() { return __builtin_readcyclecounter(); }
__HRX_D unsigned long long wall_clock64() { return __builtin_readcyclecounter(); }
#endif
__HRX_D long long clock() { return (long long)clock64(); }

// ---- Atomics (device scope, relaxed, as HIP's) ------------------------------------------------
#define __HRX_ATOMIC(name, builtin)                                                                  \
  __HRX_D int name(int *p, int v) { return builtin(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); } \
  __HRX_D unsigned int name(unsigned int *p, unsigned int v) {                                        \
    return builtin(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);                                 \
  }                                                                                                   \
  __HRX_D unsigned long name(unsigned long *p, unsigned long v) {                                     \
    return builtin(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);                                 \
  }                                                                                                   \
  __HRX_D long long name(long long *p, long long v) {                                                 \
    return builtin(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);                                 \
  }                                                                                                   \
  __HRX_D unsigned long long name(unsigned long long *p, unsigned long long v) {                      \
    return builtin(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);                                 \
  }
__HRX_ATOMIC(atomicAdd, __hip_atomic_fetch_add)
__HRX_ATOMIC(atomicAnd, __hip_atomic_fetch_and)
__HRX_ATOMIC(atomicOr, __hip_atomic_fetch_or)
__HRX_ATOMIC(atomicXor, __hip_atomic_fetch_xor)
__HRX_ATOMIC(atomicMin, __hip_atomic_fetch_min)
__HRX_ATOMIC(atomicMax, __hip_atomic_fetch_max)
#undef __HRX_ATOMIC
__HRX_D float atomicAdd(float *p, float v) { return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }
__HRX_D double atomicAdd(double *p, double v) { return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }
__HRX_D int atomicSub(int *p, int v) { return __hip_atomic_fetch_sub(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }
__HRX_D unsigned int atomicSub(unsigned int *p, unsigned int v) {
  return __hip_atomic_fetch_sub(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
__HRX_D unsigned long long atomicSub(unsigned long long *p, unsigned long long v) {
  return __hip_atomic_fetch_sub(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
__HRX_D float atomicSub(float *p, float v) { return atomicAdd(p, -v); }
__HRX_D double atomicSub(double *p, double v) { return atomicAdd(p, -v); }

template <typename T>
__HRX_D T __hrx_atomic_exchange(T *p, T v) {
  return __hip_atomic_exchange(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
__HRX_D int atomicExch(int *p, int v) { return __hrx_atomic_exchange(p, v); }
__HRX_D unsigned int atomicExch(unsigned int *p, unsigned int v) { return __hrx_atomic_exchange(p, v); }
__HRX_D unsigned long long atomicExch(unsigned long long *p, unsigned long long v) { return __hrx_atomic_exchange(p, v); }
__HRX_D float atomicExch(float *p, float v) { return __hrx_atomic_exchange(p, v); }
__HRX_D double atomicExch(double *p, double v) { return __hrx_atomic_exchange(p, v); }

template <typename T>
__HRX_D T __hrx_atomic_cas(T *p, T compare, T v) {
  __hip_atomic_compare_exchange_strong(p, &compare, v, __ATOMIC_RELAXED, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  return compare;
}
__HRX_D int atomicCAS(int *p, int c, int v) { return __hrx_atomic_cas(p, c, v); }
__HRX_D unsigned int atomicCAS(unsigned int *p, unsigned int c, unsigned int v) { return __hrx_atomic_cas(p, c, v); }
__HRX_D unsigned long long atomicCAS(unsigned long long *p, unsigned long long c, unsigned long long v) {
  return __hrx_atomic_cas(p, c, v);
}
__HRX_D float atomicCAS(float *p, float c, float v) {
  return __builtin_bit_cast(float, __hrx_atomic_cas((unsigned int *)p, __builtin_bit_cast(unsigned int, c),
                                                    __builtin_bit_cast(unsigned int, v)));
}
__HRX_D double atomicCAS(double *p, double c, double v) {
  return __builtin_bit_cast(double, __hrx_atomic_cas((unsigned long long *)p, __builtin_bit_cast(unsigned long long, c),
                                                     __builtin_bit_cast(unsigned long long, v)));
}

// Float min/max as compare/exchange loops over the bits: native float atomic max does not
// update coherent memory on gfx1151 (CXX/011). NaN operands leave the value unchanged.
template <typename F, typename B, bool kMax>
__HRX_D F __hrx_atomic_float_minmax(F *p, F v) {
  B *bits = (B *)p;
  B old = __hip_atomic_load(bits, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  while (kMax ? __builtin_bit_cast(F, old) < v : v < __builtin_bit_cast(F, old)) {
    if (__hip_atomic_compare_exchange_strong(bits, &old, __builtin_bit_cast(B, v), __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                             __HIP_MEMORY_SCOPE_AGENT))
      break;
  }
  return __builtin_bit_cast(F, old);
}
__HRX_D float atomicMax(float *p, float v) { return __hrx_atomic_float_minmax<float, unsigned int, true>(p, v); }
__HRX_D float atomicMin(float *p, float v) { return __hrx_atomic_float_minmax<float, unsigned int, false>(p, v); }
__HRX_D double atomicMax(double *p, double v) { return __hrx_atomic_float_minmax<double, unsigned long long, true>(p, v); }
__HRX_D double atomicMin(double *p, double v) { return __hrx_atomic_float_minmax<double, unsigned long long, false>(p, v); }

// atomicInc/atomicDec wrap at `limit` (CUDA semantics).
__HRX_D unsigned int atomicInc(unsigned int *p, unsigned int limit) {
  unsigned int old = __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  while (!__hip_atomic_compare_exchange_strong(p, &old, old >= limit ? 0u : old + 1u, __ATOMIC_RELAXED,
                                               __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)) {
  }
  return old;
}
__HRX_D unsigned int atomicDec(unsigned int *p, unsigned int limit) {
  unsigned int old = __hip_atomic_load(p, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  while (!__hip_atomic_compare_exchange_strong(p, &old, (old == 0u || old > limit) ? limit : old - 1u,
                                               __ATOMIC_RELAXED, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)) {
  }
  return old;
}
#define atomicAdd_system atomicAdd
#define atomicExch_system atomicExch
#define atomicCAS_system atomicCAS
#define unsafeAtomicAdd atomicAdd

// ---- Device-side assert -----------------------------------------------------------------------
#if defined(__HRX_TARGET_AMDGPU__)
#define __hrx_trap() __builtin_trap()
#else
#define __hrx_trap() __builtin_trap()
#endif
#ifndef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : __hrx_trap())
#endif
#endif

#include <hip/__hrx_hip_math.h>
#include <hip/__hrx_hip_vector_types.h>
#include <hip/__hrx_hip_fp16.h>
#include <hip/__hrx_hip_host_api.h>
#include <hip/__hrx_hip_texture.h>

#endif  // HRX_HIP_DEVICE_H
