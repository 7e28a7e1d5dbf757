// From a validated artifact (hrx/format/Artifact.h) to runnable kernels: entry listing,
// admission of an artifact on a device, and loading entries on the host reference device.
#pragma once

#include "hrx/runtime/Export.h"
#include "hrx/format/Artifact.h"
#include "hrx/runtime/HostDevice.h"
#include "hrx/runtime/Graph.h"
#include "hrx/runtime/Memory.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::runtime {

// One runnable export of an artifact (fat containers contribute their members' entries).
struct HRX_RUNTIME_API ArtifactEntry {
  std::string name;
  Engine engine = Engine::Npu;               // Npu for .xdna entries, Gpu for AMDGPU kernels
  const format::Artifact *member = nullptr;  // the .xdna or AMDGPU artifact holding it
  KernelContract contract;
  uint32_t columns = 0;  // .xdna: the partition width the image was built for
  // AMDGPU with .hrx.manifest/.hrx.launch: the launch signature and launch program (else null).
  const format::AmdgpuExport *gpuExport = nullptr;
  const format::AmdgpuLaunch *gpuLaunch = nullptr;
};

// Every entry, in artifact order. .xdna contracts come from .hrx.contract when present,
// else from the binding rows (an unused NONE row becomes a 1-byte "unused slot").
HRX_RUNTIME_API StatusOr<std::vector<ArtifactEntry>> listEntries(const format::Artifact &artifact);

// The entry called `name` ("" = the first entry). For a fat artifact holding the name for
// several targets, the one matching `preferred` wins. NotFound lists the available names.
HRX_RUNTIME_API StatusOr<const ArtifactEntry *> findEntry(const std::vector<ArtifactEntry> &entries,
                                                          const std::string &name, Engine preferred);

// Whether `entry` may run natively on `device`: the artifact's target equals the device's;
// GPU entries then pass (they run through KFD: hrx/runtime/GpuDevice.h). For NPU entries the
// requested columns must equal the image's, the image must not be reference-only, and the
// native library must be installed; native NPU execution itself needs the hardware runtime
// (libamdf), which this build does not drive: past those checks the answer is Unimplemented.
HRX_RUNTIME_API Status checkNativeExecution(const ArtifactEntry &entry, const Device &device,
                                            uint32_t requestedColumns);

// Loads `entry` on the admitted NPU `device` through the amdxdna uAPI (runtime/xdna/,
// docs/runtime.md "The amdxdna device"): a hardware context of the image's columns, BOs for
// the bindings, the command and the device heap; runs relocate, submit ERT_START_NPU packets
// and wait. HRX_AMDXDNA selects the driver: unset, the libamdf route of checkNativeExecution
// (which this build does not drive: its status is returned); "native", the accel node directly
// (never run on hardware; reference-only images are refused as checkNativeExecution says);
// "emulated" (npuEmulated()), the emulated amdxdna, which executes each command on the
// transaction array model with the workers' host twins as cores, so reference-only images run.
HRX_RUNTIME_API StatusOr<std::shared_ptr<Kernel>> loadOnNpu(const ArtifactEntry &entry, const Device &device,
                                                            uint32_t requestedColumns);
HRX_RUNTIME_API bool npuEmulated();

// How the host reference device runs an NPU entry: from its array plan (.hrx.plan), or by
// executing its own transaction on the simulated array (hrx/array/ArrayModel.h).
enum class ArrayModelKind { Plan, Transaction };
HRX_RUNTIME_API StatusOr<ArrayModelKind> parseArrayModel(std::string_view name);  // "plan" | "transaction"
// Loads `entry` on the host reference device: the member's .hrx.host code, plus its array plan
// (.xdna) or launch program (AMDGPU, evaluated on `workload`, which must have one value per
// workload argument of .hrx.launch). GPU kernels take their scalar launch arguments as a
// constants block (Kernel::constantBytes()).
// With `dimensions` (a GPU entry), the grid and block are those instead of the launch program's,
// and `workload` may be empty.
// NPU entries run as `arrayModel` says; unset, $HRX_ARRAY_MODEL decides, else Transaction when
// the workers run native core code (their core main programs drive them) and Plan otherwise. Their
// workers run the image's native AIE2P core code in the simulator when it has some, as
// `coreModel` says; unset, $HRX_CORE_MODEL decides, else native (twin: the host twins).
HRX_RUNTIME_API StatusOr<std::shared_ptr<Kernel>> loadOnHost(const ArtifactEntry &entry,
                                                             const std::vector<uint64_t> &workload,
                                                             std::optional<LaunchDimensions> dimensions = std::nullopt,
                                                             std::optional<ArrayModelKind> arrayModel = std::nullopt,
                                                             std::optional<CoreModelKind> coreModel = std::nullopt);

}  // namespace hrx::runtime
