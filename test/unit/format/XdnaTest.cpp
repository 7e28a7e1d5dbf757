#include "Samples.h"
#include "hrx/format/XdnaWriter.h"

#include <gtest/gtest.h>

#include <functional>

using namespace hrx::format;
using namespace hrx::format::xdna;

namespace {

std::vector<uint8_t> sampleBytes() {
  auto bytes = writeImage(samples::copyImage());
  EXPECT_TRUE(bytes.isOk()) << bytes.status().message();
  return bytes.isOk() ? bytes.value() : std::vector<uint8_t>{};
}

void put(std::vector<uint8_t> &b, size_t offset, uint64_t value, unsigned width) {
  for (unsigned i = 0; i < width; ++i) b[offset + i] = uint8_t(value >> (8 * i));
}
uint32_t get32(const std::vector<uint8_t> &b, size_t offset) {
  return uint32_t(b[offset]) | uint32_t(b[offset + 1]) << 8 | uint32_t(b[offset + 2]) << 16 |
         uint32_t(b[offset + 3]) << 24;
}

// Offsets inside the sample: program header i, and metadata rows.
size_t ph(size_t i) { return 52 + 32 * i; }
struct Md {
  size_t base;
  size_t alloc(size_t i) const { return base + 64 + 32 * i; }
  size_t use(size_t i) const { return base + 64 + 2 * 32 + 4 * i; }
  size_t entry(size_t i) const { return use(2) + 48 * i; }
  size_t binding(size_t i) const { return entry(1) + 40 * i; }
  size_t reloc(size_t i) const { return binding(2) + 48 * i; }
  size_t invocation(size_t i) const { return reloc(3) + 16 * i; }
};

std::string errorAfter(const std::function<void(std::vector<uint8_t> &, const Md &)> &mutate) {
  std::vector<uint8_t> bytes = sampleBytes();
  Md md{get32(bytes, ph(0) + 4)};
  mutate(bytes, md);
  auto image = readImage(bytes);
  return image.isOk() ? "OK" : image.status().message();
}

TEST(Xdna, RoundTrip) {
  std::vector<uint8_t> bytes = sampleBytes();
  auto image = readImage(bytes);
  ASSERT_TRUE(image.isOk()) << image.status().message();
  EXPECT_EQ(image->entries.size(), 1u);
  EXPECT_EQ(image->entries[0].name, "copy");
  EXPECT_EQ(image->allocations[0].firstLoad, 1u);
  EXPECT_EQ(image->allocations[1].firstLoad, 2u);
  ASSERT_NE(image->section(kHostSection), nullptr);
  EXPECT_EQ(image->section(kHostSection)->bytes, samples::hostObject());
  EXPECT_TRUE(image->section(kHostSection)->compress);
  // Writing what was read gives the same bytes (determinism).
  auto again = writeImage(image.value());
  ASSERT_TRUE(again.isOk());
  EXPECT_EQ(again.value(), bytes);
  EXPECT_TRUE(checkAdmission(image.value(), kStrixHalo, 1).isOk());
}

TEST(Xdna, HeaderBytes) {
  std::vector<uint8_t> b = sampleBytes();
  EXPECT_EQ(std::vector<uint8_t>(b.begin(), b.begin() + 8), (std::vector<uint8_t>{0x7F, 'E', 'L', 'F', 1, 1, 1, 0}));
  EXPECT_EQ(b[18] | b[19] << 8, 264);
  EXPECT_EQ(get32(b, 36), 3u);
  EXPECT_EQ(get32(b, ph(0)), 0x6C584408u);
  size_t md = get32(b, ph(0) + 4);
  EXPECT_EQ(get32(b, md), 0x414E4458u);
  EXPECT_EQ(b[md + 4] | b[md + 5] << 8, 2);
  EXPECT_EQ(get32(b, md + 16), 0x414C4F0001u & 0xFFFFFFFFu);
  EXPECT_EQ(get32(b, md + 20), 0x53584841u);
}

TEST(Xdna, Admission) {
  auto image = readImage(sampleBytes());
  ASSERT_TRUE(image.isOk());
  EXPECT_EQ(checkAdmission(image.value(), kStrixHalo, 2).toString(),
            "FAILED_PRECONDITION: XDNA image does not match the admitted native context: the image needs 1 columns, "
            "the context has 2");
  DeviceProfile strix = kStrixHalo;
  strix.id = 0x5354524958000001ull;
  EXPECT_EQ(checkAdmission(image.value(), strix, 1).message(),
            "XDNA image does not match the admitted native context: device profile 0x535848414c4f0001 revision 1, the "
            "device is "
            "0x5354524958000001 revision 1 (amd.xdna.strix_halo.17f0_11)");
}

TEST(Xdna, ElfEnvelope) {
  EXPECT_EQ(errorAfter([](auto &b, auto &) { b.resize(40); }),
            "XDNA image: ELF header: file is 40 bytes, shorter than the 52-byte ELF32 header");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { b[1] = 'X'; }),
            "XDNA image: ELF header: e_ident magic is not 7F 45 4C 46");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { b[4] = 2; }),
            "XDNA image: ELF header: e_ident[EI_CLASS] is 2, expected 1 (ELFCLASS32)");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { b[5] = 2; }),
            "XDNA image: ELF header: e_ident[EI_DATA] is 2, expected 1 (little-endian)");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { b[12] = 1; }),
            "XDNA image: ELF header: e_ident padding byte 12 is 1, expected 0");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, 16, 1, 2); }),
            "XDNA image: ELF header: e_type is 1, expected 2 (ET_EXEC)");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, 18, 62, 2); }),
            "XDNA image: ELF header: e_machine is 62, expected 264 (EM_AIE)");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, 24, 4, 4); }),
            "XDNA image: ELF header: e_entry is 4, expected 0 (images have no entry address)");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, 28, 64, 4); }),
            "XDNA image: ELF header: e_phoff is 64, expected 52 (program headers follow the ELF header)");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, 36, 2, 4); }),
            "XDNA image: ELF header: e_flags is 2, expected 3 (AIE2P)");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, 42, 56, 2); }),
            "XDNA image: ELF header: e_phentsize is 56, expected 32 (Elf32_Phdr size)");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, 44, 0, 2); }),
            "XDNA image: ELF header: e_phnum is 0, expected 1..4096");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, 44, 4096, 2); }).substr(0, 50),
            "XDNA image: ELF header: the 4096 program headers e");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, 32, 6, 4); }),
            "XDNA image: ELF header: e_shoff is 6, expected a nonzero multiple of 4 when section headers are present");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, 46, 64, 2); }),
            "XDNA image: ELF header: e_shentsize is 64, expected 40 (Elf32_Shdr size)");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, 50, 40, 2); }),
            "XDNA image: ELF header: e_shstrndx is 40, expected below e_shnum 6");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, 32, 52, 4); }),
            "XDNA image: ELF header: the section-header table overlaps the ELF header or the program-header table");
  // No section headers at all is fine: they are diagnostic only.
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, 32, 0, 4), put(b, 46, 0, 2), put(b, 48, 0, 2), put(b, 50, 0, 2); }),
            "OK");
}

TEST(Xdna, ProgramHeaders) {
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, ph(1) + 24, 8 | 4, 4); }),
            "XDNA image: program header 1: unknown permission flags 0xc");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, ph(1) + 28, 3, 4); }),
            "XDNA image: program header 1: p_align 3 is not a nonzero power of two");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, ph(2) + 4, 0x2d4, 4), put(b, ph(2) + 8, 1, 4); }),
            "XDNA image: program header 2: p_offset 0x2d4 and p_vaddr 0x1 differ modulo p_align 4");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, ph(2) + 16, 300, 4); }),
            "XDNA image: program header 2: p_filesz 300 exceeds p_memsz 256");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, ph(2) + 4, 0xFFFFFFF0, 4); }),
            "XDNA image: program header 2: file range 0xfffffff0..0x100000030 lies outside the " +
                std::to_string(sampleBytes().size()) + "-byte file");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, ph(2) + 4, 32, 4); }),
            "XDNA image: program header 2: file range overlaps the ELF header");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, ph(2) + 4, 64, 4); }),
            "XDNA image: program header 2: file range overlaps the program-header table");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, ph(2) + 4, get32(b, 32), 4); }),
            "XDNA image: program header 2: file range overlaps the section-header table");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, ph(2) + 4, get32(b, ph(1) + 4) + 4, 4); }),
            "XDNA image: program header 2: file range partially overlaps program header 1 (ranges must be identical or "
            "disjoint)");
  // An exact alias is allowed: one payload initialises both allocations.
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, ph(2) + 4, get32(b, ph(1) + 4), 4), put(b, ph(2) + 16, 128, 4); }),
            "OK");
}

TEST(Xdna, MetadataSegment) {
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, ph(0), 1, 4); }),
            "XDNA image: program header 0: XDNA header zero must contain bounded metadata (p_type is 0x1, expected "
            "0x6c584408)");
  EXPECT_EQ(
      errorAfter([](auto &b, auto &) { put(b, ph(0) + 24, 6, 4); }),
      "XDNA image: program header 0: XDNA header zero must contain bounded metadata (p_flags is 6, expected 4 (R))");
  EXPECT_EQ(
      errorAfter([](auto &b, auto &) { put(b, ph(0) + 8, 8, 4); }),
      "XDNA image: program header 0: XDNA header zero must contain bounded metadata (p_vaddr and p_paddr must be 0)");
  EXPECT_EQ(
      errorAfter([](auto &b, auto &) { put(b, ph(0) + 20, get32(b, ph(0) + 20) + 8, 4); }),
      "XDNA image: program header 0: XDNA header zero must contain bounded metadata (p_memsz must equal p_filesz)");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, ph(0) + 16, 32, 4), put(b, ph(0) + 20, 32, 4); }),
            "XDNA image: program header 0: XDNA header zero must contain bounded metadata (size 32 is outside "
            "64..16777216 bytes)");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.base, 0x41414141, 4); }),
            "XDNA image: metadata header.magic: 0x41414141, expected 0x414e4458 (\"XDNA\")");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.base + 4, 1, 2); }),
            "XDNA image: metadata header.version: 0x1, expected 0x2 (metadata version 2)");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.base + 6, 2, 2); }),
            "XDNA image: metadata header.native_encoding: 0x2, expected 0x1 (AIE transaction format 0.1)");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.base + 8, 2, 4); }),
            "XDNA image: metadata header.target_generation: 0x2, expected 0x3 (AIE2P)");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.base + 32, 9, 2); }),
            "XDNA image: metadata header.column_count: 9, expected 1..8");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.base + 34, 5, 2); }),
            "XDNA image: metadata header.row_count: 0x5, expected 0x6 (shim + memory-tile + 4 compute rows)");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.base + 48, 70000, 4); }),
            "XDNA image: metadata header.binding_count: 70000 exceeds the 65535-row limit");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.base + 60, 5, 4); }),
            "XDNA image: metadata header: the tables and 5 name bytes need 445 bytes, the METADATA segment holds 444");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.base + 44, 0, 4), put(b, m.base + 60, 52, 4); }),
            "XDNA image: metadata header: no executable storage or entries (allocation_count 2, entry_count 0)");
}

TEST(Xdna, Allocations) {
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.alloc(1), 3, 4); }),
            "XDNA image: metadata allocation[1].domain: 3, expected 1 (COMMAND) or 2 (DMA)");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.alloc(1) + 4, 3, 4); }),
            "XDNA image: metadata allocation[1].flags: 3, expected 0, 1 (IMMUTABLE) or 2 (DEVICE_WRITE)");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.alloc(1) + 8, 0, 8); }),
            "XDNA image: metadata allocation[1].byte_length: must be nonzero");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.alloc(1) + 16, 48, 8); }),
            "XDNA image: metadata allocation[1].alignment: 48 is not a power of two");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.alloc(1) + 24, 1, 4); }),
            "XDNA image: metadata allocation[1].first_load: 1, expected 2");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.alloc(1) + 28, 2, 4); }),
            "XDNA image: metadata allocation[1].load_count: 2 loads from header 2 exceed the 3 program headers");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.alloc(1) + 28, 0, 4); }),
            "XDNA image: program header 2: unowned load headers (no allocation claims headers 2..2)");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.alloc(1) + 8, 128, 8); }),
            "XDNA image: program header 2: load 0x0+256 exceeds allocation 1's 128 bytes");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, ph(2), 2, 4); }),
            "XDNA image: program header 2: p_type 0x2, expected 1 (PT_LOAD)");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, ph(2) + 24, 6, 4); }),
            "XDNA image: program header 2: p_flags 6, expected 4 (R only)");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, ph(2) + 12, 0, 4); }),
            "XDNA image: program header 2: p_paddr 0 but allocation 1 owns it (loads are grouped by allocation)");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, ph(2) + 16, 0, 4), put(b, ph(2) + 20, 0, 4); }),
            "XDNA image: program header 2: p_memsz must be nonzero");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.use(1), 2, 4); }),
            "XDNA image: metadata allocation_use[1]: allocation 2, expected below allocation_count 2");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.use(1), 0, 4); }),
            "XDNA image: metadata allocation_use[1]: uses of entry 'copy' must be unique and strictly increasing");
}

TEST(Xdna, Entries) {
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.entry(0) + 4, 0, 4); }),
            "XDNA image: metadata entry[0].name_length: 0, expected 1..4096");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.entry(0), 2, 4); }),
            "XDNA image: metadata entry[0].name_offset: name 2+4 lies outside the 4 name bytes");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.entry(0) + 12, 0, 4); }),
            "XDNA image: metadata entry[0] 'copy'.allocation_use_count: must be nonzero");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.entry(0) + 12, 1, 4); }),
            "XDNA image: metadata allocation_use table contains unowned rows (1...1)");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.entry(0) + 16, 1, 4); }),
            "XDNA image: metadata entry[0] 'copy'.first_binding: 1, expected 0 (entries consume tables in order)");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.entry(0) + 20, 3, 4); }),
            "XDNA image: metadata entry[0] 'copy'.binding_count: 0+3 exceeds the table's 2 rows");
  EXPECT_EQ(
      errorAfter([](auto &b, const Md &m) { put(b, m.entry(0) + 32, 0, 4); }),
      "XDNA image: metadata entry[0] 'copy'.first_dynamic_relocation: 0, expected 1 (entries consume tables in order)");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.entry(0) + 44, 0, 4); }),
            "XDNA image: metadata entry[0] 'copy'.invocation_count: must be nonzero");
}

TEST(Xdna, Bindings) {
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.binding(0) + 2, 0, 2); }),
            "XDNA image: metadata binding[0].address_space: 0, expected 1 (GLOBAL) or 2 (HOST)");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.binding(0) + 4, 0, 2); }),
            "XDNA image: metadata binding[0].access: 0, expected READ (1), WRITE (2) or both");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.binding(0) + 4, 5, 2); }),
            "XDNA image: metadata binding[0].access: 5, expected READ (1), WRITE (2) or both");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.binding(0) + 6, 16, 2); }),
            "XDNA image: metadata binding[0].usage: unknown usage bits in 0x10");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.binding(0) + 16, 6, 8); }),
            "XDNA image: metadata binding[0].minimum_alignment: 6 is not a power of two");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.binding(0) + 24, 10, 8), put(b, m.binding(0) + 32, 9, 8); }),
            "XDNA image: metadata binding[0].minimum_byte_offset: 10 exceeds maximum_byte_offset 9");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.binding(0), 2, 2); }),
            "XDNA image: metadata binding[0].kind: 2, expected 0 (NONE) or 1 (BUFFER)");
  // A NONE row must be all zero...
  EXPECT_EQ(
      errorAfter([](auto &b, const Md &m) { put(b, m.binding(0), 0, 2); }),
      "XDNA image: metadata binding[0].address_space: invalid unused XDNA binding 0 (a NONE row must be all zero)");
  // ...and no dynamic relocation may take its address (the unused-middle-binding rule).
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) {
              for (unsigned i = 0; i < 40; ++i) b[m.binding(0) + i] = 0;
            }),
            "XDNA image: metadata relocation[1] (dynamic, entry 'copy').source_ordinal: XDNA dynamic relocation "
            "sources unused binding 0");
}

TEST(Xdna, Relocations) {
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.reloc(0) + 12, 2, 4); }),
            "XDNA image: metadata relocation[0] (static, entry 'copy').kind: 2, expected 1 (SHIM_ADDRESS)");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.reloc(0), 2, 4); }),
            "XDNA image: metadata relocation[0] (static, entry 'copy').destination_use: 2, expected below the entry's "
            "2 allocation uses");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.reloc(0) + 32, uint64_t(1) << 48, 8); }),
            "XDNA image: metadata relocation[0] (static, entry 'copy').maximum_value: 0x1000000000000 exceeds 2^48-1");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.reloc(0) + 40, 2, 8); }),
            "XDNA image: metadata relocation[0] (static, entry 'copy').alignment: 2, expected a power of two >= 4");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.reloc(0) + 8, 124, 4); }),
            "XDNA image: metadata relocation[0] (static, entry 'copy').byte_offset: 0x7c+8 lies outside allocation 0's "
            "128 bytes");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.reloc(0) + 4, 0, 4); }),
            "XDNA image: metadata relocation[0] (static, entry 'copy').source_ordinal: static relocation sources must "
            "be DMA-domain allocations");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.reloc(2) + 4, 2, 4); }),
            "XDNA image: metadata relocation[2] (dynamic, entry 'copy').source_ordinal: 2, expected a binding ordinal "
            "below 2");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.reloc(2) + 8, 84, 4); }),
            "XDNA image: metadata relocation[2] (dynamic, entry 'copy'): relocations must be sorted by "
            "(destination_use, byte_offset) without overlap");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.reloc(1) + 8, 28, 4); }),
            "XDNA image: metadata relocation[1]: dynamic relocation overlaps static relocation 0 of entry 'copy'");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.alloc(0) + 4, 1, 4); }),
            "XDNA image: metadata relocation[1] (dynamic, entry 'copy').destination_use: dynamic relocations cannot "
            "patch IMMUTABLE allocation 0");
  // Initialised coverage: shrink the command load so the repeat relocation is not covered.
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, ph(1) + 16, 96, 4), put(b, ph(1) + 20, 96, 4); }),
            "XDNA image: metadata relocation[2] (dynamic, entry 'copy').byte_offset: 0x68+8 is not covered by "
            "initialised load bytes of allocation 0");
}

TEST(Xdna, Invocations) {
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.invocation(0), 1, 4); }),
            "XDNA image: metadata invocation[0] (entry 'copy').allocation_use: allocation 1 is not a COMMAND-domain "
            "allocation");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.invocation(0) + 4, 2, 4); }),
            "XDNA image: metadata invocation[0] (entry 'copy').byte_offset: 2 is not a multiple of the instruction "
            "alignment 4");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.invocation(0) + 8, 62, 4); }),
            "XDNA image: metadata invocation[0] (entry 'copy').byte_length: 62, expected a nonzero multiple of 4");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.invocation(1) + 8, 128, 4); }),
            "XDNA image: metadata invocation[1] (entry 'copy').byte_length: command range lies outside allocation 0");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.invocation(0) + 12, 2, 4); }),
            "XDNA image: metadata invocation[0] (entry 'copy').next_invocation: 2, expected below invocation_count 2");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.invocation(1) + 12, 0, 4); }),
            "XDNA image: metadata invocation[0]: entry 'copy' must follow the invocation protocol 0 -> 1 -> 1 (two "
            "invocations) or 0 -> 0 (one self-contained range)");
  EXPECT_EQ(errorAfter([](auto &b, const Md &m) { put(b, m.alloc(0) + 16, 2, 8); }),
            "XDNA image: metadata allocation[0].alignment: 2 is below the instruction alignment 4");
  EXPECT_EQ(errorAfter([](auto &b, auto &) { put(b, get32(b, ph(1) + 4) + 4, 2, 1); }),
            "XDNA image: metadata invocation[0] (entry 'copy'): transaction header: columns 2, expected 1 (the image's "
            "column_count)");
  EXPECT_EQ(
      errorAfter([](auto &b, auto &) { put(b, get32(b, ph(1) + 4) + 12, 60, 4); }),
      "XDNA image: metadata invocation[0] (entry 'copy').byte_length: 64 but the transaction header declares 60 bytes");
}

TEST(Xdna, Sections) {
  // Corrupt the compressed host section's zstd frame.
  std::vector<uint8_t> bytes = sampleBytes();
  uint32_t shoff = get32(bytes, 32);
  // Section headers: 0 null, 1 .xdna.metadata, 2 contract, 3 plan, 4 host, 5 .shstrtab... (7 total with the strtab last)
  size_t host = shoff + 40 * 4;
  uint32_t offset = get32(bytes, host + 16);
  bytes[offset + 12 + 4] ^= 0xFF;
  auto image = readImage(bytes);
  ASSERT_FALSE(image.isOk());
  EXPECT_EQ(image.status().message().substr(0, 56), "XDNA image: section .hrx.host: zstd payload is corrupt (");
  bytes = sampleBytes();
  put(bytes, offset + 4, 1u << 30, 4);
  EXPECT_EQ(readImage(bytes).status().message(),
            "XDNA image: section .hrx.host: section payloads exceed 536870912 bytes in total");
  bytes = sampleBytes();
  put(bytes, host + 20, 0xFFFFFF, 4);
  EXPECT_EQ(readImage(bytes).status().message().substr(0, 35), "XDNA image: section header 4: data ");
}

TEST(Xdna, AliasedLoadsAreBounded) {
  // One 128 KiB payload, then 2100 zero-filled loads rewritten to alias it: the reader would
  // copy 275 MB from a 200 KB file. It refuses instead.
  constexpr uint32_t kChunk = 128 * 1024;
  Image image = samples::copyImage();
  image.allocations[1].byteLength = 2101ull * kChunk;
  image.loads.back() = {1, 0, std::vector<uint8_t>(kChunk, 1), kChunk};
  for (uint32_t i = 1; i <= 2100; ++i) image.loads.push_back({1, uint64_t(i) * kChunk, {}, kChunk});
  auto written = writeImage(image);
  ASSERT_TRUE(written.isOk()) << written.status().message();
  std::vector<uint8_t> bytes = written.value();
  uint32_t payload = get32(bytes, ph(2) + 4);
  for (size_t h = 3; h < 3 + 2100; ++h) put(bytes, ph(h) + 4, payload, 4), put(bytes, ph(h) + 16, kChunk, 4);
  EXPECT_EQ(readImage(bytes).status().message(), "XDNA image: program header 2049: loads carry more than 268435456 "
                                                 "payload bytes in total (aliases count once per load)");
}

TEST(Xdna, TruncationAtEveryBoundaryIsRejected) {
  std::vector<uint8_t> bytes = sampleBytes();
  for (size_t size = 0; size < bytes.size(); size += 8) {
    auto image = readImage(std::span(bytes.data(), size));
    EXPECT_FALSE(image.isOk()) << "accepted a " << size << "-byte prefix";
  }
}

TEST(Xdna, WriterRefusesInvalidImages) {
  Image image = samples::copyImage();
  image.invocations[1].nextInvocation = 0;
  auto bytes = writeImage(image);
  ASSERT_FALSE(bytes.isOk());
  EXPECT_EQ(bytes.status().message().substr(0, 40), "XDNA writer refused an invalid image: XD");
  // At most 5 bindings per entry (the ERT command record's limit).
  image = samples::copyImage();
  image.entries[0].bindingCount = 6;
  image.bindings.resize(6, Binding::buffer(kAccessRead, 4, 4));
  EXPECT_EQ(writeImage(image).status().message(), "XDNA writer refused an invalid image: XDNA image: metadata entry[0] "
                                                  "'copy'.binding_count: 6 bindings, an NPU command carries at most 5");
}

TEST(Xdna, ShimAddressPatchKeepsControlBits) {
  uint8_t field[8] = {0x01, 0, 0, 0, 0, 0, 0xA5, 0xA5};
  Relocation r;
  r.addend = 0x10;
  ASSERT_TRUE(applyShimAddress(std::span<uint8_t, 8>(field), 0x123456789000ull, r).isOk());
  EXPECT_EQ(std::vector<uint8_t>(field, field + 8),
            (std::vector<uint8_t>{0x11, 0x90, 0x78, 0x56, 0x34, 0x12, 0xA5, 0xA5}));
  r.alignment = 64;
  EXPECT_EQ(applyShimAddress(std::span<uint8_t, 8>(field), 0x1000, r).message(),
            "SHIM_ADDRESS 0x1010 is not aligned to 64");
  r.alignment = 4;
  r.maximumValue = 0xFFF;
  EXPECT_EQ(applyShimAddress(std::span<uint8_t, 8>(field), 0x1000, r).message(),
            "SHIM_ADDRESS 0x1010 lies outside [0x0, 0xfff]");
}

}  // namespace

// An allocation may be initialised by many back-to-back loads; coverage follows the chain (one
// binary search per query, so validation stays linear however the loads are split) and a
// one-byte gap anywhere in a command range is found.
TEST(Xdna, CoverageAcrossSplitLoads) {
  Image image = samples::copyImage();
  ASSERT_EQ(image.loads[0].allocation, 0u);
  const Load whole = image.loads[0];
  std::vector<Load> split;
  for (uint64_t at = 0; at < whole.memoryBytes; at += 4) {
    uint64_t fileBytes = at < whole.bytes.size() ? std::min<uint64_t>(4, whole.bytes.size() - at) : 0;
    split.push_back({0, at, {whole.bytes.begin() + at, whole.bytes.begin() + at + fileBytes}, 4});
  }
  image.loads.erase(image.loads.begin());
  image.loads.insert(image.loads.begin(), split.begin(), split.end());
  auto bytes = writeImage(image);
  ASSERT_TRUE(bytes.isOk()) << bytes.status().message();
  auto read = readImage(*bytes);
  ASSERT_TRUE(read.isOk()) << read.status().message();
  EXPECT_EQ(read->loads.size(), image.loads.size());

  Image gap = image;
  gap.loads.erase(gap.loads.begin() + 20);  // bytes 80..83 of the second command range
  auto refused = writeImage(gap);
  ASSERT_FALSE(refused.isOk());
  EXPECT_NE(refused.status().message().find("is not fully initialised by the loads of allocation 0"), std::string::npos)
      << refused.status().message();
}
