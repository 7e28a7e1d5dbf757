// HIP vector types (char1..double4) and make_<type><n>: structs of 1-4 named lanes with
// element-wise arithmetic, sized and aligned as in HIP (n = 3 is not padded).
//
// Each type is its own struct (its name is what mangled names and diagnostics show); the
// operators are function templates over every vector type, so that a unit pays only for the
// operators it uses: this header is parsed twice per HIP unit (device and host twin).
#ifndef HRX_HIP_VECTOR_TYPES_H
#define HRX_HIP_VECTOR_TYPES_H
#define __HRX_V __host__ __device__ inline __attribute__((always_inline))

// Applies `s.lane OP o.lane` to the lanes of a vector of N lanes.
#define __HRX_VECTOR_LANEWISE(N, STATEMENT) \
  STATEMENT(x);                             \
  if constexpr (N > 1) STATEMENT(y);        \
  if constexpr (N > 2) STATEMENT(z);        \
  if constexpr (N > 3) STATEMENT(w)

#define __HRX_VECTOR_ADD_AT(l) s.l += o.l
#define __HRX_VECTOR_SUB_AT(l) s.l -= o.l
#define __HRX_VECTOR_MUL_AT(l) s.l *= o.l
#define __HRX_VECTOR_DIV_AT(l) s.l /= o.l
#define __HRX_VECTOR_REM_AT(l) s.l %= o.l
#define __HRX_VECTOR_AND_AT(l) s.l &= o.l
#define __HRX_VECTOR_OR_AT(l) s.l |= o.l
#define __HRX_VECTOR_XOR_AT(l) s.l ^= o.l

// Compound assignment, lane by lane; the second form accepts an rvalue on the left, as a member
// operator would (V(a) += b).
#define __HRX_VECTOR_COMPOUND(OP, ELEMENT, AT)    \
  template <class V, class = typename V::ELEMENT> \
  __HRX_V V &operator OP(V &s, const V &o) {      \
    __HRX_VECTOR_LANEWISE(V::__hrx_lanes, AT);    \
    return s;                                     \
  }                                               \
  template <class V, class = typename V::ELEMENT> \
  __HRX_V V &operator OP(V &&s, const V &o) {     \
    return s OP o;                                \
  }
__HRX_VECTOR_COMPOUND(+=, __hrx_element, __HRX_VECTOR_ADD_AT)
__HRX_VECTOR_COMPOUND(-=, __hrx_element, __HRX_VECTOR_SUB_AT)
__HRX_VECTOR_COMPOUND(*=, __hrx_element, __HRX_VECTOR_MUL_AT)
__HRX_VECTOR_COMPOUND(/=, __hrx_element, __HRX_VECTOR_DIV_AT)
__HRX_VECTOR_COMPOUND(%=, __hrx_integer_element, __HRX_VECTOR_REM_AT)
__HRX_VECTOR_COMPOUND(&=, __hrx_integer_element, __HRX_VECTOR_AND_AT)
__HRX_VECTOR_COMPOUND(|=, __hrx_integer_element, __HRX_VECTOR_OR_AT)
__HRX_VECTOR_COMPOUND(^=, __hrx_integer_element, __HRX_VECTOR_XOR_AT)
#undef __HRX_VECTOR_COMPOUND

// vector OP vector, vector OP lane, lane OP vector. The lane parameter is not deduced (it
// converts as a plain function's would); ELEMENT limits an operator to the vector types that
// declare it.
#define __HRX_VECTOR_BINARY(OP, ELEMENT)                     \
  template <class V, class = typename V::ELEMENT>            \
  __HRX_V V operator OP(V a, const V &b) {                   \
    return a OP##= b;                                        \
  }                                                          \
  template <class V, class = typename V::ELEMENT>            \
  __HRX_V V operator OP(V a, typename V::ELEMENT b) {        \
    return a OP##= V(b);                                     \
  }                                                          \
  template <class V, class = typename V::ELEMENT>            \
  __HRX_V V operator OP(typename V::ELEMENT a, const V &b) { \
    return V(a) OP##= b;                                     \
  }
__HRX_VECTOR_BINARY(+, __hrx_element)
__HRX_VECTOR_BINARY(-, __hrx_element)
__HRX_VECTOR_BINARY(*, __hrx_element)
__HRX_VECTOR_BINARY(/, __hrx_element)
__HRX_VECTOR_BINARY(%, __hrx_integer_element)
__HRX_VECTOR_BINARY(&, __hrx_integer_element)
__HRX_VECTOR_BINARY(|, __hrx_integer_element)
__HRX_VECTOR_BINARY(^, __hrx_integer_element)
#undef __HRX_VECTOR_BINARY

template <class V, class T = typename V::__hrx_element>
__HRX_V V operator-(const V &a) {
  if constexpr (V::__hrx_lanes == 1) return V((T)-a.x);
  else if constexpr (V::__hrx_lanes == 2) return V((T)-a.x, (T)-a.y);
  else if constexpr (V::__hrx_lanes == 3) return V((T)-a.x, (T)-a.y, (T)-a.z);
  else return V((T)-a.x, (T)-a.y, (T)-a.z, (T)-a.w);
}
template <class V, class = typename V::__hrx_element>
__HRX_V bool operator==(const V &a, const V &b) {
  if constexpr (V::__hrx_lanes == 1) return a.x == b.x;
  else if constexpr (V::__hrx_lanes == 2) return a.x == b.x && a.y == b.y;
  else if constexpr (V::__hrx_lanes == 3) return a.x == b.x && a.y == b.y && a.z == b.z;
  else return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}
template <class V, class = typename V::__hrx_element>
__HRX_V bool operator!=(const V &a, const V &b) {
  return !(a == b);
}

// What the operators above read from a vector type: its lane type (integer vectors name it twice,
// for the integer-only operators) and its lane count.
#define __HRX_VECTOR_TRAITS_arithmetic(T, N) \
  using __hrx_element = T;                   \
  static constexpr int __hrx_lanes = N;
#define __HRX_VECTOR_TRAITS_integer(T, N) \
  __HRX_VECTOR_TRAITS_arithmetic(T, N) using __hrx_integer_element = T;

// The types: NAME, lane type, alignment, KIND (arithmetic or integer).
#define __HRX_VECTOR1(NAME, T, ALIGN, KIND)        \
  struct __attribute__((aligned(ALIGN))) NAME {    \
    __HRX_VECTOR_TRAITS_##KIND(T, 1)               \
    T x;                                           \
    NAME() = default;                              \
    __HRX_V constexpr explicit NAME(T s) : x(s) {} \
  };                                               \
  __HRX_V NAME make_##NAME(T x) {                  \
    NAME v;                                        \
    v.x = x;                                       \
    return v;                                      \
  }
#define __HRX_VECTOR2(NAME, T, ALIGN, KIND)              \
  struct __attribute__((aligned(ALIGN))) NAME {          \
    __HRX_VECTOR_TRAITS_##KIND(T, 2)                     \
    T x, y;                                              \
    NAME() = default;                                    \
    __HRX_V constexpr explicit NAME(T s) : x(s), y(s) {} \
    __HRX_V constexpr NAME(T x_, T y_) : x(x_), y(y_) {} \
  };                                                     \
  __HRX_V NAME make_##NAME(T x, T y) {                   \
    NAME v;                                              \
    v.x = x;                                             \
    v.y = y;                                             \
    return v;                                            \
  }
#define __HRX_VECTOR3(NAME, T, ALIGN, KIND)                           \
  struct __attribute__((aligned(ALIGN))) NAME {                       \
    __HRX_VECTOR_TRAITS_##KIND(T, 3)                                  \
    T x, y, z;                                                        \
    NAME() = default;                                                 \
    __HRX_V constexpr explicit NAME(T s) : x(s), y(s), z(s) {}        \
    __HRX_V constexpr NAME(T x_, T y_, T z_) : x(x_), y(y_), z(z_) {} \
  };                                                                  \
  __HRX_V NAME make_##NAME(T x, T y, T z) {                           \
    NAME v;                                                           \
    v.x = x;                                                          \
    v.y = y;                                                          \
    v.z = z;                                                          \
    return v;                                                         \
  }
#define __HRX_VECTOR4(NAME, T, ALIGN, KIND)                                        \
  struct __attribute__((aligned(ALIGN))) NAME {                                    \
    __HRX_VECTOR_TRAITS_##KIND(T, 4)                                               \
    T x, y, z, w;                                                                  \
    NAME() = default;                                                              \
    __HRX_V constexpr explicit NAME(T s) : x(s), y(s), z(s), w(s) {}               \
    __HRX_V constexpr NAME(T x_, T y_, T z_, T w_) : x(x_), y(y_), z(z_), w(w_) {} \
  };                                                                               \
  __HRX_V NAME make_##NAME(T x, T y, T z, T w) {                                   \
    NAME v;                                                                        \
    v.x = x;                                                                       \
    v.y = y;                                                                       \
    v.z = z;                                                                       \
    v.w = w;                                                                       \
    return v;                                                                      \
  }
// One lane type's four vectors: their alignments are the lane's size times 1, 2, 1 and 4
// (at most 16).
#define __HRX_VECTORS(NAME, T, A1, A2, A4, KIND) \
  __HRX_VECTOR1(NAME##1, T, A1, KIND)            \
  __HRX_VECTOR2(NAME##2, T, A2, KIND)            \
  __HRX_VECTOR3(NAME##3, T, A1, KIND)            \
  __HRX_VECTOR4(NAME##4, T, A4, KIND)
__HRX_VECTORS(char, signed char, 1, 2, 4, integer)
__HRX_VECTORS(uchar, unsigned char, 1, 2, 4, integer)
__HRX_VECTORS(short, short, 2, 4, 8, integer)
__HRX_VECTORS(ushort, unsigned short, 2, 4, 8, integer)
__HRX_VECTORS(int, int, 4, 8, 16, integer)
__HRX_VECTORS(uint, unsigned int, 4, 8, 16, integer)
__HRX_VECTORS(long, long, 8, 16, 16, integer)
__HRX_VECTORS(ulong, unsigned long, 8, 16, 16, integer)
__HRX_VECTORS(longlong, long long, 8, 16, 16, integer)
__HRX_VECTORS(ulonglong, unsigned long long, 8, 16, 16, integer)
__HRX_VECTORS(float, float, 4, 8, 16, arithmetic)
__HRX_VECTORS(double, double, 8, 16, 16, arithmetic)
#undef __HRX_VECTORS
#undef __HRX_VECTOR_TRAITS_arithmetic
#undef __HRX_VECTOR_TRAITS_integer
#undef __HRX_VECTOR1
#undef __HRX_VECTOR2
#undef __HRX_VECTOR3
#undef __HRX_VECTOR4
#undef __HRX_VECTOR_LANEWISE
#undef __HRX_VECTOR_ADD_AT
#undef __HRX_VECTOR_SUB_AT
#undef __HRX_VECTOR_MUL_AT
#undef __HRX_VECTOR_DIV_AT
#undef __HRX_VECTOR_REM_AT
#undef __HRX_VECTOR_AND_AT
#undef __HRX_VECTOR_OR_AT
#undef __HRX_VECTOR_XOR_AT
#undef __HRX_V
#endif  // HRX_HIP_VECTOR_TYPES_H
