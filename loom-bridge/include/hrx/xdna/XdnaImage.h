// Packages planned NPU entries as a canonical .xdna image (hrx-product §1): one COMMAND
// allocation per entry holding its establish and repeat transactions (invocations 0 -> 1 -> 1),
// binding rows from the KernelContract, dynamic SHIM_ADDRESS relocations for every shim BD,
// and our non-loaded sections. The image is reference-only: it carries the complete array
// program but no AIE2P core code, so only the host reference device runs it.
#pragma once

#include "hrx/bridge/Contract.h"
#include "hrx/diag/Diagnostic.h"
#include "hrx/format/ArrayPlan.h"
#include "hrx/format/Identity.h"
#include "hrx/format/Xdna.h"
#include "hrx/xdna/Transaction.h"

#include <optional>
#include <string>
#include <vector>

namespace hrx::xdna {

inline constexpr std::string_view kReferenceOnlyReason =
    "no AIE2P core code generator exists: the image carries the array program and host "
    "reference code, and runs on the host reference device only";

// The identity's core_code of an image whose every worker has native core code.
inline constexpr std::string_view kNativeCoreCode =
    "native AIE2P core code, not yet run on hardware (the host reference device's AIE2P simulator runs it)";

struct PlannedEntry {
  format::ArrayPlan plan;
  bridge::KernelContract contract;
  diag::SourceRange loc;            // the pipeline.def, for XDNA/009
  std::vector<TileCode> code = {};  // native core code of the workers that have it, per tile
};

struct ImageSections {
  std::vector<uint8_t> hostCode;  // .hrx.host
  format::ArtifactIdentity identity;
  std::string reportJson;  // .hrx.report when non-empty
  // Empty: every worker has native core code, so the image is not reference-only.
  std::string referenceOnlyReason = std::string(kReferenceOnlyReason);
};

// The image (not yet serialized); nullopt after reporting XDNA/009 for a command over 32 KiB.
std::optional<format::xdna::Image> buildImage(const std::vector<PlannedEntry> &entries, unsigned columns,
                                              ImageSections sections, diag::DiagnosticEngine &diags);

// The compile report document rows of the planned entries (docs/reports.md array fields).
std::string buildReport(const std::vector<PlannedEntry> &entries, std::string_view compiler, std::string_view mode);

}  // namespace hrx::xdna
