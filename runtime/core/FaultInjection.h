// Test-only fault injection into the host device: makes one chosen hit of a site fail, so tests
// can prove how failures propagate (docs/runtime.md, "Fault injection"). Not a public API: the
// header lives beside the implementation, and only tests include it.
//
// The same faults can be armed from the environment for whole programs (hrx-run):
//   HRX_FAULT_INJECT=site:N[,site:N...]   site = allocation | submission | execution | retirement
// makes the N-th hit (1 = the first) of each named site fail once. Runtime::create rejects a
// malformed value.
#pragma once

#include "hrx/runtime/Status.h"

#include <cstdint>
#include <string_view>

namespace hrx::runtime {
class Runtime;
}

namespace hrx::runtime::faults {

enum class FaultSite : uint8_t {
  Allocation,  // Runtime::allocate: the backing allocation fails (after the budget check)
  Submission,  // Executable::submit: the device refuses the submission
  Execution,   // a region fails while executing on its lane
  Retirement,  // a finished submission cannot be proven retired: its graph is quarantined
};
inline constexpr unsigned kFaultSiteCount = 4;
const char *faultSiteName(FaultSite site);

// Arms `site` so that its `nth` next hit fails (once); 0 disarms it.
void injectFault(Runtime &runtime, FaultSite site, uint64_t nth = 1);
// Disarms every site.
void clearFaults(Runtime &runtime);

// Parses an HRX_FAULT_INJECT value and arms its sites.
Status armFromSpec(Runtime &runtime, std::string_view spec);

}  // namespace hrx::runtime::faults
