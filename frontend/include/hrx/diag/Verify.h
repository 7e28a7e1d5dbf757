// -verify: checks emitted diagnostics against annotations in the sources, with clang's
// `expected-error {{text}}` syntax and Loom's `// ERROR@+1: DOMAIN/NNN "text"` syntax.
#pragma once

#include "hrx/diag/Diagnostic.h"

#include <ostream>
#include <string>
#include <vector>

namespace hrx::diag {

class VerifyDiagnosticConsumer : public DiagnosticConsumer {
public:
  // `prefixes` are the -verify=PREFIX names ("expected" when empty).
  explicit VerifyDiagnosticConsumer(std::vector<std::string> prefixes = {});
  ~VerifyDiagnosticConsumer() override;

  // Collects the annotations of `file` (call for every source and header whose comments count).
  void addAnnotatedFile(const SourceManager &sm, uint32_t file, DiagnosticEngine &engine);
  void handle(const Diagnostic &diag, const SourceManager &sm) override;
  // Matches what was seen against what was expected, prints clang-style "error: 'error'
  // diagnostics expected but not seen:" blocks to `os`, and returns true when all matched.
  bool check(const SourceManager &sm, std::ostream &os);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hrx::diag
