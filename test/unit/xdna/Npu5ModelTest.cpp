#include "hrx/xdna/Npu5Model.h"

#include <gtest/gtest.h>

using namespace hrx::xdna;

TEST(Npu5Model, GeometryAndTileKinds) {
  EXPECT_EQ(Npu5Model::kindOfRow(0), TileKind::Shim);
  EXPECT_EQ(Npu5Model::kindOfRow(1), TileKind::MemTile);
  for (unsigned r = 2; r < 6; ++r) EXPECT_EQ(Npu5Model::kindOfRow(r), TileKind::Compute);
  EXPECT_EQ(Npu5Model::computeTiles(1), 4u);
  EXPECT_EQ(Npu5Model::computeTiles(8), 32u);
  EXPECT_FALSE(Npu5Model::isValidContextWidth(0));
  EXPECT_TRUE(Npu5Model::isValidContextWidth(1));
  EXPECT_TRUE(Npu5Model::isValidContextWidth(8));
  EXPECT_FALSE(Npu5Model::isValidContextWidth(9));
}

TEST(Npu5Model, PerTileResources) {
  const TileResources &core = Npu5Model::resources(TileKind::Compute);
  EXPECT_EQ(core.dataMemoryBytes, 65536u);
  EXPECT_EQ(core.programMemoryBytes, 16384u);
  EXPECT_EQ(core.locks, 16u);
  EXPECT_EQ(core.bufferDescriptors, 16u);
  EXPECT_EQ(core.s2mmChannels, 2u);
  EXPECT_EQ(core.mm2sChannels, 2u);
  EXPECT_EQ(core.bd.bufferLengthBits, 14u);
  EXPECT_EQ(core.bd.wrapBits, 8u);
  const TileResources &mem = Npu5Model::resources(TileKind::MemTile);
  EXPECT_EQ(mem.dataMemoryBytes, 512u * 1024);
  EXPECT_EQ(mem.locks, 64u);
  EXPECT_EQ(mem.bufferDescriptors, 48u);
  EXPECT_EQ(mem.s2mmChannels, 6u);
  EXPECT_EQ(mem.bd.addressDims, 4u);
  const TileResources &shim = Npu5Model::resources(TileKind::Shim);
  EXPECT_EQ(shim.dataMemoryBytes, 0u);
  EXPECT_EQ(shim.bd.stepBits, 20u);
  EXPECT_EQ(shim.bd.wrapBits, 10u);
  EXPECT_EQ(shim.ports.masterCount(PortBundle::North), 6u);
  EXPECT_EQ(mem.ports.masterCount(PortBundle::East), 0u);  // memory tiles route only N/S
  EXPECT_EQ(core.ports.slaveCount(PortBundle::South), 6u);
  EXPECT_EQ(BdFieldWidths::maxOf(8), 255u);
}

TEST(Npu5Model, CoreReachesOwnNorthWestAndSouthMemory) {
  TileCoord core{3, 3};
  EXPECT_EQ(Npu5Model::coreWindow(core, {3, 3}), Npu5Model::kOwnWindow);
  EXPECT_EQ(Npu5Model::coreWindow(core, {3, 4}), Npu5Model::kNorthWindow);
  EXPECT_EQ(Npu5Model::coreWindow(core, {3, 2}), Npu5Model::kSouthWindow);
  EXPECT_EQ(Npu5Model::coreWindow(core, {2, 3}), Npu5Model::kWestWindow);
  EXPECT_FALSE(Npu5Model::coreWindow(core, {4, 3}));  // east
  EXPECT_FALSE(Npu5Model::coreWindow(core, {2, 2}));  // diagonal
  // Row 2's south is a memory tile, which a core never reaches.
  EXPECT_FALSE(Npu5Model::coreWindow({0, 2}, {0, 1}));
  EXPECT_FALSE(Npu5Model::coreWindow({0, 1}, {0, 2}));
}

TEST(Npu5Model, MemTileBdParity) {
  EXPECT_TRUE(Npu5Model::isBdAccessible(TileKind::MemTile, 0, 0));
  EXPECT_TRUE(Npu5Model::isBdAccessible(TileKind::MemTile, 2, 23));
  EXPECT_FALSE(Npu5Model::isBdAccessible(TileKind::MemTile, 0, 24));
  EXPECT_TRUE(Npu5Model::isBdAccessible(TileKind::MemTile, 1, 24));
  EXPECT_FALSE(Npu5Model::isBdAccessible(TileKind::MemTile, 5, 3));
  EXPECT_FALSE(Npu5Model::isBdAccessible(TileKind::MemTile, 1, 48));
  EXPECT_TRUE(Npu5Model::isBdAccessible(TileKind::Compute, 1, 3));
  EXPECT_FALSE(Npu5Model::isBdAccessible(TileKind::Compute, 0, 16));
  EXPECT_EQ(Npu5Model::firstBdForChannel(TileKind::MemTile, 3), 24u);
  EXPECT_EQ(Npu5Model::firstBdForChannel(TileKind::Compute, 1), 0u);
}

TEST(Npu5Model, RegisterAddress) {
  EXPECT_EQ(Npu5Model::registerAddress({0, 0}, 0x1D000), 0x1D000u);
  EXPECT_EQ(Npu5Model::registerAddress({1, 2}, 0x1F010), (1ull << 25) | (2ull << 20) | 0x1F010);
}
