#include "Example.h"

#include "hrx/runtime/GpuDevice.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace hrx::examples {
namespace fs = std::filesystem;
using runtime::Device;
using runtime::DeviceKind;

StatusOr<CommandLine> parseCommandLine(int argc, char **argv) {
  CommandLine command;
  command.program = fs::path(argv[0]).filename().string();
  std::string device;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument.starts_with("--device="))
      device = argument.substr(9);
    else
      command.arguments.push_back(std::move(argument));
  }
  auto request = runtime::parseDeviceRequest(device);
  if (!request) return request.status();
  command.device = *request;
  return command;
}

StatusOr<uint64_t> parseInteger(const std::string &text) {
  uint64_t value = 0;
  bool valid = !text.empty() && text.size() <= 19 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (valid)
    for (char c : text) value = value * 10 + static_cast<uint64_t>(c - '0');
  if (!valid) return Status(StatusCode::InvalidArgument, "invalid integer: " + text);
  return value;
}

namespace {

StatusOr<uint64_t> parseCopyBytes(const CommandLine &command, const std::string &usage) {
  constexpr uint64_t kMaxBytes = 64ull << 20, kDefaultBytes = 1048576;
  if (command.arguments.size() > 1) return Status(StatusCode::InvalidArgument, usage);
  uint64_t bytes = kDefaultBytes;
  if (!command.arguments.empty()) {
    auto parsed = parseInteger(command.arguments[0]);
    if (!parsed) return parsed.status();
    bytes = *parsed;
  }
  if (bytes < kCopyPacketBytes || bytes > kMaxBytes || bytes % kCopyPacketBytes)
    return Status(StatusCode::InvalidArgument, "bytes must be a multiple of 4096 in 4096..=67108864");
  return bytes;
}

// The qualified device, or its admission error with the way to the host reference device.
StatusOr<Device> requireDevice(StatusOr<Device> admitted, const char *what) {
  if (admitted) return admitted;
  return Status(admitted.status().code(), std::string("no qualified ") + what + ": " + admitted.status().message() +
                                              "; pass --device=host or set HRX_DEVICE=host to run on the host reference device");
}

std::string describe(const Device &device, const char *engine, const char *qualified, const char *images) {
  if (device.kind == DeviceKind::Host)
    return std::string(engine) + ": host reference device (runs " + qualified + " " + images + " on the CPU)";
  if (device.kind == DeviceKind::Gpu)
    if (auto gpu = runtime::describeGpuDevice(device.index)) return std::string(engine) + ": " + *gpu;
  return std::string(engine) + ": " + device.target;
}

fs::path executableDirectory() {
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::current_path() : self.parent_path();
}

StatusOr<std::vector<uint8_t>> readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(StatusCode::NotFound, "cannot read '" + path.string() + "': " + std::strerror(errno));
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), {});
}

std::string describeSettings(const KernelRequest &request) {
  if (request.settings.empty()) return "its defaults";
  std::string text;
  for (const KernelSetting &setting : request.settings)
    text += (text.empty() ? "" : ", ") + setting.key + "=" + std::to_string(setting.value);
  return text;
}

// Runs hrxcc without a shell; its diagnostics go to our standard error.
Status compileKernel(const KernelRequest &request, const fs::path &output) {
  fs::path hrxcc = executableDirectory() / "hrxcc";
  if (const char *env = std::getenv("HRXCC"); env && *env) hrxcc = env;
  fs::path source = fs::path(HRX_EXAMPLES_KERNEL_DIR) / request.source;
  std::vector<std::string> arguments = {hrxcc.string()};
  if (request.target == KernelTarget::Xdna)
    arguments.insert(arguments.end(), {"-target", "xdna"});
  else
    arguments.push_back("--offload-arch=gfx1151");
  for (const KernelSetting &setting : request.settings)
    arguments.push_back((source.extension() == ".loom" ? "--config=" : "-D") + setting.key + "=" +
                        std::to_string(setting.value));
  arguments.insert(arguments.end(), {source.string(), "-o", output.string()});
  std::vector<char *> argv;
  for (std::string &a : arguments) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (int error = posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ))
    return Status(StatusCode::NotFound, "cannot run hrxcc (" + hrxcc.string() + "): " + std::strerror(error) +
                                            "; set HRXCC to the compiler");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Status(StatusCode::Internal, "hrxcc failed to compile " + source.string() + " with " + describeSettings(request));
  return Status();
}

// The bundled artifact's path, or a fresh compilation in `scratch` (created here).
StatusOr<fs::path> locateArtifact(const KernelRequest &request, fs::path &scratch) {
  std::string fileName = fs::path(request.source).stem().string();
  for (const KernelSetting &setting : request.settings) fileName += "-" + std::to_string(setting.value);
  fileName += request.target == KernelTarget::Xdna ? ".xdna" : ".hsaco";
  fs::path path = executableDirectory() / fileName;
  if (fs::path(request.source).is_relative() && fs::exists(path)) return path;
  std::string pattern = (fs::temp_directory_path() / "hrx-example-XXXXXX").string();
  if (!mkdtemp(pattern.data()))
    return Status(StatusCode::Internal, "cannot create a temporary directory: " + std::string(std::strerror(errno)));
  scratch = pattern;
  path = scratch / fileName;
  if (Status compiled = compileKernel(request, path); !compiled) return compiled;
  return path;
}

}  // namespace

StatusOr<Session> openSession(const CommandLine &command, Engines engines) {
  auto runtime = runtime::Runtime::create();
  if (!runtime) return runtime.status();
  Session session{std::move(*runtime), {}, std::nullopt};
  runtime::Runtime &rt = *session.runtime;
  bool gpu = engines == Engines::GpuAndNpu;
  switch (command.device) {
  case runtime::DeviceRequest::Auto: {
    // Each engine on its qualified native device when it can run there, else on the host
    // reference device; the first reason for a fallback is announced once.
    std::string fallback;
    for (runtime::Engine engine : {runtime::Engine::Gpu, runtime::Engine::Npu}) {
      if (engine == runtime::Engine::Gpu && !gpu) continue;
      auto choice = runtime::chooseDevice(rt, runtime::DeviceRequest::Auto, engine);
      if (!choice) return choice.status();
      if (fallback.empty()) fallback = choice->announcement;
      if (engine == runtime::Engine::Gpu)
        session.gpu = choice->device;
      else
        session.npu = choice->device;
    }
    if (!fallback.empty()) std::cerr << command.program << ": " << fallback << "\n";
    break;
  }
  case runtime::DeviceRequest::Host:
    session.npu = rt.host();
    if (gpu) session.gpu = rt.host();
    break;
  case runtime::DeviceRequest::Gpu:
    // GPU work on the gfx1151 through KFD, NPU work on the host reference device.
    session.npu = rt.host();
    if (gpu) {
      auto admitted = requireDevice(rt.gpu(), "GPU");
      if (!admitted) return admitted.status();
      session.gpu = *admitted;
    }
    break;
  case runtime::DeviceRequest::Npu: {
    // NPU work on the npu device (amdxdna, or HRX_AMDXDNA=emulated), GPU work on the host
    // reference device, so GPU+NPU examples can run their NPU branch natively.
    if (gpu) session.gpu = rt.host();
    auto admitted = requireDevice(rt.npu(0), "NPU");
    if (!admitted) return admitted.status();
    session.npu = *admitted;
    break;
  }
  }
  std::string npuLine = describe(session.npu, "NPU", "amd.xdna.strix_halo.17f0_11", "images");
  if (session.gpu)
    std::cout << describe(*session.gpu, "GPU", "gfx1151", "code objects") << "; " << npuLine << "\n";
  else
    std::cout << npuLine << "\n";
  return session;
}

StatusOr<std::unique_ptr<LoadedKernel>> loadKernel(Session &session, const KernelRequest &request) {
  bool gpu = request.target == KernelTarget::Gfx1151;
  if (gpu && !session.gpu)
    return Status(StatusCode::FailedPrecondition, "'" + request.source + "' is a GPU kernel, but the session has no GPU");
  const Device &device = gpu ? *session.gpu : session.npu;
  fs::path scratch;
  auto path = locateArtifact(request, scratch);
  auto bytes = path ? readFile(*path) : StatusOr<std::vector<uint8_t>>(path.status());
  if (!scratch.empty()) fs::remove_all(scratch);
  if (!bytes) return bytes.status();

  std::string where = path->string() + ": ";
  auto loaded = std::make_unique<LoadedKernel>();
  loaded->bytes = std::move(*bytes);
  auto artifact = format::readArtifact(loaded->bytes);
  if (!artifact) return Status(artifact.status().code(), where + artifact.status().message());
  loaded->artifact = std::move(*artifact);
  auto entries = runtime::listEntries(loaded->artifact);
  if (!entries) return Status(entries.status().code(), where + entries.status().message());
  loaded->entries = std::move(*entries);
  auto entry = runtime::findEntry(loaded->entries, request.entry, gpu ? runtime::Engine::Gpu : runtime::Engine::Npu);
  if (!entry) return Status(entry.status().code(), where + entry.status().message());
  if (device.kind == DeviceKind::Gpu) {
    Status native = runtime::checkNativeExecution(**entry, device, (*entry)->columns);
    if (!native) return Status(native.code(), where + native.message());
  }
  // The gpu device goes through KFD (HRX_KFD=emulated: the emulated KFD), the npu device through
  // amdxdna (HRX_AMDXDNA=emulated: the emulated amdxdna).
  auto kernel = device.kind == DeviceKind::Gpu   ? runtime::loadOnGpu(**entry, request.workload, {device.index})
                : device.kind == DeviceKind::Npu ? runtime::loadOnNpu(**entry, device, (*entry)->columns)
                                               : runtime::loadOnHost(**entry, request.workload);
  if (!kernel) return Status(kernel.status().code(), where + kernel.status().message());
  auto adopted = session.runtime->adoptKernel(*kernel);
  if (!adopted) return adopted.status();
  loaded->kernel = *adopted;
  return loaded;
}

StatusOr<SharedCopy> setUpSharedCopy(const CommandLine &command, const std::string &usage, unsigned bufferCount) {
  SharedCopy setup;
  auto bytes = parseCopyBytes(command, usage);
  if (!bytes) return bytes.status();
  setup.bytes = *bytes;
  auto session = openSession(command, Engines::Npu);
  if (!session) return session.status();
  setup.session = std::move(*session);
  auto copy = loadKernel(setup.session, {"copy.loom", "copy", KernelTarget::Xdna, {{"copy.packets", setup.bytes / kCopyPacketBytes}}, {}});
  if (!copy) return copy.status();
  setup.copy = std::move(*copy);
  for (unsigned i = 0; i < bufferCount; ++i) {
    auto buffer = setup.session.runtime->allocate(setup.bytes, runtime::Placement::Shared(setup.session.npu));
    if (!buffer) return buffer.status();
    setup.buffers.push_back(std::move(*buffer));
  }
  return setup;
}

Status firstError(std::initializer_list<Status> statuses) {
  for (const Status &status : statuses)
    if (!status) return status;
  return Status();
}

Status fillFromHost(const runtime::Buffer &buffer, std::byte value) {
  auto map = buffer.mapWrite();
  if (!map) return map.status();
  std::fill(map->mutableBytes().begin(), map->mutableBytes().end(), value);
  return Status();
}

StatusOr<bool> holdsOnly(const runtime::Buffer &buffer, std::byte value) {
  auto map = buffer.mapRead();
  if (!map) return map.status();
  auto data = map->bytes();
  return std::all_of(data.begin(), data.end(), [value](std::byte b) { return b == value; });
}

Status checkNoReplayAllocations(const runtime::Statistics &before, const runtime::Statistics &after) {
  if (before.allocations != after.allocations || before.imports != after.imports)
    return Status(StatusCode::Internal, "replay unexpectedly allocated or imported storage");
  return Status();
}

double nearestRank(std::vector<double> &samples, double p) {
  std::sort(samples.begin(), samples.end());
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(samples.size())));
  return samples[std::clamp<size_t>(rank, 1, samples.size()) - 1];
}

double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  size_t n = samples.size();
  return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
}

int fail(const std::string &program, const std::string &message) {
  std::cout.flush();
  std::cerr << program << ": error: " << message << "\n";
  return 1;
}

}  // namespace hrx::examples
