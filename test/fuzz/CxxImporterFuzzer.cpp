// The C/C++ importer front end: the input is one translation unit, compiled for the host target
// with fixed options (C23 when the first byte is odd, C++26 otherwise). Every unit must end in an
// imported module or in diagnostics, never a crash; Clang's own crashes count as findings too.
#include "hrx/bridge/TargetBackend.h"
#include "hrx/cxx/CxxImporter.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <cstddef>
#include <cstdint>
#include <string>

using namespace hrx;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  cxx::CxxUnit unit;
  unit.name = data[0] & 1 ? "fuzz.c" : "fuzz.cpp";
  unit.text.assign(reinterpret_cast<const char *>(data + 1), size - 1);
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  diag::DiagnosticOptions options;
  options.errorLimit = 0;
  diags.setOptions(options);
  cxx::ImportOptions importOptions;
  importOptions.optLevel = 0;
  static cxx::CxxImporter importer(importOptions);
  llvm::LLVMContext context;
  static const cxx::ImportTarget host = bridge::cxxImportTargetNamed("host").value();
  (void)importer.import(unit, host, context, diags);
  return 0;
}
