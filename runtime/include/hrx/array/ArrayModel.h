// A simulated NPU5 (AIE2P) array configured only by transaction ops: register writes land in
// a register map taken from aie-rt's AIE2P register database (docs/formats/transaction.md),
// and the array then runs what the registers say. DMA channels walk their BD chains, gated by
// locks; streams follow the stream-switch and shim mux/demux configuration; shim DMAs read and
// write host memory at the (relocated) addresses in their BDs. Cores are CorePrograms: the
// AIE2P simulator running the program memory the transaction wrote, or a worker's host twin
// (runtime/core/TransactionKernel.cpp). A core whose tile's core control the transaction
// writes runs only while that register enables it and holds it out of reset.
//
// Every configuration error is reported, never skipped: a write to an address the model does
// not know, a BD outside its tile's memory, an invalid BD, a stream with no route, a lock
// value out of range, a task queue overflow, and a deadlock (naming each waiting channel and
// core). What is not modelled (timing, packet switching, memory-tile DMAs, core streams,
// cascade, events, trace) is an error when a transaction uses it. No LLVM.
#pragma once

#include "hrx/format/Transaction.h"
#include "hrx/runtime/Status.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hrx::array {

enum class TileKind { Shim, MemTile, Compute };
struct TileId {
  uint32_t column = 0, row = 0;
  bool operator==(const TileId &) const = default;
};
std::string tileName(TileId tile);
TileKind kindOfRow(uint32_t row);  // row 0 shim, row 1 memory tile, rows 2-5 compute

// Stream-switch bundles (aie-rt StrmSwPortType order, without the uC tile's).
enum class Bundle { Core, Dma, Ctrl, Fifo, South, West, North, East, Trace };
std::string_view bundleName(Bundle bundle);
struct Port {
  Bundle bundle = Bundle::Core;
  uint32_t index = 0;
};
// The bundle port behind a physical stream-switch port index of a tile kind, or nullopt.
std::optional<Port> switchPort(TileKind kind, uint32_t physical, bool master);
// The physical index of a bundle port, or nullopt when the tile kind lacks it.
std::optional<uint32_t> switchIndex(TileKind kind, Port port, bool master);

// What a tile register offset is (the register classes the model knows).
enum class RegisterClass {
  DataMemory,
  ProgramMemory,
  BufferDescriptor,  // index = BD, word = word within it
  ChannelControl,    // index = channel, s2mm
  ChannelQueue,      // the channel's start/task queue
  LockValue,         // index = lock id
  SwitchMaster,      // index = physical port
  SwitchSlave,
  SwitchSlot,  // index = physical slave port, word = slot
  ShimMux,
  ShimDemux,
  CoreControl,
};
struct RegisterInfo {
  RegisterClass kind;
  uint32_t index = 0;
  uint32_t word = 0;
  bool s2mm = false;
};
std::optional<RegisterInfo> classifyRegister(TileKind kind, uint32_t offset);
// "compute BD 3 word 5", "shim mux config", "unknown register"...
std::string describeRegister(TileKind kind, uint32_t offset);

class ArrayModel;

// A core's behaviour. step() makes what progress it can (acquiring and releasing locks,
// reading and writing data memory through the model) and says whether it did.
class CoreProgram {
public:
  virtual ~CoreProgram() = default;
  virtual TileId tile() const = 0;
  virtual void startInvocation() = 0;
  virtual StatusOr<bool> step(ArrayModel &array) = 0;
  virtual bool finished() const = 0;
  virtual std::string waitingOn() const = 0;  // "worker 0 @copy_record iteration 3 acquires lock 1 of (0,2) ..."
};

// Host memory a shim DMA reaches: one region per binding, at the device address its
// relocations were patched with.
struct HostRegion {
  uint64_t deviceAddress = 0;
  std::byte *data = nullptr;
  uint64_t length = 0;
  std::string name;  // "binding 0"
};

class ArrayModel {
public:
  // A context of `columns` whole columns (1..8) at column 0.
  explicit ArrayModel(uint32_t columns);
  ~ArrayModel();
  ArrayModel(const ArrayModel &) = delete;
  ArrayModel &operator=(const ArrayModel &) = delete;

  void setHostMemory(std::vector<HostRegion> regions) { host_ = std::move(regions); }
  // Scheduling rounds one wait may take before it fails as a livelock (a BD chain that moves
  // data forever without reaching what is waited for).
  void setRoundLimit(uint64_t rounds) { roundLimit_ = rounds; }
  void setCores(std::vector<std::unique_ptr<CoreProgram>> cores);
  const std::vector<std::unique_ptr<CoreProgram>> &cores() const { return cores_; }

  // Executes a decoded command: register writes apply in order; a TCT sync runs the array
  // until the named channel has issued a task-completion token. `label` names the command in
  // errors ("invocation 1").
  Status execute(const format::txn::Transaction &command, const std::string &label);
  // Runs until every core program has finished; then no stream may hold data.
  Status finishInvocation(const std::string &label);

  // Core-side access to the array (what a core's load/store units and lock requests reach).
  // Lock acquire: value < 0 waits for a lock value >= -value and subtracts it ("acquire
  // greater-equal"); value >= 0 waits for the lock value to equal it. Returns false when the
  // lock is not available.
  StatusOr<bool> tryAcquire(TileId tile, uint32_t lock, int value);
  Status release(TileId tile, uint32_t lock, int value);
  int lockValue(TileId tile, uint32_t lock) const;
  // `bytes` of `tile`'s data memory from `offset`, or an error if that leaves the memory.
  StatusOr<std::byte *> dataMemory(TileId tile, uint32_t offset, uint32_t bytes);
  // For core programs that execute native code (the AIE2P machine layer, runtime/aie2p/): the
  // program memory the transaction wrote (16 KiB on compute tiles, empty elsewhere) and the
  // core control register (bit 0 enable, bit 1 reset).
  std::span<const uint8_t> programMemory(TileId tile) const;
  uint32_t coreControl(TileId tile) const { return registerValue(tile, 0x32000); }
  // Bytes of program memory from offset 0 up to the last byte any write reached (0: never
  // written). A core whose program memory was never written must not run.
  uint32_t programBytesWritten(TileId tile) const;
  // How many writes have left the core control's reset bit set: a core program that sees the
  // count change restarts at pc 0 (reset clears the core, not its data memory).
  uint64_t coreResetCount(TileId tile) const;
  // Whether a command has written the tile's core control register at all.
  bool coreControlWritten(TileId tile) const;
  // Enabled (bit 0) and out of reset (bit 1 clear): the core may issue bundles.
  bool coreRunning(TileId tile) const { return (coreControl(tile) & 3u) == 1u; }
  // A compute tile's lock values, for a simulated core that acquires and releases them in place
  // (null for other tiles or outside the context).
  int *coreLocks(TileId tile);
  // The BD words of a tile (for tests).
  std::vector<uint32_t> bdWords(TileId tile, uint32_t bd) const;
  uint32_t registerValue(TileId tile, uint32_t offset) const;

  struct Tile;
  struct Channel;
  struct Stream;

private:
  Status write(const format::txn::Operation &op, uint64_t address, uint32_t value, uint32_t mask,
               const std::string &where);
  Status runUntil(const std::function<bool()> &done, const std::string &waitingFor);
  StatusOr<bool> stepChannel(Tile &tile, Channel &channel);
  Status startBd(Tile &tile, Channel &channel);
  StatusOr<Stream *> routeFrom(Tile &tile, Channel &channel);
  StatusOr<std::byte *> hostBytes(uint64_t address, uint32_t bytes, const std::function<std::string()> &who);
  Tile *tileAt(TileId id);
  std::string waitingReport() const;

  uint32_t columns_;
  uint64_t roundLimit_ = uint64_t(1) << 32;
  std::vector<std::unique_ptr<Tile>> tiles_;
  std::vector<HostRegion> host_;
  std::vector<std::unique_ptr<CoreProgram>> cores_;
};

}  // namespace hrx::array
