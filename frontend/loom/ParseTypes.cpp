// Loom types: scalars, shaped types (tile, tensor, view, ...) with their dimensions and slots,
// and function signatures.
#include "ParserImpl.h"

namespace hrx::loom::parser_detail {

Type *Parser::parseType(Scope *scope, bool declaration) {
  if (depth_ > kMaxDepth) {
    error(DiagId::ParseTooDeep, lex_.peek()).arg("limit", (long long)kMaxDepth);
    return nullptr;
  }
  Token t = lex_.next();
  if (t.is(Tok::LParen)) return parseFunctionSignature(scope, declaration);
  if (!t.is(Tok::Ident)) {
    unexpected(t, "a type");
    return nullptr;
  }
  TypeContext &types = m_.types();
  std::string_view s = t.text;
  if (s == "index") return types.index();
  if (s == "offset") return types.offset();
  if (s == "buffer") return types.buffer();
  if (s == "group") return types.group();
  if (s == "f16") return types.floating(FloatKind::F16);
  if (s == "bf16") return types.floating(FloatKind::BF16);
  if (s == "f32") return types.floating(FloatKind::F32);
  if (s == "f64") return types.floating(FloatKind::F64);
  if (s == "f8E4M3") return types.floating(FloatKind::F8E4M3);
  if (s == "f8E5M2") return types.floating(FloatKind::F8E5M2);
  if (s.size() > 1 && s[0] == 'i' && s.find_first_not_of("0123456789", 1) == std::string_view::npos) {
    unsigned w = 0;
    std::from_chars(s.data() + 1, s.data() + s.size(), w);
    if (w == 1 || w == 2 || w == 4 || w == 8 || w == 16 || w == 32 || w == 64) return types.integer(w);
    error(DiagId::ParseUnknownType, t).arg("name", std::string(s));
    return nullptr;
  }
  auto openAngle = [&]() -> std::optional<Token> {
    if (!lex_.peek().is(Tok::Less)) {
      unexpected(lex_.peek(), "'<'");
      return std::nullopt;
    }
    return lex_.next();
  };
  auto closeAngle = [&](const Token &open) {
    if (lex_.peek().is(Tok::Greater)) {
      lex_.next();
      return true;
    }
    error(DiagId::ParseUnterminatedAngle, open);
    return false;
  };
  TypeKind shaped = s == "view"     ? TypeKind::View
                    : s == "vector" ? TypeKind::Vector
                    : s == "tensor" ? TypeKind::Tensor
                    : s == "tile"   ? TypeKind::Tile
                                    : TypeKind::Unknown;
  if (shaped != TypeKind::Unknown) {
    auto open = openAngle();
    return open ? parseShaped(shaped, *open, scope, declaration) : nullptr;
  }
  if (s == "pipeline.flow") {
    auto open = openAngle();
    if (!open) return nullptr;
    ++depth_;
    Type *tile = parseType(scope, declaration);
    --depth_;
    if (!tile || !closeAngle(*open)) return nullptr;
    return types.flow(tile);
  }
  if (s == "encoding" && !lex_.peek().is(Tok::Less)) return types.encoding("");  // any encoding
  if (s == "encoding") {
    auto open = openAngle();
    if (!open) return nullptr;
    Token role = lex_.next();
    if (!role.is(Tok::Ident)) {
      unexpected(role, "an encoding role");
      return nullptr;
    }
    if (!closeAngle(*open)) return nullptr;
    return types.encoding(role.text);
  }
  if (s == "func.ref") {
    auto open = openAngle();
    if (!open) return nullptr;
    bool yieldable = lex_.peek().isIdent("yieldable");
    if (yieldable) lex_.next();
    ++depth_;
    Type *referent = parseType(scope, declaration);
    --depth_;
    if (!referent || !closeAngle(*open)) return nullptr;
    return types.funcRef(referent, yieldable);
  }
  // Channel endpoints carry their record payload: `channel<P>`, `read<P[, mutable]>`, `write<P>`.
  if ((s == "channel" || s == "read" || s == "write") && lex_.peek().is(Tok::Less) && !lex_.peek().spaceBefore) {
    Token open = lex_.next();
    ++depth_;
    Type *payload = parseType(scope, declaration);
    --depth_;
    if (!payload) return nullptr;
    bool mutableRead = false;
    if (s == "read" && lex_.peek().is(Tok::Comma)) {
      lex_.next();
      Token mode = lex_.next();
      if (!mode.isIdent("mutable")) {
        unexpected(mode, "'mutable'");
        return nullptr;
      }
      mutableRead = true;
    }
    if (!closeAngle(open)) return nullptr;
    return types.channelAccess(s, payload, mutableRead);
  }
  // Types outside the Phase-1 subset are kept by spelling.
  static const std::string_view kOpaque[] = {"pool", "channel", "read", "write", "reg"};
  bool known = s.find('.') != std::string_view::npos;
  for (std::string_view k : kOpaque) known |= s == k;
  if (!known) {
    error(DiagId::ParseUnknownType, t).arg("name", std::string(s));
    return nullptr;
  }
  uint32_t end = t.end();
  if (lex_.peek().is(Tok::Less) && !lex_.peek().spaceBefore) {
    Token open = lex_.next();
    int depth = 1;
    while (depth > 0) {
      Token n = lex_.next();
      if (n.is(Tok::Eof) || n.lineStart) {
        error(DiagId::ParseUnterminatedAngle, open);
        return nullptr;
      }
      if (n.is(Tok::Less)) ++depth;
      if (n.is(Tok::Greater)) --depth;
      end = n.end();
    }
  }
  return types.opaque(lex_.buffer().substr(t.offset, end - t.offset));
}

// `(A, ...) -> (R, ...)` (or `-> R`) after its '(': a function signature type.
Type *Parser::parseFunctionSignature(Scope *scope, bool declaration) {
  auto list = [&](std::vector<Type *> &out) {
    if (lex_.peek().is(Tok::RParen)) {
      lex_.next();
      return true;
    }
    for (;;) {
      ++depth_;
      Type *t = parseType(scope, declaration);
      --depth_;
      if (!t) return false;
      out.push_back(t);
      Token n = lex_.next();
      if (n.is(Tok::RParen)) return true;
      if (!n.is(Tok::Comma)) {
        unexpected(n, "',' or ')'");
        return false;
      }
    }
  };
  std::vector<Type *> inputs, results;
  if (!list(inputs)) return nullptr;
  if (lex_.peek().is(Tok::Arrow)) {
    lex_.next();
    if (lex_.peek().is(Tok::LParen)) {
      lex_.next();
      if (!list(results)) return nullptr;
    } else {
      ++depth_;
      Type *t = parseType(scope, declaration);
      --depth_;
      if (!t) return nullptr;
      results.push_back(t);
    }
  }
  return m_.types().functionSignature(inputs, results);
}

Type *Parser::parseShaped(TypeKind kind, const Token &open, Scope *scope, bool declaration) {
  std::string_view buf = lex_.buffer();
  uint32_t pos = open.end();
  std::vector<Dim> dims;
  auto skipSpace = [&] {
    while (pos < buf.size() && (buf[pos] == ' ' || buf[pos] == '\t')) ++pos;
  };
  auto dimError = [&](std::string detail) {
    diags_.report(DiagId::ParseInvalidType, {lex_.loc(pos), lex_.loc(pos + 1)}).arg("detail", std::move(detail));
    lex_.resetTo(pos);
    return nullptr;
  };
  for (;;) {
    skipSpace();
    if (pos >= buf.size()) break;
    Dim d;
    if (buf[pos] >= '0' && buf[pos] <= '9') {
      uint32_t start = pos;
      while (pos < buf.size() && buf[pos] >= '0' && buf[pos] <= '9') ++pos;
      auto [p, ec] = std::from_chars(buf.data() + start, buf.data() + pos, d.extent);
      if (ec != std::errc()) return dimError("dimension does not fit in 64 bits");
    } else if (buf[pos] == '[') {
      ++pos;
      skipSpace();
      if (pos >= buf.size() || buf[pos] != '%') return dimError("a dynamic dimension is written [%name]");
      uint32_t start = pos++;
      while (pos < buf.size() &&
             (std::isalnum(static_cast<unsigned char>(buf[pos])) || buf[pos] == '_' || buf[pos] == '$'))
        ++pos;
      Token nameTok;
      nameTok.kind = Tok::ValueId;
      nameTok.text = buf.substr(start, pos - start);
      nameTok.offset = start;
      skipSpace();
      if (pos >= buf.size() || buf[pos] != ']') return dimError("expected ']' after the dynamic dimension");
      ++pos;
      Value *v = nameTok.text.size() > 1 ? lookupValue(nameTok, scope, declaration) : nullptr;
      if (!v) {
        lex_.resetTo(pos);
        return nullptr;
      }
      d.dynamic = v;
    } else {
      break;
    }
    skipSpace();
    if (pos >= buf.size() || buf[pos] != 'x') return dimError("expected 'x' after a dimension");
    ++pos;
    dims.push_back(d);
  }
  lex_.resetTo(pos);
  ++depth_;
  Type *element = parseType(scope, declaration);
  --depth_;
  if (!element) return nullptr;
  TypeSlot slot;
  if (lex_.peek().is(Tok::Comma)) {
    lex_.next();
    Token t = lex_.peek();
    if (t.is(Tok::ValueId)) {
      lex_.next();
      slot.value = lookupValue(t, scope, declaration);
      if (!slot.value) return nullptr;
    } else if (t.isIdent("align") && lex_.peek(1).is(Tok::LParen)) {
      // `view<8xf16, align(1)>`: a dense view whose accesses are only N-byte aligned.
      lex_.next();
      lex_.next();
      Token n = lex_.next();
      int64_t align = 0;
      if (!n.is(Tok::Integer) || !parseInteger(n, align) || align <= 0 || (align & (align - 1))) {
        unexpected(n, "a power-of-two alignment");
        return nullptr;
      }
      if (!expect(Tok::RParen)) return nullptr;
      slot.attr = m_.attrs().predicate("align", {m_.attrs().integer(align)});
    } else {
      slot.attr = parseAttrValue(nullptr);
      if (!slot.attr) return nullptr;
    }
  }
  if (!lex_.peek().is(Tok::Greater)) {
    error(DiagId::ParseUnterminatedAngle, open);
    return nullptr;
  }
  lex_.next();
  return m_.types().shaped(kind, dims, element, slot);
}

}  // namespace hrx::loom::parser_detail
