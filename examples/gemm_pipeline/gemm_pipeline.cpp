// gemm_pipeline [<gemm.loom> <symbol> M K N]: a GPU prologue, an NPU GEMM and a GPU epilogue in
// one prepared request graph over Shared storage, two independent requests.
//
// Per request: fill a <- 0; GPU axpy_bf16 (a = a + 1.0 * x, so a = x); NPU GEMM (c = a x w); GPU
// add_f32 (c = c + 1.0). The GPU kernels are Loom (examples/kernels/elementwise.loom, built for
// gfx1151); the NPU GEMM is the bundled 8x8 BF16 GEMM (examples/kernels/batched_gemm.loom,
// gemm.batch=1: bfp16ebs8 operands, MMA) or, given arguments, the user's source compiled with
// gemm.m, gemm.k and gemm.n. Four correctness passes with changed inputs, both requests in
// flight at once, each checked against a CPU reference of the whole pipeline; then 5 warm-up
// pairs, 50 single-request latencies (nearest-rank p50/p95) and 50 pipelined pairs. Replay must
// allocate, import and copy nothing.
#include "../common/Bf16Gemm.h"
#include "../common/Example.h"

#include <array>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <tuple>
#include <utility>

using namespace hrx;
using namespace hrx::runtime;
using namespace hrx::examples;

namespace {
constexpr char kUsage[] = "usage: gemm_pipeline <gemm.loom> <symbol> M K N";
constexpr int kRequests = 2, kPasses = 4, kWarmupPairs = 5, kLatencySamples = 50, kPipelinedPairs = 50;
constexpr float kScale = 1.0f, kDelta = 1.0f;  // the prologue's and the epilogue's scalar

struct Problem {
  uint64_t m = kTileDim, k = kTileDim, n = kTileDim;
  KernelRequest gemm{"batched_gemm.loom", "gemm", KernelTarget::Xdna, {{"gemm.batch", 1}}, {}};
};

StatusOr<Problem> parseProblem(const CommandLine &command) {
  Problem problem;
  const std::vector<std::string> &arguments = command.arguments;
  if (arguments.empty()) return problem;
  if (arguments.size() != 5) return Status(StatusCode::InvalidArgument, kUsage);
  uint64_t *extents[] = {&problem.m, &problem.k, &problem.n};
  for (size_t i = 0; i < 3; ++i) {
    auto value = parseInteger(arguments[2 + i]);
    if (!value) return value.status();
    *extents[i] = *value;
  }
  constexpr uint64_t kMaxElements = 1ull << 30;
  using Extent = std::pair<uint64_t, uint64_t>;
  for (auto [rows, columns] : {Extent{problem.m, problem.k}, Extent{problem.k, problem.n}, Extent{problem.m, problem.n}})
    if (rows == 0 || columns == 0 || rows > kMaxElements || columns > kMaxElements / rows)
      return Status(StatusCode::InvalidArgument, "invalid matrix extent");
  problem.gemm = {std::filesystem::absolute(arguments[0]).string(), arguments[1], KernelTarget::Xdna,
                  {{"gemm.m", problem.m}, {"gemm.k", problem.k}, {"gemm.n", problem.n}}, {}};
  return problem;
}

// Pass p's inputs: x[i] = ((3i + p) % 7) - 3 (M x K, row-major) and w[i] = ((4i + p) % 7) - 3
// (K x N), as BF16.
float input(uint64_t index, uint64_t multiplier, int pass) {
  return static_cast<float>(static_cast<int>((index * multiplier + static_cast<uint64_t>(pass)) % 7) - 3);
}

// The scalar arguments of an elementwise kernel: (n: index, scalar: f32), packed.
StatusOr<std::vector<std::byte>> elementwiseConstants(const Kernel &kernel, uint64_t count, float scalar) {
  std::vector<std::byte> constants(sizeof count + sizeof scalar);
  if (kernel.constantBytes() != constants.size())
    return Status(StatusCode::FailedPrecondition, "kernel '" + kernel.name() + "' takes " +
                                                      std::to_string(kernel.constantBytes()) +
                                                      " constant bytes; expected (index, f32), 12 bytes");
  std::memcpy(constants.data(), &count, sizeof count);
  std::memcpy(constants.data() + sizeof count, &scalar, sizeof scalar);
  return constants;
}

struct Request {
  Buffer a, c;
  Executable executable;
};

class Pipeline {
public:
  Pipeline(const Problem &problem, Session &session) : problem_(problem), session_(session), rt_(*session.runtime) {}
  Status setUp();
  // Writes pass p's x and w, computes the reference and clears the outputs.
  Status initialise(int pass);
  // Overwrites both requests' c with 0xff, so an output no replay wrote cannot pass.
  Status clearOutputs();
  Status validate(int request) const;
  Request &request(int index) { return requests_[index]; }

private:
  const Problem &problem_;
  Session &session_;
  Runtime &rt_;
  std::unique_ptr<LoadedKernel> prologue_, gemm_, epilogue_;
  Buffer x_, w_;
  std::array<Request, kRequests> requests_;
  std::vector<float> expected_;  // M x N
};

Status Pipeline::setUp() {
  uint64_t lhs = problem_.m * problem_.k, rhs = problem_.k * problem_.n, out = problem_.m * problem_.n;
  auto prologue = loadKernel(session_, {"elementwise.loom", "axpy_bf16", KernelTarget::Gfx1151, {}, {lhs}});
  if (!prologue) return prologue.status();
  prologue_ = std::move(*prologue);
  auto gemm = loadKernel(session_, problem_.gemm);
  if (!gemm) return gemm.status();
  gemm_ = std::move(*gemm);
  auto epilogue = loadKernel(session_, {"elementwise.loom", "add_f32", KernelTarget::Gfx1151, {}, {out}});
  if (!epilogue) return epilogue.status();
  epilogue_ = std::move(*epilogue);
  auto prologueConstants = elementwiseConstants(*prologue_->kernel, lhs, kScale);
  if (!prologueConstants) return prologueConstants.status();
  auto epilogueConstants = elementwiseConstants(*epilogue_->kernel, out, kDelta);
  if (!epilogueConstants) return epilogueConstants.status();

  Placement shared = Placement::Shared(session_.npu);
  auto allocate = [&](Buffer &buffer, uint64_t bytes) -> Status {
    auto allocated = rt_.allocate(bytes, shared);
    if (!allocated) return allocated.status();
    buffer = std::move(*allocated);
    return Status();
  };
  if (Status s = firstError({allocate(x_, lhs * 2), allocate(w_, rhs * 2)}); !s) return s;
  for (Request &request : requests_) {
    if (Status s = firstError({allocate(request.a, lhs * 2), allocate(request.c, out * 4)}); !s) return s;
    Graph graph(rt_);
    if (Status recorded = firstError({graph.fill(request.a.view(), 0),
                                      graph.gpu(prologue_->kernel, {request.a.view(), x_.view()}, *prologueConstants),
                                      graph.npu(gemm_->kernel, {request.a.view(), w_.view(), request.c.view()}),
                                      graph.gpu(epilogue_->kernel, {request.c.view()}, *epilogueConstants)});
        !recorded)
      return recorded;
    auto executable = rt_.prepare(graph);
    if (!executable) return executable.status();
    request.executable = std::move(*executable);
  }
  expected_.resize(out);
  return Status();
}

Status Pipeline::initialise(int pass) {
  const uint64_t m = problem_.m, k = problem_.k, n = problem_.n;
  std::vector<float> x(m * k), w(k * n);
  using Operand = std::tuple<std::vector<float> *, Buffer *, uint64_t>;
  for (auto [values, buffer, multiplier] : {Operand{&x, &x_, 3}, Operand{&w, &w_, 4}}) {
    auto map = buffer->mapWrite();
    if (!map) return map.status();
    auto *bits = reinterpret_cast<uint16_t *>(map->mutableBytes().data());
    for (uint64_t i = 0; i < values->size(); ++i) {
      (*values)[i] = fromBf16(toBf16(input(i, multiplier, pass)));
      bits[i] = toBf16((*values)[i]);
    }
  }
  // The prologue makes a = 0 + 1.0 * x. Values in -3..3 are exact in BF16 and bfp16ebs8, and the
  // sums of their products exact in f32, so the reference is the plain product, plus the
  // epilogue's 1.0.
  for (uint64_t r = 0; r < m; ++r)
    for (uint64_t col = 0; col < n; ++col) {
      float sum = 0.0f;
      for (uint64_t i = 0; i < k; ++i) sum += (0.0f + kScale * x[r * k + i]) * w[i * n + col];
      expected_[r * n + col] = sum + kDelta;
    }
  return clearOutputs();
}

Status Pipeline::clearOutputs() {
  for (const Request &request : requests_)
    if (Status cleared = fillFromHost(request.c, std::byte{0xff}); !cleared) return cleared;
  return Status();
}

Status Pipeline::validate(int index) const {
  auto map = requests_[index].c.mapRead();
  if (!map) return map.status();
  const auto *c = reinterpret_cast<const float *>(map->bytes().data());
  for (uint64_t i = 0; i < expected_.size(); ++i)
    if (std::bit_cast<uint32_t>(c[i]) != std::bit_cast<uint32_t>(expected_[i]))
      return Status(StatusCode::Internal, "mismatch in request " + std::to_string(index) + " at (" +
                                              std::to_string(i / problem_.n) + ", " + std::to_string(i % problem_.n) +
                                              "): got " + std::to_string(c[i]) + ", expected " +
                                              std::to_string(expected_[i]));
  return Status();
}

int run(const CommandLine &command) {
  const std::string &program = command.program;
  auto problem = parseProblem(command);
  if (!problem) return fail(program, problem.status().message());
  auto session = openSession(command, Engines::GpuAndNpu);
  if (!session) return fail(program, session.status().message());
  Runtime &rt = *session->runtime;
  Pipeline pipeline(*problem, *session);
  if (Status s = pipeline.setUp(); !s) return fail(program, s.message());

  Statistics before = rt.statistics();
  // Correctness: both requests in flight at once, inputs changed every pass.
  for (int pass = 0; pass < kPasses; ++pass) {
    if (Status s = pipeline.initialise(pass); !s) return fail(program, s.message());
    std::array<Completion, kRequests> completions;
    for (int i = 0; i < kRequests; ++i) {
      auto completion = pipeline.request(i).executable.submit();
      if (!completion) return fail(program, completion.status().message());
      completions[i] = std::move(*completion);
    }
    for (int i = 0; i < kRequests; ++i) {
      if (Status done = completions[i].wait(); !done) return fail(program, done.message());
      if (Status checked = pipeline.validate(i); !checked) return fail(program, checked.message());
    }
  }

  using Clock = std::chrono::steady_clock;
  auto pipelinedPair = [&]() -> Status {
    auto first = pipeline.request(0).executable.submit();
    if (!first) return first.status();
    auto second = pipeline.request(1).executable.submit();
    if (!second) return second.status();
    for (Completion *completion : {&*first, &*second})
      if (Status done = completion->wait(); !done) return done;
    return Status();
  };
  if (Status s = pipeline.clearOutputs(); !s) return fail(program, s.message());
  for (int i = 0; i < kWarmupPairs; ++i)
    if (Status s = pipelinedPair(); !s) return fail(program, s.message());
  std::vector<double> latencyMs;
  latencyMs.reserve(kLatencySamples);
  for (int i = 0; i < kLatencySamples; ++i) {
    auto start = Clock::now();
    if (Status s = pipeline.request(0).executable.submitAndWait(); !s) return fail(program, s.message());
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
    if (Status checked = pipeline.validate(i); !checked) return fail(program, checked.message());

  double p50 = nearestRank(latencyMs, 50), p95 = nearestRank(latencyMs, 95);
  std::printf("M=%llu K=%llu N=%llu p50_ms=%.3f p95_ms=%.3f pipelined_requests_s=%.2f\n",
              static_cast<unsigned long long>(problem->m), static_cast<unsigned long long>(problem->k),
              static_cast<unsigned long long>(problem->n), p50, p95, 2.0 * kPipelinedPairs / pipelinedSeconds);
  std::cout << after.toJson() << "\n";
  return 0;
}
}  // namespace

int main(int argc, char **argv) {
  auto command = parseCommandLine(argc, argv);
  if (!command) return fail("gemm_pipeline", command.status().message());
  return run(*command);
}
