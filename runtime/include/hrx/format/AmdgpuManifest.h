// The AMDGPU code object's hrx sections (docs/formats/amdgpu.md): `.hrx.manifest` (per export:
// launch arguments, kernarg layout, resources) and `.hrx.launch` (per export: workload
// signature and the host-evaluable launch program). Strict JSON, unknown fields denied.
#pragma once

#include "hrx/runtime/Status.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::format {

enum class LaunchArgumentKind { Buffer, Value };
std::string_view launchArgumentKindName(LaunchArgumentKind kind);

// How far a launch reaches into a buffer, as a function of one scalar launch argument: a
// view `view<[%n]xf32>` reaches baseBytes + bytesPerUnit * n bytes (here 0 + 4 * n).
struct LaunchExtent {
  uint64_t buffer = 0;    // index of the buffer argument in launch order
  uint64_t argument = 0;  // index of a value argument (4 or 8 bytes, unsigned) in launch order
  uint64_t bytesPerUnit = 1;
  uint64_t baseBytes = 0;
  friend bool operator==(const LaunchExtent &, const LaunchExtent &) = default;
};

// A launch argument's type as its source declared it: the Loom launch signature (iN signless
// integers are recorded as signed, index as i64, offset as u64, i1 as bool) or the C/C++/HIP
// parameter. Buffers are `pointer`.
enum class ScalarType : uint8_t { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64, Pointer };
std::string_view scalarTypeName(ScalarType type);  // "bool", "i32", "u64", "bf16", "pointer", ...
std::optional<ScalarType> parseScalarType(std::string_view name);
uint64_t scalarTypeBytes(ScalarType type);
bool isIntegerType(ScalarType type);  // bool, iN, uN
bool isFloatType(ScalarType type);    // f16, bf16, f32, f64

// One `launch(...)` argument: a buffer (bound from a binding) or a scalar value (`size` bytes
// taken from the dispatch's constants block). Artifacts written before types were recorded
// have no `name` or `type`; the runtime then checks a scalar's size only.
struct LaunchArgument {
  uint64_t offset = 0;  // in the kernarg segment
  uint64_t size = 0;
  LaunchArgumentKind kind = LaunchArgumentKind::Buffer;
  std::string name = {};                // the source's parameter name ("" when not recorded)
  std::optional<ScalarType> type = {};  // nullopt when not recorded
  friend bool operator==(const LaunchArgument &, const LaunchArgument &) = default;
};

// "argument 1 (%delta)" or "argument 1" when the name was not recorded.
std::string describeLaunchArgument(const std::vector<LaunchArgument> &arguments, size_t index);

// The bytes `extent` requires of its buffer for the scalar arguments in `constants` (packed in
// launch order, as the dispatch takes them); nullopt when the product overflows.
std::optional<uint64_t> requiredExtentBytes(const LaunchExtent &extent, const std::vector<LaunchArgument> &arguments,
                                            std::span<const uint8_t> constants);

struct AmdgpuResources {
  std::optional<uint64_t> codeBytes, vgprCount, sgprCount, vgprSpillCount, sgprSpillCount, occupancyWavesPerSimd;
  std::optional<bool> workgroupProcessorMode;
  friend bool operator==(const AmdgpuResources &, const AmdgpuResources &) = default;
};

struct AmdgpuExport {
  std::string name;
  uint64_t kernargBytes = 0;
  std::vector<LaunchArgument> arguments;  // launch order
  std::vector<LaunchExtent> extents;      // every size relation of a buffer argument (JSON: its "extents")
  uint64_t bindingCount = 0;              // buffer arguments
  uint64_t constantBytes = 0;             // sum of value argument sizes
  std::optional<uint64_t> ldsBytes, privateBytes, wavefrontSize, maxFlatWorkgroupSize;
  AmdgpuResources resources;
  friend bool operator==(const AmdgpuExport &, const AmdgpuExport &) = default;
};

// A `__device__` or `__constant__` global of the code object (JSON "globals", absent when there
// are none): what hrx-run --symbol and the runtime's Kernel::writeGlobal check a write against.
struct DeviceGlobal {
  std::string name;                   // as the source spells it ("table", "ns::scale")
  std::string symbol;                 // the code object's (and the host twin's) symbol
  std::optional<ScalarType> element;  // the scalar or array element type; nullopt for records
  uint64_t count = 1;                 // elements (1 for a scalar or a record)
  uint64_t bytes = 0;
  friend bool operator==(const DeviceGlobal &, const DeviceGlobal &) = default;
};

struct AmdgpuManifest {
  std::string target;
  uint64_t codeObjectVersion = 0;
  std::string processorMode;
  std::vector<AmdgpuExport> exports;
  std::vector<DeviceGlobal> globals;
  const AmdgpuExport *find(std::string_view name) const;
  const DeviceGlobal *findGlobal(std::string_view nameOrSymbol) const;
};

struct AmdgpuLaunch {
  std::string name, symbol;
  std::vector<uint64_t> workloadBits;  // one per workload argument
  std::string evaluator;               // "hrx.launch.<symbol>"
  friend bool operator==(const AmdgpuLaunch &, const AmdgpuLaunch &) = default;
};

// Errors name the section, the export and the field: ".hrx.manifest: exports[0] (add_delta):
// arguments[1].size: ...".
StatusOr<AmdgpuManifest> readAmdgpuManifest(std::string_view json);
StatusOr<std::vector<AmdgpuLaunch>> readAmdgpuLaunches(std::string_view json);
// Every launch export names a manifest export (and the reverse), once each.
Status checkManifestAgainstLaunches(const AmdgpuManifest &manifest, const std::vector<AmdgpuLaunch> &launches);

}  // namespace hrx::format
