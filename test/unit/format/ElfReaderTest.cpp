// The runtime's one ELF reader (hrx/format/ElfReader.h) over hand-built ELF32 and ELF64 files:
// truncated headers, header tables outside the file, overlapping sections, bad string tables,
// and the class-generic decoding of every record it reads.
#include "hrx/format/ElfReader.h"

#include "Bytes.h"

#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

using namespace hrx::format::elf;

namespace {

template <typename T> void put(std::vector<uint8_t> &b, size_t at, const T &record) {
  if (b.size() < at + sizeof(T)) b.resize(at + sizeof(T));
  std::memcpy(b.data() + at, &record, sizeof(T));
}

// A file of one class: ELF header, `.data` (16 bytes at 0x100), `.shstrtab` at 0x200, section
// headers at 0x300 (null, .data, .shstrtab).
template <typename Ehdr, typename Shdr> std::vector<uint8_t> makeFile(unsigned char elfClass) {
  std::vector<uint8_t> b(0x300, 0);
  Ehdr h{};
  std::memcpy(h.e_ident, ELFMAG, SELFMAG);
  h.e_ident[EI_CLASS] = elfClass;
  h.e_ident[EI_DATA] = ELFDATA2LSB;
  h.e_ident[EI_VERSION] = EV_CURRENT;
  h.e_type = ET_DYN;
  h.e_machine = EM_X86_64;
  h.e_version = EV_CURRENT;
  h.e_ehsize = sizeof(Ehdr);
  h.e_shoff = 0x300;
  h.e_shentsize = sizeof(Shdr);
  h.e_shnum = 3;
  h.e_shstrndx = 2;
  put(b, 0, h);
  for (int i = 0; i < 16; ++i) b[0x100 + i] = uint8_t(i);
  const char names[] = "\0.data\0.shstrtab";
  std::memcpy(b.data() + 0x200, names, sizeof names);
  Shdr null{}, data{}, strtab{};
  data.sh_name = 1;
  data.sh_type = SHT_PROGBITS;
  data.sh_offset = 0x100;
  data.sh_size = 16;
  strtab.sh_name = 7;
  strtab.sh_type = SHT_STRTAB;
  strtab.sh_offset = 0x200;
  strtab.sh_size = sizeof names;
  put(b, 0x300, null);
  put(b, 0x300 + sizeof(Shdr), data);
  put(b, 0x300 + 2 * sizeof(Shdr), strtab);
  return b;
}
std::vector<uint8_t> file32() { return makeFile<Elf32_Ehdr, Elf32_Shdr>(ELFCLASS32); }
std::vector<uint8_t> file64() { return makeFile<Elf64_Ehdr, Elf64_Shdr>(ELFCLASS64); }

std::string openError(const std::vector<uint8_t> &b, ElfClass c) {
  auto r = ElfReader::open(b, c);
  return r ? "" : r.error().message();
}

template <typename T> std::string sectionTableError(const std::vector<uint8_t> &b, ElfClass c) {
  auto r = ElfReader::open(b, c);
  if (!r) return "open: " + r.error().message();
  auto t = r->checkSectionHeaderTable();
  return t ? "" : t.error().message();
}

TEST(ElfReader, ReadsBothClassesAlike) {
  for (auto [bytes, c] : {std::pair{file32(), ElfClass::Elf32}, std::pair{file64(), ElfClass::Elf64}}) {
    auto r = ElfReader::open(bytes, c);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(r->header().type, ET_DYN);
    EXPECT_EQ(r->header().machine, EM_X86_64);
    EXPECT_EQ(r->header().shnum, 3);
    auto sections = r->sectionHeaders();
    ASSERT_TRUE(sections) << sections.error().message();
    auto names = r->sectionNameTable();
    ASSERT_TRUE(names) << names.error().message();
    auto name = r->sectionName(*names, 1, (*sections)[1]);
    ASSERT_TRUE(name);
    EXPECT_EQ(*name, ".data");
    auto data = r->sectionData(1, (*sections)[1]);
    ASSERT_TRUE(data);
    ASSERT_EQ(data->size(), 16u);
    EXPECT_EQ((*data)[15], 15);
    EXPECT_TRUE(r->checkSectionsDisjoint());
    EXPECT_TRUE(r->checkProgramHeaderTable());  // none: an empty table passes
  }
}

TEST(ElfReader, TruncatedHeader) {
  auto b = file32();
  b.resize(40);
  EXPECT_EQ(openError(b, ElfClass::Elf32), "ELF header: file is 40 bytes, shorter than the 52-byte ELF32 header");
  auto c = file64();
  c.resize(63);
  EXPECT_EQ(openError(c, ElfClass::Elf64), "ELF header: file is 63 bytes, shorter than the 64-byte ELF64 header");
  EXPECT_EQ(openError({}, ElfClass::Elf64), "ELF header: file is 0 bytes, shorter than the 64-byte ELF64 header");
}

TEST(ElfReader, IdentBytes) {
  auto b = file64();
  b[1] = 'X';
  EXPECT_EQ(openError(b, ElfClass::Elf64), "ELF header: e_ident magic is not 7F 45 4C 46");
  EXPECT_EQ(openError(file64(), ElfClass::Elf32), "ELF header: e_ident[EI_CLASS] is 2, expected 1 (ELFCLASS32)");
  auto d = file32();
  d[EI_DATA] = ELFDATA2MSB;
  EXPECT_EQ(openError(d, ElfClass::Elf32), "ELF header: e_ident[EI_DATA] is 2, expected 1 (little-endian)");
  auto r = ElfReader::open(d, ElfClass::Elf32);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "e_ident");
}

TEST(ElfReader, SectionTableOutOfRange) {
  auto b = file64();
  b.resize(0x300 + 2 * sizeof(Elf64_Shdr));  // the last section header is cut off
  EXPECT_EQ(sectionTableError<Elf64_Shdr>(b, ElfClass::Elf64),
            "ELF header: the section-header table (0x300, 3 headers) lies outside the 896-byte file");
  auto r = ElfReader::open(b, ElfClass::Elf64);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->checkSectionHeaderTable().error().field, "e_shoff");
  EXPECT_FALSE(r->sectionHeaders());
  EXPECT_FALSE(r->sectionNameTable());

  auto c = file32();
  Elf32_Ehdr h;
  std::memcpy(&h, c.data(), sizeof h);
  h.e_shoff = 0xFFFFFFF0u;  // offset + size wraps in 32 bits
  put(c, 0, h);
  EXPECT_EQ(sectionTableError<Elf32_Shdr>(c, ElfClass::Elf32),
            "ELF header: the section-header table (0xfffffff0, 3 headers) lies outside the 888-byte file");
  h.e_shoff = 8;
  put(c, 0, h);
  EXPECT_EQ(sectionTableError<Elf32_Shdr>(c, ElfClass::Elf32),
            "ELF header: the section-header table overlaps the ELF header");
  h.e_shoff = 0x300;
  h.e_shentsize = 64;
  put(c, 0, h);
  EXPECT_EQ(sectionTableError<Elf32_Shdr>(c, ElfClass::Elf32), "ELF header: e_shentsize is 64, expected 40");
  h.e_shentsize = sizeof(Elf32_Shdr);
  h.e_shstrndx = 3;
  put(c, 0, h);
  EXPECT_EQ(sectionTableError<Elf32_Shdr>(c, ElfClass::Elf32), "ELF header: e_shstrndx is 3, expected below e_shnum 3");
}

TEST(ElfReader, SectionDataOutOfRange) {
  auto b = file64();
  Elf64_Shdr data;
  std::memcpy(&data, b.data() + 0x300 + sizeof data, sizeof data);
  data.sh_size = ~uint64_t(0);
  put(b, 0x300 + sizeof data, data);
  auto r = ElfReader::open(b, ElfClass::Elf64);
  ASSERT_TRUE(r);
  auto section = r->sectionHeader(1);
  auto bytes = r->sectionData(1, section);
  ASSERT_FALSE(bytes);
  EXPECT_EQ(bytes.error().message(),
            "section header 1: data 0x100+18446744073709551615 lies outside the 960-byte file");
  EXPECT_EQ(bytes.error().field, "sh_offset");
  section.type = SHT_NOBITS;  // no file bytes
  EXPECT_TRUE(r->sectionData(1, section));
}

TEST(ElfReader, OverlappingSections) {
  auto b = file32();
  Elf32_Shdr strtab;
  std::memcpy(&strtab, b.data() + 0x300 + 2 * sizeof strtab, sizeof strtab);
  strtab.sh_offset = 0x108;  // inside .data (0x100..0x110)
  put(b, 0x300 + 2 * sizeof strtab, strtab);
  auto r = ElfReader::open(b, ElfClass::Elf32);
  ASSERT_TRUE(r);
  auto disjoint = r->checkSectionsDisjoint();
  ASSERT_FALSE(disjoint);
  EXPECT_EQ(disjoint.error().message(), "section header 2: data 0x108..0x119 overlaps section header 1's 0x100..0x110");
}

TEST(ElfReader, BadStringTable) {
  // e_shstrndx names a section that is not a string table.
  auto b = file64();
  Elf64_Ehdr h;
  std::memcpy(&h, b.data(), sizeof h);
  h.e_shstrndx = 1;
  put(b, 0, h);
  auto r = ElfReader::open(b, ElfClass::Elf64);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->sectionNameTable().error().message(),
            "ELF header: e_shstrndx 1 does not name a section-name table (SHT_STRTAB), found type 1");

  // A name offset past the table, and a table without its final NUL.
  auto c = file64();
  auto reader = ElfReader::open(c, ElfClass::Elf64);
  ASSERT_TRUE(reader);
  auto names = reader->sectionNameTable();
  ASSERT_TRUE(names);
  SectionHeader s = reader->sectionHeader(1);
  s.name = 4096;
  EXPECT_EQ(reader->sectionName(*names, 1, s).error().message(),
            "section header 1: sh_name 4096 lies outside the section-name table");
  s.name = 1;
  auto cut = names->first(4);  // "\0.da"
  EXPECT_EQ(reader->sectionName(cut, 1, s).error().message(), "section header 1: section name is not NUL-terminated");
  EXPECT_EQ(ElfReader::stringAt(*names, 7), ".shstrtab");
  EXPECT_FALSE(ElfReader::stringAt(cut, 1));
  EXPECT_FALSE(ElfReader::stringAt(cut, 4));
}

TEST(ElfReader, ProgramHeaderTable) {
  auto b = file64();
  Elf64_Ehdr h;
  std::memcpy(&h, b.data(), sizeof h);
  h.e_phoff = 0x3c0;  // after the section headers
  h.e_phnum = 2;
  h.e_phentsize = sizeof(Elf64_Phdr);
  put(b, 0, h);
  Elf64_Phdr load{};
  load.p_type = PT_LOAD;
  load.p_flags = PF_R | PF_X;
  load.p_offset = 0x100;
  load.p_vaddr = 0x1100;
  load.p_filesz = 16;
  load.p_memsz = 32;
  load.p_align = 0x1000;
  put(b, 0x3c0, load);
  auto r = ElfReader::open(b, ElfClass::Elf64);
  ASSERT_TRUE(r);
  auto table = r->checkProgramHeaderTable();
  ASSERT_FALSE(table);  // two headers, one in the file
  EXPECT_EQ(table.error().message(), "ELF header: the 2 program headers end at byte 1072, past the 1016-byte file");
  EXPECT_EQ(table.error().field, "e_phoff");
  h.e_phnum = 1;
  put(b, 0, h);
  r = ElfReader::open(b, ElfClass::Elf64);
  auto headers = r->programHeaders();
  ASSERT_TRUE(headers) << headers.error().message();
  EXPECT_EQ((*headers)[0].vaddr, 0x1100u);
  EXPECT_EQ((*headers)[0].memsz, 32u);
  EXPECT_EQ((*headers)[0].flags, uint32_t(PF_R | PF_X));
  EXPECT_TRUE(r->segmentData(0, (*headers)[0]));
  h.e_phentsize = 32;
  put(b, 0, h);
  r = ElfReader::open(b, ElfClass::Elf64);
  EXPECT_EQ(r->checkProgramHeaderTable().error().message(), "ELF header: e_phentsize is 32, expected 56");
}

TEST(ElfReader, RecordsOfEachClass) {
  auto r32 = ElfReader::open(file32(), ElfClass::Elf32);
  auto r64 = ElfReader::open(file64(), ElfClass::Elf64);
  ASSERT_TRUE(r32 && r64);
  std::vector<uint8_t> t32, t64;
  Elf32_Sym s32{};
  s32.st_name = 5;
  s32.st_value = 0x40;
  s32.st_size = 8;
  s32.st_info = ELF32_ST_INFO(STB_GLOBAL, STT_OBJECT);
  s32.st_shndx = 1;
  put(t32, sizeof s32, s32);  // index 1
  Elf64_Sym s64{};
  s64.st_name = 5;
  s64.st_value = 0x1234567890;
  s64.st_size = 8;
  s64.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
  s64.st_shndx = 1;
  put(t64, sizeof s64, s64);
  Symbol a = r32->symbol(t32, 1), b = r64->symbol(t64, 1);
  EXPECT_EQ(a.name, 5u);
  EXPECT_EQ(a.value, 0x40u);
  EXPECT_EQ(a.type(), STT_OBJECT);
  EXPECT_EQ(b.value, 0x1234567890u);
  EXPECT_EQ(b.shndx, 1);

  std::vector<uint8_t> rel32, rel64;
  put(rel32, 0, Elf32_Rela{0x10, ELF32_R_INFO(3, 7), -8});
  put(rel64, 0, Elf64_Rela{0x10, ELF64_R_INFO(3, 13), -8});
  Relocation x = r32->relocation(rel32, 0), y = r64->relocation(rel64, 0);
  EXPECT_EQ(x.symbol, 3u);
  EXPECT_EQ(x.type, 7u);
  EXPECT_EQ(x.addend, -8);  // sign-extended from 32 bits
  EXPECT_EQ(y.symbol, 3u);
  EXPECT_EQ(y.type, 13u);
  EXPECT_EQ(y.addend, -8);

  std::vector<uint8_t> dyn32;
  Elf32_Dyn d{};
  d.d_tag = DT_NEEDED;
  d.d_un.d_val = 9;
  put(dyn32, 0, d);
  EXPECT_EQ(r32->dynamicEntry(dyn32, 0).tag, DT_NEEDED);
  EXPECT_EQ(r32->dynamicEntry(dyn32, 0).value, 9u);
  EXPECT_EQ(recordSizes(ElfClass::Elf32).compression, 12u);
  EXPECT_EQ(recordSizes(ElfClass::Elf64).compression, 24u);
}

TEST(ElfReader, Notes) {
  std::vector<uint8_t> n;
  put(n, 0, Elf64_Nhdr{7, 3, 32});
  n.resize(12 + 8 + 4, 0);
  std::memcpy(n.data() + 12, "AMDGPU", 7);
  n[20] = 1, n[21] = 2, n[22] = 3;
  auto notes = ElfReader::notes(n, "program header 3 (PT_NOTE)");
  ASSERT_TRUE(notes);
  ASSERT_EQ(notes->size(), 1u);
  EXPECT_EQ((*notes)[0].type, 32u);
  EXPECT_EQ((*notes)[0].desc.size(), 3u);
  n.resize(22);  // the descriptor runs past the segment
  EXPECT_EQ(ElfReader::notes(n, "program header 3 (PT_NOTE)").error().message(),
            "program header 3 (PT_NOTE): a note runs past the segment");
}

TEST(ElfReader, CompressedSections) {
  auto r = ElfReader::open(file32(), ElfClass::Elf32);
  ASSERT_TRUE(r);
  hrx::format::detail::PayloadBudget budget;
  std::vector<uint8_t> shortHeader(8, 0);
  EXPECT_EQ(r->sectionContents(shortHeader, true, "section .hrx.x", budget).error().message(),
            "section .hrx.x: compressed section is shorter than its 12-byte header");
  std::vector<uint8_t> zlib;
  put(zlib, 0, Elf32_Chdr{ELFCOMPRESS_ZLIB, 4, 1});
  EXPECT_EQ(r->sectionContents(zlib, true, "section .hrx.x", budget).error().message(),
            "section .hrx.x: ch_type 1, expected 2 (ELFCOMPRESS_ZSTD)");
  std::vector<uint8_t> raw = {1, 2, 3};
  auto plain = r->sectionContents(raw, false, "section .hrx.y", budget);
  ASSERT_TRUE(plain);
  EXPECT_EQ(*plain, raw);
}

}  // namespace
