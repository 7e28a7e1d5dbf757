#include "hrx/diag/TextDiagnosticPrinter.h"

#include <algorithm>

namespace hrx::diag {
namespace {

const char *severityName(Severity s) {
  switch (s) {
  case Severity::Note: return "note";
  case Severity::Remark: return "remark";
  case Severity::Warning: return "warning";
  case Severity::Fatal: return "fatal error";
  default: return "error";
  }
}

const char *severityColor(Severity s) {
  switch (s) {
  case Severity::Note: return "\033[1;30m";
  case Severity::Remark: return "\033[1;34m";
  case Severity::Warning: return "\033[1;35m";
  default: return "\033[1;31m";
  }
}

}  // namespace

void TextDiagnosticPrinter::printLocated(Severity severity, SourceRange range,
                                         const std::string &message, const std::string &suffix,
                                         const SourceManager &sm) {
  const char *bold = color_ ? "\033[1m" : "";
  const char *reset = color_ ? "\033[0m" : "";
  if (range.isValid()) {
    LineColumn lc = sm.lineColumn(range.begin);
    os_ << bold << sm.name(range.begin.file) << ':' << lc.line << ':' << lc.column << ": " << reset;
  }
  os_ << (color_ ? severityColor(severity) : "") << severityName(severity) << ": " << reset << bold
      << message << reset << suffix << '\n';
  if (!range.isValid()) return;
  std::string_view line = sm.lineText(range.begin);
  LineColumn lc = sm.lineColumn(range.begin);
  os_ << line << '\n';
  // Caret under the start, tildes to the end of the range (same line only).
  std::string marker(lc.column - 1, ' ');
  for (size_t i = 0; i < marker.size() && i < line.size(); ++i)
    if (line[i] == '\t') marker[i] = '\t';
  marker += '^';
  if (range.end.file == range.begin.file && range.end.offset > range.begin.offset + 1) {
    size_t lineEnd = range.begin.offset - (lc.column - 1) + line.size();
    size_t end = std::min<size_t>(range.end.offset, lineEnd);
    if (end > range.begin.offset + 1) marker.append(end - range.begin.offset - 1, '~');
  }
  os_ << (color_ ? "\033[1;32m" : "") << marker << reset << '\n';
}

void TextDiagnosticPrinter::handle(const Diagnostic &diag, const SourceManager &sm) {
  std::string suffix;
  if (!diag.code.empty() && !diag.flag.empty()) suffix = " [" + diag.code + ", " + diag.flag + "]";
  else if (!diag.code.empty()) suffix = " [" + diag.code + "]";
  else if (!diag.flag.empty()) suffix = " [" + diag.flag + "]";
  printLocated(diag.severity, diag.range, diag.message, suffix, sm);
  for (const FixIt &fix : diag.fixits) {
    if (!fix.range.isValid()) continue;
    LineColumn lc = sm.lineColumn(fix.range.begin);
    os_ << "fix-it:\"" << sm.name(fix.range.begin.file) << "\":{" << lc.line << ':' << lc.column
        << "}:\"" << fix.replacement << "\"\n";
  }
  for (const RelatedNote &note : diag.notes) printLocated(Severity::Note, note.range, note.message, "", sm);
  os_.flush();
}

}  // namespace hrx::diag
