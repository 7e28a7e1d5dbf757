// The AIE2P table built from Formats.def and Instructions.def, and the encoder/decoder.
#include "hrx/aie2p/Isa.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace hrx::aie2p {

using u128 = unsigned __int128;

std::string_view slotName(Slot slot) {
  static constexpr std::string_view kNames[] = {"lda", "ldb", "alu", "mv", "st", "vec", "lng", "nop"};
  return kNames[static_cast<unsigned>(slot)];
}

// AIE2PSlots.td (InstSlot widths) and AIE2PSlotInclude.td (the 1-bit nop slot).
unsigned slotWidth(Slot slot) {
  static constexpr unsigned kWidths[] = {20, 17, 20, 22, 20, 26, 42, 1};
  return kWidths[static_cast<unsigned>(slot)];
}

uint16_t slotBit(Slot slot) { return static_cast<uint16_t>(1u << static_cast<unsigned>(slot)); }

// ---- registers ----

namespace {

struct RegFileInfo {
  RegKind kind;
  std::string_view prefix;
  unsigned count;  // 0: a single register named by the prefix
};
constexpr RegFileInfo kRegFiles[] = {
    {RegKind::R, "r", 32},
    {RegKind::P, "p", 8},
    {RegKind::M, "m", 8},
    {RegKind::DN, "dn", 8},
    {RegKind::DJ, "dj", 8},
    {RegKind::DC, "dc", 8},
    {RegKind::LR, "lr", 0},
    {RegKind::SP, "sp", 0},
    {RegKind::LS, "ls", 0},
    {RegKind::LE, "le", 0},
    {RegKind::LC, "lc", 0},
    {RegKind::CoreId, "core_id", 0},
    {RegKind::X, "x", 12},
    {RegKind::DM, "dm", 5},
    {RegKind::CML, "cml", 5},
    {RegKind::CMH, "cmh", 5},
    {RegKind::D, "d", 8},
    {RegKind::Y, "y", 6},
    {RegKind::L, "l", 16},
    {RegKind::S, "s", 4},
    {RegKind::CrRnd, "crRnd", 0},
    {RegKind::CrSat, "crSat", 0},
    {RegKind::CrSRSMode, "crSRSMode", 0},
    {RegKind::CrUPSMode, "crUPSMode", 0},
    {RegKind::SrSRSOf, "srSRS_of", 0},
    {RegKind::SrUPSOf, "srUPS_of", 0},
    {RegKind::BMLL, "bmll", 5},
    {RegKind::BMLH, "bmlh", 5},
    {RegKind::BMHL, "bmhl", 5},
    {RegKind::BMHH, "bmhh", 5},
    {RegKind::EX, "ex", 12},
    {RegKind::E, "e", 12},
};

const RegFileInfo &fileOf(RegKind kind) {
  for (const auto &f : kRegFiles)
    if (f.kind == kind) return f;
  std::abort();
}

[[noreturn]] void tableError(std::string_view row, const std::string &message) {
  std::fprintf(stderr, "hrx aie2p table: row %.*s: %s\n", static_cast<int>(row.size()), row.data(), message.c_str());
  std::abort();
}

}  // namespace

std::string regName(Reg reg) {
  const auto &f = fileOf(reg.kind);
  if (f.count == 0) return std::string(f.prefix);
  return std::string(f.prefix) + std::to_string(reg.index);
}

std::optional<Reg> parseReg(std::string_view text) {
  std::string lower(text);
  for (char &c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Longest prefix first, so that "dm0" is not read as "d" + "m0".
  const RegFileInfo *best = nullptr;
  for (const auto &f : kRegFiles) {
    if (f.count == 0) {
      std::string name(f.prefix);
      for (char &c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower == name) return Reg{f.kind, 0};
      continue;
    }
    if (lower.size() > f.prefix.size() && lower.compare(0, f.prefix.size(), f.prefix) == 0 &&
        (!best || f.prefix.size() > best->prefix.size())) {
      std::string_view digits = std::string_view(lower).substr(f.prefix.size());
      if (std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) best = &f;
    }
  }
  if (!best) return std::nullopt;
  std::string_view digits = std::string_view(lower).substr(best->prefix.size());
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;
  unsigned index = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || index >= best->count) return std::nullopt;
  return Reg{best->kind, static_cast<uint8_t>(index)};
}

// ---- operand classes ----

namespace {

struct ClassInfo {
  OperandClass cls;
  std::string_view name;
  bool immediate;
  // Immediates: the value range, step and field width the domain needs.
  int64_t minValue, maxValue, step;
  unsigned fieldWidth;
};

constexpr ClassInfo kClasses[] = {
    {OperandClass::eR, "eR", false, 0, 0, 0, 5},
    {OperandClass::eP, "eP", false, 0, 0, 0, 3},
    {OperandClass::eM, "eM", false, 0, 0, 0, 3},
    {OperandClass::eDJ, "eDJ", false, 0, 0, 0, 3},
    {OperandClass::eRS16, "eRS16", false, 0, 0, 0, 4},
    {OperandClass::LdaScl, "LdaScl", false, 0, 0, 0, 7},
    {OperandClass::SclSt, "SclSt", false, 0, 0, 0, 7},
    {OperandClass::MvSclDst, "MvSclDst", false, 0, 0, 0, 7},
    {OperandClass::MvSclSrc, "MvSclSrc", false, 0, 0, 0, 7},
    {OperandClass::LdaCg, "LdaCg", false, 0, 0, 0, 7},
    {OperandClass::AluCg, "AluCg", false, 0, 0, 0, 6},
    {OperandClass::Xm, "Xm", false, 0, 0, 0, 4},
    {OperandClass::CMm, "CMm", false, 0, 0, 0, 4},
    {OperandClass::eDM, "eDM", false, 0, 0, 0, 3},
    {OperandClass::eD, "eD", false, 0, 0, 0, 3},
    {OperandClass::eY, "eY", false, 0, 0, 0, 3},
    {OperandClass::eL, "eL", false, 0, 0, 0, 4},
    {OperandClass::eS, "eS", false, 0, 0, 0, 2},
    {OperandClass::eDS, "eDS", false, 0, 0, 0, 2},
    {OperandClass::MvBMX, "MvBMX", false, 0, 0, 0, 6},
    {OperandClass::eEX, "eEX", false, 0, 0, 0, 4},
    {OperandClass::c4s, "c4s", true, -8, 7, 1, 4},
    {OperandClass::c5s_step2, "c5s_step2", true, -16, 14, 2, 4},
    {OperandClass::c6u, "c6u", true, 0, 63, 1, 6},
    {OperandClass::c7s, "c7s", true, -64, 63, 1, 7},
    {OperandClass::c8s, "c8s", true, -128, 127, 1, 8},
    {OperandClass::c11s, "c11s", true, -1024, 1023, 1, 11},
    {OperandClass::c32s, "c32s", true, INT32_MIN, INT32_MAX, 1, 32},
    {OperandClass::c6s_step4, "c6s_step4", true, -32, 28, 4, 4},
    {OperandClass::c10s_step64, "c10s_step64", true, -512, 448, 64, 4},
    {OperandClass::c19s_step64, "c19s_step64", true, -262144, 262080, 64, 13},
    {OperandClass::addr20, "addr20", true, 0, (1 << 20) - 1, 1, 20},
    // Negative-only: the field holds the value's low bits above the step; the sign is implied.
    {OperandClass::c12n_step4, "c12n_step4", true, -2048, -4, 4, 9},
    {OperandClass::c16n_step64, "c16n_step64", true, -32768, -64, 64, 9},
};

const ClassInfo &classInfo(OperandClass cls) {
  for (const auto &c : kClasses)
    if (c.cls == cls) return c;
  std::abort();
}

std::optional<OperandClass> classByName(std::string_view name) {
  for (const auto &c : kClasses)
    if (c.name == name) return c.cls;
  return std::nullopt;
}

using Member = std::pair<Reg, uint64_t>;

void addFile(std::vector<Member> &out, RegKind kind, unsigned count, unsigned shift, uint64_t tag) {
  for (unsigned i = 0; i < count; ++i)
    out.push_back({Reg{kind, static_cast<uint8_t>(i)}, (uint64_t(i) << shift) | tag});
}

// s0-s3, the accumulator controls and the overflow status bits: the same codes as a move's
// source and destination (AIE2PMCCodeEmitterGen.inc).
void addScalarControls(std::vector<Member> &m) {
  addFile(m, RegKind::S, 4, 5, 0b01110);
  m.push_back({Reg{RegKind::CrRnd, 0}, 0b1111011});
  m.push_back({Reg{RegKind::CrSRSMode, 0}, 0b1000111});
  m.push_back({Reg{RegKind::CrSat, 0}, 0b0100111});
  m.push_back({Reg{RegKind::CrUPSMode, 0}, 0b1100111});
  m.push_back({Reg{RegKind::SrSRSOf, 0}, 0b1011010});
  m.push_back({Reg{RegKind::SrUPSOf, 0}, 0b1110010});
}

// Members and their codes. The composite encoders are llvm-aie's
// MCTargetDesc/aie2p/AIE2PMCCodeEmitterGen.inc (get<Class>OpValue); the plain classes use the
// register's hardware encoding (AIE2PRegisterInfo.td).
std::vector<Member> buildMembers(OperandClass cls) {
  std::vector<Member> m;
  switch (cls) {
  case OperandClass::eR: addFile(m, RegKind::R, 32, 0, 0); break;
  case OperandClass::eP: addFile(m, RegKind::P, 8, 0, 0); break;
  case OperandClass::eM: addFile(m, RegKind::M, 8, 0, 0); break;
  case OperandClass::eDJ: addFile(m, RegKind::DJ, 8, 0, 0); break;
  case OperandClass::eRS16:  // r16..r31 -> 0..15 (AIE2's geteRS4OpValue: encoding - 16)
    for (unsigned i = 16; i < 32; ++i) m.push_back({Reg{RegKind::R, static_cast<uint8_t>(i)}, i - 16});
    break;
  case OperandClass::LdaScl:  // getmLdaSclOpValue; getmSclStOpValue is the same map
  case OperandClass::SclSt:
    addFile(m, RegKind::R, 32, 2, 0b10);
    addFile(m, RegKind::M, 8, 4, 0b0000);
    addFile(m, RegKind::DN, 8, 4, 0b0100);
    addFile(m, RegKind::DJ, 8, 4, 0b1000);
    addFile(m, RegKind::DC, 8, 4, 0b1100);
    addFile(m, RegKind::P, 8, 4, 0b0011);
    m.push_back({Reg{RegKind::LR, 0}, 0b0000111});
    break;
  case OperandClass::MvSclDst:  // getmMvSclDstOpValue (= getmMvSclDstCgOpValue)
    addFile(m, RegKind::R, 32, 2, 0b01);
    addFile(m, RegKind::DN, 8, 4, 0b0100);
    addFile(m, RegKind::DJ, 8, 4, 0b1000);
    addFile(m, RegKind::DC, 8, 4, 0b1100);
    addFile(m, RegKind::M, 8, 4, 0b0000);
    addFile(m, RegKind::P, 8, 4, 0b0110);
    m.push_back({Reg{RegKind::LE, 0}, 0b0110111});
    m.push_back({Reg{RegKind::LS, 0}, 0b0001111});
    m.push_back({Reg{RegKind::LR, 0}, 0b1110111});
    m.push_back({Reg{RegKind::SP, 0}, 0b1001111});
    m.push_back({Reg{RegKind::LC, 0}, 0b1010111});
    // s0-s3 and the accumulator controls (AIE2PMCCodeEmitterGen.inc; upstream Loom's oracle
    // bytes for mov s0/crRnd/crSRSMode/crSat, #imm agree).
    addScalarControls(m);
    break;
  case OperandClass::MvSclSrc:  // getmMvSclSrcOpValue
    addFile(m, RegKind::R, 32, 2, 0b01);
    addFile(m, RegKind::DN, 8, 4, 0b0100);
    addFile(m, RegKind::DJ, 8, 4, 0b1000);
    addFile(m, RegKind::DC, 8, 4, 0b1100);
    addFile(m, RegKind::M, 8, 4, 0b0000);
    addFile(m, RegKind::P, 8, 4, 0b0110);
    m.push_back({Reg{RegKind::LE, 0}, 0b1110111});
    m.push_back({Reg{RegKind::LS, 0}, 0b1001111});
    m.push_back({Reg{RegKind::LR, 0}, 0b0001111});
    m.push_back({Reg{RegKind::SP, 0}, 0b0101111});
    m.push_back({Reg{RegKind::LC, 0}, 0b0110111});
    m.push_back({Reg{RegKind::CoreId, 0}, 0b1010111});
    addScalarControls(m);  // the same codes as MvSclDst's
    break;
  case OperandClass::LdaCg:  // getmLdaCgOpValue
    addFile(m, RegKind::R, 32, 2, 0b00);
    addFile(m, RegKind::DN, 8, 4, 0b0110);
    addFile(m, RegKind::DJ, 8, 4, 0b1010);
    addFile(m, RegKind::DC, 8, 4, 0b1110);
    addFile(m, RegKind::M, 8, 4, 0b0010);
    addFile(m, RegKind::P, 8, 4, 0b1101);
    m.push_back({Reg{RegKind::LC, 0}, 0b0010101});
    break;
  case OperandClass::AluCg:  // getmAluCgOpValue
    addFile(m, RegKind::R, 32, 1, 0);
    m.push_back({Reg{RegKind::LC, 0}, 0b000001});
    break;
  case OperandClass::Xm:  // getmXmOpValue: x(2k) is eXe k -> 2k, x(2k+1) is eXo k -> 2k+1
    addFile(m, RegKind::X, 12, 0, 0);
    break;
  case OperandClass::CMm:  // getmCMmOpValue: cml k -> 2k, cmh k -> 2k+1
    for (unsigned i = 0; i < 5; ++i) {
      m.push_back({Reg{RegKind::CML, static_cast<uint8_t>(i)}, 2u * i});
      m.push_back({Reg{RegKind::CMH, static_cast<uint8_t>(i)}, 2u * i + 1});
    }
    break;
  case OperandClass::eDM: addFile(m, RegKind::DM, 5, 0, 0); break;
  case OperandClass::eD: addFile(m, RegKind::D, 8, 0, 0); break;  // eD: dK has encoding K
  case OperandClass::eY: addFile(m, RegKind::Y, 6, 0, 0); break;  // eY: yK has encoding K
  case OperandClass::eEX: addFile(m, RegKind::EX, 12, 0, 0); break;  // exK: K, as Xm's xK (inferred)
  case OperandClass::eL: addFile(m, RegKind::L, 16, 0, 0); break;  // eL: lK has encoding K
  case OperandClass::eS: addFile(m, RegKind::S, 4, 0, 0); break;   // eS: sK has encoding K
  case OperandClass::eDS: addFile(m, RegKind::D, 4, 0, 0); break;  // eDS: d0..d3 (2-bit field)
  case OperandClass::MvBMX:  // getmMvBMXDstOpValue (= getmMvBMXSrcOpValue); the FIFO registers are not modelled
    for (unsigned k = 0; k < 6; ++k) {
      m.push_back({Reg{RegKind::X, static_cast<uint8_t>(2 * k)}, (uint64_t(k) << 3) | 0b001});
      m.push_back({Reg{RegKind::X, static_cast<uint8_t>(2 * k + 1)}, (uint64_t(k) << 3) | 0b101});
    }
    addFile(m, RegKind::BMLL, 5, 3, 0b000);
    addFile(m, RegKind::BMLH, 5, 3, 0b010);
    addFile(m, RegKind::BMHL, 5, 3, 0b100);
    addFile(m, RegKind::BMHH, 5, 3, 0b110);
    break;
  default: break;
  }
  return m;
}

const std::vector<Member> &members(OperandClass cls) {
  static const auto table = [] {
    std::map<OperandClass, std::vector<Member>> t;
    for (const auto &c : kClasses)
      if (!c.immediate) t[c.cls] = buildMembers(c.cls);
    return t;
  }();
  static const std::vector<Member> empty;
  auto it = table.find(cls);
  return it == table.end() ? empty : it->second;
}

}  // namespace

std::string_view operandClassName(OperandClass cls) { return classInfo(cls).name; }
bool isImmediateClass(OperandClass cls) { return classInfo(cls).immediate; }

void immediateRange(OperandClass cls, int64_t &min, int64_t &max, int64_t &step) {
  const auto &c = classInfo(cls);
  min = c.minValue, max = c.maxValue, step = c.step;
}

std::string operandClassDescription(OperandClass cls) {
  const auto &c = classInfo(cls);
  if (c.immediate) {
    std::string text = std::to_string(c.minValue) + ".." + std::to_string(c.maxValue);
    if (c.step > 1) text += " in steps of " + std::to_string(c.step);
    return text;
  }
  // Group the members by file: "r0..r31, p0..p7, lr".
  std::string text;
  const auto &ms = members(cls);
  for (size_t i = 0; i < ms.size();) {
    size_t j = i;
    while (j + 1 < ms.size() && ms[j + 1].first.kind == ms[i].first.kind) ++j;
    if (!text.empty()) text += ", ";
    text += regName(ms[i].first);
    if (j > i) text += ".." + regName(ms[j].first);
    i = j + 1;
  }
  return text;
}

bool encodeOperand(OperandClass cls, unsigned fieldWidth, const Operand &op, uint64_t &bits, std::string &error) {
  const auto &c = classInfo(cls);
  const uint64_t fieldMask = fieldWidth >= 64 ? ~uint64_t(0) : ((uint64_t(1) << fieldWidth) - 1);
  if (c.immediate) {
    if (op.isReg) {
      error = "expected an immediate (" + operandClassDescription(cls) + "), got register " + regName(op.reg);
      return false;
    }
    if (op.imm < c.minValue || op.imm > c.maxValue) {
      error = "immediate " + std::to_string(op.imm) + " is out of range for " + std::string(c.name) + " (" +
              operandClassDescription(cls) + ")";
      return false;
    }
    if (op.imm % c.step != 0) {
      error = "immediate " + std::to_string(op.imm) + " is not a multiple of " + std::to_string(c.step) + " (" +
              std::string(c.name) + ": " + operandClassDescription(cls) + ")";
      return false;
    }
    bits = static_cast<uint64_t>(op.imm / c.step) & fieldMask;
    return true;
  }
  if (!op.isReg) {
    error = "expected a register (" + operandClassDescription(cls) + "), got immediate " + std::to_string(op.imm);
    return false;
  }
  for (const auto &[reg, code] : members(cls))
    if (reg == op.reg) {
      bits = code & fieldMask;
      return true;
    }
  error = "register " + regName(op.reg) + " is not in class " + std::string(c.name) + " (" +
          operandClassDescription(cls) + ")";
  return false;
}

bool decodeOperand(OperandClass cls, unsigned fieldWidth, uint64_t bits, Operand &op) {
  const auto &c = classInfo(cls);
  if (c.immediate) {
    int64_t v = static_cast<int64_t>(bits);
    if (c.maxValue < 0)
      v -= int64_t(1) << fieldWidth;  // negative-only: the sign bit is implied
    else if (c.minValue < 0 && fieldWidth < 64 && (bits >> (fieldWidth - 1)) & 1)
      v -= int64_t(1) << fieldWidth;
    if (cls == OperandClass::c32s) v = static_cast<int32_t>(static_cast<uint32_t>(bits));
    op = Operand::i(v * c.step);
    return true;
  }
  const uint64_t fieldMask = (uint64_t(1) << fieldWidth) - 1;
  for (const auto &[reg, code] : members(cls))
    if ((code & fieldMask) == bits && code <= fieldMask) {
      op = Operand::r(reg);
      return true;
    }
  return false;
}

// ---- the table ----

namespace {

struct InstrRow {
  std::string_view name;
  Slot slot;
  std::string_view mnemonic, syntax, encoding;
  Semantic semantic;
  AddrMode mode;
  uint8_t delaySlots;
  std::string_view timing;
};

constexpr InstrRow kInstrRows[] = {
#define AIE2P_INSTR(Name, SlotName, Mnemonic, Syntax, Encoding, Sem, Mode, Delay, Timing)                              \
  {#Name, Slot::SlotName, Mnemonic, Syntax, Encoding, Semantic::Sem, AddrMode::Mode, Delay, Timing},
#include "Instructions.def"
#undef AIE2P_INSTR
};

struct FormatRow {
  std::string_view name;
  unsigned bits;
  std::string_view layout;
};

constexpr FormatRow kFormatRows[] = {
#define AIE2P_FORMAT(Name, Bits, Layout) {#Name, Bits, Layout},
#include "Formats.def"
#undef AIE2P_FORMAT
};

std::vector<std::string_view> splitSpaces(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

bool isBits(std::string_view t) {
  return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c == '0' || c == '1'; });
}

unsigned parseUnsigned(std::string_view row, std::string_view t) {
  unsigned v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size()) tableError(row, "bad number '" + std::string(t) + "'");
  return v;
}

void parseSyntax(InstrInfo &info) {
  std::string_view s = info.syntax;
  std::string literal;
  for (size_t i = 0; i < s.size();) {
    if (s[i] != '$') {
      literal += s[i++];
      continue;
    }
    if (!literal.empty()) info.syntaxParts.push_back({false, literal, -1}), literal.clear();
    size_t j = i + 1;
    while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
    std::string field(s.substr(i + 1, j - i - 1));
    if (j >= s.size() || s[j] != ':') tableError(info.name, "operand $" + field + " has no class");
    size_t k = j + 1;
    while (k < s.size() && (std::isalnum(static_cast<unsigned char>(s[k])) || s[k] == '_')) ++k;
    auto cls = classByName(s.substr(j + 1, k - j - 1));
    if (!cls) tableError(info.name, "unknown operand class '" + std::string(s.substr(j + 1, k - j - 1)) + "'");
    info.operands.push_back({field, *cls, 0, 1, 1, -1});
    info.syntaxParts.push_back({true, "", static_cast<int>(info.operands.size() - 1)});
    // "$a0:eR=d0": tied to an earlier operand, which carries the encoding.
    if (k < s.size() && s[k] == '=') {
      size_t t = k + 1;
      while (t < s.size() && (std::isalnum(static_cast<unsigned char>(s[t])) || s[t] == '_')) ++t;
      std::string_view tied = s.substr(k + 1, t - k - 1);
      for (size_t o = 0; o + 1 < info.operands.size(); ++o)
        if (info.operands[o].field == tied) info.operands.back().tiedTo = static_cast<int>(o);
      if (info.operands.back().tiedTo < 0)
        tableError(info.name, "operand $" + field + " is tied to unknown '" + std::string(tied) + "'");
      k = t;
    }
    i = k;
  }
  if (!literal.empty()) info.syntaxParts.push_back({false, literal, -1});
}

void parseEncoding(InstrInfo &info) {
  auto tokens = splitSpaces(info.encoding);
  std::vector<EncodingPiece> msbFirst;
  for (auto t : tokens) {
    if (isBits(t)) {
      uint64_t v = 0;
      for (char c : t) v = (v << 1) | uint64_t(c - '0');
      msbFirst.push_back({EncodingPiece::Kind::Fixed, 0, static_cast<unsigned>(t.size()), -1, 0, v});
    } else if (t[0] == 'x' && t.size() > 1 && std::isdigit(static_cast<unsigned char>(t[1]))) {
      msbFirst.push_back({EncodingPiece::Kind::DontCare, 0, parseUnsigned(info.name, t.substr(1)), -1, 0, 0});
    } else {
      // field:W or field[H:L]
      size_t colon = t.find(':'), bracket = t.find('[');
      std::string_view field;
      unsigned hi = 0, lo = 0;
      if (bracket != std::string_view::npos) {
        field = t.substr(0, bracket);
        size_t close = t.find(']');
        if (colon == std::string_view::npos || close == std::string_view::npos)
          tableError(info.name, "bad field " + std::string(t));
        hi = parseUnsigned(info.name, t.substr(bracket + 1, colon - bracket - 1));
        lo = parseUnsigned(info.name, t.substr(colon + 1, close - colon - 1));
      } else if (colon != std::string_view::npos) {
        field = t.substr(0, colon);
        hi = parseUnsigned(info.name, t.substr(colon + 1)) - 1;
      } else {
        tableError(info.name, "bad encoding token '" + std::string(t) + "'");
      }
      int operand = -1;
      for (size_t i = 0; i < info.operands.size(); ++i)
        if (info.operands[i].field == field) operand = static_cast<int>(i);
      if (operand < 0) tableError(info.name, "field '" + std::string(field) + "' is not an operand of the syntax");
      auto &op = info.operands[operand];
      op.fieldWidth = std::max(op.fieldWidth, hi + 1);
      msbFirst.push_back({EncodingPiece::Kind::Field, 0, hi - lo + 1, operand, lo, 0});
    }
  }
  unsigned bit = 0;
  for (auto it = msbFirst.rbegin(); it != msbFirst.rend(); ++it) {
    it->slotBit = bit;
    if (it->kind == EncodingPiece::Kind::Fixed) {
      info.fixedMask |= ((uint64_t(1) << it->width) - 1) << bit;
      info.fixedValue |= it->value << bit;
    }
    bit += it->width;
    info.pieces.push_back(*it);
  }
  if (bit != slotWidth(info.slot))
    tableError(info.name, "encoding has " + std::to_string(bit) + " bits, the " + std::string(slotName(info.slot)) +
                              " slot has " + std::to_string(slotWidth(info.slot)));
  for (auto &op : info.operands) {
    if (op.tiedTo >= 0) {
      if (op.fieldWidth) tableError(info.name, "tied operand " + op.field + " must not be encoded");
      op.fieldWidth = info.operands[op.tiedTo].fieldWidth;
      continue;
    }
    if (op.fieldWidth == 0) tableError(info.name, "operand " + op.field + " is not encoded");
    unsigned need = classInfo(op.cls).fieldWidth;
    if (op.fieldWidth > need || (isImmediateClass(op.cls) && op.fieldWidth != need))
      tableError(info.name, "operand " + op.field + " has a " + std::to_string(op.fieldWidth) + "-bit field, class " +
                                std::string(operandClassName(op.cls)) + " needs " + std::to_string(need));
  }
}

void parseTiming(InstrInfo &info) {
  for (auto t : splitSpaces(info.timing)) {
    bool read = t[0] == '@';
    if (read) t.remove_prefix(1);
    size_t eq = t.find('=');
    if (eq == std::string_view::npos) tableError(info.name, "bad timing '" + std::string(t) + "'");
    unsigned cycle = parseUnsigned(info.name, t.substr(eq + 1));
    std::string_view field = t.substr(0, eq);
    bool found = false;
    for (auto &op : info.operands)
      if (op.field == field) {
        (read ? op.readCycle : op.writeCycle) = cycle;
        found = true;
      }
    if (!found && read) tableError(info.name, "timing names unknown operand '" + std::string(field) + "'");
  }
}

struct Table {
  std::vector<InstrInfo> instrs;
  std::vector<FormatInfo> formats;
  std::array<std::vector<uint16_t>, kSlotCount> decodeOrder;
};

const Table &table() {
  static const Table t = [] {
    Table t;
    for (const auto &row : kInstrRows) {
      InstrInfo info;
      info.id = static_cast<uint16_t>(t.instrs.size());
      info.name = row.name;
      info.mnemonic = row.mnemonic;
      info.syntax = row.syntax;
      info.encoding = row.encoding;
      info.timing = row.timing;
      info.slot = row.slot;
      info.semantic = row.semantic;
      info.mode = row.mode;
      info.delaySlots = row.delaySlots;
      parseSyntax(info);
      parseEncoding(info);
      parseTiming(info);
      t.instrs.push_back(std::move(info));
    }
    for (const auto &i : t.instrs) t.decodeOrder[static_cast<unsigned>(i.slot)].push_back(i.id);
    for (auto &order : t.decodeOrder)
      std::sort(order.begin(), order.end(), [&](uint16_t a, uint16_t b) {
        int pa = std::popcount(t.instrs[a].fixedMask), pb = std::popcount(t.instrs[b].fixedMask);
        return pa != pb ? pa > pb : a < b;  // most fixed bits first, then table order
      });
    for (const auto &row : kFormatRows) {
      FormatInfo f;
      f.id = static_cast<uint16_t>(t.formats.size());
      f.name = row.name;
      f.layout = row.layout;
      f.bits = row.bits;
      f.slotBit.fill(-1);
      auto tokens = splitSpaces(row.layout);
      unsigned bit = 0;
      for (auto it = tokens.rbegin(); it != tokens.rend(); ++it) {
        std::string_view tok = *it;
        bool isSlot = false;
        for (unsigned s = 0; s < kSlotCount; ++s)
          if (tok == slotName(static_cast<Slot>(s))) {
            f.slotBit[s] = static_cast<int>(bit);
            f.slotMask |= static_cast<uint16_t>(1u << s);
            bit += slotWidth(static_cast<Slot>(s));
            isSlot = true;
          }
        if (isSlot) continue;
        if (isBits(tok)) {
          for (size_t k = 0; k < tok.size(); ++k) {
            unsigned b = bit + static_cast<unsigned>(tok.size() - 1 - k);
            f.fixedMask |= u128(1) << b;
            if (tok[k] == '1') f.fixedValue |= u128(1) << b;
          }
          bit += static_cast<unsigned>(tok.size());
        } else if (tok[0] == 'x') {
          bit += parseUnsigned(row.name, tok.substr(1));
        } else {
          tableError(row.name, "bad layout token '" + std::string(tok) + "'");
        }
      }
      if (bit != row.bits)
        tableError(row.name, "layout has " + std::to_string(bit) + " bits, not " + std::to_string(row.bits));
      t.formats.push_back(f);
    }
    return t;
  }();
  return t;
}

}  // namespace

unsigned InstrInfo::writeCycleOf(std::string_view field) const {
  for (const auto &op : operands)
    if (op.field == field) return op.writeCycle;
  return 1;
}

const std::vector<InstrInfo> &instructions() { return table().instrs; }
const std::vector<FormatInfo> &formats() { return table().formats; }

const InstrInfo *findInstruction(std::string_view name) {
  for (const auto &i : instructions())
    if (i.name == name) return &i;
  return nullptr;
}

const FormatInfo *findFormat(std::string_view name) {
  for (const auto &f : formats())
    if (f.name == name) return &f;
  return nullptr;
}

const FormatInfo *formatForSlots(uint16_t slotMask) {
  for (const auto &f : formats())
    if (f.slotMask == slotMask) return &f;
  return nullptr;
}

// ---- instructions ----

bool encodeInstr(const Instr &instr, uint64_t &slotBits, std::string &error) {
  if (instr.id >= instructions().size()) {
    error = "unknown instruction id " + std::to_string(instr.id);
    return false;
  }
  const auto &info = instr.info();
  if (instr.ops.size() != info.operands.size()) {
    error = std::string(info.mnemonic) + " takes " + std::to_string(info.operands.size()) + " operands, got " +
            std::to_string(instr.ops.size());
    return false;
  }
  std::vector<uint64_t> fieldBits(info.operands.size());
  for (size_t i = 0; i < info.operands.size(); ++i) {
    if (int t = info.operands[i].tiedTo; t >= 0 && !(instr.ops[i] == instr.ops[t])) {
      error = "operand " + std::to_string(i + 1) + " of " + std::string(info.mnemonic) +
              " must be the same register as operand " + std::to_string(t + 1);
      return false;
    }
    std::string why;
    if (!encodeOperand(info.operands[i].cls, info.operands[i].fieldWidth, instr.ops[i], fieldBits[i], why)) {
      error = "operand " + std::to_string(i + 1) + " of " + std::string(info.mnemonic) + ": " + why;
      return false;
    }
  }
  uint64_t bits = info.fixedValue;
  for (const auto &p : info.pieces)
    if (p.kind == EncodingPiece::Kind::Field)
      bits |= ((fieldBits[p.operand] >> p.fieldLow) & ((uint64_t(1) << p.width) - 1)) << p.slotBit;
  slotBits = bits;
  return true;
}

bool decodeInstr(Slot slot, uint64_t slotBits, Instr &instr) {
  const auto &t = table();
  for (uint16_t id : t.decodeOrder[static_cast<unsigned>(slot)]) {
    const auto &info = t.instrs[id];
    if ((slotBits & info.fixedMask) != info.fixedValue) continue;
    std::vector<uint64_t> fieldBits(info.operands.size(), 0);
    for (const auto &p : info.pieces)
      if (p.kind == EncodingPiece::Kind::Field)
        fieldBits[p.operand] |= ((slotBits >> p.slotBit) & ((uint64_t(1) << p.width) - 1)) << p.fieldLow;
    Instr out;
    out.id = id;
    bool ok = true;
    for (size_t i = 0; i < info.operands.size() && ok; ++i) {
      Operand op;
      if (int t = info.operands[i].tiedTo; t >= 0)
        op = out.ops[t];
      else
        ok = decodeOperand(info.operands[i].cls, info.operands[i].fieldWidth, fieldBits[i], op);
      out.ops.push_back(op);
    }
    if (!ok) continue;
    instr = std::move(out);
    return true;
  }
  return false;
}

// ---- bundles ----

namespace {

const InstrInfo &nopFor(Slot slot) {
  static constexpr std::string_view kNops[] = {"NOPA", "NOPB", "NOPX", "NOPM", "NOPS", "NOPV", "NOPXM", "NOP"};
  const InstrInfo *info = findInstruction(kNops[static_cast<unsigned>(slot)]);
  if (!info) std::abort();
  return *info;
}

std::string slotSetText(uint16_t mask) {
  std::string text = "{";
  for (unsigned s = 0; s < kSlotCount; ++s)
    if (mask & (1u << s)) text += (text.size() > 1 ? ", " : "") + std::string(slotName(static_cast<Slot>(s)));
  return text + "}";
}

}  // namespace

bool encodeBundle(const Bundle &bundle, std::vector<uint8_t> &out, std::string &error) {
  if (bundle.slots.empty()) {
    error = "empty bundle";
    return false;
  }
  uint16_t mask = 0;
  std::array<const Instr *, kSlotCount> bySlot{};
  for (const auto &instr : bundle.slots) {
    if (instr.id >= instructions().size()) {
      error = "unknown instruction id";
      return false;
    }
    Slot s = instr.info().slot;
    if (bySlot[static_cast<unsigned>(s)]) {
      error = "two instructions for the " + std::string(slotName(s)) + " slot: '" +
              formatInstr(*bySlot[static_cast<unsigned>(s)]) + "' and '" + formatInstr(instr) + "'";
      return false;
    }
    bySlot[static_cast<unsigned>(s)] = &instr;
    mask |= slotBit(s);
  }
  const FormatInfo *format = formatForSlots(mask);
  if (!format && !(mask & slotBit(Slot::Nop)))
    for (const auto &f : formats())
      if ((f.slotMask & mask) == mask && (!format || f.bits < format->bits)) format = &f;
  if (!format) {
    error = "no bundle format offers the slot set " + slotSetText(mask);
    if ((mask & slotBit(Slot::Lng)) && (mask & (slotBit(Slot::Alu) | slotBit(Slot::Mv))))
      error += " (the lng slot occupies the alu and mv slots)";
    else if (mask & slotBit(Slot::Nop))
      error += " (nop is a bundle of its own; use the slot's nop, e.g. nopa, to fill a slot)";
    return false;
  }
  u128 value = format->fixedValue;
  for (unsigned s = 0; s < kSlotCount; ++s) {
    if (format->slotBit[s] < 0) continue;
    uint64_t bits = 0;
    if (bySlot[s]) {
      if (!encodeInstr(*bySlot[s], bits, error)) return false;
    } else {
      Instr nop;
      nop.id = nopFor(static_cast<Slot>(s)).id;
      if (!encodeInstr(nop, bits, error)) return false;
    }
    value |= u128(bits) << format->slotBit[s];
  }
  for (unsigned b = 0; b < format->bits / 8; ++b) out.push_back(static_cast<uint8_t>(value >> (8 * b)));
  return true;
}

unsigned bundleSizeFromBits(uint8_t b) {
  if (b & 1) return 16;
  if ((b & 3) == 0) {
    if (b & 4) return 6;
    return (b & 8) ? 4 : 2;
  }
  switch ((b >> 2) & 3) {
  case 0: return 8;
  case 2: return 10;
  case 1: return 12;
  default: return 14;
  }
}

bool decodeBundle(std::span<const uint8_t> bytes, Bundle &bundle, unsigned &size, std::string &error) {
  char text[64];
  if (bytes.empty()) {
    error = "no bytes";
    return false;
  }
  size = bundleSizeFromBits(bytes[0]);
  if (bytes.size() < size) {
    std::snprintf(text, sizeof text, "truncated bundle: the format bits say %u bytes, %zu remain", size, bytes.size());
    error = text;
    return false;
  }
  u128 value = 0;
  for (unsigned b = 0; b < size; ++b) value |= u128(bytes[b]) << (8 * b);
  const FormatInfo *format = nullptr;
  for (const auto &f : formats())
    if (f.bits == size * 8 && (value & f.fixedMask) == f.fixedValue) {
      format = &f;
      break;
    }
  if (!format) {
    error = "the bits match no " + std::to_string(size * 8) + "-bit bundle format";
    return false;
  }
  bundle.slots.clear();
  // llvm-aie prints a bundle's slots in this order (lda, ldb, st, alu or lng, mv, vec).
  static constexpr Slot kPrintOrder[] = {Slot::Lda, Slot::Ldb, Slot::St,  Slot::Alu,
                                         Slot::Lng, Slot::Mv,  Slot::Vec, Slot::Nop};
  for (Slot slot : kPrintOrder) {
    unsigned s = static_cast<unsigned>(slot);
    if (format->slotBit[s] < 0) continue;
    unsigned width = slotWidth(static_cast<Slot>(s));
    uint64_t bits = static_cast<uint64_t>(value >> format->slotBit[s]) & ((uint64_t(1) << width) - 1);
    Instr instr;
    if (!decodeInstr(static_cast<Slot>(s), bits, instr)) {
      std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(bits));
      error = "the " + std::string(slotName(static_cast<Slot>(s))) + " slot bits " + text + " of format " +
              std::string(format->name) + " match no instruction the table knows";
      return false;
    }
    bundle.slots.push_back(std::move(instr));
  }
  return true;
}

// ---- printing ----

std::string formatInstr(const Instr &instr) {
  const auto &info = instr.info();
  std::string text(info.mnemonic);
  if (info.syntaxParts.empty()) return text;
  text += ' ';
  for (const auto &part : info.syntaxParts) {
    if (!part.isOperand) {
      text += part.text;
      continue;
    }
    const Operand &op = instr.ops[part.operand];
    text += op.isReg ? regName(op.reg) : std::to_string(op.imm);
  }
  return text;
}

std::string formatBundle(const Bundle &bundle) {
  std::string text;
  for (const auto &instr : bundle.slots) {
    if (!text.empty()) text += "; ";
    text += formatInstr(instr);
  }
  return text;
}

}  // namespace hrx::aie2p
