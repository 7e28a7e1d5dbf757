// The emulated KFD (HRX_KFD=emulated): /dev/kfd's semantics in process, for machines without
// the GPU. It keeps what the real driver checks and hands out (version, VM acquisition, memory
// handles and GPU mappings, queue creation arguments, doorbells, events) and runs a command
// processor thread per queue that reads the real AQL ring from the memory the runtime wrote:
// per dispatch packet it finds the kernel descriptor among the loaded code objects, decodes the
// kernarg segment through the code object's metadata (checking every hidden argument against
// the packet), runs the kernel's host twin over the packet's grid and workgroup sizes, then
// decrements the completion signal and raises its event. A packet, address or kernarg mistake
// becomes a device fault (a KFD memory or hardware exception event), as on the hardware.
#include "../WorkerPool.h"

#include "hrx/support/Text.h"
#include "Kernargs.h"
#include "KfdSystem.h"
#include "Topology.h"

#include "hrx/runtime/Admission.h"

#include <linux/kfd_ioctl.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

namespace hrx::runtime::kfd {
namespace {

constexpr int kFakeFdBase = 0x40000000;
constexpr uint64_t kPage = 4096;
constexpr uint64_t kDoorbellMmapOffset = uint64_t(1) << 40;  // 8 KiB aligned, one page pair
constexpr uint64_t kDoorbellBytes = 0x2000;
constexpr unsigned kMaxQueues = 16;
constexpr uint64_t kDoorbellNeverRung = UINT64_MAX;
constexpr uint32_t kEventWaitInfinite = 0xffffffffu;

using text::hex;  // hrx/support/Text.h

class EmulatedKfd;

struct Memory {
  uint64_t handle = 0, va = 0, size = 0;
  uint32_t flags = 0;
  bool mappedToGpu = false;
  uint64_t mmapOffset = 0;    // GTT: the drm mmap offset handed out
  std::byte *view = nullptr;  // the emulator's own view of the bytes (userptr: the user range)
  int memfd = -1;             // GTT backing
  bool cpuMapped = false;
};

struct Event {
  uint32_t id = 0, type = 0, slot = 0;
  bool autoReset = false, signaled = false;
  kfd_event_data data{};
};

struct Queue {
  uint32_t id = 0;
  unsigned doorbellIndex = 0;
  std::byte *ring = nullptr;
  uint64_t ringBytes = 0;
  std::atomic<uint64_t> *writeDispatchId = nullptr, *readDispatchId = nullptr;
  uint64_t queueAddress = 0;  // the amd_queue_t the pointers live in (hidden_queue_ptr)
  std::thread thread;
  std::atomic<bool> stop{false};
  std::vector<DecodedArgument> decoded;  // reused per dispatch
  std::vector<void *> args;
  std::vector<uint64_t> scalars;
};

class EmulatedKfd final : public KfdSystem {
public:
  explicit EmulatedKfd(EmulatorOptions options) : options_(std::move(options)), delayMs_(options_.dispatchDelayMs) {
    void *page = ::mmap(nullptr, kDoorbellBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    doorbells_ = page == MAP_FAILED ? nullptr : static_cast<std::atomic<uint64_t> *>(page);
    if (doorbells_)
      for (unsigned i = 0; i < kDoorbellBytes / 8; ++i) doorbells_[i].store(kDoorbellNeverRung);
  }
  ~EmulatedKfd() override {
    for (auto &q : queues_)
      if (q) stopQueue(*q);
  }

  const char *name() const override { return "emulated KFD"; }
  bool emulated() const override { return true; }

  int open(const char *path, int flags) override {
    (void)flags;
    std::lock_guard lock(mutex_);
    if (int injected = inject("open")) return injected;
    std::string p = path;
    if (p == "/dev/kfd") {
      int fd = kFakeFdBase + nextFd_++;
      kfdFds_.push_back(fd);
      return fd;
    }
    if (p.starts_with("/dev/dri/renderD")) {
      for (const KfdNode &node : nodes())
        if (p == "/dev/dri/renderD" + std::to_string(node.get("drm_render_minor"))) {
          int fd = kFakeFdBase + nextFd_++;
          drmFds_.push_back(fd);
          return fd;
        }
    }
    return -ENOENT;
  }

  int close(int fd) override {
    std::lock_guard lock(mutex_);
    for (auto *fds : {&kfdFds_, &drmFds_})
      for (auto it = fds->begin(); it != fds->end(); ++it)
        if (*it == fd) {
          fds->erase(it);
          return 0;
        }
    return -EBADF;
  }

  int mmap(void *address, size_t length, int protection, int flags, int fd, uint64_t offset, void **mapped) override {
    std::lock_guard lock(mutex_);
    if (fd == -1) {
      void *p = ::mmap(address, length, protection, flags, -1, off_t(offset));
      if (p == MAP_FAILED) return -errno;
      *mapped = p;
      return 0;
    }
    if (isKfd(fd)) {
      if (offset != kDoorbellMmapOffset || length != kDoorbellBytes || !doorbells_) return -EINVAL;
      *mapped = doorbells_;
      return 0;
    }
    if (!isDrm(fd)) return -EBADF;
    for (auto &[handle, m] : memory_) {
      if (m.memfd < 0 || m.mmapOffset != offset) continue;
      if (length != m.size) return -EINVAL;
      void *p = ::mmap(address, length, protection, flags, m.memfd, 0);
      if (p == MAP_FAILED) return -errno;
      m.cpuMapped = true;
      *mapped = p;
      return 0;
    }
    return -EINVAL;
  }

  int munmap(void *address, size_t length) override {
    std::lock_guard lock(mutex_);
    if (address == doorbells_) return 0;  // the doorbell pages stay for the process
    return ::munmap(address, length) == 0 ? 0 : -errno;
  }

  int ioctl(int fd, unsigned long request, void *argument) override {
    std::unique_lock lock(mutex_);
    if (!isKfd(fd)) return -EBADF;
    if (lost_ && request != AMDKFD_IOC_WAIT_EVENTS && request != AMDKFD_IOC_DESTROY_QUEUE &&
        request != AMDKFD_IOC_DESTROY_EVENT && request != AMDKFD_IOC_FREE_MEMORY_OF_GPU &&
        request != AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU)
      return -ENODEV;
    switch (request) {
    case AMDKFD_IOC_GET_VERSION: {
      if (int injected = inject("get_version")) return injected;
      auto *a = static_cast<kfd_ioctl_get_version_args *>(argument);
      a->major_version = options_.versionMajor;
      a->minor_version = options_.versionMinor;
      return 0;
    }
    case AMDKFD_IOC_ACQUIRE_VM: return acquireVm(*static_cast<kfd_ioctl_acquire_vm_args *>(argument));
    case AMDKFD_IOC_ALLOC_MEMORY_OF_GPU: return allocate(*static_cast<kfd_ioctl_alloc_memory_of_gpu_args *>(argument));
    case AMDKFD_IOC_FREE_MEMORY_OF_GPU: return free(*static_cast<kfd_ioctl_free_memory_of_gpu_args *>(argument));
    case AMDKFD_IOC_MAP_MEMORY_TO_GPU: {
      auto *a = static_cast<kfd_ioctl_map_memory_to_gpu_args *>(argument);
      return mapToGpu(a->handle, a->device_ids_array_ptr, a->n_devices, a->n_success, true);
    }
    case AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU: {
      auto *a = static_cast<kfd_ioctl_unmap_memory_from_gpu_args *>(argument);
      return mapToGpu(a->handle, a->device_ids_array_ptr, a->n_devices, a->n_success, false);
    }
    case AMDKFD_IOC_CREATE_QUEUE: return createQueue(*static_cast<kfd_ioctl_create_queue_args *>(argument));
    case AMDKFD_IOC_DESTROY_QUEUE: {
      auto *a = static_cast<kfd_ioctl_destroy_queue_args *>(argument);
      for (auto &q : queues_)
        if (q && q->id == a->queue_id) {
          std::unique_ptr<Queue> victim = std::move(q);
          lock.unlock();
          stopQueue(*victim);
          return 0;
        }
      return -EINVAL;
    }
    case AMDKFD_IOC_CREATE_EVENT: return createEvent(*static_cast<kfd_ioctl_create_event_args *>(argument));
    case AMDKFD_IOC_DESTROY_EVENT: {
      auto *a = static_cast<kfd_ioctl_destroy_event_args *>(argument);
      return events_.erase(a->event_id) ? 0 : -EINVAL;
    }
    case AMDKFD_IOC_SET_EVENT: {
      auto *a = static_cast<kfd_ioctl_set_event_args *>(argument);
      auto it = events_.find(a->event_id);
      if (it == events_.end() || it->second.type != KFD_IOC_EVENT_SIGNAL) return -EINVAL;
      it->second.signaled = true;
      eventsChanged_.notify_all();
      return 0;
    }
    case AMDKFD_IOC_RESET_EVENT: {
      auto *a = static_cast<kfd_ioctl_reset_event_args *>(argument);
      auto it = events_.find(a->event_id);
      if (it == events_.end()) return -EINVAL;
      it->second.signaled = false;
      return 0;
    }
    case AMDKFD_IOC_WAIT_EVENTS: return waitEvents(*static_cast<kfd_ioctl_wait_events_args *>(argument), lock);
    default: return -EINVAL;
    }
  }

  void attachProgram(std::shared_ptr<const HostTwinProgram> program) override {
    std::lock_guard lock(mutex_);
    programs_.push_back(std::move(program));
  }
  void detachProgram(uint64_t loadBase) override {
    std::lock_guard lock(mutex_);
    std::erase_if(programs_, [&](const auto &p) { return p->loadBase == loadBase; });
  }
  void setDispatchDelayMs(uint64_t ms) override { delayMs_.store(ms); }
  std::string faultDetail() const override {
    std::lock_guard lock(mutex_);
    return faultDetail_;
  }

private:
  // An armed failure for `call`: -errno on the armed hit, else 0 (the mutex is held).
  int inject(const char *call) {
    if (options_.failCall != call) return 0;
    if (++hits_ != options_.failAt) return 0;
    return -options_.failErrno;
  }
  bool isKfd(int fd) const { return std::find(kfdFds_.begin(), kfdFds_.end(), fd) != kfdFds_.end(); }
  bool isDrm(int fd) const { return std::find(drmFds_.begin(), drmFds_.end(), fd) != drmFds_.end(); }
  const std::vector<KfdNode> &nodes() {
    if (!nodesRead_) {
      nodes_ = readKfdNodes(sysfsRoot());
      nodesRead_ = true;
    }
    return nodes_;
  }
  const KfdNode *nodeOf(uint32_t gpuId) {
    for (const KfdNode &n : nodes())
      if (n.gpuId == gpuId && gpuId != 0) return &n;
    return nullptr;
  }

  int acquireVm(const kfd_ioctl_acquire_vm_args &a) {
    if (int injected = inject("acquire_vm")) return injected;
    if (!nodeOf(a.gpu_id)) return -EINVAL;
    if (!isDrm(int(a.drm_fd))) return -EINVAL;
    if (vmDrmFd_ >= 0 && vmDrmFd_ != int(a.drm_fd)) return -EBUSY;
    vmDrmFd_ = int(a.drm_fd);
    return 0;
  }

  // The allocation holding [va, va+size), mapped to the GPU; null otherwise.
  Memory *gpuRange(uint64_t va, uint64_t size) {
    for (auto &[handle, m] : memory_)
      if (m.mappedToGpu && va >= m.va && size <= m.size && va - m.va <= m.size - size) return &m;
    return nullptr;
  }
  std::byte *translate(uint64_t va, uint64_t size) {
    Memory *m = gpuRange(va, size);
    return m ? m->view + (va - m->va) : nullptr;
  }

  int allocate(kfd_ioctl_alloc_memory_of_gpu_args &a) {
    if (int injected = inject("alloc")) return injected;
    if (vmDrmFd_ < 0 || !nodeOf(a.gpu_id)) return -EINVAL;
    uint32_t domain =
        a.flags & (KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_USERPTR |
                   KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL | KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP);
    if (std::popcount(domain) != 1) return -EINVAL;
    if (domain != KFD_IOC_ALLOC_MEM_FLAGS_GTT && domain != KFD_IOC_ALLOC_MEM_FLAGS_USERPTR &&
        domain != KFD_IOC_ALLOC_MEM_FLAGS_VRAM)
      return -EINVAL;
    if (a.size == 0 || a.size % kPage || a.va_addr % kPage || a.va_addr == 0) return -EINVAL;
    for (auto &[handle, m] : memory_)
      if (a.va_addr < m.va + m.size && m.va < a.va_addr + a.size) return -EINVAL;  // VA already in use
    if (a.size > (uint64_t(64) << 30)) return -ENOMEM;
    Memory m;
    m.handle = (uint64_t(a.gpu_id) << 32) | nextHandle_++;
    m.va = a.va_addr;
    m.size = a.size;
    m.flags = a.flags;
    if (domain == KFD_IOC_ALLOC_MEM_FLAGS_USERPTR) {
      if (a.mmap_offset % kPage || a.mmap_offset == 0) return -EINVAL;
      m.view = reinterpret_cast<std::byte *>(a.mmap_offset);
    } else {
      m.memfd = memfd_create("hrx-emulated-gtt", MFD_CLOEXEC);
      if (m.memfd < 0) return -ENOMEM;
      if (ftruncate(m.memfd, off_t(a.size)) != 0) {
        ::close(m.memfd);
        return -ENOMEM;
      }
      void *view = ::mmap(nullptr, a.size, PROT_READ | PROT_WRITE, MAP_SHARED, m.memfd, 0);
      if (view == MAP_FAILED) {
        ::close(m.memfd);
        return -ENOMEM;
      }
      m.view = static_cast<std::byte *>(view);
      m.mmapOffset = (m.handle & 0xffffffffu) << 24;  // KFD: an offset naming the BO
      a.mmap_offset = m.mmapOffset;
    }
    a.handle = m.handle;
    memory_.emplace(m.handle, m);
    return 0;
  }

  int free(const kfd_ioctl_free_memory_of_gpu_args &a) {
    auto it = memory_.find(a.handle);
    if (it == memory_.end()) return -EINVAL;
    if (it->second.mappedToGpu) return -EBUSY;
    for (const auto &q : queues_)
      if (q && (q->ring >= it->second.view && q->ring < it->second.view + it->second.size)) return -EBUSY;
    if (it->second.memfd >= 0) {
      ::munmap(it->second.view, it->second.size);
      ::close(it->second.memfd);
    }
    memory_.erase(it);
    return 0;
  }

  int mapToGpu(uint64_t handle, uint64_t devices, uint32_t count, uint32_t &success, bool map) {
    if (map)
      if (int injected = inject("map")) return injected;
    auto it = memory_.find(handle);
    if (it == memory_.end() || count == 0 || devices == 0 || success > count) return -EINVAL;
    const auto *ids = reinterpret_cast<const uint32_t *>(devices);
    for (uint32_t i = success; i < count; ++i)
      if (!nodeOf(ids[i])) return -EINVAL;
    it->second.mappedToGpu = map;
    success = count;
    return 0;
  }

  int createQueue(kfd_ioctl_create_queue_args &a) {
    if (int injected = inject("create_queue")) return injected;
    const KfdNode *node = nodeOf(a.gpu_id);
    if (!node || vmDrmFd_ < 0) return -EINVAL;
    if (a.queue_type != KFD_IOC_QUEUE_TYPE_COMPUTE_AQL) return -EINVAL;  // the emulator's CP reads AQL only
    if ((a.queue_percentage & 0xff) > KFD_MAX_QUEUE_PERCENTAGE || a.queue_priority > KFD_MAX_QUEUE_PRIORITY)
      return -EINVAL;
    if (a.ring_size < KFD_MIN_QUEUE_RING_SIZE || (a.ring_size & (a.ring_size - 1)) || a.ring_base_address % 64)
      return -EINVAL;
    // KFD checks each queue buffer is GPU-mapped memory of the process, of the right size.
    std::byte *ring = translate(a.ring_base_address, a.ring_size);
    auto *wptr = reinterpret_cast<std::atomic<uint64_t> *>(translate(a.write_pointer_address, 8));
    auto *rptr = reinterpret_cast<std::atomic<uint64_t> *>(translate(a.read_pointer_address, 8));
    if (!ring || !wptr || !rptr || a.write_pointer_address % 8 || a.read_pointer_address % 8) return -EINVAL;
    if (a.eop_buffer_size < 4096 || !translate(a.eop_buffer_address, a.eop_buffer_size)) return -EINVAL;
    auto sizes = cwsrSizes(*node);
    if (!sizes) return -EINVAL;
    if (a.ctx_save_restore_size != sizes->ctxSaveRestoreSize || a.ctl_stack_size != sizes->ctlStackSize) return -EINVAL;
    if (!translate(a.ctx_save_restore_address, sizes->bufferBytes)) return -EINVAL;
    unsigned slot = 0;
    while (slot < kMaxQueues && queues_[slot]) ++slot;
    if (slot == kMaxQueues) return -ENOMEM;
    auto q = std::make_unique<Queue>();
    q->id = nextQueueId_++;
    q->doorbellIndex = slot;
    q->ring = ring;
    q->ringBytes = a.ring_size;
    q->writeDispatchId = wptr;
    q->readDispatchId = rptr;
    q->queueAddress = a.write_pointer_address >= 56 ? a.write_pointer_address - 56 : 0;
    q->decoded.reserve(64);
    q->args.reserve(64);
    q->scalars.reserve(1024);
    doorbells_[slot].store(kDoorbellNeverRung);
    a.queue_id = q->id;
    a.doorbell_offset = kDoorbellMmapOffset + slot * 8;
    Queue *raw = q.get();
    queues_[slot] = std::move(q);
    raw->thread = std::thread([this, raw] { commandProcessor(*raw); });
    return 0;
  }

  void stopQueue(Queue &q) {
    q.stop.store(true);
    if (q.thread.joinable()) q.thread.join();
  }

  int createEvent(kfd_ioctl_create_event_args &a) {
    if (int injected = inject("create_event")) return injected;
    if (a.event_type > KFD_IOC_EVENT_MEMORY) return -EINVAL;
    if (a.event_type == KFD_IOC_EVENT_SIGNAL) {
      if (a.event_page_offset) {
        auto it = memory_.find(a.event_page_offset);
        if (it == memory_.end() || it->second.size < KFD_SIGNAL_EVENT_LIMIT * 8 || eventPage_) return -EINVAL;
        eventPage_ = &it->second;
      }
      if (!eventPage_) return -EINVAL;  // this emulator needs the page from user memory, as ROCr passes it
    }
    if (events_.size() >= KFD_SIGNAL_EVENT_LIMIT) return -ENOMEM;
    Event e;
    e.id = nextEventId_++;
    e.type = a.event_type;
    e.autoReset = a.auto_reset != 0;
    e.slot = e.id;  // signal events: the event page slot is the id, as in KFD
    events_.emplace(e.id, e);
    a.event_id = e.id;
    a.event_slot_index = e.slot;
    a.event_trigger_data = e.id;
    return 0;
  }

  int waitEvents(kfd_ioctl_wait_events_args &a, std::unique_lock<std::mutex> &lock) {
    if (int injected = inject("wait_events")) return injected;
    if (a.num_events == 0 || a.events_ptr == 0) return -EINVAL;
    auto *data = reinterpret_cast<kfd_event_data *>(a.events_ptr);
    for (uint32_t i = 0; i < a.num_events; ++i)
      if (!events_.count(data[i].event_id)) return -EINVAL;
    auto ready = [&] {
      uint32_t signaled = 0;
      for (uint32_t i = 0; i < a.num_events; ++i) signaled += events_.at(data[i].event_id).signaled;
      return a.wait_for_all ? signaled == a.num_events : signaled > 0;
    };
    bool done = true;
    if (a.timeout == kEventWaitInfinite)
      eventsChanged_.wait(lock, [&] { return ready() || !events_.count(data[0].event_id); });
    else
      done = eventsChanged_.wait_for(lock, std::chrono::milliseconds(a.timeout), ready);
    if (!done) {
      a.wait_result = KFD_IOC_WAIT_RESULT_TIMEOUT;
      return 0;
    }
    for (uint32_t i = 0; i < a.num_events; ++i) {
      auto it = events_.find(data[i].event_id);
      if (it == events_.end() || !it->second.signaled) continue;
      if (it->second.type != KFD_IOC_EVENT_SIGNAL) {
        data[i].memory_exception_data = it->second.data.memory_exception_data;
        if (it->second.type == KFD_IOC_EVENT_HW_EXCEPTION)
          data[i].hw_exception_data = it->second.data.hw_exception_data;
      }
      if (it->second.autoReset) it->second.signaled = false;
    }
    a.wait_result = KFD_IOC_WAIT_RESULT_COMPLETE;
    return 0;
  }

  // A device fault: the queue stops, and the exception events carry what KFD would report
  // (mutex held).
  void raiseFault(uint32_t gpuId, bool memoryFault, uint64_t va, const std::string &detail, bool lost) {
    faultDetail_ = detail;
    if (lost) lost_ = true;
    for (auto &[id, e] : events_) {
      if (memoryFault && e.type == KFD_IOC_EVENT_MEMORY) {
        e.data = {};
        e.data.memory_exception_data.gpu_id = gpuId;
        e.data.memory_exception_data.va = va;
        e.data.memory_exception_data.failure.NotPresent = 1;
        e.signaled = true;
      }
      if (!memoryFault && e.type == KFD_IOC_EVENT_HW_EXCEPTION) {
        e.data = {};
        e.data.hw_exception_data.gpu_id = gpuId;
        e.data.hw_exception_data.reset_type = KFD_HW_EXCEPTION_WHOLE_GPU_RESET;
        e.data.hw_exception_data.reset_cause = KFD_HW_EXCEPTION_GPU_HANG;
        e.data.hw_exception_data.memory_lost = lost ? 1 : 0;
        e.signaled = true;
      }
    }
    eventsChanged_.notify_all();
  }

  void commandProcessor(Queue &q) {
    const uint64_t packets = q.ringBytes / sizeof(KernelDispatchPacket);
    auto *ring = reinterpret_cast<KernelDispatchPacket *>(q.ring);
    unsigned idle = 0;
    uint64_t read = q.readDispatchId->load(std::memory_order_acquire);
    while (!q.stop.load(std::memory_order_relaxed)) {
      uint64_t doorbell = doorbells_[q.doorbellIndex].load(std::memory_order_acquire);
      uint64_t write = q.writeDispatchId->load(std::memory_order_acquire);
      bool stopped;
      {
        std::lock_guard lock(mutex_);
        stopped = lost_ || queueFaulted_;
      }
      if (stopped || doorbell == kDoorbellNeverRung || read > doorbell || read >= write) {
        // Idle: spin briefly, then sleep up to 1 ms between looks at the doorbell.
        if (++idle < 64)
          std::this_thread::yield();
        else
          std::this_thread::sleep_for(
              std::chrono::microseconds(std::min<unsigned>(1000, 20u << std::min(idle - 64, 6u))));
        continue;
      }
      idle = 0;
      KernelDispatchPacket &slot = ring[read % packets];
      auto *header = reinterpret_cast<std::atomic<uint16_t> *>(&slot.header);
      uint16_t type = header->load(std::memory_order_acquire) & 0xff;
      if (type == kPacketTypeInvalid) {  // rung before the header was published: wait for it
        std::this_thread::yield();
        continue;
      }
      KernelDispatchPacket packet = slot;
      process(q, packet, type);
      header->store(kPacketTypeInvalid, std::memory_order_release);
      q.readDispatchId->store(++read, std::memory_order_release);
    }
  }

  void process(Queue &q, const KernelDispatchPacket &packet, uint16_t type) {
    if (uint64_t delay = delayMs_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    std::unique_lock lock(mutex_);
    uint32_t gpuId = nodes().empty() ? 0 : nodes().front().gpuId;
    auto fault = [&](bool memory, uint64_t va, const std::string &what) {
      queueFaulted_ = true;
      raiseFault(gpuId, memory, va, "emulated command processor, queue " + std::to_string(q.id) + ": " + what, false);
    };
    if (options_.failCall == "lost" && ++dispatches_ == options_.failAt) {
      raiseFault(gpuId, false, 0, "injected device loss (HRX_KFD_EMULATED_FAIL=lost): a whole-GPU reset, memory lost",
                 true);
      return;
    }
    if (type != kPacketTypeKernelDispatch && type != kPacketTypeBarrierAnd)
      return fault(false, 0, "packet type " + std::to_string(type) + " is not a kernel dispatch or barrier-AND");
    if (type == kPacketTypeKernelDispatch) {
      std::shared_ptr<const HostTwinProgram> program;  // kept while the twin runs unlocked
      const format::CodeObjectKernel *kernel = nullptr;
      for (const auto &p : programs_)
        for (const format::CodeObjectKernel &k : p->codeObject.kernels)
          if (p->loadBase + k.descriptorAddress == packet.kernelObject) {
            program = p;
            kernel = &k;
          }
      const std::byte *descriptor = translate(packet.kernelObject, 64);
      if (!descriptor)
        return fault(true, packet.kernelObject,
                     "kernel_object " + hex(packet.kernelObject) + " is not mapped to the GPU");
      if (!program)
        return fault(false, 0, "kernel_object " + hex(packet.kernelObject) + " is not a loaded kernel descriptor");
      Memory *code = gpuRange(packet.kernelObject, 64);
      if (!(code->flags & KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE))
        return fault(true, packet.kernelObject,
                     "the code of kernel '" + kernel->name + "' is not in executable GPU memory");
      format::KernelDescriptor found = format::decodeKernelDescriptor(
          std::span<const uint8_t, 64>(reinterpret_cast<const uint8_t *>(descriptor), 64));
      const format::KernelDescriptor &want = kernel->descriptor;
      if (found.groupSegmentFixedSize != want.groupSegmentFixedSize ||
          found.privateSegmentFixedSize != want.privateSegmentFixedSize || found.kernargSize != want.kernargSize ||
          found.kernelCodeEntryByteOffset != want.kernelCodeEntryByteOffset ||
          found.computePgmRsrc1 != want.computePgmRsrc1 || found.computePgmRsrc2 != want.computePgmRsrc2 ||
          found.computePgmRsrc3 != want.computePgmRsrc3 || found.kernelCodeProperties != want.kernelCodeProperties ||
          found.kernargPreload != want.kernargPreload)
        return fault(false, 0,
                     "the kernel descriptor of '" + kernel->name + "' in GPU memory differs from the code object's");
      uint64_t entry = packet.kernelObject + uint64_t(found.kernelCodeEntryByteOffset);
      Memory *entryMemory = gpuRange(entry, 4);
      if (!entryMemory || !(entryMemory->flags & KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE))
        return fault(true, entry,
                     "the entry point of kernel '" + kernel->name + "' (" + hex(entry) +
                         ") is not in executable GPU memory");
      const std::byte *kernargs = translate(packet.kernargAddress, std::max<uint64_t>(kernel->kernargSegmentSize, 1));
      if (!kernargs)
        return fault(true, packet.kernargAddress,
                     "kernarg_address " + hex(packet.kernargAddress) + " (" +
                         std::to_string(kernel->kernargSegmentSize) + " bytes) is not mapped to the GPU");
      std::span<const std::byte> segment(kernargs, kernel->kernargSegmentSize);
      if (Status s = decodeKernargs(*kernel, packet, segment, q.queueAddress, q.decoded); !s)
        return fault(false, 0, s.message());
      for (int d = 0; d < 3; ++d)
        if (packet.gridSize[d] % packet.workgroupSize[d])
          return fault(false, 0,
                       "kernel '" + kernel->name + "': the host twin runs whole workgroups; grid_size_" +
                           std::string(1, "xyz"[d]) + " is not a multiple of workgroup_size");
      q.args.clear();
      q.scalars.assign(q.decoded.size() * 2 + kernel->kernargSegmentSize / 8 + 1, 0);
      auto *scalar = reinterpret_cast<std::byte *>(q.scalars.data());
      for (const DecodedArgument &a : q.decoded) {
        if (a.kind == format::KernargKind::GlobalBuffer) {
          std::byte *view = translate(a.address, 1);
          if (!view && a.address != 0)
            return fault(true, a.address,
                         "kernel '" + kernel->name + "': the buffer argument at kernarg offset " +
                             std::to_string(a.offset) + " points at " + hex(a.address) +
                             ", which is not mapped to the GPU");
          q.args.push_back(view);
        } else {
          std::memcpy(scalar, segment.data() + a.offset, a.size);
          q.args.push_back(scalar);
          scalar += (a.size + 7) / 8 * 8;
        }
      }
      auto twin = program->twins.find(kernel->name);
      if (twin == program->twins.end()) return fault(false, 0, "kernel '" + kernel->name + "' has no host twin");
      hrx_host_dispatch dispatch{};
      for (int d = 0; d < 3; ++d) {
        dispatch.workgroup_size[d] = packet.workgroupSize[d];
        dispatch.workgroup_count[d] = packet.gridSize[d] / packet.workgroupSize[d];
      }
      dispatch.arg_count = uint32_t(q.args.size());
      dispatch.args = q.args.data();
      // The twin reads the device globals the GPU memory holds now (writes into the loaded
      // code object, hipMemcpyToSymbol's, land there).
      for (const kfd::HostTwinProgram::GlobalMirror &g : program->globals) {
        const std::byte *image = translate(program->loadBase + g.offset, g.bytes);
        if (!image) return fault(false, 0, "a device global of kernel '" + kernel->name + "' is not mapped");
        std::memcpy(g.twin.data(), image, g.bytes);
      }
      lock.unlock();  // the shader "hardware" runs without the driver lock
      runHostWorkgroups(twin->second, dispatch);
      lock.lock();
    }
    if (packet.completionSignal) {
      auto *signal = reinterpret_cast<AmdSignal *>(translate(packet.completionSignal, sizeof(AmdSignal)));
      if (!signal)
        return fault(true, packet.completionSignal,
                     "completion_signal " + hex(packet.completionSignal) + " is not mapped to the GPU");
      reinterpret_cast<std::atomic<int64_t> *>(&signal->value)->fetch_sub(1, std::memory_order_acq_rel);
      if (signal->eventMailboxPtr) {
        auto *mailbox = reinterpret_cast<std::atomic<uint64_t> *>(translate(signal->eventMailboxPtr, 8));
        if (!mailbox)
          return fault(true, signal->eventMailboxPtr, "the signal's event mailbox is not mapped to the GPU");
        mailbox->store(signal->eventId, std::memory_order_release);
        auto event = events_.find(signal->eventId);
        if (event != events_.end() && event->second.type == KFD_IOC_EVENT_SIGNAL && eventPage_ &&
            signal->eventMailboxPtr == eventPage_->va + uint64_t(event->second.slot) * 8) {
          event->second.signaled = true;
          eventsChanged_.notify_all();
        }
      }
    }
  }

  EmulatorOptions options_;
  std::atomic<uint64_t> delayMs_;
  mutable std::mutex mutex_;
  std::condition_variable eventsChanged_;
  uint64_t hits_ = 0, dispatches_ = 0;
  int nextFd_ = 0;
  std::vector<int> kfdFds_, drmFds_;
  bool nodesRead_ = false;
  std::vector<KfdNode> nodes_;
  int vmDrmFd_ = -1;
  uint64_t nextHandle_ = 1;
  std::map<uint64_t, Memory> memory_;
  Memory *eventPage_ = nullptr;
  uint32_t nextEventId_ = 1, nextQueueId_ = 1;
  std::map<uint32_t, Event> events_;
  std::unique_ptr<Queue> queues_[kMaxQueues];
  std::atomic<uint64_t> *doorbells_ = nullptr;
  std::vector<std::shared_ptr<const HostTwinProgram>> programs_;
  bool lost_ = false, queueFaulted_ = false;
  std::string faultDetail_;
};

bool parseUnsigned(const std::string &text, uint64_t &out) {
  if (text.empty() || text.size() > 12) return false;
  out = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + uint64_t(c - '0');
  }
  return true;
}

}  // namespace

StatusOr<EmulatorOptions> emulatorOptionsFromEnvironment() {
  EmulatorOptions options;
  if (const char *fail = std::getenv("HRX_KFD_EMULATED_FAIL"); fail && *fail) {
    std::string text = fail;
    auto bad = [&] {
      return Status(
          StatusCode::InvalidArgument,
          "HRX_KFD_EMULATED_FAIL='" + text +
              "': expected <call>:<errno>[:<n>] with call open, get_version, "
              "acquire_vm, alloc, map, create_queue, create_event, wait_events or lost, errno ENOMEM, EINVAL, "
              "EACCES, ENODEV or EIO, and n >= 1");
    };
    size_t colon = text.find(':');
    if (colon == std::string::npos) return bad();
    options.failCall = text.substr(0, colon);
    std::string rest = text.substr(colon + 1), code = rest, count;
    if (size_t second = rest.find(':'); second != std::string::npos) {
      code = rest.substr(0, second);
      count = rest.substr(second + 1);
    }
    static const std::pair<const char *, int> codes[] = {
        {"ENOMEM", ENOMEM}, {"EINVAL", EINVAL}, {"EACCES", EACCES}, {"ENODEV", ENODEV}, {"EIO", EIO}};
    for (const auto &[name, value] : codes)
      if (code == name) options.failErrno = value;
    bool known = false;
    for (const char *call :
         {"open", "get_version", "acquire_vm", "alloc", "map", "create_queue", "create_event", "wait_events", "lost"})
      known |= options.failCall == call;
    if (!known || options.failErrno == 0) return bad();
    if (!count.empty() && (!parseUnsigned(count, options.failAt) || options.failAt == 0)) return bad();
  }
  if (const char *delay = std::getenv("HRX_KFD_EMULATED_DELAY_MS"); delay && *delay)
    if (!parseUnsigned(delay, options.dispatchDelayMs) || options.dispatchDelayMs > 3600000)
      return Status(StatusCode::InvalidArgument,
                    "HRX_KFD_EMULATED_DELAY_MS='" + std::string(delay) + "': expected milliseconds from 0 to 3600000");
  if (const char *version = std::getenv("HRX_KFD_EMULATED_VERSION"); version && *version) {
    std::string text = version;
    size_t dot = text.find('.');
    uint64_t major = 0, minor = 0;
    if (dot == std::string::npos || !parseUnsigned(text.substr(0, dot), major) ||
        !parseUnsigned(text.substr(dot + 1), minor) || major > 0xffff || minor > 0xffff)
      return Status(StatusCode::InvalidArgument, "HRX_KFD_EMULATED_VERSION='" + text + "': expected <major>.<minor>");
    options.versionMajor = uint32_t(major);
    options.versionMinor = uint32_t(minor);
  }
  return options;
}

std::shared_ptr<KfdSystem> emulatedKfdSystem(const EmulatorOptions &options) {
  return std::make_shared<EmulatedKfd>(options);
}

}  // namespace hrx::runtime::kfd
