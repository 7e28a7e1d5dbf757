// hrx <hip/cooperative_groups/hip_reduce.h>: cg::reduce over a thread_block_tile, a butterfly of
// xor shuffles, so every member returns the whole tile's result.
#ifndef HRX_HIP_CG_REDUCE_H
#define HRX_HIP_CG_REDUCE_H

#include <hip/cooperative_groups/__hrx_functional.h>

namespace cooperative_groups {
template <unsigned Size, class TyVal, class Operation>
__HRX_D __hrx_cg::remove_cvref_t<TyVal> reduce(const thread_block_tile<Size> &group, TyVal &&val, Operation &&op) {
  __hrx_cg::remove_cvref_t<TyVal> value = val;
  for (unsigned mask = Size / 2; mask > 0; mask /= 2) value = op(value, group.shfl_xor(value, int(mask)));
  return value;
}
template <unsigned Size, class TyVal>
__HRX_D __hrx_cg::remove_cvref_t<TyVal> reduce(const thread_block_tile<Size> &group, TyVal &&val) {
  return reduce(group, static_cast<TyVal &&>(val), plus<__hrx_cg::remove_cvref_t<TyVal>>());
}
}  // namespace cooperative_groups

#endif  // HRX_HIP_CG_REDUCE_H
