// Runtime benchmarks on the host reference device. Prints one JSON object per measurement on
// standard output; it is a program that prints figures, never a timed test.
//
//   hrx_runtime_bench overhead [--replays N] [--copy-mib M] [--runs R]
//   hrx_runtime_bench load <artifact> [--runs R]
//   hrx_runtime_bench kernel <artifact> [--workload N]... [--units U] [--runs R]
//                            [--baseline double-f32|affine-i32|gemm-bf16|copy]
//
// Every figure is a median over repeated runs; comparisons (runtime copy vs memcpy, SPMD kernel
// vs a plain loop and vs memcpy of the same bytes) alternate the sides within one run. CPU time (getrusage, every thread
// of the process) is reported next to wall time because the machine may be shared.
#include "hrx/format/Artifact.h"
#include "hrx/format/Xdna.h"
#include "hrx/runtime/HostDevice.h"
#include "hrx/runtime/Loader.h"
#include "hrx/runtime/NativeCore.h"
#include "hrx/runtime/Runtime.h"
#include "TypedGemm.h"

#include <nlohmann/json.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <iterator>
#include <span>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace hrx;
using namespace hrx::runtime;
using Clock = std::chrono::steady_clock;

// Every operator new of the process (any thread), so that "zero allocations per replay" counts
// heap allocations, not only runtime buffers.
static std::atomic<uint64_t> gHeapAllocations{0};
void *operator new(std::size_t size) {
  gHeapAllocations.fetch_add(1, std::memory_order_relaxed);
  if (void *p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }

namespace {

[[noreturn]] void die(const std::string &message) {
  std::cerr << "hrx_runtime_bench: error: " << message << "\n";
  std::exit(1);
}

template <typename T> T take(StatusOr<T> value, const char *what) {
  if (!value) die(std::string(what) + ": " + value.status().message());
  return std::move(value).value();
}

void check(const Status &status, const char *what) {
  if (!status) die(std::string(what) + ": " + status.message());
}

double seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// User+system CPU seconds of every thread of this process.
double cpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto toSeconds = [](timeval t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return toSeconds(usage.ru_utime) + toSeconds(usage.ru_stime);
}

double percentile(std::vector<double> samples, double p) {
  std::sort(samples.begin(), samples.end());
  size_t index = static_cast<size_t>(p * static_cast<double>(samples.size() - 1) + 0.5);
  return samples[std::min(index, samples.size() - 1)];
}
double median(const std::vector<double> &samples) { return percentile(samples, 0.5); }

// Wall and CPU seconds of one call.
struct Timing {
  double wall = 0, cpu = 0;
};
template <typename F> Timing timed(F &&body) {
  double cpu0 = cpuSeconds();
  auto t0 = Clock::now();
  body();
  auto t1 = Clock::now();
  return {seconds(t0, t1), cpuSeconds() - cpu0};
}

// submitAndWait: a one-region graph runs on this thread whenever its lane is idle, so no replay
// pays a hand-off to a lane thread and back.
void runToCompletion(Executable &executable) { check(executable.submitAndWait(), "submit and wait"); }

unsigned parseCount(const std::string &text, const char *flag) {
  try {
    size_t used = 0;
    unsigned long value = std::stoul(text, &used);
    if (used == text.size() && value > 0 && value <= 1u << 30) return static_cast<unsigned>(value);
  } catch (const std::exception &) {}
  die(std::string(flag) + " expects a positive count, got '" + text + "'");
}

// The baseline of a replay: one request handed to another thread and answered through a mutex
// and condition variables, the least a submission that hands its work to a lane thread costs.
class CondVarRoundTrip {
public:
  CondVarRoundTrip() : thread_([this] { serve(); }) {}
  ~CondVarRoundTrip() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    request_.notify_one();
    thread_.join();
  }
  void roundTrip() {
    std::unique_lock lock(mutex_);
    ++requested_;
    request_.notify_one();
    answer_.wait(lock, [&] { return answered_ == requested_; });
  }

private:
  void serve() {
    std::unique_lock lock(mutex_);
    for (;;) {
      request_.wait(lock, [&] { return stop_ || answered_ != requested_; });
      if (stop_) return;
      answered_ = requested_;
      answer_.notify_one();
    }
  }
  std::mutex mutex_;
  std::condition_variable request_, answer_;
  uint64_t requested_ = 0, answered_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

// A GPU kernel that stores one word: replays of it measure the scheduler, not the work.
class StoreWordKernel final : public Kernel {
public:
  Engine engine() const override { return Engine::Gpu; }
  const std::string &name() const override { return name_; }
  const KernelContract &contract() const override { return contract_; }
  uint64_t imageBytes() const override { return 0; }
  Status run(std::span<const BindingSpan> bindings, std::span<const std::byte>) override {
    std::memset(bindings[0].data, 5, 4);
    return Status::ok();
  }

private:
  std::string name_ = "store_word";
  KernelContract contract_{{{4, 4, format::ContractAccess::Write, "u32"}}, {}};
};

// Median microseconds of `body` over `count` calls, into `samples`.
template <typename F> void sampleMicros(std::vector<double> &samples, unsigned count, F &&body) {
  for (unsigned i = 0; i < count; ++i) {
    auto t0 = Clock::now();
    body();
    samples.push_back(seconds(t0, Clock::now()) * 1e6);
  }
}

// (a) Replay latency of a one-region graph (inline completion) and of a two-lane graph (lane
// hand-offs), beside a condition-variable round trip measured in the same run, and 64 MiB copy
// throughput against memcpy.
nlohmann::json overhead(unsigned replays, unsigned copyMiB, unsigned runs) {
  std::unique_ptr<Runtime> rt = take(Runtime::create(), "runtime");
  Buffer tiny = take(rt->allocate(4, Placement::HostVisible()), "allocate");
  Buffer tinyCopy = take(rt->allocate(4, Placement::HostVisible()), "allocate");
  Graph tinyGraph(*rt);
  check(tinyGraph.fill(tiny.view(), 7), "fill");
  Executable tinyExec = take(rt->prepare(tinyGraph), "prepare");
  Graph twoLaneGraph(*rt);
  check(twoLaneGraph.fill(tinyCopy.view(), 9), "fill");
  check(twoLaneGraph.copyOn(tiny.view(), tinyCopy.view(), Lane::Upload), "copy");
  Executable twoLaneExec = take(rt->prepare(twoLaneGraph), "prepare");
  Buffer word = take(rt->allocate(4, Placement::HostVisible()), "allocate");
  Graph kernelGraph(*rt);
  check(kernelGraph.gpu(take(rt->adoptKernel(std::make_shared<StoreWordKernel>()), "adopt"), {word.view()}), "gpu");
  Executable kernelExec = take(rt->prepare(kernelGraph), "prepare");
  CondVarRoundTrip condVar;
  for (unsigned i = 0; i < 16; ++i)
    runToCompletion(tinyExec), runToCompletion(twoLaneExec), runToCompletion(kernelExec), condVar.roundTrip();

  // Interleaved blocks of 100 so that load changes hit every side alike.
  std::vector<double> latencies, twoLane, kernelUs, condVarUs;
  latencies.reserve(replays);
  twoLane.reserve(replays);
  kernelUs.reserve(replays);
  condVarUs.reserve(replays);
  Statistics before{}, after{};
  double replayCpu = 0, kernelCpu = 0;
  uint64_t replayHeap = 0, kernelHeap = 0;
  for (unsigned done = 0; done < replays; done += 100) {
    unsigned block = std::min(100u, replays - done);
    Statistics blockBefore = rt->statistics();
    uint64_t heapBefore = gHeapAllocations.load(std::memory_order_relaxed);
    replayCpu += timed([&] { sampleMicros(latencies, block, [&] { runToCompletion(tinyExec); }); }).cpu;
    replayHeap += gHeapAllocations.load(std::memory_order_relaxed) - heapBefore;
    Statistics blockAfter = rt->statistics();
    before.allocations += blockBefore.allocations, after.allocations += blockAfter.allocations;
    before.submissions += blockBefore.submissions, after.submissions += blockAfter.submissions;
    sampleMicros(twoLane, block, [&] { runToCompletion(twoLaneExec); });
    uint64_t kernelHeapBefore = gHeapAllocations.load(std::memory_order_relaxed);
    kernelCpu += timed([&] { sampleMicros(kernelUs, block, [&] { runToCompletion(kernelExec); }); }).cpu;
    kernelHeap += gHeapAllocations.load(std::memory_order_relaxed) - kernelHeapBefore;
    sampleMicros(condVarUs, block, [&] { condVar.roundTrip(); });
  }

  uint64_t bytes = uint64_t(copyMiB) << 20;
  Buffer src = take(rt->allocate(bytes, Placement::HostVisible()), "allocate");
  Buffer dst = take(rt->allocate(bytes, Placement::HostVisible()), "allocate");
  {
    MapGuard map = take(src.mapWrite(), "map");
    auto span = map.mutableBytes();
    for (size_t i = 0; i < span.size(); ++i) span[i] = std::byte(i * 131 + 7);
  }
  Graph copyGraph(*rt);
  check(copyGraph.copy(dst.view(), src.view()), "copy");
  Executable copyExec = take(rt->prepare(copyGraph), "prepare");
  std::vector<std::byte> plainSrc(bytes, std::byte{1}), plainDst(bytes);
  runToCompletion(copyExec);
  std::memcpy(plainDst.data(), plainSrc.data(), bytes);
  std::vector<double> runtimeS, memcpyS, runtimeCpu, memcpyCpu;
  for (unsigned r = 0; r < runs; ++r) {
    auto runtimeSide = [&] {
      Timing t = timed([&] { runToCompletion(copyExec); });
      runtimeS.push_back(t.wall);
      runtimeCpu.push_back(t.cpu);
    };
    auto memcpySide = [&] {
      Timing t = timed([&] { std::memcpy(plainDst.data(), plainSrc.data(), bytes); });
      memcpyS.push_back(t.wall);
      memcpyCpu.push_back(t.cpu);
    };
    if (r % 2 == 0)
      runtimeSide(), memcpySide();
    else
      memcpySide(), runtimeSide();
  }
  {
    MapGuard a = take(src.mapRead(), "map"), b = take(dst.mapRead(), "map");
    if (std::memcmp(a.bytes().data(), b.bytes().data(), bytes) != 0) die("the runtime copy produced wrong bytes");
  }
  double gb = static_cast<double>(bytes) / 1e9;
  return {{"benchmark", "runtime.overhead"},
          {"replays", replays},
          {"replay_median_us", median(latencies)},
          {"replay_p95_us", percentile(latencies, 0.95)},
          {"replay_cpu_us_per_replay", replayCpu / replays * 1e6},
          {"replay_allocations", after.allocations - before.allocations},
          {"replay_submissions", after.submissions - before.submissions},
          {"replay_heap_allocations", replayHeap},
          {"condvar_round_trip_median_us", median(condVarUs)},
          {"replay_over_condvar_round_trip", median(latencies) / median(condVarUs)},
          {"kernel_replay_median_us", median(kernelUs)},
          {"kernel_replay_heap_allocations", kernelHeap},
          {"kernel_replay_cpu_us_per_replay", kernelCpu / replays * 1e6},
          {"two_lane_replay_median_us", median(twoLane)},
          {"copy_bytes", bytes},
          {"copy_runs", runs},
          {"runtime_copy_gbps", gb / median(runtimeS)},
          {"memcpy_gbps", gb / median(memcpyS)},
          {"runtime_copy_cpu_s", median(runtimeCpu)},
          {"memcpy_cpu_s", median(memcpyCpu)},
          {"runtime_over_memcpy_time", median(runtimeS) / median(memcpyS)}};
}

std::vector<uint8_t> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) die("cannot read '" + path + "'");
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), {});
}

// (a) Artifact load: parsing with every validation rule (readArtifact) and listing the entries,
// from bytes already in memory; then loading its host code (.hrx.host, dlopen from memory).
nlohmann::json load(const std::string &path, unsigned runs) {
  std::vector<uint8_t> bytes = readFile(path);
  std::vector<double> validateS, validateCpu, hostS;
  size_t entries = 0;
  // This thread's CPU time (nanosecond clock): on a loaded machine the wall time also counts
  // waiting for a CPU.
  auto threadCpu = [] {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
  };
  for (unsigned r = 0; r < runs; ++r) {
    format::Artifact artifact;
    double cpu = 0;
    validateS.push_back(timed([&] {
                          double cpu0 = threadCpu();
                          artifact = take(format::readArtifact(bytes), path.c_str());
                          entries = take(listEntries(artifact), path.c_str()).size();
                          cpu = threadCpu() - cpu0;
                        }).wall);
    validateCpu.push_back(cpu);
    const format::Artifact &member = artifact.members.empty() ? artifact : artifact.members.front();
    const std::vector<uint8_t> *host = member.section(format::xdna::kHostSection);
    if (!host) die(path + ": no .hrx.host section");
    hostS.push_back(timed([&] { take(HostCode::load(std::as_bytes(std::span(*host)), path), "host code"); }).wall);
  }
  return {{"benchmark", "runtime.load"},
          {"artifact", path},
          {"bytes", bytes.size()},
          {"entries", entries},
          {"runs", runs},
          {"validate_median_s", median(validateS)},
          {"validate_thread_cpu_median_s", median(validateCpu)},
          {"host_code_median_s", median(hostS)}};
}

float bf16ToFloat(const std::byte *bytes) {
  uint32_t bits = (uint32_t(std::to_integer<uint8_t>(bytes[0])) | uint32_t(std::to_integer<uint8_t>(bytes[1])) << 8)
                  << 16;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// The same work as a plain C++ loop, for the baseline side of a comparison. `inputs` are the
// entry's bindings but the last, `out` the last.
void baselineLoop(const std::string &baseline, const std::vector<std::vector<std::byte>> &inputs,
                  const std::vector<std::vector<float>> &widened, std::vector<std::byte> &out) {
  const std::vector<std::byte> &in = inputs.front();
  if (baseline == "double-f32") {
    const float *x = reinterpret_cast<const float *>(in.data());
    float *y = reinterpret_cast<float *>(out.data());
    for (size_t i = 0, n = in.size() / sizeof(float); i < n; ++i) y[i] = x[i] + x[i];
  } else if (baseline == "affine-i32") {
    const int32_t *x = reinterpret_cast<const int32_t *>(in.data());
    int32_t *y = reinterpret_cast<int32_t *>(out.data());
    for (size_t i = 0, n = in.size() / sizeof(int32_t); i < n; ++i) y[i] = x[i] * 3 + 7;
  } else if (baseline == "gemm-bf16") {
    // C[m] = A[m] x B[m], 8x8 operands, F32 accumulation from zero: the typed f32 loop built
    // -O3 -march=native, on the BF16 inputs widened to f32 beforehand (`widened`).
    hrx::bench::typedGemm8x8(widened[0].data(), widened[1].data(), reinterpret_cast<float *>(out.data()),
                             out.size() / 256);
  } else {
    std::memcpy(out.data(), in.data(), in.size());
  }
}

// Input data for binding `operand`: f32 values for double-f32; for gemm-bf16 the seed's matrices
// (((index*(operand+3) + matrix) % 7) - 3 as BF16, exact); else ((i % 2048) - 1024) as i32.
std::vector<std::byte> inputData(const std::string &baseline, size_t operand, uint64_t bytes) {
  std::vector<std::byte> input(bytes);
  if (baseline == "gemm-bf16") {
    for (size_t i = 0; i < input.size() / 2; ++i) {
      size_t matrix = i / 64, index = i % 64;
      float value = static_cast<float>(static_cast<int>((index * (operand + 3) + matrix) % 7) - 3);
      uint32_t bits;
      std::memcpy(&bits, &value, sizeof bits);
      input[i * 2] = std::byte(bits >> 16 & 0xff);
      input[i * 2 + 1] = std::byte(bits >> 24);
    }
    return input;
  }
  for (size_t i = 0; i < input.size() / 4; ++i) {
    if (baseline == "double-f32") {
      float value = static_cast<float>(i % 1000) * 0.25f;
      std::memcpy(input.data() + i * 4, &value, 4);
    } else {
      int32_t value = static_cast<int32_t>(i % 2048) - 1024;
      std::memcpy(input.data() + i * 4, &value, 4);
    }
  }
  return input;
}

// (b), (c) Replays of one artifact entry on the host reference device; binding 0 is the input,
// the last binding the output. With --baseline, a plain loop computing the same output runs
// alternately and the outputs must agree.
nlohmann::json kernel(const std::string &path, const std::vector<uint64_t> &workload, uint64_t units, unsigned runs,
                      const std::string &baseline) {
  std::vector<uint8_t> bytes = readFile(path);
  format::Artifact artifact = take(format::readArtifact(bytes), path.c_str());
  std::vector<ArtifactEntry> entries = take(listEntries(artifact), path.c_str());
  const ArtifactEntry &entry = *take(findEntry(entries, "", Engine::Npu), path.c_str());
  std::unique_ptr<Runtime> rt = take(Runtime::create(), "runtime");
  std::shared_ptr<Kernel> loaded = take(rt->adoptKernel(take(loadOnHost(entry, workload), "load")), "adopt");
  Placement placement = entry.engine == Engine::Npu ? Placement::Shared(rt->host()) : Placement::HostVisible();

  const auto &contract = entry.contract.bindings;
  if (contract.size() < 2) die(path + ": the entry needs an input and an output binding");
  std::vector<Buffer> buffers;
  std::vector<BufferView> views;
  std::vector<std::vector<std::byte>> inputs;
  for (size_t i = 0; i + 1 < contract.size(); ++i) inputs.push_back(inputData(baseline, i, contract[i].bytes));
  const std::vector<std::byte> &input = inputs.front();
  for (const BindingContract &binding : contract) {
    Buffer buffer = take(rt->allocate(binding.bytes, placement), "allocate");
    views.push_back(buffer.view());
    buffers.push_back(std::move(buffer));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    MapGuard map = take(buffers[i].mapWrite(), "map");
    std::memcpy(map.mutableBytes().data(), inputs[i].data(), inputs[i].size());
  }
  Graph graph(*rt);
  check(entry.engine == Engine::Npu ? graph.npu(loaded, views) : graph.gpu(loaded, views), "record");
  Executable exec = take(rt->prepare(graph), "prepare");
  std::vector<std::byte> expected(contract.back().bytes), copied(contract.front().bytes);
  std::vector<std::vector<float>> widened;  // BF16 inputs as f32, for the typed GEMM loop
  if (baseline == "gemm-bf16")
    for (const std::vector<std::byte> &in : inputs) {
      std::vector<float> &values = widened.emplace_back(in.size() / 2);
      for (size_t i = 0; i < values.size(); ++i) values[i] = bf16ToFloat(in.data() + i * 2);
    }
  runToCompletion(exec);
  if (!baseline.empty()) {
    baselineLoop(baseline, inputs, widened, expected);
    std::memcpy(copied.data(), input.data(), input.size());
  }

  std::vector<double> kernelS, kernelCpu, loopS, loopCpu, memcpyS;
  Statistics before = rt->statistics();
  NativeCoreTotals simulatedBefore = nativeCoreTotals();
  for (unsigned r = 0; r < runs; ++r) {
    auto kernelSide = [&] {
      Timing t = timed([&] { runToCompletion(exec); });
      kernelS.push_back(t.wall);
      kernelCpu.push_back(t.cpu);
    };
    auto loopSide = [&] {
      Timing t = timed([&] { baselineLoop(baseline, inputs, widened, expected); });
      loopS.push_back(t.wall);
      loopCpu.push_back(t.cpu);
    };
    auto memcpySide = [&] {
      memcpyS.push_back(timed([&] { std::memcpy(copied.data(), input.data(), input.size()); }).wall);
    };
    if (baseline.empty())
      kernelSide();
    else if (r % 2 == 0)
      kernelSide(), loopSide(), memcpySide();
    else
      memcpySide(), loopSide(), kernelSide();
  }
  Statistics after = rt->statistics();
  NativeCoreTotals simulatedAfter = nativeCoreTotals();
  if (!baseline.empty()) {
    MapGuard out = take(buffers.back().mapRead(), "map");
    if (std::memcmp(out.bytes().data(), expected.data(), expected.size()) != 0)
      die(path + ": the kernel's output differs from the plain loop's");
  }
  double moved = static_cast<double>(contract.front().bytes + contract.back().bytes);
  nlohmann::json result = {{"benchmark", "runtime.kernel"},
                           {"artifact", path},
                           {"entry", entry.name},
                           {"engine", entry.engine == Engine::Npu ? "npu" : "gpu"},
                           {"runs", runs},
                           {"units", units},
                           {"median_s", median(kernelS)},
                           {"cpu_s", median(kernelCpu)},
                           {"units_per_s", static_cast<double>(units) / median(kernelS)},
                           {"gbps", moved / 1e9 / median(kernelS)},
                           {"replay_allocations", after.allocations - before.allocations}};
  if (uint64_t bundles = simulatedAfter.bundles - simulatedBefore.bundles) {
    // Native core code in the AIE2P simulator: its speed in simulated bundles (and cycles) per
    // second of the replays' wall time.
    double replaySeconds = 0, replayCpu = 0;
    for (double s : kernelS) replaySeconds += s;
    for (double s : kernelCpu) replayCpu += s;
    result["simulated_bundles_per_cpu_s"] = static_cast<double>(bundles) / replayCpu;
    result["simulated_bundles"] = bundles;
    result["simulated_cycles"] = simulatedAfter.cycles - simulatedBefore.cycles;
    result["simulated_bundles_per_s"] = static_cast<double>(bundles) / replaySeconds;
    result["simulated_cycles_per_s"] =
        static_cast<double>(simulatedAfter.cycles - simulatedBefore.cycles) / replaySeconds;
  }
  if (!baseline.empty()) {
    result["baseline"] = baseline;
    result["loop_median_s"] = median(loopS);
    result["loop_cpu_s"] = median(loopCpu);
    result["loop_units_per_s"] = static_cast<double>(units) / median(loopS);
    result["kernel_over_loop_time"] = median(kernelS) / median(loopS);
    result["memcpy_median_s"] = median(memcpyS);
    result["kernel_over_memcpy_time"] = median(kernelS) / median(memcpyS);
    result["loop_over_memcpy_time"] = median(loopS) / median(memcpyS);
  }
  return result;
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) die("usage: hrx_runtime_bench overhead|kernel ...");
  unsigned replays = 2000, copyMiB = 64, runs = 7;
  uint64_t units = 0;
  std::vector<uint64_t> workload;
  std::string artifact, baseline;
  for (size_t i = 1; i < args.size(); ++i) {
    auto value = [&]() -> const std::string & {
      if (i + 1 >= args.size()) die(args[i] + " needs a value");
      return args[++i];
    };
    const std::string &flag = args[i];
    if (flag == "--replays")
      replays = parseCount(value(), "--replays");
    else if (flag == "--copy-mib")
      copyMiB = parseCount(value(), "--copy-mib");
    else if (flag == "--runs")
      runs = parseCount(value(), "--runs");
    else if (flag == "--units")
      units = parseCount(value(), "--units");
    else if (flag == "--workload")
      workload.push_back(parseCount(value(), "--workload"));
    else if (flag == "--baseline") {
      baseline = value();
      if (baseline != "double-f32" && baseline != "affine-i32" && baseline != "gemm-bf16" && baseline != "copy")
        die("--baseline is double-f32, affine-i32, gemm-bf16 or copy, got '" + baseline + "'");
    } else if (flag.starts_with("-"))
      die("unknown option '" + flag + "'");
    else if (artifact.empty())
      artifact = flag;
    else
      die("unexpected argument '" + flag + "'");
  }
  nlohmann::json result;
  if (args[0] == "overhead")
    result = overhead(replays, copyMiB, runs);
  else if (args[0] == "load") {
    if (artifact.empty()) die("load needs an artifact");
    result = load(artifact, runs);
  } else if (args[0] == "kernel") {
    if (artifact.empty()) die("kernel needs an artifact");
    result = kernel(artifact, workload, units, runs, baseline);
  } else
    die("unknown benchmark '" + args[0] + "'");
  result["host_threads"] = hostThreadCount();
  std::cout << result.dump() << "\n";
  return 0;
}
