// The host reference device's NPU path: executes an array plan with its workers as
// cooperative tasks, channels as lock-guarded rings and binding transfers as DMA tasks.
#include "WorkerPool.h"

#include "hrx/runtime/HostDevice.h"
#include "hrx/runtime/NativeCore.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>

namespace hrx::runtime {
namespace {

using format::ArrayPlan;
using format::BindingTransfer;
using format::PortDirection;

format::ContractAccess contractAccessOf(format::PlanAccess access) {
  switch (access) {
  case format::PlanAccess::Read: return format::ContractAccess::Read;
  case format::PlanAccess::Write: return format::ContractAccess::Write;
  case format::PlanAccess::ReadWrite: return format::ContractAccess::ReadWrite;
  }
  return format::ContractAccess::ReadWrite;
}

std::string tileText(const format::TileCoord &tile) {
  return "(" + std::to_string(tile.column) + "," + std::to_string(tile.row) + ")";
}

// The byte extent [first, end) a transfer's record touches relative to its start.
uint64_t recordSpan(const BindingTransfer &t) {
  uint64_t span = t.runBytes;
  for (const format::AccessDim &d : t.dims) span += uint64_t(d.size - 1) * d.strideBytes;
  return span;
}

uint64_t recordSize(const BindingTransfer &t) {
  uint64_t size = t.runBytes;
  for (const format::AccessDim &d : t.dims) size *= d.size;
  return size;
}

// Copies one record between a binding and a slot, run by run, dims[0] innermost.
void moveRecord(const BindingTransfer &t, std::byte *binding, uint64_t start, std::byte *slot, bool toSlot) {
  size_t rank = t.dims.size();
  uint32_t index[8] = {};
  uint64_t runs = 1;
  for (const format::AccessDim &d : t.dims) runs *= d.size;
  for (uint64_t run = 0; run < runs; ++run) {
    uint64_t offset = start;
    for (size_t d = 0; d < rank; ++d) offset += uint64_t(index[d]) * t.dims[d].strideBytes;
    if (toSlot)
      std::memcpy(slot, binding + offset, t.runBytes);
    else
      std::memcpy(binding + offset, slot, t.runBytes);
    slot += t.runBytes;
    for (size_t d = 0; d < rank && ++index[d] == t.dims[d].size; ++d) index[d] = 0;
  }
}

class HostNpuKernel final : public Kernel {
public:
  HostNpuKernel(ArrayPlan plan, std::shared_ptr<HostCode> code, KernelContract contract, TileCodeMap native)
      : plan_(std::move(plan)), code_(std::move(code)), contract_(std::move(contract)), native_(std::move(native)) {}

  Status initialize();
  Engine engine() const override { return Engine::Npu; }
  const std::string &name() const override { return plan_.name; }
  const KernelContract &contract() const override { return contract_; }
  uint64_t imageBytes() const override { return slotStorage_.size() + stateStorage_.size(); }
  Status run(std::span<const BindingSpan> bindings, std::span<const std::byte> constants) override;

private:
  struct Channel {
    size_t base;  // offset of slot 0 in slotStorage_
    uint32_t recordBytes, capacity;
    uint32_t credit = 0, ready = 0;
    uint64_t sent = 0, received = 0;
    // Records in place (chosen per run, placeInPlace): the worker's record k is record k of the
    // binding transfer, in the binding; the transfer moves no bytes, only the locks.
    std::byte *inPlace = nullptr;
    uint64_t inPlaceStride = 0, inPlaceRecords = 1;
    std::byte *slot(uint64_t sequence, std::vector<std::byte> &storage) const {
      // (No division in the common cases: it costs more than the rest of a call's bookkeeping.)
      if (inPlace) return inPlace + (sequence < inPlaceRecords ? sequence : sequence % inPlaceRecords) * inPlaceStride;
      return storage.data() + base + (capacity == 1 ? 0 : sequence % capacity) * recordBytes;
    }
  };
  struct Transfer {  // a DMA task between a binding and a channel
    uint32_t channel;
    bool toChannel;  // memory-to-stream (binding -> slots)
    const BindingTransfer *pattern;
    uint32_t bindingIndex;  // into the kernel's bindings (the plan binding's ordinal)
    uint64_t moved = 0;
    bool mayBeInPlace = false;  // contiguous records, and the worker's stage allows it
  };
  struct Task {  // one worker
    const format::PlanWorker *worker;
    hrx_host_stage_fn stage;
    std::vector<void *> records;                   // per port, passed to the stage
    std::vector<size_t> stateAt;                   // per State port: offset in stateStorage_
    uint32_t iteration = 0;                        // the next iteration to reserve
    const std::vector<uint8_t> *native = nullptr;  // the tile's core code: run instead of the twin
    std::vector<uint32_t> recordBytes;             // per port, for the native run
    std::unique_ptr<NativeStage> nativeStage;      // prepared once: tile and decoded bundles kept
  };
  // Iterations [first, first + count) of one task, reserved in one round.
  struct Batch {
    Task *task;
    uint32_t first, count;
    uint64_t nanoseconds;
    Status status = Status::ok();  // a native run's trap
  };
  struct Blocked {
    uint32_t channel;
    bool onCredit;
  };

  Status establish();
  void markInPlaceTransfers();
  void placeInPlace(std::span<const BindingSpan> bindings);
  bool runInPlace();
  uint32_t reserve(Task &task, Blocked &blocked);
  void execute(Batch &batch);
  void release(const Batch &batch);
  static void executeInPool(void *self, uint64_t index);
  bool stepTransfer(Transfer &transfer, std::span<const BindingSpan> bindings, Blocked &blocked);
  Status deadlock(const std::vector<Blocked> &taskBlocked, const std::vector<Blocked> &transferBlocked) const;

  ArrayPlan plan_;
  std::shared_ptr<HostCode> code_;
  KernelContract contract_;
  TileCodeMap native_;
  std::vector<Channel> channels_;
  std::vector<Transfer> transfers_;
  std::vector<Task> tasks_;
  std::vector<std::byte> slotStorage_, stateStorage_;
  std::vector<Blocked> taskBlocked_, transferBlocked_;
  std::vector<Batch> batches_;  // reserved to one per task
  // Mean time of one stage call, measured as batches run; batches of several workers run in
  // parallel once calls are long enough to pay for the hand-off to the pool.
  double stageNanoseconds_ = 0;
  bool timeStages_ = false;  // only a plan with several workers can run batches in parallel
  std::mutex running_;
  unsigned nextInvocation_ = 0;  // 0 establishes the resident state; 1 continues it
  std::string where_;
};

Status HostNpuKernel::initialize() {
  where_ = "array plan '" + plan_.name + "'";
  auto bad = [&](const std::string &field, const std::string &what) {
    return Status(StatusCode::InvalidArgument, where_ + ": " + field + ": " + what);
  };
  for (size_t i = 0; i < plan_.bindings.size(); ++i)
    if (plan_.bindings[i].ordinal >= contract_.bindings.size())
      return bad("bindings[" + std::to_string(i) + "].ordinal",
                 "no contract binding " + std::to_string(plan_.bindings[i].ordinal));
  size_t storage = 0;
  for (size_t c = 0; c < plan_.channels.size(); ++c) {
    const format::PlanChannel &pc = plan_.channels[c];
    std::string field = "channels[" + std::to_string(c) + "]";
    if (pc.capacity == 0 || pc.recordBytes == 0) return bad(field, "capacity and record bytes must be nonzero");
    channels_.push_back(Channel{storage, pc.recordBytes, pc.capacity});
    storage += uint64_t(pc.capacity) * pc.recordBytes;
    for (bool sender : {true, false}) {
      const format::ChannelEnd &end = sender ? pc.sender : pc.receiver;
      std::string endField = field + (sender ? ".sender" : ".receiver");
      if (end.binding.has_value() == end.worker.has_value())
        return bad(endField, "must name exactly one of a binding transfer and a worker port");
      if (end.worker) {
        if (end.worker->worker >= plan_.workers.size() ||
            end.worker->port >= plan_.workers[end.worker->worker].ports.size())
          return bad(endField, "names a worker port that does not exist");
        continue;
      }
      const BindingTransfer &t = *end.binding;
      if (t.binding >= plan_.bindings.size()) return bad(endField + ".binding", "out of range");
      if (t.dims.size() > 8) return bad(endField + ".dims", "more than 8 dimensions");
      for (const format::AccessDim &d : t.dims)
        if (d.size == 0) return bad(endField + ".dims", "a dimension of size 0");
      if (recordSize(t) != pc.recordBytes)
        return bad(endField, "moves " + std::to_string(recordSize(t)) + "-byte records into a channel of " +
                                 std::to_string(pc.recordBytes) + "-byte records");
      transfers_.push_back(Transfer{static_cast<uint32_t>(c), sender, &t, plan_.bindings[t.binding].ordinal});
    }
  }
  slotStorage_.assign(storage, std::byte{0});

  size_t stateBytes = 0;
  for (size_t w = 0; w < plan_.workers.size(); ++w) {
    const format::PlanWorker &pw = plan_.workers[w];
    auto stage = code_->stage(pw.entry);
    if (!stage)
      return Status(stage.status().code(),
                    where_ + ": workers[" + std::to_string(w) + "]: " + stage.status().message());
    Task task{&pw, *stage, std::vector<void *>(pw.ports.size()), std::vector<size_t>(pw.ports.size()), 0, nullptr,
              {},  nullptr};
    if (auto code = native_.find({pw.tile.column, pw.tile.row}); code != native_.end()) task.native = &code->second;
    for (const format::WorkerPort &port : pw.ports) task.recordBytes.push_back(port.recordBytes);
    if (task.native) task.nativeStage = std::make_unique<NativeStage>(*task.native, task.recordBytes);
    for (size_t p = 0; p < pw.ports.size(); ++p) {
      const format::WorkerPort &port = pw.ports[p];
      std::string field = "workers[" + std::to_string(w) + "].ports[" + std::to_string(p) + "]";
      if (port.period == 0) return bad(field + ".period", "must be at least 1");
      if (port.direction == PortDirection::State) {
        task.stateAt[p] = stateBytes;
        stateBytes += (port.recordBytes + 63) / 64 * 64;
        continue;
      }
      if (!port.channel || *port.channel >= channels_.size()) return bad(field + ".channel", "out of range");
      const format::PlanChannel &pc = plan_.channels[*port.channel];
      const format::ChannelEnd &end = port.direction == PortDirection::Input ? pc.receiver : pc.sender;
      if (!end.worker || end.worker->worker != w || end.worker->port != p)
        return bad(field, "channel " + std::to_string(*port.channel) + " does not name this port as its " +
                              (port.direction == PortDirection::Input ? "receiver" : "sender"));
    }
    tasks_.push_back(std::move(task));
  }
  stateStorage_.assign(stateBytes, std::byte{0});
  timeStages_ = tasks_.size() > 1;
  markInPlaceTransfers();
  taskBlocked_.resize(tasks_.size());
  batches_.reserve(tasks_.size());
  transferBlocked_.resize(transfers_.size());
  return Status::ok();
}

// A transfer may hand its records to the worker in place when each record is one contiguous run
// of the binding and the worker's stage (HostCode::stageAccess) never writes the record it reads
// (an input) or never reads the record it writes (an output, each record written once). Workers
// with native core code always get slots.
void HostNpuKernel::markInPlaceTransfers() {
  for (Transfer &t : transfers_) {
    const BindingTransfer &p = *t.pattern;
    const format::PlanChannel &pc = plan_.channels[t.channel];
    const format::ChannelEnd &other = t.toChannel ? pc.receiver : pc.sender;
    if (!other.worker) continue;
    const Task &task = tasks_[other.worker->worker];
    if (task.native) continue;
    uint64_t dense = p.runBytes;
    bool contiguous = true;
    for (const format::AccessDim &d : p.dims) {
      contiguous &= d.size == 1 || d.strideBytes == dense;
      dense *= d.size;
    }
    if (!contiguous) continue;
    if (!t.toChannel && (p.repeatCount != 1 || p.recordStride < pc.recordBytes)) continue;
    std::span<const uint8_t> access = code_->stageAccess(task.worker->entry, task.worker->ports.size());
    if (access.empty()) continue;
    uint8_t forbidden = t.toChannel ? HRX_HOST_RECORD_WRITE : HRX_HOST_RECORD_READ;
    t.mayBeInPlace = (access[other.worker->port] & forbidden) == 0;
  }
}

// In place for this run's bindings: a record read in place must not lie where any transfer
// writes, one written in place not where any other transfer reads or writes (so every byte a
// transfer touches changes exactly when it did through slots).
void HostNpuKernel::placeInPlace(std::span<const BindingSpan> bindings) {
  auto extent = [&](const Transfer &t) {
    const BindingTransfer &p = *t.pattern;
    uintptr_t begin = reinterpret_cast<uintptr_t>(bindings[t.bindingIndex].data) + p.byteOffset;
    return std::pair<uintptr_t, uintptr_t>(begin, begin + uint64_t(p.recordCount - 1) * p.recordStride +
                                                      recordSpan(p));
  };
  for (Transfer &t : transfers_) {
    Channel &c = channels_[t.channel];
    c.inPlace = nullptr;
    if (!t.mayBeInPlace) continue;
    auto [begin, end] = extent(t);
    bool clear = true;
    for (const Transfer &o : transfers_) {
      if (&o == &t || (t.toChannel && o.toChannel)) continue;
      auto [oBegin, oEnd] = extent(o);
      clear &= end <= oBegin || oEnd <= begin;
    }
    if (!clear) continue;
    c.inPlace = bindings[t.bindingIndex].data + t.pattern->byteOffset;
    c.inPlaceStride = t.pattern->recordStride;
    c.inPlaceRecords = t.pattern->recordCount;
  }
}

// One worker (host twin) whose every channel is a transfer in place, with every lock at rest:
// no transfer can wait (each only counts the records the worker takes or gives), so the rounds
// would run the worker's iterations in order without a stop. They run back to back instead; the
// counters end where the rounds leave them and the locks, back at rest, are not touched.
bool HostNpuKernel::runInPlace() {
  if (tasks_.size() != 1 || tasks_[0].native || transfers_.size() != channels_.size()) return false;
  for (const Transfer &t : transfers_) {
    const Channel &c = channels_[t.channel];
    if (!c.inPlace || c.credit != c.capacity || c.ready != 0) return false;
  }
  Task &task = tasks_[0];
  Batch batch{&task, 0, task.worker->iterations, 0, Status::ok()};
  execute(batch);
  task.iteration = task.worker->iterations;
  for (Transfer &t : transfers_) {
    t.moved = t.pattern->recordsMoved();
    Channel &c = channels_[t.channel];
    (t.toChannel ? c.sent : c.received) = t.moved;
  }
  return true;
}

// Invocation 0: reset every ring and lock to the plan's initial values.
Status HostNpuKernel::establish() {
  std::fill(slotStorage_.begin(), slotStorage_.end(), std::byte{0});
  for (Channel &c : channels_) {
    c.credit = c.capacity;
    c.ready = 0;
    c.sent = c.received = 0;
  }
  for (size_t i = 0; i < plan_.locks.size(); ++i) {
    const format::PlanLock &lock = plan_.locks[i];
    if (lock.channel >= channels_.size())
      return Status(StatusCode::InvalidArgument, where_ + ": locks[" + std::to_string(i) + "].channel: out of range");
    Channel &c = channels_[lock.channel];
    (lock.role == format::LockRole::Credit ? c.credit : c.ready) = lock.initial;
  }
  return Status::ok();
}

// Reserves as many consecutive iterations as the current lock values allow. Acquisitions
// happen now; releases wait for release(), after the batch ran. A worker neither feeds nor
// drains its own channels, so the workers reserved in one round touch disjoint slots and can
// run in parallel.
uint32_t HostNpuKernel::reserve(Task &task, Blocked &blocked) {
  const format::PlanWorker &w = *task.worker;
  uint32_t first = task.iteration;
  for (; task.iteration < w.iterations; ++task.iteration) {
    uint32_t it = task.iteration;
    for (const format::WorkerPort &port : w.ports) {
      if (port.direction == PortDirection::State || it % port.period != 0) continue;
      const Channel &c = channels_[*port.channel];
      bool input = port.direction == PortDirection::Input;
      if ((input ? c.ready : c.credit) == 0) {
        blocked = Blocked{*port.channel, !input};
        return task.iteration - first;
      }
    }
    for (const format::WorkerPort &port : w.ports) {
      if (port.direction == PortDirection::State || it % port.period != 0) continue;
      Channel &c = channels_[*port.channel];
      --(port.direction == PortDirection::Input ? c.ready : c.credit);
    }
  }
  return task.iteration - first;
}

// Runs a batch's stage calls. A port's k-th record is the channel's k-th record: k = it / period.
void HostNpuKernel::execute(Batch &batch) {
  Task &task = *batch.task;
  const format::PlanWorker &w = *task.worker;
  auto start = timeStages_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  // Every port's record k in place at base + k * stride (period 1, no wrap): the records step by
  // their strides, without the per-port period and slot arithmetic of the general loop below
  // (divisions that cost as much as a short stage call).
  constexpr size_t kSteppedPorts = 8;
  bool stepped = !task.native && w.ports.size() <= kSteppedPorts;
  for (size_t p = 0; stepped && p < w.ports.size(); ++p) {
    const format::WorkerPort &port = w.ports[p];
    const Channel *c = port.direction == PortDirection::State ? nullptr : &channels_[*port.channel];
    stepped = c && port.period == 1 && c->inPlace && batch.first + uint64_t(batch.count) <= c->inPlaceRecords;
  }
  if (stepped) {
    std::array<uint64_t, kSteppedPorts> strides{};
    for (size_t p = 0; p < w.ports.size(); ++p) {
      const Channel &c = channels_[*w.ports[p].channel];
      strides[p] = c.inPlaceStride;
      task.records[p] = c.inPlace + uint64_t(batch.first) * c.inPlaceStride;
    }
    void **records = task.records.data();
    for (uint32_t left = batch.count; left > 0; --left) {
      task.stage(records);
      for (size_t p = 0; p < w.ports.size(); ++p) records[p] = static_cast<std::byte *>(records[p]) + strides[p];
    }
  }
  for (uint32_t it = batch.first; !stepped && it < batch.first + batch.count; ++it) {
    for (size_t p = 0; p < w.ports.size(); ++p) {
      const format::WorkerPort &port = w.ports[p];
      if (port.direction == PortDirection::State) {
        task.records[p] = stateStorage_.data() + task.stateAt[p];
        if (it % port.period == 0) std::memset(task.records[p], 0, port.recordBytes);
        continue;
      }
      task.records[p] = channels_[*port.channel].slot(port.period == 1 ? it : it / port.period, slotStorage_);
    }
    if (task.native) {
      batch.status = task.nativeStage->run(
          task.records, [&] { return where_ + ": worker @" + w.entry + " iteration " + std::to_string(it); });
      if (!batch.status) break;
    } else {
      task.stage(task.records.data());
    }
  }
  batch.nanoseconds = timeStages_ ? static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                              std::chrono::steady_clock::now() - start)
                                                              .count())
                                   : 0;
}

void HostNpuKernel::executeInPool(void *self, uint64_t index) {
  auto *kernel = static_cast<HostNpuKernel *>(self);
  kernel->execute(kernel->batches_[index]);
}

// Consumed inputs return credit; finished outputs become ready.
void HostNpuKernel::release(const Batch &batch) {
  for (uint32_t it = batch.first; it < batch.first + batch.count; ++it)
    for (const format::WorkerPort &port : batch.task->worker->ports) {
      if (port.direction == PortDirection::State || it % port.period != port.period - 1) continue;
      Channel &c = channels_[*port.channel];
      ++(port.direction == PortDirection::Input ? c.credit : c.ready);
    }
}

bool HostNpuKernel::stepTransfer(Transfer &t, std::span<const BindingSpan> bindings, Blocked &blocked) {
  const BindingTransfer &p = *t.pattern;
  Channel &c = channels_[t.channel];
  std::byte *binding = bindings[t.bindingIndex].data;
  bool progressed = false;
  if (c.inPlace) {  // the worker reads or writes the records where they are: count them through
    uint64_t count = std::min<uint64_t>(p.recordsMoved() - t.moved, t.toChannel ? c.credit : c.ready);
    if (t.toChannel) {
      c.credit -= uint32_t(count);
      c.ready += uint32_t(count);
      c.sent += count;
    } else {
      c.ready -= uint32_t(count);
      c.credit += uint32_t(count);
      c.received += count;
    }
    t.moved += count;
    progressed = count != 0;
  }
  while (t.moved < p.recordsMoved()) {
    uint64_t start = p.byteOffset + (t.moved % p.recordCount) * p.recordStride;
    if (t.toChannel) {
      if (c.credit == 0) break;
      --c.credit;
      moveRecord(p, binding, start, c.slot(c.sent++, slotStorage_), true);
      ++c.ready;
    } else {
      if (c.ready == 0) break;
      --c.ready;
      moveRecord(p, binding, start, c.slot(c.received++, slotStorage_), false);
      ++c.credit;
    }
    ++t.moved;
    progressed = true;
  }
  if (t.moved < p.recordsMoved()) blocked = Blocked{t.channel, t.toChannel};
  return progressed;
}

Status HostNpuKernel::deadlock(const std::vector<Blocked> &taskBlocked,
                               const std::vector<Blocked> &transferBlocked) const {
  std::ostringstream os;
  os << "deadlock in " << where_ << ": every unfinished task is blocked";
  auto lockText = [&](const Blocked &b) {
    const Channel &c = channels_[b.channel];
    std::ostringstream s;
    s << (b.onCredit ? "credit" : "ready") << " on channel " << b.channel << " (" << (b.onCredit ? c.credit : c.ready)
      << " of " << c.capacity << (b.onCredit ? " slots free)" : " slots ready)");
    return s.str();
  };
  for (size_t i = 0; i < tasks_.size(); ++i) {
    const Task &t = tasks_[i];
    if (t.iteration >= t.worker->iterations) continue;
    os << "\n  worker " << i << " (@" << t.worker->entry << " at tile " << tileText(t.worker->tile) << ", iteration "
       << t.iteration << " of " << t.worker->iterations << ") waits for " << lockText(taskBlocked[i]);
  }
  for (size_t i = 0; i < transfers_.size(); ++i) {
    const Transfer &t = transfers_[i];
    if (t.moved >= t.pattern->recordsMoved()) continue;
    os << "\n  " << (t.toChannel ? "input" : "output") << " DMA of binding " << t.bindingIndex << " (record " << t.moved
       << " of " << t.pattern->recordsMoved() << ") waits for " << lockText(transferBlocked[i]);
  }
  return Status(StatusCode::FailedPrecondition, os.str());
}

Status HostNpuKernel::run(std::span<const BindingSpan> bindings, std::span<const std::byte>) {
  std::lock_guard lock(running_);
  if (bindings.size() != contract_.bindings.size())
    return Status(StatusCode::InvalidArgument, where_ + ": " + std::to_string(bindings.size()) +
                                                   " bindings given, the entry has " +
                                                   std::to_string(contract_.bindings.size()));
  // Every record of every transfer must lie inside its binding before anything moves.
  for (const Transfer &t : transfers_) {
    const BindingTransfer &p = *t.pattern;
    uint64_t end = p.byteOffset + uint64_t(p.recordCount - 1) * p.recordStride + recordSpan(p);
    if (p.recordCount == 0 || end > bindings[t.bindingIndex].length)
      return Status(StatusCode::InvalidArgument, where_ + ": channel " + std::to_string(t.channel) +
                                                     " transfers bytes up to " + std::to_string(end) + " of binding " +
                                                     std::to_string(t.bindingIndex) + ", which has " +
                                                     std::to_string(bindings[t.bindingIndex].length) + " bytes");
  }
  if (nextInvocation_ == 0) {
    if (Status s = establish(); !s) return s;
  } else {
    for (size_t c = 0; c < channels_.size(); ++c)
      if (channels_[c].credit != channels_[c].capacity || channels_[c].ready != 0)
        return Status(StatusCode::Internal,
                      where_ + ": resident state of channel " + std::to_string(c) + " is not intact for invocation 1");
  }
  placeInPlace(bindings);
  for (Task &t : tasks_) t.iteration = 0;
  for (Transfer &t : transfers_) t.moved = 0;
  for (Channel &c : channels_) c.sent = c.received = 0;

  constexpr double kParallelStageNanoseconds = 20000;
  for (bool done = runInPlace(); !done;) {  // else the rounds: transfers, then a batch per worker
    bool moved = false, unfinished = false;
    for (size_t i = 0; i < transfers_.size(); ++i) {
      moved |= stepTransfer(transfers_[i], bindings, transferBlocked_[i]);
      unfinished |= transfers_[i].moved < transfers_[i].pattern->recordsMoved();
    }
    batches_.clear();
    for (size_t i = 0; i < tasks_.size(); ++i) {
      uint32_t first = tasks_[i].iteration;
      if (uint32_t count = reserve(tasks_[i], taskBlocked_[i]))
        batches_.push_back(Batch{&tasks_[i], first, count, 0, Status::ok()});
      unfinished |= tasks_[i].iteration < tasks_[i].worker->iterations;
    }
    if (batches_.empty()) {
      if (!unfinished) break;
      if (!moved) {
        nextInvocation_ = 0;  // the resident state is broken: the next invocation re-establishes
        return deadlock(taskBlocked_, transferBlocked_);
      }
      continue;
    }
    if (batches_.size() > 1 && hostThreadCount() > 1 && stageNanoseconds_ >= kParallelStageNanoseconds)
      WorkerPool::instance().parallelFor(batches_.size(), &executeInPool, this);
    else
      for (Batch &batch : batches_) execute(batch);
    uint64_t nanoseconds = 0, calls = 0;
    for (const Batch &batch : batches_)
      if (!batch.status) {
        nextInvocation_ = 0;
        return batch.status;
      }
    for (const Batch &batch : batches_) {
      release(batch);
      nanoseconds += batch.nanoseconds;
      calls += batch.count;
    }
    if (timeStages_) stageNanoseconds_ = 0.75 * stageNanoseconds_ + 0.25 * (double(nanoseconds) / double(calls));
  }
  for (size_t c = 0; c < channels_.size(); ++c)
    if (channels_[c].credit != channels_[c].capacity || channels_[c].ready != 0) {
      nextInvocation_ = 0;
      return Status(StatusCode::FailedPrecondition, where_ + ": channel " + std::to_string(c) + " holds " +
                                                        std::to_string(channels_[c].ready) +
                                                        " unconsumed record(s) after every task finished");
    }
  nextInvocation_ = 1;  // terminal completion: continue 0 -> 1 -> 1
  return Status::ok();
}

}  // namespace

StatusOr<KernelContract> contractFromPlan(const ArrayPlan &plan) {
  KernelContract contract;
  contract.bindings.resize(plan.bindings.size());
  std::vector<bool> seen(plan.bindings.size());
  for (size_t i = 0; i < plan.bindings.size(); ++i) {
    const format::PlanBinding &b = plan.bindings[i];
    if (b.ordinal >= plan.bindings.size() || seen[b.ordinal])
      return Status(StatusCode::InvalidArgument, "array plan '" + plan.name + "': bindings[" + std::to_string(i) +
                                                     "].ordinal: binding ordinals must be dense and unique");
    seen[b.ordinal] = true;
    contract.bindings[b.ordinal] =
        BindingContract{b.bytes, 1, contractAccessOf(b.access), "binding " + std::to_string(b.ordinal)};
  }
  return contract;
}

StatusOr<std::shared_ptr<Kernel>> makeHostNpuKernel(ArrayPlan plan, std::shared_ptr<HostCode> code,
                                                    KernelContract contract, TileCodeMap native) {
  if (Status s = contract.validate(); !s) return s;
  auto kernel =
      std::make_shared<HostNpuKernel>(std::move(plan), std::move(code), std::move(contract), std::move(native));
  if (Status s = kernel->initialize(); !s) return s;
  return std::shared_ptr<Kernel>(std::move(kernel));
}

}  // namespace hrx::runtime
