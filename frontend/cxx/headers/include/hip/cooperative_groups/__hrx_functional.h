// The operation functors of HIP's cooperative groups (plus, less = minimum, greater = maximum,
// bit_and, bit_or, bit_xor) and the identity AMD's exclusive scan gives the first lane for each.
#ifndef HRX_HIP_CG_FUNCTIONAL_H
#define HRX_HIP_CG_FUNCTIONAL_H

#include <hip/hip_cooperative_groups.h>

namespace cooperative_groups {
template <class T> struct plus {
  __HRX_D T operator()(const T &a, const T &b) const { return a + b; }
};
template <class T> struct less {
  __HRX_D T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
template <class T> struct greater {
  __HRX_D T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
template <class T> struct bit_and {
  __HRX_D T operator()(const T &a, const T &b) const { return a & b; }
};
template <class T> struct bit_or {
  __HRX_D T operator()(const T &a, const T &b) const { return a | b; }
};
template <class T> struct bit_xor {
  __HRX_D T operator()(const T &a, const T &b) const { return a ^ b; }
};

namespace __hrx_cg {
template <class T> __HRX_D constexpr T largest() {
  if constexpr (__is_floating_point(T))
    return T(__builtin_huge_valf());
  else if constexpr (T(-1) < T(0))
    return T(~(T(1) << (sizeof(T) * 8 - 1)));
  else
    return T(~T(0));
}
template <class T> __HRX_D constexpr T lowest() {
  if constexpr (__is_floating_point(T))
    return T(-__builtin_huge_valf());
  else if constexpr (T(-1) < T(0))
    return T(T(1) << (sizeof(T) * 8 - 1));
  else
    return T(0);
}
// What lane 0 of an exclusive scan returns: the operation's identity (AMD's documented values),
// T{} for any other operation.
template <class T, class Op> struct scan_identity {
  static __HRX_D T value() { return T{}; }
};
template <class T> struct scan_identity<T, less<T>> {
  static __HRX_D T value() { return largest<T>(); }
};
template <class T> struct scan_identity<T, greater<T>> {
  static __HRX_D T value() { return lowest<T>(); }
};
template <class T> struct scan_identity<T, bit_and<T>> {
  static __HRX_D T value() { return T(~T(0)); }
};
template <class T> using remove_cvref_t = __remove_cvref(T);
}  // namespace __hrx_cg
}  // namespace cooperative_groups

#endif  // HRX_HIP_CG_FUNCTIONAL_H
