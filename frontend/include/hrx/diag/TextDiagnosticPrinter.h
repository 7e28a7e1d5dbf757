// Renders diagnostics clang-style: file:line:col: error: message [DOMAIN/NNN], source line, caret.
#pragma once

#include "hrx/diag/Diagnostic.h"

#include <ostream>

namespace hrx::diag {

class TextDiagnosticPrinter : public DiagnosticConsumer {
public:
  explicit TextDiagnosticPrinter(std::ostream &os, bool color = false) : os_(os), color_(color) {}
  void handle(const Diagnostic &diag, const SourceManager &sm) override;

private:
  void printLocated(Severity severity, SourceRange range, const std::string &message,
                    const std::string &suffix, const SourceManager &sm);
  std::ostream &os_;
  bool color_;
};

}  // namespace hrx::diag
