// The host reference device's GPU path: workgroups spread over a pool sized to the machine.
#include "WorkerPool.h"

#include "hrx/runtime/HostDevice.h"

#include <algorithm>
#include <mutex>
#include <thread>

namespace hrx::runtime {
namespace {

class HostGpuKernel final : public Kernel {
public:
  HostGpuKernel(std::string symbol, std::shared_ptr<HostCode> code, KernelContract contract,
                std::vector<uint64_t> workload, hrx_host_kernel_fn kernel, hrx_host_launch_fn launch)
      : symbol_(std::move(symbol)), code_(std::move(code)), contract_(std::move(contract)),
        workload_(std::move(workload)), kernel_(kernel), launch_(launch), args_(contract_.bindings.size()) {}

  Engine engine() const override { return Engine::Gpu; }
  const std::string &name() const override { return symbol_; }
  const KernelContract &contract() const override { return contract_; }
  uint64_t imageBytes() const override { return 0; }  // code objects are not charged (reference §5.6)

  Status run(std::span<const BindingSpan> bindings) override {
    std::lock_guard lock(running_);
    if (bindings.size() != args_.size())
      return Status(StatusCode::InvalidArgument, "kernel '" + symbol_ + "': " + std::to_string(bindings.size()) +
                                                     " bindings given, the kernel has " + std::to_string(args_.size()));
    for (size_t i = 0; i < bindings.size(); ++i) args_[i] = bindings[i].data;
    uint32_t grid[6] = {};
    launch_(workload_.data(), grid);
    for (uint32_t v : grid)
      if (v == 0)
        return Status(StatusCode::InvalidArgument, "kernel '" + symbol_ + "': the launch program produced an empty grid");
    Job job{this, {grid[0], grid[1], grid[2]}, {grid[3], grid[4], grid[5]}};
    uint64_t workgroups = uint64_t(grid[0]) * grid[1] * grid[2];
    WorkerPool::instance().parallelFor(workgroups, &runWorkgroup, &job);
    return Status::ok();
  }

private:
  struct Job {
    HostGpuKernel *kernel;
    uint32_t count[3], size[3];
  };
  static void runWorkgroup(void *context, uint64_t index) {
    const Job &job = *static_cast<const Job *>(context);
    hrx_host_dispatch dispatch{};
    dispatch.workgroup_id[0] = static_cast<uint32_t>(index % job.count[0]);
    dispatch.workgroup_id[1] = static_cast<uint32_t>(index / job.count[0] % job.count[1]);
    dispatch.workgroup_id[2] = static_cast<uint32_t>(index / (uint64_t(job.count[0]) * job.count[1]));
    for (int d = 0; d < 3; ++d) {
      dispatch.workgroup_size[d] = job.size[d];
      dispatch.workgroup_count[d] = job.count[d];
    }
    dispatch.arg_count = static_cast<uint32_t>(job.kernel->args_.size());
    dispatch.args = job.kernel->args_.data();
    job.kernel->kernel_(&dispatch);
  }

  std::string symbol_;
  std::shared_ptr<HostCode> code_;
  KernelContract contract_;
  std::vector<uint64_t> workload_;
  hrx_host_kernel_fn kernel_;
  hrx_host_launch_fn launch_;
  std::vector<void *> args_;
  std::mutex running_;
};

}  // namespace

unsigned hostThreadCount() { return std::max(1u, std::thread::hardware_concurrency()); }

StatusOr<std::shared_ptr<Kernel>> makeHostGpuKernel(std::string symbol, std::shared_ptr<HostCode> code,
                                                    KernelContract contract, std::vector<uint64_t> workload) {
  if (Status s = contract.validate(); !s) return s;
  auto kernel = code->kernel(symbol);
  if (!kernel) return kernel.status();
  auto launch = code->launch(symbol);
  if (!launch) return launch.status();
  if (workload.empty()) workload.push_back(0);
  return std::shared_ptr<Kernel>(std::make_shared<HostGpuKernel>(std::move(symbol), std::move(code), std::move(contract),
                                                                 std::move(workload), *kernel, *launch));
}

}  // namespace hrx::runtime
