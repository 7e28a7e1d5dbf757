// Native execution on the admitted gfx1151 through Linux's KFD interface (/dev/kfd), without
// ROCm: the code object's segments are loaded into executable GPU memory, each invocation
// becomes one AQL kernel-dispatch packet whose kernarg segment follows the code object's
// metadata, and completion is awaited through KFD events. HRX_KFD=emulated selects an
// in-process emulated KFD (with a fake sysfs tree, HRX_SYSFS_ROOT) whose command processor runs
// each packet through the kernel's host twin. docs/runtime.md, "The KFD GPU device".
#pragma once

#include "hrx/runtime/Export.h"
#include "hrx/runtime/Graph.h"
#include "hrx/runtime/Loader.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hrx::runtime {

struct HRX_RUNTIME_API GpuLoadOptions {
  unsigned gpuIndex = 0;         // admission order (Runtime options' gpuIndex)
  uint32_t dynamicLdsBytes = 0;  // group segment bytes beyond the kernel's fixed LDS
};

// Loads an AMDGPU entry for the GPU: validates the loadable code object (AmdgpuCodeObject.h)
// and its agreement with .hrx.manifest, evaluates the launch program on `workload` (one value
// per .hrx.launch workload argument) into the grid, opens the process's KFD device on first
// use, and places the code in executable GPU memory. The kernel runs on the Compute lane like
// the host device's GPU kernels; everything above the Kernel interface is unchanged.
HRX_RUNTIME_API StatusOr<std::shared_ptr<Kernel>>
loadOnGpu(const ArtifactEntry &entry, const std::vector<uint64_t> &workload, const GpuLoadOptions &options = {});

// "gfx1151 (KFD node 1, gpu_id 4660) through the emulated KFD 1.16", opening the device if needed.
HRX_RUNTIME_API StatusOr<std::string> describeGpuDevice(unsigned gpuIndex = 0);

// What the KFD path needs, for `hrx doctor`: the KFD node, the topology's GPU node, the render
// node, read/write permission on both, render-group membership, and the KFD interface version.
struct HRX_RUNTIME_API KfdRequirement {
  std::string name;  // "interface", "gfx1151 node", "node properties", "/dev/kfd", "interface version"
  bool satisfied = false;
  std::string detail;  // what was found, and how to fix it when not satisfied
};
HRX_RUNTIME_API std::vector<KfdRequirement> checkKfdRequirements();

}  // namespace hrx::runtime
