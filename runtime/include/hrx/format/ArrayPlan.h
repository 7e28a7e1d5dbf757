// The physical array plan of one NPU entry (Loom's `aie2p-array-plan`, loom-language §9.2):
// where every worker sits, how records move between bindings and workers, and the tile
// resources (ring slots, locks, DMA channels and buffer descriptors, stream routes) that
// carry them. The XDNA backend writes it, `.xdna` images embed it (section .hrx.plan), and
// the host reference device executes it. Format: docs/formats/array-plan.md.
#pragma once

#include "hrx/runtime/Status.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::format {

// NPU5 (AIE2P, "npu2" family) array geometry and per-tile resources (npu5-hardware §2.2).
namespace npu5 {
inline constexpr std::string_view kFamily = "amd.xdna.npu2";
inline constexpr uint32_t kColumns = 8;
inline constexpr uint32_t kRows = 6;
inline constexpr uint32_t kShimRow = 0;
inline constexpr uint32_t kMemTileRow = 1;
inline constexpr uint32_t kFirstComputeRow = 2;
inline constexpr uint32_t kComputeDataBytes = 64 * 1024;
inline constexpr uint32_t kMemTileDataBytes = 512 * 1024;
inline constexpr uint32_t kProgramMemoryBytes = 16 * 1024;
inline constexpr uint32_t kMaxLockValue = 63;
}  // namespace npu5

enum class TileKind { Shim, MemTile, Compute };

struct TileCoord {
  uint32_t column = 0;
  uint32_t row = 0;
  TileKind kind() const;
  friend bool operator==(const TileCoord &, const TileCoord &) = default;
};

enum class PlanAccess { Read, Write, ReadWrite };

// One launch buffer of the entry. `ordinal` is the binding slot in the image's binding table.
struct PlanBinding {
  uint32_t ordinal = 0;
  PlanAccess access = PlanAccess::Read;
  uint64_t bytes = 0;  // minimum byte length the plan touches
  friend bool operator==(const PlanBinding &, const PlanBinding &) = default;
};

enum class PortDirection {
  Input,   // receives one record from `channel` per period
  Output,  // sends one record on `channel` per period
  State,   // worker-private record, zeroed at the start of every period (fold accumulators)
};

// A callee buffer argument. Ports are listed in argument order; the host device calls the
// stage function with one record pointer per port (HostAbi.h, "hrx.stage.<entry>").
struct WorkerPort {
  PortDirection direction = PortDirection::Input;
  std::optional<uint32_t> channel;  // Input/Output: the channel; State: none
  uint32_t recordBytes = 0;
  // The port moves (or resets) a record every `period` iterations: an Input on iterations
  // 0, p, 2p..., an Output on p-1, 2p-1..., a State resets on 0, p, 2p...
  uint32_t period = 1;
  friend bool operator==(const WorkerPort &, const WorkerPort &) = default;
};

struct PlanWorker {
  std::string entry;  // stage symbol; the host code exports "hrx.stage.<entry>"
  uint32_t group = 0;
  uint32_t lane = 0;
  TileCoord tile;
  uint32_t codeBytes = 0;   // program-memory estimate (no native AIE2P code yet)
  uint32_t iterations = 1;  // calls per invocation of the entry
  std::vector<WorkerPort> ports;
  friend bool operator==(const PlanWorker &, const PlanWorker &) = default;
};

enum class Transport { ExternalDma, NeighborMemory };

struct AccessDim {
  uint32_t size = 1;
  uint64_t strideBytes = 0;
  friend bool operator==(const AccessDim &, const AccessDim &) = default;
};

// How one side of a channel walks a binding. Record k of repetition r starts at
// byteOffset + k * recordStride (r does not move the start: repetitions replay the sequence).
// A record is assembled from runs of `runBytes` contiguous bytes at
// start + sum(i_d * dims[d].strideBytes) for every index tuple, dims[0] innermost; its size is
// runBytes * prod(dims[d].size) and must equal the channel's record bytes.
struct BindingTransfer {
  uint32_t binding = 0;     // plan binding index
  uint64_t byteOffset = 0;  // absolute, with the lane offset of a partition already applied
  uint32_t runBytes = 0;
  std::vector<AccessDim> dims;
  uint64_t recordStride = 0;
  uint32_t recordCount = 1;
  uint32_t repeatCount = 1;
  uint64_t recordsMoved() const { return uint64_t(recordCount) * repeatCount; }
  friend bool operator==(const BindingTransfer &, const BindingTransfer &) = default;
};

struct WorkerEndpoint {
  uint32_t worker = 0;
  uint32_t port = 0;
  friend bool operator==(const WorkerEndpoint &, const WorkerEndpoint &) = default;
};

// A channel end: a binding transfer (external DMA) or a worker port.
struct ChannelEnd {
  std::optional<BindingTransfer> binding;
  std::optional<WorkerEndpoint> worker;
  friend bool operator==(const ChannelEnd &, const ChannelEnd &) = default;
};

struct Partition {
  uint32_t lane = 0;
  uint32_t lanes = 1;
  uint64_t laneBytes = 0;  // byte distance between lanes' first records
  friend bool operator==(const Partition &, const Partition &) = default;
};

struct PlanChannel {
  Transport transport = Transport::ExternalDma;
  uint32_t recordBytes = 0;
  uint32_t capacity = 2;  // ring slots
  ChannelEnd sender;
  ChannelEnd receiver;
  std::optional<Partition> partition;
  friend bool operator==(const PlanChannel &, const PlanChannel &) = default;
};

struct PlanSlot {
  uint32_t channel = 0;
  uint32_t index = 0;  // ring position 0..capacity-1
  TileCoord owner;
  uint32_t offset = 0;  // in the owner's data memory (DMA view)
  uint32_t bytes = 0;
  std::optional<uint32_t> senderAddress;    // as seen by the sending core; none = external
  std::optional<uint32_t> receiverAddress;  // as seen by the receiving core; none = external
  friend bool operator==(const PlanSlot &, const PlanSlot &) = default;
};

enum class LockRole { Credit, Ready };

struct PlanLock {
  uint32_t channel = 0;
  TileCoord tile;
  uint32_t id = 0;
  LockRole role = LockRole::Credit;
  uint32_t initial = 0;  // credit: the channel capacity; ready: 0
  friend bool operator==(const PlanLock &, const PlanLock &) = default;
};

enum class DmaDirection { StreamToMemory, MemoryToStream };

// Buffer-descriptor address generation in 32-bit words (npu5-hardware §2.4), for shim BDs:
// `length` words starting at `address` bytes into the binding (48-bit), up to three
// step/wrap dimensions, an iteration step/wrap and a task repeat count.
struct BdPattern {
  uint32_t binding = 0;
  uint64_t address = 0;
  uint32_t lengthWords = 0;
  std::vector<AccessDim> dims;  // size = wrap, strideBytes = step * 4
  uint32_t iterationStepWords = 0;
  uint32_t iterationWrap = 0;
  uint32_t repeatCount = 1;  // 1..256 (the channel task queue encodes repeat-1 in 8 bits)
  friend bool operator==(const BdPattern &, const BdPattern &) = default;
};

struct PlanDma {
  uint32_t channel = 0;
  TileCoord tile;
  DmaDirection direction = DmaDirection::StreamToMemory;
  uint32_t engineChannel = 0;
  uint32_t bdStart = 0;
  uint32_t bdCount = 1;
  std::optional<BdPattern> shimPattern;  // required on shim tiles, absent elsewhere
  friend bool operator==(const PlanDma &, const PlanDma &) = default;
};

enum class PortBundle { Dma, Core, Ctrl, Fifo, South, West, North, East, Noc };

struct SwitchPort {
  PortBundle bundle = PortBundle::Dma;
  uint32_t index = 0;
  friend bool operator==(const SwitchPort &, const SwitchPort &) = default;
};

enum class RouteKind { ShimMux, Switch };

struct PlanRoute {
  uint32_t channel = 0;
  TileCoord tile;
  RouteKind kind = RouteKind::Switch;
  SwitchPort source;       // slave port of the switch or mux
  SwitchPort destination;  // master port
  friend bool operator==(const PlanRoute &, const PlanRoute &) = default;
};

struct ArrayPlan {
  std::string name;  // the entry symbol
  std::string family{npu5::kFamily};
  uint32_t columns = 1;  // partition width 1..8
  uint32_t groups = 0;
  std::vector<PlanBinding> bindings;
  std::vector<PlanWorker> workers;
  std::vector<PlanChannel> channels;
  std::vector<PlanSlot> slots;
  std::vector<PlanLock> locks;
  std::vector<PlanDma> dmas;
  std::vector<PlanRoute> routes;
  friend bool operator==(const ArrayPlan &, const ArrayPlan &) = default;
};

// Checks every cross reference, resource bound and record-count balance; errors name the
// table, row and field ("array plan 'copy': channels[2].capacity: must be at least 1").
Status validateArrayPlan(const ArrayPlan &plan);

// Parses (unknown fields are errors) and validates every plan.
StatusOr<std::vector<ArrayPlan>> readArrayPlans(std::string_view json);

std::string_view tileKindName(TileKind kind);
std::string_view planAccessName(PlanAccess access);
std::string_view transportName(Transport transport);

}  // namespace hrx::format
