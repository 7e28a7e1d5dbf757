#include "RuntimeImpl.h"

#include "BindingGuard.h"

#include "hrx/Version.h"
#include "hrx/runtime/Admission.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <pthread.h>
#include <sstream>

namespace hrx::runtime {

std::string version() { return HRX_VERSION_STRING; }

Status RuntimeOptions::validate() const {
  if (maxSubmissions == 0 || graphSlots == 0)
    return Status(StatusCode::InvalidArgument, "runtime capacities must be nonzero and GPU index nonnegative");
  return Status::ok();
}

std::string Statistics::toJson() const {
  std::ostringstream os;
  os << "{\"allocations\":" << allocations << ",\"imports\":" << imports << ",\"submissions\":" << submissions
     << ",\"completions\":" << completions << ",\"copied_bytes\":" << copiedBytes
     << ",\"cache_maintenance_bytes\":" << cacheMaintenanceBytes << ",\"live_bytes\":" << liveBytes
     << ",\"peak_bytes\":" << peakBytes << "}";
  return os.str();
}

Status RuntimeState::charge(uint64_t bytes) {
  if (!options.memoryBudget) {
    budgetUsed.fetch_add(bytes);
    return Status::ok();
  }
  uint64_t budget = *options.memoryBudget, used = budgetUsed.load();
  do {
    if (bytes > budget - std::min(used, budget))
      return Status(StatusCode::ResourceExhausted, "memory budget exceeded: " + std::to_string(bytes) +
                                                       " bytes requested, " + std::to_string(used) + " of " +
                                                       std::to_string(budget) + " in use");
  } while (!budgetUsed.compare_exchange_weak(used, used + bytes));
  return Status::ok();
}

void RuntimeState::uncharge(uint64_t bytes) { budgetUsed.fetch_sub(bytes); }

void RuntimeState::addLive(uint64_t bytes) {
  uint64_t live = liveBytes.fetch_add(bytes) + bytes, peak = peakBytes.load();
  while (live > peak && !peakBytes.compare_exchange_weak(peak, live)) {}
}

StatusOr<std::unique_ptr<Runtime>> Runtime::create(RuntimeOptions options) {
  if (Status s = options.validate(); !s) return s;
  auto state = std::make_shared<RuntimeState>();
  state->options = std::move(options);
  static constexpr const char *kThreadNames[kWorkerLaneCount] = {"hrx-upload", "hrx-compute", "hrx-download",
                                                                 "hrx-npu"};
  for (unsigned lane = 0; lane < kWorkerLaneCount; ++lane) {
    state->lanes[lane].thread = std::thread([raw = state.get(), lane] { raw->laneMain(static_cast<Lane>(lane)); });
    pthread_setname_np(state->lanes[lane].thread.native_handle(), kThreadNames[lane]);
  }
  std::unique_ptr<Runtime> runtime(new Runtime(std::move(state)));
  if (const char *faults = std::getenv("HRX_FAULT_INJECT"); faults && *faults)
    if (Status s = faults::armFromSpec(*runtime, faults); !s) return s;
  return runtime;
}

Runtime::~Runtime() {
  bool idle;
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
    idle = state_->inflightCount == 0;
    for (LaneWorker &lane : state_->lanes) lane.wake.notify_all();
  }
  for (LaneWorker &lane : state_->lanes) {
    if (idle)
      lane.thread.join();
    else
      lane.thread.detach();
  }
  // Work still in flight keeps the lane workers running (they stop once it drains): they need
  // the state until then.
  if (!idle) retainUntilExit(state_);
}

void retainUntilExit(std::shared_ptr<void> owner) {
  // Reachable from a global and never destroyed, so leak checkers see retained, not lost, memory.
  static std::mutex mutex;
  static auto *retained = new std::vector<std::shared_ptr<void>>;
  std::lock_guard lock(mutex);
  retained->push_back(std::move(owner));
}

const RuntimeOptions &Runtime::options() const { return state_->options; }

Device Runtime::host() const { return Device{DeviceKind::Host, 0, "host"}; }

StatusOr<Device> Runtime::npu(unsigned index) const {
  auto admitted = admitNpu(sysfsRoot(), index);
  if (!admitted) return admitted.status();
  return Device{DeviceKind::Npu, index, admitted->target};
}

StatusOr<Device> Runtime::gpu() const {
  auto admitted = admitGpu(sysfsRoot(), state_->options.gpuIndex);
  if (!admitted) return admitted.status();
  return Device{DeviceKind::Gpu, state_->options.gpuIndex, admitted->target};
}

StatusOr<Buffer> Runtime::allocate(uint64_t size, const Placement &placement) {
  if (size == 0 || size > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return Status(StatusCode::InvalidArgument, "allocation size must be in 1..=isize::MAX");
  bool npuPlacement = placement.kind() == Placement::Kind::NpuLocal || placement.kind() == Placement::Kind::Shared;
  if (npuPlacement && placement.device().kind == DeviceKind::Gpu)
    return Status(StatusCode::InvalidArgument, std::string(placement.name()) + " placement names the GPU (" +
                                                   placement.device().target +
                                                   "); it takes an NPU device (npu(i)) or the host reference device");
  if (Status s = state_->charge(size); !s) return s;
  // 64-byte aligned so that every contract alignment up to a cache line holds at offset 0.
  constexpr uint64_t kAlign = 64;
  uint64_t rounded = (size + kAlign - 1) / kAlign * kAlign;
  bool injected = state_->faultHit(faults::FaultSite::Allocation);
  // Guarded: the bytes end at an inaccessible page, so a kernel running past them is stopped
  // and named (BindingGuard.h) instead of corrupting other memory. Fresh pages are zero.
  void *data = injected ? nullptr : allocateGuarded(rounded);
  if (!data) {
    state_->uncharge(size);
    return Status(StatusCode::ResourceExhausted, "out of host memory allocating " + std::to_string(size) + " bytes" +
                                                     (injected ? " (injected fault: HRX_FAULT_INJECT)" : ""));
  }
  state_->allocations.fetch_add(1);
  if (placement.kind() == Placement::Kind::Shared) state_->imports.fetch_add(1);
  state_->addLive(size);
  return Buffer(std::make_shared<Allocation>(state_, placement, size, static_cast<std::byte *>(data)));
}

namespace {
// Keeps a kernel's image charge for as long as the kernel lives.
struct ChargedKernel {
  ChargedKernel(std::shared_ptr<Kernel> kernel, std::shared_ptr<RuntimeState> runtime, uint64_t bytes)
      : kernel(std::move(kernel)), runtime(std::move(runtime)), bytes(bytes) {}
  ChargedKernel(const ChargedKernel &) = delete;
  ChargedKernel &operator=(const ChargedKernel &) = delete;
  ~ChargedKernel() { runtime->uncharge(bytes); }
  std::shared_ptr<Kernel> kernel;
  std::shared_ptr<RuntimeState> runtime;
  uint64_t bytes;
};
}  // namespace

StatusOr<std::shared_ptr<Kernel>> Runtime::adoptKernel(std::shared_ptr<Kernel> kernel) {
  if (!kernel) return Status(StatusCode::InvalidArgument, "null kernel");
  if (Status s = kernel->contract().validate(); !s) return s;
  uint64_t bytes = kernel->imageBytes();
  if (Status s = state_->charge(bytes); !s) return s;
  auto holder = std::make_shared<ChargedKernel>(std::move(kernel), state_, bytes);
  Kernel *raw = holder->kernel.get();
  return std::shared_ptr<Kernel>(std::move(holder), raw);
}

Statistics Runtime::statistics() const {
  const RuntimeState &s = *state_;
  return Statistics{s.allocations.load(), s.imports.load(),     s.submissions.load(),
                    s.completions.load(), s.copiedBytes.load(), s.cacheMaintenanceBytes.load(),
                    s.liveBytes.load(),   s.peakBytes.load()};
}

Status Runtime::startTrace(size_t capacity) {
  if (capacity == 0) return Status(StatusCode::InvalidArgument, "trace capacity must be greater than zero");
  std::lock_guard lock(state_->traceMutex);
  if (state_->tracing) return Status(StatusCode::Busy, "a trace is already running");
  state_->traceRing.assign(capacity, TraceEvent{});
  state_->traceNext = state_->traceCount = 0;
  state_->traceDropped = 0;
  state_->traceStart = Clock::now();
  state_->tracing = true;
  return Status::ok();
}

std::optional<ExecutionTrace> Runtime::finishTrace() {
  std::lock_guard lock(state_->traceMutex);
  if (!state_->tracing) return std::nullopt;
  state_->tracing = false;
  ExecutionTrace trace;
  size_t capacity = state_->traceRing.size();
  size_t first = (state_->traceNext + capacity - state_->traceCount) % capacity;
  for (size_t i = 0; i < state_->traceCount; ++i) trace.events.push_back(state_->traceRing[(first + i) % capacity]);
  trace.dropped = state_->traceDropped;
  state_->traceRing.clear();
  return trace;
}

void RuntimeState::recordTrace(Clock::time_point start, Clock::time_point end, Lane lane, uint64_t copied,
                               bool failed) {
  std::lock_guard lock(traceMutex);
  if (!tracing) return;
  auto us = [](Clock::duration d) {
    return static_cast<uint64_t>(
        std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::microseconds>(d).count()));
  };
  size_t capacity = traceRing.size();
  traceRing[traceNext] = TraceEvent{us(start - traceStart), us(end - start), lane, copied, failed};
  traceNext = (traceNext + 1) % capacity;
  if (traceCount == capacity)
    ++traceDropped;
  else
    ++traceCount;
}

std::string ExecutionTrace::toJson() const {
  std::ostringstream os;
  os << "{\"traceEvents\":[";
  for (size_t i = 0; i < events.size(); ++i) {
    const TraceEvent &e = events[i];
    os << (i ? "," : "")
       << "\n  {\"name\":\"native region (host-observed)\",\"cat\":\"hrx.host\",\"ph\":\"X\",\"ts\":" << e.startUs
       << ",\"dur\":" << e.durationUs << ",\"pid\":0,\"tid\":" << static_cast<unsigned>(e.lane)
       << ",\"args\":{\"copied_bytes\":" << e.copiedBytes << ",\"failed\":" << (e.failed ? "true" : "false") << "}}";
  }
  os << "],\n \"displayTimeUnit\":\"ms\",\"dropped_events\":" << dropped
     << ",\n \"measurement\":\"host-observed synchronized region latency; not device timestamps\"}\n";
  return os.str();
}

}  // namespace hrx::runtime
