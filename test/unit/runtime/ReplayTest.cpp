// Replay allocates nothing: neither runtime allocations/imports nor heap memory.
#include "TestKernel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

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
