// Loading the host-code shared object from memory: memfd_create + dlopen, no files, no LLVM.
#include "hrx/runtime/HostDevice.h"

#include <cstring>
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

namespace hrx::runtime {
namespace {

constexpr unsigned char kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
constexpr uint16_t kElfTypeDyn = 3, kMachineX86_64 = 62;

uint16_t readU16(std::span<const std::byte> bytes, size_t offset) {
  return static_cast<uint16_t>(static_cast<unsigned>(bytes[offset]) | static_cast<unsigned>(bytes[offset + 1]) << 8);
}

Status checkElfHeader(std::span<const std::byte> elf, const std::string &name) {
  auto fail = [&](const std::string &what) {
    return Status(StatusCode::InvalidArgument, name + ": host code is not an x86-64 ELF shared object: " + what);
  };
  if (elf.size() < 64) return fail("only " + std::to_string(elf.size()) + " bytes");
  if (std::memcmp(elf.data(), kElfMagic, 4) != 0) return fail("bad ELF magic");
  if (elf[4] != std::byte{2} || elf[5] != std::byte{1}) return fail("not ELF64 little-endian");
  if (readU16(elf, 16) != kElfTypeDyn) return fail("e_type " + std::to_string(readU16(elf, 16)) + " is not ET_DYN");
  if (readU16(elf, 18) != kMachineX86_64)
    return fail("e_machine " + std::to_string(readU16(elf, 18)) + " is not EM_X86_64 (62)");
  return Status::ok();
}

}  // namespace

StatusOr<std::shared_ptr<HostCode>> HostCode::load(std::span<const std::byte> elf, std::string name) {
  if (Status s = checkElfHeader(elf, name); !s) return s;
  int fd = memfd_create("hrx-host-code", MFD_CLOEXEC);
  if (fd < 0) return Status(StatusCode::Internal, name + ": memfd_create failed: " + std::strerror(errno));
  size_t written = 0;
  while (written < elf.size()) {
    ssize_t n = ::write(fd, elf.data() + written, elf.size() - written);
    if (n <= 0) {
      ::close(fd);
      return Status(StatusCode::Internal, name + ": writing host code to memory failed: " + std::strerror(errno));
    }
    written += static_cast<size_t>(n);
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ::close(fd);  // the mapping keeps the contents alive
  if (!handle) return Status(StatusCode::InvalidArgument, name + ": cannot load host code: " + dlerror());
  std::shared_ptr<HostCode> code(new HostCode(handle, std::move(name), elf.size()));
  auto *abi = static_cast<const uint32_t *>(dlsym(handle, HRX_HOST_ABI_VERSION_SYMBOL));
  if (!abi)
    return Status(StatusCode::InvalidArgument, code->name_ + ": host code does not export " HRX_HOST_ABI_VERSION_SYMBOL);
  if (*abi != HRX_HOST_ABI_VERSION)
    return Status(StatusCode::FailedPrecondition, code->name_ + ": host code ABI version " + std::to_string(*abi) +
                                                      " differs from the runtime's " +
                                                      std::to_string(HRX_HOST_ABI_VERSION));
  return code;
}

HostCode::~HostCode() { dlclose(handle_); }

StatusOr<void *> HostCode::resolve(const char *prefix, std::string_view symbol) const {
  std::string full = prefix + std::string(symbol);
  void *address = dlsym(handle_, full.c_str());
  if (!address)
    return Status(StatusCode::NotFound, name_ + ": host code has no symbol '" + full + "'");
  return address;
}

StatusOr<hrx_host_stage_fn> HostCode::stage(std::string_view symbol) const {
  auto address = resolve(HRX_HOST_STAGE_PREFIX, symbol);
  if (!address) return address.status();
  return reinterpret_cast<hrx_host_stage_fn>(*address);
}

StatusOr<hrx_host_kernel_fn> HostCode::kernel(std::string_view symbol) const {
  auto address = resolve(HRX_HOST_KERNEL_PREFIX, symbol);
  if (!address) return address.status();
  return reinterpret_cast<hrx_host_kernel_fn>(*address);
}

StatusOr<hrx_host_launch_fn> HostCode::launch(std::string_view symbol) const {
  auto address = resolve(HRX_HOST_LAUNCH_PREFIX, symbol);
  if (!address) return address.status();
  return reinterpret_cast<hrx_host_launch_fn>(*address);
}

}  // namespace hrx::runtime
