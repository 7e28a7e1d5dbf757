// The linked, specialized program every backend receives: the verified Loom modules, one symbol
// table across them, the exports being compiled, the bound configuration and their contracts.
#pragma once

#include "hrx/Compiler.h"
#include "hrx/bridge/Contract.h"
#include "hrx/cxx/CxxImporter.h"
#include "hrx/diag/Diagnostic.h"
#include "hrx/loom/IR.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hrx::bridge {

// A configuration value after binding: integers (index, offset, iN, i1) or floats.
struct ConfigValue {
  const loom::Type *type = nullptr;
  bool isFloat = false;
  int64_t integer = 0;
  double floating = 0;
  std::string spelling;  // as the user wrote it (for messages and the identity)
};

enum class SymbolKind { Function, Kernel, Pipeline, Config, Target, Other };

// One definition (or, when no input defines the symbol, its declaration): a Loom op or a
// function exported by a C/C++ translation unit.
struct SymbolEntry {
  SymbolKind kind = SymbolKind::Other;
  const loom::Operation *op = nullptr;  // the defining (or declaring) top-level Loom op
  const loom::Module *module = nullptr;
  const cxx::Signature *cxx = nullptr;  // a C/C++ definition (then op is null)
  size_t cxxUnit = 0;
  bool isDefinition = false;
  diag::SourceRange location() const { return op ? op->loc() : cxx->location; }
};

class Program {
public:
  // The modules, in input order (owned).
  std::vector<loom::OwningModule> modules;
  // name (without '@') → definition, across every module.
  std::map<std::string, SymbolEntry, std::less<>> symbols;
  // The exports compiled by this request (pipeline.def, kernel.def, or public func.def roots),
  // in source order; contracts[i] belongs to exports[i].
  std::vector<const loom::Operation *> exports;
  // The C/C++ kernels ([[loom::kernel]], HIP __global__) exported for AMDGPU and host targets, in
  // input order; contracts[exports.size() + i] belongs to cxxKernels[i].
  std::vector<const cxx::Signature *> cxxKernels;
  std::vector<KernelContract> contracts;
  // Every top-level definition reachable from the exports (including the exports), source order.
  std::vector<const loom::Operation *> reachable;
  // The configuration bound for the reachable config.get reads.
  std::map<std::string, ConfigValue, std::less<>> config;
  // Imported C/C++ translation units (their modules live in cxxContext).
  std::unique_ptr<llvm::LLVMContext> cxxContext;
  std::vector<cxx::ImportedUnit> cxxUnits;
  // The C/C++ sources as given and the target cxxUnits were imported for (to import them again
  // for another target, see retargetCxx).
  std::vector<CxxSource> cxxSources;
  Target cxxTarget;
  // Host twins only: C/C++ kernels (by symbol) the host cannot run, and why (LINK/044); the host
  // code has no entry for them and says why instead (docs/host-twin.md).
  std::map<std::string, std::string, std::less<>> hostUnavailable;

  // Copies of the C/C++ modules in `context` (for a backend's own module).
  std::vector<std::unique_ptr<llvm::Module>> cxxModules(llvm::LLVMContext &context) const;

  const SymbolEntry *lookup(std::string_view name) const;

  // The stack a C/C++ function @name needs at least: its fixed-size locals plus the deepest
  // chain of calls into functions its unit defines (spills are not counted). 0 for Loom
  // functions and unknown names.
  uint64_t cxxStackBytes(std::string_view name) const;

  // Folds an index/offset/integer value that the specialization makes constant (constants,
  // config.get, index arithmetic, assumes, casts). nullopt when it depends on runtime values.
  // `subgroupSize`: the value of kernel.subgroup.size where the caller knows the kernel's.
  std::optional<int64_t> evaluateInteger(const loom::Value *value,
                                         std::optional<int64_t> subgroupSize = std::nullopt) const;
};

// Link + specialize + contracts over parsed, verified modules. Returns null after reporting
// errors. `request.specialization.symbol` selects one export (empty: every export).
// C/C++ sources are imported for `request.targets.front()`.
// Imports `cxx` for `request.targets.front()` into `program` (cxxContext, cxxUnits) without
// linking. False after reporting errors.
// `bodies`, when given, receives each unit's function bodies (cxx::CxxUnit::functionBodies).
bool importCxxUnits(Program &program, const std::vector<CxxSource> &cxx, const CompileRequest &request,
                    diag::DiagnosticEngine &diags, bool retargeted = false,
                    std::vector<std::vector<cxx::FunctionBody>> *bodies = nullptr);

// The same program with its C/C++ units imported for `target` (e.g. the host twin of an AMDGPU
// artifact); it shares `program`'s Loom modules, which must outlive it. Null after reporting errors.
// `sources` replaces program.cxxSources (the same units, e.g. with bodies the host cannot compile
// replaced); `bodies` as for importCxxUnits.
std::unique_ptr<Program> retargetCxx(const Program &program, const Target &target, const CompilerOptions &options,
                                     diag::DiagnosticEngine &diags, const std::vector<CxxSource> *sources = nullptr,
                                     std::vector<std::vector<cxx::FunctionBody>> *bodies = nullptr);

// `program` itself when its C/C++ units were imported for `target`; otherwise a retargeted copy
// kept in `storage` (members of a fat artifact after the first). Null after reporting errors.
const Program *programForTarget(const Program &program, const Target &target, const CompilerOptions &options,
                                std::unique_ptr<Program> &storage, diag::DiagnosticEngine &diags);

// hrx::Compiler::preprocess.
std::optional<std::string> preprocessCxx(const CxxSource &source, const Target &target, const CompilerOptions &options,
                                         diag::DiagnosticEngine &diags, std::vector<std::string> *filesRead);

std::unique_ptr<Program> buildProgram(std::vector<loom::OwningModule> modules, const std::vector<CxxSource> &cxx,
                                      const CompileRequest &request, diag::DiagnosticEngine &diags);

// Small IR queries shared by the bridge's passes.
namespace ir {
// The first attribute of kind Symbol (the callee/target of a call, stage, reduce, launch or
// config.get), without '@'; empty if none.
std::string_view symbolRef(const loom::Operation &op);
// A buffer.assume.* op (its results are its buffer operands, with facts).
bool isBufferAssume(const loom::Operation &op);
}  // namespace ir

}  // namespace hrx::bridge
