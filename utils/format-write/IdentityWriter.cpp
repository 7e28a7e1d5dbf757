#include "hrx/format/IdentityWriter.h"

#include "JsonFields.h"

namespace hrx::format {
using namespace detail;

std::string writeIdentity(const ArtifactIdentity &id) {
  Json j{{"format", "hrx.identity"},
         {"version", 1},
         {"compiler",
          {{"name", id.compilerName},
           {"version", id.compilerVersion},
           {"llvm", id.llvmVersion},
           {"sha256", id.compilerDigest}}},
         {"target", id.target},
         {"specialization", {{"symbol", id.symbol}, {"config", id.config}}},
         {"report_mode", id.reportMode},
         {"processor_mode", id.processorMode},
         {"options_digest", id.optionsDigest},
         {"reference_only", id.referenceOnly}};
  if (id.referenceOnly) j["reference_only_reason"] = id.referenceOnlyReason;
  if (!id.referenceOnly && !id.nativeCode.empty()) j["native_code"] = id.nativeCode;
  if (!id.hostSha256.empty()) j["host_sha256"] = id.hostSha256;
  return j.dump(1) + "\n";
}

}  // namespace hrx::format
