#include "Example.h"

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
  if (const char *env = std::getenv("HRX_DEVICE"); env && *env) device = env;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument.starts_with("--device="))
      device = argument.substr(9);
    else
      command.arguments.push_back(std::move(argument));
  }
  if (!device.empty() && device != "host" && device != "npu" && device != "gpu")
    return Status(StatusCode::InvalidArgument, "unknown device '" + device + "'; expected host, npu or gpu");
  command.hostDevice = device == "host";
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

StatusOr<Device> selectNpu(runtime::Runtime &rt, const CommandLine &command) {
  if (command.hostDevice) return rt.host();
  StatusOr<Device> npu = rt.npu(0);
  if (!npu)
    return Status(npu.status().code(), "no qualified NPU: " + npu.status().message() +
                                           "; pass --device=host or set HRX_DEVICE=host to run on the host reference device");
  return npu;
}

std::string describeNpu(const Device &device) {
  if (device.kind == DeviceKind::Host) return "NPU: host reference device (runs amd.xdna.strix_halo.17f0_11 images on the CPU)";
  return "NPU: " + device.target;
}

namespace {

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

// Runs hrxcc without a shell; its diagnostics go to our standard error.
Status compileKernel(const KernelRequest &request, const fs::path &output) {
  fs::path hrxcc = executableDirectory() / "hrxcc";
  if (const char *env = std::getenv("HRXCC"); env && *env) hrxcc = env;
  fs::path source = fs::path(HRX_EXAMPLES_KERNEL_DIR) / (request.source + ".loom");
  std::vector<std::string> arguments = {hrxcc.string(), "-target", "xdna",
                                        "--config=" + request.configKey + "=" + std::to_string(request.configValue),
                                        source.string(), "-o", output.string()};
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
    return Status(StatusCode::Internal, "hrxcc failed to compile " + source.string() + " with " + request.configKey +
                                            "=" + std::to_string(request.configValue));
  return Status();
}

}  // namespace

StatusOr<std::unique_ptr<LoadedKernel>> loadKernel(runtime::Runtime &rt, const Device &device,
                                                   const KernelRequest &request) {
  std::string fileName = request.source + "-" + std::to_string(request.configValue) + ".xdna";
  fs::path path = executableDirectory() / fileName;
  fs::path scratch;
  if (!fs::exists(path)) {
    std::string pattern = (fs::temp_directory_path() / "hrx-example-XXXXXX").string();
    if (!mkdtemp(pattern.data())) return Status(StatusCode::Internal, "cannot create a temporary directory: " + std::string(std::strerror(errno)));
    scratch = pattern;
    path = scratch / fileName;
    Status compiled = compileKernel(request, path);
    if (!compiled) {
      fs::remove_all(scratch);
      return compiled;
    }
  }
  auto loaded = std::make_unique<LoadedKernel>();
  auto bytes = readFile(path);
  if (!scratch.empty()) fs::remove_all(scratch);
  if (!bytes) return bytes.status();
  loaded->bytes = std::move(*bytes);
  auto artifact = format::readArtifact(loaded->bytes);
  if (!artifact) return Status(artifact.status().code(), path.string() + ": " + artifact.status().message());
  loaded->artifact = std::move(*artifact);
  auto entries = runtime::listEntries(loaded->artifact);
  if (!entries) return Status(entries.status().code(), path.string() + ": " + entries.status().message());
  loaded->entries = std::move(*entries);
  auto entry = runtime::findEntry(loaded->entries, request.entry, runtime::Engine::Npu);
  if (!entry) return Status(entry.status().code(), path.string() + ": " + entry.status().message());
  if (device.kind != DeviceKind::Host) {
    Status native = runtime::checkNativeExecution(**entry, device, (*entry)->columns);
    return native ? Status(StatusCode::Unimplemented, "native NPU execution is not available in this build")
                  : Status(native.code(), path.string() + ": " + native.message());
  }
  auto kernel = runtime::loadOnHost(**entry, {});
  if (!kernel) return Status(kernel.status().code(), path.string() + ": " + kernel.status().message());
  auto adopted = rt.adoptKernel(*kernel);
  if (!adopted) return adopted.status();
  loaded->kernel = *adopted;
  return loaded;
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
