#include "hrx/diag/TextDiagnosticPrinter.h"
#include "hrx/diag/Utf8.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace hrx::diag {
namespace {

constexpr const char *kReset = "\033[0m";
constexpr const char *kBold = "\033[1m";
constexpr const char *kCaretColor = "\033[1;32m";
constexpr const char *kFixitColor = "\033[0;32m";
constexpr uint32_t kMaxSnippetLines = 16;
// Like clang, no snippet for a line this long (generated or minified input).
constexpr size_t kMaxSnippetLineBytes = 4096;

const char *severityColor(Severity s) {
  switch (s) {
  case Severity::Note: return "\033[1;30m";
  case Severity::Remark: return "\033[1;34m";
  case Severity::Warning: return "\033[1;35m";
  default: return "\033[1;31m";
  }
}

// Terminal columns taken by a printable code point: combining marks take none, East Asian wide
// and emoji ranges take two.
unsigned columnWidth(uint32_t cp) {
  if ((cp >= 0x300 && cp <= 0x36F) || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0xFE20 && cp <= 0xFE2F)) return 0;
  if ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF && cp != 0x303F) ||
      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFE30 && cp <= 0xFE4F) ||
      (cp >= 0xFF00 && cp <= 0xFF60) || (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x1F300 && cp <= 0x1F64F) ||
      (cp >= 0x1F900 && cp <= 0x1F9FF) || (cp >= 0x20000 && cp <= 0x3FFFD))
    return 2;
  return 1;
}

bool isPrintable(uint32_t cp) {
  return !(cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || cp == 0xFEFF);
}

// One source line as displayed: tabs expanded, unprintable characters spelled <U+XXXX> and
// malformed bytes <XX>, with the display column where each byte's character starts.
struct DisplayLine {
  std::string text;
  std::vector<uint32_t> columnOfByte;  // size = bytes + 1; the last entry is the end column

  DisplayLine(std::string_view line, unsigned tabStop) {
    columnOfByte.resize(line.size() + 1);
    uint32_t column = 0;
    char buffer[16];
    for (size_t i = 0; i < line.size();) {
      uint32_t cp = 0;
      size_t len = decodeUtf8(line, i, cp);
      for (size_t k = 0; k < std::max<size_t>(len, 1); ++k) columnOfByte[i + k] = column;
      if (line[i] == '\t') {
        uint32_t next = (column / tabStop + 1) * tabStop;
        text.append(next - column, ' ');
        column = next;
      } else if (len == 0) {
        std::snprintf(buffer, sizeof buffer, "<%02X>", static_cast<unsigned char>(line[i]));
        text += buffer;
        column += 4;
        len = 1;
      } else if (!isPrintable(cp)) {
        int n = std::snprintf(buffer, sizeof buffer, "<U+%04X>", cp);
        text += buffer;
        column += static_cast<uint32_t>(n);
      } else {
        text.append(line.substr(i, len));
        column += columnWidth(cp);
      }
      i += std::max<size_t>(len, 1);
    }
    columnOfByte[line.size()] = column;
  }
  uint32_t column(size_t byte) const { return columnOfByte[std::min(byte, columnOfByte.size() - 1)]; }
};

void trimTrailingSpaces(std::string &s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
}

unsigned digits(uint32_t n) {
  unsigned d = 1;
  while (n >= 10) n /= 10, ++d;
  return d;
}

// Escapes like clang's parseable fix-its: \\ \" \n \t, other control bytes as octal.
std::string escapeFixit(std::string_view text) {
  std::string out;
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c == '\\' || c == '"')
      out += '\\', out += ch;
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7F) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\%03o", c);
      out += buffer;
    } else
      out += ch;
  }
  return out;
}

}  // namespace

void TextDiagnosticPrinter::printHeader(Severity severity, SourceRange range, std::string_view message,
                                        std::string_view suffix, const SourceManager &sm) {
  bool color = options_.color;
  if (range.isValid()) {
    LineColumn lc = sm.lineColumn(range.begin);
    if (color) os_ << kBold;
    os_ << sm.name(range.begin.file) << ':' << lc.line << ':' << lc.column << ": ";
    if (color) os_ << kReset;
  } else if (!options_.prefix.empty()) {
    os_ << options_.prefix << ": ";
  }
  if (color) os_ << severityColor(severity);
  os_ << severityName(severity) << ": ";
  if (color) os_ << kReset << kBold;
  os_ << message << suffix;
  if (color) os_ << kReset;
  os_ << '\n';
}

void TextDiagnosticPrinter::printSnippet(SourceRange range, const std::vector<FixIt> &fixits, const SourceManager &sm) {
  if (!options_.showSourceSnippet || !range.isValid() || sm.lineText(range.begin).size() > kMaxSnippetLineBytes) return;
  uint32_t file = range.begin.file;
  uint32_t firstLine = sm.lineColumn(range.begin).line;
  // The range is half-open; its last byte decides the last line shown.
  bool hasExtent = range.end.file == file && range.end.offset > range.begin.offset;
  uint32_t lastLine = hasExtent ? sm.lineColumn({file, range.end.offset - 1}).line : firstLine;
  lastLine = std::min(lastLine, firstLine + kMaxSnippetLines - 1);
  unsigned numberWidth = options_.showLineNumbers ? std::max(4u, digits(lastLine)) : 0;
  // "    3 | " before a source line, "      | " before the caret and fix-it lines (0).
  auto gutter = [&](uint32_t line) {
    if (!options_.showLineNumbers) return std::string();
    std::string g(numberWidth + 1, ' ');
    if (line) {
      std::string n = std::to_string(line);
      g.replace(g.size() - n.size(), n.size(), n);
    }
    return g + " | ";
  };
  for (uint32_t line = firstLine; line <= lastLine; ++line) {
    SourceLocation start = sm.lineStart(file, line);
    std::string_view text = sm.lineText(start);
    if (text.size() > kMaxSnippetLineBytes) break;
    DisplayLine display(text, options_.tabStop);
    // Underline: the whole range on the first line from the caret; later lines from their first
    // non-blank character; all lines to the end of the range or of the line.
    size_t from = line == firstLine ? range.begin.offset - start.offset : text.find_first_not_of(" \t");
    size_t to = text.size();
    if (hasExtent && range.end.offset - start.offset <= text.size()) to = range.end.offset - start.offset;
    std::string marker(display.column(text.size()) + 1, ' ');
    if (hasExtent && from != std::string_view::npos && from < to)
      std::fill(marker.begin() + display.column(from), marker.begin() + display.column(to), '~');
    if (line == firstLine) marker[display.column(from)] = '^';
    trimTrailingSpaces(marker);

    os_ << gutter(line) << display.text << '\n';
    std::string blank = gutter(0);
    if (options_.showLineNumbers && marker.empty()) trimTrailingSpaces(blank);
    os_ << blank;
    if (options_.color && !marker.empty())
      os_ << kCaretColor << marker << kReset;
    else
      os_ << marker;
    os_ << '\n';

    if (line != firstLine) continue;
    // Fix-it insertion line: each single-line replacement starting on the caret line, placed at
    // its column (pushed right past a previous hint that would overlap it).
    std::string hints;
    for (const FixIt &fix : fixits) {
      if (fix.range.begin.file != file || fix.replacement.find('\n') != std::string::npos || fix.replacement.empty() ||
          fix.range.begin.offset < start.offset || fix.range.begin.offset > start.offset + text.size())
        continue;
      size_t column = display.column(fix.range.begin.offset - start.offset);
      if (!hints.empty() && column < hints.size()) column = hints.size() + 1;
      hints.resize(column, ' ');
      hints += fix.replacement;
    }
    if (hints.empty()) continue;
    os_ << blank;
    if (options_.color)
      os_ << kFixitColor << hints << kReset;
    else
      os_ << hints;
    os_ << '\n';
  }
}

void TextDiagnosticPrinter::printParseableFixits(const std::vector<FixIt> &fixits, const SourceManager &sm) {
  for (const FixIt &fix : fixits) {
    if (!fix.range.isValid()) continue;
    LineColumn b = sm.lineColumn(fix.range.begin);
    LineColumn e = fix.range.end.file == fix.range.begin.file && fix.range.end.offset > fix.range.begin.offset
                       ? sm.lineColumn(fix.range.end)
                       : b;
    os_ << "fix-it:\"" << sm.name(fix.range.begin.file) << "\":{" << b.line << ':' << b.column << '-' << e.line << ':'
        << e.column << "}:\"" << escapeFixit(fix.replacement) << "\"\n";
  }
}

void TextDiagnosticPrinter::handle(const Diagnostic &diag, const SourceManager &sm) {
  std::string suffix;
  std::string flag = diag.warningAsError && !diag.flag.empty() ? "-Werror," + diag.flag : diag.flag;
  if (!diag.code.empty() && !flag.empty())
    suffix = " [" + diag.code + ", " + flag + "]";
  else if (!diag.code.empty())
    suffix = " [" + diag.code + "]";
  else if (!flag.empty())
    suffix = " [" + flag + "]";
  printHeader(diag.severity, diag.range, diag.message, suffix, sm);
  printSnippet(diag.range, diag.fixits, sm);
  if (options_.parseableFixits) printParseableFixits(diag.fixits, sm);
  for (const RelatedNote &note : diag.notes) {
    printHeader(Severity::Note, note.range, note.message, "", sm);
    printSnippet(note.range, {}, sm);
  }
  os_.flush();
}

void printDiagnosticSummary(std::ostream &os, unsigned warnings, unsigned errors) {
  if (!warnings && !errors) return;
  if (warnings) os << warnings << (warnings == 1 ? " warning" : " warnings");
  if (warnings && errors) os << " and ";
  if (errors) os << errors << (errors == 1 ? " error" : " errors");
  os << " generated.\n";
}

void printDiagnosticSummary(std::ostream &os, const DiagnosticEngine &engine) {
  unsigned suppressed = engine.suppressedCount();
  if (!suppressed) return printDiagnosticSummary(os, engine.warningCount(), engine.errorCount());
  std::ostringstream line;
  printDiagnosticSummary(line, engine.warningCount(), engine.errorCount());
  std::string text = line.str();
  if (text.size() < 2) return;
  text.resize(text.size() - 2);  // drop ".\n"
  os << text << " (" << suppressed << " follow-on diagnostic" << (suppressed == 1 ? "" : "s") << " suppressed).\n";
}

}  // namespace hrx::diag
