// The `.hrx.identity` every backend embeds: which compiler (and which build of it) produced an
// artifact, for which target, specialization, report mode, processor mode and options. One
// function so the backends cannot drift apart.
#pragma once

#include "hrx/bridge/TargetBackend.h"
#include "hrx/format/Identity.h"

#include <span>
#include <string>
#include <string_view>

namespace hrx::bridge {

// Lowercase hex SHA-256 of this compiler build (the GNU build IDs of the loaded objects, else
// the running executable's bytes); computed once per process. Empty when neither can be read.
const std::string &compilerDigest();

// The options that change an artifact's bytes, in one canonical spelling (stable key order).
std::string canonicalOptions(const CompilerOptions &options);

std::string processorModeName(ProcessorMode mode);
std::string reportModeName(ReportMode mode);

// `hostCode` is the embedded .hrx.host object, whose digest the host device checks before
// loading it. `referenceOnlyReason` non-empty marks the artifact reference-only (it runs on the
// host reference device only) and says why.
format::ArtifactIdentity artifactIdentity(const BackendRequest &request, std::span<const uint8_t> hostCode,
                                          std::string_view referenceOnlyReason = {});

}  // namespace hrx::bridge
