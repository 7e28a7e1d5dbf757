#include "hrx/format/FatWriter.h"

#include "Bytes.h"

namespace hrx::format {
using namespace detail;

namespace {
// The layout readFat checks (runtime/format/Fat.cpp).
constexpr uint64_t kHeaderBytes = 32, kEntryBytes = 40, kStringEntryBytes = 16;
constexpr uint32_t kVersion = 1;
uint64_t alignUp8(uint64_t v) { return (v + 7) & ~uint64_t(7); }
}  // namespace

std::vector<uint8_t> writeFat(std::span<const FatEntry> entries) {
  ByteWriter out;
  for (const FatEntry &e : entries) {
    out.padTo(8);
    // Layout of one binary: header | entry | string entries | string bytes | image (8-aligned).
    uint64_t stringEntries = kHeaderBytes + kEntryBytes;
    uint64_t stringBytes = stringEntries + e.strings.size() * kStringEntryBytes;
    ByteWriter strings;
    std::vector<std::pair<uint64_t, uint64_t>> offsets;
    for (const auto &[key, value] : e.strings) {
      uint64_t k = stringBytes + strings.size();
      strings.append(key);
      strings.u8(0);
      uint64_t v = stringBytes + strings.size();
      strings.append(value);
      strings.u8(0);
      offsets.push_back({k, v});
    }
    uint64_t imageOffset = alignUp8(stringBytes + strings.size());
    uint64_t size = alignUp8(imageOffset + e.image.size());
    for (uint8_t m : {0x10, 0xFF, 0x10, 0xAD}) out.u8(m);
    out.u32(kVersion);
    out.u64(size);
    out.u64(kHeaderBytes);
    out.u64(kEntryBytes);
    out.u16(uint16_t(e.imageKind));
    out.u16(e.offloadKind);
    out.u32(e.flags);
    out.u64(stringEntries);
    out.u64(e.strings.size());
    out.u64(imageOffset);
    out.u64(e.image.size());
    for (const auto &[k, v] : offsets) {
      out.u64(k);
      out.u64(v);
    }
    std::vector<uint8_t> s = strings.take();
    out.append(std::span<const uint8_t>(s));
    out.padTo(8);
    out.append(std::span<const uint8_t>(e.image));
    out.padTo(8);
  }
  return out.take();
}

}  // namespace hrx::format
