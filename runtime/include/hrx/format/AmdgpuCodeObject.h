// The loadable side of an AMDGPU code object (HSACO, code object v5), read without LLVM: its
// PT_LOAD segments, the NT_AMDGPU_METADATA note (msgpack: amdhsa.kernels with .args, segment
// sizes and workgroup limits), each kernel's 64-byte kernel descriptor (the `<name>.kd` symbol)
// and its R_AMDGPU_RELATIVE64 relocations. The KFD GPU device loads code objects through it.
// Format: docs/formats/amdgpu.md ("The loaded code object").
#pragma once

#include "hrx/runtime/Status.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::format {

// The code object v5 kernel descriptor (AMDGPUUsage "Kernel Descriptor"), 64 bytes.
struct KernelDescriptor {
  uint32_t groupSegmentFixedSize = 0;     // bytes 0..3
  uint32_t privateSegmentFixedSize = 0;   // 4..7
  uint32_t kernargSize = 0;               // 8..11
  int64_t kernelCodeEntryByteOffset = 0;  // 16..23, from the descriptor's address
  uint32_t computePgmRsrc3 = 0;           // 44..47
  uint32_t computePgmRsrc1 = 0;           // 48..51
  uint32_t computePgmRsrc2 = 0;           // 52..55
  uint16_t kernelCodeProperties = 0;      // 56..57
  uint16_t kernargPreload = 0;            // 58..59
};
inline constexpr uint64_t kKernelDescriptorBytes = 64;
KernelDescriptor decodeKernelDescriptor(std::span<const uint8_t, 64> bytes);

// What an .args entry's .value_kind says the runtime must put there.
enum class KernargKind : uint8_t {
  ByValue,       // an explicit scalar: bytes from the dispatch's constants
  GlobalBuffer,  // an explicit buffer: a 64-bit GPU address
  HiddenBlockCountX,
  HiddenBlockCountY,
  HiddenBlockCountZ,  // u32: workgroups per dimension
  HiddenGroupSizeX,
  HiddenGroupSizeY,
  HiddenGroupSizeZ,  // u16: workgroup size
  HiddenRemainderX,
  HiddenRemainderY,
  HiddenRemainderZ,  // u16: grid % workgroup size
  HiddenGlobalOffsetX,
  HiddenGlobalOffsetY,
  HiddenGlobalOffsetZ,   // u64: 0
  HiddenGridDims,        // u16: the packet's dimensions
  HiddenDynamicLdsSize,  // u32: group segment bytes beyond the fixed size
  HiddenQueuePtr,        // u64: the amd_queue_t address
  HiddenNone,            // padding the runtime zeroes
};
std::string_view kernargKindName(KernargKind kind);
bool isHidden(KernargKind kind);

struct KernargField {
  KernargKind kind = KernargKind::ByValue;
  uint64_t offset = 0;
  uint64_t size = 0;
  std::string valueKind;  // as written (".value_kind")
  friend bool operator==(const KernargField &, const KernargField &) = default;
};

struct CodeObjectKernel {
  std::string name;    // ".name"
  std::string symbol;  // ".symbol": "<name>.kd"
  uint64_t kernargSegmentSize = 0, kernargSegmentAlign = 0;
  uint64_t groupSegmentFixedSize = 0, privateSegmentFixedSize = 0;
  uint64_t wavefrontSize = 0, maxFlatWorkgroupSize = 0;
  std::optional<std::array<uint32_t, 3>> reqdWorkgroupSize;
  bool usesDynamicStack = false;
  std::vector<KernargField> args;  // metadata order: explicit arguments, then hidden ones
  uint64_t descriptorAddress = 0;  // the .kd symbol's value (an offset from the load base)
  KernelDescriptor descriptor;
};

struct LoadSegment {
  uint64_t vaddr = 0, memsz = 0, offset = 0, filesz = 0;
  uint32_t flags = 0;  // PF_X 1, PF_W 2, PF_R 4
};

struct AmdgpuCodeObject {
  std::string target;             // "amdgcn-amd-amdhsa--gfx1151"
  std::vector<uint64_t> version;  // amdhsa.version, [1, 2] for code object v5
  std::vector<LoadSegment> segments;
  uint64_t imageBytes = 0;                    // highest PT_LOAD end, rounded up to 4096
  std::vector<uint64_t> relativeRelocations;  // offsets of R_AMDGPU_RELATIVE64 targets
  std::vector<int64_t> relocationAddends;     // parallel to relativeRelocations
  std::vector<CodeObjectKernel> kernels;
  const CodeObjectKernel *find(std::string_view name) const;
  // The loaded image for load address `base`: zeros, each PT_LOAD's file bytes at its vaddr,
  // relocations applied. `out` has exactly imageBytes bytes.
  void loadImage(std::span<const uint8_t> elf, uint64_t base, std::span<uint8_t> out) const;
};

// Reads and validates: ELF64 little-endian EM_AMDGPU ET_DYN; every program header, segment,
// section, symbol and note inside the file; PT_LOAD segments ascending and non-overlapping,
// at most 256 MiB; exactly one NT_AMDGPU_METADATA note whose msgpack is well formed; per
// kernel: a defined .kd symbol of 64 bytes inside a loaded segment, a descriptor agreeing with
// the metadata (kernarg, group and private sizes), an entry point inside an executable segment,
// .args inside .kernarg_segment_size, not overlapping, with known value kinds and their sizes.
// Errors start with "code object:" and name the kernel and field.
StatusOr<AmdgpuCodeObject> readAmdgpuCodeObject(std::span<const uint8_t> elf);

}  // namespace hrx::format
