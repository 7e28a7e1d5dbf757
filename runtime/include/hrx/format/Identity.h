// The `.hrx.identity` section: which compiler built an artifact, for which target and
// specialization, and whether the artifact is reference-only (runs on the host reference
// device only, because it carries no native core code). Format: docs/formats/xdna.md.
#pragma once

#include "hrx/runtime/Status.h"

#include <map>
#include <string>
#include <string_view>

namespace hrx::format {

struct ArtifactIdentity {
  std::string compilerName;     // "hrxcc"
  std::string compilerVersion;  // "0.1.0"
  std::string llvmVersion;      // "22.1.8"
  std::string compilerDigest;   // SHA-256 (hex) of the compiler library/binary; "" if unknown
  std::string target;           // "amd.xdna.strix_halo.17f0_11", "gfx1151", ...
  std::string symbol;           // specialised export ("" = every export)
  std::map<std::string, std::string> config;
  std::string reportMode = "none";        // none | summary | details
  std::string processorMode = "Default";  // Default | ComputeUnit | WorkgroupProcessor
  std::string optionsDigest;              // SHA-256 (hex) of the canonical compile options
  bool referenceOnly = false;
  std::string referenceOnlyReason;  // required when referenceOnly
  // What code the NPU cores run, for an image that is not reference-only ("native AIE2P core
  // code, not yet run on hardware"); "" = not recorded.
  std::string nativeCode;
  // SHA-256 (hex) of the .hrx.host bytes; "" = not recorded. The host device refuses host code
  // whose bytes do not match it.
  std::string hostSha256;
  friend bool operator==(const ArtifactIdentity &, const ArtifactIdentity &) = default;
};

// Unknown fields are errors; a reference-only identity must say why.
StatusOr<ArtifactIdentity> readIdentity(std::string_view json);

}  // namespace hrx::format
