// The Loom lexer, parser, verifier and printer: any text ends in a module or diagnostics, never a
// crash, hang or sanitizer report. The verifier also runs on the partial module left after parse
// errors, and a clean module must print to text that parses, verifies and prints the same again.
#include "hrx/diag/TextDiagnosticPrinter.h"
#include "hrx/loom/Loom.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>

using namespace hrx;

namespace {

// Parses and verifies `text`; returns the printed module, or nothing when either reported errors.
std::optional<std::string> parseVerifyPrint(const std::string &text) {
  diag::SourceManager sm;
  uint32_t file = sm.addBuffer("fuzz.loom", text);
  diag::DiagnosticEngine diags(sm);
  diag::DiagnosticOptions options;
  options.errorLimit = 0;
  diags.setOptions(options);
  std::ostringstream rendered;
  diag::TextDiagnosticPrinter printer(rendered);
  diags.addConsumer(&printer);
  loom::OwningModule module = loom::parseModule(sm, file, diags);
  if (!module) return std::nullopt;
  bool parsed = !diags.hasErrors();
  bool verified = loom::verifyModule(*module, diags);
  std::ostringstream printed;
  loom::printModule(*module, printed);
  if (!parsed || !verified) return std::nullopt;
  return printed.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto first = parseVerifyPrint(std::string(reinterpret_cast<const char *>(data), size));
  if (!first) return 0;
  auto second = parseVerifyPrint(*first);
  if (second != first) {
    std::fprintf(stderr, "printed module does not round-trip:\n--- first print\n%s\n--- second print\n%s\n",
                 first->c_str(), second ? second->c_str() : "(errors)");
    std::abort();
  }
  return 0;
}
