// The host reference device's binding guards: every allocation ends at an inaccessible guard
// page, and while a kernel runs its bindings are registered, so that a kernel that runs past a
// binding stops with "kernel 'K' wrote past binding N at offset X" (exit code 4) instead of
// corrupting the heap. Accesses within the 64-byte rounding of an allocation are not caught.
// A trap instruction in a running kernel (SIGILL/SIGTRAP: a failed device assert, __builtin_trap)
// stops the process the same way, with "kernel 'K' trapped" (exit code 4), not a crash.
#pragma once

#include "hrx/runtime/Graph.h"

#include <cstddef>
#include <cstdint>
#include <span>

namespace hrx::runtime {

// `bytes` (a multiple of 64) of zeroed memory directly followed by a guard page; null when the
// memory cannot be mapped. Release with releaseGuarded(data, bytes).
std::byte *allocateGuarded(uint64_t bytes);
void releaseGuarded(std::byte *data, uint64_t bytes);

// Registers a running kernel's bindings for the fault report for as long as it lives.
class GuardedLaunch {
public:
  GuardedLaunch(const char *kernel, std::span<const BindingSpan> bindings);
  ~GuardedLaunch();
  GuardedLaunch(const GuardedLaunch &) = delete;
  GuardedLaunch &operator=(const GuardedLaunch &) = delete;

private:
  static constexpr size_t kMaxBindings = 32;
  int slots_[kMaxBindings];
  size_t count_ = 0;
  int launchSlot_ = -1;
};

}  // namespace hrx::runtime
