// hrx-cxx-import: runs the C/C++ importer on one file, for lit tests of the importer itself
// (hrxcc reaches the importer through the Compiler API; this tool calls it directly).
//   hrx-cxx-import [--target=gfx1151|gfx11-generic|host|xdna-worker] [-verify]
//                  [--emit=none|llvm|signatures] [-fdiagnostics-format=text|json|sarif]
//                  [--header=VIRTUAL=FILE] [--include=DIR] [-DX[=V]] [-UX] [-std=S] [-x c|c++]
//                  [-W<group>] [-Wno-<group>] [-Werror] FILE
#include "hrx/bridge/TargetBackend.h"
#include "hrx/cxx/CxxImporter.h"
#include "hrx/diag/Renderers.h"
#include "hrx/diag/TextDiagnosticPrinter.h"
#include "hrx/diag/Verify.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace {

using namespace hrx;

std::optional<std::string> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The import targets are what this build's backends describe (loom-bridge/<target>/).
std::optional<cxx::ImportTarget> parseTarget(std::string_view name) { return bridge::cxxImportTargetNamed(name); }

std::string describe(const cxx::ValueType &type) {
  using Kind = cxx::ValueType::Kind;
  std::string lanes = type.lanes ? "x" + std::to_string(type.lanes) : "";
  switch (type.kind) {
  case Kind::Void: return "void";
  case Kind::Scalar: return type.element.name();
  case Kind::Vector: return type.element.name() + lanes + " (" + std::to_string(type.bytes) + " B)";
  case Kind::Pointer:
    return std::string(type.pointeeConst ? "const " : "") + type.element.name() + lanes + "* (pointee " +
           std::to_string(type.pointeeBytes) + " B, addrspace " + std::to_string(type.addressSpace) + ")";
  case Kind::Record: return "record " + type.spelling + " (" + std::to_string(type.bytes) + " B)";
  }
  return "?";
}

void printSignatures(const cxx::ImportedUnit &unit) {
  for (const cxx::Signature &sig : unit.signatures) {
    std::cout << (sig.isKernel ? "kernel " : "function ") << sig.name << " symbol=" << sig.symbol
              << " result=" << describe(sig.result) << "\n";
    for (const cxx::Parameter &param : sig.params)
      std::cout << "  param " << param.name << ": " << describe(param.type) << "\n";
    auto shape = [](const char *label, const std::optional<std::array<uint32_t, 3>> &s) {
      if (s) std::cout << "  " << label << " " << (*s)[0] << "," << (*s)[1] << "," << (*s)[2] << "\n";
    };
    shape("workgroup_size", sig.workgroupSize);
    shape("workgroup_count", sig.workgroupCount);
  }
  for (const std::string &builtin : unit.hostBuiltins) std::cout << "host-builtin " << builtin << "\n";
  for (const std::string &file : unit.filesRead) std::cout << "file-read " << file << "\n";
}

int usage(const std::string &problem) {
  std::cerr << "hrx-cxx-import: " << problem << "\n";
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  cxx::CxxUnit unit;
  cxx::ImportTarget target = bridge::cxxImportTargetNamed("host").value_or(cxx::ImportTarget{});
  std::string emit = "none", format = "text", file;
  bool verify = false;
  diag::DiagnosticOptions options;
  options.errorLimit = 0;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.starts_with("--target=")) {
      auto parsed = parseTarget(arg.substr(9));
      if (!parsed) return usage("unknown target '" + std::string(arg.substr(9)) + "'");
      target = *parsed;
    } else if (arg == "-verify") {
      verify = true;
    } else if (arg.starts_with("--emit=")) {
      emit = arg.substr(7);
    } else if (arg.starts_with("-fdiagnostics-format=")) {
      format = arg.substr(21);
    } else if (arg.starts_with("--header=")) {
      std::string_view spec = arg.substr(9);
      size_t eq = spec.find('=');
      if (eq == std::string_view::npos) return usage("--header needs VIRTUAL=FILE");
      auto text = readFile(std::string(spec.substr(eq + 1)));
      if (!text) return usage("cannot read '" + std::string(spec.substr(eq + 1)) + "'");
      unit.headers.emplace_back(std::string(spec.substr(0, eq)), std::move(*text));
    } else if (arg.starts_with("--include=")) {
      unit.includeDirs.emplace_back(arg.substr(10));
    } else if (arg.starts_with("-D")) {
      unit.defines.emplace_back(arg.substr(2));
    } else if (arg.starts_with("-U")) {
      unit.defines.emplace_back(arg);
    } else if (arg.starts_with("-std=")) {
      unit.standard = arg.substr(5);
    } else if (arg == "-x" && i + 1 < argc) {
      std::string_view lang = argv[++i];
      unit.language = lang == "c" ? cxx::Language::C : cxx::Language::Cxx;
    } else if (arg == "-Werror") {
      options.warningsAsErrors = true;
    } else if (arg.starts_with("-Wno-")) {
      options.disabledGroups.emplace_back(arg.substr(5));
    } else if (arg.starts_with("-W")) {
      options.enabledGroups.emplace_back(arg.substr(2));
    } else if (!arg.starts_with("-") && file.empty()) {
      file = arg;
    } else {
      return usage("unknown argument '" + std::string(arg) + "'");
    }
  }
  if (file.empty()) return usage("no input file");
  auto text = readFile(file);
  if (!text) return usage("cannot read '" + file + "'");
  unit.name = file;
  unit.text = std::move(*text);

  diag::SourceManager sm;
  diag::DiagnosticEngine engine(sm);
  engine.setOptions(options);
  diag::TextDiagnosticPrinter textPrinter(std::cerr);
  std::unique_ptr<diag::DiagnosticConsumer> machine;
  diag::VerifyDiagnosticConsumer verifier;
  if (verify) {
    engine.addConsumer(&verifier);
    verifier.addAnnotatedFile(sm, sm.addBuffer(file, unit.text), engine);
  } else if (format == "json") {
    machine = diag::createJsonPrinter(std::cout);
  } else if (format == "sarif") {
    machine = diag::createSarifPrinter(std::cout, "test");
  } else if (format != "text") {
    return usage("unknown diagnostics format '" + format + "'");
  }
  if (!verify) engine.addConsumer(machine ? machine.get() : &textPrinter);

  cxx::CxxImporter importer;
  llvm::LLVMContext context;
  std::optional<cxx::ImportedUnit> result = importer.import(unit, target, context, engine);
  engine.finish();
  if (verify) return verifier.check(sm, std::cerr) ? 0 : 1;
  if (!result) return 1;
  if (emit == "llvm") {
    std::cout.flush();
    result->module->print(llvm::outs(), nullptr);
  } else if (emit == "signatures") {
    printSignatures(*result);
  }
  return 0;
}
