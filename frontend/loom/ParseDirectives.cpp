// The format-directive interpreter: runs one Ops.def directive of the op being parsed, and the
// directives whose syntax is an op family's own (signatures, type slots, successors, switch cases).
#include "ParserImpl.h"

namespace hrx::loom::parser_detail {

bool Parser::runDirective(OpState &st, size_t i) {
  const Directive &d = st.def->directives[i];
  Scope *declScope = st.declScope ? st.declScope : scope_;
  switch (d.kind) {
  case Directive::Literal: {
    const Token &t = lex_.peek();
    if (matchesLiteral(d.text, t)) {
      lex_.next();
      return true;
    }
    return unexpected(t, "'" + std::string(d.text) + "'");
  }
  case Directive::Operand: {
    uint32_t count = 0;
    bool want = d.arity != Directive::Many || lex_.peek().is(Tok::ValueId);
    while (want) {
      Token t = lex_.next();
      if (!t.is(Tok::ValueId)) return unexpected(t, "an SSA value");
      Value *v = lookupValue(t, scope_);
      if (!v) return false;
      st.operands.push_back(v);
      ++count;
      if (d.arity == Directive::One || !lex_.peek().is(Tok::Comma) || !lex_.peek(1).is(Tok::ValueId)) break;
      lex_.next();
    }
    st.segments[d.segment] += count;
    return true;
  }
  case Directive::IndexList: {
    if (!expect(Tok::LSquare)) return false;
    std::vector<Attribute *> entries;
    while (!lex_.peek().is(Tok::RSquare)) {
      Token t = lex_.next();
      if (t.is(Tok::ValueId)) {
        Value *v = lookupValue(t, scope_);
        if (!v) return false;
        st.operands.push_back(v);
        ++st.segments[d.segment];
        entries.push_back(m_.attrs().valueRef(v, v->type()));
      } else if (t.is(Tok::Integer)) {
        int64_t value;
        if (!parseInteger(t, value)) return false;
        entries.push_back(m_.attrs().integer(value));
      } else {
        return unexpected(t, "an SSA value or integer index");
      }
      if (!lex_.peek().is(Tok::Comma)) break;
      lex_.next();
    }
    if (!expect(Tok::RSquare)) return false;
    st.attrs.push_back({d.text, m_.attrs().array(entries)});
    return true;
  }
  case Directive::Symbol: {
    Token t = lex_.next();
    if (!t.is(Tok::SymbolRef)) return unexpected(t, "a symbol");
    st.attrs.push_back({d.text, m_.attrs().symbol(t.name())});
    return true;
  }
  case Directive::Attr: {
    if (d.optional && !fitsAttrKind(d.attrKind, lex_.peek())) return true;
    Attribute *a = parseAttrOfKind(d.attrKind, declScope);
    if (!a) return false;
    st.attrs.push_back({d.text, a});
    return true;
  }
  case Directive::OptKeyword:
    if (lex_.peek().isIdent(d.text)) {
      lex_.next();
      st.attrs.push_back({d.text, m_.attrs().unit()});
    }
    return true;
  case Directive::Template: {
    if (!lex_.peek().is(Tok::Less)) {
      if (d.optional) return true;
      return unexpected(lex_.peek(), "'<' template parameters");
    }
    Token open = lex_.next();
    for (;;) {
      Attribute *a = parseTemplateItem(st.def->templateKind);
      if (!a) return false;
      st.tmpl.push_back(a);
      if (!lex_.peek().is(Tok::Comma)) break;
      lex_.next();
    }
    if (!lex_.peek().is(Tok::Greater)) {
      error(DiagId::ParseUnterminatedAngle, open);
      return false;
    }
    lex_.next();
    return true;
  }
  case Directive::AttrDict: {
    const Token &t = lex_.peek();
    bool bareEntry = d.bare && t.is(Tok::Ident) && !t.lineStart && lex_.peek(1).is(Tok::Equal);
    if (!t.is(Tok::LBrace) && !bareEntry) {
      if (!d.text.empty()) return unexpected(t, "'{'");
      return true;
    }
    std::vector<NamedAttr> entries;
    if (!parseDict(entries, scope_, bareEntry)) return false;
    if (d.text.empty()) {
      st.dict = std::move(entries);
      st.hasDict = true;
    } else {
      st.attrs.push_back({d.text, m_.attrs().dict(entries)});
    }
    return true;
  }
  case Directive::TypeSlot: return parseTypeSlot(st, d);
  case Directive::Region: {
    bool isolated = st.def->has(opflag::Isolated);
    Scope *scope = newScope(st, d.index, isolated);
    // Named results belong to the signature's postconditions; the body may reuse the names.
    for (Value *named : st.namedResults)
      if (auto it = scope->values.find(named->name()); it != scope->values.end() && it->second == named)
        scope->values.erase(it);
    st.namedResults.clear();
    if (st.inductionVar && d.index == 0) {
      // The induction variable takes the type of the loop bounds.
      Value *lo = nullptr;
      int seg = st.def->segmentIndex("lo");
      size_t start = 0;
      for (int s = 0; s < seg; ++s) start += st.segments[s];
      if (seg >= 0 && st.segments[seg]) lo = st.operands[start];
      st.inductionVar->setType(lo ? lo->type() : m_.types().index());
    }
    return parseRegion(st.regionBlocks[d.index], scope, st.regionArgs[d.index]);
  }
  case Directive::Signature: return parseSignature(st, d);
  case Directive::FnResults: {
    // `-> (T, ...)`, upstream's named results `-> (%r: T, ...)` that a `where` postcondition may
    // name (`where [eq(%r, %x)]`; kept in `result_names`), and tied results `-> (%arg as T)`
    // (the result reuses %arg's storage upstream; kept in `result_ties` for printing back).
    std::vector<Attribute *> types, names, ties;
    bool named = false, tied = false;
    while (!lex_.peek().is(Tok::RParen)) {
      Token nameTok, tieTok;
      if (lex_.peek().is(Tok::ValueId) && lex_.peek(1).isIdent("as")) {
        tieTok = lex_.next();
        lex_.next();
        if (!lookupValue(tieTok, declScope)) return false;
        tied = true;
      } else if (lex_.peek().is(Tok::ValueId)) {
        nameTok = lex_.next();
        if (!expect(Tok::Colon)) return false;
      }
      Type *t = parseType(declScope, true);
      if (!t) return false;
      types.push_back(m_.attrs().typeRef(t));
      names.push_back(m_.attrs().string(nameTok.is(Tok::ValueId) ? nameTok.name() : std::string_view()));
      ties.push_back(m_.attrs().string(tieTok.is(Tok::ValueId) ? tieTok.name() : std::string_view()));
      if (nameTok.is(Tok::ValueId) && declScope) {
        named = true;
        Value *result = b_.createArgument(nameTok.name(), t, range(nameTok));
        define(declScope, result, nameTok);
        st.namedResults.push_back(result);
      }
      if (!lex_.peek().is(Tok::Comma)) break;
      lex_.next();
    }
    st.attrs.push_back({"result_types", m_.attrs().array(types)});
    if (named) st.attrs.push_back({"result_names", m_.attrs().array(names)});
    if (tied) st.attrs.push_back({"result_ties", m_.attrs().array(ties)});
    return true;
  }
  case Directive::IterArgs: {
    // `%a = %x : T, %b = %y : U`, or grouped: `%a = %x, %b = %y : T, U` (printed per binding).
    Scope *scope = newScope(st, 0, false);
    std::vector<std::pair<Token, Token>> untyped;  // bindings the next type list gives types
    while (lex_.peek().is(Tok::ValueId)) {
      Token argTok = lex_.next();
      if (!expect(Tok::Equal)) return false;
      Token initTok = lex_.next();
      if (!initTok.is(Tok::ValueId)) return unexpected(initTok, "an SSA value");
      untyped.push_back({argTok, initTok});
      if (lex_.peek().is(Tok::Comma)) {
        lex_.next();
        continue;
      }
      if (!expect(Tok::Colon)) return false;
      for (size_t k = 0; k < untyped.size(); ++k) {
        if (k && !expect(Tok::Comma)) return false;
        const auto &[boundTok, valueTok] = untyped[k];
        Value *init = lookupValue(valueTok, scope_);
        Type *t = init ? parseType(scope_) : nullptr;
        if (!t) return false;
        if (init->type() != t && !init->type()->isUnknown())
          error(DiagId::TypeOperandMismatch, valueTok)
              .arg("op", std::string(st.def->name))
              .arg("field", "inits")
              .arg("actual", init->type()->str())
              .arg("expected", t->str());
        st.operands.push_back(init);
        ++st.segments[d.segment];
        Value *arg = b_.createArgument(boundTok.name(), t, range(boundTok));
        define(scope, arg, boundTok);
        st.regionArgs[0].push_back(arg);
      }
      untyped.clear();
      if (!lex_.peek().is(Tok::Comma)) break;
      lex_.next();
    }
    if (!untyped.empty()) return expect(Tok::Colon);
    return true;
  }
  case Directive::InductionVar: {
    Token t = lex_.next();
    if (!t.is(Tok::ValueId)) return unexpected(t, "an induction variable");
    Scope *scope = newScope(st, 0, false);
    Value *iv = b_.createArgument(t.name(), nullptr, range(t));
    define(scope, iv, t);
    st.regionArgs[0].push_back(iv);
    st.inductionVar = iv;
    return true;
  }
  case Directive::Successors: return parseSuccessor(st, d);
  case Directive::ConfigType: {
    Scope *scope = newScope(st, 0, true);
    st.declScope = scope;
    if (lex_.peek().is(Tok::ValueId)) {
      Token nameTok = lex_.next();
      if (!expect(Tok::Colon)) return false;
      Type *t = parseType(scope, true);
      if (!t) return false;
      Value *arg = b_.createArgument(nameTok.name(), t, range(nameTok));
      define(scope, arg, nameTok);
      st.regionArgs[0].push_back(arg);
      st.attrs.push_back({"type", m_.attrs().typeRef(t)});
      if (lex_.peek().isIdent("where")) {
        lex_.next();
        Attribute *preds = parsePredicates(scope);
        if (!preds) return false;
        st.attrs.push_back({"where", preds});
      }
      return true;
    }
    Type *t = parseType(scope, true);
    if (!t) return false;
    st.attrs.push_back({"type", m_.attrs().typeRef(t)});
    return true;
  }
  case Directive::GlobalType: return parseGlobalType(st);
  case Directive::CoResultType: return parseCoResultType(st);
  case Directive::SwitchCases: return parseSwitchCases(st);
  case Directive::LookupTable: return parseLookupTable(st, d);
  case Directive::PackRanges: return parsePackRanges(st, d);
  case Directive::GroupBegin:
  case Directive::GroupEnd: return true;
  }
  return true;
}

namespace {
// Gives each name a type mentions the type of its position: a dimension is an index, a view's
// layout slot an encoding<layout>, a tile's or tensor's encoding slot an encoding. Names already
// typed keep theirs; returns the names in order of first mention.
void typeNamesIn(TypeContext &types, const Type *t, std::vector<Value *> &mentioned, bool plainEncodings = false) {
  if (!t || !t->isShaped()) return;
  auto note = [&](Value *v, Type *asType) {
    if (!v) return;
    if (!v->type()) v->setType(asType);
    if (std::find(mentioned.begin(), mentioned.end(), v) == mentioned.end()) mentioned.push_back(v);
  };
  for (const Dim &d : t->shape()) note(d.dynamic, types.index());
  note(t->slot().value, types.encoding(t->kind() == TypeKind::View && !plainEncodings ? "layout" : ""));
  typeNamesIn(types, t->elementType(), mentioned, plainEncodings);
}
}  // namespace

// `global.constant @g : tile<[%m]x[%n]xf32>`: the type's dimension names are the global's own
// (upstream: declaration-local; each load binds them again as co-results).
bool Parser::parseGlobalType(OpState &st) {
  Scope *scope = newScope(st, 0, true);
  st.declScope = scope;
  std::vector<Value *> declared;
  scope->declared = &declared;
  Type *t = parseType(scope, true);
  scope->declared = nullptr;
  if (!t) return false;
  std::vector<Value *> mentioned;
  typeNamesIn(m_.types(), t, mentioned);
  for (Value *v : declared) {
    if (!v->type()) v->setType(m_.types().index());
    st.regionArgs[0].push_back(v);
  }
  st.attrs.push_back({"type", m_.attrs().typeRef(t)});
  return true;
}

// `{ case 0 {...} case 1 {...} default {...} }`: region 0 is the default, regions 1.. the cases in
// source order (upstream's numbering); the keys are case_keys, checked by the verifier.
bool Parser::parseSwitchCases(OpState &st) {
  if (!expect(Tok::LBrace)) return false;
  std::vector<Attribute *> keys;
  std::vector<std::vector<Block *>> cases;
  std::vector<Block *> fallback;
  bool sawDefault = false;
  unsigned scopeIndex = 0;
  while (!lex_.peek().is(Tok::RBrace)) {
    Token kw = lex_.next();
    bool isCase = kw.isIdent("case");
    if (sawDefault || (!isCase && !kw.isIdent("default")))
      return unexpected(kw, sawDefault ? "'}' after the default region" : "'case' or 'default'");
    if (isCase) {
      Token k = lex_.next();
      int64_t v = 0;
      if (!k.is(Tok::Integer)) return unexpected(k, "an integer case key");
      if (!parseInteger(k, v)) return false;
      keys.push_back(m_.attrs().integer(v));
    }
    sawDefault = !isCase;
    std::vector<Block *> &blocks = isCase ? cases.emplace_back() : fallback;
    if (!parseRegion(blocks, newScope(st, scopeIndex++, false), {})) return false;
  }
  Token close = lex_.next();  // consumed either way: this '}' closes the switch, not the function
  if (!sawDefault) {
    error(DiagId::ParseUnexpectedToken, close).arg("token", "}").arg("expected", "a 'default' region");
    return false;
  }
  b_.setRegionCount(st.op, cases.size() + 1);
  st.regionBlocks.assign(1, fallback);
  for (auto &c : cases) st.regionBlocks.push_back(c);
  st.regionArgs.assign(st.regionBlocks.size(), {});
  st.attrs.push_back({"case_keys", m_.attrs().array(keys)});
  return true;
}

// `[align(16) %header, %payload]`: byte ranges with optional minimum alignments (0 when unstated).
bool Parser::parsePackRanges(OpState &st, const Directive &d) {
  if (!expect(Tok::LSquare)) return false;
  std::vector<Attribute *> aligns;
  while (!lex_.peek().is(Tok::RSquare)) {
    int64_t align = 0;
    if (lex_.peek().isIdent("align")) {
      lex_.next();
      if (!expect(Tok::LParen)) return false;
      Token n = lex_.next();
      if (!n.is(Tok::Integer)) return unexpected(n, "an integer alignment");
      if (!parseInteger(n, align) || !expect(Tok::RParen)) return false;
    }
    Token v = lex_.next();
    if (!v.is(Tok::ValueId)) return unexpected(v, "an SSA byte length");
    Value *len = lookupValue(v, scope_);
    if (!len) return false;
    st.operands.push_back(len);
    ++st.segments[d.segment];
    aligns.push_back(m_.attrs().integer(align));
    if (!lex_.peek().is(Tok::Comma)) break;
    lex_.next();
  }
  if (!expect(Tok::RSquare)) return false;
  st.attrs.push_back({"minimum_alignments", m_.attrs().array(aligns)});
  return true;
}

// `{ 0 = (%a, %b), 1 = (%c, %d) } default(%e, %f)`: the rows, then the default row, flattened
// into the table operands; every row has the first row's width (upstream: PARSE/030).
bool Parser::parseLookupTable(OpState &st, const Directive &d) {
  if (!expect(Tok::LBrace)) return false;
  std::vector<Attribute *> keys;
  int64_t width = -1;
  bool ragged = false;
  auto parseRow = [&](const Token &at, size_t row) {
    if (!expect(Tok::LParen)) return false;
    int64_t count = 0;
    while (lex_.peek().is(Tok::ValueId)) {
      Value *v = lookupValue(lex_.next(), scope_);
      if (!v) return false;
      st.operands.push_back(v);
      ++st.segments[d.segment];
      ++count;
      if (!lex_.peek().is(Tok::Comma)) break;
      lex_.next();
    }
    if (!expect(Tok::RParen)) return false;
    if (width < 0) width = count;
    if (count != width) {
      error(DiagId::ParseRaggedRow, at)
          .arg("op", std::string(st.def->name))
          .arg("row", std::to_string(row))
          .arg("count", std::to_string(count))
          .arg("expected", std::to_string(width));
      ragged = true;  // the rest of the table still parses: one mistake, one error
    }
    return true;
  };
  while (!lex_.peek().is(Tok::RBrace)) {
    Token k = lex_.next();
    int64_t v = 0;
    if (!k.is(Tok::Integer)) return unexpected(k, "an integer case key");
    if (!parseInteger(k, v) || !expect(Tok::Equal) || !parseRow(k, keys.size())) return false;
    keys.push_back(m_.attrs().integer(v));
    if (!lex_.peek().is(Tok::Comma)) break;
    lex_.next();
  }
  if (!expect(Tok::RBrace)) return false;
  Token kw = lex_.next();
  if (!kw.isIdent("default")) return unexpected(kw, "'default' and the default row");
  if (!parseRow(kw, keys.size()) || ragged) return false;
  st.attrs.push_back({"case_keys", m_.attrs().array(keys)});
  return true;
}

// `%tile, %m, %k = global.load @g : tile<[%m]x[%k]xf32>`: the first result has the written type,
// the others are its dimensions and encoding, named in the type (co-results).
bool Parser::parseCoResultType(OpState &st) {
  Scope coResults;
  coResults.parent = scope_;
  size_t n = st.resultToks ? st.resultToks->size() : 0;
  if (n) nameResults(st.op, *st.resultToks);
  for (size_t i = 1; i < n; ++i) coResults.values.emplace((*st.resultToks)[i].name(), st.op->result(unsigned(i)));
  Type *t = parseType(&coResults);
  if (!t) return false;
  std::vector<Value *> mentioned;
  // A loaded layout is an `encoding` co-result (upstream's type for it), not encoding<layout>.
  typeNamesIn(m_.types(), t, mentioned, /*plainEncodings=*/true);
  for (size_t i = 0; i < n; ++i) {
    Value *r = st.op->result(unsigned(i));
    st.resultTypes[i] = i == 0 ? t : r->type() ? r->type() : m_.types().index();
  }
  st.attrs.push_back({"type", m_.attrs().typeRef(t)});
  return true;
}

bool Parser::parseSignature(OpState &st, const Directive &d) {
  Scope *scope = newScope(st, d.index, st.def->has(opflag::Isolated));
  st.declScope = scope;
  if (!expect(Tok::LParen)) return false;
  int64_t count = 0;
  while (lex_.peek().is(Tok::ValueId)) {
    Token nameTok = lex_.next();
    if (!expect(Tok::Colon)) return false;
    Type *t = parseType(scope, true);
    if (!t) return false;
    Value *arg = b_.createArgument(nameTok.name(), t, range(nameTok));
    define(scope, arg, nameTok);
    st.regionArgs[d.index].push_back(arg);
    ++count;
    if (!lex_.peek().is(Tok::Comma)) break;
    lex_.next();
  }
  if (!expect(Tok::RParen)) return false;
  st.attrs.push_back({d.text, m_.attrs().integer(count)});
  return true;
}

bool Parser::parseTypeSlot(OpState &st, const Directive &d) {
  const Directive::Binding *list = nullptr;
  for (const auto &b : d.bindings)
    if (b.elementwise && !list) list = &b;
  std::vector<Type *> types;
  std::vector<Token> typeToks;
  size_t n = list ? bindingCount(st, list->name) : 1;
  // Written result types may name the op's results (`-> (encoding<layout>, view<4xf32, %layout>)`).
  Scope resultScope;
  resultScope.parent = scope_;
  Scope *typeScope = scope_;
  bool bindsResults = std::any_of(d.bindings.begin(), d.bindings.end(), [](const auto &b) { return b.name == "r"; });
  if (bindsResults && st.resultToks && st.resultToks->size() > 1) {
    nameResults(st.op, *st.resultToks);
    for (size_t i = 0; i < st.resultToks->size(); ++i)
      resultScope.values.emplace((*st.resultToks)[i].name(), st.op->result(unsigned(i)));
    typeScope = &resultScope;
  }
  // An assume's written types are its results': upstream reports a values/results mismatch as
  // STRUCTURE/013 (count) and TYPE/001 (type).
  bool assume = st.def->hook == VerifyHook::Assume || st.def->hook == VerifyHook::SanitizerFacts;
  for (size_t i = 0; i < n; ++i) {
    if (i) {
      if (!lex_.peek().is(Tok::Comma)) {
        if (assume) {
          error(DiagId::StructureCountMismatch, typeToks.back())
              .arg("op", std::string(st.def->name))
              .arg("field_a", "values")
              .arg("count_a", std::to_string(n))
              .arg("field_b", "results")
              .arg("count_b", std::to_string(i));
          return false;
        }
        error(DiagId::ParseOperandCount, typeToks.back())
            .arg("op", std::string(st.def->name))
            .arg("field", std::string(list->name))
            .arg("count", (long long)i)
            .arg("expected", (long long)n);
        return false;
      }
      lex_.next();
    }
    // A tied result type (`-> (%input as T)`, upstream's result reusing an operand's storage) is
    // the type; the tie is checked to name a value and not kept (LOOM-192).
    if (bindsResults && lex_.peek().is(Tok::ValueId) && lex_.peek(1).isIdent("as")) {
      Token tie = lex_.next();
      lex_.next();
      if (!lookupValue(tie, scope_)) return false;
    }
    typeToks.push_back(lex_.peek());
    Type *t = parseType(typeScope);
    if (!t) return false;
    types.push_back(t);
  }
  if (list && lex_.peek().is(Tok::Comma) && lex_.peek(1).is(Tok::Ident)) {
    // More types than values.
    if (assume && bindingCount(st, "r") > n) {
      error(DiagId::StructureCountMismatch, lex_.peek())
          .arg("op", std::string(st.def->name))
          .arg("field_a", "values")
          .arg("count_a", std::to_string(n))
          .arg("field_b", "results")
          .arg("count_b", std::to_string(bindingCount(st, "r")));
      return false;
    }
    error(DiagId::ParseOperandCount, lex_.peek())
        .arg("op", std::string(st.def->name))
        .arg("field", std::string(list->name))
        .arg("count", (long long)n + 1)
        .arg("expected", (long long)n);
    return false;
  }
  for (const auto &b : d.bindings) {
    size_t count = bindingCount(st, b.name);
    if (b.elementwise && count != n) {
      error(DiagId::ParseResultCount, typeToks.empty() ? lex_.peek() : typeToks[0])
          .arg("op", std::string(st.def->name))
          .arg("expected", (long long)n)
          .arg("count", (long long)count);
      return false;
    }
    if (b.name == "r") {
      for (size_t i = 0; i < count; ++i) st.resultTypes[i] = b.elementwise ? types[i] : types[0];
      continue;
    }
    int seg = st.def->segmentIndex(b.name);
    size_t start = 0;
    for (int s = 0; s < seg; ++s) start += st.segments[s];
    for (size_t i = 0; i < count; ++i) {
      Value *v = st.operands[start + i];
      Type *t = b.elementwise ? types[i] : types[0];
      const Token &at = b.elementwise ? typeToks[i] : typeToks[0];
      if (v->type() == t) continue;
      if (!v->type() || v->type()->isUnknown()) {
        v->setType(t);  // a value produced by an unchecked op takes the type written at its use
        continue;
      }
      // A value outside the assume's family is the verifier's TYPE/003, not a second error here.
      bool outsideFamily = (st.def->typeClass == TypeClass::Address && !v->type()->isAddress()) ||
                           (st.def->typeClass == TypeClass::Scalar && !v->type()->isScalar());
      if (assume && outsideFamily) continue;
      if (assume) {
        error(DiagId::TypeFieldMismatch, at)
            .arg("op", std::string(st.def->name))
            .arg("field_a", "values[" + std::to_string(i) + "]")
            .arg("type_a", v->type()->str())
            .arg("field_b", "results[" + std::to_string(i) + "]")
            .arg("type_b", t->str())
            .note(v->loc(), "'%" + std::string(v->name()) + "' is defined here");
        continue;
      }
      // A vector memory op's view annotation describes its operand, and a dot's accumulator
      // annotation its result (upstream: TYPE/001).
      bool viewAnnotation = (st.def->hook == VerifyHook::VectorLoad || st.def->hook == VerifyHook::VectorStore ||
                             st.def->hook == VerifyHook::Fragment) &&
                            b.name == "base";
      if (viewAnnotation || (st.def->hook == VerifyHook::Dot && b.name == "init")) {
        error(DiagId::TypeFieldMismatch, at)
            .arg("op", std::string(st.def->name))
            .arg("field_a", viewAnnotation ? "view" : std::string(b.name))
            .arg("type_a", v->type()->str())
            .arg("field_b", "type annotation")
            .arg("type_b", t->str())
            .note(v->loc(), "'%" + std::string(v->name()) + "' is defined here");
        continue;
      }
      // Upstream types operands by their definitions: a value of the op's family that differs from
      // the written type breaks the same-type contract (TYPE/001); one outside the family is a
      // wrong operand (TYPE/003), and for index.* also a mismatch with a sibling of the written type.
      // A range mask's bounds and step share one coordinate domain: the verifier's TYPE/001.
      if (st.def->hook == VerifyHook::MaskRange && (v->type()->isIndex() || v->type()->isInteger())) continue;
      if (st.def->typeClass != TypeClass::Any && typeInClass(v->type(), st.def->typeClass)) {
        error(DiagId::TypeFieldMismatch, at)
            .arg("op", std::string(st.def->name))
            .arg("field_a", std::string(b.name))
            .arg("type_a", v->type()->str())
            .arg("field_b", "type annotation")
            .arg("type_b", t->str())
            .note(v->loc(), "'%" + std::string(v->name()) + "' is defined here");
        continue;
      }
      // A launch configuration's sizes are upstream's workgroup_size_x/y/z.
      std::string field =
          b.name == "workgroup_size" && i < 3 ? "workgroup_size_" + std::string(1, "xyz"[i]) : std::string(b.name);
      error(DiagId::TypeOperandMismatch, at)
          .arg("op", std::string(st.def->name))
          .arg("field", field)
          .arg("actual", v->type()->str())
          .arg("expected", t->str())
          .note(v->loc(), "'%" + std::string(v->name()) + "' is defined here");
      if ((st.def->typeClass == TypeClass::Address || st.def->typeClass == TypeClass::Index) && !b.elementwise)
        for (const auto &other : d.bindings) {
          if (other.name == "r" || other.name == b.name) continue;
          int oseg = st.def->segmentIndex(other.name);
          size_t ostart = 0;
          for (int s = 0; s < oseg; ++s) ostart += st.segments[s];
          if (oseg < 0 || st.segments[oseg] != 1 || st.operands[ostart]->type() != t) continue;
          error(DiagId::TypeFieldMismatch, at)
              .arg("op", std::string(st.def->name))
              .arg("field_a", std::string(b.name))
              .arg("type_a", v->type()->str())
              .arg("field_b", std::string(other.name))
              .arg("type_b", t->str());
          break;
        }
    }
  }
  return true;
}

bool Parser::parseSuccessor(OpState &st, const Directive &d) {
  Token t = lex_.next();
  if (!t.is(Tok::BlockLabel)) return unexpected(t, "a block label");
  if (!labels_) return unexpected(t, "a branch inside a body");
  Block *&block = labels_->blocks[t.name()];
  if (!block) {
    block = b_.createBlock(t.name(), range(t));
    labels_->pending.emplace(block, t);
  }
  Successor s{block, uint32_t(st.operands.size()), 0};
  if (lex_.peek().is(Tok::LParen) && !lex_.peek().spaceBefore) {
    lex_.next();
    while (lex_.peek().is(Tok::ValueId)) {
      Value *v = parseTypedUse(st, lex_.next(), "successor").first;
      if (!v) return false;
      st.operands.push_back(v);
      ++s.operandCount;
      if (!lex_.peek().is(Tok::Comma)) break;
      lex_.next();
    }
    if (!expect(Tok::RParen)) return false;
  }
  st.segments[d.segment] += s.operandCount;
  st.succs.push_back(s);
  return true;
}

}  // namespace hrx::loom::parser_detail
