// libhrx-runtime: the coordinated runtime (reference §5): devices, memory with budgets,
// prepared graphs on four worker lanes, statistics and host-observed traces.
#pragma once

#include "hrx/runtime/Export.h"
#include "hrx/runtime/Graph.h"
#include "hrx/runtime/Memory.h"
#include "hrx/runtime/Status.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hrx::runtime {
// "0.1.0"
HRX_RUNTIME_API std::string version();

struct HRX_RUNTIME_API RuntimeOptions {
  std::optional<uint64_t> memoryBudget;  // bytes; none = unlimited
  unsigned gpuIndex = 0;
  unsigned maxSubmissions = 64;  // simultaneous accepted submissions (queue capacity)
  unsigned graphSlots = 2;       // preallocated completion slots per prepared graph
  Status validate() const;
};

struct HRX_RUNTIME_API Statistics {
  uint64_t allocations = 0, imports = 0, submissions = 0, completions = 0, copiedBytes = 0, cacheMaintenanceBytes = 0,
           liveBytes = 0, peakBytes = 0;
  // {"allocations":…,"imports":…,…} in reference §5.7 order.
  std::string toJson() const;
};

struct HRX_RUNTIME_API TraceEvent {
  uint64_t startUs = 0;  // relative to capture start
  uint64_t durationUs = 0;
  Lane lane = Lane::Compute;
  uint64_t copiedBytes = 0;
  bool failed = false;
};

struct HRX_RUNTIME_API ExecutionTrace {
  std::vector<TraceEvent> events;  // completion order
  uint64_t dropped = 0;            // oldest events dropped when the buffer was full
  // Chrome/Perfetto JSON (reference §5.8), with the `measurement` field.
  std::string toJson() const;
};

struct RuntimeState;

class HRX_RUNTIME_API Runtime {
public:
  // Spawns the lane workers hrx-upload, hrx-compute, hrx-download and hrx-npu.
  static StatusOr<std::unique_ptr<Runtime>> create(RuntimeOptions options = {});
  ~Runtime();
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  const RuntimeOptions &options() const;

  // The host reference device: always available.
  Device host() const;
  // Admitted hardware (see hrx/runtime/Admission.h); an explicit error otherwise.
  StatusOr<Device> npu(unsigned index = 0) const;
  StatusOr<Device> gpu() const;

  // Zeroed storage; size in 1..=INT64_MAX. The budget is checked before allocating.
  StatusOr<Buffer> allocate(uint64_t size, const Placement &placement);

  // Charges a loaded kernel's image bytes to the budget and registers it with the runtime.
  StatusOr<std::shared_ptr<Kernel>> adoptKernel(std::shared_ptr<Kernel> kernel);

  // Forms regions and infers hazards. InvalidArgument "cannot prepare an empty graph".
  StatusOr<Executable> prepare(Graph &graph);

  Statistics statistics() const;

  // Busy "a trace is already running" for a second concurrent capture.
  Status startTrace(size_t capacity);
  // Does not wait for pending work.
  std::optional<ExecutionTrace> finishTrace();

  const std::shared_ptr<RuntimeState> &state() const { return state_; }

private:
  explicit Runtime(std::shared_ptr<RuntimeState> state) : state_(std::move(state)) {}
  std::shared_ptr<RuntimeState> state_;
};

}  // namespace hrx::runtime
