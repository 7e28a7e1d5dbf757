// The Strix Halo NPU5 (AIE2P, "npu2" family) resource model as data: geometry, per-tile
// resources, memory windows and adjacency, buffer-descriptor field widths, stream-switch ports
// and command limits. The planner and the resource diagnostics read only these tables, so every
// limit has one definition. Sources are cited per table (npu5-hardware.md, hrx-product.md).
#pragma once

#include "hrx/format/ArrayPlan.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace hrx::xdna {

using format::PortBundle;
using format::TileCoord;
using format::TileKind;

// Address-generation field widths of one tile kind's buffer descriptor (npu5-hardware §2.4).
struct BdFieldWidths {
  unsigned bufferLengthBits;  // in 32-bit words
  unsigned baseAddressBits;   // in 32-bit words (shim: a 48-bit byte address, see below)
  unsigned addressDims;       // step/wrap dimensions (the last has a step but no wrap)
  unsigned stepBits;
  unsigned wrapBits;
  unsigned iterationStepBits;
  unsigned iterationWrapBits;
  unsigned nextBdBits;
  unsigned lockIdBits;

  static constexpr uint64_t maxOf(unsigned bits) { return bits >= 64 ? UINT64_MAX : (uint64_t(1) << bits) - 1; }
};

// Stream-switch port counts per bundle for one tile kind (npu5-hardware §2.2, mlir-aie's
// aie2_port_id numbering). Indexed by PortBundle.
struct SwitchPorts {
  std::array<uint8_t, 9> masters{};
  std::array<uint8_t, 9> slaves{};
  unsigned masterCount(PortBundle b) const { return masters[unsigned(b)]; }
  unsigned slaveCount(PortBundle b) const { return slaves[unsigned(b)]; }
};

// Everything one tile of a kind provides (npu5-hardware §2.2).
struct TileResources {
  TileKind kind;
  uint32_t dataMemoryBytes;     // 0 for shim tiles
  uint32_t programMemoryBytes;  // compute tiles only
  uint32_t bankCount;           // allocator model (§2.2 note 1)
  unsigned locks;
  unsigned s2mmChannels;  // stream-to-memory DMA channels
  unsigned mm2sChannels;  // memory-to-stream DMA channels
  unsigned bufferDescriptors;
  unsigned taskQueueDepth;
  BdFieldWidths bd;
  SwitchPorts ports;
  // Register-map bases (tile offsets) used by the transaction encoder.
  uint32_t lockBase;  // lock value register of lock id i at lockBase + 0x10 * i
  uint32_t bdBase;    // BD i at bdBase + bdStride * i
  uint32_t bdStride;
  uint32_t s2mmControlBase;  // channel ch control at base + 8 * ch, start queue at + 4
  uint32_t mm2sControlBase;
  uint32_t switchBase;  // stream-switch master config; slave config at +0x100
};

class Npu5Model {
public:
  // Geometry (npu5-hardware §2.1).
  static constexpr unsigned kColumns = 8;
  static constexpr unsigned kRows = 6;
  static constexpr unsigned kShimRow = 0;
  static constexpr unsigned kMemTileRow = 1;
  static constexpr unsigned kFirstComputeRow = 2;
  static constexpr unsigned kComputeRowsPerColumn = 4;
  static constexpr unsigned kColumnShift = 25;
  static constexpr unsigned kRowShift = 20;

  // Context, command and binding limits (hrx-product §1.5, npu5-hardware §3.3, §7).
  static constexpr unsigned kMinContextColumns = 1;
  static constexpr unsigned kMaxContextColumns = 8;
  static constexpr unsigned kMaxBindingsPerCommand = 5;
  static constexpr uint32_t kMaxCommandBytes = 32 * 1024;
  static constexpr unsigned kMaxLockValue = 63;     // compiler lock range 0..63, §2.2
  static constexpr unsigned kMaxRepeatCount = 256;  // 8-bit repeat_count field, §2.4

  // Ring-slot layout in a compute tile's data memory (loom-language §9.2): slots sit at bank
  // strides when they fit, and a stack/private reserve stays free.
  static constexpr uint32_t kBankBytes = 16 * 1024;
  static constexpr uint32_t kSlotAlignment = 64;
  static constexpr uint32_t kStackReserveBytes = 1024;
  // A compute tile's program memory in its register space (hrx-product §1.5: host offset 0x20000).
  static constexpr uint32_t kProgramMemoryOffset = 0x20000;
  // Core control (aie-rt CORE_MODULE_CORE_CONTROL): enable bit 0, reset bit 1.
  static constexpr uint32_t kCoreControl = 0x32000;
  static constexpr uint32_t kCoreEnable = 1u << 0, kCoreReset = 1u << 1;

  // Core view of neighbour memories (npu5-hardware §2.3).
  static constexpr uint32_t kSouthWindow = 0x40000;
  static constexpr uint32_t kWestWindow = 0x50000;
  static constexpr uint32_t kNorthWindow = 0x60000;
  static constexpr uint32_t kOwnWindow = 0x70000;

  // Device identity written into images (hrx-product §1.3, npu5-hardware §4.3).
  static constexpr uint64_t kDeviceProfileId = 0x535848414C4F0001ull;  // "SXHALO" rev 1
  static constexpr uint32_t kDeviceProfileRevision = 1;
  static constexpr uint64_t kFirmwareAbiId = 0x4E5055320006000Cull;  // "NPU2" 6.12
  static constexpr uint32_t kTargetGeneration = 3;                   // AIE2P
  static constexpr std::string_view kProfileName = "amd.xdna.strix_halo.17f0_11";

  static TileKind kindOfRow(unsigned row);
  static const TileResources &resources(TileKind kind);
  static const TileResources &resources(TileCoord tile) { return resources(kindOfRow(tile.row)); }

  static bool isValidContextWidth(unsigned columns) {
    return columns >= kMinContextColumns && columns <= kMaxContextColumns;
  }
  static unsigned computeTiles(unsigned columns) { return columns * kComputeRowsPerColumn; }

  // The window at which the core of `core` sees the data memory of `memory`, or nullopt when
  // it cannot: a core reaches its own, north, west and south memories, never a memory tile's
  // or a shim's (npu5-hardware §2.3, AIE2TargetModel::isLegalMemAffinity).
  static std::optional<uint32_t> coreWindow(TileCoord core, TileCoord memory);

  // Memory-tile BD/channel partition: even channels use BDs 0-23, odd ones BDs 24-47
  // (npu5-hardware §2.3). Compute and shim tiles have no partition.
  static bool isBdAccessible(TileKind kind, unsigned channel, unsigned bd);
  // The first BD a channel may use (the partition base on memory tiles).
  static unsigned firstBdForChannel(TileKind kind, unsigned channel);

  // The physical stream-switch port index of a bundle's port: the aie-rt AIE2P port order
  // (xaie2pgbl_reginit.c Aie2PTileStrmMstr/Slv, Aie2PMemTileStrm*, Aie2PShimStrm*):
  //   compute: core, DMA, ctrl, FIFO, south, west, north, east (slaves then trace);
  //   memory tile: DMA, ctrl, south, north; shim: ctrl, FIFO, south, west, north, east.
  // A master's configuration register is at switchBase + 4 * index, a slave's at
  // switchBase + 0x100 + 4 * index, and a master's 7-bit configuration field names the
  // physical index of the slave it forwards (xaie_ss.c). nullopt for a port the tile lacks
  // (a shim's DMA and NoC ports sit behind the shim mux, not on the switch).
  static std::optional<uint32_t> switchPortIndex(TileKind kind, PortBundle bundle, uint32_t index, bool master);

  // Shim mux (stream into the array) and demux (stream out of it) configuration
  // (xaie2pgbl_params.h NOC_MODULE_MUX_CONFIG / DEMUX_CONFIG; xaie_noc.c). Each south port the
  // mux or demux serves has a 2-bit field selecting PL (0, the reset value), DMA (1) or NoC (2).
  static constexpr uint32_t kShimMuxConfig = 0x1F000;    // south 2, 3, 6, 7 at bits 9:8, 11:10, 13:12, 15:14
  static constexpr uint32_t kShimDemuxConfig = 0x1F004;  // south 2, 3, 4, 5 at bits 5:4, 7:6, 9:8, 11:10
  static constexpr uint32_t kShimMuxSelectDma = 1;
  // The field's low bit for a south port, or nullopt when the mux (demux) does not serve it.
  static std::optional<uint32_t> shimMuxFieldShift(uint32_t southPort);
  static std::optional<uint32_t> shimDemuxFieldShift(uint32_t southPort);
  // The switch south ports a shim DMA channel uses (xaie_noc.c: DMA-to-array on south slaves
  // 3 and 7, array-to-DMA on south masters 2 and 3; mlir-aie wires channel 0 to the first).
  static uint32_t shimMm2sSouthPort(uint32_t channel) { return channel == 0 ? 3 : 7; }
  static uint32_t shimS2mmSouthPort(uint32_t channel) { return channel == 0 ? 2 : 3; }

  // Tile register address (col << 25) | (row << 20) | offset (npu5-hardware §2.1).
  static uint64_t registerAddress(TileCoord tile, uint32_t offset) {
    return (uint64_t(tile.column) << kColumnShift) | (uint64_t(tile.row) << kRowShift) | offset;
  }
};

std::string_view portBundleName(PortBundle bundle);

}  // namespace hrx::xdna
