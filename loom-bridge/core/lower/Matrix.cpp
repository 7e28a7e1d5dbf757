// Lowering of per-lane matrix fragments: gfx11 WMMA's 16×16×16 tiles spread over a wave's lanes
// (docs/loom.md "Matrix fragments"). Fragments that hold a whole matrix in every lane (the AIE
// and host forms) stay in Vector.cpp.
#include "LoweringImpl.h"

namespace hrx::bridge {

namespace {
constexpr int64_t kTile = 16;  // gfx11 WMMA: m = n = k = 16

// The element format of a packed integer operand (#matrix_operand<element_format = ...>).
std::string_view elementFormat(const loom::Attribute *encoding) {
  const loom::Attribute *format = encoding ? encoding->get("element_format") : nullptr;
  return format ? format->str() : std::string_view();
}
}  // namespace

llvm::Value *Lowering::Impl::laneId(const Operation &op) {
  llvm::Value *lane = nullptr;
  if (fn_->coordinates) {
    lane = fn_->coordinates->coordinate(*b_, *fn_->function, Coordinate::SubgroupLaneId, 0);
    if (!lane) lane = subgroupCoordinate(Coordinate::SubgroupLaneId);
  }
  if (!lane) unsupported(op, "per-lane matrix fragments need a kernel's subgroup lanes");
  return lane;
}

llvm::Value *Lowering::Impl::resultRow(llvm::Value *lane, uint64_t reg) {
  llvm::IRBuilder<> &b = *b_;
  llvm::Value *half = b.CreateUDiv(lane, i64(16));
  llvm::Value *row = b.CreateAdd(i64(int64_t(2 * reg)), fn_->subgroupSize == 64 ? b.CreateAnd(half, i64(1)) : half);
  if (fn_->subgroupSize == 64) row = b.CreateAdd(row, b.CreateMul(b.CreateLShr(half, i64(1)), i64(8)));
  return row;
}

// vector.fragment.load/store of one lane's part of a 16×16 tile at [indices] of the view's two
// trailing axes, converting between the view's and the fragment's element types.
void Lowering::Impl::lowerLaneFragmentMemory(const Operation &op, const std::vector<int64_t> &shape) {
  llvm::IRBuilder<> &b = *b_;
  bool isLoad = op.opcode() == loom::OpCode::VectorFragmentLoad;
  std::string_view role = op.templateParam(0) ? op.templateParam(0)->str() : "";
  if (shape[0] != kTile || shape[1] != kTile)
    unsupported(op, "per-lane fragments are gfx11 WMMA 16x16 tiles (shape [16, 16])");
  uint64_t wave = fn_->subgroupSize;
  if (wave != 32 && wave != 64) unsupported(op, "per-lane fragments need a subgroup size of 32 or 64");
  std::shared_ptr<ViewValue> v = view(op, "base");
  const loom::Type &vectorType = isLoad ? *op.result(0)->type() : *op.operandNamed("value")->type();
  auto *flat = llvm::cast<llvm::FixedVectorType>(valueType(vectorType, &op));
  unsigned count = flat->getNumElements();
  llvm::Type *element = flat->getElementType();
  llvm::Type *stored = valueType(*v->type->elementType(), &op);
  std::vector<llvm::Value *> start = indices(op, "indices");
  if (start.size() < 2) unsupported(op, "a fragment needs a view of at least two axes");
  bool isOperand = role == "lhs" || role == "rhs";
  bool holes = false;
  if (isOperand) {
    if (count != kTile || !element->isFloatingPointTy())
      unsupported(op, "an operand fragment is 16 floating-point values per lane (a row of lhs, a column of rhs)");
  } else if (count * wave == 512 && element->getPrimitiveSizeInBits() == 16) {
    holes = true;  // 16-bit accumulators: the even elements, the low halves of the registers
  } else if (count * wave != 256) {
    unsupported(op, "a result fragment holds 256 / subgroup size values per lane (512 / size for 16-bit values)");
  }
  // An fp8 view holds bytes: loads widen them exactly, stores round to nearest even.
  const loom::Type *viewElement = v->type->elementType();
  bool float8View =
      viewElement->kind() == loom::TypeKind::Float &&
      (viewElement->floatKind() == loom::FloatKind::F8E4M3 || viewElement->floatKind() == loom::FloatKind::F8E5M2);
  // `using {scale = %s : vector<1xf32>}`: each fp8 element times the block scale, in f32, then
  // rounded once to the fragment's element type.
  llvm::Value *scale = nullptr;
  if (const loom::Attribute *given = isLoad ? op.attr("scale") : nullptr) {
    if (!given->value() || !float8View)
      unsupported(op, "a fragment load's scale is an f32 (or vector<1xf32>) value applied to fp8 storage");
    scale = get(given->value());
    if (auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(scale->getType()))
      scale = vector->getNumElements() == 1 ? b.CreateExtractElement(scale, uint64_t(0)) : nullptr;
    if (!scale || !scale->getType()->isFloatTy())
      unsupported(op, "a fragment load's scale is an f32 (or vector<1xf32>) value applied to fp8 storage");
  }
  auto convert = [&](llvm::Value *x, llvm::Type *to) -> llvm::Value * {
    if (float8View && isLoad && to->isFloatingPointTy() && scale) {
      llvm::Value *scaled = b.CreateFMul(widenFloat8(x, *viewElement, b.getFloatTy()), scale);
      if (to->isFloatTy()) return scaled;
      return to->isDoubleTy() ? b.CreateFPExt(scaled, to) : truncateFloat(scaled, to);
    }
    if (float8View && isLoad && to->isFloatingPointTy()) return widenFloat8(x, *viewElement, to);
    if (float8View && !isLoad && x->getType()->isFloatingPointTy() && !x->getType()->isDoubleTy())
      return narrowToFloat8(x, *viewElement);
    if (x->getType() == to) return x;
    if (x->getType()->isFloatingPointTy() && to->isFloatingPointTy())
      return x->getType()->getPrimitiveSizeInBits() > to->getPrimitiveSizeInBits() ? truncateFloat(x, to)
                                                                                   : extendFloat(x, to);
    if (x->getType()->isIntegerTy() && to->isIntegerTy()) return b.CreateSExtOrTrunc(x, to);
    unsupported(op, "a fragment of " + vectorType.str() + " cannot be converted to and from " + v->type->str());
  };
  llvm::Value *lane = laneId(op);
  llvm::Value *column = b.CreateURem(lane, i64(16));
  llvm::Value *value = isLoad ? llvm::Constant::getNullValue(flat) : operand(op, "value");
  size_t rowAxis = start.size() - 2, colAxis = start.size() - 1;
  for (unsigned e = 0; e < count; ++e) {
    if (holes && e % 2) continue;
    llvm::Value *row = nullptr, *col = nullptr;
    if (role == "lhs") {
      row = column, col = i64(e);
    } else if (role == "rhs") {
      row = i64(e), col = column;
    } else {
      row = resultRow(lane, holes ? e / 2 : e), col = column;
    }
    std::vector<llvm::Value *> at = start;
    at[rowAxis] = b.CreateAdd(at[rowAxis], row);
    at[colAxis] = b.CreateAdd(at[colAxis], col);
    llvm::Value *address = elementAddress(op, *v, at);
    if (isLoad) {
      llvm::Value *x = b.CreateAlignedLoad(stored, address, alignOf(*v));
      value = b.CreateInsertElement(value, convert(x, element), uint64_t(e));
    } else {
      b.CreateAlignedStore(convert(b.CreateExtractElement(value, uint64_t(e)), stored), address, alignOf(*v));
    }
  }
  if (isLoad) {
    set(op, 0, value);
    lowered(op.result(0)).fragmentShape = shape;
  }
}

// vector.mma on per-lane fragments: D = C + A·B for one 16×16×16 tile per wave.
void Lowering::Impl::lowerLaneMma(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  llvm::IRBuilder<>::FastMathFlagGuard guard(b);
  b.setFastMathFlags(llvm::FastMathFlags());  // the twin's sums are exact IEEE steps, never fused
  const Lowered &lhsInfo = lowered(op.operandNamed("lhs"));
  const Lowered &rhsInfo = lowered(op.operandNamed("rhs"));
  for (const Lowered *f : {&lhsInfo, &rhsInfo})
    if (!f->fragmentShape.empty() &&
        (f->fragmentShape.size() != 2 || f->fragmentShape[0] != kTile || f->fragmentShape[1] != kTile))
      unsupported(op, "per-lane fragments are gfx11 WMMA 16x16x16 tiles (shapes [16, 16])");
  llvm::Value *lhs = get(op.operandNamed("lhs")), *rhs = get(op.operandNamed("rhs")),
              *acc = get(op.operandNamed("acc"));
  auto *lt = llvm::cast<llvm::FixedVectorType>(lhs->getType());
  auto *at = llvm::cast<llvm::FixedVectorType>(acc->getType());
  if (lhs->getType() != rhs->getType()) unsupported(op, "the lhs and rhs fragments must have the same type");
  uint64_t wave = fn_->subgroupSize;
  if (wave != 32 && wave != 64) unsupported(op, "per-lane fragments need a subgroup size of 32 or 64");
  MatrixMultiply mm;
  mm.wave = unsigned(wave);
  llvm::Type *le = lt->getElementType(), *ae = at->getElementType();
  unsigned packedBits = 0;  // iu8 / iu4 operands: bits per element in the 32-bit words
  using Kind = MatrixMultiply::Kind;
  if (lt->getNumElements() == kTile && (le->isHalfTy() || le->isBFloatTy())) {
    bool half = le->isHalfTy();
    if (ae->isFloatTy())
      mm.kind = half ? Kind::F32F16 : Kind::F32BF16;
    else if (ae == le)
      mm.kind = half ? Kind::F16F16 : Kind::BF16BF16;
    else
      unsupported(op, "a " + std::string(half ? "f16" : "bf16") + " WMMA accumulates into f32 or " +
                          std::string(half ? "f16" : "bf16"));
  } else if (le->isIntegerTy(32) && (lt->getNumElements() == 4 || lt->getNumElements() == 2)) {
    std::string_view lf = elementFormat(lhsInfo.encoding), rf = elementFormat(rhsInfo.encoding);
    packedBits = lt->getNumElements() == 4 ? 8 : 4;
    auto formatOk = [&](std::string_view f) {
      return packedBits == 8 ? f == "i8" || f == "u8" : f == "i4" || f == "u4";
    };
    if (!formatOk(lf) || !formatOk(rf))
      unsupported(op, "packed integer fragments need a #matrix_operand schema with element_format i" +
                          std::to_string(packedBits) + " or u" + std::to_string(packedBits));
    if (!ae->isIntegerTy(32)) unsupported(op, "an integer WMMA accumulates into i32");
    mm.kind = packedBits == 8 ? Kind::I32IU8 : Kind::I32IU4;
    mm.lhsSigned = lf.front() == 'i';
    mm.rhsSigned = rf.front() == 'i';
  } else {
    unsupported(op, "gfx11 WMMA operands are 16 x f16/bf16, or 4 (iu8) / 2 (iu4) words of packed integers per lane; "
                    "got " +
                        op.operandNamed("lhs")->type()->str());
  }
  bool holes = mm.kind == Kind::F16F16 || mm.kind == Kind::BF16BF16;
  if (at->getNumElements() * wave != (holes ? 512u : 256u))
    unsupported(op, "the accumulator holds " + std::to_string((holes ? 512 : 256) / wave) +
                        " values per lane in a wave of " + std::to_string(wave));
  mm.lhs = lhs, mm.rhs = rhs, mm.acc = acc;
  std::string why;
  if (fn_->coordinates)
    if (llvm::Value *native = fn_->coordinates->matrixMultiply(b, mm, why)) return set(op, 0, native);
  if (!why.empty()) unsupported(op, why);
  // The twin: every lane reads the A rows and B columns it needs from the lanes that hold them.
  const llvm::DataLayout &layout = module_.getDataLayout();
  uint64_t bytes = layout.getTypeAllocSize(lt);
  auto gather = [&](llvm::Value *mine) {
    llvm::AllocaInst *slot = entryAlloca(lt), *lanes = entryAlloca(llvm::ArrayType::get(lt, wave));
    b.CreateStore(mine, slot);
    if (!fn_->coordinates || !fn_->coordinates->subgroupGather(b, slot, bytes, lanes))
      unsupported(op, "this target has neither WMMA nor a way to read other lanes' fragments");
    return lanes;
  };
  llvm::Value *lhsLanes = gather(lhs), *rhsLanes = gather(rhs);
  llvm::Value *lane = laneId(op);
  llvm::Value *column = b.CreateURem(lane, i64(16));
  llvm::Value *colVector = b.CreateLoad(lt, b.CreateGEP(lt, rhsLanes, column));
  auto packed = [&](llvm::Value *words, unsigned kk, bool isSigned) {
    unsigned perWord = 32 / packedBits;
    llvm::Value *word = b.CreateExtractElement(words, uint64_t(kk / perWord));
    llvm::Value *bits =
        b.CreateTrunc(b.CreateLShr(word, b.getInt32((kk % perWord) * packedBits)), b.getIntNTy(packedBits));
    return isSigned ? b.CreateSExt(bits, b.getInt32Ty()) : b.CreateZExt(bits, b.getInt32Ty());
  };
  llvm::Value *result = acc;
  for (unsigned e = 0; e < at->getNumElements(); ++e) {
    if (holes && e % 2) continue;  // odd halves keep the accumulator's bits (the tied form)
    llvm::Value *row = resultRow(lane, holes ? e / 2 : e);
    llvm::Value *rowVector = b.CreateLoad(lt, b.CreateGEP(lt, lhsLanes, row));
    llvm::Value *sum = b.CreateExtractElement(acc, uint64_t(e));
    if (packedBits) {
      for (unsigned kk = 0; kk < kTile; ++kk)
        sum = b.CreateAdd(sum, b.CreateMul(packed(rowVector, kk, mm.lhsSigned), packed(colVector, kk, mm.rhsSigned)));
    } else {
      // Products are exact in f32 (11- or 8-bit significands); added in increasing k, rounded to a
      // 16-bit accumulator once at the end.
      sum = extendFloat(sum, b.getFloatTy());
      for (unsigned kk = 0; kk < kTile; ++kk) {
        llvm::Value *x = extendFloat(b.CreateExtractElement(rowVector, uint64_t(kk)), b.getFloatTy());
        llvm::Value *y = extendFloat(b.CreateExtractElement(colVector, uint64_t(kk)), b.getFloatTy());
        sum = b.CreateFAdd(sum, b.CreateFMul(x, y));
      }
      sum = truncateFloat(sum, ae);
    }
    result = b.CreateInsertElement(result, sum, uint64_t(e));
  }
  set(op, 0, result);
}

// Lane l of an operand fragment needs, for each k, element (row, column) of the result tile:
// <lhs> (l mod 16, k), <rhs> (k, l mod 16). Element (R, C) of a result tile sits in lane
// C + 16·h at register r, where R = 2·r + h (wave32) or 2·r + (h & 1) + 8·(h >> 1) (wave64).
void Lowering::Impl::lowerRepack(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  std::string_view role = op.templateParam(0) ? op.templateParam(0)->str() : "";
  std::vector<int64_t> shape;
  for (const ir::IndexEntry &e : ir::indexList(op, "shape"))
    shape.push_back(std::holds_alternative<int64_t>(e)
                        ? std::get<int64_t>(e)
                        : constantInt(op, std::get<const Value *>(e), "a fragment shape"));
  if (shape.size() != 2 || shape[0] != kTile || shape[1] != kTile || (role != "lhs" && role != "rhs"))
    unsupported(op, "a repack makes a 16x16 <lhs> or <rhs> fragment of a WMMA result tile");
  uint64_t wave = fn_->subgroupSize;
  llvm::Value *in = get(op.operand(0));
  auto *inType = llvm::cast<llvm::FixedVectorType>(in->getType());
  auto *outType = llvm::cast<llvm::FixedVectorType>(valueType(*op.result(0)->type(), &op));
  llvm::Type *inElement = inType->getElementType(), *outElement = outType->getElementType();
  if ((wave != 32 && wave != 64) || inType->getNumElements() * wave != 256 || !inElement->isFloatTy() ||
      outType->getNumElements() != kTile || !outElement->isFloatingPointTy())
    unsupported(op, "a repack takes a 32-bit f32 result fragment (256 / subgroup size values) to 16 floats");
  llvm::Value *lane = laneId(op);
  llvm::Value *mine = b.CreateURem(lane, i64(16));
  auto holder = [&](llvm::Value *row) -> std::pair<llvm::Value *, llvm::Value *> {  // (lane half h, register r)
    llvm::Value *low = b.CreateAnd(row, i64(1));
    if (wave == 32) return {low, b.CreateLShr(row, i64(1))};
    return {b.CreateOr(low, b.CreateShl(b.CreateLShr(row, i64(3)), i64(1))),
            b.CreateLShr(b.CreateAnd(row, i64(7)), i64(1))};
  };
  const llvm::DataLayout &layout = module_.getDataLayout();
  uint64_t bytes = layout.getTypeAllocSize(inType);
  llvm::AllocaInst *slot = entryAlloca(inType), *lanes = entryAlloca(llvm::ArrayType::get(inType, wave));
  b.CreateStore(in, slot);
  bool gathered = fn_->coordinates && fn_->coordinates->subgroupGather(b, slot, bytes, lanes);
  llvm::Value *out = llvm::PoisonValue::get(outType);
  for (unsigned k = 0; k < kTile; ++k) {
    llvm::Value *row = role == "lhs" ? mine : i64(k), *column = role == "lhs" ? i64(k) : mine;
    auto [half, reg] = holder(row);
    llvm::Value *source = b.CreateAdd(column, b.CreateMul(half, i64(16)));
    llvm::Value *x = nullptr;
    if (gathered) {
      llvm::Value *at = b.CreateGEP(inType, lanes, source);
      x = b.CreateLoad(inElement, b.CreateGEP(inElement, at, reg));
    } else {
      // Read register r of the source lane: one lane read per register, keeping the one wanted.
      llvm::Value *source32 = b.CreateTrunc(source, b.getInt32Ty());
      for (unsigned r = 0; r < inType->getNumElements(); ++r) {
        llvm::Value *word = b.CreateBitCast(b.CreateExtractElement(in, uint64_t(r)), b.getInt32Ty());
        llvm::Value *read = fn_->coordinates ? fn_->coordinates->readLane(b, word, source32) : nullptr;
        if (!read) unsupported(op, "this target cannot read other lanes' registers here (wave64 repack)");
        llvm::Value *value = b.CreateBitCast(read, inElement);
        x = x ? b.CreateSelect(b.CreateICmpEQ(reg, i64(r)), value, x) : value;
      }
    }
    llvm::Value *converted = outElement == inElement ? x : truncateFloat(x, outElement);
    out = b.CreateInsertElement(out, converted, uint64_t(k));
  }
  set(op, 0, out);
  lowered(op.result(0)).fragmentShape = shape;
}

}  // namespace hrx::bridge
