#include "hrx/format/ElfReader.h"

#include "hrx/support/Text.h"

#include "Bytes.h"

#include <elf.h>

#include <algorithm>
#include <cstddef>

namespace hrx::format::elf {
using namespace detail;
using text::hex;
using text::num;

// ELFCOMPRESS_ZSTD (2) is in glibc 2.37+ only; Bytes.h spells it.
static_assert(kElfCompressZstd == 2 && kSectionCompressed == SHF_COMPRESSED);

namespace {

// Field offsets and widths come from <elf.h>'s structures; the bytes are never cast to them.
#define HRX_ELF_FIELD(bytes, at, Type, member) readLE((bytes), (at) + offsetof(Type, member), sizeof(Type::member))

// One class's record types and r_info split.
struct Elf32Types {
  using Ehdr = Elf32_Ehdr;
  using Phdr = Elf32_Phdr;
  using Shdr = Elf32_Shdr;
  using Sym = Elf32_Sym;
  using Rela = Elf32_Rela;
  using Dyn = Elf32_Dyn;
  using Chdr = Elf32_Chdr;
  static uint32_t relocationSymbol(uint64_t info) { return uint32_t(ELF32_R_SYM(info)); }
  static uint32_t relocationType(uint64_t info) { return uint32_t(ELF32_R_TYPE(info)); }
};
struct Elf64Types {
  using Ehdr = Elf64_Ehdr;
  using Phdr = Elf64_Phdr;
  using Shdr = Elf64_Shdr;
  using Sym = Elf64_Sym;
  using Rela = Elf64_Rela;
  using Dyn = Elf64_Dyn;
  using Chdr = Elf64_Chdr;
  static uint32_t relocationSymbol(uint64_t info) { return uint32_t(ELF64_R_SYM(info)); }
  static uint32_t relocationType(uint64_t info) { return uint32_t(ELF64_R_TYPE(info)); }
};

template <typename T> constexpr RecordSizes kSizes = {
    sizeof(typename T::Ehdr), sizeof(typename T::Phdr), sizeof(typename T::Shdr), sizeof(typename T::Sym),
    sizeof(typename T::Rela), sizeof(typename T::Dyn),  sizeof(typename T::Chdr)};

template <typename T> FileHeader decodeHeader(std::span<const uint8_t> b) {
  using E = typename T::Ehdr;
  FileHeader h;
  std::copy_n(b.begin(), EI_NIDENT, h.ident.begin());
  h.elfClass = ElfClass(b[EI_CLASS]);
  h.type = uint16_t(HRX_ELF_FIELD(b, 0, E, e_type));
  h.machine = uint16_t(HRX_ELF_FIELD(b, 0, E, e_machine));
  h.version = uint32_t(HRX_ELF_FIELD(b, 0, E, e_version));
  h.entry = HRX_ELF_FIELD(b, 0, E, e_entry);
  h.phoff = HRX_ELF_FIELD(b, 0, E, e_phoff);
  h.shoff = HRX_ELF_FIELD(b, 0, E, e_shoff);
  h.flags = uint32_t(HRX_ELF_FIELD(b, 0, E, e_flags));
  h.ehsize = uint16_t(HRX_ELF_FIELD(b, 0, E, e_ehsize));
  h.phentsize = uint16_t(HRX_ELF_FIELD(b, 0, E, e_phentsize));
  h.phnum = uint16_t(HRX_ELF_FIELD(b, 0, E, e_phnum));
  h.shentsize = uint16_t(HRX_ELF_FIELD(b, 0, E, e_shentsize));
  h.shnum = uint16_t(HRX_ELF_FIELD(b, 0, E, e_shnum));
  h.shstrndx = uint16_t(HRX_ELF_FIELD(b, 0, E, e_shstrndx));
  return h;
}

template <typename T> ProgramHeader decodeProgramHeader(std::span<const uint8_t> b, uint64_t at) {
  using P = typename T::Phdr;
  return {uint32_t(HRX_ELF_FIELD(b, at, P, p_type)), uint32_t(HRX_ELF_FIELD(b, at, P, p_flags)),
          HRX_ELF_FIELD(b, at, P, p_offset),         HRX_ELF_FIELD(b, at, P, p_vaddr),
          HRX_ELF_FIELD(b, at, P, p_paddr),          HRX_ELF_FIELD(b, at, P, p_filesz),
          HRX_ELF_FIELD(b, at, P, p_memsz),          HRX_ELF_FIELD(b, at, P, p_align)};
}

template <typename T> SectionHeader decodeSectionHeader(std::span<const uint8_t> b, uint64_t at) {
  using S = typename T::Shdr;
  return {uint32_t(HRX_ELF_FIELD(b, at, S, sh_name)), uint32_t(HRX_ELF_FIELD(b, at, S, sh_type)),
          HRX_ELF_FIELD(b, at, S, sh_flags),          HRX_ELF_FIELD(b, at, S, sh_addr),
          HRX_ELF_FIELD(b, at, S, sh_offset),         HRX_ELF_FIELD(b, at, S, sh_size),
          uint32_t(HRX_ELF_FIELD(b, at, S, sh_link)), uint32_t(HRX_ELF_FIELD(b, at, S, sh_info)),
          HRX_ELF_FIELD(b, at, S, sh_addralign),      HRX_ELF_FIELD(b, at, S, sh_entsize)};
}

template <typename T> Symbol decodeSymbol(std::span<const uint8_t> b, uint64_t at) {
  using S = typename T::Sym;
  return {uint32_t(HRX_ELF_FIELD(b, at, S, st_name)), uint8_t(HRX_ELF_FIELD(b, at, S, st_info)),
          uint8_t(HRX_ELF_FIELD(b, at, S, st_other)), uint16_t(HRX_ELF_FIELD(b, at, S, st_shndx)),
          HRX_ELF_FIELD(b, at, S, st_value),          HRX_ELF_FIELD(b, at, S, st_size)};
}

template <typename T> Relocation decodeRelocation(std::span<const uint8_t> b, uint64_t at) {
  using R = typename T::Rela;
  uint64_t info = HRX_ELF_FIELD(b, at, R, r_info);
  uint64_t addend = HRX_ELF_FIELD(b, at, R, r_addend);
  // r_addend is signed: sign-extend the narrower ELF32 field.
  int64_t signedAddend = sizeof(R::r_addend) == 4 ? int64_t(int32_t(uint32_t(addend))) : int64_t(addend);
  return {HRX_ELF_FIELD(b, at, R, r_offset), T::relocationSymbol(info), T::relocationType(info), signedAddend};
}

template <typename T> DynamicEntry decodeDynamic(std::span<const uint8_t> b, uint64_t at) {
  using D = typename T::Dyn;
  uint64_t tag = HRX_ELF_FIELD(b, at, D, d_tag);
  int64_t signedTag = sizeof(D::d_tag) == 4 ? int64_t(int32_t(uint32_t(tag))) : int64_t(tag);
  return {signedTag, HRX_ELF_FIELD(b, at, D, d_un)};
}

struct CompressionHeader {
  uint32_t type;
  uint64_t size;
};
template <typename T> CompressionHeader decodeCompression(std::span<const uint8_t> b) {
  using C = typename T::Chdr;
  return {uint32_t(HRX_ELF_FIELD(b, 0, C, ch_type)), HRX_ELF_FIELD(b, 0, C, ch_size)};
}

#undef HRX_ELF_FIELD

bool is64(ElfClass c) { return c == ElfClass::Elf64; }

// Calls `f` with the record types of class `c` (Elf32Types or Elf64Types).
template <typename F> decltype(auto) byClass(ElfClass c, F &&f) { return is64(c) ? f(Elf64Types{}) : f(Elf32Types{}); }
std::string bits(ElfClass c) { return is64(c) ? "64" : "32"; }

ElfError headerError(std::string field, std::string what) { return {"ELF header", std::move(field), std::move(what)}; }

}  // namespace

const RecordSizes &recordSizes(ElfClass elfClass) {
  return byClass(elfClass, []<typename T>(T) -> const RecordSizes & { return kSizes<T>; });
}

bool hasElfMagic(std::span<const uint8_t> b) {
  return b.size() >= SELFMAG && b[EI_MAG0] == ELFMAG0 && b[EI_MAG1] == ELFMAG1 && b[EI_MAG2] == ELFMAG2 &&
         b[EI_MAG3] == ELFMAG3;
}

ElfResult<ElfReader> ElfReader::open(std::span<const uint8_t> b, ElfClass expected) {
  uint64_t headerBytes = recordSizes(expected).header;
  if (b.size() < headerBytes)
    return std::unexpected(headerError("e_ident", "file is " + num(b.size()) + " bytes, shorter than the " +
                                                      num(headerBytes) + "-byte ELF" + bits(expected) + " header"));
  if (!hasElfMagic(b)) return std::unexpected(headerError("e_ident", "e_ident magic is not 7F 45 4C 46"));
  if (b[EI_CLASS] != uint8_t(expected))
    return std::unexpected(headerError("e_ident", "e_ident[EI_CLASS] is " + num(b[EI_CLASS]) + ", expected " +
                                                      num(uint8_t(expected)) + " (ELFCLASS" + bits(expected) + ")"));
  if (b[EI_DATA] != ELFDATA2LSB)
    return std::unexpected(
        headerError("e_ident", "e_ident[EI_DATA] is " + num(b[EI_DATA]) + ", expected 1 (little-endian)"));
  return ElfReader(b, byClass(expected, [&]<typename T>(T) { return decodeHeader<T>(b); }));
}

ElfResult<void> ElfReader::checkProgramHeaderTable() const {
  const FileHeader &h = header_;
  if (h.phnum == 0) return {};
  if (h.phentsize != sizes().programHeader)
    return std::unexpected(
        headerError("e_phentsize", "e_phentsize is " + num(h.phentsize) + ", expected " + num(sizes().programHeader)));
  uint64_t tableBytes = uint64_t(h.phnum) * sizes().programHeader;
  if (h.phoff > bytes_.size())
    return std::unexpected(headerError("e_phoff", "the program-header table starts at byte " + num(h.phoff) +
                                                      ", past the " + num(bytes_.size()) + "-byte file"));
  if (!fits(h.phoff, tableBytes, bytes_.size()))
    return std::unexpected(headerError("e_phoff", "the " + num(h.phnum) + " program headers end at byte " +
                                                      num(h.phoff + tableBytes) + ", past the " + num(bytes_.size()) +
                                                      "-byte file"));
  return {};
}

ProgramHeader ElfReader::programHeader(uint32_t index) const {
  uint64_t at = header_.phoff + uint64_t(index) * sizes().programHeader;
  return byClass(header_.elfClass, [&]<typename T>(T) { return decodeProgramHeader<T>(bytes_, at); });
}

ElfResult<std::vector<ProgramHeader>> ElfReader::programHeaders() const {
  if (auto table = checkProgramHeaderTable(); !table) return std::unexpected(table.error());
  std::vector<ProgramHeader> headers;
  for (uint32_t i = 0; i < header_.phnum; ++i) headers.push_back(programHeader(i));
  return headers;
}

ElfResult<void> ElfReader::checkSectionHeaderTable() const {
  const FileHeader &h = header_;
  if (h.shnum == 0) return {};
  if (h.shentsize != sizes().sectionHeader)
    return std::unexpected(
        headerError("e_shentsize", "e_shentsize is " + num(h.shentsize) + ", expected " + num(sizes().sectionHeader)));
  if (h.shstrndx >= h.shnum)
    return std::unexpected(
        headerError("e_shstrndx", "e_shstrndx is " + num(h.shstrndx) + ", expected below e_shnum " + num(h.shnum)));
  if (!fits(h.shoff, uint64_t(h.shnum) * sizes().sectionHeader, bytes_.size()))
    return std::unexpected(headerError("e_shoff", "the section-header table (" + hex(h.shoff) + ", " + num(h.shnum) +
                                                      " headers) lies outside the " + num(bytes_.size()) +
                                                      "-byte file"));
  if (h.shoff < sizes().header)
    return std::unexpected(headerError("e_shoff", "the section-header table overlaps the ELF header"));
  return {};
}

SectionHeader ElfReader::sectionHeader(uint32_t index) const {
  uint64_t at = header_.shoff + uint64_t(index) * sizes().sectionHeader;
  return byClass(header_.elfClass, [&]<typename T>(T) { return decodeSectionHeader<T>(bytes_, at); });
}

ElfResult<std::vector<SectionHeader>> ElfReader::sectionHeaders() const {
  if (auto table = checkSectionHeaderTable(); !table) return std::unexpected(table.error());
  std::vector<SectionHeader> headers;
  for (uint32_t i = 0; i < header_.shnum; ++i) headers.push_back(sectionHeader(i));
  return headers;
}

ElfResult<std::span<const uint8_t>> ElfReader::range(uint64_t offset, uint64_t size, std::string where,
                                                     std::string field) const {
  if (!fits(offset, size, bytes_.size()))
    return std::unexpected(
        ElfError{std::move(where), std::move(field),
                 "data " + hex(offset) + "+" + num(size) + " lies outside the " + num(bytes_.size()) + "-byte file"});
  return bytes_.subspan(offset, size);
}

ElfResult<std::span<const uint8_t>> ElfReader::sectionData(uint32_t index, const SectionHeader &section) const {
  if (section.type == SHT_NOBITS) return std::span<const uint8_t>();
  // The error's context is spelled only when there is an error.
  if (fits(section.offset, section.size, bytes_.size())) return bytes_.subspan(section.offset, section.size);
  return range(section.offset, section.size, "section header " + num(index), "sh_offset");
}

ElfResult<std::span<const uint8_t>> ElfReader::segmentData(uint32_t index, const ProgramHeader &segment) const {
  if (fits(segment.offset, segment.filesz, bytes_.size())) return bytes_.subspan(segment.offset, segment.filesz);
  return range(segment.offset, segment.filesz, "program header " + num(index), "p_offset");
}

ElfResult<void> ElfReader::checkSectionsDisjoint() const {
  auto headers = sectionHeaders();
  if (!headers) return std::unexpected(headers.error());
  struct Placed {
    uint64_t begin, end;
    uint32_t index;
  };
  std::vector<Placed> placed;
  for (uint32_t i = 0; i < headers->size(); ++i) {
    const SectionHeader &s = (*headers)[i];
    if (s.type == SHT_NOBITS || s.type == SHT_NULL || s.size == 0) continue;
    auto data = sectionData(i, s);
    if (!data) return std::unexpected(data.error());
    placed.push_back({s.offset, s.offset + s.size, i});
  }
  std::sort(placed.begin(), placed.end(), [](const Placed &a, const Placed &b) {
    return a.begin != b.begin ? a.begin < b.begin : a.index < b.index;
  });
  for (size_t k = 1; k < placed.size(); ++k)
    if (placed[k].begin < placed[k - 1].end)
      return std::unexpected(ElfError{"section header " + num(placed[k].index), "sh_offset",
                                      "data " + hex(placed[k].begin) + ".." + hex(placed[k].end) +
                                          " overlaps section header " + num(placed[k - 1].index) + "'s " +
                                          hex(placed[k - 1].begin) + ".." + hex(placed[k - 1].end)});
  return {};
}

ElfResult<std::span<const uint8_t>> ElfReader::sectionNameTable() const {
  if (auto table = checkSectionHeaderTable(); !table) return std::unexpected(table.error());
  uint32_t index = header_.shstrndx;
  uint32_t type = header_.shnum ? sectionHeader(index).type : 0;
  if (index == 0 || type != SHT_STRTAB)
    return std::unexpected(headerError("e_shstrndx", "e_shstrndx " + num(index) +
                                                         " does not name a section-name table (SHT_STRTAB), "
                                                         "found type " +
                                                         num(type)));
  return sectionData(index, sectionHeader(index));
}

ElfResult<std::string_view> ElfReader::sectionName(std::span<const uint8_t> nameTable, uint32_t index,
                                                   const SectionHeader &section) const {
  auto where = [&] { return "section header " + num(index); };
  if (section.name >= nameTable.size())
    return std::unexpected(
        ElfError{where(), "sh_name", "sh_name " + num(section.name) + " lies outside the section-name table"});
  auto name = stringAt(nameTable, section.name);
  if (!name) return std::unexpected(ElfError{where(), "sh_name", "section name is not NUL-terminated"});
  return *name;
}

std::optional<std::string_view> ElfReader::stringAt(std::span<const uint8_t> table, uint64_t offset) {
  if (offset >= table.size()) return std::nullopt;
  auto end = std::find(table.begin() + offset, table.end(), 0);
  if (end == table.end()) return std::nullopt;
  return std::string_view(reinterpret_cast<const char *>(table.data()) + offset, size_t(end - table.begin()) - offset);
}

Symbol ElfReader::symbol(std::span<const uint8_t> table, uint64_t index) const {
  uint64_t at = index * sizes().symbol;
  return byClass(header_.elfClass, [&]<typename T>(T) { return decodeSymbol<T>(table, at); });
}

Relocation ElfReader::relocation(std::span<const uint8_t> table, uint64_t index) const {
  uint64_t at = index * sizes().relocation;
  return byClass(header_.elfClass, [&]<typename T>(T) { return decodeRelocation<T>(table, at); });
}

DynamicEntry ElfReader::dynamicEntry(std::span<const uint8_t> table, uint64_t index) const {
  uint64_t at = index * sizes().dynamic;
  return byClass(header_.elfClass, [&]<typename T>(T) { return decodeDynamic<T>(table, at); });
}

ElfResult<std::vector<Note>> ElfReader::notes(std::span<const uint8_t> data, const std::string &where) {
  // Elf32_Nhdr and Elf64_Nhdr are the same three words; name and desc are padded to 4 bytes.
  static_assert(sizeof(Elf32_Nhdr) == 12 && sizeof(Elf64_Nhdr) == 12);
  std::vector<Note> notes;
  for (uint64_t p = 0; p + sizeof(Elf64_Nhdr) <= data.size();) {
    uint64_t nameBytes = le32(data, p), descBytes = le32(data, p + 4);
    uint32_t type = le32(data, p + 8);
    uint64_t name = p + sizeof(Elf64_Nhdr), desc = name + (nameBytes + 3) / 4 * 4;
    if (desc > data.size() || descBytes > data.size() - desc)
      return std::unexpected(ElfError{where, "n_descsz", "a note runs past the segment"});
    notes.push_back({type, data.subspan(name, nameBytes), data.subspan(desc, descBytes)});
    p = desc + (descBytes + 3) / 4 * 4;
  }
  return notes;
}

ElfResult<std::vector<uint8_t>> ElfReader::sectionContents(std::span<const uint8_t> data, bool compressed,
                                                           const std::string &where, PayloadBudget &budget) const {
  const uint64_t headerBytes = sizes().compression;
  std::optional<CompressionHeader> chdr;
  if (compressed && data.size() >= headerBytes)
    chdr = byClass(header_.elfClass, [&]<typename T>(T) { return decodeCompression<T>(data); });
  if (Status take = budget.take(chdr ? chdr->size : data.size(), where); !take.isOk())
    return std::unexpected(ElfError{"", "", take.message()});
  if (!compressed) return std::vector<uint8_t>(data.begin(), data.end());
  if (!chdr)
    return std::unexpected(
        ElfError{where, "ch_size", "compressed section is shorter than its " + num(headerBytes) + "-byte header"});
  if (chdr->type != kElfCompressZstd)
    return std::unexpected(
        ElfError{where, "ch_type", "ch_type " + num(chdr->type) + ", expected 2 (ELFCOMPRESS_ZSTD)"});
  auto raw = zstdDecompress(data.subspan(headerBytes), chdr->size, where);
  if (!raw.isOk()) return std::unexpected(ElfError{"", "", raw.status().message()});
  return std::move(raw.value());
}

}  // namespace hrx::format::elf
