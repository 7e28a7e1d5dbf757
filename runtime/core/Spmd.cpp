// The host reference device's GPU path: workgroups spread over a pool sized to the machine.
#include "WorkerPool.h"

#include "hrx/runtime/HostDevice.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace hrx::runtime {
namespace {

constexpr unsigned kMaxHostThreads = 1024;

class HostGpuKernel final : public Kernel {
public:
  HostGpuKernel(std::string symbol, std::shared_ptr<HostCode> code, KernelContract contract, GpuLaunchLayout layout,
                const uint32_t grid[6], hrx_host_kernel_fn kernel)
      : symbol_(std::move(symbol)), code_(std::move(code)), contract_(std::move(contract)), layout_(std::move(layout)),
        kernel_(kernel), args_(layout_.arguments.size()) {
    for (const format::LaunchArgument &a : layout_.arguments)
      if (a.kind == format::LaunchArgumentKind::Value) constantBytes_ += a.size;
    // Scalars are read through typed pointers: keep them 8-byte aligned.
    scalars_.resize((constantBytes_ + layout_.arguments.size() * 8) / 8 + 1);
    std::copy_n(grid, 6, grid_);
  }

  Engine engine() const override { return Engine::Gpu; }
  const std::string &name() const override { return symbol_; }
  const KernelContract &contract() const override { return contract_; }
  uint64_t imageBytes() const override { return 0; }  // code objects are not charged (reference §5.6)
  uint64_t constantBytes() const override { return constantBytes_; }
  Status checkLaunch(std::span<const BufferView> views, std::span<const std::byte> constants) const override {
    return checkLaunchExtents(layout_.arguments, layout_.extents, contract_, views, constants);
  }

  Status run(std::span<const BindingSpan> bindings, std::span<const std::byte> constants) override {
    std::lock_guard lock(running_);
    if (bindings.size() != contract_.bindings.size())
      return Status(StatusCode::InvalidArgument, "kernel '" + symbol_ + "': " + std::to_string(bindings.size()) +
                                                     " bindings given, the kernel has " +
                                                     std::to_string(contract_.bindings.size()));
    if (constants.size() != constantBytes_)
      return Status(StatusCode::InvalidArgument, "kernel '" + symbol_ + "': " + std::to_string(constants.size()) +
                                                     " constant bytes given, its scalar arguments take " +
                                                     std::to_string(constantBytes_));
    size_t binding = 0, constant = 0;
    auto *slot = reinterpret_cast<std::byte *>(scalars_.data());
    for (size_t i = 0; i < layout_.arguments.size(); ++i) {
      const format::LaunchArgument &a = layout_.arguments[i];
      if (a.kind == format::LaunchArgumentKind::Buffer) {
        args_[i] = bindings[binding++].data;
        continue;
      }
      std::copy_n(constants.data() + constant, a.size, slot);
      args_[i] = slot;
      constant += a.size;
      slot += (a.size + 7) / 8 * 8;
    }
    hrx_host_dispatch dispatch{};
    for (int d = 0; d < 3; ++d) {
      dispatch.workgroup_count[d] = grid_[d];
      dispatch.workgroup_size[d] = grid_[3 + d];
    }
    dispatch.arg_count = static_cast<uint32_t>(args_.size());
    dispatch.args = args_.data();
    runHostWorkgroups(kernel_, dispatch);
    return Status::ok();
  }

  Status writeGlobal(std::string_view symbol, std::span<const std::byte> bytes) override {
    std::lock_guard lock(running_);
    auto global = code_->global(symbol, bytes.size());
    if (!global) return global.status();
    std::copy(bytes.begin(), bytes.end(), global->begin());
    return Status::ok();
  }

private:
  std::string symbol_;
  std::shared_ptr<HostCode> code_;
  KernelContract contract_;
  GpuLaunchLayout layout_;
  hrx_host_kernel_fn kernel_;
  uint32_t grid_[6] = {};
  uint64_t constantBytes_ = 0;
  std::vector<void *> args_;
  std::vector<uint64_t> scalars_;  // aligned copies of the scalar arguments
  std::mutex running_;
};

}  // namespace

Status checkLaunchDimensions(const LaunchDimensions &dims, std::optional<uint64_t> maxFlatWorkgroupSize) {
  for (int d = 0; d < 3; ++d)
    if (dims.grid[d] == 0 || dims.block[d] == 0)
      return Status(StatusCode::InvalidArgument,
                    "launch dimensions must be at least 1 (grid " + std::to_string(dims.grid[0]) + "," +
                        std::to_string(dims.grid[1]) + "," + std::to_string(dims.grid[2]) + ", block " +
                        std::to_string(dims.block[0]) + "," + std::to_string(dims.block[1]) + "," +
                        std::to_string(dims.block[2]) + ")");
  uint64_t flat = uint64_t(dims.block[0]) * dims.block[1] * dims.block[2];
  uint64_t limit = maxFlatWorkgroupSize.value_or(1024);
  if (flat > limit)
    return Status(StatusCode::InvalidArgument,
                  "the block " + std::to_string(dims.block[0]) + "x" + std::to_string(dims.block[1]) + "x" +
                      std::to_string(dims.block[2]) + " (" + std::to_string(flat) +
                      " work-items) exceeds the kernel's " +
                      (maxFlatWorkgroupSize ? "max_flat_workgroup_size (__launch_bounds__) " : "workgroup limit ") +
                      std::to_string(limit));
  if (dims.dynamicLdsBytes > kMaxGpuLdsBytes)
    return Status(StatusCode::InvalidArgument, "--dynamic-lds=" + std::to_string(dims.dynamicLdsBytes) +
                                                   " exceeds the " + std::to_string(kMaxGpuLdsBytes) +
                                                   " bytes of LDS a gfx1151 workgroup has");
  return Status::ok();
}

unsigned hostThreadCount() {
  static const unsigned count = [] {
    unsigned machine = std::max(1u, std::thread::hardware_concurrency());
    const char *text = std::getenv("HRX_HOST_THREADS");
    if (!text || !*text) return machine;
    char *end = nullptr;
    errno = 0;
    unsigned long value = std::strtoul(text, &end, 10);
    if (errno == 0 && *end == '\0' && text[0] != '-' && value >= 1 && value <= kMaxHostThreads)
      return static_cast<unsigned>(value);
    std::fprintf(stderr,
                 "hrx: warning: ignoring HRX_HOST_THREADS='%s' (expected a thread count from 1 to %u); using %u\n",
                 text, kMaxHostThreads, machine);
    return machine;
  }();
  return count;
}

StatusOr<std::shared_ptr<Kernel>> makeHostGpuKernel(std::string symbol, std::shared_ptr<HostCode> code,
                                                    KernelContract contract, std::vector<uint64_t> workload,
                                                    GpuLaunchLayout layout) {
  if (Status s = contract.validate(); !s) return s;
  auto fail = [&](const std::string &what) {
    return Status(StatusCode::InvalidArgument, "kernel '" + symbol + "': " + what);
  };
  if (layout.arguments.empty())
    layout.arguments.assign(contract.bindings.size(), format::LaunchArgument{0, 8, format::LaunchArgumentKind::Buffer});
  size_t buffers = 0;
  for (const format::LaunchArgument &a : layout.arguments) buffers += a.kind == format::LaunchArgumentKind::Buffer;
  if (buffers != contract.bindings.size())
    return fail("the launch signature has " + std::to_string(buffers) + " buffer argument(s), the contract " +
                std::to_string(contract.bindings.size()) + " binding(s)");
  auto kernel = code->kernel(symbol);
  if (!kernel) return kernel.status();
  uint32_t grid[6] = {};
  if (layout.dimensions) {
    if (Status s = checkLaunchDimensions(*layout.dimensions, layout.maxFlatWorkgroupSize); !s) return fail(s.message());
    for (int d = 0; d < 3; ++d) grid[d] = layout.dimensions->grid[d], grid[3 + d] = layout.dimensions->block[d];
  } else {
    auto launch = code->launch(symbol);
    if (!launch) return launch.status();
    if (workload.empty()) workload.push_back(0);
    (*launch)(workload.data(), grid);
    // The twin's dynamic workgroup storage is one block of a workgroup's whole LDS per thread.
    if (uint64_t storage = code->launchStorage(symbol, workload.data());
        storage > HRX_HOST_DYNAMIC_WORKGROUP_STORAGE_BYTES)
      return fail("the launch program asks for " + std::to_string(storage) +
                  " bytes of dynamic workgroup storage; a gfx1151 workgroup has " +
                  std::to_string(HRX_HOST_DYNAMIC_WORKGROUP_STORAGE_BYTES));
  }
  for (uint32_t v : grid)
    if (v == 0) return fail("the launch program produced an empty grid");
  uint64_t flat = uint64_t(grid[3]) * grid[4] * grid[5];
  if (layout.maxFlatWorkgroupSize && flat > *layout.maxFlatWorkgroupSize)
    return fail("the launch program's workgroup size " + std::to_string(grid[3]) + "x" + std::to_string(grid[4]) + "x" +
                std::to_string(grid[5]) + " (" + std::to_string(flat) +
                " work-items) exceeds the code object's "
                "max_flat_workgroup_size " +
                std::to_string(*layout.maxFlatWorkgroupSize));
  return std::shared_ptr<Kernel>(std::make_shared<HostGpuKernel>(
      std::move(symbol), std::move(code), std::move(contract), std::move(layout), grid, *kernel));
}

}  // namespace hrx::runtime
