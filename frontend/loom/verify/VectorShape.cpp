// Register-level vector reshaping and grouped arithmetic: vector.slice, concat, transpose,
// shuffle, interleave, deinterleave, table.lookup and table.quantize, the grouped dots (dot2f,
// dot4i, dot8i4, dot4f8), numeric transforms and bit unpacking. Static facts only: a dynamic
// extent is checked when the vector is built.
#include "HookContext.h"

#include <bit>
#include <optional>
#include <set>
#include <vector>

namespace hrx::loom::verify {

using diag::DiagId;

namespace {

const Type *typeOf(const Operation &op, std::string_view name) {
  Value *v = op.operandNamed(name);
  return v ? v->type() : nullptr;
}

bool isVector(const Type *t) { return t && t->kind() == TypeKind::Vector; }

// An attribute list's entries as static integers (nullopt for an SSA entry).
std::vector<std::optional<int64_t>> staticEntries(const Attribute *list) {
  std::vector<std::optional<int64_t>> out;
  if (!list) return out;
  for (const Attribute *a : list->elements())
    out.push_back(a->kind() == AttrKind::Integer ? std::optional<int64_t>(a->integer()) : std::nullopt);
  return out;
}

std::optional<int64_t> templateInt(const Operation &op) {
  const Attribute *a = op.templateParam(0);
  if (!a || a->kind() != AttrKind::Integer) return std::nullopt;
  return a->integer();
}

void axisOutOfRange(const Operation &op, HookContext &ctx, int64_t axis, size_t rank, std::string field) {
  ctx.report(DiagId::SubrangeAxisOutOfRange, op)
      .arg("op", std::string(op.name()))
      .arg("axis", std::to_string(axis))
      .arg("rank", std::to_string(rank))
      .arg("field", std::move(field));
}

void rankMismatch(const Operation &op, HookContext &ctx, std::string fa, size_t ra, std::string fb, size_t rb) {
  ctx.report(DiagId::ShapeRankMismatch, op)
      .arg("op", std::string(op.name()))
      .arg("field_a", std::move(fa))
      .arg("rank_a", std::to_string(ra))
      .arg("field_b", std::move(fb))
      .arg("rank_b", std::to_string(rb));
}

void outOfBounds(const Operation &op, HookContext &ctx, std::string detail, const Type *of) {
  ctx.report(DiagId::SubrangeOutOfBounds, op)
      .arg("op", std::string(op.name()))
      .arg("detail", std::move(detail))
      .arg("type", of->str());
}

// Every axis but `skip` has the same static extent in both (SHAPE/002 otherwise).
bool sameOffAxis(const Operation &op, HookContext &ctx, const Type *a, std::string fa, const Type *b, std::string fb,
                 size_t skip) {
  for (size_t d = 0; d < a->rank() && d < b->rank(); ++d) {
    const Dim &x = a->shape()[d], &y = b->shape()[d];
    if (d != skip && x.isStatic() && y.isStatic() && x.extent != y.extent) {
      ctx.shapeMismatch(op, std::move(fa), a, std::move(fb), b);
      return false;
    }
  }
  return true;
}

bool sameElement(const Operation &op, HookContext &ctx, const Type *a, std::string fa, const Type *b, std::string fb) {
  if (a->elementType() == b->elementType()) return true;
  ctx.elementMismatch(op, std::move(fa), a, std::move(fb), b);
  return false;
}

// Lane indices: index or a non-i1 integer element.
bool laneIndexElement(const Type *t) {
  const Type *e = t->elementType();
  return e->isIndex() || (e->isInteger() && e->width() > 1);
}

void checkSlice(const Operation &op, HookContext &ctx, const Type *in, const Type *r) {
  auto offsets = staticEntries(op.attr("offset"));
  if (offsets.size() != in->rank()) return ctx.indexCountMismatch(op, "source", offsets.size(), in->rank());
  if (r->rank() != in->rank()) return rankMismatch(op, ctx, "source rank", in->rank(), "result rank", r->rank());
  if (!sameElement(op, ctx, in, "source", r, "result")) return;
  for (size_t d = 0; d < in->rank(); ++d) {
    const Dim &src = in->shape()[d], &res = r->shape()[d];
    if (!offsets[d] || !src.isStatic()) continue;
    int64_t start = *offsets[d];
    bool past = res.isStatic() ? start < 0 || start + res.extent > src.extent : start < 0 || start > src.extent;
    if (past)
      return outOfBounds(op, ctx,
                         (res.isStatic() ? std::to_string(res.extent) + " lanes" : std::string("lanes")) +
                             " from offset " + std::to_string(start) + " on axis " + std::to_string(d),
                         in);
  }
}

// concat<axis> and interleave<axis>: two inputs of one rank; the result keeps every other axis
// and on `axis` holds the sum (concat) or twice (interleave) of the inputs' extents.
void checkJoin(const Operation &op, HookContext &ctx, const Type *lhs, const Type *rhs, const Type *r) {
  bool interleave = op.opcode() == OpCode::VectorInterleave;
  std::optional<int64_t> axis = templateInt(op);
  if (!axis) return ctx.attrConstraint(op, "axis", "missing", "a static axis number");
  size_t rank = interleave ? lhs->rank() : r->rank();
  if (*axis < 0 || size_t(*axis) >= rank)
    return axisOutOfRange(op, ctx, *axis, rank, interleave ? "the inputs" : "the result");
  size_t a = size_t(*axis);
  if (interleave && lhs != rhs) return ctx.fieldMismatch(op, "lhs", lhs, "rhs", rhs);
  for (const auto &[name, t] : {std::pair{"lhs", lhs}, std::pair{"rhs", rhs}})
    if (t->rank() != r->rank())
      return rankMismatch(op, ctx, std::string(name) + " rank", t->rank(), "result rank", r->rank());
  if (!sameElement(op, ctx, lhs, "lhs", r, "result") || !sameElement(op, ctx, rhs, "rhs", r, "result")) return;
  if (!sameOffAxis(op, ctx, lhs, "lhs", r, "result", a) || !sameOffAxis(op, ctx, rhs, "rhs", r, "result", a)) return;
  const Dim &x = lhs->shape()[a], &y = rhs->shape()[a], &z = r->shape()[a];
  if (!x.isStatic() || !y.isStatic() || !z.isStatic()) return;
  int64_t want = interleave ? 2 * x.extent : x.extent + y.extent;
  if (z.extent != want)
    ctx.resultError(op, "result", r, std::string(interleave ? "interleave" : "concat") + " axis extent");
}

void checkDeinterleave(const Operation &op, HookContext &ctx, const Type *in) {
  std::optional<int64_t> axis = templateInt(op);
  if (!axis) return ctx.attrConstraint(op, "axis", "missing", "a static axis number");
  if (*axis < 0 || size_t(*axis) >= in->rank()) return axisOutOfRange(op, ctx, *axis, in->rank(), "the source");
  if (op.numResults() != 2) return ctx.countMismatch(op, "result", op.numResults(), "even and odd halves", 2);
  size_t a = size_t(*axis);
  const Dim &src = in->shape()[a];
  if (src.isStatic() && src.extent % 2 != 0) return ctx.operandError(op, "source", in, "even deinterleave axis extent");
  for (unsigned k = 0; k < 2; ++k) {
    const Type *r = op.result(k)->type();
    if (unknownType(r)) continue;
    if (!isVector(r)) return ctx.resultError(op, "result", r, "a vector");
    if (r->rank() != in->rank()) return rankMismatch(op, ctx, "source rank", in->rank(), "result rank", r->rank());
    if (!sameElement(op, ctx, in, "source", r, "result") || !sameOffAxis(op, ctx, in, "source", r, "result", a)) return;
    const Dim &half = r->shape()[a];
    if (src.isStatic() && half.isStatic() && half.extent * 2 != src.extent)
      return ctx.resultError(op, "result", r, "deinterleave axis extent");
  }
}

void checkTranspose(const Operation &op, HookContext &ctx, const Type *in, const Type *r) {
  const Attribute *perm = op.templateParam(0);
  auto axes = staticEntries(perm && perm->kind() == AttrKind::Array ? perm : nullptr);
  if (axes.size() != in->rank()) return ctx.countMismatch(op, "permutation", axes.size(), "source rank", in->rank());
  std::set<int64_t> seen;
  for (const auto &axis : axes)
    if (!axis || *axis < 0 || size_t(*axis) >= in->rank() || !seen.insert(*axis).second)
      return ctx.attrConstraint(op, "permutation", axis ? std::to_string(*axis) : "an SSA value",
                                "each source axis 0 to " + std::to_string(in->rank() - 1) + " exactly once");
  if (r->rank() != in->rank()) return rankMismatch(op, ctx, "source rank", in->rank(), "result rank", r->rank());
  if (!sameElement(op, ctx, in, "source", r, "result")) return;
  for (size_t d = 0; d < r->rank(); ++d)
    if (r->shape()[d] != in->shape()[size_t(*axes[d])])
      return ctx.shapeMismatch(op, "source permuted", in, "result", r);
}

void checkShuffle(const Operation &op, HookContext &ctx, const Type *in) {
  if (in->rank() != 1 || !in->hasStaticShape()) return ctx.operandError(op, "in", in, "all-static rank-1 vector");
  const Attribute *lanesAttr = op.templateParam(0);
  auto lanes = staticEntries(lanesAttr && lanesAttr->kind() == AttrKind::Array ? lanesAttr : nullptr);
  int64_t n = in->shape()[0].extent;
  if (int64_t(lanes.size()) != n) return ctx.countMismatch(op, "source_lanes", lanes.size(), "vector lanes", size_t(n));
  for (size_t k = 0; k < lanes.size(); ++k)
    if (!lanes[k] || *lanes[k] < 0 || *lanes[k] >= n)
      return outOfBounds(
          op, ctx, "source lane " + (lanes[k] ? std::to_string(*lanes[k]) : "?") + " (entry " + std::to_string(k) + ")",
          in);
}

// A vector.constant splat's integer value, if `v` is one.
std::optional<int64_t> splatInteger(const Value *v) {
  const Operation *def = v ? v->definingOp() : nullptr;
  if (!def || def->opcode() != OpCode::VectorConstant) return std::nullopt;
  const Attribute *value = def->attr("value");
  if (!value || value->kind() != AttrKind::Integer) return std::nullopt;
  return value->integer();
}

void checkTableLookup(const Operation &op, HookContext &ctx, const Type *r) {
  const Type *table = typeOf(op, "table"), *codes = typeOf(op, "codes");
  if (unknownType(table) || unknownType(codes)) return;
  if (!isVector(table) || table->rank() != 1) return ctx.operandError(op, "table", table, "rank-1 vector");
  if (!isVector(codes) || !laneIndexElement(codes))
    return ctx.operandError(op, "indices", codes, "index or non-i1 integer element type");
  if (unknownType(r) || !isVector(r)) return;
  if (r->shape().size() != codes->shape().size() ||
      !std::equal(r->shape().begin(), r->shape().end(), codes->shape().begin()))
    return ctx.shapeMismatch(op, "indices", codes, "result", r);
  if (!sameElement(op, ctx, r, "result", table, "table")) return;
  const Dim &n = table->shape()[0];
  if (std::optional<int64_t> code = splatInteger(op.operandNamed("codes")); code && n.isStatic())
    if (*code < 0 || *code >= n.extent) outOfBounds(op, ctx, "table entry " + std::to_string(*code), table);
}

// The scalar.constant attributes a vector.from_elements builds `v` from (nullopt when `v` is not
// built so, or an entry is not a constant of `kinds`).
std::optional<std::vector<const Attribute *>> constantEntries(const Value *v, std::initializer_list<AttrKind> kinds) {
  const Operation *def = v ? v->definingOp() : nullptr;
  if (!def || def->opcode() != OpCode::VectorFromElements) return std::nullopt;
  std::vector<const Attribute *> out;
  for (const Value *e : def->operandGroup("elements")) {
    const Operation *c = e ? e->definingOp() : nullptr;
    const Attribute *value = c && c->opcode() == OpCode::ScalarConstant ? c->attr("value") : nullptr;
    if (!value || std::find(kinds.begin(), kinds.end(), value->kind()) == kinds.end()) return std::nullopt;
    out.push_back(value);
  }
  return out;
}

double numericValue(const Attribute *a) { return a->kind() == AttrKind::Float ? a->floating() : double(a->integer()); }

bool sameDims(const Type *a, const Type *b) {
  return a->shape().size() == b->shape().size() && std::equal(a->shape().begin(), a->shape().end(), b->shape().begin());
}

// vector.table.quantize: float lanes binned by rank-1 nondecreasing float thresholds into
// unsigned integer codes 0..N (N thresholds). Both edge policies are spelled out.
void checkTableQuantize(const Operation &op, HookContext &ctx, const Type *r) {
  for (std::string_view policy : {"nan", "tie"}) {
    const Attribute *a = op.attr(policy);
    if (a && a->kind() == AttrKind::Ident) continue;
    ctx.report(DiagId::TypeLiteralKind, op)
        .arg("op", std::string(op.name()))
        .arg("attr_name", std::string(policy))
        .arg("actual", a ? "not a policy name" : "missing")
        .arg("expected", policy == "nan" ? "a NaN policy (such as nan = zero)" : "a tie policy (such as tie = lower)");
  }
  const Type *input = typeOf(op, "input"), *thresholds = typeOf(op, "thresholds");
  if (unknownType(input) || unknownType(thresholds)) return;
  bool ok = true;
  if (!isVector(input) || !input->elementType()->isFloat()) {
    ctx.operandError(op, "input", input, "float_element");
    ok = false;
  }
  if (!isVector(thresholds) || thresholds->rank() != 1) {
    ctx.operandError(op, "thresholds", thresholds, "rank-1 vector");
    ok = false;
  } else if (!thresholds->elementType()->isFloat()) {
    ctx.operandError(op, "thresholds", thresholds, "float_element");
    ok = false;
  }
  if (!ok || unknownType(r)) return;
  if (!isVector(r) || !r->elementType()->isInteger()) return ctx.resultError(op, "result", r, "integer_element");
  if (!sameDims(input, r)) return ctx.shapeMismatch(op, "input", input, "result", r);
  if (!sameElement(op, ctx, thresholds, "thresholds", input, "input")) return;
  if (const Dim &n = thresholds->shape()[0]; n.isStatic() && n.extent >= 0) {
    unsigned bits = unsigned(std::bit_width(uint64_t(n.extent)));
    if (r->elementType()->width() < bits) {
      ctx.report(DiagId::TypeElementCapacity, op)
          .arg("op", std::string(op.name()))
          .arg("field", "result")
          .arg("actual", r->str())
          .arg("element_bits", std::to_string(r->elementType()->width()))
          .arg("max_code", std::to_string(n.extent))
          .arg("required_bits", std::to_string(bits));
      return;
    }
  }
  // Binary search over the thresholds is only meaningful when they do not decrease.
  if (auto entries = constantEntries(op.operandNamed("thresholds"), {AttrKind::Float, AttrKind::Integer}))
    for (size_t k = 0; k + 1 < entries->size(); ++k)
      if (numericValue((*entries)[k]) > numericValue((*entries)[k + 1])) {
        ctx.report(DiagId::StructureUnordered, op)
            .arg("op", std::string(op.name()))
            .arg("field", "thresholds")
            .arg("index", std::to_string(k))
            .arg("next_index", std::to_string(k + 1));
        return;
      }
}

// vector.dot4f8<lhs rhs>: each i32 lane holds four f8 fields (fp8 = e4m3, bf8 = e5m2) dotted into
// the matching f32 accumulator lane.
void checkDot4f8(const Operation &op, HookContext &ctx) {
  static constexpr std::string_view kKinds[] = {"fp8fp8", "fp8bf8", "bf8fp8", "bf8bf8"};
  const Attribute *kind = op.templateParam(0);
  if (op.templateParams().size() != 1 || kind->kind() != AttrKind::Ident || caseNumber(kKinds, kind->str()) < 0)
    ctx.attrConstraint(op, "kind",
                       op.templateParams().size() != 1   ? std::to_string(op.templateParams().size()) + " parameters"
                       : kind->kind() == AttrKind::Ident ? std::string(kind->str())
                                                         : "not a kind name",
                       "fp8fp8, fp8bf8, bf8fp8 or bf8bf8");
  // The parser ties rhs to lhs's written type: lhs speaks for both.
  const Type *lhs = typeOf(op, "lhs"), *acc = typeOf(op, "acc");
  if (unknownType(lhs) || unknownType(acc)) return;
  bool ok = true;
  if (!isVector(lhs) || !lhs->elementType()->isInteger(32)) {
    ctx.operandError(op, "lhs", lhs, "i32 element type");
    ok = false;
  }
  const Type *accElement = isVector(acc) ? acc->elementType() : nullptr;
  if (!accElement || !accElement->isFloat() || accElement->floatKind() != FloatKind::F32) {
    ctx.operandError(op, "acc", acc, "f32 element type");
    ok = false;
  }
  if (ok && !sameDims(lhs, acc)) ctx.shapeMismatch(op, "lhs", lhs, "acc", acc);
}

// The parameters of the encoding.define behind a transform operand: static (`#f<k=v>`) and
// operand (`{k = %v : T}`) entries.
struct TransformDescriptor {
  const Operation *define = nullptr;
  std::string_view family;  // hadamard, hadamard_sign, sign_permute_hadamard, jl_dense, identity
  std::map<std::string_view, const Attribute *> fixed, dynamic;
};

std::optional<TransformDescriptor> transformDescriptor(const Value *v) {
  const Operation *def = v ? v->definingOp() : nullptr;
  if (!def || def->opcode() != OpCode::EncodingDefine) return std::nullopt;
  const Attribute *enc = def->attr("encoding");
  if (!enc || enc->kind() != AttrKind::Hash) return std::nullopt;
  TransformDescriptor d;
  d.define = def;
  for (const NamedAttr &e : enc->entries())
    if (!e.name.empty() && e.value) d.fixed[e.name] = e.value;
  for (const NamedAttr &a : def->attributes())
    if (a.name.empty() && a.value && a.value->kind() == AttrKind::Dict)
      for (const NamedAttr &e : a.value->entries())
        if (e.value && e.value->kind() == AttrKind::ValueRef) d.dynamic[e.name] = e.value;
  // `#transform.hadamard<...>` names its family; `#numeric_transform<family="...">` states it.
  if (enc->str().starts_with("transform.")) {
    d.family = enc->str().substr(std::string_view("transform.").size());
  } else if (enc->str() == "numeric_transform") {
    auto it = d.fixed.find("family");
    if (it != d.fixed.end() && (it->second->kind() == AttrKind::String || it->second->kind() == AttrKind::Ident))
      d.family = it->second->str();
  } else {
    return std::nullopt;
  }
  return d;
}

// ENCODING/009 at the descriptor: a parameter that does not fit the vector it transforms.
void descriptorParamType(const Operation &op, HookContext &ctx, const TransformDescriptor &d, std::string_view param,
                         const Type *actual, std::string expected) {
  ctx.report(DiagId::EncodingParamType, *d.define)
      .arg("encoding_name", "numeric_transform")
      .arg("param_name", std::string(param))
      .arg("actual_type", actual ? actual->str() : "none")
      .arg("expected_type", std::move(expected))
      .note(op.loc(), "used by this vector.transform");
}

// A static or operand extent parameter against a vector's last axis (false: reported).
bool extentMatches(const Operation &op, HookContext &ctx, const TransformDescriptor &d, std::string_view param,
                   const Type *vector, bool isResult) {
  const Dim &last = vector->shape().back();
  std::string_view kind;
  if (auto it = d.fixed.find(param); it != d.fixed.end()) {
    // A non-positive extent is the descriptor's error (STRUCTURE/014 at the encoding.define).
    const Attribute *extent = it->second;
    if (extent->kind() == AttrKind::Integer && extent->integer() > 0 && last.isStatic() &&
        last.extent != extent->integer())
      kind = "static";
  } else if (auto dyn = d.dynamic.find(param); dyn != d.dynamic.end()) {
    if (!last.isStatic() && dyn->second->value() && last.dynamic != dyn->second->value()) kind = "dynamic";
  }
  if (kind.empty()) return true;
  std::string expected = "last axis matching " + std::string(kind) + " transform extent";
  if (isResult)
    ctx.resultError(op, "result", vector, std::move(expected));
  else
    ctx.operandError(op, "input", vector, std::move(expected));
  return false;
}

// vector.transform: a numeric transform over the last axis; leading axes are independent batches.
void checkTransform(const Operation &op, HookContext &ctx, const Type *r) {
  const Type *input = typeOf(op, "input"), *xf = typeOf(op, "transform");
  if (unknownType(input) || unknownType(xf)) return;
  if (xf->kind() != TypeKind::Encoding || xf->name() != "transform")
    return ctx.operandError(op, "transform", xf, "encoding<transform>");
  if (!isVector(input) || input->rank() == 0 || !input->elementType()->isFloat())
    return ctx.operandError(op, "input", input, "a floating-point vector with at least one axis");
  if (unknownType(r)) return;
  if (!isVector(r) || r->rank() != input->rank())
    return ctx.resultError(op, "result", r, "a vector of the input's rank");
  if (!sameElement(op, ctx, input, "input", r, "result")) return;
  size_t last = input->rank() - 1;
  if (!sameOffAxis(op, ctx, input, "input", r, "result", last)) return;
  std::optional<TransformDescriptor> d = transformDescriptor(op.operandNamed("transform"));
  if (!d) return;  // a descriptor passed in: its facts are checked where it is defined
  if (!extentMatches(op, ctx, *d, "input_elems", input, false) || !extentMatches(op, ctx, *d, "output_elems", r, true))
    return;
  const Dim &inLast = input->shape()[last], &outLast = r->shape()[last];
  if (d->family == "hadamard" || d->family == "hadamard_sign" || d->family == "sign_permute_hadamard") {
    if (inLast.isStatic() && !std::has_single_bit(uint64_t(std::max<int64_t>(inLast.extent, 0))))
      return ctx.operandError(op, "input", input, "power-of-two last axis extent for Hadamard transform");
    if (!sameDims(input, r)) return ctx.shapeMismatch(op, "input", input, "result", r);
  }
  if (auto it = d->dynamic.find("signs"); it != d->dynamic.end()) {
    // One sign per source lane: the whole source shape, or one last axis shared by the batches.
    const Type *signs = it->second->type();
    bool fits = signs && isVector(signs) && signs->elementType()->isInteger(1) &&
                (sameDims(signs, input) || (signs->rank() == 1 && signs->shape()[0] == inLast));
    if (!fits) return descriptorParamType(op, ctx, *d, "signs", signs, "an i1 vector shaped like " + input->str());
  }
  if (auto it = d->dynamic.find("permutation"); it != d->dynamic.end() && inLast.isStatic())
    if (auto lanes = constantEntries(it->second->value(), {AttrKind::Integer})) {
      std::set<int64_t> seen;
      for (size_t k = 0; k < lanes->size(); ++k) {
        int64_t lane = (*lanes)[k]->integer();
        if (lane < 0 || lane >= inLast.extent)
          return outOfBounds(
              op, ctx, "source lane " + std::to_string(lane) + " (permutation entry " + std::to_string(k) + ")", input);
        if (!seen.insert(lane).second)
          return ctx.attrConstraint(op, "permutation", std::to_string(lane), "unique lane indices");
      }
    }
  if (auto it = d->dynamic.find("matrix"); it != d->dynamic.end()) {
    // The matrix multiplies source lanes directly: output x input extents of the source's type.
    const Type *m = it->second->type();
    bool fits = m && isVector(m) && m->rank() == 2 && m->elementType() == input->elementType() &&
                (!inLast.isStatic() || !m->shape()[1].isStatic() || m->shape()[1] == inLast) &&
                (!outLast.isStatic() || !m->shape()[0].isStatic() || m->shape()[0] == outLast);
    if (!fits)
      return descriptorParamType(op, ctx, *d, "matrix", m,
                                 "rank-2 source-element-type matrix matching output x input extents");
  }
}

// Grouped dots: lhs and rhs of one source element family; the accumulator keeps the leading axes
// and holds one lane per `group` source lanes on the last axis (group 1: lane-wise, one type).
void checkGroupedDot(const Operation &op, HookContext &ctx) {
  const Type *lhs = typeOf(op, "lhs"), *rhs = typeOf(op, "rhs"), *acc = typeOf(op, "acc");
  if (unknownType(lhs) || unknownType(rhs) || unknownType(acc)) return;
  struct Form {
    size_t group;
    std::string_view source, accumulator;
    bool (*sourceOk)(const Type *);
    bool (*accOk)(const Type *);
  };
  auto f16or = [](const Type *e) {
    return e->isFloat() && (e->floatKind() == FloatKind::F16 || e->floatKind() == FloatKind::BF16);
  };
  auto f32 = [](const Type *e) { return e->isFloat() && e->floatKind() == FloatKind::F32; };
  auto i8 = [](const Type *e) { return e->isInteger(8); };
  auto i32 = [](const Type *e) { return e->isInteger(32); };
  Form form = op.opcode() == OpCode::VectorDot2f   ? Form{2, "f16 or bf16", "f32", f16or, f32}
              : op.opcode() == OpCode::VectorDot4i ? Form{4, "i8", "i32", i8, i32}
                                                   : Form{1, "i32", "i32", i32, i32};
  // vector.dot8i4 writes one type for all three (the parser checks they agree): one report.
  bool tied = form.group == 1;
  bool ok = true;
  for (const auto &[name, t] : {std::pair{"lhs", lhs}, std::pair{"rhs", rhs}})
    if ((!tied || t == lhs) && (!isVector(t) || !form.sourceOk(t->elementType()))) {
      ctx.operandError(op, name, t, std::string(form.source) + " element type");
      ok = false;
      if (tied) return;
    }
  if (tied) return;
  if (!isVector(acc) || !form.accOk(acc->elementType()))
    return ctx.operandError(op, "acc", acc, std::string(form.accumulator) + " element type");
  if (!ok) return;
  if (lhs->elementType() != rhs->elementType()) return ctx.fieldMismatch(op, "lhs", lhs, "rhs", rhs);
  if (lhs->shape().size() != rhs->shape().size() ||
      !std::equal(lhs->shape().begin(), lhs->shape().end(), rhs->shape().begin()))
    return ctx.shapeMismatch(op, "lhs", lhs, "rhs", rhs);
  if (lhs->rank() == 0) return ctx.operandError(op, "lhs", lhs, "a vector with at least one axis");
  if (acc->rank() != lhs->rank())
    return rankMismatch(op, ctx, "source rank", lhs->rank(), "accumulator rank", acc->rank());
  size_t last = lhs->rank() - 1;
  if (!sameOffAxis(op, ctx, lhs, "lhs", acc, "acc", last)) return;
  const Dim &src = lhs->shape()[last], &grouped = acc->shape()[last];
  std::string g = std::to_string(form.group);
  if (src.isStatic() && src.extent % int64_t(form.group) != 0)
    return ctx.operandError(op, "lhs", lhs, "last axis extent divisible by " + g);
  if (src.isStatic() && grouped.isStatic() && grouped.extent * int64_t(form.group) != src.extent)
    ctx.resultError(op, "result", acc, "last axis extent equal to source last axis extent divided by " + g);
}

// bitunpack<W>: each result lane recovers W bits of the source's little-endian bitstream.
void checkBitunpack(const Operation &op, HookContext &ctx, const Type *in, const Type *r) {
  std::optional<int64_t> w = templateInt(op);
  if (!w || *w <= 0) return ctx.attrConstraint(op, "width", w ? std::to_string(*w) : "missing", "positive bit width");
  if (!in->elementType()->isInteger()) return ctx.operandError(op, "source", in, "a vector of integers");
  if (!isVector(r) || !r->elementType()->isInteger()) return ctx.resultError(op, "result", r, "a vector of integers");
  if (int64_t(r->elementType()->width()) < *w)
    return ctx.resultError(op, "result", r, "element bit width at least width");
  int64_t lanes = in->staticElementCount(), resultLanes = r->staticElementCount();
  if (in->hasStaticShape() && r->hasStaticShape() && lanes * int64_t(in->elementType()->width()) != resultLanes * *w)
    ctx.resultError(op, "result", r, "unpacked payload bit count equal to source storage bit count");
}

}  // namespace

void checkVectorShapeOp(const Operation &op, HookContext &ctx) {
  const OpCode code = op.opcode();
  if (code == OpCode::VectorDot2f || code == OpCode::VectorDot4i || code == OpCode::VectorDot8i4)
    return checkGroupedDot(op, ctx);
  if (code == OpCode::VectorDot4f8) return checkDot4f8(op, ctx);
  const Type *r = op.numResults() ? op.result(0)->type() : nullptr;
  if (code == OpCode::VectorTableLookup) return checkTableLookup(op, ctx, r);
  if (code == OpCode::VectorTableQuantize) return checkTableQuantize(op, ctx, r);
  if (code == OpCode::VectorTransform) return checkTransform(op, ctx, r);
  const bool binary = code == OpCode::VectorConcat || code == OpCode::VectorInterleave;
  const Type *in = typeOf(op, binary ? "lhs" : "in");
  if (unknownType(in)) return;
  if (!isVector(in)) return ctx.operandError(op, binary ? "lhs" : "in", in, "a vector");
  if (code == OpCode::VectorShuffle) return checkShuffle(op, ctx, in);
  if (code == OpCode::VectorDeinterleave) return checkDeinterleave(op, ctx, in);
  if (unknownType(r)) return;
  if (!isVector(r)) return ctx.resultError(op, "result", r, "a vector");
  switch (code) {
  case OpCode::VectorSlice: return checkSlice(op, ctx, in, r);
  case OpCode::VectorTranspose: return checkTranspose(op, ctx, in, r);
  case OpCode::VectorConcat:
  case OpCode::VectorInterleave: {
    const Type *rhs = typeOf(op, "rhs");
    if (unknownType(rhs)) return;
    if (!isVector(rhs)) return ctx.operandError(op, "rhs", rhs, "a vector");
    return checkJoin(op, ctx, in, rhs, r);
  }
  case OpCode::VectorBitunpacku:
  case OpCode::VectorBitunpacks: return checkBitunpack(op, ctx, in, r);
  default: return;
  }
}

}  // namespace hrx::loom::verify
