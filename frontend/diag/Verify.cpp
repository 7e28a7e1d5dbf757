// Placeholder until -verify is implemented ([Loom frontend] issue).
#include "hrx/diag/Verify.h"

namespace hrx::diag {

struct VerifyDiagnosticConsumer::Impl {};
VerifyDiagnosticConsumer::VerifyDiagnosticConsumer(std::vector<std::string>) : impl_(new Impl) {}
VerifyDiagnosticConsumer::~VerifyDiagnosticConsumer() = default;
void VerifyDiagnosticConsumer::addAnnotatedFile(const SourceManager &, uint32_t, DiagnosticEngine &) {}
void VerifyDiagnosticConsumer::handle(const Diagnostic &, const SourceManager &) {}
bool VerifyDiagnosticConsumer::check(const SourceManager &, std::ostream &os) {
  os << "error: -verify is not implemented yet\n";
  return false;
}

}  // namespace hrx::diag
