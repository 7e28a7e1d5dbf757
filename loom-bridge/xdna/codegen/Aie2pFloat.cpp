// IEEE binary32 operations for the AIE2P selector, as i32 IR (see Aie2pFloat.h).
#include "Aie2pFloat.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <vector>

namespace hrx::xdna {
namespace {

using llvm::Value;

// The product of two binary32 values given as their bits (i32), round to nearest even. Branch
// free: every case is computed and selected, so a loop around it stays one block. NaN results:
// a NaN operand quieted (the first if both are), inf x 0 the x86 default NaN 0xffc00000.
Value *multiplyBits(llvm::IRBuilder<> &b, Value *x, Value *y) {
  auto c = [&](uint32_t v) { return b.getInt32(v); };
  Value *sign = b.CreateAnd(b.CreateXor(x, y), c(0x80000000u));
  Value *ax = b.CreateAnd(x, c(0x7fffffffu));
  Value *ay = b.CreateAnd(y, c(0x7fffffffu));
  // (significand with bit 23 set, biased exponent), subnormals normalized by a binary search of
  // their leading one (the table has no count-leading-zeros).
  auto unpack = [&](Value *magnitude) -> std::pair<Value *, Value *> {
    Value *e = b.CreateLShr(magnitude, c(23));
    Value *m = b.CreateAnd(magnitude, c(0x7fffffu));
    Value *shifted = m, *count = c(0);
    static constexpr std::pair<uint32_t, uint32_t> kSteps[] = {
        {16, 1u << 8}, {8, 1u << 16}, {4, 1u << 20}, {2, 1u << 22}, {1, 1u << 23}};
    for (auto [bits, below] : kSteps) {
      Value *small = b.CreateICmpULT(shifted, c(below));
      shifted = b.CreateSelect(small, b.CreateShl(shifted, c(bits)), shifted);
      count = b.CreateSelect(small, b.CreateAdd(count, c(bits)), count);
    }
    Value *subnormal = b.CreateICmpEQ(e, c(0));
    return {b.CreateSelect(subnormal, shifted, b.CreateOr(m, c(0x800000u))),
            b.CreateSelect(subnormal, b.CreateSub(c(1), count), e)};
  };
  auto [mx, ex] = unpack(ax);
  auto [my, ey] = unpack(ay);
  // The 48-bit product of the 24-bit significands from 12-bit halves (every partial product and
  // sum fits 32 bits): high * 2^24 + low.
  Value *xh = b.CreateLShr(mx, c(12)), *xl = b.CreateAnd(mx, c(0xfff));
  Value *yh = b.CreateLShr(my, c(12)), *yl = b.CreateAnd(my, c(0xfff));
  Value *mid = b.CreateAdd(b.CreateMul(xh, yl), b.CreateMul(xl, yh));
  Value *low = b.CreateAdd(b.CreateMul(xl, yl), b.CreateShl(b.CreateAnd(mid, c(0xfff)), c(12)));
  Value *high = b.CreateAdd(b.CreateAdd(b.CreateMul(xh, yh), b.CreateLShr(mid, c(12))), b.CreateLShr(low, c(24)));
  low = b.CreateAnd(low, c(0xffffff));
  // Normalized: a 24-bit significand and the 24 bits below it (round bit first).
  Value *top = b.CreateICmpUGE(high, c(0x800000u));
  Value *sig = b.CreateSelect(top, high, b.CreateOr(b.CreateShl(high, c(1)), b.CreateLShr(low, c(23))));
  Value *rest = b.CreateSelect(top, low, b.CreateAnd(b.CreateShl(low, c(1)), c(0xffffff)));
  Value *exponent = b.CreateAdd(b.CreateSub(b.CreateAdd(ex, ey), c(127)), b.CreateZExt(top, b.getInt32Ty()));
  // A normal result: the rounding increment carries into the exponent field (to infinity at most).
  Value *sticky = b.CreateZExt(b.CreateICmpNE(b.CreateAnd(rest, c(0x7fffff)), c(0)), b.getInt32Ty());
  Value *increment = b.CreateAnd(b.CreateLShr(rest, c(23)), b.CreateOr(sticky, b.CreateAnd(sig, c(1))));
  Value *normal = b.CreateAdd(b.CreateAdd(b.CreateShl(b.CreateSub(exponent, c(1)), c(23)), sig), increment);
  // A subnormal result (exponent <= 0): shift right by 1 - exponent (25 or more gives zero: kept
  // at 25 so every shift amount is in range), rounding on the bits shifted out and below.
  Value *shift = b.CreateSub(c(1), exponent);
  shift = b.CreateSelect(b.CreateICmpSGT(shift, c(25)), c(25), shift);
  shift = b.CreateSelect(b.CreateICmpSLT(shift, c(1)), c(1), shift);
  Value *kept = b.CreateLShr(sig, shift);
  Value *below = b.CreateSub(shift, c(1));
  Value *roundBit = b.CreateAnd(b.CreateLShr(sig, below), c(1));
  Value *lostBits = b.CreateAnd(sig, b.CreateSub(b.CreateShl(c(1), below), c(1)));
  Value *lost = b.CreateZExt(b.CreateOr(b.CreateICmpNE(lostBits, c(0)), b.CreateICmpNE(rest, c(0))), b.getInt32Ty());
  Value *subnormal = b.CreateAdd(kept, b.CreateAnd(roundBit, b.CreateOr(lost, b.CreateAnd(kept, c(1)))));
  Value *magnitude = b.CreateSelect(b.CreateICmpSLT(exponent, c(1)), subnormal, normal);
  magnitude = b.CreateSelect(b.CreateICmpSGT(exponent, c(254)), c(0x7f800000u), magnitude);
  Value *result = b.CreateOr(sign, magnitude);
  // Zeros, infinities, NaNs.
  Value *zero = b.CreateOr(b.CreateICmpEQ(ax, c(0)), b.CreateICmpEQ(ay, c(0)));
  result = b.CreateSelect(zero, sign, result);
  Value *infinite = b.CreateOr(b.CreateICmpEQ(ax, c(0x7f800000u)), b.CreateICmpEQ(ay, c(0x7f800000u)));
  result = b.CreateSelect(infinite, b.CreateSelect(zero, c(0xffc00000u), b.CreateOr(sign, c(0x7f800000u))), result);
  Value *xNan = b.CreateICmpUGT(ax, c(0x7f800000u));
  Value *yNan = b.CreateICmpUGT(ay, c(0x7f800000u));
  Value *nan = b.CreateSelect(xNan, b.CreateOr(x, c(0x400000u)), b.CreateOr(y, c(0x400000u)));
  return b.CreateSelect(b.CreateOr(xNan, yNan), nan, result);
}

Value *multiplyScalar(llvm::IRBuilder<> &b, Value *x, Value *y) {
  Value *bits = multiplyBits(b, b.CreateBitCast(x, b.getInt32Ty()), b.CreateBitCast(y, b.getInt32Ty()));
  return b.CreateBitCast(bits, b.getFloatTy());
}

bool isFloatVector16(llvm::Type *t) {
  auto *v = llvm::dyn_cast<llvm::FixedVectorType>(t);
  return v && v->getElementType()->isFloatTy() && v->getNumElements() == 16;
}

// Three 64-byte stack areas shared by the function's vector multiplies: both operands and the
// product, which vlda reads back.
struct LaneAreas {
  llvm::AllocaInst *lhs = nullptr, *rhs = nullptr, *product = nullptr;
};

// fmul <16 x float> as a loop over the lanes: store both operands, multiply lane by lane, load
// the product.
void multiplyVector(llvm::BinaryOperator &mul, LaneAreas &areas) {
  llvm::Function &f = *mul.getFunction();
  llvm::Type *vector = mul.getType();
  if (!areas.lhs) {
    llvm::IRBuilder<> entry(&*f.getEntryBlock().getFirstInsertionPt());
    auto area = [&](const char *name) {
      llvm::AllocaInst *a = entry.CreateAlloca(vector, nullptr, name);
      a->setAlignment(llvm::Align(64));
      return a;
    };
    areas = {area("fmul.lhs"), area("fmul.rhs"), area("fmul.product")};
  }
  llvm::BasicBlock *before = mul.getParent();
  llvm::BasicBlock *after = llvm::SplitBlock(before, &mul);
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(f.getContext(), "fmul.lanes", &f, after);
  before->getTerminator()->eraseFromParent();
  llvm::IRBuilder<> b(before);
  b.CreateAlignedStore(mul.getOperand(0), areas.lhs, llvm::Align(64));
  b.CreateAlignedStore(mul.getOperand(1), areas.rhs, llvm::Align(64));
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode *lane = b.CreatePHI(b.getInt32Ty(), 2, "lane");
  lane->addIncoming(b.getInt32(0), before);
  auto element = [&](llvm::AllocaInst *area) { return b.CreateInBoundsGEP(b.getFloatTy(), area, lane); };
  Value *x = b.CreateAlignedLoad(b.getFloatTy(), element(areas.lhs), llvm::Align(4));
  Value *y = b.CreateAlignedLoad(b.getFloatTy(), element(areas.rhs), llvm::Align(4));
  b.CreateAlignedStore(multiplyScalar(b, x, y), element(areas.product), llvm::Align(4));
  Value *next = b.CreateAdd(lane, b.getInt32(1), "", true, true);
  lane->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpEQ(next, b.getInt32(16)), after, loop);
  b.SetInsertPoint(&mul);
  mul.replaceAllUsesWith(b.CreateAlignedLoad(vector, areas.product, llvm::Align(64)));
  mul.eraseFromParent();
}

// fpext of a loaded bf16 to float: bf16 is the high half of a binary32, so the widening is
// exact as a 16-bit load shifted left by 16 (NaN payloads included).
void widenLoadedBf16(llvm::Function &f) {
  std::vector<llvm::FPExtInst *> widenings;
  for (llvm::BasicBlock &block : f)
    for (llvm::Instruction &i : block)
      if (auto *ext = llvm::dyn_cast<llvm::FPExtInst>(&i); ext && ext->getType()->isFloatTy() &&
                                                           ext->getOperand(0)->getType()->isBFloatTy() &&
                                                           llvm::isa<llvm::LoadInst>(ext->getOperand(0)))
        widenings.push_back(ext);
  for (llvm::FPExtInst *ext : widenings) {
    auto *load = llvm::cast<llvm::LoadInst>(ext->getOperand(0));
    llvm::IRBuilder<> b(load);
    llvm::LoadInst *half =
        b.CreateAlignedLoad(b.getInt16Ty(), load->getPointerOperand(), load->getAlign(), load->isVolatile());
    half->setOrdering(load->getOrdering());
    b.SetInsertPoint(ext);
    Value *bits = b.CreateShl(b.CreateZExt(half, b.getInt32Ty()), b.getInt32(16));
    ext->replaceAllUsesWith(b.CreateBitCast(bits, b.getFloatTy()));
    ext->eraseFromParent();
    if (load->use_empty()) load->eraseFromParent();
  }
}

}  // namespace

void lowerFloatForAie2p(llvm::Function &f) {
  widenLoadedBf16(f);
  std::vector<llvm::Instruction *> work;
  for (llvm::BasicBlock &block : f)
    for (llvm::Instruction &i : block) work.push_back(&i);
  unsigned multiplies = 0;
  for (llvm::Instruction *i : work) {
    auto *ii = llvm::dyn_cast<llvm::IntrinsicInst>(i);
    if ((i->getOpcode() == llvm::Instruction::FMul || (ii && ii->getIntrinsicID() == llvm::Intrinsic::fmuladd)) &&
        (i->getType()->isFloatTy() || isFloatVector16(i->getType())))
      ++multiplies;
  }
  const bool expandMultiplies = multiplies <= kMaxExpandedFloatMultiplies;
  std::vector<llvm::BinaryOperator *> vectorMultiplies;
  for (llvm::Instruction *i : work) {
    llvm::Type *t = i->getType();
    if (!t->isFloatTy() && !isFloatVector16(t)) continue;
    llvm::IRBuilder<> b(i);
    if (auto *ii = llvm::dyn_cast<llvm::IntrinsicInst>(i);
        ii && ii->getIntrinsicID() == llvm::Intrinsic::fmuladd && expandMultiplies) {
      auto *product = llvm::cast<llvm::BinaryOperator>(b.CreateFMul(ii->getArgOperand(0), ii->getArgOperand(1)));
      ii->replaceAllUsesWith(b.CreateFAdd(product, ii->getArgOperand(2)));
      ii->eraseFromParent();
      i = product;
    }
    auto *bin = llvm::dyn_cast<llvm::BinaryOperator>(i);
    if (bin && bin->getOpcode() == llvm::Instruction::FMul && expandMultiplies) {
      if (isFloatVector16(t)) {
        vectorMultiplies.push_back(bin);
        continue;
      }
      b.SetInsertPoint(bin);
      bin->replaceAllUsesWith(multiplyScalar(b, bin->getOperand(0), bin->getOperand(1)));
      bin->eraseFromParent();
      continue;
    }
    if (auto *neg = llvm::dyn_cast<llvm::UnaryOperator>(i);
        neg && neg->getOpcode() == llvm::Instruction::FNeg && t->isFloatTy()) {
      Value *bits = b.CreateXor(b.CreateBitCast(neg->getOperand(0), b.getInt32Ty()), b.getInt32(0x80000000u));
      neg->replaceAllUsesWith(b.CreateBitCast(bits, t));
      neg->eraseFromParent();
    }
  }
  LaneAreas areas;
  for (llvm::BinaryOperator *mul : vectorMultiplies) multiplyVector(*mul, areas);
}

}  // namespace hrx::xdna
