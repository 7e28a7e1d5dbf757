// Faults injected at allocation, submission, execution and retirement (runtime/core/
// FaultInjection.h). These also run in the ASan (with LeakSanitizer) and TSan builds: failures
// must leak nothing, touch no freed memory and never free storage a device may still use.
#include "FaultInjection.h"
#include "TestKernel.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace hrx::runtime;
using faults::FaultSite;
using hrx::Status;
using hrx::StatusCode;
using hrx::format::ContractAccess;
using hrx::test::allocate;
using hrx::test::Gate;
using hrx::test::makeRuntime;
using hrx::test::TestKernel;

namespace {

Executable prepareFill(Runtime &rt, const Buffer &buffer, uint8_t value) {
  Graph g(rt);
  EXPECT_TRUE(g.fill(buffer.view(), value).isOk());
  return std::move(rt.prepare(g)).value();
}

uint8_t firstByte(const Buffer &buffer) {
  auto map = buffer.mapRead();
  EXPECT_TRUE(map.isOk()) << map.status().toString();
  return map.isOk() ? static_cast<uint8_t>(map->bytes()[0]) : 0;
}

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(FaultInjection, ExecutionFaultFailsItsCompletionAndOtherSubmissionsContinue) {
  auto rt = makeRuntime();
  Buffer a = allocate(*rt, 64), b = allocate(*rt, 64);
  Executable fillA = prepareFill(*rt, a, 1), fillB = prepareFill(*rt, b, 2);
  ASSERT_TRUE(rt->startTrace(8).isOk());
  faults::injectFault(*rt, FaultSite::Execution);
  Status failed = fillA.submit()->wait();
  EXPECT_EQ(failed.code(), StatusCode::Internal);
  EXPECT_EQ(failed.message(), "region 0 on the compute lane failed: injected execution fault (HRX_FAULT_INJECT)");
  EXPECT_EQ(firstByte(a), 0u);  // the failed region wrote nothing
  // The fault was one region's: other graphs, and the same graph again, run normally.
  EXPECT_TRUE(fillB.submit()->wait().isOk());
  EXPECT_TRUE(fillA.submit()->wait().isOk());
  EXPECT_EQ(firstByte(a), 1u);
  EXPECT_EQ(firstByte(b), 2u);
  auto trace = rt->finishTrace();
  ASSERT_EQ(trace->events.size(), 3u);
  EXPECT_TRUE(trace->events[0].failed);
  EXPECT_FALSE(trace->events[1].failed);
  EXPECT_EQ(rt->statistics().completions, 3u);
}

TEST(FaultInjection, SubmissionFaultReleasesItsSlotAndReservations) {
  RuntimeOptions options;
  options.graphSlots = 1;
  auto rt = makeRuntime(options);
  Buffer a = allocate(*rt, 64);
  Executable fill = prepareFill(*rt, a, 3);
  faults::injectFault(*rt, FaultSite::Submission);
  auto refused = fill.submit();
  ASSERT_FALSE(refused.isOk());
  EXPECT_EQ(refused.status().toString(),
            "INTERNAL: the device refused the submission (injected submission fault: HRX_FAULT_INJECT)");
  // Nothing stays reserved: the host maps the buffer for writing at once, and the graph's only
  // slot is free again.
  EXPECT_TRUE(a.tryMapWrite().isOk());
  EXPECT_EQ(rt->statistics().submissions, 0u);
  EXPECT_TRUE(fill.submit()->wait().isOk());
  EXPECT_EQ(firstByte(a), 3u);
}

TEST(FaultInjection, AllocationFaultChargesNothingAndCanBeRetried) {
  RuntimeOptions options;
  options.memoryBudget = 4096;
  auto rt = makeRuntime(options);
  faults::injectFault(*rt, FaultSite::Allocation, 2);
  Buffer first = allocate(*rt, 1024);
  auto failed = rt->allocate(3072, Placement::HostVisible());
  ASSERT_FALSE(failed.isOk());
  EXPECT_EQ(failed.status().toString(),
            "RESOURCE_EXHAUSTED: out of host memory allocating 3072 bytes (injected fault: HRX_FAULT_INJECT)");
  EXPECT_EQ(rt->statistics().allocations, 1u);
  EXPECT_EQ(rt->statistics().liveBytes, 1024u);
  // The failed allocation returned its budget charge: the whole remainder is available.
  Buffer retried = allocate(*rt, 3072);
  EXPECT_EQ(rt->statistics().liveBytes, 4096u);
}

TEST(FaultInjection, UncertainRetirementQuarantinesTheOwnershipChain) {
  RuntimeOptions options;
  options.memoryBudget = 256;
  auto rt = makeRuntime(options);
  Gate gate;
  Buffer a = allocate(*rt, 128), copyOfA = allocate(*rt, 64, Placement::GpuLocal()), unrelated = allocate(*rt, 64);
  auto writer = std::make_shared<TestKernel>(Engine::Npu, "writer",
                                             KernelContract{{{128, 4, ContractAccess::Write, "bytes"}}, {}},
                                             [&gate](std::span<const BindingSpan> b) {
                                               gate.wait();
                                               std::fill_n(b[0].data, b[0].length, std::byte{9});
                                               return Status::ok();
                                             });
  Graph produce(*rt), consume(*rt);
  ASSERT_TRUE(produce.npu(writer, {a.view()}).isOk());
  ASSERT_TRUE(consume.copy(copyOfA.view(), *a.slice(0, 64)).isOk());
  auto producer = std::move(rt->prepare(produce)).value();
  auto consumer = std::move(rt->prepare(consume)).value();
  Executable other = prepareFill(*rt, unrelated, 5);

  faults::injectFault(*rt, FaultSite::Retirement);
  auto uncertain = producer.submit();
  auto dependent = consumer.submit();  // reads `a`: waits for the producer
  ASSERT_TRUE(uncertain.isOk() && dependent.isOk());
  gate.open();
  Status lost = uncertain->wait();
  EXPECT_EQ(lost.code(), StatusCode::DeviceLost);
  EXPECT_TRUE(contains(lost.message(), "retirement could not be confirmed")) << lost.message();
  Status skipped = dependent->wait();
  EXPECT_EQ(skipped.code(), StatusCode::DeviceLost);
  EXPECT_TRUE(contains(skipped.message(), "quarantined by an earlier submission")) << skipped.message();
  EXPECT_EQ(rt->statistics().copiedBytes, 0u);  // the dependent copy never touched `a`

  // The ownership chain is poisoned: maps and resubmissions are DeviceLost, never Busy or a wait.
  EXPECT_TRUE(a.poisoned());
  EXPECT_EQ(a.mapRead().status().code(), StatusCode::DeviceLost);
  EXPECT_EQ(a.tryMapWrite().status().code(), StatusCode::DeviceLost);
  EXPECT_EQ(producer.submit().status().code(), StatusCode::DeviceLost);
  // Storage the quarantine does not own keeps working.
  EXPECT_TRUE(other.submit()->wait().isOk());
  EXPECT_EQ(firstByte(unrelated), 5u);

  // Dropping every handle frees nothing the device might still write: the bytes and their budget
  // charge stay until process exit (LeakSanitizer sees them retained, not lost).
  uncertain = Completion();
  dependent = Completion();
  producer = Executable();
  consumer = Executable();
  a = Buffer();
  EXPECT_EQ(rt->statistics().liveBytes, 256u);
  EXPECT_EQ(rt->allocate(128, Placement::HostVisible()).status().code(), StatusCode::ResourceExhausted);
}

TEST(FaultInjection, QuarantinedBuffersWakeWaitingMaps) {
  auto rt = makeRuntime();
  Gate gate;
  Buffer a = allocate(*rt, 4);
  auto holder =
      std::make_shared<TestKernel>(Engine::Gpu, "holder", KernelContract{{{4, 4, ContractAccess::Write, ""}}, {}},
                                   [&gate](std::span<const BindingSpan>) {
                                     gate.wait();
                                     return Status::ok();
                                   });
  Graph g(*rt);
  ASSERT_TRUE(g.gpu(holder, {a.view()}).isOk());
  auto exe = std::move(rt->prepare(g)).value();
  faults::injectFault(*rt, FaultSite::Retirement);
  auto c = exe.submit();
  gate.waitEntered();
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    gate.open();
  });
  // Blocks on the device write, and wakes with DeviceLost when the retirement is uncertain.
  EXPECT_EQ(a.mapRead().status().code(), StatusCode::DeviceLost);
  opener.join();
  EXPECT_EQ(c->wait().code(), StatusCode::DeviceLost);
}

TEST(FaultInjection, EnvironmentSpecification) {
  auto rt = makeRuntime();
  EXPECT_EQ(faults::armFromSpec(*rt, "execution").message(),
            "HRX_FAULT_INJECT: 'execution' has no ':N'; expected site:N[,site:N...] with site one of allocation, "
            "submission, execution, retirement and N >= 1");
  EXPECT_FALSE(faults::armFromSpec(*rt, "nowhere:1").isOk());
  EXPECT_FALSE(faults::armFromSpec(*rt, "execution:0").isOk());
  EXPECT_FALSE(faults::armFromSpec(*rt, "execution:1x").isOk());
  ASSERT_TRUE(faults::armFromSpec(*rt, "allocation:2,submission:1").isOk());
  Buffer b = allocate(*rt, 8);
  EXPECT_EQ(rt->allocate(8, Placement::HostVisible()).status().code(), StatusCode::ResourceExhausted);
  EXPECT_TRUE(rt->allocate(8, Placement::HostVisible()).isOk());  // only the second failed
  faults::clearFaults(*rt);
  Executable fill = prepareFill(*rt, b, 1);
  EXPECT_TRUE(fill.submit().isOk());  // the submission fault was disarmed

  ASSERT_EQ(setenv("HRX_FAULT_INJECT", "retirement:one", 1), 0);
  auto refused = Runtime::create();
  unsetenv("HRX_FAULT_INJECT");
  ASSERT_FALSE(refused.isOk());
  EXPECT_TRUE(contains(refused.status().message(), "'retirement:one' does not end in a positive count"));
}

TEST(Runtime, DestroyedWithWorkInFlightFinishesIt) {
  auto rt = makeRuntime();
  Gate gate;
  Buffer a = allocate(*rt, 4), b = allocate(*rt, 4, Placement::GpuLocal());
  auto holder =
      std::make_shared<TestKernel>(Engine::Npu, "holder", KernelContract{{{4, 4, ContractAccess::ReadWrite, ""}}, {}},
                                   [&gate](std::span<const BindingSpan>) {
                                     gate.wait();
                                     return Status::ok();
                                   });
  Graph g(*rt);
  ASSERT_TRUE(g.npu(holder, {a.view()}).isOk());
  ASSERT_TRUE(g.copy(b.view(), a.view()).isOk());  // the upload lane, after the NPU region
  auto exe = std::move(rt->prepare(g)).value();
  auto c = exe.submit();
  gate.waitEntered();
  rt.reset();  // returns at once; the upload lane must stay for the copy
  gate.open();
  ASSERT_TRUE(c->waitFor(std::chrono::seconds(10)));
  EXPECT_TRUE(c->wait().isOk());
}
