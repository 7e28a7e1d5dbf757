// The compiler's 64-bit folding of Loom index arithmetic (Program::evaluateInteger). Loom's
// index operations wrap unless flagged nsw/nuw, so a folded value that overflowed int64 is not a
// number the compiler may prove bounds or sizes with: those fold to nothing, and C++ overflow
// (undefined behaviour) never happens. No LLVM: the sanitizer stage tests it
// (test/unit/bridge/IndexFoldTest.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>

namespace hrx::bridge {

// `name` is a two-operand index op ("index.add", "index.sub", "index.mul", "index.scale",
// "index.div", "index.rem", "index.min", "index.max"); nullopt for any other, for division by a
// non-positive divisor and for results outside int64.
inline std::optional<int64_t> foldIndexBinary(std::string_view name, int64_t a, int64_t b) {
  int64_t result = 0;
  if (name == "index.add") return __builtin_add_overflow(a, b, &result) ? std::nullopt : std::optional(result);
  if (name == "index.sub") return __builtin_sub_overflow(a, b, &result) ? std::nullopt : std::optional(result);
  if (name == "index.mul" || name == "index.scale")
    return __builtin_mul_overflow(a, b, &result) ? std::nullopt : std::optional(result);
  // b > 0 rules out INT64_MIN / -1, the one quotient outside int64.
  if (name == "index.div" && b > 0) return a / b;
  if (name == "index.rem" && b > 0) return a % b;
  if (name == "index.min") return std::min(a, b);
  if (name == "index.max") return std::max(a, b);
  return std::nullopt;
}

// index.madd: a * b + c, nullopt when the product or the sum leaves int64.
inline std::optional<int64_t> foldIndexMultiplyAdd(int64_t a, int64_t b, int64_t c) {
  int64_t product = 0, sum = 0;
  if (__builtin_mul_overflow(a, b, &product) || __builtin_add_overflow(product, c, &sum)) return std::nullopt;
  return sum;
}

}  // namespace hrx::bridge
