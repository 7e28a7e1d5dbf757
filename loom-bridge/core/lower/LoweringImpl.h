// The Loom → LLVM IR lowering shared by every target: the lowering state and its helpers. The
// op lowerings live in one file per dialect family beside this header (Scalar, Vector, Memory,
// Control, Kernel); Lowering.cpp holds the functions, kernel phases and the public API.
#pragma once

#include "hrx/bridge/Lowering.h"
#include "hrx/loom/OpDef.h"

#include "hrx/bridge/IrQueries.h"
#include "hrx/bridge/Builtins.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Verifier.h>

#include <array>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

namespace hrx::bridge {

using loom::Operation;
using loom::Value;

namespace lowering {

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
  std::vector<llvm::Value *> layoutStrides;   // encoding.layout.strided: element strides per axis
  // A bfp16ebs8 payload of 64 bf16 values: the slot holding the values and the encode call, so
  // an 8x8x8 MMA of two such payloads can take the values instead (the fused builtin).
  llvm::Value *bf16Source = nullptr;
  llvm::CallInst *bfpEncode = nullptr;
};

// Thrown out of op lowering after the diagnostic was reported; caught per function (never
// across LLVM frames).
struct LoweringError {};

// The scalar combining function of a reduction kind (loom-language §5: addf, maxsi, ...); null
// for an unknown kind.
inline llvm::Value *combine(llvm::IRBuilder<> &b, std::string_view kind, llvm::Value *acc, llvm::Value *v) {
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

// The identity of a combining kind for `type` (the start of an exclusive scan); null if none.
inline llvm::Value *combineIdentity(llvm::IRBuilder<> &b, std::string_view kind, llvm::Type *type) {
  if (type->isIntegerTy()) {
    unsigned w = type->getIntegerBitWidth();
    if (kind == "addi" || kind == "ori" || kind == "xori" || kind == "maxui") return llvm::ConstantInt::get(type, 0);
    if (kind == "muli") return llvm::ConstantInt::get(type, 1);
    if (kind == "andi" || kind == "minui") return llvm::ConstantInt::get(type, llvm::APInt::getAllOnes(w));
    if (kind == "maxsi") return llvm::ConstantInt::get(type, llvm::APInt::getSignedMinValue(w));
    if (kind == "minsi") return llvm::ConstantInt::get(type, llvm::APInt::getSignedMaxValue(w));
    return nullptr;
  }
  if (!type->isFloatingPointTy()) return nullptr;
  if (kind == "addf") return llvm::ConstantFP::getNegativeZero(type);
  if (kind == "mulf") return llvm::ConstantFP::get(type, 1.0);
  if (kind == "maxnumf" || kind == "maximumf") return llvm::ConstantFP::getInfinity(type, /*negative=*/true);
  if (kind == "minnumf" || kind == "minimumf") return llvm::ConstantFP::getInfinity(type, /*negative=*/false);
  return nullptr;
}

// The identifiers of an op's template flags (`<nnan|ninf>`, `<sideeffect>`), in order.
inline std::vector<std::string_view> templateFlags(const loom::Operation &op) {
  std::vector<std::string_view> out;
  for (const loom::Attribute *t : op.templateParams()) {
    if (t->kind() != loom::AttrKind::Flags) {
      out.push_back(t->str());
      continue;
    }
    for (const loom::Attribute *e : t->elements()) out.push_back(e->str());
  }
  return out;
}

// The lowering family of an Ops.def row, decided once from the table (at compile time).
enum class Family : uint8_t {
  Arith,
  Vector,
  Memory,
  Control,
  Func,
  Kernel,
  Provider,
  Config,
  Encoding,
  None,
  Global,
  LlvmIr
};

constexpr Family familyOfRow(std::string_view name) {
  std::string_view dialect = name.substr(0, name.find('.'));
  if (name == "func.apply" || name == "template.apply") return Family::Provider;
  if (dialect == "index" || dialect == "scalar") return Family::Arith;
  if (dialect == "vector") return Family::Vector;
  if (dialect == "buffer" || dialect == "view") return Family::Memory;
  if (dialect == "scf" || dialect == "cfg") return Family::Control;
  if (name == "func.call" || name == "func.return" || name == "template.return") return Family::Func;
  if (name == "func.null" || name == "func.compare.null" || name == "func.address" || name == "func.call.indirect" ||
      name == "func.ref.cast")
    return Family::Func;
  if (dialect == "kernel") return Family::Kernel;
  if (name == "config.get") return Family::Config;
  if (dialect == "encoding") return Family::Encoding;
  if (name == "global.load" || name == "global.store") return Family::Global;
  if (name == "llvmir.inline_asm" || name == "llvmir.intrinsic") return Family::LlvmIr;
  return Family::None;
}

inline constexpr Family kRowFamilies[] = {
#define HRX_LOOM_OP(ID, NAME, ...) familyOfRow(NAME),
#include "hrx/loom/Ops.def"
#undef HRX_LOOM_OP
};

inline Family familyOf(loom::OpCode code) {
  return size_t(code) < std::size(kRowFamilies) ? kRowFamilies[size_t(code)] : Family::None;
}

}  // namespace lowering
using namespace lowering;

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
      case loom::FloatKind::F8E4M3:
      case loom::FloatKind::F8E5M2: return llvm::Type::getInt8Ty(context_);  // its byte (lower/Float8.cpp)
      default: break;
      }
      break;
    case loom::TypeKind::Buffer: return llvm::PointerType::getUnqual(context_);
    case loom::TypeKind::Vector: {
      int64_t count = type.staticElementCount();
      if (count <= 0) {
        // Dynamic lanes bound to compile-time constants (`vector<[%w]xf32>`, %w = index.constant 2).
        count = 1;
        for (const loom::Dim &d : type.shape()) {
          std::optional<int64_t> n = d.isStatic() ? std::optional<int64_t>(d.extent) : constantIndex(d.dynamic);
          if (!n || *n <= 0 || *n > (1 << 16)) {
            count = 0;
            break;
          }
          count *= *n;
        }
      }
      llvm::Type *element = valueType(*type.elementType(), where);
      if (count > 0 && element) return llvm::FixedVectorType::get(element, unsigned(count));
      break;
    }
    case loom::TypeKind::Opaque:
      if (type.isCallableRef()) return llvm::PointerType::getUnqual(context_);  // a function's address
      break;
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

  // A compile-time index: a constant expression, or an argument of the function being lowered
  // that its call site binds to one (a specialisation, see function()).
  std::optional<int64_t> constantIndex(const Value *v) const {
    if (auto it = bound_.find(v); it != bound_.end()) return it->second;
    // kernel.subgroup.size is the constant of the kernel being lowered.
    return program_.evaluateInteger(v, fn_ && fn_->subgroupSize ? std::optional<int64_t>(int64_t(fn_->subgroupSize))
                                                                : std::nullopt);
  }

  // ---- functions ------------------------------------------------------------------------------

  // The lowered func.def. `bound` gives index arguments their call site's constant values: a
  // callee whose types depend on them (`%w: index, %v: vector<[%w]xf32>`) is compiled once per
  // distinct set of values, as loom.<name>.<v1>_<v2>...
  llvm::Function *function(const Operation &def, const std::map<const Value *, int64_t> &bound = {}) {
    std::string name = "loom." + std::string(def.symbolName());
    for (const auto &[value, n] : bound) name += (value == bound.begin()->first ? "." : "_") + std::to_string(n);
    if (llvm::Function *f = module_.getFunction(name)) return f;
    std::map<const Value *, int64_t> outer = std::exchange(bound_, bound);
    struct Restore {
      std::map<const Value *, int64_t> &slot, saved;
      ~Restore() { slot = std::move(saved); }
    } restore{bound_, std::move(outer)};
    std::vector<llvm::Type *> params;
    for (const loom::Type *t : ir::signatureTypes(def, 0)) {
      if (t->kind() == loom::TypeKind::View) {
        // A view parameter is its base pointer, then its extents and its element strides.
        params.push_back(llvm::PointerType::getUnqual(context_));
        params.insert(params.end(), 2 * t->shape().size(), llvm::Type::getInt64Ty(context_));
        continue;
      }
      params.push_back(paramType(*t, def));
    }
    std::vector<const loom::Type *> results = ir::functionResultTypes(def);
    llvm::Type *ret = resultType(results, def);
    if (!ret) return nullptr;
    for (llvm::Type *p : params)
      if (!p) return nullptr;
    // Called from a kernel and using kernel ops (coordinates, collectives, fragments): a variant
    // in the kernel's context, taking the caller's leading coordinate parameters first.
    const KernelCoordinates *coordinates =
        fn_ && fn_->coordinates && usesKernelContext(def) ? fn_->coordinates : nullptr;
    size_t leading = 0;
    if (coordinates) {
      name += ".kernel";
      if (llvm::Function *f = module_.getFunction(name)) return f;
      std::vector<llvm::Type *> lead = coordinates->leadingParameters(context_);
      leading = lead.size();
      params.insert(params.begin(), lead.begin(), lead.end());
    }
    auto *f = llvm::Function::Create(llvm::FunctionType::get(ret, params, false), llvm::GlobalValue::InternalLinkage,
                                     name, module_);
    if (coordinates) kernelContext_[f] = leading;
    lowerBody(def, 0, *f, leading, coordinates,
              coordinates ? std::optional<uint64_t>(fn_->subgroupSize) : std::nullopt);
    return f;
  }

  // Functions lowered in a kernel's context, by their count of leading coordinate parameters.
  std::map<const llvm::Function *, size_t> kernelContext_;
  // A call of `target` from the function being lowered: the caller's leading coordinate
  // parameters go first when `target` runs in the kernel's context.
  void prependKernelContext(std::vector<llvm::Value *> &args, const llvm::Function *target) {
    auto it = kernelContext_.find(target);
    if (it == kernelContext_.end()) return;
    std::vector<llvm::Value *> lead;
    for (size_t i = 0; i < it->second; ++i) lead.push_back(fn_->function->getArg(unsigned(i)));
    args.insert(args.begin(), lead.begin(), lead.end());
  }
  // The functions and providers an op may call (func.call, template.apply, func.apply).
  std::vector<const Operation *> kernelCallees(const Operation &op) const {
    if (op.opcode() == loom::OpCode::FuncCall) {
      const SymbolEntry *callee = program_.lookup(ir::symbolRef(op));
      if (callee && callee->op && callee->op->opcode() == loom::OpCode::FuncDef) return {callee->op};
      return {};
    }
    if (familyOf(op.opcode()) == Family::Provider) return ir::providerCandidates(program_, op);
    return {};
  }
  // Whether a function uses kernel ops itself or through what it calls.
  bool usesKernelContext(const Operation &def) const {
    std::set<const Operation *> visited;
    std::function<bool(const Operation &)> uses = [&](const Operation &fn) {
      if (!visited.insert(&fn).second || !fn.numRegions()) return false;
      bool found = false;
      for (const loom::Block *block : fn.region(0)->blocks())
        for (const Operation &top : *block)
          top.walk([&](const Operation &op) {
            if (found) return;
            loom::OpCode c = op.opcode();
            found = familyOf(c) == Family::Kernel || c == loom::OpCode::VectorFragmentLoad ||
                    c == loom::OpCode::VectorFragmentStore || c == loom::OpCode::VectorMma ||
                    c == loom::OpCode::VectorFragmentRepack || c == loom::OpCode::TargetSubgroupSize;
            for (const Operation *callee : kernelCallees(op))
              if (!found) found = uses(*callee);
          });
      return found;
    };
    return uses(def);
  }

  // The machine signature a func.ref's (A) -> (R) calls: the one function() gives a func.def
  // with those argument and result types.
  llvm::FunctionType *referenceType(const loom::Type &signature, const Operation &where) {
    std::vector<llvm::Type *> params;
    for (const loom::Type *t : signature.functionInputs()) {
      if (t->kind() == loom::TypeKind::View) {
        params.push_back(llvm::PointerType::getUnqual(context_));
        params.insert(params.end(), 2 * t->shape().size(), llvm::Type::getInt64Ty(context_));
        continue;
      }
      params.push_back(paramType(*t, where));
    }
    std::span<loom::Type *const> out = signature.functionResults();
    llvm::Type *ret = resultType(std::vector<const loom::Type *>(out.begin(), out.end()), where);
    for (llvm::Type *p : params)
      if (!p) return nullptr;
    return ret ? llvm::FunctionType::get(ret, params, false) : nullptr;
  }

  llvm::Function *kernelItem(const Operation &def, const KernelCoordinates &coordinates) {
    std::string name = "loom.kernel." + std::string(def.symbolName()) + ".item";
    if (llvm::Function *f = module_.getFunction(name)) return f;
    std::vector<llvm::Type *> params = coordinates.leadingParameters(context_);
    size_t leading = params.size();
    for (const loom::Type *t : ir::signatureTypes(def, 1)) params.push_back(launchParamType(*t, def));
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

  // A kernel's launch argument: a view of static extents and row-major layout is its binding's
  // base pointer (launch(%w: view<8xf32>): the caller passes a placed, typed buffer).
  static bool isStaticDenseView(const loom::Type &type) {
    if (type.kind() != loom::TypeKind::View || type.staticElementCount() <= 0) return false;
    loom::TypeSlot layout = type.slot();
    return !layout.value &&
           (!layout.attr || (layout.attr->kind() == loom::AttrKind::Hash &&
                             (layout.attr->str() == "dense" || layout.attr->str() == "encoding.layout.dense")));
  }
  llvm::Type *launchParamType(const loom::Type &type, const Operation &owner) {
    if (isStaticDenseView(type)) return llvm::PointerType::getUnqual(context_);
    return paramType(type, owner);
  }
  void bindLaunchArgument(const Value &arg, llvm::Argument &a) {
    const loom::Type &type = *arg.type();
    if (!isStaticDenseView(type)) {
      fn_->values[&arg].value = &a;
      return;
    }
    auto v = std::make_shared<ViewValue>();
    v->base = &a;
    v->type = &type;
    int64_t stride = 1;
    v->extents.resize(type.rank());
    v->strides.resize(type.rank());
    for (size_t d = type.rank(); d-- > 0;) {
      v->extents[d] = i64(type.shape()[d].extent);
      v->strides[d] = i64(stride);
      stride *= type.shape()[d].extent;
    }
    fn_->values[&arg].view = v;
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

  std::map<const Value *, int64_t> typeBindings(const Operation &call, const Operation &callee);

  static bool isBarrier(const Operation &op) { return op.opcode() == loom::OpCode::KernelBarrier; }
  static bool isWorkgroupReduce(const Operation &op) { return op.opcode() == loom::OpCode::KernelWorkgroupReduce; }
  static bool isGroupReduce(const Operation &op) {
    return isWorkgroupReduce(op) || op.opcode() == loom::OpCode::KernelSubgroupReduce;
  }
  // Cross-lane reads of other work-items' values (lowerExchange): on the host a phase starts at each.
  static bool isExchange(const Operation &op) {
    return op.opcode() == loom::OpCode::KernelSubgroupBroadcast || op.opcode() == loom::OpCode::KernelSubgroupShuffle ||
           op.opcode() == loom::OpCode::KernelWorkgroupScan;
  }
  // Subgroup collectives over the active lanes (lowerLaneCollective): the host runs them on
  // cooperating fibers, whose subgroup gather knows which lanes are active.
  static bool isLaneCollective(const Operation &op) {
    switch (op.opcode()) {
    case loom::OpCode::KernelSubgroupVoteAny:
    case loom::OpCode::KernelSubgroupVoteAll:
    case loom::OpCode::KernelSubgroupVoteBallot:
    case loom::OpCode::KernelSubgroupActiveMask:
    case loom::OpCode::KernelSubgroupMatchAny:
    case loom::OpCode::KernelSubgroupMatchAll:
    case loom::OpCode::KernelSubgroupBroadcastFirst:
    case loom::OpCode::KernelSubgroupScan: return true;
    case loom::OpCode::KernelSubgroupReduce: return op.attr("cluster_size") != nullptr;  // clustered
    default: return false;
    }
  }

  // The subgroup size of a kernel: its target record's subgroup_size, 32 by default.
  uint64_t subgroupSize(const Operation &kernelDef) const {
    const Operation *record = Lowering::targetRecord(program_, kernelDef);
    std::optional<int64_t> size = record ? ir::integerAttr(*record, "subgroup_size") : std::nullopt;
    return size && *size > 0 && *size <= 1024 ? uint64_t(*size) : 32;
  }

  // Ops whose effects or results depend on memory: they run only in their own phase, and their
  // results that later phases use are kept per work-item in the spill area.
  static bool isEffectful(const Operation &op) {
    using loom::OpCode;
    switch (op.opcode()) {
    case OpCode::ViewLoad:
    case OpCode::ViewStore:
    case OpCode::ViewAtomicReduce:
    case OpCode::ViewAtomicRmw:
    case OpCode::ViewAtomicCmpxchg:
    case OpCode::ViewAtomicLoad:
    case OpCode::ViewAtomicStore:
    case OpCode::VectorLoad:
    case OpCode::VectorStore:
    case OpCode::VectorLoadMask:
    case OpCode::VectorStoreMask:
    case OpCode::VectorFragmentLoad:
    case OpCode::VectorFragmentStore:
    case OpCode::FuncCall:
    case OpCode::FuncApply:
    case OpCode::TemplateApply:
    case OpCode::BufferAlloca:
    case OpCode::BufferFence:
    case OpCode::GlobalLoad:
    case OpCode::GlobalStore:
    case OpCode::BufferLoadI8U:
    case OpCode::BufferLoadI8S:
    case OpCode::BufferLoadI16U:
    case OpCode::BufferLoadI16S:
    case OpCode::BufferStoreI8:
    case OpCode::BufferStoreI16:
    case OpCode::BufferFill: return true;
    default:
      return familyOf(op.opcode()) == Family::Control && op.opcode() != OpCode::CfgBr &&
             op.opcode() != OpCode::CfgCondBr;
    }
  }

  std::optional<Lowering::KernelPhases> kernelPhases(const Operation &def, const KernelCoordinates &coordinates) {
    const loom::Region &body = *def.region(1);
    if (body.blocks().size() != 1) {
      diags_.report(diag::DiagId::LinkUnsupportedOp, def.loc())
          .arg("op", "kernel.barrier")
          .arg("target", target_)
          .arg("reason", "barriers need a single-block kernel body");
      return std::nullopt;
    }
    const loom::Block &block = *body.entryBlock();
    // Phase of each top-level op; barriers nested in control flow cannot be split at.
    std::unordered_map<const Operation *, unsigned> phase;
    unsigned phases = 0;
    for (const Operation &op : block) {
      if (isBarrier(op) || isGroupReduce(op) || isExchange(op)) ++phases;
      phase[&op] = phases;
      const Operation *nested = nullptr;
      op.walk([&](const Operation &inner) {
        if (!nested && &inner != &op && (isBarrier(inner) || isGroupReduce(inner) || isExchange(inner)))
          nested = &inner;
      });
      if (nested) {
        // Named by the op that needs the split (a barrier, a collective), located at the
        // top-level op that holds it.
        diags_.report(diag::DiagId::LinkUnsupportedOp, op.loc())
            .arg("op", std::string(nested->name()))
            .arg("target", target_)
            .arg("reason", "a barrier inside control flow cannot be split at");
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
      if (isExchange(op)) {
        // The operand's per-item slot, read by the other items in the op's phase.
        llvm::Type *type = valueType(*op.operand(0)->type(), &op);
        if (!type) return std::nullopt;
        result.spillBytes = llvm::alignTo(result.spillBytes, 16);
        slots[op.operand(0)] = result.spillBytes;
        result.spillBytes += layout.getTypeAllocSize(type);
      }
      if (op.opcode() == loom::OpCode::BufferAlloca && ir::allocaSpace(op) == "workgroup") {
        std::optional<int64_t> bytes = program_.evaluateInteger(op.operandNamed("size"));
        int64_t align = ir::allocaAlignment(op);
        if (!bytes || *bytes <= 0 || align <= 0 || (align & (align - 1))) {
          diags_.report(diag::DiagId::LinkUnsupportedOp, op.loc())
              .arg("op", "buffer.alloca")
              .arg("target", target_)
              .arg("reason", "workgroup allocations need a constant size and a power-of-two alignment");
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
    for (const loom::Type *t : ir::signatureTypes(def, 1)) params.push_back(launchParamType(*t, def));
    for (llvm::Type *p : params)
      if (!p) return std::nullopt;
    for (unsigned p = 0; p <= phases; ++p) {
      auto *f = llvm::Function::Create(
          llvm::FunctionType::get(llvm::Type::getVoidTy(context_), params, false), llvm::GlobalValue::InternalLinkage,
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
    auto *f = llvm::Function::Create(
        llvm::FunctionType::get(llvm::Type::getVoidTy(context_), {ptr, i64Type, ptr}, false),
        llvm::GlobalValue::InternalLinkage, "loom.kernel." + std::string(def.symbolName()) + ".combine", module_);
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
    llvm::Value *value =
        b.CreateAlignedLoad(type,
                            b.CreateGEP(b.getInt8Ty(), f->getArg(0),
                                        b.CreateAdd(b.CreateMul(item, b.getInt64(spillBytes)), b.getInt64(slot))),
                            llvm::Align(16));
    llvm::Value *target = b.CreateGEP(b.getInt8Ty(), slots, b.CreateMul(b.CreateUDiv(item, group), b.getInt64(16)));
    llvm::Value *folded = combine(b, kind, b.CreateAlignedLoad(type, target, llvm::Align(16)), value);
    if (!folded) {
      f->eraseFromParent();
      diags_.report(diag::DiagId::LinkUnsupportedOp, op.loc())
          .arg("op", std::string(op.name()))
          .arg("target", target_)
          .arg("reason", "unknown combining kind '" + std::string(kind) + "'");
      return nullptr;
    }
    // The group's first item starts its slot.
    b.CreateAlignedStore(b.CreateSelect(b.CreateICmpEQ(b.CreateURem(item, group), b.getInt64(0)), value, folded),
                         target, llvm::Align(16));
    item->addIncoming(b.CreateAdd(item, b.getInt64(1)), b.GetInsertBlock());
    b.CreateBr(header);
    b.SetInsertPoint(exit);
    b.CreateRetVoid();
    return f;
  }

  bool lowerPhase(const Operation &def, unsigned p, llvm::Function &f, size_t leading,
                  const KernelCoordinates &coordinates, std::unordered_map<const Operation *, unsigned> &phase,
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
      for (size_t i = 0; i < args.size(); ++i) bindLaunchArgument(*args[i], *f.getArg(unsigned(leading + 2 + i)));
      // This work-item's spill slots: spill + linear id * spillBytes.
      llvm::Value *linear =
          b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(coordinates.coordinate(b, f, Coordinate::WorkitemId, 2),
                                                          coordinates.coordinate(b, f, Coordinate::WorkgroupSize, 1)),
                                              coordinates.coordinate(b, f, Coordinate::WorkitemId, 1)),
                                  coordinates.coordinate(b, f, Coordinate::WorkgroupSize, 0)),
                      coordinates.coordinate(b, f, Coordinate::WorkitemId, 0));
      llvm::Value *mine =
          b.CreateGEP(b.getInt8Ty(), f.getArg(unsigned(leading)), b.CreateMul(linear, i64(int64_t(spillBytes))));
      llvm::Value *sharedArray = f.getArg(unsigned(leading + 1));
      state.exchange.emplace(FunctionState::Exchange{f.getArg(unsigned(leading)), spillBytes, slots});
      bool returned = false;
      for (const Operation &op : block) {
        unsigned q = phase[&op];
        if (q > p) {
          // The next phase starts with a workgroup reduction: publish this item's operand.
          if ((isGroupReduce(op) || isExchange(op)) && q == p + 1)
            b.CreateAlignedStore(get(op.operand(0)), b.CreateConstGEP1_64(b.getInt8Ty(), mine, slots.at(op.operand(0))),
                                 llvm::Align(16));
          break;
        }
        if (isBarrier(op)) continue;
        if (auto s = shared.find(&op); s != shared.end()) {
          llvm::Value *storage = b.CreateAlignedLoad(
              b.getPtrTy(), b.CreateConstGEP1_64(b.getPtrTy(), sharedArray, s->second), llvm::Align(8));
          // A reduction's value is its group's combined slot; an allocation is the storage.
          if (isGroupReduce(op)) {
            llvm::Value *group =
                isWorkgroupReduce(op) ? i64(0) : b.CreateUDiv(linear, i64(int64_t(state.subgroupSize)));
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
              set(op, i,
                  b.CreateAlignedLoad(type, b.CreateConstGEP1_64(b.getInt8Ty(), mine, slot->second), llvm::Align(16)));
            }
          continue;
        }
        if (op.opcode() == loom::OpCode::KernelReturn) returned = true;
        lowerOp(op);  // this phase's ops, and earlier phases' pure ops (rematerialized)
        if (q == p)
          for (unsigned i = 0; i < op.numResults(); ++i)
            if (auto slot = slots.find(op.result(i)); slot != slots.end())
              b.CreateAlignedStore(get(op.result(i)), b.CreateConstGEP1_64(b.getInt8Ty(), mine, slot->second),
                                   llvm::Align(16));
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
  llvm::ArrayType *configType() { return llvm::ArrayType::get(llvm::Type::getInt64Ty(context_), 7); }

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
    // Encodes whose payload an MMA took as bf16 values: erased at the end when nothing else
    // reads the payload.
    std::vector<llvm::CallInst *> fusedEncodes;
    // In a host phase function: every work-item's spill slots, where cross-lane ops read the
    // operands the previous phase published (lowerExchange).
    struct Exchange {
      llvm::Value *spills = nullptr;
      uint64_t spillBytes = 0;
      const std::unordered_map<const Value *, uint64_t> &slots;
    };
    std::optional<Exchange> exchange;
    // Elsewhere: the workgroup storage that exchanges of one slot size share (each exchange ends
    // with a barrier, so the next may reuse it).
    std::map<uint64_t, llvm::Value *> exchangeStorage;
  };

  void lowerBody(const Operation &def, unsigned region, llvm::Function &f, size_t leading,
                 const KernelCoordinates *coordinates, std::optional<uint64_t> subgroup = std::nullopt) {
    FunctionState state;
    state.function = &f;
    state.coordinates = coordinates;
    // The launch-config region's too (target.subgroup.size); a function in a kernel's context has
    // the kernel's.
    state.subgroupSize = subgroup ? *subgroup : subgroupSize(def);
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
      unsigned next = unsigned(leading);
      for (size_t i = 0; i < args.size(); ++i) {
        llvm::Argument *a = f.getArg(next++);
        a->setName(std::string(args[i]->name()));
        const loom::Type &type = *args[i]->type();
        if (type.kind() == loom::TypeKind::View && a->getType()->isPointerTy() && region == 0) {
          // function(): base, extents, strides (appendCallArguments passes them).
          auto v = std::make_shared<ViewValue>();
          v->base = a;
          v->type = &type;
          for (size_t d = 0; d < type.shape().size(); ++d) v->extents.push_back(f.getArg(next++));
          for (size_t d = 0; d < type.shape().size(); ++d) v->strides.push_back(f.getArg(next++));
          state.values[args[i]].view = v;
          continue;
        }
        if (region == 1 && def.opcode() == loom::OpCode::KernelDef) {
          bindLaunchArgument(*args[i], *a);
          continue;
        }
        state.values[args[i]].value = a;
      }
      for (const loom::Block *block : body.blocks())
        state.blocks[block] =
            block == body.entryBlock() ? entry : llvm::BasicBlock::Create(context_, std::string(block->label()), &f);
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
      for (llvm::CallInst *encode : state.fusedEncodes) eraseUnreadEncode(encode);
    } catch (const LoweringError &) {
      f.deleteBody();
    }
    fn_ = outer;
    b_ = outerBuilder;
  }

  // ---- values ---------------------------------------------------------------------------------

  Lowered &lowered(const Value *v) { return fn_->values[v]; }
  llvm::Value *get(const Value *v) {
    const Lowered &l = lowered(v);
    if (l.value) return l.value;
    // A view or an encoding where an LLVM value is needed: nothing reported it yet (otherwise
    // the defining op was reported already).
    if ((l.view || l.encoding) && v->definingOp())
      unsupported(*v->definingOp(), std::string("its ") + (l.view ? "view" : "encoding") +
                                        " result is used where a single machine value is needed");
    throw LoweringError{};
  }
  llvm::Value *operand(const Operation &op, std::string_view group) {
    const Value *v = op.operandNamed(group);
    if (!v) unsupported(op, "missing operand '" + std::string(group) + "'");
    return get(v);
  }
  void set(const Operation &op, unsigned i, llvm::Value *v) { lowered(op.result(i)).value = v; }

  llvm::Value *i64(int64_t v) { return b_->getInt64(uint64_t(v)); }

  int64_t constantInt(const Operation &op, const Value *v, const char *what) {
    std::optional<int64_t> folded = constantIndex(v);
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

  // Dispatch by op id: the family of each Ops.def row picks the file that lowers it.
  void lowerApply(const Operation &op);
  void lowerLayout(const Operation &op);
  void lowerWhile(const Operation &op);
  void lowerSwitch(const Operation &op);  // lower/Control.cpp: scf.switch, scf.lookup
  void lowerOp(const Operation &op) {
    if (op.opcode() == loom::OpCode::LowInvoke) return lowerLowInvoke(op);  // lower/Low.cpp
    if (lowerAnalysisTest(op)) return;  // lower/Test.cpp: test.use, fact probes
    if (op.isOpaque()) unsupported(op, "no lowering for this op (it is kept as text)");
    if (op.opcode() == loom::OpCode::TargetSubgroupSize) return set(op, 0, i64(int64_t(fn_->subgroupSize)));
    if (touchesFloat8(op) && lowerFloat8(op)) return;
    if (op.opcode() == loom::OpCode::FuncLocation)
      unsupported(op, "captured source locations (func.location) are not materialized as buffers yet");
    switch (familyOf(op.opcode())) {
    case Family::Arith: return lowerArith(op);
    case Family::Vector: return lowerVector(op);
    case Family::Memory: return lowerMemory(op);
    case Family::Control: return lowerControl(op);
    case Family::Func: return lowerFunc(op);
    case Family::Kernel: return lowerKernel(op);
    case Family::Provider: return lowerApply(op);
    case Family::Config: return lowerConfigGet(op);
    case Family::Encoding:
      if (op.opcode() == loom::OpCode::EncodingLayoutStrided) return lowerLayout(op);
      // A dense- or strided-layout fact restates the layout it refines (strides and all).
      if (op.opcode() == loom::OpCode::EncodingLayoutAssumeDense ||
          op.opcode() == loom::OpCode::EncodingLayoutAssumeStrided) {
        lowered(op.result(0)) = lowered(op.operand(0));
        return;
      }
      if (op.opcode() == loom::OpCode::EncodingIsa || op.opcode() == loom::OpCode::EncodingAssumeSpec)
        unsupported(op, "encoding queries and facts are verified but not lowered yet");
      lowered(op.result(0)).encoding = op.attr("encoding");
      return;
    case Family::Global: return lowerGlobal(op);
    case Family::LlvmIr: return lowerLlvmIr(op);
    case Family::None: break;
    }
    unsupported(op, "no lowering for this op");
  }

  void lowerConfigGet(const Operation &op);
  bool lowerAnalysisTest(const Operation &op);
  void lowerLowInvoke(const Operation &op);
  void markHostUnavailable(const Operation &op, std::string reason);  // lower/Low.cpp

public:
  std::optional<Lowering::HostUnavailable> hostUnavailableReason(const llvm::Function &root) const;

private:
  llvm::Constant *literal(const Operation &op, llvm::Type *type);

  static std::optional<llvm::CmpInst::Predicate> intPredicate(std::string_view p);

  static std::optional<llvm::CmpInst::Predicate> floatPredicate(std::string_view p);

  llvm::Value *intrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Value *> args) {
    return b_->CreateIntrinsic(id, {args[0]->getType()}, args);
  }

  // Fast-math flags from the op's template (`<fast>`, `<nnan|ninf>`, `<reassoc>`).
  llvm::FastMathFlags fastMath(const Operation &op);

  // Arithmetic shared by index.*, scalar.* and the lane-wise vector.* ops.
  void lowerArith(const Operation &op);

  llvm::Value *arith(const Operation &op);
  llvm::Value *unaryArith(const Operation &op);

  // f32 → bf16 keeps the top 16 bits (truncation, as the product does); other narrowings round
  // to nearest even.
  llvm::Value *truncateFloat(llvm::Value *x, llvm::Type *to);
  llvm::Value *extendFloat(llvm::Value *x, llvm::Type *to);

  llvm::Value *indexCast(const Operation &op);

  // ---- vector ---------------------------------------------------------------------------------

  void lowerVector(const Operation &op);

  llvm::Value *reduce(const Operation &op);
  void lowerReduceAxes(const Operation &op);

  static bool isBfp16ebs8(const loom::Attribute *encoding);

  void lowerEncode(const Operation &op);
  void lowerDecode(const Operation &op);
  struct DecodeScale {
    llvm::Value *values = nullptr;  // null: no scale
    int64_t group = 0;
    bool e8m0 = false;
  };
  DecodeScale decodeScale(const Operation &op, const loom::Attribute *encoding, int64_t lanes);
  llvm::Value *applyDecodeScale(const DecodeScale &scale, llvm::Value *value, int64_t lane);

  // vector.mma: out = acc + lhs(m×k) · rhs(k×n), row-major fragments.
  void lowerMma(const Operation &op);
  void eraseUnreadEncode(llvm::CallInst *encode);

  // ---- memory ---------------------------------------------------------------------------------

  // The LLVM arguments of a call to function(): a view operand passes its base, extents and
  // strides.
  void appendCallArguments(std::vector<llvm::Value *> &args, const Value *v) {
    if (v->type()->kind() == loom::TypeKind::View) {
      if (std::shared_ptr<ViewValue> view = lowered(v).view) {
        args.push_back(view->base);
        args.insert(args.end(), view->extents.begin(), view->extents.end());
        args.insert(args.end(), view->strides.begin(), view->strides.end());
        return;
      }
    }
    args.push_back(get(v));
  }

  // A pointer in the flat (generic) address space 0, where every other one converts.
  llvm::Value *flatPointer(llvm::Value *p) {
    auto *type = llvm::cast<llvm::PointerType>(p->getType());
    return type->getAddressSpace() == 0 ? p : b_->CreateAddrSpaceCast(p, llvm::PointerType::getUnqual(context_));
  }

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

  // `<volatile>` on view/vector loads and stores: every access happens, in order. (`<nontemporal>`
  // is a cache hint the lowering does not pass on.)
  static bool volatileAccess(const Operation &op) {
    const loom::Attribute *access = op.templateParam(0);
    return access && access->str() == "volatile";
  }

  void lowerMemory(const Operation &op);
  bool lowerNarrowAccess(const Operation &op);  // lower/Memory.cpp: buffer.load.i8.u and family

  // A buffer.assume.* result is its operand (with the same facts).
  void forwardBuffer(const Operation &op, unsigned i);

  static llvm::AtomicOrdering atomicOrdering(const Operation &op);
  llvm::Value *atomicCompareExchange(const Operation &op, llvm::Value *address, llvm::Value *expected,
                                     llvm::Value *value, llvm::Align align);

  // Loom scopes as LLVM synchronization scopes (the AMDGPU names; other targets treat them as
  // the whole system). No scope is the whole system.
  llvm::SyncScope::ID atomicScope(const Operation &op);

  static std::optional<llvm::AtomicRMWInst::BinOp> atomicBinOp(std::string_view kind);

  // view.atomic.reduce / rmw / cmpxchg on one element. A combining kind with no atomicrmw form
  // (muli, mulf), and float max/min on a coherent binding where the target asks for it, become
  // a compare-exchange loop over the value's bits.
  void lowerAtomic(const Operation &op);
  // vector.atomic.reduce / vector.atomic.rmw.mask: one scalar atomic per (active) lane.
  void lowerVectorAtomic(const Operation &op);
  llvm::Value *atomicCombine(const Operation &op, const ViewValue &v, llvm::Value *address, llvm::Value *value,
                             llvm::Align align);

  // old = *address; until old's bits are unchanged by `kind` or a compare-exchange of them
  // succeeds: new = old `kind` value. Returns the bits of the value before the update.
  llvm::Value *compareExchangeLoop(const Operation &op, std::string_view kind, llvm::Value *address, llvm::Value *value,
                                   llvm::Align align, llvm::AtomicOrdering ordering, llvm::SyncScope::ID scope);

  // An element's alignment, or the view's align(N) when that is smaller (`view<8xf16, align(1)>`).
  llvm::Align alignOf(const ViewValue &v) {
    uint64_t align = std::max<uint64_t>(1, ir::elementBytes(*v.type->elementType()));
    if (std::optional<int64_t> n = viewAlignment(*v.type)) align = std::min(align, uint64_t(*n));
    return llvm::Align(align);
  }
  static std::optional<int64_t> viewAlignment(const loom::Type &type) {
    const loom::Attribute *a = type.slot().attr;
    if (!a || a->kind() != loom::AttrKind::Predicate || a->str() != "align" || a->elements().size() != 1)
      return std::nullopt;
    return a->elements()[0]->integer();
  }

  // vector.load/store (+ masked, fragment): the vector's axes cover the trailing view axes.
  void lowerVectorMemory(const Operation &op);

  // ---- control flow ---------------------------------------------------------------------------

  // Lowers a single-block structured region; returns the values its scf.yield passes out.
  std::vector<llvm::Value *> lowerRegion(const loom::Region &region, bool viewsAsNull = false);  // views yield null

  void lowerControl(const Operation &op);
  void lowerViewSelect(const Operation &op);
  void lowerFuncRef(const Operation &op);

  void lowerFunc(const Operation &op);
  static bool passesEncodings(const Operation &def);
  void inlineCall(const Operation &call, const Operation &def);
  std::set<const Operation *> inlining_;  // callees being inlined (inlineCall)
  void lowerGlobal(const Operation &op);  // lower/Global.cpp
  llvm::Value *rodataBuffer(const Operation &access, const Operation &def);
  // lower/LlvmIr.cpp: llvmir.intrinsic and llvmir.inline_asm.
  void lowerLlvmIr(const Operation &op);
  void lowerLlvmIntrinsic(const Operation &op);
  llvm::FunctionType *llvmIrSignature(const Operation &op, std::vector<llvm::Value *> &args);
  void setLlvmIrResults(const Operation &op, llvm::Value *call);
  bool inGpuHostTwin() const;
  llvm::GlobalVariable *globalStorage(const Operation &access);

  // A C/C++ function, called with the C ABI of its scalar and pointer parameters.
  llvm::Function *external(const Operation &call, const cxx::Signature &sig);

  // kernel.* ops, dispatched by op id.
  void lowerKernel(const Operation &op);
  void lowerExchange(const Operation &op);
  void lowerExit(const Operation &op);
  // Subgroup lane collectives (lower/Subgroup.cpp): votes, masks, match, broadcast.first, scan.
  struct SubgroupLanes;
  SubgroupLanes subgroupLanes(const Operation &op, llvm::Value *value);
  llvm::Value *subgroupBallot(const Operation &op, llvm::Value *predicate);
  llvm::Value *maskResult(const Operation &op, llvm::Value *mask);
  void lowerLaneCollective(const Operation &op);
  void lowerSubgroupScan(const Operation &op, llvm::Value *lane);
  int64_t lanesPerCluster(const Operation &op);
  llvm::Value *clusterFold(const Operation &op, llvm::Value *value, llvm::Value *lane, bool reverse,
                           const std::function<llvm::Value *(llvm::Value *)> &take);

  static std::string_view combiningKind(const Operation &op);

  // Subgroups where the target has none (the host): consecutive linear work-item ids in groups of
  // the kernel's subgroup size.
  llvm::Value *subgroupCoordinate(Coordinate kind);

  // for (index = start; index < end; ++index) acc = step(index, acc), from acc = init; returns
  // acc after the loop (the workgroup scan and the cross-subgroup reduce share it).
  llvm::Value *countedFold(std::string_view name, llvm::Value *start, llvm::Value *end, llvm::Value *init,
                           const std::function<llvm::Value *(llvm::Value *, llvm::Value *)> &step);

  llvm::Value *subgroupReduce(const Operation &op, llvm::Value *value);
  llvm::Value *gatheredReduce(const Operation &op, llvm::Value *value);

  // ---- fp8 values as bytes (lower/Float8.cpp) -----------------------------------------------
  static bool touchesFloat8(const Operation &op);
  // True when the op was lowered here; false when it only moves bits and lowers as usual.
  bool lowerFloat8(const Operation &op);
  // fp8 byte(s) of `format` widened exactly to the float type `to` (rounded once if narrower than
  // f32), and f16/bf16/f32 value(s) rounded to nearest even into fp8 bytes.
  llvm::Value *widenFloat8(llvm::Value *bytes, const loom::Type &format, llvm::Type *to);
  llvm::Value *narrowToFloat8(llvm::Value *x, const loom::Type &format);

  // ---- per-lane matrix fragments (lower/Matrix.cpp) -------------------------------------------
  // gfx11 WMMA fragments: each lane holds its part of a 16×16 tile (lhs: row lane % 16, rhs:
  // column lane % 16, result/init: column lane % 16 at rows resultRow). Loads, stores and
  // vector.mma in that layout; the mma through the target's matrixMultiply or, on the host
  // twin, from the other lanes' fragments (subgroupGather).
  static bool isLaneFragment(const std::vector<int64_t> &shape, uint64_t elements) {
    return shape.size() == 2 && shape[0] * shape[1] != int64_t(elements);
  }
  llvm::Value *laneId(const Operation &op);
  // The tile row of accumulator register `reg` in lane `lane` (wave32: 2·reg + lane/16; wave64:
  // 2·reg + (lane/16 & 1) + 8·(lane/32)).
  llvm::Value *resultRow(llvm::Value *lane, uint64_t reg);
  void lowerLaneFragmentMemory(const Operation &op, const std::vector<int64_t> &shape);
  void lowerLaneMma(const Operation &op);
  // vector.fragment.repack<lhs|rhs>: a result tile re-laid out as an operand (converted to the
  // operand's element type as a fragment store would).
  void lowerRepack(const Operation &op);

  // A workgroup reduction on a target with subgroups: each subgroup reduces its lanes, lane 0
  // publishes the partial in workgroup storage, and after a barrier every work-item folds the
  // partials in subgroup order. A second barrier lets a later reduction reuse the storage.
  llvm::Value *workgroupReduce(const Operation &op);

  const Program &program_;
  llvm::Module &module_;
  llvm::LLVMContext &context_;
  diag::DiagnosticEngine &diags_;
  std::string target_;
  LoweringOptions options_;
  unsigned errorsAtStart_;
  FunctionState *fn_ = nullptr;
  llvm::IRBuilder<> *b_ = nullptr;
  std::map<const Value *, int64_t> bound_;  // the specialised function's constant index arguments
  // The host twin's stand-ins for constructs with no CPU meaning (markHostUnavailable).
  static constexpr const char *kHostUnavailableMarker = "hrx.host.unavailable";
  std::vector<std::pair<const Operation *, std::string>> hostUnavailable_;
};

}  // namespace hrx::bridge
