// HIP vector types (char1..double4) and make_<type><n>: structs of 1-4 named lanes with
// element-wise arithmetic, sized and aligned as in HIP (n = 3 is not padded).
#ifndef HRX_HIP_VECTOR_TYPES_H
#define HRX_HIP_VECTOR_TYPES_H
#define __HRX_V __host__ __device__ inline __attribute__((always_inline))
struct __attribute__((aligned(1))) char1 {
  signed char x;
  char1() = default;
  __HRX_V constexpr explicit char1(signed char s) : x(s) {}
  __HRX_V char1 &operator+=(const char1 &o) { x += o.x; return *this; }
  __HRX_V char1 &operator-=(const char1 &o) { x -= o.x; return *this; }
  __HRX_V char1 &operator*=(const char1 &o) { x *= o.x; return *this; }
  __HRX_V char1 &operator/=(const char1 &o) { x /= o.x; return *this; }
  __HRX_V char1 &operator%=(const char1 &o) { x %= o.x; return *this; }
  __HRX_V char1 &operator&=(const char1 &o) { x &= o.x; return *this; }
  __HRX_V char1 &operator|=(const char1 &o) { x |= o.x; return *this; }
  __HRX_V char1 &operator^=(const char1 &o) { x ^= o.x; return *this; }
};
__HRX_V char1 operator+(char1 a, const char1 &b) { return a += b; }
__HRX_V char1 operator+(char1 a, signed char b) { return a += char1(b); }
__HRX_V char1 operator+(signed char a, const char1 &b) { return char1(a) += b; }
__HRX_V char1 operator-(char1 a, const char1 &b) { return a -= b; }
__HRX_V char1 operator-(char1 a, signed char b) { return a -= char1(b); }
__HRX_V char1 operator-(signed char a, const char1 &b) { return char1(a) -= b; }
__HRX_V char1 operator*(char1 a, const char1 &b) { return a *= b; }
__HRX_V char1 operator*(char1 a, signed char b) { return a *= char1(b); }
__HRX_V char1 operator*(signed char a, const char1 &b) { return char1(a) *= b; }
__HRX_V char1 operator/(char1 a, const char1 &b) { return a /= b; }
__HRX_V char1 operator/(char1 a, signed char b) { return a /= char1(b); }
__HRX_V char1 operator/(signed char a, const char1 &b) { return char1(a) /= b; }
__HRX_V char1 operator%(char1 a, const char1 &b) { return a %= b; }
__HRX_V char1 operator%(char1 a, signed char b) { return a %= char1(b); }
__HRX_V char1 operator%(signed char a, const char1 &b) { return char1(a) %= b; }
__HRX_V char1 operator&(char1 a, const char1 &b) { return a &= b; }
__HRX_V char1 operator&(char1 a, signed char b) { return a &= char1(b); }
__HRX_V char1 operator&(signed char a, const char1 &b) { return char1(a) &= b; }
__HRX_V char1 operator|(char1 a, const char1 &b) { return a |= b; }
__HRX_V char1 operator|(char1 a, signed char b) { return a |= char1(b); }
__HRX_V char1 operator|(signed char a, const char1 &b) { return char1(a) |= b; }
__HRX_V char1 operator^(char1 a, const char1 &b) { return a ^= b; }
__HRX_V char1 operator^(char1 a, signed char b) { return a ^= char1(b); }
__HRX_V char1 operator^(signed char a, const char1 &b) { return char1(a) ^= b; }
__HRX_V char1 operator-(const char1 &a) { return char1((signed char)-a.x); }
__HRX_V bool operator==(const char1 &a, const char1 &b) { return a.x == b.x; }
__HRX_V bool operator!=(const char1 &a, const char1 &b) { return !(a == b); }
__HRX_V char1 make_char1(signed char x) { char1 v; v.x = x; return v; }

struct __attribute__((aligned(2))) char2 {
  signed char x, y;
  char2() = default;
  __HRX_V constexpr explicit char2(signed char s) : x(s), y(s) {}
  __HRX_V constexpr char2(signed char x_, signed char y_) : x(x_), y(y_) {}
  __HRX_V char2 &operator+=(const char2 &o) { x += o.x; y += o.y; return *this; }
  __HRX_V char2 &operator-=(const char2 &o) { x -= o.x; y -= o.y; return *this; }
  __HRX_V char2 &operator*=(const char2 &o) { x *= o.x; y *= o.y; return *this; }
  __HRX_V char2 &operator/=(const char2 &o) { x /= o.x; y /= o.y; return *this; }
  __HRX_V char2 &operator%=(const char2 &o) { x %= o.x; y %= o.y; return *this; }
  __HRX_V char2 &operator&=(const char2 &o) { x &= o.x; y &= o.y; return *this; }
  __HRX_V char2 &operator|=(const char2 &o) { x |= o.x; y |= o.y; return *this; }
  __HRX_V char2 &operator^=(const char2 &o) { x ^= o.x; y ^= o.y; return *this; }
};
__HRX_V char2 operator+(char2 a, const char2 &b) { return a += b; }
__HRX_V char2 operator+(char2 a, signed char b) { return a += char2(b); }
__HRX_V char2 operator+(signed char a, const char2 &b) { return char2(a) += b; }
__HRX_V char2 operator-(char2 a, const char2 &b) { return a -= b; }
__HRX_V char2 operator-(char2 a, signed char b) { return a -= char2(b); }
__HRX_V char2 operator-(signed char a, const char2 &b) { return char2(a) -= b; }
__HRX_V char2 operator*(char2 a, const char2 &b) { return a *= b; }
__HRX_V char2 operator*(char2 a, signed char b) { return a *= char2(b); }
__HRX_V char2 operator*(signed char a, const char2 &b) { return char2(a) *= b; }
__HRX_V char2 operator/(char2 a, const char2 &b) { return a /= b; }
__HRX_V char2 operator/(char2 a, signed char b) { return a /= char2(b); }
__HRX_V char2 operator/(signed char a, const char2 &b) { return char2(a) /= b; }
__HRX_V char2 operator%(char2 a, const char2 &b) { return a %= b; }
__HRX_V char2 operator%(char2 a, signed char b) { return a %= char2(b); }
__HRX_V char2 operator%(signed char a, const char2 &b) { return char2(a) %= b; }
__HRX_V char2 operator&(char2 a, const char2 &b) { return a &= b; }
__HRX_V char2 operator&(char2 a, signed char b) { return a &= char2(b); }
__HRX_V char2 operator&(signed char a, const char2 &b) { return char2(a) &= b; }
__HRX_V char2 operator|(char2 a, const char2 &b) { return a |= b; }
__HRX_V char2 operator|(char2 a, signed char b) { return a |= char2(b); }
__HRX_V char2 operator|(signed char a, const char2 &b) { return char2(a) |= b; }
__HRX_V char2 operator^(char2 a, const char2 &b) { return a ^= b; }
__HRX_V char2 operator^(char2 a, signed char b) { return a ^= char2(b); }
__HRX_V char2 operator^(signed char a, const char2 &b) { return char2(a) ^= b; }
__HRX_V char2 operator-(const char2 &a) { return char2((signed char)-a.x, (signed char)-a.y) ; }
__HRX_V bool operator==(const char2 &a, const char2 &b) { return a.x == b.x && a.y == b.y; }
__HRX_V bool operator!=(const char2 &a, const char2 &b) { return !(a == b); }
__HRX_V char2 make_char2(signed char x, signed char y) { char2 v; v.x = x; v.y = y; return v; }

struct __attribute__((aligned(1))) char3 {
  signed char x, y, z;
  char3() = default;
  __HRX_V constexpr explicit char3(signed char s) : x(s), y(s), z(s) {}
  __HRX_V constexpr char3(signed char x_, signed char y_, signed char z_) : x(x_), y(y_), z(z_) {}
  __HRX_V char3 &operator+=(const char3 &o) { x += o.x; y += o.y; z += o.z; return *this; }
  __HRX_V char3 &operator-=(const char3 &o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  __HRX_V char3 &operator*=(const char3 &o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
  __HRX_V char3 &operator/=(const char3 &o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
  __HRX_V char3 &operator%=(const char3 &o) { x %= o.x; y %= o.y; z %= o.z; return *this; }
  __HRX_V char3 &operator&=(const char3 &o) { x &= o.x; y &= o.y; z &= o.z; return *this; }
  __HRX_V char3 &operator|=(const char3 &o) { x |= o.x; y |= o.y; z |= o.z; return *this; }
  __HRX_V char3 &operator^=(const char3 &o) { x ^= o.x; y ^= o.y; z ^= o.z; return *this; }
};
__HRX_V char3 operator+(char3 a, const char3 &b) { return a += b; }
__HRX_V char3 operator+(char3 a, signed char b) { return a += char3(b); }
__HRX_V char3 operator+(signed char a, const char3 &b) { return char3(a) += b; }
__HRX_V char3 operator-(char3 a, const char3 &b) { return a -= b; }
__HRX_V char3 operator-(char3 a, signed char b) { return a -= char3(b); }
__HRX_V char3 operator-(signed char a, const char3 &b) { return char3(a) -= b; }
__HRX_V char3 operator*(char3 a, const char3 &b) { return a *= b; }
__HRX_V char3 operator*(char3 a, signed char b) { return a *= char3(b); }
__HRX_V char3 operator*(signed char a, const char3 &b) { return char3(a) *= b; }
__HRX_V char3 operator/(char3 a, const char3 &b) { return a /= b; }
__HRX_V char3 operator/(char3 a, signed char b) { return a /= char3(b); }
__HRX_V char3 operator/(signed char a, const char3 &b) { return char3(a) /= b; }
__HRX_V char3 operator%(char3 a, const char3 &b) { return a %= b; }
__HRX_V char3 operator%(char3 a, signed char b) { return a %= char3(b); }
__HRX_V char3 operator%(signed char a, const char3 &b) { return char3(a) %= b; }
__HRX_V char3 operator&(char3 a, const char3 &b) { return a &= b; }
__HRX_V char3 operator&(char3 a, signed char b) { return a &= char3(b); }
__HRX_V char3 operator&(signed char a, const char3 &b) { return char3(a) &= b; }
__HRX_V char3 operator|(char3 a, const char3 &b) { return a |= b; }
__HRX_V char3 operator|(char3 a, signed char b) { return a |= char3(b); }
__HRX_V char3 operator|(signed char a, const char3 &b) { return char3(a) |= b; }
__HRX_V char3 operator^(char3 a, const char3 &b) { return a ^= b; }
__HRX_V char3 operator^(char3 a, signed char b) { return a ^= char3(b); }
__HRX_V char3 operator^(signed char a, const char3 &b) { return char3(a) ^= b; }
__HRX_V char3 operator-(const char3 &a) { return char3((signed char)-a.x, (signed char)-a.y, (signed char)-a.z) ; }
__HRX_V bool operator==(const char3 &a, const char3 &b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__HRX_V bool operator!=(const char3 &a, const char3 &b) { return !(a == b); }
__HRX_V char3 make_char3(signed char x, signed char y, signed char z) { char3 v; v.x = x; v.y = y; v.z = z; return v; }

struct __attribute__((aligned(4))) char4 {
  signed char x, y, z, w;
  char4() = default;
  __HRX_V constexpr explicit char4(signed char s) : x(s), y(s), z(s), w(s) {}
  __HRX_V constexpr char4(signed char x_, signed char y_, signed char z_, signed char w_) : x(x_), y(y_), z(z_), w(w_) {}
  __HRX_V char4 &operator+=(const char4 &o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
  __HRX_V char4 &operator-=(const char4 &o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
  __HRX_V char4 &operator*=(const char4 &o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
  __HRX_V char4 &operator/=(const char4 &o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
  __HRX_V char4 &operator%=(const char4 &o) { x %= o.x; y %= o.y; z %= o.z; w %= o.w; return *this; }
  __HRX_V char4 &operator&=(const char4 &o) { x &= o.x; y &= o.y; z &= o.z; w &= o.w; return *this; }
  __HRX_V char4 &operator|=(const char4 &o) { x |= o.x; y |= o.y; z |= o.z; w |= o.w; return *this; }
  __HRX_V char4 &operator^=(const char4 &o) { x ^= o.x; y ^= o.y; z ^= o.z; w ^= o.w; return *this; }
};
__HRX_V char4 operator+(char4 a, const char4 &b) { return a += b; }
__HRX_V char4 operator+(char4 a, signed char b) { return a += char4(b); }
__HRX_V char4 operator+(signed char a, const char4 &b) { return char4(a) += b; }
__HRX_V char4 operator-(char4 a, const char4 &b) { return a -= b; }
__HRX_V char4 operator-(char4 a, signed char b) { return a -= char4(b); }
__HRX_V char4 operator-(signed char a, const char4 &b) { return char4(a) -= b; }
__HRX_V char4 operator*(char4 a, const char4 &b) { return a *= b; }
__HRX_V char4 operator*(char4 a, signed char b) { return a *= char4(b); }
__HRX_V char4 operator*(signed char a, const char4 &b) { return char4(a) *= b; }
__HRX_V char4 operator/(char4 a, const char4 &b) { return a /= b; }
__HRX_V char4 operator/(char4 a, signed char b) { return a /= char4(b); }
__HRX_V char4 operator/(signed char a, const char4 &b) { return char4(a) /= b; }
__HRX_V char4 operator%(char4 a, const char4 &b) { return a %= b; }
__HRX_V char4 operator%(char4 a, signed char b) { return a %= char4(b); }
__HRX_V char4 operator%(signed char a, const char4 &b) { return char4(a) %= b; }
__HRX_V char4 operator&(char4 a, const char4 &b) { return a &= b; }
__HRX_V char4 operator&(char4 a, signed char b) { return a &= char4(b); }
__HRX_V char4 operator&(signed char a, const char4 &b) { return char4(a) &= b; }
__HRX_V char4 operator|(char4 a, const char4 &b) { return a |= b; }
__HRX_V char4 operator|(char4 a, signed char b) { return a |= char4(b); }
__HRX_V char4 operator|(signed char a, const char4 &b) { return char4(a) |= b; }
__HRX_V char4 operator^(char4 a, const char4 &b) { return a ^= b; }
__HRX_V char4 operator^(char4 a, signed char b) { return a ^= char4(b); }
__HRX_V char4 operator^(signed char a, const char4 &b) { return char4(a) ^= b; }
__HRX_V char4 operator-(const char4 &a) { return char4((signed char)-a.x, (signed char)-a.y, (signed char)-a.z, (signed char)-a.w) ; }
__HRX_V bool operator==(const char4 &a, const char4 &b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__HRX_V bool operator!=(const char4 &a, const char4 &b) { return !(a == b); }
__HRX_V char4 make_char4(signed char x, signed char y, signed char z, signed char w) { char4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }

struct __attribute__((aligned(1))) uchar1 {
  unsigned char x;
  uchar1() = default;
  __HRX_V constexpr explicit uchar1(unsigned char s) : x(s) {}
  __HRX_V uchar1 &operator+=(const uchar1 &o) { x += o.x; return *this; }
  __HRX_V uchar1 &operator-=(const uchar1 &o) { x -= o.x; return *this; }
  __HRX_V uchar1 &operator*=(const uchar1 &o) { x *= o.x; return *this; }
  __HRX_V uchar1 &operator/=(const uchar1 &o) { x /= o.x; return *this; }
  __HRX_V uchar1 &operator%=(const uchar1 &o) { x %= o.x; return *this; }
  __HRX_V uchar1 &operator&=(const uchar1 &o) { x &= o.x; return *this; }
  __HRX_V uchar1 &operator|=(const uchar1 &o) { x |= o.x; return *this; }
  __HRX_V uchar1 &operator^=(const uchar1 &o) { x ^= o.x; return *this; }
};
__HRX_V uchar1 operator+(uchar1 a, const uchar1 &b) { return a += b; }
__HRX_V uchar1 operator+(uchar1 a, unsigned char b) { return a += uchar1(b); }
__HRX_V uchar1 operator+(unsigned char a, const uchar1 &b) { return uchar1(a) += b; }
__HRX_V uchar1 operator-(uchar1 a, const uchar1 &b) { return a -= b; }
__HRX_V uchar1 operator-(uchar1 a, unsigned char b) { return a -= uchar1(b); }
__HRX_V uchar1 operator-(unsigned char a, const uchar1 &b) { return uchar1(a) -= b; }
__HRX_V uchar1 operator*(uchar1 a, const uchar1 &b) { return a *= b; }
__HRX_V uchar1 operator*(uchar1 a, unsigned char b) { return a *= uchar1(b); }
__HRX_V uchar1 operator*(unsigned char a, const uchar1 &b) { return uchar1(a) *= b; }
__HRX_V uchar1 operator/(uchar1 a, const uchar1 &b) { return a /= b; }
__HRX_V uchar1 operator/(uchar1 a, unsigned char b) { return a /= uchar1(b); }
__HRX_V uchar1 operator/(unsigned char a, const uchar1 &b) { return uchar1(a) /= b; }
__HRX_V uchar1 operator%(uchar1 a, const uchar1 &b) { return a %= b; }
__HRX_V uchar1 operator%(uchar1 a, unsigned char b) { return a %= uchar1(b); }
__HRX_V uchar1 operator%(unsigned char a, const uchar1 &b) { return uchar1(a) %= b; }
__HRX_V uchar1 operator&(uchar1 a, const uchar1 &b) { return a &= b; }
__HRX_V uchar1 operator&(uchar1 a, unsigned char b) { return a &= uchar1(b); }
__HRX_V uchar1 operator&(unsigned char a, const uchar1 &b) { return uchar1(a) &= b; }
__HRX_V uchar1 operator|(uchar1 a, const uchar1 &b) { return a |= b; }
__HRX_V uchar1 operator|(uchar1 a, unsigned char b) { return a |= uchar1(b); }
__HRX_V uchar1 operator|(unsigned char a, const uchar1 &b) { return uchar1(a) |= b; }
__HRX_V uchar1 operator^(uchar1 a, const uchar1 &b) { return a ^= b; }
__HRX_V uchar1 operator^(uchar1 a, unsigned char b) { return a ^= uchar1(b); }
__HRX_V uchar1 operator^(unsigned char a, const uchar1 &b) { return uchar1(a) ^= b; }
__HRX_V uchar1 operator-(const uchar1 &a) { return uchar1((unsigned char)-a.x); }
__HRX_V bool operator==(const uchar1 &a, const uchar1 &b) { return a.x == b.x; }
__HRX_V bool operator!=(const uchar1 &a, const uchar1 &b) { return !(a == b); }
__HRX_V uchar1 make_uchar1(unsigned char x) { uchar1 v; v.x = x; return v; }

struct __attribute__((aligned(2))) uchar2 {
  unsigned char x, y;
  uchar2() = default;
  __HRX_V constexpr explicit uchar2(unsigned char s) : x(s), y(s) {}
  __HRX_V constexpr uchar2(unsigned char x_, unsigned char y_) : x(x_), y(y_) {}
  __HRX_V uchar2 &operator+=(const uchar2 &o) { x += o.x; y += o.y; return *this; }
  __HRX_V uchar2 &operator-=(const uchar2 &o) { x -= o.x; y -= o.y; return *this; }
  __HRX_V uchar2 &operator*=(const uchar2 &o) { x *= o.x; y *= o.y; return *this; }
  __HRX_V uchar2 &operator/=(const uchar2 &o) { x /= o.x; y /= o.y; return *this; }
  __HRX_V uchar2 &operator%=(const uchar2 &o) { x %= o.x; y %= o.y; return *this; }
  __HRX_V uchar2 &operator&=(const uchar2 &o) { x &= o.x; y &= o.y; return *this; }
  __HRX_V uchar2 &operator|=(const uchar2 &o) { x |= o.x; y |= o.y; return *this; }
  __HRX_V uchar2 &operator^=(const uchar2 &o) { x ^= o.x; y ^= o.y; return *this; }
};
__HRX_V uchar2 operator+(uchar2 a, const uchar2 &b) { return a += b; }
__HRX_V uchar2 operator+(uchar2 a, unsigned char b) { return a += uchar2(b); }
__HRX_V uchar2 operator+(unsigned char a, const uchar2 &b) { return uchar2(a) += b; }
__HRX_V uchar2 operator-(uchar2 a, const uchar2 &b) { return a -= b; }
__HRX_V uchar2 operator-(uchar2 a, unsigned char b) { return a -= uchar2(b); }
__HRX_V uchar2 operator-(unsigned char a, const uchar2 &b) { return uchar2(a) -= b; }
__HRX_V uchar2 operator*(uchar2 a, const uchar2 &b) { return a *= b; }
__HRX_V uchar2 operator*(uchar2 a, unsigned char b) { return a *= uchar2(b); }
__HRX_V uchar2 operator*(unsigned char a, const uchar2 &b) { return uchar2(a) *= b; }
__HRX_V uchar2 operator/(uchar2 a, const uchar2 &b) { return a /= b; }
__HRX_V uchar2 operator/(uchar2 a, unsigned char b) { return a /= uchar2(b); }
__HRX_V uchar2 operator/(unsigned char a, const uchar2 &b) { return uchar2(a) /= b; }
__HRX_V uchar2 operator%(uchar2 a, const uchar2 &b) { return a %= b; }
__HRX_V uchar2 operator%(uchar2 a, unsigned char b) { return a %= uchar2(b); }
__HRX_V uchar2 operator%(unsigned char a, const uchar2 &b) { return uchar2(a) %= b; }
__HRX_V uchar2 operator&(uchar2 a, const uchar2 &b) { return a &= b; }
__HRX_V uchar2 operator&(uchar2 a, unsigned char b) { return a &= uchar2(b); }
__HRX_V uchar2 operator&(unsigned char a, const uchar2 &b) { return uchar2(a) &= b; }
__HRX_V uchar2 operator|(uchar2 a, const uchar2 &b) { return a |= b; }
__HRX_V uchar2 operator|(uchar2 a, unsigned char b) { return a |= uchar2(b); }
__HRX_V uchar2 operator|(unsigned char a, const uchar2 &b) { return uchar2(a) |= b; }
__HRX_V uchar2 operator^(uchar2 a, const uchar2 &b) { return a ^= b; }
__HRX_V uchar2 operator^(uchar2 a, unsigned char b) { return a ^= uchar2(b); }
__HRX_V uchar2 operator^(unsigned char a, const uchar2 &b) { return uchar2(a) ^= b; }
__HRX_V uchar2 operator-(const uchar2 &a) { return uchar2((unsigned char)-a.x, (unsigned char)-a.y) ; }
__HRX_V bool operator==(const uchar2 &a, const uchar2 &b) { return a.x == b.x && a.y == b.y; }
__HRX_V bool operator!=(const uchar2 &a, const uchar2 &b) { return !(a == b); }
__HRX_V uchar2 make_uchar2(unsigned char x, unsigned char y) { uchar2 v; v.x = x; v.y = y; return v; }

struct __attribute__((aligned(1))) uchar3 {
  unsigned char x, y, z;
  uchar3() = default;
  __HRX_V constexpr explicit uchar3(unsigned char s) : x(s), y(s), z(s) {}
  __HRX_V constexpr uchar3(unsigned char x_, unsigned char y_, unsigned char z_) : x(x_), y(y_), z(z_) {}
  __HRX_V uchar3 &operator+=(const uchar3 &o) { x += o.x; y += o.y; z += o.z; return *this; }
  __HRX_V uchar3 &operator-=(const uchar3 &o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  __HRX_V uchar3 &operator*=(const uchar3 &o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
  __HRX_V uchar3 &operator/=(const uchar3 &o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
  __HRX_V uchar3 &operator%=(const uchar3 &o) { x %= o.x; y %= o.y; z %= o.z; return *this; }
  __HRX_V uchar3 &operator&=(const uchar3 &o) { x &= o.x; y &= o.y; z &= o.z; return *this; }
  __HRX_V uchar3 &operator|=(const uchar3 &o) { x |= o.x; y |= o.y; z |= o.z; return *this; }
  __HRX_V uchar3 &operator^=(const uchar3 &o) { x ^= o.x; y ^= o.y; z ^= o.z; return *this; }
};
__HRX_V uchar3 operator+(uchar3 a, const uchar3 &b) { return a += b; }
__HRX_V uchar3 operator+(uchar3 a, unsigned char b) { return a += uchar3(b); }
__HRX_V uchar3 operator+(unsigned char a, const uchar3 &b) { return uchar3(a) += b; }
__HRX_V uchar3 operator-(uchar3 a, const uchar3 &b) { return a -= b; }
__HRX_V uchar3 operator-(uchar3 a, unsigned char b) { return a -= uchar3(b); }
__HRX_V uchar3 operator-(unsigned char a, const uchar3 &b) { return uchar3(a) -= b; }
__HRX_V uchar3 operator*(uchar3 a, const uchar3 &b) { return a *= b; }
__HRX_V uchar3 operator*(uchar3 a, unsigned char b) { return a *= uchar3(b); }
__HRX_V uchar3 operator*(unsigned char a, const uchar3 &b) { return uchar3(a) *= b; }
__HRX_V uchar3 operator/(uchar3 a, const uchar3 &b) { return a /= b; }
__HRX_V uchar3 operator/(uchar3 a, unsigned char b) { return a /= uchar3(b); }
__HRX_V uchar3 operator/(unsigned char a, const uchar3 &b) { return uchar3(a) /= b; }
__HRX_V uchar3 operator%(uchar3 a, const uchar3 &b) { return a %= b; }
__HRX_V uchar3 operator%(uchar3 a, unsigned char b) { return a %= uchar3(b); }
__HRX_V uchar3 operator%(unsigned char a, const uchar3 &b) { return uchar3(a) %= b; }
__HRX_V uchar3 operator&(uchar3 a, const uchar3 &b) { return a &= b; }
__HRX_V uchar3 operator&(uchar3 a, unsigned char b) { return a &= uchar3(b); }
__HRX_V uchar3 operator&(unsigned char a, const uchar3 &b) { return uchar3(a) &= b; }
__HRX_V uchar3 operator|(uchar3 a, const uchar3 &b) { return a |= b; }
__HRX_V uchar3 operator|(uchar3 a, unsigned char b) { return a |= uchar3(b); }
__HRX_V uchar3 operator|(unsigned char a, const uchar3 &b) { return uchar3(a) |= b; }
__HRX_V uchar3 operator^(uchar3 a, const uchar3 &b) { return a ^= b; }
__HRX_V uchar3 operator^(uchar3 a, unsigned char b) { return a ^= uchar3(b); }
__HRX_V uchar3 operator^(unsigned char a, const uchar3 &b) { return uchar3(a) ^= b; }
__HRX_V uchar3 operator-(const uchar3 &a) { return uchar3((unsigned char)-a.x, (unsigned char)-a.y, (unsigned char)-a.z) ; }
__HRX_V bool operator==(const uchar3 &a, const uchar3 &b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__HRX_V bool operator!=(const uchar3 &a, const uchar3 &b) { return !(a == b); }
__HRX_V uchar3 make_uchar3(unsigned char x, unsigned char y, unsigned char z) { uchar3 v; v.x = x; v.y = y; v.z = z; return v; }

struct __attribute__((aligned(4))) uchar4 {
  unsigned char x, y, z, w;
  uchar4() = default;
  __HRX_V constexpr explicit uchar4(unsigned char s) : x(s), y(s), z(s), w(s) {}
  __HRX_V constexpr uchar4(unsigned char x_, unsigned char y_, unsigned char z_, unsigned char w_) : x(x_), y(y_), z(z_), w(w_) {}
  __HRX_V uchar4 &operator+=(const uchar4 &o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
  __HRX_V uchar4 &operator-=(const uchar4 &o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
  __HRX_V uchar4 &operator*=(const uchar4 &o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
  __HRX_V uchar4 &operator/=(const uchar4 &o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
  __HRX_V uchar4 &operator%=(const uchar4 &o) { x %= o.x; y %= o.y; z %= o.z; w %= o.w; return *this; }
  __HRX_V uchar4 &operator&=(const uchar4 &o) { x &= o.x; y &= o.y; z &= o.z; w &= o.w; return *this; }
  __HRX_V uchar4 &operator|=(const uchar4 &o) { x |= o.x; y |= o.y; z |= o.z; w |= o.w; return *this; }
  __HRX_V uchar4 &operator^=(const uchar4 &o) { x ^= o.x; y ^= o.y; z ^= o.z; w ^= o.w; return *this; }
};
__HRX_V uchar4 operator+(uchar4 a, const uchar4 &b) { return a += b; }
__HRX_V uchar4 operator+(uchar4 a, unsigned char b) { return a += uchar4(b); }
__HRX_V uchar4 operator+(unsigned char a, const uchar4 &b) { return uchar4(a) += b; }
__HRX_V uchar4 operator-(uchar4 a, const uchar4 &b) { return a -= b; }
__HRX_V uchar4 operator-(uchar4 a, unsigned char b) { return a -= uchar4(b); }
__HRX_V uchar4 operator-(unsigned char a, const uchar4 &b) { return uchar4(a) -= b; }
__HRX_V uchar4 operator*(uchar4 a, const uchar4 &b) { return a *= b; }
__HRX_V uchar4 operator*(uchar4 a, unsigned char b) { return a *= uchar4(b); }
__HRX_V uchar4 operator*(unsigned char a, const uchar4 &b) { return uchar4(a) *= b; }
__HRX_V uchar4 operator/(uchar4 a, const uchar4 &b) { return a /= b; }
__HRX_V uchar4 operator/(uchar4 a, unsigned char b) { return a /= uchar4(b); }
__HRX_V uchar4 operator/(unsigned char a, const uchar4 &b) { return uchar4(a) /= b; }
__HRX_V uchar4 operator%(uchar4 a, const uchar4 &b) { return a %= b; }
__HRX_V uchar4 operator%(uchar4 a, unsigned char b) { return a %= uchar4(b); }
__HRX_V uchar4 operator%(unsigned char a, const uchar4 &b) { return uchar4(a) %= b; }
__HRX_V uchar4 operator&(uchar4 a, const uchar4 &b) { return a &= b; }
__HRX_V uchar4 operator&(uchar4 a, unsigned char b) { return a &= uchar4(b); }
__HRX_V uchar4 operator&(unsigned char a, const uchar4 &b) { return uchar4(a) &= b; }
__HRX_V uchar4 operator|(uchar4 a, const uchar4 &b) { return a |= b; }
__HRX_V uchar4 operator|(uchar4 a, unsigned char b) { return a |= uchar4(b); }
__HRX_V uchar4 operator|(unsigned char a, const uchar4 &b) { return uchar4(a) |= b; }
__HRX_V uchar4 operator^(uchar4 a, const uchar4 &b) { return a ^= b; }
__HRX_V uchar4 operator^(uchar4 a, unsigned char b) { return a ^= uchar4(b); }
__HRX_V uchar4 operator^(unsigned char a, const uchar4 &b) { return uchar4(a) ^= b; }
__HRX_V uchar4 operator-(const uchar4 &a) { return uchar4((unsigned char)-a.x, (unsigned char)-a.y, (unsigned char)-a.z, (unsigned char)-a.w) ; }
__HRX_V bool operator==(const uchar4 &a, const uchar4 &b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__HRX_V bool operator!=(const uchar4 &a, const uchar4 &b) { return !(a == b); }
__HRX_V uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w) { uchar4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }

struct __attribute__((aligned(2))) short1 {
  short x;
  short1() = default;
  __HRX_V constexpr explicit short1(short s) : x(s) {}
  __HRX_V short1 &operator+=(const short1 &o) { x += o.x; return *this; }
  __HRX_V short1 &operator-=(const short1 &o) { x -= o.x; return *this; }
  __HRX_V short1 &operator*=(const short1 &o) { x *= o.x; return *this; }
  __HRX_V short1 &operator/=(const short1 &o) { x /= o.x; return *this; }
  __HRX_V short1 &operator%=(const short1 &o) { x %= o.x; return *this; }
  __HRX_V short1 &operator&=(const short1 &o) { x &= o.x; return *this; }
  __HRX_V short1 &operator|=(const short1 &o) { x |= o.x; return *this; }
  __HRX_V short1 &operator^=(const short1 &o) { x ^= o.x; return *this; }
};
__HRX_V short1 operator+(short1 a, const short1 &b) { return a += b; }
__HRX_V short1 operator+(short1 a, short b) { return a += short1(b); }
__HRX_V short1 operator+(short a, const short1 &b) { return short1(a) += b; }
__HRX_V short1 operator-(short1 a, const short1 &b) { return a -= b; }
__HRX_V short1 operator-(short1 a, short b) { return a -= short1(b); }
__HRX_V short1 operator-(short a, const short1 &b) { return short1(a) -= b; }
__HRX_V short1 operator*(short1 a, const short1 &b) { return a *= b; }
__HRX_V short1 operator*(short1 a, short b) { return a *= short1(b); }
__HRX_V short1 operator*(short a, const short1 &b) { return short1(a) *= b; }
__HRX_V short1 operator/(short1 a, const short1 &b) { return a /= b; }
__HRX_V short1 operator/(short1 a, short b) { return a /= short1(b); }
__HRX_V short1 operator/(short a, const short1 &b) { return short1(a) /= b; }
__HRX_V short1 operator%(short1 a, const short1 &b) { return a %= b; }
__HRX_V short1 operator%(short1 a, short b) { return a %= short1(b); }
__HRX_V short1 operator%(short a, const short1 &b) { return short1(a) %= b; }
__HRX_V short1 operator&(short1 a, const short1 &b) { return a &= b; }
__HRX_V short1 operator&(short1 a, short b) { return a &= short1(b); }
__HRX_V short1 operator&(short a, const short1 &b) { return short1(a) &= b; }
__HRX_V short1 operator|(short1 a, const short1 &b) { return a |= b; }
__HRX_V short1 operator|(short1 a, short b) { return a |= short1(b); }
__HRX_V short1 operator|(short a, const short1 &b) { return short1(a) |= b; }
__HRX_V short1 operator^(short1 a, const short1 &b) { return a ^= b; }
__HRX_V short1 operator^(short1 a, short b) { return a ^= short1(b); }
__HRX_V short1 operator^(short a, const short1 &b) { return short1(a) ^= b; }
__HRX_V short1 operator-(const short1 &a) { return short1((short)-a.x); }
__HRX_V bool operator==(const short1 &a, const short1 &b) { return a.x == b.x; }
__HRX_V bool operator!=(const short1 &a, const short1 &b) { return !(a == b); }
__HRX_V short1 make_short1(short x) { short1 v; v.x = x; return v; }

struct __attribute__((aligned(4))) short2 {
  short x, y;
  short2() = default;
  __HRX_V constexpr explicit short2(short s) : x(s), y(s) {}
  __HRX_V constexpr short2(short x_, short y_) : x(x_), y(y_) {}
  __HRX_V short2 &operator+=(const short2 &o) { x += o.x; y += o.y; return *this; }
  __HRX_V short2 &operator-=(const short2 &o) { x -= o.x; y -= o.y; return *this; }
  __HRX_V short2 &operator*=(const short2 &o) { x *= o.x; y *= o.y; return *this; }
  __HRX_V short2 &operator/=(const short2 &o) { x /= o.x; y /= o.y; return *this; }
  __HRX_V short2 &operator%=(const short2 &o) { x %= o.x; y %= o.y; return *this; }
  __HRX_V short2 &operator&=(const short2 &o) { x &= o.x; y &= o.y; return *this; }
  __HRX_V short2 &operator|=(const short2 &o) { x |= o.x; y |= o.y; return *this; }
  __HRX_V short2 &operator^=(const short2 &o) { x ^= o.x; y ^= o.y; return *this; }
};
__HRX_V short2 operator+(short2 a, const short2 &b) { return a += b; }
__HRX_V short2 operator+(short2 a, short b) { return a += short2(b); }
__HRX_V short2 operator+(short a, const short2 &b) { return short2(a) += b; }
__HRX_V short2 operator-(short2 a, const short2 &b) { return a -= b; }
__HRX_V short2 operator-(short2 a, short b) { return a -= short2(b); }
__HRX_V short2 operator-(short a, const short2 &b) { return short2(a) -= b; }
__HRX_V short2 operator*(short2 a, const short2 &b) { return a *= b; }
__HRX_V short2 operator*(short2 a, short b) { return a *= short2(b); }
__HRX_V short2 operator*(short a, const short2 &b) { return short2(a) *= b; }
__HRX_V short2 operator/(short2 a, const short2 &b) { return a /= b; }
__HRX_V short2 operator/(short2 a, short b) { return a /= short2(b); }
__HRX_V short2 operator/(short a, const short2 &b) { return short2(a) /= b; }
__HRX_V short2 operator%(short2 a, const short2 &b) { return a %= b; }
__HRX_V short2 operator%(short2 a, short b) { return a %= short2(b); }
__HRX_V short2 operator%(short a, const short2 &b) { return short2(a) %= b; }
__HRX_V short2 operator&(short2 a, const short2 &b) { return a &= b; }
__HRX_V short2 operator&(short2 a, short b) { return a &= short2(b); }
__HRX_V short2 operator&(short a, const short2 &b) { return short2(a) &= b; }
__HRX_V short2 operator|(short2 a, const short2 &b) { return a |= b; }
__HRX_V short2 operator|(short2 a, short b) { return a |= short2(b); }
__HRX_V short2 operator|(short a, const short2 &b) { return short2(a) |= b; }
__HRX_V short2 operator^(short2 a, const short2 &b) { return a ^= b; }
__HRX_V short2 operator^(short2 a, short b) { return a ^= short2(b); }
__HRX_V short2 operator^(short a, const short2 &b) { return short2(a) ^= b; }
__HRX_V short2 operator-(const short2 &a) { return short2((short)-a.x, (short)-a.y) ; }
__HRX_V bool operator==(const short2 &a, const short2 &b) { return a.x == b.x && a.y == b.y; }
__HRX_V bool operator!=(const short2 &a, const short2 &b) { return !(a == b); }
__HRX_V short2 make_short2(short x, short y) { short2 v; v.x = x; v.y = y; return v; }

struct __attribute__((aligned(2))) short3 {
  short x, y, z;
  short3() = default;
  __HRX_V constexpr explicit short3(short s) : x(s), y(s), z(s) {}
  __HRX_V constexpr short3(short x_, short y_, short z_) : x(x_), y(y_), z(z_) {}
  __HRX_V short3 &operator+=(const short3 &o) { x += o.x; y += o.y; z += o.z; return *this; }
  __HRX_V short3 &operator-=(const short3 &o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  __HRX_V short3 &operator*=(const short3 &o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
  __HRX_V short3 &operator/=(const short3 &o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
  __HRX_V short3 &operator%=(const short3 &o) { x %= o.x; y %= o.y; z %= o.z; return *this; }
  __HRX_V short3 &operator&=(const short3 &o) { x &= o.x; y &= o.y; z &= o.z; return *this; }
  __HRX_V short3 &operator|=(const short3 &o) { x |= o.x; y |= o.y; z |= o.z; return *this; }
  __HRX_V short3 &operator^=(const short3 &o) { x ^= o.x; y ^= o.y; z ^= o.z; return *this; }
};
__HRX_V short3 operator+(short3 a, const short3 &b) { return a += b; }
__HRX_V short3 operator+(short3 a, short b) { return a += short3(b); }
__HRX_V short3 operator+(short a, const short3 &b) { return short3(a) += b; }
__HRX_V short3 operator-(short3 a, const short3 &b) { return a -= b; }
__HRX_V short3 operator-(short3 a, short b) { return a -= short3(b); }
__HRX_V short3 operator-(short a, const short3 &b) { return short3(a) -= b; }
__HRX_V short3 operator*(short3 a, const short3 &b) { return a *= b; }
__HRX_V short3 operator*(short3 a, short b) { return a *= short3(b); }
__HRX_V short3 operator*(short a, const short3 &b) { return short3(a) *= b; }
__HRX_V short3 operator/(short3 a, const short3 &b) { return a /= b; }
__HRX_V short3 operator/(short3 a, short b) { return a /= short3(b); }
__HRX_V short3 operator/(short a, const short3 &b) { return short3(a) /= b; }
__HRX_V short3 operator%(short3 a, const short3 &b) { return a %= b; }
__HRX_V short3 operator%(short3 a, short b) { return a %= short3(b); }
__HRX_V short3 operator%(short a, const short3 &b) { return short3(a) %= b; }
__HRX_V short3 operator&(short3 a, const short3 &b) { return a &= b; }
__HRX_V short3 operator&(short3 a, short b) { return a &= short3(b); }
__HRX_V short3 operator&(short a, const short3 &b) { return short3(a) &= b; }
__HRX_V short3 operator|(short3 a, const short3 &b) { return a |= b; }
__HRX_V short3 operator|(short3 a, short b) { return a |= short3(b); }
__HRX_V short3 operator|(short a, const short3 &b) { return short3(a) |= b; }
__HRX_V short3 operator^(short3 a, const short3 &b) { return a ^= b; }
__HRX_V short3 operator^(short3 a, short b) { return a ^= short3(b); }
__HRX_V short3 operator^(short a, const short3 &b) { return short3(a) ^= b; }
__HRX_V short3 operator-(const short3 &a) { return short3((short)-a.x, (short)-a.y, (short)-a.z) ; }
__HRX_V bool operator==(const short3 &a, const short3 &b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__HRX_V bool operator!=(const short3 &a, const short3 &b) { return !(a == b); }
__HRX_V short3 make_short3(short x, short y, short z) { short3 v; v.x = x; v.y = y; v.z = z; return v; }

struct __attribute__((aligned(8))) short4 {
  short x, y, z, w;
  short4() = default;
  __HRX_V constexpr explicit short4(short s) : x(s), y(s), z(s), w(s) {}
  __HRX_V constexpr short4(short x_, short y_, short z_, short w_) : x(x_), y(y_), z(z_), w(w_) {}
  __HRX_V short4 &operator+=(const short4 &o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
  __HRX_V short4 &operator-=(const short4 &o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
  __HRX_V short4 &operator*=(const short4 &o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
  __HRX_V short4 &operator/=(const short4 &o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
  __HRX_V short4 &operator%=(const short4 &o) { x %= o.x; y %= o.y; z %= o.z; w %= o.w; return *this; }
  __HRX_V short4 &operator&=(const short4 &o) { x &= o.x; y &= o.y; z &= o.z; w &= o.w; return *this; }
  __HRX_V short4 &operator|=(const short4 &o) { x |= o.x; y |= o.y; z |= o.z; w |= o.w; return *this; }
  __HRX_V short4 &operator^=(const short4 &o) { x ^= o.x; y ^= o.y; z ^= o.z; w ^= o.w; return *this; }
};
__HRX_V short4 operator+(short4 a, const short4 &b) { return a += b; }
__HRX_V short4 operator+(short4 a, short b) { return a += short4(b); }
__HRX_V short4 operator+(short a, const short4 &b) { return short4(a) += b; }
__HRX_V short4 operator-(short4 a, const short4 &b) { return a -= b; }
__HRX_V short4 operator-(short4 a, short b) { return a -= short4(b); }
__HRX_V short4 operator-(short a, const short4 &b) { return short4(a) -= b; }
__HRX_V short4 operator*(short4 a, const short4 &b) { return a *= b; }
__HRX_V short4 operator*(short4 a, short b) { return a *= short4(b); }
__HRX_V short4 operator*(short a, const short4 &b) { return short4(a) *= b; }
__HRX_V short4 operator/(short4 a, const short4 &b) { return a /= b; }
__HRX_V short4 operator/(short4 a, short b) { return a /= short4(b); }
__HRX_V short4 operator/(short a, const short4 &b) { return short4(a) /= b; }
__HRX_V short4 operator%(short4 a, const short4 &b) { return a %= b; }
__HRX_V short4 operator%(short4 a, short b) { return a %= short4(b); }
__HRX_V short4 operator%(short a, const short4 &b) { return short4(a) %= b; }
__HRX_V short4 operator&(short4 a, const short4 &b) { return a &= b; }
__HRX_V short4 operator&(short4 a, short b) { return a &= short4(b); }
__HRX_V short4 operator&(short a, const short4 &b) { return short4(a) &= b; }
__HRX_V short4 operator|(short4 a, const short4 &b) { return a |= b; }
__HRX_V short4 operator|(short4 a, short b) { return a |= short4(b); }
__HRX_V short4 operator|(short a, const short4 &b) { return short4(a) |= b; }
__HRX_V short4 operator^(short4 a, const short4 &b) { return a ^= b; }
__HRX_V short4 operator^(short4 a, short b) { return a ^= short4(b); }
__HRX_V short4 operator^(short a, const short4 &b) { return short4(a) ^= b; }
__HRX_V short4 operator-(const short4 &a) { return short4((short)-a.x, (short)-a.y, (short)-a.z, (short)-a.w) ; }
__HRX_V bool operator==(const short4 &a, const short4 &b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__HRX_V bool operator!=(const short4 &a, const short4 &b) { return !(a == b); }
__HRX_V short4 make_short4(short x, short y, short z, short w) { short4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }

struct __attribute__((aligned(2))) ushort1 {
  unsigned short x;
  ushort1() = default;
  __HRX_V constexpr explicit ushort1(unsigned short s) : x(s) {}
  __HRX_V ushort1 &operator+=(const ushort1 &o) { x += o.x; return *this; }
  __HRX_V ushort1 &operator-=(const ushort1 &o) { x -= o.x; return *this; }
  __HRX_V ushort1 &operator*=(const ushort1 &o) { x *= o.x; return *this; }
  __HRX_V ushort1 &operator/=(const ushort1 &o) { x /= o.x; return *this; }
  __HRX_V ushort1 &operator%=(const ushort1 &o) { x %= o.x; return *this; }
  __HRX_V ushort1 &operator&=(const ushort1 &o) { x &= o.x; return *this; }
  __HRX_V ushort1 &operator|=(const ushort1 &o) { x |= o.x; return *this; }
  __HRX_V ushort1 &operator^=(const ushort1 &o) { x ^= o.x; return *this; }
};
__HRX_V ushort1 operator+(ushort1 a, const ushort1 &b) { return a += b; }
__HRX_V ushort1 operator+(ushort1 a, unsigned short b) { return a += ushort1(b); }
__HRX_V ushort1 operator+(unsigned short a, const ushort1 &b) { return ushort1(a) += b; }
__HRX_V ushort1 operator-(ushort1 a, const ushort1 &b) { return a -= b; }
__HRX_V ushort1 operator-(ushort1 a, unsigned short b) { return a -= ushort1(b); }
__HRX_V ushort1 operator-(unsigned short a, const ushort1 &b) { return ushort1(a) -= b; }
__HRX_V ushort1 operator*(ushort1 a, const ushort1 &b) { return a *= b; }
__HRX_V ushort1 operator*(ushort1 a, unsigned short b) { return a *= ushort1(b); }
__HRX_V ushort1 operator*(unsigned short a, const ushort1 &b) { return ushort1(a) *= b; }
__HRX_V ushort1 operator/(ushort1 a, const ushort1 &b) { return a /= b; }
__HRX_V ushort1 operator/(ushort1 a, unsigned short b) { return a /= ushort1(b); }
__HRX_V ushort1 operator/(unsigned short a, const ushort1 &b) { return ushort1(a) /= b; }
__HRX_V ushort1 operator%(ushort1 a, const ushort1 &b) { return a %= b; }
__HRX_V ushort1 operator%(ushort1 a, unsigned short b) { return a %= ushort1(b); }
__HRX_V ushort1 operator%(unsigned short a, const ushort1 &b) { return ushort1(a) %= b; }
__HRX_V ushort1 operator&(ushort1 a, const ushort1 &b) { return a &= b; }
__HRX_V ushort1 operator&(ushort1 a, unsigned short b) { return a &= ushort1(b); }
__HRX_V ushort1 operator&(unsigned short a, const ushort1 &b) { return ushort1(a) &= b; }
__HRX_V ushort1 operator|(ushort1 a, const ushort1 &b) { return a |= b; }
__HRX_V ushort1 operator|(ushort1 a, unsigned short b) { return a |= ushort1(b); }
__HRX_V ushort1 operator|(unsigned short a, const ushort1 &b) { return ushort1(a) |= b; }
__HRX_V ushort1 operator^(ushort1 a, const ushort1 &b) { return a ^= b; }
__HRX_V ushort1 operator^(ushort1 a, unsigned short b) { return a ^= ushort1(b); }
__HRX_V ushort1 operator^(unsigned short a, const ushort1 &b) { return ushort1(a) ^= b; }
__HRX_V ushort1 operator-(const ushort1 &a) { return ushort1((unsigned short)-a.x); }
__HRX_V bool operator==(const ushort1 &a, const ushort1 &b) { return a.x == b.x; }
__HRX_V bool operator!=(const ushort1 &a, const ushort1 &b) { return !(a == b); }
__HRX_V ushort1 make_ushort1(unsigned short x) { ushort1 v; v.x = x; return v; }

struct __attribute__((aligned(4))) ushort2 {
  unsigned short x, y;
  ushort2() = default;
  __HRX_V constexpr explicit ushort2(unsigned short s) : x(s), y(s) {}
  __HRX_V constexpr ushort2(unsigned short x_, unsigned short y_) : x(x_), y(y_) {}
  __HRX_V ushort2 &operator+=(const ushort2 &o) { x += o.x; y += o.y; return *this; }
  __HRX_V ushort2 &operator-=(const ushort2 &o) { x -= o.x; y -= o.y; return *this; }
  __HRX_V ushort2 &operator*=(const ushort2 &o) { x *= o.x; y *= o.y; return *this; }
  __HRX_V ushort2 &operator/=(const ushort2 &o) { x /= o.x; y /= o.y; return *this; }
  __HRX_V ushort2 &operator%=(const ushort2 &o) { x %= o.x; y %= o.y; return *this; }
  __HRX_V ushort2 &operator&=(const ushort2 &o) { x &= o.x; y &= o.y; return *this; }
  __HRX_V ushort2 &operator|=(const ushort2 &o) { x |= o.x; y |= o.y; return *this; }
  __HRX_V ushort2 &operator^=(const ushort2 &o) { x ^= o.x; y ^= o.y; return *this; }
};
__HRX_V ushort2 operator+(ushort2 a, const ushort2 &b) { return a += b; }
__HRX_V ushort2 operator+(ushort2 a, unsigned short b) { return a += ushort2(b); }
__HRX_V ushort2 operator+(unsigned short a, const ushort2 &b) { return ushort2(a) += b; }
__HRX_V ushort2 operator-(ushort2 a, const ushort2 &b) { return a -= b; }
__HRX_V ushort2 operator-(ushort2 a, unsigned short b) { return a -= ushort2(b); }
__HRX_V ushort2 operator-(unsigned short a, const ushort2 &b) { return ushort2(a) -= b; }
__HRX_V ushort2 operator*(ushort2 a, const ushort2 &b) { return a *= b; }
__HRX_V ushort2 operator*(ushort2 a, unsigned short b) { return a *= ushort2(b); }
__HRX_V ushort2 operator*(unsigned short a, const ushort2 &b) { return ushort2(a) *= b; }
__HRX_V ushort2 operator/(ushort2 a, const ushort2 &b) { return a /= b; }
__HRX_V ushort2 operator/(ushort2 a, unsigned short b) { return a /= ushort2(b); }
__HRX_V ushort2 operator/(unsigned short a, const ushort2 &b) { return ushort2(a) /= b; }
__HRX_V ushort2 operator%(ushort2 a, const ushort2 &b) { return a %= b; }
__HRX_V ushort2 operator%(ushort2 a, unsigned short b) { return a %= ushort2(b); }
__HRX_V ushort2 operator%(unsigned short a, const ushort2 &b) { return ushort2(a) %= b; }
__HRX_V ushort2 operator&(ushort2 a, const ushort2 &b) { return a &= b; }
__HRX_V ushort2 operator&(ushort2 a, unsigned short b) { return a &= ushort2(b); }
__HRX_V ushort2 operator&(unsigned short a, const ushort2 &b) { return ushort2(a) &= b; }
__HRX_V ushort2 operator|(ushort2 a, const ushort2 &b) { return a |= b; }
__HRX_V ushort2 operator|(ushort2 a, unsigned short b) { return a |= ushort2(b); }
__HRX_V ushort2 operator|(unsigned short a, const ushort2 &b) { return ushort2(a) |= b; }
__HRX_V ushort2 operator^(ushort2 a, const ushort2 &b) { return a ^= b; }
__HRX_V ushort2 operator^(ushort2 a, unsigned short b) { return a ^= ushort2(b); }
__HRX_V ushort2 operator^(unsigned short a, const ushort2 &b) { return ushort2(a) ^= b; }
__HRX_V ushort2 operator-(const ushort2 &a) { return ushort2((unsigned short)-a.x, (unsigned short)-a.y) ; }
__HRX_V bool operator==(const ushort2 &a, const ushort2 &b) { return a.x == b.x && a.y == b.y; }
__HRX_V bool operator!=(const ushort2 &a, const ushort2 &b) { return !(a == b); }
__HRX_V ushort2 make_ushort2(unsigned short x, unsigned short y) { ushort2 v; v.x = x; v.y = y; return v; }

struct __attribute__((aligned(2))) ushort3 {
  unsigned short x, y, z;
  ushort3() = default;
  __HRX_V constexpr explicit ushort3(unsigned short s) : x(s), y(s), z(s) {}
  __HRX_V constexpr ushort3(unsigned short x_, unsigned short y_, unsigned short z_) : x(x_), y(y_), z(z_) {}
  __HRX_V ushort3 &operator+=(const ushort3 &o) { x += o.x; y += o.y; z += o.z; return *this; }
  __HRX_V ushort3 &operator-=(const ushort3 &o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  __HRX_V ushort3 &operator*=(const ushort3 &o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
  __HRX_V ushort3 &operator/=(const ushort3 &o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
  __HRX_V ushort3 &operator%=(const ushort3 &o) { x %= o.x; y %= o.y; z %= o.z; return *this; }
  __HRX_V ushort3 &operator&=(const ushort3 &o) { x &= o.x; y &= o.y; z &= o.z; return *this; }
  __HRX_V ushort3 &operator|=(const ushort3 &o) { x |= o.x; y |= o.y; z |= o.z; return *this; }
  __HRX_V ushort3 &operator^=(const ushort3 &o) { x ^= o.x; y ^= o.y; z ^= o.z; return *this; }
};
__HRX_V ushort3 operator+(ushort3 a, const ushort3 &b) { return a += b; }
__HRX_V ushort3 operator+(ushort3 a, unsigned short b) { return a += ushort3(b); }
__HRX_V ushort3 operator+(unsigned short a, const ushort3 &b) { return ushort3(a) += b; }
__HRX_V ushort3 operator-(ushort3 a, const ushort3 &b) { return a -= b; }
__HRX_V ushort3 operator-(ushort3 a, unsigned short b) { return a -= ushort3(b); }
__HRX_V ushort3 operator-(unsigned short a, const ushort3 &b) { return ushort3(a) -= b; }
__HRX_V ushort3 operator*(ushort3 a, const ushort3 &b) { return a *= b; }
__HRX_V ushort3 operator*(ushort3 a, unsigned short b) { return a *= ushort3(b); }
__HRX_V ushort3 operator*(unsigned short a, const ushort3 &b) { return ushort3(a) *= b; }
__HRX_V ushort3 operator/(ushort3 a, const ushort3 &b) { return a /= b; }
__HRX_V ushort3 operator/(ushort3 a, unsigned short b) { return a /= ushort3(b); }
__HRX_V ushort3 operator/(unsigned short a, const ushort3 &b) { return ushort3(a) /= b; }
__HRX_V ushort3 operator%(ushort3 a, const ushort3 &b) { return a %= b; }
__HRX_V ushort3 operator%(ushort3 a, unsigned short b) { return a %= ushort3(b); }
__HRX_V ushort3 operator%(unsigned short a, const ushort3 &b) { return ushort3(a) %= b; }
__HRX_V ushort3 operator&(ushort3 a, const ushort3 &b) { return a &= b; }
__HRX_V ushort3 operator&(ushort3 a, unsigned short b) { return a &= ushort3(b); }
__HRX_V ushort3 operator&(unsigned short a, const ushort3 &b) { return ushort3(a) &= b; }
__HRX_V ushort3 operator|(ushort3 a, const ushort3 &b) { return a |= b; }
__HRX_V ushort3 operator|(ushort3 a, unsigned short b) { return a |= ushort3(b); }
__HRX_V ushort3 operator|(unsigned short a, const ushort3 &b) { return ushort3(a) |= b; }
__HRX_V ushort3 operator^(ushort3 a, const ushort3 &b) { return a ^= b; }
__HRX_V ushort3 operator^(ushort3 a, unsigned short b) { return a ^= ushort3(b); }
__HRX_V ushort3 operator^(unsigned short a, const ushort3 &b) { return ushort3(a) ^= b; }
__HRX_V ushort3 operator-(const ushort3 &a) { return ushort3((unsigned short)-a.x, (unsigned short)-a.y, (unsigned short)-a.z) ; }
__HRX_V bool operator==(const ushort3 &a, const ushort3 &b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__HRX_V bool operator!=(const ushort3 &a, const ushort3 &b) { return !(a == b); }
__HRX_V ushort3 make_ushort3(unsigned short x, unsigned short y, unsigned short z) { ushort3 v; v.x = x; v.y = y; v.z = z; return v; }

struct __attribute__((aligned(8))) ushort4 {
  unsigned short x, y, z, w;
  ushort4() = default;
  __HRX_V constexpr explicit ushort4(unsigned short s) : x(s), y(s), z(s), w(s) {}
  __HRX_V constexpr ushort4(unsigned short x_, unsigned short y_, unsigned short z_, unsigned short w_) : x(x_), y(y_), z(z_), w(w_) {}
  __HRX_V ushort4 &operator+=(const ushort4 &o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
  __HRX_V ushort4 &operator-=(const ushort4 &o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
  __HRX_V ushort4 &operator*=(const ushort4 &o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
  __HRX_V ushort4 &operator/=(const ushort4 &o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
  __HRX_V ushort4 &operator%=(const ushort4 &o) { x %= o.x; y %= o.y; z %= o.z; w %= o.w; return *this; }
  __HRX_V ushort4 &operator&=(const ushort4 &o) { x &= o.x; y &= o.y; z &= o.z; w &= o.w; return *this; }
  __HRX_V ushort4 &operator|=(const ushort4 &o) { x |= o.x; y |= o.y; z |= o.z; w |= o.w; return *this; }
  __HRX_V ushort4 &operator^=(const ushort4 &o) { x ^= o.x; y ^= o.y; z ^= o.z; w ^= o.w; return *this; }
};
__HRX_V ushort4 operator+(ushort4 a, const ushort4 &b) { return a += b; }
__HRX_V ushort4 operator+(ushort4 a, unsigned short b) { return a += ushort4(b); }
__HRX_V ushort4 operator+(unsigned short a, const ushort4 &b) { return ushort4(a) += b; }
__HRX_V ushort4 operator-(ushort4 a, const ushort4 &b) { return a -= b; }
__HRX_V ushort4 operator-(ushort4 a, unsigned short b) { return a -= ushort4(b); }
__HRX_V ushort4 operator-(unsigned short a, const ushort4 &b) { return ushort4(a) -= b; }
__HRX_V ushort4 operator*(ushort4 a, const ushort4 &b) { return a *= b; }
__HRX_V ushort4 operator*(ushort4 a, unsigned short b) { return a *= ushort4(b); }
__HRX_V ushort4 operator*(unsigned short a, const ushort4 &b) { return ushort4(a) *= b; }
__HRX_V ushort4 operator/(ushort4 a, const ushort4 &b) { return a /= b; }
__HRX_V ushort4 operator/(ushort4 a, unsigned short b) { return a /= ushort4(b); }
__HRX_V ushort4 operator/(unsigned short a, const ushort4 &b) { return ushort4(a) /= b; }
__HRX_V ushort4 operator%(ushort4 a, const ushort4 &b) { return a %= b; }
__HRX_V ushort4 operator%(ushort4 a, unsigned short b) { return a %= ushort4(b); }
__HRX_V ushort4 operator%(unsigned short a, const ushort4 &b) { return ushort4(a) %= b; }
__HRX_V ushort4 operator&(ushort4 a, const ushort4 &b) { return a &= b; }
__HRX_V ushort4 operator&(ushort4 a, unsigned short b) { return a &= ushort4(b); }
__HRX_V ushort4 operator&(unsigned short a, const ushort4 &b) { return ushort4(a) &= b; }
__HRX_V ushort4 operator|(ushort4 a, const ushort4 &b) { return a |= b; }
__HRX_V ushort4 operator|(ushort4 a, unsigned short b) { return a |= ushort4(b); }
__HRX_V ushort4 operator|(unsigned short a, const ushort4 &b) { return ushort4(a) |= b; }
__HRX_V ushort4 operator^(ushort4 a, const ushort4 &b) { return a ^= b; }
__HRX_V ushort4 operator^(ushort4 a, unsigned short b) { return a ^= ushort4(b); }
__HRX_V ushort4 operator^(unsigned short a, const ushort4 &b) { return ushort4(a) ^= b; }
__HRX_V ushort4 operator-(const ushort4 &a) { return ushort4((unsigned short)-a.x, (unsigned short)-a.y, (unsigned short)-a.z, (unsigned short)-a.w) ; }
__HRX_V bool operator==(const ushort4 &a, const ushort4 &b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__HRX_V bool operator!=(const ushort4 &a, const ushort4 &b) { return !(a == b); }
__HRX_V ushort4 make_ushort4(unsigned short x, unsigned short y, unsigned short z, unsigned short w) { ushort4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }

struct __attribute__((aligned(4))) int1 {
  int x;
  int1() = default;
  __HRX_V constexpr explicit int1(int s) : x(s) {}
  __HRX_V int1 &operator+=(const int1 &o) { x += o.x; return *this; }
  __HRX_V int1 &operator-=(const int1 &o) { x -= o.x; return *this; }
  __HRX_V int1 &operator*=(const int1 &o) { x *= o.x; return *this; }
  __HRX_V int1 &operator/=(const int1 &o) { x /= o.x; return *this; }
  __HRX_V int1 &operator%=(const int1 &o) { x %= o.x; return *this; }
  __HRX_V int1 &operator&=(const int1 &o) { x &= o.x; return *this; }
  __HRX_V int1 &operator|=(const int1 &o) { x |= o.x; return *this; }
  __HRX_V int1 &operator^=(const int1 &o) { x ^= o.x; return *this; }
};
__HRX_V int1 operator+(int1 a, const int1 &b) { return a += b; }
__HRX_V int1 operator+(int1 a, int b) { return a += int1(b); }
__HRX_V int1 operator+(int a, const int1 &b) { return int1(a) += b; }
__HRX_V int1 operator-(int1 a, const int1 &b) { return a -= b; }
__HRX_V int1 operator-(int1 a, int b) { return a -= int1(b); }
__HRX_V int1 operator-(int a, const int1 &b) { return int1(a) -= b; }
__HRX_V int1 operator*(int1 a, const int1 &b) { return a *= b; }
__HRX_V int1 operator*(int1 a, int b) { return a *= int1(b); }
__HRX_V int1 operator*(int a, const int1 &b) { return int1(a) *= b; }
__HRX_V int1 operator/(int1 a, const int1 &b) { return a /= b; }
__HRX_V int1 operator/(int1 a, int b) { return a /= int1(b); }
__HRX_V int1 operator/(int a, const int1 &b) { return int1(a) /= b; }
__HRX_V int1 operator%(int1 a, const int1 &b) { return a %= b; }
__HRX_V int1 operator%(int1 a, int b) { return a %= int1(b); }
__HRX_V int1 operator%(int a, const int1 &b) { return int1(a) %= b; }
__HRX_V int1 operator&(int1 a, const int1 &b) { return a &= b; }
__HRX_V int1 operator&(int1 a, int b) { return a &= int1(b); }
__HRX_V int1 operator&(int a, const int1 &b) { return int1(a) &= b; }
__HRX_V int1 operator|(int1 a, const int1 &b) { return a |= b; }
__HRX_V int1 operator|(int1 a, int b) { return a |= int1(b); }
__HRX_V int1 operator|(int a, const int1 &b) { return int1(a) |= b; }
__HRX_V int1 operator^(int1 a, const int1 &b) { return a ^= b; }
__HRX_V int1 operator^(int1 a, int b) { return a ^= int1(b); }
__HRX_V int1 operator^(int a, const int1 &b) { return int1(a) ^= b; }
__HRX_V int1 operator-(const int1 &a) { return int1((int)-a.x); }
__HRX_V bool operator==(const int1 &a, const int1 &b) { return a.x == b.x; }
__HRX_V bool operator!=(const int1 &a, const int1 &b) { return !(a == b); }
__HRX_V int1 make_int1(int x) { int1 v; v.x = x; return v; }

struct __attribute__((aligned(8))) int2 {
  int x, y;
  int2() = default;
  __HRX_V constexpr explicit int2(int s) : x(s), y(s) {}
  __HRX_V constexpr int2(int x_, int y_) : x(x_), y(y_) {}
  __HRX_V int2 &operator+=(const int2 &o) { x += o.x; y += o.y; return *this; }
  __HRX_V int2 &operator-=(const int2 &o) { x -= o.x; y -= o.y; return *this; }
  __HRX_V int2 &operator*=(const int2 &o) { x *= o.x; y *= o.y; return *this; }
  __HRX_V int2 &operator/=(const int2 &o) { x /= o.x; y /= o.y; return *this; }
  __HRX_V int2 &operator%=(const int2 &o) { x %= o.x; y %= o.y; return *this; }
  __HRX_V int2 &operator&=(const int2 &o) { x &= o.x; y &= o.y; return *this; }
  __HRX_V int2 &operator|=(const int2 &o) { x |= o.x; y |= o.y; return *this; }
  __HRX_V int2 &operator^=(const int2 &o) { x ^= o.x; y ^= o.y; return *this; }
};
__HRX_V int2 operator+(int2 a, const int2 &b) { return a += b; }
__HRX_V int2 operator+(int2 a, int b) { return a += int2(b); }
__HRX_V int2 operator+(int a, const int2 &b) { return int2(a) += b; }
__HRX_V int2 operator-(int2 a, const int2 &b) { return a -= b; }
__HRX_V int2 operator-(int2 a, int b) { return a -= int2(b); }
__HRX_V int2 operator-(int a, const int2 &b) { return int2(a) -= b; }
__HRX_V int2 operator*(int2 a, const int2 &b) { return a *= b; }
__HRX_V int2 operator*(int2 a, int b) { return a *= int2(b); }
__HRX_V int2 operator*(int a, const int2 &b) { return int2(a) *= b; }
__HRX_V int2 operator/(int2 a, const int2 &b) { return a /= b; }
__HRX_V int2 operator/(int2 a, int b) { return a /= int2(b); }
__HRX_V int2 operator/(int a, const int2 &b) { return int2(a) /= b; }
__HRX_V int2 operator%(int2 a, const int2 &b) { return a %= b; }
__HRX_V int2 operator%(int2 a, int b) { return a %= int2(b); }
__HRX_V int2 operator%(int a, const int2 &b) { return int2(a) %= b; }
__HRX_V int2 operator&(int2 a, const int2 &b) { return a &= b; }
__HRX_V int2 operator&(int2 a, int b) { return a &= int2(b); }
__HRX_V int2 operator&(int a, const int2 &b) { return int2(a) &= b; }
__HRX_V int2 operator|(int2 a, const int2 &b) { return a |= b; }
__HRX_V int2 operator|(int2 a, int b) { return a |= int2(b); }
__HRX_V int2 operator|(int a, const int2 &b) { return int2(a) |= b; }
__HRX_V int2 operator^(int2 a, const int2 &b) { return a ^= b; }
__HRX_V int2 operator^(int2 a, int b) { return a ^= int2(b); }
__HRX_V int2 operator^(int a, const int2 &b) { return int2(a) ^= b; }
__HRX_V int2 operator-(const int2 &a) { return int2((int)-a.x, (int)-a.y) ; }
__HRX_V bool operator==(const int2 &a, const int2 &b) { return a.x == b.x && a.y == b.y; }
__HRX_V bool operator!=(const int2 &a, const int2 &b) { return !(a == b); }
__HRX_V int2 make_int2(int x, int y) { int2 v; v.x = x; v.y = y; return v; }

struct __attribute__((aligned(4))) int3 {
  int x, y, z;
  int3() = default;
  __HRX_V constexpr explicit int3(int s) : x(s), y(s), z(s) {}
  __HRX_V constexpr int3(int x_, int y_, int z_) : x(x_), y(y_), z(z_) {}
  __HRX_V int3 &operator+=(const int3 &o) { x += o.x; y += o.y; z += o.z; return *this; }
  __HRX_V int3 &operator-=(const int3 &o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  __HRX_V int3 &operator*=(const int3 &o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
  __HRX_V int3 &operator/=(const int3 &o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
  __HRX_V int3 &operator%=(const int3 &o) { x %= o.x; y %= o.y; z %= o.z; return *this; }
  __HRX_V int3 &operator&=(const int3 &o) { x &= o.x; y &= o.y; z &= o.z; return *this; }
  __HRX_V int3 &operator|=(const int3 &o) { x |= o.x; y |= o.y; z |= o.z; return *this; }
  __HRX_V int3 &operator^=(const int3 &o) { x ^= o.x; y ^= o.y; z ^= o.z; return *this; }
};
__HRX_V int3 operator+(int3 a, const int3 &b) { return a += b; }
__HRX_V int3 operator+(int3 a, int b) { return a += int3(b); }
__HRX_V int3 operator+(int a, const int3 &b) { return int3(a) += b; }
__HRX_V int3 operator-(int3 a, const int3 &b) { return a -= b; }
__HRX_V int3 operator-(int3 a, int b) { return a -= int3(b); }
__HRX_V int3 operator-(int a, const int3 &b) { return int3(a) -= b; }
__HRX_V int3 operator*(int3 a, const int3 &b) { return a *= b; }
__HRX_V int3 operator*(int3 a, int b) { return a *= int3(b); }
__HRX_V int3 operator*(int a, const int3 &b) { return int3(a) *= b; }
__HRX_V int3 operator/(int3 a, const int3 &b) { return a /= b; }
__HRX_V int3 operator/(int3 a, int b) { return a /= int3(b); }
__HRX_V int3 operator/(int a, const int3 &b) { return int3(a) /= b; }
__HRX_V int3 operator%(int3 a, const int3 &b) { return a %= b; }
__HRX_V int3 operator%(int3 a, int b) { return a %= int3(b); }
__HRX_V int3 operator%(int a, const int3 &b) { return int3(a) %= b; }
__HRX_V int3 operator&(int3 a, const int3 &b) { return a &= b; }
__HRX_V int3 operator&(int3 a, int b) { return a &= int3(b); }
__HRX_V int3 operator&(int a, const int3 &b) { return int3(a) &= b; }
__HRX_V int3 operator|(int3 a, const int3 &b) { return a |= b; }
__HRX_V int3 operator|(int3 a, int b) { return a |= int3(b); }
__HRX_V int3 operator|(int a, const int3 &b) { return int3(a) |= b; }
__HRX_V int3 operator^(int3 a, const int3 &b) { return a ^= b; }
__HRX_V int3 operator^(int3 a, int b) { return a ^= int3(b); }
__HRX_V int3 operator^(int a, const int3 &b) { return int3(a) ^= b; }
__HRX_V int3 operator-(const int3 &a) { return int3((int)-a.x, (int)-a.y, (int)-a.z) ; }
__HRX_V bool operator==(const int3 &a, const int3 &b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__HRX_V bool operator!=(const int3 &a, const int3 &b) { return !(a == b); }
__HRX_V int3 make_int3(int x, int y, int z) { int3 v; v.x = x; v.y = y; v.z = z; return v; }

struct __attribute__((aligned(16))) int4 {
  int x, y, z, w;
  int4() = default;
  __HRX_V constexpr explicit int4(int s) : x(s), y(s), z(s), w(s) {}
  __HRX_V constexpr int4(int x_, int y_, int z_, int w_) : x(x_), y(y_), z(z_), w(w_) {}
  __HRX_V int4 &operator+=(const int4 &o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
  __HRX_V int4 &operator-=(const int4 &o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
  __HRX_V int4 &operator*=(const int4 &o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
  __HRX_V int4 &operator/=(const int4 &o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
  __HRX_V int4 &operator%=(const int4 &o) { x %= o.x; y %= o.y; z %= o.z; w %= o.w; return *this; }
  __HRX_V int4 &operator&=(const int4 &o) { x &= o.x; y &= o.y; z &= o.z; w &= o.w; return *this; }
  __HRX_V int4 &operator|=(const int4 &o) { x |= o.x; y |= o.y; z |= o.z; w |= o.w; return *this; }
  __HRX_V int4 &operator^=(const int4 &o) { x ^= o.x; y ^= o.y; z ^= o.z; w ^= o.w; return *this; }
};
__HRX_V int4 operator+(int4 a, const int4 &b) { return a += b; }
__HRX_V int4 operator+(int4 a, int b) { return a += int4(b); }
__HRX_V int4 operator+(int a, const int4 &b) { return int4(a) += b; }
__HRX_V int4 operator-(int4 a, const int4 &b) { return a -= b; }
__HRX_V int4 operator-(int4 a, int b) { return a -= int4(b); }
__HRX_V int4 operator-(int a, const int4 &b) { return int4(a) -= b; }
__HRX_V int4 operator*(int4 a, const int4 &b) { return a *= b; }
__HRX_V int4 operator*(int4 a, int b) { return a *= int4(b); }
__HRX_V int4 operator*(int a, const int4 &b) { return int4(a) *= b; }
__HRX_V int4 operator/(int4 a, const int4 &b) { return a /= b; }
__HRX_V int4 operator/(int4 a, int b) { return a /= int4(b); }
__HRX_V int4 operator/(int a, const int4 &b) { return int4(a) /= b; }
__HRX_V int4 operator%(int4 a, const int4 &b) { return a %= b; }
__HRX_V int4 operator%(int4 a, int b) { return a %= int4(b); }
__HRX_V int4 operator%(int a, const int4 &b) { return int4(a) %= b; }
__HRX_V int4 operator&(int4 a, const int4 &b) { return a &= b; }
__HRX_V int4 operator&(int4 a, int b) { return a &= int4(b); }
__HRX_V int4 operator&(int a, const int4 &b) { return int4(a) &= b; }
__HRX_V int4 operator|(int4 a, const int4 &b) { return a |= b; }
__HRX_V int4 operator|(int4 a, int b) { return a |= int4(b); }
__HRX_V int4 operator|(int a, const int4 &b) { return int4(a) |= b; }
__HRX_V int4 operator^(int4 a, const int4 &b) { return a ^= b; }
__HRX_V int4 operator^(int4 a, int b) { return a ^= int4(b); }
__HRX_V int4 operator^(int a, const int4 &b) { return int4(a) ^= b; }
__HRX_V int4 operator-(const int4 &a) { return int4((int)-a.x, (int)-a.y, (int)-a.z, (int)-a.w) ; }
__HRX_V bool operator==(const int4 &a, const int4 &b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__HRX_V bool operator!=(const int4 &a, const int4 &b) { return !(a == b); }
__HRX_V int4 make_int4(int x, int y, int z, int w) { int4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }

struct __attribute__((aligned(4))) uint1 {
  unsigned int x;
  uint1() = default;
  __HRX_V constexpr explicit uint1(unsigned int s) : x(s) {}
  __HRX_V uint1 &operator+=(const uint1 &o) { x += o.x; return *this; }
  __HRX_V uint1 &operator-=(const uint1 &o) { x -= o.x; return *this; }
  __HRX_V uint1 &operator*=(const uint1 &o) { x *= o.x; return *this; }
  __HRX_V uint1 &operator/=(const uint1 &o) { x /= o.x; return *this; }
  __HRX_V uint1 &operator%=(const uint1 &o) { x %= o.x; return *this; }
  __HRX_V uint1 &operator&=(const uint1 &o) { x &= o.x; return *this; }
  __HRX_V uint1 &operator|=(const uint1 &o) { x |= o.x; return *this; }
  __HRX_V uint1 &operator^=(const uint1 &o) { x ^= o.x; return *this; }
};
__HRX_V uint1 operator+(uint1 a, const uint1 &b) { return a += b; }
__HRX_V uint1 operator+(uint1 a, unsigned int b) { return a += uint1(b); }
__HRX_V uint1 operator+(unsigned int a, const uint1 &b) { return uint1(a) += b; }
__HRX_V uint1 operator-(uint1 a, const uint1 &b) { return a -= b; }
__HRX_V uint1 operator-(uint1 a, unsigned int b) { return a -= uint1(b); }
__HRX_V uint1 operator-(unsigned int a, const uint1 &b) { return uint1(a) -= b; }
__HRX_V uint1 operator*(uint1 a, const uint1 &b) { return a *= b; }
__HRX_V uint1 operator*(uint1 a, unsigned int b) { return a *= uint1(b); }
__HRX_V uint1 operator*(unsigned int a, const uint1 &b) { return uint1(a) *= b; }
__HRX_V uint1 operator/(uint1 a, const uint1 &b) { return a /= b; }
__HRX_V uint1 operator/(uint1 a, unsigned int b) { return a /= uint1(b); }
__HRX_V uint1 operator/(unsigned int a, const uint1 &b) { return uint1(a) /= b; }
__HRX_V uint1 operator%(uint1 a, const uint1 &b) { return a %= b; }
__HRX_V uint1 operator%(uint1 a, unsigned int b) { return a %= uint1(b); }
__HRX_V uint1 operator%(unsigned int a, const uint1 &b) { return uint1(a) %= b; }
__HRX_V uint1 operator&(uint1 a, const uint1 &b) { return a &= b; }
__HRX_V uint1 operator&(uint1 a, unsigned int b) { return a &= uint1(b); }
__HRX_V uint1 operator&(unsigned int a, const uint1 &b) { return uint1(a) &= b; }
__HRX_V uint1 operator|(uint1 a, const uint1 &b) { return a |= b; }
__HRX_V uint1 operator|(uint1 a, unsigned int b) { return a |= uint1(b); }
__HRX_V uint1 operator|(unsigned int a, const uint1 &b) { return uint1(a) |= b; }
__HRX_V uint1 operator^(uint1 a, const uint1 &b) { return a ^= b; }
__HRX_V uint1 operator^(uint1 a, unsigned int b) { return a ^= uint1(b); }
__HRX_V uint1 operator^(unsigned int a, const uint1 &b) { return uint1(a) ^= b; }
__HRX_V uint1 operator-(const uint1 &a) { return uint1((unsigned int)-a.x); }
__HRX_V bool operator==(const uint1 &a, const uint1 &b) { return a.x == b.x; }
__HRX_V bool operator!=(const uint1 &a, const uint1 &b) { return !(a == b); }
__HRX_V uint1 make_uint1(unsigned int x) { uint1 v; v.x = x; return v; }

struct __attribute__((aligned(8))) uint2 {
  unsigned int x, y;
  uint2() = default;
  __HRX_V constexpr explicit uint2(unsigned int s) : x(s), y(s) {}
  __HRX_V constexpr uint2(unsigned int x_, unsigned int y_) : x(x_), y(y_) {}
  __HRX_V uint2 &operator+=(const uint2 &o) { x += o.x; y += o.y; return *this; }
  __HRX_V uint2 &operator-=(const uint2 &o) { x -= o.x; y -= o.y; return *this; }
  __HRX_V uint2 &operator*=(const uint2 &o) { x *= o.x; y *= o.y; return *this; }
  __HRX_V uint2 &operator/=(const uint2 &o) { x /= o.x; y /= o.y; return *this; }
  __HRX_V uint2 &operator%=(const uint2 &o) { x %= o.x; y %= o.y; return *this; }
  __HRX_V uint2 &operator&=(const uint2 &o) { x &= o.x; y &= o.y; return *this; }
  __HRX_V uint2 &operator|=(const uint2 &o) { x |= o.x; y |= o.y; return *this; }
  __HRX_V uint2 &operator^=(const uint2 &o) { x ^= o.x; y ^= o.y; return *this; }
};
__HRX_V uint2 operator+(uint2 a, const uint2 &b) { return a += b; }
__HRX_V uint2 operator+(uint2 a, unsigned int b) { return a += uint2(b); }
__HRX_V uint2 operator+(unsigned int a, const uint2 &b) { return uint2(a) += b; }
__HRX_V uint2 operator-(uint2 a, const uint2 &b) { return a -= b; }
__HRX_V uint2 operator-(uint2 a, unsigned int b) { return a -= uint2(b); }
__HRX_V uint2 operator-(unsigned int a, const uint2 &b) { return uint2(a) -= b; }
__HRX_V uint2 operator*(uint2 a, const uint2 &b) { return a *= b; }
__HRX_V uint2 operator*(uint2 a, unsigned int b) { return a *= uint2(b); }
__HRX_V uint2 operator*(unsigned int a, const uint2 &b) { return uint2(a) *= b; }
__HRX_V uint2 operator/(uint2 a, const uint2 &b) { return a /= b; }
__HRX_V uint2 operator/(uint2 a, unsigned int b) { return a /= uint2(b); }
__HRX_V uint2 operator/(unsigned int a, const uint2 &b) { return uint2(a) /= b; }
__HRX_V uint2 operator%(uint2 a, const uint2 &b) { return a %= b; }
__HRX_V uint2 operator%(uint2 a, unsigned int b) { return a %= uint2(b); }
__HRX_V uint2 operator%(unsigned int a, const uint2 &b) { return uint2(a) %= b; }
__HRX_V uint2 operator&(uint2 a, const uint2 &b) { return a &= b; }
__HRX_V uint2 operator&(uint2 a, unsigned int b) { return a &= uint2(b); }
__HRX_V uint2 operator&(unsigned int a, const uint2 &b) { return uint2(a) &= b; }
__HRX_V uint2 operator|(uint2 a, const uint2 &b) { return a |= b; }
__HRX_V uint2 operator|(uint2 a, unsigned int b) { return a |= uint2(b); }
__HRX_V uint2 operator|(unsigned int a, const uint2 &b) { return uint2(a) |= b; }
__HRX_V uint2 operator^(uint2 a, const uint2 &b) { return a ^= b; }
__HRX_V uint2 operator^(uint2 a, unsigned int b) { return a ^= uint2(b); }
__HRX_V uint2 operator^(unsigned int a, const uint2 &b) { return uint2(a) ^= b; }
__HRX_V uint2 operator-(const uint2 &a) { return uint2((unsigned int)-a.x, (unsigned int)-a.y) ; }
__HRX_V bool operator==(const uint2 &a, const uint2 &b) { return a.x == b.x && a.y == b.y; }
__HRX_V bool operator!=(const uint2 &a, const uint2 &b) { return !(a == b); }
__HRX_V uint2 make_uint2(unsigned int x, unsigned int y) { uint2 v; v.x = x; v.y = y; return v; }

struct __attribute__((aligned(4))) uint3 {
  unsigned int x, y, z;
  uint3() = default;
  __HRX_V constexpr explicit uint3(unsigned int s) : x(s), y(s), z(s) {}
  __HRX_V constexpr uint3(unsigned int x_, unsigned int y_, unsigned int z_) : x(x_), y(y_), z(z_) {}
  __HRX_V uint3 &operator+=(const uint3 &o) { x += o.x; y += o.y; z += o.z; return *this; }
  __HRX_V uint3 &operator-=(const uint3 &o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  __HRX_V uint3 &operator*=(const uint3 &o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
  __HRX_V uint3 &operator/=(const uint3 &o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
  __HRX_V uint3 &operator%=(const uint3 &o) { x %= o.x; y %= o.y; z %= o.z; return *this; }
  __HRX_V uint3 &operator&=(const uint3 &o) { x &= o.x; y &= o.y; z &= o.z; return *this; }
  __HRX_V uint3 &operator|=(const uint3 &o) { x |= o.x; y |= o.y; z |= o.z; return *this; }
  __HRX_V uint3 &operator^=(const uint3 &o) { x ^= o.x; y ^= o.y; z ^= o.z; return *this; }
};
__HRX_V uint3 operator+(uint3 a, const uint3 &b) { return a += b; }
__HRX_V uint3 operator+(uint3 a, unsigned int b) { return a += uint3(b); }
__HRX_V uint3 operator+(unsigned int a, const uint3 &b) { return uint3(a) += b; }
__HRX_V uint3 operator-(uint3 a, const uint3 &b) { return a -= b; }
__HRX_V uint3 operator-(uint3 a, unsigned int b) { return a -= uint3(b); }
__HRX_V uint3 operator-(unsigned int a, const uint3 &b) { return uint3(a) -= b; }
__HRX_V uint3 operator*(uint3 a, const uint3 &b) { return a *= b; }
__HRX_V uint3 operator*(uint3 a, unsigned int b) { return a *= uint3(b); }
__HRX_V uint3 operator*(unsigned int a, const uint3 &b) { return uint3(a) *= b; }
__HRX_V uint3 operator/(uint3 a, const uint3 &b) { return a /= b; }
__HRX_V uint3 operator/(uint3 a, unsigned int b) { return a /= uint3(b); }
__HRX_V uint3 operator/(unsigned int a, const uint3 &b) { return uint3(a) /= b; }
__HRX_V uint3 operator%(uint3 a, const uint3 &b) { return a %= b; }
__HRX_V uint3 operator%(uint3 a, unsigned int b) { return a %= uint3(b); }
__HRX_V uint3 operator%(unsigned int a, const uint3 &b) { return uint3(a) %= b; }
__HRX_V uint3 operator&(uint3 a, const uint3 &b) { return a &= b; }
__HRX_V uint3 operator&(uint3 a, unsigned int b) { return a &= uint3(b); }
__HRX_V uint3 operator&(unsigned int a, const uint3 &b) { return uint3(a) &= b; }
__HRX_V uint3 operator|(uint3 a, const uint3 &b) { return a |= b; }
__HRX_V uint3 operator|(uint3 a, unsigned int b) { return a |= uint3(b); }
__HRX_V uint3 operator|(unsigned int a, const uint3 &b) { return uint3(a) |= b; }
__HRX_V uint3 operator^(uint3 a, const uint3 &b) { return a ^= b; }
__HRX_V uint3 operator^(uint3 a, unsigned int b) { return a ^= uint3(b); }
__HRX_V uint3 operator^(unsigned int a, const uint3 &b) { return uint3(a) ^= b; }
__HRX_V uint3 operator-(const uint3 &a) { return uint3((unsigned int)-a.x, (unsigned int)-a.y, (unsigned int)-a.z) ; }
__HRX_V bool operator==(const uint3 &a, const uint3 &b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__HRX_V bool operator!=(const uint3 &a, const uint3 &b) { return !(a == b); }
__HRX_V uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { uint3 v; v.x = x; v.y = y; v.z = z; return v; }

struct __attribute__((aligned(16))) uint4 {
  unsigned int x, y, z, w;
  uint4() = default;
  __HRX_V constexpr explicit uint4(unsigned int s) : x(s), y(s), z(s), w(s) {}
  __HRX_V constexpr uint4(unsigned int x_, unsigned int y_, unsigned int z_, unsigned int w_) : x(x_), y(y_), z(z_), w(w_) {}
  __HRX_V uint4 &operator+=(const uint4 &o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
  __HRX_V uint4 &operator-=(const uint4 &o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
  __HRX_V uint4 &operator*=(const uint4 &o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
  __HRX_V uint4 &operator/=(const uint4 &o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
  __HRX_V uint4 &operator%=(const uint4 &o) { x %= o.x; y %= o.y; z %= o.z; w %= o.w; return *this; }
  __HRX_V uint4 &operator&=(const uint4 &o) { x &= o.x; y &= o.y; z &= o.z; w &= o.w; return *this; }
  __HRX_V uint4 &operator|=(const uint4 &o) { x |= o.x; y |= o.y; z |= o.z; w |= o.w; return *this; }
  __HRX_V uint4 &operator^=(const uint4 &o) { x ^= o.x; y ^= o.y; z ^= o.z; w ^= o.w; return *this; }
};
__HRX_V uint4 operator+(uint4 a, const uint4 &b) { return a += b; }
__HRX_V uint4 operator+(uint4 a, unsigned int b) { return a += uint4(b); }
__HRX_V uint4 operator+(unsigned int a, const uint4 &b) { return uint4(a) += b; }
__HRX_V uint4 operator-(uint4 a, const uint4 &b) { return a -= b; }
__HRX_V uint4 operator-(uint4 a, unsigned int b) { return a -= uint4(b); }
__HRX_V uint4 operator-(unsigned int a, const uint4 &b) { return uint4(a) -= b; }
__HRX_V uint4 operator*(uint4 a, const uint4 &b) { return a *= b; }
__HRX_V uint4 operator*(uint4 a, unsigned int b) { return a *= uint4(b); }
__HRX_V uint4 operator*(unsigned int a, const uint4 &b) { return uint4(a) *= b; }
__HRX_V uint4 operator/(uint4 a, const uint4 &b) { return a /= b; }
__HRX_V uint4 operator/(uint4 a, unsigned int b) { return a /= uint4(b); }
__HRX_V uint4 operator/(unsigned int a, const uint4 &b) { return uint4(a) /= b; }
__HRX_V uint4 operator%(uint4 a, const uint4 &b) { return a %= b; }
__HRX_V uint4 operator%(uint4 a, unsigned int b) { return a %= uint4(b); }
__HRX_V uint4 operator%(unsigned int a, const uint4 &b) { return uint4(a) %= b; }
__HRX_V uint4 operator&(uint4 a, const uint4 &b) { return a &= b; }
__HRX_V uint4 operator&(uint4 a, unsigned int b) { return a &= uint4(b); }
__HRX_V uint4 operator&(unsigned int a, const uint4 &b) { return uint4(a) &= b; }
__HRX_V uint4 operator|(uint4 a, const uint4 &b) { return a |= b; }
__HRX_V uint4 operator|(uint4 a, unsigned int b) { return a |= uint4(b); }
__HRX_V uint4 operator|(unsigned int a, const uint4 &b) { return uint4(a) |= b; }
__HRX_V uint4 operator^(uint4 a, const uint4 &b) { return a ^= b; }
__HRX_V uint4 operator^(uint4 a, unsigned int b) { return a ^= uint4(b); }
__HRX_V uint4 operator^(unsigned int a, const uint4 &b) { return uint4(a) ^= b; }
__HRX_V uint4 operator-(const uint4 &a) { return uint4((unsigned int)-a.x, (unsigned int)-a.y, (unsigned int)-a.z, (unsigned int)-a.w) ; }
__HRX_V bool operator==(const uint4 &a, const uint4 &b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__HRX_V bool operator!=(const uint4 &a, const uint4 &b) { return !(a == b); }
__HRX_V uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { uint4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }

struct __attribute__((aligned(8))) long1 {
  long x;
  long1() = default;
  __HRX_V constexpr explicit long1(long s) : x(s) {}
  __HRX_V long1 &operator+=(const long1 &o) { x += o.x; return *this; }
  __HRX_V long1 &operator-=(const long1 &o) { x -= o.x; return *this; }
  __HRX_V long1 &operator*=(const long1 &o) { x *= o.x; return *this; }
  __HRX_V long1 &operator/=(const long1 &o) { x /= o.x; return *this; }
  __HRX_V long1 &operator%=(const long1 &o) { x %= o.x; return *this; }
  __HRX_V long1 &operator&=(const long1 &o) { x &= o.x; return *this; }
  __HRX_V long1 &operator|=(const long1 &o) { x |= o.x; return *this; }
  __HRX_V long1 &operator^=(const long1 &o) { x ^= o.x; return *this; }
};
__HRX_V long1 operator+(long1 a, const long1 &b) { return a += b; }
__HRX_V long1 operator+(long1 a, long b) { return a += long1(b); }
__HRX_V long1 operator+(long a, const long1 &b) { return long1(a) += b; }
__HRX_V long1 operator-(long1 a, const long1 &b) { return a -= b; }
__HRX_V long1 operator-(long1 a, long b) { return a -= long1(b); }
__HRX_V long1 operator-(long a, const long1 &b) { return long1(a) -= b; }
__HRX_V long1 operator*(long1 a, const long1 &b) { return a *= b; }
__HRX_V long1 operator*(long1 a, long b) { return a *= long1(b); }
__HRX_V long1 operator*(long a, const long1 &b) { return long1(a) *= b; }
__HRX_V long1 operator/(long1 a, const long1 &b) { return a /= b; }
__HRX_V long1 operator/(long1 a, long b) { return a /= long1(b); }
__HRX_V long1 operator/(long a, const long1 &b) { return long1(a) /= b; }
__HRX_V long1 operator%(long1 a, const long1 &b) { return a %= b; }
__HRX_V long1 operator%(long1 a, long b) { return a %= long1(b); }
__HRX_V long1 operator%(long a, const long1 &b) { return long1(a) %= b; }
__HRX_V long1 operator&(long1 a, const long1 &b) { return a &= b; }
__HRX_V long1 operator&(long1 a, long b) { return a &= long1(b); }
__HRX_V long1 operator&(long a, const long1 &b) { return long1(a) &= b; }
__HRX_V long1 operator|(long1 a, const long1 &b) { return a |= b; }
__HRX_V long1 operator|(long1 a, long b) { return a |= long1(b); }
__HRX_V long1 operator|(long a, const long1 &b) { return long1(a) |= b; }
__HRX_V long1 operator^(long1 a, const long1 &b) { return a ^= b; }
__HRX_V long1 operator^(long1 a, long b) { return a ^= long1(b); }
__HRX_V long1 operator^(long a, const long1 &b) { return long1(a) ^= b; }
__HRX_V long1 operator-(const long1 &a) { return long1((long)-a.x); }
__HRX_V bool operator==(const long1 &a, const long1 &b) { return a.x == b.x; }
__HRX_V bool operator!=(const long1 &a, const long1 &b) { return !(a == b); }
__HRX_V long1 make_long1(long x) { long1 v; v.x = x; return v; }

struct __attribute__((aligned(16))) long2 {
  long x, y;
  long2() = default;
  __HRX_V constexpr explicit long2(long s) : x(s), y(s) {}
  __HRX_V constexpr long2(long x_, long y_) : x(x_), y(y_) {}
  __HRX_V long2 &operator+=(const long2 &o) { x += o.x; y += o.y; return *this; }
  __HRX_V long2 &operator-=(const long2 &o) { x -= o.x; y -= o.y; return *this; }
  __HRX_V long2 &operator*=(const long2 &o) { x *= o.x; y *= o.y; return *this; }
  __HRX_V long2 &operator/=(const long2 &o) { x /= o.x; y /= o.y; return *this; }
  __HRX_V long2 &operator%=(const long2 &o) { x %= o.x; y %= o.y; return *this; }
  __HRX_V long2 &operator&=(const long2 &o) { x &= o.x; y &= o.y; return *this; }
  __HRX_V long2 &operator|=(const long2 &o) { x |= o.x; y |= o.y; return *this; }
  __HRX_V long2 &operator^=(const long2 &o) { x ^= o.x; y ^= o.y; return *this; }
};
__HRX_V long2 operator+(long2 a, const long2 &b) { return a += b; }
__HRX_V long2 operator+(long2 a, long b) { return a += long2(b); }
__HRX_V long2 operator+(long a, const long2 &b) { return long2(a) += b; }
__HRX_V long2 operator-(long2 a, const long2 &b) { return a -= b; }
__HRX_V long2 operator-(long2 a, long b) { return a -= long2(b); }
__HRX_V long2 operator-(long a, const long2 &b) { return long2(a) -= b; }
__HRX_V long2 operator*(long2 a, const long2 &b) { return a *= b; }
__HRX_V long2 operator*(long2 a, long b) { return a *= long2(b); }
__HRX_V long2 operator*(long a, const long2 &b) { return long2(a) *= b; }
__HRX_V long2 operator/(long2 a, const long2 &b) { return a /= b; }
__HRX_V long2 operator/(long2 a, long b) { return a /= long2(b); }
__HRX_V long2 operator/(long a, const long2 &b) { return long2(a) /= b; }
__HRX_V long2 operator%(long2 a, const long2 &b) { return a %= b; }
__HRX_V long2 operator%(long2 a, long b) { return a %= long2(b); }
__HRX_V long2 operator%(long a, const long2 &b) { return long2(a) %= b; }
__HRX_V long2 operator&(long2 a, const long2 &b) { return a &= b; }
__HRX_V long2 operator&(long2 a, long b) { return a &= long2(b); }
__HRX_V long2 operator&(long a, const long2 &b) { return long2(a) &= b; }
__HRX_V long2 operator|(long2 a, const long2 &b) { return a |= b; }
__HRX_V long2 operator|(long2 a, long b) { return a |= long2(b); }
__HRX_V long2 operator|(long a, const long2 &b) { return long2(a) |= b; }
__HRX_V long2 operator^(long2 a, const long2 &b) { return a ^= b; }
__HRX_V long2 operator^(long2 a, long b) { return a ^= long2(b); }
__HRX_V long2 operator^(long a, const long2 &b) { return long2(a) ^= b; }
__HRX_V long2 operator-(const long2 &a) { return long2((long)-a.x, (long)-a.y) ; }
__HRX_V bool operator==(const long2 &a, const long2 &b) { return a.x == b.x && a.y == b.y; }
__HRX_V bool operator!=(const long2 &a, const long2 &b) { return !(a == b); }
__HRX_V long2 make_long2(long x, long y) { long2 v; v.x = x; v.y = y; return v; }

struct __attribute__((aligned(8))) long3 {
  long x, y, z;
  long3() = default;
  __HRX_V constexpr explicit long3(long s) : x(s), y(s), z(s) {}
  __HRX_V constexpr long3(long x_, long y_, long z_) : x(x_), y(y_), z(z_) {}
  __HRX_V long3 &operator+=(const long3 &o) { x += o.x; y += o.y; z += o.z; return *this; }
  __HRX_V long3 &operator-=(const long3 &o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  __HRX_V long3 &operator*=(const long3 &o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
  __HRX_V long3 &operator/=(const long3 &o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
  __HRX_V long3 &operator%=(const long3 &o) { x %= o.x; y %= o.y; z %= o.z; return *this; }
  __HRX_V long3 &operator&=(const long3 &o) { x &= o.x; y &= o.y; z &= o.z; return *this; }
  __HRX_V long3 &operator|=(const long3 &o) { x |= o.x; y |= o.y; z |= o.z; return *this; }
  __HRX_V long3 &operator^=(const long3 &o) { x ^= o.x; y ^= o.y; z ^= o.z; return *this; }
};
__HRX_V long3 operator+(long3 a, const long3 &b) { return a += b; }
__HRX_V long3 operator+(long3 a, long b) { return a += long3(b); }
__HRX_V long3 operator+(long a, const long3 &b) { return long3(a) += b; }
__HRX_V long3 operator-(long3 a, const long3 &b) { return a -= b; }
__HRX_V long3 operator-(long3 a, long b) { return a -= long3(b); }
__HRX_V long3 operator-(long a, const long3 &b) { return long3(a) -= b; }
__HRX_V long3 operator*(long3 a, const long3 &b) { return a *= b; }
__HRX_V long3 operator*(long3 a, long b) { return a *= long3(b); }
__HRX_V long3 operator*(long a, const long3 &b) { return long3(a) *= b; }
__HRX_V long3 operator/(long3 a, const long3 &b) { return a /= b; }
__HRX_V long3 operator/(long3 a, long b) { return a /= long3(b); }
__HRX_V long3 operator/(long a, const long3 &b) { return long3(a) /= b; }
__HRX_V long3 operator%(long3 a, const long3 &b) { return a %= b; }
__HRX_V long3 operator%(long3 a, long b) { return a %= long3(b); }
__HRX_V long3 operator%(long a, const long3 &b) { return long3(a) %= b; }
__HRX_V long3 operator&(long3 a, const long3 &b) { return a &= b; }
__HRX_V long3 operator&(long3 a, long b) { return a &= long3(b); }
__HRX_V long3 operator&(long a, const long3 &b) { return long3(a) &= b; }
__HRX_V long3 operator|(long3 a, const long3 &b) { return a |= b; }
__HRX_V long3 operator|(long3 a, long b) { return a |= long3(b); }
__HRX_V long3 operator|(long a, const long3 &b) { return long3(a) |= b; }
__HRX_V long3 operator^(long3 a, const long3 &b) { return a ^= b; }
__HRX_V long3 operator^(long3 a, long b) { return a ^= long3(b); }
__HRX_V long3 operator^(long a, const long3 &b) { return long3(a) ^= b; }
__HRX_V long3 operator-(const long3 &a) { return long3((long)-a.x, (long)-a.y, (long)-a.z) ; }
__HRX_V bool operator==(const long3 &a, const long3 &b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__HRX_V bool operator!=(const long3 &a, const long3 &b) { return !(a == b); }
__HRX_V long3 make_long3(long x, long y, long z) { long3 v; v.x = x; v.y = y; v.z = z; return v; }

struct __attribute__((aligned(16))) long4 {
  long x, y, z, w;
  long4() = default;
  __HRX_V constexpr explicit long4(long s) : x(s), y(s), z(s), w(s) {}
  __HRX_V constexpr long4(long x_, long y_, long z_, long w_) : x(x_), y(y_), z(z_), w(w_) {}
  __HRX_V long4 &operator+=(const long4 &o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
  __HRX_V long4 &operator-=(const long4 &o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
  __HRX_V long4 &operator*=(const long4 &o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
  __HRX_V long4 &operator/=(const long4 &o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
  __HRX_V long4 &operator%=(const long4 &o) { x %= o.x; y %= o.y; z %= o.z; w %= o.w; return *this; }
  __HRX_V long4 &operator&=(const long4 &o) { x &= o.x; y &= o.y; z &= o.z; w &= o.w; return *this; }
  __HRX_V long4 &operator|=(const long4 &o) { x |= o.x; y |= o.y; z |= o.z; w |= o.w; return *this; }
  __HRX_V long4 &operator^=(const long4 &o) { x ^= o.x; y ^= o.y; z ^= o.z; w ^= o.w; return *this; }
};
__HRX_V long4 operator+(long4 a, const long4 &b) { return a += b; }
__HRX_V long4 operator+(long4 a, long b) { return a += long4(b); }
__HRX_V long4 operator+(long a, const long4 &b) { return long4(a) += b; }
__HRX_V long4 operator-(long4 a, const long4 &b) { return a -= b; }
__HRX_V long4 operator-(long4 a, long b) { return a -= long4(b); }
__HRX_V long4 operator-(long a, const long4 &b) { return long4(a) -= b; }
__HRX_V long4 operator*(long4 a, const long4 &b) { return a *= b; }
__HRX_V long4 operator*(long4 a, long b) { return a *= long4(b); }
__HRX_V long4 operator*(long a, const long4 &b) { return long4(a) *= b; }
__HRX_V long4 operator/(long4 a, const long4 &b) { return a /= b; }
__HRX_V long4 operator/(long4 a, long b) { return a /= long4(b); }
__HRX_V long4 operator/(long a, const long4 &b) { return long4(a) /= b; }
__HRX_V long4 operator%(long4 a, const long4 &b) { return a %= b; }
__HRX_V long4 operator%(long4 a, long b) { return a %= long4(b); }
__HRX_V long4 operator%(long a, const long4 &b) { return long4(a) %= b; }
__HRX_V long4 operator&(long4 a, const long4 &b) { return a &= b; }
__HRX_V long4 operator&(long4 a, long b) { return a &= long4(b); }
__HRX_V long4 operator&(long a, const long4 &b) { return long4(a) &= b; }
__HRX_V long4 operator|(long4 a, const long4 &b) { return a |= b; }
__HRX_V long4 operator|(long4 a, long b) { return a |= long4(b); }
__HRX_V long4 operator|(long a, const long4 &b) { return long4(a) |= b; }
__HRX_V long4 operator^(long4 a, const long4 &b) { return a ^= b; }
__HRX_V long4 operator^(long4 a, long b) { return a ^= long4(b); }
__HRX_V long4 operator^(long a, const long4 &b) { return long4(a) ^= b; }
__HRX_V long4 operator-(const long4 &a) { return long4((long)-a.x, (long)-a.y, (long)-a.z, (long)-a.w) ; }
__HRX_V bool operator==(const long4 &a, const long4 &b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__HRX_V bool operator!=(const long4 &a, const long4 &b) { return !(a == b); }
__HRX_V long4 make_long4(long x, long y, long z, long w) { long4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }

struct __attribute__((aligned(8))) ulong1 {
  unsigned long x;
  ulong1() = default;
  __HRX_V constexpr explicit ulong1(unsigned long s) : x(s) {}
  __HRX_V ulong1 &operator+=(const ulong1 &o) { x += o.x; return *this; }
  __HRX_V ulong1 &operator-=(const ulong1 &o) { x -= o.x; return *this; }
  __HRX_V ulong1 &operator*=(const ulong1 &o) { x *= o.x; return *this; }
  __HRX_V ulong1 &operator/=(const ulong1 &o) { x /= o.x; return *this; }
  __HRX_V ulong1 &operator%=(const ulong1 &o) { x %= o.x; return *this; }
  __HRX_V ulong1 &operator&=(const ulong1 &o) { x &= o.x; return *this; }
  __HRX_V ulong1 &operator|=(const ulong1 &o) { x |= o.x; return *this; }
  __HRX_V ulong1 &operator^=(const ulong1 &o) { x ^= o.x; return *this; }
};
__HRX_V ulong1 operator+(ulong1 a, const ulong1 &b) { return a += b; }
__HRX_V ulong1 operator+(ulong1 a, unsigned long b) { return a += ulong1(b); }
__HRX_V ulong1 operator+(unsigned long a, const ulong1 &b) { return ulong1(a) += b; }
__HRX_V ulong1 operator-(ulong1 a, const ulong1 &b) { return a -= b; }
__HRX_V ulong1 operator-(ulong1 a, unsigned long b) { return a -= ulong1(b); }
__HRX_V ulong1 operator-(unsigned long a, const ulong1 &b) { return ulong1(a) -= b; }
__HRX_V ulong1 operator*(ulong1 a, const ulong1 &b) { return a *= b; }
__HRX_V ulong1 operator*(ulong1 a, unsigned long b) { return a *= ulong1(b); }
__HRX_V ulong1 operator*(unsigned long a, const ulong1 &b) { return ulong1(a) *= b; }
__HRX_V ulong1 operator/(ulong1 a, const ulong1 &b) { return a /= b; }
__HRX_V ulong1 operator/(ulong1 a, unsigned long b) { return a /= ulong1(b); }
__HRX_V ulong1 operator/(unsigned long a, const ulong1 &b) { return ulong1(a) /= b; }
__HRX_V ulong1 operator%(ulong1 a, const ulong1 &b) { return a %= b; }
__HRX_V ulong1 operator%(ulong1 a, unsigned long b) { return a %= ulong1(b); }
__HRX_V ulong1 operator%(unsigned long a, const ulong1 &b) { return ulong1(a) %= b; }
__HRX_V ulong1 operator&(ulong1 a, const ulong1 &b) { return a &= b; }
__HRX_V ulong1 operator&(ulong1 a, unsigned long b) { return a &= ulong1(b); }
__HRX_V ulong1 operator&(unsigned long a, const ulong1 &b) { return ulong1(a) &= b; }
__HRX_V ulong1 operator|(ulong1 a, const ulong1 &b) { return a |= b; }
__HRX_V ulong1 operator|(ulong1 a, unsigned long b) { return a |= ulong1(b); }
__HRX_V ulong1 operator|(unsigned long a, const ulong1 &b) { return ulong1(a) |= b; }
__HRX_V ulong1 operator^(ulong1 a, const ulong1 &b) { return a ^= b; }
__HRX_V ulong1 operator^(ulong1 a, unsigned long b) { return a ^= ulong1(b); }
__HRX_V ulong1 operator^(unsigned long a, const ulong1 &b) { return ulong1(a) ^= b; }
__HRX_V ulong1 operator-(const ulong1 &a) { return ulong1((unsigned long)-a.x); }
__HRX_V bool operator==(const ulong1 &a, const ulong1 &b) { return a.x == b.x; }
__HRX_V bool operator!=(const ulong1 &a, const ulong1 &b) { return !(a == b); }
__HRX_V ulong1 make_ulong1(unsigned long x) { ulong1 v; v.x = x; return v; }

struct __attribute__((aligned(16))) ulong2 {
  unsigned long x, y;
  ulong2() = default;
  __HRX_V constexpr explicit ulong2(unsigned long s) : x(s), y(s) {}
  __HRX_V constexpr ulong2(unsigned long x_, unsigned long y_) : x(x_), y(y_) {}
  __HRX_V ulong2 &operator+=(const ulong2 &o) { x += o.x; y += o.y; return *this; }
  __HRX_V ulong2 &operator-=(const ulong2 &o) { x -= o.x; y -= o.y; return *this; }
  __HRX_V ulong2 &operator*=(const ulong2 &o) { x *= o.x; y *= o.y; return *this; }
  __HRX_V ulong2 &operator/=(const ulong2 &o) { x /= o.x; y /= o.y; return *this; }
  __HRX_V ulong2 &operator%=(const ulong2 &o) { x %= o.x; y %= o.y; return *this; }
  __HRX_V ulong2 &operator&=(const ulong2 &o) { x &= o.x; y &= o.y; return *this; }
  __HRX_V ulong2 &operator|=(const ulong2 &o) { x |= o.x; y |= o.y; return *this; }
  __HRX_V ulong2 &operator^=(const ulong2 &o) { x ^= o.x; y ^= o.y; return *this; }
};
__HRX_V ulong2 operator+(ulong2 a, const ulong2 &b) { return a += b; }
__HRX_V ulong2 operator+(ulong2 a, unsigned long b) { return a += ulong2(b); }
__HRX_V ulong2 operator+(unsigned long a, const ulong2 &b) { return ulong2(a) += b; }
__HRX_V ulong2 operator-(ulong2 a, const ulong2 &b) { return a -= b; }
__HRX_V ulong2 operator-(ulong2 a, unsigned long b) { return a -= ulong2(b); }
__HRX_V ulong2 operator-(unsigned long a, const ulong2 &b) { return ulong2(a) -= b; }
__HRX_V ulong2 operator*(ulong2 a, const ulong2 &b) { return a *= b; }
__HRX_V ulong2 operator*(ulong2 a, unsigned long b) { return a *= ulong2(b); }
__HRX_V ulong2 operator*(unsigned long a, const ulong2 &b) { return ulong2(a) *= b; }
__HRX_V ulong2 operator/(ulong2 a, const ulong2 &b) { return a /= b; }
__HRX_V ulong2 operator/(ulong2 a, unsigned long b) { return a /= ulong2(b); }
__HRX_V ulong2 operator/(unsigned long a, const ulong2 &b) { return ulong2(a) /= b; }
__HRX_V ulong2 operator%(ulong2 a, const ulong2 &b) { return a %= b; }
__HRX_V ulong2 operator%(ulong2 a, unsigned long b) { return a %= ulong2(b); }
__HRX_V ulong2 operator%(unsigned long a, const ulong2 &b) { return ulong2(a) %= b; }
__HRX_V ulong2 operator&(ulong2 a, const ulong2 &b) { return a &= b; }
__HRX_V ulong2 operator&(ulong2 a, unsigned long b) { return a &= ulong2(b); }
__HRX_V ulong2 operator&(unsigned long a, const ulong2 &b) { return ulong2(a) &= b; }
__HRX_V ulong2 operator|(ulong2 a, const ulong2 &b) { return a |= b; }
__HRX_V ulong2 operator|(ulong2 a, unsigned long b) { return a |= ulong2(b); }
__HRX_V ulong2 operator|(unsigned long a, const ulong2 &b) { return ulong2(a) |= b; }
__HRX_V ulong2 operator^(ulong2 a, const ulong2 &b) { return a ^= b; }
__HRX_V ulong2 operator^(ulong2 a, unsigned long b) { return a ^= ulong2(b); }
__HRX_V ulong2 operator^(unsigned long a, const ulong2 &b) { return ulong2(a) ^= b; }
__HRX_V ulong2 operator-(const ulong2 &a) { return ulong2((unsigned long)-a.x, (unsigned long)-a.y) ; }
__HRX_V bool operator==(const ulong2 &a, const ulong2 &b) { return a.x == b.x && a.y == b.y; }
__HRX_V bool operator!=(const ulong2 &a, const ulong2 &b) { return !(a == b); }
__HRX_V ulong2 make_ulong2(unsigned long x, unsigned long y) { ulong2 v; v.x = x; v.y = y; return v; }

struct __attribute__((aligned(8))) ulong3 {
  unsigned long x, y, z;
  ulong3() = default;
  __HRX_V constexpr explicit ulong3(unsigned long s) : x(s), y(s), z(s) {}
  __HRX_V constexpr ulong3(unsigned long x_, unsigned long y_, unsigned long z_) : x(x_), y(y_), z(z_) {}
  __HRX_V ulong3 &operator+=(const ulong3 &o) { x += o.x; y += o.y; z += o.z; return *this; }
  __HRX_V ulong3 &operator-=(const ulong3 &o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  __HRX_V ulong3 &operator*=(const ulong3 &o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
  __HRX_V ulong3 &operator/=(const ulong3 &o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
  __HRX_V ulong3 &operator%=(const ulong3 &o) { x %= o.x; y %= o.y; z %= o.z; return *this; }
  __HRX_V ulong3 &operator&=(const ulong3 &o) { x &= o.x; y &= o.y; z &= o.z; return *this; }
  __HRX_V ulong3 &operator|=(const ulong3 &o) { x |= o.x; y |= o.y; z |= o.z; return *this; }
  __HRX_V ulong3 &operator^=(const ulong3 &o) { x ^= o.x; y ^= o.y; z ^= o.z; return *this; }
};
__HRX_V ulong3 operator+(ulong3 a, const ulong3 &b) { return a += b; }
__HRX_V ulong3 operator+(ulong3 a, unsigned long b) { return a += ulong3(b); }
__HRX_V ulong3 operator+(unsigned long a, const ulong3 &b) { return ulong3(a) += b; }
__HRX_V ulong3 operator-(ulong3 a, const ulong3 &b) { return a -= b; }
__HRX_V ulong3 operator-(ulong3 a, unsigned long b) { return a -= ulong3(b); }
__HRX_V ulong3 operator-(unsigned long a, const ulong3 &b) { return ulong3(a) -= b; }
__HRX_V ulong3 operator*(ulong3 a, const ulong3 &b) { return a *= b; }
__HRX_V ulong3 operator*(ulong3 a, unsigned long b) { return a *= ulong3(b); }
__HRX_V ulong3 operator*(unsigned long a, const ulong3 &b) { return ulong3(a) *= b; }
__HRX_V ulong3 operator/(ulong3 a, const ulong3 &b) { return a /= b; }
__HRX_V ulong3 operator/(ulong3 a, unsigned long b) { return a /= ulong3(b); }
__HRX_V ulong3 operator/(unsigned long a, const ulong3 &b) { return ulong3(a) /= b; }
__HRX_V ulong3 operator%(ulong3 a, const ulong3 &b) { return a %= b; }
__HRX_V ulong3 operator%(ulong3 a, unsigned long b) { return a %= ulong3(b); }
__HRX_V ulong3 operator%(unsigned long a, const ulong3 &b) { return ulong3(a) %= b; }
__HRX_V ulong3 operator&(ulong3 a, const ulong3 &b) { return a &= b; }
__HRX_V ulong3 operator&(ulong3 a, unsigned long b) { return a &= ulong3(b); }
__HRX_V ulong3 operator&(unsigned long a, const ulong3 &b) { return ulong3(a) &= b; }
__HRX_V ulong3 operator|(ulong3 a, const ulong3 &b) { return a |= b; }
__HRX_V ulong3 operator|(ulong3 a, unsigned long b) { return a |= ulong3(b); }
__HRX_V ulong3 operator|(unsigned long a, const ulong3 &b) { return ulong3(a) |= b; }
__HRX_V ulong3 operator^(ulong3 a, const ulong3 &b) { return a ^= b; }
__HRX_V ulong3 operator^(ulong3 a, unsigned long b) { return a ^= ulong3(b); }
__HRX_V ulong3 operator^(unsigned long a, const ulong3 &b) { return ulong3(a) ^= b; }
__HRX_V ulong3 operator-(const ulong3 &a) { return ulong3((unsigned long)-a.x, (unsigned long)-a.y, (unsigned long)-a.z) ; }
__HRX_V bool operator==(const ulong3 &a, const ulong3 &b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__HRX_V bool operator!=(const ulong3 &a, const ulong3 &b) { return !(a == b); }
__HRX_V ulong3 make_ulong3(unsigned long x, unsigned long y, unsigned long z) { ulong3 v; v.x = x; v.y = y; v.z = z; return v; }

struct __attribute__((aligned(16))) ulong4 {
  unsigned long x, y, z, w;
  ulong4() = default;
  __HRX_V constexpr explicit ulong4(unsigned long s) : x(s), y(s), z(s), w(s) {}
  __HRX_V constexpr ulong4(unsigned long x_, unsigned long y_, unsigned long z_, unsigned long w_) : x(x_), y(y_), z(z_), w(w_) {}
  __HRX_V ulong4 &operator+=(const ulong4 &o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
  __HRX_V ulong4 &operator-=(const ulong4 &o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
  __HRX_V ulong4 &operator*=(const ulong4 &o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
  __HRX_V ulong4 &operator/=(const ulong4 &o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
  __HRX_V ulong4 &operator%=(const ulong4 &o) { x %= o.x; y %= o.y; z %= o.z; w %= o.w; return *this; }
  __HRX_V ulong4 &operator&=(const ulong4 &o) { x &= o.x; y &= o.y; z &= o.z; w &= o.w; return *this; }
  __HRX_V ulong4 &operator|=(const ulong4 &o) { x |= o.x; y |= o.y; z |= o.z; w |= o.w; return *this; }
  __HRX_V ulong4 &operator^=(const ulong4 &o) { x ^= o.x; y ^= o.y; z ^= o.z; w ^= o.w; return *this; }
};
__HRX_V ulong4 operator+(ulong4 a, const ulong4 &b) { return a += b; }
__HRX_V ulong4 operator+(ulong4 a, unsigned long b) { return a += ulong4(b); }
__HRX_V ulong4 operator+(unsigned long a, const ulong4 &b) { return ulong4(a) += b; }
__HRX_V ulong4 operator-(ulong4 a, const ulong4 &b) { return a -= b; }
__HRX_V ulong4 operator-(ulong4 a, unsigned long b) { return a -= ulong4(b); }
__HRX_V ulong4 operator-(unsigned long a, const ulong4 &b) { return ulong4(a) -= b; }
__HRX_V ulong4 operator*(ulong4 a, const ulong4 &b) { return a *= b; }
__HRX_V ulong4 operator*(ulong4 a, unsigned long b) { return a *= ulong4(b); }
__HRX_V ulong4 operator*(unsigned long a, const ulong4 &b) { return ulong4(a) *= b; }
__HRX_V ulong4 operator/(ulong4 a, const ulong4 &b) { return a /= b; }
__HRX_V ulong4 operator/(ulong4 a, unsigned long b) { return a /= ulong4(b); }
__HRX_V ulong4 operator/(unsigned long a, const ulong4 &b) { return ulong4(a) /= b; }
__HRX_V ulong4 operator%(ulong4 a, const ulong4 &b) { return a %= b; }
__HRX_V ulong4 operator%(ulong4 a, unsigned long b) { return a %= ulong4(b); }
__HRX_V ulong4 operator%(unsigned long a, const ulong4 &b) { return ulong4(a) %= b; }
__HRX_V ulong4 operator&(ulong4 a, const ulong4 &b) { return a &= b; }
__HRX_V ulong4 operator&(ulong4 a, unsigned long b) { return a &= ulong4(b); }
__HRX_V ulong4 operator&(unsigned long a, const ulong4 &b) { return ulong4(a) &= b; }
__HRX_V ulong4 operator|(ulong4 a, const ulong4 &b) { return a |= b; }
__HRX_V ulong4 operator|(ulong4 a, unsigned long b) { return a |= ulong4(b); }
__HRX_V ulong4 operator|(unsigned long a, const ulong4 &b) { return ulong4(a) |= b; }
__HRX_V ulong4 operator^(ulong4 a, const ulong4 &b) { return a ^= b; }
__HRX_V ulong4 operator^(ulong4 a, unsigned long b) { return a ^= ulong4(b); }
__HRX_V ulong4 operator^(unsigned long a, const ulong4 &b) { return ulong4(a) ^= b; }
__HRX_V ulong4 operator-(const ulong4 &a) { return ulong4((unsigned long)-a.x, (unsigned long)-a.y, (unsigned long)-a.z, (unsigned long)-a.w) ; }
__HRX_V bool operator==(const ulong4 &a, const ulong4 &b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__HRX_V bool operator!=(const ulong4 &a, const ulong4 &b) { return !(a == b); }
__HRX_V ulong4 make_ulong4(unsigned long x, unsigned long y, unsigned long z, unsigned long w) { ulong4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }

struct __attribute__((aligned(8))) longlong1 {
  long long x;
  longlong1() = default;
  __HRX_V constexpr explicit longlong1(long long s) : x(s) {}
  __HRX_V longlong1 &operator+=(const longlong1 &o) { x += o.x; return *this; }
  __HRX_V longlong1 &operator-=(const longlong1 &o) { x -= o.x; return *this; }
  __HRX_V longlong1 &operator*=(const longlong1 &o) { x *= o.x; return *this; }
  __HRX_V longlong1 &operator/=(const longlong1 &o) { x /= o.x; return *this; }
  __HRX_V longlong1 &operator%=(const longlong1 &o) { x %= o.x; return *this; }
  __HRX_V longlong1 &operator&=(const longlong1 &o) { x &= o.x; return *this; }
  __HRX_V longlong1 &operator|=(const longlong1 &o) { x |= o.x; return *this; }
  __HRX_V longlong1 &operator^=(const longlong1 &o) { x ^= o.x; return *this; }
};
__HRX_V longlong1 operator+(longlong1 a, const longlong1 &b) { return a += b; }
__HRX_V longlong1 operator+(longlong1 a, long long b) { return a += longlong1(b); }
__HRX_V longlong1 operator+(long long a, const longlong1 &b) { return longlong1(a) += b; }
__HRX_V longlong1 operator-(longlong1 a, const longlong1 &b) { return a -= b; }
__HRX_V longlong1 operator-(longlong1 a, long long b) { return a -= longlong1(b); }
__HRX_V longlong1 operator-(long long a, const longlong1 &b) { return longlong1(a) -= b; }
__HRX_V longlong1 operator*(longlong1 a, const longlong1 &b) { return a *= b; }
__HRX_V longlong1 operator*(longlong1 a, long long b) { return a *= longlong1(b); }
__HRX_V longlong1 operator*(long long a, const longlong1 &b) { return longlong1(a) *= b; }
__HRX_V longlong1 operator/(longlong1 a, const longlong1 &b) { return a /= b; }
__HRX_V longlong1 operator/(longlong1 a, long long b) { return a /= longlong1(b); }
__HRX_V longlong1 operator/(long long a, const longlong1 &b) { return longlong1(a) /= b; }
__HRX_V longlong1 operator%(longlong1 a, const longlong1 &b) { return a %= b; }
__HRX_V longlong1 operator%(longlong1 a, long long b) { return a %= longlong1(b); }
__HRX_V longlong1 operator%(long long a, const longlong1 &b) { return longlong1(a) %= b; }
__HRX_V longlong1 operator&(longlong1 a, const longlong1 &b) { return a &= b; }
__HRX_V longlong1 operator&(longlong1 a, long long b) { return a &= longlong1(b); }
__HRX_V longlong1 operator&(long long a, const longlong1 &b) { return longlong1(a) &= b; }
__HRX_V longlong1 operator|(longlong1 a, const longlong1 &b) { return a |= b; }
__HRX_V longlong1 operator|(longlong1 a, long long b) { return a |= longlong1(b); }
__HRX_V longlong1 operator|(long long a, const longlong1 &b) { return longlong1(a) |= b; }
__HRX_V longlong1 operator^(longlong1 a, const longlong1 &b) { return a ^= b; }
__HRX_V longlong1 operator^(longlong1 a, long long b) { return a ^= longlong1(b); }
__HRX_V longlong1 operator^(long long a, const longlong1 &b) { return longlong1(a) ^= b; }
__HRX_V longlong1 operator-(const longlong1 &a) { return longlong1((long long)-a.x); }
__HRX_V bool operator==(const longlong1 &a, const longlong1 &b) { return a.x == b.x; }
__HRX_V bool operator!=(const longlong1 &a, const longlong1 &b) { return !(a == b); }
__HRX_V longlong1 make_longlong1(long long x) { longlong1 v; v.x = x; return v; }

struct __attribute__((aligned(16))) longlong2 {
  long long x, y;
  longlong2() = default;
  __HRX_V constexpr explicit longlong2(long long s) : x(s), y(s) {}
  __HRX_V constexpr longlong2(long long x_, long long y_) : x(x_), y(y_) {}
  __HRX_V longlong2 &operator+=(const longlong2 &o) { x += o.x; y += o.y; return *this; }
  __HRX_V longlong2 &operator-=(const longlong2 &o) { x -= o.x; y -= o.y; return *this; }
  __HRX_V longlong2 &operator*=(const longlong2 &o) { x *= o.x; y *= o.y; return *this; }
  __HRX_V longlong2 &operator/=(const longlong2 &o) { x /= o.x; y /= o.y; return *this; }
  __HRX_V longlong2 &operator%=(const longlong2 &o) { x %= o.x; y %= o.y; return *this; }
  __HRX_V longlong2 &operator&=(const longlong2 &o) { x &= o.x; y &= o.y; return *this; }
  __HRX_V longlong2 &operator|=(const longlong2 &o) { x |= o.x; y |= o.y; return *this; }
  __HRX_V longlong2 &operator^=(const longlong2 &o) { x ^= o.x; y ^= o.y; return *this; }
};
__HRX_V longlong2 operator+(longlong2 a, const longlong2 &b) { return a += b; }
__HRX_V longlong2 operator+(longlong2 a, long long b) { return a += longlong2(b); }
__HRX_V longlong2 operator+(long long a, const longlong2 &b) { return longlong2(a) += b; }
__HRX_V longlong2 operator-(longlong2 a, const longlong2 &b) { return a -= b; }
__HRX_V longlong2 operator-(longlong2 a, long long b) { return a -= longlong2(b); }
__HRX_V longlong2 operator-(long long a, const longlong2 &b) { return longlong2(a) -= b; }
__HRX_V longlong2 operator*(longlong2 a, const longlong2 &b) { return a *= b; }
__HRX_V longlong2 operator*(longlong2 a, long long b) { return a *= longlong2(b); }
__HRX_V longlong2 operator*(long long a, const longlong2 &b) { return longlong2(a) *= b; }
__HRX_V longlong2 operator/(longlong2 a, const longlong2 &b) { return a /= b; }
__HRX_V longlong2 operator/(longlong2 a, long long b) { return a /= longlong2(b); }
__HRX_V longlong2 operator/(long long a, const longlong2 &b) { return longlong2(a) /= b; }
__HRX_V longlong2 operator%(longlong2 a, const longlong2 &b) { return a %= b; }
__HRX_V longlong2 operator%(longlong2 a, long long b) { return a %= longlong2(b); }
__HRX_V longlong2 operator%(long long a, const longlong2 &b) { return longlong2(a) %= b; }
__HRX_V longlong2 operator&(longlong2 a, const longlong2 &b) { return a &= b; }
__HRX_V longlong2 operator&(longlong2 a, long long b) { return a &= longlong2(b); }
__HRX_V longlong2 operator&(long long a, const longlong2 &b) { return longlong2(a) &= b; }
__HRX_V longlong2 operator|(longlong2 a, const longlong2 &b) { return a |= b; }
__HRX_V longlong2 operator|(longlong2 a, long long b) { return a |= longlong2(b); }
__HRX_V longlong2 operator|(long long a, const longlong2 &b) { return longlong2(a) |= b; }
__HRX_V longlong2 operator^(longlong2 a, const longlong2 &b) { return a ^= b; }
__HRX_V longlong2 operator^(longlong2 a, long long b) { return a ^= longlong2(b); }
__HRX_V longlong2 operator^(long long a, const longlong2 &b) { return longlong2(a) ^= b; }
__HRX_V longlong2 operator-(const longlong2 &a) { return longlong2((long long)-a.x, (long long)-a.y) ; }
__HRX_V bool operator==(const longlong2 &a, const longlong2 &b) { return a.x == b.x && a.y == b.y; }
__HRX_V bool operator!=(const longlong2 &a, const longlong2 &b) { return !(a == b); }
__HRX_V longlong2 make_longlong2(long long x, long long y) { longlong2 v; v.x = x; v.y = y; return v; }

struct __attribute__((aligned(8))) longlong3 {
  long long x, y, z;
  longlong3() = default;
  __HRX_V constexpr explicit longlong3(long long s) : x(s), y(s), z(s) {}
  __HRX_V constexpr longlong3(long long x_, long long y_, long long z_) : x(x_), y(y_), z(z_) {}
  __HRX_V longlong3 &operator+=(const longlong3 &o) { x += o.x; y += o.y; z += o.z; return *this; }
  __HRX_V longlong3 &operator-=(const longlong3 &o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  __HRX_V longlong3 &operator*=(const longlong3 &o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
  __HRX_V longlong3 &operator/=(const longlong3 &o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
  __HRX_V longlong3 &operator%=(const longlong3 &o) { x %= o.x; y %= o.y; z %= o.z; return *this; }
  __HRX_V longlong3 &operator&=(const longlong3 &o) { x &= o.x; y &= o.y; z &= o.z; return *this; }
  __HRX_V longlong3 &operator|=(const longlong3 &o) { x |= o.x; y |= o.y; z |= o.z; return *this; }
  __HRX_V longlong3 &operator^=(const longlong3 &o) { x ^= o.x; y ^= o.y; z ^= o.z; return *this; }
};
__HRX_V longlong3 operator+(longlong3 a, const longlong3 &b) { return a += b; }
__HRX_V longlong3 operator+(longlong3 a, long long b) { return a += longlong3(b); }
__HRX_V longlong3 operator+(long long a, const longlong3 &b) { return longlong3(a) += b; }
__HRX_V longlong3 operator-(longlong3 a, const longlong3 &b) { return a -= b; }
__HRX_V longlong3 operator-(longlong3 a, long long b) { return a -= longlong3(b); }
__HRX_V longlong3 operator-(long long a, const longlong3 &b) { return longlong3(a) -= b; }
__HRX_V longlong3 operator*(longlong3 a, const longlong3 &b) { return a *= b; }
__HRX_V longlong3 operator*(longlong3 a, long long b) { return a *= longlong3(b); }
__HRX_V longlong3 operator*(long long a, const longlong3 &b) { return longlong3(a) *= b; }
__HRX_V longlong3 operator/(longlong3 a, const longlong3 &b) { return a /= b; }
__HRX_V longlong3 operator/(longlong3 a, long long b) { return a /= longlong3(b); }
__HRX_V longlong3 operator/(long long a, const longlong3 &b) { return longlong3(a) /= b; }
__HRX_V longlong3 operator%(longlong3 a, const longlong3 &b) { return a %= b; }
__HRX_V longlong3 operator%(longlong3 a, long long b) { return a %= longlong3(b); }
__HRX_V longlong3 operator%(long long a, const longlong3 &b) { return longlong3(a) %= b; }
__HRX_V longlong3 operator&(longlong3 a, const longlong3 &b) { return a &= b; }
__HRX_V longlong3 operator&(longlong3 a, long long b) { return a &= longlong3(b); }
__HRX_V longlong3 operator&(long long a, const longlong3 &b) { return longlong3(a) &= b; }
__HRX_V longlong3 operator|(longlong3 a, const longlong3 &b) { return a |= b; }
__HRX_V longlong3 operator|(longlong3 a, long long b) { return a |= longlong3(b); }
__HRX_V longlong3 operator|(long long a, const longlong3 &b) { return longlong3(a) |= b; }
__HRX_V longlong3 operator^(longlong3 a, const longlong3 &b) { return a ^= b; }
__HRX_V longlong3 operator^(longlong3 a, long long b) { return a ^= longlong3(b); }
__HRX_V longlong3 operator^(long long a, const longlong3 &b) { return longlong3(a) ^= b; }
__HRX_V longlong3 operator-(const longlong3 &a) { return longlong3((long long)-a.x, (long long)-a.y, (long long)-a.z) ; }
__HRX_V bool operator==(const longlong3 &a, const longlong3 &b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__HRX_V bool operator!=(const longlong3 &a, const longlong3 &b) { return !(a == b); }
__HRX_V longlong3 make_longlong3(long long x, long long y, long long z) { longlong3 v; v.x = x; v.y = y; v.z = z; return v; }

struct __attribute__((aligned(16))) longlong4 {
  long long x, y, z, w;
  longlong4() = default;
  __HRX_V constexpr explicit longlong4(long long s) : x(s), y(s), z(s), w(s) {}
  __HRX_V constexpr longlong4(long long x_, long long y_, long long z_, long long w_) : x(x_), y(y_), z(z_), w(w_) {}
  __HRX_V longlong4 &operator+=(const longlong4 &o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
  __HRX_V longlong4 &operator-=(const longlong4 &o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
  __HRX_V longlong4 &operator*=(const longlong4 &o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
  __HRX_V longlong4 &operator/=(const longlong4 &o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
  __HRX_V longlong4 &operator%=(const longlong4 &o) { x %= o.x; y %= o.y; z %= o.z; w %= o.w; return *this; }
  __HRX_V longlong4 &operator&=(const longlong4 &o) { x &= o.x; y &= o.y; z &= o.z; w &= o.w; return *this; }
  __HRX_V longlong4 &operator|=(const longlong4 &o) { x |= o.x; y |= o.y; z |= o.z; w |= o.w; return *this; }
  __HRX_V longlong4 &operator^=(const longlong4 &o) { x ^= o.x; y ^= o.y; z ^= o.z; w ^= o.w; return *this; }
};
__HRX_V longlong4 operator+(longlong4 a, const longlong4 &b) { return a += b; }
__HRX_V longlong4 operator+(longlong4 a, long long b) { return a += longlong4(b); }
__HRX_V longlong4 operator+(long long a, const longlong4 &b) { return longlong4(a) += b; }
__HRX_V longlong4 operator-(longlong4 a, const longlong4 &b) { return a -= b; }
__HRX_V longlong4 operator-(longlong4 a, long long b) { return a -= longlong4(b); }
__HRX_V longlong4 operator-(long long a, const longlong4 &b) { return longlong4(a) -= b; }
__HRX_V longlong4 operator*(longlong4 a, const longlong4 &b) { return a *= b; }
__HRX_V longlong4 operator*(longlong4 a, long long b) { return a *= longlong4(b); }
__HRX_V longlong4 operator*(long long a, const longlong4 &b) { return longlong4(a) *= b; }
__HRX_V longlong4 operator/(longlong4 a, const longlong4 &b) { return a /= b; }
__HRX_V longlong4 operator/(longlong4 a, long long b) { return a /= longlong4(b); }
__HRX_V longlong4 operator/(long long a, const longlong4 &b) { return longlong4(a) /= b; }
__HRX_V longlong4 operator%(longlong4 a, const longlong4 &b) { return a %= b; }
__HRX_V longlong4 operator%(longlong4 a, long long b) { return a %= longlong4(b); }
__HRX_V longlong4 operator%(long long a, const longlong4 &b) { return longlong4(a) %= b; }
__HRX_V longlong4 operator&(longlong4 a, const longlong4 &b) { return a &= b; }
__HRX_V longlong4 operator&(longlong4 a, long long b) { return a &= longlong4(b); }
__HRX_V longlong4 operator&(long long a, const longlong4 &b) { return longlong4(a) &= b; }
__HRX_V longlong4 operator|(longlong4 a, const longlong4 &b) { return a |= b; }
__HRX_V longlong4 operator|(longlong4 a, long long b) { return a |= longlong4(b); }
__HRX_V longlong4 operator|(long long a, const longlong4 &b) { return longlong4(a) |= b; }
__HRX_V longlong4 operator^(longlong4 a, const longlong4 &b) { return a ^= b; }
__HRX_V longlong4 operator^(longlong4 a, long long b) { return a ^= longlong4(b); }
__HRX_V longlong4 operator^(long long a, const longlong4 &b) { return longlong4(a) ^= b; }
__HRX_V longlong4 operator-(const longlong4 &a) { return longlong4((long long)-a.x, (long long)-a.y, (long long)-a.z, (long long)-a.w) ; }
__HRX_V bool operator==(const longlong4 &a, const longlong4 &b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__HRX_V bool operator!=(const longlong4 &a, const longlong4 &b) { return !(a == b); }
__HRX_V longlong4 make_longlong4(long long x, long long y, long long z, long long w) { longlong4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }

struct __attribute__((aligned(8))) ulonglong1 {
  unsigned long long x;
  ulonglong1() = default;
  __HRX_V constexpr explicit ulonglong1(unsigned long long s) : x(s) {}
  __HRX_V ulonglong1 &operator+=(const ulonglong1 &o) { x += o.x; return *this; }
  __HRX_V ulonglong1 &operator-=(const ulonglong1 &o) { x -= o.x; return *this; }
  __HRX_V ulonglong1 &operator*=(const ulonglong1 &o) { x *= o.x; return *this; }
  __HRX_V ulonglong1 &operator/=(const ulonglong1 &o) { x /= o.x; return *this; }
  __HRX_V ulonglong1 &operator%=(const ulonglong1 &o) { x %= o.x; return *this; }
  __HRX_V ulonglong1 &operator&=(const ulonglong1 &o) { x &= o.x; return *this; }
  __HRX_V ulonglong1 &operator|=(const ulonglong1 &o) { x |= o.x; return *this; }
  __HRX_V ulonglong1 &operator^=(const ulonglong1 &o) { x ^= o.x; return *this; }
};
__HRX_V ulonglong1 operator+(ulonglong1 a, const ulonglong1 &b) { return a += b; }
__HRX_V ulonglong1 operator+(ulonglong1 a, unsigned long long b) { return a += ulonglong1(b); }
__HRX_V ulonglong1 operator+(unsigned long long a, const ulonglong1 &b) { return ulonglong1(a) += b; }
__HRX_V ulonglong1 operator-(ulonglong1 a, const ulonglong1 &b) { return a -= b; }
__HRX_V ulonglong1 operator-(ulonglong1 a, unsigned long long b) { return a -= ulonglong1(b); }
__HRX_V ulonglong1 operator-(unsigned long long a, const ulonglong1 &b) { return ulonglong1(a) -= b; }
__HRX_V ulonglong1 operator*(ulonglong1 a, const ulonglong1 &b) { return a *= b; }
__HRX_V ulonglong1 operator*(ulonglong1 a, unsigned long long b) { return a *= ulonglong1(b); }
__HRX_V ulonglong1 operator*(unsigned long long a, const ulonglong1 &b) { return ulonglong1(a) *= b; }
__HRX_V ulonglong1 operator/(ulonglong1 a, const ulonglong1 &b) { return a /= b; }
__HRX_V ulonglong1 operator/(ulonglong1 a, unsigned long long b) { return a /= ulonglong1(b); }
__HRX_V ulonglong1 operator/(unsigned long long a, const ulonglong1 &b) { return ulonglong1(a) /= b; }
__HRX_V ulonglong1 operator%(ulonglong1 a, const ulonglong1 &b) { return a %= b; }
__HRX_V ulonglong1 operator%(ulonglong1 a, unsigned long long b) { return a %= ulonglong1(b); }
__HRX_V ulonglong1 operator%(unsigned long long a, const ulonglong1 &b) { return ulonglong1(a) %= b; }
__HRX_V ulonglong1 operator&(ulonglong1 a, const ulonglong1 &b) { return a &= b; }
__HRX_V ulonglong1 operator&(ulonglong1 a, unsigned long long b) { return a &= ulonglong1(b); }
__HRX_V ulonglong1 operator&(unsigned long long a, const ulonglong1 &b) { return ulonglong1(a) &= b; }
__HRX_V ulonglong1 operator|(ulonglong1 a, const ulonglong1 &b) { return a |= b; }
__HRX_V ulonglong1 operator|(ulonglong1 a, unsigned long long b) { return a |= ulonglong1(b); }
__HRX_V ulonglong1 operator|(unsigned long long a, const ulonglong1 &b) { return ulonglong1(a) |= b; }
__HRX_V ulonglong1 operator^(ulonglong1 a, const ulonglong1 &b) { return a ^= b; }
__HRX_V ulonglong1 operator^(ulonglong1 a, unsigned long long b) { return a ^= ulonglong1(b); }
__HRX_V ulonglong1 operator^(unsigned long long a, const ulonglong1 &b) { return ulonglong1(a) ^= b; }
__HRX_V ulonglong1 operator-(const ulonglong1 &a) { return ulonglong1((unsigned long long)-a.x); }
__HRX_V bool operator==(const ulonglong1 &a, const ulonglong1 &b) { return a.x == b.x; }
__HRX_V bool operator!=(const ulonglong1 &a, const ulonglong1 &b) { return !(a == b); }
__HRX_V ulonglong1 make_ulonglong1(unsigned long long x) { ulonglong1 v; v.x = x; return v; }

struct __attribute__((aligned(16))) ulonglong2 {
  unsigned long long x, y;
  ulonglong2() = default;
  __HRX_V constexpr explicit ulonglong2(unsigned long long s) : x(s), y(s) {}
  __HRX_V constexpr ulonglong2(unsigned long long x_, unsigned long long y_) : x(x_), y(y_) {}
  __HRX_V ulonglong2 &operator+=(const ulonglong2 &o) { x += o.x; y += o.y; return *this; }
  __HRX_V ulonglong2 &operator-=(const ulonglong2 &o) { x -= o.x; y -= o.y; return *this; }
  __HRX_V ulonglong2 &operator*=(const ulonglong2 &o) { x *= o.x; y *= o.y; return *this; }
  __HRX_V ulonglong2 &operator/=(const ulonglong2 &o) { x /= o.x; y /= o.y; return *this; }
  __HRX_V ulonglong2 &operator%=(const ulonglong2 &o) { x %= o.x; y %= o.y; return *this; }
  __HRX_V ulonglong2 &operator&=(const ulonglong2 &o) { x &= o.x; y &= o.y; return *this; }
  __HRX_V ulonglong2 &operator|=(const ulonglong2 &o) { x |= o.x; y |= o.y; return *this; }
  __HRX_V ulonglong2 &operator^=(const ulonglong2 &o) { x ^= o.x; y ^= o.y; return *this; }
};
__HRX_V ulonglong2 operator+(ulonglong2 a, const ulonglong2 &b) { return a += b; }
__HRX_V ulonglong2 operator+(ulonglong2 a, unsigned long long b) { return a += ulonglong2(b); }
__HRX_V ulonglong2 operator+(unsigned long long a, const ulonglong2 &b) { return ulonglong2(a) += b; }
__HRX_V ulonglong2 operator-(ulonglong2 a, const ulonglong2 &b) { return a -= b; }
__HRX_V ulonglong2 operator-(ulonglong2 a, unsigned long long b) { return a -= ulonglong2(b); }
__HRX_V ulonglong2 operator-(unsigned long long a, const ulonglong2 &b) { return ulonglong2(a) -= b; }
__HRX_V ulonglong2 operator*(ulonglong2 a, const ulonglong2 &b) { return a *= b; }
__HRX_V ulonglong2 operator*(ulonglong2 a, unsigned long long b) { return a *= ulonglong2(b); }
__HRX_V ulonglong2 operator*(unsigned long long a, const ulonglong2 &b) { return ulonglong2(a) *= b; }
__HRX_V ulonglong2 operator/(ulonglong2 a, const ulonglong2 &b) { return a /= b; }
__HRX_V ulonglong2 operator/(ulonglong2 a, unsigned long long b) { return a /= ulonglong2(b); }
__HRX_V ulonglong2 operator/(unsigned long long a, const ulonglong2 &b) { return ulonglong2(a) /= b; }
__HRX_V ulonglong2 operator%(ulonglong2 a, const ulonglong2 &b) { return a %= b; }
__HRX_V ulonglong2 operator%(ulonglong2 a, unsigned long long b) { return a %= ulonglong2(b); }
__HRX_V ulonglong2 operator%(unsigned long long a, const ulonglong2 &b) { return ulonglong2(a) %= b; }
__HRX_V ulonglong2 operator&(ulonglong2 a, const ulonglong2 &b) { return a &= b; }
__HRX_V ulonglong2 operator&(ulonglong2 a, unsigned long long b) { return a &= ulonglong2(b); }
__HRX_V ulonglong2 operator&(unsigned long long a, const ulonglong2 &b) { return ulonglong2(a) &= b; }
__HRX_V ulonglong2 operator|(ulonglong2 a, const ulonglong2 &b) { return a |= b; }
__HRX_V ulonglong2 operator|(ulonglong2 a, unsigned long long b) { return a |= ulonglong2(b); }
__HRX_V ulonglong2 operator|(unsigned long long a, const ulonglong2 &b) { return ulonglong2(a) |= b; }
__HRX_V ulonglong2 operator^(ulonglong2 a, const ulonglong2 &b) { return a ^= b; }
__HRX_V ulonglong2 operator^(ulonglong2 a, unsigned long long b) { return a ^= ulonglong2(b); }
__HRX_V ulonglong2 operator^(unsigned long long a, const ulonglong2 &b) { return ulonglong2(a) ^= b; }
__HRX_V ulonglong2 operator-(const ulonglong2 &a) { return ulonglong2((unsigned long long)-a.x, (unsigned long long)-a.y) ; }
__HRX_V bool operator==(const ulonglong2 &a, const ulonglong2 &b) { return a.x == b.x && a.y == b.y; }
__HRX_V bool operator!=(const ulonglong2 &a, const ulonglong2 &b) { return !(a == b); }
__HRX_V ulonglong2 make_ulonglong2(unsigned long long x, unsigned long long y) { ulonglong2 v; v.x = x; v.y = y; return v; }

struct __attribute__((aligned(8))) ulonglong3 {
  unsigned long long x, y, z;
  ulonglong3() = default;
  __HRX_V constexpr explicit ulonglong3(unsigned long long s) : x(s), y(s), z(s) {}
  __HRX_V constexpr ulonglong3(unsigned long long x_, unsigned long long y_, unsigned long long z_) : x(x_), y(y_), z(z_) {}
  __HRX_V ulonglong3 &operator+=(const ulonglong3 &o) { x += o.x; y += o.y; z += o.z; return *this; }
  __HRX_V ulonglong3 &operator-=(const ulonglong3 &o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  __HRX_V ulonglong3 &operator*=(const ulonglong3 &o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
  __HRX_V ulonglong3 &operator/=(const ulonglong3 &o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
  __HRX_V ulonglong3 &operator%=(const ulonglong3 &o) { x %= o.x; y %= o.y; z %= o.z; return *this; }
  __HRX_V ulonglong3 &operator&=(const ulonglong3 &o) { x &= o.x; y &= o.y; z &= o.z; return *this; }
  __HRX_V ulonglong3 &operator|=(const ulonglong3 &o) { x |= o.x; y |= o.y; z |= o.z; return *this; }
  __HRX_V ulonglong3 &operator^=(const ulonglong3 &o) { x ^= o.x; y ^= o.y; z ^= o.z; return *this; }
};
__HRX_V ulonglong3 operator+(ulonglong3 a, const ulonglong3 &b) { return a += b; }
__HRX_V ulonglong3 operator+(ulonglong3 a, unsigned long long b) { return a += ulonglong3(b); }
__HRX_V ulonglong3 operator+(unsigned long long a, const ulonglong3 &b) { return ulonglong3(a) += b; }
__HRX_V ulonglong3 operator-(ulonglong3 a, const ulonglong3 &b) { return a -= b; }
__HRX_V ulonglong3 operator-(ulonglong3 a, unsigned long long b) { return a -= ulonglong3(b); }
__HRX_V ulonglong3 operator-(unsigned long long a, const ulonglong3 &b) { return ulonglong3(a) -= b; }
__HRX_V ulonglong3 operator*(ulonglong3 a, const ulonglong3 &b) { return a *= b; }
__HRX_V ulonglong3 operator*(ulonglong3 a, unsigned long long b) { return a *= ulonglong3(b); }
__HRX_V ulonglong3 operator*(unsigned long long a, const ulonglong3 &b) { return ulonglong3(a) *= b; }
__HRX_V ulonglong3 operator/(ulonglong3 a, const ulonglong3 &b) { return a /= b; }
__HRX_V ulonglong3 operator/(ulonglong3 a, unsigned long long b) { return a /= ulonglong3(b); }
__HRX_V ulonglong3 operator/(unsigned long long a, const ulonglong3 &b) { return ulonglong3(a) /= b; }
__HRX_V ulonglong3 operator%(ulonglong3 a, const ulonglong3 &b) { return a %= b; }
__HRX_V ulonglong3 operator%(ulonglong3 a, unsigned long long b) { return a %= ulonglong3(b); }
__HRX_V ulonglong3 operator%(unsigned long long a, const ulonglong3 &b) { return ulonglong3(a) %= b; }
__HRX_V ulonglong3 operator&(ulonglong3 a, const ulonglong3 &b) { return a &= b; }
__HRX_V ulonglong3 operator&(ulonglong3 a, unsigned long long b) { return a &= ulonglong3(b); }
__HRX_V ulonglong3 operator&(unsigned long long a, const ulonglong3 &b) { return ulonglong3(a) &= b; }
__HRX_V ulonglong3 operator|(ulonglong3 a, const ulonglong3 &b) { return a |= b; }
__HRX_V ulonglong3 operator|(ulonglong3 a, unsigned long long b) { return a |= ulonglong3(b); }
__HRX_V ulonglong3 operator|(unsigned long long a, const ulonglong3 &b) { return ulonglong3(a) |= b; }
__HRX_V ulonglong3 operator^(ulonglong3 a, const ulonglong3 &b) { return a ^= b; }
__HRX_V ulonglong3 operator^(ulonglong3 a, unsigned long long b) { return a ^= ulonglong3(b); }
__HRX_V ulonglong3 operator^(unsigned long long a, const ulonglong3 &b) { return ulonglong3(a) ^= b; }
__HRX_V ulonglong3 operator-(const ulonglong3 &a) { return ulonglong3((unsigned long long)-a.x, (unsigned long long)-a.y, (unsigned long long)-a.z) ; }
__HRX_V bool operator==(const ulonglong3 &a, const ulonglong3 &b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__HRX_V bool operator!=(const ulonglong3 &a, const ulonglong3 &b) { return !(a == b); }
__HRX_V ulonglong3 make_ulonglong3(unsigned long long x, unsigned long long y, unsigned long long z) { ulonglong3 v; v.x = x; v.y = y; v.z = z; return v; }

struct __attribute__((aligned(16))) ulonglong4 {
  unsigned long long x, y, z, w;
  ulonglong4() = default;
  __HRX_V constexpr explicit ulonglong4(unsigned long long s) : x(s), y(s), z(s), w(s) {}
  __HRX_V constexpr ulonglong4(unsigned long long x_, unsigned long long y_, unsigned long long z_, unsigned long long w_) : x(x_), y(y_), z(z_), w(w_) {}
  __HRX_V ulonglong4 &operator+=(const ulonglong4 &o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
  __HRX_V ulonglong4 &operator-=(const ulonglong4 &o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
  __HRX_V ulonglong4 &operator*=(const ulonglong4 &o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
  __HRX_V ulonglong4 &operator/=(const ulonglong4 &o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
  __HRX_V ulonglong4 &operator%=(const ulonglong4 &o) { x %= o.x; y %= o.y; z %= o.z; w %= o.w; return *this; }
  __HRX_V ulonglong4 &operator&=(const ulonglong4 &o) { x &= o.x; y &= o.y; z &= o.z; w &= o.w; return *this; }
  __HRX_V ulonglong4 &operator|=(const ulonglong4 &o) { x |= o.x; y |= o.y; z |= o.z; w |= o.w; return *this; }
  __HRX_V ulonglong4 &operator^=(const ulonglong4 &o) { x ^= o.x; y ^= o.y; z ^= o.z; w ^= o.w; return *this; }
};
__HRX_V ulonglong4 operator+(ulonglong4 a, const ulonglong4 &b) { return a += b; }
__HRX_V ulonglong4 operator+(ulonglong4 a, unsigned long long b) { return a += ulonglong4(b); }
__HRX_V ulonglong4 operator+(unsigned long long a, const ulonglong4 &b) { return ulonglong4(a) += b; }
__HRX_V ulonglong4 operator-(ulonglong4 a, const ulonglong4 &b) { return a -= b; }
__HRX_V ulonglong4 operator-(ulonglong4 a, unsigned long long b) { return a -= ulonglong4(b); }
__HRX_V ulonglong4 operator-(unsigned long long a, const ulonglong4 &b) { return ulonglong4(a) -= b; }
__HRX_V ulonglong4 operator*(ulonglong4 a, const ulonglong4 &b) { return a *= b; }
__HRX_V ulonglong4 operator*(ulonglong4 a, unsigned long long b) { return a *= ulonglong4(b); }
__HRX_V ulonglong4 operator*(unsigned long long a, const ulonglong4 &b) { return ulonglong4(a) *= b; }
__HRX_V ulonglong4 operator/(ulonglong4 a, const ulonglong4 &b) { return a /= b; }
__HRX_V ulonglong4 operator/(ulonglong4 a, unsigned long long b) { return a /= ulonglong4(b); }
__HRX_V ulonglong4 operator/(unsigned long long a, const ulonglong4 &b) { return ulonglong4(a) /= b; }
__HRX_V ulonglong4 operator%(ulonglong4 a, const ulonglong4 &b) { return a %= b; }
__HRX_V ulonglong4 operator%(ulonglong4 a, unsigned long long b) { return a %= ulonglong4(b); }
__HRX_V ulonglong4 operator%(unsigned long long a, const ulonglong4 &b) { return ulonglong4(a) %= b; }
__HRX_V ulonglong4 operator&(ulonglong4 a, const ulonglong4 &b) { return a &= b; }
__HRX_V ulonglong4 operator&(ulonglong4 a, unsigned long long b) { return a &= ulonglong4(b); }
__HRX_V ulonglong4 operator&(unsigned long long a, const ulonglong4 &b) { return ulonglong4(a) &= b; }
__HRX_V ulonglong4 operator|(ulonglong4 a, const ulonglong4 &b) { return a |= b; }
__HRX_V ulonglong4 operator|(ulonglong4 a, unsigned long long b) { return a |= ulonglong4(b); }
__HRX_V ulonglong4 operator|(unsigned long long a, const ulonglong4 &b) { return ulonglong4(a) |= b; }
__HRX_V ulonglong4 operator^(ulonglong4 a, const ulonglong4 &b) { return a ^= b; }
__HRX_V ulonglong4 operator^(ulonglong4 a, unsigned long long b) { return a ^= ulonglong4(b); }
__HRX_V ulonglong4 operator^(unsigned long long a, const ulonglong4 &b) { return ulonglong4(a) ^= b; }
__HRX_V ulonglong4 operator-(const ulonglong4 &a) { return ulonglong4((unsigned long long)-a.x, (unsigned long long)-a.y, (unsigned long long)-a.z, (unsigned long long)-a.w) ; }
__HRX_V bool operator==(const ulonglong4 &a, const ulonglong4 &b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__HRX_V bool operator!=(const ulonglong4 &a, const ulonglong4 &b) { return !(a == b); }
__HRX_V ulonglong4 make_ulonglong4(unsigned long long x, unsigned long long y, unsigned long long z, unsigned long long w) { ulonglong4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }

struct __attribute__((aligned(4))) float1 {
  float x;
  float1() = default;
  __HRX_V constexpr explicit float1(float s) : x(s) {}
  __HRX_V float1 &operator+=(const float1 &o) { x += o.x; return *this; }
  __HRX_V float1 &operator-=(const float1 &o) { x -= o.x; return *this; }
  __HRX_V float1 &operator*=(const float1 &o) { x *= o.x; return *this; }
  __HRX_V float1 &operator/=(const float1 &o) { x /= o.x; return *this; }
};
__HRX_V float1 operator+(float1 a, const float1 &b) { return a += b; }
__HRX_V float1 operator+(float1 a, float b) { return a += float1(b); }
__HRX_V float1 operator+(float a, const float1 &b) { return float1(a) += b; }
__HRX_V float1 operator-(float1 a, const float1 &b) { return a -= b; }
__HRX_V float1 operator-(float1 a, float b) { return a -= float1(b); }
__HRX_V float1 operator-(float a, const float1 &b) { return float1(a) -= b; }
__HRX_V float1 operator*(float1 a, const float1 &b) { return a *= b; }
__HRX_V float1 operator*(float1 a, float b) { return a *= float1(b); }
__HRX_V float1 operator*(float a, const float1 &b) { return float1(a) *= b; }
__HRX_V float1 operator/(float1 a, const float1 &b) { return a /= b; }
__HRX_V float1 operator/(float1 a, float b) { return a /= float1(b); }
__HRX_V float1 operator/(float a, const float1 &b) { return float1(a) /= b; }
__HRX_V float1 operator-(const float1 &a) { return float1((float)-a.x); }
__HRX_V bool operator==(const float1 &a, const float1 &b) { return a.x == b.x; }
__HRX_V bool operator!=(const float1 &a, const float1 &b) { return !(a == b); }
__HRX_V float1 make_float1(float x) { float1 v; v.x = x; return v; }

struct __attribute__((aligned(8))) float2 {
  float x, y;
  float2() = default;
  __HRX_V constexpr explicit float2(float s) : x(s), y(s) {}
  __HRX_V constexpr float2(float x_, float y_) : x(x_), y(y_) {}
  __HRX_V float2 &operator+=(const float2 &o) { x += o.x; y += o.y; return *this; }
  __HRX_V float2 &operator-=(const float2 &o) { x -= o.x; y -= o.y; return *this; }
  __HRX_V float2 &operator*=(const float2 &o) { x *= o.x; y *= o.y; return *this; }
  __HRX_V float2 &operator/=(const float2 &o) { x /= o.x; y /= o.y; return *this; }
};
__HRX_V float2 operator+(float2 a, const float2 &b) { return a += b; }
__HRX_V float2 operator+(float2 a, float b) { return a += float2(b); }
__HRX_V float2 operator+(float a, const float2 &b) { return float2(a) += b; }
__HRX_V float2 operator-(float2 a, const float2 &b) { return a -= b; }
__HRX_V float2 operator-(float2 a, float b) { return a -= float2(b); }
__HRX_V float2 operator-(float a, const float2 &b) { return float2(a) -= b; }
__HRX_V float2 operator*(float2 a, const float2 &b) { return a *= b; }
__HRX_V float2 operator*(float2 a, float b) { return a *= float2(b); }
__HRX_V float2 operator*(float a, const float2 &b) { return float2(a) *= b; }
__HRX_V float2 operator/(float2 a, const float2 &b) { return a /= b; }
__HRX_V float2 operator/(float2 a, float b) { return a /= float2(b); }
__HRX_V float2 operator/(float a, const float2 &b) { return float2(a) /= b; }
__HRX_V float2 operator-(const float2 &a) { return float2((float)-a.x, (float)-a.y) ; }
__HRX_V bool operator==(const float2 &a, const float2 &b) { return a.x == b.x && a.y == b.y; }
__HRX_V bool operator!=(const float2 &a, const float2 &b) { return !(a == b); }
__HRX_V float2 make_float2(float x, float y) { float2 v; v.x = x; v.y = y; return v; }

struct __attribute__((aligned(4))) float3 {
  float x, y, z;
  float3() = default;
  __HRX_V constexpr explicit float3(float s) : x(s), y(s), z(s) {}
  __HRX_V constexpr float3(float x_, float y_, float z_) : x(x_), y(y_), z(z_) {}
  __HRX_V float3 &operator+=(const float3 &o) { x += o.x; y += o.y; z += o.z; return *this; }
  __HRX_V float3 &operator-=(const float3 &o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  __HRX_V float3 &operator*=(const float3 &o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
  __HRX_V float3 &operator/=(const float3 &o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
};
__HRX_V float3 operator+(float3 a, const float3 &b) { return a += b; }
__HRX_V float3 operator+(float3 a, float b) { return a += float3(b); }
__HRX_V float3 operator+(float a, const float3 &b) { return float3(a) += b; }
__HRX_V float3 operator-(float3 a, const float3 &b) { return a -= b; }
__HRX_V float3 operator-(float3 a, float b) { return a -= float3(b); }
__HRX_V float3 operator-(float a, const float3 &b) { return float3(a) -= b; }
__HRX_V float3 operator*(float3 a, const float3 &b) { return a *= b; }
__HRX_V float3 operator*(float3 a, float b) { return a *= float3(b); }
__HRX_V float3 operator*(float a, const float3 &b) { return float3(a) *= b; }
__HRX_V float3 operator/(float3 a, const float3 &b) { return a /= b; }
__HRX_V float3 operator/(float3 a, float b) { return a /= float3(b); }
__HRX_V float3 operator/(float a, const float3 &b) { return float3(a) /= b; }
__HRX_V float3 operator-(const float3 &a) { return float3((float)-a.x, (float)-a.y, (float)-a.z) ; }
__HRX_V bool operator==(const float3 &a, const float3 &b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__HRX_V bool operator!=(const float3 &a, const float3 &b) { return !(a == b); }
__HRX_V float3 make_float3(float x, float y, float z) { float3 v; v.x = x; v.y = y; v.z = z; return v; }

struct __attribute__((aligned(16))) float4 {
  float x, y, z, w;
  float4() = default;
  __HRX_V constexpr explicit float4(float s) : x(s), y(s), z(s), w(s) {}
  __HRX_V constexpr float4(float x_, float y_, float z_, float w_) : x(x_), y(y_), z(z_), w(w_) {}
  __HRX_V float4 &operator+=(const float4 &o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
  __HRX_V float4 &operator-=(const float4 &o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
  __HRX_V float4 &operator*=(const float4 &o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
  __HRX_V float4 &operator/=(const float4 &o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
};
__HRX_V float4 operator+(float4 a, const float4 &b) { return a += b; }
__HRX_V float4 operator+(float4 a, float b) { return a += float4(b); }
__HRX_V float4 operator+(float a, const float4 &b) { return float4(a) += b; }
__HRX_V float4 operator-(float4 a, const float4 &b) { return a -= b; }
__HRX_V float4 operator-(float4 a, float b) { return a -= float4(b); }
__HRX_V float4 operator-(float a, const float4 &b) { return float4(a) -= b; }
__HRX_V float4 operator*(float4 a, const float4 &b) { return a *= b; }
__HRX_V float4 operator*(float4 a, float b) { return a *= float4(b); }
__HRX_V float4 operator*(float a, const float4 &b) { return float4(a) *= b; }
__HRX_V float4 operator/(float4 a, const float4 &b) { return a /= b; }
__HRX_V float4 operator/(float4 a, float b) { return a /= float4(b); }
__HRX_V float4 operator/(float a, const float4 &b) { return float4(a) /= b; }
__HRX_V float4 operator-(const float4 &a) { return float4((float)-a.x, (float)-a.y, (float)-a.z, (float)-a.w) ; }
__HRX_V bool operator==(const float4 &a, const float4 &b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__HRX_V bool operator!=(const float4 &a, const float4 &b) { return !(a == b); }
__HRX_V float4 make_float4(float x, float y, float z, float w) { float4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }

struct __attribute__((aligned(8))) double1 {
  double x;
  double1() = default;
  __HRX_V constexpr explicit double1(double s) : x(s) {}
  __HRX_V double1 &operator+=(const double1 &o) { x += o.x; return *this; }
  __HRX_V double1 &operator-=(const double1 &o) { x -= o.x; return *this; }
  __HRX_V double1 &operator*=(const double1 &o) { x *= o.x; return *this; }
  __HRX_V double1 &operator/=(const double1 &o) { x /= o.x; return *this; }
};
__HRX_V double1 operator+(double1 a, const double1 &b) { return a += b; }
__HRX_V double1 operator+(double1 a, double b) { return a += double1(b); }
__HRX_V double1 operator+(double a, const double1 &b) { return double1(a) += b; }
__HRX_V double1 operator-(double1 a, const double1 &b) { return a -= b; }
__HRX_V double1 operator-(double1 a, double b) { return a -= double1(b); }
__HRX_V double1 operator-(double a, const double1 &b) { return double1(a) -= b; }
__HRX_V double1 operator*(double1 a, const double1 &b) { return a *= b; }
__HRX_V double1 operator*(double1 a, double b) { return a *= double1(b); }
__HRX_V double1 operator*(double a, const double1 &b) { return double1(a) *= b; }
__HRX_V double1 operator/(double1 a, const double1 &b) { return a /= b; }
__HRX_V double1 operator/(double1 a, double b) { return a /= double1(b); }
__HRX_V double1 operator/(double a, const double1 &b) { return double1(a) /= b; }
__HRX_V double1 operator-(const double1 &a) { return double1((double)-a.x); }
__HRX_V bool operator==(const double1 &a, const double1 &b) { return a.x == b.x; }
__HRX_V bool operator!=(const double1 &a, const double1 &b) { return !(a == b); }
__HRX_V double1 make_double1(double x) { double1 v; v.x = x; return v; }

struct __attribute__((aligned(16))) double2 {
  double x, y;
  double2() = default;
  __HRX_V constexpr explicit double2(double s) : x(s), y(s) {}
  __HRX_V constexpr double2(double x_, double y_) : x(x_), y(y_) {}
  __HRX_V double2 &operator+=(const double2 &o) { x += o.x; y += o.y; return *this; }
  __HRX_V double2 &operator-=(const double2 &o) { x -= o.x; y -= o.y; return *this; }
  __HRX_V double2 &operator*=(const double2 &o) { x *= o.x; y *= o.y; return *this; }
  __HRX_V double2 &operator/=(const double2 &o) { x /= o.x; y /= o.y; return *this; }
};
__HRX_V double2 operator+(double2 a, const double2 &b) { return a += b; }
__HRX_V double2 operator+(double2 a, double b) { return a += double2(b); }
__HRX_V double2 operator+(double a, const double2 &b) { return double2(a) += b; }
__HRX_V double2 operator-(double2 a, const double2 &b) { return a -= b; }
__HRX_V double2 operator-(double2 a, double b) { return a -= double2(b); }
__HRX_V double2 operator-(double a, const double2 &b) { return double2(a) -= b; }
__HRX_V double2 operator*(double2 a, const double2 &b) { return a *= b; }
__HRX_V double2 operator*(double2 a, double b) { return a *= double2(b); }
__HRX_V double2 operator*(double a, const double2 &b) { return double2(a) *= b; }
__HRX_V double2 operator/(double2 a, const double2 &b) { return a /= b; }
__HRX_V double2 operator/(double2 a, double b) { return a /= double2(b); }
__HRX_V double2 operator/(double a, const double2 &b) { return double2(a) /= b; }
__HRX_V double2 operator-(const double2 &a) { return double2((double)-a.x, (double)-a.y) ; }
__HRX_V bool operator==(const double2 &a, const double2 &b) { return a.x == b.x && a.y == b.y; }
__HRX_V bool operator!=(const double2 &a, const double2 &b) { return !(a == b); }
__HRX_V double2 make_double2(double x, double y) { double2 v; v.x = x; v.y = y; return v; }

struct __attribute__((aligned(8))) double3 {
  double x, y, z;
  double3() = default;
  __HRX_V constexpr explicit double3(double s) : x(s), y(s), z(s) {}
  __HRX_V constexpr double3(double x_, double y_, double z_) : x(x_), y(y_), z(z_) {}
  __HRX_V double3 &operator+=(const double3 &o) { x += o.x; y += o.y; z += o.z; return *this; }
  __HRX_V double3 &operator-=(const double3 &o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  __HRX_V double3 &operator*=(const double3 &o) { x *= o.x; y *= o.y; z *= o.z; return *this; }
  __HRX_V double3 &operator/=(const double3 &o) { x /= o.x; y /= o.y; z /= o.z; return *this; }
};
__HRX_V double3 operator+(double3 a, const double3 &b) { return a += b; }
__HRX_V double3 operator+(double3 a, double b) { return a += double3(b); }
__HRX_V double3 operator+(double a, const double3 &b) { return double3(a) += b; }
__HRX_V double3 operator-(double3 a, const double3 &b) { return a -= b; }
__HRX_V double3 operator-(double3 a, double b) { return a -= double3(b); }
__HRX_V double3 operator-(double a, const double3 &b) { return double3(a) -= b; }
__HRX_V double3 operator*(double3 a, const double3 &b) { return a *= b; }
__HRX_V double3 operator*(double3 a, double b) { return a *= double3(b); }
__HRX_V double3 operator*(double a, const double3 &b) { return double3(a) *= b; }
__HRX_V double3 operator/(double3 a, const double3 &b) { return a /= b; }
__HRX_V double3 operator/(double3 a, double b) { return a /= double3(b); }
__HRX_V double3 operator/(double a, const double3 &b) { return double3(a) /= b; }
__HRX_V double3 operator-(const double3 &a) { return double3((double)-a.x, (double)-a.y, (double)-a.z) ; }
__HRX_V bool operator==(const double3 &a, const double3 &b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
__HRX_V bool operator!=(const double3 &a, const double3 &b) { return !(a == b); }
__HRX_V double3 make_double3(double x, double y, double z) { double3 v; v.x = x; v.y = y; v.z = z; return v; }

struct __attribute__((aligned(16))) double4 {
  double x, y, z, w;
  double4() = default;
  __HRX_V constexpr explicit double4(double s) : x(s), y(s), z(s), w(s) {}
  __HRX_V constexpr double4(double x_, double y_, double z_, double w_) : x(x_), y(y_), z(z_), w(w_) {}
  __HRX_V double4 &operator+=(const double4 &o) { x += o.x; y += o.y; z += o.z; w += o.w; return *this; }
  __HRX_V double4 &operator-=(const double4 &o) { x -= o.x; y -= o.y; z -= o.z; w -= o.w; return *this; }
  __HRX_V double4 &operator*=(const double4 &o) { x *= o.x; y *= o.y; z *= o.z; w *= o.w; return *this; }
  __HRX_V double4 &operator/=(const double4 &o) { x /= o.x; y /= o.y; z /= o.z; w /= o.w; return *this; }
};
__HRX_V double4 operator+(double4 a, const double4 &b) { return a += b; }
__HRX_V double4 operator+(double4 a, double b) { return a += double4(b); }
__HRX_V double4 operator+(double a, const double4 &b) { return double4(a) += b; }
__HRX_V double4 operator-(double4 a, const double4 &b) { return a -= b; }
__HRX_V double4 operator-(double4 a, double b) { return a -= double4(b); }
__HRX_V double4 operator-(double a, const double4 &b) { return double4(a) -= b; }
__HRX_V double4 operator*(double4 a, const double4 &b) { return a *= b; }
__HRX_V double4 operator*(double4 a, double b) { return a *= double4(b); }
__HRX_V double4 operator*(double a, const double4 &b) { return double4(a) *= b; }
__HRX_V double4 operator/(double4 a, const double4 &b) { return a /= b; }
__HRX_V double4 operator/(double4 a, double b) { return a /= double4(b); }
__HRX_V double4 operator/(double a, const double4 &b) { return double4(a) /= b; }
__HRX_V double4 operator-(const double4 &a) { return double4((double)-a.x, (double)-a.y, (double)-a.z, (double)-a.w) ; }
__HRX_V bool operator==(const double4 &a, const double4 &b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
__HRX_V bool operator!=(const double4 &a, const double4 &b) { return !(a == b); }
__HRX_V double4 make_double4(double x, double y, double z, double w) { double4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }

#undef __HRX_V
#endif  // HRX_HIP_VECTOR_TYPES_H
