// shared_bench [bytes=1048576]: latency of one prepared NPU copy over Shared storage. The graph
// fills `a` with 0x35 and copies a -> c on the NPU; 5 warm-up runs, then 100 timed
// submit().wait() runs, then c is checked. Percentiles are nearest-rank.
#include "../common/Example.h"

#include <chrono>
#include <cstdio>

using namespace hrx;
using namespace hrx::runtime;
using namespace hrx::examples;

namespace {
constexpr std::byte kPattern{0x35};
constexpr int kWarmups = 5;
constexpr int kTimedRuns = 100;

int run(const CommandLine &command) {
  const std::string &program = command.program;
  auto setup = setUpSharedCopy(command, "usage: shared_bench [bytes=1048576] [--device=host]", 2);
  if (!setup) return fail(program, setup.status().message());
  Runtime &rt = *setup->session.runtime;
  const Buffer &a = setup->buffers[0], &c = setup->buffers[1];

  Graph graph(rt);
  if (Status recorded = firstError({graph.fill(a.view(), static_cast<uint8_t>(kPattern)),
                                    graph.npu(setup->copy->kernel, {a.view(), c.view()})});
      !recorded)
    return fail(program, recorded.message());
  auto executable = rt.prepare(graph);
  if (!executable) return fail(program, executable.status().message());

  Statistics before = rt.statistics();
  std::vector<double> microseconds;
  microseconds.reserve(kTimedRuns);
  for (int run = 0; run < kWarmups + kTimedRuns; ++run) {
    auto start = std::chrono::steady_clock::now();
    if (Status done = executable->submitAndWait(); !done) return fail(program, done.message());
    std::chrono::duration<double, std::micro> elapsed = std::chrono::steady_clock::now() - start;
    if (run >= kWarmups) microseconds.push_back(elapsed.count());
  }
  if (Status replay = checkNoReplayAllocations(before, rt.statistics()); !replay) return fail(program, replay.message());
  auto correct = holdsOnly(c, kPattern);
  if (!correct) return fail(program, correct.status().message());
  if (!*correct) return fail(program, "incorrect benchmark output");
  double p50 = nearestRank(microseconds, 50), p95 = nearestRank(microseconds, 95);
  std::printf("bytes=%llu p50_us=%.1f p95_us=%.1f\n", static_cast<unsigned long long>(setup->bytes), p50, p95);
  return 0;
}
}  // namespace

int main(int argc, char **argv) {
  auto command = parseCommandLine(argc, argv);
  if (!command) return fail("shared_bench", command.status().message());
  return run(*command);
}
