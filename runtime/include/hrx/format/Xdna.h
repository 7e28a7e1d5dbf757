// The canonical XDNA executable image (`.xdna`, hrx-product §1): an ELF32 load directory
// whose program header 0 is the METADATA segment and whose other headers initialise
// allocations, plus our non-loaded ELF sections (.hrx.*). One definition: the writer, the
// reader and the validator all live here. Format: docs/formats/xdna.md.
#pragma once

#include "hrx/format/Elf64Sections.h"
#include "hrx/runtime/Status.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::format::xdna {

// ELF envelope and metadata constants.
inline constexpr uint16_t kMachineAie = 264;
inline constexpr uint32_t kFlagsAie2p = 3;
inline constexpr uint32_t kMetadataSegmentType = 0x6C584408;
inline constexpr uint32_t kMetadataMagic = 0x414E4458;  // "XDNA"
inline constexpr uint16_t kMetadataVersion = 2;
inline constexpr uint16_t kNativeEncodingTransaction01 = 1;
inline constexpr uint32_t kTargetGenerationAie2p = 3;
inline constexpr uint32_t kMaxMetadataBytes = 16 * 1024 * 1024;
inline constexpr uint32_t kMaxTableRows = 65535;
inline constexpr uint32_t kMaxNameBytes = 4096;
inline constexpr uint32_t kMaxProgramHeaders = 4096;
inline constexpr uint32_t kMaxSectionHeaders = 4096;

// The admitted profile (amd.xdna.strix_halo.17f0_11) and its device limits (§1.3, §1.5).
struct DeviceProfile {
  std::string_view key;
  uint64_t id;
  uint32_t revision;
  uint64_t firmwareAbiId;
  uint16_t rows;
  uint32_t instructionAlignment;  // bytes; command ranges start on this boundary
  uint32_t maxCommandBytes;
  uint32_t maxBindings;  // addresses an ERT command record carries
};
inline constexpr DeviceProfile kStrixHalo{
    "amd.xdna.strix_halo.17f0_11", 0x535848414C4F0001ull, 1, 0x4E5055320006000Cull, 6, 4, 32 * 1024, 5};

// The NPU2 (AIE2P) firmware's instruction-buffer alignment (npu5-hardware §4.3, HRX's NPU2
// target `instruction_alignment = 32768`; amdxdna device-heap buffers are 32 KiB aligned too).
// The image reader accepts the format minimum above; the compiler emits this alignment and the
// NPU paths (the transaction array model, the amdxdna device) require it.
inline constexpr uint32_t kNpu2InstructionAlignment = 32768;

enum class Domain : uint32_t { Command = 1, Dma = 2 };
enum AllocationFlags : uint32_t { kImmutable = 1, kDeviceWrite = 2 };
enum class BindingKind : uint16_t { None = 0, Buffer = 1 };
enum class AddressSpace : uint16_t { None = 0, Global = 1, Host = 2 };
enum BindingAccess : uint16_t { kAccessRead = 1, kAccessWrite = 2 };
enum BindingUsage : uint16_t { kDeviceVisible = 1, kHostVisible = 2, kCoherent = 4, kCached = 8 };
enum class RelocationKind : uint32_t { ShimAddress = 1 };
inline constexpr uint64_t kMaxShimAddress = (uint64_t(1) << 48) - 1;

struct Header {
  uint16_t nativeEncoding = kNativeEncodingTransaction01;
  uint32_t targetGeneration = kTargetGenerationAie2p;
  uint32_t profileRevision = kStrixHalo.revision;
  uint64_t profileId = kStrixHalo.id;
  uint64_t firmwareAbiId = kStrixHalo.firmwareAbiId;
  uint16_t columns = 1;
  uint16_t rows = kStrixHalo.rows;
};

struct Allocation {
  Domain domain = Domain::Dma;
  uint32_t flags = 0;
  uint64_t byteLength = 0;
  uint64_t alignment = 1;
  uint32_t firstLoad = 0;  // program-header ordinal; the writer computes it from `loads`
  uint32_t loadCount = 0;
};

// One PT_LOAD: `bytes` copied to `offset` inside allocation `allocation`, zero-filled up to
// `memoryBytes` (≥ bytes.size()).
struct Load {
  uint32_t allocation = 0;
  uint64_t offset = 0;
  std::vector<uint8_t> bytes;
  uint64_t memoryBytes = 0;
};

struct Entry {
  std::string name;
  uint32_t firstAllocationUse = 0, allocationUseCount = 0;
  uint32_t firstBinding = 0, bindingCount = 0;
  uint32_t firstStaticRelocation = 0, staticRelocationCount = 0;
  uint32_t firstDynamicRelocation = 0, dynamicRelocationCount = 0;
  uint32_t firstInvocation = 0, invocationCount = 0;
};

struct Binding {
  BindingKind kind = BindingKind::None;
  AddressSpace addressSpace = AddressSpace::None;
  uint16_t access = 0;
  uint16_t usage = 0;
  uint64_t minimumByteLength = 0;
  uint64_t minimumAlignment = 0;
  uint64_t minimumByteOffset = 0;
  uint64_t maximumByteOffset = 0;
  // A BUFFER binding as the Loom writer emits it (GLOBAL, DEVICE_VISIBLE|COHERENT, no upper
  // offset bound).
  static Binding buffer(uint16_t access, uint64_t minimumByteLength, uint64_t minimumAlignment);
};

struct Relocation {
  uint32_t destinationUse = 0;  // entry-relative allocation use
  uint32_t sourceOrdinal = 0;   // static: allocation use; dynamic: binding ordinal
  uint32_t byteOffset = 0;
  RelocationKind kind = RelocationKind::ShimAddress;
  int64_t addend = 0;
  uint64_t minimumValue = 0;
  uint64_t maximumValue = kMaxShimAddress;
  uint64_t alignment = 4;
};

struct Invocation {
  uint32_t allocationUse = 0;  // entry-relative, a COMMAND allocation
  uint32_t byteOffset = 0;
  uint32_t byteLength = 0;
  uint32_t nextInvocation = 0;
};

// A non-loaded ELF section (ours: .hrx.contract, .hrx.report, .hrx.plan, .hrx.host,
// .hrx.identity). `compress` asks the writer for an SHF_COMPRESSED zstd payload.
struct Section {
  std::string name;
  std::vector<uint8_t> bytes;  // uncompressed
  bool compress = false;
};

// The whole image. Entry slices index the flat tables, as in the file.
struct Image {
  Header header;
  std::vector<Allocation> allocations;
  std::vector<uint32_t> allocationUses;
  std::vector<Entry> entries;
  std::vector<Binding> bindings;
  std::vector<Relocation> relocations;
  std::vector<Invocation> invocations;
  std::vector<Load> loads;  // grouped by allocation, sorted by offset
  std::vector<Section> sections;
  // Every section header as read (diagnostic; the writer derives its own).
  std::vector<SectionInfo> sectionHeaders;

  const Section *section(std::string_view name) const;
  const Entry *entry(std::string_view name) const;
  std::span<const Binding> bindingsOf(const Entry &entry) const;
};

// Parses and validates every rule of hrx-product §1.1–§1.5; errors name the structure, row and
// field. Linear in the file size (plus n log n over program headers for the alias check).
StatusOr<Image> readImage(std::span<const uint8_t> bytes);

// The loader's admission check against the target context (§1.3): profile, firmware ABI and
// the requested column count. FAILED_PRECONDITION "XDNA image does not match the admitted
// native context: ..." otherwise.
Status checkAdmission(const Image &image, const DeviceProfile &profile, uint32_t requestedColumns);

// The 16-byte AIE2P transaction 0.1 header that starts every command (§1.5).
struct TransactionHeader {
  uint8_t columns = 1;
  uint32_t operationCount = 0;
  uint32_t totalBytes = 0;
};
StatusOr<TransactionHeader> decodeTransactionHeader(std::span<const uint8_t> bytes, uint32_t expectedColumns);

// Applies a SHIM_ADDRESS patch to the 8 bytes at `field` (two LE u32 words), keeping the
// control bits; checks range and alignment.
Status applyShimAddress(std::span<uint8_t, 8> field, uint64_t sourceAddress, const Relocation &relocation);

// Names of our sections.
inline constexpr std::string_view kMetadataSectionName = ".xdna.metadata";
inline constexpr std::string_view kContractSection = ".hrx.contract";
inline constexpr std::string_view kReportSection = ".hrx.report";
inline constexpr std::string_view kPlanSection = ".hrx.plan";
inline constexpr std::string_view kHostSection = ".hrx.host";
inline constexpr std::string_view kIdentitySection = ".hrx.identity";

// The invocations one dispatch of an entry runs, as indices into `invocations` (the entry's own):
// the first dispatch runs invocation 0, which establishes the resident state, then its
// continuation; later ones run the continuation `next` alone (0 -> 1 -> 1; a self-contained
// 0 -> 0 runs once). `invocations` must not be empty.
std::vector<uint32_t> dispatchOrder(std::span<const Invocation> invocations, bool established, uint32_t next);

}  // namespace hrx::format::xdna
