// The one set of number spellings in messages: hex(v) "0x1f", num(v) "31". Internal (not
// installed); every layer may use it.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>

namespace hrx::text {

// "0x" and lowercase hex digits, no padding: hex(0) is "0x0".
inline std::string hex(uint64_t value) {
  char digits[2 + 16];
  digits[0] = '0', digits[1] = 'x';
  auto end = std::to_chars(digits + 2, digits + sizeof digits, value, 16).ptr;
  return std::string(digits, end);
}

inline std::string num(uint64_t value) { return std::to_string(value); }

}  // namespace hrx::text
