// The real KFD boundary: system calls on /dev/kfd and the render node. Nothing above this file
// knows whether it talks to the kernel or to the emulator.
#include "KfdSystem.h"

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <mutex>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace hrx::runtime::kfd {
namespace {

class LinuxKfd final : public KfdSystem {
public:
  const char *name() const override { return "Linux KFD"; }
  bool emulated() const override { return false; }
  int open(const char *path, int flags) override {
    int fd = ::open(path, flags | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
  }
  int ioctl(int fd, unsigned long request, void *argument) override {
    int result;
    do result = ::ioctl(fd, request, argument);
    while (result == -1 && (errno == EINTR || errno == EAGAIN));
    return result == -1 ? -errno : 0;
  }
  int mmap(void *address, size_t length, int protection, int flags, int fd, uint64_t offset, void **mapped) override {
    void *p = ::mmap(address, length, protection, flags, fd, off_t(offset));
    if (p == MAP_FAILED) return -errno;
    *mapped = p;
    return 0;
  }
  int munmap(void *address, size_t length) override { return ::munmap(address, length) == 0 ? 0 : -errno; }
  int close(int fd) override { return ::close(fd) == 0 ? 0 : -errno; }
};

}  // namespace

std::shared_ptr<KfdSystem> linuxKfdSystem() {
  static std::shared_ptr<KfdSystem> system = std::make_shared<LinuxKfd>();
  return system;
}

StatusOr<std::shared_ptr<KfdSystem>> kfdSystemFromEnvironment() {
  const char *mode = std::getenv("HRX_KFD");
  std::string text = mode ? mode : "";
  if (text.empty() || text == "linux") return linuxKfdSystem();
  if (text != "emulated")
    return Status(StatusCode::InvalidArgument, "HRX_KFD='" + text + "': expected 'linux' (the default) or 'emulated'");
  // One emulated driver per process, as /dev/kfd is one per machine; created on first use with
  // the environment's options and kept until exit (its command processors may still run).
  static std::mutex mutex;
  static std::shared_ptr<KfdSystem> *emulator = nullptr;
  std::lock_guard lock(mutex);
  if (!emulator) {
    auto options = emulatorOptionsFromEnvironment();
    if (!options) return options.status();
    emulator = new std::shared_ptr<KfdSystem>(emulatedKfdSystem(*options));
  }
  return *emulator;
}

}  // namespace hrx::runtime::kfd
