#include "hrx/xdna/Npu5Model.h"

#include <span>

namespace hrx::xdna {
namespace {

// Port counts in PortBundle order {Dma, Core, Ctrl, Fifo, South, West, North, East, Noc}
// (npu5-hardware §2.2 stream-switch rows; mlir-aie aie2_port_id). Trace slaves are not routed
// by the planner and are left out.
constexpr SwitchPorts kComputePorts{
    .masters = {2, 1, 1, 1, 4, 4, 6, 4, 0},
    .slaves = {2, 1, 1, 1, 6, 4, 4, 4, 0},
};
constexpr SwitchPorts kMemTilePorts{
    .masters = {6, 0, 1, 0, 4, 0, 6, 0, 0},
    .slaves = {6, 0, 1, 0, 6, 0, 4, 0, 0},
};
// Shim DMA channels reach the switch through the shim mux (npu5-hardware §2.2: shim mux DMA 2,
// NOC 4); the switch itself has no DMA ports.
constexpr SwitchPorts kShimPorts{
    .masters = {2, 0, 1, 1, 6, 4, 6, 4, 4},
    .slaves = {2, 0, 1, 1, 8, 4, 4, 4, 4},
};

// Per-tile resources (npu5-hardware §2.2 table; BD widths §2.4; register bases §2.2/§2.4).
constexpr TileResources kCompute{
    .kind = TileKind::Compute,
    .dataMemoryBytes = 64 * 1024,
    .programMemoryBytes = 16 * 1024,
    .bankCount = 4,
    .locks = 16,
    .s2mmChannels = 2,
    .mm2sChannels = 2,
    .bufferDescriptors = 16,
    .taskQueueDepth = 4,
    .bd = {.bufferLengthBits = 14,
           .baseAddressBits = 14,
           .addressDims = 3,
           .stepBits = 13,
           .wrapBits = 8,
           .iterationStepBits = 13,
           .iterationWrapBits = 6,
           .nextBdBits = 4,
           .lockIdBits = 4},
    .ports = kComputePorts,
    .lockBase = 0x1F000,
    .bdBase = 0x1D000,
    .bdStride = 0x20,
    .s2mmControlBase = 0x1DE00,
    .mm2sControlBase = 0x1DE10,
    .switchBase = 0x3F000,
};
constexpr TileResources kMemTile{
    .kind = TileKind::MemTile,
    .dataMemoryBytes = 512 * 1024,
    .programMemoryBytes = 0,
    .bankCount = 8,
    .locks = 64,
    .s2mmChannels = 6,
    .mm2sChannels = 6,
    .bufferDescriptors = 48,
    .taskQueueDepth = 4,
    .bd = {.bufferLengthBits = 17,
           .baseAddressBits = 19,
           .addressDims = 4,
           .stepBits = 17,
           .wrapBits = 10,
           .iterationStepBits = 17,
           .iterationWrapBits = 6,
           .nextBdBits = 6,
           .lockIdBits = 8},
    .ports = kMemTilePorts,
    .lockBase = 0xC0000,
    .bdBase = 0xA0000,
    .bdStride = 0x20,
    .s2mmControlBase = 0xA0600,
    .mm2sControlBase = 0xA0630,
    .switchBase = 0xB0000,
};
// Shim BD: 32-bit length, 48-bit byte address split into low word bits [31:2] and 16 high
// bits (the SHIM_ADDRESS relocation layout, hrx-product §1.3).
constexpr TileResources kShim{
    .kind = TileKind::Shim,
    .dataMemoryBytes = 0,
    .programMemoryBytes = 0,
    .bankCount = 0,
    .locks = 16,
    .s2mmChannels = 2,
    .mm2sChannels = 2,
    .bufferDescriptors = 16,
    .taskQueueDepth = 4,
    .bd = {.bufferLengthBits = 32,
           .baseAddressBits = 46,
           .addressDims = 3,
           .stepBits = 20,
           .wrapBits = 10,
           .iterationStepBits = 20,
           .iterationWrapBits = 6,
           .nextBdBits = 4,
           .lockIdBits = 4},
    .ports = kShimPorts,
    .lockBase = 0x14000,
    .bdBase = 0x1D000,
    .bdStride = 0x20,
    .s2mmControlBase = 0x1D200,
    .mm2sControlBase = 0x1D210,
    .switchBase = 0x3F000,
};

constexpr unsigned kMemTileBdsPerParity = 24;

}  // namespace

TileKind Npu5Model::kindOfRow(unsigned row) {
  if (row == kShimRow) return TileKind::Shim;
  if (row == kMemTileRow) return TileKind::MemTile;
  return TileKind::Compute;
}

const TileResources &Npu5Model::resources(TileKind kind) {
  switch (kind) {
  case TileKind::Shim: return kShim;
  case TileKind::MemTile: return kMemTile;
  case TileKind::Compute: break;
  }
  return kCompute;
}

std::optional<uint32_t> Npu5Model::coreWindow(TileCoord core, TileCoord memory) {
  if (kindOfRow(core.row) != TileKind::Compute || kindOfRow(memory.row) != TileKind::Compute) return std::nullopt;
  if (memory == core) return kOwnWindow;
  if (memory.column == core.column && memory.row == core.row + 1) return kNorthWindow;
  if (memory.column == core.column && memory.row + 1 == core.row) return kSouthWindow;
  if (memory.row == core.row && memory.column + 1 == core.column) return kWestWindow;
  return std::nullopt;
}

bool Npu5Model::isBdAccessible(TileKind kind, unsigned channel, unsigned bd) {
  if (bd >= resources(kind).bufferDescriptors) return false;
  if (kind != TileKind::MemTile) return true;
  return (bd / kMemTileBdsPerParity) == (channel % 2);
}

unsigned Npu5Model::firstBdForChannel(TileKind kind, unsigned channel) {
  return kind == TileKind::MemTile ? (channel % 2) * kMemTileBdsPerParity : 0;
}

std::optional<uint32_t> Npu5Model::switchPortIndex(TileKind kind, PortBundle bundle, uint32_t index, bool master) {
  static constexpr PortBundle kComputeOrder[] = {PortBundle::Core,  PortBundle::Dma,   PortBundle::Ctrl,
                                                 PortBundle::Fifo,  PortBundle::South, PortBundle::West,
                                                 PortBundle::North, PortBundle::East};
  static constexpr PortBundle kMemTileOrder[] = {PortBundle::Dma, PortBundle::Ctrl, PortBundle::South,
                                                 PortBundle::North};
  static constexpr PortBundle kShimOrder[] = {PortBundle::Ctrl, PortBundle::Fifo,  PortBundle::South,
                                              PortBundle::West, PortBundle::North, PortBundle::East};
  std::span<const PortBundle> order = kind == TileKind::Compute   ? std::span<const PortBundle>(kComputeOrder)
                                      : kind == TileKind::MemTile ? std::span<const PortBundle>(kMemTileOrder)
                                                                  : std::span<const PortBundle>(kShimOrder);
  const SwitchPorts &ports = resources(kind).ports;
  uint32_t first = 0;
  for (PortBundle b : order) {
    unsigned count = master ? ports.masterCount(b) : ports.slaveCount(b);
    if (b == bundle) return index < count ? std::optional(first + index) : std::nullopt;
    first += count;
  }
  return std::nullopt;
}

std::optional<uint32_t> Npu5Model::shimMuxFieldShift(uint32_t southPort) {
  switch (southPort) {
  case 2: return 8;
  case 3: return 10;
  case 6: return 12;
  case 7: return 14;
  default: return std::nullopt;
  }
}

std::optional<uint32_t> Npu5Model::shimDemuxFieldShift(uint32_t southPort) {
  if (southPort < 2 || southPort > 5) return std::nullopt;
  return 4 + 2 * (southPort - 2);
}

std::string_view portBundleName(PortBundle bundle) {
  switch (bundle) {
  case PortBundle::Dma: return "dma";
  case PortBundle::Core: return "core";
  case PortBundle::Ctrl: return "ctrl";
  case PortBundle::Fifo: return "fifo";
  case PortBundle::South: return "south";
  case PortBundle::West: return "west";
  case PortBundle::North: return "north";
  case PortBundle::East: return "east";
  case PortBundle::Noc: return "noc";
  }
  return "?";
}

}  // namespace hrx::xdna
