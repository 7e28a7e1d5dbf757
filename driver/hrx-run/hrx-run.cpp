// hrx-run: load an artifact and run one entry on a device (the iree-xdna-run flags, IREE-style
// values). Progress goes to stderr; results, listings and benchmark JSON go to stdout.
// Exit codes (docs/hrx-run.md): 0 success, 1 usage/load/admission error, 2 output mismatch,
// 3 timeout, 4 execution failure.
#include "Checks.h"
#include "Values.h"

#include "hrx/Version.h"
#include "hrx/format/Artifact.h"
#include "hrx/format/FileIO.h"
#include "hrx/runtime/Admission.h"
#include "hrx/runtime/Loader.h"
#include "hrx/runtime/Runtime.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <unistd.h>

using namespace hrx;
using namespace hrx::runtime;

namespace {

enum ExitCode { kExitOk = 0, kExitError = 1, kExitMismatch = 2, kExitTimeout = 3, kExitExecution = 4 };

struct Options {
  std::string artifact, image, entry, device, trace;
  std::optional<uint32_t> columns;
  std::vector<std::string> bindings, inputs, outputs, expected;
  std::vector<uint64_t> workload;
  double tolerance = 0, timeoutSeconds = 60;
  unsigned repeat = 1;
  bool list = false, benchmark = false, noRestore = false;
};

int fail(const std::string &message, int code = kExitError) {
  std::cerr << "hrx-run: error: " << message << "\n";
  return code;
}

void progress(const std::string &line) { std::cerr << "hrx-run: " << line << "\n"; }

const char *engineLabel(Engine e) { return e == Engine::Npu ? "npu" : "gpu"; }

std::string describeBinding(size_t i, const BindingContract &b) {
  return "binding " + std::to_string(i) + ": " + std::to_string(b.bytes) + " bytes, alignment " +
         std::to_string(b.alignment) + ", " + std::string(format::contractAccessName(b.access)) +
         (b.layout.empty() ? "" : " (" + b.layout + ")");
}

std::string describeBindingBrief(const BindingContract &b) {
  return std::to_string(b.bytes) + " bytes " + std::string(format::contractAccessName(b.access));
}

// "@add_delta(value 8 bytes, value 4 bytes, buffer 2000 bytes ReadWrite)" for GPU entries with a
// launch signature; "@copy(64 bytes Read, 64 bytes Write)" (bindings only) otherwise.
std::string signature(const ArtifactEntry &e) {
  std::string s = "@" + e.name + "(";
  if (e.gpuExport) {
    size_t binding = 0;
    for (size_t i = 0; i < e.gpuExport->arguments.size(); ++i) {
      const format::LaunchArgument &a = e.gpuExport->arguments[i];
      s += i ? ", " : "";
      s += a.kind == format::LaunchArgumentKind::Value ? "value " + std::to_string(a.size) + " bytes"
                                                       : "buffer " + describeBindingBrief(e.contract.bindings[binding++]);
    }
    return s + ")";
  }
  for (size_t i = 0; i < e.contract.bindings.size(); ++i)
    s += (i ? ", " : "") + describeBindingBrief(e.contract.bindings[i]);
  return s + ")";
}

// Splits the inputs of a GPU entry with a launch signature into its buffers (returned, in
// binding order) and its scalars (appended to `constants`, packed in launch order).
StatusOr<std::vector<run::Value>> splitLaunchArguments(const ArtifactEntry &e, std::vector<run::Value> inputs,
                                                        std::vector<std::byte> &constants) {
  const auto &arguments = e.gpuExport->arguments;
  if (inputs.size() != arguments.size())
    return Status(StatusCode::InvalidArgument, "entry requires " + std::to_string(arguments.size()) +
                                                   " launch arguments but " + std::to_string(inputs.size()) +
                                                   " were supplied; " + signature(e));
  std::vector<run::Value> buffers;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const format::LaunchArgument &a = arguments[i];
    run::Value &v = inputs[i];
    if (a.kind == format::LaunchArgumentKind::Buffer) {
      buffers.push_back(std::move(v));
      continue;
    }
    if (v.elementCount() != 1 || v.bytes.size() != a.size)
      return Status(StatusCode::InvalidArgument,
                    "input " + std::to_string(i) + " is a scalar argument of " + std::to_string(a.size) +
                        " bytes, but the value given has " + std::to_string(v.elementCount()) + " element(s), " +
                        std::to_string(v.bytes.size()) + " bytes (" + run::formatValue(v, 4) +
                        "); pass one element, e.g. " + (a.size == 8 ? "i64=N" : a.size == 4 ? "i32=N or f32=X" : "i" + std::to_string(a.size * 8) + "=N") +
                        "; " + signature(e));
    for (uint8_t byte : v.bytes) constants.push_back(static_cast<std::byte>(byte));
  }
  return buffers;
}

void listArtifact(const std::string &path, const format::Artifact &artifact, const std::vector<ArtifactEntry> &entries) {
  std::cout << path << ": " << format::artifactKindName(artifact.kind) << "\n";
  const format::Artifact *member = nullptr;
  for (const ArtifactEntry &e : entries) {
    if (e.member != member) {
      member = e.member;
      std::cout << "  target " << member->target;
      if (member->kind == format::ArtifactKind::Xdna) std::cout << ", " << e.columns << " column(s)";
      if (member->referenceOnly()) std::cout << ", reference-only (" << member->identity->referenceOnlyReason << ")";
      std::cout << "\n";
    }
    std::cout << "    entry " << e.name << " (" << engineLabel(e.engine) << ", " << e.contract.bindings.size()
              << " binding(s)";
    if (e.gpuExport)
      std::cout << ", " << e.gpuExport->arguments.size() << " launch argument(s), " << e.gpuExport->constantBytes
                << " constant bytes";
    std::cout << ")\n";
    if (e.gpuExport)
      for (size_t i = 0, binding = 0; i < e.gpuExport->arguments.size(); ++i) {
        const format::LaunchArgument &a = e.gpuExport->arguments[i];
        std::cout << "      argument " << i << ": " << format::launchArgumentKindName(a.kind) << ", " << a.size
                  << " bytes";
        if (a.kind == format::LaunchArgumentKind::Buffer) std::cout << " (binding " << binding++ << ")";
        std::cout << "\n";
      }
    for (size_t i = 0; i < e.contract.bindings.size(); ++i)
      std::cout << "      " << describeBinding(i, e.contract.bindings[i]) << "\n";
    if (!e.contract.constants.empty()) std::cout << "      constants: " << e.contract.constants.size() << " bytes\n";
  }
}

// The device to run on: --device, else HRX_DEVICE, else the qualified native device for the
// entry's engine.
StatusOr<Device> selectDevice(Runtime &rt, const std::string &requested, Engine engine) {
  std::string name = requested;
  if (name.empty())
    if (const char *env = std::getenv("HRX_DEVICE"); env && *env) name = env;
  if (name == "host") return rt.host();
  if (!name.empty() && name != "npu" && name != "gpu")
    return Status(StatusCode::InvalidArgument, "unknown device '" + name + "'; expected host, npu or gpu");
  bool npu = name.empty() ? engine == Engine::Npu : name == "npu";
  StatusOr<Device> device = npu ? rt.npu(0) : rt.gpu();
  if (!device.isOk() && name.empty())
    return Status(device.status().code(), "no qualified native device for this " + std::string(engineLabel(engine)) +
                                              " entry: " + device.status().message() +
                                              "; use --device=host to run on the host reference device");
  return device;
}

// The largest input hrx-run reads: what fits in this machine's memory, at most 16 GiB.
uint64_t maxInputBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0) return run::kMaxValueBytes;
  return std::min(run::kMaxValueBytes, uint64_t(pages) * uint64_t(pageSize));
}

StatusOr<std::vector<run::Value>> bindingValues(const Options &o) {
  std::vector<run::Value> values;
  if (!o.bindings.empty() && !o.inputs.empty())
    return Status(StatusCode::InvalidArgument, "use either --binding files or --input values, not both");
  for (const std::string &file : o.bindings) {
    auto v = run::parseValue("@" + file, maxInputBytes());
    if (!v) return v.status();
    values.push_back(std::move(*v));
  }
  for (const std::string &spec : o.inputs) {
    auto v = run::parseValue(spec, maxInputBytes());
    if (!v) return v.status();
    values.push_back(std::move(*v));
  }
  return values;
}

struct OutputRequest {
  size_t binding;
  std::string path;
};

// "--output=ORDINAL=PATH" names a binding; "--output=@PATH" takes the next writable binding.
StatusOr<std::vector<OutputRequest>> outputRequests(const std::vector<std::string> &specs,
                                                    const std::vector<size_t> &writable, size_t bindingCount) {
  std::vector<OutputRequest> out;
  size_t nextWritable = 0;
  for (const std::string &spec : specs) {
    if (spec.starts_with('@')) {
      if (nextWritable >= writable.size())
        return Status(StatusCode::InvalidArgument, "--output=" + spec + ": there are only " +
                                                       std::to_string(writable.size()) + " writable binding(s)");
      out.push_back({writable[nextWritable++], spec.substr(1)});
      continue;
    }
    size_t eq = spec.find('=');
    char *end = nullptr;
    unsigned long ordinal = eq == std::string::npos ? 0 : std::strtoul(spec.c_str(), &end, 10);
    if (eq == std::string::npos || eq == 0 || end != spec.c_str() + eq || eq + 1 == spec.size() ||
        ordinal >= bindingCount)
      return Status(StatusCode::InvalidArgument, "--output requires a valid binding_ordinal=path or @path, got '" + spec + "'");
    for (const OutputRequest &r : out)
      if (r.binding == ordinal)
        return Status(StatusCode::InvalidArgument, "binding " + std::to_string(ordinal) + " has more than one output path");
    out.push_back({ordinal, spec.substr(eq + 1)});
  }
  return out;
}

// Copies the given input values back into the bindings a submission may have written.
Status restoreWritableBindings(const std::vector<BindingContract> &contract, const std::vector<run::Value> &values,
                               std::vector<Buffer> &buffers) {
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (contract[i].access == format::ContractAccess::Read) continue;
    auto map = buffers[i].mapWrite();
    if (!map) return map.status();
    std::copy(values[i].bytes.begin(), values[i].bytes.end(), reinterpret_cast<uint8_t *>(map->mutableBytes().data()));
  }
  return Status::ok();
}

uint64_t percentile(std::vector<uint64_t> sorted, double p) {
  size_t index = static_cast<size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(index, sorted.size() - 1)];
}

int runMain(const Options &o) {
  std::string path = o.image.empty() ? o.artifact : o.image;
  if (path.empty()) return fail("no artifact: pass it as an argument or with --image");
  if (!o.image.empty() && !o.artifact.empty()) return fail("unexpected positional argument '" + o.artifact + "' with --image");
  auto bytes = io::readFile(path, maxInputBytes());
  if (!bytes) return fail(bytes.status().message());
  auto artifact = format::readArtifact(*bytes);
  if (!artifact) return fail(path + ": " + artifact.status().message());
  auto entries = listEntries(*artifact);
  if (!entries) return fail(path + ": " + entries.status().message());
  if (o.list) {
    listArtifact(path, *artifact, *entries);
    return kExitOk;
  }

  auto runtime = Runtime::create();
  if (!runtime) return fail(runtime.status().message());
  Runtime &rt = **runtime;
  Engine preferred = o.device == "gpu" ? Engine::Gpu : Engine::Npu;
  auto entryOr = findEntry(*entries, o.entry, preferred);
  if (!entryOr) return fail(path + ": " + entryOr.status().message());
  const ArtifactEntry &entry = **entryOr;
  uint32_t columns = o.columns.value_or(entry.columns);
  progress("loaded " + path + ": " + std::string(format::artifactKindName(entry.member->kind)) + " for " +
           entry.member->target + (entry.engine == Engine::Npu ? ", " + std::to_string(entry.columns) + " column(s)" : "") +
           (entry.member->referenceOnly() ? ", reference-only" : ""));

  auto device = selectDevice(rt, o.device, entry.engine);
  if (!device) return fail(device.status().message());
  if (device->kind != DeviceKind::Host) {
    if ((device->kind == DeviceKind::Npu) != (entry.engine == Engine::Npu))
      return fail("entry '" + entry.name + "' is a " + engineLabel(entry.engine) + " entry; the " +
                  (device->kind == DeviceKind::Npu ? "npu" : "gpu") + " device cannot run it");
    return fail(checkNativeExecution(entry, *device, columns).message());
  }
  if (entry.engine == Engine::Npu && entry.member->target != kNpuTarget)
    return fail("artifact and device targets differ: the image is for " + entry.member->target +
                "; the host reference device runs " + kNpuTarget + " images");
  if (entry.engine == Engine::Npu && columns != entry.columns)
    return fail("the image needs exactly " + std::to_string(entry.columns) + " column(s); --columns=" +
                std::to_string(columns) + " was requested");

  auto kernelOr = loadOnHost(entry, o.workload);
  if (!kernelOr) return fail(path + ": " + kernelOr.status().message());
  auto kernel = rt.adoptKernel(*kernelOr);
  if (!kernel) return fail(kernel.status().message());

  auto values = bindingValues(o);
  if (!values) return fail(values.status().message());
  std::vector<std::byte> constants;
  if (entry.gpuExport) {
    values = splitLaunchArguments(entry, std::move(*values), constants);
    if (!values) return fail(values.status().message());
  }
  const auto &contract = entry.contract.bindings;
  if (values->size() != contract.size())
    return fail("entry requires " + std::to_string(contract.size()) + " bindings but " +
                std::to_string(values->size()) + " were supplied; " + signature(entry));
  for (size_t i = 0; i < contract.size(); ++i)
    if (Status s = run::checkElementType((*values)[i], contract[i], i, "the value of binding " + std::to_string(i)); !s)
      return fail(s.message() + "; " + signature(entry));
  std::vector<size_t> writable;
  for (size_t i = 0; i < contract.size(); ++i)
    if (contract[i].access != format::ContractAccess::Read) writable.push_back(i);
  auto outputs = outputRequests(o.outputs, writable, contract.size());
  if (!outputs) return fail(outputs.status().message());
  if (o.expected.size() > writable.size())
    return fail(std::to_string(o.expected.size()) + " --expected_output values for " + std::to_string(writable.size()) +
                " writable binding(s)");

  // Buffers: Shared for NPU entries (one backing both engines reach), HostVisible for GPU.
  Placement placement = entry.engine == Engine::Npu ? Placement::Shared(rt.host()) : Placement::HostVisible();
  std::vector<Buffer> buffers;
  std::vector<BufferView> views;
  for (size_t i = 0; i < values->size(); ++i) {
    const run::Value &v = (*values)[i];
    if (v.bytes.empty()) return fail("binding " + std::to_string(i) + " is empty");
    auto buffer = rt.allocate(v.bytes.size(), placement);
    if (!buffer) return fail("binding " + std::to_string(i) + ": " + buffer.status().message());
    {
      auto map = buffer->mapWrite();
      if (!map) return fail(map.status().message());
      std::copy(v.bytes.begin(), v.bytes.end(), reinterpret_cast<uint8_t *>(map->mutableBytes().data()));
    }
    views.push_back(buffer->view());
    buffers.push_back(std::move(*buffer));
  }
  Graph graph(rt);
  Status recorded = entry.engine == Engine::Npu ? graph.npu(*kernel, views) : graph.gpu(*kernel, views, constants);
  if (!recorded) return fail(recorded.message() + "; " + signature(entry));
  auto executable = rt.prepare(graph);
  if (!executable) return fail(executable.status().message());
  progress("prepared '" + entry.name + "' on the host reference device (" + engineLabel(entry.engine) + " entry, " +
           std::to_string(contract.size()) + " binding(s))");

  if (!o.trace.empty())
    if (Status s = rt.startTrace(65536); !s) return fail(s.message());
  auto timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(o.timeoutSeconds));
  std::vector<uint64_t> samples;
  for (unsigned i = 1; i <= o.repeat; ++i) {
    // Each repetition starts from the given inputs (outside the timed region).
    if (i > 1 && !o.noRestore)
      if (Status s = restoreWritableBindings(contract, *values, buffers); !s) return fail(s.message());
    auto start = std::chrono::steady_clock::now();
    auto completion = executable->submit();
    if (!completion) return fail(completion.status().message(), kExitExecution);
    if (!completion->waitFor(timeout)) {
      std::string lanes;
      for (Lane lane : completion->pendingLanes()) lanes += std::string(lanes.empty() ? "" : ", ") + laneName(lane);
      std::cerr << "hrx-run: error: entry '" << entry.name << "' did not complete within " << o.timeoutSeconds
                << " s (submission " << i << ", still running on the " << lanes
                << " lane); its storage stays allocated because the work may still touch it\n";
      executable->quarantine();
      std::cout.flush();
      std::cerr.flush();
      std::_Exit(kExitTimeout);  // frees nothing: in-flight storage is never released
    }
    Status status = completion->wait();
    samples.push_back(static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count()));
    if (!status) return fail("entry '" + entry.name + "' failed: " + status.message(), kExitExecution);
    if (!o.benchmark && (o.repeat <= 3 || i == o.repeat))
      progress("submission " + std::to_string(i) + " completed in " + std::to_string(samples.back()) + " us");
  }
  if (!o.trace.empty()) {
    auto trace = rt.finishTrace();
    if (!trace) return fail("tracing was not active");
    if (Status s = io::writeFileAtomically(o.trace, trace->toJson()); !s) return fail(s.message());
    progress("wrote trace to " + o.trace + " (" + std::to_string(trace->events.size()) + " events)");
  }

  // Results of the writable bindings.
  std::vector<run::Value> results;
  for (size_t i = 0; i < buffers.size(); ++i) {
    run::Value result = (*values)[i];
    auto map = buffers[i].mapRead();
    if (!map) return fail(map.status().message());
    std::transform(map->bytes().begin(), map->bytes().end(), result.bytes.begin(),
                   [](std::byte b) { return static_cast<uint8_t>(b); });
    results.push_back(std::move(result));
  }
  for (const OutputRequest &r : *outputs) {
    if (Status s = run::writeValue(r.path, results[r.binding]); !s) return fail(s.message());
    progress("wrote binding " + std::to_string(r.binding) + ": " + std::to_string(results[r.binding].bytes.size()) +
             " bytes to " + r.path);
  }
  if (o.benchmark) {
    std::vector<uint64_t> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    uint64_t sum = 0;
    for (uint64_t s : sorted) sum += s;
    std::cout << "{\"entry\":\"" << entry.name << "\",\"device\":\"host\",\"repeat\":" << o.repeat
              << ",\"min_us\":" << sorted.front() << ",\"median_us\":" << percentile(sorted, 0.5)
              << ",\"p95_us\":" << percentile(sorted, 0.95) << ",\"mean_us\":" << sum / sorted.size()
              << ",\"statistics\":" << rt.statistics().toJson() << "}\n";
  } else {
    std::cout << "EXEC @" << entry.name << "\n";
    for (size_t i : writable) std::cout << "binding[" << i << "]: " << run::formatValue(results[i]) << "\n";
  }
  int code = kExitOk;
  for (size_t k = 0; k < o.expected.size(); ++k) {
    if (o.expected[k] == "(ignored)") continue;
    auto expected = run::parseValue(o.expected[k], maxInputBytes());
    if (!expected) return fail(expected.status().message());
    size_t b = writable[k];
    if (Status s = run::checkExpectedType(*expected, results[b], b); !s) return fail(s.message());
    if (auto diff = run::compareValues(*expected, results[b], o.tolerance)) {
      std::cout << "[FAILED] binding[" << b << "]: " << *diff << "\n";
      code = kExitMismatch;
    }
  }
  if (!o.expected.empty() && code == kExitOk) std::cout << "[SUCCESS]\n";
  return code;
}

// A CLI11 check with a readable message: the value is a number above (or, with `allowZero`,
// at least) zero.
CLI::Validator positive(bool allowZero) {
  return CLI::Validator(
      [allowZero](std::string &value) -> std::string {
        char *end = nullptr;
        double number = std::strtod(value.c_str(), &end);
        bool valid = !value.empty() && end == value.c_str() + value.size() && std::isfinite(number) &&
                     (allowZero ? number >= 0 : number > 0);
        if (valid) return {};
        return "expected a " + std::string(allowZero ? "nonnegative" : "positive") + " number, got '" + value + "'";
      },
      allowZero ? "NONNEGATIVE" : "POSITIVE");
}

}  // namespace

int hrxRunMain(int argc, char **argv) {
  CLI::App app{"hrx-run: load an hrx artifact (.xdna, .hsaco, fat) and run one entry"};
  app.set_version_flag("--version",
                       std::string("hrx-run version ") + hrx::runtime::version() +
                           " (artifacts from hrxcc on LLVM " HRX_LLVM_VERSION_STRING ")\nTargets: " HRX_SUPPORTED_TARGETS);
  Options o;
  app.add_option("artifact", o.artifact, "Artifact to load");
  app.add_option("--image", o.image, "Artifact to load (iree-xdna-run spelling)");
  app.add_option("--entry,--function", o.entry, "Entry to run (default: the first)");
  app.add_option("--columns", o.columns, "NPU partition width; must equal the image's")->check(CLI::Range(1, 8));
  app.add_option("--binding", o.bindings, "Raw initial bytes of the next binding (repeat, binding order)")
      ->allow_extra_args(false);
  app.add_option("--input", o.inputs, "Typed value of the next binding or launch argument: 4xi32=1 2 3 4, i64=500, @x.npy, @x.bin")
      ->allow_extra_args(false);
  app.add_option("--output", o.outputs, "ORDINAL=PATH (raw) or @PATH (.npy or raw) for the next writable binding")
      ->allow_extra_args(false);
  app.add_option("--expected_output", o.expected, "Expected value of the next writable binding, or (ignored)")
      ->allow_extra_args(false);
  app.add_option("--tolerance", o.tolerance, "Absolute tolerance for floating-point comparisons")->check(positive(true));
  app.add_option("--device", o.device, "host, npu or gpu (default: $HRX_DEVICE, else the qualified native device)");
  app.add_option("--workload", o.workload, "GPU launch workload (u64 values, comma-separated)")->delimiter(',');
  app.add_flag("--list", o.list, "List entries, bindings and contracts, then exit");
  app.add_option("--repeat", o.repeat, "Run the entry N times (replaying one prepared graph)")->check(positive(false));
  app.add_flag("--no-restore", o.noRestore, "With --repeat, let each repetition start from the previous one's outputs");
  app.add_flag("--benchmark", o.benchmark, "Print timing JSON (min, median, p95) instead of results");
  app.add_option("--trace", o.trace, "Write a Chrome/Perfetto trace of the regions to FILE");
  app.add_option("--timeout", o.timeoutSeconds, "Seconds to wait for each submission (default 60)")
      ->check(positive(false));
  app.allow_extras();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    return fail(e.what());
  }
  for (const std::string &extra : app.remaining())
    return fail(extra.starts_with('-') ? "unknown flag '" + extra + "'"
                                       : "unexpected positional argument '" + extra + "' (one artifact per run)");
  return runMain(o);
}

#ifndef HRX_RUN_NO_MAIN  // the command-line fuzzer (test/fuzz/HrxRunCommandLineFuzzer.cpp) calls hrxRunMain
// No exception leaves hrx-run: a failure it did not foresee is still an error message.
int main(int argc, char **argv) {
  try {
    return hrxRunMain(argc, argv);
  } catch (const std::exception &e) {
    return fail(std::string("internal error: ") + e.what());
  } catch (...) {
    return fail("internal error: an unknown exception");
  }
}
#endif
