// Fat artifacts (several targets from one hrxcc invocation): a sequence of LLVM offload
// binaries (magic 0x10FF10AD, version 1), each holding one target's artifact with "triple" and
// "arch" strings, so `llvm-objdump --offloading` lists them. Implemented from the documented
// layout; no LLVM in the runtime. Format: docs/formats/fat.md.
#pragma once

#include "hrx/runtime/Status.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hrx::format {

enum class OffloadImageKind : uint16_t {
  None = 0,
  Object = 1,
  Bitcode = 2,
  Cubin = 3,
  Fatbinary = 4,
  Ptx = 5,
  Spirv = 6
};
enum OffloadKindBits : uint16_t {
  kOffloadNone = 0,
  kOffloadOpenMP = 1,
  kOffloadCuda = 2,
  kOffloadHip = 4,
  kOffloadSycl = 8
};

struct FatEntry {
  OffloadImageKind imageKind = OffloadImageKind::Object;
  uint16_t offloadKind = kOffloadNone;
  uint32_t flags = 0;
  std::vector<std::pair<std::string, std::string>> strings;  // "triple", "arch", ...
  std::vector<uint8_t> image;
  std::string_view string(std::string_view key) const;
};

inline constexpr uint32_t kOffloadMagic = 0x10FF10AD;  // bytes 10 FF 10 AD
bool isFatContainer(std::span<const uint8_t> bytes);

// Reads every offload binary in sequence (each 8-byte aligned); errors name the binary and
// field. Requires the "triple" and "arch" strings.
StatusOr<std::vector<FatEntry>> readFat(std::span<const uint8_t> bytes);

}  // namespace hrx::format
