// The AIE2P instruction table: slots, variable-width bundle formats and instruction forms, with
// the encoder and decoder between instructions, bundles and bytes. The table itself is the two
// .def files in runtime/aie2p (Formats.def, Instructions.def); this header gives typed access.
// No LLVM: the runtime, the compiler bridge and the tools all link this library (hrx_aie2p).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::aie2p {

// The physical VLIW slots. Lng is the 42-bit slot that occupies the alu and mv positions of a
// bundle; Nop is the artificial 1-bit slot of the 16-bit I16_NOP format.
enum class Slot : uint8_t { Lda, Ldb, Alu, Mv, St, Vec, Lng, Nop };
inline constexpr unsigned kSlotCount = 8;
std::string_view slotName(Slot slot);
unsigned slotWidth(Slot slot);

// Register files the table and the simulator know. Sub-registers of the vector and accumulator
// files (wl/wh, bm*) are not modelled as names yet.
// D is the 2D/3D addressing register dK: the group (mK, dnK, djK, dcK), not a storage of its own.
// Y is the 1024-bit pair yK = x(2K) (low) : x(2K+1) (high).
// L is the 64-bit pair lK = r2K+1 (high) : r2K (low).
// S is the shift register file s0..s3; CrRnd, CrSat, CrSRSMode the accumulator-to-vector controls,
// CrUPSMode the vector-to-accumulator one (vups lane widths); SrSRSOf and SrUPSOf their sticky
// overflow status bits.
enum class RegKind : uint8_t {
  R,
  P,
  M,
  DN,
  DJ,
  DC,
  LR,
  SP,
  LS,
  LE,
  LC,
  CoreId,
  X,
  DM,
  CML,
  CMH,
  D,
  Y,
  L,
  S,
  CrRnd,
  CrSat,
  CrSRSMode,
  CrUPSMode,
  SrSRSOf,
  SrUPSOf,
  // The 512-bit quarters of dmK: bmllK (lanes 0-15 of 32 bits), bmlhK, bmhlK, bmhhK.
  BMLL,
  BMLH,
  BMHL,
  BMHH,
  // exK: the 576-bit bfp16 register, xK's 512 mantissa bits (byte i = lane i) and eK's 64
  // exponent bits (byte b = block b of 8 lanes). E is eK alone (storage, no operand class).
  EX,
  E
};

struct Reg {
  RegKind kind = RegKind::R;
  uint8_t index = 0;
  friend bool operator==(Reg, Reg) = default;
};
std::string regName(Reg reg);
std::optional<Reg> parseReg(std::string_view text);

// Operand classes: the register sets an operand field accepts (and how each member is encoded),
// or an immediate domain.
enum class OperandClass : uint8_t {
  eR,
  eP,
  eM,
  eDJ,    // plain 5/3-bit register numbers
  eRS16,  // r16..r31 as 0..15 (vector select masks)
  LdaScl,
  SclSt,  // load/store scalar composite (r, p, m, dn, dj, dc, lr)
  MvSclDst,
  MvSclSrc,  // move composite destination / source
  LdaCg,
  AluCg,  // mova and movx destinations
  Xm,
  CMm,
  eDM,    // 512-bit vectors, 1024-bit accumulator halves, 2048-bit accumulators
  eD,     // d0..d7: the (m, dn, dj, dc) groups of 2D post-modify addressing
  eY,     // y0..y5: 1024-bit pairs of x registers
  eL,     // l0..l15: 64-bit pairs of r registers (byte-lane masks)
  eS,     // s0..s3: shift amounts of vsrs
  eDS,    // d0..d3: 3D post-modify (dK for the first dimension, d(K+4) for the second)
  MvBMX,  // vmov's 6-bit composite: x0..x11 and the 512-bit accumulator quarters bm*0..4
  eEX,    // ex0..ex11: bfp16 vectors (llvm-aie's OP_mEXa/mEXv/mEXw), exK encoded K
  c4s,
  c5s_step2,  // byte and halfword load/store offsets
  c6u,
  c7s,
  c8s,
  c11s,
  c32s,
  c6s_step4,
  c10s_step64,
  c19s_step64,
  addr20,
  c12n_step4,
  c16n_step64,  // negative-only stack offsets (spills below sp)
};
std::string_view operandClassName(OperandClass cls);
bool isImmediateClass(OperandClass cls);
// What an operand of this class may be, for diagnostics: "r0..r31", "-64..63", ...
std::string operandClassDescription(OperandClass cls);
// An immediate class's values: min..max in steps of step.
void immediateRange(OperandClass cls, int64_t &min, int64_t &max, int64_t &step);

enum class Semantic : uint8_t {
  Nop,
  Done,
  Event,
  Add,
  Sub,
  And,
  Or,
  Xor,
  Lshl,
  Ashl,
  Eq,
  Ne,
  Lt,
  Ltu,
  Ge,
  Geu,
  Eqz,
  Nez,
  Mul,
  Mac,
  Msc,
  SelEqz,
  SelNez,
  Abs,
  CountLeadingZeros,
  ExtendS8,
  ExtendS16,
  ExtendU8,
  ExtendU16,
  Move,
  MovImm,
  AddNoCarry,
  Acquire,
  Release,
  AcquireConditional,
  ReleaseConditional,
  Jump,
  Call,
  Return,
  JumpNonZero,
  JumpZero,
  JumpNonZeroDecrement,
  PointerAdd,
  StackAdd,
  Load,
  Store,
  VectorLoad,
  VectorStore,
  LoadS8,
  LoadU8,
  LoadS16,
  LoadU16,
  Store8,
  Store16,
  VectorAdd32,
  VectorAdd16,
  VectorAdd8,
  VectorSub32,
  VectorSub16,
  VectorSub8,
  VectorAnd,
  VectorOr,
  VectorSelect32,
  VectorSelect16,
  VectorMaxLt32,
  VectorMaxLt16,
  VectorMinGe32,
  VectorMinGe16,
  VectorLt32,
  VectorLt16,
  VectorGe32,
  VectorGe16,
  VectorExtract32,
  VectorExtract16,
  VectorExtractBroadcast32,
  VectorExtractBroadcast16,
  VectorMaxLt8,
  VectorMinGe8,
  VectorShift,
  VectorShuffle,
  VectorSrs,
  VectorStoreSrs,
  VectorUps,
  VectorSelect8,
  VectorLt8,
  VectorGe8,
  MatMul,
  MatMulNeg,
  MatMulAcc,
  MatMulSub,
  MatMulFloat,
  MatMulSubFloat,
  MatMulNegFloat,
  MatMulAccFloat,
  VectorMaxLtBf16,
  VectorMinGeBf16,
  VectorLtBf16,
  Broadcast32,
  Broadcast16,
  Broadcast8,
  WidenBf16,
  NarrowBf16,
  AccumulatorAddFloat,
  AccumulatorAdd,
  AccumulatorSubFloat,
  AccumulatorSub,
  AccumulatorClear,
  VectorMove,    // vmov: 512 bits between x registers and accumulator quarters
  ConvertBfp16,  // vconv.bfp16ebs8.fp32: 64 fp32 accumulator lanes to 8 blocks of bfp16ebs8
  MatMulBfp,     // vmul.f/vmac.f on ex registers: the bfp16ebs8 8x8x8 product (word 780)
  MatMulAccBfp,
};
enum class AddrMode : uint8_t { None, Idx, IdxImm, PostMod, PostImm, Stack, Post2D, Post3D };

// One operand of an instruction form, in assembly order.
struct OperandInfo {
  std::string field;  // the encoding field name ("d0", "ptr", "imm")
  OperandClass cls;
  unsigned fieldWidth;  // bits the encoding gives the field
  unsigned writeCycle;  // pipeline cycle the result is written (results only)
  unsigned readCycle;   // pipeline cycle the operand is read
  int tiedTo = -1;      // an operand that must be the same register (not encoded itself)
};

// One piece of an instruction's slot encoding, least significant first.
struct EncodingPiece {
  enum class Kind : uint8_t { Field, Fixed, DontCare } kind;
  unsigned slotBit;  // lowest slot bit the piece occupies
  unsigned width;
  int operand;        // Field: index into operands
  unsigned fieldLow;  // Field: lowest bit of the operand value the piece carries
  uint64_t value;     // Fixed: the bits
};

struct InstrInfo {
  uint16_t id;
  std::string_view name, mnemonic, syntax, encoding, timing;
  Slot slot;
  Semantic semantic;
  AddrMode mode;
  uint8_t delaySlots;
  uint64_t fixedMask = 0, fixedValue = 0;  // over the slot bits
  std::vector<OperandInfo> operands;
  std::vector<EncodingPiece> pieces;
  // The syntax split into literal text and operand references (index into operands).
  struct SyntaxPart {
    bool isOperand;
    std::string text;
    int operand;
  };
  std::vector<SyntaxPart> syntaxParts;
  // Named implicit results' write cycles ("ptr=1" for post-modify; 1 when unlisted).
  unsigned writeCycleOf(std::string_view field) const;
};

struct FormatInfo {
  uint16_t id;
  std::string_view name, layout;
  unsigned bits;
  uint16_t slotMask = 0;                  // bit per Slot
  std::array<int, kSlotCount> slotBit{};  // lowest bundle bit of each present slot, -1 absent
  unsigned __int128 fixedMask = 0, fixedValue = 0;
};

// The table. Built once from the .def files on first use; a malformed row aborts with a message
// (the unit tests build it, so a bad row never ships).
const std::vector<InstrInfo> &instructions();
const std::vector<FormatInfo> &formats();
const InstrInfo *findInstruction(std::string_view name);
const FormatInfo *findFormat(std::string_view name);
// The format carrying exactly these slots, or null.
const FormatInfo *formatForSlots(uint16_t slotMask);
uint16_t slotBit(Slot slot);

// An operand value: a register, or an immediate's value (scaled, as written in assembly).
struct Operand {
  bool isReg = false;
  Reg reg;
  int64_t imm = 0;
  static Operand r(Reg reg) {
    Operand o;
    o.isReg = true;
    o.reg = reg;
    return o;
  }
  static Operand i(int64_t v) {
    Operand o;
    o.imm = v;
    return o;
  }
  friend bool operator==(const Operand &, const Operand &) = default;
};

struct Instr {
  uint16_t id = 0;
  std::vector<Operand> ops;
  const InstrInfo &info() const { return instructions()[id]; }
  friend bool operator==(const Instr &, const Instr &) = default;
};

struct Bundle {
  std::vector<Instr> slots;  // at most one per slot
};

// The value an operand class gives a member (register code or immediate field bits), or an error
// text saying why the operand does not fit ("r3 is not in class eP (p0..p7)").
bool encodeOperand(OperandClass cls, unsigned fieldWidth, const Operand &op, uint64_t &bits, std::string &error);
bool decodeOperand(OperandClass cls, unsigned fieldWidth, uint64_t bits, Operand &op);

bool encodeInstr(const Instr &instr, uint64_t &slotBits, std::string &error);
// The first form (most fixed bits first) of this slot whose fixed bits and operand fields accept
// the bits.
bool decodeInstr(Slot slot, uint64_t slotBits, Instr &instr);

// Bundle <-> bytes. encodeBundle picks the format with exactly the bundle's slots; when none has,
// the smallest format with a superset, filling the other slots with their nop. Errors: two
// instructions for one slot; a slot set no format offers; an operand that does not fit.
bool encodeBundle(const Bundle &bundle, std::vector<uint8_t> &out, std::string &error);
// Decodes the bundle at the start of bytes; size is its length in bytes. Errors: truncated bytes,
// bits matching no format, a slot value matching no instruction.
bool decodeBundle(std::span<const uint8_t> bytes, Bundle &bundle, unsigned &size, std::string &error);
// Length of the bundle at the start of bytes from its format bits (2, 4, ... 16), or 0.
unsigned bundleSizeFromBits(uint8_t firstByte);

// llvm-aie assembly: instructions joined by "; ".
std::string formatInstr(const Instr &instr);
std::string formatBundle(const Bundle &bundle);

}  // namespace hrx::aie2p
