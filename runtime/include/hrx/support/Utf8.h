// The one UTF-8 decoder: the Loom lexer checks source text with it, the diagnostic printer
// measures columns with it, the runtime's JSON reader and `hrx inspect` validate strings with it.
// Strict (RFC 3629): no overlong forms, no surrogates, nothing past U+10FFFF. Internal (not
// installed); every layer may use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace hrx::text {

// Decodes the sequence at `s[i]` into `cp`; returns its length, or 0 when it is malformed.
inline size_t decodeUtf8(std::string_view s, size_t i, uint32_t &cp) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  cp = len == 1 ? c : c & (0x7F >> len);
  for (size_t k = 1; k < len; ++k) {
    unsigned char cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3F);
  }
  static constexpr uint32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinForLength[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

// Length of the valid sequence at the start of `s`, or 0.
inline size_t utf8Length(std::string_view s) {
  uint32_t cp = 0;
  return s.empty() ? 0 : decodeUtf8(s, 0, cp);
}

}  // namespace hrx::text
