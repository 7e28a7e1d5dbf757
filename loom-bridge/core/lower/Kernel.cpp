// Lowering of kernel.* ops: work-item coordinates, barriers, subgroup and workgroup collectives.
#include "LoweringImpl.h"

#include <functional>

namespace hrx::bridge {

void Lowering::Impl::lowerKernel(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  using loom::OpCode;
  switch (op.opcode()) {
  case OpCode::KernelReturn: b.CreateRetVoid(); return;
  case OpCode::KernelLaunchConfig: {
    std::vector<llvm::Value *> values;
    for (std::string_view group : {"workgroups", "workgroup_size"}) {
      std::span<Value *const> list = op.operandGroup(group);
      if (list.size() > 3) unsupported(op, "at most three dimensions");
      for (size_t i = 0; i < 3; ++i) values.push_back(i < list.size() ? get(list[i]) : i64(1));
    }
    std::span<Value *const> storage = op.operandGroup("dynamic_workgroup_storage");
    values.push_back(storage.empty() ? i64(0) : b.CreateZExtOrTrunc(get(storage[0]), b.getInt64Ty()));
    llvm::Value *aggregate = llvm::PoisonValue::get(configType());
    for (unsigned i = 0; i < values.size(); ++i) aggregate = b.CreateInsertValue(aggregate, values[i], i);
    b.CreateRet(aggregate);
    return;
  }
  case OpCode::KernelBarrier:
    if (!fn_->coordinates || !fn_->coordinates->barrier(b))
      unsupported(op, "this target has no native barrier (a barrier must be at the top level of the kernel body)");
    return;
  case OpCode::KernelSubgroupReduce: return set(op, 0, subgroupReduce(op, operand(op, "in")));
  case OpCode::KernelWorkgroupReduce: return set(op, 0, workgroupReduce(op));
  case OpCode::KernelSubgroupBroadcast:
  case OpCode::KernelSubgroupShuffle:
  case OpCode::KernelWorkgroupScan: return lowerExchange(op);
  case OpCode::KernelSubgroupVoteAny:
  case OpCode::KernelSubgroupVoteAll:
  case OpCode::KernelSubgroupVoteBallot:
  case OpCode::KernelSubgroupActiveMask:
  case OpCode::KernelSubgroupMatchAny:
  case OpCode::KernelSubgroupMatchAll:
  case OpCode::KernelSubgroupBroadcastFirst:
  case OpCode::KernelSubgroupScan: return lowerLaneCollective(op);
  case OpCode::KernelWorkgroupStorage: {
    // The launch's dynamic tail, after the kernel's fixed workgroup storage; how many bytes the
    // dispatch grants is the launch region's dynamic_workgroup_storage, not this op's size.
    std::optional<int64_t> align = ir::integerAttr(op, "align");
    uint64_t alignment = align && *align > 0 ? uint64_t(*align) : 16;
    if (alignment & (alignment - 1)) unsupported(op, "the alignment must be a power of two");
    llvm::Value *tail = fn_->coordinates ? fn_->coordinates->dynamicWorkgroupStorage(b, alignment) : nullptr;
    if (!tail) unsupported(op, "this target has no dynamic workgroup storage");
    return set(op, 0, tail);
  }
  case OpCode::KernelAsyncCopy:
  case OpCode::KernelAsyncGather:
  case OpCode::KernelAsyncGroup:
  case OpCode::KernelAsyncWait:
    unsupported(op, "asynchronous copies are not lowered yet (kernel.async.gather is gfx9_4's LDS-direct load, which "
                    "RDNA3.5 lacks); write view.load/view.store with kernel.barrier");
  case OpCode::KernelAsyncCopyMask:
  case OpCode::KernelAsyncGatherMask:
    unsupported(op, "predicated asynchronous copies are not lowered yet; write view.load/view.store under scf.if");
  case OpCode::KernelAsyncClusterGather:
  case OpCode::KernelAsyncClusterGatherMask:
    unsupported(op, "cluster loads into LDS are gfx1250's (workgroup clusters), which this target does not have");
  case OpCode::KernelExit: return lowerExit(op);
  case OpCode::KernelWorkgroupVoteCount:
  case OpCode::KernelWorkgroupVoteAny:
  case OpCode::KernelWorkgroupVoteAll:
    unsupported(op, "a workgroup-wide vote is not lowered yet; use kernel.workgroup.reduce<addi> (count), <ori> (any) "
                    "or <andi> (all) of the predicate extended to i32");
  case OpCode::KernelClusterId:
  case OpCode::KernelClusterWorkgroupId:
  case OpCode::KernelClusterWorkgroupFlatId:
  case OpCode::KernelClusterSize:
  case OpCode::KernelClusterCount: unsupported(op, "workgroup clusters are gfx1250's, which this target does not have");
  case OpCode::KernelLaunchSerial:
  case OpCode::KernelLaunchConcurrent:
  case OpCode::KernelLaunchYield:
    unsupported(op, "host launch schedules are run by hrx check and the runtime, not compiled into target code");
  case OpCode::KernelTensorLdsDescriptor:
  case OpCode::KernelAsyncTensorLoadToLds:
  case OpCode::KernelAsyncTensorStoreFromLds:
    unsupported(op, "tensor-memory transfers are gfx1250's, which this target does not have");
  default: break;
  }
  std::optional<Coordinate> name;
  switch (op.opcode()) {
  case OpCode::KernelWorkitemId: name = Coordinate::WorkitemId; break;
  case OpCode::KernelWorkitemDispatchId: name = Coordinate::WorkitemDispatchId; break;
  case OpCode::KernelWorkgroupId: name = Coordinate::WorkgroupId; break;
  case OpCode::KernelWorkgroupSize: name = Coordinate::WorkgroupSize; break;
  case OpCode::KernelWorkgroupCount: name = Coordinate::WorkgroupCount; break;
  case OpCode::KernelSubgroupId: name = Coordinate::SubgroupId; break;
  case OpCode::KernelSubgroupLaneId: name = Coordinate::SubgroupLaneId; break;
  case OpCode::KernelSubgroupSize: name = Coordinate::SubgroupSize; break;
  case OpCode::KernelSubgroupCount: name = Coordinate::SubgroupCount; break;
  default: unsupported(op, "no lowering for this op");
  }
  const loom::Attribute *dimension = op.templateParam(0);
  unsigned dim = 0;
  if (dimension) dim = dimension->str() == "y" ? 1 : dimension->str() == "z" ? 2 : 0;
  if (fn_->coordinates) {
    if (llvm::Value *v = fn_->coordinates->coordinate(b, *fn_->function, *name, dim)) return set(op, 0, v);
    if (llvm::Value *v = subgroupCoordinate(*name)) return set(op, 0, v);
  }
  // The launch-config region sizes workgroups by the kernel's subgroup size, a constant.
  if (*name == Coordinate::SubgroupSize) return set(op, 0, i64(int64_t(fn_->subgroupSize)));
  unsupported(op, "this kernel operation is not supported by this target");
}

// kernel.exit: the work-items whose condition holds run the optional body and return. Other
// work-items of their workgroup still run the rest of the kernel, so a kernel that synchronizes
// (barriers, workgroup or subgroup collectives) is not lowered with an exit: the exited items
// would be missing from the synchronization (the host twin runs such kernels in phases or fibers).
void Lowering::Impl::lowerExit(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  const Operation *kernel = op.parentOp();
  bool synchronizes = false;
  if (kernel)
    kernel->walk([&](const Operation &inner) {
      synchronizes |= isBarrier(inner) || isGroupReduce(inner) || isExchange(inner) || isLaneCollective(inner);
    });
  if (!kernel || synchronizes)
    unsupported(op, "kernel.exit in a kernel that synchronizes (barriers, collectives) is not lowered yet");
  llvm::Function *f = fn_->function;
  llvm::BasicBlock *leave = llvm::BasicBlock::Create(context_, "exit", f);
  llvm::BasicBlock *stay = llvm::BasicBlock::Create(context_, "exit.continue", f);
  b.CreateCondBr(operand(op, "condition"), leave, stay);
  b.SetInsertPoint(leave);
  if (op.numRegions() && !op.region(0)->blocks().empty())
    for (const Operation &inner : *op.region(0)->entryBlock()) lowerOp(inner);
  if (!b.GetInsertBlock()->getTerminator()) b.CreateRetVoid();
  b.SetInsertPoint(stay);
}

// Cross-lane exchange (subgroup broadcast/shuffle, workgroup scan). Every work-item's operand is
// read by linear work-item id: on the host from the other items' spill slots of the phase split
// at this op (Lowering::kernelPhases), elsewhere from workgroup storage each item fills between
// two barriers. Subgroups are runs of subgroup-size consecutive linear ids on every target.
void Lowering::Impl::lowerExchange(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  using loom::OpCode;
  const KernelCoordinates *target = fn_->coordinates;
  llvm::Function &f = *fn_->function;
  if (!target) unsupported(op, "cross-lane operations need a kernel");
  llvm::Value *value = operand(op, "in");
  llvm::Type *type = value->getType();
  auto coord = [&](Coordinate kind, unsigned d) -> llvm::Value * {
    llvm::Value *v = target->coordinate(b, f, kind, d);
    if (!v) v = subgroupCoordinate(kind);
    if (!v) unsupported(op, "this target has no work-item coordinates");
    return v;
  };
  llvm::Value *sx = coord(Coordinate::WorkgroupSize, 0), *sy = coord(Coordinate::WorkgroupSize, 1), *sz = coord(Coordinate::WorkgroupSize, 2);
  llvm::Value *linear =
      b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(coord(Coordinate::WorkitemId, 2), sy), coord(Coordinate::WorkitemId, 1)), sx),
                  coord(Coordinate::WorkitemId, 0));
  llvm::Value *items = b.CreateMul(b.CreateMul(sx, sy), sz);
  uint64_t slotBytes = llvm::alignTo(module_.getDataLayout().getTypeAllocSize(type), 16);
  llvm::Value *storage = nullptr;
  std::function<llvm::Value *(llvm::Value *)> read;
  if (fn_->exchange) {
    const FunctionState::Exchange &x = *fn_->exchange;
    uint64_t slot = x.slots.at(op.operand(0));
    read = [&, slot](llvm::Value *item) {
      llvm::Value *at = b.CreateAdd(b.CreateMul(item, i64(int64_t(x.spillBytes))), i64(int64_t(slot)));
      return b.CreateAlignedLoad(type, b.CreateGEP(b.getInt8Ty(), x.spills, at), llvm::Align(16));
    };
  } else {
    constexpr uint64_t kMaxItems = 1024;
    if (slotBytes * kMaxItems > 32768) unsupported(op, "the exchanged value is too large for workgroup storage");
    // One allocation per function and slot size serves every exchange of that size (they are
    // separated by barriers); it is made in the entry block so that every use is dominated.
    llvm::Value *&shared = fn_->exchangeStorage[slotBytes];
    if (!shared) {
      llvm::IRBuilder<> entry(&f.getEntryBlock(), f.getEntryBlock().getFirstInsertionPt());
      shared = target->workgroupStorage(entry, slotBytes * kMaxItems, 16);
    }
    storage = shared;
    if (!storage) unsupported(op, "this target has no workgroup storage for cross-lane exchange");
    b.CreateAlignedStore(value, b.CreateGEP(b.getInt8Ty(), storage, b.CreateMul(linear, i64(int64_t(slotBytes)))),
                         llvm::Align(16));
    if (!target->barrier(b)) unsupported(op, "this target has no native barrier");
    read = [&](llvm::Value *item) {
      return b.CreateAlignedLoad(type, b.CreateGEP(b.getInt8Ty(), storage, b.CreateMul(item, i64(int64_t(slotBytes)))),
                                 llvm::Align(16));
    };
  }
  auto widen = [&](llvm::Value *v) { return b.CreateZExtOrTrunc(v, b.getInt64Ty()); };
  llvm::Value *subgroup = i64(int64_t(fn_->subgroupSize));
  if (llvm::Value *native = target->coordinate(b, f, Coordinate::SubgroupSize, 0)) subgroup = native;
  llvm::Value *lane = b.CreateURem(linear, subgroup);
  llvm::Value *subgroupBase = b.CreateSub(linear, lane);
  switch (op.opcode()) {
  case OpCode::KernelSubgroupBroadcast: {
    llvm::Value *source = b.CreateAdd(subgroupBase, widen(operand(op, "lane")));
    source = b.CreateSelect(b.CreateICmpULT(source, items), source, linear);
    set(op, 0, read(source));
    break;
  }
  case OpCode::KernelSubgroupShuffle: {
    std::string_view mode = op.templateParam(0) ? op.templateParam(0)->str() : "";
    llvm::Value *offset = widen(operand(op, "offset"));
    llvm::Value *width = widen(operand(op, "width"));
    width =
        b.CreateSelect(b.CreateOr(b.CreateICmpEQ(width, i64(0)), b.CreateICmpUGT(width, subgroup)), subgroup, width);
    llvm::Value *inCluster = b.CreateURem(lane, width);
    llvm::Value *clusterBase = b.CreateSub(linear, inCluster);
    llvm::Value *source = nullptr, *valid = nullptr;
    if (mode == "index") {
      source = offset;
      valid = b.CreateICmpULT(offset, width);
    } else if (mode == "xor") {
      source = b.CreateXor(inCluster, offset);
      valid = b.CreateICmpULT(source, width);
    } else if (mode == "up") {
      source = b.CreateSub(inCluster, offset);
      valid = b.CreateICmpULE(offset, inCluster);
    } else if (mode == "down") {
      source = b.CreateAdd(inCluster, offset);
      valid = b.CreateICmpULT(source, width);
    } else {
      unsupported(op, "unknown shuffle mode '" + std::string(mode) + "'");
    }
    llvm::Value *item = b.CreateAdd(clusterBase, source);
    valid = b.CreateAnd(valid, b.CreateICmpULT(item, items));
    llvm::Value *loaded = read(b.CreateSelect(valid, item, linear));
    set(op, 0, b.CreateSelect(valid, loaded, value));
    set(op, 1, valid);
    break;
  }
  case OpCode::KernelWorkgroupScan: {
    std::string_view kind = combiningKind(op);
    const loom::Attribute *direction = op.attr("direction"), *mode = op.attr("mode");
    bool reverse = direction && direction->str() == "reverse";
    bool exclusive = mode && mode->str() == "exclusive";
    llvm::Value *identity = combineIdentity(b, kind, type);
    if (!identity)
      unsupported(op, "no scan for combining kind '" + std::string(kind) + "' on " + op.operand(0)->type()->str());
    // acc = fold over the items before (forward) or after (reverse) this one, in linear order.
    llvm::Value *acc = countedFold("scan", i64(0), items, identity, [&](llvm::Value *index, llvm::Value *acc) {
      llvm::Value *item = reverse ? b.CreateSub(b.CreateSub(items, i64(1)), index) : index;
      llvm::Value *take = reverse ? (exclusive ? b.CreateICmpUGT(item, linear) : b.CreateICmpUGE(item, linear))
                                  : (exclusive ? b.CreateICmpULT(item, linear) : b.CreateICmpULE(item, linear));
      llvm::Value *next = combine(b, kind, acc, read(item));
      if (!next) unsupported(op, "unknown combining kind '" + std::string(kind) + "'");
      return b.CreateSelect(take, next, acc);
    });
    set(op, 0, acc);
    break;
  }
  default: unsupported(op, "not a cross-lane operation");
  }
  // A later exchange may reuse the storage only after every item has read this one.
  if (storage) target->barrier(b);
}

std::string_view Lowering::Impl::combiningKind(const Operation &op) {
  const loom::Attribute *kind = op.templateParam(0);
  if (kind && kind->kind() == loom::AttrKind::Flags && !kind->elements().empty()) return kind->elements()[0]->str();
  return kind ? kind->str() : "";
}

// Subgroups where the target has none (the host): consecutive linear work-item ids in groups of
// the kernel's subgroup size.
llvm::Value *Lowering::Impl::subgroupCoordinate(Coordinate kind) {
  llvm::IRBuilder<> &b = *b_;
  const KernelCoordinates &c = *fn_->coordinates;
  llvm::Function &f = *fn_->function;
  llvm::Value *size = i64(int64_t(fn_->subgroupSize));
  if (kind == Coordinate::SubgroupSize) return size;
  llvm::Value *sx = c.coordinate(b, f, Coordinate::WorkgroupSize, 0), *sy = c.coordinate(b, f, Coordinate::WorkgroupSize, 1);
  llvm::Value *sz = c.coordinate(b, f, Coordinate::WorkgroupSize, 2);
  llvm::Value *x = c.coordinate(b, f, Coordinate::WorkitemId, 0), *y = c.coordinate(b, f, Coordinate::WorkitemId, 1);
  llvm::Value *z = c.coordinate(b, f, Coordinate::WorkitemId, 2);
  if (!sx || !sy || !sz || !x || !y || !z) return nullptr;
  llvm::Value *linear = b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(z, sy), y), sx), x);
  if (kind == Coordinate::SubgroupLaneId) return b.CreateURem(linear, size);
  if (kind == Coordinate::SubgroupId) return b.CreateUDiv(linear, size);
  if (kind == Coordinate::SubgroupCount)
    return b.CreateUDiv(b.CreateAdd(b.CreateMul(b.CreateMul(sx, sy), sz), i64(int64_t(fn_->subgroupSize) - 1)), size);
  return nullptr;
}

llvm::Value *Lowering::Impl::subgroupReduce(const Operation &op, llvm::Value *value) {
  // A vector reduces lane-wise: each element across the subgroup on its own.
  if (auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(value->getType())) {
    llvm::Value *result = llvm::PoisonValue::get(vector);
    for (unsigned i = 0; i < vector->getNumElements(); ++i)
      result = b_->CreateInsertElement(result, subgroupReduce(op, b_->CreateExtractElement(value, uint64_t(i))),
                                       uint64_t(i));
    return result;
  }
  // Clusters of lanes fold their active lanes in lane order (lower/Subgroup.cpp).
  if (op.opcode() == loom::OpCode::KernelSubgroupReduce && op.attr("cluster_size"))
    return clusterFold(op, value, laneId(op), false, [&](llvm::Value *) { return b_->getTrue(); });
  std::string why;
  llvm::Value *result =
      fn_->coordinates ? fn_->coordinates->subgroupReduce(*b_, combiningKind(op), value, why) : nullptr;
  if (!result && fn_->coordinates) result = gatheredReduce(op, value);
  if (!result) unsupported(op, why.empty() ? "this kernel operation is not supported by this target" : why);
  return result;
}

// A subgroup reduction from the target's subgroup gather (the host twin's fibers): every lane
// folds the active lanes' values in lane order. Null when the target has no gather.
llvm::Value *Lowering::Impl::gatheredReduce(const Operation &op, llvm::Value *value) {
  llvm::IRBuilder<> &b = *b_;
  llvm::Type *type = value->getType();
  uint64_t bytes = module_.getDataLayout().getTypeAllocSize(type);
  llvm::AllocaInst *mine = entryAlloca(type);
  llvm::AllocaInst *lanes = entryAlloca(llvm::ArrayType::get(type, fn_->subgroupSize));
  b.CreateStore(value, mine);
  llvm::Value *mask = fn_->coordinates->subgroupGather(b, mine, bytes, lanes);
  if (!mask) return nullptr;
  std::string_view kind = combiningKind(op);
  llvm::Value *identity = combineIdentity(b, kind, type);
  if (!identity)
    unsupported(op, "no reduction for combining kind '" + std::string(kind) + "' on " + op.operand(0)->type()->str());
  return countedFold("reduce.lanes", i64(0), i64(int64_t(fn_->subgroupSize)), identity,
                     [&](llvm::Value *lane, llvm::Value *acc) {
                       llvm::Value *active = b.CreateTrunc(b.CreateLShr(mask, lane), b.getInt1Ty());
                       llvm::Value *v = b.CreateLoad(type, b.CreateGEP(type, lanes, lane));
                       llvm::Value *next = combine(b, kind, acc, v);
                       if (!next) unsupported(op, "unknown combining kind '" + std::string(kind) + "'");
                       return b.CreateSelect(active, next, acc);
                     });
}

// A workgroup reduction on a target with subgroups: each subgroup reduces its lanes, lane 0
// publishes the partial in workgroup storage, and after a barrier every work-item folds the
// partials in subgroup order. A second barrier lets a later reduction reuse the storage.
llvm::Value *Lowering::Impl::workgroupReduce(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  const KernelCoordinates *target = fn_->coordinates;
  llvm::Function *f = fn_->function;
  llvm::Value *partial = subgroupReduce(op, operand(op, "in"));
  llvm::Type *type = partial->getType();
  constexpr uint64_t kMaxSubgroups = 1024 / 32;  // the largest workgroup in the narrowest waves
  uint64_t slotBytes = module_.getDataLayout().getTypeAllocSize(type);
  llvm::Value *storage = target->workgroupStorage(b, kMaxSubgroups * slotBytes, 16);
  // Subgroup coordinates the target lacks (the host twin's fibers) come from the linear id.
  auto coordinate = [&](Coordinate kind) {
    llvm::Value *v = target->coordinate(b, *f, kind, 0);
    return v ? v : subgroupCoordinate(kind);
  };
  llvm::Value *lane = coordinate(Coordinate::SubgroupLaneId);
  llvm::Value *subgroup = coordinate(Coordinate::SubgroupId);
  llvm::Value *subgroups = coordinate(Coordinate::SubgroupCount);
  if (!storage || !lane || !subgroup || !subgroups)
    unsupported(op, "this target has no workgroup storage or subgroup ids");
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
  llvm::Value *acc = countedFold("reduce", i64(1), subgroups, first, [&](llvm::Value *index, llvm::Value *acc) {
    llvm::Value *next =
        combine(b, combiningKind(op), acc, b.CreateAlignedLoad(type, b.CreateGEP(type, storage, index), align));
    if (!next) unsupported(op, "unknown combining kind '" + std::string(combiningKind(op)) + "'");
    return next;
  });
  target->barrier(b);
  return acc;
}

// for (index = start; index < end; ++index) acc = step(index, acc), from acc = init; the result
// is acc after the loop. One loop shape for every counted fold the kernel ops emit.
llvm::Value *Lowering::Impl::countedFold(std::string_view name, llvm::Value *start, llvm::Value *end,
                                         llvm::Value *init,
                                         const std::function<llvm::Value *(llvm::Value *, llvm::Value *)> &step) {
  llvm::IRBuilder<> &b = *b_;
  llvm::Function *f = b.GetInsertBlock()->getParent();
  llvm::BasicBlock *entry = b.GetInsertBlock();
  llvm::BasicBlock *header = llvm::BasicBlock::Create(context_, std::string(name) + ".header", f);
  llvm::BasicBlock *body = llvm::BasicBlock::Create(context_, std::string(name) + ".body", f);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(context_, std::string(name) + ".exit", f);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode *index = b.CreatePHI(b.getInt64Ty(), 2);
  llvm::PHINode *acc = b.CreatePHI(init->getType(), 2);
  index->addIncoming(start, entry);
  acc->addIncoming(init, entry);
  b.CreateCondBr(b.CreateICmpULT(index, end), body, exit);
  b.SetInsertPoint(body);
  llvm::Value *next = step(index, acc);
  llvm::BasicBlock *latch = b.GetInsertBlock();
  acc->addIncoming(next, latch);
  index->addIncoming(b.CreateAdd(index, i64(1)), latch);
  b.CreateBr(header);
  b.SetInsertPoint(exit);
  return acc;
}

}  // namespace hrx::bridge
