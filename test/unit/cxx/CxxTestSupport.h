// Shared helpers for the importer tests: one importer per process, diagnostics captured as
// "file:line:col: severity: message [CODE]" lines.
#pragma once

#include "hrx/bridge/TargetBackend.h"
#include "hrx/cxx/CxxImporter.h"
#include "hrx/diag/Diagnostic.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <iostream>
#include <string>
#include <vector>

namespace hrx::cxx::test {

// The import target a backend of this build describes (loom-bridge/<target>/), as hrxcc uses it.
inline const ImportTarget &namedTarget(const char *name) {
  static std::mutex mutex;
  static std::map<std::string, ImportTarget> targets;
  std::lock_guard lock(mutex);
  if (auto it = targets.find(name); it != targets.end()) return it->second;
  std::optional<ImportTarget> target = bridge::cxxImportTargetNamed(name);
  if (!target) {
    std::cerr << "no registered backend describes the import target '" << name << "'\n";
    std::abort();
  }
  return targets.emplace(name, std::move(*target)).first->second;
}
inline const ImportTarget &hostTarget() { return namedTarget("host"); }
inline const ImportTarget &xdnaWorkerTarget() { return namedTarget("xdna-worker"); }
inline const ImportTarget &gfx1151Target() { return namedTarget("gfx1151"); }
inline const ImportTarget &gfx11GenericTarget() { return namedTarget("gfx11-generic"); }

struct CapturedDiagnostic {
  diag::Severity severity;
  std::string code;
  std::string flag;
  std::string message;
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  std::vector<std::string> notes;
};

class Capture : public diag::DiagnosticConsumer {
public:
  void handle(const diag::Diagnostic &d, const diag::SourceManager &sm) override {
    CapturedDiagnostic c{d.severity, d.code, d.flag, d.message, {}, 0, 0, {}};
    if (d.range.isValid()) {
      c.file = std::string(sm.name(d.range.begin.file));
      diag::LineColumn lc = sm.lineColumn(d.range.begin);
      c.line = lc.line;
      c.column = lc.column;
    }
    for (const diag::RelatedNote &note : d.notes) c.notes.push_back(note.message);
    all.push_back(std::move(c));
  }
  bool has(const std::string &code, unsigned line) const {
    for (const CapturedDiagnostic &d : all)
      if (d.code == code && d.line == line) return true;
    return false;
  }
  std::string dump() const {
    std::string out;
    for (const CapturedDiagnostic &d : all)
      out += d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message +
             (d.code.empty() ? "" : " [" + d.code + "]") + (d.flag.empty() ? "" : " [" + d.flag + "]") + "\n";
    return out;
  }
  std::vector<CapturedDiagnostic> all;
};

inline CxxUnit unitOf(std::string name, std::string text, Language language = Language::Auto) {
  CxxUnit unit;
  unit.name = std::move(name);
  unit.text = std::move(text);
  unit.language = language;
  return unit;
}

// One importer for the whole test binary, as the driver uses it.
inline CxxImporter &importer() {
  static CxxImporter instance;
  return instance;
}

struct ImportRun {
  diag::SourceManager sm;
  diag::DiagnosticEngine engine{sm};
  Capture capture;
  llvm::LLVMContext context;
  std::optional<ImportedUnit> result;

  explicit ImportRun(diag::DiagnosticOptions options = {}) {
    options.errorLimit = 0;
    engine.setOptions(std::move(options));
    engine.addConsumer(&capture);
  }
  bool run(const CxxUnit &unit, const ImportTarget &target) {
    result = importer().import(unit, target, context, engine);
    return result.has_value();
  }
  std::string ir() const {
    std::string text;
    llvm::raw_string_ostream os(text);
    result->module->print(os, nullptr);
    return text;
  }
  const Signature *signature(const std::string &name) const {
    for (const Signature &s : result->signatures)
      if (s.name == name) return &s;
    return nullptr;
  }
};

}  // namespace hrx::cxx::test
