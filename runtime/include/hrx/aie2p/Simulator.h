// Instruction-set simulator for one AIE2P core tile (and several in lockstep), bundle by bundle.
//
// Timing model (docs/aie2p.md "Simulator"): one bundle issues per cycle. Every result is written
// at the pipeline cycle the table gives (InstrInfo::operands[i].writeCycle, from llvm-aie's
// itineraries); every operand is read at its read cycle. A bundle issued k cycles after a producer
// sees the new value only if k + readCycle > writeCycle: earlier, it reads the old value (the
// pipeline is exposed, nothing interlocks). Branches take effect after their delay slots, which
// execute. A lock acquire that cannot be granted stalls the whole bundle (counted as a stall).
// Data memory: own tile at 0x70000, south 0x40000, west 0x50000, north 0x60000 (64 KiB each);
// locks 0-15 south, 16-31 west, 32-47 north, 48-63 own.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hrx/aie2p/Isa.h"

namespace hrx::aie2p {

inline constexpr uint32_t kDataMemorySize = 64 * 1024;
inline constexpr uint32_t kProgramMemorySize = 16 * 1024;
inline constexpr uint32_t kOwnMemoryBase = 0x70000;
inline constexpr unsigned kLocksPerTile = 16;

// A core tile's data memory and locks; neighbours share them by pointer.
struct TileMemory {
  std::vector<uint8_t> data = std::vector<uint8_t>(kDataMemorySize, 0);
  std::array<int32_t, kLocksPerTile> locks{};
  // When set, the core uses these instead (an array model's tile: 64 KiB and 16 locks it owns).
  uint8_t *dataView = nullptr;
  int32_t *lockView = nullptr;
  uint8_t *bytes() { return dataView ? dataView : data.data(); }
  int32_t *lockAt(unsigned i) { return lockView ? lockView + i : &locks[i]; }
  // The byte range [writtenLow, writtenHigh) the cores stored into since the last clear: a
  // runner that reuses the tile returns only that to zero.
  uint32_t writtenLow = UINT32_MAX, writtenHigh = 0;
  void noteWrite(uint32_t offset, uint32_t size) {
    writtenLow = offset < writtenLow ? offset : writtenLow;
    writtenHigh = offset + size > writtenHigh ? offset + size : writtenHigh;
  }
};

struct CoreMemoryMap {
  TileMemory *own = nullptr;
  TileMemory *south = nullptr, *west = nullptr, *north = nullptr;
};

struct Trap {
  uint32_t pc = 0;
  uint64_t cycle = 0;
  std::string bundle;  // the bundle's assembly, or its bytes when it does not decode
  std::string reason;
  std::string message() const;
};

struct CoreStats {
  uint64_t cycles = 0;       // cycles until the core halted (or trapped)
  uint64_t stallCycles = 0;  // cycles spent waiting for a lock
  uint64_t bundles = 0;      // bundles issued
};

enum class CoreState { Running, Stalled, Halted, Trapped };

class Core {
public:
  Core(std::vector<uint8_t> program, CoreMemoryMap memory, uint64_t cycleLimit = 1'000'000, uint32_t coreId = 0);

  // One cycle: issues the bundle at pc, or stalls on a lock.
  CoreState step();
  // Until halted or trapped.
  CoreState run();
  // Back to the state after construction (registers, pipeline, pc 0, statistics), keeping the
  // bundles decoded so far: a runner that calls the same program many times decodes it once.
  void reset();

  CoreState state() const { return state_; }
  const std::optional<Trap> &trap() const { return trap_; }
  const CoreStats &stats() const { return stats_; }
  uint32_t pc() const { return pc_; }

  // Committed register values (what a bundle issued now would read at cycle 1).
  uint32_t scalar(Reg reg) const;
  void setScalar(Reg reg, uint32_t value);
  std::vector<uint8_t> vector(Reg reg) const;  // x, dm, cml, cmh
  void setVector(Reg reg, std::span<const uint8_t> bytes);

  // Data memory through the core's map (for tests and tools); false when the range is not mapped.
  bool readMemory(uint32_t address, std::span<uint8_t> out) const;
  bool writeMemory(uint32_t address, std::span<const uint8_t> bytes);
  int32_t *lock(unsigned id);  // 0..63 through the map, or null

  // Test hook: a trap raised from outside (deadlock detection).
  void raiseTrap(std::string reason);
  // Where the next bundle issues (before the first step: an entry other than 0).
  void setPc(uint32_t pc) { pc_ = pc; }

private:
  // Kept small so that the ordered list moves cheaply; the bytes sit in a reused buffer.
  struct Pending {
    uint64_t commitCycle;  // written at the end of this cycle
    uint16_t offset, size;
    uint16_t slot;  // the value: pendingBytes_[slot]
  };
  struct Location {
    uint16_t offset, size;
  };
  static Location locate(Reg reg);
  void retire();
  void readBytes(Reg reg, unsigned readCycle, uint8_t *out) const;
  uint32_t readScalar(Reg reg, unsigned readCycle) const;
  void writeBytes(Reg reg, unsigned writeCycle, const uint8_t *bytes);
  void writeScalar(Reg reg, unsigned writeCycle, uint32_t value);
  uint16_t pendingSlot();
  void addPending(const Pending &p);
  bool mapAddress(uint32_t address, uint32_t size, TileMemory *&tile, uint32_t &offset, std::string &why) const;
  bool execute(const Instr &instr, uint32_t bundleSize, std::string &why);
  bool lockAvailable(const Instr &instr, std::string &why);
  bool lockConditionHolds(const Instr &instr) const;
  void fail(std::string reason);

  std::vector<uint8_t> program_;
  CoreMemoryMap memory_;
  uint64_t cycleLimit_;
  uint32_t coreId_;
  std::vector<uint8_t> regs_;
  std::vector<Pending> pending_;  // ordered by commit cycle (issue order among equal cycles)
  std::vector<std::array<uint8_t, 256>> pendingBytes_;
  std::vector<uint16_t> freeSlots_;  // pendingBytes_ entries no pending result holds
  // Bundles decoded so far, by the pc they start at (decodedAt_[pc] - 1 indexes decoded_; 0: not
  // decoded yet). A deque keeps references stable as it grows.
  struct Decoded {
    Bundle bundle;
    unsigned size;
    bool acquires;  // a slot is a lock acquire (checked before the bundle issues)
  };
  std::vector<uint32_t> decodedAt_;
  std::deque<Decoded> decoded_;
  uint32_t pc_ = 0;
  uint64_t cycle_ = 0;
  CoreState state_ = CoreState::Running;
  std::optional<Trap> trap_;
  CoreStats stats_;
  // A taken branch: the target and how many more bundles issue before it takes effect.
  struct BranchInFlight {
    uint32_t target;
    unsigned remaining;
    bool call;
  };
  std::optional<BranchInFlight> branch_;
  std::optional<BranchInFlight> newBranch_;
  bool done_ = false;
  // The bundle issuing now (an index + 1 into decoded_); its text is formatted only when a trap
  // needs it. When 0, currentBundleText_ is what the trap shows (bytes that do not decode).
  uint32_t currentBundle_ = 0;
  std::string currentBundleText_;
};

// Steps the cores in lockstep (core 0 first in each cycle) until every core halted, one trapped,
// or all the running ones wait on locks nobody can release (each then traps with "deadlock").
CoreState runCores(std::span<Core *const> cores);

}  // namespace hrx::aie2p
