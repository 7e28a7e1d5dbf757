// #numeric_transform: a transform descriptor (family, input and output extents, and the family's
// signs, seed, permutation or matrix); vector.transform checks it against the vectors it meets.
// #turboquant_kv: a two-stage KV-cache quantizer (a transform, then a scalar Lloyd-Max stage of
// first_stage_bits per element, then residual_bits per row of a dense JL projection). Its
// record holds both stages' bits; its tables have 2^bits centroids and 2^bits - 1 thresholds.
#include "HookContext.h"

#include <optional>

namespace hrx::loom::verify {

using diag::DiagId;

namespace {

struct SchemaParams {
  const Operation &op;
  HookContext &ctx;
  std::string_view family;
  const std::map<std::string_view, const Attribute *> &fixed, &dynamic;

  diag::DiagnosticBuilder error(DiagId id, std::string_view param) {
    auto b = ctx.report(id, op);
    b.arg("encoding_name", std::string(family)).arg("param_name", std::string(param));
    return b;
  }
  const Attribute *get(std::string_view n) const {
    auto it = fixed.find(n);
    return it == fixed.end() ? nullptr : it->second;
  }
  // The encoding.define behind an operand parameter, if it is one.
  const Operation *definingEncoding(std::string_view n) const {
    auto it = dynamic.find(n);
    if (it == dynamic.end() || !it->second->value()) return nullptr;
    const Operation *def = it->second->value()->definingOp();
    return def && def->opcode() == OpCode::EncodingDefine ? def : nullptr;
  }
};

std::string_view transformFamily(const Operation &define) {
  const Attribute *enc = define.attr("encoding");
  if (!enc || enc->kind() != AttrKind::Hash) return {};
  for (const NamedAttr &e : enc->entries())
    if (e.name == "family" && e.value && (e.value->kind() == AttrKind::String || e.value->kind() == AttrKind::Ident))
      return e.value->str();
  return {};
}

// a * b + c without overflow, or nullopt.
std::optional<int64_t> mulAdd(int64_t a, int64_t b, int64_t c) {
  int64_t product, sum;
  if (__builtin_mul_overflow(a, b, &product) || __builtin_add_overflow(product, c, &sum)) return std::nullopt;
  return sum;
}

}  // namespace

void checkNumericTransformSchema(const Operation &op, HookContext &ctx, std::string_view family,
                                 const std::map<std::string_view, const Attribute *> &fixed,
                                 const std::map<std::string_view, const Attribute *> &dynamic) {
  SchemaParams p{op, ctx, family, fixed, dynamic};
  // Enumerated so target-specific knobs cannot ride along in a descriptor unchecked.
  static constexpr std::string_view kParams[] = {"family", "input_elems", "output_elems", "normalization",
                                                 "signs",  "seed",        "permutation",  "matrix"};
  for (const auto *entries : {&fixed, &dynamic})
    for (const auto &[name, value] : *entries)
      if (caseNumber(kParams, name) < 0) return (void)p.error(DiagId::EncodingUnsupportedParam, name);
  auto has = [&](std::string_view n) { return fixed.count(n) || dynamic.count(n); };
  const Attribute *familyAttr = p.get("family");
  if (!familyAttr) return (void)p.error(DiagId::EncodingMissingParam, "family");
  if (familyAttr->kind() != AttrKind::String && familyAttr->kind() != AttrKind::Ident)
    return (void)p.error(DiagId::EncodingParamKind, "family").arg("actual", "not a name").arg("expected", "a string");
  std::string_view kind = familyAttr->str();
  static constexpr std::string_view kFamilies[] = {"hadamard", "hadamard_sign", "sign_permute_hadamard", "jl_dense",
                                                   "identity"};
  if (caseNumber(kFamilies, kind) < 0)
    return (void)p.error(DiagId::EncodingParamValue, "family").arg("actual_value", std::string(kind));
  for (std::string_view extent : {"input_elems", "output_elems"}) {
    if (!has(extent)) return (void)p.error(DiagId::EncodingMissingParam, extent);
    const Attribute *value = p.get(extent);
    if (!value) continue;  // an operand extent: an index value, checked against the vector at use
    if (value->kind() != AttrKind::Integer)
      return (void)p.error(DiagId::EncodingParamKind, extent)
          .arg("actual", "not an integer")
          .arg("expected", "a positive integer");
    if (value->integer() <= 0)
      return ctx.attrConstraint(op, std::string(extent), std::to_string(value->integer()), "positive extent");
  }
  if (kind == "hadamard" && has("signs")) return (void)p.error(DiagId::EncodingUnsupportedParam, "signs");
  if (kind == "hadamard_sign") {
    if (has("signs") && has("seed"))
      return (void)p.error(DiagId::EncodingExclusiveParams, "signs").arg("param_a", "signs").arg("param_b", "seed");
    if (!has("signs") && !has("seed")) return (void)p.error(DiagId::EncodingMissingParam, "signs or seed");
  }
  if (kind == "sign_permute_hadamard" && !has("permutation"))
    return (void)p.error(DiagId::EncodingMissingParam, "permutation");
  if (kind == "jl_dense") {
    if (!has("matrix")) return (void)p.error(DiagId::EncodingMissingParam, "matrix");
    if (const Attribute *n = p.get("normalization"); n && n->str() == "orthonormal")
      return (void)p.error(DiagId::EncodingParamValue, "normalization").arg("actual_value", "orthonormal");
  }
}

void checkTurboquantSchema(const Operation &op, HookContext &ctx, std::string_view family,
                           const std::map<std::string_view, const Attribute *> &fixed,
                           const std::map<std::string_view, const Attribute *> &dynamic) {
  SchemaParams p{op, ctx, family, fixed, dynamic};
  static constexpr std::string_view kIntegers[] = {"first_stage_bits", "logical_elems", "qjl_rows", "record_bytes",
                                                   "residual_bits"};
  static constexpr std::string_view kNames[] = {"logical_element", "pack_order", "scalar_quantizer",
                                                "transform_family"};
  for (std::string_view n : {"first_stage_bits", "logical_element", "logical_elems", "pack_order", "qjl_rows",
                             "record_bytes", "residual_bits", "scalar_quantizer", "transform_family"})
    if (!p.get(n)) return (void)p.error(DiagId::EncodingMissingParam, n);
  for (std::string_view n : {"centroids", "thresholds", "transform", "qjl_transform"})
    if (!dynamic.count(n)) return (void)p.error(DiagId::EncodingMissingParam, n);
  for (std::string_view n : kIntegers)
    if (p.get(n)->kind() != AttrKind::Integer)
      return (void)p.error(DiagId::EncodingParamKind, n).arg("actual", "not an integer").arg("expected", "an integer");
  for (std::string_view n : kNames)
    if (p.get(n)->kind() != AttrKind::String && p.get(n)->kind() != AttrKind::Ident)
      return (void)p.error(DiagId::EncodingParamKind, n).arg("actual", "not a name").arg("expected", "a string");
  auto text = [&](std::string_view n) { return p.get(n)->str(); };
  auto value = [&](std::string_view n) { return p.get(n)->integer(); };
  auto unknownValue = [&](std::string_view n, std::string_view v) {
    p.error(DiagId::EncodingParamValue, n).arg("actual_value", std::string(v));
  };
  if (text("pack_order") != "lsb0") return unknownValue("pack_order", text("pack_order"));
  if (text("scalar_quantizer") != "lloyd_max") return unknownValue("scalar_quantizer", text("scalar_quantizer"));
  std::string_view element = text("logical_element");
  if (element != "f16" && element != "bf16" && element != "f32") return unknownValue("logical_element", element);
  int64_t bits = value("first_stage_bits"), residual = value("residual_bits");
  if (bits < 1 || bits > 8)
    return ctx.attrConstraint(op, "first_stage_bits", std::to_string(bits), "1 to 8 bits per element");
  if (residual < 1 || residual > 8)
    return ctx.attrConstraint(op, "residual_bits", std::to_string(residual), "1 to 8 bits per projection row");
  for (std::string_view n : {"logical_elems", "qjl_rows"})
    if (value(n) < 1) return ctx.attrConstraint(op, std::string(n), std::to_string(value(n)), "positive extent");
  // The record holds every element's first-stage code and every row's residual bits, each rounded
  // up to whole bytes.
  std::optional<int64_t> first = mulAdd(value("logical_elems"), bits, 7),
                         second = mulAdd(value("qjl_rows"), residual, 7);
  std::optional<int64_t> need = first && second ? mulAdd(*first / 8, 1, *second / 8) : std::nullopt;
  if (!need || value("record_bytes") < *need)
    return ctx.attrConstraint(op, "record_bytes", std::to_string(value("record_bytes")),
                              need ? "at least " + std::to_string(*need) + " bytes (both stages' codes)"
                                   : std::string("a record size whose stage bit counts fit i64"));
  // Tables: 2^bits float centroids and 2^bits - 1 float thresholds.
  for (auto [name, count] : {std::pair{std::string_view("centroids"), int64_t(1) << bits},
                             std::pair{std::string_view("thresholds"), (int64_t(1) << bits) - 1}}) {
    const Type *t = dynamic.at(name)->type();
    bool floatTable = t && (t->kind() == TypeKind::View || t->kind() == TypeKind::Vector) && t->rank() == 1 &&
                      t->elementType()->isFloat();
    if (!floatTable)
      return (void)p.error(DiagId::EncodingParamType, name)
          .arg("actual_type", t ? t->str() : "none")
          .arg("expected_type", "a rank-1 float view of " + std::to_string(count) + " entries");
    if (const Dim &d = t->shape()[0]; d.isStatic() && d.extent != count)
      return ctx.attrConstraint(op, std::string(name), std::to_string(d.extent),
                                std::to_string(count) + " entries for " + std::to_string(bits) + "-bit codes");
  }
  for (auto [name, want] : {std::pair{std::string_view("transform"), text("transform_family")},
                            std::pair{std::string_view("qjl_transform"), std::string_view("jl_dense")}}) {
    const Type *t = dynamic.at(name)->type();
    if (!t || t->kind() != TypeKind::Encoding || t->name() != "transform")
      return (void)p.error(DiagId::EncodingParamType, name)
          .arg("actual_type", t ? t->str() : "none")
          .arg("expected_type", "encoding<transform>");
    if (const Operation *define = p.definingEncoding(name))
      if (std::string_view got = transformFamily(*define); !got.empty() && got != want) return unknownValue(name, got);
  }
}

}  // namespace hrx::loom::verify
