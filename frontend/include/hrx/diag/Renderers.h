// Machine-readable renderers (-fdiagnostics-format=json|sarif) and --explain.
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

// Documentation for `hrxcc --explain CODE`; nullopt for an unknown code.
std::optional<std::string> explain(std::string_view code);

}  // namespace hrx::diag
