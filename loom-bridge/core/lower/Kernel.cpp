// Lowering of kernel.* ops: work-item coordinates, barriers, subgroup and workgroup collectives.
#include "LoweringImpl.h"

namespace hrx::bridge {

void Lowering::Impl::lowerKernel(const Operation &op, std::string_view name) {
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

std::string_view Lowering::Impl::combiningKind(const Operation &op) {
  const loom::Attribute *kind = op.templateParam(0);
  if (kind && kind->kind() == loom::AttrKind::Flags && !kind->elements().empty()) return kind->elements()[0]->str();
  return kind ? kind->str() : "";
}

// Subgroups where the target has none (the host): consecutive linear work-item ids in groups of
// the kernel's subgroup size.
llvm::Value *Lowering::Impl::subgroupCoordinate(std::string_view kind) {
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

llvm::Value *Lowering::Impl::subgroupReduce(const Operation &op, llvm::Value *value) {
  std::string why;
  llvm::Value *result = fn_->coordinates ? fn_->coordinates->subgroupReduce(*b_, combiningKind(op), value, why) : nullptr;
  if (!result) unsupported(op, why.empty() ? "this kernel operation is not supported by this target" : why);
  return result;
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

}  // namespace hrx::bridge
