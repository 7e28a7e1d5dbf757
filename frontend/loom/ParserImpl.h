// Private to the Loom parser: the Parser class, shared by Parser.cpp (module, ops, regions),
// ParseDirectives.cpp (the format-directive interpreter), ParseTypes.cpp and ParseAttributes.cpp.
#pragma once

#include "hrx/loom/Lexer.h"
#include "hrx/loom/OpDef.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>

namespace hrx::loom::parser_detail {

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

inline bool isPunct(std::string_view s, Tok &kind) {
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

inline bool matchesLiteral(std::string_view lit, const Token &t) {
  Tok k;
  if (isPunct(lit, k)) return t.kind == k;
  return t.isIdent(lit);
}

inline std::string spell(const Token &t) {
  if (t.is(Tok::Eof)) return "end of file";
  return "'" + std::string(t.text) + "'";
}

inline std::string joinCases(std::span<const std::string_view> cases) {
  std::string s;
  for (std::string_view c : cases) {
    if (!s.empty()) s += ", ";
    s += c;
  }
  return s;
}

inline bool contains(std::span<const std::string_view> cases, std::string_view v) {
  for (std::string_view c : cases)
    if (c == v) return true;
  return false;
}

inline int predicateArity(std::string_view name) {
  if (name == "range") return 3;
  // min(%x, N) is ge, max(%x, N) is le (upstream's spellings of bounds).
  if (name == "mul" || name == "lt" || name == "le" || name == "gt" || name == "ge" || name == "eq" || name == "ne" ||
      name == "min" || name == "max")
    return 2;
  if (name == "pow2" || name == "finite" || name == "not_nan" || name == "not_inf") return 1;
  return -1;
}

class Parser {
public:
  Parser(diag::SourceManager &sm, uint32_t file, diag::DiagnosticEngine &diags, Module &module)
      : lex_(sm.contents(file), file, diags), diags_(diags), m_(module), b_(module) {}

  void parseModule();
  void parseAttributeAlias();

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
    // Named function results (`-> (%r: T)`): visible to the signature's `where` only, not the body.
    std::vector<Value *> namedResults;
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
  // Module-level attribute aliases (`#q8 = #encoding.i8<...>`), replaced by their value at uses.
  std::unordered_map<std::string_view, Attribute *> aliases_;
  bool inOpaque_ = false;
};

}  // namespace hrx::loom::parser_detail
