// hrx-diag-docs: prints docs/diagnostics.md (the prose of DiagDocsIntro.md.inc followed by every
// registry row), or with --check FILE reports whether FILE is that text.
#include "hrx/diag/Diagnostic.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

using namespace hrx::diag;

namespace {

constexpr std::string_view kIntro =
#include "DiagDocsIntro.md.inc"
    ;

std::string_view domainOf(std::string_view code) { return code.substr(0, code.find('/')); }

// Escapes text for a Markdown table cell.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

// Documentation prose: a table cell in which '<' is not taken for HTML.
std::string prose(std::string_view text) {
  std::string out;
  for (char c : cell(text)) {
    if (c == '<')
      out += "&lt;";
    else
      out += c;
  }
  return out;
}

std::string codeSpan(std::string_view text) {
  std::string fence = text.find('`') == std::string_view::npos ? "`" : "``";
  return fence + (fence.size() == 2 ? " " : "") + cell(text) + (fence.size() == 2 ? " " : "") + fence;
}

std::string severityText(const DiagInfo &d) {
  if (d.severity == Severity::Ignored) return "warning (off by default)";
  if (d.severity == Severity::Remark) return "remark (off by default)";
  return std::string(severityName(d.severity));
}

std::string generate() {
  std::ostringstream os;
  os << kIntro;
  std::vector<const DiagInfo *> all = allDiagnostics();
  std::vector<std::string_view> domains;
  for (const DiagInfo *d : all)
    if (std::find(domains.begin(), domains.end(), domainOf(d->code)) == domains.end())
      domains.push_back(domainOf(d->code));
  os << "\n## Diagnostic codes\n\n"
     << all.size() << " codes in " << domains.size() << " domains. `hrxcc --explain CODE` prints one entry.\n";
  for (std::string_view domain : domains) {
    os << "\n### " << domain << "\n\n"
       << "| Code | Severity | Group | Message | Parameters | Documentation |\n"
       << "| --- | --- | --- | --- | --- | --- |\n";
    for (const DiagInfo *d : all) {
      if (domainOf(d->code) != domain) continue;
      std::string group = "";
      if (!d->group.empty()) group = codeSpan((d->severity == Severity::Remark ? "-R" : "-W") + std::string(d->group));
      std::string params;
      for (std::string_view p : templateParameters(d->message)) params += (params.empty() ? "" : ", ") + codeSpan(p);
      os << "| " << d->code << " | " << severityText(*d) << " | " << group << " | " << codeSpan(d->message) << " | "
         << params << " | " << prose(d->doc) << " |\n";
    }
  }
  return os.str();
}

int check(const std::string &path, const std::string &expected) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "hrx-diag-docs: error: cannot read '" << path << "'\n";
    return 1;
  }
  std::string actual((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (actual == expected) return 0;
  std::istringstream a(actual), e(expected);
  std::string lineA, lineE;
  unsigned line = 1;
  while (true) {
    bool moreA = static_cast<bool>(std::getline(a, lineA)), moreE = static_cast<bool>(std::getline(e, lineE));
    if (!moreA && !moreE) break;
    if (!moreA || !moreE || lineA != lineE) {
      std::cerr << path << ":" << line << ": error: differs from the diagnostic registry\n"
                << "  file:      " << (moreA ? lineA : "<end of file>") << "\n"
                << "  generated: " << (moreE ? lineE : "<end of output>") << "\n";
      break;
    }
    ++line;
  }
  std::cerr << "note: regenerate it with scripts/gen-diag-docs.sh\n";
  return 1;
}

}  // namespace

int main(int argc, char **argv) {
  std::string text = generate();
  if (argc == 1) {
    std::cout << text;
    return 0;
  }
  if (argc == 3 && std::string_view(argv[1]) == "--check") return check(argv[2], text);
  std::cerr << "usage: hrx-diag-docs [--check FILE]\n"
               "Prints docs/diagnostics.md from the diagnostic registry; --check FILE exits 1 when FILE differs.\n";
  return 2;
}
