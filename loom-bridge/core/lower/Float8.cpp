// f8E4M3 (E4M3FN: no infinities, one NaN per sign) and f8E5M2 values on targets without fp8
// (and, through a conversion schema, E4M3, E4M3FNUZ and E5M2FNUZ payloads)
// hardware (gfx1151, the host): each is its byte (an i8), and the ops that give the bits a
// meaning are exact integer sequences, the same IR on every target, so the twin's bits are
// the GPU's. Ops that only move bits (memory, bitcasts, selects, shuffles, control flow) lower
// as for any i8; float arithmetic on fp8 values is refused by name.
#include "LoweringImpl.h"

#include <cmath>

namespace hrx::bridge {

namespace {
// How a format spends its top codes: IEEE-like (the top exponent holds infinities and NaNs), FN
// (no infinities; S.1111.111 is NaN) or FNUZ (no infinities, no negative zero; 0x80 is NaN).
enum class Specials { Ieee, FiniteNan, Fnuz };
struct Float8Format {
  unsigned mantissa;  // stored mantissa bits
  int bias;
  Specials specials;
  uint32_t maxFinite;  // the largest finite magnitude's code
  uint32_t quietNan;   // the code of the NaN this lowering produces (before the sign)
};
constexpr Float8Format kE4M3FN{3, 7, Specials::FiniteNan, 0x7e, 0x7f};
constexpr Float8Format kE5M2{2, 15, Specials::Ieee, 0x7b, 0x7f};

// The bare types: f8E4M3 is E4M3FN, f8E5M2 IEEE-like (patches/loom/README.md, LOOM-051).
const loom::Type *scalarOf(const loom::Type *t) {
  return t && t->kind() == loom::TypeKind::Vector ? t->elementType() : t;
}
std::optional<Float8Format> formatOf(const loom::Type *t) {
  t = scalarOf(t);
  if (!t || t->kind() != loom::TypeKind::Float) return std::nullopt;
  if (t->floatKind() == loom::FloatKind::F8E4M3) return kE4M3FN;
  if (t->floatKind() == loom::FloatKind::F8E5M2) return kE5M2;
  return std::nullopt;
}

// The format a conversion schema names (`#encoding.f8e4m3fnuz<...>`, or its element_format), which
// decides the payload bits' meaning over the payload type's default.
std::optional<Float8Format> formatOfSchema(const loom::Attribute *encoding) {
  if (!encoding) return std::nullopt;
  std::string_view name = encoding->str();
  if (const loom::Attribute *element = encoding->get("element_format")) name = element->str();
  if (name.starts_with("encoding.")) name.remove_prefix(9);
  static constexpr std::pair<std::string_view, Float8Format> kSchemas[] = {
      {"f8e4m3", {3, 7, Specials::Ieee, 0x77, 0x7f}},      {"f8e4m3fn", kE4M3FN},
      {"f8e4m3fnuz", {3, 8, Specials::Fnuz, 0x7f, 0x80}},  {"f8e5m2", kE5M2},
      {"f8e5m2fnuz", {2, 16, Specials::Fnuz, 0x7f, 0x80}},
  };
  for (const auto &[schema, format] : kSchemas)
    if (name == schema) return format;
  return std::nullopt;
}

// A splat of `v` when `like` is a vector type.
llvm::Value *splatLike(llvm::IRBuilder<> &b, llvm::Type *like, uint64_t v, llvm::Type *element) {
  llvm::Constant *c = llvm::ConstantInt::get(element, v);
  if (auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(like))
    return llvm::ConstantVector::getSplat(vt->getElementCount(), c);
  return c;
}
llvm::Type *withElement(llvm::Type *like, llvm::Type *element) {
  if (auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(like))
    return llvm::FixedVectorType::get(element, vt->getNumElements());
  return element;
}

// fp8 byte(s) → f32, exactly.
llvm::Value *decode(llvm::IRBuilder<> &b, llvm::Value *bytes, const Float8Format &f) {
  llvm::Type *i32 = withElement(bytes->getType(), b.getInt32Ty());
  llvm::Type *f32 = withElement(bytes->getType(), b.getFloatTy());
  auto k = [&](uint64_t v) { return splatLike(b, i32, v, b.getInt32Ty()); };
  llvm::Value *x = b.CreateZExt(bytes, i32);
  llvm::Value *sign = b.CreateShl(b.CreateLShr(x, k(7)), k(31));
  llvm::Value *exponent = b.CreateAnd(b.CreateLShr(x, k(f.mantissa)), k((1u << (7 - f.mantissa)) - 1));
  llvm::Value *mantissa = b.CreateAnd(x, k((1u << f.mantissa) - 1));
  // Normal: rebias the exponent, widen the mantissa.
  llvm::Value *normal = b.CreateOr(b.CreateShl(b.CreateAdd(exponent, k(uint64_t(127 - f.bias))), k(23)),
                                   b.CreateShl(mantissa, k(23 - f.mantissa)));
  // Subnormal: mantissa · 2^(1 - bias - mantissa bits), exact in f32.
  double scale = std::ldexp(1.0, 1 - f.bias - int(f.mantissa));
  llvm::Value *tiny =
      b.CreateBitCast(b.CreateFMul(b.CreateUIToFP(mantissa, f32), llvm::ConstantFP::get(f32, scale)), i32);
  llvm::Value *magnitude = b.CreateSelect(b.CreateICmpEQ(exponent, k(0)), tiny, normal);
  uint32_t top = (1u << (7 - f.mantissa)) - 1;
  llvm::Value *special = f.specials == Specials::Ieee        ? b.CreateICmpEQ(exponent, k(top))
                         : f.specials == Specials::FiniteNan ? b.CreateICmpEQ(b.CreateAnd(x, k(0x7f)), k(0x7f))
                                                             : b.CreateICmpEQ(x, k(0x80));
  llvm::Value *specialBits = f.specials == Specials::Ieee
                                 ? b.CreateSelect(b.CreateICmpEQ(mantissa, k(0)), k(0x7f800000), k(0x7fc00000))
                                 : k(0x7fc00000);
  magnitude = b.CreateSelect(special, specialBits, magnitude);
  // FNUZ's NaN is its only code with the sign bit and a zero magnitude: it carries no sign.
  if (f.specials == Specials::Fnuz) sign = b.CreateSelect(special, k(0), sign);
  return b.CreateBitCast(b.CreateOr(sign, magnitude), f32);
}

// f32 → fp8 byte(s), rounded to nearest even. Overflow saturates (E4M3FN) or gives infinity (E5M2),
// or the largest finite value when `saturate` (rounding = finite_only).
llvm::Value *encode(llvm::IRBuilder<> &b, llvm::Value *x, const Float8Format &f, bool saturate) {
  llvm::Type *i32 = withElement(x->getType(), b.getInt32Ty());
  llvm::Type *i8 = withElement(x->getType(), b.getInt8Ty());
  auto k = [&](uint64_t v) { return splatLike(b, i32, v, b.getInt32Ty()); };
  llvm::Value *bits = b.CreateBitCast(x, i32);
  llvm::Value *sign = b.CreateAnd(b.CreateLShr(bits, k(24)), k(0x80));
  llvm::Value *absBits = b.CreateAnd(bits, k(0x7fffffff));
  llvm::Value *absolute = b.CreateBitCast(absBits, x->getType());
  unsigned drop = 23 - f.mantissa;
  // Normal range: round the f32 significand to `mantissa` bits (a carry may bump the exponent).
  llvm::Value *lsb = b.CreateAnd(b.CreateLShr(absBits, k(drop)), k(1));
  llvm::Value *rounded = b.CreateLShr(b.CreateAdd(absBits, b.CreateAdd(k((1u << (drop - 1)) - 1), lsb)), k(drop));
  llvm::Value *normal = b.CreateSub(rounded, k(uint64_t(127 - f.bias) << f.mantissa));
  // Below the smallest normal: count steps of the subnormal spacing, rounded to even (a result
  // of 2^mantissa is the smallest normal's code, as it should be).
  int minNormalExponent = 1 - f.bias;
  double steps = std::ldexp(1.0, int(f.mantissa) - minNormalExponent);
  llvm::Value *scaled = b.CreateFMul(absolute, llvm::ConstantFP::get(x->getType(), steps));
  llvm::Value *tiny = b.CreateFPToUI(b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, scaled), i32);
  llvm::Value *isTiny =
      b.CreateFCmpOLT(absolute, llvm::ConstantFP::get(x->getType(), std::ldexp(1.0, minNormalExponent)));
  llvm::Value *code = b.CreateSelect(isTiny, tiny, normal);
  // Formats without infinities saturate, as upstream's conversions do; IEEE-like ones overflow to
  // the infinity code (the top exponent) unless `saturate`.
  bool ieee = f.specials == Specials::Ieee;
  uint32_t overflow = saturate || !ieee ? f.maxFinite : ((1u << (7 - f.mantissa)) - 1) << f.mantissa;
  code = b.CreateSelect(b.CreateICmpUGT(code, k(f.maxFinite)), k(overflow), code);
  code = b.CreateSelect(b.CreateICmpEQ(absBits, k(0x7f800000)), k(overflow), code);
  // FNUZ has no negative zero: a value rounding to zero is +0.
  if (f.specials == Specials::Fnuz) sign = b.CreateSelect(b.CreateICmpEQ(code, k(0)), k(0), sign);
  // NaN by its bits: an fcmp would fold through a widening fpext into a compare of the narrow
  // source, which x86 legalizes for bf16 with __truncsfbf2 calls the host code cannot import.
  llvm::Value *isNan = b.CreateICmpUGT(absBits, k(0x7f800000));
  code = b.CreateSelect(isNan, k(f.quietNan), code);
  if (f.specials == Specials::Fnuz) sign = b.CreateSelect(isNan, k(0), sign);
  return b.CreateTrunc(b.CreateOr(code, sign), i8);
}
}  // namespace

bool Lowering::Impl::touchesFloat8(const Operation &op) {
  for (const Value *v : op.operands())
    if (formatOf(v->type())) return true;
  for (unsigned i = 0; i < op.numResults(); ++i)
    if (formatOf(op.result(i)->type())) return true;
  return false;
}

bool Lowering::Impl::lowerFloat8(const Operation &op) {
  using loom::OpCode;
  llvm::IRBuilder<> &b = *b_;
  const loom::Type *resultType = op.numResults() ? op.result(0)->type() : nullptr;
  auto byte = [&](llvm::Value *v, uint64_t mask) { return splatLike(b, v->getType(), mask, b.getInt8Ty()); };
  switch (op.opcode()) {
  // Bits only: an fp8 value is its byte.
  case OpCode::ScalarBitcast:
  case OpCode::VectorBitcast:
  case OpCode::VectorLoad:
  case OpCode::VectorStore:
  case OpCode::VectorLoadMask:
  case OpCode::VectorStoreMask:
  case OpCode::VectorScatter:
  case OpCode::VectorSplat:
  case OpCode::VectorSelect:
  case OpCode::VectorExtract:
  case OpCode::VectorInsert:
  case OpCode::VectorFromElements:
  case OpCode::VectorBroadcast:
  case OpCode::VectorShuffle:
  case OpCode::KernelSubgroupBroadcast:
  case OpCode::KernelSubgroupShuffle: return false;
  case OpCode::ScalarNegf:
  case OpCode::VectorNegf: {
    llvm::Value *x = get(op.operand(0));
    set(op, 0, b.CreateXor(x, byte(x, 0x80)));
    return true;
  }
  case OpCode::ScalarAbsf:
  case OpCode::VectorAbsf: {
    llvm::Value *x = get(op.operand(0));
    set(op, 0, b.CreateAnd(x, byte(x, 0x7f)));
    return true;
  }
  case OpCode::ScalarCopysignf:
  case OpCode::VectorCopysignf: {
    llvm::Value *x = get(op.operand(0)), *y = get(op.operand(1));
    set(op, 0, b.CreateOr(b.CreateAnd(x, byte(x, 0x7f)), b.CreateAnd(y, byte(y, 0x80))));
    return true;
  }
  case OpCode::ScalarExtf:
  case OpCode::VectorExtf:
  case OpCode::VectorDecode: {
    std::optional<Float8Format> from = formatOf(op.operand(0)->type());
    if (op.opcode() == OpCode::VectorDecode)
      if (const Value *schema = op.operandNamed("schema"))
        if (std::optional<Float8Format> named = formatOfSchema(lowered(schema).encoding); named && from) from = named;
    llvm::Type *to = valueType(*resultType, &op);
    if (!from || !to->getScalarType()->isFloatingPointTy())
      unsupported(op, "fp8 values widen only to a floating-point type");
    llvm::Value *wide = decode(b, get(op.operand(0)), *from);
    if (op.opcode() == OpCode::VectorDecode && op.attr("scale")) {
      const Value *schema = op.operandNamed("schema");
      auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(wide->getType());
      int64_t lanes = vector ? int64_t(vector->getNumElements()) : 1;
      DecodeScale scale = decodeScale(op, schema ? lowered(schema).encoding : nullptr, lanes);
      llvm::Value *scaled = llvm::PoisonValue::get(wide->getType());
      for (int64_t i = 0; i < lanes; ++i)
        scaled = b.CreateInsertElement(
            scaled, applyDecodeScale(scale, vector ? b.CreateExtractElement(wide, uint64_t(i)) : wide, i), uint64_t(i));
      wide = scaled;
    }
    // Narrower results (f16, bf16) round from the exact f32 value; f64 widens.
    set(op, 0,
        to->getScalarType()->isFloatTy()    ? wide
        : to->getScalarType()->isDoubleTy() ? b.CreateFPExt(wide, to)
                                            : truncateFloat(wide, to));
    return true;
  }
  case OpCode::ScalarTruncf:
  case OpCode::ScalarFptrunc:
  case OpCode::VectorTruncf:
  case OpCode::VectorFptrunc:
  case OpCode::VectorEncode: {
    std::optional<Float8Format> to = formatOf(resultType);
    llvm::Value *x = get(op.operand(0));
    if (!to || !x->getType()->getScalarType()->isFloatingPointTy() || x->getType()->getScalarType()->isDoubleTy())
      unsupported(op, "fp8 values are narrowed from f16, bf16 or f32");
    bool saturate = false;
    if (op.opcode() == OpCode::VectorEncode) {
      const Value *schema = op.operandNamed("schema");
      const loom::Attribute *encoding = schema ? lowered(schema).encoding : nullptr;
      const loom::Attribute *rounding = encoding ? encoding->get("rounding") : nullptr;
      saturate = rounding && rounding->str() == "finite_only";
      if (std::optional<Float8Format> named = formatOfSchema(encoding); named && to) to = named;
    }
    // f16 and bf16 widen to f32 exactly, so there is one rounding.
    set(op, 0, encode(b, b.CreateFPExt(x, withElement(x->getType(), b.getFloatTy())), *to, saturate));
    return true;
  }
  default: break;
  }
  switch (familyOf(op.opcode())) {
  case Family::Memory:
    if (op.opcode() == OpCode::ViewAtomicReduce || op.opcode() == OpCode::ViewAtomicRmw ||
        op.opcode() == OpCode::ViewAtomicCmpxchg)
      break;
    return false;
  case Family::Control:
  case Family::Func:
  case Family::Provider:
  case Family::Config: return false;
  default: break;
  }
  unsupported(op, "fp8 values have no arithmetic here (only loads, stores, bitcasts, sign operations and "
                  "conversions to and from wider floats)");
}

llvm::Value *Lowering::Impl::widenFloat8(llvm::Value *bytes, const loom::Type &format, llvm::Type *to) {
  llvm::IRBuilder<> &b = *b_;
  llvm::Value *wide = decode(b, bytes, *formatOf(&format));
  if (to->getScalarType()->isFloatTy()) return wide;
  return to->getScalarType()->isDoubleTy() ? b.CreateFPExt(wide, to) : truncateFloat(wide, to);
}

llvm::Value *Lowering::Impl::narrowToFloat8(llvm::Value *x, const loom::Type &format) {
  llvm::IRBuilder<> &b = *b_;
  return encode(b, b.CreateFPExt(x, withElement(x->getType(), b.getFloatTy())), *formatOf(&format), false);
}

}  // namespace hrx::bridge
