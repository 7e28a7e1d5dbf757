// Lowering of vector.* ops: lane-wise values, reductions, fragments and MMA, encodings, vector memory.
#include "LoweringImpl.h"

namespace hrx::bridge {

void Lowering::Impl::lowerVector(const Operation &op) {
  using loom::OpCode;
  llvm::IRBuilder<> &b = *b_;
  llvm::IRBuilder<>::FastMathFlagGuard guard(b);
  b.setFastMathFlags(fastMath(op));
  llvm::Type *resultType = op.numResults() ? valueType(*op.result(0)->type(), &op) : nullptr;
  switch (op.opcode()) {
  case OpCode::VectorLoad:
  case OpCode::VectorStore:
  case OpCode::VectorLoadMask:
  case OpCode::VectorStoreMask:
  case OpCode::VectorFragmentLoad:
  case OpCode::VectorFragmentStore: return lowerVectorMemory(op);
  case OpCode::VectorGather: {
    // One scalar load per lane, at the indices plus the lane's offset along the last view axis.
    std::shared_ptr<ViewValue> v = view(op, "base");
    std::vector<llvm::Value *> start = indices(op, "indices");
    llvm::Value *offsets = operand(op, "offsets");
    auto *vt = llvm::cast<llvm::FixedVectorType>(resultType);
    if (start.empty()) unsupported(op, "the view needs at least one axis");
    llvm::Align align(module_.getDataLayout().getTypeAllocSize(vt->getElementType()).getFixedValue());
    llvm::Value *out = llvm::PoisonValue::get(vt);
    for (unsigned i = 0; i < vt->getNumElements(); ++i) {
      std::vector<llvm::Value *> at = start;
      at.back() =
          b.CreateAdd(at.back(), b.CreateSExtOrTrunc(b.CreateExtractElement(offsets, uint64_t(i)), b.getInt64Ty()));
      llvm::Value *lane =
          b.CreateAlignedLoad(vt->getElementType(), elementAddress(op, *v, at), std::min(align, alignOf(*v)));
      out = b.CreateInsertElement(out, lane, uint64_t(i));
    }
    return set(op, 0, out);
  }
  case OpCode::VectorBitpack: {
    // <W>: lane i's low W bits at bits [i*W, (i+1)*W) of one little-endian stream, which the
    // result lanes hold in order (lane 0 the lowest bits).
    const loom::Attribute *widthAttr = op.templateParam(0);
    if (!widthAttr || widthAttr->kind() != loom::AttrKind::Integer)
      unsupported(op, "the field width must be an integer <W>");
    unsigned width = unsigned(widthAttr->integer());
    llvm::Value *in = operand(op, "in");
    auto *from = llvm::cast<llvm::FixedVectorType>(in->getType());
    auto *to = llvm::cast<llvm::FixedVectorType>(resultType);
    unsigned total = to->getNumElements() * to->getElementType()->getIntegerBitWidth();
    if (width == 0 || from->getNumElements() * width != total)
      unsupported(op, "the result must hold exactly the " + std::to_string(width) + "-bit fields of the lanes");
    llvm::Type *stream = b.getIntNTy(total);
    llvm::Value *bits = llvm::ConstantInt::get(stream, 0);
    for (unsigned i = 0; i < from->getNumElements(); ++i) {
      llvm::Value *field = b.CreateTrunc(b.CreateExtractElement(in, uint64_t(i)), b.getIntNTy(width));
      bits = b.CreateOr(bits, b.CreateShl(b.CreateZExt(field, stream), uint64_t(i) * width));
    }
    return set(op, 0, b.CreateBitCast(bits, to));
  }
  case OpCode::VectorScatter: {
    // One scalar store per lane, at the indices plus the lane's offset along the last view axis.
    std::shared_ptr<ViewValue> v = view(op, "base");
    std::vector<llvm::Value *> start = indices(op, "indices");
    llvm::Value *values = operand(op, "value"), *offsets = operand(op, "offsets");
    auto *vt = llvm::cast<llvm::FixedVectorType>(values->getType());
    llvm::Align align(module_.getDataLayout().getTypeAllocSize(vt->getElementType()).getFixedValue());
    for (unsigned i = 0; i < vt->getNumElements(); ++i) {
      std::vector<llvm::Value *> at = start;
      at.back() =
          b.CreateAdd(at.back(), b.CreateSExtOrTrunc(b.CreateExtractElement(offsets, uint64_t(i)), b.getInt64Ty()));
      b.CreateAlignedStore(b.CreateExtractElement(values, uint64_t(i)), elementAddress(op, *v, at),
                           std::min(align, alignOf(*v)));
    }
    return;
  }
  case OpCode::VectorAtomicReduce:
  case OpCode::VectorAtomicReduceMask:
  case OpCode::VectorAtomicRmw:
  case OpCode::VectorAtomicRmwMask:
  case OpCode::VectorAtomicCmpxchg: return lowerVectorAtomic(op);  // Memory.cpp, beside the scalar atomics
  case OpCode::VectorFragmentRepack: return lowerRepack(op);
  case OpCode::VectorConstant: return set(op, 0, literal(op, resultType));
  case OpCode::VectorSplat: {
    auto *vt = llvm::cast<llvm::FixedVectorType>(resultType);
    return set(op, 0, b.CreateVectorSplat(vt->getNumElements(), operand(op, "in")));
  }
  case OpCode::VectorIota: {
    auto *vt = llvm::cast<llvm::FixedVectorType>(resultType);
    llvm::Type *element = vt->getElementType();
    auto convert = [&](llvm::Value *v) -> llvm::Value * {
      if (v->getType() == element) return v;
      if (element->isFloatingPointTy()) return b.CreateSIToFP(v, element);
      return b.CreateSExtOrTrunc(v, element);
    };
    llvm::Value *base = b.CreateVectorSplat(vt->getNumElements(), convert(operand(op, "base")));
    llvm::Value *step = b.CreateVectorSplat(vt->getNumElements(), convert(operand(op, "step")));
    std::vector<llvm::Constant *> lanes;
    for (unsigned i = 0; i < vt->getNumElements(); ++i)
      lanes.push_back(element->isFloatingPointTy() ? llvm::ConstantFP::get(element, double(i))
                                                   : llvm::ConstantInt::get(element, i));
    llvm::Value *laneVector = llvm::ConstantVector::get(lanes);
    return set(op, 0,
               element->isFloatingPointTy() ? b.CreateFAdd(base, b.CreateFMul(laneVector, step))
                                            : b.CreateAdd(base, b.CreateMul(laneVector, step)));
  }
  case OpCode::VectorMaskRange: {
    auto *vt = llvm::cast<llvm::FixedVectorType>(resultType);
    unsigned n = vt->getNumElements();
    llvm::Value *lo = operand(op, "lo"), *hi = operand(op, "hi"), *step = operand(op, "step");
    std::vector<llvm::Constant *> lanes;
    for (unsigned i = 0; i < n; ++i) lanes.push_back(b.getInt64(i));
    llvm::Value *positions = b.CreateAdd(b.CreateVectorSplat(n, lo),
                                         b.CreateMul(llvm::ConstantVector::get(lanes), b.CreateVectorSplat(n, step)));
    bool unsignedDomain = op.operandNamed("lo")->type()->isOffset();
    return set(op, 0,
               unsignedDomain ? b.CreateICmpULT(positions, b.CreateVectorSplat(n, hi))
                              : b.CreateICmpSLT(positions, b.CreateVectorSplat(n, hi)));
  }
  case OpCode::VectorSelect:
    return set(op, 0, b.CreateSelect(operand(op, "mask"), operand(op, "true"), operand(op, "false")));
  case OpCode::VectorReduce: return set(op, 0, reduce(op));
  case OpCode::VectorReduceAxes: return lowerReduceAxes(op);
  case OpCode::VectorDotf: {
    llvm::Value *products = b.CreateFMul(operand(op, "lhs"), operand(op, "rhs"));
    return set(op, 0, b.CreateFAddReduce(operand(op, "init"), products));
  }
  case OpCode::VectorDot2f: {
    // Each accumulator lane takes its pair in order, two f32 FMAs on the extended lanes: the
    // reference evaluation upstream folds and expands to, so every target gives the same bits.
    llvm::Value *lhs = operand(op, "lhs"), *rhs = operand(op, "rhs"), *out = operand(op, "acc");
    auto *accType = llvm::cast<llvm::FixedVectorType>(out->getType());
    llvm::Type *f32 = accType->getElementType();
    for (unsigned lane = 0; lane < accType->getNumElements(); ++lane) {
      llvm::Value *sum = b.CreateExtractElement(out, uint64_t(lane));
      for (unsigned j = 0; j < 2; ++j) {
        llvm::Value *x = extendFloat(b.CreateExtractElement(lhs, uint64_t(2 * lane + j)), f32);
        llvm::Value *y = extendFloat(b.CreateExtractElement(rhs, uint64_t(2 * lane + j)), f32);
        sum = b.CreateIntrinsic(f32, llvm::Intrinsic::fma, {x, y, sum});
      }
      out = b.CreateInsertElement(out, sum, uint64_t(lane));
    }
    return set(op, 0, out);
  }
  case OpCode::VectorFragment: {
    Lowered &out = lowered(op.result(0));
    out = lowered(op.operandNamed("in"));
    out.fragmentShape.clear();
    for (const ir::IndexEntry &e : ir::indexList(op, "shape"))
      out.fragmentShape.push_back(std::holds_alternative<int64_t>(e)
                                      ? std::get<int64_t>(e)
                                      : constantInt(op, std::get<const Value *>(e), "a fragment shape"));
    if (const loom::Attribute *uses = op.attr("using"))
      if (const loom::Attribute *schema = uses->get("schema"); schema && schema->value())
        out.encoding = lowered(schema->value()).encoding;
    return;
  }
  case OpCode::VectorEncode: return lowerEncode(op);
  case OpCode::VectorDecode: return lowerDecode(op);
  case OpCode::VectorMma: return lowerMma(op);
  default: break;
  }
  switch (op.opcode()) {
  case OpCode::VectorExtract:
  case OpCode::VectorInsert: {
    // One lane, by a static or dynamic position (row-major over the vector's axes).
    const loom::Type &vt =
        *(op.opcode() == OpCode::VectorExtract ? op.operandNamed("in") : op.operandNamed("dest"))->type();
    // With fewer positions than axes, the sub-vector of the trailing axes (its lanes contiguous).
    std::vector<llvm::Value *> position = indices(op, "position");
    auto extent = [&](size_t axis) {
      const loom::Dim &d = vt.shape()[axis];
      std::optional<int64_t> n = d.isStatic() ? std::optional<int64_t>(d.extent) : constantIndex(d.dynamic);
      if (!n) unsupported(op, "axis " + std::to_string(axis) + " of " + vt.str() + " must be a compile-time extent");
      return *n;
    };
    int64_t stride = 1;
    for (size_t axis = position.size(); axis < vt.rank(); ++axis) stride *= extent(axis);
    llvm::Value *lane = i64(0);
    for (size_t i = position.size(); i-- > 0;) {
      lane = b.CreateAdd(lane, b.CreateMul(position[i], i64(stride)));
      stride *= extent(i);
    }
    bool whole = position.size() == vt.rank();
    if (op.opcode() == OpCode::VectorExtract) {
      if (whole) return set(op, 0, b.CreateExtractElement(operand(op, "in"), lane));
      llvm::Value *in = operand(op, "in"), *out = llvm::PoisonValue::get(resultType);
      for (unsigned k = 0; k < llvm::cast<llvm::FixedVectorType>(resultType)->getNumElements(); ++k)
        out = b.CreateInsertElement(out, b.CreateExtractElement(in, b.CreateAdd(lane, i64(k))), uint64_t(k));
      return set(op, 0, out);
    }
    if (whole) return set(op, 0, b.CreateInsertElement(operand(op, "dest"), operand(op, "value"), lane));
    llvm::Value *value = operand(op, "value"), *dest = operand(op, "dest");
    for (unsigned k = 0; k < llvm::cast<llvm::FixedVectorType>(value->getType())->getNumElements(); ++k)
      dest = b.CreateInsertElement(dest, b.CreateExtractElement(value, uint64_t(k)), b.CreateAdd(lane, i64(k)));
    return set(op, 0, dest);
  }
  case OpCode::VectorFromElements: {
    llvm::Value *v = llvm::PoisonValue::get(resultType);
    std::span<Value *const> elements = op.operandGroup("elements");
    for (size_t i = 0; i < elements.size(); ++i) v = b.CreateInsertElement(v, get(elements[i]), uint64_t(i));
    return set(op, 0, v);
  }
  case OpCode::VectorBroadcast: {
    llvm::Value *in = operand(op, "in");
    auto *vt = llvm::cast<llvm::FixedVectorType>(resultType);
    if (auto *from = llvm::dyn_cast<llvm::FixedVectorType>(in->getType())) {
      if (from->getNumElements() == vt->getNumElements()) return set(op, 0, in);
      if (from->getNumElements() > 1) {
        // Trailing-dimension broadcast: result lane L reads the source lane its trailing indices
        // name (0 along the source's size-1 axes), both shapes row-major.
        std::vector<int64_t> to, src;
        for (const loom::Dim &d : op.result(0)->type()->shape())
          to.push_back(d.isStatic() ? d.extent : constantIndex(d.dynamic).value_or(0));
        for (const loom::Dim &d : op.operandNamed("in")->type()->shape()) src.push_back(d.extent);
        llvm::SmallVector<int, 64> mask;
        for (unsigned lane = 0; lane < vt->getNumElements(); ++lane) {
          int64_t rest = lane, index = 0, stride = 1;
          for (size_t k = 0; k < to.size(); ++k) {
            int64_t coordinate = rest % std::max<int64_t>(to[to.size() - 1 - k], 1);
            rest /= std::max<int64_t>(to[to.size() - 1 - k], 1);
            if (k >= src.size()) continue;
            int64_t extent = src[src.size() - 1 - k];
            index += (extent == 1 ? 0 : coordinate) * stride;
            stride *= extent;
          }
          mask.push_back(int(index));
        }
        return set(op, 0, b.CreateShuffleVector(in, mask));
      }
      in = b.CreateExtractElement(in, uint64_t(0));
    }
    return set(op, 0, b.CreateVectorSplat(vt->getNumElements(), in));
  }
  case OpCode::VectorBitunpacku:
  case OpCode::VectorBitunpacks: {
    // <W>: the W-bit fields of the packed lanes, least significant first, each widened to the
    // result's element type (zero- or sign-extended).
    const loom::Attribute *widthAttr = op.templateParam(0);
    if (!widthAttr || widthAttr->kind() != loom::AttrKind::Integer)
      unsupported(op, "the field width must be an integer <W>");
    int64_t width = widthAttr->integer();
    llvm::Value *in = operand(op, "in");
    auto *from = llvm::cast<llvm::FixedVectorType>(in->getType());
    auto *to = llvm::cast<llvm::FixedVectorType>(resultType);
    unsigned laneBits = from->getElementType()->getIntegerBitWidth();
    if (width <= 0 || laneBits % unsigned(width) != 0 ||
        from->getNumElements() * (laneBits / width) != to->getNumElements())
      unsupported(op, "the result must hold every " + std::to_string(width) + "-bit field of the packed lanes");
    unsigned perLane = laneBits / unsigned(width);
    llvm::Type *field = b.getIntNTy(unsigned(width));
    llvm::Value *out = llvm::PoisonValue::get(to);
    for (unsigned i = 0; i < to->getNumElements(); ++i) {
      llvm::Value *packed = b.CreateExtractElement(in, uint64_t(i / perLane));
      llvm::Value *bits = b.CreateTrunc(b.CreateLShr(packed, uint64_t((i % perLane) * unsigned(width))), field);
      llvm::Value *wide = op.opcode() == OpCode::VectorBitunpacks ? b.CreateSExt(bits, to->getElementType())
                                                                  : b.CreateZExt(bits, to->getElementType());
      out = b.CreateInsertElement(out, wide, uint64_t(i));
    }
    return set(op, 0, out);
  }
  case OpCode::VectorDot4i: {
    // <s8s8|s8u8|u8s8|u8u8>: each i32 accumulator lane adds the four byte products of its group.
    const loom::Attribute *kind = op.templateParam(0);
    std::string_view k = kind ? kind->str() : "";
    if (k.size() != 4 || (k[0] != 's' && k[0] != 'u') || (k[2] != 's' && k[2] != 'u') || k.substr(1, 1) != "8" ||
        k.substr(3, 1) != "8")
      unsupported(op, "the kind must be one of s8s8, s8u8, u8s8, u8u8");
    llvm::Value *lhs = operand(op, "lhs"), *rhs = operand(op, "rhs"), *acc = operand(op, "acc");
    auto *accType = llvm::cast<llvm::FixedVectorType>(acc->getType());
    llvm::Type *laneType = accType->getElementType();
    llvm::Value *out = acc;
    for (unsigned lane = 0; lane < accType->getNumElements(); ++lane) {
      llvm::Value *sum = b.CreateExtractElement(acc, uint64_t(lane));
      for (unsigned j = 0; j < 4; ++j) {
        llvm::Value *x = b.CreateExtractElement(lhs, uint64_t(lane * 4 + j));
        llvm::Value *y = b.CreateExtractElement(rhs, uint64_t(lane * 4 + j));
        x = k[0] == 's' ? b.CreateSExt(x, laneType) : b.CreateZExt(x, laneType);
        y = k[2] == 's' ? b.CreateSExt(y, laneType) : b.CreateZExt(y, laneType);
        sum = b.CreateAdd(sum, b.CreateMul(x, y));
      }
      out = b.CreateInsertElement(out, sum, uint64_t(lane));
    }
    return set(op, 0, out);
  }
  case OpCode::VectorBitfieldInsert: {
    // dest with bits [offset, offset + width) of each lane replaced by value's low bits.
    llvm::Value *value = operand(op, "value"), *dest = operand(op, "dest");
    int64_t offset = ir::integerAttr(op, "offset").value_or(0), width = ir::integerAttr(op, "width").value_or(1);
    llvm::Type *laneType = dest->getType();
    unsigned bits = laneType->getScalarSizeInBits();
    uint64_t field = width >= 64 ? ~uint64_t(0) : ((uint64_t(1) << width) - 1);
    llvm::Value *mask = llvm::ConstantInt::get(laneType, field << offset);
    llvm::Value *moved =
        b.CreateShl(b.CreateZExtOrTrunc(value, laneType), llvm::ConstantInt::get(laneType, uint64_t(offset)));
    (void)bits;
    return set(op, 0, b.CreateOr(b.CreateAnd(dest, b.CreateNot(mask)), b.CreateAnd(moved, mask)));
  }
  case OpCode::VectorShuffle:
  case OpCode::VectorTranspose: {
    // A static lane map: shuffle lists the source lane of each result lane; transpose lists the
    // source axis of each result axis (row-major lanes, static extents).
    const loom::Attribute *map = op.templateParam(0);
    std::vector<int64_t> list;
    if (map && map->kind() == loom::AttrKind::Array)
      for (const loom::Attribute *e : map->elements()) {
        if (e->kind() != loom::AttrKind::Integer) unsupported(op, "the lane map must list integers");
        list.push_back(e->integer());
      }
    else
      unsupported(op, "the lane map must be a list of integers <[...]>");
    llvm::Value *in = operand(op, "in");
    unsigned n = llvm::cast<llvm::FixedVectorType>(in->getType())->getNumElements();
    std::vector<int> lanes;
    if (op.opcode() == OpCode::VectorShuffle) {
      if (list.size() != n) unsupported(op, "the lane map must name one source lane per result lane");
      for (int64_t lane : list) {
        if (lane < 0 || lane >= int64_t(n)) unsupported(op, "lane " + std::to_string(lane) + " is outside the vector");
        lanes.push_back(int(lane));
      }
      return set(op, 0, b.CreateShuffleVector(in, lanes));
    }
    std::vector<int64_t> from;
    for (const loom::Dim &d : op.operandNamed("in")->type()->shape()) {
      if (!d.isStatic()) unsupported(op, "vector extents must be static");
      from.push_back(d.extent);
    }
    std::vector<bool> used(from.size(), false);
    if (list.size() != from.size()) unsupported(op, "the permutation must name every axis once");
    for (int64_t axis : list) {
      if (axis < 0 || axis >= int64_t(from.size()) || used[size_t(axis)])
        unsupported(op, "the permutation must name every axis once");
      used[size_t(axis)] = true;
    }
    std::vector<int64_t> to(from.size()), fromStride(from.size(), 1);
    for (size_t i = from.size(); i-- > 1;) fromStride[i - 1] = fromStride[i] * from[i];
    for (size_t i = 0; i < from.size(); ++i) to[i] = from[size_t(list[i])];
    for (unsigned linear = 0; linear < n; ++linear) {
      int64_t rest = linear, source = 0;
      for (size_t i = to.size(); i-- > 0;) {
        source += (rest % to[i]) * fromStride[size_t(list[i])];
        rest /= to[i];
      }
      lanes.push_back(int(source));
    }
    return set(op, 0, b.CreateShuffleVector(in, lanes));
  }
  case OpCode::VectorConcat:
  case OpCode::VectorInterleave: {
    // Axis 0 of rank-1 vectors: lhs then rhs, or alternating lanes lhs[0], rhs[0], lhs[1], ...
    const loom::Attribute *axis = op.templateParam(0);
    if (axis && axis->kind() == loom::AttrKind::Integer && axis->integer() != 0)
      unsupported(op, "only axis 0 is implemented");
    llvm::Value *l = operand(op, "lhs"), *r = operand(op, "rhs");
    unsigned n = llvm::cast<llvm::FixedVectorType>(l->getType())->getNumElements();
    if (llvm::cast<llvm::FixedVectorType>(r->getType())->getNumElements() != n)
      unsupported(op, "both operands must have the same lane count");
    std::vector<int> lanes;
    for (unsigned i = 0; i < 2 * n; ++i)
      lanes.push_back(op.opcode() == OpCode::VectorConcat ? int(i) : int((i % 2) * n + i / 2));
    return set(op, 0, b.CreateShuffleVector(l, r, lanes));
  }
  case OpCode::VectorDeinterleave: {
    // Axis 0: the even lanes, then the odd lanes (the inverse of vector.interleave).
    llvm::Value *in = operand(op, "in");
    unsigned n = llvm::cast<llvm::FixedVectorType>(in->getType())->getNumElements();
    if (op.numResults() != 2 || n % 2) unsupported(op, "two results of half the lanes are expected");
    std::vector<int> even, odd;
    for (unsigned i = 0; i < n / 2; ++i) {
      even.push_back(int(2 * i));
      odd.push_back(int(2 * i + 1));
    }
    set(op, 0, b.CreateShuffleVector(in, even));
    return set(op, 1, b.CreateShuffleVector(in, odd));
  }
  case OpCode::VectorSlice: {
    std::vector<ir::IndexEntry> at = ir::indexList(op, "offset");
    int64_t start = at.size() == 1 && std::holds_alternative<int64_t>(at[0]) ? std::get<int64_t>(at[0])
                    : at.size() == 1 ? constantInt(op, std::get<const Value *>(at[0]), "a slice offset")
                                     : -1;
    auto *to = llvm::cast<llvm::FixedVectorType>(resultType);
    llvm::Value *in = operand(op, "in");
    unsigned n = llvm::cast<llvm::FixedVectorType>(in->getType())->getNumElements();
    if (start < 0 || uint64_t(start) + to->getNumElements() > n)
      unsupported(op, "the slice must lie inside the vector");
    std::vector<int> lanes;
    for (unsigned i = 0; i < to->getNumElements(); ++i) lanes.push_back(int(start) + int(i));
    return set(op, 0, b.CreateShuffleVector(in, lanes));
  }
  case OpCode::VectorTableLookup: {
    // Each code selects a lane of the table (codes are unsigned lane numbers).
    llvm::Value *table = operand(op, "table");
    std::vector<llvm::Value *> codes = indices(op, "codes");
    if (codes.size() != 1) unsupported(op, "one vector of codes is expected");
    auto *to = llvm::cast<llvm::FixedVectorType>(resultType);
    llvm::Value *out = llvm::PoisonValue::get(to);
    for (unsigned i = 0; i < to->getNumElements(); ++i) {
      llvm::Value *code = b.CreateZExt(b.CreateExtractElement(codes[0], uint64_t(i)), b.getInt64Ty());
      out = b.CreateInsertElement(out, b.CreateExtractElement(table, code), uint64_t(i));
    }
    return set(op, 0, out);
  }
  case OpCode::VectorDot8i4: {
    // <s4s4|s4u4|u4s4|u4u4>: each i32 lane adds the eight 4-bit products of its lhs and rhs lanes.
    const loom::Attribute *kind = op.templateParam(0);
    std::string_view k = kind ? kind->str() : "";
    if (k.size() != 4 || (k[0] != 's' && k[0] != 'u') || (k[2] != 's' && k[2] != 'u') || k[1] != '4' || k[3] != '4')
      unsupported(op, "the kind must be one of s4s4, s4u4, u4s4, u4u4");
    llvm::Value *lhs = operand(op, "lhs"), *rhs = operand(op, "rhs"), *acc = operand(op, "acc");
    auto *vt = llvm::cast<llvm::FixedVectorType>(acc->getType());
    llvm::Type *lane = vt->getElementType();
    llvm::Value *out = acc;
    for (unsigned i = 0; i < vt->getNumElements(); ++i) {
      llvm::Value *x = b.CreateExtractElement(lhs, uint64_t(i)), *y = b.CreateExtractElement(rhs, uint64_t(i));
      llvm::Value *sum = b.CreateExtractElement(acc, uint64_t(i));
      for (unsigned j = 0; j < 8; ++j) {
        auto nibble = [&](llvm::Value *w, bool isSigned) {
          llvm::Value *bits4 = b.CreateTrunc(b.CreateLShr(w, uint64_t(4 * j)), b.getIntNTy(4));
          return isSigned ? b.CreateSExt(bits4, lane) : b.CreateZExt(bits4, lane);
        };
        sum = b.CreateAdd(sum, b.CreateMul(nibble(x, k[0] == 's'), nibble(y, k[2] == 's')));
      }
      out = b.CreateInsertElement(out, sum, uint64_t(i));
    }
    return set(op, 0, out);
  }
  default: break;
  }
  if (llvm::Value *r = arith(op)) return set(op, 0, r);
  unsupported(op, "no lowering for this op");
}

llvm::Value *Lowering::Impl::reduce(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  const loom::Attribute *kind = op.templateParam(0);
  std::string_view k = kind ? kind->str() : "";
  if (kind && kind->kind() == loom::AttrKind::Flags && !kind->elements().empty()) k = kind->elements()[0]->str();
  llvm::Value *v = operand(op, "in"), *init = operand(op, "init");
  for (const loom::Attribute *t : op.templateParams())
    if (t->str() == "reassoc") b.getFastMathFlags().setAllowReassoc();
  if (k == "addf") return b.CreateFAddReduce(init, v);
  if (k == "mulf") return b.CreateFMulReduce(init, v);
  if (k == "addi") return b.CreateAdd(init, b.CreateAddReduce(v));
  if (k == "muli") return b.CreateMul(init, b.CreateMulReduce(v));
  if (k == "andi") return b.CreateAnd(init, b.CreateAndReduce(v));
  if (k == "ori") return b.CreateOr(init, b.CreateOrReduce(v));
  if (k == "xori") return b.CreateXor(init, b.CreateXorReduce(v));
  if (k == "maxsi") return b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, init, b.CreateIntMaxReduce(v, true));
  if (k == "minsi") return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, init, b.CreateIntMinReduce(v, true));
  if (k == "maxui") return b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, init, b.CreateIntMaxReduce(v, false));
  if (k == "minui") return b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, init, b.CreateIntMinReduce(v, false));
  if (k == "maxnumf") return b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, init, b.CreateFPMaxReduce(v));
  if (k == "minnumf") return b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, init, b.CreateFPMinReduce(v));
  if (k == "maximumf") return b.CreateBinaryIntrinsic(llvm::Intrinsic::maximum, init, b.CreateFPMaximumReduce(v));
  if (k == "minimumf") return b.CreateBinaryIntrinsic(llvm::Intrinsic::minimum, init, b.CreateFPMinimumReduce(v));
  unsupported(op, "unknown combining kind '" + std::string(k) + "'");
}

bool Lowering::Impl::isBfp16ebs8(const loom::Attribute *encoding) {
  if (!encoding) return false;
  const loom::Attribute *format = encoding->get("element_format");
  return format && format->str() == "bfp16ebs8";
}

void Lowering::Impl::lowerEncode(const Operation &op) {
  const Value *schema = op.operandNamed("schema");
  const loom::Attribute *encoding = schema ? lowered(schema).encoding : nullptr;
  if (!isBfp16ebs8(encoding)) unsupported(op, "only the bfp16ebs8 element format is implemented");
  const loom::Type &inType = *op.operandNamed("in")->type();
  int64_t count = inType.staticElementCount();
  const loom::Type &element = *inType.elementType();
  bool bf16 = element.isFloat() && element.floatKind() == loom::FloatKind::BF16;
  bool f32 = element.isFloat() && element.floatKind() == loom::FloatKind::F32;
  if (count <= 0 || count % 8 != 0 || (!bf16 && !f32))
    unsupported(op, "bfp16ebs8 encodes bf16 or f32 vectors whose length is a multiple of 8");
  if (op.result(0)->type()->staticElementCount() != count / 8 * 9 || !op.result(0)->type()->elementType()->isInteger(8))
    unsupported(op, "a bfp16ebs8 payload of " + std::to_string(count) + " values is vector<" +
                        std::to_string(count / 8 * 9) + "xi8>");
  llvm::Value *in = operand(op, "in");
  llvm::AllocaInst *source = entryAlloca(in->getType());
  llvm::Type *payloadType = valueType(*op.result(0)->type(), &op);
  llvm::AllocaInst *payload = entryAlloca(payloadType);
  b_->CreateStore(in, source);
  llvm::CallInst *call = b_->CreateCall(declareBuiltin(module_, bf16 ? kBfpEncodeBf16 : kBfpEncodeF32),
                                        {source, payload, b_->getInt32(uint32_t(count / 8))});
  set(op, 0, b_->CreateLoad(payloadType, payload));
  Lowered &result = lowered(op.result(0));
  result.encoding = encoding;
  if (bf16 && count == 64) result.bf16Source = source, result.bfpEncode = call;
}

// A decode's `{scale = %s}`: one scale per `scale_group_elements` elements (all of them when the
// schema names no group), an e8m0 exponent byte (group g: byte g of the integer value,
// little-endian) or an f32 factor (one per group).
Lowering::Impl::DecodeScale Lowering::Impl::decodeScale(const Operation &op, const loom::Attribute *encoding,
                                                        int64_t lanes) {
  DecodeScale scale;
  const loom::Attribute *given = op.attr("scale");
  if (!given) return scale;
  const loom::Attribute *format = encoding ? encoding->get("scale_format") : nullptr;
  if (!given->value()) unsupported(op, "the scale must be an SSA value (`{scale = %s : T}`)");
  scale.values = get(given->value());
  scale.group = lanes;
  if (const loom::Attribute *n = encoding ? encoding->get("scale_group_elements") : nullptr;
      n && n->kind() == loom::AttrKind::Integer && n->integer() > 0)
    scale.group = n->integer();
  auto *vector = llvm::dyn_cast<llvm::FixedVectorType>(scale.values->getType());
  uint64_t count = vector ? vector->getNumElements() : 1;
  llvm::Type *element = scale.values->getType()->getScalarType();
  scale.e8m0 = element->isIntegerTy();
  if ((scale.e8m0 && format && format->str() != "e8m0") || (!scale.e8m0 && !element->isFloatTy()))
    unsupported(op, "a decode scale is an e8m0 integer or an f32 value");
  // e8m0 scales are bytes packed little-endian in the integer value (group g: byte g); f32 scales
  // are one per group.
  if (scale.e8m0) count = count * element->getIntegerBitWidth() / 8;
  if (lanes % scale.group || uint64_t(lanes / scale.group) > count ||
      (!scale.e8m0 && uint64_t(lanes / scale.group) != count))
    unsupported(op, "one " + std::string(scale.e8m0 ? "e8m0" : "f32") + " scale per " + std::to_string(scale.group) +
                        " elements is required");
  return scale;
}

// Element `lane`'s f32 value times its scale: 2^(s - 127) exactly for e8m0 (biased exponent s,
// or the subnormal 2^-127 for s = 0; 255 is NaN of the element's sign), else the f32 factor.
llvm::Value *Lowering::Impl::applyDecodeScale(const DecodeScale &scale, llvm::Value *value, int64_t lane) {
  if (!scale.values) return value;
  llvm::IRBuilder<> &b = *b_;
  int64_t group = lane / scale.group;
  if (!scale.e8m0) {
    llvm::Value *s = llvm::isa<llvm::FixedVectorType>(scale.values->getType())
                         ? b.CreateExtractElement(scale.values, uint64_t(group))
                         : scale.values;
    return b.CreateFMul(value, s);
  }
  unsigned width = scale.values->getType()->getScalarType()->getIntegerBitWidth();
  llvm::Value *word = llvm::isa<llvm::FixedVectorType>(scale.values->getType())
                          ? b.CreateExtractElement(scale.values, uint64_t(group * 8 / width))
                          : scale.values;
  llvm::Value *s =
      b.CreateAnd(b.CreateZExtOrTrunc(b.CreateLShr(word, uint64_t(group * 8 % width)), b.getInt32Ty()), 0xff);
  llvm::Value *power = b.CreateBitCast(
      b.CreateSelect(b.CreateICmpEQ(s, b.getInt32(0)), b.getInt32(0x00400000), b.CreateShl(s, 23)), b.getFloatTy());
  llvm::Value *sign = b.CreateAnd(b.CreateBitCast(value, b.getInt32Ty()), 0x80000000u);
  llvm::Value *nan = b.CreateBitCast(b.CreateOr(sign, b.getInt32(0x7fc00000)), b.getFloatTy());
  return b.CreateSelect(b.CreateICmpEQ(s, b.getInt32(255)), nan, b.CreateFMul(value, power));
}

// vector.decode of an f4e2m1 (MXFP4) payload: little-endian nibbles (element i is bits 4i..4i+3
// of the payload), each sign, 2 exponent bits and 1 mantissa bit (0, 0.5, 1, 1.5, 2, 3, 4, 6),
// times its group's e8m0 scale 2^(s - 127) (255: NaN of the element's sign), computed exactly in
// f32 and rounded once to the result type.
void Lowering::Impl::lowerDecode(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  const Value *schema = op.operandNamed("schema");
  const loom::Attribute *encoding = schema ? lowered(schema).encoding : nullptr;
  const loom::Attribute *format = encoding ? encoding->get("element_format") : nullptr;
  if (!format || format->str() != "f4e2m1")
    unsupported(op, "vector.decode is implemented for fp8 values and f4e2m1 payloads");
  if (const loom::Attribute *packing = encoding->get("payload_packing");
      packing && packing->str() != "little_endian_nibbles")
    unsupported(op, "f4e2m1 payloads are decoded from little-endian nibbles only");
  const loom::Type &payloadType = *op.operandNamed("in")->type();
  const loom::Type &resultType = *op.result(0)->type();
  int64_t lanes = resultType.staticElementCount();
  const loom::Type *word = payloadType.elementType();
  if (lanes <= 0 || !word || !word->isInteger() || payloadType.staticElementCount() * word->width() != lanes * 4 ||
      !resultType.elementType()->isFloat())
    unsupported(op, "an f4e2m1 payload holds 4 bits per result lane, and the result is a float vector");
  llvm::Type *element = valueType(*resultType.elementType(), &op);
  DecodeScale scale = decodeScale(op, encoding, lanes);
  // f32 bits of the eight magnitudes.
  static const uint32_t kMagnitudes[8] = {0x00000000, 0x3f000000, 0x3f800000, 0x3fc00000,
                                          0x40000000, 0x40400000, 0x40800000, 0x40c00000};
  llvm::Value *table = llvm::ConstantDataVector::get(context_, llvm::ArrayRef<uint32_t>(kMagnitudes, 8));
  llvm::Value *payload = get(op.operandNamed("in"));
  unsigned wordBits = word->width();
  llvm::Value *result = llvm::PoisonValue::get(llvm::FixedVectorType::get(element, unsigned(lanes)));
  for (int64_t i = 0; i < lanes; ++i) {
    llvm::Value *w = b.CreateExtractElement(payload, uint64_t(i * 4 / wordBits));
    llvm::Value *nibble =
        b.CreateAnd(b.CreateZExtOrTrunc(b.CreateLShr(w, uint64_t(i * 4 % wordBits)), b.getInt32Ty()), 0xf);
    llvm::Value *sign = b.CreateShl(b.CreateAnd(nibble, 8), 28);
    llvm::Value *bits = b.CreateOr(b.CreateExtractElement(table, b.CreateAnd(nibble, 7)), sign);
    llvm::Value *value = applyDecodeScale(scale, b.CreateBitCast(bits, b.getFloatTy()), i);
    llvm::Value *converted = element->isFloatTy()    ? value
                             : element->isDoubleTy() ? b.CreateFPExt(value, element)
                                                     : truncateFloat(value, element);
    result = b.CreateInsertElement(result, converted, uint64_t(i));
  }
  set(op, 0, result);
}

// A fused encode's payload load and call, when nothing but the MMA (which read the values) used
// the payload.
void Lowering::Impl::eraseUnreadEncode(llvm::CallInst *encode) {
  llvm::Value *payload = encode->getArgOperand(1);
  std::vector<llvm::LoadInst *> loads;
  for (llvm::User *user : payload->users()) {
    if (user == encode) continue;
    auto *load = llvm::dyn_cast<llvm::LoadInst>(user);
    if (!load || !load->use_empty()) return;
    loads.push_back(load);
  }
  for (llvm::LoadInst *load : loads) load->eraseFromParent();
  encode->eraseFromParent();
}

// vector.mma: out = acc + lhs(m×k) · rhs(k×n), row-major fragments.
void Lowering::Impl::lowerMma(const Operation &op) {
  const Lowered &lhs = lowered(op.operandNamed("lhs"));
  const Lowered &rhs = lowered(op.operandNamed("rhs"));
  const Lowered &acc = lowered(op.operandNamed("acc"));
  // Fragments that reached here through block arguments carry no shape: only the per-lane form
  // (fixed 16x16x16 tiles) can be lowered from the types alone.
  if (lhs.fragmentShape.empty() || rhs.fragmentShape.empty()) return lowerLaneMma(op);
  if (lhs.fragmentShape.size() != 2 || rhs.fragmentShape.size() != 2)
    unsupported(op, "the operands need vector.fragment shapes [m, k] and [k, n]");
  int64_t m = lhs.fragmentShape[0], k = lhs.fragmentShape[1], n = rhs.fragmentShape[1];
  if (rhs.fragmentShape[0] != k) unsupported(op, "the fragment shapes do not chain (lhs m×k, rhs k×n)");
  llvm::Type *accType = valueType(*op.operandNamed("acc")->type(), &op);
  auto *accVector = llvm::dyn_cast<llvm::FixedVectorType>(accType);
  if (accVector && isLaneFragment({m, n}, accVector->getNumElements()) && !isBfp16ebs8(lhs.encoding))
    return lowerLaneMma(op);
  if (!accVector || accVector->getNumElements() != uint64_t(m * n))
    unsupported(op, "the accumulator must hold m×n = " + std::to_string(m * n) + " values");
  llvm::IRBuilder<> &b = *b_;
  if (isBfp16ebs8(lhs.encoding) || isBfp16ebs8(rhs.encoding)) {
    if (!isBfp16ebs8(lhs.encoding) || !isBfp16ebs8(rhs.encoding) || !accVector->getElementType()->isFloatTy())
      unsupported(op, "a bfp16ebs8 MMA needs both operands encoded and an f32 accumulator");
    auto payloadFits = [&](const char *group, int64_t values) {
      return values % 8 == 0 && op.operandNamed(group)->type()->staticElementCount() == values / 8 * 9;
    };
    if (!payloadFits("lhs", m * k) || !payloadFits("rhs", k * n))
      unsupported(op, "the bfp16ebs8 payloads must hold the m×k and k×n fragments in whole blocks of 8");
    auto spill = [&](llvm::Value *v) {
      llvm::AllocaInst *slot = entryAlloca(v->getType());
      b.CreateStore(v, slot);
      return slot;
    };
    if (m == 8 && n == 8 && k == 8 && lhs.bf16Source && rhs.bf16Source) {
      // Both operands are encodes of 64 bf16 values: the fused builtin encodes them in registers
      // (the same numerics, no payload bytes); the encodes go when nothing else reads them.
      llvm::Value *accSlot = spill(acc.value ? acc.value : get(op.operandNamed("acc")));
      llvm::AllocaInst *out = entryAlloca(accType);
      b.CreateCall(declareBuiltin(module_, kBfpMmaBf16), {lhs.bf16Source, rhs.bf16Source, accSlot, out});
      for (llvm::CallInst *encode : {lhs.bfpEncode, rhs.bfpEncode})
        if (std::find(fn_->fusedEncodes.begin(), fn_->fusedEncodes.end(), encode) == fn_->fusedEncodes.end())
          fn_->fusedEncodes.push_back(encode);
      return set(op, 0, b.CreateLoad(accType, out));
    }
    llvm::Value *lhsSlot = spill(get(op.operandNamed("lhs"))), *rhsSlot = spill(get(op.operandNamed("rhs")));
    llvm::Value *accSlot = spill(acc.value ? acc.value : get(op.operandNamed("acc")));
    llvm::AllocaInst *out = entryAlloca(accType);
    b.CreateCall(declareBuiltin(module_, kBfpMma), {lhsSlot, rhsSlot, accSlot, out, b.getInt32(uint32_t(m)),
                                                    b.getInt32(uint32_t(n)), b.getInt32(uint32_t(k))});
    return set(op, 0, b.CreateLoad(accType, out));
  }
  // Float fragments: each product in the accumulator's type, added in increasing k, one element
  // of the result after another. Loops over stack copies of the fragments rather than m·n·k
  // straight-line multiply-adds: the same operations in the same order (so the same bits), and
  // code of a size independent of the shape, which the AIE2P selector needs (its fp32 multiply is
  // a 1.1 KB integer routine, 16 KB of program memory per core). Host -O3 may unroll them again.
  llvm::Value *a = get(op.operandNamed("lhs")), *bv = get(op.operandNamed("rhs"));
  llvm::Type *accElement = accVector->getElementType();
  if (!accElement->isFloatingPointTy()) unsupported(op, "integer MMA is not implemented");
  llvm::Type *lhsElement = llvm::cast<llvm::FixedVectorType>(a->getType())->getElementType();
  llvm::Type *rhsElement = llvm::cast<llvm::FixedVectorType>(bv->getType())->getElementType();
  llvm::AllocaInst *lhsSlot = entryAlloca(a->getType()), *rhsSlot = entryAlloca(bv->getType());
  llvm::AllocaInst *out = entryAlloca(accType);
  b.CreateStore(a, lhsSlot);
  b.CreateStore(bv, rhsSlot);
  b.CreateStore(get(op.operandNamed("acc")), out);
  // lane = row * width + column, row-major
  auto lane = [&](llvm::Value *row, int64_t width, llvm::Value *column) {
    return b.CreateAdd(b.CreateMul(row, i64(width)), column);
  };
  llvm::Value *none = b.getInt1(false);  // the row and column loops carry nothing
  countedFold("mma.row", i64(0), i64(m), none, [&](llvm::Value *r, llvm::Value *) {
    return countedFold("mma.column", i64(0), i64(n), none, [&](llvm::Value *c, llvm::Value *) {
      llvm::Value *at = b.CreateInBoundsGEP(accElement, out, lane(r, n, c));
      auto step = [&](llvm::Value *i, llvm::Value *partial) {
        llvm::Value *x = b.CreateLoad(lhsElement, b.CreateInBoundsGEP(lhsElement, lhsSlot, lane(r, k, i)));
        llvm::Value *y = b.CreateLoad(rhsElement, b.CreateInBoundsGEP(rhsElement, rhsSlot, lane(i, n, c)));
        return b.CreateFAdd(partial, b.CreateFMul(extendFloat(x, accElement), extendFloat(y, accElement)));
      };
      b.CreateStore(countedFold("mma.k", i64(0), i64(k), b.CreateLoad(accElement, at), step), at);
      return none;
    });
  });
  set(op, 0, b.CreateLoad(accType, out));
}

// vector.load/store (+ masked, fragment): the vector's axes cover the trailing view axes.
void Lowering::Impl::lowerVectorMemory(const Operation &op) {
  using loom::OpCode;
  llvm::IRBuilder<> &b = *b_;
  const OpCode code = op.opcode();
  bool isLoad = code == OpCode::VectorLoad || code == OpCode::VectorLoadMask || code == OpCode::VectorFragmentLoad;
  bool masked = code == OpCode::VectorLoadMask || code == OpCode::VectorStoreMask;
  bool fragment = code == OpCode::VectorFragmentLoad || code == OpCode::VectorFragmentStore;
  std::shared_ptr<ViewValue> v = view(op, "base");
  const loom::Type &vectorType = isLoad ? *op.result(0)->type() : *op.operandNamed("value")->type();
  std::vector<int64_t> shape;
  if (fragment) {
    for (const ir::IndexEntry &e : ir::indexList(op, "shape"))
      shape.push_back(std::holds_alternative<int64_t>(e)
                          ? std::get<int64_t>(e)
                          : constantInt(op, std::get<const Value *>(e), "a fragment shape"));
  } else {
    for (const loom::Dim &d : vectorType.shape()) {
      std::optional<int64_t> n = d.isStatic() ? std::optional<int64_t>(d.extent) : constantIndex(d.dynamic);
      if (!n) unsupported(op, "vector extents must be static");
      shape.push_back(*n);
    }
  }
  auto *flat = llvm::cast<llvm::FixedVectorType>(valueType(vectorType, &op));
  int64_t total = 1;
  for (int64_t s : shape) total *= s;
  if (fragment && isLaneFragment(shape, flat->getNumElements())) return lowerLaneFragmentMemory(op, shape);
  if (fragment && isLoad) lowered(op.result(0)).fragmentShape = shape;
  if (total != int64_t(flat->getNumElements())) unsupported(op, "the fragment shape does not match the vector length");
  std::vector<llvm::Value *> start = indices(op, "indices");
  if (shape.size() > start.size()) unsupported(op, "the vector has more axes than the view");
  llvm::Align align = alignOf(*v);
  if (masked) {
    if (shape.size() != 1) unsupported(op, "masked accesses are implemented for 1-D vectors");
    llvm::Value *address = elementAddress(op, *v, start);
    if (isLoad)
      return set(op, 0, b.CreateMaskedLoad(flat, address, align, operand(op, "mask"), operand(op, "passthru")));
    b.CreateMaskedStore(operand(op, "value"), address, align, operand(op, "mask"));
    return;
  }
  // One contiguous row access per combination of the leading vector axes, or a single access
  // when the view's strides make the whole vector contiguous.
  size_t lead = start.size() - shape.size();
  auto strideIs = [&](size_t axis, int64_t expected) {
    auto *c = llvm::dyn_cast<llvm::ConstantInt>(v->strides[axis]);
    return c && c->getSExtValue() == expected;
  };
  bool contiguous = strideIs(start.size() - 1, 1);
  for (size_t j = shape.size() - 1, inner = 1; contiguous && j > 0; --j) {
    inner *= size_t(shape[j]);
    contiguous = strideIs(lead + j - 1, int64_t(inner));
  }
  int64_t rowLength = contiguous ? total : shape.back();
  int64_t rows = total / rowLength;
  auto *rowType = llvm::FixedVectorType::get(flat->getElementType(), unsigned(rowLength));
  llvm::Value *value = isLoad ? llvm::PoisonValue::get(flat) : operand(op, "value");
  for (int64_t row = 0; row < rows; ++row) {
    std::vector<llvm::Value *> at = start;
    int64_t rest = row;
    for (size_t axis = shape.size() - 1; axis-- > 0;) {
      at[lead + axis] = b.CreateAdd(at[lead + axis], i64(rest % shape[axis]));
      rest /= shape[axis];
    }
    llvm::Value *address = elementAddress(op, *v, at);
    if (rows == 1) {
      if (isLoad) return set(op, 0, b.CreateAlignedLoad(flat, address, align, volatileAccess(op)));
      b.CreateAlignedStore(value, address, align, volatileAccess(op));
      return;
    }
    if (isLoad) {
      llvm::Value *part = b.CreateAlignedLoad(rowType, address, align, volatileAccess(op));
      value = b.CreateInsertVector(flat, value, part, b.getInt64(uint64_t(row * rowLength)));
    } else {
      b.CreateAlignedStore(b.CreateExtractVector(rowType, value, b.getInt64(uint64_t(row * rowLength))), address,
                           align, volatileAccess(op));
    }
  }
  if (isLoad) set(op, 0, value);
}

// vector.reduce.axes: each result element combines, in row-major order of the reduced axes,
// the input lanes that share its kept coordinates, starting from the accumulator's element.
void Lowering::Impl::lowerReduceAxes(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  const loom::Type &in = *op.operandNamed("in")->type();
  const loom::Type &out = *op.result(0)->type();
  if (!in.hasStaticShape() || !out.hasStaticShape()) unsupported(op, "dynamic vector shapes are not implemented");
  const loom::Attribute *kindAttr = op.templateParam(0);
  std::string_view k = kindAttr ? kindAttr->str() : "";
  if (kindAttr && kindAttr->kind() == loom::AttrKind::Flags && !kindAttr->elements().empty())
    k = kindAttr->elements()[0]->str();
  auto combine = [&](llvm::Value *acc, llvm::Value *x) -> llvm::Value * {
    if (k == "addf") return b.CreateFAdd(acc, x);
    if (k == "mulf") return b.CreateFMul(acc, x);
    if (k == "addi") return b.CreateAdd(acc, x);
    if (k == "muli") return b.CreateMul(acc, x);
    if (k == "andi") return b.CreateAnd(acc, x);
    if (k == "ori") return b.CreateOr(acc, x);
    if (k == "xori") return b.CreateXor(acc, x);
    if (k == "maxsi") return b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, acc, x);
    if (k == "minsi") return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, acc, x);
    if (k == "maxui") return b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, acc, x);
    if (k == "minui") return b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, acc, x);
    if (k == "maxnumf") return b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, acc, x);
    if (k == "minnumf") return b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, acc, x);
    if (k == "maximumf") return b.CreateBinaryIntrinsic(llvm::Intrinsic::maximum, acc, x);
    if (k == "minimumf") return b.CreateBinaryIntrinsic(llvm::Intrinsic::minimum, acc, x);
    unsupported(op, "unknown combining kind '" + std::string(k) + "'");
  };
  std::vector<bool> reduced(in.rank(), false);
  for (const loom::Attribute *a : op.attr("axes")->elements()) reduced[size_t(a->integer())] = true;
  std::vector<int64_t> strides(in.rank(), 1);
  for (size_t d = in.rank(); d-- > 1;) strides[d - 1] = strides[d] * in.shape()[d].extent;
  llvm::Value *source = operand(op, "in"), *init = operand(op, "init");
  bool scalarResult = out.kind() != loom::TypeKind::Vector;
  int64_t outCount = scalarResult ? 1 : out.staticElementCount();
  llvm::Value *result = scalarResult ? nullptr : llvm::PoisonValue::get(init->getType());
  std::vector<int64_t> coord(in.rank(), 0);
  for (int64_t o = 0; o < outCount; ++o) {
    // The kept coordinates of result element o (row-major over the kept axes).
    int64_t rest = o;
    for (size_t d = in.rank(); d-- > 0;)
      if (!reduced[d]) {
        coord[d] = rest % in.shape()[d].extent;
        rest /= in.shape()[d].extent;
      }
    llvm::Value *acc = scalarResult ? init : b.CreateExtractElement(init, uint64_t(o));
    // Walk the reduced axes row-major.
    std::vector<int64_t> at = coord;
    for (size_t d = 0; d < in.rank(); ++d)
      if (reduced[d]) at[d] = 0;
    while (true) {
      int64_t lane = 0;
      for (size_t d = 0; d < in.rank(); ++d) lane += at[d] * strides[d];
      acc = combine(acc, b.CreateExtractElement(source, uint64_t(lane)));
      size_t d = in.rank();
      while (d-- > 0) {
        if (!reduced[d]) continue;
        if (++at[d] < in.shape()[d].extent) break;
        at[d] = 0;
      }
      if (d == size_t(-1)) break;
    }
    result = scalarResult ? acc : b.CreateInsertElement(result, acc, uint64_t(o));
  }
  set(op, 0, result);
}

}  // namespace hrx::bridge
