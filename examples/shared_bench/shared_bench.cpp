// shared_bench [bytes=1048576]: latency of one prepared NPU copy over Shared storage. The graph
// fills `a` with 0x35 and copies a -> c on the NPU; 5 warm-up runs, then 100 timed
// submit().wait() runs, then c is checked. Percentiles are nearest-rank.
#include "../common/Example.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

using namespace hrx;
using namespace hrx::runtime;
using namespace hrx::examples;

namespace {
constexpr std::byte kPattern{0x35};
constexpr int kWarmups = 5;
constexpr int kTimedRuns = 100;

int run(const CommandLine &command) {
  const std::string &program = command.program;
  auto parsedBytes = parseCopyBytes(command, "usage: shared_bench [bytes=1048576] [--device=host]");
  if (!parsedBytes) return fail(program, parsedBytes.status().message());
  const uint64_t bytes = *parsedBytes;

  auto runtime = Runtime::create();
  if (!runtime) return fail(program, runtime.status().message());
  Runtime &rt = **runtime;
  auto npu = selectNpu(rt, command);
  if (!npu) return fail(program, npu.status().message());
  std::cout << describeNpu(*npu) << "\n";

  auto copy = loadKernel(rt, *npu, {"copy", "copy", "copy.packets", bytes / kCopyPacketBytes});
  if (!copy) return fail(program, copy.status().message());
  Placement shared = Placement::Shared(*npu);
  auto a = rt.allocate(bytes, shared), c = rt.allocate(bytes, shared);
  for (auto *buffer : {&a, &c})
    if (!*buffer) return fail(program, buffer->status().message());

  Graph graph(rt);
  for (Status recorded : {graph.fill(a->view(), static_cast<uint8_t>(kPattern)), graph.npu((*copy)->kernel, {a->view(), c->view()})})
    if (!recorded) return fail(program, recorded.message());
  auto executable = rt.prepare(graph);
  if (!executable) return fail(program, executable.status().message());

  Statistics before = rt.statistics();
  std::vector<double> microseconds;
  microseconds.reserve(kTimedRuns);
  for (int run = 0; run < kWarmups + kTimedRuns; ++run) {
    auto start = std::chrono::steady_clock::now();
    auto completion = executable->submit();
    if (!completion) return fail(program, completion.status().message());
    if (Status done = completion->wait(); !done) return fail(program, done.message());
    std::chrono::duration<double, std::micro> elapsed = std::chrono::steady_clock::now() - start;
    if (run >= kWarmups) microseconds.push_back(elapsed.count());
  }
  if (Status replay = checkNoReplayAllocations(before, rt.statistics()); !replay) return fail(program, replay.message());
  {
    auto map = c->mapRead();
    if (!map) return fail(program, map.status().message());
    auto data = map->bytes();
    if (!std::all_of(data.begin(), data.end(), [](std::byte b) { return b == kPattern; }))
      return fail(program, "incorrect benchmark output");
  }
  double p50 = nearestRank(microseconds, 50), p95 = nearestRank(microseconds, 95);
  std::printf("bytes=%llu p50_us=%.1f p95_us=%.1f\n", static_cast<unsigned long long>(bytes), p50, p95);
  return 0;
}
}  // namespace

int main(int argc, char **argv) {
  auto command = parseCommandLine(argc, argv);
  if (!command) return fail("shared_bench", command.status().message());
  return run(*command);
}
