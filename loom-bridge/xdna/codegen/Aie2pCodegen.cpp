// The AIE2P selector, register allocator and emitter (see Aie2pCodegen.h).
//
// Values: every i1/i8/i16/i32/ptr SSA value lives in one 32-bit r register (narrow integers kept
// zero-extended, so they compare and store as they are), or in a 4-byte stack slot when the
// linear-scan allocator runs out of registers. r0..r26 are allocated; r27 is sel's condition,
// r28..r31 are scratch for spilled operands, constants and addresses; p0/p1 address memory.
// Intervals come from a liveness fixpoint over the blocks (a value's interval covers every
// position where it is live), so the allocation is correct for any block order.
#include "hrx/xdna/Aie2pCodegen.h"

#include "Aie2pCopies.h"
#include "Aie2pFloat.h"
#include "BundleEmitter.h"

#include "hrx/aie2p/Asm.h"
#include "hrx/aie2p/Isa.h"
#include "hrx/bridge/Builtins.h"
#include "hrx/format/HostAbi.h"

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/GetElementPtrTypeIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Local.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

namespace hrx::xdna {
namespace {

using llvm::BasicBlock;
using llvm::Instruction;
using llvm::Value;

std::string describe(const Value &v) {
  std::string text;
  llvm::raw_string_ostream os(text);
  v.print(os);
  size_t first = text.find_first_not_of(' ');
  text = first == std::string::npos ? text : text.substr(first);
  if (text.size() > 120) text = text.substr(0, 117) + "...";
  return text;
}

std::string typeName(llvm::Type *t) {
  std::string text;
  llvm::raw_string_ostream os(text);
  t->print(os);
  return text;
}

// A value's integer width in the selector's terms (0: not a scalar the selector keeps).
unsigned widthOf(llvm::Type *t) {
  if (t->isPointerTy() || t->isFloatTy()) return 32;  // a float: its bits
  if (auto *i = llvm::dyn_cast<llvm::IntegerType>(t)) {
    unsigned w = i->getBitWidth();
    // i64 (Loom's index): kept in 32 bits where check() proves every value fits (see there).
    return w == 1 || w == 8 || w == 16 || w == 32 || w == 64 ? w : 0;
  }
  return 0;
}

// The lane width of a 512-bit vector the selector keeps in an x register (0: not one). 16 x
// float is kept as its bits (32-bit lanes).
bool isFloatVector(llvm::Type *t) {
  auto *v = llvm::dyn_cast<llvm::FixedVectorType>(t);
  return v && v->getElementType()->isFloatTy() && v->getNumElements() == 16;
}
unsigned laneBits(llvm::Type *t) {
  if (isFloatVector(t)) return 32;
  auto *v = llvm::dyn_cast<llvm::FixedVectorType>(t);
  if (!v || !v->getElementType()->isIntegerTy()) return 0;
  unsigned w = v->getElementType()->getIntegerBitWidth();
  return (w == 32 || w == 16 || w == 8) && w * v->getNumElements() == 512 ? w : 0;
}

// A lane mask of a 16 x i32 or 32 x i16 compare: kept as a 32-bit scalar (bit i = lane i), the
// form vlt/vge write and vsel reads.
bool isMask(llvm::Type *t) {
  auto *v = llvm::dyn_cast<llvm::FixedVectorType>(t);
  return v && v->getElementType()->isIntegerTy(1) && (v->getNumElements() == 16 || v->getNumElements() == 32);
}

// and/or/xor of two masks, or a select between masks by a mask: scalar logic on the mask bits.
bool isMaskLogic(const llvm::User *u) {
  auto *i = llvm::dyn_cast<llvm::Instruction>(u);
  if (!i || !isMask(i->getType())) return false;
  if (auto *sel = llvm::dyn_cast<llvm::SelectInst>(i)) return isMask(sel->getCondition()->getType());
  if (auto *bin = llvm::dyn_cast<llvm::BinaryOperator>(i))
    return bin->getOpcode() == llvm::Instruction::And || bin->getOpcode() == llvm::Instruction::Or ||
           bin->getOpcode() == llvm::Instruction::Xor;
  return false;
}

// A vector shl by a splat 1 (what x + x becomes): selected as vadd x, x.
bool isDoubling(const llvm::BinaryOperator &bin) {
  if (bin.getOpcode() != llvm::Instruction::Shl) return false;
  auto *c = llvm::dyn_cast<llvm::Constant>(bin.getOperand(1));
  auto *one = c ? llvm::dyn_cast_or_null<llvm::ConstantInt>(c->getSplatValue()) : nullptr;
  return one && one->isOne();
}

// insertelement of a scalar into lane 0 of poison whose every user is a zero-mask shuffle: a
// splat, selected as vbcst from the scalar.
bool isSplatSeed(const Value *v) {
  auto *ins = llvm::dyn_cast<llvm::InsertElementInst>(v);
  if (!ins || !laneBits(ins->getType()) || !llvm::isa<llvm::UndefValue>(ins->getOperand(0))) return false;
  auto *lane = llvm::dyn_cast<llvm::ConstantInt>(ins->getOperand(2));
  if (!lane || !lane->isZero()) return false;
  for (const llvm::User *u : ins->users()) {
    auto *sh = llvm::dyn_cast<llvm::ShuffleVectorInst>(u);
    if (!sh || sh->getOperand(0) != ins || !sh->isZeroEltSplat()) return false;
  }
  return true;
}

// Why an fp32 multiply is left (lowerFloatForAie2p expands at most kMaxExpandedFloatMultiplies).
std::string tooManyFloatMultiplies() {
  return "one of more than " + std::to_string(kMaxExpandedFloatMultiplies) +
         " fp32 multiplies (each an integer routine of about 1.1 KB of the 16 KB program memory)";
}

bool ignoredIntrinsic(const llvm::CallBase &call) {
  auto *f = call.getCalledFunction();
  if (!f || !f->isIntrinsic()) return false;
  switch (f->getIntrinsicID()) {
  case llvm::Intrinsic::assume:
  case llvm::Intrinsic::lifetime_start:
  case llvm::Intrinsic::lifetime_end:
  case llvm::Intrinsic::dbg_declare:
  case llvm::Intrinsic::dbg_value:
  case llvm::Intrinsic::dbg_label:
  case llvm::Intrinsic::experimental_noalias_scope_decl:
  case llvm::Intrinsic::donothing: return true;
  default: return false;
  }
}

// The fused bfp16ebs8 8x8x8 MMA of two 64-value bf16 operands (Builtins.h kBfpMmaBf16: lhs, rhs,
// accumulator, result pointers), which the selector expands into the hardware's sequence.
bool isFusedBfpMma(const llvm::CallBase &call) {
  const llvm::Function *callee = call.getCalledFunction();
  return callee && callee->getName() == bridge::kBfpMmaBf16 && call.arg_size() == 4;
}

// The accumulator operand as a constant (forwardFusedMmaSlots turns a constant accumulator into
// a constant global): its lanes' common fp32 bits, when every lane is the same (Loom's
// vector.constant is a splat); a zero one needs no accumulator at all.
std::optional<uint32_t> splatAccumulator(const Value *v) {
  auto *global = llvm::dyn_cast<llvm::GlobalVariable>(v);
  if (!global || !global->isConstant() || !global->hasInitializer()) return std::nullopt;
  const llvm::Constant *init = global->getInitializer();
  if (init->isNullValue()) return 0u;
  auto *splat = llvm::dyn_cast_or_null<llvm::ConstantFP>(init->getSplatValue());
  if (!splat || !splat->getType()->isFloatTy()) return std::nullopt;
  return static_cast<uint32_t>(splat->getValueAPF().bitcastToAPInt().getZExtValue());
}
bool isZeroAccumulator(const Value *v) { return splatAccumulator(v) == 0u; }

// Every operand is accessed with 512-bit loads and stores, which need 32-byte alignment; values
// must not be live in vector registers around the sequence, which uses x0-x9 and dm0-dm2.
std::expected<void, CodegenError> checkFusedBfpMma(llvm::CallBase &call, llvm::Function &f,
                                                   llvm::FunctionAnalysisManager &fam) {
  const llvm::DataLayout &layout = f.getParent()->getDataLayout();
  llvm::AssumptionCache &assumptions = fam.getResult<llvm::AssumptionAnalysis>(f);
  llvm::DominatorTree &dominators = fam.getResult<llvm::DominatorTreeAnalysis>(f);
  static constexpr const char *kRoles[] = {"lhs", "rhs", "accumulator", "result"};
  for (unsigned arg = 0; arg < 4; ++arg) {
    Value *pointer = call.getArgOperand(arg);
    if (arg == 2 && splatAccumulator(pointer)) continue;
    if (llvm::isa<llvm::Constant>(pointer))
      return std::unexpected(CodegenError{"the " + std::string(kRoles[arg]) + " operand of '" + describe(call) + "'",
                                          "a constant other than a splat accumulator has no data-memory placement"});
    // Known bits (assumes) or the base's own alignment (a record pointer's !align) and the offset.
    llvm::APInt offset(layout.getIndexTypeSizeInBits(pointer->getType()), 0);
    const Value *base = pointer->stripAndAccumulateConstantOffsets(layout, offset, /*AllowNonInbounds=*/true);
    llvm::Align known = std::max(llvm::getKnownAlignment(pointer, layout, &call, &assumptions, &dominators),
                                 llvm::commonAlignment(base->getPointerAlignment(layout), offset.getZExtValue()));
    if (known.value() < 32)
      return std::unexpected(CodegenError{"the " + std::string(kRoles[arg]) + " operand of '" + describe(call) + "'",
                                          "the bfp16 MMA reads and writes 512-bit vectors: its pointers need a "
                                          "proven 32-byte alignment"});
  }
  for (BasicBlock &b : f)
    for (Instruction &i : b)
      if (laneBits(i.getType()) || llvm::isa<llvm::VectorType>(i.getType()))
        return std::unexpected(CodegenError{"'" + describe(i) + "'",
                                            "a vector value in a worker with the bfp16 MMA (its sequence uses x0-x9)"});
  return {};
}

struct Loc {
  enum Kind { None, Reg, Slot, VReg } kind = None;
  int index = 0;  // r or x number, or slot byte offset below the frame top
};

// Emission (emit, flush, label, nop) is the shared bundle emitter's (BundleEmitter.h).
class Emitter : private BundleEmitter {
public:
  explicit Emitter(const llvm::DataLayout &layout) : layout_(layout) {}

  std::expected<CoreCode, CodegenError> run(llvm::Function &f);

private:
  // Innermost counted loops of one block (and its empty split latch) whose trip count is a
  // constant: run with ls/le/lc instead of the compare-and-branch (docs/aie2p.md).
  struct ZeroOverheadLoop {
    BasicBlock *latch, *exit;
    unsigned tripCount;
    std::string end;  // the label of the body's last bundle
    size_t firstItem = 0;
  };
  std::map<const BasicBlock *, ZeroOverheadLoop> zolHeaders_;
  std::map<const BasicBlock *, const BasicBlock *> zolPreheaders_;
  std::set<const BasicBlock *> zolLatches_;
  void findZeroOverheadLoops(llvm::Function &f);

  static std::string r(int i) { return "r" + std::to_string(i); }

  // ---- values ----
  std::string blockLabel(const BasicBlock *b) { return "bb" + std::to_string(blockIds_.at(b)); }

  // A register holding v (loading a spilled value or materializing a constant into `scratch`).
  std::expected<std::string, CodegenError> use(Value *v, int scratch) {
    if (unsigned lane = laneBits(v->getType())) {  // a vector: a register, or a splat constant into x(scratch)
      if (auto it = loc_.find(v); it != loc_.end() && it->second.kind == Loc::VReg)
        return "x" + std::to_string(it->second.index);
      auto *c = llvm::dyn_cast<llvm::Constant>(v);
      llvm::Constant *splat = c ? c->getSplatValue() : nullptr;
      if (!splat && c && (llvm::isa<llvm::UndefValue>(c) || c->isNullValue()))
        splat = llvm::ConstantInt::get(c->getType()->getScalarType(), 0);
      if (auto *cf = llvm::dyn_cast_or_null<llvm::ConstantFP>(splat))
        splat = llvm::ConstantInt::get(llvm::Type::getInt32Ty(v->getContext()),
                                       cf->getValueAPF().bitcastToAPInt().getZExtValue());
      auto *ci = llvm::dyn_cast_or_null<llvm::ConstantInt>(splat);
      if (!ci)
        return std::unexpected(
            CodegenError{"the vector '" + describe(*v) + "'", "only splat vector constants are selected"});
      std::string x = "x" + std::to_string(scratch);
      materialize("r31", static_cast<int32_t>(static_cast<uint32_t>(ci->getZExtValue())));
      emit(lane == 32   ? "VBCST_32"
           : lane == 16 ? "VBCST_16"
                        : "VBCST_8",
           std::string(lane == 32   ? "vbcst.32 "
                       : lane == 16 ? "vbcst.16 "
                                    : "vbcst.8 ") +
               x + ", r31",
           {"r31"}, {x});
      return x;
    }
    if (auto *c = llvm::dyn_cast<llvm::Constant>(v); c && isMask(v->getType())) {  // a constant mask: its lane bits
      uint32_t bits = 0;
      unsigned lanes = llvm::cast<llvm::FixedVectorType>(v->getType())->getNumElements();
      for (unsigned lane = 0; lane < lanes; ++lane) {
        llvm::Constant *e = c->getAggregateElement(lane);
        if (auto *one = llvm::dyn_cast_or_null<llvm::ConstantInt>(e); one && one->isOne())
          bits |= 1u << lane;
        else if (!e || !(llvm::isa<llvm::ConstantInt>(e) || llvm::isa<llvm::UndefValue>(e)))
          return std::unexpected(
              CodegenError{"the mask '" + describe(*v) + "'", "a constant mask the selector cannot read"});
      }
      materialize(r(scratch), static_cast<int32_t>(bits));
      return r(scratch);
    }
    if (auto *c = llvm::dyn_cast<llvm::ConstantInt>(v)) {
      uint64_t bits = c->getBitWidth() == 1 ? (c->isOne() ? 1 : 0) : c->getZExtValue();
      materialize(r(scratch), static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(bits))));
      return r(scratch);
    }
    if (auto *c = llvm::dyn_cast<llvm::ConstantFP>(v); c && c->getType()->isFloatTy()) {
      uint64_t bits = c->getValueAPF().bitcastToAPInt().getZExtValue();
      materialize(r(scratch), static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(bits))));
      return r(scratch);
    }
    if (llvm::isa<llvm::UndefValue>(v) || llvm::isa<llvm::ConstantPointerNull>(v)) {
      materialize(r(scratch), 0);
      return r(scratch);
    }
    if (auto *a = llvm::dyn_cast<llvm::AllocaInst>(v)) {  // a local's address: sp-relative
      int64_t offset = static_cast<int64_t>(allocaOffset_.at(a)) - static_cast<int64_t>(frameBytes_);
      move(r(scratch), "sp");
      materialize("r31", offset);
      emit("ADD_alu_r_rr", "add " + r(scratch) + ", " + r(scratch) + ", r31", {r(scratch), "r31"}, {r(scratch)});
      return r(scratch);
    }
    if (llvm::isa<llvm::Constant>(v))
      return std::unexpected(CodegenError{"the constant '" + describe(*v) + "'",
                                          "globals and constant expressions have no data-memory placement on a core"});
    auto it = loc_.find(v);
    if (it == loc_.end())
      return std::unexpected(CodegenError{"'" + describe(*v) + "'", "a value the selector does not keep"});
    if (it->second.kind == Loc::Reg) return r(it->second.index);
    emit("LDA_dms_lda_spill", "lda " + r(scratch) + ", [sp, #" + std::to_string(slotOffset(it->second.index)) + "]",
         {"sp"}, {r(scratch)});
    return r(scratch);
  }
  // The register a definition of v is computed into; commit() stores a spilled one.
  std::string defReg(Value *v) {
    auto it = loc_.find(v);
    if (it != loc_.end() && it->second.kind == Loc::VReg) return "x" + std::to_string(it->second.index);
    if (it == loc_.end() || it->second.kind != Loc::Reg) return r(28);
    return r(it->second.index);
  }
  void commit(Value *v) {
    auto it = loc_.find(v);
    if (it == loc_.end() || it->second.kind != Loc::Slot) return;
    emit("ST_dms_sts_spill", "st r28, [sp, #" + std::to_string(slotOffset(it->second.index)) + "]", {"r28", "sp"}, {});
  }
  int slotOffset(int slot) const { return slot - static_cast<int>(frameBytes_); }

  void materialize(const std::string &reg, int64_t value) {
    if (value >= -1024 && value <= 1023)
      emit("MOV_mv_cg", "mov " + reg + ", #" + std::to_string(value), {}, {reg});
    else
      emit("MOVXM", "movxm " + reg + ", #" + std::to_string(value), {}, {reg});
  }
  void move(const std::string &dst, const std::string &src) {
    if (dst != src) emit("MOV_mv_scl", "mov " + dst + ", " + src, {src}, {dst});
  }
  // Narrow results are kept zero-extended.
  void normalize(const std::string &reg, unsigned width) {
    if (width == 8) emit("EXTEND_u8", "extend.u8 " + reg + ", " + reg, {reg}, {reg});
    if (width == 16) emit("EXTEND_u16", "extend.u16 " + reg + ", " + reg, {reg}, {reg});
    if (width == 1) {
      emit("MOV_mv_cg", "mov r31, #1", {}, {"r31"});
      emit("AND", "and " + reg + ", " + reg + ", r31", {reg, "r31"}, {reg});
    }
  }
  void signExtend(const std::string &dst, const std::string &src, unsigned width) {
    if (width == 8)
      emit("EXTEND_s8", "extend.s8 " + dst + ", " + src, {src}, {dst});
    else if (width == 16)
      emit("EXTEND_s16", "extend.s16 " + dst + ", " + src, {src}, {dst});
    else if (width == 1) {  // 0/1 -> 0/-1
      emit("MOV_mv_cg", "mov r31, #0", {}, {"r31"});
      emit("SUB", "sub " + dst + ", r31, " + src, {"r31", src}, {dst});
    } else
      move(dst, src);
  }

  std::expected<void, CodegenError> check(llvm::Function &f);
  std::expected<void, CodegenError> allocate(llvm::Function &f);
  std::expected<void, CodegenError> select(Instruction &inst, BasicBlock *next);
  std::expected<void, CodegenError> binary(llvm::BinaryOperator &inst);
  std::expected<void, CodegenError> compare(llvm::ICmpInst &inst);
  std::expected<void, CodegenError> address(Value *pointer, const std::string &preg, int scratch);
  std::expected<void, CodegenError> gep(llvm::GetElementPtrInst &inst);
  std::expected<void, CodegenError> phiCopies(BasicBlock *from, BasicBlock *to);
  std::expected<void, CodegenError> minMax(llvm::IntrinsicInst &inst);
  std::expected<void, CodegenError> vectorCompare(llvm::ICmpInst &inst);
  std::expected<void, CodegenError> floatVectorCompare(llvm::FCmpInst &inst);
  std::expected<void, CodegenError> floatVectorArithmetic(Instruction &inst);
  void floatOrderKey(const std::string &v, const std::string &out);
  void floatNanMask(const std::string &v, const std::string &mask);
  bool hasFloatCompare_ = false;
  bool needsLaneArea_ = false;
  uint32_t laneArea_ = 0;  // the lane area's offset from the frame bottom
  std::expected<void, CodegenError> memoryLoop(llvm::MemIntrinsic &inst);
  std::expected<void, CodegenError> scalarFloatArithmetic(llvm::BinaryOperator &inst);
  std::expected<void, CodegenError> fusedBfpMma(llvm::CallBase &call);
  unsigned loops_ = 0;

  const llvm::DataLayout &layout_;
  std::map<const BasicBlock *, unsigned> blockIds_;
  std::map<Value *, Loc> loc_;
  std::map<const llvm::AllocaInst *, uint32_t> allocaOffset_;  // from the frame bottom
  uint32_t frameBytes_ = 0;
  uint32_t spillBytes_ = 0;
};

std::expected<void, CodegenError> Emitter::check(llvm::Function &f) {
  if (f.arg_size() != 1 || !f.getArg(0)->getType()->isPointerTy())
    return std::unexpected(
        CodegenError{"the stage signature of @" + f.getName().str(), "a stage takes one record-array pointer"});
  // i64 values are computed in 32 bits. That is exact when every i64 value (and constant) lies in
  // the int32 range: the low 32 bits of add/sub/mul/shl/and/or/xor are the low bits of the exact
  // result, which then equals their sign extension; signed and unsigned compares of such values
  // order as the 32-bit ones do; lshr needs a non-negative operand. ScalarEvolution proves the
  // ranges (loop counters and record offsets); without a proof the worker stays on its twin.
  llvm::PassBuilder builder;
  llvm::FunctionAnalysisManager fam;
  builder.registerFunctionAnalyses(fam);
  llvm::ScalarEvolution &se = fam.getResult<llvm::ScalarEvolutionAnalysis>(f);
  const llvm::ConstantRange int32Range(llvm::APInt(64, uint64_t(INT32_MIN), true),
                                       llvm::APInt(64, uint64_t(INT32_MAX) + 1));
  auto fitsInt32 = [&](Value *v) {
    if (auto *c = llvm::dyn_cast<llvm::ConstantInt>(v))
      return c->getSExtValue() >= INT32_MIN && c->getSExtValue() <= INT32_MAX;
    if (llvm::isa<llvm::UndefValue>(v)) return true;
    if (!se.isSCEVable(v->getType())) return false;
    return int32Range.contains(se.getSignedRange(se.getSCEV(v)));
  };
  for (BasicBlock &b : f)
    for (Instruction &i : b) {
      auto wide = [](Value *v) { return v->getType()->isIntegerTy(64); };
      std::vector<Value *> values;
      if (wide(&i)) values.push_back(&i);
      for (Value *op : i.operands())
        if (wide(op)) values.push_back(op);
      for (Value *v : values)
        if (!fitsInt32(v))
          return std::unexpected(
              CodegenError{"'" + describe(*v) + "'",
                           "an i64 value whose range is not proven to fit 32 bits (i64 is computed in 32)"});
      if (auto *bin = llvm::dyn_cast<llvm::BinaryOperator>(&i); bin && wide(bin) &&
                                                                bin->getOpcode() == llvm::Instruction::LShr &&
                                                                !se.isKnownNonNegative(se.getSCEV(bin->getOperand(0))))
        return std::unexpected(
            CodegenError{"'" + describe(i) + "'", "an i64 logical shift right of a value not proven non-negative"});
    }
  for (BasicBlock &b : f)
    for (Instruction &i : b) {
      auto fail = [&](std::string reason) {
        return std::unexpected(CodegenError{"'" + describe(i) + "'", std::move(reason)});
      };
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(&i)) {
        if (ignoredIntrinsic(*call)) continue;
        auto *callee = call->getCalledFunction();
        if (auto *ii = llvm::dyn_cast<llvm::IntrinsicInst>(&i)) {
          switch (ii->getIntrinsicID()) {
          case llvm::Intrinsic::smin:
          case llvm::Intrinsic::smax:
          case llvm::Intrinsic::umin:
          case llvm::Intrinsic::umax:
          case llvm::Intrinsic::abs:
            if (widthOf(ii->getType()) == 32) continue;
            if (ii->getIntrinsicID() != llvm::Intrinsic::abs &&
                (laneBits(ii->getType()) == 32 || laneBits(ii->getType()) == 16))
              continue;  // vmax_lt / vmin_ge
            return fail("only 32-bit integer min/max/abs and 16 x i32 / 32 x i16 min/max are selected");
          case llvm::Intrinsic::fmuladd:  // lowerFloatForAie2p left it
            return fail(tooManyFloatMultiplies());
          case llvm::Intrinsic::memset:
          case llvm::Intrinsic::memcpy:
          case llvm::Intrinsic::memmove: {
            // Whole words between word-aligned pointers, a constant length: a word loop.
            auto *mi = llvm::cast<llvm::MemIntrinsic>(ii);
            auto *length = llvm::dyn_cast<llvm::ConstantInt>(mi->getLength());
            bool aligned = mi->getDestAlign().valueOrOne().value() >= 4;
            if (auto *t = llvm::dyn_cast<llvm::MemTransferInst>(mi))
              aligned = aligned && t->getSourceAlign().valueOrOne().value() >= 4;
            if (length && aligned && length->getZExtValue() % 4 == 0 && length->getZExtValue() > 0 &&
                length->getZExtValue() <= 65536 && !mi->isVolatile() &&
                ii->getIntrinsicID() != llvm::Intrinsic::memmove)
              continue;
            return fail("only non-volatile memset/memcpy of whole words between word-aligned pointers with a constant "
                        "length are selected");
          }
          default: break;
          }
        }
        if (isFusedBfpMma(*call)) {
          if (auto ok = checkFusedBfpMma(*call, f, fam); !ok) return ok;
          continue;
        }
        return fail(callee ? "a call to @" + callee->getName().str() +
                                 " (calls other than inlined functions are not selected)"
                           : "an indirect call");
      }
      if (llvm::isa<llvm::ReturnInst>(i)) {
        if (i.getNumOperands() != 0) return fail("a stage returns nothing");
        continue;
      }
      if (llvm::isa<llvm::BranchInst>(i) || llvm::isa<llvm::UnreachableInst>(i)) continue;
      if (llvm::isa<llvm::SwitchInst>(i)) return fail("switch is not selected yet");
      if (auto *a = llvm::dyn_cast<llvm::AllocaInst>(&i)) {
        if (!a->isStaticAlloca()) return fail("a dynamically sized alloca");
        continue;
      }
      if (llvm::isa<llvm::InsertElementInst>(i)) {
        if (isSplatSeed(&i)) continue;
        return fail("vector lane insertion other than a splat is not selected");
      }
      if (auto *sh = llvm::dyn_cast<llvm::ShuffleVectorInst>(&i)) {
        if (isSplatSeed(sh->getOperand(0))) continue;
        return fail("vector shuffles other than a splat are not selected");
      }
      if (auto *ld = llvm::dyn_cast<llvm::LoadInst>(&i); ld && laneBits(ld->getType())) {
        if (ld->isVolatile() || ld->isAtomic() || ld->getAlign().value() < 32)
          return fail("a 512-bit vector load needs 32-byte alignment (vlda); this one is not proven aligned");
        continue;
      }
      if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&i); st && laneBits(st->getValueOperand()->getType())) {
        if (st->isVolatile() || st->isAtomic() || st->getAlign().value() < 32)
          return fail("a 512-bit vector store needs 32-byte alignment (vst); this one is not proven aligned");
        continue;
      }
      if (isMask(i.getType())) {
        // Masks combine as 32-bit scalars: and/or/xor, and a select between masks by a mask.
        auto maskUsersOk = [&](const Instruction &m) {
          for (const llvm::User *u : m.users()) {
            if (isMaskLogic(u)) continue;
            auto *sel = llvm::dyn_cast<llvm::SelectInst>(u);
            if (!sel || sel->getCondition() != &m || sel->getTrueValue() == &m || sel->getFalseValue() == &m)
              return false;
          }
          return true;
        };
        if (isMaskLogic(&i)) {
          if (!maskUsersOk(i)) return fail("a vector mask used other than as a select's condition or in mask logic");
          continue;
        }
        auto *cmp = llvm::dyn_cast<llvm::CmpInst>(&i);
        unsigned lane = cmp ? laneBits(cmp->getOperand(0)->getType()) : 0;
        bool floating = cmp && llvm::isa<llvm::FCmpInst>(cmp);
        if (floating &&
            (!isFloatVector(cmp->getOperand(0)->getType()) || cmp->getPredicate() == llvm::CmpInst::FCMP_FALSE ||
             cmp->getPredicate() == llvm::CmpInst::FCMP_TRUE))
          return fail("of the floating-point vector compares only ordered and unordered predicates of 16 x float are "
                      "selected");
        if (!cmp || (lane != 32 && lane != 16) || (!floating && cmp->isEquality()) ||
            llvm::cast<llvm::FixedVectorType>(cmp->getType())->getNumElements() != 512 / lane)
          return fail("of the vector masks only ordered compares of 16 x i32 or 32 x i16 and compares of 16 x float "
                      "are selected (vlt/vge)");
        if (!maskUsersOk(*cmp))
          return fail("a vector compare whose mask is used other than as a select's condition or in mask logic");
        continue;
      }
      if (laneBits(i.getType())) {
        auto *bin = llvm::dyn_cast<llvm::BinaryOperator>(&i);
        if (auto *sel = llvm::dyn_cast<llvm::SelectInst>(&i)) {
          unsigned lane = laneBits(sel->getType());
          if (isMask(sel->getCondition()->getType()) && (lane == 32 || lane == 16) &&
              llvm::cast<llvm::FixedVectorType>(sel->getCondition()->getType())->getNumElements() == 512 / lane)
            continue;  // vsel on a vlt/vge mask
          return fail("a vector select needs a 16 x i32 or 32 x i16 compare of the same lanes as its condition");
        }
        if (isFloatVector(i.getType())) {
          if (bin && bin->getOpcode() == llvm::Instruction::FMul) return fail(tooManyFloatMultiplies());
          if (bin && (bin->getOpcode() == llvm::Instruction::FAdd || bin->getOpcode() == llvm::Instruction::FSub))
            continue;  // vmov into accumulators, vadd.f / vsub.f, vmov back
          if (llvm::isa<llvm::PHINode>(i) ||
              (llvm::isa<llvm::BitCastInst>(i) && laneBits(i.getOperand(0)->getType())) ||
              (llvm::isa<llvm::UnaryOperator>(i) &&
               llvm::cast<llvm::UnaryOperator>(i).getOpcode() == llvm::Instruction::FNeg))
            continue;
          return fail("of the 16 x float operations only fadd, fsub, fmul (a lane loop of an integer routine), fneg, "
                      "compares feeding selects, loads, stores, bitcasts and splats are selected");
        }
        if (auto *cast = llvm::dyn_cast<llvm::BitCastInst>(&i); cast && laneBits(cast->getSrcTy())) continue;
        bool ok = llvm::isa<llvm::PHINode>(i) ||
                  (bin && (bin->getOpcode() == llvm::Instruction::Add || bin->getOpcode() == llvm::Instruction::Sub ||
                           bin->getOpcode() == llvm::Instruction::And || bin->getOpcode() == llvm::Instruction::Or ||
                           bin->getOpcode() == llvm::Instruction::Xor || isDoubling(*bin) ||
                           (bin->getOpcode() == llvm::Instruction::Mul && laneBits(bin->getType()) != 8)));
        if (bin && bin->getOpcode() == llvm::Instruction::Mul && laneBits(bin->getType()) == 8)
          return fail("a 64 x i8 multiply (its lanes are multiplied one by one, and vextract.8 is not in the table)");
        if (!ok)
          return fail("of the vector operations only add, sub, mul, and, or, xor, shl by 1, compares feeding "
                      "selects, min/max, loads, stores, bitcasts and splats are selected");
        continue;
      }
      if (auto *ld = llvm::dyn_cast<llvm::LoadInst>(&i)) {
        if (ld->isVolatile() || ld->isAtomic()) return fail("volatile and atomic loads are not selected");
        if (!widthOf(ld->getType()) || widthOf(ld->getType()) == 64)
          return fail("a load of " + typeName(ld->getType()) +
                      " (the scalar subset is i1, i8, i16, i32, float and ptr)");
        continue;
      }
      if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&i)) {
        if (st->isVolatile() || st->isAtomic()) return fail("volatile and atomic stores are not selected");
        if (!widthOf(st->getValueOperand()->getType()) || widthOf(st->getValueOperand()->getType()) == 64)
          return fail("a store of " + typeName(st->getValueOperand()->getType()) +
                      " (the scalar subset is i1, i8, i16, i32, float and ptr)");
        continue;
      }
      if (!i.getType()->isVoidTy() && !widthOf(i.getType()))
        return fail("a value of type " + typeName(i.getType()) +
                    " (the scalar subset is i1, i8, i16, i32, float and ptr)");
      for (Value *op : i.operands())
        if (!llvm::isa<BasicBlock>(op) && !widthOf(op->getType()))
          return fail("an operand of type " + typeName(op->getType()));
      if (auto *bin = llvm::dyn_cast<llvm::BinaryOperator>(&i)) {
        switch (bin->getOpcode()) {
        case llvm::Instruction::FAdd:
        case llvm::Instruction::FSub: continue;  // in the vector unit (scalarFloatArithmetic)
        case llvm::Instruction::FMul:            // lowerFloatForAie2p left it: too many for program memory
          return fail(tooManyFloatMultiplies());
        case llvm::Instruction::FDiv:
        case llvm::Instruction::FRem:
          return fail("of the scalar float operations only fadd, fsub, fmul (an integer routine, Aie2pFloat.h), fneg "
                      "and fmuladd are selected");
        case llvm::Instruction::Add:
        case llvm::Instruction::Sub:
        case llvm::Instruction::Mul:
        case llvm::Instruction::And:
        case llvm::Instruction::Or:
        case llvm::Instruction::Xor:
        case llvm::Instruction::Shl:
        case llvm::Instruction::LShr:
        case llvm::Instruction::AShr: continue;
        default: return fail("integer division and remainder have no AIE2P instruction in the table");
        }
      }
      if (llvm::isa<llvm::ICmpInst>(i) || llvm::isa<llvm::SelectInst>(i) || llvm::isa<llvm::PHINode>(i) ||
          llvm::isa<llvm::GetElementPtrInst>(i) || llvm::isa<llvm::ZExtInst>(i) || llvm::isa<llvm::SExtInst>(i) ||
          llvm::isa<llvm::TruncInst>(i) || llvm::isa<llvm::FreezeInst>(i) || llvm::isa<llvm::PtrToIntInst>(i) ||
          llvm::isa<llvm::IntToPtrInst>(i) || llvm::isa<llvm::BitCastInst>(i))
        continue;  // a scalar bitcast is between i32 and float (both 32 bits: widthOf)
      return fail("this instruction is not in the selected subset");
    }
  return {};
}

std::expected<void, CodegenError> Emitter::allocate(llvm::Function &f) {
  for (BasicBlock &b : f)
    for (Instruction &i : b)
      if (auto *cmp = llvm::dyn_cast<llvm::FCmpInst>(&i); cmp && isFloatVector(cmp->getOperand(0)->getType()))
        hasFloatCompare_ = true;
  // Positions: instruction k of the linear order at 2k; a block spans [first, last].
  std::map<Value *, unsigned> defPos;
  std::map<const BasicBlock *, std::pair<unsigned, unsigned>> span;
  unsigned pos = 0;
  defPos[f.getArg(0)] = 0;
  pos = 2;
  for (BasicBlock &b : f) {
    unsigned first = pos;
    for (Instruction &i : b) {
      defPos[&i] = pos;
      pos += 2;
    }
    span[&b] = {first, pos - 2};
  }
  auto kept = [&](Value *v) {
    if (llvm::isa<llvm::Argument>(v)) return true;
    auto *i = llvm::dyn_cast<Instruction>(v);
    return i && !i->getType()->isVoidTy() &&
           (widthOf(i->getType()) || laneBits(i->getType()) || isMask(i->getType())) &&
           !llvm::isa<llvm::AllocaInst>(i) && !isSplatSeed(i);
  };
  // Liveness fixpoint.
  std::map<const BasicBlock *, std::set<Value *>> liveIn, liveOut;
  bool changed = true;
  while (changed) {
    changed = false;
    std::vector<BasicBlock *> reversed;
    for (BasicBlock &b : f) reversed.insert(reversed.begin(), &b);
    for (BasicBlock *bp : reversed) {
      BasicBlock &b = *bp;
      std::set<Value *> out;
      for (BasicBlock *s : llvm::successors(&b)) {
        for (Value *v : liveIn[s]) out.insert(v);
        for (llvm::PHINode &phi : s->phis()) {
          Value *in = phi.getIncomingValueForBlock(&b);
          if (in && kept(in)) out.insert(in);
        }
      }
      std::set<Value *> live = out;
      for (auto ii = b.rbegin(); ii != b.rend(); ++ii) {
        Instruction &i = *ii;
        live.erase(&i);
        if (llvm::isa<llvm::PHINode>(i)) continue;
        for (Value *op : i.operands())
          if (kept(op)) live.insert(op);
      }
      for (llvm::PHINode &phi : b.phis()) live.erase(&phi);
      if (out != liveOut[&b] || live != liveIn[&b]) {
        liveOut[&b] = std::move(out);
        liveIn[&b] = std::move(live);
        changed = true;
      }
    }
  }
  // Intervals.
  std::map<Value *, std::pair<unsigned, unsigned>> interval;
  auto extend = [&](Value *v, unsigned p) {
    auto [it, inserted] = interval.try_emplace(v, p, p);
    if (!inserted) it->second = {std::min(it->second.first, p), std::max(it->second.second, p)};
  };
  extend(f.getArg(0), 0);
  for (BasicBlock &b : f) {
    for (Value *v : liveIn[&b]) extend(v, span[&b].first);
    for (Value *v : liveOut[&b]) extend(v, span[&b].second + 1);
    for (Instruction &i : b) {
      if (kept(&i)) extend(&i, defPos[&i]);
      if (auto *phi = llvm::dyn_cast<llvm::PHINode>(&i)) {
        // Written by the copies at the end of each predecessor.
        for (BasicBlock *p : phi->blocks()) extend(phi, span[p].second), extend(phi, span[p].second + 1);
        continue;
      }
      for (Value *op : i.operands())
        if (kept(op)) extend(op, defPos[&i]);
    }
  }
  // Linear scan over r0..r26 (spilling) and, for vectors, x0..x9 (x10/x11 are scratch; no
  // vector spills: a worker needing more is not selected).
  std::vector<std::pair<Value *, std::pair<unsigned, unsigned>>> order(interval.begin(), interval.end());
  std::sort(order.begin(), order.end(), [&](const auto &a, const auto &b) {
    return a.second.first != b.second.first ? a.second.first < b.second.first : defPos[a.first] < defPos[b.first];
  });
  std::vector<std::pair<unsigned, Value *>> active, activeVectors;  // end, value
  std::vector<int> freeRegs, freeVectors;
  for (int i = 26; i >= 0; --i) freeRegs.push_back(i);
  // A 16 x float compare needs x8 and x9 as scratch too (floatVectorCompare).
  const int vectorRegs = hasFloatCompare_ ? 8 : 10;
  for (int i = vectorRegs - 1; i >= 0; --i) freeVectors.push_back(i);
  auto spill = [&](Value *v) {
    loc_[v] = {Loc::Slot, static_cast<int>(spillBytes_)};
    spillBytes_ += 4;
  };
  auto expire = [&](std::vector<std::pair<unsigned, Value *>> &list, std::vector<int> &pool, unsigned start) {
    for (auto it = list.begin(); it != list.end();) {
      if (it->first < start) {
        pool.push_back(loc_[it->second].index);
        it = list.erase(it);
      } else
        ++it;
    }
  };
  for (auto &[v, range] : order) {
    if (laneBits(v->getType())) {
      expire(activeVectors, freeVectors, range.first);
      if (freeVectors.empty())
        return std::unexpected(
            CodegenError{"'" + describe(*v) + "'", "more than " + std::to_string(vectorRegs) +
                                                       " vector values live at once (vector spills are not selected)"});
      loc_[v] = {Loc::VReg, freeVectors.back()};
      freeVectors.pop_back();
      activeVectors.push_back({range.second, v});
      continue;
    }
    expire(active, freeRegs, range.first);
    if (!freeRegs.empty()) {
      loc_[v] = {Loc::Reg, freeRegs.back()};
      freeRegs.pop_back();
      active.push_back({range.second, v});
      continue;
    }
    auto furthest = std::max_element(active.begin(), active.end());
    if (furthest->first > range.second) {
      loc_[v] = loc_[furthest->second];
      spill(furthest->second);
      *furthest = {range.second, v};
    } else
      spill(v);
  }
  return {};
}

void Emitter::findZeroOverheadLoops(llvm::Function &f) {
  if (std::getenv("HRX_AIE2P_NO_ZOL")) return;
  llvm::PassBuilder builder;
  llvm::FunctionAnalysisManager fam;
  builder.registerFunctionAnalyses(fam);
  llvm::LoopInfo &loops = fam.getResult<llvm::LoopAnalysis>(f);
  llvm::ScalarEvolution &se = fam.getResult<llvm::ScalarEvolutionAnalysis>(f);
  for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost() || loop->getNumBlocks() != 2) continue;
    BasicBlock *header = loop->getHeader(), *latch = loop->getLoopLatch(), *pre = loop->getLoopPreheader();
    if (!latch || latch == header || !pre || latch->size() != 1 || latch->getSinglePredecessor() != header) continue;
    auto *back = llvm::dyn_cast<llvm::BranchInst>(latch->getTerminator());
    auto *exitBranch = llvm::dyn_cast<llvm::BranchInst>(header->getTerminator());
    auto *enter = llvm::dyn_cast<llvm::BranchInst>(pre->getTerminator());
    if (!back || back->isConditional() || !exitBranch || !exitBranch->isConditional() || !enter ||
        enter->isConditional() || zolPreheaders_.count(pre))
      continue;
    BasicBlock *exit = exitBranch->getSuccessor(0) == latch ? exitBranch->getSuccessor(1) : exitBranch->getSuccessor(0);
    if (loop->contains(exit)) continue;
    unsigned trip = se.getSmallConstantTripCount(loop);
    if (trip == 0) continue;
    bool ok = true;
    for (Instruction &i : *header) {
      if (llvm::isa<llvm::MemIntrinsic>(i)) ok = false;  // a word loop of its own inside
      // A header phi read after the loop would see the back edge's copy of the last iteration.
      if (llvm::isa<llvm::PHINode>(i))
        for (const llvm::User *u : i.users())
          if (auto *ui = llvm::dyn_cast<Instruction>(u); !ui || !loop->contains(ui->getParent())) {
            auto *phi = llvm::dyn_cast_or_null<llvm::PHINode>(ui);
            if (!phi || phi->getParent() != exit) ok = false;
          }
    }
    if (!ok) continue;
    zolHeaders_[header] = {latch, exit, trip, "zle" + std::to_string(zolHeaders_.size())};
    zolPreheaders_[pre] = header;
    zolLatches_.insert(latch);
  }
}

std::expected<CoreCode, CodegenError> Emitter::run(llvm::Function &f) {
  if (auto ok = check(f); !ok) return std::unexpected(ok.error());
  unsigned id = 0;
  for (BasicBlock &b : f) blockIds_[&b] = id++;
  if (auto ok = allocate(f); !ok) return std::unexpected(ok.error());
  // Frame: allocas (each at its alignment) then spill slots; sp moves up by the frame.
  uint32_t offset = 0;
  for (BasicBlock &b : f)
    for (Instruction &i : b)
      if (auto *a = llvm::dyn_cast<llvm::AllocaInst>(&i)) {
        uint32_t align = std::max<uint32_t>(4, a->getAlign().value());
        offset = (offset + align - 1) / align * align;
        allocaOffset_[a] = offset;
        offset += static_cast<uint32_t>(a->getAllocationSize(layout_)->getFixedValue());
      }
  // A 64-byte, 64-aligned area where a vector multiply's lane products meet (vlda reads them).
  for (BasicBlock &b : f)
    for (Instruction &i : b)
      if (auto *bin = llvm::dyn_cast<llvm::BinaryOperator>(&i);
          bin && bin->getOpcode() == llvm::Instruction::Mul && laneBits(bin->getType()) && !needsLaneArea_) {
        needsLaneArea_ = true;
        offset = (offset + 63) / 64 * 64;
        laneArea_ = offset;
        offset += 64;
      }
  offset = (offset + 3) / 4 * 4;
  for (auto &[v, l] : loc_)
    if (l.kind == Loc::Slot) l.index += static_cast<int>(offset);
  frameBytes_ = (offset + spillBytes_ + 63) / 64 * 64;
  if (frameBytes_ > 2048)
    return std::unexpected(
        CodegenError{"the stack frame of @" + f.getName().str(),
                     std::to_string(frameBytes_) + " bytes of locals and spills; spill offsets reach 2048 bytes"});

  // Offset 0 jumps to the core main program, linked after the worker (Aie2pMain.h).
  label("entry");
  emit("J_lng", "j #main", {}, {});
  label("worker");
  if (frameBytes_) emit("PADDXM_pstm_sp_imm", "paddxm [sp], #" + std::to_string(frameBytes_), {"sp"}, {"sp"});
  // The record-array pointer arrives in r0.
  Value *arg = f.getArg(0);
  if (loc_.count(arg)) {
    move(defReg(arg), "r0");
    commit(arg);
  }
  findZeroOverheadLoops(f);
  std::vector<BasicBlock *> blocks;
  for (BasicBlock &b : f)
    if (!zolLatches_.count(&b)) blocks.push_back(&b);  // a zero-overhead loop's latch has no code
  for (size_t k = 0; k < blocks.size(); ++k) {
    BasicBlock *b = blocks[k];
    label(blockLabel(b));
    if (auto z = zolHeaders_.find(b); z != zolHeaders_.end()) z->second.firstItem = itemCount();
    BasicBlock *next = k + 1 < blocks.size() ? blocks[k + 1] : nullptr;
    for (Instruction &i : *b)
      if (auto ok = select(i, next); !ok) return std::unexpected(ok.error());
  }
  flush();
  std::string text = BundleEmitter::text();
  aie2p::AsmProgram program;
  std::vector<aie2p::AsmDiagnostic> diags;
  // Measured with the smallest main (`done`); each tile's program links its own main.
  if (!aie2p::assemble(text + "main:\n  done\n", program, diags))
    return std::unexpected(
        CodegenError{"@" + f.getName().str(), "internal: the generated assembly does not assemble (line " +
                                                  std::to_string(diags.empty() ? 0 : diags[0].line) + ": " +
                                                  (diags.empty() ? "" : diags[0].message) + ")"});
  CoreCode code;
  code.bytes = std::move(program.bytes);
  code.assembly = std::move(text);
  code.bundles = static_cast<uint32_t>(program.bundles.size());
  code.frameBytes = frameBytes_;
  return code;
}

std::expected<void, CodegenError> Emitter::address(Value *pointer, const std::string &preg, int scratch) {
  auto base = use(pointer, scratch);
  if (!base) return std::unexpected(base.error());
  move(preg, *base);
  return {};
}

std::expected<void, CodegenError> Emitter::gep(llvm::GetElementPtrInst &inst) {
  std::string d = defReg(&inst);
  auto base = use(inst.getPointerOperand(), 29);
  if (!base) return std::unexpected(base.error());
  // Accumulate into r30, then move to d (d may be one of the operands).
  move("r30", *base);
  int64_t constant = 0;
  for (llvm::gep_type_iterator it = llvm::gep_type_begin(inst), end = llvm::gep_type_end(inst); it != end; ++it) {
    Value *index = it.getOperand();
    if (llvm::StructType *st = it.getStructTypeOrNull()) {
      constant += static_cast<int64_t>(layout_.getStructLayout(st)->getElementOffset(
          static_cast<unsigned>(llvm::cast<llvm::ConstantInt>(index)->getZExtValue())));
      continue;
    }
    uint64_t size = it.getSequentialElementStride(layout_);
    if (auto *c = llvm::dyn_cast<llvm::ConstantInt>(index)) {
      constant += c->getSExtValue() * static_cast<int64_t>(size);
      continue;
    }
    auto idx = use(index, 29);
    if (!idx) return std::unexpected(idx.error());
    std::string scaled = *idx;
    if (widthOf(index->getType()) < 32) {  // indices are signed
      signExtend("r29", scaled, widthOf(index->getType()));
      scaled = "r29";
    }
    if (size != 1) {
      if ((size & (size - 1)) == 0) {
        materialize("r31", std::countr_zero(size));
        emit("LSHL", "lshl r29, " + scaled + ", r31", {scaled, "r31"}, {"r29"});
      } else {
        materialize("r31", static_cast<int64_t>(size));
        emit("MUL", "mul r29, " + scaled + ", r31", {scaled, "r31"}, {"r29"});
      }
      scaled = "r29";
    }
    emit("ADD_alu_r_rr", "add r30, r30, " + scaled, {"r30", scaled}, {"r30"});
  }
  if (constant) {
    if (constant >= -64 && constant <= 63)
      emit("ADD_add_r_ri", "add r30, r30, #" + std::to_string(constant), {"r30"}, {"r30"});
    else {
      materialize("r31", static_cast<int32_t>(constant));
      emit("ADD_alu_r_rr", "add r30, r30, r31", {"r30", "r31"}, {"r30"});
    }
  }
  move(d, "r30");
  commit(&inst);
  return {};
}

std::expected<void, CodegenError> Emitter::binary(llvm::BinaryOperator &inst) {
  unsigned width = widthOf(inst.getType());
  auto a = use(inst.getOperand(0), 29);
  if (!a) return std::unexpected(a.error());
  // add/sub of a small constant: the 7-bit immediate form.
  if (auto *c = llvm::dyn_cast<llvm::ConstantInt>(inst.getOperand(1));
      c && (inst.getOpcode() == llvm::Instruction::Add || inst.getOpcode() == llvm::Instruction::Sub)) {
    int64_t value = c->getSExtValue() * (inst.getOpcode() == llvm::Instruction::Sub ? -1 : 1);
    if (value >= -64 && value <= 63) {
      std::string d = defReg(&inst);
      emit("ADD_add_r_ri", "add " + d + ", " + *a + ", #" + std::to_string(value), {*a}, {d});
      normalize(d, width);
      commit(&inst);
      return {};
    }
  }
  auto b = use(inst.getOperand(1), 30);
  if (!b) return std::unexpected(b.error());
  std::string d = defReg(&inst);
  auto three = [&](std::string_view row, std::string_view mnemonic, const std::string &x, const std::string &y) {
    emit(row, std::string(mnemonic) + " " + d + ", " + x + ", " + y, {x, y}, {d});
  };
  // One row per three-register opcode; `normalize`: the result may leave the width's range
  // (and/or of in-range operands cannot).
  struct ThreeRegister {
    unsigned opcode;
    std::string_view row, mnemonic;
    bool normalize;
  };
  static constexpr ThreeRegister kThreeRegister[] = {
      {llvm::Instruction::Add, "ADD_alu_r_rr", "add", true},
      {llvm::Instruction::Sub, "SUB", "sub", true},
      {llvm::Instruction::Mul, "MUL", "mul", true},
      {llvm::Instruction::And, "AND", "and", false},
      {llvm::Instruction::Or, "OR", "or", false},
      {llvm::Instruction::Xor, "XOR", "xor", true},
      {llvm::Instruction::Shl, "LSHL", "lshl", true},
  };
  for (const ThreeRegister &op : kThreeRegister)
    if (op.opcode == inst.getOpcode()) {
      three(op.row, op.mnemonic, *a, *b);
      if (op.normalize) normalize(d, width);
      commit(&inst);
      return {};
    }
  switch (inst.getOpcode()) {
  case llvm::Instruction::LShr:
  case llvm::Instruction::AShr: {
    // lshl/ashl shift right by a negative amount.
    emit("MOV_mv_cg", "mov r31, #0", {}, {"r31"});
    emit("SUB", "sub r31, r31, " + *b, {"r31", *b}, {"r31"});
    std::string x = *a;
    bool arithmetic = inst.getOpcode() == llvm::Instruction::AShr;
    if (arithmetic && width < 32) {
      signExtend("r29", x, width);
      x = "r29";
    }
    three(arithmetic ? "ASHL" : "LSHL", arithmetic ? "ashl" : "lshl", x, "r31");
    if (arithmetic) normalize(d, width);
    break;
  }
  default: return std::unexpected(CodegenError{"'" + describe(inst) + "'", "not selected"});
  }
  commit(&inst);
  return {};
}

std::expected<void, CodegenError> Emitter::compare(llvm::ICmpInst &inst) {
  unsigned width = widthOf(inst.getOperand(0)->getType());
  auto a = use(inst.getOperand(0), 29);
  if (!a) return std::unexpected(a.error());
  auto b = use(inst.getOperand(1), 30);
  if (!b) return std::unexpected(b.error());
  std::string x = *a, y = *b;
  if (inst.isSigned() && width < 32) {
    signExtend("r29", x, width), signExtend("r30", y, width);
    x = "r29", y = "r30";
  }
  std::string d = defReg(&inst);
  auto three = [&](std::string_view row, std::string_view mnemonic, const std::string &p, const std::string &q) {
    emit(row, std::string(mnemonic) + " " + d + ", " + p + ", " + q, {p, q}, {d});
  };
  switch (inst.getPredicate()) {
  case llvm::CmpInst::ICMP_EQ: three("EQ", "eq", x, y); break;
  case llvm::CmpInst::ICMP_NE: three("NE", "ne", x, y); break;
  case llvm::CmpInst::ICMP_SLT: three("LT", "lt", x, y); break;
  case llvm::CmpInst::ICMP_SGT: three("LT", "lt", y, x); break;
  case llvm::CmpInst::ICMP_SGE: three("GE", "ge", x, y); break;
  case llvm::CmpInst::ICMP_SLE: three("GE", "ge", y, x); break;
  case llvm::CmpInst::ICMP_ULT: three("LTU", "ltu", x, y); break;
  case llvm::CmpInst::ICMP_UGT: three("LTU", "ltu", y, x); break;
  case llvm::CmpInst::ICMP_UGE: three("GEU", "geu", x, y); break;
  case llvm::CmpInst::ICMP_ULE: three("GEU", "geu", y, x); break;
  default: return std::unexpected(CodegenError{"'" + describe(inst) + "'", "an unknown predicate"});
  }
  commit(&inst);
  return {};
}

// A 16 x i32 / 32 x i16 compare: vlt/vge into r28 (bit i = lane i), kept as a 32-bit scalar.
std::expected<void, CodegenError> Emitter::vectorCompare(llvm::ICmpInst &inst) {
  unsigned lane = laneBits(inst.getOperand(0)->getType());
  auto a = use(inst.getOperand(0), 10);
  if (!a) return std::unexpected(a.error());
  auto b = use(inst.getOperand(1), 11);
  if (!b) return std::unexpected(b.error());
  bool swap = false, lessThan = true;
  switch (inst.getPredicate()) {
  case llvm::CmpInst::ICMP_SLT:
  case llvm::CmpInst::ICMP_ULT: break;
  case llvm::CmpInst::ICMP_SGT:
  case llvm::CmpInst::ICMP_UGT: swap = true; break;
  case llvm::CmpInst::ICMP_SGE:
  case llvm::CmpInst::ICMP_UGE: lessThan = false; break;
  case llvm::CmpInst::ICMP_SLE:
  case llvm::CmpInst::ICMP_ULE: lessThan = false, swap = true; break;
  default: return std::unexpected(CodegenError{"'" + describe(inst) + "'", "an equality compare of vectors"});
  }
  std::string sign = inst.isSigned() ? "1" : "0", n = std::to_string(lane);
  std::string first = swap ? *b : *a, second = swap ? *a : *b;
  emit(std::string(lessThan ? "VLT_" : "VGE_") + n + "_vaddSign" + sign,
       std::string(lessThan ? "vlt." : "vge.") + n + " r28, " + first + ", " + second + ", vaddsign" + sign,
       {first, second}, {"r28"});
  move(defReg(&inst), "r28");
  commit(&inst);
  return {};
}

// 16 x float add/sub: the vector unit adds fp32 lanes only in accumulators. The operands move
// into the low quarters of dm0 and dm1 (lanes 0-15), vadd.f / vsub.f (control word 0: a plain
// lane-wise add, rounding to nearest even as IEEE fp32 does) writes dm2, and its low quarter
// moves back. fneg flips the sign bits: adding 0x80000000 to a 32-bit lane does exactly that.
std::expected<void, CodegenError> Emitter::floatVectorArithmetic(Instruction &inst) {
  auto a = use(inst.getOperand(0), 10);
  if (!a) return std::unexpected(a.error());
  std::string d = defReg(&inst);
  if (llvm::isa<llvm::UnaryOperator>(inst)) {  // fneg
    materialize("r31", INT32_MIN);
    emit("VBCST_32", "vbcst.32 x11, r31", {"r31"}, {"x11"});
    emit("VADD_32", "vadd.32 " + d + ", " + *a + ", x11", {*a, "x11"}, {d});
    return {};
  }
  auto b = use(inst.getOperand(1), 11);
  if (!b) return std::unexpected(b.error());
  bool subtract = inst.getOpcode() == llvm::Instruction::FSub;
  emit("VMOV_alu_mv_mv_x", "vmov bmll0, " + *a, {*a}, {"dm0"});
  emit("VMOV_alu_mv_mv_x", "vmov bmll1, " + *b, {*b}, {"dm1"});
  materialize("r31", 0);
  emit(subtract ? "VSUB_f_vmac_cm2_add_reg" : "VADD_f_vmac_cm2_add_reg",
       std::string(subtract ? "vsub.f" : "vadd.f") + " dm2, dm0, dm1, r31", {"dm0", "dm1", "r31"}, {"dm2"});
  emit("VMOV_alu_mv_mv_x", "vmov " + d + ", bmll2", {"dm2"}, {d});
  return {};
}

// A scalar float add or subtract in the vector unit: both operands broadcast (vbcst.32), added as
// 16 x float (every lane the same), lane 0 extracted.
std::expected<void, CodegenError> Emitter::scalarFloatArithmetic(llvm::BinaryOperator &inst) {
  auto a = use(inst.getOperand(0), 29);
  if (!a) return std::unexpected(a.error());
  emit("VBCST_32", "vbcst.32 x10, " + *a, {*a}, {"x10"});
  auto b = use(inst.getOperand(1), 30);
  if (!b) return std::unexpected(b.error());
  emit("VBCST_32", "vbcst.32 x11, " + *b, {*b}, {"x11"});
  bool subtract = inst.getOpcode() == llvm::Instruction::FSub;
  emit("VMOV_alu_mv_mv_x", "vmov bmll0, x10", {"x10"}, {"dm0"});
  emit("VMOV_alu_mv_mv_x", "vmov bmll1, x11", {"x11"}, {"dm1"});
  materialize("r31", 0);
  emit(subtract ? "VSUB_f_vmac_cm2_add_reg" : "VADD_f_vmac_cm2_add_reg",
       std::string(subtract ? "vsub.f" : "vadd.f") + " dm2, dm0, dm1, r31", {"dm0", "dm1", "r31"}, {"dm2"});
  emit("VMOV_alu_mv_mv_x", "vmov x10, bmll2", {"dm2"}, {"x10"});
  std::string d = defReg(&inst);
  emit("VEXTRACT_32_imm_vaddSign0", "vextract.32 " + d + ", x10, #0, vaddsign0", {"x10"}, {d});
  commit(&inst);
  return {};
}

// The lanes of v that are NaN ((bits & 0x7fffffff) > 0x7f800000, unsigned) into mask (r16..r31).
void Emitter::floatNanMask(const std::string &v, const std::string &mask) {
  materialize("r31", 0x7fffffff);
  emit("VBCST_32", "vbcst.32 x8, r31", {"r31"}, {"x8"});
  emit("VBAND", "vband x8, " + v + ", x8", {v, "x8"}, {"x8"});
  materialize("r31", 0x7f800000);
  emit("VBCST_32", "vbcst.32 x9, r31", {"r31"}, {"x9"});
  emit("VLT_32_vaddSign0", "vlt.32 " + mask + ", x9, x8, vaddsign0", {"x9", "x8"}, {mask});
}

// A key whose signed order is the float order of the non-NaN lanes of v (-0 and +0 equal): the
// bits where the sign is clear, INT32_MIN - bits where it is set.
void Emitter::floatOrderKey(const std::string &v, const std::string &out) {
  emit("VSUB_32", "vsub.32 " + out + ", " + v + ", " + v, {v}, {out});  // zero lanes
  emit("VLT_32_vaddSign1", "vlt.32 r28, " + v + ", " + out + ", vaddsign1", {v, out}, {"r28"});
  materialize("r31", INT32_MIN);
  emit("VBCST_32", "vbcst.32 " + out + ", r31", {"r31"}, {out});
  emit("VSUB_32", "vsub.32 " + out + ", " + out + ", " + v, {out, v}, {out});
  emit("VSEL_32", "vsel.32 " + out + ", " + v + ", " + out + ", r28", {v, out, "r28"}, {out});
}

// A 16 x float compare: there is no fp32 vector compare, so the lanes compare as integers. NaN
// lanes make the ordered predicates false and the unordered ones true; the rest compare by their
// order keys (vlt/vge signed). The mask lands in r28 (bit i = lane i).
std::expected<void, CodegenError> Emitter::floatVectorCompare(llvm::FCmpInst &inst) {
  auto a = use(inst.getOperand(0), 10);
  if (!a) return std::unexpected(a.error());
  auto b = use(inst.getOperand(1), 11);
  if (!b) return std::unexpected(b.error());
  floatNanMask(*a, "r29");
  floatNanMask(*b, "r28");
  emit("OR", "or r30, r29, r28", {"r29", "r28"}, {"r30"});  // r30: either operand is NaN
  floatOrderKey(*a, "x8");
  floatOrderKey(*b, "x9");
  using P = llvm::CmpInst::Predicate;
  const P p = inst.getPredicate();
  auto lessThan = [&](const std::string &x, const std::string &y) {
    emit("VLT_32_vaddSign1", "vlt.32 r28, " + x + ", " + y + ", vaddsign1", {x, y}, {"r28"});
  };
  auto atLeast = [&](const std::string &x, const std::string &y, const std::string &mask) {
    emit("VGE_32_vaddSign1", "vge.32 " + mask + ", " + x + ", " + y + ", vaddsign1", {x, y}, {mask});
  };
  switch (p) {
  case P::FCMP_OLT:
  case P::FCMP_ULT: lessThan("x8", "x9"); break;
  case P::FCMP_OGT:
  case P::FCMP_UGT: lessThan("x9", "x8"); break;
  case P::FCMP_OGE:
  case P::FCMP_UGE: atLeast("x8", "x9", "r28"); break;
  case P::FCMP_OLE:
  case P::FCMP_ULE: atLeast("x9", "x8", "r28"); break;
  case P::FCMP_OEQ:
  case P::FCMP_UEQ:
  case P::FCMP_ONE:
  case P::FCMP_UNE:
    atLeast("x8", "x9", "r28");
    atLeast("x9", "x8", "r29");
    emit("AND", "and r28, r28, r29", {"r28", "r29"}, {"r28"});  // equal keys
    if (p == P::FCMP_ONE || p == P::FCMP_UNE) {
      materialize("r31", -1);
      emit("XOR", "xor r28, r28, r31", {"r28", "r31"}, {"r28"});
    }
    break;
  case P::FCMP_ORD:
  case P::FCMP_UNO: materialize("r28", p == P::FCMP_ORD ? -1 : 0); break;  // then and/or the NaN lanes
  default: return std::unexpected(CodegenError{"'" + describe(inst) + "'", "an unknown predicate"});
  }
  if (llvm::CmpInst::isOrdered(p)) {  // and not NaN
    materialize("r31", -1);
    emit("XOR", "xor r30, r30, r31", {"r30", "r31"}, {"r30"});
    emit("AND", "and r28, r28, r30", {"r28", "r30"}, {"r28"});
  } else {  // or NaN
    emit("OR", "or r28, r28, r30", {"r28", "r30"}, {"r28"});
  }
  move(defReg(&inst), "r28");
  commit(&inst);
  return {};
}

std::expected<void, CodegenError> Emitter::minMax(llvm::IntrinsicInst &inst) {
  if (unsigned lane = laneBits(inst.getType())) {  // vmax_lt / vmin_ge: r16 receives the mask, so it is kept in r31
    auto a = use(inst.getArgOperand(0), 10);
    if (!a) return std::unexpected(a.error());
    auto b = use(inst.getArgOperand(1), 11);
    if (!b) return std::unexpected(b.error());
    bool isSigned = inst.getIntrinsicID() == llvm::Intrinsic::smin || inst.getIntrinsicID() == llvm::Intrinsic::smax;
    bool isMin = inst.getIntrinsicID() == llvm::Intrinsic::smin || inst.getIntrinsicID() == llvm::Intrinsic::umin;
    std::string n = std::to_string(lane), sign = isSigned ? "1" : "0", d = defReg(&inst);
    move("r31", "r16");
    emit(std::string(isMin ? "VMIN_GE_" : "VMAX_LT_") + n + "_vaddSign" + sign,
         std::string(isMin ? "vmin_ge." : "vmax_lt.") + n + " " + d + ", r16, " + *a + ", " + *b + ", vaddsign" + sign,
         {*a, *b}, {d, "r16"});
    move("r16", "r31");
    return {};
  }
  auto a = use(inst.getArgOperand(0), 29);
  if (!a) return std::unexpected(a.error());
  std::string d = defReg(&inst);
  if (inst.getIntrinsicID() == llvm::Intrinsic::abs) {
    emit("ABS", "abs " + d + ", " + *a, {*a}, {d});
    commit(&inst);
    return {};
  }
  auto b = use(inst.getArgOperand(1), 30);
  if (!b) return std::unexpected(b.error());
  // r27 = (a < b); min takes a where it holds, max takes b.
  bool isSigned = inst.getIntrinsicID() == llvm::Intrinsic::smin || inst.getIntrinsicID() == llvm::Intrinsic::smax;
  bool isMin = inst.getIntrinsicID() == llvm::Intrinsic::smin || inst.getIntrinsicID() == llvm::Intrinsic::umin;
  emit(isSigned ? "LT" : "LTU", std::string(isSigned ? "lt" : "ltu") + " r27, " + *a + ", " + *b, {*a, *b}, {"r27"});
  std::string first = isMin ? *a : *b, second = isMin ? *b : *a;
  emit("SEL_NEZ", "sel.nez " + d + ", " + first + ", " + second + ", r27", {first, second, "r27"}, {d});
  commit(&inst);
  return {};
}

// memset/memcpy of whole words: a post-increment loop with r28 counting words (r29 the word).
std::expected<void, CodegenError> Emitter::memoryLoop(llvm::MemIntrinsic &inst) {
  uint64_t words = llvm::cast<llvm::ConstantInt>(inst.getLength())->getZExtValue() / 4;
  auto dst = use(inst.getDest(), 30);
  if (!dst) return std::unexpected(dst.error());
  move("p1", *dst);
  auto *transfer = llvm::dyn_cast<llvm::MemTransferInst>(&inst);
  if (transfer) {
    auto src = use(transfer->getSource(), 30);
    if (!src) return std::unexpected(src.error());
    move("p0", *src);
  } else {
    auto value = use(llvm::cast<llvm::MemSetInst>(inst).getValue(), 29);
    if (!value) return std::unexpected(value.error());
    move("r29", *value);
    emit("EXTEND_u8", "extend.u8 r29, r29", {"r29"}, {"r29"});
    materialize("r31", 0x01010101);
    emit("MUL", "mul r29, r29, r31", {"r29", "r31"}, {"r29"});
  }
  materialize("r28", static_cast<int64_t>(words));
  std::string loop = "loop" + std::to_string(loops_++);
  label(loop);
  if (transfer) emit("LDA_dms_lda_pstm_nrm_imm", "lda r29, [p0], #4", {"p0"}, {"r29", "p0"});
  emit("ST_dms_sts_pstm_nrm_imm", "st r29, [p1], #4", {"r29", "p1"}, {"p1"});
  emit("ADD_add_r_ri", "add r28, r28, #-1", {"r28"}, {"r28"});
  flush();
  emit("JNZ", "jnz r28, #" + loop, {"r28"}, {});
  return {};
}

std::expected<void, CodegenError> Emitter::phiCopies(BasicBlock *from, BasicBlock *to) {
  // A parallel copy over locations (registers and spill slots): a copy runs once no pending copy
  // still reads its destination; a cycle is broken by saving one destination in r31. Constants
  // and local addresses are written last (they read no location).
  struct Move {
    Loc dst, src;
  };
  auto same = [](Loc a, Loc b) { return a.kind == b.kind && a.index == b.index; };
  std::vector<Move> moves;
  std::vector<std::pair<Loc, Value *>> late;
  for (llvm::PHINode &phi : to->phis()) {
    auto d = loc_.find(&phi);
    if (d == loc_.end()) continue;
    Value *source = phi.getIncomingValueForBlock(from);
    auto s = loc_.find(source);
    if (s == loc_.end() || llvm::isa<llvm::AllocaInst>(source))
      late.push_back({d->second, source});
    else if (!same(d->second, s->second))
      moves.push_back({d->second, s->second});
  }
  auto text = [&](Loc l) { return l.kind == Loc::Reg ? r(l.index) : std::string(); };
  auto transfer = [&](Loc dst, Loc src) {
    if (dst.kind == Loc::VReg) {  // vbor x, s, s is a vector move
      std::string d = "x" + std::to_string(dst.index), v = "x" + std::to_string(src.index);
      emit("VBOR", "vbor " + d + ", " + v + ", " + v, {v}, {d});
      return;
    }
    std::string value;
    if (src.kind == Loc::Reg)
      value = r(src.index);
    else {
      emit("LDA_dms_lda_spill", "lda r28, [sp, #" + std::to_string(slotOffset(src.index)) + "]", {"sp"}, {"r28"});
      value = "r28";
    }
    if (dst.kind == Loc::Reg)
      move(r(dst.index), value);
    else
      emit("ST_dms_sts_spill", "st " + value + ", [sp, #" + std::to_string(slotOffset(dst.index)) + "]", {value, "sp"},
           {});
  };
  const Loc saved{Loc::Reg, 31};
  while (!moves.empty()) {
    bool progressed = false;
    for (size_t k = 0; k < moves.size(); ++k) {
      bool read = false;
      for (size_t j = 0; j < moves.size(); ++j)
        if (j != k && same(moves[j].src, moves[k].dst)) read = true;
      if (read) continue;
      transfer(moves[k].dst, moves[k].src);
      moves.erase(moves.begin() + long(k));
      progressed = true;
      break;
    }
    if (progressed) continue;
    // Every destination is still read: save the first one and redirect its readers.
    Loc victim = moves.front().dst;
    Loc temp = victim.kind == Loc::VReg ? Loc{Loc::VReg, 11} : saved;
    transfer(temp, victim);
    for (Move &m : moves)
      if (same(m.src, victim)) m.src = temp;
    (void)text;
  }
  for (auto &[dst, source] : late) {
    auto value = use(source, dst.kind == Loc::VReg ? 10 : 29);
    if (!value) return std::unexpected(value.error());
    if (dst.kind == Loc::VReg) {
      std::string d = "x" + std::to_string(dst.index);
      emit("VBOR", "vbor " + d + ", " + *value + ", " + *value, {*value}, {d});
    } else if (dst.kind == Loc::Reg)
      move(r(dst.index), *value);
    else
      emit("ST_dms_sts_spill", "st " + *value + ", [sp, #" + std::to_string(slotOffset(dst.index)) + "]",
           {*value, "sp"}, {});
  }
  return {};
}

std::expected<void, CodegenError> Emitter::select(Instruction &inst, BasicBlock *next) {
  if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
    if (ignoredIntrinsic(*call)) return {};
    if (auto *mi = llvm::dyn_cast<llvm::MemIntrinsic>(&inst)) return memoryLoop(*mi);
    if (isFusedBfpMma(*call)) return fusedBfpMma(*call);
    return minMax(*llvm::cast<llvm::IntrinsicInst>(&inst));
  }
  if (llvm::isa<llvm::PHINode>(inst)) return {};            // written by the predecessors' copies
  if (llvm::isa<llvm::AllocaInst>(inst)) return {};         // its address is computed where it is used
  if (llvm::isa<llvm::InsertElementInst>(inst)) return {};  // a splat's seed: the shuffle reads the scalar
  if (auto *sh = llvm::dyn_cast<llvm::ShuffleVectorInst>(&inst)) {
    unsigned lane = laneBits(sh->getType());
    auto scalar = use(llvm::cast<llvm::InsertElementInst>(sh->getOperand(0))->getOperand(1), 29);
    if (!scalar) return std::unexpected(scalar.error());
    std::string d = defReg(sh);
    emit(lane == 32   ? "VBCST_32"
         : lane == 16 ? "VBCST_16"
                      : "VBCST_8",
         std::string(lane == 32   ? "vbcst.32 "
                     : lane == 16 ? "vbcst.16 "
                                  : "vbcst.8 ") +
             d + ", " + *scalar,
         {*scalar}, {d});
    return {};
  }
  if (auto *cmp = llvm::dyn_cast<llvm::FCmpInst>(&inst); cmp && isMask(cmp->getType())) return floatVectorCompare(*cmp);
  if (isFloatVector(inst.getType()) && (llvm::isa<llvm::BinaryOperator>(inst) || llvm::isa<llvm::UnaryOperator>(inst)))
    return floatVectorArithmetic(inst);
  if (auto *ld = llvm::dyn_cast<llvm::LoadInst>(&inst); ld && laneBits(ld->getType())) {
    auto base = use(ld->getPointerOperand(), 30);
    if (!base) return std::unexpected(base.error());
    move("p0", *base);
    std::string d = defReg(ld);
    emit("VLDA_dmx_lda_x_idx_imm", "vlda " + d + ", [p0, #0]", {"p0"}, {d});
    return {};
  }
  if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&inst); st && laneBits(st->getValueOperand()->getType())) {
    auto v = use(st->getValueOperand(), 10);
    if (!v) return std::unexpected(v.error());
    auto base = use(st->getPointerOperand(), 30);
    if (!base) return std::unexpected(base.error());
    move("p1", *base);
    emit("VST_dmx_sts_x_idx_imm", "vst " + *v + ", [p1, #0]", {*v, "p1"}, {});
    return {};
  }
  if (auto *bin = llvm::dyn_cast<llvm::BinaryOperator>(&inst); bin && laneBits(bin->getType())) {
    unsigned lane = laneBits(bin->getType());
    auto a = use(bin->getOperand(0), 10);
    if (!a) return std::unexpected(a.error());
    auto b = isDoubling(*bin) ? a : use(bin->getOperand(1), 11);
    if (!b) return std::unexpected(b.error());
    std::string d = defReg(bin), suffix = "." + std::to_string(lane);
    std::string row, text;
    switch (bin->getOpcode()) {
    case llvm::Instruction::Add: row = "VADD_" + std::to_string(lane), text = "vadd" + suffix; break;
    case llvm::Instruction::Sub: row = "VSUB_" + std::to_string(lane), text = "vsub" + suffix; break;
    case llvm::Instruction::Shl:  // by 1 (isDoubling): x + x
      row = "VADD_" + std::to_string(lane), text = "vadd" + suffix;
      break;
    case llvm::Instruction::And: row = "VBAND", text = "vband"; break;
    case llvm::Instruction::Mul: {
      // 16 x i32 / 32 x i16: lane by lane. The elementwise integer words of vmul are not modelled
      // (docs/aie2p.md), so each lane is extracted, multiplied by the scalar mul (the low bits of
      // the product, as LLVM's mul) and stored to the frame's 64-byte lane area, which vlda reads back.
      const bool halves = lane == 16;
      const int64_t area = static_cast<int64_t>(laneArea_) - static_cast<int64_t>(frameBytes_);
      move("r30", "sp");
      materialize("r31", area);
      emit("ADD_alu_r_rr", "add r30, r30, r31", {"r30", "r31"}, {"r30"});
      move("p1", "r30");
      for (unsigned k = 0; k < 512 / lane; ++k) {
        std::string extract = halves ? "VEXTRACT_16_imm_vaddSign0" : "VEXTRACT_32_imm_vaddSign0";
        std::string mnemonic = halves ? "vextract.16 " : "vextract.32 ";
        std::string index = ", #" + std::to_string(k) + ", vaddsign0";
        emit(extract, mnemonic + "r28, " + *a + index, {*a}, {"r28"});
        emit(extract, mnemonic + "r29, " + *b + index, {*b}, {"r29"});
        emit("MUL", "mul r30, r28, r29", {"r28", "r29"}, {"r30"});
        if (halves)
          emit("ST_s16_pstm_nrm_imm", "st.s16 r30, [p1], #2", {"r30", "p1"}, {"p1"});
        else
          emit("ST_dms_sts_pstm_nrm_imm", "st r30, [p1], #4", {"r30", "p1"}, {"p1"});
      }
      emit("VLDA_dmx_lda_x_spill", "vlda " + d + ", [sp, #" + std::to_string(area) + "]", {"sp"}, {d});
      return {};
    }
    case llvm::Instruction::Xor: {
      if (*a == "x10" && *b == "x11")
        return std::unexpected(CodegenError{"'" + describe(*bin) + "'", "an xor of two constant vectors"});
      // No vector xor in the table: a ^ b = (a | b) - (a & b) lane by lane (the and's bits are a
      // subset of the or's, so the subtraction never borrows).
      std::string t = *a == "x10" || *b == "x10" ? "x11" : "x10";
      std::string n = std::to_string(lane);
      emit("VBAND", "vband " + t + ", " + *a + ", " + *b, {*a, *b}, {t});
      emit("VBOR", "vbor " + d + ", " + *a + ", " + *b, {*a, *b}, {d});
      emit("VSUB_" + n, "vsub." + n + " " + d + ", " + d + ", " + t, {d, t}, {d});
      return {};
    }
    default: row = "VBOR", text = "vbor"; break;
    }
    emit(row, text + " " + d + ", " + *a + ", " + *b, {*a, *b}, {d});
    return {};
  }
  if (auto *ld = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
    auto base = use(ld->getPointerOperand(), 30);
    if (!base) return std::unexpected(base.error());
    move("p0", *base);
    std::string d = defReg(ld);
    unsigned width = widthOf(ld->getType());
    if (width == 32)
      emit("LDA_dms_lda_idx_imm", "lda " + d + ", [p0, #0]", {"p0"}, {d});
    else if (width == 16)
      emit("LDA_u16_idx_imm", "lda.u16 " + d + ", [p0, #0]", {"p0"}, {d});
    else
      emit("LDA_u8_idx_imm", "lda.u8 " + d + ", [p0, #0]", {"p0"}, {d});
    if (width == 1) normalize(d, 1);
    commit(ld);
    return {};
  }
  if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
    auto v = use(st->getValueOperand(), 29);
    if (!v) return std::unexpected(v.error());
    auto base = use(st->getPointerOperand(), 30);
    if (!base) return std::unexpected(base.error());
    move("p1", *base);
    unsigned width = widthOf(st->getValueOperand()->getType());
    if (width == 32)
      emit("ST_dms_sts_idx_imm", "st " + *v + ", [p1, #0]", {*v, "p1"}, {});
    else if (width == 16)
      emit("ST_s16_idx_imm", "st.s16 " + *v + ", [p1, #0]", {*v, "p1"}, {});
    else
      emit("ST_s8_idx_imm", "st.s8 " + *v + ", [p1, #0]", {*v, "p1"}, {});
    return {};
  }
  if (auto *cmp = llvm::dyn_cast<llvm::ICmpInst>(&inst); cmp && isMask(cmp->getType())) return vectorCompare(*cmp);
  if (auto *cast = llvm::dyn_cast<llvm::BitCastInst>(&inst); cast && laneBits(cast->getType())) {
    auto s = use(cast->getOperand(0), 10);
    if (!s) return std::unexpected(s.error());
    std::string d = defReg(cast);
    if (d != *s) emit("VMOV_alu_mv_mv_x", "vmov " + d + ", " + *s, {*s}, {d});
    return {};
  }
  if (auto *sel = llvm::dyn_cast<llvm::SelectInst>(&inst); sel && laneBits(sel->getType())) {
    auto mask = use(sel->getCondition(), 29);
    if (!mask) return std::unexpected(mask.error());
    move("r28", *mask);  // vsel's mask register is one of r16..r31
    auto x = use(sel->getTrueValue(), 10);
    if (!x) return std::unexpected(x.error());
    auto y = use(sel->getFalseValue(), 11);
    if (!y) return std::unexpected(y.error());
    std::string lane = std::to_string(laneBits(sel->getType()));
    std::string d = defReg(sel);
    // vsel takes lane i from its second source where mask bit i is set.
    emit("VSEL_" + lane, "vsel." + lane + " " + d + ", " + *y + ", " + *x + ", r28", {*y, *x, "r28"}, {d});
    return {};
  }
  if (auto *sel = llvm::dyn_cast<llvm::SelectInst>(&inst); sel && isMaskLogic(sel)) {
    // (c & t) | (~c & f) on the mask bits.
    auto c = use(sel->getCondition(), 28);
    if (!c) return std::unexpected(c.error());
    auto t = use(sel->getTrueValue(), 29);
    if (!t) return std::unexpected(t.error());
    auto f = use(sel->getFalseValue(), 30);
    if (!f) return std::unexpected(f.error());
    materialize("r31", -1);
    emit("XOR", "xor r31, " + *c + ", r31", {*c, "r31"}, {"r31"});
    emit("AND", "and r31, r31, " + *f, {"r31", *f}, {"r31"});
    emit("AND", "and r27, " + *c + ", " + *t, {*c, *t}, {"r27"});
    std::string d = defReg(sel);
    emit("OR", "or " + d + ", r27, r31", {"r27", "r31"}, {d});
    commit(sel);
    return {};
  }
  if (auto *g = llvm::dyn_cast<llvm::GetElementPtrInst>(&inst)) return gep(*g);
  if (auto *bin = llvm::dyn_cast<llvm::BinaryOperator>(&inst); bin && bin->getType()->isFloatTy())
    return scalarFloatArithmetic(*bin);
  if (auto *bin = llvm::dyn_cast<llvm::BinaryOperator>(&inst)) return binary(*bin);
  if (auto *cmp = llvm::dyn_cast<llvm::ICmpInst>(&inst)) return compare(*cmp);
  if (auto *sel = llvm::dyn_cast<llvm::SelectInst>(&inst)) {
    auto c = use(sel->getCondition(), 28);
    if (!c) return std::unexpected(c.error());
    move("r27", *c);
    auto a = use(sel->getTrueValue(), 29);
    if (!a) return std::unexpected(a.error());
    auto b = use(sel->getFalseValue(), 30);
    if (!b) return std::unexpected(b.error());
    std::string d = defReg(sel);
    emit("SEL_NEZ", "sel.nez " + d + ", " + *a + ", " + *b + ", r27", {*a, *b, "r27"}, {d});
    commit(sel);
    return {};
  }
  if (auto *cast = llvm::dyn_cast<llvm::CastInst>(&inst)) {
    auto s = use(cast->getOperand(0), 29);
    if (!s) return std::unexpected(s.error());
    std::string d = defReg(cast);
    unsigned from = widthOf(cast->getSrcTy()), to = widthOf(cast->getDestTy());
    if (llvm::isa<llvm::SExtInst>(cast)) {
      signExtend(d, *s, from);
      normalize(d, to);
    } else if (llvm::isa<llvm::TruncInst>(cast)) {
      move(d, *s);
      normalize(d, to);
    } else {
      move(d, *s);  // zext, ptrtoint, inttoptr: the zero-extended bits already are the value
    }
    commit(cast);
    return {};
  }
  if (auto *fr = llvm::dyn_cast<llvm::FreezeInst>(&inst)) {
    auto s = use(fr->getOperand(0), 29);
    if (!s) return std::unexpected(s.error());
    move(defReg(fr), *s);
    commit(fr);
    return {};
  }
  if (auto *br = llvm::dyn_cast<llvm::BranchInst>(&inst)) {
    BasicBlock *block = br->getParent();
    if (auto z = zolHeaders_.find(block); z != zolHeaders_.end()) {
      // The body of a zero-overhead loop: the exit's phi copies, then the back edge's, every
      // iteration (the exit's destinations are live nowhere in the loop); the last bundle is `le`.
      const ZeroOverheadLoop &loop = z->second;
      if (auto ok = phiCopies(block, loop.exit); !ok) return ok;
      if (auto ok = phiCopies(loop.latch, block); !ok) return ok;
      labelLastBundle(loop.end, loop.firstItem);
      if (loop.exit != next) emit("J_lng", "j #" + blockLabel(loop.exit), {}, {});
      return {};
    }
    if (br->isUnconditional()) {
      if (auto ok = phiCopies(block, br->getSuccessor(0)); !ok) return ok;
      if (auto z = zolPreheaders_.find(block); z != zolPreheaders_.end()) {
        const ZeroOverheadLoop &loop = zolHeaders_.at(z->second);
        emit("MOVXM", "movxm ls, #" + blockLabel(z->second), {}, {"ls"});
        emit("MOVXM", "movxm le, #" + loop.end, {}, {"le"});
        emit("MOVXM", "movxm lc, #" + std::to_string(loop.tripCount), {}, {"lc"});
      }
      if (br->getSuccessor(0) != next) {
        flush();
        emit("J_lng", "j #" + blockLabel(br->getSuccessor(0)), {}, {});
      }
      return {};
    }
    // Critical edges are split, so a conditional branch's successors have at most one
    // predecessor each: their phi copies are made here, on both paths, into registers the other
    // path does not use.
    auto c = use(br->getCondition(), 28);
    if (!c) return std::unexpected(c.error());
    move("r27", *c);
    c = std::string("r27");
    if (auto ok = phiCopies(block, br->getSuccessor(0)); !ok) return ok;
    if (auto ok = phiCopies(block, br->getSuccessor(1)); !ok) return ok;
    flush();
    if (br->getSuccessor(0) == next) {
      emit("JZ", "jz " + *c + ", #" + blockLabel(br->getSuccessor(1)), {*c}, {});
    } else {
      emit("JNZ", "jnz " + *c + ", #" + blockLabel(br->getSuccessor(0)), {*c}, {});
      if (br->getSuccessor(1) != next) emit("J_lng", "j #" + blockLabel(br->getSuccessor(1)), {}, {});
    }
    return {};
  }
  if (llvm::isa<llvm::ReturnInst>(inst)) {
    if (frameBytes_) emit("PADDXM_pstm_sp_imm", "paddxm [sp], #-" + std::to_string(frameBytes_), {"sp"}, {"sp"});
    flush();
    emit("RET", "ret lr", {"lr"}, {});
    return {};
  }
  if (llvm::isa<llvm::UnreachableInst>(inst)) {
    flush();
    emit("DONE", "done", {}, {});
    return {};
  }
  return std::unexpected(CodegenError{"'" + describe(inst) + "'", "not selected"});
}

std::expected<void, CodegenError> Emitter::fusedBfpMma(llvm::CallBase &call) {
  // What the AIE2P MMA computes (docs/aie2p.md, "The bfp16 MMA"): A's rows and B's columns are
  // the blocks, so B (k x n, row-major) is transposed first (vshuffle modes 52/53: T16_8x8 low and
  // high halves); both widen to fp32 (vconv.fp32.bf16), convert to bfp16ebs8 with crRnd 0
  // (floor), and vmul.f/vmac.f with word 780 gives C = A * (B^T)^T in dm2, stored row-major.
  if (auto ok = address(call.getArgOperand(0), "p0", 30); !ok) return ok;
  if (auto ok = address(call.getArgOperand(1), "p1", 30); !ok) return ok;
  emit("VLDA_dmx_lda_x_idx_imm", "vlda x4, [p0, #0]", {"p0"}, {"x4"});
  emit("VLDA_dmx_lda_x_idx_imm", "vlda x5, [p0, #64]", {"p0"}, {"x5"});
  emit("VLDB_dmx_ldb_x_idx_imm", "vldb x6, [p1, #0]", {"p1"}, {"x6"});
  emit("VLDB_dmx_ldb_x_idx_imm", "vldb x7, [p1, #64]", {"p1"}, {"x7"});
  materialize("r28", 52);
  materialize("r29", 53);
  emit("VSHUFFLE_vec_shuffle_x", "vshuffle x8, x6, x7, r28", {"x6", "x7", "r28"}, {"x8"});
  emit("VSHUFFLE_vec_shuffle_x", "vshuffle x9, x6, x7, r29", {"x6", "x7", "r29"}, {"x9"});
  const std::pair<const char *, const char *> widen[] = {
      {"cml0", "x4"}, {"cmh0", "x5"}, {"cml1", "x8"}, {"cmh1", "x9"}};
  for (const auto &[half, x] : widen)
    emit("VCONV_fp32_bf16_mv_ups_xbf", std::string("vconv.fp32.bf16 ") + half + ", " + x, {x}, {half});
  emit("MOV_mv_cg", "mov crRnd, #0", {}, {"crRnd"});
  emit("VCONV_bfp16ebs8_fp32", "vconv.bfp16ebs8.fp32 ex0, dm0", {"cml0", "cmh0", "crRnd"}, {"x0", "e0"});
  emit("VCONV_bfp16ebs8_fp32", "vconv.bfp16ebs8.fp32 ex2, dm1", {"cml1", "cmh1", "crRnd"}, {"x2", "e2"});
  static constexpr const char *kQuarters[] = {"bmll2", "bmlh2", "bmhl2", "bmhh2"};
  const std::vector<std::string> quarters(std::begin(kQuarters), std::end(kQuarters));
  std::vector<std::string> operands = {"x0", "e0", "x2", "e2", "r30"};
  if (isZeroAccumulator(call.getArgOperand(2))) {
    materialize("r30", 780);
    emit("VMUL_f_vmul_bfp_core_EX_EX", "vmul.f dm2, ex0, ex2, r30", operands, quarters);
  } else {
    if (std::optional<uint32_t> bits = splatAccumulator(call.getArgOperand(2))) {  // every lane the same
      materialize("r31", static_cast<int32_t>(*bits));
      emit("VBCST_32", "vbcst.32 x4, r31", {"r31"}, {"x4"});
      for (const std::string &quarter : quarters)
        emit("VMOV_alu_mv_mv_x", "vmov " + quarter + ", x4", {"x4"}, {quarter});
    } else {
      if (auto ok = address(call.getArgOperand(2), "p0", 30); !ok) return ok;  // may use r30
      for (unsigned q = 0; q < 4; ++q) {
        std::string x = "x" + std::to_string(4 + q);
        emit("VLDA_dmx_lda_x_idx_imm", "vlda " + x + ", [p0, #" + std::to_string(64 * q) + "]", {"p0"}, {x});
        emit("VMOV_alu_mv_mv_x", "vmov " + quarters[q] + ", " + x, {x}, {quarters[q]});
      }
    }
    materialize("r30", 780);
    operands.insert(operands.end(), quarters.begin(), quarters.end());
    emit("VMAC_f_vmac_bfp_vmul_bfp_core_EX_EX", "vmac.f dm2, dm2, ex0, ex2, r30", operands, quarters);
  }
  if (auto ok = address(call.getArgOperand(3), "p1", 30); !ok) return ok;
  for (unsigned q = 0; q < 4; ++q) {
    std::string x = "x" + std::to_string(4 + q);
    emit("VMOV_alu_mv_mv_x", "vmov " + x + ", " + quarters[q], {quarters[q]}, {x});
    emit("VST_dmx_sts_x_idx_imm", "vst " + x + ", [p1, #" + std::to_string(64 * q) + "]", {x, "p1"}, {});
  }
  return {};
}

}  // namespace

void prepareModuleForAie2p(llvm::Module &module) {
  // The fused bfp16 MMA reads its operands where the records hold them (no stack copies).
  bridge::forwardFusedMmaSlots(module);
  // Every record a worker is handed is 64-byte aligned (the planner's slots, the plan executor's
  // tile layout, docs/aie2p.md): the record pointers the stage loads say so, so that vector
  // accesses at multiples of 64 bytes into a record are known aligned without an assume.
  llvm::LLVMContext &context = module.getContext();
  llvm::MDNode *recordAlignment = llvm::MDNode::get(
      context, llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt64Ty(context), 64)));
  for (llvm::Function &f : module) {
    if (f.isDeclaration() || !f.getName().starts_with(HRX_HOST_STAGE_PREFIX) || f.arg_size() != 1) continue;
    for (BasicBlock &b : f)
      for (Instruction &i : b)
        if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&i);
            load && load->getType()->isPointerTy() &&
            llvm::getUnderlyingObject(load->getPointerOperand()) == f.getArg(0))
          load->setMetadata(llvm::LLVMContext::MD_align, recordAlignment);
  }
  module.setDataLayout(kAie2pDataLayout);
  module.setTargetTriple(llvm::Triple());
  for (llvm::Function &f : module) {
    if (f.isDeclaration()) continue;
    f.removeFnAttr(llvm::Attribute::OptimizeNone);
    f.removeFnAttr(llvm::Attribute::NoInline);
    if (!f.getName().starts_with("hrx.")) {
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
      f.addFnAttr(llvm::Attribute::AlwaysInline);
    }
  }
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = false;
  tuning.SLPVectorization = false;
  tuning.LoopUnrolling = false;
  tuning.LoopInterleaving = false;
  llvm::PassBuilder builder(nullptr, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  passes.run(module, mam);
  for (llvm::Function &f : module)
    if (!f.isDeclaration()) {
      splitWideVectorsForAie2p(f);
      lowerMemoryCopiesForAie2p(f);
      lowerFloatForAie2p(f);
      llvm::SplitAllCriticalEdges(f);
    }
}

std::expected<CoreCode, CodegenError> compileStageForAie2p(llvm::Function &stage) {
  Emitter emitter(stage.getParent()->getDataLayout());
  return emitter.run(stage);
}

}  // namespace hrx::xdna
