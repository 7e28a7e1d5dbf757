// KernelContract: what an export requires of each launch binding (hrx-product.md §3.1), derived
// from the specialized program. The runtime checks bindings against it before every launch.
#pragma once

#include "hrx/format/KernelContract.h"
#include "hrx/format/KernelContractWriter.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hrx::bridge {

enum class Access : uint8_t { None = 0, Read = 1, Write = 2, ReadWrite = 3 };
const char *accessName(Access access);  // "Read", "Write", "ReadWrite", "None"

// Usage bits, matching the .xdna binding row (device-visible, host-visible, coherent, cached).
enum UsageBits : uint32_t {
  kUsageDeviceVisible = 1u << 0,
  kUsageHostVisible = 1u << 1,
  kUsageCoherent = 1u << 2,
  kUsageCached = 1u << 3,
};

// A buffer's size relation to a scalar launch argument (.hrx.manifest "extents"): a launch
// reaches baseBytes + bytesPerUnit * value(argument) bytes of it.
struct ExtentRelation {
  unsigned argument = 0;  // position in the launch signature
  uint64_t bytesPerUnit = 1;
  uint64_t baseBytes = 0;
  friend bool operator==(const ExtentRelation &, const ExtentRelation &) = default;
};

struct BindingContract {
  std::string name;        // the launch argument's name (without '%')
  bool used = false;       // false: an unused argument, emitted as an all-zero NONE row
  uint64_t bytes = 0;      // minimum byte length
  uint64_t alignment = 0;  // minimum alignment (power of two)
  Access access = Access::None;
  std::string addressSpace;  // "global" (NONE rows: empty)
  uint32_t usage = 0;
  std::string layout;                        // a description for diagnostics, e.g. "view<[%n]xf32> row-major"
  std::vector<ExtentRelation> extents = {};  // views sized by a scalar launch argument
};

// A scalar launch argument whose value is fixed by the specialization.
struct ContractConstant {
  std::string name;
  std::vector<uint8_t> bytes;  // little-endian
};

struct KernelContract {
  std::string symbol;
  std::vector<BindingContract> bindings;  // buffer arguments, in launch order
  std::vector<ContractConstant> constants;

  // The host-side contract (hrx/format/KernelContract.h, JSON of hrx-product.md §3.1): the used
  // bindings in launch order. Unused arguments exist only as NONE rows of the binding table.
  format::KernelContract toFormat() const;
  std::string toJson() const { return format::writeKernelContract(toFormat()); }
};

}  // namespace hrx::bridge
