#include "hrx/format/Elf64Writer.h"

#include "Bytes.h"

namespace hrx::format {
using namespace detail;

namespace {
constexpr uint32_t kShdrBytes = 64, kShtProgbits = 1;
Status bad(const std::string &what) { return Status(StatusCode::InvalidArgument, "ELF64: " + what); }
}  // namespace

StatusOr<std::vector<uint8_t>> appendElf64Sections(std::span<const uint8_t> elf,
                                                   std::span<const SectionPayload> sections) {
  auto parsed = readElf64Sections(elf);
  if (!parsed.isOk()) return parsed.status();
  // readElf64Sections checked these fields and every section header.
  const uint64_t oldShoff = le64(elf, 40);
  const uint16_t shnum = le16(elf, 60), shstrndx = le16(elf, 62);
  for (const SectionPayload &s : sections)
    for (const SectionInfo &existing : parsed->sections)
      if (existing.name == s.name) return bad("cannot add section " + s.name + ": the file already has one");
  if (uint64_t(shnum) + sections.size() > 0xFF00) return bad("too many sections");

  ByteWriter out;
  out.append(elf);
  // New payloads.
  std::vector<std::pair<uint64_t, uint64_t>> placed;  // offset, size
  std::vector<uint64_t> flags;
  for (const SectionPayload &s : sections) {
    out.padTo(8);
    uint64_t offset = out.size();
    if (s.compress) {
      out.u32(kElfCompressZstd);
      out.u32(0);
      out.u64(s.bytes.size());
      out.u64(1);
      out.append(std::span<const uint8_t>(zstdCompress(s.bytes)));
    } else {
      out.append(std::span<const uint8_t>(s.bytes));
    }
    placed.push_back({offset, out.size() - offset});
    flags.push_back(s.compress ? kSectionCompressed : 0);
  }
  // New section-name table: the old one plus the new names.
  auto oldStrtab = elf.subspan(parsed->sections[shstrndx].offset, parsed->sections[shstrndx].size);
  uint64_t strtabOffset = out.size();
  out.append(oldStrtab);
  std::vector<uint32_t> nameOffsets;
  for (const SectionPayload &s : sections) {
    nameOffsets.push_back(uint32_t(out.size() - strtabOffset));
    out.append(s.name);
    out.u8(0);
  }
  uint64_t strtabSize = out.size() - strtabOffset;
  // New section-header table: the old rows (the name table's row repointed) plus ours.
  out.padTo(8);
  uint64_t newShoff = out.size();
  for (uint32_t i = 0; i < shnum; ++i) {
    auto row = elf.subspan(oldShoff + uint64_t(i) * kShdrBytes, kShdrBytes);
    size_t at = out.size();
    out.append(row);
    if (i == shstrndx) {
      out.patch64(at + 24, strtabOffset);
      out.patch64(at + 32, strtabSize);
    }
  }
  for (size_t i = 0; i < sections.size(); ++i) {
    out.u32(nameOffsets[i]);
    out.u32(kShtProgbits);
    out.u64(flags[i]);
    out.u64(0);                // sh_addr: not loaded
    out.u64(placed[i].first);  // sh_offset
    out.u64(placed[i].second);
    out.u32(0);
    out.u32(0);
    out.u64(sections[i].compress ? 8 : 1);
    out.u64(0);
  }
  out.patch64(40, newShoff);
  out.patch16(60, uint16_t(shnum + sections.size()));
  return out.take();
}

}  // namespace hrx::format
