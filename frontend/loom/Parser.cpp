// The table-driven Loom parser: one interpreter runs every op's format directives (Ops.def).
// Errors recover at op boundaries (the next line that starts an op), so one run reports many.
#include "ParserImpl.h"

namespace hrx::loom::parser_detail {

bool Parser::parseInteger(const Token &t, int64_t &out) {
  std::string_view s = t.text;
  bool neg = !s.empty() && s[0] == '-';
  if (neg) s.remove_prefix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size() || (!neg && v > uint64_t(INT64_MAX) && base == 10) ||
      (neg && v > uint64_t(INT64_MAX) + 1)) {
    error(DiagId::ParseInvalidInteger, t).arg("text", std::string(t.text));
    return false;
  }
  out = neg ? int64_t(0 - v) : int64_t(v);
  return true;
}

Scope *Parser::newScope(OpState &st, unsigned region, bool isolated) {
  if (st.regionScopes.size() <= region) st.regionScopes.resize(region + 1);
  if (!st.regionScopes[region]) {
    st.regionScopes[region] = std::make_unique<Scope>();
    st.regionScopes[region]->parent = isolated ? nullptr : scope_;
    // test.split_func projects its header into both regions: the launch region sees the arguments.
    if (region > 0 && st.def->code == OpCode::TestSplitFunc && st.regionScopes[0])
      st.regionScopes[region]->parent = st.regionScopes[0].get();
  }
  return st.regionScopes[region].get();
}

// ---------------------------------------------------------------------------------------------
// Module and ops
// ---------------------------------------------------------------------------------------------

void Parser::parseModule() {
  Scope moduleScope;
  scope_ = &moduleScope;
  while (!diags_.stopped()) {
    const Token &t = lex_.peek();
    if (t.is(Tok::Eof)) break;
    if (t.is(Tok::RBrace)) {
      unexpected(t, "an op");
      lex_.next();
      continue;
    }
    if (t.is(Tok::HashId) && t.lineStart && lex_.peek(1).is(Tok::Equal)) {
      parseAttributeAlias();
      continue;
    }
    parseOp(&m_.body(), /*topLevel=*/true);
  }
  Token eof = lex_.peek();
  b_.setBlockComments(&m_.body(), {}, commentsOf(eof));
}

// `#name = ATTR` at module level: later `#name` (without parameters) stands for ATTR.
void Parser::parseAttributeAlias() {
  Token name = lex_.next();
  lex_.next();  // '='
  Attribute *value = parseAttrValue(nullptr);
  if (!value) return recover(name.offset);
  if (!aliases_.emplace(name.name(), value).second)
    error(DiagId::ParseDuplicateAlias, name).arg("name", std::string(name.name()));
}

void Parser::recover(uint32_t opStart) {
  int depth = 0;
  for (;;) {
    const Token &t = lex_.peek();
    if (t.is(Tok::Eof)) return;
    // A region's closing brace starts its line; a brace inside the line belongs to the bad op.
    if (depth == 0 && t.is(Tok::RBrace) && t.lineStart) return;
    if (depth == 0 && t.lineStart && t.offset > opStart) return;
    if (t.is(Tok::LParen) || t.is(Tok::LSquare) || t.is(Tok::LBrace)) ++depth;
    if ((t.is(Tok::RParen) || t.is(Tok::RSquare) || t.is(Tok::RBrace)) && depth > 0) --depth;
    lex_.next();
  }
}

void Parser::parseOp(Block *block, bool topLevel) {
  Token first = lex_.peek();
  std::vector<std::string_view> comments = commentsOf(first);
  bool blank = first.blankLineBefore && !block->empty();
  std::vector<Token> resultToks;
  Operation *op = nullptr;
  if (first.is(Tok::ValueId)) {
    for (;;) {
      Token r = lex_.next();
      if (!r.is(Tok::ValueId)) {
        unexpected(r, "a result name");
        return recover(first.offset);
      }
      resultToks.push_back(r);
      if (!lex_.peek().is(Tok::Comma)) break;
      lex_.next();
    }
    if (!expect(Tok::Equal)) return recover(first.offset);
  }
  Token nameTok = lex_.peek();
  if (!nameTok.is(Tok::Ident)) {
    unexpected(nameTok, "an op name");
    return recover(first.offset);
  }
  lex_.next();
  if (const OpDef *def = lookupOpDef(nameTok.text)) {
    op = def->has(opflag::TextBody) ? parseOpaqueOp(nameTok, resultToks, topLevel, def)
                                    : parseKnownOp(def, nameTok, resultToks);
  } else if (inOpaque_) {
    op = parseOpaqueOp(nameTok, resultToks, topLevel);  // a line of a text body (machine code, checks)
  } else {
    error(DiagId::ParseUnknownOp, nameTok).arg("name", std::string(nameTok.text));
    // At the top level the unknown op's body is still consumed as text, so one mistake is one error.
    if (topLevel) parseOpaqueOp(nameTok, resultToks, topLevel);
  }
  if (!op) {
    // One mistake is one error: the failed op's results still exist (as poison of unknown type),
    // so later uses of them are not "undefined SSA value" cascades.
    for (const Token &r : resultToks)
      if (!scope_->values.count(r.name()))
        define(scope_, b_.createArgument(r.name(), m_.types().unknown(), range(r)), r);
    return recover(first.offset);
  }
  b_.setComments(op, comments, blank);
  b_.append(block, op);
  if (topLevel) {
    std::string_view sym = op->symbolName();
    if (!sym.empty() && !m_.lookupSymbol(sym)) m_.addSymbol(sym, op);
  }
}

void Parser::skipLoc() {
  const Token &t = lex_.peek();
  if (!t.isIdent("loc") || t.lineStart || !lex_.peek(1).is(Tok::LParen)) return;
  Token locTok = lex_.next();
  int depth = 0;
  for (;;) {
    Token n = lex_.peek();
    if (n.is(Tok::Eof) || (depth > 0 && n.lineStart)) {
      error(DiagId::ParseMalformedLoc, locTok);
      return;
    }
    lex_.next();
    if (n.is(Tok::LParen)) ++depth;
    if (n.is(Tok::RParen) && --depth == 0) return;
  }
}

Operation *Parser::parseKnownOp(const OpDef *def, const Token &nameTok, std::vector<Token> &resultToks) {
  size_t want = def->results.empty() ? 0 : def->results == "r*" ? resultToks.size() : def->results == "r+i1" ? 2 : 1;
  if (resultToks.size() != want) {
    error(DiagId::ParseResultCount, nameTok)
        .arg("op", std::string(def->name))
        .arg("expected", (long long)want)
        .arg("count", (long long)resultToks.size());
    return nullptr;
  }
  OpState st;
  st.def = def;
  st.op = b_.createOp(def->code, def, def->name, range(nameTok), resultToks.size(), def->numRegions);
  st.segments.assign(def->segmentNames.size(), 0);
  st.regionArgs.resize(def->numRegions);
  st.regionBlocks.resize(def->numRegions);
  st.resultTypes.assign(resultToks.size(), nullptr);
  st.resultToks = &resultToks;
  if (!runDirectives(st, 0, def->directives.size())) return nullptr;
  skipLoc();
  const Token &after = lex_.peek();
  if (!after.is(Tok::Eof) && !after.is(Tok::RBrace) && !after.lineStart) {
    unexpected(after, "the end of the op");
    return nullptr;
  }
  // Result types the format does not spell.
  std::string_view rs = def->results;
  if (rs == "r+i1") st.resultTypes[1] = m_.types().integer(1);  // a value and its validity
  for (size_t i = 0; i < st.resultTypes.size(); ++i) {
    if (st.resultTypes[i]) continue;
    if (rs == "r:i1")
      st.resultTypes[i] = m_.types().integer(1);
    else if (rs == "r:offset")
      st.resultTypes[i] = m_.types().offset();
    else if (rs == "r:index")
      st.resultTypes[i] = m_.types().index();
    else if (rs == "r:i32")
      st.resultTypes[i] = m_.types().integer(32);
  }
  for (Type *t : st.resultTypes)
    if (!t) {
      error(DiagId::ParseResultCount, nameTok)
          .arg("op", std::string(def->name))
          .arg("expected", 0LL)
          .arg("count", (long long)resultToks.size());
      return nullptr;
    }
  finishOp(st, resultToks);
  return st.op;
}

std::pair<Value *, Type *> Parser::parseTypedUse(const OpState &st, const Token &valueTok, std::string_view field) {
  Value *value = lookupValue(valueTok, scope_);
  if (!value || !expect(Tok::Colon)) return {nullptr, nullptr};
  Type *written = parseType(scope_);
  if (!written) return {nullptr, nullptr};
  if (value->type() != written && !value->type()->isUnknown())
    error(DiagId::TypeOperandMismatch, valueTok)
        .arg("op", std::string(st.def->name))
        .arg("field", std::string(field))
        .arg("actual", value->type()->str())
        .arg("expected", written->str());
  return {value, written};
}

void Parser::nameResults(Operation *op, const std::vector<Token> &resultToks) {
  std::vector<std::string_view> names;
  std::vector<SourceRange> locs;
  for (const Token &t : resultToks) {
    names.push_back(t.name());
    locs.push_back(range(t));
  }
  b_.setResultNames(op, names, locs);
}

void Parser::finishOp(OpState &st, std::vector<Token> &resultToks) {
  Operation *op = st.op;
  nameResults(op, resultToks);
  for (size_t i = 0; i < resultToks.size(); ++i) {
    op->result(unsigned(i))->setType(st.resultTypes[i]);
    define(scope_, op->result(unsigned(i)), resultToks[i]);
  }
  b_.setOperands(op, st.operands);
  if (st.hasDict) st.attrs.push_back({"", m_.attrs().dict(st.dict)});
  b_.setAttributes(op, st.attrs);
  b_.setTemplate(op, st.tmpl);
  b_.setSuccessors(op, st.succs);
  b_.setSegments(op, st.segments, st.groups);
  for (unsigned r = 0; r < st.regionBlocks.size(); ++r) {
    auto &blocks = st.regionBlocks[r];
    // Signature-only regions (declarations) still own their arguments.
    if (blocks.empty() && !st.regionArgs[r].empty()) {
      Block *b = b_.createBlock({}, op->loc());
      b_.setBlockArguments(b, st.regionArgs[r]);
      blocks.push_back(b);
    }
    // Resultless structured regions may leave out their scf.yield, a pipeline body its
    // pipeline.finish and a strand body its pipeline.end.
    const OpDef *implicit = st.def->has(opflag::ImplicitYield) && op->numResults() == 0 ? lookupOpDef("scf.yield")
                            : st.def->code == OpCode::PipelineDef                       ? lookupOpDef("pipeline.finish")
                            : st.def->code == OpCode::PipelineStrand                    ? lookupOpDef("pipeline.end")
                                                                                        : nullptr;
    if (implicit && !blocks.empty()) {
      Block *last = blocks.back();
      if (!last->terminator()) {
        Operation *y = b_.createOp(implicit->code, implicit, implicit->name, op->loc(), 0, 0);
        b_.setSegments(y, std::vector<uint32_t>(implicit->segmentNames.size(), 0), 0);
        b_.setImplicitTerminator(y);
        b_.append(last, y);
      }
    }
    b_.setRegionBlocks(op, r, blocks);
  }
}

bool Parser::runDirectives(OpState &st, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) {
    const Directive &d = st.def->directives[i];
    if (d.kind == Directive::GroupBegin) {
      const Directive &first = st.def->directives[i + 1];
      if (groupPresent(st, first)) {
        st.groups |= uint64_t(1) << d.index;
        if (!runDirectives(st, i + 1, d.groupEnd)) return false;
      }
      i = d.groupEnd;
      continue;
    }
    // A comma before an empty elementwise type list disappears: "(group, !inputs*)" -> "(group)".
    if (d.kind == Directive::Literal && d.text == "," && i + 1 < end) {
      const Directive &n = st.def->directives[i + 1];
      if (n.kind == Directive::TypeSlot && n.bindings[0].elementwise && bindingCount(st, n.bindings[0].name) == 0)
        continue;
    }
    if (!runDirective(st, i)) return false;
  }
  return true;
}

bool Parser::groupPresent(const OpState &st, const Directive &first) {
  const Token &t = lex_.peek();
  switch (first.kind) {
  case Directive::Literal: return matchesLiteral(first.text, t);
  case Directive::OptKeyword: return t.isIdent(first.text);
  case Directive::Attr: return fitsAttrKind(first.attrKind, t);
  case Directive::Operand: return t.is(Tok::ValueId);
  case Directive::Template: return t.is(Tok::Less);
  case Directive::Region: return t.is(Tok::LBrace);
  case Directive::Signature: return t.is(Tok::LParen);
  default: return false;
  }
}

size_t Parser::bindingCount(const OpState &st, std::string_view name) {
  if (name == "r") return st.resultTypes.size();
  int seg = st.def->segmentIndex(name);
  return seg < 0 ? 0 : st.segments[seg];
}

bool Parser::fitsAttrKind(std::string_view kind, const Token &t) {
  if (kind == "int") return t.is(Tok::Integer);
  if (kind == "number") return t.is(Tok::Integer) || t.is(Tok::Float) || t.isIdent("true") || t.isIdent("false");
  if (kind == "string") return t.is(Tok::String);
  if (kind == "ident") return t.is(Tok::Ident);
  if (kind == "hash") return t.is(Tok::HashId);
  if (kind == "preds") return t.is(Tok::LSquare);
  auto cases = enumCases(kind);
  if (!cases.empty()) return t.is(Tok::Ident) && contains(cases, t.text);
  return !t.is(Tok::Eof) && !t.lineStart;
}

bool Parser::parseRegion(std::vector<Block *> &blocks, Scope *scope, const std::vector<Value *> &entryArgs) {
  Token open = lex_.peek();
  if (!expect(Tok::LBrace)) return false;
  if (++depth_ > kMaxDepth) {
    error(DiagId::ParseTooDeep, open).arg("limit", (long long)kMaxDepth);
    --depth_;
    return false;
  }
  Scope *savedScope = scope_;
  LabelTable *savedLabels = labels_;
  LabelTable labels;
  scope_ = scope;
  labels_ = &labels;
  Block *block = b_.createBlock({}, range(open));
  b_.setBlockArguments(block, entryArgs);
  blocks.push_back(block);
  std::vector<std::string_view> blockComments;
  for (;;) {
    if (diags_.stopped()) break;
    const Token &t = lex_.peek();
    if (t.is(Tok::RBrace) || t.is(Tok::Eof)) break;
    if (t.is(Tok::BlockLabel) && t.lineStart) {
      Token labelTok = lex_.next();
      std::vector<std::string_view> comments = commentsOf(labelTok);
      Block *&slot = labels.blocks[labelTok.name()];
      if (slot && !labels.pending.count(slot)) {
        error(DiagId::ParseDuplicateLabel, labelTok).arg("label", std::string(labelTok.text));
        recover(labelTok.offset);
        continue;
      }
      Block *next = slot;
      // A label before the first op of a region without entry arguments names its entry block
      // (`func.def @f() { ^entry: ... }`); where the region has entry arguments (a loop's
      // induction variable) a label starts a second block, STRUCTURE/004 as upstream says.
      bool namesEntry = !next && blocks.size() == 1 && block->empty() && block->label().empty();
      if (next) {
        labels.pending.erase(next);
      } else {
        next = b_.createBlock(labelTok.name(), range(labelTok));
        slot = next;
      }
      std::vector<Value *> args;
      if (lex_.peek().is(Tok::LParen)) {
        lex_.next();
        while (lex_.peek().is(Tok::ValueId)) {
          Token at = lex_.next();
          if (!expect(Tok::Colon)) break;
          Type *ty = parseType(scope_);
          if (!ty) break;
          Value *arg = b_.createArgument(at.name(), ty, range(at));
          define(scope_, arg, at);
          args.push_back(arg);
          if (!lex_.peek().is(Tok::Comma)) break;
          lex_.next();
        }
        if (!expect(Tok::RParen)) recover(labelTok.offset);
      }
      if (!expect(Tok::Colon)) recover(labelTok.offset);
      b_.setBlockArguments(next, args);
      b_.setBlockComments(next, comments, {});
      if (namesEntry && entryArgs.empty())
        blocks.back() = next;
      else
        blocks.push_back(next);
      block = next;
      continue;
    }
    parseOp(block, /*topLevel=*/false);
  }
  Token close = lex_.peek();
  // Comments before the closing brace belong to the last block.
  std::vector<std::string_view> lead(block->leadingComments().begin(), block->leadingComments().end());
  b_.setBlockComments(block, lead, commentsOf(close));
  for (auto &[b, tok] : labels.pending) error(DiagId::ParseUndefinedLabel, tok).arg("label", std::string(tok.text));
  scope_ = savedScope;
  labels_ = savedLabels;
  --depth_;
  if (!close.is(Tok::RBrace)) return unexpected(close, "'}'");
  lex_.next();
  return true;
}

// An op outside the table: its text is kept (whitespace-normalised) and its regions are parsed.
Operation *Parser::parseOpaqueOp(const Token &nameTok, std::vector<Token> &resultToks, bool topLevel,
                                 const OpDef *textDef) {
  std::vector<std::string> segments(1);
  std::vector<std::vector<Block *>> regions;
  std::vector<std::unique_ptr<Scope>> scopes;
  std::vector<std::pair<Token, bool>> pendingArgs;  // `%x:` inside parentheses: region arguments
  std::string_view symbol;
  int depth = 0;
  bool savedOpaque = inOpaque_;
  for (;;) {
    const Token &t = lex_.peek();
    if (t.is(Tok::Eof)) break;
    if (depth == 0 && t.is(Tok::RBrace)) break;
    if (depth == 0 && t.lineStart) break;
    if (depth == 0 && t.is(Tok::LBrace) && (lex_.peek(1).lineStart || lex_.peek(1).is(Tok::Eof))) {
      auto scope = std::make_unique<Scope>();
      scope->parent = topLevel ? nullptr : scope_;
      std::vector<Value *> args;
      for (auto &[tok, used] : pendingArgs) {
        Value *arg = b_.createArgument(tok.name(), m_.types().unknown(), range(tok));
        define(scope.get(), arg, tok);
        args.push_back(arg);
      }
      pendingArgs.clear();
      regions.emplace_back();
      inOpaque_ = true;
      bool ok = parseRegion(regions.back(), scope.get(), args);
      inOpaque_ = savedOpaque;
      scopes.push_back(std::move(scope));
      segments.emplace_back();
      // Text may continue on the closing brace's line (`} else {`).
      if ((!ok && diags_.stopped()) || lex_.peek().lineStart) break;
      continue;
    }
    Token tok = lex_.next();
    std::string &cur = segments.back();
    if (tok.spaceBefore) cur += ' ';
    cur += tok.text;
    if (tok.is(Tok::LParen) || tok.is(Tok::LSquare) || tok.is(Tok::LBrace) || tok.is(Tok::Less)) ++depth;
    if ((tok.is(Tok::RParen) || tok.is(Tok::RSquare) || tok.is(Tok::RBrace) || tok.is(Tok::Greater)) && depth > 0)
      --depth;
    if (tok.is(Tok::SymbolRef) && depth == 0 && symbol.empty()) symbol = tok.name();
    if (tok.is(Tok::ValueId) && depth > 0 && lex_.peek().is(Tok::Colon)) pendingArgs.push_back({tok, false});
  }
  // A TextBody op keeps its table id (for dispatch) but no definition: it is printed as text.
  Operation *op = b_.createOp(textDef ? textDef->code : OpCode::Opaque, nullptr, nameTok.text, range(nameTok),
                              resultToks.size(), regions.size());
  std::vector<std::string_view> texts(segments.begin(), segments.end());
  b_.setOpaqueText(op, texts);
  if (!symbol.empty()) b_.setAttributes(op, {{"sym_name", m_.attrs().symbol(symbol)}});
  for (unsigned r = 0; r < regions.size(); ++r) b_.setRegionBlocks(op, r, regions[r]);
  nameResults(op, resultToks);
  for (size_t i = 0; i < resultToks.size(); ++i) {
    op->result(unsigned(i))->setType(m_.types().unknown());
    define(scope_, op->result(unsigned(i)), resultToks[i]);
  }
  return op;
}

}  // namespace hrx::loom::parser_detail

namespace hrx::loom {

OwningModule parseModule(diag::SourceManager &sm, uint32_t file, diag::DiagnosticEngine &diags) {
  OwningModule module(new Module(file));
  parser_detail::Parser parser(sm, file, diags, *module);
  parser.parseModule();
  return module;
}

}  // namespace hrx::loom
