// Fuzzes the -verify annotation parser (clang's expected-* and Loom's // ERROR: forms) and the
// matcher: the input is an annotated source file; a few diagnostics are reported against it and
// the check runs. Any input must end in a verdict, never a crash, hang or sanitizer report.
#include "hrx/diag/Verify.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

using namespace hrx::diag;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  SourceManager sm;
  uint32_t file = sm.addBuffer("fuzz.loom", std::string(reinterpret_cast<const char *>(data), size));
  DiagnosticEngine engine(sm);
  DiagnosticOptions options;
  options.errorLimit = 0;
  engine.setOptions(options);
  // Alternate the prefix set so that both the single- and multi-prefix paths run.
  VerifyDiagnosticConsumer verify(size % 2 ? std::vector<std::string>{"expected", "foo"} : std::vector<std::string>{});
  engine.addConsumer(&verify);
  verify.addAnnotatedFile(sm, file, engine);
  uint32_t lines = sm.lineCount(file);
  for (uint32_t line = 1; line <= lines && line <= 8; ++line)
    engine.report(DiagId::ParseUnknownOp, sm.lineStart(file, line)).arg("name", "op" + std::to_string(line));
  engine.reportExternal(Severity::Warning, {}, "no location", "-Wfuzz");
  std::ostringstream out;
  verify.check(sm, out);
  return 0;
}
