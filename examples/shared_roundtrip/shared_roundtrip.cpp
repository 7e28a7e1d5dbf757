// shared_roundtrip [bytes=1048576]: one Shared allocation chain GPU -> NPU -> GPU. The graph
// fills `a` with 0x5a, the NPU copy kernel moves a -> c in 4096-byte packets and a graph copy
// moves c -> result. Ten executions, each checked byte by byte on the host after the outputs
// were cleared, so a stale result cannot pass.
#include "../common/Example.h"

#include <algorithm>
#include <iostream>

using namespace hrx;
using namespace hrx::runtime;
using namespace hrx::examples;

namespace {
constexpr std::byte kPattern{0x5a};
constexpr int kExecutions = 10;

Status clear(const Buffer &buffer) {
  auto map = buffer.mapWrite();
  if (!map) return map.status();
  std::fill(map->mutableBytes().begin(), map->mutableBytes().end(), std::byte{0});
  return Status();
}

int run(const CommandLine &command) {
  const std::string &program = command.program;
  auto parsedBytes = parseCopyBytes(command, "usage: shared_roundtrip [bytes=1048576] [--device=host]");
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
  auto a = rt.allocate(bytes, shared), c = rt.allocate(bytes, shared), result = rt.allocate(bytes, shared);
  for (auto *buffer : {&a, &c, &result})
    if (!*buffer) return fail(program, buffer->status().message());

  Graph graph(rt);
  for (Status recorded : {graph.fill(a->view(), static_cast<uint8_t>(kPattern)), graph.npu((*copy)->kernel, {a->view(), c->view()}),
                          graph.copy(result->view(), c->view())})
    if (!recorded) return fail(program, recorded.message());
  auto executable = rt.prepare(graph);
  if (!executable) return fail(program, executable.status().message());

  Statistics before = rt.statistics();
  for (int execution = 0; execution < kExecutions; ++execution) {
    for (const Buffer *buffer : {&*c, &*result})
      if (Status cleared = clear(*buffer); !cleared) return fail(program, cleared.message());
    auto completion = executable->submit();
    if (!completion) return fail(program, completion.status().message());
    if (Status done = completion->wait(); !done) return fail(program, done.message());
    auto map = result->mapRead();
    if (!map) return fail(program, map.status().message());
    auto data = map->bytes();
    if (!std::all_of(data.begin(), data.end(), [](std::byte b) { return b == kPattern; }))
      return fail(program, "GPU/NPU roundtrip mismatch");
  }
  if (Status replay = checkNoReplayAllocations(before, rt.statistics()); !replay) return fail(program, replay.message());
  std::cout << "GPU -> NPU -> GPU: all " << bytes << " bytes correct, " << kExecutions << " executions, "
            << executable->regions() << " prepared regions\n";
  return 0;
}
}  // namespace

int main(int argc, char **argv) {
  auto command = parseCommandLine(argc, argv);
  if (!command) return fail("shared_roundtrip", command.status().message());
  return run(*command);
}
