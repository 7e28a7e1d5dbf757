// `hrx report show` and `hrx report diff` over a validated CompileReport. Tools only: not
// part of libhrx-runtime.
#pragma once

#include "hrx/format/CompileReport.h"

#include <string>

namespace hrx::format {

// `hrx report show --json`: {compiler, target, processor_mode, entries:[...], wait_reasons}.
ReportJson showReport(const CompileReport &report);
// The readable summary `hrx report show` prints.
std::string formatReport(const CompileReport &report);
// `hrx report diff`: {compiler, changes:[...], wait_reason_changes}; rejects incomparable
// reports with "reports must use the same compiler, target, backend, processor policy, and
// detail mode".
StatusOr<ReportJson> diffReports(const CompileReport &before, const CompileReport &after);

}  // namespace hrx::format
