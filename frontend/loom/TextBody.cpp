#include "hrx/loom/TextBody.h"

#include "hrx/diag/Diagnostic.h"
#include "hrx/diag/SourceManager.h"

namespace hrx::loom {

TextBodyTokens textBodyTokens(std::string_view buffer, const Operation &op) {
  // Lexing errors here were reported when the module was parsed.
  diag::SourceManager sm;
  diag::DiagnosticEngine quiet(sm);
  Lexer lex(buffer, op.loc().begin.file, quiet);
  TextBodyTokens out;
  out.end = op.loc().end.offset;
  if (out.end > buffer.size()) return out;
  // From the name, so the first operand's line position is relative to it.
  lex.resetTo(op.loc().begin.offset);
  lex.next();
  int depth = 0;
  for (;;) {
    const Token &t = lex.peek();
    if (t.is(Tok::Eof)) break;
    if (depth == 0 && (t.lineStart || t.is(Tok::RBrace))) break;
    if (depth == 0 && t.is(Tok::LBrace) && (lex.peek(1).lineStart || lex.peek(1).is(Tok::Eof))) {
      out.regionOpen = t.offset;
      break;
    }
    if (t.is(Tok::LParen) || t.is(Tok::LSquare) || t.is(Tok::LBrace)) ++depth;
    if ((t.is(Tok::RParen) || t.is(Tok::RSquare) || t.is(Tok::RBrace)) && depth > 0) --depth;
    out.end = t.end();
    out.tokens.push_back(lex.next());
  }
  if (out.regionOpen) {
    lex.resetTo(out.regionOpen);
    int braces = 0;
    for (;;) {
      Token t = lex.next();
      if (t.is(Tok::Eof)) {
        out.regionEnd = uint32_t(buffer.size());
        break;
      }
      if (t.is(Tok::LBrace)) ++braces;
      if (t.is(Tok::RBrace) && --braces == 0) {
        out.regionEnd = t.end();
        break;
      }
    }
  }
  return out;
}

bool textBodyGroup(const std::vector<Token> &tokens, std::string_view key, std::vector<Token> &out) {
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (!tokens[i].isIdent(key) || !tokens[i + 1].is(Tok::LParen)) continue;
    out.clear();
    int depth = 0;
    for (size_t j = i + 1; j < tokens.size(); ++j) {
      if (tokens[j].is(Tok::LParen) && depth++ == 0) continue;
      if (tokens[j].is(Tok::RParen) && --depth == 0) return true;
      out.push_back(tokens[j]);
    }
    return true;  // unterminated: what there is
  }
  return false;
}

std::string textBodyType(const std::vector<Token> &tokens, bool result) {
  size_t colon = tokens.size();
  int depth = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token &t = tokens[i];
    if (t.is(Tok::LParen) || t.is(Tok::LSquare) || t.is(Tok::LBrace)) ++depth;
    if (t.is(Tok::RParen) || t.is(Tok::RSquare) || t.is(Tok::RBrace)) --depth;
    if (depth == 0 && t.is(Tok::Colon)) colon = i;
  }
  size_t from = colon + 1;
  if (result)
    for (size_t i = from; i < tokens.size(); ++i)
      if (tokens[i].is(Tok::Arrow)) from = i + 1;
  std::string out;
  for (size_t i = from; i < tokens.size() && !tokens[i].is(Tok::Arrow); ++i) out += tokens[i].text;
  return out;
}

}  // namespace hrx::loom
