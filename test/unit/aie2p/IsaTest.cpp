// The AIE2P table, encoder and decoder against the ISA facts: per-row slot encodings computed by
// an independent encoder from the llvm-aie records (operands chosen at random once, fixed here),
// byte-exact programs upstream publishes, round trips of every row and random bundles.
#include "hrx/aie2p/Asm.h"
#include "hrx/aie2p/Isa.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

using namespace hrx::aie2p;

namespace {

struct RowVector {
  const char *row;
  const char *assembly;
  uint64_t slotBits;
};

// Generated once from Instructions.def's encoding strings with composite register codes and
// immediate scaling re-implemented from AIE2PMCCodeEmitterGen.inc (not from this encoder).
const RowVector kRowVectors[] = {
    {"NOP", "nop", 0x0ull},
    {"NOPA", "nopa", 0x2cfull},
    {"NOPB", "nopb", 0x4ull},
    {"NOPX", "nopx", 0x0ull},
    {"NOPM", "nopm", 0x1a57ull},
    {"NOPS", "nops", 0x2b6ull},
    {"NOPV", "nopv", 0x70ull},
    {"NOPXM", "nopxm", 0x0ull},
    {"ADD_alu_r_rr", "add r20, r9, r25", 0x4d321ull},
    {"ADD_add_r_ri", "add r3, r4, #-40", 0x20ec6ull},
    {"SUB", "sub r23, r3, r13", 0x1dda3ull},
    {"AND", "and r2, r5, r27", 0x28b69ull},
    {"XOR", "xor r26, r4, r15", 0x269edull},
    {"OR", "or r5, r27, r3", 0xd946bull},
    {"LSHL", "lshl r7, r14, r3", 0x71c7bull},
    {"ASHL", "ashl r25, r3, r14", 0x1e5ddull},
    {"EQ", "eq r2, r8, r18", 0x40a4full},
    {"NE", "ne r26, r9, r7", 0x4e8f1ull},
    {"LT", "lt r19, r11, r6", 0x5ccd5ull},
    {"LTU", "ltu r12, r23, r6", 0xbb0d9ull},
    {"GE", "ge r4, r3, r13", 0x191b3ull},
    {"GEU", "geu r31, r27, r20", 0xdfe97ull},
    {"EQZ", "eqz r29, r29", 0xef5a0ull},
    {"NEZ", "nez r23, r19", 0x9dde0ull},
    {"MUL", "mul r15, r11, r15", 0x5bdffull},
    {"SEL_EQZ", "sel.eqz r5, r19, r31, r27", 0x997e4ull},
    {"SEL_NEZ", "sel.nez r21, r28, r18, r27", 0xe5654ull},
    {"MOVX_alu_cg", "movx r4, #-541", 0xb911aull},
    {"ACQ_mLockId_imm", "acq #53, r10", 0xd4550ull},
    {"ACQ_mLockId_reg", "acq r21, r9", 0xaa530ull},
    {"REL_mLockId_imm", "rel #62, r26", 0xf8350ull},
    {"REL_mLockId_reg", "rel r2, r4", 0x12090ull},
    {"DONE", "done", 0x1000ull},
    {"EVENT_event0", "event #0", 0x2000ull},
    {"EVENT_event1", "event #1", 0x42000ull},
    {"EVENT_WARNING", "event.warning", 0x82000ull},
    {"EVENT_ERROR", "event.error", 0xc2000ull},
    {"J_alumv_or", "j p5", 0x4280ull},
    {"JL_alumv_or", "jl p5", 0x6280ull},
    {"RET", "ret lr", 0x5000ull},
    {"J_lng", "j #734377", 0x1669520002ull},
    {"JL_lng", "jl #1041602", 0x1fc9840004ull},
    {"JNZ", "jnz r29, #144206", 0x3a4669d0006ull},
    {"JZ", "jz r5, #566103", 0xb146ae0006ull},
    {"MOV_mv_scl", "mov m4, r8", 0x202107ull},
    {"MOV_mv_cg", "mov r7, #244", 0xe8f45ull},
    {"ADD_NC_mv_add_ri", "add.nc ls, r28, #17", 0x7f044ull},
    {"MOVXM", "movxm dc1, #-657107395", 0x363554e31e9ull},
    {"MOVA", "mova m3, #431", 0x35ec8ull},
    {"PADDA_pstm_nrm_imm", "padda [p2], #-320", 0x578cfull},
    {"PADDA_pstm_nrm", "padda [p7], m0", 0xe10cfull},
    {"PADDB_pstm_nrm_imm", "paddb [p3], #64", 0xc7e4ull},
    {"PADDB_pstm_nrm", "paddb [p2], m3", 0x9ae4ull},
    {"PADDS_pstm_nrm_imm", "padds [p6], #256", 0xc98b6ull},
    {"PADDS_pstm_nrm", "padds [p7], m1", 0xe50b6ull},
    {"PADDXM_pstm_sp_imm", "paddxm [sp], #-87744", 0x354a0000007ull},
    {"LDA_dms_lda_idx_imm", "lda dc1, [p6, #0]", 0xc09cdull},
    {"LDA_dms_lda_pstm_nrm_imm", "lda r17, [p6], #0", 0xc1c6dull},
    {"LDA_dms_lda_pstm_nrm", "lda dj5, [p5], m6", 0xb958dull},
    {"LDA_dms_lda_idx", "lda r29, [p2, dj1]", 0x4476dull},
    {"ST_dms_sts_idx_imm", "st r22, [p2, #-4]", 0x5eda3ull},
    {"ST_dms_sts_pstm_nrm_imm", "st r29, [p0], #28", 0xff63ull},
    {"ST_dms_sts_pstm_nrm", "st r23, [p4], m4", 0x915e3ull},
    {"ST_dms_sts_idx", "st r0, [p2, dj6]", 0x58023ull},
    {"LDA_dms_lda_spill", "lda p4, [sp, #-536]", 0xbd432ull},
    {"ST_dms_sts_spill", "st lr, [sp, #-744]", 0xa307bull},
    {"VLDA_dmx_lda_x_idx_imm", "vlda x2, [p0, #384]", 0xc937ull},
    {"VLDA_dmx_lda_x_pstm_nrm_imm", "vlda x10, [p6], #256", 0xc9d37ull},
    {"VLDA_dmx_lda_x_pstm_nrm", "vlda x6, [p6], m1", 0xc5337ull},
    {"VLDA_dmx_lda_x_idx", "vlda x7, [p6, dj0]", 0xc03b7ull},
    {"VLDA_dmx_lda_x_spill", "vlda x3, [sp, #-28416]", 0x221f7ull},
    {"VLDB_dmx_ldb_x_idx_imm", "vldb x3, [p7, #-192]", 0x1f53dull},
    {"VLDB_dmx_ldb_x_pstm_nrm_imm", "vldb x1, [p5], #-448", 0x1671dull},
    {"VLDB_dmx_ldb_x_pstm_nrm", "vldb x1, [p0], m2", 0x121dull},
    {"VLDB_dmx_ldb_x_idx", "vldb x8, [p1, dj5]", 0x688dull},
    {"VST_dmx_sts_x_idx_imm", "vst x9, [p0, #-384]", 0x14ca6ull},
    {"VST_dmx_sts_x_pstm_nrm_imm", "vst x3, [p6], #-256", 0xd99a6ull},
    {"VST_dmx_sts_x_pstm_nrm", "vst x10, [p4], m5", 0x95526ull},
    {"VST_dmx_sts_x_idx", "vst x9, [p5, dj7]", 0xbc4a6ull},
    {"VST_dmx_sts_x_spill", "vst x1, [sp, #-25216]", 0x3b0e6ull},
    {"VADD_32", "vadd.32 x7, x7, x7", 0x1ddd6bull},
    {"VADD_16", "vadd.16 x7, x4, x1", 0x1d04ebull},
    {"VADD_8", "vadd.8 x2, x1, x11", 0x86c6bull},
    {"VSUB_32", "vsub.32 x5, x11, x4", 0x16d36bull},
    {"VSUB_16", "vsub.16 x7, x11, x2", 0x1ecaebull},
    {"VSUB_8", "vsub.8 x8, x0, x3", 0x200e6bull},
    {"VSEL_32", "vsel.32 x8, x5, x2, r16", 0x214801ull},
    {"VSEL_16", "vsel.16 x8, x4, x10, r18", 0x212891ull},
    {"VBAND", "vband x11, x4, x8", 0x2d215bull},
    {"VBOR", "vbor x5, x2, x5", 0x14975bull},
    {"VBCST_32", "vbcst.32 x3, r21", 0xeb397ull},
    {"VBCST_16", "vbcst.16 x10, r14", 0x29cb97ull},
    {"VBCST_8", "vbcst.8 x9, r12", 0x258397ull},
    {"VCONV_fp32_bf16_mv_ups_xbf", "vconv.fp32.bf16 cmh1, x6", 0xc6c57ull},
    {"VCONV_bf16_fp32_mv_x_srs_bf", "vconv.bf16.fp32 x11, cmh1", 0xb21acull},
    {"VADD_f_vmac_cm2_add_reg", "vadd.f dm1, dm4, dm3, r22", 0x2c630f5ull},
    {"VADD_vmac_cm2_add_reg", "vadd dm0, dm0, dm2, r30", 0x3c020f4ull},
    {"VSUB_f_vmac_cm2_add_reg", "vsub.f dm2, dm1, dm4, r22", 0x2c8c0fdull},
    {"VSUB_vmac_cm2_add_reg", "vsub dm3, dm2, dm2, r5", 0xad20fcull},
    {"VCLR", "vclr dm1", 0x78074ull},
};

Instr assembleOne(const std::string &text) {
  AsmProgram program;
  std::vector<AsmDiagnostic> diags;
  EXPECT_TRUE(assemble(text, program, diags)) << text << ": " << (diags.empty() ? "" : diags[0].message);
  std::vector<DisasmLine> lines;
  AsmDiagnostic error;
  EXPECT_TRUE(disassemble(program.bytes, lines, error)) << error.message;
  if (lines.size() != 1) return {};
  for (const auto &i : lines[0].bundle.slots)
    if (i.info().semantic != Semantic::Nop || i.info().slot == Slot::Nop || lines[0].bundle.slots.size() == 1) return i;
  return lines[0].bundle.slots[0];
}

}  // namespace

TEST(Aie2pTable, BuildsAndMatchesUpstreamCounts) {
  // 77 bundle formats, as upstream Loom's generated table has (encoding_test.cc).
  EXPECT_EQ(formats().size(), 77u);
  EXPECT_EQ(instructions().size(), std::size(kRowVectors));
  for (const auto &f : formats()) {
    unsigned width = 0;
    for (unsigned s = 0; s < kSlotCount; ++s)
      if (f.slotBit[s] >= 0) width += slotWidth(static_cast<Slot>(s));
    EXPECT_LE(width, f.bits) << f.name;
  }
}

TEST(Aie2pTable, NoTwoFormatsShareASlotSet) {
  std::set<uint16_t> seen;
  for (const auto &f : formats()) EXPECT_TRUE(seen.insert(f.slotMask).second) << f.name;
}

TEST(Aie2pTable, FormatBitsDetermineTheSize) {
  for (const auto &f : formats()) {
    uint8_t low = static_cast<uint8_t>(f.fixedValue & 0xff);
    EXPECT_EQ(bundleSizeFromBits(low) * 8, f.bits) << f.name;
  }
}

TEST(Aie2pTable, EveryRowEncodesAsTheIndependentEncoderSays) {
  for (const auto &v : kRowVectors) {
    const InstrInfo *info = findInstruction(v.row);
    ASSERT_NE(info, nullptr) << v.row;
    Instr instr = assembleOne(v.assembly);
    EXPECT_EQ(instr.info().name, info->name) << v.assembly;
    uint64_t bits = 0;
    std::string error;
    ASSERT_TRUE(encodeInstr(instr, bits, error)) << error;
    EXPECT_EQ(bits, v.slotBits) << v.row << ": " << v.assembly;
    Instr decoded;
    ASSERT_TRUE(decodeInstr(info->slot, v.slotBits, decoded)) << v.row;
    EXPECT_EQ(formatInstr(decoded), formatInstr(instr)) << v.row;
  }
}

// Upstream Loom's encoding test (ROCm/hrx-system loom/.../aie2p/encoding/encoding_test.cc,
// ReproducesRetainedVectorLeaves): the same leaf with VADD_32, VADD_16 and VADD_8.
TEST(Aie2pUpstream, ReproducesLoomVectorAddLeaves) {
  const char *kLeaf =
      "vlda x0, [p0, #0]; vldb x2, [p1, #0]\nnop\nnop\nnop\nnop\nret lr\nnop\n%s x0, x2, x0\nnop\nvst x0, [p2, #0]\nnop\n";
  struct Case {
    const char *vadd;
    uint8_t byte21;
  } cases[] = {{"vadd.32", 0x2d}, {"vadd.16", 0x1d}, {"vadd.8", 0x0d}};
  for (const auto &c : cases) {
    char text[256];
    std::snprintf(text, sizeof text, kLeaf, c.vadd);
    AsmProgram program;
    std::vector<AsmDiagnostic> diags;
    ASSERT_TRUE(assemble(text, program, diags));
    const std::vector<uint8_t> expected = {0x3c, 0x68, 0x09, 0x72, 0x83, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                           0x00, 0x00, 0x00, 0x18, 0x00, 0x28, 0x10, 0x00, 0x00, 0x78, c.byte21,
                                           0x10, 0x18, 0x00, 0x00, 0x18, 0x13, 0x04, 0x0a, 0x00, 0x00};
    EXPECT_EQ(program.bytes, expected) << c.vadd;
  }
}

// DecodesBundleSlotsAndInstructionFields: the dual load's slot values.
TEST(Aie2pUpstream, DecodesTheLoomDualLoadSlots) {
  const uint8_t packet[] = {0x3c, 0x68, 0x09, 0x72, 0x83, 0x00, 0, 0, 0, 0};
  Bundle bundle;
  unsigned size = 0;
  std::string error;
  ASSERT_TRUE(decodeBundle(packet, bundle, size, error)) << error;
  EXPECT_EQ(size, 6u);
  ASSERT_EQ(bundle.slots.size(), 2u);
  uint64_t lda = 0, ldb = 0;
  ASSERT_TRUE(encodeInstr(bundle.slots[0], lda, error));
  ASSERT_TRUE(encodeInstr(bundle.slots[1], ldb, error));
  EXPECT_EQ(lda, 2103u);
  EXPECT_EQ(ldb, 16685u);
  EXPECT_EQ(bundle.slots[0].info().name, "VLDA_dmx_lda_x_idx_imm");
  EXPECT_EQ(bundle.slots[1].info().name, "VLDB_dmx_ldb_x_idx_imm");
}

// Xilinx/llvm-aie llvm/test/MC/AIE/aie2p/event.s: the OBJ lines.
TEST(Aie2pUpstream, ReproducesLlvmAieEventEncodings) {
  AsmProgram program;
  std::vector<AsmDiagnostic> diags;
  ASSERT_TRUE(assemble("event #0\nevent #1\nevent.warning\nevent.error\n", program, diags));
  const std::vector<uint8_t> expected = {0x18, 0x00, 0x10, 0x10, 0x18, 0x00, 0x10, 0x12,
                                         0x18, 0x00, 0x10, 0x14, 0x18, 0x00, 0x10, 0x16};
  EXPECT_EQ(program.bytes, expected);
}

namespace {

Operand randomOperand(const OperandInfo &op, std::mt19937 &rng) {
  if (isImmediateClass(op.cls)) {
    int64_t lo, hi, step;
    immediateRange(op.cls, lo, hi, step);
    return Operand::i(std::uniform_int_distribution<int64_t>(lo / step, hi / step)(rng) * step);
  }
  static std::map<OperandClass, std::vector<Reg>> cache;
  auto &candidates = cache[op.cls];
  if (candidates.empty())
  for (RegKind k : {RegKind::R, RegKind::P, RegKind::M, RegKind::DN, RegKind::DJ, RegKind::DC, RegKind::LR, RegKind::SP, RegKind::LS,
                    RegKind::LE, RegKind::LC, RegKind::CoreId, RegKind::X, RegKind::DM, RegKind::CML, RegKind::CMH})
    for (unsigned i = 0; i < 32; ++i) {
      Reg r{k, static_cast<uint8_t>(i)};
      uint64_t bits;
      std::string why;
      if (encodeOperand(op.cls, op.fieldWidth, Operand::r(r), bits, why)) candidates.push_back(r);
    }
  EXPECT_FALSE(candidates.empty()) << operandClassName(op.cls);
  return Operand::r(candidates[std::uniform_int_distribution<size_t>(0, candidates.size() - 1)(rng)]);
}

Instr randomInstr(const InstrInfo &info, std::mt19937 &rng) {
  Instr instr;
  instr.id = info.id;
  for (const auto &op : info.operands) instr.ops.push_back(randomOperand(op, rng));
  return instr;
}

}  // namespace

TEST(Aie2pRoundTrip, EveryRowWithRandomOperands) {
  std::mt19937 rng(22);
  for (const auto &info : instructions()) {
    for (int n = 0; n < 50; ++n) {
      Instr instr = randomInstr(info, rng);
      uint64_t bits = 0;
      std::string error;
      ASSERT_TRUE(encodeInstr(instr, bits, error)) << info.name << ": " << error;
      Instr back;
      ASSERT_TRUE(decodeInstr(info.slot, bits, back)) << info.name;
      EXPECT_EQ(back.id, instr.id) << info.name << " decoded as " << back.info().name;
      EXPECT_EQ(back.ops, instr.ops) << formatInstr(instr) << " vs " << formatInstr(back);
    }
  }
}

TEST(Aie2pRoundTrip, RandomBundlesDisassembleAndReassembleToTheSameBytes) {
  std::mt19937 rng(2026);
  std::array<std::vector<const InstrInfo *>, kSlotCount> bySlot;
  for (const auto &i : instructions()) bySlot[static_cast<unsigned>(i.slot)].push_back(&i);
  for (int n = 0; n < 2000; ++n) {
    const auto &f = formats()[std::uniform_int_distribution<size_t>(0, formats().size() - 1)(rng)];
    Bundle bundle;
    for (unsigned s = 0; s < kSlotCount; ++s) {
      if (f.slotBit[s] < 0) continue;
      const auto &pool = bySlot[s];
      bundle.slots.push_back(randomInstr(*pool[std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng)], rng));
    }
    std::vector<uint8_t> bytes;
    std::string error;
    ASSERT_TRUE(encodeBundle(bundle, bytes, error)) << error;
    ASSERT_EQ(bytes.size() * 8, f.bits) << f.name;
    std::vector<DisasmLine> lines;
    AsmDiagnostic derr;
    ASSERT_TRUE(disassemble(bytes, lines, derr)) << f.name << ": " << derr.message;
    ASSERT_EQ(lines.size(), 1u);
    AsmProgram program;
    std::vector<AsmDiagnostic> diags;
    ASSERT_TRUE(assemble(lines[0].text, program, diags)) << lines[0].text << ": " << diags[0].message;
    EXPECT_EQ(program.bytes, bytes) << f.name << ": " << lines[0].text;
  }
}

TEST(Aie2pBundles, ErrorsNameTheProblem) {
  std::string error;
  std::vector<uint8_t> out;
  auto instr = [](const char *name, std::vector<Operand> ops) {
    Instr i;
    i.id = findInstruction(name)->id;
    i.ops = std::move(ops);
    return i;
  };
  Bundle twoAlu{{instr("ADD_alu_r_rr", {Operand::r({RegKind::R, 0}), Operand::r({RegKind::R, 1}), Operand::r({RegKind::R, 2})}),
                 instr("SUB", {Operand::r({RegKind::R, 0}), Operand::r({RegKind::R, 1}), Operand::r({RegKind::R, 2})})}};
  EXPECT_FALSE(encodeBundle(twoAlu, out, error));
  EXPECT_NE(error.find("two instructions for the alu slot"), std::string::npos) << error;
  Bundle lngAlu{{instr("MOVXM", {Operand::r({RegKind::R, 0}), Operand::i(5)}), instr("NOPX", {})}};
  EXPECT_FALSE(encodeBundle(lngAlu, out, error));
  EXPECT_NE(error.find("no bundle format offers the slot set {alu, lng}"), std::string::npos) << error;
  // A slot set with no exact format takes the smallest superset, filled with nops.
  Bundle ldaLdbVec{{instr("NOPA", {}), instr("NOPV", {})}};
  EXPECT_TRUE(encodeBundle(ldaLdbVec, out, error)) << error;
}

TEST(Aie2pBundles, DecoderRejectsUnknownBitsAndTruncation) {
  Bundle b;
  unsigned size;
  std::string error;
  const uint8_t truncated[] = {0x3c, 0x68};
  EXPECT_FALSE(decodeBundle(truncated, b, size, error));
  EXPECT_NE(error.find("truncated"), std::string::npos);
  const uint8_t nopWithBitSet[] = {0x00, 0x80};  // I16_NOP with its nop slot bit set
  EXPECT_FALSE(decodeBundle(nopWithBitSet, b, size, error));
  EXPECT_NE(error.find("match no instruction"), std::string::npos) << error;
}

TEST(Aie2pRegisters, NamesParseAndPrint) {
  for (const char *n : {"r0", "r31", "p7", "m3", "dn0", "dj7", "dc2", "lr", "sp", "ls", "le", "lc", "x11", "dm4", "cml0", "cmh4", "core_id"}) {
    auto r = parseReg(n);
    ASSERT_TRUE(r) << n;
    EXPECT_EQ(regName(*r), n);
  }
  for (const char *n : {"r32", "p8", "x12", "dm5", "r01", "q0", "rx"}) EXPECT_FALSE(parseReg(n)) << n;
}
