// Device admission: which native devices this machine has, and whether they are the qualified
// Strix Halo parts (NPU5 = PCI 1022:17f0 revision 0x11 under amdxdna; GPU = gfx1151).
// Admission is exact: anything else is an explicit error naming what was found and what is
// required. All sysfs reads go through one root (HRX_SYSFS_ROOT, default /sys).
#pragma once

#include "hrx/runtime/Export.h"
#include "hrx/runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hrx::runtime {

inline constexpr const char *kNpuTarget = "amd.xdna.strix_halo.17f0_11";
inline constexpr const char *kGpuTarget = "gfx1151";

// The sysfs root every admission read goes through: $HRX_SYSFS_ROOT, else "/sys".
HRX_RUNTIME_API std::string sysfsRoot();

// One accel node as sysfs describes it (class/accel/<node>/device/...).
struct HRX_RUNTIME_API NpuIdentity {
  std::string node;  // "accel0"
  uint32_t vendor = 0, device = 0, revision = 0;
  std::string driver;  // basename of the device/driver link; empty when unbound
  // "PCI 1022:17f0 revision 0x10 (NPU4, amd.xdna.strix.17f0_10) under driver amdxdna"
  std::string describe() const;
  bool qualified() const;
};

// One KFD topology node with a GPU (gfx_target_version != 0).
struct HRX_RUNTIME_API GpuIdentity {
  std::string node;               // "1"
  uint32_t gfxTargetVersion = 0;  // 110501
  std::string target() const;     // "gfx1151"
  bool qualified() const;
};

struct HRX_RUNTIME_API AdmittedNpu {
  NpuIdentity identity;
  std::string target = kNpuTarget;
};
struct HRX_RUNTIME_API AdmittedGpu {
  GpuIdentity identity;
  std::string target = kGpuTarget;
};

// Every accel node / GPU node under `root`, in name order. Missing directories yield none.
HRX_RUNTIME_API std::vector<NpuIdentity> enumerateNpus(const std::string &root);
HRX_RUNTIME_API std::vector<GpuIdentity> enumerateGpus(const std::string &root);

// Admit the `index`-th NPU or GPU. Unavailable when there is none; FailedPrecondition naming
// the found identity and the required one when it is not qualified.
HRX_RUNTIME_API StatusOr<AdmittedNpu> admitNpu(const std::string &root, unsigned index = 0);
HRX_RUNTIME_API StatusOr<AdmittedGpu> admitGpu(const std::string &root, unsigned index = 0);

// The native library (libamdf) that native execution on admitted hardware goes through:
// $HRX_AMDF_LIBRARY, else $HRX_RUNTIME_DIR/libamdf.so, else the bundle `hrx prepare` installed
// under the cache root. Unavailable, saying how to get one, when none exists.
HRX_RUNTIME_API StatusOr<std::string> findNativeLibrary();

}  // namespace hrx::runtime
