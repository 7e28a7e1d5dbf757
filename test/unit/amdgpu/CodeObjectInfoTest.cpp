#include "hrx/amdgpu/CodeObjectInfo.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hrx::amdgpu {
namespace {

TEST(Gfx1151Occupancy, BoundedBySixteenWavesPerSimd) {
  EXPECT_EQ(gfx1151Occupancy(4, 32, 0, 256), 16u);
  EXPECT_EQ(gfx1151Occupancy(48, 32, 0, 256), 16u);  // 1536 / 48 = 32 waves fit
}

TEST(Gfx1151Occupancy, VgprFileInGranules) {
  EXPECT_EQ(gfx1151Occupancy(100, 32, 0, 256), 12u);  // 100 → 120 VGPRs: 1536 / 120
  EXPECT_EQ(gfx1151Occupancy(256, 32, 0, 256), 5u);   // 256 → 264: 1536 / 264
  EXPECT_EQ(gfx1151Occupancy(100, 64, 0, 256), 7u);   // 100 → 108: 768 / 108
}

TEST(Gfx1151Occupancy, LdsPerWgpOrCu) {
  // 40 KiB per workgroup of 8 waves: a WGP holds 3 (24 waves over 4 SIMDs), a CU 1 (8 over 2).
  EXPECT_EQ(gfx1151Occupancy(4, 32, 40 * 1024, 256, true), 6u);
  EXPECT_EQ(gfx1151Occupancy(4, 32, 40 * 1024, 256, false), 4u);
  // Without a known workgroup size the LDS bound is not applied.
  EXPECT_EQ(gfx1151Occupancy(4, 32, 40 * 1024, 0), 16u);
}

TEST(Gfx1151Occupancy, UnknownWaveSize) { EXPECT_EQ(gfx1151Occupancy(4, 16, 0, 256), std::nullopt); }

TEST(ReadCodeObjectInfo, RejectsWhatIsNotACodeObject) {
  std::vector<uint8_t> text = {'n', 'o', 't', ' ', 'e', 'l', 'f'};
  auto info = readCodeObjectInfo(text);
  ASSERT_FALSE(info.has_value());
  EXPECT_FALSE(info.error().empty());
  EXPECT_FALSE(readCodeObjectInfo({}).has_value());
}

}  // namespace
}  // namespace hrx::amdgpu
