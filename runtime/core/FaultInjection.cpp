#include "FaultInjection.h"

#include "RuntimeImpl.h"

#include <charconv>

namespace hrx::runtime {

bool RuntimeState::faultHit(faults::FaultSite site) {
  std::atomic<uint64_t> &countdown = faultCountdown[static_cast<unsigned>(site)];
  uint64_t left = countdown.load(std::memory_order_relaxed);
  while (left != 0)
    if (countdown.compare_exchange_weak(left, left - 1, std::memory_order_relaxed)) return left == 1;
  return false;
}

namespace faults {

const char *faultSiteName(FaultSite site) {
  switch (site) {
  case FaultSite::Allocation: return "allocation";
  case FaultSite::Submission: return "submission";
  case FaultSite::Execution: return "execution";
  case FaultSite::Retirement: return "retirement";
  }
  return "?";
}

void injectFault(Runtime &runtime, FaultSite site, uint64_t nth) {
  runtime.state()->faultCountdown[static_cast<unsigned>(site)].store(nth);
}

void clearFaults(Runtime &runtime) {
  for (auto &countdown : runtime.state()->faultCountdown) countdown.store(0);
}

Status armFromSpec(Runtime &runtime, std::string_view spec) {
  auto fail = [&](std::string_view item, const std::string &why) {
    return Status(StatusCode::InvalidArgument, "HRX_FAULT_INJECT: '" + std::string(item) + "' " + why +
                                                   "; expected site:N[,site:N...] with site one of allocation, "
                                                   "submission, execution, retirement and N >= 1");
  };
  while (!spec.empty()) {
    size_t comma = spec.find(',');
    std::string_view item = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    size_t colon = item.find(':');
    if (colon == std::string_view::npos) return fail(item, "has no ':N'");
    std::string_view name = item.substr(0, colon), count = item.substr(colon + 1);
    unsigned site = 0;
    while (site < kFaultSiteCount && name != faultSiteName(static_cast<FaultSite>(site))) ++site;
    if (site == kFaultSiteCount) return fail(item, "names no fault site");
    uint64_t nth = 0;
    auto [end, error] = std::from_chars(count.data(), count.data() + count.size(), nth);
    if (error != std::errc() || end != count.data() + count.size() || nth == 0)
      return fail(item, "does not end in a positive count");
    injectFault(runtime, static_cast<FaultSite>(site), nth);
  }
  return Status::ok();
}

}  // namespace faults
}  // namespace hrx::runtime
