// The compiler's 64-bit index folding (loom-bridge/core/IndexFold.h): values that leave int64
// fold to nothing and never overflow in C++ (the ASan+UBSan stage runs this test).
#include "IndexFold.h"

#include <gtest/gtest.h>

#include <limits>

namespace {

using hrx::bridge::foldIndexBinary;
using hrx::bridge::foldIndexMultiplyAdd;
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(IndexFold, FoldsInRange) {
  EXPECT_EQ(foldIndexBinary("index.add", 40, 2), 42);
  EXPECT_EQ(foldIndexBinary("index.sub", 2, 40), -38);
  EXPECT_EQ(foldIndexBinary("index.mul", -6, 7), -42);
  EXPECT_EQ(foldIndexBinary("index.scale", 6, 7), 42);
  EXPECT_EQ(foldIndexBinary("index.div", -7, 2), -3);  // C++ truncation
  EXPECT_EQ(foldIndexBinary("index.rem", -7, 2), -1);
  EXPECT_EQ(foldIndexBinary("index.min", kMin, kMax), kMin);
  EXPECT_EQ(foldIndexBinary("index.max", kMin, kMax), kMax);
  EXPECT_EQ(foldIndexBinary("index.add", kMax, 0), kMax);
  EXPECT_EQ(foldIndexBinary("index.sub", kMin, 0), kMin);
  EXPECT_EQ(foldIndexMultiplyAdd(3, 4, 5), 17);
}

TEST(IndexFold, OverflowFoldsToNothing) {
  EXPECT_EQ(foldIndexBinary("index.add", kMax, 1), std::nullopt);  // INT64_MAX + 1
  EXPECT_EQ(foldIndexBinary("index.add", kMin, -1), std::nullopt);
  EXPECT_EQ(foldIndexBinary("index.sub", kMin, 1), std::nullopt);  // INT64_MIN - 1
  EXPECT_EQ(foldIndexBinary("index.sub", 0, kMin), std::nullopt);  // -INT64_MIN
  EXPECT_EQ(foldIndexBinary("index.mul", kMax, 2), std::nullopt);
  EXPECT_EQ(foldIndexBinary("index.mul", kMin, -1), std::nullopt);
  EXPECT_EQ(foldIndexBinary("index.scale", int64_t(1) << 32, int64_t(1) << 31), std::nullopt);
  EXPECT_EQ(foldIndexMultiplyAdd(kMax, 1, 1), std::nullopt);     // the sum overflows
  EXPECT_EQ(foldIndexMultiplyAdd(kMax, 2, kMin), std::nullopt);  // the product overflows first
  EXPECT_EQ(foldIndexMultiplyAdd(kMax, 1, kMin), -1);
}

TEST(IndexFold, DivisionNeedsAPositiveDivisor) {
  EXPECT_EQ(foldIndexBinary("index.div", kMin, -1), std::nullopt);  // the one quotient outside int64
  EXPECT_EQ(foldIndexBinary("index.div", 1, 0), std::nullopt);
  EXPECT_EQ(foldIndexBinary("index.rem", kMin, -1), std::nullopt);
  EXPECT_EQ(foldIndexBinary("index.rem", 1, 0), std::nullopt);
  EXPECT_EQ(foldIndexBinary("index.div", kMin, 1), kMin);
}

TEST(IndexFold, OtherOpsDoNotFold) { EXPECT_EQ(foldIndexBinary("index.cmp", 1, 2), std::nullopt); }

}  // namespace
