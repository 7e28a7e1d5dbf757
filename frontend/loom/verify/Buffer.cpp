// Byte-level buffer ops: buffer.pack (byte ranges laid out at minimum alignments),
// buffer.fill (a scalar pattern repeated over a byte range), buffer.load.i8/i16.{u,s} and
// buffer.store.i8/i16 (narrow accesses through an i32 at a byte offset).
#include "HookContext.h"

namespace hrx::loom::verify {

namespace {

void requireKind(const Operation &op, HookContext &ctx, std::string_view group, bool (*ok)(const Type *),
                 std::string expected) {
  for (const Value *v : op.operandGroup(group))
    if (!unknownType(v->type()) && !ok(v->type())) ctx.operandError(op, group, v->type(), expected);
}

bool isBuffer(const Type *t) { return t->kind() == TypeKind::Buffer; }
bool isOffset(const Type *t) { return t->isOffset(); }
bool isI32(const Type *t) { return t->isInteger(32); }
bool isBytePattern(const Type *t) { return (t->isInteger() && t->width() >= 8) || t->isFloat(); }

void checkPack(const Operation &op, HookContext &ctx) {
  std::span<Value *const> lengths = op.operandGroup("byte_lengths");
  if (lengths.empty()) return ctx.attrConstraint(op, "byte_lengths", "0", "at least one physical byte range");
  if (const Attribute *aligns = op.attr("minimum_alignments"))
    for (size_t k = 0; k < aligns->elements().size(); ++k) {
      int64_t a = aligns->elements()[k]->integer();
      if (a != 0 && (a < 0 || (a & (a - 1)) != 0))
        return ctx.attrConstraint(op, "minimum_alignments[" + std::to_string(k) + "]", std::to_string(a),
                                  "a positive power-of-two byte alignment");
    }
  if (op.numResults() != lengths.size() + 1)
    return ctx.countMismatch(op, "results", op.numResults(), "the total and one offset per byte range",
                             lengths.size() + 1);
  requireKind(op, ctx, "byte_lengths", isOffset, "offset");
  for (const Value &r : op.results())
    if (!unknownType(r.type()) && !r.type()->isOffset()) return ctx.resultError(op, "result", r.type(), "offset");
}

}  // namespace

void checkBufferBytesOp(const Operation &op, HookContext &ctx) {
  switch (op.opcode()) {
  case OpCode::BufferPack: return checkPack(op, ctx);
  case OpCode::BufferFill:
    requireKind(op, ctx, "pattern", isBytePattern, "a byte-addressable fixed-width integer or floating-point scalar");
    requireKind(op, ctx, "target", isBuffer, "buffer");
    requireKind(op, ctx, "target_offset", isOffset, "offset");
    requireKind(op, ctx, "byte_length", isOffset, "offset");
    return;
  case OpCode::BufferLoadI8U:
  case OpCode::BufferLoadI8S:
  case OpCode::BufferLoadI16U:
  case OpCode::BufferLoadI16S:
    requireKind(op, ctx, "source", isBuffer, "buffer");
    requireKind(op, ctx, "byte_offset", isOffset, "offset");
    return;
  case OpCode::BufferStoreI8:
  case OpCode::BufferStoreI16:
    requireKind(op, ctx, "value", isI32, "i32");
    requireKind(op, ctx, "target", isBuffer, "buffer");
    requireKind(op, ctx, "byte_offset", isOffset, "offset");
    return;
  default: return;
  }
}

}  // namespace hrx::loom::verify
