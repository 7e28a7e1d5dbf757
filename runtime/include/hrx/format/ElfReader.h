// The runtime's one ELF reader: ELF32 and ELF64 little-endian, every offset, size, index and
// string bounds-checked, no LLVM. It reads the structure (headers, tables, names, notes,
// compressed sections); each format (.xdna, HSACO, host code) adds its own rules on top.
// Errors say where (the header, program header or section header), which field, and what was
// found against what was expected.
#pragma once

#include <array>
#include <cstdint>
#include <expected>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::format {
namespace detail {
class PayloadBudget;
}

namespace elf {

enum class ElfClass : uint8_t { Elf32 = 1, Elf64 = 2 };  // e_ident[EI_CLASS]

// The ELF header, widened to 64 bits whatever the class.
struct FileHeader {
  ElfClass elfClass = ElfClass::Elf64;
  std::array<uint8_t, 16> ident{};
  uint16_t type = 0, machine = 0;
  uint32_t version = 0;
  uint64_t entry = 0, phoff = 0, shoff = 0;
  uint32_t flags = 0;
  uint16_t ehsize = 0, phentsize = 0, phnum = 0, shentsize = 0, shnum = 0, shstrndx = 0;
  uint8_t osAbi() const { return ident[7]; }       // EI_OSABI
  uint8_t abiVersion() const { return ident[8]; }  // EI_ABIVERSION
};

struct ProgramHeader {
  uint32_t type = 0, flags = 0;
  uint64_t offset = 0, vaddr = 0, paddr = 0, filesz = 0, memsz = 0, align = 0;
};

struct SectionHeader {
  uint32_t name = 0, type = 0;
  uint64_t flags = 0, addr = 0, offset = 0, size = 0;
  uint32_t link = 0, info = 0;
  uint64_t addralign = 0, entsize = 0;
};

struct Symbol {
  uint32_t name = 0;
  uint8_t info = 0, other = 0;
  uint16_t shndx = 0;
  uint64_t value = 0, size = 0;
  uint8_t type() const { return info & 0xf; }  // ELF*_ST_TYPE
};

// An Elf32_Rela or Elf64_Rela, r_info split into its symbol index and type.
struct Relocation {
  uint64_t offset = 0;
  uint32_t symbol = 0, type = 0;
  int64_t addend = 0;
};

struct DynamicEntry {
  int64_t tag = 0;
  uint64_t value = 0;
};

// One note of a PT_NOTE segment or SHT_NOTE section; `name` includes its NUL.
struct Note {
  uint32_t type = 0;
  std::span<const uint8_t> name, desc;
};

// The byte sizes of one class's records.
struct RecordSizes {
  uint64_t header, programHeader, sectionHeader, symbol, relocation, dynamic, compression;
};
const RecordSizes &recordSizes(ElfClass elfClass);

struct ElfError {
  std::string where;  // "ELF header", "program header 2", "section header 5", or the caller's name
  std::string field;  // the field at fault ("e_phoff", "sh_name"); empty when none
  std::string what;   // what is wrong: the value found and the one expected
  std::string message() const { return where.empty() ? what : where + ": " + what; }
};
template <typename T> using ElfResult = std::expected<T, ElfError>;

bool hasElfMagic(std::span<const uint8_t> bytes);

class ElfReader {
public:
  // Checks that the ELF header is there, the magic, the expected class and little-endian data;
  // decodes the header. Nothing past the header is read until asked for.
  static ElfResult<ElfReader> open(std::span<const uint8_t> bytes, ElfClass expected);

  const FileHeader &header() const { return header_; }
  const RecordSizes &sizes() const { return recordSizes(header_.elfClass); }
  std::span<const uint8_t> bytes() const { return bytes_; }

  // e_phentsize fits the class and the table lies inside the file (an empty table passes).
  ElfResult<void> checkProgramHeaderTable() const;
  // Program header `index` (below e_phnum, after checkProgramHeaderTable()).
  ProgramHeader programHeader(uint32_t index) const;
  ElfResult<std::vector<ProgramHeader>> programHeaders() const;

  // With e_shnum > 0: e_shentsize fits the class, e_shstrndx is below e_shnum, and the table
  // lies inside the file, clear of the ELF header.
  ElfResult<void> checkSectionHeaderTable() const;
  // Section header `index` (below e_shnum, after checkSectionHeaderTable()).
  SectionHeader sectionHeader(uint32_t index) const;
  ElfResult<std::vector<SectionHeader>> sectionHeaders() const;

  // [offset, offset + size) of the file.
  ElfResult<std::span<const uint8_t>> range(uint64_t offset, uint64_t size, std::string where, std::string field) const;
  // A section's file bytes (none for SHT_NOBITS) and a segment's (p_filesz of them).
  ElfResult<std::span<const uint8_t>> sectionData(uint32_t index, const SectionHeader &section) const;
  ElfResult<std::span<const uint8_t>> segmentData(uint32_t index, const ProgramHeader &segment) const;
  // The sections' file ranges are disjoint (SHT_NOBITS and empty sections aside).
  ElfResult<void> checkSectionsDisjoint() const;

  // The section-name table (e_shstrndx must name an SHT_STRTAB section) and a section's name.
  ElfResult<std::span<const uint8_t>> sectionNameTable() const;
  ElfResult<std::string_view> sectionName(std::span<const uint8_t> nameTable, uint32_t index,
                                          const SectionHeader &section) const;
  // The NUL-terminated string at `offset` of a string table; none when it is outside or unended.
  static std::optional<std::string_view> stringAt(std::span<const uint8_t> table, uint64_t offset);

  // Record `index` of a table's bytes; the caller keeps index below table.size() / record size.
  Symbol symbol(std::span<const uint8_t> table, uint64_t index) const;
  Relocation relocation(std::span<const uint8_t> table, uint64_t index) const;
  DynamicEntry dynamicEntry(std::span<const uint8_t> table, uint64_t index) const;

  // The notes of a PT_NOTE segment's or SHT_NOTE section's bytes (a tail shorter than a note
  // header is ignored); `where` names them in errors.
  static ElfResult<std::vector<Note>> notes(std::span<const uint8_t> data, const std::string &where);

  // A section's contents as the program uses them: SHF_COMPRESSED ones (ELFCOMPRESS_ZSTD only)
  // decompressed. `budget` bounds what all sections together may copy or decompress.
  ElfResult<std::vector<uint8_t>> sectionContents(std::span<const uint8_t> data, bool compressed,
                                                  const std::string &where, detail::PayloadBudget &budget) const;

private:
  ElfReader(std::span<const uint8_t> bytes, const FileHeader &header) : bytes_(bytes), header_(header) {}
  std::span<const uint8_t> bytes_;
  FileHeader header_;
};

}  // namespace elf
}  // namespace hrx::format
