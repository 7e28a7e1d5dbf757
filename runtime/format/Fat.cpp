#include "hrx/format/Fat.h"

#include "hrx/support/Text.h"

#include "Bytes.h"

#include <algorithm>

namespace hrx::format {
using namespace detail;

namespace {
constexpr uint64_t kHeaderBytes = 32, kEntryBytes = 40, kStringEntryBytes = 16;
constexpr uint32_t kVersion = 1;
using text::num;
uint64_t alignUp8(uint64_t v) { return (v + 7) & ~uint64_t(7); }
}  // namespace

std::string_view FatEntry::string(std::string_view key) const {
  for (const auto &[k, v] : strings)
    if (k == key) return v;
  return {};
}

bool isFatContainer(std::span<const uint8_t> b) {
  return b.size() >= 4 && b[0] == 0x10 && b[1] == 0xFF && b[2] == 0x10 && b[3] == 0xAD;
}

StatusOr<std::vector<FatEntry>> readFat(std::span<const uint8_t> all) {
  std::vector<FatEntry> entries;
  uint64_t at = 0;
  while (at < all.size()) {
    std::string where = "fat container: offload binary " + num(entries.size()) + " (at byte " + num(at) + ")";
    auto bad = [&](const std::string &what) { return Status(StatusCode::InvalidArgument, where + ": " + what); };
    auto b = all.subspan(at);
    if (b.size() < kHeaderBytes)
      return bad("only " + num(b.size()) + " bytes remain, an offload binary header needs 32");
    if (!isFatContainer(b)) return bad("magic is not 10 FF 10 AD");
    uint32_t version = le32(b, 4);
    if (version != kVersion) return bad("version " + num(version) + ", expected 1");
    uint64_t size = le64(b, 8), entryOffset = le64(b, 16), entrySize = le64(b, 24);
    if (size < kHeaderBytes || size > b.size())
      return bad("size " + num(size) + " exceeds the " + num(b.size()) + " remaining bytes");
    b = b.subspan(0, size);
    if (entrySize < kEntryBytes || !fits(entryOffset, entrySize, size))
      return bad("entry " + num(entryOffset) + "+" + num(entrySize) + " does not fit in the binary's " + num(size) +
                 " bytes");
    FatEntry e;
    e.imageKind = OffloadImageKind(le16(b, entryOffset));
    if (uint16_t(e.imageKind) > uint16_t(OffloadImageKind::Spirv))
      return bad("image kind " + num(uint16_t(e.imageKind)) + " is unknown");
    e.offloadKind = le16(b, entryOffset + 2);
    if (e.offloadKind >= 16) return bad("offload kind " + num(e.offloadKind) + " has unknown bits");
    e.flags = le32(b, entryOffset + 4);
    uint64_t stringOffset = le64(b, entryOffset + 8), stringCount = le64(b, entryOffset + 16);
    uint64_t imageOffset = le64(b, entryOffset + 24), imageSize = le64(b, entryOffset + 32);
    if (stringCount > size / kStringEntryBytes || !fits(stringOffset, stringCount * kStringEntryBytes, size))
      return bad("string table " + num(stringOffset) + " with " + num(stringCount) + " entries does not fit");
    if (!fits(imageOffset, imageSize, size))
      return bad("image " + num(imageOffset) + "+" + num(imageSize) + " does not fit");
    auto cString = [&](uint64_t offset, std::string &out) {
      if (offset >= size) return false;
      auto end = std::find(b.begin() + offset, b.end(), 0);
      if (end == b.end()) return false;
      out.assign(b.begin() + offset, end);
      return true;
    };
    for (uint64_t i = 0; i < stringCount; ++i) {
      std::string key, value;
      uint64_t row = stringOffset + i * kStringEntryBytes;
      if (!cString(le64(b, row), key) || !cString(le64(b, row + 8), value))
        return bad("string " + num(i) + " is not a NUL-terminated string inside the binary");
      e.strings.push_back({std::move(key), std::move(value)});
    }
    if (e.string("triple").empty()) return bad("the \"triple\" string is missing");
    if (e.string("arch").empty()) return bad("the \"arch\" string is missing");
    e.image.assign(b.begin() + imageOffset, b.begin() + imageOffset + imageSize);
    entries.push_back(std::move(e));
    at = alignUp8(at + size);
  }
  if (entries.empty()) return Status(StatusCode::InvalidArgument, "fat container: no offload binaries");
  return entries;
}

}  // namespace hrx::format
