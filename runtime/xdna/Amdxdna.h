// The amdxdna kernel-driver boundary: our own declarations of the uAPI structures we use
// (facts from the Linux/amd-xdna-driver header include/uapi/drm/amdxdna_accel.h, which Debian 12
// does not ship), checked by static_assert against the published sizes and offsets, and a
// driver interface with two implementations: the real accel node (ioctl + mmap) and an
// emulated amdxdna (HRX_AMDXDNA=emulated) that executes submitted commands on the transaction
// array model. Everything above this interface (hardware context, BOs, relocation patching,
// ERT packets, submission, waiting, quarantine) is the same code for both. Internal to
// runtime/. No LLVM.
#pragma once

#include "hrx/array/ArrayModel.h"
#include "hrx/runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hrx::runtime::amdxdna {

// --- uAPI (include/uapi/drm/amdxdna_accel.h, amd/xdna-driver; docs/runtime.md) ---
enum IoctlId : uint32_t {
  kCreateHwctx = 0,
  kDestroyHwctx = 1,
  kConfigHwctx = 2,
  kCreateBo = 3,
  kGetBoInfo = 4,
  kSyncBo = 5,
  kExecCmd = 6,
  kGetInfo = 7,
  kSetState = 8,
  kWaitCmd = 9,  // out-of-tree driver only; upstream waits on the context's syncobj
};
enum BoType : uint32_t { kBoShmem = 1, kBoDevHeap = 2, kBoDev = 3, kBoCmd = 4 };
inline constexpr uint32_t kSyncToDevice = 0, kSyncFromDevice = 1;
inline constexpr uint32_t kCmdSubmitExecBuf = 0;

struct QosInfo {
  uint32_t gops, fps, dmaBandwidth, latency, frameExecTime, priority;
};
struct CreateHwctx {
  uint64_t ext, extFlags, qosPointer;
  uint32_t umqBo, logBufBo, maxOpc, numTiles, memSize, umqDoorbell, handle, syncobjHandle;
};
struct DestroyHwctx {
  uint32_t handle, pad;
};
struct CreateBo {
  uint64_t flags, vaddr, size;
  uint32_t type, handle;
};
struct GetBoInfo {
  uint64_t ext, extFlags;
  uint32_t handle, pad;
  uint64_t mapOffset, vaddr, xdnaAddr;
};
struct SyncBo {
  uint32_t handle, direction;
  uint64_t offset, size;
};
struct ExecCmd {
  uint64_t ext, extFlags;
  uint32_t hwctx, type;
  uint64_t cmdHandles, args;
  uint32_t cmdCount, argCount;
  uint64_t seq;
};
struct WaitCmd {
  uint32_t hwctx, timeoutMs;
  uint64_t seq;
};
// include/uapi/drm/drm.h: DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT = DRM_IOWR(0xCA, this), the original
// 40-byte layout (newer kernels append a deadline and zero-fill what older callers omit).
struct SyncobjTimelineWait {
  uint64_t handles, points;
  int64_t timeoutNsec;  // absolute, CLOCK_MONOTONIC
  uint32_t countHandles, flags, firstSignaled, pad;
};
inline constexpr uint32_t kSyncobjWaitAll = 1;
static_assert(sizeof(SyncobjTimelineWait) == 40 && offsetof(SyncobjTimelineWait, countHandles) == 24);
static_assert(sizeof(QosInfo) == 24);
static_assert(sizeof(CreateHwctx) == 56 && offsetof(CreateHwctx, numTiles) == 36 &&
              offsetof(CreateHwctx, handle) == 48 && offsetof(CreateHwctx, syncobjHandle) == 52);
static_assert(sizeof(DestroyHwctx) == 8);
static_assert(sizeof(CreateBo) == 32 && offsetof(CreateBo, type) == 24 && offsetof(CreateBo, handle) == 28);
static_assert(sizeof(GetBoInfo) == 48 && offsetof(GetBoInfo, handle) == 16 && offsetof(GetBoInfo, mapOffset) == 24 &&
              offsetof(GetBoInfo, xdnaAddr) == 40);
static_assert(sizeof(SyncBo) == 24 && offsetof(SyncBo, offset) == 8);
static_assert(sizeof(ExecCmd) == 56 && offsetof(ExecCmd, hwctx) == 16 && offsetof(ExecCmd, cmdHandles) == 24 &&
              offsetof(ExecCmd, cmdCount) == 40 && offsetof(ExecCmd, seq) == 48);
static_assert(sizeof(WaitCmd) == 16 && offsetof(WaitCmd, seq) == 8);

// ERT command packet (drivers/accel/amdxdna/amdxdna_ctx.h): header word = state [3:0],
// count of payload words [22:12], opcode [27:23]; ERT_START_NPU's payload is a CU mask word
// then {u64 instruction buffer address, u32 size, u32 property count, properties}.
enum CmdState : uint32_t {
  kStateNew = 1,
  kStateQueued = 2,
  kStateRunning = 3,
  kStateCompleted = 4,
  kStateError = 5,
  kStateAbort = 6,
  kStateSubmitted = 7,
  kStateTimeout = 8,
  kStateNoResponse = 9
};
inline constexpr uint32_t kOpcodeStartNpu = 20;
inline uint32_t ertHeader(uint32_t state, uint32_t payloadWords, uint32_t opcode) {
  return (state & 0xF) | (payloadWords & 0x7FF) << 12 | (opcode & 0x1F) << 23;
}
const char *cmdStateName(uint32_t state);

// --- the driver boundary ---
struct Bo {
  uint32_t handle = 0;
  uint64_t size = 0;
  uint64_t xdnaAddr = 0;      // device address (commands, BDs)
  std::byte *host = nullptr;  // CPU mapping
};

class Driver {
public:
  virtual ~Driver() = default;
  virtual std::string describe() const = 0;  // "amdxdna accel0", "emulated amdxdna (accel0)"
  virtual bool emulated() const = 0;
  virtual StatusOr<uint32_t> createHwctx(uint32_t numTiles) = 0;  // returns the context handle
  virtual Status destroyHwctx(uint32_t hwctx) = 0;
  virtual StatusOr<Bo> createBo(BoType type, uint64_t size) = 0;  // created, mapped, with its address
  virtual Status destroyBo(const Bo &bo) = 0;
  virtual Status syncBo(const Bo &bo, uint32_t direction) = 0;
  virtual StatusOr<uint64_t> execCmd(uint32_t hwctx, const Bo &cmd, const std::vector<uint32_t> &argBos) = 0;
  // Waits for command `seq`; DeadlineExceeded when it did not retire in time (the work stays
  // accepted: nothing is cancelled or freed). The accel node tries the out-of-tree WAIT_CMD,
  // then the context's syncobj at timeline point `seq` (upstream drivers).
  virtual Status waitCmd(uint32_t hwctx, uint64_t seq, uint32_t timeoutMs) = 0;
  // The emulator's stand-in for core code (no native AIE2P code exists yet): the cores of the
  // context's array. The real driver refuses (cores run their loaded programs).
  virtual Status attachHostTwins(uint32_t hwctx, std::vector<std::unique_ptr<array::CoreProgram>> cores) = 0;
  // The host twins run a plan's iterations per dispatch (a resident core program would loop
  // forever): the submission path starts their next dispatch here. No-op on the real driver.
  virtual void startHostTwinDispatch(uint32_t hwctx) = 0;
  // Why the last failed command failed, when the driver knows (the emulator's model error).
  virtual std::string lastError() const = 0;
};

// The driver behind an admitted NPU: HRX_AMDXDNA=emulated gives the emulator, otherwise the
// accel node /dev/accel/<node> (HRX_ACCEL_DEV_DIR overrides /dev/accel).
StatusOr<std::unique_ptr<Driver>> openDriver(const std::string &node);
bool emulationRequested();  // HRX_AMDXDNA=emulated
std::unique_ptr<Driver> makeEmulatedDriver(const std::string &node);
StatusOr<std::unique_ptr<Driver>> makeLinuxDriver(const std::string &devicePath);

}  // namespace hrx::runtime::amdxdna
