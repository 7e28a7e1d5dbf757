#include "Amdxdna.h"

#include "hrx/format/Transaction.h"
#include "hrx/support/Text.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <linux/ioctl.h>
#include <map>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

namespace hrx::runtime::amdxdna {

const char *cmdStateName(uint32_t state) {
  switch (state) {
  case kStateNew: return "NEW";
  case kStateQueued: return "QUEUED";
  case kStateRunning: return "RUNNING";
  case kStateCompleted: return "COMPLETED";
  case kStateError: return "ERROR";
  case kStateAbort: return "ABORT";
  case kStateSubmitted: return "SUBMITTED";
  case kStateTimeout: return "TIMEOUT";
  case kStateNoResponse: return "NORESPONSE";
  default: return "unknown";
  }
}

bool emulationRequested() {
  const char *v = std::getenv("HRX_AMDXDNA");
  return v && std::string(v) == "emulated";
}

StatusOr<std::unique_ptr<Driver>> openDriver(const std::string &node) {
  if (emulationRequested()) return makeEmulatedDriver(node);
  const char *dir = std::getenv("HRX_ACCEL_DEV_DIR");
  return makeLinuxDriver(std::string(dir && *dir ? dir : "/dev/accel") + "/" + node);
}

namespace {

// ---------------------------------------------------------------------------------------------
// The emulated amdxdna: BOs are host memory with device addresses the way the driver hands
// them out (device-heap window at 0x4000000; shared BOs page-aligned above 4 GiB, here 32 KiB
// aligned); EXEC_CMD runs the ERT_START_NPU packet's instruction buffer (a transaction) on a
// per-context ArrayModel, synchronously, and writes the command state back into the CMD BO.

constexpr uint64_t kDevHeapBase = 0x4000000;
constexpr uint64_t kShmemBase = uint64_t(1) << 32;
constexpr uint64_t kBoAlignment = 32 * 1024;

class EmulatedDriver final : public Driver {
public:
  explicit EmulatedDriver(std::string node) : node_(std::move(node)) {}
  std::string describe() const override { return "emulated amdxdna (" + node_ + ")"; }
  bool emulated() const override { return true; }

  StatusOr<uint32_t> createHwctx(uint32_t numTiles) override {
    // amdxdna: num_col = num_tiles / core rows (4); 1..8 columns.
    if (numTiles == 0 || numTiles % 4 || numTiles / 4 > 8)
      return Status(StatusCode::InvalidArgument, describe() + ": CREATE_HWCTX num_tiles " + std::to_string(numTiles) +
                                                     " is not 4 x 1..8 columns (EINVAL)");
    uint32_t handle = ++lastHandle_;
    contexts_[handle].array = std::make_unique<array::ArrayModel>(numTiles / 4);
    return handle;
  }
  Status destroyHwctx(uint32_t hwctx) override {
    if (!contexts_.erase(hwctx))
      return Status(StatusCode::InvalidArgument, describe() + ": DESTROY_HWCTX of unknown context");
    return Status::ok();
  }
  StatusOr<Bo> createBo(BoType type, uint64_t size) override {
    if (size == 0) return Status(StatusCode::InvalidArgument, describe() + ": CREATE_BO of 0 bytes (EINVAL)");
    Storage s;
    s.type = type;
    // Zeroed like the driver's BOs; calloc leaves untouched pages (the 64 MiB heap) unmapped.
    s.bytes.reset(static_cast<std::byte *>(std::calloc(size + kBoAlignment, 1)));
    if (!s.bytes)
      return Status(StatusCode::ResourceExhausted,
                    describe() + ": CREATE_BO of " + std::to_string(size) + " bytes (ENOMEM)");
    Bo bo;
    bo.handle = ++lastHandle_;
    bo.size = size;
    auto base = reinterpret_cast<uintptr_t>(s.bytes.get());
    bo.host = s.bytes.get() + ((kBoAlignment - base % kBoAlignment) % kBoAlignment);
    if (type == kBoDevHeap) {
      bo.xdnaAddr = kDevHeapBase;
    } else if (type != kBoCmd) {
      bo.xdnaAddr = nextShmem_;
      nextShmem_ += (size + kBoAlignment - 1) / kBoAlignment * kBoAlignment;
    }
    s.bo = bo;
    bos_[bo.handle] = std::move(s);
    return bo;
  }
  Status destroyBo(const Bo &bo) override {
    if (!bos_.erase(bo.handle))
      return Status(StatusCode::InvalidArgument, describe() + ": unknown BO " + std::to_string(bo.handle));
    return Status::ok();
  }
  Status syncBo(const Bo &bo, uint32_t direction) override {
    if (!bos_.count(bo.handle) || direction > 1)
      return Status(StatusCode::InvalidArgument, describe() + ": SYNC_BO (EINVAL)");
    return Status::ok();  // one coherent memory
  }
  Status attachHostTwins(uint32_t hwctx, std::vector<std::unique_ptr<array::CoreProgram>> cores) override {
    auto c = contexts_.find(hwctx);
    if (c == contexts_.end()) return Status(StatusCode::InvalidArgument, describe() + ": unknown context");
    c->second.array->setCores(std::move(cores));
    return Status::ok();
  }
  std::string lastError() const override { return lastError_; }
  void startHostTwinDispatch(uint32_t hwctx) override {
    if (auto c = contexts_.find(hwctx); c != contexts_.end())
      for (const auto &core : c->second.array->cores()) core->startInvocation();
  }

  StatusOr<uint64_t> execCmd(uint32_t hwctx, const Bo &cmd, const std::vector<uint32_t> &argBos) override {
    auto c = contexts_.find(hwctx);
    if (c == contexts_.end())
      return Status(StatusCode::InvalidArgument, describe() + ": EXEC_CMD on unknown context (EINVAL)");
    auto cb = bos_.find(cmd.handle);
    if (cb == bos_.end() || cb->second.type != kBoCmd)
      return Status(StatusCode::InvalidArgument, describe() + ": EXEC_CMD handle is not a CMD BO (EINVAL)");
    for (uint32_t h : argBos)
      if (!bos_.count(h))
        return Status(StatusCode::InvalidArgument,
                      describe() + ": EXEC_CMD argument BO " + std::to_string(h) + " is unknown (ENOENT)");
    uint64_t seq = ++c->second.submitted;
    uint32_t state = run(*c->second.array, cmd);
    uint32_t header;
    std::memcpy(&header, cmd.host, 4);
    header = (header & ~0xFu) | state;
    std::memcpy(cmd.host, &header, 4);
    c->second.retired[seq] = state;
    return seq;
  }
  Status waitCmd(uint32_t hwctx, uint64_t seq, uint32_t timeoutMs) override {
    auto c = contexts_.find(hwctx);
    if (c == contexts_.end() || !c->second.retired.count(seq))
      return Status(StatusCode::InvalidArgument, describe() + ": WAIT_CMD for an unknown command (EINVAL)");
    // Test only: HRX_AMDXDNA_HANG=N makes the N-th command submitted on a context never retire.
    if (const char *hang = std::getenv("HRX_AMDXDNA_HANG"); hang && std::strtoull(hang, nullptr, 10) == seq)
      return Status(StatusCode::DeadlineExceeded, describe() + ": command " + std::to_string(seq) +
                                                      " did not retire within " + std::to_string(timeoutMs) +
                                                      " ms (HRX_AMDXDNA_HANG)");
    return Status::ok();  // commands retire synchronously
  }

private:
  struct FreeDeleter {
    void operator()(std::byte *p) const { std::free(p); }
  };
  struct Storage {
    BoType type = kBoShmem;
    std::unique_ptr<std::byte, FreeDeleter> bytes;
    Bo bo;
  };
  struct Context {
    std::unique_ptr<array::ArrayModel> array;
    uint64_t submitted = 0;
    std::map<uint64_t, uint32_t> retired;
  };

  // The "firmware": decode the ERT packet, execute the instruction buffer, report a state.
  uint32_t run(array::ArrayModel &array, const Bo &cmd) {
    auto fail = [&](const std::string &what) {
      lastError_ = what;
      return uint32_t(kStateError);
    };
    uint32_t w[6];
    if (cmd.size < sizeof w) return fail("the CMD BO is shorter than an ERT_START_NPU packet");
    std::memcpy(w, cmd.host, sizeof w);
    uint32_t opcode = (w[0] >> 23) & 0x1F, count = (w[0] >> 12) & 0x7FF;
    if (opcode != kOpcodeStartNpu)
      return fail("ERT opcode " + std::to_string(opcode) + ", the emulator runs ERT_START_NPU (20) only");
    if (count < 5)
      return fail("ERT_START_NPU packet of " + std::to_string(count) + " payload words, expected at least 5");
    uint64_t address = uint64_t(w[2]) | uint64_t(w[3]) << 32;
    uint32_t size = w[4];
    if (address % kBoAlignment)
      return fail("instruction buffer address " + text::hex(address) +
                  " is not aligned to the NPU2 instruction alignment 32768");
    const std::byte *instructions = nullptr;
    std::vector<array::HostRegion> regions;
    for (auto &[handle, s] : bos_) {
      if (s.type == kBoCmd) continue;
      regions.push_back({s.bo.xdnaAddr, s.bo.host, s.bo.size, "BO " + std::to_string(handle)});
      if (address >= s.bo.xdnaAddr && address + size <= s.bo.xdnaAddr + s.bo.size)
        instructions = s.bo.host + (address - s.bo.xdnaAddr);
    }
    if (!instructions)
      return fail("instruction buffer " + text::hex(address) + "+" + std::to_string(size) + " lies in no BO");
    auto t = format::txn::decodeTransaction({reinterpret_cast<const uint8_t *>(instructions), size});
    if (!t) return fail(t.status().message());
    array.setHostMemory(std::move(regions));
    if (Status s = array.execute(*t, "command"); !s) return fail(s.message());
    bool coresDone = true;
    for (const auto &core : array.cores()) coresDone &= core->finished();
    if (coresDone)
      if (Status s = array.finishInvocation("command"); !s) return fail(s.message());
    return kStateCompleted;
  }

  std::string node_;
  uint32_t lastHandle_ = 0;
  uint64_t nextShmem_ = kShmemBase;
  std::map<uint32_t, Storage> bos_;
  std::map<uint32_t, Context> contexts_;
  std::string lastError_;
};

// ---------------------------------------------------------------------------------------------
// The accel node. DRM_IOWR(DRM_COMMAND_BASE + id, struct) with type 'd'; WAIT_CMD is DRM_IOW.
constexpr unsigned long kDrmCommandBase = 0x40;
template <typename T> constexpr unsigned long iowr(uint32_t id) { return _IOWR('d', kDrmCommandBase + id, T); }
template <typename T> constexpr unsigned long iow(uint32_t id) { return _IOW('d', kDrmCommandBase + id, T); }

class LinuxDriver final : public Driver {
public:
  LinuxDriver(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~LinuxDriver() override { ::close(fd_); }
  std::string describe() const override { return "amdxdna " + path_; }
  bool emulated() const override { return false; }

  StatusOr<uint32_t> createHwctx(uint32_t numTiles) override {
    QosInfo qos{};
    qos.priority = 0x200;  // AMDXDNA_QOS_NORMAL_PRIORITY
    CreateHwctx a{};
    a.qosPointer = reinterpret_cast<uintptr_t>(&qos);
    a.numTiles = numTiles;
    a.maxOpc = 0x800;
    if (Status s = call(iowr<CreateHwctx>(kCreateHwctx), &a, "CREATE_HWCTX"); !s) return s;
    syncobjs_[a.handle] = a.syncobjHandle;
    return a.handle;
  }
  Status destroyHwctx(uint32_t hwctx) override {
    DestroyHwctx a{hwctx, 0};
    return call(iowr<DestroyHwctx>(kDestroyHwctx), &a, "DESTROY_HWCTX");
  }
  StatusOr<Bo> createBo(BoType type, uint64_t size) override {
    CreateBo a{};
    a.size = size;
    a.type = type;
    if (Status s = call(iowr<CreateBo>(kCreateBo), &a, "CREATE_BO"); !s) return s;
    GetBoInfo info{};
    info.handle = a.handle;
    if (Status s = call(iowr<GetBoInfo>(kGetBoInfo), &info, "GET_BO_INFO"); !s) return s;
    void *host = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, off_t(info.mapOffset));
    if (host == MAP_FAILED)
      return Status(StatusCode::Internal,
                    describe() + ": mmap of BO " + std::to_string(a.handle) + " failed: " + std::strerror(errno));
    return Bo{a.handle, size, info.xdnaAddr, static_cast<std::byte *>(host)};
  }
  Status destroyBo(const Bo &bo) override {
    ::munmap(bo.host, bo.size);
    struct {
      uint32_t handle, pad;
    } close{bo.handle, 0};
    // DRM_IOCTL_GEM_CLOSE = DRM_IOW(0x09, struct drm_gem_close)
    if (::ioctl(fd_, _IOW('d', 0x09, decltype(close)), &close) != 0)
      return Status(StatusCode::Internal, describe() + ": GEM_CLOSE failed: " + std::strerror(errno));
    return Status::ok();
  }
  Status syncBo(const Bo &bo, uint32_t direction) override {
    SyncBo a{bo.handle, direction, 0, bo.size};
    return call(iowr<SyncBo>(kSyncBo), &a, "SYNC_BO");
  }
  StatusOr<uint64_t> execCmd(uint32_t hwctx, const Bo &cmd, const std::vector<uint32_t> &argBos) override {
    ExecCmd a{};
    a.hwctx = hwctx;
    a.type = kCmdSubmitExecBuf;
    a.cmdHandles = cmd.handle;  // one command: the handle itself
    a.args = reinterpret_cast<uintptr_t>(argBos.data());
    a.cmdCount = 1;
    a.argCount = uint32_t(argBos.size());
    if (Status s = call(iowr<ExecCmd>(kExecCmd), &a, "EXEC_CMD"); !s) return s;
    return a.seq;
  }
  Status waitCmd(uint32_t hwctx, uint64_t seq, uint32_t timeoutMs) override {
    WaitCmd a{hwctx, timeoutMs, seq};
    if (::ioctl(fd_, iow<WaitCmd>(kWaitCmd), &a) == 0) return Status::ok();
    if (errno == ETIME || errno == ETIMEDOUT)
      return Status(StatusCode::DeadlineExceeded, describe() + ": command " + std::to_string(seq) +
                                                      " did not retire within " + std::to_string(timeoutMs) + " ms");
    if (errno != ENOTTY && errno != EINVAL)
      return Status(StatusCode::Internal, describe() + ": WAIT_CMD failed: " + std::strerror(errno));
    // Upstream amdxdna has no WAIT_CMD: wait on the context's syncobj at timeline point `seq`.
    auto syncobj = syncobjs_.find(hwctx);
    if (syncobj == syncobjs_.end() || syncobj->second == 0)
      return Status(StatusCode::Unimplemented, describe() + ": no WAIT_CMD and no syncobj for the context");
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint32_t handle = syncobj->second;
    uint64_t point = seq;
    SyncobjTimelineWait w{};
    w.handles = reinterpret_cast<uintptr_t>(&handle);
    w.points = reinterpret_cast<uintptr_t>(&point);
    w.timeoutNsec = int64_t(now.tv_sec) * 1000000000 + now.tv_nsec + int64_t(timeoutMs) * 1000000;
    w.countHandles = 1;
    w.flags = kSyncobjWaitAll;
    if (::ioctl(fd_, _IOWR('d', 0xCA, SyncobjTimelineWait), &w) == 0) return Status::ok();
    if (errno == ETIME || errno == ETIMEDOUT)
      return Status(StatusCode::DeadlineExceeded, describe() + ": command " + std::to_string(seq) +
                                                      " did not retire within " + std::to_string(timeoutMs) + " ms");
    return Status(StatusCode::Internal, describe() + ": SYNCOBJ_TIMELINE_WAIT failed: " + std::strerror(errno));
  }
  Status attachHostTwins(uint32_t, std::vector<std::unique_ptr<array::CoreProgram>>) override {
    return Status(StatusCode::FailedPrecondition, describe() + ": host twins run only on the emulated amdxdna");
  }
  std::string lastError() const override { return {}; }
  void startHostTwinDispatch(uint32_t) override {}

private:
  Status call(unsigned long request, void *arg, const char *name) {
    if (::ioctl(fd_, request, arg) == 0) return Status::ok();
    return Status(StatusCode::Internal, describe() + ": " + name + " failed: " + std::strerror(errno));
  }
  int fd_;
  std::string path_;
  std::map<uint32_t, uint32_t> syncobjs_;  // context -> its completion syncobj
};

}  // namespace

std::unique_ptr<Driver> makeEmulatedDriver(const std::string &node) { return std::make_unique<EmulatedDriver>(node); }

StatusOr<std::unique_ptr<Driver>> makeLinuxDriver(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return Status(StatusCode::Unavailable, "cannot open the NPU accel node " + path + ": " + std::strerror(errno));
  return std::unique_ptr<Driver>(std::make_unique<LinuxDriver>(fd, path));
}

}  // namespace hrx::runtime::amdxdna
