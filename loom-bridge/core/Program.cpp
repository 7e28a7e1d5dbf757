// Link (one symbol table over every input, reachability from the exports) and specialize (bind
// and check the configuration every reachable config.get reads).
#include "hrx/bridge/Program.h"

#include "hrx/bridge/TargetBackend.h"

#include "ContractBuilder.h"
#include "IndexFold.h"
#include "hrx/bridge/IrQueries.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <set>

namespace hrx::bridge {

using loom::Operation;
using loom::Value;

const SymbolEntry *Program::lookup(std::string_view name) const {
  auto it = symbols.find(name);
  return it == symbols.end() ? nullptr : &it->second;
}

uint64_t Program::cxxStackBytes(std::string_view name) const {
  const SymbolEntry *entry = lookup(name);
  if (!entry || !entry->cxx || entry->cxxUnit >= cxxUnits.size() || !cxxUnits[entry->cxxUnit].module) return 0;
  const llvm::Module &module = *cxxUnits[entry->cxxUnit].module;
  const llvm::DataLayout &layout = module.getDataLayout();
  std::set<const llvm::Function *> active;  // recursion adds nothing
  std::function<uint64_t(const llvm::Function &)> frame = [&](const llvm::Function &f) -> uint64_t {
    if (f.isDeclaration() || !active.insert(&f).second) return 0;
    uint64_t own = 0, deepest = 0;
    for (const llvm::BasicBlock &block : f)
      for (const llvm::Instruction &inst : block) {
        if (const auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst)) {
          if (std::optional<llvm::TypeSize> size = alloca->getAllocationSize(layout); size && !size->isScalable())
            own += size->getFixedValue();
        } else if (const auto *call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
          if (const llvm::Function *callee = call->getCalledFunction()) deepest = std::max(deepest, frame(*callee));
        }
      }
    active.erase(&f);
    return own + deepest;
  };
  const llvm::Function *function = module.getFunction(entry->cxx->symbol);
  return function ? frame(*function) : 0;
}

std::vector<std::unique_ptr<llvm::Module>> Program::cxxModules(llvm::LLVMContext &context) const {
  std::vector<std::unique_ptr<llvm::Module>> copies;
  for (const cxx::ImportedUnit &unit : cxxUnits) {
    llvm::SmallVector<char, 0> bitcode;
    llvm::raw_svector_ostream stream(bitcode);
    llvm::WriteBitcodeToFile(*unit.module, stream);
    auto copy =
        llvm::parseBitcodeFile(llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()), "cxx"), context);
    if (!copy) {
      llvm::consumeError(copy.takeError());
      continue;  // cannot happen for bitcode we just wrote
    }
    copies.push_back(std::move(*copy));
  }
  return copies;
}

std::optional<int64_t> Program::evaluateInteger(const Value *value, std::optional<int64_t> subgroupSize) const {
  if (!value || value->isBlockArgument() || !value->definingOp()) return std::nullopt;
  const Operation &op = *value->definingOp();
  auto operand = [&](unsigned i) { return evaluateInteger(op.operand(i), subgroupSize); };
  using loom::OpCode;
  const OpCode code = op.opcode();
  if (code == OpCode::KernelSubgroupSize) return subgroupSize;
  if (code == OpCode::IndexConstant || code == OpCode::ScalarConstant) {
    const loom::Attribute *v = op.attr("value");
    if (v && v->kind() == loom::AttrKind::Integer) return v->integer();
    if (v && v->kind() == loom::AttrKind::Bool) return v->boolean() ? 1 : 0;
    return std::nullopt;
  }
  if (code == OpCode::ConfigGet) {
    auto it = config.find(ir::symbolRef(op));
    if (it == config.end() || it->second.isFloat) return std::nullopt;
    return it->second.integer;
  }
  if (code == OpCode::IndexAssume) return evaluateInteger(op.operand(value->index()), subgroupSize);
  if (code == OpCode::IndexCast) return operand(0);
  if (op.numOperands() == 2) {
    auto a = operand(0), b = operand(1);
    if (!a || !b) return std::nullopt;
    return foldIndexBinary(op.name(), *a, *b);  // nullopt on int64 overflow (IndexFold.h)
  }
  if (code == OpCode::IndexMadd) {
    auto a = operand(0), b = operand(1), c = operand(2);
    if (a && b && c) return foldIndexMultiplyAdd(*a, *b, *c);
  }
  return std::nullopt;
}

namespace ir {

std::string_view symbolRef(const Operation &op) {
  for (const loom::NamedAttr &a : op.attributes())
    if (a.name != "sym_name" && a.value && a.value->kind() == loom::AttrKind::Symbol) return a.value->str();
  return {};
}

bool isBufferAssume(const Operation &op) {
  switch (op.opcode()) {
  case loom::OpCode::BufferAssumeAlignment:
  case loom::OpCode::BufferAssumeNoalias:
  case loom::OpCode::BufferAssumeMemorySpace:
  case loom::OpCode::BufferAssumeSameRoot: return true;
  default: return false;
  }
}

}  // namespace ir

namespace {

SymbolKind symbolKind(const Operation &op) {
  using loom::OpCode;
  switch (op.opcode()) {
  case OpCode::FuncDef:
  case OpCode::FuncDecl: return SymbolKind::Function;
  case OpCode::KernelDef:
  case OpCode::KernelDecl: return SymbolKind::Kernel;
  case OpCode::PipelineDef: return SymbolKind::Pipeline;
  case OpCode::ConfigDecl:
  case OpCode::ConfigDef: return SymbolKind::Config;
  default: return loom::isTargetRecord(op.opcode()) ? SymbolKind::Target : SymbolKind::Other;
  }
}

const char *kindName(SymbolKind kind) {
  switch (kind) {
  case SymbolKind::Function: return "function";
  case SymbolKind::Kernel: return "kernel";
  case SymbolKind::Pipeline: return "pipeline";
  case SymbolKind::Config: return "configuration key";
  case SymbolKind::Target: return "target record";
  case SymbolKind::Other: return "symbol";
  }
  return "symbol";
}

bool isDefinition(const Operation &op) {
  using loom::OpCode;
  OpCode n = op.opcode();
  return n == OpCode::FuncDef || n == OpCode::KernelDef || n == OpCode::PipelineDef || n == OpCode::ConfigDef;
}

bool isExport(const Operation &op) {
  using loom::OpCode;
  OpCode n = op.opcode();
  return n == OpCode::PipelineDef || n == OpCode::KernelDef || (n == OpCode::FuncDef && op.hasAttr("public"));
}

bool validKey(std::string_view key) {
  if (key.empty()) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

class ProgramBuilder {
public:
  ProgramBuilder(Program &program, const CompileRequest &request, diag::DiagnosticEngine &diags)
      : program_(program), request_(request), diags_(diags) {}

  bool run() {
    buildSymbolTable();
    if (failed()) return false;
    if (!selectExports()) return false;
    computeReachable();
    if (failed()) return false;
    if (!bindConfiguration()) return false;
    return deriveContracts(program_, diags_);
  }

private:
  void buildSymbolTable() {
    for (size_t u = 0; u < program_.cxxUnits.size(); ++u)
      for (const cxx::Signature &sig : program_.cxxUnits[u].signatures) {
        SymbolEntry entry{sig.isKernel ? SymbolKind::Kernel : SymbolKind::Function, nullptr, nullptr, &sig, u, true};
        auto [it, inserted] = program_.symbols.try_emplace(sig.name, entry);
        if (!inserted)
          diags_.report(diag::DiagId::LinkDuplicateDefinition, sig.location)
              .arg("name", sig.name)
              .note(it->second.location(), "the other definition is here");
      }
    for (const loom::OwningModule &module : program_.modules) {
      for (const Operation &op : module->body()) {
        std::string_view name = op.symbolName();
        SymbolKind kind = symbolKind(op);
        if (name.empty() || kind == SymbolKind::Target) continue;  // target records are per module
        if (kind == SymbolKind::Config) {
          (op.opcode() == loom::OpCode::ConfigDef ? configDefs_ : configDecls_).emplace(std::string(name), &op);
          if (op.opcode() == loom::OpCode::ConfigDecl) continue;
        }
        auto [it, inserted] = program_.symbols.try_emplace(std::string(name));
        SymbolEntry entry{kind, &op, module.get(), nullptr, 0, isDefinition(op)};
        if (inserted) {
          it->second = entry;
        } else if (entry.isDefinition && it->second.isDefinition) {
          diags_.report(diag::DiagId::LinkDuplicateDefinition, op.loc())
              .arg("name", std::string(name))
              .note(it->second.location(), "the other definition is here");
        } else if (entry.isDefinition) {
          it->second = entry;  // a definition replaces a declaration
        }
      }
    }
  }

  bool selectExports() {
    const std::string &wanted = request_.specialization.symbol;
    if (!wanted.empty() && !validKey(wanted)) {
      diags_.report(diag::DiagId::LinkConfigBadKey, {}).arg("key", wanted);
      return false;
    }
    std::string available;
    for (const loom::OwningModule &module : program_.modules)
      for (const Operation &op : module->body()) {
        if (!isExport(op)) continue;
        std::string_view name = op.symbolName();
        available += (available.empty() ? "; exports: @" : ", @") + std::string(name);
        if (!wanted.empty() && name != wanted) continue;
        // Target records of other toolchains (vm.target, x86.target, wasm.target) verify; hrxcc
        // cannot produce code for them.
        if (const loom::Attribute *target = op.attr("target")) {
          const Operation *record = nullptr;
          for (const loom::OwningModule &m : program_.modules)
            if (!record) record = m->lookupSymbol(target->str());
          if (record &&
              (record->opcode() == loom::OpCode::VmTarget || record->opcode() == loom::OpCode::X86Target ||
               record->opcode() == loom::OpCode::WasmTarget || record->opcode() == loom::OpCode::LlvmirTarget ||
               record->opcode() == loom::OpCode::TestTarget)) {
            diags_.report(diag::DiagId::LinkUnsupportedOp, op.loc())
                .arg("op", std::string(op.name()))
                .arg("target", "@" + std::string(target->str()) + " (a " + std::string(record->name()) + ")")
                .arg("reason", "hrxcc has no code generator for this target")
                .note(record->loc(), "target record defined here");
            failedExport_ = true;
            continue;
          }
        }
        program_.exports.push_back(&op);
      }
    // C/C++ kernels are exports where kernels run: the AMDGPU targets and the host device.
    bool kernelTarget = std::any_of(request_.targets.begin(), request_.targets.end(),
                                    [](const Target &t) { return t.info && t.info->runsCxxKernels; });
    for (const cxx::ImportedUnit &unit : program_.cxxUnits)
      for (const cxx::Signature &sig : unit.signatures) {
        if (!sig.isKernel || !kernelTarget) continue;
        available += (available.empty() ? "; exports: " : ", ") + sig.symbol;
        if (wanted.empty() || sig.name == wanted || sig.symbol == wanted) program_.cxxKernels.push_back(&sig);
      }
    if (failedExport_) return false;
    if (!program_.exports.empty() || !program_.cxxKernels.empty()) return true;
    // HIP units of device functions only (a device library) give a code object without
    // kernels, as clang -x hip --cuda-device-only does.
    bool hipLibrary = wanted.empty() && program_.modules.empty() && !program_.cxxSources.empty() &&
                      std::all_of(program_.cxxSources.begin(), program_.cxxSources.end(),
                                  [](const CxxSource &s) { return s.language == CxxSource::Language::Hip; }) &&
                      std::all_of(request_.targets.begin(), request_.targets.end(),
                                  [](const Target &t) { return t.info && t.info->hipDeviceLibraries; });
    if (hipLibrary) return true;
    if (wanted.empty())
      diags_.report(diag::DiagId::LinkNoExports, {});
    else
      diags_.report(diag::DiagId::LinkUnknownExport, {}).arg("name", wanted).arg("available", available);
    return false;
  }

  // Walks the exports (and `retain`ed definitions), resolving every symbol use.
  void computeReachable() {
    std::vector<const Operation *> work(program_.exports.begin(), program_.exports.end());
    for (const loom::OwningModule &module : program_.modules)
      for (const Operation &op : module->body())
        if (op.hasAttr("retain") && isDefinition(op) && symbolKind(op) != SymbolKind::Config) work.push_back(&op);
    std::set<const Operation *> seen;
    while (!work.empty()) {
      const Operation *root = work.back();
      work.pop_back();
      if (!seen.insert(root).second) continue;
      root->walk([&](const Operation &op) {
        if (&op == root) return;
        if (const Operation *callee = resolveUse(op)) work.push_back(callee);
        // Every provider a template.apply / func.apply may specialise to (chosen per target).
        if (op.opcode() == loom::OpCode::TemplateApply || op.opcode() == loom::OpCode::FuncApply)
          for (const Operation *provider : ir::providerCandidates(program_, op)) work.push_back(provider);
      });
    }
    for (const loom::OwningModule &module : program_.modules)
      for (const Operation &op : module->body())
        if (seen.count(&op)) program_.reachable.push_back(&op);
  }

  // The definition a symbol-using op refers to (null for config reads and after errors).
  const Operation *resolveUse(const Operation &op) {
    using loom::OpCode;
    OpCode n = op.opcode();
    SymbolKind expected;
    if (n == OpCode::PipelineStage || n == OpCode::PipelineReduce || n == OpCode::FuncCall || n == OpCode::FuncAddress)
      expected = SymbolKind::Function;
    else if (n == OpCode::ConfigGet) {
      configReads_.emplace(std::string(ir::symbolRef(op)), &op);
      return nullptr;
    } else
      return nullptr;
    std::string name(ir::symbolRef(op));
    const SymbolEntry *entry = program_.lookup(name);
    if (!entry || !entry->isDefinition) {
      auto builder = diags_.report(diag::DiagId::LinkUndefinedSymbol, op.loc());
      builder.arg("name", name);
      if (entry) builder.note(entry->location(), "declared here, but no input defines it");
      return nullptr;
    }
    if (entry->kind != expected) {
      diags_.report(diag::DiagId::LinkSymbolKindMismatch, op.loc())
          .arg("name", name)
          .arg("kind", kindName(entry->kind))
          .arg("expected", kindName(expected))
          .note(entry->location(), "defined here");
      return nullptr;
    }
    if (entry->cxx) {
      checkCxxSignature(op, *entry, name);
      return nullptr;  // C/C++ definitions are linked whole
    }
    if (n != OpCode::FuncAddress) checkSignature(op, *entry, name);  // an address: checked by the verifier
    return entry->op;
  }

  // Record buffers a stage/reduce callee receives per firing: a reduce gathers each partial flow
  // from every lane of its source group (loom-language §5.10), then the target-side inputs, then
  // the outputs.
  size_t stageRecordCount(const Operation &use) const {
    size_t partialLanes = 1;
    if (const Value *group = use.operandNamed("source_group"))
      if (const Operation *create = group->definingOp(); create && create->opcode() == loom::OpCode::GroupCreate)
        if (std::optional<int64_t> lanes = program_.evaluateInteger(create->operand(0)); lanes && *lanes > 0)
          partialLanes = size_t(*lanes);
    return use.numResults() + use.operandGroup("partials").size() * partialLanes + use.operandGroup("inputs").size();
  }

  void checkSignature(const Operation &use, const SymbolEntry &callee, const std::string &name) {
    std::vector<const loom::Type *> params = ir::signatureTypes(*callee.op, 0);
    std::string detail;
    if (use.opcode() == loom::OpCode::FuncCall) {
      std::span<Value *const> args = use.operands();
      std::vector<const loom::Type *> results = ir::functionResultTypes(*callee.op);
      if (args.size() != params.size())
        detail = "passes " + std::to_string(args.size()) + " argument(s), the definition takes " +
                 std::to_string(params.size());
      // A parameter typed by an earlier parameter (vector<[%width]xf32>) is instantiated per
      // call: its shape is the caller's, so only the kind and element type must agree.
      // A declared type may name a parameter or a named result (`view<..., %storage>`), which the
      // use binds to its own value; the verifier checked that binding.
      auto compatible = [](const loom::Type *arg, const loom::Type *param) {
        if (ir::sameType(arg, param)) return true;
        if (!param->isShaped() || arg->kind() != param->kind() || arg->rank() != param->rank() ||
            !ir::sameType(arg->elementType(), param->elementType()))
          return false;
        if (!param->hasStaticShape()) return true;
        loom::TypeSlot a = arg->slot(), p = param->slot();
        for (size_t d = 0; d < arg->rank(); ++d)
          if (!arg->shape()[d].isStatic() || arg->shape()[d].extent != param->shape()[d].extent) return false;
        return a.attr == p.attr && bool(a.value) == bool(p.value) && p.value && !p.value->definingOp();
      };
      for (size_t i = 0; detail.empty() && i < args.size(); ++i)
        if (!compatible(args[i]->type(), params[i]))
          detail = "argument " + std::to_string(i) + " has type " + args[i]->type()->str() +
                   ", the definition expects " + params[i]->str();
      if (detail.empty() && use.numResults() != results.size())
        detail = "expects " + std::to_string(use.numResults()) + " result(s), the definition returns " +
                 std::to_string(results.size());
      for (size_t i = 0; detail.empty() && i < results.size(); ++i)
        if (!compatible(use.result(i)->type(), results[i]))
          detail = "result " + std::to_string(i) + " has type " + use.result(i)->type()->str() +
                   ", the definition returns " + results[i]->str();
    } else {
      // A stage/reduce callee takes one record buffer per input flow (and partial), then one per
      // output flow.
      size_t records = stageRecordCount(use);
      if (params.size() != records)
        detail = "the " + std::string(use.name()) + " passes " + std::to_string(records) +
                 " record buffer(s), the function takes " + std::to_string(params.size()) + " argument(s)";
      for (size_t i = 0; detail.empty() && i < params.size(); ++i)
        if (params[i]->kind() != loom::TypeKind::Buffer)
          detail = "argument " + std::to_string(i) + " of a stage function must be a buffer, not " + params[i]->str();
      if (detail.empty() && !ir::functionResultTypes(*callee.op).empty()) detail = "a stage function returns no values";
    }
    if (!detail.empty())
      diags_.report(diag::DiagId::LinkSignatureMismatch, use.loc())
          .arg("name", name)
          .arg("detail", detail)
          .note(callee.op->loc(), "defined here");
  }

  // Loom types against a C/C++ signature: buffer ↔ pointer, vector<NxT> ↔ an N-lane GCC vector
  // of the same bytes, scalars ↔ scalars of the same width and kind.
  static bool scalarMatches(const loom::Type &t, const cxx::ElementType &e) {
    if (t.isAddress())
      return (e.kind == cxx::ScalarKind::SignedInt || e.kind == cxx::ScalarKind::UnsignedInt) && e.bits == 64;
    if (t.isInteger(1)) return e.kind == cxx::ScalarKind::Bool;
    if (t.isInteger())
      return (e.kind == cxx::ScalarKind::SignedInt || e.kind == cxx::ScalarKind::UnsignedInt) && e.bits == t.width();
    if (t.isFloat() && t.floatKind() == loom::FloatKind::BF16) return e.kind == cxx::ScalarKind::BFloat;
    if (t.isFloat()) return e.kind == cxx::ScalarKind::Float && e.bits == t.width();
    return false;
  }

  // A stage worker's record pointer against the flow it is bound to: the pointee is the
  // record's element type (or a vector of it, or the whole record), `const` exactly on inputs.
  static std::string recordMismatch(const cxx::Parameter &param, const loom::Type *flowType, bool input) {
    const cxx::ValueType &c = param.type;
    std::string given = "parameter '" + param.name + "' is '" + c.spelling + "'";
    const loom::Type *tile = flowType ? flowType->elementType() : nullptr;
    const loom::Type *element = tile ? tile->elementType() : nullptr;
    int64_t count = tile ? tile->staticElementCount() : -1;
    if (!element || count <= 0) return "";  // the pipeline extraction reports unshaped records
    uint64_t elementBytes = ir::elementBytes(*element), recordBytes = uint64_t(count) * elementBytes;
    std::string records = "its " + std::string(input ? "input" : "output") + " records are " + tile->str() + " (" +
                          std::to_string(recordBytes) + " bytes of " + element->str() + ")";
    if (input && !c.pointeeConst)
      return given + ", but " + records + ": declare it const (a worker reads its input records and never writes them)";
    if (!input && c.pointeeConst)
      return given + ", but " + records + ": the worker writes its output records, so the pointee cannot be const";
    if (c.pointeeBytes == 0) return "";  // void *: the worker reinterprets the bytes itself
    bool elementWise = c.lanes == 0 && c.pointeeBytes == elementBytes && scalarMatches(*element, c.element);
    bool vectorWise = c.lanes > 0 && recordBytes % c.pointeeBytes == 0 && scalarMatches(*element, c.element);
    bool wholeRecord = c.pointeeBytes == recordBytes &&
                       (c.element.kind == cxx::ScalarKind::Void || scalarMatches(*element, c.element));
    if (elementWise || vectorWise || wholeRecord) return "";
    std::string pointee = c.element.kind == cxx::ScalarKind::Void
                              ? std::to_string(c.pointeeBytes) + "-byte"
                              : c.element.name() + (c.lanes ? " x" + std::to_string(c.lanes) : "");
    return given + " (" + pointee + " elements), but " + records;
  }

  static std::string cxxMismatch(const loom::Type &loomType, const cxx::ValueType &c) {
    using Kind = cxx::ValueType::Kind;
    std::string expected = "'" + c.spelling + "'";
    switch (loomType.kind()) {
    case loom::TypeKind::Buffer: return c.kind == Kind::Pointer ? "" : "a buffer needs a pointer, not " + expected;
    case loom::TypeKind::Vector: {
      int64_t lanes = loomType.staticElementCount();
      uint64_t bytes = uint64_t(lanes) * ir::elementBytes(*loomType.elementType());
      if (c.kind == Kind::Vector && int64_t(c.lanes) == lanes && c.bytes == bytes &&
          scalarMatches(*loomType.elementType(), c.element))
        return "";
      return loomType.str() + " needs a " + std::to_string(bytes) + "-byte vector of " + std::to_string(lanes) +
             " lanes, not " + expected;
    }
    default:
      if (c.kind == Kind::Scalar && scalarMatches(loomType, c.element)) return "";
      return loomType.str() + " does not match " + expected;
    }
  }

  void checkCxxSignature(const Operation &use, const SymbolEntry &callee, const std::string &name) {
    const cxx::Signature &sig = *callee.cxx;
    std::string detail;
    if (use.opcode() == loom::OpCode::FuncCall) {
      std::span<Value *const> args = use.operands();
      if (args.size() != sig.params.size())
        detail = "passes " + std::to_string(args.size()) + " argument(s), the C/C++ function takes " +
                 std::to_string(sig.params.size());
      for (size_t i = 0; detail.empty() && i < args.size(); ++i)
        if (std::string m = cxxMismatch(*args[i]->type(), sig.params[i].type); !m.empty())
          detail = "argument " + std::to_string(i) + ": " + m;
      bool returnsValue = sig.result.kind != cxx::ValueType::Kind::Void;
      if (detail.empty() && use.numResults() != (returnsValue ? 1u : 0u))
        detail = "expects " + std::to_string(use.numResults()) + " result(s), the C/C++ function returns '" +
                 sig.result.spelling + "'";
      if (detail.empty() && returnsValue)
        if (std::string m = cxxMismatch(*use.result(0)->type(), sig.result); !m.empty()) detail = "result: " + m;
    } else {
      size_t records = stageRecordCount(use);
      if (sig.params.size() != records)
        detail = "the " + std::string(use.name()) + " passes " + std::to_string(records) +
                 " record pointer(s), the C/C++ function takes " + std::to_string(sig.params.size()) + " parameter(s)";
      for (size_t i = 0; detail.empty() && i < sig.params.size(); ++i)
        if (sig.params[i].type.kind != cxx::ValueType::Kind::Pointer)
          detail = "parameter '" + sig.params[i].name + "' of a stage function must be a pointer, not '" +
                   sig.params[i].type.spelling + "'";
      if (detail.empty() && sig.result.kind != cxx::ValueType::Kind::Void) detail = "a stage function returns void";
      // The record types the stage passes, in parameter order: partials (once per source
      // lane), inputs, then outputs.
      std::vector<std::pair<const loom::Type *, bool>> flows;
      size_t partials = use.operandGroup("partials").size();
      size_t partialLanes = partials ? (records - use.operandGroup("inputs").size() - use.numResults()) / partials : 0;
      for (const Value *partial : use.operandGroup("partials"))
        for (size_t lane = 0; lane < partialLanes; ++lane) flows.push_back({partial->type(), true});
      for (const Value *in : use.operandGroup("inputs")) flows.push_back({in->type(), true});
      for (const Value &out : use.results()) flows.push_back({out.type(), false});
      for (size_t i = 0; detail.empty() && i < sig.params.size() && i < flows.size(); ++i)
        detail = recordMismatch(sig.params[i], flows[i].first, flows[i].second);
    }
    if (!detail.empty())
      diags_.report(diag::DiagId::LinkSignatureMismatch, use.loc())
          .arg("name", name)
          .arg("detail", detail)
          .note(sig.location, "defined here");
  }

  bool bindConfiguration() {
    const std::map<std::string, std::string> &bindings = request_.specialization.config;
    for (const auto &[key, value] : bindings)
      if (!validKey(key)) diags_.report(diag::DiagId::LinkConfigBadKey, {}).arg("key", key);
    std::vector<std::string> missing;
    const Operation *firstMissingUse = nullptr;
    for (const auto &[key, use] : configReads_) {
      auto def = configDefs_.find(key);
      auto decl = configDecls_.find(key);
      auto bound = bindings.find(key);
      if (def == configDefs_.end() && decl == configDecls_.end()) {
        diags_.report(diag::DiagId::LinkUndefinedSymbol, use->loc()).arg("name", key);
        continue;
      }
      const Operation *declOp = decl != configDecls_.end() ? decl->second : def->second;
      const loom::Type *type = use->result(0)->type();
      ConfigValue value;
      value.type = type;
      if (def != configDefs_.end() && bound != bindings.end()) {
        diags_.report(diag::DiagId::LinkConfigTwice, use->loc())
            .arg("key", key)
            .note(def->second->loc(), "defined here");
        continue;
      }
      if (def != configDefs_.end()) {
        if (!ir::attributeValue(def->second->attr("value"), value)) {
          diags_.report(diag::DiagId::LinkUnsupportedOp, def->second->loc())
              .arg("op", "config.def")
              .arg("target", "any target")
              .arg("reason", "only integer, boolean and float values can be bound");
          continue;
        }
      } else if (bound == bindings.end()) {
        missing.push_back(key);
        if (!firstMissingUse) firstMissingUse = use;
        continue;
      } else if (!parseValue(bound->second, value)) {
        diags_.report(diag::DiagId::LinkConfigBadValue, use->loc())
            .arg("key", key)
            .arg("value", bound->second)
            .arg("type", type->str())
            .note(declOp->loc(), "declared here");
        continue;
      }
      checkPredicates(key, value, *declOp);
      program_.config.emplace(key, value);
    }
    if (!missing.empty()) {
      std::string keys;
      for (const std::string &k : missing) keys += (keys.empty() ? "" : ", ") + k;
      diags_.report(diag::DiagId::LinkUnboundConfig, firstMissingUse->loc()).arg("keys", keys);
    }
    for (const auto &[key, value] : bindings)
      if (!configReads_.count(key)) diags_.report(diag::DiagId::LinkConfigUnused, {}).arg("key", key);
    return !failed();
  }

  static bool parseValue(const std::string &text, ConfigValue &value) {
    value.spelling = text;
    const loom::Type &type = *value.type;
    if (type.isFloat()) {
      errno = 0;
      char *end = nullptr;
      value.floating = std::strtod(text.c_str(), &end);
      value.isFloat = true;
      return !text.empty() && *end == '\0' && errno == 0;
    }
    if (type.isInteger(1)) {
      if (text == "true" || text == "1") return value.integer = 1, true;
      if (text == "false" || text == "0") return value.integer = 0, true;
      return false;
    }
    if (!type.isAddress() && !type.isInteger()) return false;
    errno = 0;
    char *end = nullptr;
    long long parsed = std::strtoll(text.c_str(), &end, 0);
    if (text.empty() || *end != '\0' || errno != 0) return false;
    if (type.isOffset() && parsed < 0) return false;
    if (type.isInteger() && type.width() < 64) {
      long long lo = -(1ll << (type.width() - 1)), hi = (1ll << type.width()) - 1;
      if (parsed < lo || parsed > hi) return false;
    }
    value.integer = parsed;
    return true;
  }

  void checkPredicates(const std::string &key, const ConfigValue &value, const Operation &decl) {
    for (const loom::Attribute *predicate : ir::predicates(decl)) {
      std::optional<bool> holds = ir::evaluatePredicate(*predicate, value);
      if (!holds || *holds) continue;
      diags_.report(diag::DiagId::LinkConfigPredicate, decl.loc())
          .arg("key", key)
          .arg("value", value.spelling)
          .arg("predicate", ir::predicateText(*predicate));
    }
  }

  bool failed() const { return diags_.errorCount() != errorsAtStart_; }

  Program &program_;
  const CompileRequest &request_;
  diag::DiagnosticEngine &diags_;
  unsigned errorsAtStart_ = diags_.errorCount();
  std::map<std::string, const Operation *> configDecls_, configDefs_;
  bool failedExport_ = false;                             // an export named a target record hrxcc cannot compile for
  std::map<std::string, const Operation *> configReads_;  // key → first reachable read
};

}  // namespace

namespace {

cxx::CxxUnit cxxUnitOf(const CxxSource &source) {
  cxx::CxxUnit unit{source.name,
                    source.text,
                    source.language == CxxSource::Language::C     ? cxx::Language::C
                    : source.language == CxxSource::Language::Cxx ? cxx::Language::Cxx
                    : source.language == CxxSource::Language::Hip ? cxx::Language::Hip
                                                                  : cxx::Language::Auto,
                    source.standard,
                    source.headers,
                    source.includeDirs,
                    source.defines};
  unit.directory = source.directory;
  unit.preincludes = source.preincludes;
  unit.hostHeaders = source.hostHeaders;
  unit.fastMath = source.fastMath;
  return unit;
}

std::optional<cxx::ImportTarget> importTarget(const Target &target) {
  std::unique_ptr<TargetBackend> backend = createBackend(target);
  return backend ? backend->cxxImportTarget(target) : std::nullopt;
}

}  // namespace

bool importCxxUnits(Program &program, const std::vector<CxxSource> &cxx, const CompileRequest &request,
                    diag::DiagnosticEngine &diags, bool retargeted,
                    std::vector<std::vector<cxx::FunctionBody>> *bodies) {
  unsigned errors = diags.errorCount();
  program.cxxSources = cxx;
  program.cxxTarget = request.targets.front();
  if (!cxx.empty()) {
    program.cxxContext = std::make_unique<llvm::LLVMContext>();
    cxx::ImportOptions options;
    options.optLevel = request.options.optLevel;
    options.debugInfo = request.options.debugInfo;
    options.hostCpu = request.options.hostCpu;
    options.requireDefinedCalls = false;  // resolved across units by the link
    options.clangWarnings = !retargeted;
    options.computeIdentity = false;  // the bridge identifies artifacts by their outputs
    cxx::CxxImporter importer(options);
    std::optional<cxx::ImportTarget> target = importTarget(request.targets.front());
    if (!target) {
      diags.report(diag::DiagId::LinkNotImplemented, {})
          .arg("what", "C/C++ sources for target '" + request.targets.front().name() + "'");
      return false;
    }
    if (bodies) bodies->assign(cxx.size(), {});
    for (size_t i = 0; i < cxx.size(); ++i) {
      cxx::CxxUnit unit = cxxUnitOf(cxx[i]);
      if (bodies) unit.functionBodies = &(*bodies)[i];
      if (std::optional<cxx::ImportedUnit> imported = importer.import(unit, *target, *program.cxxContext, diags)) {
        // Clang's per-unit HIP marker (__hip_cuid_<hash>) is the same name in every unit of
        // one command; the units link into one module, so each keeps its own.
        for (llvm::GlobalVariable &global : imported->module->globals())
          if (global.getName().starts_with("__hip_cuid_")) global.setLinkage(llvm::GlobalValue::InternalLinkage);
        program.cxxUnits.push_back(std::move(*imported));
      }
    }
  }
  // Calls between C/C++ units resolve against every unit's exports and its other external
  // definitions (a HIP device library's C++ __device__ functions, as -fgpu-rdc links them).
  std::set<std::string> defined;
  for (const cxx::ImportedUnit &unit : program.cxxUnits) {
    for (const cxx::Signature &sig : unit.signatures) defined.insert(sig.symbol);
    if (unit.module)
      for (const llvm::Function &function : *unit.module)
        if (!function.isDeclaration() && !function.hasLocalLinkage()) defined.insert(function.getName().str());
  }
  for (const cxx::ImportedUnit &unit : program.cxxUnits)
    for (const cxx::ExternalCall &call : unit.externalCalls)
      if (!defined.count(call.symbol))
        diags.report(diag::DiagId::CxxUndefinedFunction, call.location).arg("name", call.name);
  return diags.errorCount() == errors;
}

std::optional<std::string> preprocessCxx(const CxxSource &source, const Target &target, const CompilerOptions &options,
                                         diag::DiagnosticEngine &diags, std::vector<std::string> *filesRead) {
  std::optional<cxx::ImportTarget> imported = importTarget(target);
  if (!imported) {
    diags.report(diag::DiagId::LinkNotImplemented, {}).arg("what", "C/C++ sources for target '" + target.name() + "'");
    return std::nullopt;
  }
  cxx::ImportOptions importOptions;
  importOptions.optLevel = options.optLevel;
  importOptions.debugInfo = options.debugInfo;
  importOptions.hostCpu = options.hostCpu;
  return cxx::CxxImporter(importOptions).preprocess(cxxUnitOf(source), *imported, diags, filesRead);
}

std::unique_ptr<Program> retargetCxx(const Program &program, const Target &target, const CompilerOptions &options,
                                     diag::DiagnosticEngine &diags, const std::vector<CxxSource> *sources,
                                     std::vector<std::vector<cxx::FunctionBody>> *bodies) {
  auto twin = std::make_unique<Program>();
  CompileRequest request;
  request.targets = {target};
  request.options = options;
  if (!importCxxUnits(*twin, sources ? *sources : program.cxxSources, request, diags, /*retargeted=*/true, bodies))
    return nullptr;
  // The new units' signatures replace the old ones, found by unit and source name; a definition
  // the other target's preprocessing leaves out is reported once.
  std::map<const cxx::Signature *, const cxx::Signature *> found;
  auto counterpart = [&](const cxx::Signature &old) -> const cxx::Signature * {
    auto [it, inserted] = found.try_emplace(&old, nullptr);
    if (!inserted) return it->second;
    for (size_t u = 0; u < program.cxxUnits.size(); ++u)
      for (const cxx::Signature &sig : program.cxxUnits[u].signatures)
        if (&sig == &old)
          for (const cxx::Signature &candidate : twin->cxxUnits[u].signatures)
            if (candidate.name == old.name && candidate.isKernel == old.isKernel) return it->second = &candidate;
    diags.report(diag::DiagId::LinkUndefinedSymbol, old.location)
        .arg("name", old.name)
        .note(old.location, "defined when the unit is compiled for " + program.cxxTarget.name() + " but not for " +
                                target.name() + " (its preprocessing leaves it out)");
    return nullptr;
  };
  unsigned errors = diags.errorCount();
  twin->symbols = program.symbols;
  for (auto &[name, entry] : twin->symbols)
    if (entry.cxx) entry.cxx = counterpart(*entry.cxx);
  for (const cxx::Signature *kernel : program.cxxKernels) twin->cxxKernels.push_back(counterpart(*kernel));
  if (diags.errorCount() != errors) return nullptr;
  twin->exports = program.exports;
  twin->contracts = program.contracts;
  twin->reachable = program.reachable;
  twin->config = program.config;
  return twin;
}

const Program *programForTarget(const Program &program, const Target &target, const CompilerOptions &options,
                                std::unique_ptr<Program> &storage, diag::DiagnosticEngine &diags) {
  if (program.cxxSources.empty() || program.cxxTarget == target) return &program;
  storage = retargetCxx(program, target, options, diags);
  return storage.get();
}

std::unique_ptr<Program> buildProgram(std::vector<loom::OwningModule> modules, const std::vector<CxxSource> &cxx,
                                      const CompileRequest &request, diag::DiagnosticEngine &diags) {
  auto program = std::make_unique<Program>();
  program->modules = std::move(modules);
  unsigned errors = diags.errorCount();
  if (!importCxxUnits(*program, cxx, request, diags)) return nullptr;
  ProgramBuilder builder(*program, request, diags);
  if (!builder.run() || diags.errorCount() != errors) return nullptr;
  return program;
}

}  // namespace hrx::bridge
