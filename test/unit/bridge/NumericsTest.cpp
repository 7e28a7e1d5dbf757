// bfp16ebs8 encoding and the 8x8x8 MMA (core/builtins/Numerics.c, as compiled into host shared
// objects) against an independent oracle written here from npu5-hardware.md §6.1's closed form:
// q = floor(±M / 2^(17 + E - e)), value = q * 2^(E - 133).
#include "Bfp16Oracle.h"
#include "HostLibrary.h"

#include "hrx/bridge/Builtins.h"
#include "hrx/bridge/HostCode.h"

#include <llvm/IR/IRBuilder.h>

#include <cmath>

namespace hrx::bridge::test {
namespace {

using EncodeFn = void (*)(const void *, uint8_t *, uint32_t);
using MmaFn = void (*)(const uint8_t *, const uint8_t *, const float *, float *, uint32_t, uint32_t, uint32_t);
using MmaBf16Fn = void (*)(const uint16_t *, const uint16_t *, const float *, float *);

// Exports each builtin under "hrx.test.<builtin>" so the test can call it from the .so.
std::vector<uint8_t> buildBuiltinsLibrary() {
  llvm::LLVMContext context;
  llvm::Module module("numerics-test", context);
  for (const char *name : {kBfpEncodeF32, kBfpEncodeBf16, kBfpMma, kBfpMmaBf16}) {
    llvm::Function *builtin = declareBuiltin(module, name);
    EXPECT_NE(builtin, nullptr) << name;
    if (!builtin) return {};
    llvm::Function *wrapper = llvm::Function::Create(builtin->getFunctionType(), llvm::GlobalValue::ExternalLinkage,
                                                     std::string("hrx.test.") + name, module);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", wrapper));
    std::vector<llvm::Value *> args;
    for (llvm::Argument &a : wrapper->args()) args.push_back(&a);
    b.CreateCall(builtin, args);
    b.CreateRetVoid();
  }
  auto so = hostSharedObject(module, {});
  EXPECT_TRUE(so.has_value()) << (so ? std::string() : so.error().message);
  return so ? *so : std::vector<uint8_t>{};
}

class NumericsTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() { library = new HostLibrary(buildBuiltinsLibrary()); }
  static void TearDownTestSuite() { delete library; }
  static HostLibrary *library;
};
HostLibrary *NumericsTest::library = nullptr;

TEST_F(NumericsTest, Bf16EncodeMatchesOracleOnRandomBlocks) {
  ASSERT_TRUE(library->loaded()) << library->error();
  auto encode = library->lookup<EncodeFn>(std::string("hrx.test.") + kBfpEncodeBf16);
  ASSERT_NE(encode, nullptr);
  constexpr int kBlocks = 20000;
  std::mt19937 rng(1234);
  std::vector<uint16_t> input(kBlocks * 8);
  for (int b = 0; b < kBlocks; ++b) randomBlock(rng, &input[b * 8]);
  std::vector<uint8_t> payload(kBlocks * 9);
  encode(input.data(), payload.data(), kBlocks);
  int negatives = 0, zeros = 0;
  for (int b = 0; b < kBlocks; ++b) {
    float values[8];
    for (int i = 0; i < 8; ++i) values[i] = bf16ToFloat(input[b * 8 + i]);
    OracleBlock expected = oracleEncode(values);
    ASSERT_EQ(payload[b * 9], expected.exponent) << "block " << b;
    for (int i = 0; i < 8; ++i) {
      ASSERT_EQ(static_cast<int8_t>(payload[b * 9 + 1 + i]), expected.q[i]) << "block " << b << " element " << i;
      negatives += expected.q[i] < 0;
      zeros += values[i] == 0.0f;
    }
  }
  EXPECT_GT(negatives, kBlocks);  // the generator really exercised negatives and zeros
  EXPECT_GT(zeros, kBlocks / 4);
}

TEST_F(NumericsTest, F32EncodeTruncatesNegativesTowardMinusInfinity) {
  ASSERT_TRUE(library->loaded()) << library->error();
  auto encode = library->lookup<EncodeFn>(std::string("hrx.test.") + kBfpEncodeF32);
  ASSERT_NE(encode, nullptr);
  // E = 130 (8.0); -1.5 (e = 127) → floor(-0xC00000 / 2^20) = -12; 1.5 → 12; -0.0 → 0.
  const float values[8] = {8.0f, -1.5f, 1.5f, -0.0f, -1e-30f, 0.0f, -8.0f, 3.0f};
  uint8_t payload[9];
  encode(values, payload, 1);
  EXPECT_EQ(payload[0], 130);
  const int8_t expected[8] = {64, -12, 12, 0, -1, 0, -64, 24};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(static_cast<int8_t>(payload[1 + i]), expected[i]) << i;
}

TEST_F(NumericsTest, NonFiniteBlocksPoisonTheProduct) {
  ASSERT_TRUE(library->loaded()) << library->error();
  auto encode = library->lookup<EncodeFn>(std::string("hrx.test.") + kBfpEncodeF32);
  auto mma = library->lookup<MmaFn>(std::string("hrx.test.") + kBfpMma);
  ASSERT_NE(mma, nullptr);
  std::vector<float> lhs(64, 1.0f), rhs(64, 1.0f), acc(64, 0.0f), out(64);
  lhs[3] = INFINITY;  // row 0
  std::vector<uint8_t> a(72), b(72);
  encode(lhs.data(), a.data(), 8);
  encode(rhs.data(), b.data(), 8);
  EXPECT_EQ(a[0], 0xFF);
  mma(a.data(), b.data(), acc.data(), out.data(), 8, 8, 8);
  for (int c = 0; c < 8; ++c) EXPECT_TRUE(std::isnan(out[c])) << c;
  for (int i = 8; i < 64; ++i) EXPECT_EQ(out[i], 8.0f) << i;
}

TEST_F(NumericsTest, MmaMatchesOracleOnRandomMatrices) {
  ASSERT_TRUE(library->loaded()) << library->error();
  auto encode = library->lookup<EncodeFn>(std::string("hrx.test.") + kBfpEncodeBf16);
  auto mma = library->lookup<MmaFn>(std::string("hrx.test.") + kBfpMma);
  auto fused = library->lookup<MmaBf16Fn>(std::string("hrx.test.") + kBfpMmaBf16);
  ASSERT_NE(mma, nullptr);
  ASSERT_NE(fused, nullptr);
  constexpr int kMatrices = 1500;  // 12,000 blocks per operand
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> accDist(-4.0f, 4.0f);
  for (int m = 0; m < kMatrices; ++m) {
    uint16_t lhs[64], rhs[64];
    for (int blk = 0; blk < 8; ++blk) randomBlock(rng, lhs + blk * 8), randomBlock(rng, rhs + blk * 8);
    float acc[64], out[64];
    for (float &v : acc) v = accDist(rng);
    uint8_t a[72], b[72];
    encode(lhs, a, 8);
    encode(rhs, b, 8);
    mma(a, b, acc, out, 8, 8, 8);
    float expected[64];
    oracleMma(lhs, rhs, acc, expected);
    for (int i = 0; i < 64; ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(expected[i]))
          << "matrix " << m << " element " << i;
    oracleMmaFused(lhs, rhs, acc, expected);  // B's columns are the rhs blocks
    fused(lhs, rhs, acc, out);
    for (int i = 0; i < 64; ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(expected[i]))
          << "fused, matrix " << m << " element " << i;
  }
}

// Operands whose block exponents lie within a few octaves of each other take the MMA's exact
// integer path; it must agree bit for bit with the f64 sum, also where the accumulator forces a
// rounding and where products cancel. The spreads straddle the path's limit.
TEST_F(NumericsTest, MmaMatchesOracleOnNarrowExponentSpreads) {
  ASSERT_TRUE(library->loaded()) << library->error();
  auto encode = library->lookup<EncodeFn>(std::string("hrx.test.") + kBfpEncodeBf16);
  auto mma = library->lookup<MmaFn>(std::string("hrx.test.") + kBfpMma);
  auto fused = library->lookup<MmaBf16Fn>(std::string("hrx.test.") + kBfpMmaBf16);  // encode + MMA in one
  ASSERT_NE(mma, nullptr);
  ASSERT_NE(fused, nullptr);
  std::mt19937 rng(2026);
  for (int m = 0; m < 3000; ++m) {
    int base = std::uniform_int_distribution<int>(1, 240)(rng);
    int spread = std::uniform_int_distribution<int>(0, 9)(rng);  // per operand; the limit is 13 for both
    auto value = [&](bool cancel, uint16_t partner) -> uint16_t {
      int kind = std::uniform_int_distribution<int>(0, 11)(rng);
      if (kind == 0) return 0;
      if (kind == 1) return 0x8000;
      if (cancel) return uint16_t(partner ^ 0x8000);
      uint32_t sign = std::uniform_int_distribution<uint32_t>(0, 1)(rng) << 15;
      uint32_t exponent = std::min(254, base + std::uniform_int_distribution<int>(0, spread)(rng));
      return uint16_t(sign | (exponent << 7) | std::uniform_int_distribution<uint32_t>(0, 127)(rng));
    };
    uint16_t lhs[64], rhs[64];
    for (int i = 0; i < 64; ++i) lhs[i] = value(false, 0);
    for (int i = 0; i < 64; ++i) rhs[i] = value(i >= 8 && i % 3 == 0, rhs[i - 8 * (i >= 8)]);
    float acc[64], out[64], expected[64];
    for (float &v : acc) {
      int kind = std::uniform_int_distribution<int>(0, 3)(rng);
      v = kind == 0 ? 0.0f : std::bit_cast<float>(static_cast<uint32_t>(rng()) & 0xBFFFFFFFu);  // finite, below 2
      if (kind == 1) v = std::ldexp(1.0f + float(rng() % 1024) / 1024.0f, base - 127 - 20 + int(rng() % 40));
    }
    uint8_t a[72], b[72];
    encode(lhs, a, 8);
    encode(rhs, b, 8);
    mma(a, b, acc, out, 8, 8, 8);
    oracleMma(lhs, rhs, acc, expected);
    for (int i = 0; i < 64; ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(expected[i]))
          << "matrix " << m << " element " << i;
    oracleMmaFused(lhs, rhs, acc, expected);  // B's columns are the rhs blocks
    fused(lhs, rhs, acc, out);
    for (int i = 0; i < 64; ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(expected[i]))
          << "fused, matrix " << m << " element " << i;
  }
}

// The fused MMA on rows that are all zero, subnormal, spread over up to 7 octaves or sit at the
// ends of the exponent range: products far below or above the f32 range, and accumulators that
// absorb them.
TEST_F(NumericsTest, FusedMmaMatchesOracleOnZeroRowsAndRangeEnds) {
  ASSERT_TRUE(library->loaded()) << library->error();
  auto fused = library->lookup<MmaBf16Fn>(std::string("hrx.test.") + kBfpMmaBf16);
  ASSERT_NE(fused, nullptr);
  std::mt19937 rng(77);
  auto pick = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng); };
  auto row = [&](uint16_t *out, int base) {
    int kind = pick(0, 7);
    for (int i = 0; i < 8; ++i) {
      uint32_t sign = uint32_t(pick(0, 1)) << 15, mantissa = uint32_t(pick(0, 127));
      uint32_t exponent = kind == 0   ? 0
                          : kind == 1 ? 0  // subnormal (or zero)
                          : kind == 2 ? uint32_t(pick(1, 6))
                          : kind == 3 ? uint32_t(pick(248, 254))
                                      : uint32_t(std::clamp(base + pick(0, 7), 1, 254));
      out[i] = uint16_t(sign | (exponent << 7) | (kind == 0 ? 0 : mantissa));
    }
  };
  for (int m = 0; m < 4000; ++m) {
    int base = pick(1, 250);
    uint16_t lhs[64], rhs[64];
    for (int r = 0; r < 8; ++r) row(lhs + r * 8, pick(1, 250)), row(rhs + r * 8, base);
    float acc[64], out[64], expected[64];
    for (float &v : acc) v = pick(0, 1) ? 0.0f : std::bit_cast<float>(static_cast<uint32_t>(rng()) & 0xBFFFFFFFu);
    oracleMmaFused(lhs, rhs, acc, expected);
    fused(lhs, rhs, acc, out);
    for (int i = 0; i < 64; ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(expected[i]))
          << "matrix " << m << " element " << i;
  }
}

}  // namespace
}  // namespace hrx::bridge::test
