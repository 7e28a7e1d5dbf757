// Test helper: compiles Loom text through the Compiler API and collects the diagnostics.
#pragma once

#include "hrx/Compiler.h"
#include "hrx/diag/Diagnostic.h"

#include <nlohmann/json.hpp>

#include <string>

namespace hrx::bridge::test {

struct Compiled {
  CompileResult result;
  std::string diagnostics;  // one "CODE message" line per diagnostic
  unsigned errors = 0;
};

class CollectingConsumer : public diag::DiagnosticConsumer {
public:
  void handle(const diag::Diagnostic &d, const diag::SourceManager &sm) override {
    text += d.code + " " + d.message;
    if (d.range.isValid()) text += " @" + std::to_string(sm.lineColumn(d.range.begin).line);
    text += "\n";
  }
  std::string text;
};

inline Compiled compileLoom(const std::string &source, std::map<std::string, std::string> config = {},
                            EmitKind emit = EmitKind::Artifact, std::string symbol = {},
                            diag::DiagnosticOptions options = {}) {
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  diags.setOptions(std::move(options));
  CollectingConsumer consumer;
  diags.addConsumer(&consumer);
  Compiler compiler = Compiler::forTarget(Target::host());
  compiler.sources({{"test.loom", source}}, {});
  CompileRequest request;
  request.emit = emit;
  request.specialization.config = std::move(config);
  request.specialization.symbol = std::move(symbol);
  Compiled out;
  out.result = compiler.compile(request, diags);
  out.diagnostics = consumer.text;
  out.errors = diags.errorCount();
  return out;
}

}  // namespace hrx::bridge::test
