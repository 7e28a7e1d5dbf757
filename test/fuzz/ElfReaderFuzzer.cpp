// The runtime's one ELF reader (hrx/format/ElfReader.h) in both classes, walking everything it
// reads: header tables, segments and their notes, sections, names, symbol, relocation and
// dynamic tables, compressed contents; then the host-code validator built on it. The first
// byte picks the class.
#include "hrx/format/ElfReader.h"
#include "hrx/runtime/HostDevice.h"

#include "Bytes.h"

#include <elf.h>

#include <cstddef>
#include <cstdint>

using namespace hrx::format::elf;

namespace {

void walk(std::span<const uint8_t> bytes, ElfClass elfClass) {
  auto reader = ElfReader::open(bytes, elfClass);
  if (!reader) return;
  const RecordSizes &sizes = reader->sizes();
  if (auto segments = reader->programHeaders()) {
    for (uint32_t i = 0; i < segments->size(); ++i) {
      auto data = reader->segmentData(i, (*segments)[i]);
      if (data && (*segments)[i].type == PT_NOTE) (void)ElfReader::notes(*data, "note");
    }
  }
  auto sections = reader->sectionHeaders();
  if (!sections) return;
  (void)reader->checkSectionsDisjoint();
  auto names = reader->sectionNameTable();
  hrx::format::detail::PayloadBudget budget;
  for (uint32_t i = 0; i < sections->size(); ++i) {
    const SectionHeader &s = (*sections)[i];
    if (names) (void)reader->sectionName(*names, i, s);
    auto data = reader->sectionData(i, s);
    if (!data) continue;
    (void)reader->sectionContents(*data, (s.flags & SHF_COMPRESSED) != 0, "section", budget);
    uint64_t record = s.type == SHT_SYMTAB || s.type == SHT_DYNSYM ? sizes.symbol
                      : s.type == SHT_RELA                         ? sizes.relocation
                      : s.type == SHT_DYNAMIC                      ? sizes.dynamic
                                                                   : 0;
    for (uint64_t k = 0; record && k < data->size() / record; ++k) {
      if (record == sizes.symbol) (void)ElfReader::stringAt(*data, reader->symbol(*data, k).name);
      if (record == sizes.relocation) (void)reader->relocation(*data, k);
      if (record == sizes.dynamic) (void)reader->dynamicEntry(*data, k);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  std::span<const uint8_t> bytes(data + 1, size - 1);
  walk(bytes, (data[0] & 1) ? ElfClass::Elf64 : ElfClass::Elf32);
  if (data[0] & 2) (void)hrx::runtime::validateHostCode(std::as_bytes(bytes), "fuzz.so");  // never loads it
  return 0;
}
