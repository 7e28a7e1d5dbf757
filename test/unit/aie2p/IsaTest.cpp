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
    {"OR", "or r26, r4, r15", 0x269ebull},
    {"LSHL", "lshl r5, r27, r3", 0xd947bull},
    {"ASHL", "ashl r7, r14, r3", 0x71c7dull},
    {"EQ", "eq r25, r3, r14", 0x1e5cfull},
    {"NE", "ne r2, r8, r18", 0x40a51ull},
    {"LT", "lt r26, r9, r7", 0x4e8f5ull},
    {"LTU", "ltu r19, r11, r6", 0x5ccd9ull},
    {"GE", "ge r12, r23, r6", 0xbb0d3ull},
    {"GEU", "geu r4, r3, r13", 0x191b7ull},
    {"EQZ", "eqz r31, r27", 0xdfda0ull},
    {"NEZ", "nez r20, r29", 0xed1e0ull},
    {"MUL", "mul r29, r23, r19", 0xbf67full},
    {"SEL_EQZ", "sel.eqz r15, r11, r15, r27", 0x5bde4ull},
    {"SEL_NEZ", "sel.nez r5, r19, r31, r27", 0x997f4ull},
    {"MOVX_alu_cg", "movx r21, #814", 0x65572ull},
    {"ACQ_mLockId_imm", "acq #36, r4", 0x90490ull},
    {"ACQ_mLockId_reg", "acq r7, r26", 0x3a750ull},
    {"REL_mLockId_imm", "rel #21, r21", 0x542b0ull},
    {"REL_mLockId_reg", "rel r9, r31", 0x4a3f0ull},
    {"DONE", "done", 0x1000ull},
    {"EVENT_event0", "event #0", 0x2000ull},
    {"EVENT_event1", "event #1", 0x42000ull},
    {"EVENT_WARNING", "event.warning", 0x82000ull},
    {"EVENT_ERROR", "event.error", 0xc2000ull},
    {"J_alumv_or", "j p6", 0x4300ull},
    {"JL_alumv_or", "jl p0", 0x6000ull},
    {"RET", "ret lr", 0x5000ull},
    {"J_lng", "j #162781", 0x4f7ba0002ull},
    {"JL_lng", "jl #657976", 0x1414700004ull},
    {"JNZ", "jnz r21, #734377", 0x2b669530006ull},
    {"JZ", "jz r31, #956731", 0x3fd32760006ull},
    {"MOV_mv_scl", "mov r8, r11", 0x10ad07ull},
    {"MOV_mv_cg", "mov dn2, #917", 0x123955ull},
    {"ADD_NC_mv_add_ri", "add.nc r8, r3, #30", 0x108c78ull},
    {"MOVXM", "movxm ls, #1382656421", 0x149a687cd29ull},
    {"MOVA", "mova dn4, #556", 0x45918ull},
    {"PADDA_pstm_nrm_imm", "padda [p5], #-512", 0xb18cfull},
    {"PADDA_pstm_nrm", "padda [p7], m5", 0xf50cfull},
    {"PADDB_pstm_nrm_imm", "paddb [p2], #-320", 0xafe4ull},
    {"PADDB_pstm_nrm", "paddb [p7], m0", 0x1c2e4ull},
    {"PADDS_pstm_nrm_imm", "padds [p3], #64", 0x638b6ull},
    {"PADDS_pstm_nrm", "padds [p2], m3", 0x4d0b6ull},
    {"PADDXM_pstm_sp_imm", "paddxm [sp], #155072", 0x12ee0000007ull},
    {"LDA_dms_lda_idx_imm", "lda dj2, [p7, #-24]", 0xf4a8dull},
    {"LDA_dms_lda_pstm_nrm_imm", "lda r21, [p7], #16", 0xe9d6dull},
    {"LDA_dms_lda_pstm_nrm", "lda p6, [p4], m2", 0x8963dull},
    {"LDA_dms_lda_idx", "lda dj7, [p4, dj6]", 0x9878dull},
    {"ST_dms_sts_idx_imm", "st dn5, [p6, #-4]", 0xded43ull},
    {"ST_dms_sts_pstm_nrm_imm", "st r19, [p1], #-12", 0x3bce3ull},
    {"ST_dms_sts_pstm_nrm", "st r19, [p3], m3", 0x6d4e3ull},
    {"ST_dms_sts_idx", "st r1, [p7, dj2]", 0xe8063ull},
    {"VLDA_dmx_lda_x_idx_imm", "vlda x4, [p4, #-512]", 0x90a37ull},
    {"VLDA_dmx_lda_x_pstm_nrm_imm", "vlda x2, [p6], #192", 0xc7937ull},
    {"VLDA_dmx_lda_x_pstm_nrm", "vlda x9, [p5], m2", 0xa94b7ull},
    {"VLDA_dmx_lda_x_idx", "vlda x11, [p0, dj7]", 0x1c5b7ull},
    {"VLDB_dmx_ldb_x_idx_imm", "vldb x10, [p6, #256]", 0x191adull},
    {"VLDB_dmx_ldb_x_pstm_nrm_imm", "vldb x6, [p6], #-320", 0x1af6dull},
    {"VLDB_dmx_ldb_x_pstm_nrm", "vldb x7, [p6], m0", 0x1827dull},
    {"VLDB_dmx_ldb_x_idx", "vldb x3, [p1, dj3]", 0x583dull},
    {"VST_dmx_sts_x_idx_imm", "vst x7, [p2, #-320]", 0x56ba6ull},
    {"VST_dmx_sts_x_pstm_nrm_imm", "vst x5, [p0], #-320", 0x17aa6ull},
    {"VST_dmx_sts_x_pstm_nrm", "vst x0, [p2], m1", 0x45026ull},
    {"VST_dmx_sts_x_idx", "vst x5, [p0, dj1]", 0x42a6ull},
    {"VADD_32", "vadd.32 x3, x9, x6", 0xe596bull},
    {"VADD_16", "vadd.16 x2, x10, x4", 0xa90ebull},
    {"VADD_8", "vadd.8 x5, x9, x5", 0x16546bull},
    {"VBAND", "vband x7, x1, x1", 0x1c455bull},
    {"VBOR", "vbor x7, x7, x7", 0x1ddf5bull},
    {"VBCST_32", "vbcst.32 x7, r19", 0x1e7397ull},
    {"VBCST_16", "vbcst.16 x1, r9", 0x52b97ull},
    {"VBCST_8", "vbcst.8 x1, r21", 0x6a397ull},
    {"VCONV_fp32_bf16_mv_ups_xbf", "vconv.fp32.bf16 cml2, x7", 0x107c57ull},
    {"VCONV_bf16_fp32_mv_x_srs_bf", "vconv.bf16.fp32 x11, cml1", 0xb212cull},
    {"VADD_f_vmac_cm2_add_reg", "vadd.f dm4, dm0, dm1, r23", 0x2f010f5ull},
    {"VADD_vmac_cm2_add_reg", "vadd dm1, dm4, dm0, r19", 0x26600f4ull},
    {"VCLR", "vclr dm0", 0x38074ull},
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
