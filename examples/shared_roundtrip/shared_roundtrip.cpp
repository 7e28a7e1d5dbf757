// shared_roundtrip [bytes=1048576]: one Shared allocation chain GPU -> NPU -> GPU. The graph
// fills `a` with 0x5a, the NPU copy kernel moves a -> c in 4096-byte packets and a graph copy
// moves c -> result. Ten executions, each checked byte by byte on the host after the outputs
// were cleared, so a stale result cannot pass.
#include "../common/Example.h"

#include <iostream>

using namespace hrx;
using namespace hrx::runtime;
using namespace hrx::examples;

namespace {
constexpr std::byte kPattern{0x5a};
constexpr int kExecutions = 10;

int run(const CommandLine &command) {
  const std::string &program = command.program;
  auto setup = setUpSharedCopy(command, "usage: shared_roundtrip [bytes=1048576] [--device=host]", 3);
  if (!setup) return fail(program, setup.status().message());
  Runtime &rt = *setup->session.runtime;
  const Buffer &a = setup->buffers[0], &c = setup->buffers[1], &result = setup->buffers[2];

  Graph graph(rt);
  if (Status recorded = firstError({graph.fill(a.view(), static_cast<uint8_t>(kPattern)),
                                    graph.npu(setup->copy->kernel, {a.view(), c.view()}), graph.copy(result.view(), c.view())});
      !recorded)
    return fail(program, recorded.message());
  auto executable = rt.prepare(graph);
  if (!executable) return fail(program, executable.status().message());

  Statistics before = rt.statistics();
  for (int execution = 0; execution < kExecutions; ++execution) {
    for (const Buffer *buffer : {&c, &result})
      if (Status cleared = fillFromHost(*buffer, std::byte{0}); !cleared) return fail(program, cleared.message());
    if (Status done = executable->submitAndWait(); !done) return fail(program, done.message());
    auto correct = holdsOnly(result, kPattern);
    if (!correct) return fail(program, correct.status().message());
    if (!*correct) return fail(program, "GPU/NPU roundtrip mismatch");
  }
  if (Status replay = checkNoReplayAllocations(before, rt.statistics()); !replay) return fail(program, replay.message());
  std::cout << "GPU -> NPU -> GPU: all " << setup->bytes << " bytes correct, " << kExecutions << " executions, "
            << executable->regions() << " prepared regions\n";
  return 0;
}
}  // namespace

int main(int argc, char **argv) {
  auto command = parseCommandLine(argc, argv);
  if (!command) return fail("shared_roundtrip", command.status().message());
  return run(*command);
}
