// -verify: checks emitted diagnostics against annotations in the sources, with clang's
// `expected-error {{text}}` syntax and Loom's `// ERROR@+1: DOMAIN/NNN "text"` syntax.
//
// Clang style (in // and /* */ comments; PREFIX is "expected" or each -verify=PREFIX):
//   PREFIX-{error,warning,remark,note}[-re][@+N|@-N|@LINE|@FILE:LINE|@FILE:*|@*] [COUNT] {{text}}
// where @LINE is an absolute line number, FILE names another input (in full or by its trailing
// path components) and @* matches any location (or none).
//   PREFIX-no-diagnostics
// COUNT is N, N+, N-M or +. Text matches as a substring; with -re the parts in {{...}} are POSIX
// extended regular expressions and the rest is literal. \n in the text stands for a newline.
// Loom style (in // comments, active when "expected" is one of the prefixes):
//   // ERROR[@+N|@-N]: [DOMAIN[/NNN]] ["substring"...] [{param="value", ...}]
// also WARNING, REMARK and NOTE; without @ the annotation names its own line. Notes attached to
// a diagnostic are matched as separate notes, except that a diagnostic matched by a Loom
// annotation covers its own notes unless NOTE annotations claim them.
// Malformed annotations are reported through the engine as VERIFY/NNN errors, which then count
// as unexpected diagnostics unless expected themselves (exactly as clang does).
#pragma once

#include "hrx/diag/Diagnostic.h"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace hrx::diag {

class VerifyDiagnosticConsumer : public DiagnosticConsumer {
public:
  // `prefixes` are the -verify=PREFIX names ("expected" when empty).
  explicit VerifyDiagnosticConsumer(std::vector<std::string> prefixes = {});
  ~VerifyDiagnosticConsumer() override;

  // Collects the annotations of `file` (call for every source and header whose comments count;
  // a file added twice is read once). Malformed annotations are reported to `engine`.
  void addAnnotatedFile(const SourceManager &sm, uint32_t file, DiagnosticEngine &engine);
  void handle(const Diagnostic &diag, const SourceManager &sm) override;
  // Matches what was seen against what was expected, prints clang-style "error: 'expected-error'
  // diagnostics expected but not seen:" blocks to `os`, and returns true when all matched.
  bool check(const SourceManager &sm, std::ostream &os);
  // With `implicit`, a check without any annotation expects no diagnostics (Loom's rule for a
  // --split-input-file case) instead of failing with "no expected directives found".
  void setImplicitNoDiagnostics(bool implicit);
  // The number of "error:" lines the last check() printed (for "N errors generated.").
  unsigned failureCount() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hrx::diag
