// Replay allocates nothing: neither runtime allocations/imports nor heap memory.
#include "PlanBuilder.h"
#include "TestKernel.h"

#include "hrx/runtime/HostDevice.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <new>
#include <thread>

namespace {
std::atomic<bool> counting{false};
std::atomic<uint64_t> heapAllocations{0};
}  // namespace

void *operator new(size_t size) {
  if (counting.load(std::memory_order_relaxed)) heapAllocations.fetch_add(1, std::memory_order_relaxed);
  if (void *p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, size_t) noexcept { std::free(p); }

using namespace hrx::runtime;
using hrx::Status;

TEST(Replay, AllocatesNothing) {
  auto rt = std::move(Runtime::create()).value();
  Buffer host = std::move(rt->allocate(4096, Placement::HostVisible())).value();
  Buffer shared = std::move(rt->allocate(4096, Placement::Shared(rt->host()))).value();
  Buffer local = std::move(rt->allocate(4096, Placement::GpuLocal())).value();
  auto kernel = std::make_shared<hrx::test::TestKernel>(
      Engine::Npu, "invert", KernelContract{{{4096, 64, hrx::format::ContractAccess::ReadWrite, "bytes"}}, {}},
      [](std::span<const BindingSpan> b) {
        for (uint64_t i = 0; i < b[0].length; ++i) b[0].data[i] = ~b[0].data[i];
        return Status::ok();
      });
  Graph g(*rt);
  ASSERT_TRUE(g.fill(host.view(), 1).isOk());
  ASSERT_TRUE(g.copy(local.view(), host.view()).isOk());
  ASSERT_TRUE(g.npu(kernel, {shared.view()}).isOk());
  ASSERT_TRUE(g.copy(host.view(), local.view()).isOk());
  auto exe = rt->prepare(g);
  ASSERT_TRUE(exe.isOk());
  ASSERT_TRUE(exe->submit()->wait().isOk());  // warm-up: lazily created runtime state settles

  Statistics before = rt->statistics();
  counting = true;
  for (int i = 0; i < 200; ++i) {
    auto c = exe->submit();
    ASSERT_TRUE(c.isOk());
    ASSERT_TRUE(c->wait().isOk());
  }
  counting = false;
  Statistics after = rt->statistics();
  EXPECT_EQ(heapAllocations.load(), 0u);
  EXPECT_EQ(after.allocations, before.allocations);
  EXPECT_EQ(after.imports, before.imports);
  EXPECT_EQ(after.submissions, before.submissions + 200);
  EXPECT_EQ(after.completions, before.completions + 200);
}

TEST(Replay, HostDeviceKernelsAllocateNothing) {
  std::ifstream in(HRX_TEST_HOST_MODULE, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  auto code = std::move(HostCode::load(std::as_bytes(std::span(bytes)), "HostKernels.so")).value();
  using hrx::format::PlanAccess;
  using hrx::format::PortDirection;
  using hrx::test::PlanBuilder;
  PlanBuilder b("copy");
  uint32_t in0 = b.binding(0, PlanAccess::Read, 4096), out0 = b.binding(1, PlanAccess::Write, 4096);
  uint32_t w = b.worker("copy64", 64, 2);
  uint32_t c0 =
      b.channel(64, 2, PlanBuilder::fromBinding(PlanBuilder::contiguous(in0, 64, 64)), PlanBuilder::port(w, 0));
  uint32_t c1 =
      b.channel(64, 2, PlanBuilder::port(w, 1), PlanBuilder::fromBinding(PlanBuilder::contiguous(out0, 64, 64)));
  b.addPort(w, PortDirection::Input, c0, 64);
  b.addPort(w, PortDirection::Output, c1, 64);
  auto npu = std::move(makeHostNpuKernel(b.plan(), code, std::move(contractFromPlan(b.plan())).value())).value();
  using hrx::format::ContractAccess;
  KernelContract vadd{
      {{4096, 4, ContractAccess::Write, ""}, {4096, 4, ContractAccess::Read, ""}, {4096, 4, ContractAccess::Read, ""}},
      {}};
  auto gpu = std::move(makeHostGpuKernel("vadd", code, vadd, {1024})).value();

  auto rt = std::move(Runtime::create()).value();
  Buffer a = std::move(rt->allocate(4096, Placement::Shared(rt->host()))).value();
  Buffer c = std::move(rt->allocate(4096, Placement::Shared(rt->host()))).value();
  Buffer d = std::move(rt->allocate(4096, Placement::Shared(rt->host()))).value();
  Graph g(*rt);
  ASSERT_TRUE(g.npu(npu, {a.view(), c.view()}).isOk());
  ASSERT_TRUE(g.gpu(gpu, {d.view(), a.view(), c.view()}).isOk());
  auto exe = std::move(rt->prepare(g)).value();
  ASSERT_TRUE(exe.submit()->wait().isOk());
  heapAllocations = 0;
  counting = true;
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(exe.submit()->wait().isOk());
  counting = false;
  EXPECT_EQ(heapAllocations.load(), 0u);
}

// The paths that skip the lane hand-off: a small fill completes inside submit, and a one-region
// kernel still queued on an idle lane runs inside wait. Neither allocates.
TEST(Replay, InlineCompletionAndWaiterExecutionAllocateNothing) {
  auto rt = std::move(Runtime::create()).value();
  Buffer word = std::move(rt->allocate(4, Placement::HostVisible())).value();
  Graph fill(*rt);
  ASSERT_TRUE(fill.fill(word.view(), 3).isOk());
  auto fillExe = rt->prepare(fill);
  ASSERT_TRUE(fillExe.isOk());
  std::atomic<unsigned> runs{0};
  auto kernel = std::make_shared<hrx::test::TestKernel>(
      Engine::Gpu, "bump", KernelContract{{{4, 4, hrx::format::ContractAccess::ReadWrite, "u32"}}, {}},
      [&runs](std::span<const BindingSpan> b) {
        b[0].data[0] = std::byte(std::to_integer<unsigned>(b[0].data[0]) + 1);
        runs.fetch_add(1);
        return Status::ok();
      });
  Graph bump(*rt);
  ASSERT_TRUE(bump.gpu(kernel, {word.view()}).isOk());
  auto bumpExe = rt->prepare(bump);
  ASSERT_TRUE(bumpExe.isOk());
  ASSERT_TRUE(fillExe->submit()->wait().isOk());
  ASSERT_TRUE(bumpExe->submit()->wait().isOk());

  heapAllocations = 0;
  counting = true;
  for (int i = 0; i < 200; ++i) {
    auto c = fillExe->submit();
    ASSERT_TRUE(c.isOk());
    EXPECT_TRUE(c->isComplete());  // inline completion: the lane was idle
    ASSERT_TRUE(c->wait().isOk());
    auto k = bumpExe->submit();
    ASSERT_TRUE(k.isOk());
    ASSERT_TRUE(k->wait().isOk());
  }
  counting = false;
  EXPECT_EQ(heapAllocations.load(), 0u);
  EXPECT_EQ(runs.load(), 201u);
  auto map = word.mapRead();
  ASSERT_TRUE(map.isOk());
  EXPECT_EQ(std::to_integer<unsigned>(map->bytes()[0]), 4u);
}

// submitAndWait runs a one-region kernel on the calling thread whenever its lane is idle: every
// replay, not only those where the caller reached wait() before the lane thread woke.
TEST(Replay, SubmitAndWaitRunsOnTheCallingThreadAndAllocatesNothing) {
  auto rt = std::move(Runtime::create()).value();
  Buffer word = std::move(rt->allocate(4, Placement::HostVisible())).value();
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<unsigned> runs{0}, elsewhere{0};
  auto kernel = std::make_shared<hrx::test::TestKernel>(
      Engine::Npu, "bump", KernelContract{{{4, 4, hrx::format::ContractAccess::ReadWrite, "u32"}}, {}},
      [&](std::span<const BindingSpan> b) {
        b[0].data[0] = std::byte(std::to_integer<unsigned>(b[0].data[0]) + 1);
        runs.fetch_add(1);
        if (std::this_thread::get_id() != caller) elsewhere.fetch_add(1);
        return Status::ok();
      });
  Graph bump(*rt);
  ASSERT_TRUE(bump.npu(kernel, {word.view()}).isOk());
  auto exe = std::move(rt->prepare(bump)).value();
  ASSERT_TRUE(exe.submitAndWait().isOk());

  Statistics before = rt->statistics();
  heapAllocations = 0;
  counting = true;
  for (int i = 0; i < 500; ++i) ASSERT_TRUE(exe.submitAndWait().isOk());
  counting = false;
  Statistics after = rt->statistics();
  EXPECT_EQ(heapAllocations.load(), 0u);
  EXPECT_EQ(runs.load(), 501u);
  EXPECT_EQ(elsewhere.load(), 0u);
  EXPECT_EQ(after.submissions, before.submissions + 500);
  EXPECT_EQ(after.completions, before.completions + 500);
  auto map = word.mapRead();
  ASSERT_TRUE(map.isOk());
  EXPECT_EQ(std::to_integer<unsigned>(map->bytes()[0]), 501u % 256);
}
