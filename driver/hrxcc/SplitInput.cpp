#include "SplitInput.h"

#include "Compilation.h"
#include "hrx/diag/Renderers.h"
#include "hrx/diag/TextDiagnosticPrinter.h"
#include "hrx/diag/Verify.h"
#include "hrx/format/FileIO.h"
#include "hrx/loom/Loom.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace hrx::driver {
namespace {

std::string_view trimmed(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
  return line;
}

bool isCaseSeparator(std::string_view line) {
  line = trimmed(line);
  return line == "// ====" || line == "// -----";
}

bool isExpectedSeparator(std::string_view line) { return trimmed(line) == "// ----"; }

// The lines that carry IR (comments and blank lines dropped, trailing space trimmed): what a
// golden print is compared on.
std::vector<std::string> irLines(std::string_view text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= text.size()) {
    size_t nl = text.find('\n', at);
    std::string_view line = trimmed(text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at));
    if (!line.empty() && !line.starts_with("//")) out.emplace_back(line);
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  return out;
}

bool readInput(const std::string &path, std::string &text) {
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), {});
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  text.assign(std::istreambuf_iterator<char>(in), {});
  return true;
}

// Parses and verifies one case; diagnostics go to `diags`. Null when it has errors.
// Notices whether a syntax error (PARSE/...) was reported.
class SyntaxErrorSeen final : public diag::DiagnosticConsumer {
public:
  void handle(const diag::Diagnostic &d, const diag::SourceManager &) override {
    if (d.severity >= diag::Severity::Error && d.code.starts_with("PARSE/")) seen = true;
  }
  bool seen = false;
};

// `syntax` must outlive `diags` (the engine keeps the consumer); it is added here.
loom::OwningModule checkCase(diag::SourceManager &sm, uint32_t file, diag::DiagnosticEngine &diags,
                             SyntaxErrorSeen &syntax) {
  diags.addConsumer(&syntax);
  loom::OwningModule module = loom::parseModule(sm, file, diags);
  loom::VerifyOptions options;
  options.everyTypedOperand = true;  // every independent error of a case is reported
  // A case with a syntax error is not verified (as upstream): the IR recovered around the failed
  // op would only add cascades, such as a missing terminator where the op failed to parse.
  // Type errors the parser reports (a written type that differs) leave the IR whole.
  if (module && !syntax.seen) loom::verifyModule(*module, diags, options);
  if (diags.hasErrors()) return nullptr;
  return module;
}

}  // namespace

std::vector<InputCase> splitInputCases(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t at = 0; at <= text.size();) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) {
      if (at < text.size()) lines.push_back(text.substr(at));
      break;
    }
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  std::vector<InputCase> cases;
  size_t begin = 0;
  auto finish = [&](size_t end) {
    InputCase c;
    c.number = unsigned(cases.size() + 1);
    c.firstLine = unsigned(begin + 1);
    bool expected = false;
    for (size_t i = 0; i < lines.size(); ++i) {
      bool inside = i >= begin && i < end;
      if (inside && isExpectedSeparator(lines[i]) && !expected) {
        expected = true;
        c.expected.emplace();
      } else if (inside && expected) {
        *c.expected += std::string(lines[i]) + "\n";
      }
      if (inside && !expected) c.text += lines[i];
      c.text += '\n';
    }
    cases.push_back(std::move(c));
  };
  for (size_t i = 0; i < lines.size(); ++i)
    if (isCaseSeparator(lines[i])) {
      finish(i);
      begin = i + 1;
    }
  finish(lines.size());
  return cases;
}

int runSplitInputFile(const Invocation &inv) {
  bool printing = !inv.syntaxOnly && inv.emit == EmitKind::Loom;
  if (!inv.syntaxOnly && !printing) {
    std::cerr << "hrxcc: error: --split-input-file takes -fsyntax-only (with or without -verify) or --emit=loom\n";
    return 2;
  }
  bool color = inv.color.value_or(false);
  int status = 0;
  std::string printed;
  for (const InputFile &input : inv.inputs) {
    if (input.kind != InputKind::Loom) {
      std::cerr << "hrxcc: error: --split-input-file applies to Loom inputs; '" << input.path << "' is "
                << inputKindName(input.kind) << "\n";
      return 2;
    }
    std::string text;
    if (!readInput(input.path, text)) {
      std::cerr << "hrxcc: error: cannot read '" << input.path << "'\n";
      return 1;
    }
    std::string name = input.path == "-" ? "<stdin>" : sourceName(input.path);
    std::vector<InputCase> cases = splitInputCases(text);
    std::vector<const InputCase *> failed;
    for (const InputCase &c : cases) {
      diag::SourceManager sm;
      SyntaxErrorSeen syntax;
      diag::DiagnosticEngine diags(sm);
      diag::DiagnosticOptions options = inv.diagOptions;
      options.errorLimit = 0;  // every independent error of a case is reported
      diags.setOptions(options);
      uint32_t file = sm.addBuffer(name, c.text);
      if (inv.verify) {
        // Loom's rule: a case without annotations expects no diagnostics.
        diag::VerifyDiagnosticConsumer verifier(inv.verifyPrefixes);
        verifier.setImplicitNoDiagnostics(true);
        diags.addConsumer(&verifier);
        verifier.addAnnotatedFile(sm, file, diags);
        checkCase(sm, file, diags, syntax);
        std::ostringstream report;
        if (!verifier.check(sm, report)) {
          std::cerr << name << ": case " << c.number << " (line " << c.firstLine << "):\n" << report.str();
          failed.push_back(&c);
        }
        continue;
      }
      // One JSON array per case with -fdiagnostics-format=json (SARIF is not split).
      std::unique_ptr<diag::DiagnosticConsumer> printer =
          inv.diagFormat == DiagnosticsFormat::Json ? diag::createJsonPrinter(std::cerr)
                                                    : std::make_unique<diag::TextDiagnosticPrinter>(std::cerr, color);
      diags.addConsumer(printer.get());
      loom::OwningModule module = checkCase(sm, file, diags, syntax);
      diags.finish();
      if (!module) {
        failed.push_back(&c);
        continue;
      }
      if (!printing) continue;
      std::ostringstream first;
      loom::printModule(*module, first);
      // The canonical print must parse back to itself (round-trip identity).
      diag::SourceManager again;
      SyntaxErrorSeen againSyntax;
      diag::DiagnosticEngine againDiags(again);
      diag::TextDiagnosticPrinter againPrinter(std::cerr, color);
      againDiags.addConsumer(&againPrinter);
      uint32_t reprinted = again.addBuffer(name + " (case " + std::to_string(c.number) + ", printed)", first.str());
      loom::OwningModule second = checkCase(again, reprinted, againDiags, againSyntax);
      std::ostringstream secondText;
      if (second) loom::printModule(*second, secondText);
      if (!second || secondText.str() != first.str()) {
        std::cerr << name << ":" << c.firstLine << ": error: case " << c.number
                  << ": the canonical print does not parse back to the same print\n";
        failed.push_back(&c);
        continue;
      }
      if (c.expected) {
        std::vector<std::string> want = irLines(*c.expected), got = irLines(first.str());
        size_t k = 0;
        while (k < want.size() && k < got.size() && want[k] == got[k]) ++k;
        if (k < want.size() || k < got.size()) {
          std::cerr << name << ":" << c.firstLine << ": error: case " << c.number
                    << ": the canonical print differs from the expected section at its IR line " << k + 1
                    << ":\n  expected: " << (k < want.size() ? want[k] : "(end)")
                    << "\n  printed:  " << (k < got.size() ? got[k] : "(end)") << "\n";
          failed.push_back(&c);
          continue;
        }
      }
      if (!printed.empty()) printed += "// ====\n";
      printed += first.str();
    }
    if (!failed.empty()) {
      status = 1;
      std::cerr << "hrxcc: " << failed.size() << " of " << cases.size() << " case(s) of " << name << " failed"
                << (inv.verify ? " -verify" : "") << ":\n";
      for (const InputCase *c : failed) std::cerr << "  case " << c->number << " (line " << c->firstLine << ")\n";
    }
  }
  if (printing && status == 0) {
    if (!inv.output || *inv.output == "-") {
      std::cout << printed;
    } else if (Status s = io::writeFileAtomically(*inv.output, printed); !s) {
      std::cerr << "hrxcc: error: cannot write '" << *inv.output << "': " << s.message() << "\n";
      return 1;
    }
  }
  return status;
}

}  // namespace hrx::driver
