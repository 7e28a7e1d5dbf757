// What the examples share: device selection (qualified hardware, or the host reference device
// when asked for), loading the bundled kernels, argument parsing, host-side buffer checks and
// timing statistics.
#pragma once

#include "hrx/format/Artifact.h"
#include "hrx/runtime/DeviceChoice.h"
#include "hrx/runtime/Loader.h"
#include "hrx/runtime/Runtime.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hrx::examples {

// The command line without the device choice: `--device=auto|host|npu|gpu` is taken out of the
// positional arguments; without it HRX_DEVICE decides, else auto. `gpu` runs GPU work on the
// gfx1151 through KFD (HRX_KFD=emulated: the emulated KFD) and NPU work on the host reference device;
// `npu` runs NPU work on the npu device (amdxdna; HRX_AMDXDNA=emulated) and GPU work on the host.
struct CommandLine {
  std::string program;
  std::vector<std::string> arguments;
  runtime::DeviceRequest device = runtime::DeviceRequest::Auto;
};
StatusOr<CommandLine> parseCommandLine(int argc, char **argv);

// A decimal integer; InvalidArgument "invalid integer: X" otherwise.
StatusOr<uint64_t> parseInteger(const std::string &text);

// The runtime and the devices an example runs on. Opening it prints the first output line,
// which names them: "NPU: …", or "GPU: …; NPU: …" when the example uses the GPU too. On the
// host reference device both handles are the host device.
struct Session {
  std::unique_ptr<runtime::Runtime> runtime;
  runtime::Device npu;
  std::optional<runtime::Device> gpu;
};
enum class Engines { Npu, GpuAndNpu };
// auto: the qualified devices when the example can run on them natively, else the host
// reference device, announced on stderr with the reason. An explicit npu/gpu: the qualified
// devices or an error that names what was found and how to run on the host device.
StatusOr<Session> openSession(const CommandLine &command, Engines engines);

// A kernel source and its specialisation. A bundled kernel (a file name under examples/kernels)
// is built with its default specialisation beside the executable as
// <stem>[-<value>...].<xdna|hsaco>, one -<value> per setting; other specialisations, and sources
// given by absolute path, are compiled on demand by hrxcc (beside the executable, or $HRXCC).
enum class KernelTarget { Xdna, Gfx1151 };
struct KernelSetting {
  std::string key;
  uint64_t value = 0;
};
struct KernelRequest {
  std::string source;  // "copy.loom", "affine.cpp" under examples/kernels, or an absolute path
  std::string entry;   // export name
  KernelTarget target = KernelTarget::Xdna;
  // Loom configuration values (--config=key=value) or, for C/C++, macros (-Dkey=value).
  std::vector<KernelSetting> settings;
  std::vector<uint64_t> workload;  // GPU entries: the launch program's workload values
};

// The loaded kernel and the artifact bytes it came from (kept alive with it).
struct LoadedKernel {
  std::vector<uint8_t> bytes;
  format::Artifact artifact;
  std::vector<runtime::ArtifactEntry> entries;
  std::shared_ptr<runtime::Kernel> kernel;
};
StatusOr<std::unique_ptr<LoadedKernel>> loadKernel(Session &session, const KernelRequest &request);

// shared_roundtrip's and shared_bench's set-up: their one optional argument [bytes=1048576] (a
// multiple of 4096 in 4096..=67108864; `usage` for a wrong argument count), the session, the
// copy kernel (examples/kernels/copy.loom) for `bytes`, and `bufferCount` Shared buffers of
// `bytes` each.
inline constexpr uint64_t kCopyPacketBytes = 4096;
struct SharedCopy {
  uint64_t bytes = 0;
  Session session;
  std::unique_ptr<LoadedKernel> copy;
  std::vector<runtime::Buffer> buffers;
};
StatusOr<SharedCopy> setUpSharedCopy(const CommandLine &command, const std::string &usage, unsigned bufferCount);

// The first failure among statuses evaluated in order (graph recording, mostly).
Status firstError(std::initializer_list<Status> statuses);
// Sets every byte of a host-mapped buffer from the host.
Status fillFromHost(const runtime::Buffer &buffer, std::byte value);
// Whether every byte of a host-mapped buffer equals `value`.
StatusOr<bool> holdsOnly(const runtime::Buffer &buffer, std::byte value);

// InvalidArgument "replay unexpectedly allocated or imported storage" when the allocation or
// import counters moved between the two samples.
Status checkNoReplayAllocations(const runtime::Statistics &before, const runtime::Statistics &after);

// Nearest-rank percentile (p in 0..100] of unsorted samples; the samples are sorted in place.
double nearestRank(std::vector<double> &samples, double p);
// The median; an even count averages the two middle values.
double median(std::vector<double> samples);

// "<program>: error: <message>" on standard error; returns the exit status 1.
int fail(const std::string &program, const std::string &message);

}  // namespace hrx::examples
