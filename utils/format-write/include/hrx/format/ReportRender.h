// Writing a CompileReport, and `hrx report show` and `hrx report diff` over a validated one.
// Compiler and tools only: not part of libhrx-runtime.
#pragma once

#include "hrx/format/CompileReport.h"
#include "hrx/format/ReportField.h"

#include <span>
#include <string>

namespace hrx::format {

// The report file (--report-output, the .hrx.report section), pretty-printed.
std::string writeCompileReport(const CompileReport &report);

// `fields` are the entry resources to show, as the backends declare them
// (hrx::reportFieldsFor(report.backend()), hrx/ReportFields.h).

// `hrx report show --json`: {compiler, target, processor_mode, entries:[...], wait_reasons}.
ReportJson showReport(const CompileReport &report, std::span<const ReportField> fields);
// The readable summary `hrx report show` prints.
std::string formatReport(const CompileReport &report, std::span<const ReportField> fields);
// `hrx report diff`: {compiler, changes:[...], wait_reason_changes}; rejects incomparable
// reports with "reports must use the same compiler, target, backend, processor policy, and
// detail mode".
StatusOr<ReportJson> diffReports(const CompileReport &before, const CompileReport &after,
                                 std::span<const ReportField> fields);

}  // namespace hrx::format
