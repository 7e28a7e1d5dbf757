// The host reference device: runs artifacts on the CPU from their host code (section .hrx.host,
// an x86-64 shared object following hrx/format/HostAbi.h) and, for NPU entries, their array
// plan. Results equal the CPU oracles exactly; no LLVM is involved at run time.
#pragma once

#include "hrx/runtime/Export.h"
#include "hrx/format/AmdgpuManifest.h"
#include "hrx/format/ArrayPlan.h"
#include "hrx/array/ArrayModel.h"
#include "hrx/format/HostAbi.h"
#include "hrx/format/Xdna.h"
#include "hrx/runtime/NativeCore.h"
#include "hrx/runtime/Graph.h"

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::runtime {

// The structural checks HostCode::load makes before the dynamic loader sees an object
// (docs/runtime.md, "The host reference device"); `name` labels errors. Loads nothing, so
// fuzzers may call it on any bytes.
HRX_RUNTIME_API Status validateHostCode(std::span<const std::byte> elf, const std::string &name);

// A loaded host-code shared object. It is loaded from memory (memfd_create + dlopen), so no
// file is written; dlclose happens when the last kernel using it is gone.
class HRX_RUNTIME_API HostCode {
public:
  // `name` labels errors ("copy.xdna:.hrx.host"). Validates the object (validateHostCode)
  // before loading it and checks the hrx.abi_version value after.
  static StatusOr<std::shared_ptr<HostCode>> load(std::span<const std::byte> elf, std::string name);
  ~HostCode();
  HostCode(const HostCode &) = delete;
  HostCode &operator=(const HostCode &) = delete;

  const std::string &name() const { return name_; }
  size_t size() const { return size_; }
  StatusOr<hrx_host_stage_fn> stage(std::string_view symbol) const;
  // The stage's record access table ("hrx.stage_access.<sym>", HostAbi.h) when the object has
  // one of exactly `records` entries; empty otherwise (every record may be read and written).
  std::span<const uint8_t> stageAccess(std::string_view symbol, size_t records) const;
  StatusOr<hrx_host_kernel_fn> kernel(std::string_view symbol) const;
  StatusOr<hrx_host_launch_fn> launch(std::string_view symbol) const;
  // The dynamic workgroup storage bytes the launch program of `symbol` asks for at `workload`
  // ("hrx.launch_storage.<sym>", HostAbi.h); 0 when the object has none.
  uint64_t launchStorage(std::string_view symbol, const uint64_t *workload) const;
  // The bytes of the object's global variable `symbol` (a HIP __device__/__constant__ global in
  // the host twin), which must be defined in this object and hold at least `bytes` bytes.
  StatusOr<std::span<std::byte>> global(std::string_view symbol, size_t bytes) const;

private:
  HostCode(void *handle, int fd, std::string name, size_t size)
      : handle_(handle), fd_(fd), name_(std::move(name)), size_(size) {}
  StatusOr<void *> resolve(const char *prefix, std::string_view symbol) const;
  void *handle_;
  int fd_;  // the memfd the object was loaded from, named /proc/self/fd/<fd>
  std::string name_;
  size_t size_;
};

// The KernelContract an array plan implies when no image binding rows are at hand: one binding
// per plan binding, by ordinal (dense from 0), with the plan's bytes and access.
HRX_RUNTIME_API StatusOr<KernelContract> contractFromPlan(const format::ArrayPlan &plan);

// An NPU entry executed from its array plan: a task per worker; each channel a ring of
// `capacity` record slots guarded by a credit lock (initialised to the capacity) and a ready
// lock (initialised to 0); DMA transfers moving records between bindings and slots with the
// plan's offsets, strides and repeat counts. Invocation 0 establishes the resident state
// (slots and locks); later invocations follow next_invocation (0 -> 1 -> 1) and require it to
// be intact. A plan in which every unfinished task is blocked is a deadlock: run() reports the
// blocked workers and channels instead of hanging.
// Workers whose tile has an entry in `native` run that AIE2P core code in the instruction-set
// simulator instead of their host twin (hrx/runtime/NativeCore.h).
HRX_RUNTIME_API StatusOr<std::shared_ptr<Kernel>> makeHostNpuKernel(format::ArrayPlan plan,
                                                                    std::shared_ptr<HostCode> code,
                                                                    KernelContract contract, TileCodeMap native = {});

// An NPU entry executed by its own transaction (--array-model=transaction): the entry's
// COMMAND invocations, with dynamic SHIM_ADDRESS relocations patched with the bindings'
// addresses, run on the simulated NPU5 array (hrx/array/ArrayModel.h); workers run as their
// host twins behind the core-program seam. Results must equal makeHostNpuKernel's; a broken
// transaction (unknown register, bad BD, unrouted stream, deadlock) is an error.
HRX_RUNTIME_API StatusOr<std::shared_ptr<Kernel>>
makeTransactionNpuKernel(const format::xdna::Image &image, const std::string &entry, format::ArrayPlan plan,
                         std::shared_ptr<HostCode> code, KernelContract contract, TileCodeMap native = {});

// The core programs of a plan's workers as host twins (the stand-in for native core code):
// per iteration a twin acquires the ready (input) or credit (output) lock of each record it
// starts in the slot owner's tile, calls the stage on the records in simulated data memory,
// and releases credit (input) or ready (output) for each record it finishes. `plan` must
// outlive the cores.
using StageResolver = std::function<StatusOr<hrx_host_stage_fn>(const std::string &entry)>;
// A worker whose tile has an entry in `native` runs that core code in the simulator on the
// records in the array's data memory; the others call their host twin.
HRX_RUNTIME_API StatusOr<std::vector<std::unique_ptr<array::CoreProgram>>>
makeHostTwinCores(const format::ArrayPlan &plan, const StageResolver &resolve, const TileCodeMap *native = nullptr);

// How a GPU entry's launch arguments are passed (from .hrx.manifest): in launch order, each a
// buffer (the next binding) or a scalar (the next `size` bytes of the constants block).
// No arguments = every contract binding is a buffer argument, in binding order.
// Launch dimensions given at run time (hrx-run --grid/--block/--dynamic-lds), as a HIP launch
// gives them: they replace the launch program's grid.
struct HRX_RUNTIME_API LaunchDimensions {
  std::array<uint32_t, 3> grid{1, 1, 1};   // workgroups in x, y, z
  std::array<uint32_t, 3> block{1, 1, 1};  // work-items per workgroup in x, y, z
  uint64_t dynamicLdsBytes = 0;            // extern __shared__ bytes per workgroup
};
inline constexpr uint64_t kMaxGpuLdsBytes = 65536;  // gfx1151's LDS per workgroup

struct HRX_RUNTIME_API GpuLaunchLayout {
  std::vector<format::LaunchArgument> arguments;
  std::optional<uint64_t> maxFlatWorkgroupSize;               // checked against the launch program's grid
  std::optional<LaunchDimensions> dimensions = std::nullopt;  // replaces the launch program when given
  std::vector<format::LaunchExtent> extents = {};             // checked before each launch is recorded
};

// A GPU entry executed as SPMD: the launch program ("hrx.launch.<sym>") turns `workload` into
// a grid once, at load (rejecting an empty grid or a workgroup larger than
// max_flat_workgroup_size); workgroups run on a thread pool sized to the machine, each calling
// "hrx.kernel.<sym>" (which runs every work-item of the workgroup, honouring barriers) with
// args[] built from the bindings and constants per `layout`.
HRX_RUNTIME_API StatusOr<std::shared_ptr<Kernel>> makeHostGpuKernel(std::string symbol, std::shared_ptr<HostCode> code,
                                                                    KernelContract contract,
                                                                    std::vector<uint64_t> workload,
                                                                    GpuLaunchLayout layout = {});

// Checks run-time launch dimensions: every extent at least 1, the block within the kernel's
// max_flat_workgroup_size (its __launch_bounds__; 1024 without), the dynamic LDS within 64 KiB.
HRX_RUNTIME_API Status checkLaunchDimensions(const LaunchDimensions &dims,
                                             std::optional<uint64_t> maxFlatWorkgroupSize);

// Workgroups and NPU tasks share one pool of worker threads (hardware_concurrency).
HRX_RUNTIME_API unsigned hostThreadCount();

}  // namespace hrx::runtime
