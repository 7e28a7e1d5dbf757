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
void Lowering::Impl::lowerArith(const Operation &op, std::string_view name) {
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

llvm::Value *Lowering::Impl::arith(const Operation &op, std::string_view name) {
  llvm::IRBuilder<> &b = *b_;
  if (name == "cast") return indexCast(op);
  if (name == "bitfield.extractu" || name == "bitfield.extracts") {
    // The `width` bits at `offset`, moved to bit 0 and zero- or sign-extended to the result type.
    llvm::Value *x = operand(op, "in");
    int64_t offset = ir::integerAttr(op, "offset").value_or(0), width = ir::integerAttr(op, "width").value_or(1);
    llvm::Type *to = valueType(*op.result(0)->type(), &op);
    llvm::Type *field = b.getIntNTy(unsigned(width));
    if (auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType()))
      field = llvm::FixedVectorType::get(field, vt->getNumElements());
    llvm::Value *shifted = offset ? b.CreateLShr(x, llvm::ConstantInt::get(x->getType(), uint64_t(offset))) : x;
    llvm::Value *bits = b.CreateTrunc(shifted, field);
    return name == "bitfield.extracts" ? b.CreateSExtOrTrunc(bits, to) : b.CreateZExtOrTrunc(bits, to);
  }
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
    if (name == "logisticf" || name == "siluf") {
      // logistic(x) = 1 / (1 + exp(-x)); silu(x) = x * logistic(x), computed as x / (1 + exp(-x)).
      llvm::Value *one = llvm::ConstantFP::get(x->getType(), 1.0);
      llvm::Value *denominator = b.CreateFAdd(one, intrinsic(llvm::Intrinsic::exp, {b.CreateFNeg(x)}));
      return b.CreateFDiv(name == "siluf" ? x : one, denominator);
    }
    if (name == "signi") {  // -1, 0 or 1
      llvm::Type *t = x->getType();
      return b.CreateBinaryIntrinsic(
          llvm::Intrinsic::smin, b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, llvm::ConstantInt::getSigned(t, -1)),
          llvm::ConstantInt::get(t, 1));
    }
    if (name == "signf") {  // -1.0, 1.0, or x itself for +-0 and NaN
      llvm::Type *t = x->getType();
      llvm::Value *one = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, llvm::ConstantFP::get(t, 1.0), x);
      return b.CreateSelect(b.CreateFCmpUEQ(x, llvm::ConstantFP::get(t, 0.0)), x, one);
    }
    if (name == "rsqrtf")
      return b.CreateFDiv(llvm::ConstantFP::get(x->getType(), 1.0), intrinsic(llvm::Intrinsic::sqrt, {x}));
    if (name == "isnanf") return b.CreateFCmpUNO(x, x);
    if (name == "isinff")
      return b.CreateFCmpOEQ(intrinsic(llvm::Intrinsic::fabs, {x}), llvm::ConstantFP::getInfinity(x->getType()));
    if (name == "isfinitef")
      return b.CreateFCmpONE(intrinsic(llvm::Intrinsic::fabs, {x}), llvm::ConstantFP::getInfinity(x->getType()));
    // The AMDGPU backend has no device math library: the hyperbolic functions are expanded from
    // exp (not correctly rounded), the inverse and tangent functions are not lowered (LINK/040).
    if (!options_.deviceMathLibrary) {
      llvm::Type *t = x->getType();
      if (name == "tanhf") {  // sign(x) * (1 - 2 / (exp(2|x|) + 1))
        llvm::Value *ax = intrinsic(llvm::Intrinsic::fabs, {x});
        llvm::Value *e = intrinsic(llvm::Intrinsic::exp, {b.CreateFMul(ax, llvm::ConstantFP::get(t, 2.0))});
        llvm::Value *r =
            b.CreateFSub(llvm::ConstantFP::get(t, 1.0),
                         b.CreateFDiv(llvm::ConstantFP::get(t, 2.0), b.CreateFAdd(e, llvm::ConstantFP::get(t, 1.0))));
        return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, r, x);
      }
      if (name == "sinhf" || name == "coshf") {  // (exp(x) -/+ exp(-x)) / 2
        llvm::Value *p = intrinsic(llvm::Intrinsic::exp, {x}), *m = intrinsic(llvm::Intrinsic::exp, {b.CreateFNeg(x)});
        llvm::Value *sum = name == "sinhf" ? b.CreateFSub(p, m) : b.CreateFAdd(p, m);
        return b.CreateFMul(sum, llvm::ConstantFP::get(t, 0.5));
      }
      if (name == "tanf" || name == "asinf" || name == "acosf" || name == "atanf")
        unsupported(op, "the AMDGPU targets have no device math library for '" + std::string(name) + "'");
    }
    static const std::map<std::string_view, llvm::Intrinsic::ID> unary = {
        {"absf", llvm::Intrinsic::fabs},    {"expf", llvm::Intrinsic::exp},
        {"exp2f", llvm::Intrinsic::exp2},   {"logf", llvm::Intrinsic::log},
        {"log2f", llvm::Intrinsic::log2},   {"log10f", llvm::Intrinsic::log10},
        {"sqrtf", llvm::Intrinsic::sqrt},   {"sinf", llvm::Intrinsic::sin},
        {"cosf", llvm::Intrinsic::cos},     {"tanf", llvm::Intrinsic::tan},
        {"asinf", llvm::Intrinsic::asin},   {"acosf", llvm::Intrinsic::acos},
        {"atanf", llvm::Intrinsic::atan},   {"sinhf", llvm::Intrinsic::sinh},
        {"coshf", llvm::Intrinsic::cosh},   {"tanhf", llvm::Intrinsic::tanh},
        {"ceilf", llvm::Intrinsic::ceil},   {"floorf", llvm::Intrinsic::floor},
        {"roundf", llvm::Intrinsic::round}, {"roundevenf", llvm::Intrinsic::roundeven},
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
      {"min", llvm::Intrinsic::smin},           {"minsi", llvm::Intrinsic::smin},
      {"max", llvm::Intrinsic::smax},           {"maxsi", llvm::Intrinsic::smax},
      {"minui", llvm::Intrinsic::umin},         {"maxui", llvm::Intrinsic::umax},
      {"minimumf", llvm::Intrinsic::minimum},   {"maximumf", llvm::Intrinsic::maximum},
      {"minnumf", llvm::Intrinsic::minnum},     {"maxnumf", llvm::Intrinsic::maxnum},
      {"copysignf", llvm::Intrinsic::copysign}, {"powf", llvm::Intrinsic::pow},
      {"atan2f", llvm::Intrinsic::atan2}};
  if (name == "atan2f" && !options_.deviceMathLibrary)
    unsupported(op, "the AMDGPU targets have no device math library for 'atan2f'");
  if (auto it = binaryIntrinsics.find(name); it != binaryIntrinsics.end())
    return b.CreateBinaryIntrinsic(it->second, l, r);
  if (name == "rotli" || name == "rotri")
    return b.CreateIntrinsic(name == "rotli" ? llvm::Intrinsic::fshl : llvm::Intrinsic::fshr, {l->getType()},
                             {l, l, r});
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
    llvm::Value *adjust =
        name == "ceildivsi" ? b.CreateAnd(inexact, sameSign) : b.CreateAnd(inexact, b.CreateNot(sameSign));
    llvm::Value *delta = llvm::ConstantInt::get(l->getType(), name == "ceildivsi" ? 1 : uint64_t(-1), true);
    return b.CreateSelect(adjust, b.CreateAdd(q, delta), q);
  }
  return nullptr;
}

// f32 → bf16 keeps the top 16 bits (truncation, as the product does); other narrowings round
// to nearest even.
llvm::Value *Lowering::Impl::truncateFloat(llvm::Value *x, llvm::Type *to) {
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
