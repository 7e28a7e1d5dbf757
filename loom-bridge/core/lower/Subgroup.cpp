// Lowering of the subgroup lane collectives: votes, ballots and the active-lane mask, lane
// equality masks (match), the first active lane's value and prefix scans in lane order. All of
// them read the active lanes only: on AMDGPU through ballots and uniform lane reads
// (v_readlane), on the host twin from the cooperative scheduler's subgroup gather. Scans and
// matches fold the lanes one by one in lane order on every target, so results (float sums
// included) are the same bits everywhere.
#include "LoweringImpl.h"

namespace hrx::bridge {

using loom::OpCode;

// The active lanes of the subgroup and a way to read lane i's copy of one value.
struct Lowering::Impl::SubgroupLanes {
  llvm::Value *active = nullptr;                   // i64: bit i set when lane i is active
  std::function<llvm::Value *(llvm::Value *)> at;  // lane (i64, uniform) -> that lane's value
};

Lowering::Impl::SubgroupLanes Lowering::Impl::subgroupLanes(const Operation &op, llvm::Value *value) {
  llvm::IRBuilder<> &b = *b_;
  const KernelCoordinates *target = fn_->coordinates;
  if (!target) unsupported(op, "subgroup collectives need a kernel");
  SubgroupLanes lanes;
  if (llvm::Value *all = target->ballot(b, b.getTrue())) {
    lanes.active = all;
    lanes.at = [&b, target, value, &op, this](llvm::Value *lane) {
      llvm::Value *v = target->readUniformLane(b, value, b.CreateTrunc(lane, b.getInt32Ty()));
      if (!v) unsupported(op, "this target cannot read another lane's value");
      return v;
    };
    return lanes;
  }
  llvm::Type *type = value->getType();
  llvm::AllocaInst *mine = entryAlloca(type);
  llvm::AllocaInst *copies = entryAlloca(llvm::ArrayType::get(type, fn_->subgroupSize));
  b.CreateStore(value, mine);
  lanes.active = target->subgroupGather(b, mine, module_.getDataLayout().getTypeAllocSize(type), copies);
  if (!lanes.active) unsupported(op, "this target cannot read the other lanes of a subgroup");
  lanes.at = [&b, type, copies](llvm::Value *lane) { return b.CreateLoad(type, b.CreateGEP(type, copies, lane)); };
  return lanes;
}

// The i64 mask of the active lanes whose predicate holds.
llvm::Value *Lowering::Impl::subgroupBallot(const Operation &op, llvm::Value *predicate) {
  llvm::IRBuilder<> &b = *b_;
  if (fn_->coordinates)
    if (llvm::Value *native = fn_->coordinates->ballot(b, predicate)) return native;
  SubgroupLanes lanes = subgroupLanes(op, predicate);
  return countedFold(
      "ballot", i64(0), i64(int64_t(fn_->subgroupSize)), i64(0), [&](llvm::Value *lane, llvm::Value *acc) {
        llvm::Value *bit = b.CreateShl(i64(1), lane);
        llvm::Value *set = b.CreateAnd(b.CreateICmpNE(b.CreateAnd(lanes.active, bit), i64(0)), lanes.at(lane));
        return b.CreateSelect(set, b.CreateOr(acc, bit), acc);
      });
}

// A lane mask as the op's result type (i32 or i64, checked to cover the subgroup).
llvm::Value *Lowering::Impl::maskResult(const Operation &op, llvm::Value *mask) {
  llvm::Type *type = valueType(*op.result(0)->type(), &op);
  if (!type || !type->isIntegerTy()) unsupported(op, "a lane mask is an integer");
  if (type->getIntegerBitWidth() < fn_->subgroupSize)
    unsupported(op, "an i" + std::to_string(type->getIntegerBitWidth()) + " mask cannot hold a subgroup of " +
                        std::to_string(fn_->subgroupSize) + " lanes");
  return b_->CreateZExtOrTrunc(mask, type);
}

void Lowering::Impl::lowerLaneCollective(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  auto laneOf = [&]() { return laneId(op); };
  switch (op.opcode()) {
  case OpCode::KernelSubgroupActiveMask: return set(op, 0, maskResult(op, subgroupBallot(op, b.getTrue())));
  case OpCode::KernelSubgroupVoteBallot:
    return set(op, 0, maskResult(op, subgroupBallot(op, operand(op, "predicate"))));
  case OpCode::KernelSubgroupVoteAny:
    return set(op, 0, b.CreateICmpNE(subgroupBallot(op, operand(op, "predicate")), i64(0)));
  case OpCode::KernelSubgroupVoteAll: {
    // No active lane has a false predicate.
    llvm::Value *failing = subgroupBallot(op, b.CreateNot(operand(op, "predicate")));
    return set(op, 0, b.CreateICmpEQ(failing, i64(0)));
  }
  case OpCode::KernelSubgroupBroadcastFirst: {
    SubgroupLanes lanes = subgroupLanes(op, operand(op, "in"));
    llvm::Value *first = b.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, lanes.active, b.getTrue());
    return set(op, 0, lanes.at(first));
  }
  case OpCode::KernelSubgroupMatchAny:
  case OpCode::KernelSubgroupMatchAll: {
    llvm::Value *value = operand(op, "in");
    // Bitwise equality: a NaN matches the same NaN, and -0.0 does not match +0.0.
    if (!value->getType()->isIntegerTy())
      value = b.CreateBitCast(value, b.getIntNTy(unsigned(value->getType()->getPrimitiveSizeInBits())));
    SubgroupLanes lanes = subgroupLanes(op, value);
    llvm::Value *mask =
        countedFold("match", i64(0), i64(int64_t(fn_->subgroupSize)), i64(0), [&](llvm::Value *lane, llvm::Value *acc) {
          llvm::Value *bit = b.CreateShl(i64(1), lane);
          llvm::Value *same = b.CreateAnd(b.CreateICmpNE(b.CreateAnd(lanes.active, bit), i64(0)),
                                          b.CreateICmpEQ(lanes.at(lane), value));
          return b.CreateSelect(same, b.CreateOr(acc, bit), acc);
        });
    set(op, 0, maskResult(op, mask));
    if (op.opcode() == OpCode::KernelSubgroupMatchAll) set(op, 1, b.CreateICmpEQ(mask, lanes.active));
    return;
  }
  case OpCode::KernelSubgroupScan: return lowerSubgroupScan(op, laneOf());
  default: unsupported(op, "not a subgroup lane collective");
  }
}

// The lanes of l's cluster: cluster_size consecutive lanes (the whole subgroup by default).
int64_t Lowering::Impl::lanesPerCluster(const Operation &op) {
  int64_t lanes = int64_t(fn_->subgroupSize);
  if (const loom::Attribute *size = op.attr("cluster_size")) lanes = size->integer();
  if (const loom::Attribute *stride = op.attr("cluster_stride"); stride && stride->integer() != 1)
    unsupported(op, "clusters of lanes " + std::to_string(stride->integer()) + " apart are not supported");
  if (lanes <= 0 || lanes > int64_t(fn_->subgroupSize) || (lanes & (lanes - 1)))
    unsupported(op, "cluster_size " + std::to_string(lanes) + " is not a power of two within the subgroup of " +
                        std::to_string(fn_->subgroupSize));
  return lanes;
}

// Combines, in the order `reverse` gives, the active lanes of `lane`'s cluster that `take`
// accepts (take(source lane) is an i1), starting from the kind's identity.
llvm::Value *Lowering::Impl::clusterFold(const Operation &op, llvm::Value *value, llvm::Value *lane, bool reverse,
                                         const std::function<llvm::Value *(llvm::Value *)> &take) {
  llvm::IRBuilder<> &b = *b_;
  llvm::Type *type = value->getType();
  std::string_view kind = combiningKind(op);
  int64_t clusterLanes = lanesPerCluster(op);
  llvm::Value *identity = combineIdentity(b, kind, type->getScalarType());
  if (!identity)
    unsupported(op, "no combination for combining kind '" + std::string(kind) + "' on " + op.operand(0)->type()->str());
  if (auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(type))
    identity = b.CreateVectorSplat(vector->getNumElements(), identity);
  SubgroupLanes lanes = subgroupLanes(op, value);
  llvm::Value *clusterBase = b.CreateAnd(lane, i64(~(clusterLanes - 1)));
  llvm::Value *count = i64(int64_t(fn_->subgroupSize));
  return countedFold("lanes", i64(0), count, identity, [&](llvm::Value *index, llvm::Value *acc) {
    llvm::Value *source = reverse ? b.CreateSub(b.CreateSub(count, i64(1)), index) : index;
    llvm::Value *inCluster = b.CreateICmpEQ(b.CreateAnd(source, i64(~(clusterLanes - 1))), clusterBase);
    llvm::Value *active = b.CreateICmpNE(b.CreateAnd(lanes.active, b.CreateShl(i64(1), source)), i64(0));
    llvm::Value *next = combine(b, kind, acc, lanes.at(source));
    if (!next) unsupported(op, "unknown combining kind '" + std::string(kind) + "'");
    return b.CreateSelect(b.CreateAnd(b.CreateAnd(take(source), inCluster), active), next, acc);
  });
}

// kernel.subgroup.scan<kind> {mode, direction}: lane l combines, in lane order, the active lanes
// of its cluster before it (forward) or after it (reverse), itself included unless exclusive.
void Lowering::Impl::lowerSubgroupScan(const Operation &op, llvm::Value *lane) {
  llvm::IRBuilder<> &b = *b_;
  const loom::Attribute *direction = op.attr("direction"), *mode = op.attr("mode");
  bool reverse = direction && direction->str() == "reverse";
  bool exclusive = mode && mode->str() == "exclusive";
  set(op, 0, clusterFold(op, operand(op, "in"), lane, reverse, [&](llvm::Value *source) {
        return reverse ? (exclusive ? b.CreateICmpUGT(source, lane) : b.CreateICmpUGE(source, lane))
                       : (exclusive ? b.CreateICmpULT(source, lane) : b.CreateICmpULE(source, lane));
      }));
}

}  // namespace hrx::bridge
