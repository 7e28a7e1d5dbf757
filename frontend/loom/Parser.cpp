// The table-driven Loom parser: one interpreter runs every op's format directives (Ops.def).
// Errors recover at op boundaries (the next line that starts an op), so one run reports many.
#include "hrx/loom/Lexer.h"
#include "hrx/loom/OpDef.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <cstdlib>
#include <memory>
#include <unordered_map>

namespace hrx::loom {
namespace {

using diag::DiagId;
using diag::SourceRange;

constexpr unsigned kMaxDepth = 64;

// SSA names visible in one region; lookups continue into the parent unless the region is
// isolated from above.
struct Scope {
  Scope *parent = nullptr;
  std::unordered_map<std::string_view, Value *> values;
  // Set while a global's type is parsed: an unknown name there declares the global's own dimension.
  std::vector<Value *> *declared = nullptr;
  Value *lookup(std::string_view name) const {
    for (const Scope *s = this; s; s = s->parent) {
      auto it = s->values.find(name);
      if (it != s->values.end()) return it->second;
    }
    return nullptr;
  }
};

// Block labels of the region being parsed.
struct LabelTable {
  std::unordered_map<std::string_view, Block *> blocks;
  std::unordered_map<Block *, Token> pending;  // referenced, not yet defined
};

bool isPunct(std::string_view s, Tok &kind) {
  static const std::pair<std::string_view, Tok> table[] = {
      {",", Tok::Comma},   {":", Tok::Colon},   {"->", Tok::Arrow}, {"(", Tok::LParen}, {")", Tok::RParen},
      {"[", Tok::LSquare}, {"]", Tok::RSquare}, {"=", Tok::Equal},  {"<", Tok::Less},   {">", Tok::Greater},
      {"{", Tok::LBrace},  {"}", Tok::RBrace},  {"|", Tok::Pipe}};
  for (auto &[text, k] : table)
    if (text == s) {
      kind = k;
      return true;
    }
  return false;
}

bool matchesLiteral(std::string_view lit, const Token &t) {
  Tok k;
  if (isPunct(lit, k)) return t.kind == k;
  return t.isIdent(lit);
}

std::string spell(const Token &t) {
  if (t.is(Tok::Eof)) return "end of file";
  return "'" + std::string(t.text) + "'";
}

std::string joinCases(std::span<const std::string_view> cases) {
  std::string s;
  for (std::string_view c : cases) {
    if (!s.empty()) s += ", ";
    s += c;
  }
  return s;
}

bool contains(std::span<const std::string_view> cases, std::string_view v) {
  for (std::string_view c : cases)
    if (c == v) return true;
  return false;
}

int predicateArity(std::string_view name) {
  if (name == "range") return 3;
  if (name == "mul" || name == "lt" || name == "le" || name == "gt" || name == "ge" || name == "eq" || name == "ne")
    return 2;
  if (name == "pow2" || name == "finite") return 1;
  return -1;
}

class Parser {
public:
  Parser(diag::SourceManager &sm, uint32_t file, diag::DiagnosticEngine &diags, Module &module)
      : lex_(sm.contents(file), file, diags), diags_(diags), m_(module), b_(module) {}

  void parseModule();

private:
  // Per-op state while its directives run.
  struct OpState {
    const OpDef *def = nullptr;
    Operation *op = nullptr;
    std::vector<Value *> operands;
    std::vector<uint32_t> segments;
    std::vector<NamedAttr> attrs;
    std::vector<NamedAttr> dict;
    bool hasDict = false;
    std::vector<Attribute *> tmpl;
    std::vector<Successor> succs;
    uint64_t groups = 0;
    std::vector<std::unique_ptr<Scope>> regionScopes;
    std::vector<std::vector<Value *>> regionArgs;
    std::vector<std::vector<Block *>> regionBlocks;
    std::vector<Type *> resultTypes;
    Scope *declScope = nullptr;
    Value *inductionVar = nullptr;
    const std::vector<Token> *resultToks = nullptr;
  };

  // ---- helpers ----
  SourceRange range(const Token &t) { return lex_.range(t); }
  diag::DiagnosticBuilder error(DiagId id, const Token &t) { return diags_.report(id, range(t)); }
  bool unexpected(const Token &t, std::string_view expected) {
    if (t.is(Tok::Error)) return false;  // the lexer already reported it
    error(DiagId::ParseUnexpectedToken, t).arg("token", spell(t)).arg("expected", std::string(expected));
    // A '}' starting its line closes the enclosing region even when the failed op consumed it
    // (upstream: a missing operand cannot consume the function's closing brace).
    // Re-lexing from the newline before it keeps the brace's line-start mark.
    if (t.is(Tok::RBrace) && t.lineStart) {
      std::string_view buf = lex_.buffer();
      uint32_t at = t.offset;
      while (at > 0 && buf[at - 1] != '\n') --at;
      lex_.resetTo(at > 0 ? at - 1 : 0);
    }
    return false;
  }
  bool expect(Tok kind) {
    if (lex_.peek().is(kind)) {
      lex_.next();
      return true;
    }
    return unexpected(lex_.peek(), tokName(kind));
  }
  std::vector<std::string_view> commentsOf(const Token &t) {
    std::vector<std::string_view> out;
    for (uint32_t i = t.firstComment; i < t.endComment; ++i) out.push_back(lex_.comment(i));
    return out;
  }
  Value *lookupValue(const Token &t, Scope *scope, bool declaration = false) {
    Value *v = scope ? scope->lookup(t.name()) : nullptr;
    if (!v && scope && scope->declared) {
      v = b_.createArgument(t.name(), nullptr, range(t));
      scope->values.emplace(v->name(), v);
      scope->declared->push_back(v);
    }
    if (!v)
      error(declaration ? DiagId::ParseUnresolvedDeclaration : DiagId::ParseUndefinedValue, t)
          .arg("name", std::string(t.text));
    return v;
  }
  bool define(Scope *scope, Value *v, const Token &t) {
    auto [it, inserted] = scope->values.emplace(v->name(), v);
    if (!inserted) {
      error(DiagId::ParseDuplicateValue, t)
          .arg("name", std::string(t.text))
          .note(it->second->loc(), "previous definition is here");
      return false;
    }
    return true;
  }
  bool parseInteger(const Token &t, int64_t &out);
  Scope *newScope(OpState &st, unsigned region, bool isolated);

  // ---- structure ----
  void parseOp(Block *block, bool topLevel);
  void recover(uint32_t opStart);
  Operation *parseKnownOp(const OpDef *def, const Token &nameTok, std::vector<Token> &resultToks);
  Operation *parseOpaqueOp(const Token &nameTok, std::vector<Token> &resultToks, bool topLevel,
                           const OpDef *textDef = nullptr);
  bool runDirectives(OpState &st, size_t begin, size_t end);
  bool groupPresent(const OpState &st, const Directive &first);
  bool runDirective(OpState &st, size_t i);
  size_t bindingCount(const OpState &st, std::string_view name);
  bool parseRegion(std::vector<Block *> &blocks, Scope *scope, const std::vector<Value *> &entryArgs);
  bool parseSignature(OpState &st, const Directive &d);
  bool parseTypeSlot(OpState &st, const Directive &d);
  bool parseSuccessor(OpState &st, const Directive &d);
  bool parseGlobalType(OpState &st);
  bool parseCoResultType(OpState &st);
  bool parseSwitchCases(OpState &st);
  bool parseLookupTable(OpState &st, const Directive &d);
  bool parsePackRanges(OpState &st, const Directive &d);
  void finishOp(OpState &st, std::vector<Token> &resultToks);
  // `%v : T` after `valueTok`: the value and the written type, reporting TYPE/003 when they differ
  // ({nullptr, nullptr} after a parse error).
  std::pair<Value *, Type *> parseTypedUse(const OpState &st, const Token &valueTok, std::string_view field);
  // Gives `op`'s results the names (and locations) of the `%r, ... =` tokens.
  void nameResults(Operation *op, const std::vector<Token> &resultToks);
  void skipLoc();

  // ---- types and attributes ----
  Type *parseType(Scope *scope, bool declaration = false);
  Type *parseFunctionSignature(Scope *scope, bool declaration);
  Type *parseShaped(TypeKind kind, const Token &open, Scope *scope, bool declaration);
  Attribute *parseAttrValue(Scope *valueScope);
  Attribute *parseHash(const Token &hashTok);
  bool parseDict(std::vector<NamedAttr> &entries, Scope *valueScope, bool bare);
  Attribute *parseTemplateItem(std::string_view kind);
  Attribute *parsePredicates(Scope *scope);
  Attribute *parseAttrOfKind(std::string_view kind, Scope *scope);
  bool fitsAttrKind(std::string_view kind, const Token &t);

  Lexer lex_;
  diag::DiagnosticEngine &diags_;
  Module &m_;
  IRBuilder b_;
  Scope *scope_ = nullptr;
  LabelTable *labels_ = nullptr;
  unsigned depth_ = 0;
  bool inOpaque_ = false;
};

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
    parseOp(&m_.body(), /*topLevel=*/true);
  }
  Token eof = lex_.peek();
  b_.setBlockComments(&m_.body(), {}, commentsOf(eof));
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
    std::vector<Attribute *> types;
    while (!lex_.peek().is(Tok::RParen)) {
      Type *t = parseType(declScope, true);
      if (!t) return false;
      types.push_back(m_.attrs().typeRef(t));
      if (!lex_.peek().is(Tok::Comma)) break;
      lex_.next();
    }
    st.attrs.push_back({"result_types", m_.attrs().array(types)});
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
void typeNamesIn(TypeContext &types, const Type *t, std::vector<Value *> &mentioned) {
  if (!t || !t->isShaped()) return;
  auto note = [&](Value *v, Type *asType) {
    if (!v) return;
    if (!v->type()) v->setType(asType);
    if (std::find(mentioned.begin(), mentioned.end(), v) == mentioned.end()) mentioned.push_back(v);
  };
  for (const Dim &d : t->shape()) note(d.dynamic, types.index());
  note(t->slot().value, types.encoding(t->kind() == TypeKind::View ? "layout" : ""));
  typeNamesIn(types, t->elementType(), mentioned);
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
  typeNamesIn(m_.types(), t, mentioned);
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
      // A vector memory op's view annotation describes its operand (upstream: TYPE/001).
      if ((st.def->hook == VerifyHook::VectorLoad || st.def->hook == VerifyHook::VectorStore) && b.name == "base") {
        error(DiagId::TypeFieldMismatch, at)
            .arg("op", std::string(st.def->name))
            .arg("field_a", "view")
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
      error(DiagId::TypeOperandMismatch, at)
          .arg("op", std::string(st.def->name))
          .arg("field", std::string(b.name))
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

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Attributes
// ---------------------------------------------------------------------------------------------

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

}  // namespace

OwningModule parseModule(diag::SourceManager &sm, uint32_t file, diag::DiagnosticEngine &diags) {
  OwningModule module(new Module(file));
  Parser parser(sm, file, diags, *module);
  parser.parseModule();
  return module;
}

}  // namespace hrx::loom
