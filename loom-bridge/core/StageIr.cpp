// The stage IR (hrx/bridge/StageIr.h): a program's stage functions and kernels lowered into one
// module with the host-code ABI's entry points. Target-neutral: the host backend compiles it, the
// xdna backend selects AIE2P code from it.
#include "hrx/bridge/StageIr.h"

#include "hrx/bridge/Builtins.h"
#include "hrx/bridge/IrQueries.h"
#include "hrx/bridge/Lowering.h"
#include "hrx/format/HostAbi.h"

#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <array>
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

llvm::Value *dispatchField(llvm::IRBuilder<> &b, llvm::Value *dispatch, unsigned offset, unsigned dim) {
  llvm::Value *address = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), dispatch, offset + 4 * dim);
  return b.CreateAlignedLoad(b.getInt32Ty(), address, llvm::Align(4));
}

llvm::Value *loadDispatchField(llvm::IRBuilder<> &b, llvm::Value *dispatch, unsigned offset, unsigned dim) {
  return b.CreateZExt(dispatchField(b, dispatch, offset, dim), b.getInt64Ty());
}

// Work-item functions take (dispatch, x, y, z); group coordinates come from the dispatch.
class HostCoordinates : public KernelCoordinates {
public:
  std::vector<llvm::Type *> leadingParameters(llvm::LLVMContext &context) const override {
    llvm::Type *i64 = llvm::Type::getInt64Ty(context);
    return {llvm::PointerType::getUnqual(context), i64, i64, i64};
  }
  llvm::Value *coordinate(llvm::IRBuilder<> &b, llvm::Function &f, Coordinate kind, unsigned dim) const override {
    llvm::Value *dispatch = f.getArg(0);
    if (kind == Coordinate::WorkitemId) return f.getArg(1 + dim);
    if (kind == Coordinate::WorkgroupId) return loadDispatchField(b, dispatch, kWorkgroupIdOffset, dim);
    if (kind == Coordinate::WorkgroupSize) return loadDispatchField(b, dispatch, kWorkgroupSizeOffset, dim);
    if (kind == Coordinate::WorkgroupCount) return loadDispatchField(b, dispatch, kWorkgroupCountOffset, dim);
    if (kind == Coordinate::WorkitemDispatchId)
      return b.CreateAdd(b.CreateMul(loadDispatchField(b, dispatch, kWorkgroupIdOffset, dim),
                                     loadDispatchField(b, dispatch, kWorkgroupSizeOffset, dim)),
                         f.getArg(1 + dim));
    return nullptr;
  }
};

// A Loom kernel whose work-items run as fibers (Lowering::needsCooperativeTwin): barriers wait
// in the cooperative scheduler, cross-lane reads go through its warp gather, and workgroup
// memory is thread-local (a workgroup's fibers all run on one thread, one workgroup at a time).
class CooperativeHostCoordinates final : public HostCoordinates {
public:
  bool barrier(llvm::IRBuilder<> &b) const override {
    llvm::Module &module = *b.GetInsertBlock()->getModule();
    b.CreateCall(declareBuiltin(module, "__hrx_wg_barrier"));
    return true;
  }
  llvm::Value *workgroupStorage(llvm::IRBuilder<> &b, uint64_t bytes, uint64_t alignment) const override {
    llvm::Module &module = *b.GetInsertBlock()->getModule();
    auto *type = llvm::ArrayType::get(b.getInt8Ty(), std::max<uint64_t>(bytes, 1));
    auto *storage = new llvm::GlobalVariable(module, type, false, llvm::GlobalValue::InternalLinkage,
                                             llvm::Constant::getNullValue(type), "hrx.workgroup", nullptr,
                                             llvm::GlobalValue::GeneralDynamicTLSModel);
    storage->setAlignment(llvm::Align(std::max<uint64_t>(alignment, 16)));
    return b.CreateThreadLocalAddress(storage);
  }
  // The dispatch's dynamic storage: one thread-local block of a gfx1151 workgroup's whole LDS,
  // shared by every kernel of the module (a thread runs one workgroup at a time); the runtime
  // refuses a launch that asks for more (runtime/core/Spmd.cpp).
  llvm::Value *dynamicWorkgroupStorage(llvm::IRBuilder<> &b, uint64_t alignment) const override {
    llvm::Module &module = *b.GetInsertBlock()->getModule();
    auto *type = llvm::ArrayType::get(b.getInt8Ty(), HRX_HOST_DYNAMIC_WORKGROUP_STORAGE_BYTES);
    llvm::GlobalVariable *storage = module.getGlobalVariable("hrx.dynamic_workgroup", true);
    if (!storage)
      storage = new llvm::GlobalVariable(module, type, false, llvm::GlobalValue::InternalLinkage,
                                         llvm::Constant::getNullValue(type), "hrx.dynamic_workgroup", nullptr,
                                         llvm::GlobalValue::GeneralDynamicTLSModel);
    storage->setAlignment(llvm::Align(std::max<uint64_t>({alignment, 16, storage->getAlign().valueOrOne().value()})));
    return b.CreateThreadLocalAddress(storage);
  }
  llvm::Value *subgroupGather(llvm::IRBuilder<> &b, llvm::Value *value, uint64_t bytes,
                              llvm::Value *lanes) const override {
    llvm::Module &module = *b.GetInsertBlock()->getModule();
    return b.CreateCall(declareBuiltin(module, "__hrx_wg_warp_gather_bytes"), {value, b.getInt64(bytes), lanes});
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

using WorkgroupSize = std::optional<std::array<uint32_t, 3>>;

// The workgroup size a launch-config function returns when it does not depend on the workload
// (constants inserted into its one returned [6 x i64]); the runtime dispatches with exactly that
// size, so the work-item loops may use it as constant bounds.
WorkgroupSize constantWorkgroupSize(const llvm::Function *config) {
  if (!config || config->isDeclaration()) return std::nullopt;
  const llvm::ReturnInst *ret = nullptr;
  for (const llvm::BasicBlock &block : *config)
    if (auto *r = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator())) {
      if (ret) return std::nullopt;
      ret = r;
    }
  if (!ret) return std::nullopt;
  std::array<uint32_t, 3> size = {0, 0, 0};
  auto take = [&](unsigned index, const llvm::Value *element) {
    auto *constant = llvm::dyn_cast_or_null<llvm::ConstantInt>(element);
    if (!constant || constant->isZero() || constant->getZExtValue() > UINT32_MAX) return false;
    size[index - 3] = static_cast<uint32_t>(constant->getZExtValue());
    return true;
  };
  const llvm::Value *value = ret->getReturnValue();
  for (; auto *insert = llvm::dyn_cast<llvm::InsertValueInst>(value); value = insert->getAggregateOperand()) {
    unsigned index = insert->getIndices()[0];
    if (index < 3 || index > 5 || size[index - 3]) continue;  // not a size, or overwritten by a later insert
    if (!take(index, insert->getInsertedValueOperand())) return std::nullopt;
  }
  // Elements no insert sets come from the aggregate the chain starts with (all of them when the
  // builder folded a constant result).
  for (unsigned index = 3; index < 6; ++index)
    if (!size[index - 3] &&
        !take(index, llvm::isa<llvm::Constant>(value) ? llvm::cast<llvm::Constant>(value)->getAggregateElement(index)
                                                      : nullptr))
      return std::nullopt;
  return size;
}

// "hrx.kernel.<sym>"(const hrx_host_dispatch *): every work-item of one workgroup, as loops. A
// constant workgroup size (the launch program returns no other) makes the loop bounds constants.
void emitKernel(llvm::Module &module, llvm::Function &item, size_t launchArgs, const std::string &symbol,
                const WorkgroupSize &fixedSize = std::nullopt) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(context);
  llvm::Function *entry = entryPoint(module, HRX_HOST_KERNEL_PREFIX + symbol, {ptr});
  markDispatchParameter(*entry);
  markDispatchParameter(item);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  llvm::Value *dispatch = entry->getArg(0);
  llvm::Value *argv =
      b.CreateAlignedLoad(ptr, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), dispatch, kArgsOffset), llvm::Align(8));
  std::vector<llvm::Value *> args = {dispatch, nullptr, nullptr, nullptr};
  const size_t leading = args.size();
  for (size_t i = 0; i < launchArgs; ++i) {
    llvm::Value *slot = b.CreateAlignedLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, argv, i), llvm::Align(8));
    llvm::Type *type = item.getArg(unsigned(leading + i))->getType();
    // A buffer is its base pointer; a scalar is a pointer to its value.
    args.push_back(type->isPointerTy() ? slot : b.CreateLoad(type, slot));
  }
  llvm::Value *sizes[3];
  for (unsigned d = 0; d < 3; ++d)
    sizes[d] = fixedSize ? b.getInt64((*fixedSize)[d]) : loadDispatchField(b, dispatch, kWorkgroupSizeOffset, d);
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
void emitPhasedKernel(llvm::Module &module, const Lowering::KernelPhases &plan, size_t launchArgs,
                      const std::string &symbol) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(context);
  llvm::Function *entry = entryPoint(module, HRX_HOST_KERNEL_PREFIX + symbol, {ptr});
  markDispatchParameter(*entry);
  for (llvm::Function *phase : plan.phases) markDispatchParameter(*phase);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  llvm::Value *dispatch = entry->getArg(0);
  llvm::Value *argv =
      b.CreateAlignedLoad(ptr, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), dispatch, kArgsOffset), llvm::Align(8));
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
// The launch program's arguments, read from the workload words (one uint64_t each).
llvm::Value *callLaunchConfig(llvm::IRBuilder<> &b, llvm::Function &config, llvm::Value *workload) {
  std::vector<llvm::Value *> args;
  for (unsigned i = 0; i < config.arg_size(); ++i) {
    llvm::Value *word =
        b.CreateAlignedLoad(b.getInt64Ty(), b.CreateConstInBoundsGEP1_64(b.getInt64Ty(), workload, i), llvm::Align(8));
    llvm::Type *type = config.getArg(i)->getType();
    if (type->isIntegerTy())
      args.push_back(b.CreateTrunc(word, type));
    else
      args.push_back(b.CreateBitCast(b.CreateTrunc(word, b.getIntNTy(unsigned(type->getPrimitiveSizeInBits()))), type));
  }
  return b.CreateCall(&config, args);
}

void emitLaunch(llvm::Module &module, llvm::Function &config, const std::string &symbol) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(context);
  llvm::Function *entry = entryPoint(module, HRX_HOST_LAUNCH_PREFIX + symbol, {ptr, ptr});
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  llvm::Value *result = callLaunchConfig(b, config, entry->getArg(0));
  for (unsigned i = 0; i < 6; ++i)
    b.CreateAlignedStore(b.CreateTrunc(b.CreateExtractValue(result, i), b.getInt32Ty()),
                         b.CreateConstInBoundsGEP1_64(b.getInt32Ty(), entry->getArg(1), i), llvm::Align(4));
  b.CreateRetVoid();
}

// "hrx.launch_storage.<sym>" (HostAbi.h): the dynamic workgroup storage bytes the launch region
// asks for (kernel.launch.config ... dynamic_workgroup_storage(%n)).
void emitLaunchStorage(llvm::Module &module, llvm::Function &config, const std::string &symbol) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(context);
  llvm::Function *entry = entryPoint(module, HRX_HOST_LAUNCH_STORAGE_PREFIX + symbol, {ptr, ptr});
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  llvm::Value *result = callLaunchConfig(b, config, entry->getArg(0));
  b.CreateAlignedStore(b.CreateExtractValue(result, Lowering::kLaunchStorageElement), entry->getArg(1), llvm::Align(8));
  b.CreateRetVoid();
}

// Both launch entry points of a Loom kernel.
void emitLoomLaunch(llvm::Module &module, llvm::Function &config, const loom::Operation &kernelDef) {
  std::string symbol(kernelDef.symbolName());
  emitLaunch(module, config, symbol);
  if (Lowering::hasDynamicWorkgroupStorage(kernelDef)) emitLaunchStorage(module, config, symbol);
}

// C/C++ kernels. On the host, Clang leaves the work-item queries of <hrx/kernel.h> and
// <hip/hip_runtime.h> as calls to these undefined functions; the kernel's twin replaces them with
// the work-item loop's coordinates and the dispatch's fields.
enum class HostQuery { WorkitemId, WorkgroupId, WorkgroupSize, WorkgroupCount, Barrier, WarpGather };

std::optional<HostQuery> hostQuery(const llvm::Function *callee) {
  if (!callee || !callee->isDeclaration()) return std::nullopt;
  llvm::StringRef name = callee->getName();
  if (name == "__hrx_host_workitem_id") return HostQuery::WorkitemId;
  if (name == "__hrx_host_workgroup_id") return HostQuery::WorkgroupId;
  if (name == "__hrx_host_workgroup_size") return HostQuery::WorkgroupSize;
  if (name == "__hrx_host_workgroup_count") return HostQuery::WorkgroupCount;
  if (name == "__hrx_host_barrier") return HostQuery::Barrier;
  if (name == "__hrx_host_warp_gather") return HostQuery::WarpGather;
  return std::nullopt;
}

// Defined functions that call a work-item query, directly or through direct calls.
std::set<const llvm::Function *> functionsReachingQueries(const llvm::Module &module) {
  std::set<const llvm::Function *> reaching;
  for (bool grew = true; grew;) {
    grew = false;
    for (const llvm::Function &f : module) {
      if (f.isDeclaration() || reaching.count(&f)) continue;
      for (const llvm::BasicBlock &block : f)
        for (const llvm::Instruction &inst : block)
          if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
            const llvm::Function *callee = call->getCalledFunction();
            if (hostQuery(callee) || reaching.count(callee)) {
              grew = reaching.insert(&f).second || grew;
              break;
            }
          }
    }
  }
  return reaching;
}

// Inlines every call in `f` to a function that reaches a work-item query, so that the queries
// are all in `f`. False for recursion (the inlining does not end) or a call that cannot inline.
bool inlineQueryCallers(llvm::Function &f, const std::set<const llvm::Function *> &reaching) {
  constexpr unsigned kMaxRounds = 64;  // nesting depth of helpers; deeper means recursion
  for (unsigned round = 0; round < kMaxRounds; ++round) {
    std::vector<llvm::CallBase *> calls;
    for (llvm::BasicBlock &block : f)
      for (llvm::Instruction &inst : block)
        if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst); call && reaching.count(call->getCalledFunction()))
          calls.push_back(call);
    if (calls.empty()) return true;
    for (llvm::CallBase *call : calls) {
      llvm::InlineFunctionInfo info;
      if (!llvm::InlineFunction(*call, info).isSuccess()) return false;
    }
  }
  return false;
}

// values[dim] for a dimension operand; like the amdgcn header, anything above 2 is z.
llvm::Value *pickDimension(llvm::IRBuilder<> &b, llvm::Value *dim, const std::array<llvm::Value *, 3> &values) {
  if (auto *constant = llvm::dyn_cast<llvm::ConstantInt>(dim))
    return values[std::min<uint64_t>(constant->getZExtValue(), 2)];
  llvm::Value *yz = b.CreateSelect(b.CreateICmpEQ(dim, b.getInt32(1)), values[1], values[2]);
  return b.CreateSelect(b.CreateICmpEQ(dim, b.getInt32(0)), values[0], yz);
}

// The kernel's body as a work-item function (dispatch, x, y, z, kernel parameters...) whose
// queries read the loop's coordinates and the dispatch. Null when a query stays out of reach
// (recursion); `barrier` is set when the body waits at a workgroup barrier or uses a warp
// function, which then call the cooperative scheduler's builtins (builtins/Workgroup.c).
llvm::Function *cxxWorkItem(llvm::Module &module, llvm::Function &kernel, const WorkgroupSize &fixedSize,
                            const std::set<const llvm::Function *> &reaching, bool &barrier) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *i64 = llvm::Type::getInt64Ty(context);
  std::vector<llvm::Type *> params = {llvm::PointerType::getUnqual(context), i64, i64, i64};
  for (llvm::Argument &arg : kernel.args()) params.push_back(arg.getType());
  auto *item = llvm::Function::Create(llvm::FunctionType::get(kernel.getReturnType(), params, false),
                                      llvm::GlobalValue::InternalLinkage, kernel.getName() + ".item", module);
  llvm::ValueToValueMapTy map;
  for (unsigned i = 0; i < kernel.arg_size(); ++i) map[kernel.getArg(i)] = item->getArg(4 + i);
  llvm::SmallVector<llvm::ReturnInst *, 4> returns;
  llvm::CloneFunctionInto(item, &kernel, map, llvm::CloneFunctionChangeType::LocalChangesOnly, returns);
  item->removeFnAttr(llvm::Attribute::NoInline);
  item->removeFnAttr(llvm::Attribute::OptimizeNone);
  item->addFnAttr(llvm::Attribute::AlwaysInline);
  if (!inlineQueryCallers(*item, reaching)) {
    item->eraseFromParent();
    return nullptr;
  }
  std::vector<llvm::CallBase *> queries;
  for (llvm::BasicBlock &block : *item)
    for (llvm::Instruction &inst : block)
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst); call && hostQuery(call->getCalledFunction()))
        queries.push_back(call);
  llvm::IRBuilder<> b(context);
  llvm::Value *dispatch = item->getArg(0);
  for (llvm::CallBase *call : queries) {
    HostQuery query = *hostQuery(call->getCalledFunction());
    if (query == HostQuery::Barrier || query == HostQuery::WarpGather) {
      barrier = true;
      llvm::Function *builtin =
          declareBuiltin(module, query == HostQuery::Barrier ? "__hrx_wg_barrier" : "__hrx_wg_warp_gather");
      call->setCalledFunction(builtin);
      continue;
    }
    b.SetInsertPoint(call);
    std::array<llvm::Value *, 3> values;
    for (unsigned d = 0; d < 3; ++d) {
      switch (query) {
      case HostQuery::WorkitemId: values[d] = b.CreateTrunc(item->getArg(1 + d), b.getInt32Ty()); break;
      case HostQuery::WorkgroupId: values[d] = dispatchField(b, dispatch, kWorkgroupIdOffset, d); break;
      case HostQuery::WorkgroupSize:
        values[d] = fixedSize ? b.getInt32((*fixedSize)[d]) : dispatchField(b, dispatch, kWorkgroupSizeOffset, d);
        break;
      default: values[d] = dispatchField(b, dispatch, kWorkgroupCountOffset, d); break;
      }
    }
    call->replaceAllUsesWith(pickDimension(b, call->getArgOperand(0), values));
    call->eraseFromParent();
  }
  return item;
}

// "hrx.kernel.<sym>" for a kernel with barriers or warp functions: the cooperative scheduler
// runs each work-item as a fiber (`__hrx_wg_run`), through "<sym>.fiber"(dispatch, x, y, z).
void emitCooperativeKernel(llvm::Module &module, llvm::Function &item, size_t launchArgs, const std::string &symbol,
                           uint64_t wave = 32) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *ptr = llvm::PointerType::getUnqual(context);
  llvm::Type *i64 = llvm::Type::getInt64Ty(context);
  auto *fiberType = llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptr, i64, i64, i64}, false);
  auto *fiber =
      llvm::Function::Create(fiberType, llvm::GlobalValue::InternalLinkage, item.getName() + ".fiber", module);
  markDispatchParameter(*fiber);
  markDispatchParameter(item);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", fiber));
  llvm::Value *dispatch = fiber->getArg(0);
  llvm::Value *argv =
      b.CreateAlignedLoad(ptr, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), dispatch, kArgsOffset), llvm::Align(8));
  std::vector<llvm::Value *> args = {dispatch, fiber->getArg(1), fiber->getArg(2), fiber->getArg(3)};
  for (size_t i = 0; i < launchArgs; ++i) {
    llvm::Value *slot = b.CreateAlignedLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, argv, i), llvm::Align(8));
    llvm::Type *type = item.getArg(unsigned(4 + i))->getType();
    args.push_back(type->isPointerTy() ? slot : b.CreateLoad(type, slot));
  }
  b.CreateCall(&item, args);
  b.CreateRetVoid();
  llvm::Function *entry = entryPoint(module, HRX_HOST_KERNEL_PREFIX + symbol, {ptr});
  markDispatchParameter(*entry);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", entry));
  if (wave == 32)
    b.CreateCall(declareBuiltin(module, "__hrx_wg_run"), {entry->getArg(0), fiber});
  else
    b.CreateCall(declareBuiltin(module, "__hrx_wg_run_wave"), {entry->getArg(0), fiber, b.getInt64(wave)});
  b.CreateRetVoid();
}

// Removes the kernels' original bodies and helpers that nothing calls any more (they still call
// the queries, which the shared object cannot import).
void eraseUnusedQueryCallers(llvm::Module &module, const std::set<const llvm::Function *> &reaching) {
  for (bool erased = true; erased;) {
    erased = false;
    for (llvm::Function &f : llvm::make_early_inc_range(module))
      if (reaching.count(&f) && f.use_empty()) {
        f.eraseFromParent();
        erased = true;
      }
  }
}

// A kernel reaching a construct with no CPU meaning (Lowering::hostUnavailableReason) loses its
// "hrx.kernel.<sym>" entry; "hrx.unavailable.<sym>" says why (HostAbi.h), and LINK/045 warns.
void dropUnavailableTwin(llvm::Module &module, const Lowering &lowering, const loom::Operation &kernelDef,
                         const std::string &symbol, diag::DiagnosticEngine &diags) {
  llvm::Function *entry = module.getFunction(HRX_HOST_KERNEL_PREFIX + symbol);
  if (!entry) return;
  std::optional<Lowering::HostUnavailable> why = lowering.hostUnavailableReason(*entry);
  if (!why) return;
  entry->eraseFromParent();
  const diag::SourceManager &sm = diags.sourceManager();
  diag::LineColumn at = sm.lineColumn(why->op->loc().begin);
  std::string reason = why->reason + " (" + std::string(sm.name(why->op->loc().begin.file)) + ":" +
                       std::to_string(at.line) + ":" + std::to_string(at.column) + ", LINK/045)";
  llvm::Constant *text = llvm::ConstantDataArray::getString(module.getContext(), reason);
  new llvm::GlobalVariable(module, text->getType(), true, llvm::GlobalValue::ExternalLinkage, text,
                           HRX_HOST_UNAVAILABLE_PREFIX + symbol);
  diags.report(diag::DiagId::LinkHostTwinKernelUnavailable, why->op->loc())
      .arg("kernel", symbol)
      .arg("reason", why->reason)
      .note(kernelDef.loc(), "kernel @" + symbol + " is defined here");
}

// "hrx.kernel.<sym>" and "hrx.launch.<sym>" for each C/C++ kernel of the program.
void emitCxxKernels(const Program &program, llvm::Module &module, Lowering &lowering, bool forHostTarget,
                    diag::DiagnosticEngine &diags) {
  std::set<const llvm::Function *> reaching = functionsReachingQueries(module);
  for (const cxx::Signature *kernel : program.cxxKernels) {
    if (auto it = program.hostUnavailable.find(kernel->symbol); it != program.hostUnavailable.end()) {
      // No entry: the runtime reads why from "hrx.unavailable.<sym>" (HostAbi.h).
      llvm::Constant *reason = llvm::ConstantDataArray::getString(module.getContext(), it->second);
      new llvm::GlobalVariable(module, reason->getType(), true, llvm::GlobalValue::ExternalLinkage, reason,
                               HRX_HOST_UNAVAILABLE_PREFIX + kernel->symbol);
      continue;
    }
    llvm::Function *body = module.getFunction(kernel->symbol);
    if (!body || body->isDeclaration()) {
      diags.report(diag::DiagId::LinkCodegenFailed, kernel->location)
          .arg("target", "host")
          .arg("message", "the C/C++ kernel '" + kernel->symbol + "' has no definition");
      continue;
    }
    llvm::Function *config = lowering.kernelConfig(*kernel);
    // Only a fixed size (loom::workgroup_size) is a constant: the launch program's default may be
    // replaced at run time (hrx-run --grid/--block), so the dispatch's size is read otherwise.
    WorkgroupSize size;
    if (kernel->workgroupSize) size = *kernel->workgroupSize;
    bool barrier = false;
    llvm::Function *item = cxxWorkItem(module, *body, size, reaching, barrier);
    if (!item) {
      diags.report(diag::DiagId::LinkHostKernelRecursion, kernel->location).arg("kernel", kernel->name);
      continue;
    }
    if (barrier)
      emitCooperativeKernel(module, *item, kernel->params.size(), kernel->symbol);
    else
      emitKernel(module, *item, kernel->params.size(), kernel->symbol, size);
    if (config) emitLaunch(module, *config, kernel->symbol);
  }
  eraseUnusedQueryCallers(module, reaching);
}

bool isStageCandidate(const loom::Operation &def) {
  if (def.opcode() != loom::OpCode::FuncDef || !ir::functionResultTypes(def).empty()) return false;
  for (const loom::Type *t : ir::signatureTypes(def, 0))
    if (t->kind() != loom::TypeKind::Buffer) return false;
  return true;
}

}  // namespace

std::unique_ptr<llvm::Module> lowerStageIr(const Program &program, llvm::LLVMContext &context,
                                           diag::DiagnosticEngine &diags, bool forHostTarget,
                                           std::string_view providerFamily, bool launchOnly) {
  const unsigned errorsAtStart = diags.errorCount();
  auto module = std::make_unique<llvm::Module>("hrx-host", context);
  module->setTargetTriple(llvm::Triple(kHostTriple));
  Lowering lowering(program, *module, diags, "the host target", LoweringOptions{.providerFamily = providerFamily});
  // Stage functions: every callee of a reachable pipeline.stage/reduce, plus exported functions.
  std::set<std::string> stages;
  for (const loom::Operation *def : program.reachable)
    def->walk([&](const loom::Operation &op) {
      if (op.opcode() == loom::OpCode::PipelineStage || op.opcode() == loom::OpCode::PipelineReduce)
        stages.insert(std::string(ir::symbolRef(op)));
    });
  for (const loom::Operation *def : program.exports)
    if (isStageCandidate(*def)) stages.insert(std::string(def->symbolName()));
  if (launchOnly) {
    // The launch programs depend on the kernels' signatures and launch regions only.
    for (const loom::Operation *def : program.reachable)
      if (def->opcode() == loom::OpCode::KernelDef)
        if (llvm::Function *config = lowering.kernelConfig(*def); config && !config->isDeclaration())
          emitLoomLaunch(*module, *config, *def);
    for (const cxx::Signature *kernel : program.cxxKernels)
      if (llvm::Function *config = lowering.kernelConfig(*kernel)) emitLaunch(*module, *config, kernel->symbol);
    if (lowering.failed() || diags.errorCount() != errorsAtStart) return nullptr;
    return module;
  }
  HostCoordinates coordinates;
  CooperativeHostCoordinates cooperative;
  for (const loom::Operation *def : program.reachable) {
    std::string symbol(def->symbolName());
    if (def->opcode() == loom::OpCode::FuncDef && stages.count(symbol)) {
      if (llvm::Function *f = lowering.function(*def); f && !f->isDeclaration()) emitStage(*module, *f, symbol);
    } else if (def->opcode() == loom::OpCode::KernelDef) {
      size_t launchArgs = ir::signatureTypes(*def, 1).size();
      llvm::Function *config = lowering.kernelConfig(*def);
      if (lowering.needsCooperativeTwin(*def)) {
        if (llvm::Function *item = lowering.kernelItem(*def, cooperative); item && !item->isDeclaration())
          emitCooperativeKernel(*module, *item, launchArgs, symbol, lowering.subgroupSize(*def));
      } else if (Lowering::hasBarriers(*def)) {
        if (std::optional<Lowering::KernelPhases> plan = lowering.kernelPhases(*def, coordinates))
          emitPhasedKernel(*module, *plan, launchArgs, symbol);
      } else if (llvm::Function *item = lowering.kernelItem(*def, coordinates); item && !item->isDeclaration()) {
        emitKernel(*module, *item, launchArgs, symbol, constantWorkgroupSize(config));
      }
      dropUnavailableTwin(*module, lowering, *def, symbol, diags);
      if (config && !config->isDeclaration()) emitLoomLaunch(*module, *config, *def);
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
  for (std::unique_ptr<llvm::Module> &cxxModule : program.cxxModules(context))
    if (llvm::Linker::linkModules(*module, std::move(cxxModule)))
      diags.report(diag::DiagId::LinkCodegenFailed, {})
          .arg("target", "host")
          .arg("message", "cannot link the C/C++ code");
  if (diags.errorCount() == errorsAtStart) emitCxxKernels(program, *module, lowering, forHostTarget, diags);
  if (lowering.failed() || diags.errorCount() != errorsAtStart) return nullptr;
  return module;
}

}  // namespace hrx::bridge
