// The AIE2P assembler, disassembler and ELF object wrapper.
#include "hrx/aie2p/Asm.h"

#include "hrx/format/ElfReader.h"

#include <elf.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <map>
#include <optional>

namespace hrx::aie2p {

namespace {

struct Token {
  std::string text;
  unsigned column;  // 1-based
};

bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// Splits operand text into words (registers, numbers, labels) and single punctuation characters.
std::vector<Token> tokenize(std::string_view text, unsigned column0) {
  std::vector<Token> out;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (isWordChar(c)) {
      size_t j = i;
      while (j < text.size() && isWordChar(text[j])) ++j;
      out.push_back({std::string(text.substr(i, j - i)), column0 + static_cast<unsigned>(i)});
      i = j;
      continue;
    }
    out.push_back({std::string(1, c), column0 + static_cast<unsigned>(i)});
    ++i;
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char &c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<int64_t> parseNumber(std::string_view text) {
  bool negative = false;
  if (!text.empty() && text[0] == '-') negative = true, text.remove_prefix(1);
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) base = 16, text.remove_prefix(2);
  if (text.empty()) return std::nullopt;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (ec != std::errc() || p != text.data() + text.size() || v > (uint64_t(1) << 40)) return std::nullopt;
  return negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

bool isLabelName(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), isWordChar);
}

struct LabelRef {
  size_t operand;
  std::string name;
  unsigned column;
};

struct ParsedInstr {
  Instr instr;
  std::vector<LabelRef> labelRefs;
  std::vector<unsigned> operandColumns;
  unsigned column;
  std::string text;
};

struct Attempt {
  int progress = -1;  // template tokens matched; higher is a better explanation
  AsmDiagnostic diag;
};

// Matches one instruction's operand tokens against a form's syntax.
bool matchForm(const InstrInfo &info, const std::vector<Token> &tokens, unsigned endColumn, unsigned line,
               ParsedInstr &out, Attempt &attempt) {
  out.instr.id = info.id;
  out.instr.ops.assign(info.operands.size(), Operand{});
  out.labelRefs.clear();
  out.operandColumns.assign(info.operands.size(), 0);
  size_t t = 0;
  int progress = 0;
  auto fail = [&](unsigned column, std::string code, std::string message) {
    if (progress > attempt.progress) attempt = {progress, {line, column, std::move(code), std::move(message)}};
    return false;
  };
  auto here = [&]() { return t < tokens.size() ? tokens[t].column : endColumn; };
  auto got = [&]() {
    return t < tokens.size() ? "'" + tokens[t].text + "'" : std::string("the end of the instruction");
  };
  for (const auto &part : info.syntaxParts) {
    if (!part.isOperand) {
      for (const auto &lit : tokenize(part.text, 0)) {
        if (t >= tokens.size() || lower(tokens[t].text) != lower(lit.text))
          return fail(here(), "MC/002",
                      "invalid operands for '" + std::string(info.mnemonic) + "': expected '" + lit.text + "', got " +
                          got());
        ++t, ++progress;
      }
      continue;
    }
    const auto &opInfo = info.operands[part.operand];
    if (t >= tokens.size())
      return fail(here(), "MC/002",
                  "invalid operands for '" + std::string(info.mnemonic) + "': expected " +
                      (isImmediateClass(opInfo.cls) ? "an immediate" : "a register") + " (" +
                      operandClassDescription(opInfo.cls) + "), got the end of the instruction");
    out.operandColumns[part.operand] = tokens[t].column;
    if (isImmediateClass(opInfo.cls)) {
      unsigned column = tokens[t].column;
      std::string text = tokens[t].text;
      if (text == "-" && t + 1 < tokens.size()) text += tokens[++t].text;
      ++t;
      if (auto v = parseNumber(text)) {
        // A 32-bit immediate may be written unsigned (movxm r0, #0xffffffff).
        if (opInfo.cls == OperandClass::c32s && *v > INT32_MAX && *v <= int64_t(UINT32_MAX)) *v -= int64_t(1) << 32;
        out.instr.ops[part.operand] = Operand::i(*v);
      } else if (isLabelName(text) && (opInfo.cls == OperandClass::addr20 || opInfo.cls == OperandClass::c32s ||
                                       opInfo.cls == OperandClass::c11s)) {
        out.instr.ops[part.operand] = Operand::i(0);
        out.labelRefs.push_back({static_cast<size_t>(part.operand), text, column});
      } else {
        return fail(column, "MC/002",
                    "invalid operands for '" + std::string(info.mnemonic) + "': expected an immediate (" +
                        operandClassDescription(opInfo.cls) + "), got '" + text + "'");
      }
      ++progress;
      // Range and step are checked now so that the diagnostic points at the value.
      uint64_t bits;
      std::string why;
      if (!encodeOperand(opInfo.cls, opInfo.fieldWidth, out.instr.ops[part.operand], bits, why)) {
        progress += 1000;
        return fail(column, "MC/004", why);
      }
      continue;
    }
    auto reg = parseReg(tokens[t].text);
    if (!reg)
      return fail(tokens[t].column, "MC/002",
                  "invalid operands for '" + std::string(info.mnemonic) + "': expected a register (" +
                      operandClassDescription(opInfo.cls) + "), got '" + tokens[t].text + "'");
    out.instr.ops[part.operand] = Operand::r(*reg);
    if (int tied = opInfo.tiedTo; tied >= 0 && !(out.instr.ops[tied] == out.instr.ops[part.operand])) {
      progress += 500;
      return fail(tokens[t].column, "MC/003",
                  "operand " + regName(*reg) + " must be the same register as " + regName(out.instr.ops[tied].reg) +
                      " (the instruction writes its result there)");
    }
    uint64_t bits;
    std::string why;
    if (!encodeOperand(opInfo.cls, opInfo.fieldWidth, out.instr.ops[part.operand], bits, why)) {
      progress += 500;
      return fail(tokens[t].column, "MC/003", why);
    }
    ++t, ++progress;
  }
  if (t < tokens.size())
    return fail(tokens[t].column, "MC/002",
                "invalid operands for '" + std::string(info.mnemonic) + "': unexpected '" + tokens[t].text + "'");
  return true;
}

const std::multimap<std::string, uint16_t> &byMnemonic() {
  static const auto map = [] {
    std::multimap<std::string, uint16_t> m;
    for (const auto &i : instructions()) m.emplace(std::string(i.mnemonic), i.id);
    return m;
  }();
  return map;
}

struct ParsedBundle {
  unsigned line, column;
  std::vector<ParsedInstr> instrs;
  uint32_t offset = 0;
};

}  // namespace

bool assemble(std::string_view source, AsmProgram &program, std::vector<AsmDiagnostic> &diagnostics) {
  constexpr size_t kMaxErrors = 20;
  program = {};
  std::vector<ParsedBundle> bundles;
  std::map<std::string, uint32_t> labels;
  std::map<std::string, unsigned> labelLines;
  auto error = [&](unsigned line, unsigned column, std::string code, std::string message) {
    if (diagnostics.size() < kMaxErrors) diagnostics.push_back({line, column, std::move(code), std::move(message)});
  };
  std::vector<std::pair<std::string, std::pair<unsigned, unsigned>>> pendingLabels;  // defined before the next bundle

  unsigned lineNo = 0;
  uint32_t offset = 0;
  size_t pos = 0;
  while (pos <= source.size()) {
    size_t end = source.find('\n', pos);
    if (end == std::string_view::npos) end = source.size();
    std::string_view line = source.substr(pos, end - pos);
    pos = end + 1;
    ++lineNo;
    if (auto c = line.find("//"); c != std::string_view::npos) line = line.substr(0, c);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t col = 0;
    auto skipSpace = [&] {
      while (col < line.size() && std::isspace(static_cast<unsigned char>(line[col]))) ++col;
    };
    skipSpace();
    // Labels: "name:" (several may precede a bundle on the same line).
    while (true) {
      size_t j = col;
      while (j < line.size() && isWordChar(line[j])) ++j;
      if (j > col && j < line.size() && line[j] == ':' && isLabelName(line.substr(col, j - col))) {
        std::string name(line.substr(col, j - col));
        if (labelLines.count(name))
          error(lineNo, static_cast<unsigned>(col + 1), "MC/008",
                "label '" + name + "' is already defined on line " + std::to_string(labelLines[name]));
        else
          labelLines[name] = lineNo, pendingLabels.push_back({name, {lineNo, static_cast<unsigned>(col + 1)}});
        col = j + 1;
        skipSpace();
        continue;
      }
      break;
    }
    if (col >= line.size()) {
      if (pos > source.size()) break;
      continue;
    }
    if (line[col] == '.') continue;  // assembler directives (.text, .globl, .p2align): no effect here
    ParsedBundle bundle{lineNo, static_cast<unsigned>(col + 1), {}, offset};
    bool bad = false;
    // Instructions separated by ';'.
    size_t start = col;
    while (start <= line.size()) {
      size_t semi = line.find(';', start);
      if (semi == std::string_view::npos) semi = line.size();
      std::string_view piece = line.substr(start, semi - start);
      size_t lead = 0;
      while (lead < piece.size() && std::isspace(static_cast<unsigned char>(piece[lead]))) ++lead;
      size_t trail = piece.size();
      while (trail > lead && std::isspace(static_cast<unsigned char>(piece[trail - 1]))) --trail;
      unsigned pieceColumn = static_cast<unsigned>(start + lead + 1);
      std::string_view text = piece.substr(lead, trail - lead);
      if (text.empty()) {
        error(lineNo, pieceColumn, "MC/002", "empty instruction in bundle");
        bad = true;
      } else {
        size_t m = 0;
        while (m < text.size() && !std::isspace(static_cast<unsigned char>(text[m]))) ++m;
        std::string mnemonic = lower(text.substr(0, m));
        auto tokens = tokenize(text.substr(m), pieceColumn + static_cast<unsigned>(m));
        auto [first, last] = byMnemonic().equal_range(mnemonic);
        if (first == last) {
          error(lineNo, pieceColumn, "MC/001", "unknown instruction '" + std::string(text.substr(0, m)) + "'");
          bad = true;
        } else {
          Attempt attempt;
          ParsedInstr parsed;
          bool matched = false;
          for (auto it = first; it != last && !matched; ++it) {
            matched = matchForm(instructions()[it->second], tokens, pieceColumn + static_cast<unsigned>(text.size()),
                                lineNo, parsed, attempt);
          }
          if (!matched) {
            error(attempt.diag.line, attempt.diag.column, attempt.diag.code, attempt.diag.message);
            bad = true;
          } else {
            parsed.column = pieceColumn;
            parsed.text = std::string(text);
            bundle.instrs.push_back(std::move(parsed));
          }
        }
      }
      if (semi >= line.size()) break;
      start = semi + 1;
    }
    if (!bad) {
      // The size depends only on the slot set, so labels get their addresses in this pass.
      Bundle b;
      for (const auto &p : bundle.instrs) b.slots.push_back(p.instr);
      std::vector<uint8_t> bytes;
      std::string why;
      if (!encodeBundle(b, bytes, why)) {
        bool dup = why.rfind("two instructions", 0) == 0;
        unsigned column = bundle.column;
        if (dup) {
          std::array<bool, kSlotCount> seen{};
          for (const auto &p : bundle.instrs) {
            unsigned s = static_cast<unsigned>(p.instr.info().slot);
            if (seen[s]) {
              column = p.column;
              break;
            }
            seen[s] = true;
          }
        }
        error(lineNo, column, dup ? "MC/005" : "MC/006", why);
        bad = true;
      } else {
        for (auto &[name, where] : pendingLabels) labels[name] = offset;
        pendingLabels.clear();
        bundle.offset = offset;
        offset += static_cast<uint32_t>(bytes.size());
        bundles.push_back(std::move(bundle));
      }
    }
    if (pos > source.size()) break;
  }
  for (auto &[name, where] : pendingLabels) labels[name] = offset;  // labels at the end
  if (!diagnostics.empty()) return false;

  for (auto &bundle : bundles) {
    Bundle b;
    bool bad = false;
    for (auto &p : bundle.instrs) {
      for (const auto &ref : p.labelRefs) {
        auto it = labels.find(ref.name);
        if (it == labels.end()) {
          error(bundle.line, ref.column, "MC/007", "undefined label '" + ref.name + "'");
          bad = true;
          continue;
        }
        p.instr.ops[ref.operand] = Operand::i(it->second);
        const auto &opInfo = p.instr.info().operands[ref.operand];
        uint64_t bits;
        std::string why;
        if (!encodeOperand(opInfo.cls, opInfo.fieldWidth, p.instr.ops[ref.operand], bits, why)) {
          error(bundle.line, ref.column, "MC/004", "label '" + ref.name + "': " + why);
          bad = true;
        }
      }
      b.slots.push_back(p.instr);
    }
    if (bad) continue;
    std::string why;
    size_t before = program.bytes.size();
    if (!encodeBundle(b, program.bytes, why)) {
      error(bundle.line, bundle.column, "MC/006", why);
      continue;
    }
    program.bundles.push_back({bundle.offset, static_cast<uint32_t>(program.bytes.size() - before), bundle.line});
  }
  for (const auto &[name, off] : labels) program.labels.push_back({name, off});
  std::sort(program.labels.begin(), program.labels.end(), [](const auto &a, const auto &b) {
    return a.offset < b.offset || (a.offset == b.offset && a.name < b.name);
  });
  return diagnostics.empty();
}

bool disassemble(std::span<const uint8_t> bytes, std::vector<DisasmLine> &lines, AsmDiagnostic &error) {
  size_t offset = 0;
  while (offset < bytes.size()) {
    DisasmLine line;
    line.offset = static_cast<uint32_t>(offset);
    std::string why;
    if (!decodeBundle(bytes.subspan(offset), line.bundle, line.size, why)) {
      bool truncated = why.rfind("truncated", 0) == 0;
      char where[32];
      std::snprintf(where, sizeof where, "offset 0x%zx: ", offset);
      error = {0, static_cast<unsigned>(offset + 1), truncated ? "MC/010" : "MC/009", where + why};
      return false;
    }
    line.text = formatBundle(line.bundle);
    offset += line.size;
    lines.push_back(std::move(line));
  }
  return true;
}

// ---- ELF32 ----

namespace {

void put16(std::vector<uint8_t> &b, uint16_t v) { b.push_back(uint8_t(v)), b.push_back(uint8_t(v >> 8)); }
void put32(std::vector<uint8_t> &b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
}

}  // namespace

bool looksLikeElf(std::span<const uint8_t> file) { return format::elf::hasElfMagic(file); }

std::vector<uint8_t> writeObject(const AsmProgram &program) {
  // Layout: header, .text, .symtab, .strtab, .shstrtab, section headers.
  std::string strtab(1, '\0');
  std::vector<uint8_t> symtab(16, 0);  // the null symbol
  auto sym = [&](uint32_t name, uint32_t value, uint8_t info, uint16_t shndx) {
    put32(symtab, name), put32(symtab, value), put32(symtab, 0);
    symtab.push_back(info), symtab.push_back(0), put16(symtab, shndx);
  };
  sym(0, 0, ELF32_ST_INFO(STB_LOCAL, STT_SECTION), 1);
  for (const auto &l : program.labels) {
    uint32_t name = static_cast<uint32_t>(strtab.size());
    strtab += l.name + '\0';
    sym(name, l.offset, ELF32_ST_INFO(STB_LOCAL, STT_NOTYPE), 1);
  }
  const std::string shstrtab = std::string("\0.text\0.symtab\0.strtab\0.shstrtab\0", 34);
  std::vector<uint8_t> out;
  auto align = [&](size_t a) {
    while (out.size() % a) out.push_back(0);
  };
  out.resize(52, 0);
  align(16);
  size_t textOff = out.size();
  out.insert(out.end(), program.bytes.begin(), program.bytes.end());
  align(4);
  size_t symOff = out.size();
  out.insert(out.end(), symtab.begin(), symtab.end());
  size_t strOff = out.size();
  out.insert(out.end(), strtab.begin(), strtab.end());
  size_t shstrOff = out.size();
  out.insert(out.end(), shstrtab.begin(), shstrtab.end());
  align(4);
  size_t shOff = out.size();
  auto section = [&](uint32_t name, uint32_t type, uint32_t flags, size_t off, size_t size, uint32_t link,
                     uint32_t info, uint32_t align, uint32_t entsize) {
    put32(out, name), put32(out, type), put32(out, flags), put32(out, 0), put32(out, uint32_t(off)),
        put32(out, uint32_t(size));
    put32(out, link), put32(out, info), put32(out, align), put32(out, entsize);
  };
  section(0, SHT_NULL, 0, 0, 0, 0, 0, 0, 0);
  section(1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, textOff, program.bytes.size(), 0, 0, 16, 0);
  section(7, SHT_SYMTAB, 0, symOff, symtab.size(), 3, static_cast<uint32_t>(symtab.size() / 16), 4, 16);
  section(15, SHT_STRTAB, 0, strOff, strtab.size(), 0, 0, 1, 0);
  section(23, SHT_STRTAB, 0, shstrOff, shstrtab.size(), 0, 0, 1, 0);
  // ELF header.
  std::vector<uint8_t> h = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS32, ELFDATA2LSB, EV_CURRENT, 0,
                            0,       0,       0,       0,       0,          0,           0,          0};
  put16(h, ET_REL), put16(h, kElfMachineAie), put32(h, EV_CURRENT), put32(h, 0), put32(h, 0), put32(h, uint32_t(shOff));
  put32(h, kElfFlagsAie2p), put16(h, sizeof(Elf32_Ehdr)), put16(h, 0), put16(h, 0), put16(h, sizeof(Elf32_Shdr)),
      put16(h, 5), put16(h, 4);
  std::copy(h.begin(), h.end(), out.begin());
  return out;
}

// Through the runtime's one ELF reader (bounds-checked, located errors); only the AIE2P rules
// (EM_AIE, a .text with bytes) are added here.
bool readObjectText(std::span<const uint8_t> f, std::vector<uint8_t> &text, std::string &error) {
  namespace elf = hrx::format::elf;
  auto bad = [&](std::string why) {
    error = std::move(why);
    return false;
  };
  if (f.size() < sizeof(Elf32_Ehdr) || !looksLikeElf(f)) return bad("not an ELF file (need a 52-byte ELF32 header)");
  auto reader = elf::ElfReader::open(f, elf::ElfClass::Elf32);
  if (!reader) return bad(reader.error().message());
  if (reader->header().machine != kElfMachineAie)
    return bad("e_machine " + std::to_string(reader->header().machine) + ": expected EM_AIE (264)");
  auto sections = reader->sectionHeaders();
  if (!sections) return bad(sections.error().message());
  if (sections->empty()) return bad("no .text section");
  auto names = reader->sectionNameTable();
  if (!names) return bad(names.error().message());
  for (uint32_t i = 0; i < sections->size(); ++i) {
    const elf::SectionHeader &section = (*sections)[i];
    auto name = reader->sectionName(*names, i, section);
    if (!name) return bad(name.error().message());
    if (*name != ".text") continue;
    if (section.type == SHT_NOBITS) return bad(".text is NOBITS");
    auto data = reader->sectionData(i, section);
    if (!data) return bad(data.error().message());
    text.assign(data->begin(), data->end());
    return true;
  }
  return bad("no .text section");
}

}  // namespace hrx::aie2p
