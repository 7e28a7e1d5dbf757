#include "hrx/format/Elf64Sections.h"

#include "hrx/format/ElfReader.h"

#include "hrx/support/Text.h"

#include "Bytes.h"

#include <elf.h>

#include <algorithm>
#include <sstream>

namespace hrx::format {
using namespace detail;

// The public header spells these without <elf.h> (its macros stay out of users' code).
static_assert(kMachineAmdgpu == EM_AMDGPU && kMachineX86_64 == EM_X86_64 && kElfTypeShared == ET_DYN);
using text::num;  // hrx/support/Text.h

namespace {

Status bad(const std::string &what) { return Status(StatusCode::InvalidArgument, "ELF64: " + what); }
// Header problems name their field; the rest say where, as the .xdna reader's do.
Status bad(const elf::ElfError &e) { return bad(e.where == "ELF header" ? e.what : e.message()); }

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
  auto reader = elf::ElfReader::open(b, elf::ElfClass::Elf64);
  if (!reader) return bad(reader.error());
  const elf::FileHeader &h = reader->header();
  if (h.shoff == 0 || h.shnum == 0) return bad("the file has no section headers");
  auto names = reader->sectionNameTable();
  if (!names) return bad(names.error());
  Elf64File file;
  file.type = h.type;
  file.machine = h.machine;
  file.osAbi = h.osAbi();
  file.abiVersion = h.abiVersion();
  file.flags = h.flags;
  PayloadBudget budget;
  for (uint32_t i = 0; i < h.shnum; ++i) {
    elf::SectionHeader s = reader->sectionHeader(i);
    auto data = reader->sectionData(i, s);
    if (!data) return bad(data.error());
    std::string name;
    if (i != 0) {
      auto found = reader->sectionName(*names, i, s);
      if (!found) return bad(found.error());
      name = *found;
    }
    SectionInfo info{name, s.type, s.flags, s.offset, s.type == SHT_NOBITS ? 0 : s.size};
    if (name.starts_with(".hrx.")) {
      if (file.section(name)) return bad("section header " + num(i) + ": section " + name + " appears twice");
      bool compressed = (info.flags & kSectionCompressed) != 0;
      auto contents = reader->sectionContents(*data, compressed, "section " + name, budget);
      if (!contents) return bad(contents.error());
      file.hrxSections.push_back({name, std::move(*contents), compressed});
    }
    file.sections.push_back(std::move(info));
  }
  return file;
}

}  // namespace hrx::format
