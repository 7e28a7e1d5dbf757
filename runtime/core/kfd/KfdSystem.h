// The one boundary between the KFD GPU device and the kernel: open, ioctl, mmap, munmap and
// close on /dev/kfd and the render node. The real implementation makes the system calls; the
// emulated one (HRX_KFD=emulated) implements KFD's semantics in process, with a command
// processor thread that reads the real AQL ring and runs each dispatch through the kernel's
// host twin. Everything above this interface is the same code on both.
#pragma once

#include "hrx/format/AmdgpuCodeObject.h"
#include "hrx/format/HostAbi.h"
#include "hrx/runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>
#include <memory>
#include <string>
#include <vector>

namespace hrx::runtime {
class HostCode;
}

namespace hrx::runtime::kfd {

// A loaded code object as the emulator needs it to stand in for the shader hardware: where it
// was loaded, its metadata, and per kernel the host twin ("hrx.kernel.<symbol>").
struct HostTwinProgram {
  uint64_t loadBase = 0;
  uint64_t imageBytes = 0;
  format::AmdgpuCodeObject codeObject;
  std::shared_ptr<HostCode> hostCode;
  std::map<std::string, hrx_host_kernel_fn> twins;  // by kernel name
  // The code object's device globals and their copies in the host twin: before each dispatch
  // the emulated driver copies what the GPU memory holds at loadBase + offset into the twin.
  struct GlobalMirror {
    uint64_t offset = 0, bytes = 0;
    std::span<std::byte> twin;
  };
  std::vector<GlobalMirror> globals;
};

class KfdSystem {
public:
  virtual ~KfdSystem() = default;
  // "Linux KFD" or "emulated KFD" (in messages).
  virtual const char *name() const = 0;
  virtual bool emulated() const = 0;
  // Each returns 0 (open: the descriptor) or -errno.
  virtual int open(const char *path, int flags) = 0;
  virtual int ioctl(int fd, unsigned long request, void *argument) = 0;
  virtual int mmap(void *address, size_t length, int protection, int flags, int fd, uint64_t offset, void **mapped) = 0;
  virtual int munmap(void *address, size_t length) = 0;
  virtual int close(int fd) = 0;
  // The emulator runs dispatches of this program through its host twins; the hardware runs the
  // loaded machine code and ignores this.
  virtual void attachProgram(std::shared_ptr<const HostTwinProgram> program) { (void)program; }
  virtual void detachProgram(uint64_t loadBase) { (void)loadBase; }
  // What the implementation knows about the last device fault beyond what KFD events carry
  // (the emulator names the packet or kernarg field); empty otherwise.
  virtual std::string faultDetail() const { return {}; }
  // Tests: the emulator makes every later dispatch take at least `ms` milliseconds.
  virtual void setDispatchDelayMs(uint64_t ms) { (void)ms; }
};

// The system calls.
std::shared_ptr<KfdSystem> linuxKfdSystem();

// Emulator settings, from the environment (docs/runtime.md, "The KFD GPU device"):
//   HRX_KFD_EMULATED_FAIL=<call>:<errno>[:<n>]  the n-th (default 1st) call fails once; <call> is
//     open, get_version, acquire_vm, alloc, map, create_queue, create_event, wait_events, or
//     "lost" (the n-th dispatch loses the device: a whole-GPU reset, later calls ENODEV);
//     <errno> is ENOMEM, EINVAL, EACCES, ENODEV or EIO (ignored for lost).
//   HRX_KFD_EMULATED_DELAY_MS=<ms>  each dispatch takes at least this long (timeout tests).
//   HRX_KFD_EMULATED_VERSION=<major>.<minor>  what GET_VERSION reports (default 1.16).
struct EmulatorOptions {
  std::string failCall;
  int failErrno = 0;
  uint64_t failAt = 1;
  uint64_t dispatchDelayMs = 0;
  uint32_t versionMajor = 1, versionMinor = 16;
};
StatusOr<EmulatorOptions> emulatorOptionsFromEnvironment();
std::shared_ptr<KfdSystem> emulatedKfdSystem(const EmulatorOptions &options);

// $HRX_KFD: unset or "linux" = the system calls, "emulated" = the emulator; else InvalidArgument.
// The emulator is one per process (like /dev/kfd).
StatusOr<std::shared_ptr<KfdSystem>> kfdSystemFromEnvironment();

}  // namespace hrx::runtime::kfd
