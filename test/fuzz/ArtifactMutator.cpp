// hrx-artifact-mutate: the hostile-artifact test for AMDGPU code objects (HSACO with .hrx.*
// sections) and fat containers (LLVM offload binaries). For each valid input artifact it
// derives deterministic mutants: every field of the ELF64 header, every program header, every
// section header and every compression header; every field of every offload binary's header,
// entry and string rows (and of the HSACO inside it); renamed .hrx.* sections; every padding
// byte; and every truncation at a 64-byte boundary. Each mutant goes through the runtime's
// loader (format::readArtifact, then runtime::listEntries) and must either be rejected with an
// error message or load to exactly the original's meaning (docs/SECURITY.md, "Hostile
// artifacts", lists what the meaning covers and the fields it does not).
//
//   hrx-artifact-mutate [--verbose] [--known=FILE] ARTIFACT...
//
// Prints one summary line per artifact and one FAIL line per mutant that was accepted with a
// different meaning; exits 1 when there is any. A crash is a failure of the process itself.
// --known names a file of glob patterns (one per line, '#' comments) over mutant descriptions:
// loader gaps that are reported and not yet closed. Their mutants are counted as "known gaps",
// not failures, and a pattern that no longer matches anything is pointed out.
#include "hrx/format/Artifact.h"
#include "hrx/format/Fat.h"
#include "hrx/format/XdnaWriter.h"
#include "hrx/runtime/Loader.h"

#include <nlohmann/json.hpp>

#include <fnmatch.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

using namespace hrx;

namespace {

using Bytes = std::vector<uint8_t>;

uint64_t readLe(const Bytes &b, size_t at, unsigned width) {
  uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i) v |= uint64_t(b[at + i]) << (8 * i);
  return v;
}

void writeLe(Bytes &b, size_t at, unsigned width, uint64_t v) {
  for (unsigned i = 0; i < width; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

// One integer field of the file's structure.
struct Field {
  std::string name;
  size_t offset;
  unsigned width;  // bytes, 1 to 8
};

struct Layout {
  std::vector<Field> fields;
  std::vector<std::pair<std::string, size_t>> hrxNames;  // .hrx.* section name, offset of its last letter
  std::vector<bool> covered;                             // bytes some header, table or payload owns
  std::vector<size_t> memberEnds;                        // fat containers: where each member ends
};

void cover(Layout &layout, uint64_t offset, uint64_t size) {
  for (uint64_t i = offset; i < offset + size && i < layout.covered.size(); ++i) layout.covered[i] = true;
}

void addFields(Layout &layout, const std::string &prefix, size_t base,
               std::initializer_list<std::pair<const char *, unsigned>> fields) {
  size_t at = base;
  for (const auto &[name, width] : fields) {
    layout.fields.push_back({prefix + name, at, width});
    at += width;
  }
}

// The structure of a valid ELF64 file at `base` (a whole HSACO, or a fat member's image).
void describeElf64(const Bytes &b, size_t base, const std::string &prefix, Layout &layout) {
  auto at = [&](size_t offset, unsigned width) { return readLe(b, base + offset, width); };
  addFields(layout, prefix, base,
            {{"e_ident[EI_MAG0]", 1},
             {"e_ident[EI_MAG1]", 1},
             {"e_ident[EI_MAG2]", 1},
             {"e_ident[EI_MAG3]", 1},
             {"e_ident[EI_CLASS]", 1},
             {"e_ident[EI_DATA]", 1},
             {"e_ident[EI_VERSION]", 1},
             {"e_ident[EI_OSABI]", 1},
             {"e_ident[EI_ABIVERSION]", 1},
             {"e_ident[EI_PAD]", 7},
             {"e_type", 2},
             {"e_machine", 2},
             {"e_version", 4},
             {"e_entry", 8},
             {"e_phoff", 8},
             {"e_shoff", 8},
             {"e_flags", 4},
             {"e_ehsize", 2},
             {"e_phentsize", 2},
             {"e_phnum", 2},
             {"e_shentsize", 2},
             {"e_shnum", 2},
             {"e_shstrndx", 2}});
  cover(layout, base, 64);
  uint64_t phoff = at(32, 8), phnum = at(56, 2), shoff = at(40, 8), shnum = at(60, 2), shstrndx = at(62, 2);
  for (uint64_t i = 0; i < phnum; ++i) {
    addFields(layout, prefix + "program header " + std::to_string(i) + " ", base + phoff + i * 56,
              {{"p_type", 4},
               {"p_flags", 4},
               {"p_offset", 8},
               {"p_vaddr", 8},
               {"p_paddr", 8},
               {"p_filesz", 8},
               {"p_memsz", 8},
               {"p_align", 8}});
    cover(layout, base + phoff + i * 56, 56);
  }
  cover(layout, base + shoff, shnum * 64);
  uint64_t strtab = at(shoff + shstrndx * 64 + 24, 8);
  for (uint64_t i = 0; i < shnum; ++i) {
    size_t shdr = shoff + i * 64;
    std::string name(reinterpret_cast<const char *>(&b[base + strtab + at(shdr, 4)]));
    addFields(layout, prefix + "section header " + std::to_string(i) + " (" + name + ") ", base + shdr,
              {{"sh_name", 4},
               {"sh_type", 4},
               {"sh_flags", 8},
               {"sh_addr", 8},
               {"sh_offset", 8},
               {"sh_size", 8},
               {"sh_link", 4},
               {"sh_info", 4},
               {"sh_addralign", 8},
               {"sh_entsize", 8}});
    uint64_t offset = at(shdr + 24, 8), size = at(shdr + 32, 8), flags = at(shdr + 8, 8);
    if (at(shdr + 4, 4) != 8 /* SHT_NOBITS */) cover(layout, base + offset, size);
    if (name.starts_with(".hrx.")) {
      layout.hrxNames.push_back({prefix + name, base + strtab + at(shdr, 4) + name.size() - 1});
      if (flags & 0x800 /* SHF_COMPRESSED */)
        addFields(layout, prefix + name + " compression header ", base + offset,
                  {{"ch_type", 4}, {"ch_reserved", 4}, {"ch_size", 8}, {"ch_addralign", 8}});
    }
  }
}

// The structure of a valid fat container: every offload binary's header, entry and string rows,
// and the ELF64 files inside it.
void describeFat(const Bytes &b, Layout &layout) {
  size_t at = 0;
  for (unsigned member = 0; at + 32 <= b.size(); ++member) {
    std::string prefix = "offload binary " + std::to_string(member) + " ";
    uint64_t size = readLe(b, at + 8, 8), entry = at + readLe(b, at + 16, 8);
    addFields(layout, prefix, at, {{"magic", 4}, {"version", 4}, {"size", 8}, {"entry offset", 8}, {"entry size", 8}});
    addFields(layout, prefix + "entry ", entry,
              {{"image kind", 2},
               {"offload kind", 2},
               {"flags", 4},
               {"string offset", 8},
               {"string count", 8},
               {"image offset", 8},
               {"image size", 8}});
    cover(layout, at, 32);
    cover(layout, entry, 40);
    uint64_t strings = at + readLe(b, entry + 8, 8), count = readLe(b, entry + 16, 8);
    for (uint64_t i = 0; i < count; ++i) {
      size_t row = strings + i * 16;
      std::string key(reinterpret_cast<const char *>(&b[at + readLe(b, row, 8)]));
      addFields(layout, prefix + "string " + std::to_string(i) + " (" + key + ") ", row,
                {{"key offset", 8}, {"value offset", 8}});
      cover(layout, row, 16);
      for (size_t text : {at + readLe(b, row, 8), at + readLe(b, row + 8, 8)})
        cover(layout, text, std::string_view(reinterpret_cast<const char *>(&b[text])).size() + 1);
    }
    uint64_t image = at + readLe(b, entry + 24, 8), imageSize = readLe(b, entry + 32, 8);
    cover(layout, image, imageSize);
    if (imageSize >= 64 && b[image] == 0x7F && b[image + 4] == 2) describeElf64(b, image, prefix + "image: ", layout);
    at = (at + size + 7) & ~size_t(7);
    layout.memberEnds.push_back(at);
  }
}

// A JSON payload means its parsed value (the reader ignores whitespace, and everything from
// the first NUL byte on); any other payload means its bytes.
std::string payloadMeaning(const format::SectionPayload &section) {
  auto json = nlohmann::json::parse(section.bytes.begin(), section.bytes.end(), nullptr, /*allow_exceptions=*/false);
  if (section.name != format::xdna::kHostSection && !json.is_discarded()) return json.dump();
  return std::string(section.bytes.begin(), section.bytes.end());
}

// What the runtime takes from an artifact: the decoded payloads and entries, compared as text.
// Deliberately left out (docs/SECURITY.md): the bytes of sections other than .hrx.*, which only
// the native GPU loader reads, and fat entries' image kind, offload kind and flags.
void appendMeaning(const format::Artifact &artifact, std::string &out) {
  out += std::string(format::artifactKindName(artifact.kind)) + " " + artifact.target +
         (artifact.referenceOnly() ? " reference-only\n" : "\n");
  if (artifact.xdna) {
    auto canonical = format::xdna::writeImage(*artifact.xdna);
    out += canonical.isOk() ? std::string(canonical->begin(), canonical->end())
                            : "unwritable: " + canonical.status().message();
  }
  if (artifact.amdgpu) {
    const format::Elf64File &elf = *artifact.amdgpu;
    out += "elf " + std::to_string(elf.type) + " " + std::to_string(elf.machine) + " " + std::to_string(elf.flags) +
           " " + std::to_string(elf.osAbi) + " " + std::to_string(elf.abiVersion) + "\n";
    std::vector<std::string> sections;
    for (const format::SectionPayload &s : elf.hrxSections) sections.push_back(s.name + "=" + payloadMeaning(s));
    std::sort(sections.begin(), sections.end());
    for (const std::string &s : sections) out += s + "\n";
  }
  for (const format::Artifact &member : artifact.members) appendMeaning(member, out);
}

struct Loaded {
  std::string error;  // empty when loaded
  std::string meaning;
  std::vector<runtime::ArtifactEntry> entries;
  format::Artifact artifact;
};

// A rejection must say why: an empty message counts as one, shown as such.
std::string rejection(const Status &status) {
  return status.message().empty() ? "(empty error message)" : status.message();
}

Loaded load(const Bytes &bytes) {
  Loaded result;
  auto artifact = format::readArtifact(bytes);
  if (!artifact.isOk()) {
    result.error = rejection(artifact.status());
    return result;
  }
  result.artifact = std::move(artifact.value());
  auto entries = runtime::listEntries(result.artifact);
  if (!entries.isOk()) {
    result.error = rejection(entries.status());
    return result;
  }
  result.entries = std::move(entries.value());
  appendMeaning(result.artifact, result.meaning);
  if (format::isFatContainer(bytes))
    for (const format::FatEntry &e : format::readFat(bytes).value())
      for (const auto &[key, value] : e.strings) result.meaning += key + "=" + value + "\n";
  return result;
}

bool sameEntries(const std::vector<runtime::ArtifactEntry> &a, const std::vector<runtime::ArtifactEntry> &b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto &x, const auto &y) {
    return x.name == y.name && x.engine == y.engine && x.columns == y.columns && x.contract == y.contract;
  });
}

struct Replacement {
  const char *label;
  uint64_t value;
};

// Values a field is set to: the extremes, its neighbours (misalignment), its top bit, the file
// size (an offset or length just past the end) and a 64-byte move; each distinct value once.
std::vector<Replacement> replacements(uint64_t value, unsigned width, uint64_t fileSize) {
  uint64_t mask = width == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * width)) - 1;
  std::vector<Replacement> result;
  for (Replacement r : {Replacement{"0", 0},
                        {"all ones", mask},
                        {"+1", value + 1},
                        {"-1", value - 1},
                        {"top bit flipped", value ^ (uint64_t(1) << (8 * width - 1))},
                        {"the file size", fileSize},
                        {"+64", value + 64}}) {
    r.value &= mask;
    if (r.value != value &&
        std::none_of(result.begin(), result.end(), [&](const Replacement &x) { return x.value == r.value; }))
      result.push_back(r);
  }
  return result;
}

struct Tally {
  size_t mutants = 0, rejected = 0, unchanged = 0, known = 0, failures = 0;
};

struct KnownGap {
  std::string pattern;
  size_t matches = 0;
};

std::vector<KnownGap> readKnownGaps(const std::string &path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "hrx-artifact-mutate: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::vector<KnownGap> gaps;
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (!line.empty()) gaps.push_back({line});
  }
  return gaps;
}

KnownGap *findKnownGap(std::vector<KnownGap> &gaps, const std::string &what) {
  for (KnownGap &gap : gaps)
    if (fnmatch(gap.pattern.c_str(), what.c_str(), 0) == 0) return &gap;
  return nullptr;
}

int mutateArtifact(const std::string &path, std::vector<KnownGap> &knownGaps, bool verbose) {
  std::ifstream in(path, std::ios::binary);
  const Bytes original{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const Loaded base = load(original);
  if (!in || !base.error.empty()) {
    std::fprintf(stderr, "hrx-artifact-mutate: %s: not a valid artifact: %s\n", path.c_str(), base.error.c_str());
    return 2;
  }
  Layout layout;
  layout.covered.assign(original.size(), false);
  if (base.artifact.kind == format::ArtifactKind::Fat)
    describeFat(original, layout);
  else if (base.artifact.kind == format::ArtifactKind::Amdgpu)
    describeElf64(original, 0, "", layout);
  else {
    std::fprintf(stderr, "hrx-artifact-mutate: %s: an .xdna image (test/unit/format/MutationTest.cpp covers those)\n",
                 path.c_str());
    return 2;
  }

  Tally tally;
  auto check = [&](const std::string &what, const Bytes &mutant) {
    ++tally.mutants;
    Loaded loaded = load(mutant);
    if (!loaded.error.empty()) {
      ++tally.rejected;
      if (verbose) std::printf("rejected: %s: %s\n", what.c_str(), loaded.error.c_str());
    } else if (loaded.meaning == base.meaning && sameEntries(loaded.entries, base.entries)) {
      ++tally.unchanged;
      if (verbose) std::printf("unchanged: %s\n", what.c_str());
    } else if (KnownGap *gap = findKnownGap(knownGaps, what)) {
      ++gap->matches;
      ++tally.known;
      if (verbose) std::printf("known gap: %s\n", what.c_str());
    } else {
      ++tally.failures;
      std::printf("FAIL: %s: %s: accepted with a different meaning\n", path.c_str(), what.c_str());
    }
  };

  for (const Field &field : layout.fields) {
    uint64_t value = readLe(original, field.offset, field.width);
    for (const Replacement &r : replacements(value, field.width, original.size())) {
      Bytes mutant = original;
      writeLe(mutant, field.offset, field.width, r.value);
      check(field.name + " = " + r.label + " (" + std::to_string(r.value) + ")", mutant);
    }
  }
  for (const auto &[name, offset] : layout.hrxNames) {
    Bytes mutant = original;
    mutant[offset] ^= 0x01;  // an unknown .hrx.* name
    check("section name " + name + " with its last letter changed", mutant);
  }
  for (size_t i = 0; i < original.size(); ++i) {
    if (layout.covered[i]) continue;
    Bytes mutant = original;
    mutant[i] ^= 0xFF;
    check("padding byte " + std::to_string(i), mutant);
  }
  for (size_t size = 0; size < original.size(); size += 64) {
    // A fat container cut where a member ends is a valid container of fewer members: the format
    // has no member count (known-loader-gaps.txt).
    bool memberEnd = std::find(layout.memberEnds.begin(), layout.memberEnds.end(), size) != layout.memberEnds.end();
    check((memberEnd ? "truncated at a member boundary, " : "truncated to ") + std::to_string(size) + " bytes",
          Bytes(original.begin(), original.begin() + size));
  }

  std::printf("%s: %zu mutants, %zu rejected, %zu unchanged, %zu known gaps, %zu failures\n", path.c_str(),
              tally.mutants, tally.rejected, tally.unchanged, tally.known, tally.failures);
  return tally.failures ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv) {
  bool verbose = false;
  std::vector<KnownGap> knownGaps;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--verbose")
      verbose = true;
    else if (arg.starts_with("--known="))
      knownGaps = readKnownGaps(arg.substr(8));
    else
      files.push_back(arg);
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: hrx-artifact-mutate [--verbose] [--known=FILE] ARTIFACT...\n");
    return 2;
  }
  int status = 0;
  for (const std::string &file : files) status = std::max(status, mutateArtifact(file, knownGaps, verbose));
  for (const KnownGap &gap : knownGaps)
    if (gap.matches == 0) std::printf("note: known gap '%s' matched no mutant: remove it\n", gap.pattern.c_str());
  return status;
}
