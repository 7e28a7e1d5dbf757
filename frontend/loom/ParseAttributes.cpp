// Loom attributes: values by kind, `#name` attributes, dictionaries, template items and
// predicate lists.
#include "ParserImpl.h"

namespace hrx::loom::parser_detail {

Attribute *Parser::parseAttrOfKind(std::string_view kind, Scope *scope) {
  Token t = lex_.peek();
  AttrBuilder &a = m_.attrs();
  if (kind == "int" || kind == "number") {
    lex_.next();
    int64_t v;
    if (t.is(Tok::Integer)) return parseInteger(t, v) ? a.integer(v) : nullptr;
    if (kind == "number" && t.is(Tok::Float)) return a.floating(std::strtod(std::string(t.text).c_str(), nullptr));
    if (kind == "number" && (t.isIdent("true") || t.isIdent("false"))) return a.boolean(t.isIdent("true"));  // i1
    if (kind == "number" && (t.is(Tok::Ident) || t.is(Tok::String))) {
      error(DiagId::ParseInvalidFloat, t).arg("text", std::string(t.text));
      return nullptr;
    }
    if (t.is(Tok::Float)) {
      error(DiagId::ParseInvalidInteger, t).arg("text", std::string(t.text));
      return nullptr;
    }
    unexpected(t, kind == "int" ? "an integer" : "a number");
    return nullptr;
  }
  if (kind == "string") {
    lex_.next();
    if (!t.is(Tok::String)) {
      unexpected(t, "a string");
      return nullptr;
    }
    return a.string(lex_.unescape(t));
  }
  if (kind == "ident") {
    lex_.next();
    if (!t.is(Tok::Ident)) {
      unexpected(t, "an identifier");
      return nullptr;
    }
    return a.ident(t.text);
  }
  if (kind == "hash") {
    lex_.next();
    if (!t.is(Tok::HashId)) {
      unexpected(t, "an #attribute");
      return nullptr;
    }
    return parseHash(t);
  }
  if (kind == "preds") return parsePredicates(scope);
  if (kind == "type") {
    Type *ty = parseType(scope);
    return ty ? a.typeRef(ty) : nullptr;
  }
  if (kind == "attr") return parseAttrValue(nullptr);
  auto cases = enumCases(kind);
  lex_.next();
  if (!t.is(Tok::Ident)) {
    // A pipeline's argument keyword names its form.
    unexpected(t, kind == "pipeline_form" ? "'launch(...)' or 'run(...)'" : std::string(kind));
    return nullptr;
  }
  if (!contains(cases, t.text)) {
    error(DiagId::ParseUnknownEnum, t)
        .arg("kind", std::string(kind))
        .arg("value", std::string(t.text))
        .arg("expected", joinCases(cases));
    return nullptr;
  }
  return a.ident(t.text);
}

Attribute *Parser::parseTemplateItem(std::string_view kind) {
  const Token &t = lex_.peek();
  if (!t.is(Tok::Ident)) return parseAttrValue(nullptr);
  auto cases = enumCases(kind);
  std::vector<Attribute *> flags;
  for (;;) {
    Token f = lex_.next();
    if (!f.is(Tok::Ident)) {
      unexpected(f, "a flag");
      return nullptr;
    }
    if (!cases.empty() && !contains(cases, f.text)) {
      bool flagSet = isFlagSet(kind) || lex_.peek().is(Tok::Pipe) || !flags.empty();
      error(flagSet ? DiagId::ParseUnknownFlag : DiagId::ParseUnknownEnum, f)
          .arg("kind", std::string(kind))
          .arg("value", std::string(f.text))
          .arg("expected", joinCases(cases));
      return nullptr;
    }
    flags.push_back(m_.attrs().ident(f.text));
    if (!lex_.peek().is(Tok::Pipe)) break;
    lex_.next();
  }
  return flags.size() == 1 ? flags[0] : m_.attrs().flags(flags);
}

Attribute *Parser::parseHash(const Token &hashTok) {
  if (auto alias = aliases_.find(hashTok.name()); alias != aliases_.end() && !lex_.peek().is(Tok::Less))
    return alias->second;
  std::vector<NamedAttr> params;
  bool hasParams = false;
  if (lex_.peek().is(Tok::Less) && !lex_.peek().spaceBefore) {
    hasParams = true;
    Token open = lex_.next();
    ++depth_;
    while (!lex_.peek().is(Tok::Greater)) {
      NamedAttr p;
      Token t = lex_.peek();
      if (t.is(Tok::Ident) && lex_.peek(1).is(Tok::Equal)) {
        lex_.next();
        lex_.next();
        p.name = m_.arena().copyString(t.text);
        for (const NamedAttr &q : params)
          if (q.name == p.name) {
            error(DiagId::ParseDuplicateEncodingParam, t).arg("key", std::string(t.text));
            --depth_;
            return nullptr;
          }
        if (lex_.peek().is(Tok::ValueId)) {
          error(DiagId::ParseSsaInEncoding, lex_.peek()).arg("key", std::string(t.text));
          --depth_;
          return nullptr;
        }
      }
      p.value = parseAttrValue(nullptr);
      if (!p.value) {
        --depth_;
        return nullptr;
      }
      params.push_back(p);
      if (!lex_.peek().is(Tok::Comma)) break;
      lex_.next();
    }
    --depth_;
    if (!lex_.peek().is(Tok::Greater)) {
      error(DiagId::ParseUnterminatedAngle, open);
      return nullptr;
    }
    lex_.next();
  }
  return m_.attrs().hash(hashTok.name(), params, hasParams);
}

bool Parser::parseDict(std::vector<NamedAttr> &entries, Scope *valueScope, bool bare) {
  if (!bare) lex_.next();  // '{'
  bool operandDict = false;
  while (bare ? (lex_.peek().is(Tok::Ident) && !lex_.peek().lineStart) : !lex_.peek().is(Tok::RBrace)) {
    Token key = lex_.next();
    if (!key.is(Tok::Ident) && !key.is(Tok::String)) return unexpected(key, "an attribute name");
    if (!expect(Tok::Equal)) return false;
    std::string_view name = key.is(Tok::String) ? m_.arena().copyString(lex_.unescape(key)) : key.text;
    Attribute *value = parseAttrValue(valueScope);
    if (!value) return false;
    operandDict |= value->kind() == AttrKind::ValueRef;
    for (const NamedAttr &e : entries)
      if (e.name == name) {
        error(operandDict ? DiagId::ParseDuplicateOperandKey : DiagId::ParseDuplicateKey, key)
            .arg("key", std::string(name));
        return false;
      }
    entries.push_back({name, value});
    if (!lex_.peek().is(Tok::Comma)) break;
    lex_.next();
  }
  if (!bare && !expect(Tok::RBrace)) return false;
  return true;
}

Attribute *Parser::parseAttrValue(Scope *valueScope) {
  if (depth_ > kMaxDepth) {
    error(DiagId::ParseTooDeep, lex_.peek()).arg("limit", (long long)kMaxDepth);
    return nullptr;
  }
  AttrBuilder &a = m_.attrs();
  Token t = lex_.peek();
  switch (t.kind) {
  case Tok::Integer: {
    lex_.next();
    int64_t v;
    return parseInteger(t, v) ? a.integer(v) : nullptr;
  }
  case Tok::Float: lex_.next(); return a.floating(std::strtod(std::string(t.text).c_str(), nullptr));
  case Tok::String: lex_.next(); return a.string(lex_.unescape(t));
  case Tok::SymbolRef: lex_.next(); return a.symbol(t.name());
  case Tok::HashId: lex_.next(); return parseHash(t);
  case Tok::Ident: {
    if (t.text == "true" || t.text == "false") {
      lex_.next();
      return a.boolean(t.text == "true");
    }
    return parseTemplateItem("");
  }
  case Tok::ValueId: {
    lex_.next();
    if (!valueScope) {
      unexpected(t, "a static attribute value");
      return nullptr;
    }
    Value *v = lookupValue(t, valueScope);
    if (!v || !expect(Tok::Colon)) return nullptr;
    Type *ty = parseType(valueScope);
    if (!ty) return nullptr;
    return a.valueRef(v, ty);
  }
  case Tok::LSquare: {
    lex_.next();
    ++depth_;
    std::vector<Attribute *> elements;
    while (!lex_.peek().is(Tok::RSquare)) {
      Attribute *e = parseAttrValue(valueScope);
      if (!e) {
        --depth_;
        return nullptr;
      }
      elements.push_back(e);
      if (!lex_.peek().is(Tok::Comma)) break;
      lex_.next();
    }
    --depth_;
    if (!expect(Tok::RSquare)) return nullptr;
    return a.array(elements);
  }
  case Tok::LBrace: {
    ++depth_;
    std::vector<NamedAttr> entries;
    bool ok = parseDict(entries, valueScope, false);
    --depth_;
    return ok ? a.dict(entries) : nullptr;
  }
  default:
    unexpected(t, "an attribute value");
    lex_.next();
    return nullptr;
  }
}

Attribute *Parser::parsePredicates(Scope *scope) {
  if (!expect(Tok::LSquare)) return nullptr;
  std::vector<Attribute *> preds;
  while (!lex_.peek().is(Tok::RSquare)) {
    Token name = lex_.next();
    if (!name.is(Tok::Ident)) {
      unexpected(name, "a predicate");
      return nullptr;
    }
    int arity = predicateArity(name.text);
    if (arity < 0) {
      error(DiagId::ParseUnknownPredicate, name).arg("name", std::string(name.text));
      return nullptr;
    }
    if (!expect(Tok::LParen)) return nullptr;
    std::vector<Attribute *> args;
    while (!lex_.peek().is(Tok::RParen)) {
      Token t = lex_.next();
      if (t.is(Tok::ValueId)) {
        Value *v = lookupValue(t, scope);
        if (!v) return nullptr;
        args.push_back(m_.attrs().valueRef(v, v->type()));
      } else if (t.is(Tok::Integer)) {
        int64_t v;
        if (!parseInteger(t, v)) return nullptr;
        args.push_back(m_.attrs().integer(v));
      } else if (t.is(Tok::Float)) {
        args.push_back(m_.attrs().floating(std::strtod(std::string(t.text).c_str(), nullptr)));
      } else {
        unexpected(t, "an SSA value or a literal");
        return nullptr;
      }
      if (!lex_.peek().is(Tok::Comma)) break;
      lex_.next();
    }
    if (!expect(Tok::RParen)) return nullptr;
    if (int(args.size()) != arity) {
      error(DiagId::ParsePredicateArity, name)
          .arg("name", std::string(name.text))
          .arg("expected", (long long)arity)
          .arg("count", (long long)args.size());
      return nullptr;
    }
    preds.push_back(m_.attrs().predicate(name.text, args));
    if (!lex_.peek().is(Tok::Comma)) break;
    lex_.next();
  }
  if (!expect(Tok::RSquare)) return nullptr;
  return m_.attrs().array(preds);
}

}  // namespace hrx::loom::parser_detail
