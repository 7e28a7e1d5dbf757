// Derives each export's KernelContract (Program::contracts) after specialization.
#pragma once

#include "hrx/bridge/Program.h"

namespace hrx::bridge {
// Returns false after reporting errors (a used binding with no derivable byte length).
bool deriveContracts(Program &program, diag::DiagnosticEngine &diags);
}  // namespace hrx::bridge
