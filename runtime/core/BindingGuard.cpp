#include "BindingGuard.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

namespace hrx::runtime {
namespace {

// Inaccessible address space after each allocation: reserved, never backed by memory.
constexpr uint64_t kGuardBytes = 64 * 1024;

uint64_t pageBytes() {
  static const uint64_t page = [] {
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? uint64_t(p) : uint64_t(4096);
  }();
  return page;
}

uint64_t roundToPages(uint64_t bytes) { return (bytes + pageBytes() - 1) / pageBytes() * pageBytes(); }

// The signal handler reads these tables without locks: a slot is claimed by a compare-exchange
// on `end`, filled, then published by storing `start`.
struct GuardSlot {
  std::atomic<uintptr_t> start{0}, end{0};  // the guard range
  std::atomic<uintptr_t> data{0};           // where the allocation's bytes begin
};
constexpr size_t kGuardSlots = 16384;
GuardSlot guards[kGuardSlots];

struct BindingSlot {
  std::atomic<uintptr_t> start{0};
  std::atomic<uint64_t> length{0};
  std::atomic<uint32_t> ordinal{0};
  std::atomic<const char *> kernel{nullptr};
  std::atomic<bool> claimed{false};
};
constexpr size_t kBindingSlots = 512;
BindingSlot bindings[kBindingSlots];

struct sigaction previousSegv, previousBus, previousIll, previousTrap;

// The kernels running now, for the report of a trap: a trap instruction (a failed device assert,
// __builtin_trap) in kernel code is SIGILL or SIGTRAP on the host device.
constexpr size_t kLaunchSlots = 256;
std::atomic<const char *> runningKernels[kLaunchSlots];
// HRX_GUARD_FAULTS=crash: after the report, let the previous handler (a sanitizer's, a fuzzer's,
// or the default core dump) take the fault, for a stack trace.
bool crashOnGuardFault = false;

// Async-signal-safe output.
void put(const char *text) {
  size_t n = std::strlen(text);
  while (n > 0) {
    ssize_t written = ::write(2, text, n);
    if (written <= 0) return;
    text += written;
    n -= size_t(written);
  }
}
void putNumber(uint64_t value) {
  char digits[24];
  size_t i = sizeof digits;
  digits[--i] = '\0';
  do digits[--i] = char('0' + value % 10);
  while ((value /= 10) != 0);
  put(digits + i);
}

void onFault(int signal, siginfo_t *info, void *context) {
  auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  const GuardSlot *hit = nullptr;
  for (const GuardSlot &g : guards) {
    uintptr_t start = g.start.load(std::memory_order_acquire);
    if (start && address >= start && address < g.end.load(std::memory_order_relaxed)) {
      hit = &g;
      break;
    }
  }
  if (!hit) {
    // Not a binding guard: the previous handler (or the default action) takes the fault again.
    sigaction(signal, signal == SIGSEGV ? &previousSegv : &previousBus, nullptr);
    return;
  }
  uintptr_t data = hit->data.load(std::memory_order_relaxed), guard = hit->start.load(std::memory_order_relaxed);
  const BindingSlot *binding = nullptr;
  for (const BindingSlot &b : bindings) {
    uintptr_t start = b.start.load(std::memory_order_acquire);
    if (start && start >= data && start <= guard && (!binding || start > binding->start.load())) binding = &b;
  }
  bool write = false;
#if defined(__x86_64__)
  write = (static_cast<ucontext_t *>(context)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#endif
  put(program_invocation_short_name);
  put(": error: ");
  if (binding) {
    put("kernel '");
    put(binding->kernel.load());
    put(write ? "' wrote past binding " : "' read past binding ");
    putNumber(binding->ordinal.load());
    put(" at offset ");
    putNumber(address - binding->start.load());
    put(" (the binding has ");
    putNumber(binding->length.load());
    put(" bytes)");
  } else {
    put(write ? "a write " : "a read ");
    put("ran past a buffer, at offset ");
    putNumber(address - data);
  }
  put("; the host reference device stopped the process\n");
  if (crashOnGuardFault) {
    sigaction(signal, signal == SIGSEGV ? &previousSegv : &previousBus, nullptr);
    return;
  }
  _exit(4);
}

void onTrap(int signal, siginfo_t *, void *) {
  const char *kernel = nullptr;
  for (const auto &slot : runningKernels)
    if ((kernel = slot.load(std::memory_order_acquire))) break;
  if (!kernel) {
    // Not while a kernel runs: the previous handler (or the default action) takes it again.
    sigaction(signal, signal == SIGILL ? &previousIll : &previousTrap, nullptr);
    return;
  }
  put(program_invocation_short_name);
  put(": error: kernel '");
  put(kernel);
  put("' trapped on the host reference device (");
  put(signal == SIGILL ? "SIGILL" : "SIGTRAP");
  put(": a trap instruction, such as a failed device assert or __builtin_trap); the host reference "
      "device stopped the process\n");
  if (crashOnGuardFault) {
    sigaction(signal, signal == SIGILL ? &previousIll : &previousTrap, nullptr);
    return;
  }
  _exit(4);
}

void installHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char *mode = std::getenv("HRX_GUARD_FAULTS");
    crashOnGuardFault = mode && std::strcmp(mode, "crash") == 0;
    struct sigaction action{};
    action.sa_sigaction = onFault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &previousSegv);
    sigaction(SIGBUS, &action, &previousBus);
    action.sa_sigaction = onTrap;
    sigaction(SIGILL, &action, &previousIll);
    sigaction(SIGTRAP, &action, &previousTrap);
  });
}

}  // namespace

std::byte *allocateGuarded(uint64_t bytes) {
  installHandler();
  uint64_t usable = roundToPages(bytes);
  uint64_t total = usable + kGuardBytes;
  if (usable < bytes || total < usable) return nullptr;
  void *base = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return nullptr;
  auto *guard = static_cast<std::byte *>(base) + usable;
  if (mprotect(guard, kGuardBytes, PROT_NONE) != 0) {
    munmap(base, total);
    return nullptr;
  }
  std::byte *data = guard - bytes;  // the bytes end where the guard begins
  for (GuardSlot &g : guards) {
    uintptr_t expected = 0;
    if (!g.end.compare_exchange_strong(expected, reinterpret_cast<uintptr_t>(guard) + kGuardBytes)) continue;
    g.data.store(reinterpret_cast<uintptr_t>(data), std::memory_order_relaxed);
    g.start.store(reinterpret_cast<uintptr_t>(guard), std::memory_order_release);
    break;
  }
  return data;
}

void releaseGuarded(std::byte *data, uint64_t bytes) {
  if (!data) return;
  std::byte *guard = data + bytes;
  for (GuardSlot &g : guards)
    if (g.start.load(std::memory_order_relaxed) == reinterpret_cast<uintptr_t>(guard)) {
      g.start.store(0, std::memory_order_release);
      g.data.store(0, std::memory_order_relaxed);
      g.end.store(0, std::memory_order_release);
      break;
    }
  uint64_t usable = roundToPages(bytes);
  munmap(guard - usable, usable + kGuardBytes);
}

GuardedLaunch::GuardedLaunch(const char *kernel, std::span<const BindingSpan> spans) {
  installHandler();
  for (size_t s = 0; s < kLaunchSlots; ++s) {
    const char *expected = nullptr;
    if (runningKernels[s].compare_exchange_strong(expected, kernel)) {
      launchSlot_ = int(s);
      break;
    }
  }
  for (size_t i = 0; i < spans.size() && count_ < kMaxBindings; ++i)
    for (size_t s = 0; s < kBindingSlots; ++s) {
      bool expected = false;
      if (!bindings[s].claimed.compare_exchange_strong(expected, true)) continue;
      bindings[s].kernel.store(kernel, std::memory_order_relaxed);
      bindings[s].ordinal.store(uint32_t(i), std::memory_order_relaxed);
      bindings[s].length.store(spans[i].length, std::memory_order_relaxed);
      bindings[s].start.store(reinterpret_cast<uintptr_t>(spans[i].data), std::memory_order_release);
      slots_[count_++] = int(s);
      break;
    }
}

GuardedLaunch::~GuardedLaunch() {
  if (launchSlot_ >= 0) runningKernels[launchSlot_].store(nullptr, std::memory_order_release);
  for (size_t i = 0; i < count_; ++i) {
    BindingSlot &b = bindings[slots_[i]];
    b.start.store(0, std::memory_order_release);
    b.claimed.store(false, std::memory_order_release);
  }
}

}  // namespace hrx::runtime
