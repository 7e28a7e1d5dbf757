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
  std::vector<Use> uses;           // copy: {dst, src}; kernel: one per binding
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
  unsigned blockingSubmissions = 0;           // earlier conflicting submissions still running
  std::vector<SubmissionSlot *> dependents;   // reserved to max_submissions at prepare
  SubmissionSlot *inflightPrev = nullptr, *inflightNext = nullptr;
  Clock::time_point submitted, started, finished;
  bool hasStarted = false;
};

struct PreparedGraph : std::enable_shared_from_this<PreparedGraph> {
  std::shared_ptr<RuntimeState> runtime;
  std::vector<std::unique_ptr<GraphOp>> ops;
  std::vector<Region> regions;
  std::vector<Hazard> hazards;
  std::vector<Footprint> footprint;
  std::vector<std::shared_ptr<Allocation>> allocations;  // unique, footprint order
  std::vector<SubmissionSlot> slots;
  bool quarantined = false;
};

struct LaneWorker {
  std::condition_variable wake;
  RegionRun *head = nullptr, *tail = nullptr;
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
  LaneWorker lanes[kWorkerLaneCount];
  bool stopping = false;
  SubmissionSlot *inflightHead = nullptr;
  unsigned inflightCount = 0;

  // Enqueues a ready region on its lane (mutex held).
  void enqueue(RegionRun *run);
  void laneMain(Lane lane);
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

// Keeps `owner` alive and reachable until process exit: quarantined ownership chains and the
// state of a runtime destroyed with work in flight. Never freed, never reported as a leak.
void retainUntilExit(std::shared_ptr<void> owner);

// Poisons a prepared graph's allocations and retains its ownership chain (graph, kernels,
// buffers, budget charges) until exit; once. The caller holds the runtime's mutex.
void quarantineLocked(PreparedGraph &graph);

// Runs one region's operations on the calling thread.
Status executeRegion(PreparedGraph &graph, const Region &region, uint64_t &copiedBytes);

}  // namespace hrx::runtime
