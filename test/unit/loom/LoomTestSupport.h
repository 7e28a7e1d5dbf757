// Shared helpers for the Loom unit tests: parse text, collect diagnostics, print.
#pragma once

#include "hrx/diag/Diagnostic.h"
#include "hrx/loom/IR.h"
#include "hrx/loom/Loom.h"

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace hrx::loom::test {

struct Collector : diag::DiagnosticConsumer {
  std::vector<diag::Diagnostic> diags;
  void handle(const diag::Diagnostic &d, const diag::SourceManager &) override { diags.push_back(d); }
};

// One parsed (and optionally verified) buffer with everything it reported.
struct Parsed {
  std::unique_ptr<diag::SourceManager> sm = std::make_unique<diag::SourceManager>();
  std::unique_ptr<diag::DiagnosticEngine> engine = std::make_unique<diag::DiagnosticEngine>(*sm);
  std::unique_ptr<Collector> collector = std::make_unique<Collector>();
  OwningModule module;
  bool verified = false;

  std::vector<std::string> codes() const {
    std::vector<std::string> out;
    for (const auto &d : collector->diags) out.push_back(d.code);
    return out;
  }
  std::string param(size_t i, std::string_view name) const {
    for (const auto &[k, v] : collector->diags.at(i).params)
      if (k == name) return v;
    return "<missing>";
  }
  std::string print() const {
    std::ostringstream os;
    printModule(*module, os);
    return os.str();
  }
  std::string messages() const {
    std::string s;
    for (const auto &d : collector->diags) s += d.code + ": " + d.message + "\n";
    return s;
  }
};

inline Parsed parse(std::string text, bool verify = true) {
  Parsed p;
  diag::DiagnosticOptions options;
  options.errorLimit = 0;
  p.engine->setOptions(options);
  p.engine->addConsumer(p.collector.get());
  uint32_t file = p.sm->addBuffer("test.loom", std::move(text));
  p.module = parseModule(*p.sm, file, *p.engine);
  if (verify && p.module && !p.engine->hasErrors()) p.verified = verifyModule(*p.module, *p.engine);
  return p;
}

inline std::string readInput(const std::string &name) {
  std::ifstream in(std::string(HRX_LOOM_INPUTS) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace hrx::loom::test
