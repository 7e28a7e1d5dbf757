// gpu_npu_parallel [gpu-elements=16777216] [npu-matrices=1024] [samples=21] [trace.json]:
// GPU and NPU work that share no buffers, run one after the other and in one graph.
//
// The GPU runs the HIP-style C++ kernel `affine` (examples/kernels/affine.cpp: output[i] =
// input[i]*3 + 7 over i32) between GpuLocal buffers, fed and drained by prepared upload and
// download graphs through HostVisible staging. The NPU runs the batched 8x8 BF16 GEMM
// (examples/kernels/batched_gemm.loom, gemm.batch = npu-matrices) over NpuLocal buffers. Three
// correctness passes with changed inputs check both against CPU references, then `samples`
// paired timings alternate sequential (gpu_only, npu_only) and parallel (one graph with both),
// replay must allocate and import nothing, and a four-replay trace measures how long the two
// lanes ran at the same time as the host observed it.
#include "../common/Bf16Gemm.h"
#include "../common/Example.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <utility>

using namespace hrx;
using namespace hrx::runtime;
using namespace hrx::examples;

namespace {
constexpr char kUsage[] =
    "usage: gpu_npu_parallel [gpu-elements=16777216] [npu-matrices=1024] [samples=21] [trace.json] [--device=host]";
constexpr uint64_t kWorkgroupSize = 256;
constexpr int kPasses = 3;
constexpr int kTraceReplays = 4;
constexpr size_t kTraceCapacity = 32;

struct Options {
  uint64_t elements = 16777216;
  uint64_t matrices = 1024;
  uint64_t samples = 21;
  std::string tracePath;  // empty: no trace file
  bool help = false;
};

StatusOr<Options> parseOptions(const CommandLine &command) {
  Options options;
  const std::vector<std::string> &arguments = command.arguments;
  if (std::find(arguments.begin(), arguments.end(), "--help") != arguments.end()) {
    options.help = true;
    return options;
  }
  if (arguments.size() > 4) return Status(StatusCode::InvalidArgument, kUsage);
  uint64_t *numbers[] = {&options.elements, &options.matrices, &options.samples};
  for (size_t i = 0; i < std::min<size_t>(arguments.size(), 3); ++i) {
    auto value = parseInteger(arguments[i]);
    if (!value) return value.status();
    *numbers[i] = *value;
  }
  if (arguments.size() == 4) options.tracePath = arguments[3];
  if (options.elements < kWorkgroupSize || options.elements > (64u << 20) || options.elements % kWorkgroupSize ||
      options.matrices < 1 || options.matrices > 16384 || options.samples < 3 || options.samples > 1000)
    return Status(StatusCode::InvalidArgument, "gpu-elements must be a multiple of 256 in 256..=67108864, npu-matrices "
                                               "must be in 1..=16384 and samples in 3..=1000");
  return options;
}

// Pass p's GPU input: ((index + 17p) % 2048) - 1024.
int32_t gpuInput(uint64_t index, int pass) {
  return static_cast<int32_t>((index + static_cast<uint64_t>(pass) * 17) % 2048) - 1024;
}

// Pass p's matrix element `index` (row-major within its 8x8 matrix) of operand 0 (lhs) or 1
// (rhs): ((index*(operand+3) + matrix + p) % 7) - 3, as BF16 (exact: values in -3..3).
float matrixInput(unsigned index, unsigned operand, uint64_t matrix, int pass) {
  uint64_t value = (index * (operand + 3) + matrix + static_cast<uint64_t>(pass)) % 7;
  return static_cast<float>(static_cast<int>(value) - 3);
}

class Experiment {
public:
  Experiment(const Options &options, Session &session) : options_(options), session_(session), rt_(*session.runtime) {}

  Status setUp();
  // Writes pass p's inputs from the host and computes the NPU reference.
  Status initialise(int pass);
  // Runs one pass sequentially (upload, gpu_only, npu_only, download) or in parallel (upload,
  // parallel, download) and checks both outputs.
  Status runPass(int pass, bool parallel);
  // Paired samples in alternating order; the medians, in milliseconds.
  Status measure(double &sequentialMs, double &parallelMs);
  // After timing: the outputs the timed replays left must still be pass `pass`'s.
  Status revalidate(int pass);
  // Four traced parallel replays; the host-observed GPU/NPU overlap in microseconds.
  Status trace(double &overlapUs);

private:
  Status validate(int pass);

  const Options &options_;
  Session &session_;
  Runtime &rt_;
  std::unique_ptr<LoadedKernel> affine_, gemm_;
  Buffer input_, output_, hostInput_, hostOutput_, a_, b_, c_;
  Executable upload_, download_, gpuOnly_, npuOnly_, parallel_, clearOutputs_;
  std::vector<Tile> expected_;  // per matrix
};

Status Experiment::setUp() {
  auto affine = loadKernel(session_, {"affine.cpp", "affine", KernelTarget::Gfx1151, {{"ELEMENTS", options_.elements}}, {}});
  if (!affine)
    return Status(affine.status().code(), "the GPU kernel (examples/kernels/affine.cpp) is not available: " +
                                              affine.status().message());
  affine_ = std::move(*affine);
  auto gemm = loadKernel(session_, {"batched_gemm.loom", "gemm", KernelTarget::Xdna, {{"gemm.batch", options_.matrices}}, {}});
  if (!gemm) return gemm.status();
  gemm_ = std::move(*gemm);

  uint64_t gpuBytes = options_.elements * 4, lhsBytes = options_.matrices * kTileElements * 2,
           outBytes = options_.matrices * kTileElements * 4;
  struct Request {
    Buffer *buffer;
    uint64_t bytes;
    Placement placement;
  };
  Placement npuLocal = Placement::NpuLocal(session_.npu);
  for (const Request &request : {Request{&input_, gpuBytes, Placement::GpuLocal()},
                                 Request{&output_, gpuBytes, Placement::GpuLocal()},
                                 Request{&hostInput_, gpuBytes, Placement::HostVisible()},
                                 Request{&hostOutput_, gpuBytes, Placement::HostVisible()},
                                 Request{&a_, lhsBytes, npuLocal}, Request{&b_, lhsBytes, npuLocal},
                                 Request{&c_, outBytes, npuLocal}}) {
    auto buffer = rt_.allocate(request.bytes, request.placement);
    if (!buffer) return buffer.status();
    *request.buffer = std::move(*buffer);
  }
  expected_.resize(options_.matrices);

  Graph upload(rt_), download(rt_), gpuOnly(rt_), npuOnly(rt_), parallel(rt_), clearOutputs(rt_);
  std::vector<BufferView> gpuViews = {input_.view(), output_.view()}, npuViews = {a_.view(), b_.view(), c_.view()};
  if (Status recorded = firstError({upload.copy(input_.view(), hostInput_.view()),
                                    download.copy(hostOutput_.view(), output_.view()),
                                    gpuOnly.gpu(affine_->kernel, gpuViews), npuOnly.npu(gemm_->kernel, npuViews),
                                    parallel.gpu(affine_->kernel, gpuViews), parallel.npu(gemm_->kernel, npuViews),
                                    clearOutputs.fill(output_.view(), 0xff), clearOutputs.fill(c_.view(), 0xff)});
      !recorded)
    return recorded;
  using GraphAndExecutable = std::pair<Graph *, Executable *>;
  for (auto [graph, executable] : std::initializer_list<GraphAndExecutable>{
           {&upload, &upload_}, {&download, &download_}, {&gpuOnly, &gpuOnly_}, {&npuOnly, &npuOnly_},
           {&parallel, &parallel_}, {&clearOutputs, &clearOutputs_}}) {
    auto prepared = rt_.prepare(*graph);
    if (!prepared) return prepared.status();
    *executable = std::move(*prepared);
  }
  return Status();
}

Status Experiment::initialise(int pass) {
  {
    auto map = hostInput_.mapWrite();
    if (!map) return map.status();
    auto *values = reinterpret_cast<int32_t *>(map->mutableBytes().data());
    for (uint64_t i = 0; i < options_.elements; ++i) values[i] = gpuInput(i, pass);
  }
  auto lhs = a_.mapWrite();
  if (!lhs) return lhs.status();
  auto rhs = b_.mapWrite();
  if (!rhs) return rhs.status();
  auto *lhsBits = reinterpret_cast<uint16_t *>(lhs->mutableBytes().data());
  auto *rhsBits = reinterpret_cast<uint16_t *>(rhs->mutableBytes().data());
  for (uint64_t m = 0; m < options_.matrices; ++m) {
    Tile left, right;
    for (unsigned i = 0; i < kTileElements; ++i) {
      left[i] = matrixInput(i, 0, m, pass);
      right[i] = matrixInput(i, 1, m, pass);
      lhsBits[m * kTileElements + i] = toBf16(left[i]);
      rhsBits[m * kTileElements + i] = toBf16(right[i]);
    }
    expected_[m] = gemmOracle(left, right);
  }
  return Status();
}

Status Experiment::validate(int pass) {
  {
    auto map = hostOutput_.mapRead();
    if (!map) return map.status();
    const auto *values = reinterpret_cast<const int32_t *>(map->bytes().data());
    for (uint64_t i = 0; i < options_.elements; ++i)
      if (values[i] != gpuInput(i, pass) * 3 + 7)
        return Status(StatusCode::Internal, "GPU mismatch at element " + std::to_string(i));
  }
  auto map = c_.mapRead();
  if (!map) return map.status();
  const auto *products = reinterpret_cast<const float *>(map->bytes().data());
  for (uint64_t m = 0; m < options_.matrices; ++m)
    for (unsigned i = 0; i < kTileElements; ++i)
      if (std::bit_cast<uint32_t>(products[m * kTileElements + i]) != std::bit_cast<uint32_t>(expected_[m][i]))
        return Status(StatusCode::Internal, "NPU mismatch at matrix " + std::to_string(m) + ", (" +
                                                std::to_string(i / kTileDim) + ", " + std::to_string(i % kTileDim) + ")");
  return Status();
}

Status Experiment::runPass(int pass, bool parallel) {
  if (Status s = initialise(pass); !s) return s;
  std::vector<Executable *> steps = parallel ? std::vector{&upload_, &parallel_, &download_}
                                             : std::vector{&upload_, &gpuOnly_, &npuOnly_, &download_};
  for (Executable *step : steps)
    if (Status done = step->submitAndWait(); !done) return done;
  return validate(pass);
}

Status Experiment::measure(double &sequentialMs, double &parallelMs) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> sequential, parallel;
  sequential.reserve(options_.samples);
  parallel.reserve(options_.samples);
  auto runSequential = [&]() -> Status {
    auto start = Clock::now();
    if (Status done = gpuOnly_.submitAndWait(); !done) return done;
    if (Status done = npuOnly_.submitAndWait(); !done) return done;
    sequential.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    return Status();
  };
  auto runParallel = [&]() -> Status {
    auto start = Clock::now();
    if (Status done = parallel_.submitAndWait(); !done) return done;
    parallel.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    return Status();
  };

  // Cleared first, so the checks afterwards see what the timed replays wrote.
  if (Status cleared = clearOutputs_.submitAndWait(); !cleared) return cleared;
  Statistics before = rt_.statistics();
  for (uint64_t sample = 0; sample < options_.samples; ++sample) {
    bool sequentialFirst = sample % 2 == 0;
    if (Status s = sequentialFirst ? runSequential() : runParallel(); !s) return s;
    if (Status s = sequentialFirst ? runParallel() : runSequential(); !s) return s;
  }
  if (Status replay = checkNoReplayAllocations(before, rt_.statistics()); !replay) return replay;
  sequentialMs = median(sequential);
  parallelMs = median(parallel);
  return Status();
}

Status Experiment::revalidate(int pass) {
  if (Status cleared = fillFromHost(hostOutput_, std::byte{0}); !cleared) return cleared;
  if (Status done = download_.submitAndWait(); !done) return done;
  return validate(pass);
}

Status Experiment::trace(double &overlapUs) {
  if (Status started = rt_.startTrace(kTraceCapacity); !started) return started;
  for (int replay = 0; replay < kTraceReplays; ++replay)
    if (Status done = parallel_.submitAndWait(); !done) {
      (void)rt_.finishTrace();
      return done;
    }
  std::optional<ExecutionTrace> trace = rt_.finishTrace();
  if (!trace) return Status(StatusCode::Internal, "missing execution trace");

  overlapUs = 0;
  for (const TraceEvent &gpu : trace->events) {
    if (gpu.lane != Lane::Compute) continue;
    for (const TraceEvent &npu : trace->events) {
      if (npu.lane != Lane::Npu) continue;
      uint64_t start = std::max(gpu.startUs, npu.startUs);
      uint64_t end = std::min(gpu.startUs + gpu.durationUs, npu.startUs + npu.durationUs);
      if (end > start) overlapUs += static_cast<double>(end - start);
    }
  }
  if (options_.tracePath.empty()) return Status();
  std::ofstream out(options_.tracePath, std::ios::binary | std::ios::trunc);
  out << trace->toJson();
  out.close();
  if (!out)
    return Status(StatusCode::Unavailable, "cannot write the trace to '" + options_.tracePath + "': " + std::strerror(errno));
  return Status();
}

int run(const CommandLine &command) {
  const std::string &program = command.program;
  auto options = parseOptions(command);
  if (!options) return fail(program, options.status().message());
  if (options->help) {
    std::cout << kUsage << "\n";
    return 0;
  }
  auto session = openSession(command, Engines::GpuAndNpu);
  if (!session) return fail(program, session.status().message());

  Experiment experiment(*options, *session);
  if (Status s = experiment.setUp(); !s) return fail(program, s.message());
  // Pass 2p runs sequentially and 2p+1 in parallel, each with fresh inputs, so an output left by
  // an earlier pass cannot match.
  for (int pass = 0; pass < kPasses; ++pass)
    for (bool parallel : {false, true})
      if (Status s = experiment.runPass(2 * pass + (parallel ? 1 : 0), parallel); !s) return fail(program, s.message());
  double sequentialMs = 0, parallelMs = 0, overlapUs = 0;
  if (Status s = experiment.measure(sequentialMs, parallelMs); !s) return fail(program, s.message());
  if (Status s = experiment.revalidate(2 * kPasses - 1); !s) return fail(program, s.message());
  if (Status s = experiment.trace(overlapUs); !s) return fail(program, s.message());

  std::printf("%llu GPU elements + %llu NPU matrices; %llu paired samples\n",
              static_cast<unsigned long long>(options->elements), static_cast<unsigned long long>(options->matrices),
              static_cast<unsigned long long>(options->samples));
  std::printf("sequential median: %.3f ms; parallel median: %.3f ms; speedup: %.2fx\n", sequentialMs, parallelMs,
              sequentialMs / parallelMs);
  std::printf("Both CPU references match exactly, including changed-input replays. No native allocations/imports "
              "during timed replay.\n");
  std::printf("GPU/NPU host-observed overlap across four replays: %.1f us (not device timestamps)\n", overlapUs);
  if (!options->tracePath.empty()) std::printf("Trace: %s\n", options->tracePath.c_str());
  return 0;
}
}  // namespace

int main(int argc, char **argv) {
  auto command = parseCommandLine(argc, argv);
  if (!command) return fail("gpu_npu_parallel", command.status().message());
  return run(*command);
}
