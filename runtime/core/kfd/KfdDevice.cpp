#include "KfdDevice.h"

#include "hrx/support/Text.h"

#include "hrx/runtime/Admission.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <sys/mman.h>

namespace hrx::runtime::kfd {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kRingBytes = 64 * 1024;  // 1024 packets; dispatches are synchronous
constexpr uint64_t kEopBytes = 4096;
constexpr uint64_t kEventPageBytes = KFD_SIGNAL_EVENT_LIMIT * 8;
constexpr uint32_t kWaitSliceMs = 1000;
constexpr size_t kMaxRegistrations = 64;
uint64_t roundUp(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

const char *errnoName(int error) {
  switch (error) {
  case ENOMEM: return "ENOMEM";
  case EINVAL: return "EINVAL";
  case EACCES: return "EACCES";
  case EPERM: return "EPERM";
  case ENOENT: return "ENOENT";
  case ENODEV: return "ENODEV";
  case EIO: return "EIO";
  case EBUSY: return "EBUSY";
  case EFAULT: return "EFAULT";
  case EBADF: return "EBADF";
  default: return "errno";
  }
}

std::string describeErrno(int error) {
  return std::string(std::strerror(error)) + " (" + errnoName(error) + " " + std::to_string(error) + ")";
}

StatusCode codeOf(int error) {
  switch (error) {
  case ENOMEM: return StatusCode::ResourceExhausted;
  case EACCES:
  case EPERM: return StatusCode::FailedPrecondition;
  case ENOENT: return StatusCode::Unavailable;
  case ENODEV:
  case EIO: return StatusCode::DeviceLost;
  case EINVAL: return StatusCode::InvalidArgument;
  default: return StatusCode::Internal;
  }
}

using text::hex;  // hrx/support/Text.h

}  // namespace

Status KfdDevice::fail(StatusCode code, const std::string &what, int error) const {
  return Status(code, std::string(system_->name()) + ": " + what + ": " + describeErrno(error));
}

StatusOr<std::shared_ptr<KfdDevice>> KfdDevice::shared(unsigned gpuIndex) {
  static std::mutex mutex;
  // Leaked on purpose: kernels and lane threads may use the device while statics are destroyed.
  static auto *devices = new std::map<unsigned, std::shared_ptr<KfdDevice>>();
  std::lock_guard lock(mutex);
  if (auto it = devices->find(gpuIndex); it != devices->end()) return it->second;
  auto system = kfdSystemFromEnvironment();
  if (!system) return system.status();
  auto device = open(*system, sysfsRoot(), gpuIndex);
  if (!device) return device.status();
  devices->emplace(gpuIndex, *device);
  return *device;
}

StatusOr<std::shared_ptr<KfdDevice>> KfdDevice::open(std::shared_ptr<KfdSystem> system, const std::string &root,
                                                     unsigned gpuIndex) {
  auto admitted = admitGpu(root, gpuIndex);
  if (!admitted) return admitted.status();
  auto node = readKfdNode(root, admitted->identity.node);
  if (!node) return node.status();
  std::shared_ptr<KfdDevice> device(new KfdDevice(std::move(system), std::move(*node)));
  KfdDevice &d = *device;
  std::string access = "; the KFD path needs read/write access to /dev/kfd and the render node (membership of the "
                       "'render' group; `hrx doctor` checks)";
  d.kfd_ = d.system_->open("/dev/kfd", O_RDWR);
  if (d.kfd_ < 0) {
    int error = -d.kfd_;
    return Status(error == ENOENT ? StatusCode::Unavailable : codeOf(error),
                  std::string(d.system_->name()) + ": cannot open /dev/kfd: " + describeErrno(error) +
                      (error == ENOENT ? "; the amdgpu driver with KFD (CONFIG_HSA_AMD) is not loaded" : access));
  }
  kfd_ioctl_get_version_args version{};
  if (int rc = d.system_->ioctl(d.kfd_, AMDKFD_IOC_GET_VERSION, &version); rc < 0)
    return d.fail(codeOf(-rc), "AMDKFD_IOC_GET_VERSION failed", -rc);
  d.major_ = version.major_version;
  d.minor_ = version.minor_version;
  if (d.major_ != kRequiredMajor || d.minor_ < kRequiredMinor)
    return Status(StatusCode::FailedPrecondition,
                  std::string(d.system_->name()) + " reports interface version " + std::to_string(d.major_) + "." +
                      std::to_string(d.minor_) + "; this runtime needs " + std::to_string(kRequiredMajor) + "." +
                      std::to_string(kRequiredMinor) + " or newer within major version " +
                      std::to_string(kRequiredMajor));
  std::string render = "/dev/dri/renderD" + std::to_string(d.node_.get("drm_render_minor"));
  d.drm_ = d.system_->open(render.c_str(), O_RDWR);
  if (d.drm_ < 0)
    return Status(codeOf(-d.drm_), std::string(d.system_->name()) + ": cannot open the render node " + render + ": " +
                                       describeErrno(-d.drm_) + access);
  kfd_ioctl_acquire_vm_args vm{uint32_t(d.drm_), d.node_.gpuId};
  if (int rc = d.system_->ioctl(d.kfd_, AMDKFD_IOC_ACQUIRE_VM, &vm); rc < 0)
    return d.fail(codeOf(-rc),
                  "AMDKFD_IOC_ACQUIRE_VM (gpu_id " + std::to_string(d.node_.gpuId) + ", " + render + ") failed", -rc);
  if (Status s = d.start(); !s) return s;
  return device;
}

std::string KfdDevice::describe() const {
  return "gfx1151 (KFD node " + node_.node + ", gpu_id " + std::to_string(node_.gpuId) + ") through the " +
         system_->name() + " " + std::to_string(major_) + "." + std::to_string(minor_);
}

Status KfdDevice::mapToGpu(uint64_t handle) {
  uint32_t gpu = node_.gpuId;
  kfd_ioctl_map_memory_to_gpu_args map{handle, reinterpret_cast<uint64_t>(&gpu), 1, 0};
  if (int rc = system_->ioctl(kfd_, AMDKFD_IOC_MAP_MEMORY_TO_GPU, &map); rc < 0)
    return fail(codeOf(-rc), "AMDKFD_IOC_MAP_MEMORY_TO_GPU failed", -rc);
  if (map.n_success != 1)
    return Status(StatusCode::Internal, std::string(system_->name()) + ": MAP_MEMORY_TO_GPU mapped on no GPU");
  return Status::ok();
}

void KfdDevice::unmapAndFree(uint64_t handle) {
  uint32_t gpu = node_.gpuId;
  kfd_ioctl_unmap_memory_from_gpu_args unmap{handle, reinterpret_cast<uint64_t>(&gpu), 1, 0};
  (void)system_->ioctl(kfd_, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, &unmap);
  kfd_ioctl_free_memory_of_gpu_args free{handle};
  (void)system_->ioctl(kfd_, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &free);
}

StatusOr<GpuMemory> KfdDevice::allocateGtt(uint64_t size, bool executable, bool uncached) {
  size = roundUp(std::max<uint64_t>(size, 1), kPage);
  void *reserved = nullptr;
  if (int rc = system_->mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0, &reserved);
      rc < 0)
    return fail(StatusCode::ResourceExhausted, "cannot reserve " + std::to_string(size) + " bytes of address space",
                -rc);
  uint32_t flags =
      KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE | KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE;
  if (executable) flags |= KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE;
  if (uncached) flags |= KFD_IOC_ALLOC_MEM_FLAGS_COHERENT | KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED;
  kfd_ioctl_alloc_memory_of_gpu_args alloc{};
  alloc.va_addr = reinterpret_cast<uint64_t>(reserved);
  alloc.size = size;
  alloc.gpu_id = node_.gpuId;
  alloc.flags = flags;
  if (int rc = system_->ioctl(kfd_, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &alloc); rc < 0) {
    system_->munmap(reserved, size);
    return fail(codeOf(-rc),
                "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU of " + std::to_string(size) + " bytes of GTT memory failed", -rc);
  }
  void *mapped = nullptr;
  if (int rc = system_->mmap(reserved, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, drm_, alloc.mmap_offset,
                             &mapped);
      rc < 0 || mapped != reserved) {
    kfd_ioctl_free_memory_of_gpu_args free{alloc.handle};
    (void)system_->ioctl(kfd_, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &free);
    system_->munmap(reserved, size);
    return fail(StatusCode::Internal, "cannot map GTT memory for the host", rc < 0 ? -rc : EFAULT);
  }
  if (Status s = mapToGpu(alloc.handle); !s) {
    kfd_ioctl_free_memory_of_gpu_args free{alloc.handle};
    (void)system_->ioctl(kfd_, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &free);
    system_->munmap(reserved, size);
    return s;
  }
  std::memset(reserved, 0, size);
  return GpuMemory{alloc.handle, alloc.va_addr, size, static_cast<std::byte *>(reserved)};
}

void KfdDevice::release(GpuMemory &memory) {
  if (!memory.handle) return;
  unmapAndFree(memory.handle);
  system_->munmap(memory.host, memory.size);
  memory = {};
}

Status KfdDevice::start() {
  auto sizes = cwsrSizes(node_);
  if (!sizes) return sizes.status();
  struct Request {
    GpuMemory *out;
    uint64_t size;
  };
  for (const Request &r : {Request{&eventPage_, kEventPageBytes}, Request{&ring_, kRingBytes}, Request{&gart_, kPage},
                           Request{&eop_, kEopBytes}, Request{&cwsr_, sizes->bufferBytes}, Request{&signal_, kPage}}) {
    auto memory = allocateGtt(r.size, false, true);
    if (!memory) return memory.status();
    *r.out = *memory;
  }
  // Events: the completion signal's (auto-reset, on the user event page), and the memory and
  // hardware exceptions a faulting or reset GPU raises.
  uint32_t types[3] = {KFD_IOC_EVENT_SIGNAL, KFD_IOC_EVENT_MEMORY, KFD_IOC_EVENT_HW_EXCEPTION};
  for (int i = 0; i < 3; ++i) {
    kfd_ioctl_create_event_args event{};
    event.event_page_offset = i == 0 ? eventPage_.handle : 0;
    event.event_type = types[i];
    event.auto_reset = i == 0 ? 1 : 0;
    event.node_id = uint32_t(std::strtoul(node_.node.c_str(), nullptr, 10));
    if (int rc = system_->ioctl(kfd_, AMDKFD_IOC_CREATE_EVENT, &event); rc < 0)
      return fail(codeOf(-rc), "AMDKFD_IOC_CREATE_EVENT failed", -rc);
    waits_[i].event_id = event.event_id;
    if (i == 0) {
      signalEventId_ = event.event_id;
      signalEventSlot_ = event.event_slot_index;
    }
  }
  // amd_queue_t: the packet processor's view of the queue; the read and write dispatch ids
  // inside it are the queue's pointers.
  auto put32 = [&](size_t offset, uint32_t v) { std::memcpy(gart_.host + offset, &v, 4); };
  auto put64 = [&](size_t offset, uint64_t v) { std::memcpy(gart_.host + offset, &v, 8); };
  packets_ = kRingBytes / sizeof(KernelDispatchPacket);
  uint64_t cus = node_.get("simd_count") / std::max<uint64_t>(1, node_.get("simd_per_cu"));
  put64(kQueueBaseAddressOffset, ring_.va);
  put32(kQueueSizeOffset, uint32_t(packets_));
  put32(kQueueMaxCuIdOffset, uint32_t(cus - 1));
  put32(kQueueMaxWaveIdOffset, uint32_t(node_.get("max_waves_per_simd") * node_.get("simd_per_cu") - 1));
  put32(kQueueReadDispatchIdFieldBaseOffset, uint32_t(kQueueReadDispatchIdOffset));
  put32(kQueuePropertiesOffset, kQueuePropertyIsPtr64);
  auto *packets = reinterpret_cast<KernelDispatchPacket *>(ring_.host);
  for (uint64_t i = 0; i < packets_; ++i) packets[i].header = kPacketTypeInvalid;

  kfd_ioctl_create_queue_args queue{};
  queue.ring_base_address = ring_.va;
  queue.ring_size = uint32_t(kRingBytes);
  queue.write_pointer_address = gart_.va + kQueueWriteDispatchIdOffset;
  queue.read_pointer_address = gart_.va + kQueueReadDispatchIdOffset;
  queue.gpu_id = node_.gpuId;
  queue.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
  queue.queue_percentage = KFD_MAX_QUEUE_PERCENTAGE;
  queue.queue_priority = 7;
  queue.eop_buffer_address = eop_.va;
  queue.eop_buffer_size = eop_.size;
  queue.ctx_save_restore_address = cwsr_.va;
  queue.ctx_save_restore_size = sizes->ctxSaveRestoreSize;
  queue.ctl_stack_size = sizes->ctlStackSize;
  if (int rc = system_->ioctl(kfd_, AMDKFD_IOC_CREATE_QUEUE, &queue); rc < 0)
    return fail(codeOf(-rc),
                "AMDKFD_IOC_CREATE_QUEUE (AQL, " + std::to_string(kRingBytes) + "-byte ring, " +
                    std::to_string(sizes->ctxSaveRestoreSize) + "-byte CWSR area) failed",
                -rc);
  queueId_ = queue.queue_id;
  queueCreated_ = true;
  // The doorbell: two pages of /dev/kfd at the offset's 8 KiB-aligned base.
  uint64_t base = queue.doorbell_offset & ~uint64_t(0x1fff);
  if (int rc = system_->mmap(nullptr, 0x2000, PROT_READ | PROT_WRITE, MAP_SHARED, kfd_, base, &doorbellPages_); rc < 0)
    return fail(StatusCode::Internal, "cannot map the queue's doorbell", -rc);
  doorbell_ = reinterpret_cast<std::atomic<uint64_t> *>(static_cast<std::byte *>(doorbellPages_) +
                                                        (queue.doorbell_offset - base));
  registrations_.reserve(kMaxRegistrations);
  return Status::ok();
}

KfdDevice::~KfdDevice() {
  if (queueCreated_) {
    kfd_ioctl_destroy_queue_args destroy{queueId_, 0};
    (void)system_->ioctl(kfd_, AMDKFD_IOC_DESTROY_QUEUE, &destroy);
  }
  if (doorbellPages_) system_->munmap(doorbellPages_, 0x2000);
  for (const Registration &r : registrations_) unmapAndFree(r.handle);
  for (GpuMemory *m : {&signal_, &cwsr_, &eop_, &gart_, &ring_, &eventPage_}) release(*m);
  if (drm_ >= 0) system_->close(drm_);
  if (kfd_ >= 0) system_->close(kfd_);
}

Status KfdDevice::registerRanges(std::span<const HostRange> ranges) {
  std::lock_guard lock(mutex_);
  return registerRangesLocked(ranges);
}

Status KfdDevice::registerRangesLocked(std::span<const HostRange> ranges) {
  for (const HostRange &range : ranges) {
    uint64_t address = reinterpret_cast<uint64_t>(range.data);
    uint64_t begin = address / kPage * kPage, end = roundUp(address + std::max<uint64_t>(range.length, 1), kPage);
    ++useClock_;
    bool covered = false;
    for (Registration &r : registrations_)
      if (r.begin <= begin && end <= r.end) {
        r.lastUse = useClock_;
        covered = true;
      }
    if (covered) continue;
    // KFD refuses overlapping userptr ranges: replace every overlapping one by their union.
    // No dispatch is in flight (the device lock is held), so nothing loses its mapping mid-use.
    for (size_t i = 0; i < registrations_.size();) {
      Registration &r = registrations_[i];
      if (r.begin < end && begin < r.end) {
        begin = std::min(begin, r.begin);
        end = std::max(end, r.end);
        unmapAndFree(r.handle);
        registrations_.erase(registrations_.begin() + long(i));
      } else {
        ++i;
      }
    }
    if (registrations_.size() == kMaxRegistrations) {
      auto oldest =
          std::min_element(registrations_.begin(), registrations_.end(),
                           [](const Registration &a, const Registration &b) { return a.lastUse < b.lastUse; });
      unmapAndFree(oldest->handle);
      registrations_.erase(oldest);
    }
    kfd_ioctl_alloc_memory_of_gpu_args alloc{};
    alloc.va_addr = begin;  // the GPU sees host memory at its host address
    alloc.size = end - begin;
    alloc.mmap_offset = begin;  // userptr: the host address
    alloc.gpu_id = node_.gpuId;
    alloc.flags = KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE |
                  KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE | KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC;
    if (int rc = system_->ioctl(kfd_, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &alloc); rc < 0)
      return fail(codeOf(-rc),
                  "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU (userptr registration of " + std::to_string(end - begin) +
                      " bytes at " + hex(begin) + ") failed",
                  -rc);
    if (Status s = mapToGpu(alloc.handle); !s) {
      kfd_ioctl_free_memory_of_gpu_args free{alloc.handle};
      (void)system_->ioctl(kfd_, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &free);
      return s;
    }
    registrations_.push_back({begin, end, alloc.handle, useClock_});
  }
  return Status::ok();
}

Status KfdDevice::faultStatus(const std::string &kernel) {
  std::string what;
  const kfd_hsa_memory_exception_data &memory = waits_[1].memory_exception_data;
  const kfd_hsa_hw_exception_data &hw = waits_[2].hw_exception_data;
  if (memory.gpu_id) {
    what = "a GPU memory fault at VA " + hex(memory.va) +
           (memory.failure.NotPresent  ? " (page not present)"
            : memory.failure.ReadOnly  ? " (write to a read-only page)"
            : memory.failure.NoExecute ? " (execute of a no-execute page)"
                                       : "");
  } else {
    what = std::string(hw.reset_type == KFD_HW_EXCEPTION_WHOLE_GPU_RESET ? "a whole-GPU reset" : "a GPU engine reset") +
           (hw.reset_cause == KFD_HW_EXCEPTION_GPU_HANG ? " after a GPU hang" : " after an ECC error") +
           (hw.memory_lost ? ", GPU memory lost" : "");
  }
  std::string detail = system_->faultDetail();
  lostReason_ = std::string(system_->name()) + " reported " + what + " while kernel '" + kernel + "' ran" +
                (detail.empty() ? "" : " (" + detail + ")");
  return Status(StatusCode::DeviceLost, lostReason_ + "; the GPU queue is stopped and the work's storage is retained");
}

Status KfdDevice::dispatch(KernelDispatchPacket packet, std::span<const HostRange> bindings,
                           const std::string &kernel) {
  std::lock_guard lock(mutex_);
  if (!lostReason_.empty()) return Status(StatusCode::DeviceLost, "the GPU device is unusable: " + lostReason_);
  if (Status s = registerRangesLocked(bindings); !s) return s;
  auto *signal = reinterpret_cast<AmdSignal *>(signal_.host);
  auto *value = reinterpret_cast<std::atomic<int64_t> *>(&signal->value);
  signal->kind = kSignalKindUser;
  signal->eventMailboxPtr = eventPage_.va + uint64_t(signalEventSlot_) * 8;
  signal->eventId = signalEventId_;
  value->store(1, std::memory_order_release);
  packet.completionSignal = signal_.va;

  auto *readId = reinterpret_cast<std::atomic<uint64_t> *>(gart_.host + kQueueReadDispatchIdOffset);
  auto *writeId = reinterpret_cast<std::atomic<uint64_t> *>(gart_.host + kQueueWriteDispatchIdOffset);
  if (writeIndex_ - readId->load(std::memory_order_acquire) >= packets_)
    return Status(StatusCode::Internal, "the GPU queue is full");
  auto *slot = reinterpret_cast<std::byte *>(ring_.host) + (writeIndex_ % packets_) * sizeof(KernelDispatchPacket);
  // Body first, then header and setup together with release order: the packet processor may
  // read the slot as soon as its type is no longer INVALID.
  std::memcpy(slot + 4, reinterpret_cast<const std::byte *>(&packet) + 4, sizeof(KernelDispatchPacket) - 4);
  uint32_t headerAndSetup = uint32_t(kDispatchHeader) | (uint32_t(packet.setup) << 16);
  reinterpret_cast<std::atomic<uint32_t> *>(slot)->store(headerAndSetup, std::memory_order_release);
  writeId->store(writeIndex_ + 1, std::memory_order_release);
  doorbell_->store(writeIndex_, std::memory_order_release);
  ++writeIndex_;

  // Wait for the signal. A slice timeout only loops: the runtime's timeouts are the
  // Completion's (they never cancel accepted work); only a fault or loss ends the wait early.
  while (value->load(std::memory_order_acquire) != 0) {
    waits_[1].memory_exception_data = {};
    waits_[2].hw_exception_data = {};
    kfd_ioctl_wait_events_args wait{reinterpret_cast<uint64_t>(waits_), 3, 0, kWaitSliceMs, 0};
    if (int rc = system_->ioctl(kfd_, AMDKFD_IOC_WAIT_EVENTS, &wait); rc < 0) {
      lostReason_ = std::string(system_->name()) + ": AMDKFD_IOC_WAIT_EVENTS failed while kernel '" + kernel +
                    "' ran: " + describeErrno(-rc);
      return Status(StatusCode::DeviceLost,
                    lostReason_ + "; whether the work retired is unknown, so its storage is retained");
    }
    if (waits_[1].memory_exception_data.gpu_id || waits_[2].hw_exception_data.gpu_id) return faultStatus(kernel);
  }
  return Status::ok();
}

}  // namespace hrx::runtime::kfd
