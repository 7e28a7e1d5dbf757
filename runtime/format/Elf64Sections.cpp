#include "hrx/format/Elf64Sections.h"

#include "hrx/support/Text.h"

#include "Bytes.h"

#include <elf.h>

#include <algorithm>
#include <sstream>

namespace hrx::format {
using namespace detail;

// The public header spells these without <elf.h> (its macros stay out of users' code).
static_assert(kMachineAmdgpu == EM_AMDGPU && kMachineX86_64 == EM_X86_64 && kElfTypeShared == ET_DYN);
static_assert(kElfCompressZstd == 2 && kSectionCompressed == SHF_COMPRESSED);  // ELFCOMPRESS_ZSTD: glibc 2.37+

namespace {

constexpr uint32_t kHeaderBytes = sizeof(Elf64_Ehdr), kShdrBytes = sizeof(Elf64_Shdr), kChdrBytes = sizeof(Elf64_Chdr);
constexpr uint32_t kShtStrtab = SHT_STRTAB, kShtNobits = SHT_NOBITS;

using text::hex;  // hrx/support/Text.h
using text::num;
Status bad(const std::string &what) { return Status(StatusCode::InvalidArgument, "ELF64: " + what); }

struct RawHeader {
  uint16_t machine, shnum, shstrndx, shentsize;
  uint64_t shoff;
};

StatusOr<RawHeader> readHeader(std::span<const uint8_t> b) {
  if (b.size() < kHeaderBytes) return bad("file is " + num(b.size()) + " bytes, shorter than the 64-byte ELF64 header");
  if (b[EI_MAG0] != ELFMAG0 || b[EI_MAG1] != ELFMAG1 || b[EI_MAG2] != ELFMAG2 || b[EI_MAG3] != ELFMAG3)
    return bad("e_ident magic is not 7F 45 4C 46");
  if (b[EI_CLASS] != ELFCLASS64) return bad("e_ident[EI_CLASS] is " + num(b[EI_CLASS]) + ", expected 2 (ELFCLASS64)");
  if (b[EI_DATA] != ELFDATA2LSB) return bad("e_ident[EI_DATA] is " + num(b[EI_DATA]) + ", expected 1 (little-endian)");
  RawHeader h{le16(b, 18), le16(b, 60), le16(b, 62), le16(b, 58), le64(b, 40)};
  if (h.shoff == 0 || h.shnum == 0) return bad("the file has no section headers");
  if (h.shentsize != kShdrBytes) return bad("e_shentsize is " + num(h.shentsize) + ", expected 64");
  if (h.shstrndx >= h.shnum)
    return bad("e_shstrndx is " + num(h.shstrndx) + ", expected below e_shnum " + num(h.shnum));
  if (!fits(h.shoff, uint64_t(h.shnum) * kShdrBytes, b.size()))
    return bad("the section-header table (" + hex(h.shoff) + ", " + num(h.shnum) + " headers) lies outside the " +
               num(b.size()) + "-byte file");
  if (h.shoff < kHeaderBytes) return bad("the section-header table overlaps the ELF header");
  return h;
}

}  // namespace

const SectionPayload *Elf64File::section(std::string_view name) const {
  for (const SectionPayload &s : hrxSections)
    if (s.name == name) return &s;
  return nullptr;
}

std::string_view amdgpuProcessorName(uint32_t eflags) {
  switch (eflags & 0xFF) {
  case 0x041: return "gfx1100";
  case 0x04a: return "gfx1151";
  case 0x054: return "gfx11-generic";
  default: return "";
  }
}

StatusOr<Elf64File> readElf64Sections(std::span<const uint8_t> b) {
  auto header = readHeader(b);
  if (!header.isOk()) return header.status();
  const RawHeader &h = header.value();
  Elf64File file;
  file.type = le16(b, 16);
  file.machine = h.machine;
  file.osAbi = b[7];
  file.abiVersion = b[8];
  file.flags = le32(b, 48);
  auto shdr = [&](uint32_t i) { return b.subspan(h.shoff + uint64_t(i) * kShdrBytes, kShdrBytes); };
  auto payload = [&](uint32_t i) -> StatusOr<std::span<const uint8_t>> {
    auto s = shdr(i);
    uint32_t type = le32(s, 4);
    uint64_t offset = le64(s, 24), size = le64(s, 32);
    if (type == kShtNobits) return std::span<const uint8_t>();
    if (!fits(offset, size, b.size()))
      return bad("section header " + num(i) + ": data " + hex(offset) + "+" + num(size) + " lies outside the " +
                 num(b.size()) + "-byte file");
    return b.subspan(offset, size);
  };
  if (uint32_t type = le32(shdr(h.shstrndx), 4); h.shstrndx == 0 || type != kShtStrtab)
    return bad("e_shstrndx " + num(h.shstrndx) + " does not name a section-name table (SHT_STRTAB), found type " +
               num(type));
  auto strtab = payload(h.shstrndx);
  PayloadBudget budget;
  if (!strtab.isOk()) return strtab.status();
  for (uint32_t i = 0; i < h.shnum; ++i) {
    auto s = shdr(i);
    auto data = payload(i);
    if (!data.isOk()) return data.status();
    uint32_t nameOffset = le32(s, 0);
    std::string name;
    if (i != 0) {
      if (nameOffset >= strtab->size())
        return bad("section header " + num(i) + ": sh_name " + num(nameOffset) +
                   " lies outside the section-name table");
      auto end = std::find(strtab->begin() + nameOffset, strtab->end(), 0);
      if (end == strtab->end()) return bad("section header " + num(i) + ": section name is not NUL-terminated");
      name.assign(strtab->begin() + nameOffset, end);
    }
    SectionInfo info{name, le32(s, 4), le64(s, 8), le64(s, 24), le32(s, 4) == kShtNobits ? 0 : le64(s, 32)};
    if (name.starts_with(".hrx.")) {
      if (file.section(name)) return bad("section header " + num(i) + ": section " + name + " appears twice");
      SectionPayload p{name, {}, (info.flags & kSectionCompressed) != 0};
      uint64_t size = p.compress && data->size() >= kChdrBytes ? le64(*data, 8) : data->size();
      if (Status take = budget.take(size, "ELF64: section " + name); !take.isOk()) return take;
      if (p.compress) {
        if (data->size() < kChdrBytes)
          return bad("section " + name + ": compressed section is shorter than its 24-byte header");
        if (le32(*data, 0) != kElfCompressZstd)
          return bad("section " + name + ": ch_type " + num(le32(*data, 0)) + ", expected 2 (ELFCOMPRESS_ZSTD)");
        auto raw = zstdDecompress(data->subspan(kChdrBytes), le64(*data, 8), "ELF64: section " + name);
        if (!raw.isOk()) return raw.status();
        p.bytes = std::move(raw.value());
      } else {
        p.bytes.assign(data->begin(), data->end());
      }
      file.hrxSections.push_back(std::move(p));
    }
    file.sections.push_back(std::move(info));
  }
  return file;
}

}  // namespace hrx::format
