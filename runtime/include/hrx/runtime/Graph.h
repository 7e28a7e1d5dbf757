// Graphs, prepared executables and completions (reference §5.4, §5.5).
#pragma once

#include "hrx/runtime/Export.h"
#include "hrx/format/AmdgpuManifest.h"
#include "hrx/format/KernelContract.h"
#include "hrx/runtime/Memory.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hrx::runtime {

enum class Access : uint8_t { Read = 1, Write = 2, ReadWrite = 3 };
inline bool writes(Access a) { return static_cast<uint8_t>(a) & 2; }
inline bool reads(Access a) { return static_cast<uint8_t>(a) & 1; }
HRX_RUNTIME_API const char *accessName(Access access);

// What a kernel requires of its bindings: the artifact's KernelContract (one definition, in
// hrx/format/KernelContract.h).
using format::BindingContract;
using format::KernelContract;
HRX_RUNTIME_API Access accessOf(format::ContractAccess access);
// The recording-time check: count, length, alignment (offset and address), and no
// overlapping views where either is written.
HRX_RUNTIME_API Status checkContract(const KernelContract &contract, std::span<const BufferView> views);

// One host address range handed to a kernel.
struct HRX_RUNTIME_API BindingSpan {
  std::byte *data;
  uint64_t length;
};

// A loaded entry, runnable on a device. Implementations: the host reference device's array
// program and SPMD kernels (hrx/runtime/HostDevice.h).
class HRX_RUNTIME_API Kernel {
public:
  virtual ~Kernel() = default;
  virtual Engine engine() const = 0;  // Gpu or Npu
  virtual const std::string &name() const = 0;
  virtual const KernelContract &contract() const = 0;
  // Executable image bytes the memory budget is charged for at load.
  virtual uint64_t imageBytes() const = 0;
  // Size of the constants block each invocation takes: the kernel's scalar launch arguments,
  // packed in launch order (GPU entries; 0 for kernels without scalars).
  virtual uint64_t constantBytes() const { return 0; }
  // Checks what the contract cannot state alone, before a launch is recorded: for a GPU kernel
  // with a launch signature, each buffer against the scalar arguments sizing its views.
  virtual Status checkLaunch(std::span<const BufferView> views, std::span<const std::byte> constants) const {
    return Status::ok();
  }
  // Runs one invocation to terminal completion on the calling (lane) thread. `constants` has
  // exactly constantBytes() bytes.
  virtual Status run(std::span<const BindingSpan> bindings, std::span<const std::byte> constants) = 0;
  // Sets the GPU kernel's device global `symbol` (a HIP __device__ or __constant__ variable,
  // hipMemcpyToSymbol's role) to `bytes` for the invocations that follow; `bytes` must be the
  // global's whole size. Not between a submission and its completion.
  virtual Status writeGlobal(std::string_view symbol, std::span<const std::byte> bytes) {
    return Status(StatusCode::Unimplemented, "kernel '" + name() + "' has no device globals to set on this device");
  }
};

// Every buffer view must hold what the launch reaches for the scalar arguments in `constants`
// (view<[%n]xf32> reaches 4 * n bytes); otherwise an error naming the binding, the required and
// the given size.
HRX_RUNTIME_API Status checkLaunchExtents(const std::vector<format::LaunchArgument> &arguments,
                                          const std::vector<format::LaunchExtent> &extents,
                                          const KernelContract &contract, std::span<const BufferView> views,
                                          std::span<const std::byte> constants);

// One scalar launch argument as a caller wrote it: its type (nullopt: raw bytes of unknown
// type) and its little-endian bytes (exactly the type's size).
struct ScalarArgument {
  std::optional<format::ScalarType> type;
  std::vector<uint8_t> bytes;
};

// The constants block of a launch of `arguments` (the value arguments' bytes, packed in launch
// order) from one ScalarArgument per value argument. Where the artifact recorded the argument's
// type, the value must have it, except that an integer converts to another integer type when it
// fits (i64=6 for a u32); a float for an integer, an integer for a float, another float type, a
// negative value for an unsigned type or a value out of range is refused naming the argument, the
// expected and the given type. Raw bytes and arguments without a recorded type are checked for
// size only.
HRX_RUNTIME_API StatusOr<std::vector<std::byte>>
packScalarArguments(const std::vector<format::LaunchArgument> &arguments, std::span<const ScalarArgument> scalars);
// The same check for the one value argument arguments[index]: its bytes in the argument's type.
HRX_RUNTIME_API StatusOr<std::vector<uint8_t>>
convertScalarArgument(const std::vector<format::LaunchArgument> &arguments, size_t index, const ScalarArgument &given);

// Lanes as numbered in traces.
enum class Lane : uint8_t { Upload = 0, Compute = 1, Download = 2, Npu = 3, Host = 4 };
inline constexpr unsigned kWorkerLaneCount = 4;  // Host (4) is the caller's thread
HRX_RUNTIME_API const char *laneName(Lane lane);

enum class HazardKind : uint8_t { ReadAfterWrite, WriteAfterRead, WriteAfterWrite };
HRX_RUNTIME_API const char *hazardKindName(HazardKind kind);

// An inferred dependency between two regions of one prepared graph.
struct HRX_RUNTIME_API Hazard {
  unsigned from = 0, to = 0;  // region indices, from < to
  HazardKind kind = HazardKind::ReadAfterWrite;
};

struct HRX_RUNTIME_API Use {
  BufferView view;
  Access access;
};

class Runtime;
struct GraphOp;
struct PreparedGraph;
struct SubmissionSlot;

// Records operations; prepare() turns it into an Executable.
class HRX_RUNTIME_API Graph {
public:
  explicit Graph(Runtime &runtime);
  ~Graph();
  Graph(Graph &&) noexcept;

  Status fill(const BufferView &view, uint8_t value);
  // Lengths equal and ranges not overlapping; the lane follows from the placements.
  Status copy(const BufferView &dst, const BufferView &src);
  Status copyOn(const BufferView &dst, const BufferView &src, Lane lane);
  // `views` bind the kernel's buffer arguments in order; `constants` holds its scalar arguments
  // (exactly kernel->constantBytes() bytes, copied at recording).
  Status gpu(std::shared_ptr<Kernel> kernel, std::vector<BufferView> views, std::span<const std::byte> constants = {});
  // Skips the overlapping-writable check (the unsafe escape hatch).
  Status gpuAliasing(std::shared_ptr<Kernel> kernel, std::vector<BufferView> views,
                     std::span<const std::byte> constants = {});
  Status npu(std::shared_ptr<Kernel> kernel, std::vector<BufferView> views);
  size_t operationCount() const { return ops_.size(); }

private:
  friend class Runtime;
  Status recordKernel(std::shared_ptr<Kernel> kernel, std::vector<BufferView> views,
                      std::span<const std::byte> constants, Engine engine, bool checkAliasing);
  Runtime *runtime_;
  std::vector<std::unique_ptr<GraphOp>> ops_;
};

struct HRX_RUNTIME_API CompletionProfile {
  uint64_t elapsedUs = 0;  // first region start to completion
  uint64_t queueUs = 0;    // submit to first region start
};

// The observer of one submission. Dropping it detaches (never cancels) and recycles its slot
// once the work is done; while it lives, the slot stays reserved.
class HRX_RUNTIME_API Completion {
public:
  Completion() = default;
  Completion(Completion &&other) noexcept;
  Completion &operator=(Completion &&other) noexcept;
  Completion(const Completion &) = delete;
  Completion &operator=(const Completion &) = delete;
  ~Completion();

  // Blocks until done: the submission's status (Cancelled after cancel()).
  Status wait();
  // false when the timeout passed first. Never cancels: the work and its storage stay retained.
  bool waitFor(std::chrono::nanoseconds timeout);
  bool isComplete() const;
  // Non-blocking: nullopt-like Busy status while running, else the final status.
  Status poll() const;
  // Stops regions not yet started; running ones drain before completion.
  void cancel();
  CompletionProfile profile() const;
  // When the submission finished (host clock); nullopt while it runs.
  std::optional<std::chrono::steady_clock::time_point> finishedAt() const;
  // Lanes holding regions that have not finished (for timeout reports).
  std::vector<Lane> pendingLanes() const;

private:
  friend class Executable;
  Completion(std::shared_ptr<PreparedGraph> graph, SubmissionSlot *slot) : graph_(std::move(graph)), slot_(slot) {}
  void detach();
  std::shared_ptr<PreparedGraph> graph_;
  SubmissionSlot *slot_ = nullptr;
};

// A prepared graph: regions, hazards and preallocated submission slots. Replays allocate
// nothing. Destruction waits up to 10 s for running submissions, then quarantines them
// (poisons the allocations and leaks the whole ownership chain: memory is never freed under
// execution).
class HRX_RUNTIME_API Executable {
public:
  Executable() = default;
  Executable(Executable &&) noexcept = default;
  Executable &operator=(Executable &&) noexcept;
  ~Executable();

  // Busy when the graph's slots or the runtime's submission capacity are exhausted.
  StatusOr<Completion> submit();
  // submit() and wait() in one call. As the caller waits at once, a one-region graph whose lane
  // is idle runs on the calling thread, always: no lane thread can take it first (submit() then
  // wait() leaves that race open when the caller is preempted in between). The result is wait()'s.
  Status submitAndWait();
  size_t regions() const;
  Lane regionLane(size_t region) const;
  const std::vector<Hazard> &hazards() const;
  // Poison every allocation and leak the chain now (used when a deadline passed and the
  // work cannot be proven retired).
  void quarantine();

private:
  friend class Runtime;
  explicit Executable(std::shared_ptr<PreparedGraph> graph) : graph_(std::move(graph)) {}
  StatusOr<Completion> submit(bool callerWaits);
  void release();
  std::shared_ptr<PreparedGraph> graph_;
};

}  // namespace hrx::runtime
