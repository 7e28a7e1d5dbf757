// The one set of number spellings in messages: hex(v) "0x1f", hexDigits(v, 4) "001f", num(v)
// "31". Internal (not installed); every layer may use it.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>

namespace hrx::text {

// Lowercase hex digits without "0x", zero-padded on the left to `width`: hexDigits(0) is "0".
inline std::string hexDigits(uint64_t value, size_t width = 0) {
  char digits[16];
  auto end = std::to_chars(digits, digits + sizeof digits, value, 16).ptr;
  size_t length = static_cast<size_t>(end - digits);
  return std::string(width > length ? width - length : 0, '0') + std::string(digits, length);
}

// "0x" and lowercase hex digits, no padding: hex(0) is "0x0".
inline std::string hex(uint64_t value) { return "0x" + hexDigits(value); }

inline std::string num(uint64_t value) { return std::to_string(value); }

}  // namespace hrx::text
