// hrx's cooperative groups (<hip/hip_cooperative_groups.h>): the block and the static tiles of at
// most one wave (32 work-items on gfx1151), as HIP samples use them; reduce and the scans are in
// <hip/cooperative_groups/hip_reduce.h> and <hip/cooperative_groups/hip_scan.h>. A thread_group passed by
// value keeps what it was (block or tile). Grid-wide groups (this_grid, grid.sync) are not
// provided: the host device runs one workgroup at a time and could not meet a grid barrier.
#ifndef HRX_HIP_COOPERATIVE_GROUPS_H
#define HRX_HIP_COOPERATIVE_GROUPS_H

#include <hip/hip_runtime.h>

namespace cooperative_groups {
namespace __hrx_cg {
enum class group_kind : unsigned { block, tile };
__HRX_D unsigned block_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
__HRX_D unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
// A tile lies inside one wave: its members meet at a wave-level rendezvous.
__HRX_D void tile_sync() {
#if defined(__HRX_TARGET_AMDGPU__)
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
#else
  uint64_t values[64];
  (void)__hrx_host_warp_gather(0, values);
#endif
}
}  // namespace __hrx_cg

class thread_group {
public:
  __HRX_D thread_group(__hrx_cg::group_kind kind, unsigned size) : kind_(kind), size_(size) {}
  __HRX_D unsigned size() const { return size_; }
  __HRX_D unsigned num_threads() const { return size_; }
  __HRX_D unsigned thread_rank() const {
    return kind_ == __hrx_cg::group_kind::block ? __hrx_cg::block_rank() : __hrx_cg::block_rank() % size_;
  }
  __HRX_D void sync() const {
    if (kind_ == __hrx_cg::group_kind::block) __syncthreads();
    else __hrx_cg::tile_sync();
  }

protected:
  __hrx_cg::group_kind kind_;
  unsigned size_;
};

class thread_block : public thread_group {
public:
  __HRX_D thread_block() : thread_group(__hrx_cg::group_kind::block, __hrx_cg::block_size()) {}
  __HRX_D dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __HRX_D dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  __HRX_D dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
};
__HRX_D thread_block this_thread_block() { return thread_block(); }

template <unsigned Size>
class thread_block_tile : public thread_group {
  // Up to 64, AMD's widest wave: samples instantiate a tile per wave size (ROCm 7 no longer makes
  // the wave size a compile-time constant) and pick one at run time. A tile wider than this
  // device's wave (32 on gfx1151) traps when it is made, rather than failing the compile.
  static_assert(Size > 0 && (Size & (Size - 1)) == 0 && Size <= 64,
                "hrx: a thread_block_tile is a power of two of at most 64 work-items (one wave)");

public:
  __HRX_D thread_block_tile() : thread_group(__hrx_cg::group_kind::tile, Size) {
    if constexpr (Size > unsigned(warpSize)) __hrx_trap();
  }
  __HRX_D unsigned thread_rank() const { return __hrx_cg::block_rank() % Size; }
  __HRX_D unsigned meta_group_rank() const { return __hrx_cg::block_rank() / Size; }
  __HRX_D unsigned meta_group_size() const { return (__hrx_cg::block_size() + Size - 1) / Size; }
  __HRX_D void sync() const { __hrx_cg::tile_sync(); }
  template <class T> __HRX_D T shfl(T value, int source_rank) const { return __shfl(value, source_rank, Size); }
  template <class T> __HRX_D T shfl_up(T value, unsigned delta) const { return __shfl_up(value, delta, Size); }
  template <class T> __HRX_D T shfl_down(T value, unsigned delta) const { return __shfl_down(value, delta, Size); }
  template <class T> __HRX_D T shfl_xor(T value, int mask) const { return __shfl_xor(value, mask, Size); }
};

template <unsigned Size, class Parent>
__HRX_D thread_block_tile<Size> tiled_partition(const Parent &) { return thread_block_tile<Size>(); }
__HRX_D thread_group tiled_partition(const thread_group &, unsigned tile_size) {
  return thread_group(__hrx_cg::group_kind::tile, tile_size);
}
template <class Group>
__HRX_D void sync(const Group &group) { group.sync(); }
}  // namespace cooperative_groups

#endif  // HRX_HIP_COOPERATIVE_GROUPS_H
