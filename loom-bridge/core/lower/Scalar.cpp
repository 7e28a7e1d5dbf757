// Lowering of index.* and scalar.* ops (and the lane-wise arithmetic vector.* shares), config.get.
#include "LoweringImpl.h"

namespace hrx::bridge {

void Lowering::Impl::lowerConfigGet(const Operation &op) {
  auto it = program_.config.find(ir::symbolRef(op));
  if (it == program_.config.end()) unsupported(op, "the configuration value is not bound");
  llvm::Type *type = valueType(*op.result(0)->type(), &op);
  set(op, 0,
      it->second.isFloat ? llvm::ConstantFP::get(type, it->second.floating)
                         : llvm::ConstantInt::get(type, uint64_t(it->second.integer), true));
}

llvm::Constant *Lowering::Impl::literal(const Operation &op, llvm::Type *type) {
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
  if (auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(type))
    return llvm::ConstantVector::getSplat(vt->getElementCount(), c);
  return c;
}

std::optional<llvm::CmpInst::Predicate> Lowering::Impl::intPredicate(std::string_view p) {
  static const std::map<std::string_view, llvm::CmpInst::Predicate> table = {
      {"eq", llvm::CmpInst::ICMP_EQ},   {"ne", llvm::CmpInst::ICMP_NE},   {"slt", llvm::CmpInst::ICMP_SLT},
      {"sle", llvm::CmpInst::ICMP_SLE}, {"sgt", llvm::CmpInst::ICMP_SGT}, {"sge", llvm::CmpInst::ICMP_SGE},
      {"ult", llvm::CmpInst::ICMP_ULT}, {"ule", llvm::CmpInst::ICMP_ULE}, {"ugt", llvm::CmpInst::ICMP_UGT},
      {"uge", llvm::CmpInst::ICMP_UGE}};
  auto it = table.find(p);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

std::optional<llvm::CmpInst::Predicate> Lowering::Impl::floatPredicate(std::string_view p) {
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

// Fast-math flags from the op's template (`<fast>`, `<nnan|ninf>`, `<reassoc>`).
llvm::FastMathFlags Lowering::Impl::fastMath(const Operation &op) {
  llvm::FastMathFlags flags;
  for (std::string_view s : templateFlags(op)) {
    if (s == "fast") flags.setFast();
    if (s == "reassoc") flags.setAllowReassoc();
    if (s == "nnan") flags.setNoNaNs();
    if (s == "ninf") flags.setNoInfs();
    if (s == "nsz") flags.setNoSignedZeros();
    if (s == "arcp") flags.setAllowReciprocal();
    if (s == "contract") flags.setAllowContract();
    if (s == "afn") flags.setApproxFunc();
  }
  return flags;
}

// Arithmetic shared by index.*, scalar.* and the lane-wise vector.* ops, dispatched by op id: one
// case lists the index, scalar and vector rows that lower alike.
void Lowering::Impl::lowerArith(const Operation &op) {
  using loom::OpCode;
  llvm::IRBuilder<>::FastMathFlagGuard guard(*b_);
  b_->setFastMathFlags(fastMath(op));
  switch (op.opcode()) {
  case OpCode::IndexConstant:
  case OpCode::ScalarConstant: return set(op, 0, literal(op, valueType(*op.result(0)->type(), &op)));
  case OpCode::ScalarPoison: return set(op, 0, llvm::PoisonValue::get(valueType(*op.result(0)->type(), &op)));
  case OpCode::IndexAssume:
  case OpCode::ScalarAssume:
    for (unsigned i = 0; i < op.numResults(); ++i) lowered(op.result(i)) = lowered(op.operand(i));
    return;
  default: break;
  }
  if (llvm::Value *r = arith(op)) return set(op, 0, r);
  unsupported(op, "no lowering for this op");
}

namespace {

using loom::OpCode;

// The LLVM intrinsic of a one-operand floating-point row, if it is one.
std::optional<llvm::Intrinsic::ID> unaryFloatIntrinsic(OpCode code) {
  switch (code) {
  case OpCode::ScalarAbsf:
  case OpCode::VectorAbsf: return llvm::Intrinsic::fabs;
  case OpCode::ScalarExpf:
  case OpCode::VectorExpf: return llvm::Intrinsic::exp;
  case OpCode::ScalarExp2f: return llvm::Intrinsic::exp2;
  case OpCode::ScalarLogf: return llvm::Intrinsic::log;
  case OpCode::ScalarLog2f: return llvm::Intrinsic::log2;
  case OpCode::ScalarLog10f: return llvm::Intrinsic::log10;
  case OpCode::ScalarSqrtf:
  case OpCode::VectorSqrtf: return llvm::Intrinsic::sqrt;
  case OpCode::ScalarSinf:
  case OpCode::VectorSinf: return llvm::Intrinsic::sin;
  case OpCode::ScalarCosf:
  case OpCode::VectorCosf: return llvm::Intrinsic::cos;
  case OpCode::ScalarTanf: return llvm::Intrinsic::tan;
  case OpCode::ScalarAsinf: return llvm::Intrinsic::asin;
  case OpCode::ScalarAcosf: return llvm::Intrinsic::acos;
  case OpCode::ScalarAtanf: return llvm::Intrinsic::atan;
  case OpCode::ScalarSinhf: return llvm::Intrinsic::sinh;
  case OpCode::ScalarCoshf: return llvm::Intrinsic::cosh;
  case OpCode::ScalarTanhf:
  case OpCode::VectorTanhf: return llvm::Intrinsic::tanh;
  case OpCode::ScalarCeilf:
  case OpCode::VectorCeilf: return llvm::Intrinsic::ceil;
  case OpCode::ScalarFloorf:
  case OpCode::VectorFloorf: return llvm::Intrinsic::floor;
  case OpCode::ScalarRoundf:
  case OpCode::VectorRoundf: return llvm::Intrinsic::round;
  case OpCode::ScalarRoundevenf:
  case OpCode::VectorRoundevenf: return llvm::Intrinsic::roundeven;
  case OpCode::ScalarTruncf:
  case OpCode::VectorTruncf: return llvm::Intrinsic::trunc;
  default: return std::nullopt;
  }
}

// The LLVM instruction of a two-operand row that is one (integer ops signed unless `ui`).
std::optional<llvm::Instruction::BinaryOps> binaryInstruction(OpCode code) {
  switch (code) {
  case OpCode::IndexAdd:
  case OpCode::ScalarAddi:
  case OpCode::VectorAddi: return llvm::Instruction::Add;
  case OpCode::IndexSub:
  case OpCode::ScalarSubi:
  case OpCode::VectorSubi: return llvm::Instruction::Sub;
  case OpCode::IndexMul:
  case OpCode::IndexScale:
  case OpCode::ScalarMuli:
  case OpCode::VectorMuli: return llvm::Instruction::Mul;
  case OpCode::IndexDiv:
  case OpCode::ScalarDivsi: return llvm::Instruction::SDiv;
  case OpCode::ScalarDivui: return llvm::Instruction::UDiv;
  case OpCode::IndexRem: return llvm::Instruction::SRem;
  case OpCode::ScalarRemui: return llvm::Instruction::URem;
  case OpCode::IndexAndi:
  case OpCode::ScalarAndi:
  case OpCode::VectorAndi: return llvm::Instruction::And;
  case OpCode::IndexOri:
  case OpCode::ScalarOri:
  case OpCode::VectorOri: return llvm::Instruction::Or;
  case OpCode::IndexXori:
  case OpCode::ScalarXori:
  case OpCode::VectorXori: return llvm::Instruction::Xor;
  case OpCode::IndexShli:
  case OpCode::ScalarShli:
  case OpCode::VectorShli: return llvm::Instruction::Shl;
  case OpCode::IndexShrsi:
  case OpCode::ScalarShrsi:
  case OpCode::VectorShrsi: return llvm::Instruction::AShr;
  case OpCode::IndexShrui:
  case OpCode::ScalarShrui:
  case OpCode::VectorShrui: return llvm::Instruction::LShr;
  case OpCode::ScalarAddf:
  case OpCode::VectorAddf: return llvm::Instruction::FAdd;
  case OpCode::ScalarSubf:
  case OpCode::VectorSubf: return llvm::Instruction::FSub;
  case OpCode::ScalarMulf:
  case OpCode::VectorMulf: return llvm::Instruction::FMul;
  case OpCode::ScalarDivf:
  case OpCode::VectorDivf: return llvm::Instruction::FDiv;
  case OpCode::ScalarRemf: return llvm::Instruction::FRem;
  default: return std::nullopt;
  }
}

// The LLVM intrinsic of a two-operand row that is one.
std::optional<llvm::Intrinsic::ID> binaryIntrinsic(OpCode code) {
  switch (code) {
  case OpCode::IndexMin:
  case OpCode::ScalarMinsi:
  case OpCode::VectorMinsi: return llvm::Intrinsic::smin;
  case OpCode::IndexMax:
  case OpCode::ScalarMaxsi:
  case OpCode::VectorMaxsi: return llvm::Intrinsic::smax;
  case OpCode::ScalarMinui:
  case OpCode::VectorMinui: return llvm::Intrinsic::umin;
  case OpCode::ScalarMaxui:
  case OpCode::VectorMaxui: return llvm::Intrinsic::umax;
  case OpCode::ScalarMinimumf:
  case OpCode::VectorMinimumf: return llvm::Intrinsic::minimum;
  case OpCode::ScalarMaximumf:
  case OpCode::VectorMaximumf: return llvm::Intrinsic::maximum;
  case OpCode::ScalarMinnumf:
  case OpCode::VectorMinnumf: return llvm::Intrinsic::minnum;
  case OpCode::ScalarMaxnumf:
  case OpCode::VectorMaxnumf: return llvm::Intrinsic::maxnum;
  case OpCode::ScalarCopysignf:
  case OpCode::VectorCopysignf: return llvm::Intrinsic::copysign;
  case OpCode::ScalarPowf: return llvm::Intrinsic::pow;
  case OpCode::ScalarAtan2f: return llvm::Intrinsic::atan2;
  default: return std::nullopt;
  }
}

}  // namespace

llvm::Value *Lowering::Impl::arith(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  const OpCode code = op.opcode();
  switch (code) {
  case OpCode::IndexCast: return indexCast(op);
  case OpCode::ScalarBitfieldExtractu:
  case OpCode::ScalarBitfieldExtracts:
  case OpCode::VectorBitfieldExtractu:
  case OpCode::VectorBitfieldExtracts: {
    // The `width` bits at `offset`, moved to bit 0 and zero- or sign-extended to the result type.
    llvm::Value *x = operand(op, "in");
    int64_t offset = ir::integerAttr(op, "offset").value_or(0), width = ir::integerAttr(op, "width").value_or(1);
    llvm::Type *to = valueType(*op.result(0)->type(), &op);
    llvm::Type *field = b.getIntNTy(unsigned(width));
    if (auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType()))
      field = llvm::FixedVectorType::get(field, vt->getNumElements());
    llvm::Value *shifted = offset ? b.CreateLShr(x, llvm::ConstantInt::get(x->getType(), uint64_t(offset))) : x;
    llvm::Value *bits = b.CreateTrunc(shifted, field);
    bool isSigned = code == OpCode::ScalarBitfieldExtracts || code == OpCode::VectorBitfieldExtracts;
    return isSigned ? b.CreateSExtOrTrunc(bits, to) : b.CreateZExtOrTrunc(bits, to);
  }
  case OpCode::IndexCmp:
  case OpCode::ScalarCmpi:
  case OpCode::VectorCmpi:
  case OpCode::ScalarCmpf:
  case OpCode::VectorCmpf: {
    const loom::Attribute *p = op.attr("predicate");
    std::string_view spelling = p ? p->str() : "";
    llvm::Value *l = operand(op, "lhs"), *r = operand(op, "rhs");
    if (code == OpCode::ScalarCmpf || code == OpCode::VectorCmpf) {
      auto pred = floatPredicate(spelling);
      if (!pred) unsupported(op, "unknown predicate '" + std::string(spelling) + "'");
      return b.CreateFCmp(*pred, l, r);
    }
    auto pred = intPredicate(spelling);
    if (!pred) unsupported(op, "unknown predicate '" + std::string(spelling) + "'");
    return b.CreateICmp(*pred, l, r);
  }
  case OpCode::ScalarFmaf:
  case OpCode::VectorFmaf:
    return intrinsic(llvm::Intrinsic::fma, {operand(op, "a"), operand(op, "b"), operand(op, "c")});
  case OpCode::IndexMadd:
  case OpCode::ScalarFmai: return b.CreateAdd(b.CreateMul(operand(op, "a"), operand(op, "b")), operand(op, "c"));
  case OpCode::IndexRotli:
  case OpCode::ScalarRotli:
  case OpCode::IndexRotri:
  case OpCode::ScalarRotri: {
    llvm::Value *l = operand(op, "lhs"), *r = operand(op, "rhs");
    bool left = code == OpCode::IndexRotli || code == OpCode::ScalarRotli;
    return b.CreateIntrinsic(left ? llvm::Intrinsic::fshl : llvm::Intrinsic::fshr, {l->getType()}, {l, l, r});
  }
  case OpCode::ScalarCeildivui: {
    llvm::Value *l = operand(op, "lhs"), *r = operand(op, "rhs");
    llvm::Value *one = llvm::ConstantInt::get(l->getType(), 1);
    return b.CreateSelect(b.CreateICmpEQ(l, llvm::Constant::getNullValue(l->getType())), l,
                          b.CreateAdd(b.CreateUDiv(b.CreateSub(l, one), r), one));
  }
  case OpCode::ScalarCeildivsi:
  case OpCode::ScalarFloordivsi: {
    // Round the truncated quotient toward +inf / -inf when the remainder is nonzero.
    llvm::Value *l = operand(op, "lhs"), *r = operand(op, "rhs");
    llvm::Value *q = b.CreateSDiv(l, r), *rem = b.CreateSRem(l, r);
    llvm::Value *zero = llvm::Constant::getNullValue(l->getType());
    llvm::Value *sameSign = b.CreateICmpEQ(b.CreateICmpSLT(l, zero), b.CreateICmpSLT(r, zero));
    llvm::Value *inexact = b.CreateICmpNE(rem, zero);
    bool ceil = code == OpCode::ScalarCeildivsi;
    llvm::Value *adjust = ceil ? b.CreateAnd(inexact, sameSign) : b.CreateAnd(inexact, b.CreateNot(sameSign));
    llvm::Value *delta = llvm::ConstantInt::get(l->getType(), ceil ? 1 : uint64_t(-1), true);
    return b.CreateSelect(adjust, b.CreateAdd(q, delta), q);
  }
  case OpCode::ScalarRemsi: {
    // The signed minimum's remainder by -1 is 0 (upstream's numeric/integer/division.loom); LLVM's
    // srem leaves it undefined and x86's idiv traps, so a divisor of -1 divides by 1.
    llvm::Value *l = operand(op, "lhs"), *r = operand(op, "rhs");
    llvm::Value *minusOne = llvm::Constant::getAllOnesValue(r->getType());
    llvm::Value *one = llvm::ConstantInt::get(r->getType(), 1);
    return b.CreateSRem(l, b.CreateSelect(b.CreateICmpEQ(r, minusOne), one, r));
  }
  default: break;
  }
  if (auto instruction = binaryInstruction(code))
    return b.CreateBinOp(*instruction, operand(op, "lhs"), operand(op, "rhs"));
  if (auto id = binaryIntrinsic(code)) {
    if (code == OpCode::ScalarAtan2f && !options_.deviceMathLibrary)
      unsupported(op, "the AMDGPU targets have no device math library for 'atan2f'");
    return b.CreateBinaryIntrinsic(*id, operand(op, "lhs"), operand(op, "rhs"));
  }
  return unaryArith(op);
}

// The one-operand rows (`in`): conversions, integer bit counts and the float functions.
llvm::Value *Lowering::Impl::unaryArith(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  const OpCode code = op.opcode();
  const Value *in = op.operandNamed("in");
  if (!in || op.numOperands() != 1) return nullptr;
  llvm::Value *x = get(in);
  llvm::Type *to = op.numResults() ? valueType(*op.result(0)->type(), &op) : nullptr;
  llvm::Type *t = x->getType();
  switch (code) {
  case OpCode::ScalarExtsi:
  case OpCode::VectorExtsi: return b.CreateSExt(x, to);
  case OpCode::ScalarExtui:
  case OpCode::VectorExtui: return b.CreateZExt(x, to);
  case OpCode::ScalarTrunci:
  case OpCode::VectorTrunci: return b.CreateTrunc(x, to);
  case OpCode::ScalarExtf:
  case OpCode::VectorExtf: return extendFloat(x, to);
  case OpCode::ScalarFptrunc:
  case OpCode::VectorFptrunc: return truncateFloat(x, to);
  case OpCode::ScalarSitofp:
  case OpCode::VectorSitofp: return b.CreateSIToFP(x, to);
  case OpCode::ScalarUitofp:
  case OpCode::VectorUitofp: return b.CreateUIToFP(x, to);
  case OpCode::ScalarFptosi:
  case OpCode::VectorFptosi: return b.CreateFPToSI(x, to);
  case OpCode::ScalarFptoui:
  case OpCode::VectorFptoui: return b.CreateFPToUI(x, to);
  case OpCode::ScalarBitcast:
  case OpCode::VectorBitcast: return b.CreateBitCast(x, to);
  case OpCode::ScalarNegi: return b.CreateNeg(x);
  case OpCode::ScalarAbsi: return b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, b.getFalse());
  case OpCode::IndexCtlzi:
  case OpCode::ScalarCtlzi: return b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x, b.getFalse());
  case OpCode::IndexCttzi:
  case OpCode::ScalarCttzi: return b.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, x, b.getFalse());
  case OpCode::IndexCtpopi:
  case OpCode::ScalarCtpopi: return intrinsic(llvm::Intrinsic::ctpop, {x});
  case OpCode::ScalarNegf:
  case OpCode::VectorNegf: return b.CreateFNeg(x);
  case OpCode::ScalarLogisticf:
  case OpCode::ScalarSiluf:
  case OpCode::VectorSiluf: {
    // logistic(x) = 1 / (1 + exp(-x)); silu(x) = x * logistic(x), computed as x / (1 + exp(-x)).
    llvm::Value *one = llvm::ConstantFP::get(t, 1.0);
    llvm::Value *denominator = b.CreateFAdd(one, intrinsic(llvm::Intrinsic::exp, {b.CreateFNeg(x)}));
    return b.CreateFDiv(code == OpCode::ScalarLogisticf ? one : x, denominator);
  }
  case OpCode::ScalarSigni:  // -1, 0 or 1
    return b.CreateBinaryIntrinsic(
        llvm::Intrinsic::smin, b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, llvm::ConstantInt::getSigned(t, -1)),
        llvm::ConstantInt::get(t, 1));
  case OpCode::ScalarSignf: {  // -1.0, 1.0, or x itself for +-0 and NaN
    llvm::Value *one = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, llvm::ConstantFP::get(t, 1.0), x);
    return b.CreateSelect(b.CreateFCmpUEQ(x, llvm::ConstantFP::get(t, 0.0)), x, one);
  }
  case OpCode::ScalarRsqrtf:
  case OpCode::VectorRsqrtf: return b.CreateFDiv(llvm::ConstantFP::get(t, 1.0), intrinsic(llvm::Intrinsic::sqrt, {x}));
  case OpCode::ScalarSinturnsf:
  case OpCode::ScalarCosturnsf: {
    // sin/cos(2π·x) with x in turns. The whole turns are removed first (exactly, in x's type), so
    // the multiplication by 2π only sees |r| <= 1/2.
    llvm::Value *r = b.CreateFSub(x, intrinsic(llvm::Intrinsic::roundeven, {x}));
    llvm::Value *radians = b.CreateFMul(r, llvm::ConstantFP::get(t, 6.283185307179586));
    return intrinsic(code == OpCode::ScalarSinturnsf ? llvm::Intrinsic::sin : llvm::Intrinsic::cos, {radians});
  }
  case OpCode::ScalarIsnanf: return b.CreateFCmpUNO(x, x);
  case OpCode::ScalarIsinff:
    return b.CreateFCmpOEQ(intrinsic(llvm::Intrinsic::fabs, {x}), llvm::ConstantFP::getInfinity(t));
  case OpCode::ScalarIsfinitef:
    return b.CreateFCmpONE(intrinsic(llvm::Intrinsic::fabs, {x}), llvm::ConstantFP::getInfinity(t));
  default: break;
  }
  // The AMDGPU backend has no device math library: the hyperbolic functions are expanded from
  // exp (not correctly rounded), the inverse and tangent functions are not lowered (LINK/040).
  if (!options_.deviceMathLibrary) {
    switch (code) {
    case OpCode::ScalarTanhf:
    case OpCode::VectorTanhf: {  // sign(x) * (1 - 2 / (exp(2|x|) + 1))
      llvm::Value *ax = intrinsic(llvm::Intrinsic::fabs, {x});
      llvm::Value *e = intrinsic(llvm::Intrinsic::exp, {b.CreateFMul(ax, llvm::ConstantFP::get(t, 2.0))});
      llvm::Value *r =
          b.CreateFSub(llvm::ConstantFP::get(t, 1.0),
                       b.CreateFDiv(llvm::ConstantFP::get(t, 2.0), b.CreateFAdd(e, llvm::ConstantFP::get(t, 1.0))));
      return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, r, x);
    }
    case OpCode::ScalarSinhf:
    case OpCode::ScalarCoshf: {  // (exp(x) -/+ exp(-x)) / 2
      llvm::Value *p = intrinsic(llvm::Intrinsic::exp, {x}), *m = intrinsic(llvm::Intrinsic::exp, {b.CreateFNeg(x)});
      llvm::Value *sum = code == OpCode::ScalarSinhf ? b.CreateFSub(p, m) : b.CreateFAdd(p, m);
      return b.CreateFMul(sum, llvm::ConstantFP::get(t, 0.5));
    }
    case OpCode::ScalarTanf:
    case OpCode::ScalarAsinf:
    case OpCode::ScalarAcosf:
    case OpCode::ScalarAtanf:
      unsupported(op, "the AMDGPU targets have no device math library for '" +
                          std::string(op.name().substr(op.name().find('.') + 1)) + "'");
    default: break;
    }
  }
  if (auto id = unaryFloatIntrinsic(code)) return intrinsic(*id, {x});
  return nullptr;
}

// Every float narrowing rounds to nearest even, as IEEE and upstream Loom do. f32 → bf16 is
// spelled in integer ops so no target needs a conversion libcall (x86 without AVX512-BF16 calls
// __truncsfbf2): add 0x7fff plus the kept LSB, keep the top half; a NaN keeps its sign and top
// payload bits and is made quiet, so it never rounds into an infinity.
llvm::Value *Lowering::Impl::truncateFloat(llvm::Value *x, llvm::Type *to) {
  llvm::IRBuilder<> &b = *b_;
  if (!to->getScalarType()->isBFloatTy()) return b.CreateFPTrunc(x, to);
  llvm::Type *i32 = b.getInt32Ty(), *i16 = b.getInt16Ty(), *f32 = b.getFloatTy();
  if (auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType())) {
    i32 = llvm::FixedVectorType::get(i32, vt->getNumElements());
    i16 = llvm::FixedVectorType::get(i16, vt->getNumElements());
    f32 = llvm::FixedVectorType::get(f32, vt->getNumElements());
  }
  // f64 goes through f32 (the nearest f32, then the nearest bf16 of it); f16 widens exactly.
  if (!x->getType()->getScalarType()->isFloatTy()) x = b.CreateFPCast(x, f32);
  auto constant = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  llvm::Value *bits = b.CreateBitCast(x, i32);
  llvm::Value *keptLsb = b.CreateAnd(b.CreateLShr(bits, constant(16)), constant(1));
  llvm::Value *rounded = b.CreateLShr(b.CreateAdd(bits, b.CreateAdd(keptLsb, constant(0x7fff))), constant(16));
  llvm::Value *quietNan = b.CreateOr(b.CreateLShr(bits, constant(16)), constant(0x40));
  // NaN by its bits (an fcmp could fold into a compare of a narrower source; see Float8.cpp).
  llvm::Value *isNan = b.CreateICmpUGT(b.CreateAnd(bits, constant(0x7fffffff)), constant(0x7f800000));
  return b.CreateBitCast(b.CreateTrunc(b.CreateSelect(isNan, quietNan, rounded), i16), to);
}

// bf16 widens exactly by placing its bits in the top half of an f32. Spelled in integer ops so no
// bfloat vector reaches x86 code generation, which (without AVX512-BF16) legalizes some of them
// through __truncsfbf2 calls the host code cannot import.
llvm::Value *Lowering::Impl::extendFloat(llvm::Value *x, llvm::Type *to) {
  llvm::IRBuilder<> &b = *b_;
  if (!x->getType()->getScalarType()->isBFloatTy()) return b.CreateFPExt(x, to);
  llvm::Type *i16 = b.getInt16Ty(), *i32 = b.getInt32Ty(), *f32 = b.getFloatTy();
  if (auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType())) {
    i16 = llvm::FixedVectorType::get(i16, vt->getNumElements());
    i32 = llvm::FixedVectorType::get(i32, vt->getNumElements());
    f32 = llvm::FixedVectorType::get(f32, vt->getNumElements());
  }
  llvm::Value *wide = b.CreateShl(b.CreateZExt(b.CreateBitCast(x, i16), i32), llvm::ConstantInt::get(i32, 16));
  llvm::Value *single = b.CreateBitCast(wide, f32);
  return single->getType() == to ? single : b.CreateFPExt(single, to);
}

llvm::Value *Lowering::Impl::indexCast(const Operation &op) {
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

}  // namespace hrx::bridge
