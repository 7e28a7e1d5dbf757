// Runtime internals shared by the memory, graph and scheduler implementations.
#pragma once

#include "FaultInjection.h"
#include "hrx/runtime/Runtime.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace hrx::runtime {

using Clock = std::chrono::steady_clock;

inline uint8_t engineBit(Engine engine) { return static_cast<uint8_t>(1u << static_cast<unsigned>(engine)); }

struct Allocation {
  std::shared_ptr<RuntimeState> runtime;
  Placement placement;
  uint64_t size = 0;
  std::byte *data = nullptr;

  std::mutex mutex;
  std::condition_variable changed;
  unsigned hostReaders = 0;
  bool hostWriter = false;
  unsigned deviceReaders = 0, deviceWriters = 0;  // accepted submissions using the allocation
  std::atomic<bool> poisoned{false};
  // Visibility tracking: engines that currently see the data (bit per Engine). An engine that
  // does not see it gets cache maintenance over the whole allocation before it may use it.
  std::atomic<uint8_t> visibleTo{0};

  Allocation(std::shared_ptr<RuntimeState> runtime, Placement placement, uint64_t size, std::byte *data);
  ~Allocation();
  // Marks `engine` as accessing the data; counts cache maintenance when it did not see it.
  void acquireVisibility(Engine engine, bool write);
};

struct GraphOp {
  enum class Kind : uint8_t { Fill, Copy, Kernel };
  Kind kind = Kind::Fill;
  Lane lane = Lane::Compute;
  Engine engine = Engine::Gpu;
  uint8_t fillValue = 0;
  std::shared_ptr<Kernel> kernel;
  std::vector<Use> uses;             // copy: {dst, src}; kernel: one per binding
  std::vector<BindingSpan> spans;    // preallocated kernel argument spans
  std::vector<std::byte> constants;  // the kernel's scalar launch arguments
};

struct Region {
  Lane lane = Lane::Compute;
  unsigned firstOp = 0, opCount = 0;
  unsigned predecessorCount = 0;
  std::vector<unsigned> successors;
};

// The bytes a graph touches in one allocation (the whole allocation for Shared placements).
struct Footprint {
  Allocation *allocation;
  uint64_t begin, end;
  bool write;
};

struct RegionRun {
  SubmissionSlot *slot = nullptr;
  unsigned region = 0;
  RegionRun *next = nullptr;
};

struct SubmissionSlot {
  enum class State : uint8_t { Free, Active, Done };
  PreparedGraph *graph = nullptr;
  State state = State::Free;
  bool observed = false;  // a Completion holds the slot
  bool cancelled = false;
  Status result;
  std::vector<unsigned> pendingPredecessors;  // per region
  std::vector<uint8_t> regionDone;
  std::vector<RegionRun> runs;
  unsigned remainingRegions = 0;
  unsigned blockingSubmissions = 0;          // earlier conflicting submissions still running
  std::vector<SubmissionSlot *> dependents;  // reserved to max_submissions at prepare
  SubmissionSlot *inflightPrev = nullptr, *inflightNext = nullptr;
  Clock::time_point submitted, started, finished;
  bool hasStarted = false;
};

// Fill/copy bytes below which a submission on an idle lane runs on the submitting thread.
inline constexpr uint64_t kInlineBytes = 64 * 1024;

struct PreparedGraph : std::enable_shared_from_this<PreparedGraph> {
  std::shared_ptr<RuntimeState> runtime;
  std::vector<std::unique_ptr<GraphOp>> ops;
  std::vector<Region> regions;
  std::vector<Hazard> hazards;
  std::vector<Footprint> footprint;
  std::vector<std::shared_ptr<Allocation>> allocations;  // unique, footprint order
  std::vector<SubmissionSlot> slots;
  bool quarantined = false;
  // One region of fills and copies of at most kInlineBytes: submit may run it in place.
  bool inlineable = false;
};

struct LaneWorker {
  std::condition_variable wake;
  RegionRun *head = nullptr, *tail = nullptr;
  bool busy = false;  // a region of this lane is executing (on its thread or a submitter's)
  std::thread thread;
};

struct RuntimeState {
  RuntimeOptions options;

  // Test-only fault injection (FaultInjection.h): per site, the number of hits left until the
  // armed one (0 = disarmed). Disarmed sites cost one relaxed load.
  std::atomic<uint64_t> faultCountdown[faults::kFaultSiteCount] = {};
  // Whether this hit of `site` is the armed one.
  bool faultHit(faults::FaultSite site);

  std::atomic<uint64_t> allocations{0}, imports{0}, submissions{0}, completions{0}, copiedBytes{0},
      cacheMaintenanceBytes{0}, liveBytes{0}, peakBytes{0}, budgetUsed{0};
  // Reserves budget before an allocation; ResourceExhausted (nothing charged) when over.
  Status charge(uint64_t bytes);
  void uncharge(uint64_t bytes);
  void addLive(uint64_t bytes);

  // Scheduler: one mutex guards slots, lane queues and the in-flight list.
  std::mutex mutex;
  std::condition_variable completed;
  unsigned completionWaiters = 0;  // threads blocked on `completed`; no notify without one
  LaneWorker lanes[kWorkerLaneCount];
  bool stopping = false;
  SubmissionSlot *inflightHead = nullptr;
  unsigned inflightCount = 0;

  // Enqueues a ready region on its lane (mutex held).
  void enqueue(RegionRun *run);
  void laneMain(Lane lane);
  // Runs `run` (already off any queue) on the calling thread as its lane would: marks the lane
  // busy, unlocks `lock` while executing, then finishes the region (mutex held on return).
  void runRegion(RegionRun *run, std::unique_lock<std::mutex> &lock);
  // Blocks on `completed` until `done()`, counted in completionWaiters; false on timeout.
  template <typename Done> bool waitCompleted(std::unique_lock<std::mutex> &lock, Done done);
  template <typename Done>
  bool waitCompletedFor(std::unique_lock<std::mutex> &lock, std::chrono::nanoseconds timeout, Done done);
  void notifyCompleted() {
    if (completionWaiters) completed.notify_all();
  }
  // Marks a region finished and propagates readiness (mutex held).
  void finishRegion(SubmissionSlot &slot, unsigned region, const Status &status);
  void finishSubmission(SubmissionSlot &slot);

  // Tracing: a bounded ring, preallocated by startTrace.
  std::mutex traceMutex;
  bool tracing = false;
  Clock::time_point traceStart;
  std::vector<TraceEvent> traceRing;
  size_t traceNext = 0, traceCount = 0;
  uint64_t traceDropped = 0;
  void recordTrace(Clock::time_point start, Clock::time_point end, Lane lane, uint64_t copiedBytes, bool failed);
};

template <typename Done> bool RuntimeState::waitCompleted(std::unique_lock<std::mutex> &lock, Done done) {
  if (done()) return true;
  ++completionWaiters;
  completed.wait(lock, done);
  --completionWaiters;
  return true;
}

template <typename Done>
bool RuntimeState::waitCompletedFor(std::unique_lock<std::mutex> &lock, std::chrono::nanoseconds timeout, Done done) {
  if (done()) return true;
  ++completionWaiters;
  bool result = completed.wait_for(lock, timeout, done);
  --completionWaiters;
  return result;
}

// Keeps `owner` alive and reachable until process exit: quarantined ownership chains and the
// state of a runtime destroyed with work in flight. Never freed, never reported as a leak.
void retainUntilExit(std::shared_ptr<void> owner);

// Poisons a prepared graph's allocations and retains its ownership chain (graph, kernels,
// buffers, budget charges) until exit; once. The caller holds the runtime's mutex.
void quarantineLocked(PreparedGraph &graph);

// Runs one region's operations on the calling thread.
Status executeRegion(PreparedGraph &graph, const Region &region, uint64_t &copiedBytes);

}  // namespace hrx::runtime
