// A kernel whose body is a test callback, for exercising the scheduler without host code.
#pragma once

#include "hrx/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <mutex>

namespace hrx::test {

class TestKernel : public runtime::Kernel {
public:
  using Body = std::function<Status(std::span<const runtime::BindingSpan>)>;
  TestKernel(runtime::Engine engine, std::string name, runtime::KernelContract contract, Body body)
      : engine_(engine), name_(std::move(name)), contract_(std::move(contract)), body_(std::move(body)) {}
  runtime::Engine engine() const override { return engine_; }
  const std::string &name() const override { return name_; }
  const runtime::KernelContract &contract() const override { return contract_; }
  uint64_t imageBytes() const override { return 0; }
  Status run(std::span<const runtime::BindingSpan> bindings, std::span<const std::byte>) override {
    return body_(bindings);
  }

private:
  runtime::Engine engine_;
  std::string name_;
  runtime::KernelContract contract_;
  Body body_;
};

inline std::unique_ptr<runtime::Runtime> makeRuntime(runtime::RuntimeOptions options = {}) {
  auto rt = runtime::Runtime::create(std::move(options));
  EXPECT_TRUE(rt.isOk()) << rt.status().toString();
  return std::move(rt).value();
}

inline runtime::Buffer allocate(runtime::Runtime &rt, uint64_t size,
                                runtime::Placement placement = runtime::Placement::HostVisible()) {
  auto buffer = rt.allocate(size, placement);
  EXPECT_TRUE(buffer.isOk()) << buffer.status().toString();
  return std::move(buffer).value();
}

// A gate kernels wait on, so tests control when device work finishes.
class Gate {
public:
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    cv_.notify_all();
  }
  void wait() {
    std::unique_lock lock(mutex_);
    entered_ = true;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
  }
  void waitEntered() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return entered_; });
  }

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool open_ = false, entered_ = false;
};

}  // namespace hrx::test
