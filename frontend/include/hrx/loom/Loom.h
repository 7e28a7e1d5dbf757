// Loom frontend entry points used by the driver and the bridge.
#pragma once

#include "hrx/diag/Diagnostic.h"

#include <memory>
#include <ostream>

namespace hrx::loom {

class Module;  // defined in hrx/loom/IR.h

struct ModuleDeleter {
  void operator()(Module *m) const;
};
using OwningModule = std::unique_ptr<Module, ModuleDeleter>;

// Parses one .loom buffer. Returns a module (possibly partial) even after errors, or null when
// nothing could be recovered; errors go to `diags`.
OwningModule parseModule(diag::SourceManager &sm, uint32_t file, diag::DiagnosticEngine &diags);

// Checks the static semantics (reference §6, §5.10). Returns false if any error was reported.
bool verifyModule(const Module &module, diag::DiagnosticEngine &diags);

// Canonical text: print(parse(print(m))) == print(m).
void printModule(const Module &module, std::ostream &os);

}  // namespace hrx::loom
