// The HSA/AMD structures the GPU's command processor reads from memory: the AQL kernel
// dispatch packet (HSA System Architecture 1.2, 2.9.6), the AMD signal (amd_signal_t) and the
// AMD queue descriptor (amd_queue_t) fields this runtime sets. Layouts are fixed by the
// hardware and firmware; the static_asserts pin every offset.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hrx::runtime::kfd {

inline constexpr uint16_t kPacketTypeInvalid = 1;
inline constexpr uint16_t kPacketTypeKernelDispatch = 2;
inline constexpr uint16_t kPacketTypeBarrierAnd = 3;
inline constexpr unsigned kHeaderTypeShift = 0, kHeaderBarrierShift = 8, kHeaderAcquireShift = 9,
                          kHeaderReleaseShift = 11;
inline constexpr uint16_t kFenceScopeNone = 0, kFenceScopeAgent = 1, kFenceScopeSystem = 2;
inline constexpr unsigned kSetupDimensionsShift = 0;

// A dispatch's header: barrier bit set, system-scope acquire and release (host-coherent
// memory on an APU), type kernel dispatch.
inline constexpr uint16_t kDispatchHeader =
    uint16_t(kPacketTypeKernelDispatch << kHeaderTypeShift) | uint16_t(1u << kHeaderBarrierShift) |
    uint16_t(kFenceScopeSystem << kHeaderAcquireShift) | uint16_t(kFenceScopeSystem << kHeaderReleaseShift);

struct alignas(64) KernelDispatchPacket {
  uint16_t header;
  uint16_t setup;  // bits 0..1: dimensions
  uint16_t workgroupSize[3];
  uint16_t reserved0;
  uint32_t gridSize[3];  // work-items
  uint32_t privateSegmentSize;
  uint32_t groupSegmentSize;
  uint64_t kernelObject;    // GPU address of the kernel descriptor
  uint64_t kernargAddress;  // GPU address, 16-byte aligned
  uint64_t reserved2;
  uint64_t completionSignal;  // GPU address of an amd_signal_t, or 0
};
static_assert(sizeof(KernelDispatchPacket) == 64);
static_assert(offsetof(KernelDispatchPacket, workgroupSize) == 4);
static_assert(offsetof(KernelDispatchPacket, gridSize) == 12);
static_assert(offsetof(KernelDispatchPacket, privateSegmentSize) == 24);
static_assert(offsetof(KernelDispatchPacket, groupSegmentSize) == 28);
static_assert(offsetof(KernelDispatchPacket, kernelObject) == 32);
static_assert(offsetof(KernelDispatchPacket, kernargAddress) == 40);
static_assert(offsetof(KernelDispatchPacket, completionSignal) == 56);

inline constexpr int64_t kSignalKindUser = 1;

// amd_signal_t: the completion signal the CP decrements; when event_mailbox_ptr is set it
// then writes event_id there and raises the KFD event interrupt.
struct alignas(64) AmdSignal {
  int64_t kind;
  int64_t value;
  uint64_t eventMailboxPtr;
  uint32_t eventId;
  uint32_t reserved1;
  uint64_t startTs, endTs;
  uint64_t queuePtr;
  uint32_t reserved3[2];
};
static_assert(sizeof(AmdSignal) == 64);
static_assert(offsetof(AmdSignal, value) == 8 && offsetof(AmdSignal, eventMailboxPtr) == 16 &&
              offsetof(AmdSignal, eventId) == 24);

// amd_queue_t field offsets: the KFD queue's write and read pointers live inside it (passed to
// CREATE_QUEUE), and kernels reading hidden_queue_ptr see it.
inline constexpr size_t kAmdQueueBytes = 256;
inline constexpr size_t kQueueBaseAddressOffset = 8;  // hsa_queue_t.base_address
inline constexpr size_t kQueueSizeOffset = 24;        // hsa_queue_t.size (packets)
inline constexpr size_t kQueueWriteDispatchIdOffset = 56;
inline constexpr size_t kQueueMaxCuIdOffset = 72;
inline constexpr size_t kQueueMaxWaveIdOffset = 76;
inline constexpr size_t kQueueReadDispatchIdOffset = 128;
inline constexpr size_t kQueueReadDispatchIdFieldBaseOffset = 136;
inline constexpr size_t kQueuePropertiesOffset = 180;
inline constexpr uint32_t kQueuePropertyIsPtr64 = 1u << 1;

}  // namespace hrx::runtime::kfd
