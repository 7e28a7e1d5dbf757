// Facts read back from a linked AMDGPU code object (its NT_AMDGPU_METADATA note and symbol
// table): kernarg layouts and resource usage, for the executable manifest and the reports.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hrx::amdgpu {

struct KernargSlot {
  uint64_t offset = 0;
  uint64_t size = 0;
  std::string valueKind;  // "by_value", "global_buffer", "hidden_*", ...
};

struct KernelInfo {
  std::string name;
  std::vector<KernargSlot> kernargs;
  uint64_t kernargSegmentSize = 0;
  std::optional<uint64_t> codeBytes;
  std::optional<uint64_t> vgprCount, sgprCount, vgprSpillCount, sgprSpillCount;
  std::optional<uint64_t> ldsBytes, privateBytes;
  std::optional<uint64_t> wavefrontSize, maxFlatWorkgroupSize;
  std::optional<bool> workgroupProcessorMode;
  std::optional<uint64_t> occupancyWavesPerSimd;  // computed from gfx1151 limits
};

struct CodeObjectInfo {
  std::string target;             // "amdgcn-amd-amdhsa--gfx1151"
  std::vector<uint64_t> version;  // amdhsa.version
  std::vector<KernelInfo> kernels;
};

std::expected<CodeObjectInfo, std::string> readCodeObjectInfo(std::span<const uint8_t> hsaco);

// Estimated waves per SIMD a kernel can keep resident on gfx1151: bounded by 16 waves per SIMD,
// by the VGPR file (1536 per SIMD in wave32, 768 in wave64, allocated in granules of 24 / 12)
// and by the LDS: in WGP mode the 128 KiB of a WGP shared by the workgroups on its 4 SIMDs, in CU
// mode the 64 KiB of a CU shared by its 2 SIMDs. nullopt if unknown.
std::optional<uint64_t> gfx1151Occupancy(uint64_t vgprs, uint64_t wavefrontSize, uint64_t ldsBytes,
                                         uint64_t workgroupSize, bool workgroupProcessorMode = true);

}  // namespace hrx::amdgpu
