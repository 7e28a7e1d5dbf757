// Lowering of buffer.* and view.* ops: views, loads and stores, allocations, atomics.
#include "LoweringImpl.h"

namespace hrx::bridge {

using loom::OpCode;

void Lowering::Impl::lowerMemory(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  if (op.opcode() == loom::OpCode::ViewPrefetch) return;  // a hint: the caches fetch on demand
  if (op.opcode() == loom::OpCode::ViewRefine) {
    lowered(op.result(0)) = lowered(op.operandNamed("in"));  // the same view; only facts differ
    return;
  }
  if (op.opcode() == OpCode::BufferView) {
    auto v = std::make_shared<ViewValue>();
    const loom::Type &type = *op.result(0)->type();
    // Layouts: none or #dense is row-major; an encoding.layout.strided value gives the element
    // stride of each axis.
    loom::TypeSlot layout = type.slot();
    // An encoding.layout.dense value is row-major, as #dense is, and so is a layout that
    // encoding.layout.assume.dense states to be.
    auto denseValue = [](const loom::Value *value) {
      const loom::Operation *def = value ? value->definingOp() : nullptr;
      return def &&
             (def->opcode() == OpCode::EncodingLayoutDense || def->opcode() == OpCode::EncodingLayoutAssumeDense);
    };
    if (denseValue(layout.value)) layout = loom::TypeSlot{};
    // An encoding value that is #dense, or a #physical_storage whose layout is, is row-major too
    // (its schema says how the elements are encoded, which the element type already does); a
    // #physical_storage of a strided layout has that layout's strides.
    if (layout.value && lowered(layout.value).layoutStrides.empty())
      if (const loom::Attribute *e = lowered(layout.value).encoding) {
        const loom::Attribute *inner = e;
        bool dense = false;
        if (e->kind() == loom::AttrKind::Hash && (e->str() == "physical_storage" || e->str() == "encoding.storage")) {
          const loom::Attribute *l = e->get("layout");
          if (!l && layout.value->definingOp()) l = layout.value->definingOp()->attr("layout");
          if (l && l->value()) {
            dense = denseValue(l->value());
            inner = lowered(l->value()).encoding;
            // A strided layout inside the storage gives the strides, as a bare one does.
            if (!lowered(l->value()).layoutStrides.empty()) layout.value = l->value();
          }
        }
        if (dense || (inner && inner->kind() == loom::AttrKind::Hash &&
                      (inner->str() == "dense" || inner->str() == "encoding.layout.dense")))
          layout = loom::TypeSlot{};
      }
    const std::vector<llvm::Value *> *strided = layout.value ? &lowered(layout.value).layoutStrides : nullptr;
    if (layout.attr && !viewAlignment(type) &&
        !(layout.attr->kind() == loom::AttrKind::Hash &&
          (layout.attr->str() == "dense" || layout.attr->str() == "encoding.layout.dense")))
      unsupported(op, "the view layout " + type.str() +
                          " is not implemented (row-major, #dense and encoding.layout.strided are)");
    if (layout.value && (!strided || strided->size() != type.rank()))
      unsupported(op, "the view layout must be an encoding.layout.strided value with one stride per axis");
    v->type = &type;
    v->base = b.CreateGEP(b.getInt8Ty(), operand(op, "source"), operand(op, "offset"));
    v->coherent = lowered(op.operandNamed("source")).coherent;
    v->extents = dims(op, type);
    v->strides.assign(v->extents.size(), nullptr);
    llvm::Value *stride = i64(1);
    for (size_t i = v->extents.size(); i-- > 0;) {
      v->strides[i] = strided ? (*strided)[i] : stride;
      stride = b.CreateMul(stride, v->extents[i]);
    }
    lowered(op.result(0)).view = v;
    return;
  }
  if (op.opcode() == OpCode::ViewSubview) {
    std::shared_ptr<ViewValue> parent = view(op, "base");
    auto v = std::make_shared<ViewValue>(*parent);
    v->type = op.result(0)->type();
    if (v->type->rank() != parent->strides.size()) unsupported(op, "rank-changing subviews are not implemented");
    v->base = elementAddress(op, *parent, indices(op, "offsets"));
    v->extents = dims(op, *v->type);
    lowered(op.result(0)).view = v;
    return;
  }
  if (op.opcode() == OpCode::ViewLoad) {
    std::shared_ptr<ViewValue> v = view(op, "base");
    llvm::Type *type = valueType(*op.result(0)->type(), &op);
    return set(op, 0,
               b.CreateAlignedLoad(type, elementAddress(op, *v, indices(op, "indices")), alignOf(*v), volatileAccess(op)));
  }
  if (op.opcode() == OpCode::ViewStore) {
    std::shared_ptr<ViewValue> v = view(op, "base");
    b.CreateAlignedStore(operand(op, "value"), elementAddress(op, *v, indices(op, "indices")), alignOf(*v),
                         volatileAccess(op));
    return;
  }
  if (op.opcode() == OpCode::BufferAssumeAlignment) {
    std::optional<int64_t> align = ir::integerAttr(op, "minimum_alignment");
    for (unsigned i = 0; i < op.numResults(); ++i) {
      llvm::Value *p = get(op.operand(i));
      if (align && *align > 0 && (*align & (*align - 1)) == 0)
        b.CreateAlignmentAssumption(module_.getDataLayout(), p, uint64_t(*align));
      forwardBuffer(op, i);
    }
    return;
  }
  if (op.opcode() == OpCode::BufferAssumeNoalias || op.opcode() == OpCode::BufferAssumeMemorySpace ||
      op.opcode() == OpCode::BufferAssumeSameRoot) {
    for (unsigned i = 0; i < op.numResults(); ++i) forwardBuffer(op, i);
    if (op.opcode() == OpCode::BufferAssumeMemorySpace && op.templateParam(0) && op.templateParam(0)->str() == "host")
      lowered(op.result(0)).coherent = true;
    return;
  }
  if (op.opcode() == loom::OpCode::ViewAtomicLoad || op.opcode() == loom::OpCode::ViewAtomicStore) {
    // One element with the given ordering and scope (relaxed, system by default).
    std::shared_ptr<ViewValue> v = view(op, "base");
    llvm::Value *address = elementAddress(op, *v, indices(op, "indices"));
    llvm::AtomicOrdering ordering = atomicOrdering(op);
    bool load = op.opcode() == loom::OpCode::ViewAtomicLoad;
    if ((load && (ordering == llvm::AtomicOrdering::Release || ordering == llvm::AtomicOrdering::AcquireRelease)) ||
        (!load && (ordering == llvm::AtomicOrdering::Acquire || ordering == llvm::AtomicOrdering::AcquireRelease)))
      unsupported(op, "an atomic " + std::string(load ? "load" : "store") + " cannot have this ordering");
    if (load) {
      llvm::LoadInst *l = b.CreateAlignedLoad(valueType(*op.result(0)->type(), &op), address, alignOf(*v));
      l->setAtomic(ordering, atomicScope(op));
      return set(op, 0, l);
    }
    llvm::StoreInst *st = b.CreateAlignedStore(operand(op, "value"), address, alignOf(*v));
    st->setAtomic(ordering, atomicScope(op));
    return;
  }
  if (lowerNarrowAccess(op)) return;
  if (op.opcode() == loom::OpCode::BufferFence) {
    llvm::AtomicOrdering ordering = atomicOrdering(op);
    if (ordering == llvm::AtomicOrdering::Monotonic) return;  // a relaxed fence orders nothing
    b.CreateFence(ordering, atomicScope(op));
    return;
  }
  if (op.opcode() == OpCode::ViewAtomicReduce || op.opcode() == OpCode::ViewAtomicRmw ||
      op.opcode() == OpCode::ViewAtomicCmpxchg || op.opcode() == OpCode::ViewAtomicLoad ||
      op.opcode() == OpCode::ViewAtomicStore)
    return lowerAtomic(op);
  if (op.opcode() == OpCode::BufferLength) {
    // The bytes of a buffer this kernel or function allocated (buffer.alloca, the dynamic tail of
    // kernel.workgroup.storage), through buffer.assume.*; a launch buffer's length is not passed.
    const Value *buffer = op.operandNamed("in");
    while (buffer && buffer->definingOp() && ir::isBufferAssume(*buffer->definingOp()))
      buffer = buffer->definingOp()->operand(0);
    const Operation *def = buffer ? buffer->definingOp() : nullptr;
    if (!def || (def->opcode() != OpCode::BufferAlloca && def->opcode() != OpCode::KernelWorkgroupStorage))
      unsupported(op, "only the length of a buffer.alloca or kernel.workgroup.storage buffer is known (a launch "
                      "buffer's length is not passed)");
    return set(op, 0, b.CreateZExtOrTrunc(get(def->operandNamed("size")), b.getInt64Ty()));
  }
  if (op.opcode() == OpCode::BufferAlloca) {
    std::string_view space = ir::allocaSpace(op);
    bool workgroup = space == "workgroup";
    if (space != "private" && !workgroup) unsupported(op, "only private and workgroup allocations are implemented");
    int64_t bytes = constantInt(op, op.operandNamed("size"), "the allocation size");
    int64_t align = ir::allocaAlignment(op);
    if (bytes <= 0 || align <= 0 || (align & (align - 1)) != 0)
      unsupported(op, "a positive size and power-of-two alignment are required");
    if (!workgroup)
      return set(op, 0, entryAlloca(llvm::ArrayType::get(b.getInt8Ty(), uint64_t(bytes)), uint64_t(align)));
    llvm::Value *storage =
        fn_->coordinates ? fn_->coordinates->workgroupStorage(b, uint64_t(bytes), uint64_t(align)) : nullptr;
    if (!storage)
      unsupported(op, "this target has no native workgroup memory (the allocation must be at the top level of a kernel "
                      "with barriers)");
    set(op, 0, storage);
    return;
  }
  unsupported(op, "no lowering for this op");
}

// A buffer.assume.* result is its operand (with the same facts).
void Lowering::Impl::forwardBuffer(const Operation &op, unsigned i) {
  set(op, i, get(op.operand(i)));
  lowered(op.result(i)).coherent = lowered(op.operand(i)).coherent;
}

namespace {
// The LLVM ordering an atomic's ordering attribute `key` names (relaxed when absent).
llvm::AtomicOrdering orderingAttr(const Operation &op, std::string_view key) {
  const loom::Attribute *ordering = op.attr(key);
  std::string_view name = ordering ? ordering->str() : "relaxed";
  if (name == "acquire") return llvm::AtomicOrdering::Acquire;
  if (name == "release") return llvm::AtomicOrdering::Release;
  if (name == "acq_rel") return llvm::AtomicOrdering::AcquireRelease;
  if (name == "seq_cst") return llvm::AtomicOrdering::SequentiallyConsistent;
  return llvm::AtomicOrdering::Monotonic;
}
}  // namespace

// One compare-exchange of `value` for `expected` at `address` (bits compared, so a NaN payload
// or -0.0 is exchanged exactly); returns the old value as `value`'s type. The success ordering is
// success_ordering (or hrx's `ordering`), the failure ordering failure_ordering when written,
// else the strongest the success ordering allows.
llvm::Value *Lowering::Impl::atomicCompareExchange(const Operation &op, llvm::Value *address, llvm::Value *expected,
                                                   llvm::Value *value, llvm::Align align) {
  llvm::IRBuilder<> &b = *b_;
  llvm::Type *type = value->getType();
  llvm::Type *bits = b.getIntNTy(unsigned(type->getPrimitiveSizeInBits()));
  llvm::AtomicOrdering success = orderingAttr(op, op.attr("success_ordering") ? "success_ordering" : "ordering");
  llvm::AtomicOrdering failure = op.attr("failure_ordering")
                                     ? orderingAttr(op, "failure_ordering")
                                     : llvm::AtomicCmpXchgInst::getStrongestFailureOrdering(success);
  llvm::Value *pair = b.CreateAtomicCmpXchg(address, b.CreateBitCast(expected, bits), b.CreateBitCast(value, bits),
                                            align, success, failure, atomicScope(op));
  return b.CreateBitCast(b.CreateExtractValue(pair, 0), type);
}

llvm::AtomicOrdering Lowering::Impl::atomicOrdering(const Operation &op) { return orderingAttr(op, "ordering"); }

// Loom scopes as LLVM synchronization scopes (the AMDGPU names; other targets treat them as
// the whole system). No scope is the whole system.
llvm::SyncScope::ID Lowering::Impl::atomicScope(const Operation &op) {
  const loom::Attribute *scope = op.attr("scope");
  std::string_view name = scope ? scope->str() : "system";
  if (name == "workgroup") return context_.getOrInsertSyncScopeID("workgroup");
  if (name == "subgroup") return context_.getOrInsertSyncScopeID("wavefront");
  if (name == "device" || name == "agent") return context_.getOrInsertSyncScopeID("agent");
  return llvm::SyncScope::System;
}

std::optional<llvm::AtomicRMWInst::BinOp> Lowering::Impl::atomicBinOp(std::string_view kind) {
  static const std::map<std::string_view, llvm::AtomicRMWInst::BinOp> table = {
      {"addi", llvm::AtomicRMWInst::Add},
      {"andi", llvm::AtomicRMWInst::And},
      {"ori", llvm::AtomicRMWInst::Or},
      {"xori", llvm::AtomicRMWInst::Xor},
      {"maxsi", llvm::AtomicRMWInst::Max},
      {"minsi", llvm::AtomicRMWInst::Min},
      {"maxui", llvm::AtomicRMWInst::UMax},
      {"minui", llvm::AtomicRMWInst::UMin},
      {"addf", llvm::AtomicRMWInst::FAdd},
      {"maxnumf", llvm::AtomicRMWInst::FMax},
      {"minnumf", llvm::AtomicRMWInst::FMin},
      {"maximumf", llvm::AtomicRMWInst::FMaximum},
      {"minimumf", llvm::AtomicRMWInst::FMinimum},
      {"subi", llvm::AtomicRMWInst::Sub},
      {"subf", llvm::AtomicRMWInst::FSub},
      {"xchgi", llvm::AtomicRMWInst::Xchg},
      {"xchgf", llvm::AtomicRMWInst::Xchg}};
  auto it = table.find(kind);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

// view.atomic.reduce / rmw / cmpxchg on one element. A combining kind with no atomicrmw form
// (muli, mulf), and float max/min on a coherent binding where the target asks for it, become
// a compare-exchange loop over the value's bits.
void Lowering::Impl::lowerAtomic(const Operation &op) {
  std::shared_ptr<ViewValue> v = view(op, "base");
  llvm::Value *address = elementAddress(op, *v, indices(op, "indices"));
  llvm::Value *value = operand(op, "value");
  llvm::Type *type = value->getType();
  if (!type->isIntegerTy() && !type->isFloatingPointTy())
    unsupported(op, "atomics apply to scalar integers and floats");
  llvm::Align align = alignOf(*v);
  if (op.opcode() == OpCode::ViewAtomicCmpxchg)
    return set(op, 0, atomicCompareExchange(op, address, operand(op, "expected"), value, align));
  if (op.opcode() != OpCode::ViewAtomicReduce && op.opcode() != OpCode::ViewAtomicRmw)
    unsupported(op, "no lowering for this op");
  llvm::Value *old = atomicCombine(op, *v, address, value, align);
  if (op.opcode() == OpCode::ViewAtomicRmw) set(op, 0, old);
}

// One atomic read-modify-write of `value` into `address` with the op's combining kind, ordering
// and scope; returns the value before the update.
llvm::Value *Lowering::Impl::atomicCombine(const Operation &op, const ViewValue &v, llvm::Value *address,
                                           llvm::Value *value, llvm::Align align) {
  llvm::IRBuilder<> &b = *b_;
  llvm::Type *type = value->getType();
  llvm::AtomicOrdering ordering = atomicOrdering(op);
  llvm::SyncScope::ID scope = atomicScope(op);
  std::string_view kind = combiningKind(op);
  bool floatMinMax = type->isFloatingPointTy() && (kind.starts_with("max") || kind.starts_with("min"));
  bool loop = !atomicBinOp(kind) || (options_.amdgpuAtomics && v.coherent && floatMinMax);
  if (!loop) {
    llvm::AtomicRMWInst *rmw = b.CreateAtomicRMW(*atomicBinOp(kind), address, value, align, ordering, scope);
    if (options_.amdgpuAtomics && !v.coherent)
      rmw->setMetadata("amdgpu.no.fine.grained.memory", llvm::MDNode::get(context_, {}));
    return rmw;
  }
  if (atomicBinOp(kind))
    diags_.report(diag::DiagId::AmdgpuCoherentAtomicLoop, op.loc())
        .arg("kind", std::string(kind))
        .arg("type", v.type->elementType()->str());
  return b.CreateBitCast(compareExchangeLoop(op, kind, address, value, align, ordering, scope), type);
}

// vector.atomic.reduce / vector.atomic.rmw.mask: one scalar atomic per lane, at the indices plus
// the lane's offset along the last view axis (as vector.scatter addresses), in lane order. A lane
// whose mask bit is clear does no access and returns its passthru value.
void Lowering::Impl::lowerVectorAtomic(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  std::shared_ptr<ViewValue> v = view(op, "base");
  std::vector<llvm::Value *> start = indices(op, "indices");
  llvm::Value *values = operand(op, "value"), *offsets = operand(op, "offsets");
  auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(values->getType());
  if (!vt || (!vt->getElementType()->isIntegerTy() && !vt->getElementType()->isFloatingPointTy()))
    unsupported(op, "vector atomics apply to fixed-length vectors of integers and floats");
  bool returnsOld = op.opcode() == OpCode::VectorAtomicRmwMask || op.opcode() == OpCode::VectorAtomicRmw;
  bool masked = op.opcode() == OpCode::VectorAtomicRmwMask || op.opcode() == OpCode::VectorAtomicReduceMask;
  bool exchange = op.opcode() == OpCode::VectorAtomicCmpxchg;
  llvm::Value *mask = masked ? operand(op, "mask") : nullptr;
  llvm::Value *result = masked && returnsOld ? operand(op, "passthru") : llvm::PoisonValue::get(vt);
  llvm::Value *expected = exchange ? operand(op, "expected") : nullptr;
  if (exchange) result = llvm::PoisonValue::get(vt);
  llvm::Align align = std::min(
      llvm::Align(module_.getDataLayout().getTypeAllocSize(vt->getElementType()).getFixedValue()), alignOf(*v));
  for (unsigned i = 0; i < vt->getNumElements(); ++i) {
    std::vector<llvm::Value *> at = start;
    at.back() =
        b.CreateAdd(at.back(), b.CreateSExtOrTrunc(b.CreateExtractElement(offsets, uint64_t(i)), b.getInt64Ty()));
    llvm::Value *lane = b.CreateExtractElement(values, uint64_t(i));
    if (exchange) {
      llvm::Value *old = atomicCompareExchange(op, elementAddress(op, *v, at),
                                               b.CreateExtractElement(expected, uint64_t(i)), lane, align);
      result = b.CreateInsertElement(result, old, uint64_t(i));
      continue;
    }
    if (!masked) {
      llvm::Value *old = atomicCombine(op, *v, elementAddress(op, *v, at), lane, align);
      if (returnsOld) result = b.CreateInsertElement(result, old, uint64_t(i));
      continue;
    }
    llvm::BasicBlock *before = b.GetInsertBlock();
    llvm::BasicBlock *active = llvm::BasicBlock::Create(context_, "atomic.lane", fn_->function);
    llvm::BasicBlock *next = llvm::BasicBlock::Create(context_, "atomic.next", fn_->function);
    b.CreateCondBr(b.CreateExtractElement(mask, uint64_t(i)), active, next);
    b.SetInsertPoint(active);
    llvm::Value *old = atomicCombine(op, *v, elementAddress(op, *v, at), lane, align);
    llvm::Value *updated = b.CreateInsertElement(result, old, uint64_t(i));
    llvm::BasicBlock *activeEnd = b.GetInsertBlock();
    b.CreateBr(next);
    b.SetInsertPoint(next);
    llvm::PHINode *phi = b.CreatePHI(result->getType(), 2);
    phi->addIncoming(result, before);
    phi->addIncoming(updated, activeEnd);
    result = phi;
  }
  if (returnsOld || exchange) set(op, 0, result);
}

// old = *address; until old's bits are unchanged by `kind` or a compare-exchange of them
// succeeds: new = old `kind` value. Returns the bits of the value before the update.
llvm::Value *Lowering::Impl::compareExchangeLoop(const Operation &op, std::string_view kind, llvm::Value *address,
                                                 llvm::Value *value, llvm::Align align, llvm::AtomicOrdering ordering,
                                                 llvm::SyncScope::ID scope) {
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

// encoding.layout.strided [s0, s1, ...]: the element stride of each axis, for the views that
// name it as their layout.
void Lowering::Impl::lowerLayout(const Operation &op) { lowered(op.result(0)).layoutStrides = indices(op, "strides"); }

// buffer.load.i8/i16.{u,s} read a byte or halfword at a byte offset and extend it to i32;
// buffer.store.i8/i16 truncate an i32 and write it. False for every other op.
bool Lowering::Impl::lowerNarrowAccess(const Operation &op) {
  unsigned bits = 0;
  bool load = true, sign = false;
  switch (op.opcode()) {
  case OpCode::BufferLoadI8U: bits = 8; break;
  case OpCode::BufferLoadI8S: bits = 8, sign = true; break;
  case OpCode::BufferLoadI16U: bits = 16; break;
  case OpCode::BufferLoadI16S: bits = 16, sign = true; break;
  case OpCode::BufferStoreI8: bits = 8, load = false; break;
  case OpCode::BufferStoreI16: bits = 16, load = false; break;
  default: return false;
  }
  llvm::IRBuilder<> &b = *b_;
  llvm::Type *narrow = b.getIntNTy(bits);
  llvm::Value *base = operand(op, load ? "source" : "target");
  llvm::Value *address = b.CreateGEP(b.getInt8Ty(), base, operand(op, "byte_offset"));
  llvm::Align align(1);  // a byte offset promises no alignment
  if (load) {
    llvm::Value *v = b.CreateAlignedLoad(narrow, address, align);
    set(op, 0, sign ? b.CreateSExt(v, b.getInt32Ty()) : b.CreateZExt(v, b.getInt32Ty()));
  } else {
    b.CreateAlignedStore(b.CreateTrunc(operand(op, "value"), narrow), address, align);
  }
  return true;
}

}  // namespace hrx::bridge
