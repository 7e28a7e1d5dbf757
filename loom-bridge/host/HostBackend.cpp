// The host target: Loom stage functions and kernels as an x86-64 shared object with the
// entry points of runtime/include/hrx/format/HostAbi.h.
#include "hrx/bridge/HostCode.h"
#include "hrx/bridge/IrQueries.h"
#include "hrx/bridge/Lowering.h"
#include "hrx/bridge/TargetBackend.h"
#include "hrx/format/HostAbi.h"

#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/raw_ostream.h>

#include <cstddef>
#include <set>

namespace hrx::bridge {
namespace {

// hrx_host_dispatch field offsets (HostAbi.h), checked against the C definition.
constexpr unsigned kWorkgroupIdOffset = offsetof(hrx_host_dispatch, workgroup_id);
constexpr unsigned kWorkgroupSizeOffset = offsetof(hrx_host_dispatch, workgroup_size);
constexpr unsigned kWorkgroupCountOffset = offsetof(hrx_host_dispatch, workgroup_count);
constexpr unsigned kArgsOffset = offsetof(hrx_host_dispatch, args);

// The dispatch is the runtime's own record, never inside a buffer: marking it noalias, readonly
// and dereferenceable lets its fields be loaded once per workgroup instead of once per item.
void markDispatchParameter(llvm::Function &f) {
  llvm::Argument *dispatch = f.getArg(0);
  dispatch->addAttr(llvm::Attribute::NoAlias);
  dispatch->addAttr(llvm::Attribute::ReadOnly);
  dispatch->addAttr(llvm::Attribute::getWithAlignment(f.getContext(), llvm::Align(alignof(hrx_host_dispatch))));
  dispatch->addAttr(llvm::Attribute::getWithDereferenceableBytes(f.getContext(), sizeof(hrx_host_dispatch)));
}

llvm::Value *loadDispatchField(llvm::IRBuilder<> &b, llvm::Value *dispatch, unsigned offset, unsigned dim) {
  llvm::Value *address = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), dispatch, offset + 4 * dim);
  return b.CreateZExt(b.CreateAlignedLoad(b.getInt32Ty(), address, llvm::Align(4)), b.getInt64Ty());
}

// Work-item functions take (dispatch, x, y, z); group coordinates come from the dispatch.
class HostCoordinates final : public KernelCoordinates {
public:
  std::vector<llvm::Type *> leadingParameters(llvm::LLVMContext &context) const override {
    llvm::Type *i64 = llvm::Type::getInt64Ty(context);
    return {llvm::PointerType::getUnqual(context), i64, i64, i64};
  }
  llvm::Value *coordinate(llvm::IRBuilder<> &b, llvm::Function &f, std::string_view kind,
                          unsigned dim) const override {
    llvm::Value *dispatch = f.getArg(0);
    if (kind == "workitem.id") return f.getArg(1 + dim);
    if (kind == "workgroup.id") return loadDispatchField(b, dispatch, kWorkgroupIdOffset, dim);
    if (kind == "workgroup.size") return loadDispatchField(b, dispatch, kWorkgroupSizeOffset, dim);
    if (kind == "workgroup.count") return loadDispatchField(b, dispatch, kWorkgroupCountOffset, dim);
    if (kind == "workitem.dispatch.id")
      return b.CreateAdd(b.CreateMul(loadDispatchField(b, dispatch, kWorkgroupIdOffset, dim),
                                     loadDispatchField(b, dispatch, kWorkgroupSizeOffset, dim)),
                         f.getArg(1 + dim));
    return nullptr;
  }
};

// Emits `for (i = 0; i < count; ++i) body(i)` at the builder's position.
void emitLoop(llvm::IRBuilder<> &b, llvm::Value *count, const char *name,
              const std::function<void(llvm::Value *)> &body) {
  llvm::Function *f = b.GetInsertBlock()->getParent();
  llvm::LLVMContext &context = f->getContext();
  llvm::BasicBlock *preheader = b.GetInsertBlock();
  llvm::BasicBlock *header = llvm::BasicBlock::Create(context, std::string(name) + ".header", f);
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(context, std::string(name) + ".body", f);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(context, std::string(name) + ".exit", f);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode *i = b.CreatePHI(b.getInt64Ty(), 2, name);
  i->addIncoming(b.getInt64(0), preheader);
  b.CreateCondBr(b.CreateICmpULT(i, count), loop, exit);
  b.SetInsertPoint(loop);
  body(i);
  i->addIncoming(b.CreateAdd(i, b.getInt64(1), "", true, true), b.GetInsertBlock());
  b.CreateBr(header);
  b.SetInsertPoint(exit);
}

llvm::Function *entryPoint(llvm::Module &module, const std::string &name, std::vector<llvm::Type *> params) {
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(module.getContext()), params, false);
  return llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module);
}

// "hrx.stage.<sym>"(void *const *records): one record pointer per buffer argument.
void emitStage(llvm::Module &module, llvm::Function &callee, const std::string &symbol) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(context);
  llvm::Function *entry = entryPoint(module, HRX_HOST_STAGE_PREFIX + symbol, {ptr});
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  std::vector<llvm::Value *> args;
  for (unsigned i = 0; i < callee.arg_size(); ++i)
    args.push_back(b.CreateAlignedLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, entry->getArg(0), i), llvm::Align(8)));
  b.CreateCall(&callee, args);
  b.CreateRetVoid();
}

// "hrx.kernel.<sym>"(const hrx_host_dispatch *): every work-item of one workgroup, as loops.
void emitKernel(llvm::Module &module, llvm::Function &item, size_t launchArgs, const std::string &symbol) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(context);
  llvm::Function *entry = entryPoint(module, HRX_HOST_KERNEL_PREFIX + symbol, {ptr});
  markDispatchParameter(*entry);
  markDispatchParameter(item);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  llvm::Value *dispatch = entry->getArg(0);
  llvm::Value *argv = b.CreateAlignedLoad(ptr, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), dispatch, kArgsOffset), llvm::Align(8));
  std::vector<llvm::Value *> args = {dispatch, nullptr, nullptr, nullptr};
  const size_t leading = args.size();
  for (size_t i = 0; i < launchArgs; ++i) {
    llvm::Value *slot = b.CreateAlignedLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, argv, i), llvm::Align(8));
    llvm::Type *type = item.getArg(unsigned(leading + i))->getType();
    // A buffer is its base pointer; a scalar is a pointer to its value.
    args.push_back(type->isPointerTy() ? slot : b.CreateLoad(type, slot));
  }
  llvm::Value *sizes[3];
  for (unsigned d = 0; d < 3; ++d) sizes[d] = loadDispatchField(b, dispatch, kWorkgroupSizeOffset, d);
  emitLoop(b, sizes[2], "z", [&](llvm::Value *z) {
    emitLoop(b, sizes[1], "y", [&](llvm::Value *y) {
      emitLoop(b, sizes[0], "x", [&](llvm::Value *x) {
        args[1] = x, args[2] = y, args[3] = z;
        b.CreateCall(&item, args);
      });
    });
  });
  b.CreateRetVoid();
}

// "hrx.kernel.<sym>" for a kernel with barriers: each phase runs over every work-item before the
// next phase starts; values crossing a barrier live in a per-item spill area, workgroup
// allocations in storage shared by the whole workgroup.
void emitPhasedKernel(llvm::Module &module, const Lowering::KernelPhases &plan, size_t launchArgs, const std::string &symbol) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(context);
  llvm::Function *entry = entryPoint(module, HRX_HOST_KERNEL_PREFIX + symbol, {ptr});
  markDispatchParameter(*entry);
  for (llvm::Function *phase : plan.phases) markDispatchParameter(*phase);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  llvm::Value *dispatch = entry->getArg(0);
  llvm::Value *argv = b.CreateAlignedLoad(ptr, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), dispatch, kArgsOffset), llvm::Align(8));
  llvm::Value *sizes[3];
  for (unsigned d = 0; d < 3; ++d) sizes[d] = loadDispatchField(b, dispatch, kWorkgroupSizeOffset, d);
  llvm::Value *items = b.CreateMul(b.CreateMul(sizes[0], sizes[1]), sizes[2]);
  llvm::AllocaInst *spill = b.CreateAlloca(b.getInt8Ty(), b.CreateMul(items, b.getInt64(plan.spillBytes)));
  spill->setAlignment(llvm::Align(16));
  llvm::AllocaInst *shared = b.CreateAlloca(ptr, b.getInt64(std::max<size_t>(plan.sharedAllocations.size(), 1)));
  for (size_t i = 0; i < plan.sharedAllocations.size(); ++i) {
    llvm::AllocaInst *storage = b.CreateAlloca(llvm::ArrayType::get(b.getInt8Ty(), plan.sharedAllocations[i].first));
    storage->setAlignment(llvm::Align(plan.sharedAllocations[i].second));
    b.CreateAlignedStore(storage, b.CreateConstInBoundsGEP1_64(ptr, shared, i), llvm::Align(8));
  }
  std::vector<llvm::Value *> args = {dispatch, nullptr, nullptr, nullptr, spill, shared};
  const size_t leading = args.size();
  llvm::Function &first = *plan.phases.front();
  for (size_t i = 0; i < launchArgs; ++i) {
    llvm::Value *slot = b.CreateAlignedLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, argv, i), llvm::Align(8));
    llvm::Type *type = first.getArg(unsigned(leading + i))->getType();
    args.push_back(type->isPointerTy() ? slot : b.CreateLoad(type, slot));
  }
  for (size_t p = 0; p < plan.phases.size(); ++p) {
    llvm::Function *phase = plan.phases[p];
    for (const Lowering::WorkgroupCombine &combine : plan.combines)
      if (combine.beforePhase == p) b.CreateCall(combine.combine, {spill, items, shared});
    emitLoop(b, sizes[2], "z", [&](llvm::Value *z) {
      emitLoop(b, sizes[1], "y", [&](llvm::Value *y) {
        emitLoop(b, sizes[0], "x", [&](llvm::Value *x) {
          args[1] = x, args[2] = y, args[3] = z;
          b.CreateCall(phase, args);
        });
      });
    });
  }
  b.CreateRetVoid();
}

// "hrx.launch.<sym>"(const uint64_t *workload, uint32_t out[6]).
void emitLaunch(llvm::Module &module, llvm::Function &config, const std::string &symbol) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(context);
  llvm::Function *entry = entryPoint(module, HRX_HOST_LAUNCH_PREFIX + symbol, {ptr, ptr});
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  std::vector<llvm::Value *> args;
  for (unsigned i = 0; i < config.arg_size(); ++i) {
    llvm::Value *word = b.CreateAlignedLoad(b.getInt64Ty(), b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), entry->getArg(0), i), llvm::Align(8));
    llvm::Type *type = config.getArg(i)->getType();
    if (type->isIntegerTy())
      args.push_back(b.CreateTrunc(word, type));
    else
      args.push_back(b.CreateBitCast(b.CreateTrunc(word, b.getIntNTy(unsigned(type->getPrimitiveSizeInBits()))), type));
  }
  llvm::Value *result = b.CreateCall(&config, args);
  for (unsigned i = 0; i < 6; ++i)
    b.CreateAlignedStore(b.CreateTrunc(b.CreateExtractValue(result, i), b.getInt32Ty()),
                         b.CreateConstInBoundsGEP1_64(b.getInt32Ty(), entry->getArg(1), i), llvm::Align(4));
  b.CreateRetVoid();
}

bool isStageCandidate(const loom::Operation &def) {
  if (def.name() != "func.def" || !ir::functionResultTypes(def).empty()) return false;
  for (const loom::Type *t : ir::signatureTypes(def, 0))
    if (t->kind() != loom::TypeKind::Buffer) return false;
  return true;
}

void reportHostCodeError(const HostCodeError &error, diag::DiagnosticEngine &diags) {
  diags.report(error.inLinker ? diag::DiagId::LinkLinkerFailed : diag::DiagId::LinkCodegenFailed, {})
      .arg("target", "host")
      .arg("message", error.message);
}

}  // namespace

std::unique_ptr<llvm::Module> lowerForHost(const Program &program, llvm::LLVMContext &context,
                                           diag::DiagnosticEngine &diags) {
  const unsigned errorsAtStart = diags.errorCount();
  auto module = std::make_unique<llvm::Module>("hrx-host", context);
  module->setTargetTriple(llvm::Triple(kHostTriple));
  Lowering lowering(program, *module, diags, "the host target");
  // Stage functions: every callee of a reachable pipeline.stage/reduce, plus exported functions.
  std::set<std::string> stages;
  for (const loom::Operation *def : program.reachable)
    def->walk([&](const loom::Operation &op) {
      if (op.name() == "pipeline.stage" || op.name() == "pipeline.reduce") stages.insert(std::string(ir::symbolRef(op)));
    });
  for (const loom::Operation *def : program.exports)
    if (isStageCandidate(*def)) stages.insert(std::string(def->symbolName()));
  HostCoordinates coordinates;
  for (const loom::Operation *def : program.reachable) {
    std::string symbol(def->symbolName());
    if (def->name() == "func.def" && stages.count(symbol)) {
      if (llvm::Function *f = lowering.function(*def); f && !f->isDeclaration()) emitStage(*module, *f, symbol);
    } else if (def->name() == "kernel.def") {
      size_t launchArgs = ir::signatureTypes(*def, 1).size();
      if (Lowering::hasBarriers(*def)) {
        if (std::optional<Lowering::KernelPhases> plan = lowering.kernelPhases(*def, coordinates))
          emitPhasedKernel(*module, *plan, launchArgs, symbol);
      } else if (llvm::Function *item = lowering.kernelItem(*def, coordinates); item && !item->isDeclaration()) {
        emitKernel(*module, *item, launchArgs, symbol);
      }
      llvm::Function *config = lowering.kernelConfig(*def);
      if (config && !config->isDeclaration()) emitLaunch(*module, *config, symbol);
    }
  }
  // C/C++ stage functions: called through their C ABI, one pointer per record.
  for (const std::string &stage : stages) {
    const SymbolEntry *entry = program.lookup(stage);
    if (!entry || !entry->cxx) continue;
    std::vector<llvm::Type *> params(entry->cxx->params.size(), llvm::PointerType::getUnqual(context));
    llvm::FunctionCallee callee = module->getOrInsertFunction(
        entry->cxx->symbol, llvm::FunctionType::get(llvm::Type::getVoidTy(context), params, false));
    emitStage(*module, *llvm::cast<llvm::Function>(callee.getCallee()), stage);
  }
  for (const cxx::ImportedUnit &unit : program.cxxUnits)
    if (!unit.hostBuiltins.empty())
      diags.report(diag::DiagId::LinkNotImplemented, {}).arg("what", "C/C++ GPU kernels on the host target");
  for (std::unique_ptr<llvm::Module> &cxxModule : program.cxxModules(context))
    if (llvm::Linker::linkModules(*module, std::move(cxxModule)))
      diags.report(diag::DiagId::LinkCodegenFailed, {}).arg("target", "host").arg("message", "cannot link the C/C++ code");
  if (lowering.failed() || diags.errorCount() != errorsAtStart) return nullptr;
  return module;
}

std::optional<std::vector<uint8_t>> buildHostCode(const Program &program, const HostCodeOptions &options,
                                                  diag::DiagnosticEngine &diags) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = lowerForHost(program, context, diags);
  if (!module) return std::nullopt;
  auto so = hostSharedObject(*module, options);
  if (!so) {
    reportHostCodeError(so.error(), diags);
    return std::nullopt;
  }
  return std::move(*so);
}

namespace {

class HostBackend final : public TargetBackend {
public:
  TargetKind kind() const override { return TargetKind::Host; }

  std::optional<BackendOutput> emit(const BackendRequest &request, diag::DiagnosticEngine &diags) override {
    std::optional<std::vector<uint8_t>> bytes = emitBytes(request, diags);
    if (!bytes) return std::nullopt;
    return BackendOutput{std::move(*bytes), {}};
  }

private:
  std::optional<std::vector<uint8_t>> emitBytes(const BackendRequest &request, diag::DiagnosticEngine &diags) {
    HostCodeOptions options{request.options.hostCpu, request.options.optLevel};
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = lowerForHost(request.program, context, diags);
    if (!module) return std::nullopt;
    auto fail = [&](const std::string &message) -> std::optional<std::vector<uint8_t>> {
      diags.report(diag::DiagId::LinkCodegenFailed, {}).arg("target", "host").arg("message", message);
      return std::nullopt;
    };
    switch (request.emit) {
    case EmitKind::Llvm: {
      if (auto ok = optimizeForHost(*module, options); !ok) return fail(ok.error());
      std::string text;
      llvm::raw_string_ostream os(text);
      module->print(os, nullptr);
      return std::vector<uint8_t>(text.begin(), text.end());
    }
    case EmitKind::Asm: {
      auto text = hostAssembly(*module, options);
      if (!text) return fail(text.error());
      return std::vector<uint8_t>(text->begin(), text->end());
    }
    case EmitKind::Object:
    case EmitKind::Artifact: {
      auto so = hostSharedObject(*module, options);
      if (!so) {
        reportHostCodeError(so.error(), diags);
        return std::nullopt;
      }
      return std::move(*so);
    }
    default:
      diags.report(diag::DiagId::LinkNotImplemented, {}).arg("what", "this output kind for the host target");
      return std::nullopt;
    }
  }
};

}  // namespace

std::unique_ptr<TargetBackend> createHostBackend() { return std::make_unique<HostBackend>(); }

}  // namespace hrx::bridge
