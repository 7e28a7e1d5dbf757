#include "Topology.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace hrx::runtime::kfd {
namespace {

constexpr uint64_t kPage = 4096;
uint64_t roundUp(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

std::string nodesDirectory(const std::string &root) { return root + "/class/kfd/kfd/topology/nodes"; }

bool readNode(const fs::path &dir, KfdNode &out) {
  std::ifstream properties(dir / "properties");
  if (!properties) return false;
  std::string key;
  uint64_t value;
  while (properties >> key >> value) out.properties[key] = value;
  std::ifstream gpuId(dir / "gpu_id");
  uint64_t id = 0;
  if (gpuId >> id) out.gpuId = uint32_t(id);
  out.node = dir.filename().string();
  out.directory = dir.string();
  return true;
}

}  // namespace

std::vector<KfdNode> readKfdNodes(const std::string &sysfsRoot) {
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (fs::directory_iterator it(nodesDirectory(sysfsRoot), ec), end; !ec && it != end; it.increment(ec))
    dirs.push_back(it->path());
  std::sort(dirs.begin(), dirs.end());
  std::vector<KfdNode> out;
  for (const fs::path &dir : dirs) {
    KfdNode node;
    if (readNode(dir, node) && node.get("gfx_target_version") != 0) out.push_back(std::move(node));
  }
  return out;
}

StatusOr<KfdNode> readKfdNode(const std::string &sysfsRoot, const std::string &name) {
  fs::path dir = fs::path(nodesDirectory(sysfsRoot)) / name;
  KfdNode node;
  if (!readNode(dir, node))
    return Status(StatusCode::FailedPrecondition, "cannot read the KFD topology node " + (dir / "properties").string());
  if (node.gpuId == 0)
    return Status(StatusCode::FailedPrecondition,
                  "the KFD topology node " + dir.string() +
                      " has no nonzero gpu_id: KFD does not expose this GPU for compute");
  for (const char *key : {"drm_render_minor", "simd_count", "simd_per_cu", "max_waves_per_simd"})
    if (!node.has(key))
      return Status(StatusCode::FailedPrecondition,
                    "the KFD topology node " + dir.string() + " has no '" + key +
                        "' property (needed to open the render node and size the queue)");
  return node;
}

StatusOr<CwsrSizes> cwsrSizes(const KfdNode &node) {
  uint64_t xccs = std::max<uint64_t>(1, node.get("num_xcc", 1));
  uint64_t simdPerCu = node.get("simd_per_cu"), simds = node.get("simd_count");
  if (simdPerCu == 0 || simds == 0 || simds % (simdPerCu * xccs) || node.get("max_waves_per_simd") == 0)
    return Status(StatusCode::FailedPrecondition,
                  "the KFD topology node " + node.directory +
                      " has inconsistent simd_count/simd_per_cu/num_xcc/max_waves_per_simd");
  uint64_t cus = simds / simdPerCu / xccs;
  uint64_t waves = cus * node.get("max_waves_per_simd") * simdPerCu;
  uint64_t version = node.get("gfx_target_version");
  uint64_t major = version / 10000;
  bool bigVgprFile =
      version == 110000 || version == 110001 || version == 110501 || version == 120000 || version == 120001;
  uint64_t vgprPerCu = bigVgprFile ? 0x60000 : major == 9 ? 0x80000 : 0x40000;
  uint64_t sgprPerCu = 0x4000, ldsPerCu = 0x10000, hwregPerCu = 0x1000;
  uint64_t workgroupData = roundUp((vgprPerCu + sgprPerCu + ldsPerCu + hwregPerCu) * cus, kPage);
  uint64_t controlStack = roundUp((major == 9 ? 8 : 12) * waves + 8 + 40, kPage);
  CwsrSizes sizes;
  sizes.ctlStackSize = uint32_t(node.has("ctl_stack_size") ? node.get("ctl_stack_size") : controlStack);
  sizes.ctxSaveRestoreSize = uint32_t(node.has("cwsr_size") ? node.get("cwsr_size") : workgroupData + controlStack);
  sizes.debugMemorySize = uint32_t(roundUp(waves * 32, 64));
  sizes.bufferBytes = roundUp((uint64_t(sizes.ctxSaveRestoreSize) + sizes.debugMemorySize) * xccs, kPage);
  return sizes;
}

}  // namespace hrx::runtime::kfd
