// The host reference device's transaction array model (--array-model=transaction): an NPU
// entry runs by executing its own COMMAND bytes, relocated with the bindings' addresses, on
// the simulated array (hrx/array/ArrayModel.h). A worker tile with native core code runs it in
// the AIE2P simulator (its core main program drives the locks and rings); any other worker runs
// its host twin with the locks and slots the plan gives. DMAs, streams, locks and BDs come from
// the transaction.
#include "hrx/aie2p/Simulator.h"
#include "hrx/array/ArrayModel.h"
#include "hrx/format/Transaction.h"
#include "hrx/runtime/HostDevice.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <mutex>

namespace hrx::runtime {
namespace {

using array::ArrayModel;
using array::TileId;
namespace fx = format::xdna;

TileId tileOf(const format::TileCoord &t) { return {t.column, t.row}; }

// A worker's host twin as the core program of its tile: per iteration it acquires the locks of
// the records it starts, runs the stage on the records in the owning tiles' data memory, and
// releases the locks of the records it finishes (the same protocol as the plan executor).
class HostTwinCore final : public array::CoreProgram {
public:
  struct Port {
    format::PortDirection direction;
    uint32_t period = 1, recordBytes = 0;
    TileId owner;
    uint32_t creditLock = 0, readyLock = 0;
    std::vector<uint32_t> slots;   // offsets in the owner's data memory, by ring index
    std::vector<std::byte> state;  // State ports: the worker's private record
    uint64_t ringBase = 0;         // records of earlier invocations: the ring position persists
  };

  HostTwinCore(uint32_t index, const format::PlanWorker &worker, hrx_host_stage_fn stage, std::vector<Port> ports,
               const std::vector<uint8_t> *native)
      : index_(index), worker_(worker), stage_(stage), ports_(std::move(ports)), records_(ports_.size()),
        native_(native) {
    for (const Port &p : ports_) recordBytes_.push_back(p.recordBytes);
  }

  TileId tile() const override { return tileOf(worker_.tile); }
  // The rings are resident: a new invocation continues at the slot after the last record of
  // the previous one, as the DMA BD chains do.
  void startInvocation() override {
    for (Port &p : ports_)
      if (p.direction != format::PortDirection::State) p.ringBase += (iteration_ + p.period - 1) / p.period;
    iteration_ = 0;
    acquiredPorts_ = 0;
  }
  bool finished() const override { return iteration_ >= worker_.iterations; }
  std::string waitingOn() const override {
    if (!started_)
      return "worker " + std::to_string(index_) + " @" + worker_.entry +
             " (host twin) has not started: its core control (0x32000) does not enable it";
    const Port &p = ports_[waitPort_];
    bool input = p.direction == format::PortDirection::Input;
    return "worker " + std::to_string(index_) + " @" + worker_.entry + " iteration " + std::to_string(iteration_) +
           " of " + std::to_string(worker_.iterations) + " waits to acquire lock " +
           std::to_string(input ? p.readyLock : p.creditLock) + " of " + array::tileName(p.owner) + " (" +
           (input ? "ready" : "credit") + ", value " + std::to_string(waitValue_) + ")";
  }

  StatusOr<bool> step(ArrayModel &array) override {
    // A twin standing in for a tile whose command controls the core obeys that control.
    started_ = !array.coreControlWritten(tile()) || array.coreRunning(tile());
    if (!started_) return false;
    bool progressed = false;
    while (iteration_ < worker_.iterations) {
      uint32_t it = iteration_;
      // Acquire, port by port, the records this iteration starts.
      for (; acquiredPorts_ < ports_.size(); ++acquiredPorts_) {
        Port &p = ports_[acquiredPorts_];
        if (p.direction == format::PortDirection::State || it % p.period != 0) continue;
        bool input = p.direction == format::PortDirection::Input;
        uint32_t lock = input ? p.readyLock : p.creditLock;
        auto got = array.tryAcquire(p.owner, lock, -1);
        if (!got) return got.status();
        if (!*got) {
          waitPort_ = acquiredPorts_;
          waitValue_ = array.lockValue(p.owner, lock);
          return progressed;
        }
        progressed = true;
      }
      for (size_t i = 0; i < ports_.size(); ++i) {
        Port &p = ports_[i];
        if (p.direction == format::PortDirection::State) {
          if (it % p.period == 0) std::fill(p.state.begin(), p.state.end(), std::byte{0});
          records_[i] = p.state.data();
          continue;
        }
        uint32_t slot = uint32_t((p.ringBase + it / p.period) % p.slots.size());
        auto memory = array.dataMemory(p.owner, p.slots[slot], p.recordBytes);
        if (!memory) return memory.status();
        records_[i] = *memory;
      }
      if (native_) {
        if (Status s = runNativeStage(*native_, records_, recordBytes_,
                                      "worker " + std::to_string(index_) + " @" + worker_.entry + " iteration " +
                                          std::to_string(it));
            !s)
          return s;
      } else {
        stage_(records_.data());
      }
      for (Port &p : ports_) {
        if (p.direction == format::PortDirection::State || it % p.period != p.period - 1) continue;
        bool input = p.direction == format::PortDirection::Input;
        if (Status s = array.release(p.owner, input ? p.creditLock : p.readyLock, 1); !s) return s;
      }
      ++iteration_;
      acquiredPorts_ = 0;
      progressed = true;
    }
    return progressed;
  }

private:
  uint32_t index_;
  const format::PlanWorker &worker_;
  hrx_host_stage_fn stage_;
  std::vector<Port> ports_;
  std::vector<void *> records_;
  uint32_t iteration_ = 0;
  size_t acquiredPorts_ = 0;
  size_t waitPort_ = 0;  // the port whose lock the core last waited for
  int waitValue_ = 0;
  bool started_ = true;
  const std::vector<uint8_t> *native_;  // the tile's native core code, or null: the twin
  std::vector<uint32_t> recordBytes_;
};

// A worker tile running its native core code: the core main program the establish command
// wrote into program memory acquires the ring locks, calls the worker on the current slots,
// releases and advances the rings, all in the simulated core against the array model's own data
// memory and locks (docs/aie2p.md "The core main program"). The core runs what the commands
// wrote into its program memory, only while its core control enables it and holds it out of
// reset; each reset restarts it at pc 0 (every invocation's command resets and enables the
// cores). The ring positions persist in the tile's data memory, as they would on the NPU.
class NativeArrayCore final : public array::CoreProgram {
public:
  NativeArrayCore(uint32_t index, const format::PlanWorker &worker) : index_(index), worker_(worker) {}

  TileId tile() const override { return tileOf(worker_.tile); }
  void startInvocation() override { finished_ = false; }
  bool finished() const override { return finished_; }
  std::string waitingOn() const override {
    std::string who = "worker " + std::to_string(index_) + " @" + worker_.entry + ": ";
    switch (wait_) {
    case Wait::NotEnabled:
      return who + "the native core has not started: its core control (0x32000) is " + std::to_string(control_) +
             ", not enabled and out of reset (the command never enables it)";
    case Wait::Done:
      return who + "the native core finished its main program in an earlier invocation and was not reset and "
                   "enabled again";
    case Wait::Lock: break;
    }
    std::string at = core_ ? " at pc " + std::to_string(core_->pc()) : std::string(" before its first bundle");
    return who + "the native core main program waits" + at + " (a lock acquire that cannot be granted)";
  }

  StatusOr<bool> step(ArrayModel &array) override {
    TileId own = tile();
    if (uint64_t resets = array.coreResetCount(own); resets != resets_) {
      resets_ = resets;
      core_.reset();
      halted_ = false;
    }
    control_ = array.coreControl(own);
    if (!array.coreRunning(own)) {
      wait_ = Wait::NotEnabled;
      return false;
    }
    if (halted_) {
      wait_ = Wait::Done;
      return false;
    }
    wait_ = Wait::Lock;
    if (!core_) {
      uint32_t written = array.programBytesWritten(own);
      if (written == 0)
        return Status(StatusCode::FailedPrecondition,
                      "worker " + std::to_string(index_) + " @" + worker_.entry + " on tile " + array::tileName(own) +
                          ": the core is enabled but no command wrote its program memory");
      std::span<const uint8_t> memory = array.programMemory(own);
      std::vector<uint8_t> program(memory.begin(), memory.begin() + written);
      while (program.size() % 4) program.push_back(0);
      if (Status s = bind(array); !s) return s;
      core_ = std::make_unique<aie2p::Core>(std::move(program), map_, kCycleLimit);
    }
    bool progressed = false;
    // A slice of cycles per scheduling round, so DMAs and other cores move in between; a stall
    // on a lock ends the slice.
    for (unsigned i = 0; i < kSliceCycles; ++i) {
      uint64_t before = core_->stats().bundles;
      aie2p::CoreState state = core_->step();
      if (core_->stats().bundles != before) progressed = true;
      if (state == aie2p::CoreState::Halted) {
        halted_ = finished_ = true;
        addNativeCoreTotals(worker_.iterations, core_->stats().cycles - core_->stats().stallCycles,
                            core_->stats().bundles);
        return true;
      }
      if (state == aie2p::CoreState::Trapped)
        return Status(StatusCode::Internal, "worker " + std::to_string(index_) + " @" + worker_.entry + " on tile " +
                                                array::tileName(tile()) + ": the native core code trapped: " +
                                                (core_->trap() ? core_->trap()->message() : std::string()));
      if (state == aie2p::CoreState::Stalled) break;
    }
    return progressed;
  }

private:
  static constexpr unsigned kSliceCycles = 4096;
  static constexpr uint64_t kCycleLimit = uint64_t(1) << 40;
  enum class Wait : uint8_t { NotEnabled, Done, Lock };

  // The core's memory map: its own data memory and its south, west and north compute
  // neighbours' (docs/aie2p.md "The simulator"), each the array model's storage.
  Status bind(ArrayModel &array) {
    TileId own = tile();
    auto view = [&](aie2p::TileMemory &m, TileId t) -> StatusOr<aie2p::TileMemory *> {
      int *locks = array.coreLocks(t);
      if (!locks) return nullptr;
      auto bytes = array.dataMemory(t, 0, aie2p::kDataMemorySize);
      if (!bytes) return bytes.status();
      m.data.clear();
      m.dataView = reinterpret_cast<uint8_t *>(*bytes);
      m.lockView = locks;
      return &m;
    };
    auto set = [&](aie2p::TileMemory *&slot, aie2p::TileMemory &m, bool exists, TileId t) -> Status {
      if (!exists) return Status::ok();
      auto v = view(m, t);
      if (!v) return v.status();
      slot = *v;
      return Status::ok();
    };
    if (Status s = set(map_.own, memories_[0], true, own); !s) return s;
    if (!map_.own)
      return Status(StatusCode::InvalidArgument, "worker @" + worker_.entry + ": tile " + array::tileName(own) +
                                                     " is not a compute tile of the context");
    if (Status s = set(map_.south, memories_[1], own.row > 2, {own.column, own.row - 1}); !s) return s;
    if (Status s = set(map_.west, memories_[2], own.column > 0, {own.column - 1, own.row}); !s) return s;
    if (Status s = set(map_.north, memories_[3], true, {own.column, own.row + 1}); !s) return s;
    return Status::ok();
  }

  uint32_t index_;
  const format::PlanWorker &worker_;
  std::array<aie2p::TileMemory, 4> memories_;
  aie2p::CoreMemoryMap map_;
  std::unique_ptr<aie2p::Core> core_;
  uint64_t resets_ = 0;  // the array's reset count this core last restarted at
  uint32_t control_ = 0;
  bool halted_ = false;    // the main program ran to its done
  bool finished_ = false;  // ... in this invocation
  Wait wait_ = Wait::NotEnabled;
};

class TransactionNpuKernel final : public Kernel {
public:
  TransactionNpuKernel(const fx::Image &image, const fx::Entry &entry, format::ArrayPlan plan,
                       std::shared_ptr<HostCode> code, KernelContract contract, TileCodeMap native)
      : image_(image), entry_(entry), plan_(std::move(plan)), code_(std::move(code)), contract_(std::move(contract)),
        native_(std::move(native)) {}

  Status initialize();
  Engine engine() const override { return Engine::Npu; }
  const std::string &name() const override { return entry_.name; }
  const KernelContract &contract() const override { return contract_; }
  uint64_t imageBytes() const override { return command_.size(); }
  Status run(std::span<const BindingSpan> bindings, std::span<const std::byte> constants) override;

private:
  StatusOr<std::vector<std::unique_ptr<array::CoreProgram>>> makeCores() const;
  Status dispatch(std::span<const BindingSpan> bindings);

  fx::Image image_;
  fx::Entry entry_;
  format::ArrayPlan plan_;
  std::shared_ptr<HostCode> code_;
  KernelContract contract_;
  TileCodeMap native_;
  std::string where_;
  std::vector<uint8_t> command_;  // the entry's COMMAND allocation, unpatched
  std::vector<fx::Invocation> invocations_;
  std::vector<fx::Relocation> relocations_;  // dynamic
  std::unique_ptr<ArrayModel> array_;
  std::mutex running_;
  uint32_t next_ = 0;
  bool established_ = false;
};

// Binding i is placed at device address (i + 1) << 36 (aligned far beyond any relocation's
// alignment, and below the 48-bit shim address limit).
uint64_t bindingAddress(uint32_t ordinal) { return uint64_t(ordinal + 1) << 36; }

Status TransactionNpuKernel::initialize() {
  where_ = "entry '" + entry_.name + "' (transaction array model)";
  auto bad = [&](const std::string &what) { return Status(StatusCode::InvalidArgument, where_ + ": " + what); };
  if (entry_.allocationUseCount != 1)
    return Status(StatusCode::Unimplemented,
                  where_ + ": " + std::to_string(entry_.allocationUseCount) +
                      " allocation uses; the model runs entries with one COMMAND allocation");
  if (entry_.staticRelocationCount)
    return Status(StatusCode::Unimplemented, where_ + ": static relocations (DMA-domain allocations) are not modelled");
  uint32_t a = image_.allocationUses[entry_.firstAllocationUse];
  const fx::Allocation &alloc = image_.allocations[a];
  if (alloc.domain != fx::Domain::Command)
    return bad("allocation " + std::to_string(a) + " is not a COMMAND allocation");
  if (alloc.alignment < fx::kNpu2InstructionAlignment)
    return bad("COMMAND allocation " + std::to_string(a) + " is aligned to " + std::to_string(alloc.alignment) +
               " bytes; the NPU2 instruction alignment is " + std::to_string(fx::kNpu2InstructionAlignment));
  command_.assign(alloc.byteLength, 0);
  for (const fx::Load &l : image_.loads)
    if (l.allocation == a) std::copy(l.bytes.begin(), l.bytes.end(), command_.begin() + long(l.offset));
  invocations_.assign(image_.invocations.begin() + entry_.firstInvocation,
                      image_.invocations.begin() + entry_.firstInvocation + entry_.invocationCount);
  for (size_t i = 0; i < invocations_.size(); ++i) {
    const fx::Invocation &inv = invocations_[i];
    if (inv.byteOffset % fx::kNpu2InstructionAlignment)
      return bad("invocation " + std::to_string(i) + " starts at byte " + std::to_string(inv.byteOffset) +
                 ", not a multiple of the NPU2 instruction alignment " + std::to_string(fx::kNpu2InstructionAlignment));
    auto decoded = format::txn::decodeTransaction(std::span(command_).subspan(inv.byteOffset, inv.byteLength));
    if (!decoded) return bad("invocation " + std::to_string(i) + ": " + decoded.status().message());
  }
  relocations_.assign(image_.relocations.begin() + entry_.firstDynamicRelocation,
                      image_.relocations.begin() + entry_.firstDynamicRelocation + entry_.dynamicRelocationCount);
  for (const fx::Relocation &r : relocations_)
    if (r.sourceOrdinal >= contract_.bindings.size())
      return bad("a relocation names binding " + std::to_string(r.sourceOrdinal) + " of " +
                 std::to_string(contract_.bindings.size()));
  auto cores = makeCores();  // checks the plan against the host code now
  if (!cores) return cores.status();
  return Status::ok();
}

}  // namespace

StatusOr<std::vector<std::unique_ptr<array::CoreProgram>>>
makeHostTwinCores(const format::ArrayPlan &plan, const StageResolver &resolve, const TileCodeMap *native) {
  const std::string where = "array plan '" + plan.name + "'";
  std::vector<std::unique_ptr<array::CoreProgram>> cores;
  for (uint32_t w = 0; w < plan.workers.size(); ++w) {
    const format::PlanWorker &pw = plan.workers[w];
    auto stage = resolve(pw.entry);
    if (!stage)
      return Status(stage.status().code(), where + ": workers[" + std::to_string(w) + "]: " + stage.status().message());
    std::vector<HostTwinCore::Port> ports;
    for (size_t p = 0; p < pw.ports.size(); ++p) {
      const format::WorkerPort &wp = pw.ports[p];
      HostTwinCore::Port port;
      port.direction = wp.direction;
      port.period = std::max<uint32_t>(wp.period, 1);
      port.recordBytes = wp.recordBytes;
      if (wp.direction == format::PortDirection::State) {
        port.state.assign(wp.recordBytes, std::byte{0});
        ports.push_back(std::move(port));
        continue;
      }
      std::string field = where + ": workers[" + std::to_string(w) + "].ports[" + std::to_string(p) + "]";
      if (!wp.channel || *wp.channel >= plan.channels.size())
        return Status(StatusCode::InvalidArgument, field + ": no channel");
      uint32_t c = *wp.channel;
      std::vector<const format::PlanSlot *> slots;
      for (const format::PlanSlot &s : plan.slots)
        if (s.channel == c) slots.push_back(&s);
      std::sort(slots.begin(), slots.end(), [](auto *x, auto *y) { return x->index < y->index; });
      if (slots.empty())
        return Status(StatusCode::InvalidArgument, field + ": channel " + std::to_string(c) + " has no slots");
      port.owner = tileOf(slots[0]->owner);
      for (const format::PlanSlot *s : slots) port.slots.push_back(s->offset);
      bool credit = false, ready = false;
      for (const format::PlanLock &l : plan.locks)
        if (l.channel == c && l.tile == slots[0]->owner) {
          (l.role == format::LockRole::Credit ? port.creditLock : port.readyLock) = l.id;
          (l.role == format::LockRole::Credit ? credit : ready) = true;
        }
      if (!credit || !ready)
        return Status(StatusCode::InvalidArgument, field + ": channel " + std::to_string(c) +
                                                       " lacks a credit or ready lock on tile " +
                                                       array::tileName(port.owner));
      ports.push_back(std::move(port));
    }
    if (native)
      if (auto it = native->find({pw.tile.column, pw.tile.row}); it != native->end() && !it->second.empty()) {
        cores.push_back(std::make_unique<NativeArrayCore>(w, pw));
        continue;
      }
    cores.push_back(std::make_unique<HostTwinCore>(w, pw, *stage, std::move(ports), nullptr));
  }
  return cores;
}

namespace {

StatusOr<std::vector<std::unique_ptr<array::CoreProgram>>> TransactionNpuKernel::makeCores() const {
  return makeHostTwinCores(plan_, [&](const std::string &entry) { return code_->stage(entry); }, &native_);
}

Status TransactionNpuKernel::dispatch(std::span<const BindingSpan> bindings) {
  std::vector<uint8_t> command = command_;
  for (const fx::Relocation &r : relocations_) {
    if (uint64_t(r.byteOffset) + 8 > command.size())
      return Status(StatusCode::InvalidArgument,
                    where_ + ": a relocation at byte " + std::to_string(r.byteOffset) + " leaves the command");
    if (Status s = fx::applyShimAddress(std::span<uint8_t, 8>(command.data() + r.byteOffset, 8),
                                        bindingAddress(r.sourceOrdinal), r);
        !s)
      return Status(s.code(),
                    where_ + ": relocation of binding " + std::to_string(r.sourceOrdinal) + ": " + s.message());
  }
  if (!array_) {
    array_ = std::make_unique<ArrayModel>(image_.header.columns);
    auto cores = makeCores();
    if (!cores) return cores.status();
    array_->setCores(std::move(*cores));
  }
  std::vector<array::HostRegion> regions;
  for (uint32_t i = 0; i < bindings.size(); ++i)
    regions.push_back({bindingAddress(i), bindings[i].data, bindings[i].length, "binding " + std::to_string(i)});
  array_->setHostMemory(std::move(regions));
  for (const auto &core : array_->cores()) core->startInvocation();
  std::vector<uint32_t> order = fx::dispatchOrder(invocations_, established_, next_);
  for (uint32_t i : order) {
    const fx::Invocation &inv = invocations_[i];
    auto decoded = format::txn::decodeTransaction(std::span(command).subspan(inv.byteOffset, inv.byteLength));
    if (!decoded)
      return Status(decoded.status().code(),
                    where_ + ": invocation " + std::to_string(i) + ": " + decoded.status().message());
    if (Status s = array_->execute(*decoded, where_ + ": invocation " + std::to_string(i)); !s) return s;
    next_ = inv.nextInvocation;
  }
  return array_->finishInvocation(where_ + ": invocation " + std::to_string(order.back()));
}

Status TransactionNpuKernel::run(std::span<const BindingSpan> bindings, std::span<const std::byte>) {
  std::lock_guard lock(running_);
  if (bindings.size() != contract_.bindings.size())
    return Status(StatusCode::InvalidArgument, where_ + ": " + std::to_string(bindings.size()) +
                                                   " bindings given, the entry has " +
                                                   std::to_string(contract_.bindings.size()));
  Status s = dispatch(bindings);
  if (!s) {
    array_.reset();  // the resident state is broken: the next dispatch re-establishes
    established_ = false;
    return s;
  }
  established_ = true;
  return s;
}

}  // namespace

StatusOr<std::shared_ptr<Kernel>> makeTransactionNpuKernel(const format::xdna::Image &image,
                                                           const std::string &entryName, format::ArrayPlan plan,
                                                           std::shared_ptr<HostCode> code, KernelContract contract,
                                                           TileCodeMap native) {
  if (Status s = contract.validate(); !s) return s;
  const fx::Entry *entry = image.entry(entryName);
  if (!entry) return Status(StatusCode::NotFound, "the image has no entry '" + entryName + "'");
  auto kernel = std::make_shared<TransactionNpuKernel>(image, *entry, std::move(plan), std::move(code),
                                                       std::move(contract), std::move(native));
  if (Status s = kernel->initialize(); !s) return s;
  return std::shared_ptr<Kernel>(std::move(kernel));
}

}  // namespace hrx::runtime
