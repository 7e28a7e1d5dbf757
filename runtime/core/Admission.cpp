#include "hrx/runtime/Admission.h"
#include "hrx/support/Text.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace hrx::runtime {
namespace {

constexpr uint32_t kAmdVendor = 0x1022, kStrixDevice = 0x17f0, kNpu5Revision = 0x11;
constexpr uint32_t kGfx1151Version = 110501;
constexpr const char *kNpuRequirement =
    "required: PCI 1022:17f0 revision 0x11 (NPU5, amd.xdna.strix_halo.17f0_11) under driver amdxdna";

// First whitespace-delimited token of a sysfs attribute, or "" when unreadable.
std::string readToken(const fs::path &path) {
  std::ifstream in(path);
  std::string token;
  in >> token;
  return token;
}

uint32_t readHex(const fs::path &path) {
  std::string token = readToken(path);
  return static_cast<uint32_t>(std::strtoul(token.c_str(), nullptr, 16));
}

std::vector<fs::path> sortedChildren(const fs::path &dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

// Model name and target id of the known XDNA PCI pairs (reference §4.1).
const char *xdnaModel(uint32_t device, uint32_t revision) {
  if (device == 0x1502 && revision == 0x00) return "NPU1, amd.xdna.phoenix.1502_00";
  if (device == 0x17f0 && revision == 0x10) return "NPU4, amd.xdna.strix.17f0_10";
  if (device == 0x17f0 && revision == 0x11) return "NPU5, amd.xdna.strix_halo.17f0_11";
  if (device == 0x17f0 && revision == 0x20) return "NPU6, amd.xdna.krackan.17f0_20";
  return "no qualified profile";
}

}  // namespace

std::string sysfsRoot() {
  const char *root = std::getenv("HRX_SYSFS_ROOT");
  return root && *root ? root : "/sys";
}

std::string NpuIdentity::describe() const {
  return "PCI " + text::hexDigits(vendor, 4) + ":" + text::hexDigits(device, 4) + " revision 0x" +
         text::hexDigits(revision, 2) + " (" + xdnaModel(device, revision) + ") under driver " +
         (driver.empty() ? "(none)" : driver);
}

bool NpuIdentity::qualified() const {
  return vendor == kAmdVendor && device == kStrixDevice && revision == kNpu5Revision && driver == "amdxdna";
}

std::string GpuIdentity::target() const {
  uint32_t major = gfxTargetVersion / 10000, minor = gfxTargetVersion / 100 % 100, stepping = gfxTargetVersion % 100;
  return "gfx" + std::to_string(major) + std::to_string(minor) + text::hexDigits(stepping, 1);
}

bool GpuIdentity::qualified() const { return gfxTargetVersion == kGfx1151Version; }

std::vector<NpuIdentity> enumerateNpus(const std::string &root) {
  std::vector<NpuIdentity> out;
  for (const fs::path &node : sortedChildren(fs::path(root) / "class" / "accel")) {
    fs::path device = node / "device";
    NpuIdentity id;
    id.node = node.filename().string();
    id.vendor = readHex(device / "vendor");
    id.device = readHex(device / "device");
    id.revision = readHex(device / "revision");
    std::error_code ec;
    fs::path driver = fs::read_symlink(device / "driver", ec);
    if (!ec) id.driver = driver.filename().string();
    out.push_back(std::move(id));
  }
  return out;
}

std::vector<GpuIdentity> enumerateGpus(const std::string &root) {
  std::vector<GpuIdentity> out;
  for (const fs::path &node : sortedChildren(fs::path(root) / "class/kfd/kfd/topology/nodes")) {
    std::ifstream in(node / "properties");
    std::string key;
    uint64_t value = 0;
    while (in >> key >> value) {
      if (key != "gfx_target_version") continue;
      if (value != 0) out.push_back({node.filename().string(), static_cast<uint32_t>(value)});
      break;
    }
  }
  return out;
}

StatusOr<AdmittedNpu> admitNpu(const std::string &root, unsigned index) {
  std::vector<NpuIdentity> npus = enumerateNpus(root);
  if (npus.empty())
    return Status(StatusCode::Unavailable, "no NPU found under " + root + "/class/accel; " + kNpuRequirement);
  if (index >= npus.size())
    return Status(StatusCode::Unavailable, "NPU index " + std::to_string(index) + " is unavailable; " +
                                               std::to_string(npus.size()) + " accel device(s) found");
  const NpuIdentity &id = npus[index];
  if (!id.qualified())
    return Status(StatusCode::FailedPrecondition,
                  "unqualified NPU " + id.node + ": found " + id.describe() + "; " + kNpuRequirement);
  return AdmittedNpu{id};
}

StatusOr<AdmittedGpu> admitGpu(const std::string &root, unsigned index) {
  std::vector<GpuIdentity> gpus = enumerateGpus(root);
  const std::string required = "required: gfx1151 (KFD gfx_target_version 110501)";
  if (gpus.empty())
    return Status(StatusCode::Unavailable,
                  "no GPU found in the KFD topology under " + root + "/class/kfd; " + required);
  if (index >= gpus.size())
    return Status(StatusCode::Unavailable, "GPU index " + std::to_string(index) + " is unavailable; " +
                                               std::to_string(gpus.size()) + " GPU node(s) found");
  const GpuIdentity &id = gpus[index];
  if (!id.qualified())
    return Status(StatusCode::FailedPrecondition, "unqualified GPU at KFD node " + id.node + ": found " + id.target() +
                                                      " (gfx_target_version " + std::to_string(id.gfxTargetVersion) +
                                                      "); " + required);
  return AdmittedGpu{id};
}

StatusOr<std::string> findNativeLibrary() {
  auto isFile = [](const fs::path &p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
  };
  if (const char *explicitPath = std::getenv("HRX_AMDF_LIBRARY"); explicitPath && *explicitPath) {
    if (isFile(explicitPath)) return std::string(explicitPath);
    return Status(StatusCode::Unavailable,
                  std::string("HRX_AMDF_LIBRARY names ") + explicitPath + ", which does not exist");
  }
  if (const char *dir = std::getenv("HRX_RUNTIME_DIR"); dir && *dir) {
    fs::path lib = fs::path(dir) / "libamdf.so";
    if (isFile(lib)) return lib.string();
    return Status(StatusCode::Unavailable, "HRX_RUNTIME_DIR=" + std::string(dir) + " has no libamdf.so");
  }
  fs::path cache;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && fs::path(xdg).is_absolute())
    cache = fs::path(xdg) / "hrx";
  else if (const char *home = std::getenv("HOME"); home && *home)
    cache = fs::path(home) / ".cache" / "hrx";
  for (const fs::path &bundle : sortedChildren(cache / "runtime"))
    if (isFile(bundle / "manifest.json") && isFile(bundle / "libamdf.so")) return (bundle / "libamdf.so").string();
  return Status(StatusCode::Unavailable,
                "the native runtime library (libamdf.so) is not installed; run `hrx prepare` to install the "
                "runtime bundle, or set HRX_RUNTIME_DIR (a directory with libamdf.so) or HRX_AMDF_LIBRARY");
}

}  // namespace hrx::runtime
