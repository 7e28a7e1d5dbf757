// The kernarg segment and dispatch packet of one GPU dispatch, exactly as the code object's
// metadata lays them out: explicit arguments (.args with by_value / global_buffer, in metadata
// order = launch order) from the bindings and the constants block, then the hidden arguments
// the metadata lists (block counts, group sizes, remainders, global offsets, grid dimensions,
// dynamic LDS size, queue pointer). The emulated command processor decodes the same segment
// with decodeKernargs and checks every hidden value against the packet.
#pragma once

#include "Aql.h"

#include "hrx/format/AmdgpuCodeObject.h"
#include "hrx/format/AmdgpuManifest.h"
#include "hrx/runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace hrx::runtime::kfd {

struct DispatchGeometry {
  uint32_t workgroupCount[3] = {1, 1, 1};
  uint16_t workgroupSize[3] = {1, 1, 1};
  uint32_t dynamicLdsBytes = 0;  // group segment bytes beyond the kernel's fixed size
  // 3 when z spans more than one work-item, else 2 when y does, else 1.
  uint16_t dimensions() const;
  uint64_t gridSize(int d) const { return uint64_t(workgroupCount[d]) * workgroupSize[d]; }
};

// The manifest's launch arguments must be the metadata's explicit arguments, one to one:
// same offset and size, buffer = global_buffer, value = by_value.
Status checkLaunchSignature(const format::CodeObjectKernel &kernel, std::span<const format::LaunchArgument> launch);

// Workgroup size within .max_flat_workgroup_size and equal to .reqd_workgroup_size when given;
// grid sizes within 32 bits; group segment (fixed + dynamic) within 64 KiB.
Status checkGeometry(const format::CodeObjectKernel &kernel, const DispatchGeometry &geometry);

// Writes the whole segment (`segment.size()` >= .kernarg_segment_size; bytes no argument
// covers are zero). `buffers` are the explicit global_buffer arguments' GPU addresses in order;
// `constants` the by_value arguments' bytes, packed in order.
Status writeKernargs(const format::CodeObjectKernel &kernel, std::span<const uint64_t> buffers,
                     std::span<const std::byte> constants, const DispatchGeometry &geometry, uint64_t queueAddress,
                     std::span<std::byte> segment);

// Every field but the header (written last, with release ordering, when the packet is published).
KernelDispatchPacket makeDispatchPacket(const format::CodeObjectKernel &kernel, const DispatchGeometry &geometry,
                                        uint64_t kernelObject, uint64_t kernargAddress, uint64_t completionSignal);

// One explicit argument as the command processor finds it in a segment.
struct DecodedArgument {
  format::KernargKind kind = format::KernargKind::ByValue;
  uint64_t offset = 0, size = 0;
  uint64_t address = 0;  // global_buffer: the GPU address stored there
};

// The command processor's view: checks the packet against the kernel (sizes, segment sizes,
// reqd_workgroup_size, dimensions) and every hidden argument against the packet, and returns
// the explicit arguments in `out` (cleared first; it keeps its capacity). Errors name the
// packet or kernarg field and the expected and found values.
Status decodeKernargs(const format::CodeObjectKernel &kernel, const KernelDispatchPacket &packet,
                      std::span<const std::byte> segment, uint64_t queueAddress, std::vector<DecodedArgument> &out);

}  // namespace hrx::runtime::kfd
