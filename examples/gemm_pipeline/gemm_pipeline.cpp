// gemm_pipeline: the bundled 8x8 BF16 GEMM (examples/kernels/batched_gemm.loom, gemm.batch=1:
// operands encoded to bfp16ebs8 and multiplied by the MMA unit) as two independent prepared
// request graphs over Shared storage. Four correctness passes with changed inputs, both requests
// in flight at once, each checked against a CPU model of the bfp16ebs8 encoding and the MMA;
// then 5 warm-up pairs, 50 single-request latencies (nearest-rank p50/p95) and 50 pipelined
// pairs. Replay must allocate, import and copy nothing.
//
// The reference example also runs a GPU prologue and epilogue around the NPU GEMM; those kernels
// take scalar launch arguments, which this runtime does not pass yet, so this version runs the
// NPU part only (docs/EXAMPLES.md).
#include "../common/Example.h"

#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>

using namespace hrx;
using namespace hrx::runtime;
using namespace hrx::examples;

namespace {
constexpr unsigned kDim = 8;  // M = K = N
constexpr unsigned kElements = kDim * kDim;
constexpr unsigned kBlock = 8;  // bfp16ebs8: 8 elements share one exponent
constexpr int kRequests = 2, kPasses = 4, kWarmupPairs = 5, kLatencySamples = 50, kPipelinedPairs = 50;

using Matrix = std::array<float, kElements>;

// BF16 by truncation: the top 16 bits of the f32.
uint16_t toBf16(float value) { return static_cast<uint16_t>(std::bit_cast<uint32_t>(value) >> 16); }
float fromBf16(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

// The value a BF16 element has after bfp16ebs8 encoding: subnormals flushed to zero, each block
// of 8 consecutive elements scaled to the block's largest exponent with a signed 8-bit mantissa
// (1 sign, 7 magnitude bits; round to nearest even). Small integers are represented exactly.
Matrix encodeBfp16(const Matrix &values) {
  Matrix encoded{};
  for (unsigned block = 0; block < kElements; block += kBlock) {
    int maxExponent = INT32_MIN;
    for (unsigned i = block; i < block + kBlock; ++i)
      if (std::isnormal(values[i])) maxExponent = std::max(maxExponent, std::ilogb(values[i]));
    if (maxExponent == INT32_MIN) continue;  // all zero or subnormal
    float step = std::ldexp(1.0f, maxExponent - 6);
    for (unsigned i = block; i < block + kBlock; ++i) {
      if (!std::isnormal(values[i])) continue;
      float mantissa = std::clamp(std::nearbyint(values[i] / step), -127.0f, 127.0f);
      encoded[i] = mantissa * step;
    }
  }
  return encoded;
}

// C = A x B from a zero accumulator, k ascending, in f32.
Matrix multiply(const Matrix &a, const Matrix &b) {
  Matrix c{};
  for (unsigned r = 0; r < kDim; ++r)
    for (unsigned col = 0; col < kDim; ++col) {
      float sum = 0.0f;
      for (unsigned k = 0; k < kDim; ++k) sum += a[r * kDim + k] * b[k * kDim + col];
      c[r * kDim + col] = sum;
    }
  return c;
}

// Pass inputs: a[i] = ((3i + request + pass) % 7) - 3, b[i] = ((4i + request + pass) % 7) - 3,
// as BF16 (exact: values in -3..3).
Matrix operand(unsigned multiplier, int request, int pass) {
  Matrix m;
  for (unsigned i = 0; i < kElements; ++i)
    m[i] = fromBf16(toBf16(static_cast<float>(static_cast<int>((i * multiplier + request + pass) % 7) - 3)));
  return m;
}

struct Request {
  Buffer a, b, c;
  Executable executable;
  Matrix expected{};
};

Status writeOperand(const Buffer &buffer, const Matrix &values) {
  auto map = buffer.mapWrite();
  if (!map) return map.status();
  auto *out = reinterpret_cast<uint16_t *>(map->mutableBytes().data());
  for (unsigned i = 0; i < kElements; ++i) out[i] = toBf16(values[i]);
  return Status();
}

// Loads the pass's inputs, computes the oracle and clears the output (so old output cannot pass).
Status prepareInputs(Request &request, int index, int pass) {
  Matrix a = operand(3, index, pass), b = operand(4, index, pass);
  request.expected = multiply(encodeBfp16(a), encodeBfp16(b));
  for (Status s : {writeOperand(request.a, a), writeOperand(request.b, b)})
    if (!s) return s;
  auto map = request.c.mapWrite();
  if (!map) return map.status();
  std::memset(map->mutableBytes().data(), 0xff, map->mutableBytes().size());
  return Status();
}

Status validate(const Request &request, int index) {
  auto map = request.c.mapRead();
  if (!map) return map.status();
  const auto *c = reinterpret_cast<const float *>(map->bytes().data());
  for (unsigned i = 0; i < kElements; ++i)
    if (std::bit_cast<uint32_t>(c[i]) != std::bit_cast<uint32_t>(request.expected[i]))
      return Status(StatusCode::Internal, "NPU mismatch in request " + std::to_string(index) + " at (" +
                                              std::to_string(i / kDim) + ", " + std::to_string(i % kDim) + "): got " +
                                              std::to_string(c[i]) + ", expected " + std::to_string(request.expected[i]));
  return Status();
}

Status submitAndWait(Executable &executable) {
  auto completion = executable.submit();
  if (!completion) return completion.status();
  return completion->wait();
}

int run(const CommandLine &command) {
  const std::string &program = command.program;
  if (command.arguments.size() == 5)
    return fail(program, "compiling a user GEMM source is not supported yet: this build runs the bundled 8x8 BF16 GEMM only "
                         "(the reference's GPU prologue and epilogue need scalar launch arguments; see docs/EXAMPLES.md)");
  if (!command.arguments.empty()) return fail(program, "usage: gemm_pipeline <gemm.loom> <symbol> M K N");

  auto runtime = Runtime::create();
  if (!runtime) return fail(program, runtime.status().message());
  Runtime &rt = **runtime;
  auto npu = selectNpu(rt, command);
  if (!npu) return fail(program, npu.status().message());
  std::cout << describeNpu(*npu) << "\n";
  auto gemm = loadKernel(rt, *npu, {"batched_gemm", "gemm", "gemm.batch", 1});
  if (!gemm) return fail(program, gemm.status().message());

  std::array<Request, kRequests> requests;
  Placement shared = Placement::Shared(*npu);
  for (Request &request : requests) {
    auto a = rt.allocate(kElements * 2, shared), b = rt.allocate(kElements * 2, shared), c = rt.allocate(kElements * 4, shared);
    for (auto *buffer : {&a, &b, &c})
      if (!*buffer) return fail(program, buffer->status().message());
    request.a = *a;
    request.b = *b;
    request.c = *c;
    Graph graph(rt);
    if (Status recorded = graph.npu((*gemm)->kernel, {a->view(), b->view(), c->view()}); !recorded)
      return fail(program, recorded.message());
    auto executable = rt.prepare(graph);
    if (!executable) return fail(program, executable.status().message());
    request.executable = std::move(*executable);
  }

  Statistics before = rt.statistics();
  // Correctness: both requests in flight at once, inputs changed every pass.
  for (int pass = 0; pass < kPasses; ++pass) {
    std::array<Completion, kRequests> completions;
    for (int i = 0; i < kRequests; ++i) {
      if (Status s = prepareInputs(requests[i], i, pass); !s) return fail(program, s.message());
      auto completion = requests[i].executable.submit();
      if (!completion) return fail(program, completion.status().message());
      completions[i] = std::move(*completion);
    }
    for (int i = 0; i < kRequests; ++i) {
      if (Status done = completions[i].wait(); !done) return fail(program, done.message());
      if (Status checked = validate(requests[i], i); !checked) return fail(program, checked.message());
    }
  }

  using Clock = std::chrono::steady_clock;
  auto pipelinedPair = [&]() -> Status {
    auto first = requests[0].executable.submit();
    if (!first) return first.status();
    auto second = requests[1].executable.submit();
    if (!second) return second.status();
    for (Completion *completion : {&*first, &*second})
      if (Status done = completion->wait(); !done) return done;
    return Status();
  };
  for (int i = 0; i < kWarmupPairs; ++i)
    if (Status s = pipelinedPair(); !s) return fail(program, s.message());
  std::vector<double> latencyMs;
  latencyMs.reserve(kLatencySamples);
  for (int i = 0; i < kLatencySamples; ++i) {
    auto start = Clock::now();
    if (Status s = submitAndWait(requests[0].executable); !s) return fail(program, s.message());
    latencyMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  auto pipelinedStart = Clock::now();
  for (int i = 0; i < kPipelinedPairs; ++i)
    if (Status s = pipelinedPair(); !s) return fail(program, s.message());
  double pipelinedSeconds = std::chrono::duration<double>(Clock::now() - pipelinedStart).count();

  Statistics after = rt.statistics();
  if (Status replay = checkNoReplayAllocations(before, after); !replay) return fail(program, replay.message());
  if (after.copiedBytes != 0) return fail(program, "the shared pipeline copied " + std::to_string(after.copiedBytes) + " bytes");
  // The timed replays reran the last pass's inputs: their results must still match.
  for (int i = 0; i < kRequests; ++i)
    if (Status checked = validate(requests[i], i); !checked) return fail(program, checked.message());

  double p50 = nearestRank(latencyMs, 50), p95 = nearestRank(latencyMs, 95);
  std::printf("M=%u K=%u N=%u p50_ms=%.3f p95_ms=%.3f pipelined_requests_s=%.2f\n", kDim, kDim, kDim, p50, p95,
              2.0 * kPipelinedPairs / pipelinedSeconds);
  std::cout << after.toJson() << "\n";
  return 0;
}
}  // namespace

int main(int argc, char **argv) {
  auto command = parseCommandLine(argc, argv);
  if (!command) return fail("gemm_pipeline", command.status().message());
  return run(*command);
}
