// Machine-readable renderers (-fdiagnostics-format=json|sarif) and --explain.
//
// JSON: one array, written at finish(), of objects
//   {code, severity, message, flag, file, line, column, end_line, end_column, params{}, notes[], fixits[]}
// with 1-based lines and byte columns; the end is exclusive (a point has end == start); a
// diagnostic without a location has null file/line/column fields.
// SARIF: a 2.1.0 log with one run (tool.driver "hrxcc", one rule per code used), columns in
// Unicode code points (run.columnKind "unicodeCodePoints").
#pragma once

#include "hrx/diag/Diagnostic.h"

#include <memory>
#include <optional>
#include <ostream>

namespace hrx::diag {

// One JSON document (an array of diagnostics) written at finish().
std::unique_ptr<DiagnosticConsumer> createJsonPrinter(std::ostream &os);
// A SARIF 2.1.0 log written at finish(); `toolVersion` goes into runs[].tool.driver.
std::unique_ptr<DiagnosticConsumer> createSarifPrinter(std::ostream &os, std::string toolVersion);

// Documentation for `hrxcc --explain CODE` (code, severity, group, message template, its
// parameters, documentation); nullopt for an unknown code. The code is matched case-insensitively.
std::optional<std::string> explain(std::string_view code);

}  // namespace hrx::diag
