#include "Graphs.h"

#include "hrx/xdna/Npu5Model.h"
#include "hrx/xdna/Planner.h"
#include "hrx/format/ArrayPlanWriter.h"

#include <gtest/gtest.h>

using namespace hrx;
using namespace hrx::xdna;
using namespace hrx::xdna::testing;
using format::DmaDirection;
using format::LockRole;
using format::RouteKind;
using format::Transport;

namespace {

std::optional<format::ArrayPlan> plan(const PipelineGraph &g, unsigned columns, Collector &c) {
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  diags.addConsumer(&c);
  return planArray(g, {columns}, diags);
}

format::ArrayPlan planOk(const PipelineGraph &g, unsigned columns = 1) {
  Collector c;
  auto p = plan(g, columns, c);
  EXPECT_TRUE(p) << c.messages();
  if (!p) return {};
  auto status = format::validateArrayPlan(*p);
  EXPECT_TRUE(status.isOk()) << status.message() << "\n" << format::printArrayPlan(*p);
  return *p;
}

}  // namespace

TEST(Planner, CopyUsesShimDmaIntoColumnZeroRowTwo) {
  format::ArrayPlan p = planOk(copyGraph(4));
  ASSERT_EQ(p.workers.size(), 1u);
  EXPECT_EQ(p.workers[0].tile, (TileCoord{0, 2}));
  EXPECT_EQ(p.workers[0].iterations, 4u);
  ASSERT_EQ(p.channels.size(), 2u);
  EXPECT_EQ(p.channels[0].transport, Transport::ExternalDma);
  EXPECT_EQ(p.channels[0].sender.binding->recordCount, 4u);
  EXPECT_EQ(p.channels[0].receiver.worker->port, 0u);
  EXPECT_EQ(p.channels[1].sender.worker->port, 1u);
  // Four 4 KiB slots fit one per bank.
  ASSERT_EQ(p.slots.size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(p.slots[i].owner, (TileCoord{0, 2}));
    EXPECT_EQ(p.slots[i].offset, i * 0x4000u);
  }
  EXPECT_EQ(p.slots[0].receiverAddress, 0x70000u);
  EXPECT_FALSE(p.slots[0].senderAddress);
  EXPECT_EQ(p.slots[2].senderAddress, 0x78000u);
  // A credit lock at the capacity and a ready lock at zero per channel.
  ASSERT_EQ(p.locks.size(), 4u);
  EXPECT_EQ(p.locks[0].role, LockRole::Credit);
  EXPECT_EQ(p.locks[0].initial, 2u);
  EXPECT_EQ(p.locks[1].role, LockRole::Ready);
  EXPECT_EQ(p.locks[1].initial, 0u);
  EXPECT_EQ(p.locks[3].id, 3u);
  // Compute S2MM + shim MM2S in, compute MM2S + shim S2MM out.
  ASSERT_EQ(p.dmas.size(), 4u);
  EXPECT_EQ(p.dmas[0].tile, (TileCoord{0, 2}));
  EXPECT_EQ(p.dmas[0].direction, DmaDirection::StreamToMemory);
  EXPECT_EQ(p.dmas[0].bdCount, 2u);
  EXPECT_EQ(p.dmas[1].tile, (TileCoord{0, 0}));
  EXPECT_EQ(p.dmas[1].direction, DmaDirection::MemoryToStream);
  ASSERT_TRUE(p.dmas[1].shimPattern);
  EXPECT_EQ(p.dmas[1].shimPattern->lengthWords, 4u * 1024);
  EXPECT_TRUE(p.dmas[1].shimPattern->dims.empty());
  EXPECT_EQ(p.dmas[2].bdStart, 2u);
  EXPECT_EQ(p.dmas[3].direction, DmaDirection::StreamToMemory);
  // Shim mux, then the shim, memory tile and compute switches up column 0.
  ASSERT_GE(p.routes.size(), 4u);
  EXPECT_EQ(p.routes[0].kind, RouteKind::ShimMux);
  EXPECT_EQ(p.routes[0].source.bundle, PortBundle::Dma);
  EXPECT_EQ(p.routes[1].tile, (TileCoord{0, 0}));
  EXPECT_EQ(p.routes[1].destination.bundle, PortBundle::North);
  EXPECT_EQ(p.routes[2].tile, (TileCoord{0, 1}));
  EXPECT_EQ(p.routes[3].tile, (TileCoord{0, 2}));
  EXPECT_EQ(p.routes[3].destination.bundle, PortBundle::Dma);
}

TEST(Planner, BatchedGemmPacksSixSlots) {
  format::ArrayPlan p = planOk(batchedGemmGraph(1024));
  ASSERT_EQ(p.slots.size(), 6u);
  // More slots than banks: packed at 64-byte alignment in channel order.
  std::vector<uint32_t> offsets;
  for (const auto &s : p.slots) offsets.push_back(s.offset);
  EXPECT_EQ(offsets, (std::vector<uint32_t>{0, 128, 256, 384, 512, 768}));
  // Two inputs need both shim MM2S channels of column 0.
  unsigned shimIn = 0;
  for (const auto &d : p.dmas)
    if (d.tile.row == 0 && d.direction == DmaDirection::MemoryToStream) {
      EXPECT_EQ(d.engineChannel, shimIn++);
      EXPECT_EQ(d.shimPattern->lengthWords, 1024u * 32);
    }
  EXPECT_EQ(shimIn, 2u);
}

TEST(Planner, SplitKReducesThroughNeighbourMemory) {
  // Five external inputs (A to 2 lanes, B to 2 lanes, the bias) need 3 shim columns.
  format::ArrayPlan p = planOk(splitKGraph(), 3);
  ASSERT_EQ(p.workers.size(), 3u);
  // The reducer goes first, to a tile with room for both source lanes beside it.
  EXPECT_EQ(p.workers[2].tile, (TileCoord{0, 2}));
  EXPECT_EQ(p.workers[0].tile, (TileCoord{0, 3}));
  EXPECT_EQ(p.workers[1].tile, (TileCoord{1, 2}));
  unsigned neighbour = 0;
  for (const auto &ch : p.channels)
    if (ch.transport == Transport::NeighborMemory) {
      ++neighbour;
      EXPECT_EQ(ch.receiver.worker->worker, 2u);
    }
  EXPECT_EQ(neighbour, 2u);
  // A is scattered (partition rows), B is broadcast (no partition).
  ASSERT_TRUE(p.channels[0].partition);
  EXPECT_EQ(p.channels[0].partition->lane, 0u);
  EXPECT_EQ(p.channels[1].partition->lane, 1u);
  EXPECT_EQ(p.channels[1].sender.binding->byteOffset, 128u);
  EXPECT_FALSE(p.channels[2].partition);
  EXPECT_EQ(p.channels[3].sender.binding->byteOffset, 0u);
  // Gather: lane i lands on reducer port i.
  EXPECT_EQ(p.channels[4].receiver.worker->port, 0u);
  EXPECT_EQ(p.channels[5].receiver.worker->port, 1u);
  // Neighbour-memory slots are visible to both cores.
  for (const auto &s : p.slots)
    if (p.channels[s.channel].transport == Transport::NeighborMemory) {
      EXPECT_TRUE(s.senderAddress);
      EXPECT_TRUE(s.receiverAddress);
    }
  // Shim DMA spreads over the columns, nearest first.
  std::vector<uint32_t> shimColumns;
  for (const auto &d : p.dmas)
    if (d.tile.row == 0) shimColumns.push_back(d.tile.column);
  EXPECT_EQ(shimColumns, (std::vector<uint32_t>{0, 1, 0, 1, 2, 0}));
}

TEST(Planner, OneColumnReducerSitsBetweenItsLanes) {
  // split_k on one column: five external inputs do not fit one shim's two channels.
  Collector c;
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  diags.addConsumer(&c);
  EXPECT_FALSE(planArray(splitKGraph(), {1}, diags));
  EXPECT_NE(c.messages().find("the shim row of 1 column(s) needs 5 memory-to-stream DMA channels; 2 available"),
            std::string::npos)
      << c.messages();
  // Without B and the bias it fits, shaped like the pipeline_reduce fixture: lanes at rows 2
  // and 4, the reducer at row 3.
  PipelineGraph g = splitKGraph();
  g.bindings.erase(g.bindings.begin() + 1, g.bindings.begin() + 3);
  g.workers[0].ports = {port(format::PortDirection::Input, 0, 128), port(format::PortDirection::Output, 1, 256)};
  g.workers[1].ports = {port(format::PortDirection::Input, 1, 256), port(format::PortDirection::Input, 1, 256),
                        port(format::PortDirection::Output, 2, 256)};
  GraphFlow gather = flow(FlowEnd::worker(0, 1), FlowEnd::worker(1, 0), 256, "tile<8x8xf32>");
  gather.map = LaneMap::Gather;
  g.flows = {g.flows[0], gather,
             flow(FlowEnd::worker(1, 2), FlowEnd::binding(1, contiguous(256, 1)), 256, "tile<8x8xf32>")};
  format::ArrayPlan p = planOk(g, 1);
  EXPECT_EQ(p.workers[0].tile, (TileCoord{0, 2}));
  EXPECT_EQ(p.workers[1].tile, (TileCoord{0, 4}));
  EXPECT_EQ(p.workers[2].tile, (TileCoord{0, 3}));
  EXPECT_EQ(p.channels[2].transport, Transport::NeighborMemory);
  EXPECT_EQ(p.channels[3].transport, Transport::NeighborMemory);
}

TEST(Planner, StridedWalkUsesBdDimensions) {
  PipelineGraph g = copyGraph(8);
  // Records of 4 KiB taken every 8 KiB (every other record of a larger buffer).
  g.bindings[0].bytes = 8 * 8192;
  g.flows[0].from.walk.recordStride = 8192;
  format::ArrayPlan p = planOk(g);
  const auto &pattern = *p.dmas[1].shimPattern;
  // The 1024-word run is longer than a 10-bit wrap: d0 x d1 = 512 x 2.
  ASSERT_EQ(pattern.dims.size(), 3u);
  EXPECT_EQ(pattern.dims[0].size, 512u);
  EXPECT_EQ(pattern.dims[0].strideBytes, 4u);
  EXPECT_EQ(pattern.dims[1].size, 2u);
  EXPECT_EQ(pattern.dims[1].strideBytes, 2048u);
  EXPECT_EQ(pattern.dims[2].size, 8u);
  EXPECT_EQ(pattern.dims[2].strideBytes, 8192u);
  EXPECT_EQ(pattern.lengthWords, 8u * 1024);
}

TEST(Planner, CapacityRaisesSlotsLocksAndBds) {
  PipelineGraph g = copyGraph(4);
  g.flows[0].capacity = 4;
  format::ArrayPlan p = planOk(g);
  EXPECT_EQ(p.slots.size(), 6u);
  EXPECT_EQ(p.locks[0].initial, 4u);
  EXPECT_EQ(p.dmas[0].bdCount, 4u);
  EXPECT_EQ(p.dmas[2].bdStart, 4u);
}

TEST(Planner, IsDeterministic) {
  for (const PipelineGraph &g : {copyGraph(16), batchedGemmGraph(17), splitKGraph()}) {
    format::ArrayPlan a = planOk(g, 3), b = planOk(g, 3);
    EXPECT_EQ(format::printArrayPlan(a), format::printArrayPlan(b));
    EXPECT_EQ(format::writeArrayPlans(std::span(&a, 1)), format::writeArrayPlans(std::span(&b, 1)));
  }
}

TEST(Planner, PlansRoundTripThroughJson) {
  format::ArrayPlan a = planOk(splitKGraph(), 3);
  auto read = format::readArrayPlans(format::writeArrayPlans(std::span(&a, 1)));
  ASSERT_TRUE(read.isOk()) << read.status().message();
  EXPECT_EQ(format::printArrayPlan(read->at(0)), format::printArrayPlan(a));
}
