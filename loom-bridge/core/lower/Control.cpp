// Lowering of scf.*, cfg.* and func.* ops: structured loops and branches, calls and returns.
#include "LoweringImpl.h"

namespace hrx::bridge {

using loom::OpCode;

// Lowers a single-block structured region; returns the values its scf.yield passes out.
std::vector<llvm::Value *> Lowering::Impl::lowerRegion(const loom::Region &region, bool viewsAsNull) {
  std::vector<llvm::Value *> yielded;
  if (region.empty()) return yielded;
  for (const Operation &op : *region.entryBlock()) {
    if (op.opcode() == loom::OpCode::ScfYield || op.opcode() == loom::OpCode::ScfCondition) {
      for (const Value *v : op.operands()) yielded.push_back(viewsAsNull && lowered(v).view ? nullptr : get(v));
      break;
    }
    lowerOp(op);
  }
  return yielded;
}

// A select between two views selects each part: the base pointer (in one address space: a
// private allocation's and a buffer's differ on AMDGPU), then each extent and stride.
void Lowering::Impl::lowerViewSelect(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  llvm::Value *cond = operand(op, "cond");
  std::shared_ptr<ViewValue> t = view(op, "true"), e = view(op, "false");
  if (t->extents.size() != e->extents.size() || t->strides.size() != e->strides.size())
    unsupported(op, "both views must have the same rank");
  auto v = std::make_shared<ViewValue>(*t);
  v->type = op.result(0)->type();
  bool sameSpace = t->base->getType() == e->base->getType();
  v->base =
      b.CreateSelect(cond, sameSpace ? t->base : flatPointer(t->base), sameSpace ? e->base : flatPointer(e->base));
  for (size_t i = 0; i < v->extents.size(); ++i) v->extents[i] = b.CreateSelect(cond, t->extents[i], e->extents[i]);
  for (size_t i = 0; i < v->strides.size(); ++i) v->strides[i] = b.CreateSelect(cond, t->strides[i], e->strides[i]);
  v->coherent = t->coherent && e->coherent;
  lowered(op.result(0)).view = v;
}

void Lowering::Impl::lowerControl(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  llvm::Function *f = fn_->function;
  if (op.opcode() == loom::OpCode::ScfWhile) return lowerWhile(op);
  if (op.opcode() == loom::OpCode::ScfScheduleFence) return;  // a scheduling hint; LLVM schedules
  if (op.opcode() == OpCode::ScfSelect) {
    if (op.result(0)->type()->kind() == loom::TypeKind::View) return lowerViewSelect(op);
    return set(op, 0, b.CreateSelect(operand(op, "cond"), operand(op, "true"), operand(op, "false")));
  }
  if (op.opcode() == OpCode::ScfFor) {
    const Value *loValue = op.operandNamed("lo");
    llvm::Value *lo = operand(op, "lo"), *hi = operand(op, "hi"), *step = operand(op, "step");
    // A carried view is carried part by part (flat base, then each extent and stride), as
    // scf.if merges one.
    std::vector<llvm::Value *> inits;
    std::vector<std::shared_ptr<ViewValue>> initViews;
    for (const Value *v : op.operandGroup("inits")) {
      std::shared_ptr<ViewValue> view = lowered(v).view;
      initViews.push_back(view);
      inits.push_back(view ? nullptr : get(v));
    }
    std::vector<std::shared_ptr<ViewValue>> viewPhis(inits.size());
    for (size_t i = 0; i < inits.size(); ++i)
      if (initViews[i]) {
        auto v = std::make_shared<ViewValue>(*initViews[i]);
        v->base = flatPointer(initViews[i]->base);
        viewPhis[i] = v;
      }
    llvm::BasicBlock *preheader = b.GetInsertBlock();
    llvm::BasicBlock *header = llvm::BasicBlock::Create(context_, "for.header", f);
    llvm::BasicBlock *body = llvm::BasicBlock::Create(context_, "for.body", f);
    llvm::BasicBlock *exit = llvm::BasicBlock::Create(context_, "for.exit", f);
    b.CreateBr(header);
    b.SetInsertPoint(header);
    llvm::PHINode *iv = b.CreatePHI(lo->getType(), 2, "iv");
    iv->addIncoming(lo, preheader);
    auto carry = [&](llvm::Value *init) {
      llvm::PHINode *phi = b.CreatePHI(init->getType(), 2);
      phi->addIncoming(init, preheader);
      return phi;
    };
    std::vector<llvm::PHINode *> carried;
    for (size_t i = 0; i < inits.size(); ++i) {
      if (!viewPhis[i]) {
        carried.push_back(carry(inits[i]));
        continue;
      }
      carried.push_back(nullptr);
      ViewValue &v = *viewPhis[i];
      v.base = carry(v.base);
      for (llvm::Value *&e : v.extents) e = carry(e);
      for (llvm::Value *&s : v.strides) s = carry(s);
    }
    llvm::Value *more = loValue->type()->isOffset() ? b.CreateICmpULT(iv, hi) : b.CreateICmpSLT(iv, hi);
    b.CreateCondBr(more, body, exit);
    b.SetInsertPoint(body);
    const loom::Block &block = *op.region(0)->entryBlock();
    std::span<Value *const> args = block.arguments();
    if (args.size() != carried.size() + 1)
      unsupported(op, "the loop region's arguments do not match its iteration values");
    lowered(args[0]).value = iv;
    for (size_t i = 0; i < carried.size(); ++i) {
      if (viewPhis[i]) {
        auto v = std::make_shared<ViewValue>(*viewPhis[i]);
        v->type = args[i + 1]->type();
        lowered(args[i + 1]).view = v;
      } else {
        lowered(args[i + 1]).value = carried[i];
      }
    }
    std::vector<llvm::Value *> next = lowerRegion(*op.region(0), true);
    if (next.size() != carried.size()) unsupported(op, "scf.yield must pass one value per iteration argument");
    const Operation *yield = op.region(0)->entryBlock()->terminator();
    llvm::Value *ivNext = b.CreateAdd(iv, step, "iv.next", false, !loValue->type()->isOffset());
    std::vector<std::shared_ptr<ViewValue>> yieldedViews(carried.size());
    for (size_t i = 0; i < carried.size(); ++i) {
      if (!viewPhis[i]) {
        if (!next[i]) unsupported(op, "a view is yielded where the loop carries a value");
        continue;
      }
      std::shared_ptr<ViewValue> y =
          yield && i < yield->numOperands() ? lowered(yield->operand(unsigned(i))).view : nullptr;
      if (!y || y->extents.size() != viewPhis[i]->extents.size() || y->strides.size() != viewPhis[i]->strides.size())
        unsupported(op, "a carried view must be yielded as a view of the same rank");
      auto flat = std::make_shared<ViewValue>(*y);
      flat->base = flatPointer(y->base);
      yieldedViews[i] = flat;
    }
    llvm::BasicBlock *latch = b.GetInsertBlock();
    b.CreateBr(header);
    iv->addIncoming(ivNext, latch);
    for (size_t i = 0; i < carried.size(); ++i) {
      if (!viewPhis[i]) {
        carried[i]->addIncoming(next[i], latch);
        continue;
      }
      const ViewValue &v = *viewPhis[i], &y = *yieldedViews[i];
      llvm::cast<llvm::PHINode>(v.base)->addIncoming(y.base, latch);
      for (size_t k = 0; k < v.extents.size(); ++k)
        llvm::cast<llvm::PHINode>(v.extents[k])->addIncoming(y.extents[k], latch);
      for (size_t k = 0; k < v.strides.size(); ++k)
        llvm::cast<llvm::PHINode>(v.strides[k])->addIncoming(y.strides[k], latch);
    }
    b.SetInsertPoint(exit);
    for (size_t i = 0; i < carried.size() && i < op.numResults(); ++i) {
      if (!viewPhis[i]) {
        set(op, unsigned(i), carried[i]);
        continue;
      }
      auto v = std::make_shared<ViewValue>(*viewPhis[i]);
      v->type = op.result(unsigned(i))->type();
      lowered(op.result(unsigned(i))).view = v;
    }
    return;
  }
  if (op.opcode() == OpCode::ScfIf) {
    llvm::Value *cond = operand(op, "cond");
    llvm::BasicBlock *thenBlock = llvm::BasicBlock::Create(context_, "if.then", f);
    llvm::BasicBlock *elseBlock = llvm::BasicBlock::Create(context_, "if.else", f);
    llvm::BasicBlock *merge = llvm::BasicBlock::Create(context_, "if.end", f);
    b.CreateCondBr(cond, thenBlock, elseBlock);
    b.SetInsertPoint(thenBlock);
    std::vector<llvm::Value *> thenValues = lowerRegion(*op.region(0), true);
    llvm::BasicBlock *thenEnd = b.GetInsertBlock();
    b.CreateBr(merge);
    b.SetInsertPoint(elseBlock);
    std::vector<llvm::Value *> elseValues;
    if (op.numRegions() > 1) elseValues = lowerRegion(*op.region(1), true);
    llvm::BasicBlock *elseEnd = b.GetInsertBlock();
    b.CreateBr(merge);
    b.SetInsertPoint(merge);
    if (op.numResults() && (thenValues.size() != op.numResults() || elseValues.size() != op.numResults()))
      unsupported(op, "both branches must yield one value per result");
    // Only an scf.if with results has yields to read views from (a result-less one may have an empty region).
    auto yieldOf = [&](unsigned region) -> const Operation * {
      if (region >= op.numRegions() || op.region(region)->empty()) return nullptr;
      return op.region(region)->entryBlock()->terminator();
    };
    for (unsigned i = 0; i < op.numResults(); ++i) {
      if (!thenValues[i] || !elseValues[i]) {
        // A view result merges part by part: base, then each extent and stride.
        const Operation *thenYield = yieldOf(0), *elseYield = yieldOf(1);
        std::shared_ptr<ViewValue> t = thenYield ? lowered(thenYield->operand(i)).view : nullptr;
        std::shared_ptr<ViewValue> e = elseYield ? lowered(elseYield->operand(i)).view : nullptr;
        if (!t || !e || t->extents.size() != e->extents.size() || t->strides.size() != e->strides.size())
          unsupported(op, "both branches must yield views of the same rank");
        auto merge2 = [&](llvm::Value *x, llvm::Value *y) {
          llvm::PHINode *phi = b.CreatePHI(x->getType(), 2);
          phi->addIncoming(x, thenEnd);
          phi->addIncoming(y, elseEnd);
          return phi;
        };
        auto v = std::make_shared<ViewValue>(*t);
        v->type = op.result(i)->type();
        // Bases in different address spaces meet in the flat one, as scf.select's do; the casts
        // go at the end of each branch, before its branch to the merge.
        llvm::Value *thenBase = t->base, *elseBase = e->base;
        if (thenBase->getType() != elseBase->getType()) {
          llvm::IRBuilderBase::InsertPointGuard guard(b);
          b.SetInsertPoint(thenEnd->getTerminator());
          thenBase = flatPointer(thenBase);
          b.SetInsertPoint(elseEnd->getTerminator());
          elseBase = flatPointer(elseBase);
        }
        v->base = merge2(thenBase, elseBase);
        for (size_t k = 0; k < v->extents.size(); ++k) v->extents[k] = merge2(t->extents[k], e->extents[k]);
        for (size_t k = 0; k < v->strides.size(); ++k) v->strides[k] = merge2(t->strides[k], e->strides[k]);
        v->coherent = t->coherent && e->coherent;
        lowered(op.result(i)).view = v;
        continue;
      }
      llvm::PHINode *phi = b.CreatePHI(thenValues[i]->getType(), 2);
      phi->addIncoming(thenValues[i], thenEnd);
      phi->addIncoming(elseValues[i], elseEnd);
      set(op, i, phi);
    }
    return;
  }
  if (op.opcode() == OpCode::ScfSwitch || op.opcode() == OpCode::ScfLookup) return lowerSwitch(op);
  if (op.opcode() == OpCode::CfgBr || op.opcode() == OpCode::CfgCondBr) {
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
    if (op.opcode() == OpCode::CfgBr) {
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

void Lowering::Impl::lowerFunc(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  if (op.opcode() == OpCode::FuncReturn || op.opcode() == OpCode::TemplateReturn) {
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
  if (op.opcode() == OpCode::FuncCall) {
    const SymbolEntry *callee = program_.lookup(ir::symbolRef(op));
    if (!callee || (!callee->cxx && callee->op->opcode() != OpCode::FuncDef))
      unsupported(op, "the callee has no definition");
    if (!callee->cxx && passesEncodings(*callee->op)) return inlineCall(op, *callee->op);
    llvm::Function *target =
        callee->cxx ? external(op, *callee->cxx) : function(*callee->op, typeBindings(op, *callee->op));
    if (!target) throw LoweringError{};
    std::vector<llvm::Value *> args;
    if (callee->cxx)
      for (const Value *v : op.operands()) args.push_back(get(v));
    else
      for (const Value *v : op.operands()) appendCallArguments(args, v);
    prependKernelContext(args, target);
    // A private allocation passed where the callee takes a flat pointer (AMDGPU address spaces).
    for (size_t i = 0; i < args.size() && i < target->arg_size(); ++i)
      if (args[i]->getType() != target->getArg(unsigned(i))->getType() && args[i]->getType()->isPointerTy() &&
          target->getArg(unsigned(i))->getType()->isPointerTy())
        args[i] = b.CreateAddrSpaceCast(args[i], target->getArg(unsigned(i))->getType());
    llvm::CallInst *call = b.CreateCall(target, args);
    if (op.numResults() == 1) set(op, 0, call);
    for (unsigned i = 0; op.numResults() > 1 && i < op.numResults(); ++i) set(op, i, b.CreateExtractValue(call, i));
    return;
  }
  lowerFuncRef(op);
}

// Whether a func.def takes or returns encodings or returns views: compile-time values (layouts,
// schemas, storage) and views have no machine form across a call, so such calls are inlined.
bool Lowering::Impl::passesEncodings(const Operation &def) {
  for (const loom::Type *t : ir::signatureTypes(def, 0))
    if (t->kind() == loom::TypeKind::Encoding) return true;
  for (const loom::Type *t : ir::functionResultTypes(def))
    if (t->kind() == loom::TypeKind::Encoding || t->kind() == loom::TypeKind::View) return true;
  return false;
}

// The callee's body lowered in place of the call: its parameters are the call's operands (views
// and encodings included), its func.return operands the call's results. A body of one block.
void Lowering::Impl::inlineCall(const Operation &call, const Operation &def) {
  const loom::Region *body = def.numRegions() ? def.region(0) : nullptr;
  if (!body || body->blocks().size() != 1) unsupported(call, "a callee passing encodings or views must be one block");
  if (!inlining_.insert(&def).second) unsupported(call, "a callee passing encodings or views may not recurse");
  struct Leave {
    std::set<const Operation *> &set;
    const Operation *def;
    ~Leave() { set.erase(def); }
  } leave{inlining_, &def};
  const loom::Block &block = *body->entryBlock();
  if (block.arguments().size() != call.numOperands()) unsupported(call, "the call's operands do not match the callee");
  for (size_t i = 0; i < call.numOperands(); ++i)
    lowered(block.argument(unsigned(i))) = lowered(call.operand(unsigned(i)));
  for (const auto &[parameter, value] : typeBindings(call, def)) bound_[parameter] = value;
  for (const Operation &op : block) {
    if (op.opcode() != OpCode::FuncReturn) {
      lowerOp(op);
      continue;
    }
    if (op.numOperands() != call.numResults()) unsupported(call, "the callee returns another number of values");
    for (unsigned i = 0; i < call.numResults(); ++i) lowered(call.result(i)) = lowered(op.operand(i));
    return;
  }
  unsupported(call, "the callee's body does not end in func.return");
}

// The callee's index arguments that size the dynamic dimensions of its argument or result types,
// bound to the constants this call passes for them (function() specialises on them).
std::map<const Value *, int64_t> Lowering::Impl::typeBindings(const Operation &call, const Operation &callee) {
  std::map<const Value *, int64_t> bound;
  const loom::Block *entry = callee.numRegions() ? callee.region(0)->entryBlock() : nullptr;
  if (!entry) return bound;
  std::set<const Value *> sizing;
  auto collect = [&](const loom::Type *t) {
    if (t && t->isShaped())
      for (const loom::Dim &d : t->shape())
        if (!d.isStatic()) sizing.insert(d.dynamic);
  };
  for (const loom::Type *t : ir::signatureTypes(callee, 0)) collect(t);
  for (const loom::Type *t : ir::functionResultTypes(callee)) collect(t);
  for (size_t i = 0; i < entry->arguments().size() && i < call.numOperands(); ++i) {
    const Value *parameter = entry->argument(unsigned(i));
    if (!sizing.count(parameter) || !parameter->type()->isAddress()) continue;
    if (std::optional<int64_t> n = constantIndex(call.operand(unsigned(i)))) bound.emplace(parameter, *n);
  }
  return bound;
}

// func.ref values are function addresses: null is a null pointer, func.address the lowered
// func.def, a call through one is an indirect call of the signature's machine type, and the
// cast to a yieldable reference keeps the address.
void Lowering::Impl::lowerFuncRef(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  llvm::PointerType *ptr = llvm::PointerType::getUnqual(context_);
  switch (op.opcode()) {
  case OpCode::FuncNull: return set(op, 0, llvm::ConstantPointerNull::get(ptr));
  case OpCode::FuncCompareNull: return set(op, 0, b.CreateIsNull(get(op.operandNamed("target"))));
  case OpCode::FuncRefCast: return set(op, 0, get(op.operandNamed("in")));
  case OpCode::FuncAddress: {
    const SymbolEntry *callee = program_.lookup(ir::symbolRef(op));
    if (!callee || callee->cxx || callee->op->opcode() != OpCode::FuncDef)
      unsupported(op, "the referenced function has no Loom definition");
    llvm::Function *target = function(*callee->op);
    if (!target) throw LoweringError{};
    return set(op, 0, target);
  }
  case OpCode::FuncCallIndirect: {
    const loom::Type *ref = op.operandNamed("target")->type();
    llvm::FunctionType *type = ref->isCallableRef() ? referenceType(*ref->elementType(), op) : nullptr;
    if (!type) unsupported(op, "the reference's signature has no machine type here");
    std::vector<llvm::Value *> args;
    for (const Value *v : op.operandGroup("args")) appendCallArguments(args, v);
    llvm::CallInst *call = b.CreateCall(type, get(op.operandNamed("target")), args);
    if (op.numResults() == 1) set(op, 0, call);
    for (unsigned i = 0; op.numResults() > 1 && i < op.numResults(); ++i) set(op, i, b.CreateExtractValue(call, i));
    return;
  }
  default: break;
  }
  unsupported(op, "no lowering for this op");
}

// A C/C++ function, called with the C ABI of its scalar and pointer parameters.
llvm::Function *Lowering::Impl::external(const Operation &call, const cxx::Signature &sig) {
  std::vector<llvm::Type *> params;
  for (const Value *v : call.operands()) {
    if (v->type()->kind() == loom::TypeKind::Vector)
      unsupported(call, "vectors are passed to C/C++ through buffers, not by value");
    params.push_back(valueType(*v->type(), &call));
  }
  if (call.numResults() && call.result(0)->type()->kind() == loom::TypeKind::Vector)
    unsupported(call, "C/C++ functions return vectors through buffers, not by value");
  llvm::Type *ret = call.numResults() ? valueType(*call.result(0)->type(), &call) : llvm::Type::getVoidTy(context_);
  llvm::FunctionCallee callee = module_.getOrInsertFunction(sig.symbol, llvm::FunctionType::get(ret, params, false));
  return llvm::cast<llvm::Function>(callee.getCallee());
}

// scf.while: the before region runs first each trip and ends in scf.condition %c, %v...; while
// %c holds the do region receives %v... and yields the next trip's values; otherwise the while's
// results are %v....
void Lowering::Impl::lowerWhile(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  llvm::Function *f = fn_->function;
  std::vector<llvm::Value *> inits;
  for (const Value *v : op.operandGroup("inits")) inits.push_back(get(v));
  llvm::BasicBlock *preheader = b.GetInsertBlock();
  llvm::BasicBlock *header = llvm::BasicBlock::Create(context_, "while.before", f);
  llvm::BasicBlock *body = llvm::BasicBlock::Create(context_, "while.do", f);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(context_, "while.exit", f);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  std::span<Value *const> beforeArgs = op.region(0)->entryBlock()->arguments();
  if (beforeArgs.size() != inits.size())
    unsupported(op, "the before region's arguments do not match the initial values");
  std::vector<llvm::PHINode *> carried;
  for (size_t i = 0; i < inits.size(); ++i) {
    llvm::PHINode *phi = b.CreatePHI(inits[i]->getType(), 2);
    phi->addIncoming(inits[i], preheader);
    carried.push_back(phi);
    lowered(beforeArgs[i]).value = phi;
  }
  std::vector<llvm::Value *> condition = lowerRegion(*op.region(0));
  if (condition.empty() || condition.size() != op.numResults() + 1)
    unsupported(op, "scf.condition must pass the condition and one value per result");
  b.CreateCondBr(condition[0], body, exit);
  b.SetInsertPoint(body);
  std::span<Value *const> afterArgs = op.region(1)->entryBlock()->arguments();
  for (size_t i = 0; i < afterArgs.size() && i + 1 < condition.size(); ++i)
    lowered(afterArgs[i]).value = condition[i + 1];
  std::vector<llvm::Value *> next = lowerRegion(*op.region(1));
  if (next.size() != carried.size()) unsupported(op, "the do region must yield one value per initial value");
  llvm::BasicBlock *latch = b.GetInsertBlock();
  b.CreateBr(header);
  for (size_t i = 0; i < carried.size(); ++i) carried[i]->addIncoming(next[i], latch);
  b.SetInsertPoint(exit);
  for (unsigned i = 0; i < op.numResults(); ++i) set(op, i, condition[i + 1]);
}

// template.apply<@family> / func.apply<key>: a call of the provider selected for this target.
void Lowering::Impl::lowerApply(const Operation &op) {
  std::string_view family = options_.providerFamily.empty() ? options_.targetFamily : options_.providerFamily;
  const Operation *provider = ir::selectProvider(program_, op, family, fn_->subgroupSize);
  if (!provider) {
    const loom::Attribute *family = op.templateParam(0);
    size_t candidates = ir::providerCandidates(program_, op).size();
    unsupported(op, "no provider of '" + std::string(family ? family->str() : "") + "' applies here (" +
                        std::to_string(candidates) + " candidate(s) considered)");
  }
  llvm::Function *target = function(*provider);
  if (!target) throw LoweringError{};
  std::vector<llvm::Value *> args;
  for (const Value *v : op.operandGroup("args")) appendCallArguments(args, v);
  prependKernelContext(args, target);
  llvm::CallInst *call = b_->CreateCall(target, args);
  if (op.numResults() == 1) set(op, 0, call);
  for (unsigned i = 0; op.numResults() > 1 && i < op.numResults(); ++i) set(op, i, b_->CreateExtractValue(call, i));
}

// scf.switch: an LLVM switch on the selector, one block per case region and the default, the
// yielded values merged by phis. scf.lookup: a select per case key over the rows (no branches).
void Lowering::Impl::lowerSwitch(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  llvm::Value *selector = operand(op, "selector");
  const loom::Attribute *keys = op.attr("case_keys");
  size_t caseCount = keys ? keys->elements().size() : 0;
  auto key = [&](size_t i) {
    return llvm::cast<llvm::ConstantInt>(
        llvm::ConstantInt::get(selector->getType(), uint64_t(keys->elements()[i]->integer()), true));
  };
  if (op.opcode() == OpCode::ScfLookup) {
    std::span<Value *const> table = op.operandGroup("table");
    size_t width = op.numResults();
    if (table.size() != (caseCount + 1) * width) unsupported(op, "the table needs one row per case and the default");
    for (size_t k = 0; k < width; ++k) {
      llvm::Value *v = get(table[caseCount * width + k]);
      for (size_t i = caseCount; i-- > 0;)
        v = b.CreateSelect(b.CreateICmpEQ(selector, key(i)), get(table[i * width + k]), v);
      set(op, unsigned(k), v);
    }
    return;
  }
  llvm::Function *f = b.GetInsertBlock()->getParent();
  llvm::BasicBlock *merge = llvm::BasicBlock::Create(context_, "switch.end", f);
  llvm::BasicBlock *fallback = llvm::BasicBlock::Create(context_, "switch.default", f);
  llvm::SwitchInst *sw = b.CreateSwitch(selector, fallback, unsigned(caseCount));
  std::vector<std::pair<std::vector<llvm::Value *>, llvm::BasicBlock *>> incoming;
  for (unsigned r = 0; r < op.numRegions(); ++r) {
    llvm::BasicBlock *block = fallback;
    if (r > 0) {
      block = llvm::BasicBlock::Create(context_, "switch.case", f, merge);
      sw->addCase(key(r - 1), block);
    }
    b.SetInsertPoint(block);
    std::vector<llvm::Value *> values = lowerRegion(*op.region(r));
    if (values.size() != op.numResults()) unsupported(op, "every case must yield one value per result");
    incoming.push_back({std::move(values), b.GetInsertBlock()});
    b.CreateBr(merge);
  }
  b.SetInsertPoint(merge);
  for (unsigned i = 0; i < op.numResults(); ++i) {
    llvm::PHINode *phi = b.CreatePHI(incoming[0].first[i]->getType(), unsigned(incoming.size()));
    for (auto &[values, from] : incoming) phi->addIncoming(values[i], from);
    set(op, i, phi);
  }
}

}  // namespace hrx::bridge
