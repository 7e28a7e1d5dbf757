// The KFD topology node of the admitted GPU (class/kfd/kfd/topology/nodes/<n>/ under the sysfs
// root): its gpu_id, render node, and the properties the queue's context save/restore (CWSR)
// area is sized from.
#pragma once

#include "hrx/runtime/Status.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hrx::runtime::kfd {

struct KfdNode {
  std::string node;       // "1"
  std::string directory;  // .../topology/nodes/1
  uint32_t gpuId = 0;
  std::map<std::string, uint64_t> properties;
  bool has(const std::string &key) const { return properties.count(key) != 0; }
  uint64_t get(const std::string &key, uint64_t fallback = 0) const {
    auto it = properties.find(key);
    return it == properties.end() ? fallback : it->second;
  }
};

// Every node with a GPU (nonzero gfx_target_version), in name order.
std::vector<KfdNode> readKfdNodes(const std::string &sysfsRoot);
// The node called `node`; FailedPrecondition naming the missing file or property.
StatusOr<KfdNode> readKfdNode(const std::string &sysfsRoot, const std::string &node);

// The queue's CWSR sizes: the node's cwsr_size and ctl_stack_size properties when it has them
// (KFD checks CREATE_QUEUE against exactly these), else computed from simd_count, simd_per_cu,
// max_waves_per_simd, num_xcc and the GC version as KFD does.
struct CwsrSizes {
  uint32_t ctxSaveRestoreSize = 0;  // per XCC: workgroup data + control stack
  uint32_t ctlStackSize = 0;
  uint32_t debugMemorySize = 0;  // per XCC
  uint64_t bufferBytes = 0;      // (ctx + debug) * num_xcc, page-rounded
};
StatusOr<CwsrSizes> cwsrSizes(const KfdNode &node);

}  // namespace hrx::runtime::kfd
