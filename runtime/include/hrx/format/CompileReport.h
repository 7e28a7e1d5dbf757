// CompileReport (hrx-product §3.4): the hrx-rs wrapper {compiler, target, processor_mode,
// document} around Loom's native "loom.compile_report" document and its validation
// (hrx/format/ReportRender.h writes, renders and diffs it).
// Schema: docs/reports.md. Unknown resource values are null, never 0.
// For the compiler and the tools: it exposes nlohmann_json, so it is not installed with the
// runtime headers (readArtifact keeps only a ReportSummary, hrx/format/Artifact.h).
#pragma once

#include "hrx/runtime/Status.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::format {

using ReportJson = nlohmann::ordered_json;

struct CompileReport {
  std::string compiler;
  std::string target;
  std::string processorMode;
  ReportJson document;

  std::string backend() const;    // "" when missing
  std::string targetKey() const;  // "" when missing
  std::string mode() const;       // "summary" | "details" | "" when missing
  // Entry rows (validated objects with a "function").
  const ReportJson::array_t &entryRows() const;
  // Wait-reason rows; nullopt when the section is absent (evidence not collected).
  std::optional<ReportJson::array_t> waitReasonRows() const;
};

// Validates as §3.4 says. A wrong kind/schema_version/compiler/target is
// "compile report schema or compiler identity is unsupported; regenerate the report".
StatusOr<CompileReport> readCompileReport(std::string_view json);

}  // namespace hrx::format
