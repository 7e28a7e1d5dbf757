#include "Kernargs.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace hrx::runtime::kfd {
namespace {

using format::KernargKind;

std::string dims(uint64_t x, uint64_t y, uint64_t z) {
  return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
}

Status invalid(const format::CodeObjectKernel &kernel, const std::string &what) {
  return Status(StatusCode::InvalidArgument, "kernel '" + kernel.name + "': " + what);
}

// The value the runtime stores for a hidden argument, from the packet's grid and workgroup.
uint64_t hiddenValue(KernargKind kind, const uint32_t grid[3], const uint16_t group[3], uint16_t dimensions,
                     uint32_t dynamicLds, uint64_t queueAddress) {
  switch (kind) {
  case KernargKind::HiddenBlockCountX: return grid[0] / group[0];
  case KernargKind::HiddenBlockCountY: return grid[1] / group[1];
  case KernargKind::HiddenBlockCountZ: return grid[2] / group[2];
  case KernargKind::HiddenGroupSizeX: return group[0];
  case KernargKind::HiddenGroupSizeY: return group[1];
  case KernargKind::HiddenGroupSizeZ: return group[2];
  case KernargKind::HiddenRemainderX: return grid[0] % group[0];
  case KernargKind::HiddenRemainderY: return grid[1] % group[1];
  case KernargKind::HiddenRemainderZ: return grid[2] % group[2];
  case KernargKind::HiddenGridDims: return dimensions;
  case KernargKind::HiddenDynamicLdsSize: return dynamicLds;
  case KernargKind::HiddenQueuePtr: return queueAddress;
  default: return 0;  // global offsets, hidden_none
  }
}

void storeLittle(std::span<std::byte> segment, uint64_t offset, uint64_t size, uint64_t value) {
  for (uint64_t i = 0; i < size; ++i) segment[offset + i] = std::byte(i < 8 ? (value >> (8 * i)) & 0xff : 0);
}

uint64_t loadLittle(std::span<const std::byte> segment, uint64_t offset, uint64_t size) {
  uint64_t value = 0;
  for (uint64_t i = 0; i < std::min<uint64_t>(size, 8); ++i) value |= uint64_t(segment[offset + i]) << (8 * i);
  return value;
}

}  // namespace

uint16_t DispatchGeometry::dimensions() const {
  if (gridSize(2) > 1) return 3;
  if (gridSize(1) > 1) return 2;
  return 1;
}

Status checkLaunchSignature(const format::CodeObjectKernel &kernel, std::span<const format::LaunchArgument> launch) {
  size_t i = 0;
  for (const format::KernargField &field : kernel.args) {
    if (format::isHidden(field.kind)) continue;
    std::string at = "explicit argument " + std::to_string(i) + " (" + field.valueKind + " at offset " +
                     std::to_string(field.offset) + ", " + std::to_string(field.size) + " bytes)";
    if (i >= launch.size())
      return invalid(kernel, "the code object's metadata lists " + at + " but .hrx.manifest has only " +
                                 std::to_string(launch.size()) + " launch argument(s)");
    const format::LaunchArgument &a = launch[i];
    bool buffer = a.kind == format::LaunchArgumentKind::Buffer;
    if (a.offset != field.offset || a.size != field.size || buffer != (field.kind == KernargKind::GlobalBuffer))
      return invalid(kernel, "the code object's metadata lists " + at + ", .hrx.manifest launch argument " +
                                 std::to_string(i) + " is a " + std::string(format::launchArgumentKindName(a.kind)) +
                                 " at offset " + std::to_string(a.offset) + ", " + std::to_string(a.size) + " bytes");
    ++i;
  }
  if (i != launch.size())
    return invalid(kernel, ".hrx.manifest has " + std::to_string(launch.size()) +
                               " launch argument(s), the code object's metadata " + std::to_string(i) +
                               " explicit argument(s)");
  return Status::ok();
}

Status checkGeometry(const format::CodeObjectKernel &kernel, const DispatchGeometry &g) {
  uint64_t flat = uint64_t(g.workgroupSize[0]) * g.workgroupSize[1] * g.workgroupSize[2];
  for (int d = 0; d < 3; ++d)
    if (g.workgroupSize[d] == 0 || g.workgroupCount[d] == 0) return invalid(kernel, "the grid is empty");
  if (flat > kernel.maxFlatWorkgroupSize)
    return invalid(kernel, "workgroup size " + dims(g.workgroupSize[0], g.workgroupSize[1], g.workgroupSize[2]) + " (" +
                               std::to_string(flat) + " work-items) exceeds .max_flat_workgroup_size " +
                               std::to_string(kernel.maxFlatWorkgroupSize));
  if (kernel.reqdWorkgroupSize) {
    const auto &r = *kernel.reqdWorkgroupSize;
    if (r[0] != g.workgroupSize[0] || r[1] != g.workgroupSize[1] || r[2] != g.workgroupSize[2])
      return invalid(kernel, "workgroup size " + dims(g.workgroupSize[0], g.workgroupSize[1], g.workgroupSize[2]) +
                                 " differs from .reqd_workgroup_size " + dims(r[0], r[1], r[2]));
  }
  for (int d = 0; d < 3; ++d)
    if (g.gridSize(d) > UINT32_MAX)
      return invalid(kernel, "the grid's dimension " + std::to_string(d) + " has " + std::to_string(g.gridSize(d)) +
                                 " work-items, more than an AQL packet holds (2^32-1)");
  if (kernel.groupSegmentFixedSize + uint64_t(g.dynamicLdsBytes) > 65536)
    return invalid(kernel, "group segment " + std::to_string(kernel.groupSegmentFixedSize) + " + " +
                               std::to_string(g.dynamicLdsBytes) +
                               " dynamic bytes exceeds the 64 KiB a workgroup addresses");
  return Status::ok();
}

Status writeKernargs(const format::CodeObjectKernel &kernel, std::span<const uint64_t> buffers,
                     std::span<const std::byte> constants, const DispatchGeometry &g, uint64_t queueAddress,
                     std::span<std::byte> segment) {
  if (segment.size() < kernel.kernargSegmentSize)
    return invalid(kernel, "the kernarg segment has " + std::to_string(segment.size()) + " bytes, the kernel needs " +
                               std::to_string(kernel.kernargSegmentSize));
  std::fill(segment.begin(), segment.end(), std::byte{0});
  uint32_t grid[3] = {uint32_t(g.gridSize(0)), uint32_t(g.gridSize(1)), uint32_t(g.gridSize(2))};
  size_t buffer = 0, constant = 0;
  for (const format::KernargField &field : kernel.args) {
    if (field.kind == KernargKind::GlobalBuffer) {
      if (buffer >= buffers.size()) return invalid(kernel, "fewer buffers than global_buffer arguments");
      storeLittle(segment, field.offset, 8, buffers[buffer++]);
    } else if (field.kind == KernargKind::ByValue) {
      if (field.size > constants.size() - constant)
        return invalid(kernel, "the constants block is shorter than the by_value arguments");
      std::memcpy(segment.data() + field.offset, constants.data() + constant, field.size);
      constant += field.size;
    } else {
      storeLittle(segment, field.offset, field.size,
                  hiddenValue(field.kind, grid, g.workgroupSize, g.dimensions(), g.dynamicLdsBytes, queueAddress));
    }
  }
  if (buffer != buffers.size()) return invalid(kernel, "more buffers than global_buffer arguments");
  if (constant != constants.size()) return invalid(kernel, "the constants block is longer than the by_value arguments");
  return Status::ok();
}

KernelDispatchPacket makeDispatchPacket(const format::CodeObjectKernel &kernel, const DispatchGeometry &g,
                                        uint64_t kernelObject, uint64_t kernargAddress, uint64_t completionSignal) {
  KernelDispatchPacket p{};
  p.header = kPacketTypeInvalid;
  p.setup = uint16_t(g.dimensions() << kSetupDimensionsShift);
  for (int d = 0; d < 3; ++d) {
    p.workgroupSize[d] = g.workgroupSize[d];
    p.gridSize[d] = uint32_t(g.gridSize(d));
  }
  p.privateSegmentSize = uint32_t(kernel.privateSegmentFixedSize);
  p.groupSegmentSize = uint32_t(kernel.groupSegmentFixedSize + g.dynamicLdsBytes);
  p.kernelObject = kernelObject;
  p.kernargAddress = kernargAddress;
  p.completionSignal = completionSignal;
  return p;
}

Status decodeKernargs(const format::CodeObjectKernel &kernel, const KernelDispatchPacket &p,
                      std::span<const std::byte> segment, uint64_t queueAddress, std::vector<DecodedArgument> &out) {
  out.clear();
  auto bad = [&](const std::string &field, uint64_t expected, uint64_t found) {
    return invalid(kernel, "dispatch packet " + field + ": expected " + std::to_string(expected) + ", found " +
                               std::to_string(found));
  };
  uint16_t dimensions = p.setup & 3;
  if (dimensions < 1 || (p.setup >> 2) != 0)
    return invalid(kernel, "dispatch packet setup " + std::to_string(p.setup) + " names no 1..3 dimensions");
  if (p.reserved0 != 0 || p.reserved2 != 0) return invalid(kernel, "dispatch packet reserved fields are not zero");
  for (int d = 0; d < 3; ++d) {
    if (p.workgroupSize[d] == 0 || p.gridSize[d] == 0)
      return invalid(kernel, "dispatch packet has an empty grid or workgroup");
    if (d >= dimensions && (p.workgroupSize[d] != 1 || p.gridSize[d] != 1))
      return invalid(kernel, "dispatch packet dimension " + std::to_string(d) + " is beyond setup's " +
                                 std::to_string(dimensions) + " dimension(s) but is not 1");
  }
  uint64_t flat = uint64_t(p.workgroupSize[0]) * p.workgroupSize[1] * p.workgroupSize[2];
  if (flat > kernel.maxFlatWorkgroupSize)
    return bad("workgroup size (flat, at most)", kernel.maxFlatWorkgroupSize, flat);
  if (kernel.reqdWorkgroupSize)
    for (int d = 0; d < 3; ++d)
      if ((*kernel.reqdWorkgroupSize)[d] != p.workgroupSize[d])
        return bad("workgroup_size_" + std::string(1, "xyz"[d]) + " (.reqd_workgroup_size)",
                   (*kernel.reqdWorkgroupSize)[d], p.workgroupSize[d]);
  if (p.privateSegmentSize < kernel.privateSegmentFixedSize)
    return bad("private_segment_size (at least)", kernel.privateSegmentFixedSize, p.privateSegmentSize);
  if (p.groupSegmentSize < kernel.groupSegmentFixedSize)
    return bad("group_segment_size (at least)", kernel.groupSegmentFixedSize, p.groupSegmentSize);
  if (p.kernargAddress % 16) return invalid(kernel, "dispatch packet kernarg_address is not 16-byte aligned");
  if (segment.size() < kernel.kernargSegmentSize)
    return bad("kernarg segment bytes (at least)", kernel.kernargSegmentSize, segment.size());
  uint32_t dynamicLds = p.groupSegmentSize - uint32_t(kernel.groupSegmentFixedSize);
  for (const format::KernargField &field : kernel.args) {
    if (field.kind == KernargKind::GlobalBuffer || field.kind == KernargKind::ByValue) {
      DecodedArgument a{field.kind, field.offset, field.size, 0};
      if (field.kind == KernargKind::GlobalBuffer) a.address = loadLittle(segment, field.offset, 8);
      out.push_back(a);
      continue;
    }
    if (field.kind == KernargKind::HiddenNone) continue;
    uint64_t expected = hiddenValue(field.kind, p.gridSize, p.workgroupSize, dimensions, dynamicLds, queueAddress);
    uint64_t found = loadLittle(segment, field.offset, field.size);
    if (found != expected)
      return invalid(kernel, "kernarg " + field.valueKind + " at offset " + std::to_string(field.offset) +
                                 ": expected " + std::to_string(expected) + " from the dispatch packet, found " +
                                 std::to_string(found));
  }
  return Status::ok();
}

}  // namespace hrx::runtime::kfd
