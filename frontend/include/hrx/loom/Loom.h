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

struct VerifyOptions {
  // Check every operand and the result a written type binds, reporting each independent type
  // error (upstream Loom's verify fixtures expect lhs, rhs and result of one op separately);
  // off, an op's family is checked on its first typed operand group only.
  bool everyTypedOperand = false;
};

// Checks the static semantics (reference §6, §5.10). Returns false if any error was reported.
bool verifyModule(const Module &module, diag::DiagnosticEngine &diags, const VerifyOptions &options = {});

// Only the check dialect's rules (check.case, check.benchmark, ... bodies; verifyModule runs them
// too), for `hrx check`, whose check programs hold ops the rest of the verifier types by the code
// under test (a tensor passed for a buffer). Usable on a module with parse errors.
bool verifyCheckPrograms(const Module &module, diag::DiagnosticEngine &diags);

// Canonical text: print(parse(print(m))) == print(m).
void printModule(const Module &module, std::ostream &os);

}  // namespace hrx::loom
