// Replay on the KFD GPU device (the emulated KFD) allocates nothing: no runtime allocations or
// imports, and no heap memory in the process (runtime, KFD device, emulated driver and its
// command processor included).
#include "KfdTestSupport.h"

#include "hrx/runtime/GpuDevice.h"
#include "hrx/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
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

TEST(KfdReplay, AllocatesNothing) {
  const hrx::test::ExampleKernels &examples = hrx::test::ExampleKernels::get();
  auto entries = std::move(listEntries(examples.elementwise)).value();
  auto rt = std::move(Runtime::create()).value();
  auto load = [&](const char *name, uint64_t n) {
    auto entry = std::move(findEntry(entries, name, Engine::Gpu)).value();
    auto kernel = loadOnGpu(*entry, {n});
    EXPECT_TRUE(kernel.isOk()) << kernel.status().message();
    return std::move(rt->adoptKernel(*kernel)).value();
  };
  constexpr uint64_t n = 4096;
  auto add = load("add_f32", n);
  Buffer staging = std::move(rt->allocate(n * 4, Placement::HostVisible())).value();
  Buffer local = std::move(rt->allocate(n * 4, Placement::GpuLocal())).value();
  float delta = 1;
  std::byte constants[12];
  std::memcpy(constants, &n, 8);
  std::memcpy(constants + 8, &delta, 4);
  Graph g(*rt);
  ASSERT_TRUE(g.copy(local.view(), staging.view()).isOk());
  ASSERT_TRUE(g.gpu(add, {local.view()}, constants).isOk());
  ASSERT_TRUE(g.gpu(add, {local.view()}, constants).isOk());
  ASSERT_TRUE(g.copy(staging.view(), local.view()).isOk());
  auto exe = std::move(rt->prepare(g)).value();
  ASSERT_TRUE(exe.submit()->wait().isOk());  // warm-up: registrations and lazily created state settle

  Statistics before = rt->statistics();
  counting = true;
  for (int i = 0; i < 200; ++i) {
    auto c = exe.submit();
    ASSERT_TRUE(c.isOk());
    ASSERT_TRUE(c->wait().isOk());
  }
  counting = false;
  Statistics after = rt->statistics();
  EXPECT_EQ(heapAllocations.load(), 0u);
  EXPECT_EQ(after.allocations, before.allocations);
  EXPECT_EQ(after.imports, before.imports);
  EXPECT_EQ(after.submissions, before.submissions + 200);
  auto map = std::move(staging.mapRead()).value();
  float first;
  std::memcpy(&first, map.bytes().data(), 4);
  EXPECT_EQ(first, 2.0f * 201);  // two additions per replay, 201 replays, from zero
}
