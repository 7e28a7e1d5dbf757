#include "TestKernel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

using namespace hrx::runtime;
using hrx::Status;
using hrx::StatusCode;
using hrx::format::ContractAccess;
using hrx::test::allocate;
using hrx::test::Gate;
using hrx::test::makeRuntime;
using hrx::test::TestKernel;

namespace {

KernelContract contract(std::initializer_list<BindingContract> bindings) { return KernelContract{bindings, {}}; }

// A GPU kernel writing binding 0 (uint32 elements) as binding 1 + 1, after an optional gate.
std::shared_ptr<Kernel> addOneKernel(uint64_t bytes, Gate *gate = nullptr) {
  return std::make_shared<TestKernel>(
      Engine::Gpu, "add_one",
      contract({{bytes, 4, ContractAccess::Write, "u32 out"}, {bytes, 4, ContractAccess::Read, "u32 in"}}),
      [gate](std::span<const BindingSpan> b) {
        if (gate) gate->wait();
        auto *out = reinterpret_cast<uint32_t *>(b[0].data);
        auto *in = reinterpret_cast<const uint32_t *>(b[1].data);
        for (uint64_t i = 0; i < b[1].length / 4; ++i) out[i] = in[i] + 1;
        return Status::ok();
      });
}

std::shared_ptr<Kernel> gateKernel(Gate &gate, Engine engine = Engine::Gpu,
                                   ContractAccess access = ContractAccess::Write) {
  return std::make_shared<TestKernel>(engine, "gate", contract({{4, 4, access, "word"}}),
                                      [&gate](std::span<const BindingSpan>) {
                                        gate.wait();
                                        return Status::ok();
                                      });
}

}  // namespace

TEST(Runtime, OptionsAreValidated) {
  RuntimeOptions options;
  options.maxSubmissions = 0;
  auto rt = Runtime::create(options);
  ASSERT_FALSE(rt.isOk());
  EXPECT_EQ(rt.status().message(), "runtime capacities must be nonzero and GPU index nonnegative");
}

TEST(Memory, AllocationSizeAndBudget) {
  RuntimeOptions options;
  options.memoryBudget = 1000;
  auto rt = makeRuntime(options);
  EXPECT_EQ(rt->allocate(0, Placement::HostVisible()).status().message(), "allocation size must be in 1..=isize::MAX");
  {
    Buffer a = allocate(*rt, 600);
    auto over = rt->allocate(600, Placement::HostVisible());
    ASSERT_FALSE(over.isOk());
    EXPECT_EQ(over.status().code(), StatusCode::ResourceExhausted);
    EXPECT_EQ(rt->statistics().allocations, 1u);  // the failure allocated nothing
    EXPECT_EQ(rt->statistics().liveBytes, 600u);
  }
  Buffer retried = allocate(*rt, 600);  // the budget failure can be retried after a release
  Statistics stats = rt->statistics();
  EXPECT_EQ(stats.allocations, 2u);
  EXPECT_EQ(stats.liveBytes, 600u);
  EXPECT_EQ(stats.peakBytes, 600u);
}

TEST(Memory, NpuPlacementsNameAnNpuOrTheHostDevice) {
  auto rt = makeRuntime();
  Device gpu{DeviceKind::Gpu, 0, "gfx1151"};
  EXPECT_EQ(rt->allocate(64, Placement::Shared(gpu)).status().message(),
            "Shared placement names the GPU (gfx1151); it takes an NPU device (npu(i)) or the host reference device");
  EXPECT_FALSE(rt->allocate(64, Placement::NpuLocal(gpu)).isOk());
  EXPECT_EQ(rt->statistics().allocations, 0u);
  EXPECT_TRUE(rt->allocate(64, Placement::NpuLocal(rt->host())).isOk());
}

TEST(Memory, SharedCountsAnImportAndBuffersAreZeroed) {
  auto rt = makeRuntime();
  Buffer shared = allocate(*rt, 64, Placement::Shared(rt->host()));
  EXPECT_EQ(rt->statistics().imports, 1u);
  auto map = shared.mapRead();
  ASSERT_TRUE(map.isOk());
  for (std::byte b : map->bytes()) EXPECT_EQ(b, std::byte{0});
}

TEST(Memory, ViewsAreChecked) {
  auto rt = makeRuntime();
  Buffer b = allocate(*rt, 100);
  auto s = b.slice(90, 20);
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.status().message(), "buffer view is out of bounds: slice [90, +20) of a 100-byte view");
  auto ok = b.slice(10, 50);
  ASSERT_TRUE(ok.isOk());
  auto nested = ok->slice(40, 10);
  ASSERT_TRUE(nested.isOk());
  EXPECT_EQ(nested->offset(), 50u);
  EXPECT_FALSE(ok->slice(41, 10).isOk());
}

TEST(Memory, MapGuards) {
  auto rt = makeRuntime();
  Buffer b = allocate(*rt, 16);
  {
    auto r1 = b.mapRead(), r2 = b.mapRead();
    ASSERT_TRUE(r1.isOk() && r2.isOk());
    auto w = b.mapWrite();
    ASSERT_FALSE(w.isOk());
    EXPECT_EQ(w.status().code(), StatusCode::Busy);
    EXPECT_EQ(w.status().message(), "conflicting host mapping");
  }
  auto w = b.mapWrite();
  ASSERT_TRUE(w.isOk());
  EXPECT_EQ(b.tryMapRead().status().message(), "conflicting host mapping");
  Buffer local = allocate(*rt, 16, Placement::GpuLocal());
  EXPECT_EQ(local.mapRead().status().message(),
            "GPU-local memory is not host mapped; use an explicit graph copy to shared storage");
}

TEST(Memory, TryMapWhileInDeviceUseAndGraphAgainstLiveGuard) {
  auto rt = makeRuntime();
  Buffer b = allocate(*rt, 4);
  Gate gate;
  Graph g(*rt);
  ASSERT_TRUE(g.gpu(gateKernel(gate), {b.view()}).isOk());
  auto exe = rt->prepare(g);
  ASSERT_TRUE(exe.isOk());
  auto c = exe->submit();
  ASSERT_TRUE(c.isOk());
  EXPECT_EQ(b.tryMapRead().status().message(), "allocation is in device use");
  gate.open();
  auto mapped = b.mapRead();  // waits for the device work
  ASSERT_TRUE(mapped.isOk());
  EXPECT_TRUE(c->isComplete());
  auto again = exe->submit();
  ASSERT_FALSE(again.isOk());
  EXPECT_EQ(again.status().message(), "device binding conflicts with a live host mapping");
}

TEST(Graph, CopyChecksAndLanes) {
  auto rt = makeRuntime();
  Buffer host = allocate(*rt, 64), local = allocate(*rt, 64, Placement::GpuLocal()), back = allocate(*rt, 64);
  Graph g(*rt);
  EXPECT_EQ(g.copy(host.view(), *local.slice(0, 32)).message(),
            "copy needs equal, nonoverlapping ranges (destination 64 bytes, source 32 bytes)");
  EXPECT_FALSE(g.copy(*host.slice(0, 32), *host.slice(16, 32)).isOk());
  {
    auto w = host.mapWrite();
    ASSERT_TRUE(w.isOk());
    for (size_t i = 0; i < 64; ++i) w->mutableBytes()[i] = std::byte(i);
  }
  ASSERT_TRUE(g.copy(local.view(), host.view()).isOk());
  ASSERT_TRUE(g.copy(back.view(), local.view()).isOk());
  auto exe = rt->prepare(g);
  ASSERT_TRUE(exe.isOk());
  ASSERT_EQ(exe->regions(), 2u);
  EXPECT_EQ(exe->regionLane(0), Lane::Upload);
  EXPECT_EQ(exe->regionLane(1), Lane::Download);
  auto c = exe->submit();
  ASSERT_TRUE(c.isOk());
  ASSERT_TRUE(c->wait().isOk());
  auto r = back.mapRead();
  ASSERT_TRUE(r.isOk());
  for (size_t i = 0; i < 64; ++i) EXPECT_EQ(r->bytes()[i], std::byte(i));
  EXPECT_EQ(rt->statistics().copiedBytes, 128u);
  EXPECT_EQ(rt->statistics().completions, 1u);
}

TEST(Graph, EmptyGraphIsRejected) {
  auto rt = makeRuntime();
  Graph g(*rt);
  EXPECT_EQ(rt->prepare(g).status().message(), "cannot prepare an empty graph");
}

TEST(Graph, ContractChecks) {
  auto rt = makeRuntime();
  Buffer a = allocate(*rt, 64), b = allocate(*rt, 64);
  Graph g(*rt);
  auto k = addOneKernel(32);
  EXPECT_EQ(g.gpu(k, {a.view()}).message(),
            "kernel 'add_one': kernel binding count mismatch: the contract has 2 bindings, 1 views were given");
  EXPECT_EQ(g.gpu(k, {*a.slice(0, 16), b.view()}).message(),
            "kernel 'add_one': binding 0 does not satisfy u32 out: 32 bytes aligned to 4 required; the view has 16 "
            "bytes at offset 0");
  EXPECT_FALSE(g.gpu(k, {*a.slice(2, 32), b.view()}).isOk());
  EXPECT_EQ(g.gpu(k, {*a.slice(0, 32), *a.slice(16, 32)}).message(),
            "bindings 0 and 1: overlapping writable kernel arguments require an unsafe dispatch");
  EXPECT_TRUE(g.gpuAliasing(k, {*a.slice(0, 32), *a.slice(16, 32)}).isOk());
  EXPECT_TRUE(g.gpu(k, {*a.slice(0, 32), *a.slice(32, 32)}).isOk());
  EXPECT_FALSE(g.npu(k, {a.view(), b.view()}).isOk());  // a GPU kernel is not an NPU op
  Buffer npuLocal = allocate(*rt, 64, Placement::NpuLocal(rt->host()));
  EXPECT_EQ(g.gpu(k, {npuLocal.view(), b.view()}).message(), "binding 0: NPU-local storage cannot bind to the GPU");
  KernelContract bad = contract({{0, 4, ContractAccess::Read, ""}});
  EXPECT_EQ(bad.validate().message(), "invalid kernel binding extent or alignment: binding 0 has 0 bytes aligned to 4");
}

TEST(Graph, HazardsOnHandBuiltGraph) {
  auto rt = makeRuntime();
  Buffer a = allocate(*rt, 64), b = allocate(*rt, 64), c = allocate(*rt, 64, Placement::GpuLocal());
  auto npuWriteA = std::make_shared<TestKernel>(Engine::Npu, "w", contract({{64, 4, ContractAccess::Write, ""}}),
                                                [](auto) { return Status::ok(); });
  auto npuReadA = std::make_shared<TestKernel>(Engine::Npu, "r", contract({{64, 4, ContractAccess::Read, ""}}),
                                               [](auto) { return Status::ok(); });
  Graph g(*rt);
  ASSERT_TRUE(g.npu(npuWriteA, {a.view()}).isOk());  // region 0: writes a
  ASSERT_TRUE(g.copy(c.view(), a.view()).isOk());    // region 1 (upload): reads a -> RAW on 0
  ASSERT_TRUE(g.npu(npuReadA, {b.view()}).isOk());   // region 2: reads b, independent
  ASSERT_TRUE(g.npu(npuWriteA, {a.view()}).isOk());  // region 3: writes a -> WAR on 1, WAW on 0
  auto exe = rt->prepare(g);
  ASSERT_TRUE(exe.isOk());
  ASSERT_EQ(exe->regions(), 4u);
  std::vector<std::tuple<unsigned, unsigned, HazardKind>> got;
  for (const Hazard &h : exe->hazards()) got.emplace_back(h.from, h.to, h.kind);
  std::vector<std::tuple<unsigned, unsigned, HazardKind>> want = {
      {0, 1, HazardKind::ReadAfterWrite}, {0, 3, HazardKind::WriteAfterWrite}, {1, 3, HazardKind::WriteAfterRead}};
  EXPECT_EQ(got, want);
}

TEST(Graph, SharedAllocationsConflictAsAWhole) {
  auto rt = makeRuntime();
  Buffer shared = allocate(*rt, 64, Placement::Shared(rt->host()));
  Buffer plain = allocate(*rt, 64);
  for (Buffer *b : {&shared, &plain}) {
    Graph g(*rt);
    ASSERT_TRUE(g.fill(*b->slice(0, 32), 1).isOk());
    auto k = std::make_shared<TestKernel>(Engine::Npu, "r", contract({{32, 4, ContractAccess::Read, ""}}),
                                          [](auto) { return Status::ok(); });
    ASSERT_TRUE(g.npu(k, {*b->slice(32, 32)}).isOk());
    auto exe = rt->prepare(g);
    ASSERT_TRUE(exe.isOk());
    EXPECT_EQ(exe->hazards().size(), b == &shared ? 1u : 0u);
  }
}

TEST(Graph, ConsecutiveGpuOpsFormOneRegion) {
  auto rt = makeRuntime();
  Buffer a = allocate(*rt, 64), b = allocate(*rt, 64), c = allocate(*rt, 64);
  Graph g(*rt);
  auto k = addOneKernel(64);
  ASSERT_TRUE(g.gpu(k, {b.view(), a.view()}).isOk());
  ASSERT_TRUE(g.gpu(k, {c.view(), b.view()}).isOk());
  auto exe = rt->prepare(g);
  ASSERT_TRUE(exe.isOk());
  EXPECT_EQ(exe->regions(), 1u);
  auto done = exe->submit();
  ASSERT_TRUE(done.isOk());
  ASSERT_TRUE(done->wait().isOk());
  auto r = c.mapRead();
  EXPECT_EQ(reinterpret_cast<const uint32_t *>(r->bytes().data())[5], 2u);
}

TEST(Lanes, OneRegionAtATimePerLaneWhileIndependentLanesOverlap) {
  auto rt = makeRuntime();
  Gate gate;
  Buffer a = allocate(*rt, 4), b = allocate(*rt, 4), src = allocate(*rt, 64),
         dst = allocate(*rt, 64, Placement::GpuLocal());
  std::atomic<int> secondNpuRan{0};
  auto second = std::make_shared<TestKernel>(Engine::Npu, "second", contract({{4, 4, ContractAccess::Write, ""}}),
                                             [&](std::span<const BindingSpan>) {
                                               secondNpuRan.store(1);
                                               return Status::ok();
                                             });
  // Three independent graphs: a gated NPU region, another NPU region, an upload copy.
  Graph held(*rt), queued(*rt), upload(*rt);
  ASSERT_TRUE(held.npu(gateKernel(gate, Engine::Npu), {a.view()}).isOk());
  ASSERT_TRUE(queued.npu(second, {b.view()}).isOk());
  ASSERT_TRUE(upload.copy(dst.view(), src.view()).isOk());
  auto e1 = rt->prepare(held), e2 = rt->prepare(queued), e3 = rt->prepare(upload);
  auto c1 = e1->submit();
  gate.waitEntered();
  auto c2 = e2->submit(), c3 = e3->submit();
  // The upload lane runs while the NPU lane is busy; the second NPU region waits for the lane,
  // though it shares no data with the first.
  EXPECT_TRUE(c3->wait().isOk());
  EXPECT_FALSE(c2->waitFor(std::chrono::milliseconds(20)));
  EXPECT_EQ(secondNpuRan.load(), 0);
  gate.open();
  EXPECT_TRUE(c2->wait().isOk());
  EXPECT_TRUE(c1->wait().isOk());
  EXPECT_EQ(secondNpuRan.load(), 1);
}

TEST(Completion, BusyOnGraphSlotsAndRuntimeCapacity) {
  RuntimeOptions options;
  options.maxSubmissions = 3;
  auto rt = makeRuntime(options);
  Gate gate;
  Buffer a = allocate(*rt, 4), b = allocate(*rt, 4);
  Graph g1(*rt), g2(*rt);
  ASSERT_TRUE(g1.gpu(gateKernel(gate, Engine::Gpu, ContractAccess::Read), {a.view()}).isOk());
  ASSERT_TRUE(g2.gpu(gateKernel(gate, Engine::Gpu, ContractAccess::Read), {b.view()}).isOk());
  auto e1 = rt->prepare(g1), e2 = rt->prepare(g2);
  ASSERT_TRUE(e1.isOk() && e2.isOk());
  uint64_t allocations = rt->statistics().allocations;
  auto c1 = e1->submit(), c2 = e1->submit();
  ASSERT_TRUE(c1.isOk() && c2.isOk());
  auto c3 = e1->submit();
  ASSERT_FALSE(c3.isOk());
  EXPECT_EQ(c3.status().code(), StatusCode::Busy);
  EXPECT_EQ(c3.status().message(), "graph completion slots exhausted (2 slots; retained completions keep theirs)");
  auto c4 = e2->submit();
  ASSERT_TRUE(c4.isOk());
  auto c5 = e2->submit();
  ASSERT_FALSE(c5.isOk());
  EXPECT_EQ(c5.status().message(), "runtime submission capacity exhausted (3 accepted submissions in flight)");
  EXPECT_EQ(rt->statistics().allocations, allocations);  // running out never allocates
  gate.open();
  EXPECT_TRUE(c1->wait().isOk());
  EXPECT_TRUE(c2->wait().isOk());
  // A retained completion keeps its slot even after completion; dropping it recycles it.
  EXPECT_EQ(e1->submit().status().code(), StatusCode::Busy);
  c1 = hrx::StatusOr<Completion>(Completion());
  EXPECT_TRUE(e1->submit().isOk());
  EXPECT_TRUE(c4->wait().isOk());
}

TEST(Completion, WaitForTimesOutWithoutCancelling) {
  auto rt = makeRuntime();
  Gate gate;
  Buffer out = allocate(*rt, 16), in = allocate(*rt, 16);
  Graph g(*rt);
  ASSERT_TRUE(g.gpu(addOneKernel(16, &gate), {out.view(), in.view()}).isOk());
  auto exe = rt->prepare(g);
  auto c = exe->submit();
  ASSERT_TRUE(c.isOk());
  EXPECT_FALSE(c->waitFor(std::chrono::milliseconds(20)));
  EXPECT_FALSE(c->isComplete());
  EXPECT_EQ(c->poll().code(), StatusCode::Busy);
  EXPECT_EQ(c->pendingLanes(), std::vector<Lane>{Lane::Compute});
  EXPECT_FALSE(c->finishedAt().has_value());
  auto beforeOpen = std::chrono::steady_clock::now();
  gate.open();
  EXPECT_TRUE(c->wait().isOk());  // the work ran to completion: the timeout did not cancel it
  ASSERT_TRUE(c->finishedAt().has_value());
  EXPECT_GE(*c->finishedAt(), beforeOpen);
  EXPECT_TRUE(c->poll().isOk());
  auto r = out.mapRead();
  EXPECT_EQ(reinterpret_cast<const uint32_t *>(r->bytes().data())[3], 1u);
}

TEST(Completion, CancelStopsUnstartedRegions) {
  auto rt = makeRuntime();
  Gate gate;
  Buffer a = allocate(*rt, 4), b = allocate(*rt, 64);
  Graph g(*rt);
  ASSERT_TRUE(g.npu(gateKernel(gate, Engine::Npu, ContractAccess::ReadWrite), {a.view()}).isOk());
  ASSERT_TRUE(g.copy(*b.slice(0, 4), a.view()).isOk());  // depends on the NPU region
  auto exe = rt->prepare(g);
  ASSERT_TRUE(exe.isOk());
  auto c = exe->submit();
  ASSERT_TRUE(c.isOk());
  gate.waitEntered();
  c->cancel();
  gate.open();
  Status s = c->wait();
  EXPECT_EQ(s.code(), StatusCode::Cancelled);
  EXPECT_EQ(rt->statistics().copiedBytes, 0u);  // the copy never ran
}

TEST(Completion, FailureIsReportedAndLaterRegionsSkipped) {
  auto rt = makeRuntime();
  Buffer a = allocate(*rt, 4), b = allocate(*rt, 4);
  auto failing = std::make_shared<TestKernel>(Engine::Npu, "broken", contract({{4, 4, ContractAccess::Write, ""}}),
                                              [](auto) { return Status(StatusCode::Internal, "boom"); });
  Graph g(*rt);
  ASSERT_TRUE(g.npu(failing, {a.view()}).isOk());
  ASSERT_TRUE(g.copy(b.view(), a.view()).isOk());
  auto exe = rt->prepare(g);
  auto c = exe->submit();
  Status s = c->wait();
  EXPECT_EQ(s.toString(), "INTERNAL: kernel 'broken' on the npu lane: boom");
  EXPECT_EQ(rt->statistics().copiedBytes, 0u);
}

TEST(Completion, QuarantinePoisonsAllocations) {
  auto rt = makeRuntime();
  Buffer a = allocate(*rt, 4);
  Graph g(*rt);
  ASSERT_TRUE(g.fill(a.view(), 7).isOk());
  auto exe = rt->prepare(g);
  ASSERT_TRUE(exe.isOk());
  exe->quarantine();
  EXPECT_TRUE(a.poisoned());
  EXPECT_EQ(a.mapRead().status().code(), StatusCode::DeviceLost);
  EXPECT_EQ(exe->submit().status().code(), StatusCode::DeviceLost);
}

TEST(Completion, CrossSubmissionHazardsOrderGraphs) {
  auto rt = makeRuntime();
  Gate gate;
  Buffer a = allocate(*rt, 64), b = allocate(*rt, 64, Placement::GpuLocal());
  Graph producer(*rt), consumer(*rt);
  auto writer = std::make_shared<TestKernel>(Engine::Npu, "writer", contract({{64, 4, ContractAccess::Write, ""}}),
                                             [&gate](std::span<const BindingSpan> s) {
                                               gate.wait();
                                               std::memset(s[0].data, 0x5a, s[0].length);
                                               return Status::ok();
                                             });
  ASSERT_TRUE(producer.npu(writer, {a.view()}).isOk());
  ASSERT_TRUE(consumer.copy(b.view(), a.view()).isOk());
  auto p = rt->prepare(producer), q = rt->prepare(consumer);
  auto c1 = p->submit();
  auto c2 = q->submit();  // reads `a`: must wait for the producer submission
  ASSERT_TRUE(c1.isOk() && c2.isOk());
  EXPECT_FALSE(c2->waitFor(std::chrono::milliseconds(20)));
  gate.open();
  ASSERT_TRUE(c2->wait().isOk());
  Buffer back = allocate(*rt, 64);
  Graph check(*rt);
  ASSERT_TRUE(check.copy(back.view(), b.view()).isOk());
  auto e = rt->prepare(check);
  ASSERT_TRUE(e->submit()->wait().isOk());
  EXPECT_EQ(back.mapRead()->bytes()[63], std::byte{0x5a});
}

TEST(Statistics, CacheMaintenanceCoversTheWholeAllocation) {
  auto rt = makeRuntime();
  Buffer shared = allocate(*rt, 256, Placement::Shared(rt->host()));
  auto gpuWrite = std::make_shared<TestKernel>(Engine::Gpu, "g", contract({{16, 4, ContractAccess::Write, ""}}),
                                               [](auto) { return Status::ok(); });
  auto npuRead = std::make_shared<TestKernel>(Engine::Npu, "n", contract({{16, 4, ContractAccess::Read, ""}}),
                                              [](auto) { return Status::ok(); });
  Graph g(*rt);
  ASSERT_TRUE(g.gpu(gpuWrite, {*shared.slice(0, 16)}).isOk());
  ASSERT_TRUE(g.npu(npuRead, {*shared.slice(64, 16)}).isOk());
  auto exe = rt->prepare(g);
  ASSERT_TRUE(exe->submit()->wait().isOk());
  // The GPU write needs no maintenance (nothing wrote before); the NPU read of GPU-written data does.
  EXPECT_EQ(rt->statistics().cacheMaintenanceBytes, 256u);
  EXPECT_EQ(rt->statistics().copiedBytes, 0u);
  EXPECT_EQ(rt->statistics().toJson(), "{\"allocations\":1,\"imports\":1,\"submissions\":1,\"completions\":1,"
                                       "\"copied_bytes\":0,\"cache_maintenance_bytes\":256,\"live_bytes\":256,"
                                       "\"peak_bytes\":256}");
}

TEST(Trace, ChromeLayout) {
  auto rt = makeRuntime();
  EXPECT_EQ(rt->startTrace(0).message(), "trace capacity must be greater than zero");
  ASSERT_TRUE(rt->startTrace(2).isOk());
  EXPECT_EQ(rt->startTrace(2).message(), "a trace is already running");
  Buffer a = allocate(*rt, 32), b = allocate(*rt, 32, Placement::GpuLocal());
  Graph g(*rt);
  ASSERT_TRUE(g.copy(b.view(), a.view()).isOk());
  auto exe = rt->prepare(g);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(exe->submit()->wait().isOk());
  auto trace = rt->finishTrace();
  ASSERT_TRUE(trace.has_value());
  EXPECT_FALSE(rt->finishTrace().has_value());
  ASSERT_EQ(trace->events.size(), 2u);
  EXPECT_EQ(trace->dropped, 1u);
  EXPECT_EQ(trace->events[0].lane, Lane::Upload);
  EXPECT_EQ(trace->events[0].copiedBytes, 32u);
  std::string json = trace->toJson();
  EXPECT_NE(json.find("{\"traceEvents\":[\n  {\"name\":\"native region "
                      "(host-observed)\",\"cat\":\"hrx.host\",\"ph\":\"X\",\"ts\":"),
            std::string::npos);
  EXPECT_NE(json.find(",\"pid\":0,\"tid\":0,\"args\":{\"copied_bytes\":32,\"failed\":false}}"), std::string::npos);
  EXPECT_NE(json.find("\"displayTimeUnit\":\"ms\",\"dropped_events\":1"), std::string::npos);
  EXPECT_NE(json.find("\"measurement\":\"host-observed synchronized region latency; not device timestamps\""),
            std::string::npos);
}

// Scalar launch arguments against the types the artifact recorded (issue #26).
TEST(Graph, ScalarArgumentTypesAreChecked) {
  using hrx::format::LaunchArgument;
  using hrx::format::LaunchArgumentKind;
  using hrx::format::ScalarType;
  std::vector<LaunchArgument> arguments = {
      {0, 8, LaunchArgumentKind::Buffer, "out", ScalarType::Pointer},
      {8, 4, LaunchArgumentKind::Value, "n", ScalarType::U32},
      {12, 4, LaunchArgumentKind::Value, "bias", ScalarType::I32},
      {16, 4, LaunchArgumentKind::Value, "scale", ScalarType::F32},
      {20, 1, LaunchArgumentKind::Value, "negate", ScalarType::Bool},
      {24, 4, LaunchArgumentKind::Value, "", std::nullopt},  // recorded before types were
  };
  auto i32 = [](int32_t v) {
    return ScalarArgument{ScalarType::I32, {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)}};
  };
  auto u32 = [](uint32_t v) {
    return ScalarArgument{ScalarType::U32, {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)}};
  };
  ScalarArgument f32{ScalarType::F32, {0, 0, 0xc0, 0x3f}};  // 1.5
  ScalarArgument yes{ScalarType::U8, {1}};
  ScalarArgument raw{std::nullopt, {1, 2, 3, 4}};

  // An integer of the same size converts when it fits; raw bytes and untyped arguments by size.
  std::vector<ScalarArgument> good = {i32(7), u32(5), f32, yes, raw};
  auto packed = packScalarArguments(arguments, good);
  ASSERT_TRUE(packed.isOk()) << packed.status().message();
  ASSERT_EQ(packed->size(), 17u);
  EXPECT_EQ((*packed)[0], std::byte(7));
  EXPECT_EQ((*packed)[4], std::byte(5));
  EXPECT_EQ((*packed)[12], std::byte(1));

  auto error = [&](size_t index, const ScalarArgument &given) {
    return convertScalarArgument(arguments, index, given).status().message();
  };
  EXPECT_EQ(error(1, i32(-1)), "argument 1 (%n) has type u32: the i32 value -1 is out of its range [0, 4294967295]");
  EXPECT_EQ(error(2, u32(3000000000u)),
            "argument 2 (%bias) has type i32: the u32 value 3000000000 is out of its range [-2147483648, 2147483647]");
  EXPECT_EQ(error(2, f32), "argument 2 (%bias) has type i32, but an f32 value was given");
  EXPECT_EQ(error(3, i32(1)), "argument 3 (%scale) has type f32, but an i32 value was given");
  EXPECT_EQ(error(4, ScalarArgument{ScalarType::U8, {2}}),
            "argument 4 (%negate) has type bool: the u8 value 2 is out of its range [0, 1]");
  EXPECT_EQ(error(5, ScalarArgument{std::nullopt, {1, 2}}),
            "argument 5 is a scalar of 4 bytes, but 2 raw bytes were given");
  EXPECT_EQ(error(0, i32(1)), "argument 0 (%out) is not a scalar argument");
  EXPECT_EQ(packScalarArguments(arguments, std::vector<ScalarArgument>{i32(1)}).status().message(),
            "the launch takes 5 scalar argument(s), 1 were given");
}

// submitAndWait behind a busy lane: the submission queues behind the running region (lane order
// holds) and completes once that region has finished, on whichever thread takes it.
TEST(Graph, SubmitAndWaitQueuesBehindABusyLane) {
  auto rt = makeRuntime();
  Buffer held = allocate(*rt, 4), in = allocate(*rt, 16), out = allocate(*rt, 16);
  {
    auto w = in.mapWrite();
    ASSERT_TRUE(w.isOk());
    uint32_t values[4] = {1, 2, 3, 4};
    std::memcpy(w->mutableBytes().data(), values, sizeof values);
  }
  Gate gate;
  Graph blocking(*rt), addOne(*rt);
  ASSERT_TRUE(blocking.gpu(gateKernel(gate), {held.view()}).isOk());
  ASSERT_TRUE(addOne.gpu(addOneKernel(16), {out.view(), in.view()}).isOk());
  auto blockingExe = rt->prepare(blocking);
  auto addOneExe = rt->prepare(addOne);
  ASSERT_TRUE(blockingExe.isOk() && addOneExe.isOk());
  ASSERT_EQ(blockingExe->regionLane(0), addOneExe->regionLane(0));
  auto running = blockingExe->submit();
  ASSERT_TRUE(running.isOk());
  gate.waitEntered();  // the lane is busy from here on
  std::atomic<bool> done{false};
  Status result;
  std::thread submitter([&] {
    result = addOneExe->submitAndWait();
    done = true;
  });
  EXPECT_FALSE(running->isComplete());
  EXPECT_FALSE(done.load());
  gate.open();
  submitter.join();
  EXPECT_TRUE(result.isOk()) << result.toString();
  EXPECT_TRUE(running->wait().isOk());
  auto r = out.mapRead();
  ASSERT_TRUE(r.isOk());
  uint32_t values[4];
  std::memcpy(values, r->bytes().data(), sizeof values);
  EXPECT_EQ(values[0], 2u);
  EXPECT_EQ(values[3], 5u);
}
