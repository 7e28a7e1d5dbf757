// hrx-run's value parsing, printing, .npy round trips and comparisons.
#include "Values.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace hrx::run;

TEST(RunnerValues, TypedLiteralsAndSplat) {
  auto v = parseValue("2x3xi16=[1 2 3][4 5 -6]");
  ASSERT_TRUE(v.isOk()) << v.status().toString();
  EXPECT_EQ(v->shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(v->bytes.size(), 12u);
  // IREE's form: every dimension but the outermost is bracketed (issue #27).
  EXPECT_EQ(formatValue(*v), "2x3xi16=[1 2 3][4 5 -6]");
  auto splat = parseValue("4xf32=1.5");
  ASSERT_TRUE(splat.isOk());
  EXPECT_EQ(formatValue(*splat), "4xf32=1.5 1.5 1.5 1.5");
  EXPECT_EQ(formatValue(*parseValue("i64=-9000000000")), "i64=-9000000000");
  EXPECT_EQ(formatValue(*parseValue("ui64=18446744073709551615")), "ui64=18446744073709551615");
}

TEST(RunnerValues, PrintsNestedShapesAsIree) {
  EXPECT_EQ(formatValue(*parseValue("2x2x2xi32=1 2 3 4 5 6 7 8")), "2x2x2xi32=[[1 2][3 4]][[5 6][7 8]]");
  EXPECT_EQ(formatValue(*parseValue("1x3xi8=1 2 3")), "1x3xi8=[1 2 3]");
  EXPECT_EQ(formatValue(*parseValue("4xi32=1 2 3 4")), "4xi32=1 2 3 4");
  // Elided past the limit, with the open brackets closed.
  EXPECT_EQ(formatValue(*parseValue("2x3xi32=1 2 3 4 5 6"), 4), "2x3xi32=[1 2 3][4 ...]");
  EXPECT_EQ(formatValue(*parseValue("2x2x2xi32=1 2 3 4 5 6 7 8"), 3), "2x2x2xi32=[[1 2][3 ...]]");
  EXPECT_EQ(formatValue(*parseValue("6xi32=1 2 3 4 5 6"), 2), "6xi32=1 2 ...");
}

TEST(RunnerValues, Bf16RoundsToNearestEven) {
  // 1 + 2^-8 is halfway between bf16 1.0 and 1.0078125: ties go to even (1.0).
  auto v = parseValue("2xbf16=1.00390625 1.01171875");
  ASSERT_TRUE(v.isOk());
  EXPECT_EQ(formatValue(*v), "2xbf16=1 1.015625");
}

TEST(RunnerValues, Errors) {
  EXPECT_EQ(parseValue("4xq32=1").status().message(), "invalid value '4xq32=1': unknown element type 'q32'");
  EXPECT_EQ(parseValue("4xui8=-1").status().message(), "invalid value '4xui8=-1': '-1' is negative for unsigned ui8");
  EXPECT_EQ(parseValue("2xi32=1 x").status().message(), "invalid value '2xi32=1 x': 'x' is not an integer");
  EXPECT_EQ(parseValue("nonsense").status().message(),
            "invalid value 'nonsense': expected [DIMSx]TYPE=VALUES, @file.npy or @file.bin");
  EXPECT_FALSE(parseValue("@/nonexistent/x.npy").isOk());
  // The size limit refuses a shape before anything is allocated.
  EXPECT_EQ(parseValue("1000xi32=0", 3999).status().message(),
            "invalid value '1000xi32=0': the shape is too large (more than 3999 bytes)");
  EXPECT_TRUE(parseValue("1000xi32=0", 4000).isOk());
}

TEST(RunnerValues, NpyRoundTripAndRejections) {
  std::string dir = std::filesystem::temp_directory_path() / ("hrx-values-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto v = parseValue("2x2xf64=0.25 -1 3 4");
  ASSERT_TRUE(v.isOk());
  ASSERT_TRUE(writeValue(dir + "/x.npy", *v).isOk());
  auto back = parseValue("@" + dir + "/x.npy");
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  EXPECT_EQ(back->shape, v->shape);
  EXPECT_EQ(back->bytes, v->bytes);
  EXPECT_EQ(std::filesystem::file_size(dir + "/x.npy") % 64, 32u);  // a 64-byte-aligned header, 32 data bytes
  Value raw;
  raw.bytes = {1, 2, 3};
  EXPECT_FALSE(writeValue(dir + "/raw.npy", raw).isOk());
  std::ofstream(dir + "/bad.npy") << "not numpy";
  EXPECT_EQ(parseValue("@" + dir + "/bad.npy").status().message(),
            dir + "/bad.npy: not a valid .npy file: missing the \\x93NUMPY magic");
  std::filesystem::remove_all(dir);
}

TEST(RunnerValues, Comparison) {
  auto a = *parseValue("3xf32=1 2 3"), b = *parseValue("3xf32=1 2.0001 3");
  EXPECT_TRUE(compareValues(a, b, 0.001) == std::nullopt);
  EXPECT_EQ(*compareValues(a, b, 0), "element at index 1 (2.0000999) does not match the expected (2)");
  auto i = *parseValue("2xi32=5 6"), j = *parseValue("2xi32=5 7");
  EXPECT_EQ(*compareValues(i, j, 100), "element at index 1 (7) does not match the expected (6)");
}
