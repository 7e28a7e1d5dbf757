// The KFD GPU device: one process-wide connection to the admitted gfx1151 through a KfdSystem
// (the kernel, or the emulator). It checks the KFD version, acquires the GPU VM through the
// render node, creates one AQL compute queue (ring, EOP buffer, CWSR area sized from the
// topology, amd_queue_t with the read/write pointers, doorbell) and the events it waits on, and
// runs dispatch packets one at a time: publish the packet, ring the doorbell, wait for the
// completion signal through WAIT_EVENTS. Memory is GTT (queue, code, kernargs, signals) and
// userptr registrations of the runtime's host allocations (bindings), as on an APU.
#pragma once

#include "Aql.h"
#include "KfdSystem.h"
#include "Topology.h"

#include "hrx/runtime/Status.h"

#include <linux/kfd_ioctl.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace hrx::runtime::kfd {

// The KFD interface this runtime needs: 1.11 (the linux-libc-dev header it is built against)
// or newer within major version 1.
inline constexpr uint32_t kRequiredMajor = 1, kRequiredMinor = 11;

struct GpuMemory {
  uint64_t handle = 0;
  uint64_t va = 0;  // GPU virtual address (also the host address: the APU shares one space)
  uint64_t size = 0;
  std::byte *host = nullptr;
};

class KfdDevice {
public:
  // The process's device for GPU `gpuIndex` (admission order), opened on first use through
  // kfdSystemFromEnvironment(). A failed open is not cached: the next call tries again.
  static StatusOr<std::shared_ptr<KfdDevice>> shared(unsigned gpuIndex);
  static StatusOr<std::shared_ptr<KfdDevice>> open(std::shared_ptr<KfdSystem> system, const std::string &sysfsRoot,
                                                   unsigned gpuIndex);
  ~KfdDevice();
  KfdDevice(const KfdDevice &) = delete;
  KfdDevice &operator=(const KfdDevice &) = delete;

  KfdSystem &system() { return *system_; }
  const KfdNode &node() const { return node_; }
  uint32_t versionMajor() const { return major_; }
  uint32_t versionMinor() const { return minor_; }
  uint64_t queueAddress() const { return gart_.va; }
  // "gfx1151 (KFD node 1, gpu_id 4660) through the emulated KFD 1.16"
  std::string describe() const;

  // GTT memory mapped for the host (read/write) and the GPU.
  StatusOr<GpuMemory> allocateGtt(uint64_t size, bool executable, bool uncached);
  void release(GpuMemory &memory);

  // Runs one dispatch to completion. `packet` has every field but the header and the
  // completion signal, which dispatch() owns. The caller's kernarg segment must stay intact
  // until this returns. A device fault or loss is DeviceLost, naming what KFD reported.
  // `bindings` are host ranges the kernel reaches; they are registered (userptr) first.
  struct HostRange {
    const std::byte *data;
    uint64_t length;
  };
  Status dispatch(KernelDispatchPacket packet, std::span<const HostRange> bindings, const std::string &kernel);
  // The GPU address of a host range registered with registerRanges (identity on the APU).
  static uint64_t gpuAddress(const std::byte *data) { return reinterpret_cast<uint64_t>(data); }
  // Registers host ranges (userptr) so the GPU reaches them; takes the device lock.
  Status registerRanges(std::span<const HostRange> ranges);

private:
  KfdDevice(std::shared_ptr<KfdSystem> system, KfdNode node) : system_(std::move(system)), node_(std::move(node)) {}
  Status start();
  Status fail(StatusCode code, const std::string &what, int error) const;
  Status registerRangesLocked(std::span<const HostRange> ranges);
  Status mapToGpu(uint64_t handle);
  void unmapAndFree(uint64_t handle);
  Status faultStatus(const std::string &kernel);

  std::shared_ptr<KfdSystem> system_;
  KfdNode node_;
  int kfd_ = -1, drm_ = -1;
  uint32_t major_ = 0, minor_ = 0;
  GpuMemory ring_, gart_, eop_, cwsr_, eventPage_, signal_;
  void *doorbellPages_ = nullptr;
  std::atomic<uint64_t> *doorbell_ = nullptr;
  uint32_t queueId_ = 0;
  bool queueCreated_ = false;
  uint64_t packets_ = 0, writeIndex_ = 0;
  kfd_event_data waits_[3] = {};                      // signal, memory exception, hardware exception
  uint32_t signalEventId_ = 0, signalEventSlot_ = 0;  // the mailbox is the slot's 8 bytes of the event page
  std::string lostReason_;                            // set once the device faulted or was lost

  struct Registration {
    uint64_t begin = 0, end = 0, handle = 0, lastUse = 0;
  };
  std::vector<Registration> registrations_;  // reserved at open; replays allocate nothing
  uint64_t useClock_ = 0;
  std::mutex mutex_;  // one dispatch at a time
};

}  // namespace hrx::runtime::kfd
