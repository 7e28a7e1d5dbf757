// 10,000 submissions from 4 threads with random waits, timeouts and cancellations. Runs under
// ThreadSanitizer and AddressSanitizer in the sanitizer builds.
#include "TestKernel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>

using namespace hrx::runtime;
using hrx::Status;
using hrx::StatusCode;

TEST(Stress, TenThousandSubmissionsFromFourThreads) {
  auto rt = std::move(Runtime::create()).value();
  constexpr int kThreads = 4, kPerThread = 2500;
  Buffer counter = std::move(rt->allocate(64, Placement::Shared(rt->host()))).value();
  auto increment = std::make_shared<hrx::test::TestKernel>(
      Engine::Npu, "increment", KernelContract{{{8, 8, hrx::format::ContractAccess::ReadWrite, "u64"}}, {}},
      [](std::span<const BindingSpan> b) {
        ++*reinterpret_cast<uint64_t *>(b[0].data);
        return Status::ok();
      });
  std::atomic<uint64_t> accepted{0}, cancelled{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      // Each thread owns a graph: a private copy chain plus an increment of the shared counter,
      // which orders submissions across threads by whole-allocation hazards.
      Buffer a = std::move(rt->allocate(256, Placement::HostVisible())).value();
      Buffer b = std::move(rt->allocate(256, Placement::GpuLocal())).value();
      Graph g(*rt);
      ASSERT_TRUE(g.fill(a.view(), static_cast<uint8_t>(t)).isOk());
      ASSERT_TRUE(g.copy(b.view(), a.view()).isOk());
      ASSERT_TRUE(g.npu(increment, {*counter.slice(8 * t, 8)}).isOk());
      auto exe = std::move(rt->prepare(g)).value();
      std::mt19937 random(t);
      std::vector<Completion> pending;
      int submitted = 0;
      while (submitted < kPerThread) {
        auto c = exe.submit();
        if (!c.isOk()) {
          ASSERT_EQ(c.status().code(), StatusCode::Busy);
          if (pending.empty()) {  // other threads' detached work holds the runtime's capacity
            std::this_thread::yield();
            continue;
          }
          // Make room: wait (with a random timeout first) for the oldest.
          Completion &oldest = pending.front();
          if (!oldest.waitFor(std::chrono::microseconds(random() % 50))) (void)oldest.wait();
          pending.erase(pending.begin());
          continue;
        }
        ++submitted;
        accepted.fetch_add(1);
        switch (random() % 4) {
        case 0: break;  // drop at once: detaches without cancelling
        case 1: ASSERT_TRUE(c->wait().isOk()); break;
        case 2:
          c->cancel();
          if (c->wait().code() == StatusCode::Cancelled) cancelled.fetch_add(1);
          break;
        default: pending.push_back(std::move(c).value());
        }
      }
      for (Completion &c : pending) {
        Status s = c.wait();
        ASSERT_TRUE(s.isOk() || s.code() == StatusCode::Cancelled) << s.toString();
      }
      // Detached submissions still finish before the executable goes away.
    });
  for (auto &t : threads) t.join();
  EXPECT_EQ(accepted.load(), uint64_t(kThreads * kPerThread));
  auto map = counter.mapRead();  // waits for detached work
  ASSERT_TRUE(map.isOk());
  uint64_t total = 0;
  for (int t = 0; t < kThreads; ++t) total += reinterpret_cast<const uint64_t *>(map->bytes().data())[t];
  // Every accepted submission incremented exactly once unless it was cancelled before running.
  EXPECT_LE(total, accepted.load());
  EXPECT_GE(total, accepted.load() - cancelled.load());
  EXPECT_EQ(rt->statistics().submissions, accepted.load());
  EXPECT_EQ(rt->statistics().completions, accepted.load());
}

// wait, waitFor (which never cancels), poll, isComplete, cancel and profile called on the same
// completions from five threads at once while the lanes run them: every observer sees one final
// status, and the work either ran (Ok) or was cancelled before it started.
TEST(Stress, CompletionMethodsUnderContention) {
  constexpr unsigned kSubmissions = 200;
  RuntimeOptions options;
  options.graphSlots = kSubmissions;
  options.maxSubmissions = kSubmissions;
  auto rt = std::move(Runtime::create(options)).value();
  Buffer counter = std::move(rt->allocate(8, Placement::Shared(rt->host()))).value();
  auto increment = std::make_shared<hrx::test::TestKernel>(
      Engine::Npu, "increment", KernelContract{{{8, 8, hrx::format::ContractAccess::ReadWrite, "u64"}}, {}},
      [](std::span<const BindingSpan> b) {
        std::this_thread::yield();
        ++*reinterpret_cast<uint64_t *>(b[0].data);
        return Status::ok();
      });
  Graph g(*rt);
  ASSERT_TRUE(g.npu(increment, {counter.view()}).isOk());
  auto exe = std::move(rt->prepare(g)).value();
  std::vector<Completion> completions;
  for (unsigned i = 0; i < kSubmissions; ++i) completions.push_back(std::move(exe.submit()).value());

  std::vector<Status> waited(kSubmissions), polled(kSubmissions);
  std::atomic<unsigned> timeouts{0};
  std::vector<std::thread> observers;
  observers.emplace_back([&] {
    for (unsigned i = 0; i < kSubmissions; ++i) waited[i] = completions[i].wait();
  });
  observers.emplace_back([&] {
    std::mt19937 random(1);
    for (Completion &c : completions)
      while (!c.waitFor(std::chrono::microseconds(random() % 200))) timeouts.fetch_add(1);
  });
  observers.emplace_back([&] {
    for (unsigned i = 0; i < kSubmissions; ++i) {
      while ((polled[i] = completions[i].poll()).code() == StatusCode::Busy) std::this_thread::yield();
      EXPECT_TRUE(completions[i].isComplete());
    }
  });
  observers.emplace_back([&] {
    for (unsigned i = 0; i < kSubmissions; i += 3) completions[i].cancel();
  });
  observers.emplace_back([&] {
    for (Completion &c : completions) {
      while (!c.isComplete()) (void)c.profile();  // empty until complete; never blocks
      CompletionProfile p = c.profile();
      EXPECT_LT(p.elapsedUs, 60'000'000u);
    }
  });
  for (auto &t : observers) t.join();

  unsigned ok = 0, cancelled = 0;
  for (unsigned i = 0; i < kSubmissions; ++i) {
    EXPECT_EQ(waited[i].code(), polled[i].code()) << i;
    EXPECT_TRUE(waited[i].isOk() || waited[i].code() == StatusCode::Cancelled) << waited[i].toString();
    if (i % 3) EXPECT_TRUE(waited[i].isOk()) << i;  // never cancelled: timeouts do not cancel
    ok += waited[i].isOk();
    cancelled += waited[i].code() == StatusCode::Cancelled;
  }
  // Every Ok submission incremented; a cancelled one did only if it was already running (cancel
  // drains running work).
  uint64_t increments = *reinterpret_cast<const uint64_t *>(counter.mapRead()->bytes().data());
  EXPECT_GE(increments, ok);
  EXPECT_LE(increments, ok + cancelled);
  EXPECT_EQ(rt->statistics().completions, kSubmissions);
}
