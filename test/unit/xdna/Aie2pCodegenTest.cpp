// The AIE2P selector on hand-written stage IR: results checked in the instruction-set simulator
// against values worked out by hand, and the constructs it must refuse (never wrong code).
#include "hrx/aie2p/Simulator.h"
#include "hrx/xdna/Aie2pCodegen.h"

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/SourceMgr.h>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>

using namespace hrx;

namespace {

struct Compiled {
  std::expected<xdna::CoreCode, xdna::CodegenError> code;
};

Compiled compile(const std::string &ir) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(ir, error, context);
  EXPECT_TRUE(module) << error.getMessage().str();
  if (!module) return {std::unexpected(xdna::CodegenError{"parse", ""})};
  xdna::prepareModuleForAie2p(*module);
  llvm::Function *stage = module->getFunction("hrx.stage.w");
  EXPECT_TRUE(stage);
  return {xdna::compileStageForAie2p(*stage)};
}

// Runs the program on two records of `words` i32 each (input, output) the way the runtime does.
std::vector<int32_t> run(const xdna::CoreCode &code, const std::vector<int32_t> &input, size_t outputWords) {
  aie2p::TileMemory memory;
  std::memcpy(memory.data.data(), input.data(), 4 * input.size());
  uint32_t records[2] = {aie2p::kOwnMemoryBase, aie2p::kOwnMemoryBase + 0x4000};
  std::memcpy(memory.data.data() + 0xF000, records, 8);
  aie2p::Core core(code.bytes, aie2p::CoreMemoryMap{&memory}, 10'000'000);
  // The worker alone: from its offset, returning to the `done` the measured program ends with.
  core.setPc(16);
  core.setScalar(aie2p::Reg{aie2p::RegKind::LR, 0}, uint32_t(code.bytes.size() - 4));
  core.setScalar(aie2p::Reg{aie2p::RegKind::R, 0}, aie2p::kOwnMemoryBase + 0xF000);
  core.setScalar(aie2p::Reg{aie2p::RegKind::SP, 0}, aie2p::kOwnMemoryBase + 0xF200);
  EXPECT_EQ(core.run(), aie2p::CoreState::Halted) << (core.trap() ? core.trap()->message() : "");
  std::vector<int32_t> out(outputWords);
  std::memcpy(out.data(), memory.data.data() + 0x4000, 4 * outputWords);
  return out;
}

const char *kHeader = "target datalayout = \"e-m:e-p:32:32-i64:64-i128:128-n32-S64\"\n";

}  // namespace

TEST(Aie2pCodegen, LoopWithPhiCycleAndSelects) {
  // out[i] = a - c with (a, b, c) rotating through a phi cycle, c picking up in[i] clamped to 100.
  auto c = compile(std::string(kHeader) + R"(
define void @hrx.stage.w(ptr %records) {
entry:
  %in = load ptr, ptr %records
  %p1 = getelementptr i8, ptr %records, i32 4
  %out = load ptr, ptr %p1
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %a = phi i32 [ 1, %entry ], [ %b, %loop ]
  %b = phi i32 [ 2, %entry ], [ %c, %loop ]
  %c = phi i32 [ 3, %entry ], [ %t, %loop ]
  %src = getelementptr i32, ptr %in, i32 %i
  %x = load i32, ptr %src
  %big = icmp sgt i32 %x, 100
  %clamped = select i1 %big, i32 100, i32 %x
  %t = add i32 %a, %clamped
  %d = sub i32 %a, %c
  %dst = getelementptr i32, ptr %out, i32 %i
  store i32 %d, ptr %dst
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, 8
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
)");
  ASSERT_TRUE(c.code) << c.code.error().construct << ": " << c.code.error().reason;
  std::vector<int32_t> in = {5, 200, -7, 50, 1000, 0, 3, 99};
  std::vector<int32_t> expected;
  int32_t a = 1, b = 2, cc = 3;
  for (int32_t x : in) {
    expected.push_back(a - cc);
    int32_t t = a + (x > 100 ? 100 : x);
    a = b, b = cc, cc = t;
  }
  EXPECT_EQ(run(*c.code, in, 8), expected);
}

TEST(Aie2pCodegen, NarrowIntegersWrapAndExtend) {
  // i8 arithmetic wraps, sext/zext and signed i8 compares see the right values.
  auto c = compile(std::string(kHeader) + R"(
define void @hrx.stage.w(ptr %records) {
  %in = load ptr, ptr %records
  %p1 = getelementptr i8, ptr %records, i32 4
  %out = load ptr, ptr %p1
  %x = load i8, ptr %in
  %y = add i8 %x, 100
  %s = sext i8 %y to i32
  store i32 %s, ptr %out
  %z = zext i8 %y to i32
  %o1 = getelementptr i32, ptr %out, i32 1
  store i32 %z, ptr %o1
  %lt = icmp slt i8 %y, 0
  %l = zext i1 %lt to i32
  %o2 = getelementptr i32, ptr %out, i32 2
  store i32 %l, ptr %o2
  ret void
}
)");
  ASSERT_TRUE(c.code) << c.code.error().construct << ": " << c.code.error().reason;
  // x = 50: 50 + 100 = 150 = -106 as i8.
  EXPECT_EQ(run(*c.code, {50}, 3), (std::vector<int32_t>{-106, 150, 1}));
}

TEST(Aie2pCodegen, RefusesWhatItCannotSelect) {
  auto division = compile(std::string(kHeader) + R"(
define void @hrx.stage.w(ptr %records) {
  %in = load ptr, ptr %records
  %x = load i32, ptr %in
  %q = sdiv i32 %x, 7
  store i32 %q, ptr %in
  ret void
}
)");
  ASSERT_FALSE(division.code);
  EXPECT_NE(division.code.error().reason.find("division"), std::string::npos);
  // An i64 whose range is not known: computing it in 32 bits could be wrong, so it is refused.
  auto wide = compile(std::string(kHeader) + R"(
define void @hrx.stage.w(ptr %records) {
  %in = load ptr, ptr %records
  %x = load i32, ptr %in
  %w = sext i32 %x to i64
  %m = mul i64 %w, %w
  %h = lshr i64 %m, 32
  %t = trunc i64 %h to i32
  store i32 %t, ptr %in
  ret void
}
)");
  ASSERT_FALSE(wide.code);
  EXPECT_NE(wide.code.error().reason.find("i64"), std::string::npos) << wide.code.error().reason;
  // A vector load without 32-byte alignment would trap on the core: records are 64-byte aligned,
  // 4 bytes into one is not.
  auto unaligned = compile(std::string(kHeader) + R"(
define void @hrx.stage.w(ptr %records) {
  %record = load ptr, ptr %records
  %in = getelementptr i8, ptr %record, i32 4
  %v = load <16 x i32>, ptr %in, align 4
  %p1 = getelementptr i8, ptr %records, i32 4
  %out = load ptr, ptr %p1
  store <16 x i32> %v, ptr %out, align 64
  ret void
}
)");
  ASSERT_FALSE(unaligned.code);
  EXPECT_NE(unaligned.code.error().reason.find("alignment"), std::string::npos);
}

TEST(Aie2pCodegen, IndexLoopAndVectorAdd) {
  // Loom's shape: an i64 index loop (range proven), 16-lane i32 loads, a splat add, stores.
  auto c = compile(std::string(kHeader) + R"(
define void @hrx.stage.w(ptr %records) {
entry:
  %in = load ptr, ptr %records
  %p1 = getelementptr i8, ptr %records, i32 4
  %out = load ptr, ptr %p1
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %off = shl nuw nsw i64 %i, 2
  %src = getelementptr i8, ptr %in, i64 %off
  %v = load <16 x i32>, ptr %src, align 64
  %w = add <16 x i32> %v, splat (i32 5)
  %dst = getelementptr i8, ptr %out, i64 %off
  store <16 x i32> %w, ptr %dst, align 64
  %next = add nuw nsw i64 %i, 16
  %done = icmp ult i64 %next, 64
  br i1 %done, label %loop, label %exit
exit:
  ret void
}
)");
  ASSERT_TRUE(c.code) << c.code.error().construct << ": " << c.code.error().reason;
  std::vector<int32_t> in(64), expected(64);
  for (int i = 0; i < 64; ++i) in[i] = i * 3 - 40, expected[i] = in[i] + 5;
  EXPECT_EQ(run(*c.code, in, 64), expected);
}

TEST(Aie2pCodegen, CountedLoopsRunAsZeroOverheadLoopsWithPackedBundles) {
  // out[0] = the sum of in[0..7], out[1 + i] = in[i] + i: one counted loop, run with ls/le/lc.
  auto c = compile(std::string(kHeader) + R"(
define void @hrx.stage.w(ptr %records) {
entry:
  %in = load ptr, ptr %records
  %p1 = getelementptr i8, ptr %records, i32 4
  %out = load ptr, ptr %p1
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %sum, %loop ]
  %src = getelementptr i32, ptr %in, i32 %i
  %x = load i32, ptr %src
  %sum = add i32 %acc, %x
  %v = add i32 %x, %i
  %slot = add i32 %i, 1
  %dst = getelementptr i32, ptr %out, i32 %slot
  store i32 %v, ptr %dst
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, 8
  br i1 %done, label %exit, label %loop
exit:
  store i32 %sum, ptr %out
  ret void
}
)");
  ASSERT_TRUE(c.code) << c.code.error().construct << ": " << c.code.error().reason;
  const std::string &a = c.code->assembly;
  EXPECT_NE(a.find("movxm lc, #8"), std::string::npos) << a;
  EXPECT_NE(a.find("zle0:"), std::string::npos) << a;
  EXPECT_EQ(a.find("jnz"), std::string::npos) << a;  // no compare-and-branch is left
  EXPECT_NE(a.find("; "), std::string::npos) << a;   // at least one bundle holds two slots
  std::vector<int32_t> in = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_EQ(run(*c.code, in, 9), (std::vector<int32_t>{36, 1, 3, 5, 7, 9, 11, 13, 15}));
}

TEST(Aie2pCodegen, VectorCompareSelectMinMax) {
  // 16 x i32: out0 = smax(a, 5), out1 = (a < b) ? a : b + 1 (signed), out2 = umin(a, b); and
  // 32 x i16: out3 = (x >= y, unsigned) ? x : y.
  auto c = compile(std::string(kHeader) + R"(
declare <16 x i32> @llvm.smax.v16i32(<16 x i32>, <16 x i32>)
declare <16 x i32> @llvm.umin.v16i32(<16 x i32>, <16 x i32>)
define void @hrx.stage.w(ptr %records) {
  %in = load ptr, ptr %records
  %p1 = getelementptr i8, ptr %records, i32 4
  %out = load ptr, ptr %p1
  %a = load <16 x i32>, ptr %in, align 64
  %bp = getelementptr i8, ptr %in, i32 64
  %b = load <16 x i32>, ptr %bp, align 64
  %m = call <16 x i32> @llvm.smax.v16i32(<16 x i32> %a, <16 x i32> splat (i32 5))
  store <16 x i32> %m, ptr %out, align 64
  %lt = icmp slt <16 x i32> %a, %b
  %b1 = add <16 x i32> %b, splat (i32 1)
  %s = select <16 x i1> %lt, <16 x i32> %a, <16 x i32> %b1
  %o1 = getelementptr i8, ptr %out, i32 64
  store <16 x i32> %s, ptr %o1, align 64
  %u = call <16 x i32> @llvm.umin.v16i32(<16 x i32> %a, <16 x i32> %b)
  %o2 = getelementptr i8, ptr %out, i32 128
  store <16 x i32> %u, ptr %o2, align 64
  %x = load <32 x i16>, ptr %in, align 64
  %y = load <32 x i16>, ptr %bp, align 64
  %ge = icmp uge <32 x i16> %x, %y
  %t = select <32 x i1> %ge, <32 x i16> %x, <32 x i16> %y
  %o3 = getelementptr i8, ptr %out, i32 192
  store <32 x i16> %t, ptr %o3, align 64
  ret void
}
)");
  ASSERT_TRUE(c.code) << c.code.error().construct << ": " << c.code.error().reason;
  std::vector<int32_t> in(32);
  for (int i = 0; i < 16; ++i) in[i] = (i * 7919) % 23 - 11, in[16 + i] = (i * 104729) % 19 - 9;
  in[3] = -70000, in[16 + 3] = 65535;  // halves that differ in sign and magnitude
  std::vector<int32_t> out = run(*c.code, in, 64);
  for (int i = 0; i < 16; ++i) {
    int32_t a = in[i], b = in[16 + i];
    EXPECT_EQ(out[i], std::max(a, 5)) << i;
    EXPECT_EQ(out[16 + i], a < b ? a : b + 1) << i;
    EXPECT_EQ(uint32_t(out[32 + i]), std::min(uint32_t(a), uint32_t(b))) << i;
  }
  const uint16_t *x = reinterpret_cast<const uint16_t *>(in.data());
  const uint16_t *y = reinterpret_cast<const uint16_t *>(in.data() + 16);
  const uint16_t *t = reinterpret_cast<const uint16_t *>(out.data() + 48);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(t[i], x[i] >= y[i] ? x[i] : y[i]) << i;
}

TEST(Aie2pCodegen, FloatVectorArithmeticAndIntegerMultiply) {
  // 16 x float: out0 = a + b, out1 = a - b, out2 = (a olt b) ? -a : b, out3 = (a une b) ? a : 0;
  // 16 x i32: out4 = a * b, out5 = a ^ b (bits); 32 x i16: out6 = x * y.
  auto c = compile(std::string(kHeader) + R"(
define void @hrx.stage.w(ptr %records) {
  %in = load ptr, ptr %records
  %p1 = getelementptr i8, ptr %records, i32 4
  %out = load ptr, ptr %p1
  %a = load <16 x float>, ptr %in, align 64
  %bp = getelementptr i8, ptr %in, i32 64
  %b = load <16 x float>, ptr %bp, align 64
  %s = fadd <16 x float> %a, %b
  store <16 x float> %s, ptr %out, align 64
  %d = fsub <16 x float> %a, %b
  %o1 = getelementptr i8, ptr %out, i32 64
  store <16 x float> %d, ptr %o1, align 64
  %lt = fcmp olt <16 x float> %a, %b
  %n = fneg <16 x float> %a
  %m = select <16 x i1> %lt, <16 x float> %n, <16 x float> %b
  %o2 = getelementptr i8, ptr %out, i32 128
  store <16 x float> %m, ptr %o2, align 64
  %ne = fcmp une <16 x float> %a, %b
  %z = select <16 x i1> %ne, <16 x float> %a, <16 x float> zeroinitializer
  %o3 = getelementptr i8, ptr %out, i32 192
  store <16 x float> %z, ptr %o3, align 64
  %ia = load <16 x i32>, ptr %in, align 64
  %ib = load <16 x i32>, ptr %bp, align 64
  %prod = mul <16 x i32> %ia, %ib
  %o4 = getelementptr i8, ptr %out, i32 256
  store <16 x i32> %prod, ptr %o4, align 64
  %x = xor <16 x i32> %ia, %ib
  %o5 = getelementptr i8, ptr %out, i32 320
  store <16 x i32> %x, ptr %o5, align 64
  %ha = load <32 x i16>, ptr %in, align 64
  %hb = load <32 x i16>, ptr %bp, align 64
  %hp = mul <32 x i16> %ha, %hb
  %o6 = getelementptr i8, ptr %out, i32 384
  store <32 x i16> %hp, ptr %o6, align 64
  ret void
}
)");
  ASSERT_TRUE(c.code) << c.code.error().construct << ": " << c.code.error().reason;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const float as[16] = {1.5f,  -0.0f, 0.0f, nan,   inf,  -inf, 1e-40f, 3e38f,
                        -2.5f, 7.0f,  1.0f, -1.0f, 0.1f, nan,  2.0f,   5.0f};
  const float bs[16] = {2.25f, 0.0f,  -0.0f, 1.0f, inf,  1.0f, -1e-40f, 3e38f,
                        -2.5f, -7.0f, nan,   1.0f, 0.2f, nan,  3.0f,    -5.0f};
  std::vector<int32_t> in(32);
  std::memcpy(in.data(), as, 64);
  std::memcpy(in.data() + 16, bs, 64);
  std::vector<int32_t> out = run(*c.code, in, 112);
  auto bits = [](float f) { return std::bit_cast<uint32_t>(f); };
  auto same = [&](float expected, int32_t got) {  // NaN lanes: any NaN (LLVM leaves the bits open)
    return std::isnan(expected) ? std::isnan(std::bit_cast<float>(got)) : bits(expected) == uint32_t(got);
  };
  for (int i = 0; i < 16; ++i) {
    float a = as[i], b = bs[i];
    EXPECT_TRUE(same(a + b, out[i])) << "fadd lane " << i;
    EXPECT_TRUE(same(a - b, out[16 + i])) << "fsub lane " << i;
    EXPECT_TRUE(same(a < b ? -a : b, out[32 + i])) << "olt/fneg lane " << i;
    EXPECT_TRUE(same(!(a == b) ? a : 0.0f, out[48 + i])) << "une lane " << i;
    EXPECT_EQ(uint32_t(out[64 + i]), uint32_t(in[i]) * uint32_t(in[16 + i])) << "mul lane " << i;
    EXPECT_EQ(uint32_t(out[80 + i]), uint32_t(in[i]) ^ uint32_t(in[16 + i])) << "xor lane " << i;
  }
  const uint16_t *x = reinterpret_cast<const uint16_t *>(in.data()), *y = x + 32;
  const uint16_t *p = reinterpret_cast<const uint16_t *>(out.data() + 96);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(p[i], uint16_t(x[i] * y[i])) << "i16 mul lane " << i;

  // An fp32 division has no AIE2P instruction or routine: refused, naming the construct.
  auto fdiv = compile(std::string(kHeader) + R"(
define void @hrx.stage.w(ptr %records) {
  %in = load ptr, ptr %records
  %a = load <16 x float>, ptr %in, align 64
  %m = fdiv <16 x float> %a, %a
  store <16 x float> %m, ptr %in, align 64
  ret void
}
)");
  ASSERT_FALSE(fdiv.code);
  EXPECT_NE(fdiv.code.error().construct.find("fdiv <16 x float>"), std::string::npos) << fdiv.code.error().construct;
}

TEST(Aie2pCodegen, FloatMultiplyAndAddAreExactOnEveryMagnitude) {
  // Scalar: out[i] = in[2i] * in[2i+1] and out[512 + i] = in[2i] + in[2i+1] for 512 pairs (the
  // integer multiply routine, the vector unit's add); 16 x float: out[1024..1039] = the products
  // of the first 32 inputs' halves (the lane loop). Checked against the host's IEEE arithmetic.
  auto c = compile(std::string(kHeader) + R"(
define void @hrx.stage.w(ptr %records) {
entry:
  %in = load ptr, ptr %records
  %p1 = getelementptr i8, ptr %records, i32 4
  %out = load ptr, ptr %p1
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %k = shl i32 %i, 1
  %pa = getelementptr float, ptr %in, i32 %k
  %a = load float, ptr %pa
  %k1 = add i32 %k, 1
  %pb = getelementptr float, ptr %in, i32 %k1
  %b = load float, ptr %pb
  %m = fmul float %a, %b
  %pm = getelementptr float, ptr %out, i32 %i
  store float %m, ptr %pm
  %s = fadd float %a, %b
  %j = add i32 %i, 512
  %ps = getelementptr float, ptr %out, i32 %j
  store float %s, ptr %ps
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, 512
  br i1 %done, label %vector, label %loop
vector:
  %va = load <16 x float>, ptr %in, align 64
  %vbp = getelementptr i8, ptr %in, i32 64
  %vb = load <16 x float>, ptr %vbp, align 64
  %vm = fmul <16 x float> %va, %vb
  %vo = getelementptr i8, ptr %out, i32 4096
  store <16 x float> %vm, ptr %vo, align 64
  ret void
}
)");
  ASSERT_TRUE(c.code) << c.code.error().construct << ": " << c.code.error().reason;
  // Random bit patterns, the ends of the exponent range (overflow, underflow, subnormal results),
  // and the specials.
  const uint32_t specials[] = {0,          0x80000000, 0x7f800000, 0xff800000, 1,          0x80000001,
                               0x007fffff, 0x00800000, 0x7f7fffff, 0x3f800000, 0x3f800001, 0x7fc00000,
                               0x3fffffff, 0x00400000, 0x1f800000, 0x20000000, 0x5f800000, 0x60000000};
  std::vector<int32_t> in(1024);
  uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (size_t i = 0; i < in.size(); ++i) {
    uint32_t r = next(), w;
    if (i % 4 == 0)
      w = specials[(r >> 8) % std::size(specials)];
    else if (i % 4 == 1)
      w = r;
    else
      w = (r & 0x807fffffu) | ((((r >> 23) % 48) + (i % 8 < 4 ? 0u : 208u)) << 23);
    in[i] = static_cast<int32_t>(w);
  }
  std::vector<int32_t> out = run(*c.code, in, 1040);
  auto value = [](int32_t w) { return std::bit_cast<float>(w); };
  auto same = [&](float expected, int32_t got) {
    return std::isnan(expected) ? std::isnan(value(got)) : std::bit_cast<uint32_t>(expected) == uint32_t(got);
  };
  for (int i = 0; i < 512; ++i) {
    float a = value(in[2 * i]), b = value(in[2 * i + 1]);
    EXPECT_TRUE(same(a * b, out[i])) << std::hex << "fmul " << in[2 * i] << " " << in[2 * i + 1] << ": " << out[i];
    EXPECT_TRUE(same(a + b, out[512 + i]))
        << std::hex << "fadd " << in[2 * i] << " " << in[2 * i + 1] << ": " << out[512 + i];
  }
  for (int i = 0; i < 16; ++i)
    EXPECT_TRUE(same(value(in[i]) * value(in[16 + i]), out[1024 + i])) << "vector fmul lane " << i;
}

TEST(Aie2pCodegen, WideVectorCopiesBecomeWordLoopsAndBf16WidensByAShift) {
  // What the looped float-fragment MMA lowers to: 64 x bf16 copied from the record to a stack
  // slot (memcpy), a zero 64 x f32 accumulator (memset), a lane loop widening bf16 (a 16-bit load
  // shifted left by 16) and adding it, and the 64 x f32 slot copied to the output (memcpy).
  auto c = compile(std::string(kHeader) + R"(
define void @hrx.stage.w(ptr %records) {
entry:
  %halves = alloca <64 x bfloat>, align 64
  %sums = alloca <64 x float>, align 64
  %in = load ptr, ptr %records, !align !0
  %p1 = getelementptr i8, ptr %records, i32 4
  %out = load ptr, ptr %p1, !align !0
  %v = load <64 x bfloat>, ptr %in, align 64
  store <64 x bfloat> %v, ptr %halves, align 64
  store <64 x float> zeroinitializer, ptr %sums, align 64
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %ph = getelementptr bfloat, ptr %halves, i32 %i
  %h = load bfloat, ptr %ph, align 2
  %x = fpext bfloat %h to float
  %ps = getelementptr float, ptr %sums, i32 %i
  %s = load float, ptr %ps, align 4
  %t = fadd float %s, %x
  store float %t, ptr %ps, align 4
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, 64
  br i1 %done, label %exit, label %loop
exit:
  %r = load <64 x float>, ptr %sums, align 64
  store <64 x float> %r, ptr %out, align 64
  ret void
}
!0 = !{i64 64}
)");
  ASSERT_TRUE(c.code) << c.code.error().construct << ": " << c.code.error().reason;
  // bf16 pairs per word: either sign, zeros, a subnormal, large and small exponents, infinity.
  const uint16_t halves[] = {0x3f80, 0xbf80, 0x0000, 0x8000, 0x0001, 0x7f7f, 0x0080, 0xff80,
                             0x4049, 0xc2f7, 0x1234, 0x8765, 0x7f80, 0x3c00, 0x5f00, 0x2000};
  std::vector<int32_t> in(32);
  for (int i = 0; i < 32; ++i)
    in[i] = int32_t(uint32_t(halves[(2 * i) % 16]) | uint32_t(halves[(2 * i + 1 + i / 8) % 16]) << 16);
  std::vector<int32_t> out = run(*c.code, in, 64);
  for (int i = 0; i < 64; ++i) {
    uint32_t half = (uint32_t(in[i / 2]) >> (16 * (i % 2))) & 0xffff;
    EXPECT_EQ(uint32_t(out[i]), std::bit_cast<uint32_t>(0.0f + std::bit_cast<float>(half << 16))) << "lane " << i;
  }
  // A store to the loaded record between the load and the copy's store: the copy is not a
  // memcpy (it would read the stored word), and the selector names the wide load.
  auto clobbered = compile(std::string(kHeader) + R"(
define void @hrx.stage.w(ptr %records) {
entry:
  %halves = alloca <64 x bfloat>, align 64
  %in = load ptr, ptr %records, !align !0
  %p1 = getelementptr i8, ptr %records, i32 4
  %out = load ptr, ptr %p1, !align !0
  %v = load <64 x bfloat>, ptr %in, align 64
  store i32 7, ptr %in, align 4
  store <64 x bfloat> %v, ptr %halves, align 64
  %h = load volatile bfloat, ptr %halves, align 2
  store bfloat %h, ptr %out, align 2
  ret void
}
!0 = !{i64 64}
)");
  ASSERT_FALSE(clobbered.code);
  EXPECT_NE(clobbered.code.error().construct.find("<64 x bfloat>"), std::string::npos)
      << clobbered.code.error().construct;
}

TEST(Aie2pCodegen, FusedBfpMmaExpandsIntoTheHardwareSequence) {
  // The fused bfp16 MMA on three records (lhs, rhs, out) and a constant accumulator: zero gives
  // vmul.f; a splat is broadcast and vmac.f'd; a constant that is not a splat has no placement.
  auto stage = [](const std::string &accumulator) {
    return std::string(kHeader) + "@acc = private constant <64 x float> " + accumulator + R"(
declare void @__hrx_bfp16ebs8_mma_bf16(ptr, ptr, ptr, ptr)
define void @hrx.stage.w(ptr %records) {
  %lhs = load ptr, ptr %records
  %p1 = getelementptr i8, ptr %records, i32 4
  %rhs = load ptr, ptr %p1
  %p2 = getelementptr i8, ptr %records, i32 8
  %out = load ptr, ptr %p2
  call void @__hrx_bfp16ebs8_mma_bf16(ptr %lhs, ptr %rhs, ptr @acc, ptr %out)
  ret void
}
)";
  };
  auto zero = compile(stage("zeroinitializer"));
  ASSERT_TRUE(zero.code) << zero.code.error().reason;
  for (const char *expected : {"vshuffle x8, x6, x7, r28", "mov crRnd, #0", "vconv.bfp16ebs8.fp32 ex0, dm0",
                               "vconv.bfp16ebs8.fp32 ex2, dm1", "vmul.f dm2, ex0, ex2, r30", "vst x7, [p1, #192]"})
    EXPECT_NE(zero.code->assembly.find(expected), std::string::npos) << expected << "\n" << zero.code->assembly;
  std::string halves = "<float 0.5";
  for (int i = 1; i < 64; ++i) halves += ", float 0.5";
  auto half = compile(stage(halves + ">"));
  ASSERT_TRUE(half.code) << half.code.error().reason;
  EXPECT_NE(half.code->assembly.find("vbcst.32 x4, r31"), std::string::npos) << half.code->assembly;
  EXPECT_NE(half.code->assembly.find("vmac.f dm2, dm2, ex0, ex2, r30"), std::string::npos) << half.code->assembly;
  std::string ramp = "<float 0.0";
  for (int i = 1; i < 64; ++i) ramp += ", float " + std::to_string(i) + ".0";
  auto mixed = compile(stage(ramp + ">"));
  ASSERT_FALSE(mixed.code);
  EXPECT_NE(mixed.code.error().reason.find("a constant other than a splat accumulator"), std::string::npos)
      << mixed.code.error().reason;
}
