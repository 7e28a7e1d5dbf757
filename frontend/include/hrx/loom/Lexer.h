// The Loom tokenizer (reference §1). Comments are collected and attached to the next token.
#pragma once

#include "hrx/diag/Diagnostic.h"

#include <cstdint>
#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::loom {

enum class Tok : uint8_t {
  Eof,
  Ident,
  ValueId,
  SymbolRef,
  HashId,
  BlockLabel,
  Integer,
  Float,
  String,
  LParen,
  RParen,
  LBrace,
  RBrace,
  LSquare,
  RSquare,
  Less,
  Greater,
  Equal,
  Colon,
  Comma,
  Arrow,
  Pipe,
  Error,
};

struct Token {
  Tok kind = Tok::Eof;
  std::string_view text;  // the spelling (for sigils, including the sigil)
  uint32_t offset = 0;
  bool lineStart = false;  // first token on its line
  bool blankLineBefore = false;
  bool spaceBefore = false;   // whitespace separates it from the previous token
  uint32_t firstComment = 0;  // comments [firstComment, endComment) precede this token
  uint32_t endComment = 0;

  bool is(Tok k) const { return kind == k; }
  bool isIdent(std::string_view s) const { return kind == Tok::Ident && text == s; }
  // The name after a sigil (%x, @x, #x, ^x).
  std::string_view name() const { return text.substr(1); }
  uint32_t end() const { return offset + uint32_t(text.size()); }
};

const char *tokName(Tok kind);

class Lexer {
public:
  Lexer(std::string_view buffer, uint32_t file, diag::DiagnosticEngine &diags);

  const Token &peek(unsigned ahead = 0);
  Token next();
  // Drops the lookahead and continues lexing at `offset` (used by the shape scanner).
  void resetTo(uint32_t offset);
  std::string_view buffer() const { return buf_; }
  std::string_view comment(uint32_t i) const { return comments_[i]; }
  diag::SourceLocation loc(uint32_t offset) const { return {file_, offset}; }
  diag::SourceRange range(const Token &t) const { return {loc(t.offset), loc(t.end())}; }

  // Unescapes a string token's JSON escapes; reports PARSE/023 for a bad escape.
  std::string unescape(const Token &t);

private:
  Token lex();
  void error(diag::DiagId id, uint32_t at, uint32_t len, std::string_view param, std::string value);
  std::string_view buf_;
  uint32_t file_;
  diag::DiagnosticEngine &diags_;
  uint32_t pos_ = 0;
  bool first_ = true;
  // Lookahead ring: the parser never looks more than a few tokens ahead.
  std::array<Token, 4> ahead_;
  unsigned head_ = 0;
  unsigned count_ = 0;
  std::vector<std::string_view> comments_;
};

}  // namespace hrx::loom
