// Placeholder entry points until the Loom frontend lands ([Loom frontend] issue).
#include "hrx/loom/Loom.h"

namespace hrx::loom {

class Module {};

void ModuleDeleter::operator()(Module *m) const { delete m; }

OwningModule parseModule(diag::SourceManager &, uint32_t, diag::DiagnosticEngine &) {
  return OwningModule(new Module);
}

bool verifyModule(const Module &, diag::DiagnosticEngine &) { return true; }

void printModule(const Module &, std::ostream &) {}

}  // namespace hrx::loom
