// metadata.module "key" = value: module metadata records, kept as text. The key is a non-empty
// string (STRUCTURE/027) recorded once per module (STRUCTURE/051).
#include "HookContext.h"

#include <optional>

namespace hrx::loom::verify {

using diag::DiagId;

namespace {

// The key the record's text starts with, unquoted; nullopt when the text starts otherwise.
std::optional<std::string_view> recordKey(const Operation &op) {
  std::span<const std::string_view> text = op.opaqueText();
  if (text.empty()) return std::nullopt;
  std::string_view s = text[0];
  while (s.starts_with(' ')) s.remove_prefix(1);
  if (!s.starts_with('"')) return std::nullopt;
  size_t end = s.find('"', 1);
  if (end == std::string_view::npos) return std::nullopt;
  return s.substr(1, end - 1);
}

}  // namespace

void checkMetadataOp(const Operation &op, HookContext &ctx) {
  std::optional<std::string_view> key = recordKey(op);
  if (!key || key->empty()) {
    ctx.report(DiagId::StructureAttrValue, op)
        .arg("op", std::string(op.name()))
        .arg("attr_name", "key")
        .arg("actual_value", key ? "" : "(not a string)")
        .arg("expected_constraint", "a non-empty string");
    return;
  }
  if (!ctx.module()) return;
  for (const Operation &earlier : ctx.module()->body()) {
    if (&earlier == &op) break;
    if (earlier.opcode() == OpCode::MetadataModule && recordKey(earlier) == key) {
      ctx.report(DiagId::StructureDuplicateRecord, op)
          .arg("op_name", std::string(op.name()))
          .arg("record_key", std::string(*key))
          .note(earlier.loc(), "first recorded here");
      return;
    }
  }
}

}  // namespace hrx::loom::verify
