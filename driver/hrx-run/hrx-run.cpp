// hrx-run: load an artifact and run one entry on a device (the iree-xdna-run flags, IREE-style
// values). Progress goes to stderr; results, listings and benchmark JSON go to stdout.
// Exit codes (docs/hrx-run.md): 0 success, 1 usage/load/admission error, 2 output mismatch,
// 3 timeout, 4 execution failure.
#include "CommandLine.h"
#include "Checks.h"
#include "Values.h"

#include "hrx/Version.h"
#include "hrx/format/Artifact.h"
#include "hrx/format/FileIO.h"
#include "hrx/runtime/Admission.h"
#include "hrx/runtime/DeviceChoice.h"
#include "hrx/runtime/GpuDevice.h"
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
  std::string artifact, image, module, entry, device, trace, arrayModel, coreModel;
  bool coreStats = false;
  std::optional<uint32_t> columns;
  std::vector<std::string> bindings, inputs, outputs, expected;
  std::vector<std::string> symbols;  // --symbol NAME=VALUE: device globals (hipMemcpyToSymbol)
  std::vector<uint64_t> workload;
  std::vector<uint32_t> grid, block;  // --grid/--block: HIP launch dimensions
  std::optional<uint64_t> dynamicLds;
  double tolerance = 0, timeoutSeconds = 60;
  unsigned repeat = 1;
  bool list = false, benchmark = false, noRestore = false;
  // IREE's runner flags (docs/hrx-run.md, "IREE compatibility").
  bool listDevices = false, printStatistics = false;
  size_t outputMaxElements = 1024;
  std::optional<unsigned> benchmarkRepetitions;
};

// --grid=X[,Y[,Z]], --block=X[,Y[,Z]] and --dynamic-lds=BYTES as one run-time launch, or none.
StatusOr<std::optional<LaunchDimensions>> launchDimensions(const Options &o) {
  if (o.grid.empty() && o.block.empty() && !o.dynamicLds) return std::optional<LaunchDimensions>();
  if (o.grid.empty() || o.block.empty())
    return Status(StatusCode::InvalidArgument, "--grid and --block go together (and --dynamic-lds needs both)");
  if (o.grid.size() > 3 || o.block.size() > 3)
    return Status(StatusCode::InvalidArgument, "--grid and --block take 1 to 3 comma-separated extents (X[,Y[,Z]])");
  LaunchDimensions dims;
  for (size_t d = 0; d < o.grid.size(); ++d) dims.grid[d] = o.grid[d];
  for (size_t d = 0; d < o.block.size(); ++d) dims.block[d] = o.block[d];
  dims.dynamicLdsBytes = o.dynamicLds.value_or(0);
  return std::optional<LaunchDimensions>(dims);
}

void addLaunchDimensionOptions(CLI::App &app, Options &o) {
  app.add_option("--grid", o.grid,
                 "Workgroups X[,Y[,Z]] of a C/C++/HIP kernel (with --block; replaces the launch program)")
      ->delimiter(',');
  app.add_option("--block", o.block, "Work-items per workgroup X[,Y[,Z]] (with --grid), within __launch_bounds__")
      ->delimiter(',');
  app.add_option("--dynamic-lds", o.dynamicLds, "Bytes of extern __shared__ memory per workgroup (at most 65536)");
}

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
      s += a.kind == format::LaunchArgumentKind::Value
               ? "value " + std::to_string(a.size) + " bytes"
               : "buffer " + describeBindingBrief(e.contract.bindings[binding++]);
    }
    return s + ")";
  }
  for (size_t i = 0; i < e.contract.bindings.size(); ++i)
    s += (i ? ", " : "") + describeBindingBrief(e.contract.bindings[i]);
  return s + ")";
}

// The launch-argument type of a typed value (hrx-run has no bool literals).
std::optional<format::ScalarType> scalarTypeOf(const run::Value &v) {
  if (!v.type) return std::nullopt;
  using T = format::ScalarType;
  switch (*v.type) {
  case run::ElementType::I8: return T::I8;
  case run::ElementType::I16: return T::I16;
  case run::ElementType::I32: return T::I32;
  case run::ElementType::I64: return T::I64;
  case run::ElementType::U8: return T::U8;
  case run::ElementType::U16: return T::U16;
  case run::ElementType::U32: return T::U32;
  case run::ElementType::U64: return T::U64;
  case run::ElementType::F32: return T::F32;
  case run::ElementType::F64: return T::F64;
  case run::ElementType::BF16: return T::BF16;
  case run::ElementType::F16: return T::F16;
  }
  return std::nullopt;
}

// How to write a literal of `type` on the command line.
std::string literalHint(format::ScalarType type) {
  using T = format::ScalarType;
  switch (type) {
  case T::Bool: return "ui8=0 or ui8=1";
  case T::U8:
  case T::U16:
  case T::U32:
  case T::U64:
    return "ui" + std::string(format::scalarTypeName(type)).substr(1) + "=N";  // hrx-run spells them ui8 ... ui64
  case T::F16:
  case T::F32:
  case T::F64:
  case T::BF16: return std::string(format::scalarTypeName(type)) + "=X";
  case T::Pointer: return "ui64=ADDRESS";
  default: return std::string(format::scalarTypeName(type)) + "=N";
  }
}

// "@add_delta(%n: i64, %delta: f32, %y: buffer 2000 bytes ReadWrite)": the launch signature with
// the types the artifact recorded ("value 8 bytes" where it recorded none).
std::string typedSignature(const ArtifactEntry &e) {
  std::string s = "@" + e.name + "(";
  size_t binding = 0;
  for (size_t i = 0; i < e.gpuExport->arguments.size(); ++i) {
    const format::LaunchArgument &a = e.gpuExport->arguments[i];
    s += i ? ", " : "";
    if (!a.name.empty()) s += "%" + a.name + ": ";
    if (a.kind == format::LaunchArgumentKind::Buffer)
      s += "buffer " + describeBindingBrief(e.contract.bindings[binding++]);
    else
      s += a.type ? std::string(format::scalarTypeName(*a.type)) : "value " + std::to_string(a.size) + " bytes";
  }
  return s + ")";
}

// --symbol NAME=VALUE: writes VALUE into the GPU entry's device global NAME (its source name or
// symbol), checked against the global's element type and size in the code object's manifest.
Status writeSymbols(const ArtifactEntry &entry, Kernel &kernel, const std::vector<std::string> &symbols) {
  const std::vector<format::DeviceGlobal> *globals =
      entry.engine == Engine::Gpu && entry.member->manifest ? &entry.member->manifest->globals : nullptr;
  for (const std::string &spec : symbols) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      return Status(StatusCode::InvalidArgument, "--symbol '" + spec +
                                                     "': expected NAME=VALUE (e.g. --symbol "
                                                     "scale=f32=2 or --symbol table=@table.npy)");
    std::string name = spec.substr(0, eq);
    const format::DeviceGlobal *global = globals ? entry.member->manifest->findGlobal(name) : nullptr;
    if (!global) {
      std::string known;
      if (globals)
        for (const format::DeviceGlobal &g : *globals) known += (known.empty() ? "" : ", ") + g.name;
      return Status(StatusCode::NotFound, "--symbol " + name + ": entry '" + entry.name + "' has no device global '" +
                                              name + "'" +
                                              (known.empty() ? " (its code object has none)" : "; it has " + known));
    }
    auto value = run::parseValue(spec.substr(eq + 1));
    if (!value) return Status(StatusCode::InvalidArgument, "--symbol " + name + ": " + value.status().message());
    std::string what =
        "--symbol " + name + ": the global is " +
        (global->element ? std::to_string(global->count) + "x" + std::string(format::scalarTypeName(*global->element))
                         : "a record") +
        " (" + std::to_string(global->bytes) + " bytes)";
    if (value->hostTexture) return Status(StatusCode::InvalidArgument, what + ", not a texture");
    if (auto given = scalarTypeOf(*value); given && global->element) {
      bool same =
          *given == *global->element || (format::isIntegerType(*given) && format::isIntegerType(*global->element) &&
                                         format::scalarTypeBytes(*given) == format::scalarTypeBytes(*global->element));
      if (!same)
        return Status(StatusCode::InvalidArgument, what + ", but the value is " +
                                                       std::string(format::scalarTypeName(*given)) + "; give it as " +
                                                       literalHint(*global->element));
    }
    if (value->bytes.size() != global->bytes)
      return Status(StatusCode::InvalidArgument,
                    what + ", but the value has " + std::to_string(value->bytes.size()) + " bytes");
    if (Status s = kernel.writeGlobal(global->symbol, std::as_bytes(std::span(value->bytes))); !s)
      return Status(s.code(), "--symbol " + name + ": " + s.message());
  }
  return Status::ok();
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
    std::string hint = a.type        ? literalHint(*a.type)
                       : a.size == 8 ? "i64=N"
                       : a.size == 4 ? "i32=N or f32=X"
                                     : "i" + std::to_string(a.size * 8) + "=N";
    if (v.elementCount() != 1 || v.bytes.size() != a.size)
      return Status(StatusCode::InvalidArgument,
                    "input " + std::to_string(i) + " is a scalar argument of " + std::to_string(a.size) +
                        " bytes, but the value given has " + std::to_string(v.elementCount()) + " element(s), " +
                        std::to_string(v.bytes.size()) + " bytes (" + run::formatValue(v, 4) +
                        "); pass one element, e.g. " + hint + "; " + signature(e));
    // The runtime checks the type (docs/hrx-run.md "Scalar launch arguments").
    auto converted = convertScalarArgument(arguments, i, {scalarTypeOf(v), v.bytes});
    if (!converted)
      return Status(StatusCode::InvalidArgument, "input " + std::to_string(i) + ": " + converted.status().message() +
                                                     " (" + run::formatValue(v, 4) + "); pass e.g. " + hint + "; " +
                                                     typedSignature(e));
    for (uint8_t byte : *converted) constants.push_back(static_cast<std::byte>(byte));
  }
  return buffers;
}

// How many --workload values an entry takes, as --list shows it.
std::string workloadNeeds(const ArtifactEntry &e) {
  if (e.engine == Engine::Npu) return ", no --workload";
  if (!e.gpuLaunch) return ", --workload takes 1 or more values (the grid)";
  size_t n = e.gpuLaunch->workloadBits.size();
  if (n == 0) return ", no --workload";
  return ", --workload takes " + std::to_string(n) + (n == 1 ? " value" : " values");
}

void listArtifact(const std::string &path, const format::Artifact &artifact,
                  const std::vector<ArtifactEntry> &entries) {
  std::cout << path << ": " << format::artifactKindName(artifact.kind) << "\n";
  const format::Artifact *member = nullptr;
  for (const ArtifactEntry &e : entries) {
    if (e.member != member) {
      member = e.member;
      std::cout << "  target " << member->target;
      if (member->kind == format::ArtifactKind::Xdna) std::cout << ", " << e.columns << " column(s)";
      if (member->referenceOnly())
        std::cout << ", reference-only (" << member->identity->referenceOnlyReason << ")";
      else if (member->identity && !member->identity->nativeCode.empty())
        std::cout << ", " << member->identity->nativeCode;
      std::cout << "\n";
    }
    std::cout << "    entry " << e.name << " (" << engineLabel(e.engine) << ", " << e.contract.bindings.size()
              << " binding(s)";
    if (e.gpuExport)
      std::cout << ", " << e.gpuExport->arguments.size() << " launch argument(s), " << e.gpuExport->constantBytes
                << " constant bytes";
    std::cout << ")" << workloadNeeds(e) << "\n";
    if (e.gpuExport)
      for (size_t i = 0, binding = 0; i < e.gpuExport->arguments.size(); ++i) {
        const format::LaunchArgument &a = e.gpuExport->arguments[i];
        std::cout << "      argument " << i << ": " << format::launchArgumentKindName(a.kind) << ", " << a.size
                  << " bytes";
        if (a.kind == format::LaunchArgumentKind::Buffer) std::cout << " (binding " << binding++ << ")";
        if (a.type && a.kind == format::LaunchArgumentKind::Value) std::cout << ", " << format::scalarTypeName(*a.type);
        if (!a.name.empty()) std::cout << ", %" << a.name;
        std::cout << "\n";
      }
    for (size_t i = 0; i < e.contract.bindings.size(); ++i)
      std::cout << "      " << describeBinding(i, e.contract.bindings[i]) << "\n";
    if (!e.contract.constants.empty()) std::cout << "      constants: " << e.contract.constants.size() << " bytes\n";
  }
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
  std::string path;     // empty: standard output (IREE's --output=-)
  bool append = false;  // IREE's --output=+PATH
};

// "--output=ORDINAL=PATH" names a binding; the IREE forms take the next writable binding:
// "@PATH" writes it, "+PATH" appends it, "-" prints it on stdout, "" (empty) skips it.
StatusOr<std::vector<OutputRequest>> outputRequests(const std::vector<std::string> &specs,
                                                    const std::vector<size_t> &writable, size_t bindingCount) {
  std::vector<OutputRequest> out;
  size_t nextWritable = 0;
  for (const std::string &spec : specs) {
    bool positional = spec.empty() || spec == "-" || spec.starts_with('@') || spec.starts_with('+');
    if (positional) {
      if (nextWritable >= writable.size())
        return Status(StatusCode::InvalidArgument, "--output=" + spec + ": there are only " +
                                                       std::to_string(writable.size()) + " writable binding(s)");
      size_t binding = writable[nextWritable++];
      if (spec.empty()) continue;
      if (spec.size() == 1 && spec != "-")
        return Status(StatusCode::InvalidArgument, "--output=" + spec + " names no file; expected " + spec + "PATH");
      out.push_back({binding, spec == "-" ? "" : spec.substr(1), spec.starts_with('+')});
      continue;
    }
    size_t eq = spec.find('=');
    char *end = nullptr;
    unsigned long ordinal = eq == std::string::npos ? 0 : std::strtoul(spec.c_str(), &end, 10);
    if (eq == std::string::npos || eq == 0 || end != spec.c_str() + eq || eq + 1 == spec.size() ||
        ordinal >= bindingCount)
      return Status(StatusCode::InvalidArgument,
                    "--output requires a valid binding_ordinal=path or @path, got '" + spec +
                        "' (also accepted: +path to append, - for stdout, nothing to skip)");
    for (const OutputRequest &r : out)
      if (r.binding == ordinal)
        return Status(StatusCode::InvalidArgument,
                      "binding " + std::to_string(ordinal) + " has more than one output path");
    out.push_back({ordinal, spec.substr(eq + 1)});
  }
  return out;
}

// IREE's --print_statistics, on stderr after the run.
void printStatistics(const Statistics &s) {
  std::cerr << "hrx-run: statistics: " << s.allocations << " allocation(s), " << s.imports << " import(s), "
            << s.submissions << " submission(s), " << s.completions << " completion(s), " << s.copiedBytes
            << " bytes copied, " << s.cacheMaintenanceBytes << " bytes of cache maintenance, peak " << s.peakBytes
            << " bytes live (" << s.liveBytes << " at exit)\n";
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
  if (o.listDevices) {
    std::cout << describeDevices();
    return kExitOk;
  }
  std::string path = !o.image.empty() ? o.image : !o.module.empty() ? o.module : o.artifact;
  if (path.empty()) return fail("no artifact: pass it as an argument or with --image (or --module)");
  if (!o.image.empty() && !o.module.empty()) return fail("--module and --image both name an artifact; pass one");
  if ((!o.image.empty() || !o.module.empty()) && !o.artifact.empty())
    return fail("unexpected positional argument '" + o.artifact + "' with " +
                (o.image.empty() ? "--module" : "--image"));
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
           entry.member->target +
           (entry.engine == Engine::Npu ? ", " + std::to_string(entry.columns) + " column(s)" : "") +
           (entry.member->referenceOnly() ? ", reference-only"
            : entry.member->identity && !entry.member->identity->nativeCode.empty()
                ? ", native core code (not yet run on hardware)"
                : ""));

  auto request = parseDeviceRequest(o.device);
  if (!request) return fail(request.status().message());
  auto choice = chooseDevice(rt, *request, entry, columns);
  if (!choice) return fail(choice.status().message());
  if (!choice->announcement.empty()) progress(choice->announcement);
  const Device *device = &choice->device;
  StatusOr<std::shared_ptr<Kernel>> kernelOr = Status(StatusCode::Internal, "not loaded");
  bool native = device->kind != DeviceKind::Host;
  if (native) {
    if ((device->kind == DeviceKind::Npu) != (entry.engine == Engine::Npu))
      return fail("entry '" + entry.name + "' is a " + engineLabel(entry.engine) + " entry; the " +
                  (device->kind == DeviceKind::Npu ? "npu" : "gpu") + " device cannot run it");
    if (device->kind == DeviceKind::Gpu) {
      // GPU entries on the gpu device run through KFD (the kernel driver, or HRX_KFD=emulated).
      if (Status supported = checkNativeExecution(entry, *device, columns); !supported)
        return fail(supported.message());
      kernelOr = loadOnGpu(entry, o.workload, {rt.options().gpuIndex});
    } else {
      if (npuEmulated() && entry.member->referenceOnly())
        progress("emulated amdxdna (HRX_AMDXDNA=emulated): the image is reference-only, so its cores run as the "
                 "workers' host twins on the transaction array model; real hardware refuses it");
      else if (npuEmulated() && entry.member->identity && !entry.member->identity->nativeCode.empty())
        progress("emulated amdxdna (HRX_AMDXDNA=emulated): the image carries " + entry.member->identity->nativeCode +
                 "; the emulator runs it in the AIE2P simulator on the transaction array model");
      if (!npuEmulated() && entry.member->identity && !entry.member->identity->nativeCode.empty())
        progress("npu device: the image carries " + entry.member->identity->nativeCode +
                 "; its first run on an NPU is this one");
      kernelOr = loadOnNpu(entry, *device, columns);
      if (!kernelOr) return fail(kernelOr.status().message());
    }
  }
  if (!native && entry.engine == Engine::Npu && entry.member->target != kNpuTarget)
    return fail("artifact and device targets differ: the image is for " + entry.member->target +
                "; the host reference device runs " + kNpuTarget + " images");
  if (!native && entry.engine == Engine::Npu && columns != entry.columns)
    return fail("the image needs exactly " + std::to_string(entry.columns) +
                " column(s); --columns=" + std::to_string(columns) + " was requested");

  auto dimensions = launchDimensions(o);
  if (!dimensions) return fail(dimensions.status().message());
  if (*dimensions && native)
    return fail("--grid, --block and --dynamic-lds are supported on the host reference device only in this build");
  std::optional<ArrayModelKind> arrayModel;
  if (!o.arrayModel.empty()) {
    auto parsed = parseArrayModel(o.arrayModel);
    if (!parsed) return fail(parsed.status().message());
    arrayModel = *parsed;
  }
  std::optional<CoreModelKind> coreModel;
  if (!o.coreModel.empty()) {
    auto parsed = parseCoreModel(o.coreModel);
    if (!parsed) return fail(parsed.status().message());
    coreModel = *parsed;
  }
  // default: $HRX_ARRAY_MODEL, else plan; $HRX_CORE_MODEL, else native core code where the image has it
  if (!native) kernelOr = loadOnHost(entry, o.workload, *dimensions, arrayModel, coreModel);
  if (!kernelOr) return fail(path + ": " + kernelOr.status().message());
  auto kernel = rt.adoptKernel(*kernelOr);
  if (!kernel) return fail(kernel.status().message());
  if (Status s = writeSymbols(entry, **kernel, o.symbols); !s) return fail(s.message());

  auto values = bindingValues(o);
  if (!values) return fail(values.status().message());
  for (size_t i = 0; i < values->size(); ++i)
    if ((*values)[i].hostTexture && native)
      return fail("--input " + std::to_string(i) +
                  " is a texture<...>(...) value, which only the host reference device samples (--device=host); "
                  "on the GPU a texture object is an image descriptor, which hrx-run does not create yet");
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
  std::string where = "the host reference device";
  if (device->kind == DeviceKind::Npu) where = "the npu device";
  if (device->kind == DeviceKind::Gpu)
    if (auto gpu = describeGpuDevice(rt.options().gpuIndex)) where = "the gpu device, " + *gpu;
  progress("prepared '" + entry.name + "' on " + where + " (" + engineLabel(entry.engine) + " entry, " +
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
  if (o.coreStats) {
    NativeCoreTotals totals = nativeCoreTotals();
    progress("native core code: " + std::to_string(totals.calls) + " stage call(s), " + std::to_string(totals.cycles) +
             " simulated cycles" +
             (totals.calls ? " (" + std::to_string(totals.cycles / totals.calls) + " per call)" : std::string()) +
             ", " + std::to_string(totals.bundles) + " bundles issued");
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
    if (r.path.empty()) continue;  // "-": the binding[i] line on stdout is its output
    if (Status s = run::writeValue(r.path, results[r.binding], r.append); !s) return fail(s.message());
    progress(std::string(r.append ? "appended" : "wrote") + " binding " + std::to_string(r.binding) + ": " +
             std::to_string(results[r.binding].bytes.size()) + " bytes to " + r.path);
  }
  if (o.benchmark) {
    std::vector<uint64_t> sorted = samples;
    std::sort(sorted.begin(), sorted.end());
    uint64_t sum = 0;
    for (uint64_t s : sorted) sum += s;
    std::cout << "{\"entry\":\"" << entry.name << "\",\"device\":\"" << (native ? "npu" : "host")
              << "\",\"repeat\":" << o.repeat << ",\"min_us\":" << sorted.front()
              << ",\"median_us\":" << percentile(sorted, 0.5) << ",\"p95_us\":" << percentile(sorted, 0.95)
              << ",\"mean_us\":" << sum / sorted.size() << ",\"statistics\":" << rt.statistics().toJson() << "}\n";
  } else {
    std::cout << "EXEC @" << entry.name << "\n";
    for (size_t i : writable)
      std::cout << "binding[" << i << "]: " << run::formatValue(results[i], o.outputMaxElements) << "\n";
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
  if (o.printStatistics) printStatistics(rt.statistics());
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
  app.set_version_flag("--version", std::string("hrx-run version ") + hrx::runtime::version() +
                                        " (artifacts from hrxcc on LLVM " HRX_LLVM_VERSION_STRING
                                        ")\nTargets: " HRX_SUPPORTED_TARGETS);
  Options o;
  app.add_option("artifact", o.artifact, "Artifact to load");
  app.add_option("--image", o.image, "Artifact to load (iree-xdna-run spelling)");
  app.add_option("--module", o.module, "Artifact to load (iree-run-module spelling)");
  app.add_option("--entry,--function", o.entry, "Entry to run (default or empty: the first)");
  app.add_option("--columns", o.columns, "NPU partition width; must equal the image's")->check(CLI::Range(1, 8));
  app.add_option("--binding", o.bindings, "Raw initial bytes of the next binding (repeat, binding order)")
      ->allow_extra_args(false);
  app.add_option("--input", o.inputs,
                 "Typed value of the next binding or launch argument: 4xi32=1 2 3 4, i64=500, @x.npy, @x.bin")
      ->allow_extra_args(false);
  app.add_option("--symbol", o.symbols,
                 "NAME=VALUE: set the GPU entry's __device__/__constant__ global NAME before the run (repeat); VALUE "
                 "as for --input, of the global's type and size")
      ->allow_extra_args(false);
  app.add_option("--output", o.outputs,
                 "ORDINAL=PATH (raw); for the next writable binding @PATH (.npy or raw), +PATH (append), - (stdout) or "
                 "empty (skip)")
      ->allow_extra_args(false);
  app.add_option("--expected_output", o.expected, "Expected value of the next writable binding, or (ignored)")
      ->allow_extra_args(false);
  app.add_option("--tolerance", o.tolerance, "Absolute tolerance for floating-point comparisons")
      ->check(positive(true));
  app.add_option("--array-model", o.arrayModel,
                 "host device, NPU entries: plan (run the array plan) or transaction (execute the image's own "
                 "transaction on the simulated NPU5 array); default $HRX_ARRAY_MODEL, else plan");
  app.add_option("--core-model", o.coreModel,
                 "host device, NPU entries: native (workers run the image's AIE2P core code in the instruction-set "
                 "simulator; the default where the image has it) or twin (their host-compiled twins); default "
                 "$HRX_CORE_MODEL, else native");
  app.add_flag("--core-stats", o.coreStats, "Print the native core code's stage calls and simulated cycles");
  app.add_option("--device", o.device,
                 "auto, host, npu or gpu (default: $HRX_DEVICE, else auto: the qualified native device when the "
                 "artifact can run on it, else the host reference device)");
  app.add_flag("--list_devices", o.listDevices, "List the devices admission finds, with reasons, then exit");
  app.add_option("--workload", o.workload, "GPU launch workload (u64 values, comma-separated)")->delimiter(',');
  addLaunchDimensionOptions(app, o);
  app.add_flag("--list", o.list, "List entries, bindings and contracts, then exit");
  app.add_option("--repeat", o.repeat, "Run the entry N times (replaying one prepared graph)")->check(positive(false));
  app.add_flag("--no-restore", o.noRestore, "With --repeat, let each repetition start from the previous one's outputs");
  app.add_flag("--benchmark", o.benchmark, "Print timing JSON (min, median, p95) instead of results");
  app.add_option("--benchmark_repetitions", o.benchmarkRepetitions, "Same as --repeat=N --benchmark")
      ->check(positive(false));
  app.add_option("--output_max_element_count", o.outputMaxElements,
                 "Print at most N elements of each result, then ... (default 1024)")
      ->check(positive(true));
  app.add_flag("--print_statistics", o.printStatistics, "Print the runtime's statistics on stderr after the run");
  app.add_option("--trace", o.trace, "Write a Chrome/Perfetto trace of the regions to FILE");
  app.add_option("--timeout", o.timeoutSeconds, "Seconds to wait for each submission (default 60)")
      ->check(positive(false));
  app.allow_extras();
  run::Arguments arguments = run::withIreeEmptyValues(argc, argv);
  try {
    app.parse(arguments.argc(), arguments.argv.data());
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    return fail(run::explainParseError(app, e, argc, argv));
  }
  for (std::string &output : o.outputs)
    if (output == run::kSkipOutput) output.clear();
  if (o.benchmarkRepetitions) {
    o.repeat = *o.benchmarkRepetitions;
    o.benchmark = true;
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
