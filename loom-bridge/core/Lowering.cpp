#include "hrx/bridge/Lowering.h"

#include "hrx/bridge/IrQueries.h"
#include "hrx/bridge/Builtins.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Verifier.h>

#include <array>
#include <functional>
#include <map>
#include <unordered_map>

namespace hrx::bridge {

using loom::Operation;
using loom::Value;

namespace {

// A view: a typed window over a buffer, strides in elements (row-major unless subviewed).
struct ViewValue {
  llvm::Value *base = nullptr;  // byte pointer to element [0, ..., 0]
  std::vector<llvm::Value *> extents;
  std::vector<llvm::Value *> strides;
  const loom::Type *type = nullptr;
  bool coherent = false;  // over a buffer assumed memory_space<host> (coherent, host-visible)
};

// What a Loom value became: an LLVM value, a view, or a compile-time encoding.
struct Lowered {
  llvm::Value *value = nullptr;
  std::shared_ptr<ViewValue> view;
  const loom::Attribute *encoding = nullptr;  // encoding.define / encoded payloads
  std::vector<int64_t> fragmentShape;         // vector.fragment's [rows, cols]
  bool coherent = false;                      // a buffer assumed memory_space<host>
};

// Thrown out of op lowering after the diagnostic was reported; caught per function (never
// across LLVM frames).
struct LoweringError {};

// The scalar combining function of a reduction kind (loom-language §5: addf, maxsi, ...); null
// for an unknown kind.
llvm::Value *combine(llvm::IRBuilder<> &b, std::string_view kind, llvm::Value *acc, llvm::Value *v) {
  if (kind == "addf") return b.CreateFAdd(acc, v);
  if (kind == "mulf") return b.CreateFMul(acc, v);
  if (kind == "addi") return b.CreateAdd(acc, v);
  if (kind == "muli") return b.CreateMul(acc, v);
  if (kind == "andi") return b.CreateAnd(acc, v);
  if (kind == "ori") return b.CreateOr(acc, v);
  if (kind == "xori") return b.CreateXor(acc, v);
  if (kind == "maxsi") return b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, acc, v);
  if (kind == "minsi") return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, acc, v);
  if (kind == "maxui") return b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, acc, v);
  if (kind == "minui") return b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, acc, v);
  if (kind == "maxnumf") return b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, acc, v);
  if (kind == "minnumf") return b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, acc, v);
  if (kind == "maximumf") return b.CreateBinaryIntrinsic(llvm::Intrinsic::maximum, acc, v);
  if (kind == "minimumf") return b.CreateBinaryIntrinsic(llvm::Intrinsic::minimum, acc, v);
  return nullptr;
}

}  // namespace

class Lowering::Impl {
public:
  Impl(const Program &program, llvm::Module &module, diag::DiagnosticEngine &diags, std::string target,
       LoweringOptions options)
      : program_(program), module_(module), context_(module.getContext()), diags_(diags), target_(std::move(target)),
        options_(options), errorsAtStart_(diags.errorCount()) {}

  bool failed() const { return diags_.errorCount() != errorsAtStart_; }
  llvm::Module &module() { return module_; }

  llvm::Type *valueType(const loom::Type &type, const Operation *where) {
    switch (type.kind()) {
    case loom::TypeKind::Index:
    case loom::TypeKind::Offset: return llvm::Type::getInt64Ty(context_);
    case loom::TypeKind::Integer: return llvm::Type::getIntNTy(context_, type.width());
    case loom::TypeKind::Float:
      switch (type.floatKind()) {
      case loom::FloatKind::F16: return llvm::Type::getHalfTy(context_);
      case loom::FloatKind::BF16: return llvm::Type::getBFloatTy(context_);
      case loom::FloatKind::F32: return llvm::Type::getFloatTy(context_);
      case loom::FloatKind::F64: return llvm::Type::getDoubleTy(context_);
      default: break;
      }
      break;
    case loom::TypeKind::Buffer: return llvm::PointerType::getUnqual(context_);
    case loom::TypeKind::Vector: {
      int64_t count = type.staticElementCount();
      llvm::Type *element = valueType(*type.elementType(), where);
      if (count > 0 && element) return llvm::FixedVectorType::get(element, unsigned(count));
      break;
    }
    default: break;
    }
    if (where) unsupported(*where, "values of type " + type.str() + " have no machine representation here");
    return nullptr;
  }

  [[noreturn]] void unsupported(const Operation &op, std::string reason) {
    diags_.report(diag::DiagId::LinkUnsupportedOp, op.loc())
        .arg("op", std::string(op.name()))
        .arg("target", target_)
        .arg("reason", std::move(reason));
    throw LoweringError{};
  }

  // ---- functions ------------------------------------------------------------------------------

  llvm::Function *function(const Operation &def) {
    std::string name = "loom." + std::string(def.symbolName());
    if (llvm::Function *f = module_.getFunction(name)) return f;
    std::vector<llvm::Type *> params;
    for (const loom::Type *t : ir::signatureTypes(def, 0)) params.push_back(paramType(*t, def));
    std::vector<const loom::Type *> results = ir::functionResultTypes(def);
    llvm::Type *ret = resultType(results, def);
    if (!ret) return nullptr;
    for (llvm::Type *p : params)
      if (!p) return nullptr;
    auto *f = llvm::Function::Create(llvm::FunctionType::get(ret, params, false), llvm::GlobalValue::InternalLinkage,
                                     name, module_);
    lowerBody(def, 0, *f, 0, nullptr);
    return f;
  }

  llvm::Function *kernelItem(const Operation &def, const KernelCoordinates &coordinates) {
    std::string name = "loom.kernel." + std::string(def.symbolName()) + ".item";
    if (llvm::Function *f = module_.getFunction(name)) return f;
    std::vector<llvm::Type *> params = coordinates.leadingParameters(context_);
    size_t leading = params.size();
    for (const loom::Type *t : ir::signatureTypes(def, 1)) params.push_back(paramType(*t, def));
    for (llvm::Type *p : params)
      if (!p) return nullptr;
    auto *f = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(context_), params, false),
                                     llvm::GlobalValue::InternalLinkage, name, module_);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    lowerBody(def, 1, *f, leading, &coordinates);
    return f;
  }

  llvm::Function *kernelConfig(const Operation &def) {
    std::string name = "loom.kernel." + std::string(def.symbolName()) + ".config";
    if (llvm::Function *f = module_.getFunction(name)) return f;
    std::vector<llvm::Type *> params;
    for (const loom::Type *t : ir::signatureTypes(def, 0)) params.push_back(paramType(*t, def));
    for (llvm::Type *p : params)
      if (!p) return nullptr;
    auto *f = llvm::Function::Create(llvm::FunctionType::get(configType(), params, false),
                                     llvm::GlobalValue::InternalLinkage, name, module_);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    lowerBody(def, 0, *f, 0, nullptr);
    return f;
  }

  llvm::Type *paramType(const loom::Type &type, const Operation &owner) {
    llvm::Type *t = valueType(type, nullptr);
    if (!t) {
      diags_.report(diag::DiagId::LinkUnsupportedOp, owner.loc())
          .arg("op", std::string(owner.name()))
          .arg("target", target_)
          .arg("reason", "an argument of type " + type.str() + " cannot be passed");
    }
    return t;
  }

  static bool isBarrier(const Operation &op) { return op.name() == "kernel.barrier"; }
  static bool isWorkgroupReduce(const Operation &op) { return op.name() == "kernel.workgroup.reduce"; }
  static bool isGroupReduce(const Operation &op) { return isWorkgroupReduce(op) || op.name() == "kernel.subgroup.reduce"; }

  // The subgroup size of a kernel: its target record's subgroup_size, 32 by default.
  uint64_t subgroupSize(const Operation &kernelDef) const {
    const Operation *record = Lowering::targetRecord(program_, kernelDef);
    std::optional<int64_t> size = record ? ir::integerAttr(*record, "subgroup_size") : std::nullopt;
    return size && *size > 0 && *size <= 1024 ? uint64_t(*size) : 32;
  }

  // Ops whose effects or results depend on memory: they run only in their own phase, and their
  // results that later phases use are kept per work-item in the spill area.
  static bool isEffectful(const Operation &op) {
    std::string_view n = op.name();
    return n.starts_with("view.load") || n.starts_with("view.store") || n.starts_with("vector.load") ||
           n.starts_with("vector.store") || n.starts_with("vector.fragment.load") || n.starts_with("vector.fragment.store") ||
           n.starts_with("scf.") || n == "func.call" || n == "buffer.alloca" || n.starts_with("view.atomic");
  }

  std::optional<Lowering::KernelPhases> kernelPhases(const Operation &def, const KernelCoordinates &coordinates) {
    const loom::Region &body = *def.region(1);
    if (body.blocks().size() != 1) {
      diags_.report(diag::DiagId::LinkUnsupportedOp, def.loc())
          .arg("op", "kernel.barrier").arg("target", target_).arg("reason", "barriers need a single-block kernel body");
      return std::nullopt;
    }
    const loom::Block &block = *body.entryBlock();
    // Phase of each top-level op; barriers nested in control flow cannot be split at.
    std::unordered_map<const Operation *, unsigned> phase;
    unsigned phases = 0;
    for (const Operation &op : block) {
      if (isBarrier(op) || isGroupReduce(op)) ++phases;
      phase[&op] = phases;
      bool nested = false;
      op.walk([&](const Operation &inner) { nested |= &inner != &op && (isBarrier(inner) || isGroupReduce(inner)); });
      if (nested) {
        diags_.report(diag::DiagId::LinkUnsupportedOp, op.loc())
            .arg("op", "kernel.barrier").arg("target", target_).arg("reason", "a barrier inside control flow cannot be split at");
        return std::nullopt;
      }
    }
    // Spill slots: results of effectful top-level ops that a later phase uses.
    const llvm::DataLayout &layout = module_.getDataLayout();
    std::unordered_map<const Value *, uint64_t> slots;
    std::unordered_map<const Operation *, unsigned> shared;
    Lowering::KernelPhases result;
    for (const Operation &op : block) {
      if (isGroupReduce(op)) {
        // The operand's per-item slot and the shared slots of the combined values (one per
        // subgroup of the largest workgroup).
        llvm::Type *type = valueType(*op.result(0)->type(), &op);
        if (!type) return std::nullopt;
        result.spillBytes = llvm::alignTo(result.spillBytes, 16);
        slots[op.operand(0)] = result.spillBytes;
        result.spillBytes += layout.getTypeAllocSize(type);
        shared[&op] = unsigned(result.sharedAllocations.size());
        uint64_t groups = isWorkgroupReduce(op) ? 1 : llvm::divideCeil(1024, subgroupSize(def));
        result.sharedAllocations.emplace_back(16 * groups, 16);
        continue;
      }
      if (op.name() == "buffer.alloca" && op.templateParam(0) && op.templateParam(0)->str() == "workgroup") {
        std::optional<int64_t> bytes = program_.evaluateInteger(op.operandNamed("size"));
        int64_t align = ir::integerAttr(op, "align").value_or(16);
        if (!bytes || *bytes <= 0 || align <= 0 || (align & (align - 1))) {
          diags_.report(diag::DiagId::LinkUnsupportedOp, op.loc())
              .arg("op", "buffer.alloca").arg("target", target_).arg("reason", "workgroup allocations need a constant size and a power-of-two alignment");
          return std::nullopt;
        }
        shared[&op] = unsigned(result.sharedAllocations.size());
        result.sharedAllocations.emplace_back(uint64_t(*bytes), uint64_t(align));
        continue;
      }
      if (!isEffectful(op)) continue;
      for (unsigned i = 0; i < op.numResults(); ++i) {
        const Value *v = op.result(i);
        // Any use may be rematerialized in a later phase (through pure ops), so every used
        // result of an effectful op keeps a slot.
        bool usedLater = false;
        for (const Operation &later : block)
          if (&later != &op)
            later.walk([&](const Operation &user) {
              for (const Value *operand : user.operands()) usedLater |= operand == v;
            });
        if (!usedLater) continue;
        llvm::Type *type = valueType(*v->type(), &op);
        if (!type) return std::nullopt;
        result.spillBytes = llvm::alignTo(result.spillBytes, 16);
        slots[v] = result.spillBytes;
        result.spillBytes += layout.getTypeAllocSize(type);
      }
    }
    result.spillBytes = llvm::alignTo(std::max<uint64_t>(result.spillBytes, 1), 16);
    std::vector<llvm::Type *> params = coordinates.leadingParameters(context_);
    size_t leading = params.size();
    llvm::Type *ptr = llvm::PointerType::getUnqual(context_);
    params.push_back(ptr);
    params.push_back(ptr);
    for (const loom::Type *t : ir::signatureTypes(def, 1)) params.push_back(paramType(*t, def));
    for (llvm::Type *p : params)
      if (!p) return std::nullopt;
    for (unsigned p = 0; p <= phases; ++p) {
      auto *f = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(context_), params, false),
                                       llvm::GlobalValue::InternalLinkage,
                                       "loom.kernel." + std::string(def.symbolName()) + ".phase" + std::to_string(p), module_);
      f->addFnAttr(llvm::Attribute::AlwaysInline);
      if (!lowerPhase(def, p, *f, leading, coordinates, phase, slots, shared, result.spillBytes)) return std::nullopt;
      result.phases.push_back(f);
    }
    for (const Operation &op : block)
      if (isGroupReduce(op)) {
        llvm::Function *combine = groupCombine(def, op, slots.at(op.operand(0)), shared.at(&op), result.spillBytes,
                                               isWorkgroupReduce(op) ? 0 : subgroupSize(def));
        if (!combine) return std::nullopt;
        result.combines.push_back({phase[&op], combine});
      }
    return result;
  }

  // Folds the operand of a workgroup or subgroup reduction over the work-items, in linear id
  // order: every `groupItems` consecutive items (0: all of them) into their own 16-byte shared slot.
  llvm::Function *groupCombine(const Operation &def, const Operation &op, uint64_t slot, unsigned sharedIndex,
                               uint64_t spillBytes, uint64_t groupItems) {
    std::string_view kind = combiningKind(op);
    llvm::Type *type = valueType(*op.result(0)->type(), &op);
    llvm::Type *ptr = llvm::PointerType::getUnqual(context_);
    llvm::Type *i64Type = llvm::Type::getInt64Ty(context_);
    auto *f = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(context_), {ptr, i64Type, ptr}, false),
                                     llvm::GlobalValue::InternalLinkage,
                                     "loom.kernel." + std::string(def.symbolName()) + ".combine", module_);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context_, "entry", f));
    llvm::Value *items = f->getArg(1);
    llvm::Value *group = groupItems ? b.getInt64(groupItems) : items;
    llvm::Value *slots = b.CreateAlignedLoad(ptr, b.CreateConstGEP1_64(ptr, f->getArg(2), sharedIndex), llvm::Align(8));
    llvm::BasicBlock *entry = b.GetInsertBlock();
    llvm::BasicBlock *header = llvm::BasicBlock::Create(context_, "header", f);
    llvm::BasicBlock *body = llvm::BasicBlock::Create(context_, "body", f);
    llvm::BasicBlock *exit = llvm::BasicBlock::Create(context_, "exit", f);
    b.CreateBr(header);
    b.SetInsertPoint(header);
    llvm::PHINode *item = b.CreatePHI(i64Type, 2);
    item->addIncoming(b.getInt64(0), entry);
    b.CreateCondBr(b.CreateICmpULT(item, items), body, exit);
    b.SetInsertPoint(body);
    llvm::Value *value = b.CreateAlignedLoad(
        type, b.CreateGEP(b.getInt8Ty(), f->getArg(0), b.CreateAdd(b.CreateMul(item, b.getInt64(spillBytes)), b.getInt64(slot))),
        llvm::Align(16));
    llvm::Value *target = b.CreateGEP(b.getInt8Ty(), slots, b.CreateMul(b.CreateUDiv(item, group), b.getInt64(16)));
    llvm::Value *folded = combine(b, kind, b.CreateAlignedLoad(type, target, llvm::Align(16)), value);
    if (!folded) {
      f->eraseFromParent();
      diags_.report(diag::DiagId::LinkUnsupportedOp, op.loc())
          .arg("op", std::string(op.name())).arg("target", target_).arg("reason", "unknown combining kind '" + std::string(kind) + "'");
      return nullptr;
    }
    // The group's first item starts its slot.
    b.CreateAlignedStore(b.CreateSelect(b.CreateICmpEQ(b.CreateURem(item, group), b.getInt64(0)), value, folded), target,
                         llvm::Align(16));
    item->addIncoming(b.CreateAdd(item, b.getInt64(1)), b.GetInsertBlock());
    b.CreateBr(header);
    b.SetInsertPoint(exit);
    b.CreateRetVoid();
    return f;
  }

  bool lowerPhase(const Operation &def, unsigned p, llvm::Function &f, size_t leading, const KernelCoordinates &coordinates,
                  std::unordered_map<const Operation *, unsigned> &phase,
                  const std::unordered_map<const Value *, uint64_t> &slots,
                  const std::unordered_map<const Operation *, unsigned> &shared, uint64_t spillBytes) {
    FunctionState state;
    state.function = &f;
    state.coordinates = &coordinates;
    state.subgroupSize = subgroupSize(def);
    FunctionState *outer = fn_;
    fn_ = &state;
    llvm::IRBuilder<> builder(context_);
    llvm::IRBuilder<> *outerBuilder = b_;
    b_ = &builder;
    bool ok = true;
    try {
      llvm::IRBuilder<> &b = builder;
      b.SetInsertPoint(llvm::BasicBlock::Create(context_, "entry", &f));
      const loom::Block &block = *def.region(1)->entryBlock();
      std::span<Value *const> args = block.arguments();
      for (size_t i = 0; i < args.size(); ++i) state.values[args[i]].value = f.getArg(unsigned(leading + 2 + i));
      // This work-item's spill slots: spill + linear id * spillBytes.
      llvm::Value *linear = b.CreateAdd(
          b.CreateMul(b.CreateAdd(b.CreateMul(coordinates.coordinate(b, f, "workitem.id", 2), coordinates.coordinate(b, f, "workgroup.size", 1)),
                                  coordinates.coordinate(b, f, "workitem.id", 1)),
                      coordinates.coordinate(b, f, "workgroup.size", 0)),
          coordinates.coordinate(b, f, "workitem.id", 0));
      llvm::Value *mine = b.CreateGEP(b.getInt8Ty(), f.getArg(unsigned(leading)), b.CreateMul(linear, i64(int64_t(spillBytes))));
      llvm::Value *sharedArray = f.getArg(unsigned(leading + 1));
      bool returned = false;
      for (const Operation &op : block) {
        unsigned q = phase[&op];
        if (q > p) {
          // The next phase starts with a workgroup reduction: publish this item's operand.
          if (isGroupReduce(op) && q == p + 1)
            b.CreateAlignedStore(get(op.operand(0)), b.CreateConstGEP1_64(b.getInt8Ty(), mine, slots.at(op.operand(0))), llvm::Align(16));
          break;
        }
        if (isBarrier(op)) continue;
        if (auto s = shared.find(&op); s != shared.end()) {
          llvm::Value *storage = b.CreateAlignedLoad(b.getPtrTy(), b.CreateConstGEP1_64(b.getPtrTy(), sharedArray, s->second), llvm::Align(8));
          // A reduction's value is its group's combined slot; an allocation is the storage.
          if (isGroupReduce(op)) {
            llvm::Value *group = isWorkgroupReduce(op) ? i64(0) : b.CreateUDiv(linear, i64(int64_t(state.subgroupSize)));
            storage = b.CreateGEP(b.getInt8Ty(), storage, b.CreateMul(group, i64(16)));
            set(op, 0, b.CreateAlignedLoad(valueType(*op.result(0)->type(), &op), storage, llvm::Align(16)));
          } else {
            set(op, 0, storage);
          }
          continue;
        }
        if (q < p && isEffectful(op)) {
          for (unsigned i = 0; i < op.numResults(); ++i)
            if (auto slot = slots.find(op.result(i)); slot != slots.end()) {
              llvm::Type *type = valueType(*op.result(i)->type(), &op);
              set(op, i, b.CreateAlignedLoad(type, b.CreateConstGEP1_64(b.getInt8Ty(), mine, slot->second), llvm::Align(16)));
            }
          continue;
        }
        if (op.name() == "kernel.return") returned = true;
        lowerOp(op);  // this phase's ops, and earlier phases' pure ops (rematerialized)
        if (q == p)
          for (unsigned i = 0; i < op.numResults(); ++i)
            if (auto slot = slots.find(op.result(i)); slot != slots.end())
              b.CreateAlignedStore(get(op.result(i)), b.CreateConstGEP1_64(b.getInt8Ty(), mine, slot->second), llvm::Align(16));
      }
      if (!returned) b.CreateRetVoid();
    } catch (const LoweringError &) {
      f.deleteBody();
      ok = false;
    }
    fn_ = outer;
    b_ = outerBuilder;
    return ok;
  }

private:
  llvm::ArrayType *configType() { return llvm::ArrayType::get(llvm::Type::getInt64Ty(context_), 6); }

  llvm::Type *resultType(const std::vector<const loom::Type *> &results, const Operation &def) {
    if (results.empty()) return llvm::Type::getVoidTy(context_);
    std::vector<llvm::Type *> types;
    for (const loom::Type *t : results) {
      llvm::Type *lt = paramType(*t, def);
      if (!lt) return nullptr;
      types.push_back(lt);
    }
    return types.size() == 1 ? types[0] : llvm::StructType::get(context_, types);
  }

  // Per-function lowering state.
  struct FunctionState {
    llvm::Function *function = nullptr;
    const KernelCoordinates *coordinates = nullptr;
    std::unordered_map<const Value *, Lowered> values;
    std::unordered_map<const loom::Block *, llvm::BasicBlock *> blocks;
    std::unordered_map<const loom::Block *, std::vector<llvm::PHINode *>> blockArgs;
    uint64_t subgroupSize = 32;  // a kernel's (its target record's subgroup_size)
  };

  void lowerBody(const Operation &def, unsigned region, llvm::Function &f, size_t leading,
                 const KernelCoordinates *coordinates) {
    FunctionState state;
    state.function = &f;
    state.coordinates = coordinates;
    if (coordinates) state.subgroupSize = subgroupSize(def);
    FunctionState *outer = fn_;
    fn_ = &state;
    llvm::IRBuilder<> builder(context_);
    llvm::IRBuilder<> *outerBuilder = b_;
    b_ = &builder;
    try {
      const loom::Region &body = *def.region(region);
      llvm::BasicBlock *entry = llvm::BasicBlock::Create(context_, "entry", &f);
      builder.SetInsertPoint(entry);
      std::span<Value *const> args = body.entryBlock()->arguments();
      for (size_t i = 0; i < args.size(); ++i) {
        llvm::Argument *a = f.getArg(unsigned(leading + i));
        a->setName(std::string(args[i]->name()));
        state.values[args[i]].value = a;
      }
      for (const loom::Block *block : body.blocks())
        state.blocks[block] = block == body.entryBlock() ? entry : llvm::BasicBlock::Create(context_, std::string(block->label()), &f);
      for (const loom::Block *block : body.blocks()) {
        if (block == body.entryBlock()) continue;
        builder.SetInsertPoint(state.blocks[block]);
        for (const Value *arg : block->arguments()) {
          llvm::PHINode *phi = builder.CreatePHI(valueType(*arg->type(), &def), 2, std::string(arg->name()));
          state.blockArgs[block].push_back(phi);
          state.values[arg].value = phi;
        }
      }
      for (const loom::Block *block : body.blocks()) {
        llvm::BasicBlock *bb = state.blocks[block];
        builder.SetInsertPoint(bb, bb->getFirstNonPHIIt());
        for (const Operation &op : *block) lowerOp(op);
      }
    } catch (const LoweringError &) {
      f.deleteBody();
    }
    fn_ = outer;
    b_ = outerBuilder;
  }

  // ---- values ---------------------------------------------------------------------------------

  Lowered &lowered(const Value *v) { return fn_->values[v]; }
  llvm::Value *get(const Value *v) {
    llvm::Value *value = lowered(v).value;
    if (!value) throw LoweringError{};  // the defining op was reported already
    return value;
  }
  llvm::Value *operand(const Operation &op, std::string_view group) {
    const Value *v = op.operandNamed(group);
    if (!v) unsupported(op, "missing operand '" + std::string(group) + "'");
    return get(v);
  }
  void set(const Operation &op, unsigned i, llvm::Value *v) { lowered(op.result(i)).value = v; }

  llvm::Value *i64(int64_t v) { return b_->getInt64(uint64_t(v)); }

  int64_t constantInt(const Operation &op, const Value *v, const char *what) {
    std::optional<int64_t> folded = program_.evaluateInteger(v);
    if (!folded) unsupported(op, std::string(what) + " must be a specialization constant");
    return *folded;
  }

  llvm::AllocaInst *entryAlloca(llvm::Type *type, uint64_t align = 64) {
    llvm::IRBuilder<> entry(&fn_->function->getEntryBlock(), fn_->function->getEntryBlock().begin());
    llvm::AllocaInst *slot = entry.CreateAlloca(type);
    slot->setAlignment(llvm::Align(align));
    return slot;
  }

  // ---- ops ------------------------------------------------------------------------------------

  void lowerOp(const Operation &op) {
    std::string_view n = op.name();
    size_t dot = n.find('.');
    std::string_view dialect = n.substr(0, dot);
    std::string_view rest = dot == std::string_view::npos ? std::string_view() : n.substr(dot + 1);
    if (dialect == "index" || dialect == "scalar") return lowerArith(op, rest);
    if (dialect == "vector") return lowerVector(op, rest);
    if (dialect == "buffer" || dialect == "view") return lowerMemory(op, n);
    if (dialect == "scf" || dialect == "cfg") return lowerControl(op, n);
    if (dialect == "func") return lowerFunc(op, rest);
    if (dialect == "kernel") return lowerKernel(op, rest);
    if (n == "config.get") return lowerConfigGet(op);
    if (n == "encoding.define") {
      lowered(op.result(0)).encoding = op.attr("encoding");
      return;
    }
    unsupported(op, "no lowering for this op");
  }

  void lowerConfigGet(const Operation &op) {
    auto it = program_.config.find(ir::symbolRef(op));
    if (it == program_.config.end()) unsupported(op, "the configuration value is not bound");
    llvm::Type *type = valueType(*op.result(0)->type(), &op);
    set(op, 0, it->second.isFloat ? llvm::ConstantFP::get(type, it->second.floating)
                                  : llvm::ConstantInt::get(type, uint64_t(it->second.integer), true));
  }

  llvm::Constant *literal(const Operation &op, llvm::Type *type) {
    const loom::Attribute *v = op.attr("value");
    if (!v) unsupported(op, "missing value");
    llvm::Type *scalar = type->getScalarType();
    llvm::Constant *c = nullptr;
    if (scalar->isFloatingPointTy())
      c = llvm::ConstantFP::get(scalar, v->kind() == loom::AttrKind::Float ? v->floating() : double(v->integer()));
    else if (v->kind() == loom::AttrKind::Bool)
      c = llvm::ConstantInt::get(scalar, v->boolean() ? 1 : 0);
    else if (v->kind() == loom::AttrKind::Integer)
      c = llvm::ConstantInt::get(scalar, uint64_t(v->integer()), true);
    else
      unsupported(op, "a non-numeric constant");
    if (auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(type)) return llvm::ConstantVector::getSplat(vt->getElementCount(), c);
    return c;
  }

  static std::optional<llvm::CmpInst::Predicate> intPredicate(std::string_view p) {
    static const std::map<std::string_view, llvm::CmpInst::Predicate> table = {
        {"eq", llvm::CmpInst::ICMP_EQ},   {"ne", llvm::CmpInst::ICMP_NE},   {"slt", llvm::CmpInst::ICMP_SLT},
        {"sle", llvm::CmpInst::ICMP_SLE}, {"sgt", llvm::CmpInst::ICMP_SGT}, {"sge", llvm::CmpInst::ICMP_SGE},
        {"ult", llvm::CmpInst::ICMP_ULT}, {"ule", llvm::CmpInst::ICMP_ULE}, {"ugt", llvm::CmpInst::ICMP_UGT},
        {"uge", llvm::CmpInst::ICMP_UGE}};
    auto it = table.find(p);
    if (it == table.end()) return std::nullopt;
    return it->second;
  }

  static std::optional<llvm::CmpInst::Predicate> floatPredicate(std::string_view p) {
    static const std::map<std::string_view, llvm::CmpInst::Predicate> table = {
        {"oeq", llvm::CmpInst::FCMP_OEQ}, {"ogt", llvm::CmpInst::FCMP_OGT}, {"oge", llvm::CmpInst::FCMP_OGE},
        {"olt", llvm::CmpInst::FCMP_OLT}, {"ole", llvm::CmpInst::FCMP_OLE}, {"one", llvm::CmpInst::FCMP_ONE},
        {"ord", llvm::CmpInst::FCMP_ORD}, {"ueq", llvm::CmpInst::FCMP_UEQ}, {"ugt", llvm::CmpInst::FCMP_UGT},
        {"uge", llvm::CmpInst::FCMP_UGE}, {"ult", llvm::CmpInst::FCMP_ULT}, {"ule", llvm::CmpInst::FCMP_ULE},
        {"une", llvm::CmpInst::FCMP_UNE}, {"uno", llvm::CmpInst::FCMP_UNO}};
    auto it = table.find(p);
    if (it == table.end()) return std::nullopt;
    return it->second;
  }

  llvm::Value *intrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Value *> args) {
    return b_->CreateIntrinsic(id, {args[0]->getType()}, args);
  }

  // Fast-math flags from the op's template (`<fast>`, `<nnan|ninf>`, `<reassoc>`).
  llvm::FastMathFlags fastMath(const Operation &op) {
    llvm::FastMathFlags flags;
    for (const loom::Attribute *t : op.templateParams()) {
      std::vector<const loom::Attribute *> idents;
      if (t->kind() == loom::AttrKind::Flags)
        for (const loom::Attribute *e : t->elements()) idents.push_back(e);
      else
        idents.push_back(t);
      for (const loom::Attribute *i : idents) {
        std::string_view s = i->str();
        if (s == "fast") flags.setFast();
        if (s == "reassoc") flags.setAllowReassoc();
        if (s == "nnan") flags.setNoNaNs();
        if (s == "ninf") flags.setNoInfs();
        if (s == "nsz") flags.setNoSignedZeros();
        if (s == "arcp") flags.setAllowReciprocal();
        if (s == "contract") flags.setAllowContract();
        if (s == "afn") flags.setApproxFunc();
      }
    }
    return flags;
  }

  // Arithmetic shared by index.*, scalar.* and the lane-wise vector.* ops.
  void lowerArith(const Operation &op, std::string_view name) {
    llvm::IRBuilder<>::FastMathFlagGuard guard(*b_);
    b_->setFastMathFlags(fastMath(op));
    if (name == "constant") return set(op, 0, literal(op, valueType(*op.result(0)->type(), &op)));
    if (name == "poison") return set(op, 0, llvm::PoisonValue::get(valueType(*op.result(0)->type(), &op)));
    if (name == "assume") {
      for (unsigned i = 0; i < op.numResults(); ++i) lowered(op.result(i)) = lowered(op.operand(i));
      return;
    }
    if (llvm::Value *r = arith(op, name)) return set(op, 0, r);
    unsupported(op, "no lowering for this op");
  }

  llvm::Value *arith(const Operation &op, std::string_view name) {
    llvm::IRBuilder<> &b = *b_;
    if (name == "cast") return indexCast(op);
    if (name == "cmp" || name == "cmpi" || name == "cmpf") {
      const loom::Attribute *p = op.attr("predicate");
      std::string_view spelling = p ? p->str() : "";
      llvm::Value *l = operand(op, "lhs"), *r = operand(op, "rhs");
      if (name == "cmpf") {
        auto pred = floatPredicate(spelling);
        if (!pred) unsupported(op, "unknown predicate '" + std::string(spelling) + "'");
        return b.CreateFCmp(*pred, l, r);
      }
      auto pred = intPredicate(spelling);
      if (!pred) unsupported(op, "unknown predicate '" + std::string(spelling) + "'");
      return b.CreateICmp(*pred, l, r);
    }
    if (const Value *in = op.operandNamed("in"); in && op.numOperands() == 1) {
      llvm::Value *x = get(in);
      llvm::Type *to = op.numResults() ? valueType(*op.result(0)->type(), &op) : nullptr;
      if (name == "extsi") return b.CreateSExt(x, to);
      if (name == "extui") return b.CreateZExt(x, to);
      if (name == "trunci") return b.CreateTrunc(x, to);
      if (name == "extf") return b.CreateFPExt(x, to);
      if (name == "fptrunc") return truncateFloat(x, to);
      if (name == "sitofp") return b.CreateSIToFP(x, to);
      if (name == "uitofp") return b.CreateUIToFP(x, to);
      if (name == "fptosi") return b.CreateFPToSI(x, to);
      if (name == "fptoui") return b.CreateFPToUI(x, to);
      if (name == "bitcast") return b.CreateBitCast(x, to);
      if (name == "negi") return b.CreateNeg(x);
      if (name == "absi") return b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, b.getFalse());
      if (name == "ctlzi") return b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x, b.getFalse());
      if (name == "cttzi") return b.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, x, b.getFalse());
      if (name == "ctpopi") return intrinsic(llvm::Intrinsic::ctpop, {x});
      if (name == "negf") return b.CreateFNeg(x);
      if (name == "rsqrtf") return b.CreateFDiv(llvm::ConstantFP::get(x->getType(), 1.0), intrinsic(llvm::Intrinsic::sqrt, {x}));
      if (name == "isnanf") return b.CreateFCmpUNO(x, x);
      if (name == "isinff") return b.CreateFCmpOEQ(intrinsic(llvm::Intrinsic::fabs, {x}), llvm::ConstantFP::getInfinity(x->getType()));
      if (name == "isfinitef") return b.CreateFCmpONE(intrinsic(llvm::Intrinsic::fabs, {x}), llvm::ConstantFP::getInfinity(x->getType()));
      static const std::map<std::string_view, llvm::Intrinsic::ID> unary = {
          {"absf", llvm::Intrinsic::fabs},        {"expf", llvm::Intrinsic::exp},     {"exp2f", llvm::Intrinsic::exp2},
          {"logf", llvm::Intrinsic::log},         {"log2f", llvm::Intrinsic::log2},   {"log10f", llvm::Intrinsic::log10},
          {"sqrtf", llvm::Intrinsic::sqrt},       {"sinf", llvm::Intrinsic::sin},     {"cosf", llvm::Intrinsic::cos},
          {"tanf", llvm::Intrinsic::tan},         {"asinf", llvm::Intrinsic::asin},   {"acosf", llvm::Intrinsic::acos},
          {"atanf", llvm::Intrinsic::atan},       {"sinhf", llvm::Intrinsic::sinh},   {"coshf", llvm::Intrinsic::cosh},
          {"tanhf", llvm::Intrinsic::tanh},       {"ceilf", llvm::Intrinsic::ceil},   {"floorf", llvm::Intrinsic::floor},
          {"roundf", llvm::Intrinsic::round},     {"roundevenf", llvm::Intrinsic::roundeven},
          {"truncf", llvm::Intrinsic::trunc}};
      if (auto it = unary.find(name); it != unary.end()) return intrinsic(it->second, {x});
      return nullptr;
    }
    if (name == "fmaf") return intrinsic(llvm::Intrinsic::fma, {operand(op, "a"), operand(op, "b"), operand(op, "c")});
    if (name == "madd" || name == "fmai")
      return b.CreateAdd(b.CreateMul(operand(op, "a"), operand(op, "b")), operand(op, "c"));
    if (!op.operandNamed("lhs") || !op.operandNamed("rhs")) return nullptr;
    llvm::Value *l = operand(op, "lhs"), *r = operand(op, "rhs");
    if (name == "scale") return b.CreateMul(l, r);
    static const std::map<std::string_view, llvm::Instruction::BinaryOps> binary = {
        {"add", llvm::Instruction::Add},   {"addi", llvm::Instruction::Add},   {"sub", llvm::Instruction::Sub},
        {"subi", llvm::Instruction::Sub},  {"mul", llvm::Instruction::Mul},    {"muli", llvm::Instruction::Mul},
        {"div", llvm::Instruction::SDiv},  {"divsi", llvm::Instruction::SDiv}, {"divui", llvm::Instruction::UDiv},
        {"rem", llvm::Instruction::SRem},  {"remsi", llvm::Instruction::SRem}, {"remui", llvm::Instruction::URem},
        {"andi", llvm::Instruction::And},  {"ori", llvm::Instruction::Or},     {"xori", llvm::Instruction::Xor},
        {"shli", llvm::Instruction::Shl},  {"shrsi", llvm::Instruction::AShr}, {"shrui", llvm::Instruction::LShr},
        {"addf", llvm::Instruction::FAdd}, {"subf", llvm::Instruction::FSub},  {"mulf", llvm::Instruction::FMul},
        {"divf", llvm::Instruction::FDiv}, {"remf", llvm::Instruction::FRem}};
    if (auto it = binary.find(name); it != binary.end()) return b.CreateBinOp(it->second, l, r);
    static const std::map<std::string_view, llvm::Intrinsic::ID> binaryIntrinsics = {
        {"min", llvm::Intrinsic::smin},          {"minsi", llvm::Intrinsic::smin},       {"max", llvm::Intrinsic::smax},
        {"maxsi", llvm::Intrinsic::smax},        {"minui", llvm::Intrinsic::umin},       {"maxui", llvm::Intrinsic::umax},
        {"minimumf", llvm::Intrinsic::minimum},  {"maximumf", llvm::Intrinsic::maximum}, {"minnumf", llvm::Intrinsic::minnum},
        {"maxnumf", llvm::Intrinsic::maxnum},    {"copysignf", llvm::Intrinsic::copysign}, {"powf", llvm::Intrinsic::pow},
        {"atan2f", llvm::Intrinsic::atan2}};
    if (auto it = binaryIntrinsics.find(name); it != binaryIntrinsics.end()) return b.CreateBinaryIntrinsic(it->second, l, r);
    if (name == "rotli" || name == "rotri")
      return b.CreateIntrinsic(name == "rotli" ? llvm::Intrinsic::fshl : llvm::Intrinsic::fshr, {l->getType()}, {l, l, r});
    if (name == "ceildivui") {
      llvm::Value *one = llvm::ConstantInt::get(l->getType(), 1);
      return b.CreateSelect(b.CreateICmpEQ(l, llvm::Constant::getNullValue(l->getType())), l,
                            b.CreateAdd(b.CreateUDiv(b.CreateSub(l, one), r), one));
    }
    if (name == "ceildivsi" || name == "floordivsi") {
      // Round the truncated quotient toward +inf / -inf when the remainder is nonzero.
      llvm::Value *q = b.CreateSDiv(l, r), *rem = b.CreateSRem(l, r);
      llvm::Value *zero = llvm::Constant::getNullValue(l->getType());
      llvm::Value *sameSign = b.CreateICmpEQ(b.CreateICmpSLT(l, zero), b.CreateICmpSLT(r, zero));
      llvm::Value *inexact = b.CreateICmpNE(rem, zero);
      llvm::Value *adjust = name == "ceildivsi" ? b.CreateAnd(inexact, sameSign) : b.CreateAnd(inexact, b.CreateNot(sameSign));
      llvm::Value *delta = llvm::ConstantInt::get(l->getType(), name == "ceildivsi" ? 1 : uint64_t(-1), true);
      return b.CreateSelect(adjust, b.CreateAdd(q, delta), q);
    }
    return nullptr;
  }

  // f32 → bf16 keeps the top 16 bits (truncation, as the product does); other narrowings round
  // to nearest even.
  llvm::Value *truncateFloat(llvm::Value *x, llvm::Type *to) {
    llvm::IRBuilder<> &b = *b_;
    if (!to->getScalarType()->isBFloatTy() || !x->getType()->getScalarType()->isFloatTy()) return b.CreateFPTrunc(x, to);
    llvm::Type *i32 = b.getInt32Ty(), *i16 = b.getInt16Ty();
    if (auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType())) {
      i32 = llvm::FixedVectorType::get(i32, vt->getNumElements());
      i16 = llvm::FixedVectorType::get(i16, vt->getNumElements());
    }
    llvm::Value *bits = b.CreateBitCast(x, i32);
    return b.CreateBitCast(b.CreateTrunc(b.CreateLShr(bits, llvm::ConstantInt::get(i32, 16)), i16), to);
  }

  llvm::Value *indexCast(const Operation &op) {
    const Value *in = op.operandNamed("in");
    const loom::Type &from = *in->type(), &to = *op.result(0)->type();
    llvm::Value *x = get(in);
    llvm::Type *target = valueType(to, &op);
    unsigned fromBits = x->getType()->getIntegerBitWidth(), toBits = target->getIntegerBitWidth();
    if (fromBits == toBits) return x;
    if (fromBits > toBits) return b_->CreateTrunc(x, target);
    bool zeroExtend = to.isOffset() || from.isInteger(1) || from.isOffset();
    return zeroExtend ? b_->CreateZExt(x, target) : b_->CreateSExt(x, target);
  }

  // ---- vector ---------------------------------------------------------------------------------

  void lowerVector(const Operation &op, std::string_view name) {
    llvm::IRBuilder<> &b = *b_;
    llvm::IRBuilder<>::FastMathFlagGuard guard(b);
    b.setFastMathFlags(fastMath(op));
    llvm::Type *resultType = op.numResults() ? valueType(*op.result(0)->type(), &op) : nullptr;
    if (name == "load" || name == "store" || name == "load.mask" || name == "store.mask" || name == "fragment.load" ||
        name == "fragment.store")
      return lowerVectorMemory(op, name);
    if (name == "constant") return set(op, 0, literal(op, resultType));
    if (name == "splat") {
      auto *vt = llvm::cast<llvm::FixedVectorType>(resultType);
      return set(op, 0, b.CreateVectorSplat(vt->getNumElements(), operand(op, "in")));
    }
    if (name == "iota") {
      auto *vt = llvm::cast<llvm::FixedVectorType>(resultType);
      llvm::Type *element = vt->getElementType();
      auto convert = [&](llvm::Value *v) -> llvm::Value * {
        if (v->getType() == element) return v;
        if (element->isFloatingPointTy()) return b.CreateSIToFP(v, element);
        return b.CreateSExtOrTrunc(v, element);
      };
      llvm::Value *base = b.CreateVectorSplat(vt->getNumElements(), convert(operand(op, "base")));
      llvm::Value *step = b.CreateVectorSplat(vt->getNumElements(), convert(operand(op, "step")));
      std::vector<llvm::Constant *> lanes;
      for (unsigned i = 0; i < vt->getNumElements(); ++i)
        lanes.push_back(element->isFloatingPointTy() ? llvm::ConstantFP::get(element, double(i)) : llvm::ConstantInt::get(element, i));
      llvm::Value *laneVector = llvm::ConstantVector::get(lanes);
      return set(op, 0, element->isFloatingPointTy() ? b.CreateFAdd(base, b.CreateFMul(laneVector, step))
                                                     : b.CreateAdd(base, b.CreateMul(laneVector, step)));
    }
    if (name == "mask.range") {
      auto *vt = llvm::cast<llvm::FixedVectorType>(resultType);
      unsigned n = vt->getNumElements();
      llvm::Value *lo = operand(op, "lo"), *hi = operand(op, "hi"), *step = operand(op, "step");
      std::vector<llvm::Constant *> lanes;
      for (unsigned i = 0; i < n; ++i) lanes.push_back(b.getInt64(i));
      llvm::Value *positions = b.CreateAdd(b.CreateVectorSplat(n, lo), b.CreateMul(llvm::ConstantVector::get(lanes), b.CreateVectorSplat(n, step)));
      bool unsignedDomain = op.operandNamed("lo")->type()->isOffset();
      return set(op, 0, unsignedDomain ? b.CreateICmpULT(positions, b.CreateVectorSplat(n, hi))
                                       : b.CreateICmpSLT(positions, b.CreateVectorSplat(n, hi)));
    }
    if (name == "select") return set(op, 0, b.CreateSelect(operand(op, "mask"), operand(op, "true"), operand(op, "false")));
    if (name == "reduce") return set(op, 0, reduce(op));
    if (name == "dotf") {
      llvm::Value *products = b.CreateFMul(operand(op, "lhs"), operand(op, "rhs"));
      return set(op, 0, b.CreateFAddReduce(operand(op, "init"), products));
    }
    if (name == "fragment") {
      Lowered &out = lowered(op.result(0));
      out = lowered(op.operandNamed("in"));
      out.fragmentShape.clear();
      for (const ir::IndexEntry &e : ir::indexList(op, "shape"))
        out.fragmentShape.push_back(std::holds_alternative<int64_t>(e) ? std::get<int64_t>(e)
                                                                       : constantInt(op, std::get<const Value *>(e), "a fragment shape"));
      if (const loom::Attribute *uses = op.attr("using"))
        if (const loom::Attribute *schema = uses->get("schema"); schema && schema->value())
          out.encoding = lowered(schema->value()).encoding;
      return;
    }
    if (name == "encode") return lowerEncode(op);
    if (name == "mma") return lowerMma(op);
    if (llvm::Value *r = arith(op, name)) return set(op, 0, r);
    unsupported(op, "no lowering for this op");
  }

  llvm::Value *reduce(const Operation &op) {
    llvm::IRBuilder<> &b = *b_;
    const loom::Attribute *kind = op.templateParam(0);
    std::string_view k = kind ? kind->str() : "";
    if (kind && kind->kind() == loom::AttrKind::Flags && !kind->elements().empty()) k = kind->elements()[0]->str();
    llvm::Value *v = operand(op, "in"), *init = operand(op, "init");
    for (const loom::Attribute *t : op.templateParams())
      if (t->str() == "reassoc") b.getFastMathFlags().setAllowReassoc();
    if (k == "addf") return b.CreateFAddReduce(init, v);
    if (k == "mulf") return b.CreateFMulReduce(init, v);
    if (k == "addi") return b.CreateAdd(init, b.CreateAddReduce(v));
    if (k == "muli") return b.CreateMul(init, b.CreateMulReduce(v));
    if (k == "andi") return b.CreateAnd(init, b.CreateAndReduce(v));
    if (k == "ori") return b.CreateOr(init, b.CreateOrReduce(v));
    if (k == "xori") return b.CreateXor(init, b.CreateXorReduce(v));
    if (k == "maxsi") return b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, init, b.CreateIntMaxReduce(v, true));
    if (k == "minsi") return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, init, b.CreateIntMinReduce(v, true));
    if (k == "maxui") return b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, init, b.CreateIntMaxReduce(v, false));
    if (k == "minui") return b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, init, b.CreateIntMinReduce(v, false));
    if (k == "maxnumf") return b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, init, b.CreateFPMaxReduce(v));
    if (k == "minnumf") return b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, init, b.CreateFPMinReduce(v));
    if (k == "maximumf") return b.CreateBinaryIntrinsic(llvm::Intrinsic::maximum, init, b.CreateFPMaximumReduce(v));
    if (k == "minimumf") return b.CreateBinaryIntrinsic(llvm::Intrinsic::minimum, init, b.CreateFPMinimumReduce(v));
    unsupported(op, "unknown combining kind '" + std::string(k) + "'");
  }

  static bool isBfp16ebs8(const loom::Attribute *encoding) {
    if (!encoding) return false;
    const loom::Attribute *format = encoding->get("element_format");
    return format && format->str() == "bfp16ebs8";
  }

  void lowerEncode(const Operation &op) {
    const Value *schema = op.operandNamed("schema");
    const loom::Attribute *encoding = schema ? lowered(schema).encoding : nullptr;
    if (!isBfp16ebs8(encoding)) unsupported(op, "only the bfp16ebs8 element format is implemented");
    const loom::Type &inType = *op.operandNamed("in")->type();
    int64_t count = inType.staticElementCount();
    const loom::Type &element = *inType.elementType();
    bool bf16 = element.isFloat() && element.floatKind() == loom::FloatKind::BF16;
    bool f32 = element.isFloat() && element.floatKind() == loom::FloatKind::F32;
    if (count <= 0 || count % 8 != 0 || (!bf16 && !f32))
      unsupported(op, "bfp16ebs8 encodes bf16 or f32 vectors whose length is a multiple of 8");
    if (op.result(0)->type()->staticElementCount() != count / 8 * 9 || !op.result(0)->type()->elementType()->isInteger(8))
      unsupported(op, "a bfp16ebs8 payload of " + std::to_string(count) + " values is vector<" + std::to_string(count / 8 * 9) + "xi8>");
    llvm::Value *in = operand(op, "in");
    llvm::AllocaInst *source = entryAlloca(in->getType());
    llvm::Type *payloadType = valueType(*op.result(0)->type(), &op);
    llvm::AllocaInst *payload = entryAlloca(payloadType);
    b_->CreateStore(in, source);
    b_->CreateCall(declareBuiltin(module_, bf16 ? kBfpEncodeBf16 : kBfpEncodeF32), {source, payload, b_->getInt32(uint32_t(count / 8))});
    set(op, 0, b_->CreateLoad(payloadType, payload));
    lowered(op.result(0)).encoding = encoding;
  }

  // vector.mma: out = acc + lhs(m×k) · rhs(k×n), row-major fragments.
  void lowerMma(const Operation &op) {
    const Lowered &lhs = lowered(op.operandNamed("lhs"));
    const Lowered &rhs = lowered(op.operandNamed("rhs"));
    const Lowered &acc = lowered(op.operandNamed("acc"));
    if (lhs.fragmentShape.size() != 2 || rhs.fragmentShape.size() != 2)
      unsupported(op, "the operands need vector.fragment shapes [m, k] and [k, n]");
    int64_t m = lhs.fragmentShape[0], k = lhs.fragmentShape[1], n = rhs.fragmentShape[1];
    if (rhs.fragmentShape[0] != k) unsupported(op, "the fragment shapes do not chain (lhs m×k, rhs k×n)");
    llvm::Type *accType = valueType(*op.operandNamed("acc")->type(), &op);
    auto *accVector = llvm::dyn_cast<llvm::FixedVectorType>(accType);
    if (!accVector || accVector->getNumElements() != uint64_t(m * n))
      unsupported(op, "the accumulator must hold m×n = " + std::to_string(m * n) + " values");
    llvm::IRBuilder<> &b = *b_;
    if (isBfp16ebs8(lhs.encoding) || isBfp16ebs8(rhs.encoding)) {
      if (!isBfp16ebs8(lhs.encoding) || !isBfp16ebs8(rhs.encoding) || !accVector->getElementType()->isFloatTy())
        unsupported(op, "a bfp16ebs8 MMA needs both operands encoded and an f32 accumulator");
      auto payloadFits = [&](const char *group, int64_t values) {
        return values % 8 == 0 && op.operandNamed(group)->type()->staticElementCount() == values / 8 * 9;
      };
      if (!payloadFits("lhs", m * k) || !payloadFits("rhs", k * n))
        unsupported(op, "the bfp16ebs8 payloads must hold the m×k and k×n fragments in whole blocks of 8");
      auto spill = [&](llvm::Value *v) {
        llvm::AllocaInst *slot = entryAlloca(v->getType());
        b.CreateStore(v, slot);
        return slot;
      };
      llvm::Value *lhsSlot = spill(get(op.operandNamed("lhs"))), *rhsSlot = spill(get(op.operandNamed("rhs")));
      llvm::Value *accSlot = spill(acc.value ? acc.value : get(op.operandNamed("acc")));
      llvm::AllocaInst *out = entryAlloca(accType);
      b.CreateCall(declareBuiltin(module_, kBfpMma),
                   {lhsSlot, rhsSlot, accSlot, out, b.getInt32(uint32_t(m)), b.getInt32(uint32_t(n)), b.getInt32(uint32_t(k))});
      return set(op, 0, b.CreateLoad(accType, out));
    }
    // Float fragments: each product in the accumulator's type, added in increasing k.
    llvm::Value *a = get(op.operandNamed("lhs")), *bv = get(op.operandNamed("rhs"));
    llvm::Type *accElement = accVector->getElementType();
    if (!accElement->isFloatingPointTy()) unsupported(op, "integer MMA is not implemented");
    llvm::Value *result = get(op.operandNamed("acc"));
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < n; ++c) {
        llvm::Value *sum = b.CreateExtractElement(result, uint64_t(r * n + c));
        for (int64_t i = 0; i < k; ++i) {
          llvm::Value *x = b.CreateFPExt(b.CreateExtractElement(a, uint64_t(r * k + i)), accElement);
          llvm::Value *y = b.CreateFPExt(b.CreateExtractElement(bv, uint64_t(i * n + c)), accElement);
          sum = b.CreateFAdd(sum, b.CreateFMul(x, y));
        }
        result = b.CreateInsertElement(result, sum, uint64_t(r * n + c));
      }
    set(op, 0, result);
  }

  // ---- memory ---------------------------------------------------------------------------------

  std::shared_ptr<ViewValue> view(const Operation &op, std::string_view group) {
    const Value *v = op.operandNamed(group);
    std::shared_ptr<ViewValue> result = v ? lowered(v).view : nullptr;
    if (!result) unsupported(op, "operand '" + std::string(group) + "' is not a lowered view");
    return result;
  }

  std::vector<llvm::Value *> dims(const Operation &op, const loom::Type &type) {
    std::vector<llvm::Value *> out;
    for (const loom::Dim &d : type.shape()) out.push_back(d.isStatic() ? i64(d.extent) : get(d.dynamic));
    return out;
  }

  std::vector<llvm::Value *> indices(const Operation &op, std::string_view group) {
    std::vector<llvm::Value *> out;
    for (const ir::IndexEntry &e : ir::indexList(op, group))
      out.push_back(std::holds_alternative<int64_t>(e) ? i64(std::get<int64_t>(e)) : get(std::get<const Value *>(e)));
    return out;
  }

  llvm::Value *elementAddress(const Operation &op, const ViewValue &v, const std::vector<llvm::Value *> &index) {
    if (index.size() != v.strides.size()) unsupported(op, "the index list must have one entry per view dimension");
    llvm::Value *linear = i64(0);
    for (size_t i = 0; i < index.size(); ++i) linear = b_->CreateAdd(linear, b_->CreateMul(index[i], v.strides[i]));
    uint64_t bytes = ir::elementBytes(*v.type->elementType());
    return b_->CreateGEP(b_->getInt8Ty(), v.base, b_->CreateMul(linear, i64(int64_t(bytes))));
  }

  void lowerMemory(const Operation &op, std::string_view n) {
    llvm::IRBuilder<> &b = *b_;
    if (n == "buffer.view") {
      auto v = std::make_shared<ViewValue>();
      const loom::Type &type = *op.result(0)->type();
      if (!type.slot().empty()) unsupported(op, "views with a layout are not implemented; use row-major views");
      v->type = &type;
      v->base = b.CreateGEP(b.getInt8Ty(), operand(op, "source"), operand(op, "offset"));
      v->coherent = lowered(op.operandNamed("source")).coherent;
      v->extents = dims(op, type);
      v->strides.assign(v->extents.size(), nullptr);
      llvm::Value *stride = i64(1);
      for (size_t i = v->extents.size(); i-- > 0;) {
        v->strides[i] = stride;
        stride = b.CreateMul(stride, v->extents[i]);
      }
      lowered(op.result(0)).view = v;
      return;
    }
    if (n == "view.subview") {
      std::shared_ptr<ViewValue> parent = view(op, "base");
      auto v = std::make_shared<ViewValue>(*parent);
      v->type = op.result(0)->type();
      if (v->type->rank() != parent->strides.size()) unsupported(op, "rank-changing subviews are not implemented");
      v->base = elementAddress(op, *parent, indices(op, "offsets"));
      v->extents = dims(op, *v->type);
      lowered(op.result(0)).view = v;
      return;
    }
    if (n == "view.load") {
      std::shared_ptr<ViewValue> v = view(op, "base");
      llvm::Type *type = valueType(*op.result(0)->type(), &op);
      return set(op, 0, b.CreateAlignedLoad(type, elementAddress(op, *v, indices(op, "indices")), alignOf(*v)));
    }
    if (n == "view.store") {
      std::shared_ptr<ViewValue> v = view(op, "base");
      b.CreateAlignedStore(operand(op, "value"), elementAddress(op, *v, indices(op, "indices")), alignOf(*v));
      return;
    }
    if (n == "buffer.assume.alignment") {
      std::optional<int64_t> align = ir::integerAttr(op, "minimum_alignment");
      for (unsigned i = 0; i < op.numResults(); ++i) {
        llvm::Value *p = get(op.operand(i));
        if (align && *align > 0 && (*align & (*align - 1)) == 0)
          b.CreateAlignmentAssumption(module_.getDataLayout(), p, uint64_t(*align));
        forwardBuffer(op, i);
      }
      return;
    }
    if (n.starts_with("buffer.assume.")) {
      for (unsigned i = 0; i < op.numResults(); ++i) forwardBuffer(op, i);
      if (n == "buffer.assume.memory_space" && op.templateParam(0) && op.templateParam(0)->str() == "host")
        lowered(op.result(0)).coherent = true;
      return;
    }
    if (n.starts_with("view.atomic.")) return lowerAtomic(op, n);
    if (n == "buffer.alloca") {
      const loom::Attribute *space = op.templateParam(0);
      bool workgroup = space && space->str() == "workgroup";
      if (!space || (space->str() != "private" && !workgroup))
        unsupported(op, "only private and workgroup allocations are implemented");
      int64_t bytes = constantInt(op, op.operandNamed("size"), "the allocation size");
      int64_t align = ir::integerAttr(op, "align").value_or(16);
      if (bytes <= 0 || align <= 0 || (align & (align - 1)) != 0) unsupported(op, "a positive size and power-of-two alignment are required");
      if (!workgroup) return set(op, 0, entryAlloca(llvm::ArrayType::get(b.getInt8Ty(), uint64_t(bytes)), uint64_t(align)));
      llvm::Value *storage = fn_->coordinates ? fn_->coordinates->workgroupStorage(b, uint64_t(bytes), uint64_t(align)) : nullptr;
      if (!storage) unsupported(op, "this target has no native workgroup memory (the allocation must be at the top level of a kernel with barriers)");
      set(op, 0, storage);
      return;
    }
    unsupported(op, "no lowering for this op");
  }

  // A buffer.assume.* result is its operand (with the same facts).
  void forwardBuffer(const Operation &op, unsigned i) {
    set(op, i, get(op.operand(i)));
    lowered(op.result(i)).coherent = lowered(op.operand(i)).coherent;
  }

  static llvm::AtomicOrdering atomicOrdering(const Operation &op) {
    const loom::Attribute *ordering = op.attr("ordering");
    std::string_view name = ordering ? ordering->str() : "relaxed";
    if (name == "acquire") return llvm::AtomicOrdering::Acquire;
    if (name == "release") return llvm::AtomicOrdering::Release;
    if (name == "acq_rel") return llvm::AtomicOrdering::AcquireRelease;
    if (name == "seq_cst") return llvm::AtomicOrdering::SequentiallyConsistent;
    return llvm::AtomicOrdering::Monotonic;
  }

  // Loom scopes as LLVM synchronization scopes (the AMDGPU names; other targets treat them as
  // the whole system). No scope is the whole system.
  llvm::SyncScope::ID atomicScope(const Operation &op) {
    const loom::Attribute *scope = op.attr("scope");
    std::string_view name = scope ? scope->str() : "system";
    if (name == "workgroup") return context_.getOrInsertSyncScopeID("workgroup");
    if (name == "subgroup") return context_.getOrInsertSyncScopeID("wavefront");
    if (name == "device" || name == "agent") return context_.getOrInsertSyncScopeID("agent");
    return llvm::SyncScope::System;
  }

  static std::optional<llvm::AtomicRMWInst::BinOp> atomicBinOp(std::string_view kind) {
    static const std::map<std::string_view, llvm::AtomicRMWInst::BinOp> table = {
        {"addi", llvm::AtomicRMWInst::Add},       {"andi", llvm::AtomicRMWInst::And},
        {"ori", llvm::AtomicRMWInst::Or},         {"xori", llvm::AtomicRMWInst::Xor},
        {"maxsi", llvm::AtomicRMWInst::Max},      {"minsi", llvm::AtomicRMWInst::Min},
        {"maxui", llvm::AtomicRMWInst::UMax},     {"minui", llvm::AtomicRMWInst::UMin},
        {"addf", llvm::AtomicRMWInst::FAdd},      {"maxnumf", llvm::AtomicRMWInst::FMax},
        {"minnumf", llvm::AtomicRMWInst::FMin},   {"maximumf", llvm::AtomicRMWInst::FMaximum},
        {"minimumf", llvm::AtomicRMWInst::FMinimum}};
    auto it = table.find(kind);
    if (it == table.end()) return std::nullopt;
    return it->second;
  }

  // view.atomic.reduce / rmw / cmpxchg on one element. A combining kind with no atomicrmw form
  // (muli, mulf), and float max/min on a coherent binding where the target asks for it, become
  // a compare-exchange loop over the value's bits.
  void lowerAtomic(const Operation &op, std::string_view n) {
    llvm::IRBuilder<> &b = *b_;
    std::shared_ptr<ViewValue> v = view(op, "base");
    llvm::Value *address = elementAddress(op, *v, indices(op, "indices"));
    llvm::Value *value = operand(op, "value");
    llvm::Type *type = value->getType();
    if (!type->isIntegerTy() && !type->isFloatingPointTy()) unsupported(op, "atomics apply to scalar integers and floats");
    llvm::Type *bits = b.getIntNTy(unsigned(type->getPrimitiveSizeInBits()));
    llvm::Align align = alignOf(*v);
    llvm::AtomicOrdering ordering = atomicOrdering(op);
    llvm::SyncScope::ID scope = atomicScope(op);
    if (n == "view.atomic.cmpxchg") {
      llvm::Value *expected = b.CreateBitCast(operand(op, "expected"), bits);
      llvm::Value *pair = b.CreateAtomicCmpXchg(address, expected, b.CreateBitCast(value, bits), align, ordering,
                                                llvm::AtomicCmpXchgInst::getStrongestFailureOrdering(ordering), scope);
      return set(op, 0, b.CreateBitCast(b.CreateExtractValue(pair, 0), type));
    }
    if (n != "view.atomic.reduce" && n != "view.atomic.rmw") unsupported(op, "no lowering for this op");
    std::string_view kind = combiningKind(op);
    bool floatMinMax = type->isFloatingPointTy() && (kind.starts_with("max") || kind.starts_with("min"));
    bool loop = !atomicBinOp(kind) || (options_.amdgpuAtomics && v->coherent && floatMinMax);
    llvm::Value *old = nullptr;
    if (!loop) {
      llvm::AtomicRMWInst *rmw = b.CreateAtomicRMW(*atomicBinOp(kind), address, value, align, ordering, scope);
      if (options_.amdgpuAtomics && !v->coherent)
        rmw->setMetadata("amdgpu.no.fine.grained.memory", llvm::MDNode::get(context_, {}));
      old = rmw;
    } else {
      if (atomicBinOp(kind))
        diags_.report(diag::DiagId::AmdgpuCoherentAtomicLoop, op.loc()).arg("kind", std::string(kind)).arg("type", v->type->elementType()->str());
      old = b.CreateBitCast(compareExchangeLoop(op, kind, address, value, align, ordering, scope), type);
    }
    if (n == "view.atomic.rmw") set(op, 0, old);
  }

  // old = *address; until old's bits are unchanged by `kind` or a compare-exchange of them
  // succeeds: new = old `kind` value. Returns the bits of the value before the update.
  llvm::Value *compareExchangeLoop(const Operation &op, std::string_view kind, llvm::Value *address, llvm::Value *value,
                                   llvm::Align align, llvm::AtomicOrdering ordering, llvm::SyncScope::ID scope) {
    llvm::IRBuilder<> &b = *b_;
    llvm::Function *f = fn_->function;
    llvm::Type *type = value->getType();
    llvm::Type *bits = b.getIntNTy(unsigned(type->getPrimitiveSizeInBits()));
    llvm::LoadInst *initial = b.CreateAlignedLoad(bits, address, align);
    initial->setAtomic(llvm::AtomicOrdering::Monotonic, scope);
    llvm::BasicBlock *entry = b.GetInsertBlock();
    llvm::BasicBlock *header = llvm::BasicBlock::Create(context_, "atomic.header", f);
    llvm::BasicBlock *exchange = llvm::BasicBlock::Create(context_, "atomic.exchange", f);
    llvm::BasicBlock *exit = llvm::BasicBlock::Create(context_, "atomic.exit", f);
    b.CreateBr(header);
    b.SetInsertPoint(header);
    llvm::PHINode *current = b.CreatePHI(bits, 2, "atomic.old");
    current->addIncoming(initial, entry);
    llvm::Value *next = combine(b, kind, b.CreateBitCast(current, type), value);
    if (!next) unsupported(op, "unknown combining kind '" + std::string(kind) + "'");
    llvm::Value *nextBits = b.CreateBitCast(next, bits);
    b.CreateCondBr(b.CreateICmpEQ(nextBits, current), exit, exchange);
    b.SetInsertPoint(exchange);
    llvm::Value *pair = b.CreateAtomicCmpXchg(address, current, nextBits, align, ordering,
                                              llvm::AtomicCmpXchgInst::getStrongestFailureOrdering(ordering), scope);
    current->addIncoming(b.CreateExtractValue(pair, 0), exchange);
    b.CreateCondBr(b.CreateExtractValue(pair, 1), exit, header);
    b.SetInsertPoint(exit);
    return current;
  }

  llvm::Align alignOf(const ViewValue &v) { return llvm::Align(std::max<uint64_t>(1, ir::elementBytes(*v.type->elementType()))); }

  // vector.load/store (+ masked, fragment): the vector's axes cover the trailing view axes.
  void lowerVectorMemory(const Operation &op, std::string_view name) {
    llvm::IRBuilder<> &b = *b_;
    bool isLoad = name.find("load") != std::string_view::npos;
    bool masked = name.ends_with(".mask");
    std::shared_ptr<ViewValue> v = view(op, "base");
    const loom::Type &vectorType = isLoad ? *op.result(0)->type() : *op.operandNamed("value")->type();
    std::vector<int64_t> shape;
    if (name.starts_with("fragment")) {
      for (const ir::IndexEntry &e : ir::indexList(op, "shape"))
        shape.push_back(std::holds_alternative<int64_t>(e) ? std::get<int64_t>(e)
                                                           : constantInt(op, std::get<const Value *>(e), "a fragment shape"));
    } else {
      for (const loom::Dim &d : vectorType.shape()) {
        if (!d.isStatic()) unsupported(op, "vector extents must be static");
        shape.push_back(d.extent);
      }
    }
    auto *flat = llvm::cast<llvm::FixedVectorType>(valueType(vectorType, &op));
    int64_t total = 1;
    for (int64_t s : shape) total *= s;
    if (total != int64_t(flat->getNumElements())) unsupported(op, "the fragment shape does not match the vector length");
    std::vector<llvm::Value *> start = indices(op, "indices");
    if (shape.size() > start.size()) unsupported(op, "the vector has more axes than the view");
    llvm::Align align = alignOf(*v);
    if (masked) {
      if (shape.size() != 1) unsupported(op, "masked accesses are implemented for 1-D vectors");
      llvm::Value *address = elementAddress(op, *v, start);
      if (isLoad) return set(op, 0, b.CreateMaskedLoad(flat, address, align, operand(op, "mask"), operand(op, "passthru")));
      b.CreateMaskedStore(operand(op, "value"), address, align, operand(op, "mask"));
      return;
    }
    // One contiguous row access per combination of the leading vector axes, or a single access
    // when the view's strides make the whole vector contiguous.
    size_t lead = start.size() - shape.size();
    auto strideIs = [&](size_t axis, int64_t expected) {
      auto *c = llvm::dyn_cast<llvm::ConstantInt>(v->strides[axis]);
      return c && c->getSExtValue() == expected;
    };
    bool contiguous = strideIs(start.size() - 1, 1);
    for (size_t j = shape.size() - 1, inner = 1; contiguous && j > 0; --j) {
      inner *= size_t(shape[j]);
      contiguous = strideIs(lead + j - 1, int64_t(inner));
    }
    int64_t rowLength = contiguous ? total : shape.back();
    int64_t rows = total / rowLength;
    auto *rowType = llvm::FixedVectorType::get(flat->getElementType(), unsigned(rowLength));
    llvm::Value *value = isLoad ? llvm::PoisonValue::get(flat) : operand(op, "value");
    for (int64_t row = 0; row < rows; ++row) {
      std::vector<llvm::Value *> at = start;
      int64_t rest = row;
      for (size_t axis = shape.size() - 1; axis-- > 0;) {
        at[lead + axis] = b.CreateAdd(at[lead + axis], i64(rest % shape[axis]));
        rest /= shape[axis];
      }
      llvm::Value *address = elementAddress(op, *v, at);
      if (rows == 1) {
        if (isLoad) return set(op, 0, b.CreateAlignedLoad(flat, address, align));
        b.CreateAlignedStore(value, address, align);
        return;
      }
      if (isLoad) {
        llvm::Value *part = b.CreateAlignedLoad(rowType, address, align);
        value = b.CreateInsertVector(flat, value, part, b.getInt64(uint64_t(row * rowLength)));
      } else {
        b.CreateAlignedStore(b.CreateExtractVector(rowType, value, b.getInt64(uint64_t(row * rowLength))), address, align);
      }
    }
    if (isLoad) set(op, 0, value);
  }

  // ---- control flow ---------------------------------------------------------------------------

  // Lowers a single-block structured region; returns the values its scf.yield passes out.
  std::vector<llvm::Value *> lowerRegion(const loom::Region &region) {
    std::vector<llvm::Value *> yielded;
    if (region.empty()) return yielded;
    for (const Operation &op : *region.entryBlock()) {
      if (op.name() == "scf.yield") {
        for (const Value *v : op.operands()) yielded.push_back(get(v));
        break;
      }
      lowerOp(op);
    }
    return yielded;
  }

  void lowerControl(const Operation &op, std::string_view n) {
    llvm::IRBuilder<> &b = *b_;
    llvm::Function *f = fn_->function;
    if (n == "scf.select") return set(op, 0, b.CreateSelect(operand(op, "cond"), operand(op, "true"), operand(op, "false")));
    if (n == "scf.for") {
      const Value *loValue = op.operandNamed("lo");
      llvm::Value *lo = operand(op, "lo"), *hi = operand(op, "hi"), *step = operand(op, "step");
      std::vector<llvm::Value *> inits;
      for (const Value *v : op.operandGroup("inits")) inits.push_back(get(v));
      llvm::BasicBlock *preheader = b.GetInsertBlock();
      llvm::BasicBlock *header = llvm::BasicBlock::Create(context_, "for.header", f);
      llvm::BasicBlock *body = llvm::BasicBlock::Create(context_, "for.body", f);
      llvm::BasicBlock *exit = llvm::BasicBlock::Create(context_, "for.exit", f);
      b.CreateBr(header);
      b.SetInsertPoint(header);
      llvm::PHINode *iv = b.CreatePHI(lo->getType(), 2, "iv");
      iv->addIncoming(lo, preheader);
      std::vector<llvm::PHINode *> carried;
      for (llvm::Value *init : inits) {
        llvm::PHINode *phi = b.CreatePHI(init->getType(), 2);
        phi->addIncoming(init, preheader);
        carried.push_back(phi);
      }
      llvm::Value *more = loValue->type()->isOffset() ? b.CreateICmpULT(iv, hi) : b.CreateICmpSLT(iv, hi);
      b.CreateCondBr(more, body, exit);
      b.SetInsertPoint(body);
      const loom::Block &block = *op.region(0)->entryBlock();
      std::span<Value *const> args = block.arguments();
      if (args.size() != carried.size() + 1) unsupported(op, "the loop region's arguments do not match its iteration values");
      lowered(args[0]).value = iv;
      for (size_t i = 0; i < carried.size(); ++i) lowered(args[i + 1]).value = carried[i];
      std::vector<llvm::Value *> next = lowerRegion(*op.region(0));
      if (next.size() != carried.size()) unsupported(op, "scf.yield must pass one value per iteration argument");
      llvm::Value *ivNext = b.CreateAdd(iv, step, "iv.next", false, !loValue->type()->isOffset());
      llvm::BasicBlock *latch = b.GetInsertBlock();
      b.CreateBr(header);
      iv->addIncoming(ivNext, latch);
      for (size_t i = 0; i < carried.size(); ++i) carried[i]->addIncoming(next[i], latch);
      b.SetInsertPoint(exit);
      for (size_t i = 0; i < carried.size() && i < op.numResults(); ++i) set(op, unsigned(i), carried[i]);
      return;
    }
    if (n == "scf.if") {
      llvm::Value *cond = operand(op, "cond");
      llvm::BasicBlock *thenBlock = llvm::BasicBlock::Create(context_, "if.then", f);
      llvm::BasicBlock *elseBlock = llvm::BasicBlock::Create(context_, "if.else", f);
      llvm::BasicBlock *merge = llvm::BasicBlock::Create(context_, "if.end", f);
      b.CreateCondBr(cond, thenBlock, elseBlock);
      b.SetInsertPoint(thenBlock);
      std::vector<llvm::Value *> thenValues = lowerRegion(*op.region(0));
      llvm::BasicBlock *thenEnd = b.GetInsertBlock();
      b.CreateBr(merge);
      b.SetInsertPoint(elseBlock);
      std::vector<llvm::Value *> elseValues;
      if (op.numRegions() > 1) elseValues = lowerRegion(*op.region(1));
      llvm::BasicBlock *elseEnd = b.GetInsertBlock();
      b.CreateBr(merge);
      b.SetInsertPoint(merge);
      if (op.numResults() && (thenValues.size() != op.numResults() || elseValues.size() != op.numResults()))
        unsupported(op, "both branches must yield one value per result");
      for (unsigned i = 0; i < op.numResults(); ++i) {
        llvm::PHINode *phi = b.CreatePHI(thenValues[i]->getType(), 2);
        phi->addIncoming(thenValues[i], thenEnd);
        phi->addIncoming(elseValues[i], elseEnd);
        set(op, i, phi);
      }
      return;
    }
    if (n == "cfg.br" || n == "cfg.cond_br") {
      std::vector<llvm::BasicBlock *> targets;
      for (unsigned s = 0; s < op.successors().size(); ++s) {
        const loom::Successor &succ = op.successors()[s];
        auto found = fn_->blocks.find(succ.block);
        if (found == fn_->blocks.end()) unsupported(op, "branch target outside the function body");
        std::vector<llvm::PHINode *> &phis = fn_->blockArgs[succ.block];
        std::span<Value *const> passed = op.successorOperands(s);
        if (passed.size() != phis.size()) unsupported(op, "branch operands do not match the block arguments");
        for (size_t i = 0; i < phis.size(); ++i) phis[i]->addIncoming(get(passed[i]), b.GetInsertBlock());
        targets.push_back(found->second);
      }
      if (n == "cfg.br") {
        if (targets.size() != 1) unsupported(op, "cfg.br has one successor");
        b.CreateBr(targets[0]);
      } else {
        if (targets.size() != 2) unsupported(op, "cfg.cond_br has two successors");
        b.CreateCondBr(operand(op, "cond"), targets[0], targets[1]);
      }
      return;
    }
    unsupported(op, "no lowering for this op");
  }

  void lowerFunc(const Operation &op, std::string_view name) {
    llvm::IRBuilder<> &b = *b_;
    if (name == "return") {
      std::vector<llvm::Value *> values;
      for (const Value *v : op.operands()) values.push_back(get(v));
      llvm::Type *ret = fn_->function->getReturnType();
      if (values.empty()) {
        b.CreateRetVoid();
      } else if (values.size() == 1) {
        b.CreateRet(values[0]);
      } else {
        llvm::Value *aggregate = llvm::PoisonValue::get(ret);
        for (unsigned i = 0; i < values.size(); ++i) aggregate = b.CreateInsertValue(aggregate, values[i], i);
        b.CreateRet(aggregate);
      }
      return;
    }
    if (name == "call") {
      const SymbolEntry *callee = program_.lookup(ir::symbolRef(op));
      if (!callee || (!callee->cxx && callee->op->name() != "func.def")) unsupported(op, "the callee has no definition");
      llvm::Function *target = callee->cxx ? external(op, *callee->cxx) : function(*callee->op);
      if (!target) throw LoweringError{};
      std::vector<llvm::Value *> args;
      for (const Value *v : op.operands()) args.push_back(get(v));
      llvm::CallInst *call = b.CreateCall(target, args);
      if (op.numResults() == 1) set(op, 0, call);
      for (unsigned i = 0; op.numResults() > 1 && i < op.numResults(); ++i) set(op, i, b.CreateExtractValue(call, i));
      return;
    }
    unsupported(op, "no lowering for this op");
  }

  // A C/C++ function, called with the C ABI of its scalar and pointer parameters.
  llvm::Function *external(const Operation &call, const cxx::Signature &sig) {
    std::vector<llvm::Type *> params;
    for (const Value *v : call.operands()) {
      if (v->type()->kind() == loom::TypeKind::Vector) unsupported(call, "vectors are passed to C/C++ through buffers, not by value");
      params.push_back(valueType(*v->type(), &call));
    }
    if (call.numResults() && call.result(0)->type()->kind() == loom::TypeKind::Vector)
      unsupported(call, "C/C++ functions return vectors through buffers, not by value");
    llvm::Type *ret = call.numResults() ? valueType(*call.result(0)->type(), &call) : llvm::Type::getVoidTy(context_);
    llvm::FunctionCallee callee = module_.getOrInsertFunction(sig.symbol, llvm::FunctionType::get(ret, params, false));
    return llvm::cast<llvm::Function>(callee.getCallee());
  }

  void lowerKernel(const Operation &op, std::string_view name) {
    llvm::IRBuilder<> &b = *b_;
    if (name == "return") {
      b.CreateRetVoid();
      return;
    }
    if (name == "launch.config") {
      std::vector<llvm::Value *> values;
      for (std::string_view group : {"workgroups", "workgroup_size"}) {
        std::span<Value *const> list = op.operandGroup(group);
        if (list.size() > 3) unsupported(op, "at most three dimensions");
        for (size_t i = 0; i < 3; ++i) values.push_back(i < list.size() ? get(list[i]) : i64(1));
      }
      llvm::Value *aggregate = llvm::PoisonValue::get(configType());
      for (unsigned i = 0; i < 6; ++i) aggregate = b.CreateInsertValue(aggregate, values[i], i);
      b.CreateRet(aggregate);
      return;
    }
    if (name == "barrier") {
      if (!fn_->coordinates || !fn_->coordinates->barrier(b))
        unsupported(op, "this target has no native barrier (a barrier must be at the top level of the kernel body)");
      return;
    }
    if (name == "subgroup.reduce") return set(op, 0, subgroupReduce(op, operand(op, "in")));
    if (name == "workgroup.reduce") return set(op, 0, workgroupReduce(op));
    const loom::Attribute *dimension = op.templateParam(0);
    unsigned dim = 0;
    if (dimension) dim = dimension->str() == "y" ? 1 : dimension->str() == "z" ? 2 : 0;
    if (fn_->coordinates) {
      if (llvm::Value *v = fn_->coordinates->coordinate(b, *fn_->function, name, dim)) return set(op, 0, v);
      if (llvm::Value *v = subgroupCoordinate(name)) return set(op, 0, v);
    }
    unsupported(op, "this kernel operation is not supported by this target");
  }

  static std::string_view combiningKind(const Operation &op) {
    const loom::Attribute *kind = op.templateParam(0);
    if (kind && kind->kind() == loom::AttrKind::Flags && !kind->elements().empty()) return kind->elements()[0]->str();
    return kind ? kind->str() : "";
  }

  // Subgroups where the target has none (the host): consecutive linear work-item ids in groups of
  // the kernel's subgroup size.
  llvm::Value *subgroupCoordinate(std::string_view kind) {
    llvm::IRBuilder<> &b = *b_;
    const KernelCoordinates &c = *fn_->coordinates;
    llvm::Function &f = *fn_->function;
    llvm::Value *size = i64(int64_t(fn_->subgroupSize));
    if (kind == "subgroup.size") return size;
    llvm::Value *sx = c.coordinate(b, f, "workgroup.size", 0), *sy = c.coordinate(b, f, "workgroup.size", 1);
    llvm::Value *sz = c.coordinate(b, f, "workgroup.size", 2);
    llvm::Value *x = c.coordinate(b, f, "workitem.id", 0), *y = c.coordinate(b, f, "workitem.id", 1);
    llvm::Value *z = c.coordinate(b, f, "workitem.id", 2);
    if (!sx || !sy || !sz || !x || !y || !z) return nullptr;
    llvm::Value *linear = b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(z, sy), y), sx), x);
    if (kind == "subgroup.lane.id") return b.CreateURem(linear, size);
    if (kind == "subgroup.id") return b.CreateUDiv(linear, size);
    if (kind == "subgroup.count")
      return b.CreateUDiv(b.CreateAdd(b.CreateMul(b.CreateMul(sx, sy), sz), i64(int64_t(fn_->subgroupSize) - 1)), size);
    return nullptr;
  }

  llvm::Value *subgroupReduce(const Operation &op, llvm::Value *value) {
    std::string why;
    llvm::Value *result = fn_->coordinates ? fn_->coordinates->subgroupReduce(*b_, combiningKind(op), value, why) : nullptr;
    if (!result) unsupported(op, why.empty() ? "this kernel operation is not supported by this target" : why);
    return result;
  }

  // A workgroup reduction on a target with subgroups: each subgroup reduces its lanes, lane 0
  // publishes the partial in workgroup storage, and after a barrier every work-item folds the
  // partials in subgroup order. A second barrier lets a later reduction reuse the storage.
  llvm::Value *workgroupReduce(const Operation &op) {
    llvm::IRBuilder<> &b = *b_;
    const KernelCoordinates *target = fn_->coordinates;
    llvm::Function *f = fn_->function;
    llvm::Value *partial = subgroupReduce(op, operand(op, "in"));
    llvm::Type *type = partial->getType();
    constexpr uint64_t kMaxSubgroups = 1024 / 32;  // the largest workgroup in the narrowest waves
    uint64_t slotBytes = module_.getDataLayout().getTypeAllocSize(type);
    llvm::Value *storage = target->workgroupStorage(b, kMaxSubgroups * slotBytes, 16);
    llvm::Value *lane = target->coordinate(b, *f, "subgroup.lane.id", 0);
    llvm::Value *subgroup = target->coordinate(b, *f, "subgroup.id", 0);
    llvm::Value *subgroups = target->coordinate(b, *f, "subgroup.count", 0);
    if (!storage || !lane || !subgroup || !subgroups) unsupported(op, "this target has no workgroup storage or subgroup ids");
    llvm::Align align(slotBytes);
    llvm::BasicBlock *publish = llvm::BasicBlock::Create(context_, "reduce.publish", f);
    llvm::BasicBlock *published = llvm::BasicBlock::Create(context_, "reduce.published", f);
    b.CreateCondBr(b.CreateICmpEQ(lane, i64(0)), publish, published);
    b.SetInsertPoint(publish);
    b.CreateAlignedStore(partial, b.CreateGEP(type, storage, subgroup), align);
    b.CreateBr(published);
    b.SetInsertPoint(published);
    target->barrier(b);
    llvm::Value *first = b.CreateAlignedLoad(type, storage, align);
    llvm::BasicBlock *entry = b.GetInsertBlock();
    llvm::BasicBlock *header = llvm::BasicBlock::Create(context_, "reduce.header", f);
    llvm::BasicBlock *body = llvm::BasicBlock::Create(context_, "reduce.body", f);
    llvm::BasicBlock *exit = llvm::BasicBlock::Create(context_, "reduce.exit", f);
    b.CreateBr(header);
    b.SetInsertPoint(header);
    llvm::PHINode *index = b.CreatePHI(b.getInt64Ty(), 2);
    llvm::PHINode *acc = b.CreatePHI(type, 2);
    index->addIncoming(i64(1), entry);
    acc->addIncoming(first, entry);
    b.CreateCondBr(b.CreateICmpULT(index, subgroups), body, exit);
    b.SetInsertPoint(body);
    llvm::Value *next = combine(b, combiningKind(op), acc, b.CreateAlignedLoad(type, b.CreateGEP(type, storage, index), align));
    if (!next) unsupported(op, "unknown combining kind '" + std::string(combiningKind(op)) + "'");
    index->addIncoming(b.CreateAdd(index, i64(1)), body);
    acc->addIncoming(next, body);
    b.CreateBr(header);
    b.SetInsertPoint(exit);
    target->barrier(b);
    return acc;
  }

  const Program &program_;
  llvm::Module &module_;
  llvm::LLVMContext &context_;
  diag::DiagnosticEngine &diags_;
  std::string target_;
  LoweringOptions options_;
  unsigned errorsAtStart_;
  FunctionState *fn_ = nullptr;
  llvm::IRBuilder<> *b_ = nullptr;
};

Lowering::Lowering(const Program &program, llvm::Module &module, diag::DiagnosticEngine &diags, std::string targetName,
                   LoweringOptions options)
    : impl_(std::make_unique<Impl>(program, module, diags, std::move(targetName), options)) {}
Lowering::~Lowering() = default;

llvm::Function *Lowering::function(const loom::Operation &funcDef) { return impl_->function(funcDef); }
llvm::Function *Lowering::kernelItem(const loom::Operation &kernelDef, const KernelCoordinates &coordinates) {
  return impl_->kernelItem(kernelDef, coordinates);
}
bool Lowering::hasBarriers(const loom::Operation &kernelDef) {
  bool found = false;
  if (kernelDef.numRegions() > 1)
    for (const loom::Block *block : kernelDef.region(1)->blocks())
      for (const loom::Operation &op : *block)
        op.walk([&](const loom::Operation &inner) {
          found |= inner.name() == "kernel.barrier" || inner.name() == "kernel.workgroup.reduce" ||
                   inner.name() == "kernel.subgroup.reduce";
        });
  return found;
}
const loom::Operation *Lowering::targetRecord(const Program &program, const loom::Operation &kernelDef) {
  const loom::Attribute *targetRef = kernelDef.attr("target");
  const SymbolEntry *kernel = program.lookup(kernelDef.symbolName());
  return targetRef && kernel && kernel->module ? kernel->module->lookupSymbol(targetRef->str()) : nullptr;
}
std::optional<Lowering::KernelPhases> Lowering::kernelPhases(const loom::Operation &kernelDef,
                                                             const KernelCoordinates &coordinates) {
  return impl_->kernelPhases(kernelDef, coordinates);
}
llvm::Function *Lowering::kernelConfig(const loom::Operation &kernelDef) { return impl_->kernelConfig(kernelDef); }

std::vector<unsigned> Lowering::cxxWorkloadBits(const cxx::Signature &kernel) {
  return kernel.workgroupCount ? std::vector<unsigned>{} : std::vector<unsigned>{64};
}

std::array<uint32_t, 3> Lowering::cxxWorkgroupSize(const cxx::Signature &kernel) {
  return kernel.workgroupSize.value_or(std::array<uint32_t, 3>{kernel.maxWorkgroupSize.value_or(256), 1, 1});
}

llvm::Function *Lowering::kernelConfig(const cxx::Signature &kernel) {
  llvm::Module &module = impl_->module();
  std::string name = "loom.cxx." + kernel.symbol + ".config";
  if (llvm::Function *f = module.getFunction(name)) return f;
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *i64 = llvm::Type::getInt64Ty(context);
  std::vector<llvm::Type *> params(cxxWorkloadBits(kernel).size(), i64);
  auto *f = llvm::Function::Create(llvm::FunctionType::get(llvm::ArrayType::get(i64, 6), params, false),
                                   llvm::GlobalValue::InternalLinkage, name, module);
  f->addFnAttr(llvm::Attribute::AlwaysInline);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", f));
  std::array<uint32_t, 3> size = cxxWorkgroupSize(kernel);
  std::array<llvm::Value *, 3> groups;
  if (kernel.workgroupCount) {
    for (unsigned d = 0; d < 3; ++d) groups[d] = b.getInt64((*kernel.workgroupCount)[d]);
  } else {
    llvm::Value *items = f->getArg(0);
    llvm::Value *width = b.getInt64(size[0]);
    llvm::Value *partial = b.CreateZExt(b.CreateICmpNE(b.CreateURem(items, width), b.getInt64(0)), i64);
    groups = {b.CreateAdd(b.CreateUDiv(items, width), partial), b.getInt64(1), b.getInt64(1)};
  }
  llvm::Value *result = llvm::PoisonValue::get(f->getReturnType());
  for (unsigned d = 0; d < 3; ++d) {
    result = b.CreateInsertValue(result, groups[d], d);
    result = b.CreateInsertValue(result, b.getInt64(size[d]), 3 + d);
  }
  b.CreateRet(result);
  return f;
}
llvm::Type *Lowering::parameterType(const loom::Type &type) { return impl_->valueType(type, nullptr); }
bool Lowering::failed() const { return impl_->failed(); }

}  // namespace hrx::bridge
