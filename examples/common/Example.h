// What the examples share: device selection (qualified hardware, or the host reference device
// when asked for), loading the bundled kernels, argument parsing and timing statistics.
#pragma once

#include "hrx/format/Artifact.h"
#include "hrx/runtime/Loader.h"
#include "hrx/runtime/Runtime.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hrx::examples {

// The command line without the device choice: `--device=host|npu|gpu` is taken out of the
// positional arguments; without it HRX_DEVICE decides.
struct CommandLine {
  std::string program;
  std::vector<std::string> arguments;
  bool hostDevice = false;
};
StatusOr<CommandLine> parseCommandLine(int argc, char **argv);

// A decimal integer; InvalidArgument "invalid integer: X" otherwise.
StatusOr<uint64_t> parseInteger(const std::string &text);

// The shared_* examples move 4096-byte copy packets.
inline constexpr uint64_t kCopyPacketBytes = 4096;
// Their one optional argument, [bytes=1048576]: a multiple of 4096 in 4096..=67108864. An error
// status carries the message to print (`usage` for a wrong argument count).
StatusOr<uint64_t> parseCopyBytes(const CommandLine &command, const std::string &usage);

// The NPU the example runs on: the host reference device when asked for, else the qualified
// NPU, else an error that names what was found and how to run on the host device.
StatusOr<runtime::Device> selectNpu(runtime::Runtime &rt, const CommandLine &command);
// How the first output line names the NPU.
std::string describeNpu(const runtime::Device &device);

// A bundled kernel specialised for one configuration value. The build puts the default
// configurations beside the executable as <source>-<value>.xdna; other values are compiled on
// demand by hrxcc (beside the executable, or $HRXCC) from the kernel source.
struct KernelRequest {
  std::string source;     // file stem under examples/kernels, e.g. "copy"
  std::string entry;      // export name
  std::string configKey;  // e.g. "copy.packets"
  uint64_t configValue = 0;
};

// The loaded kernel and the artifact bytes it came from (kept alive with it).
struct LoadedKernel {
  std::vector<uint8_t> bytes;
  format::Artifact artifact;
  std::vector<runtime::ArtifactEntry> entries;
  std::shared_ptr<runtime::Kernel> kernel;
};
StatusOr<std::unique_ptr<LoadedKernel>> loadKernel(runtime::Runtime &rt, const runtime::Device &device,
                                                             const KernelRequest &request);

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
