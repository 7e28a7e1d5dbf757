// Renders diagnostics the way clang does:
//   file:line:col: error: message [DOMAIN/NNN]
//       3 |   %r = test.addi %x, %y : i32
//         |                      ^~
// with notes at their own locations, fix-it hints under the caret and optional color.
#pragma once

#include "hrx/diag/Diagnostic.h"

#include <ostream>
#include <string>

namespace hrx::diag {

struct TextDiagnosticOptions {
  bool color = false;             // -fcolor-diagnostics, or standard error is a terminal
  bool showLineNumbers = true;    // -f[no-]diagnostics-show-line-numbers
  bool showSourceSnippet = true;  // -f[no-]caret-diagnostics
  bool parseableFixits = false;   // -fdiagnostics-parseable-fixits: fix-it:"file":{l:c-l:c}:"text"
  unsigned tabStop = 8;           // -ftabstop=N (1..100)
  std::string prefix;             // printed as "prefix: " before diagnostics without a location
};

class TextDiagnosticPrinter : public DiagnosticConsumer {
public:
  explicit TextDiagnosticPrinter(std::ostream &os, bool color = false) : os_(os) { options_.color = color; }
  TextDiagnosticPrinter(std::ostream &os, TextDiagnosticOptions options) : os_(os), options_(std::move(options)) {}
  void handle(const Diagnostic &diag, const SourceManager &sm) override;

private:
  void printHeader(Severity severity, SourceRange range, std::string_view message, std::string_view suffix,
                   const SourceManager &sm);
  void printSnippet(SourceRange range, const std::vector<FixIt> &fixits, const SourceManager &sm);
  void printParseableFixits(const std::vector<FixIt> &fixits, const SourceManager &sm);
  std::ostream &os_;
  TextDiagnosticOptions options_;
};

// Clang's closing line: "1 warning generated.", "2 warnings and 1 error generated."; nothing
// when both counts are zero.
void printDiagnosticSummary(std::ostream &os, unsigned warnings, unsigned errors);
// The same for an engine, adding "(N follow-on diagnostics suppressed)" when a cascade was cut.
void printDiagnosticSummary(std::ostream &os, const DiagnosticEngine &engine);

}  // namespace hrx::diag
