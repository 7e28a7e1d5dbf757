// hrx <hip/cooperative_groups/hip_scan.h>: cg::inclusive_scan and cg::exclusive_scan over a
// thread_block_tile (Hillis-Steele over up-shuffles: log2(Size) steps, op(earlier, later)). The
// exclusive scan's first member gets the operation's identity, as on AMD.
#ifndef HRX_HIP_CG_SCAN_H
#define HRX_HIP_CG_SCAN_H

#include <hip/cooperative_groups/__hrx_functional.h>

namespace cooperative_groups {
template <unsigned Size, class TyVal, class Operation> __HRX_D __hrx_cg::remove_cvref_t<TyVal>
inclusive_scan(const thread_block_tile<Size> &group, TyVal &&val, Operation &&op) {
  __hrx_cg::remove_cvref_t<TyVal> value = val;
  const unsigned rank = group.thread_rank();
  for (unsigned delta = 1; delta < Size; delta *= 2) {
    __hrx_cg::remove_cvref_t<TyVal> earlier = group.shfl_up(value, delta);
    if (rank >= delta) value = op(earlier, value);
  }
  return value;
}
template <unsigned Size, class TyVal>
__HRX_D __hrx_cg::remove_cvref_t<TyVal> inclusive_scan(const thread_block_tile<Size> &group, TyVal &&val) {
  return inclusive_scan(group, static_cast<TyVal &&>(val), plus<__hrx_cg::remove_cvref_t<TyVal>>());
}
template <unsigned Size, class TyVal, class Operation> __HRX_D __hrx_cg::remove_cvref_t<TyVal>
exclusive_scan(const thread_block_tile<Size> &group, TyVal &&val, Operation &&op) {
  using T = __hrx_cg::remove_cvref_t<TyVal>;
  T inclusive = inclusive_scan(group, static_cast<TyVal &&>(val), op);
  T previous = group.shfl_up(inclusive, 1);
  return group.thread_rank() == 0 ? __hrx_cg::scan_identity<T, __hrx_cg::remove_cvref_t<Operation>>::value() : previous;
}
template <unsigned Size, class TyVal>
__HRX_D __hrx_cg::remove_cvref_t<TyVal> exclusive_scan(const thread_block_tile<Size> &group, TyVal &&val) {
  return exclusive_scan(group, static_cast<TyVal &&>(val), plus<__hrx_cg::remove_cvref_t<TyVal>>());
}
}  // namespace cooperative_groups

#endif  // HRX_HIP_CG_SCAN_H
