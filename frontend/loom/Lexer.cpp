#include "hrx/loom/Lexer.h"

#include "hrx/diag/Utf8.h"

namespace hrx::loom {
namespace {

bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
bool isHex(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

using diag::utf8Length;  // hrx/diag/Utf8.h: the one UTF-8 decoder

}  // namespace

const char *tokName(Tok kind) {
  switch (kind) {
  case Tok::Eof: return "end of file";
  case Tok::Ident: return "identifier";
  case Tok::ValueId: return "SSA value";
  case Tok::SymbolRef: return "symbol";
  case Tok::HashId: return "attribute";
  case Tok::BlockLabel: return "block label";
  case Tok::Integer: return "integer";
  case Tok::Float: return "float";
  case Tok::String: return "string";
  case Tok::LParen: return "'('";
  case Tok::RParen: return "')'";
  case Tok::LBrace: return "'{'";
  case Tok::RBrace: return "'}'";
  case Tok::LSquare: return "'['";
  case Tok::RSquare: return "']'";
  case Tok::Less: return "'<'";
  case Tok::Greater: return "'>'";
  case Tok::Equal: return "'='";
  case Tok::Colon: return "':'";
  case Tok::Comma: return "','";
  case Tok::Arrow: return "'->'";
  case Tok::Pipe: return "'|'";
  case Tok::Error: return "invalid token";
  }
  return "token";
}

Lexer::Lexer(std::string_view buffer, uint32_t file, diag::DiagnosticEngine &diags)
    : buf_(buffer), file_(file), diags_(diags) {}

void Lexer::error(diag::DiagId id, uint32_t at, uint32_t len, std::string_view param, std::string value) {
  auto b = diags_.report(id, {loc(at), loc(at + len)});
  if (!param.empty()) b.arg(param, std::move(value));
}

const Token &Lexer::peek(unsigned ahead) {
  while (count_ <= ahead) ahead_[(head_ + count_++) % ahead_.size()] = lex();
  return ahead_[(head_ + ahead) % ahead_.size()];
}

Token Lexer::next() {
  peek();
  Token t = ahead_[head_];
  head_ = (head_ + 1) % ahead_.size();
  --count_;
  return t;
}

void Lexer::resetTo(uint32_t offset) {
  count_ = 0;
  pos_ = offset;
}

Token Lexer::lex() {
  Token t;
  t.firstComment = uint32_t(comments_.size());
  unsigned newlines = 0;
  bool sawSpace = false;
  for (;;) {
    if (pos_ >= buf_.size()) break;
    char c = buf_[pos_];
    if (c == '\n') {
      ++newlines;
      ++pos_;
      sawSpace = true;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++pos_;
      sawSpace = true;
    } else if (c == '/' && pos_ + 1 < buf_.size() && buf_[pos_ + 1] == '/') {
      size_t end = buf_.find('\n', pos_);
      if (end == std::string_view::npos) end = buf_.size();
      std::string_view text = buf_.substr(pos_, end - pos_);
      while (!text.empty() && (text.back() == ' ' || text.back() == '\r' || text.back() == '\t')) text.remove_suffix(1);
      // A blank line before a comment block is recorded on the token it attaches to.
      if (comments_.size() == t.firstComment && newlines >= 2) t.blankLineBefore = true;
      for (size_t i = 0; i < text.size();) {
        size_t n = utf8Length(text.substr(i));
        if (n == 0) {
          error(diag::DiagId::ParseInvalidUtf8, uint32_t(pos_ + i), 1, "", "");
          break;
        }
        i += n;
      }
      comments_.push_back(text);
      pos_ = uint32_t(end);
      sawSpace = true;
      newlines = 0;  // blank lines are only detected before the first comment
    } else {
      break;
    }
  }
  t.endComment = uint32_t(comments_.size());
  t.lineStart = first_ || newlines > 0;
  if (newlines >= 2 && t.firstComment == t.endComment) t.blankLineBefore = true;
  t.spaceBefore = sawSpace;
  first_ = false;
  t.offset = pos_;
  if (pos_ >= buf_.size()) {
    t.kind = Tok::Eof;
    return t;
  }
  const char *p = buf_.data();
  uint32_t start = pos_;
  char c = p[pos_];
  auto finish = [&](Tok kind, uint32_t end) {
    t.kind = kind;
    t.text = buf_.substr(start, end - start);
    pos_ = end;
    return t;
  };
  auto scanName = [&](uint32_t from, bool dots) {
    uint32_t e = from;
    while (e < buf_.size() &&
           (isIdentChar(p[e]) || (dots && p[e] == '.' && e + 1 < buf_.size() && isIdentChar(p[e + 1]))))
      ++e;
    return e;
  };
  switch (c) {
  case '(': return finish(Tok::LParen, start + 1);
  case ')': return finish(Tok::RParen, start + 1);
  case '{': return finish(Tok::LBrace, start + 1);
  case '}': return finish(Tok::RBrace, start + 1);
  case '[': return finish(Tok::LSquare, start + 1);
  case ']': return finish(Tok::RSquare, start + 1);
  case '<': return finish(Tok::Less, start + 1);
  case '>': return finish(Tok::Greater, start + 1);  // ">>" is always two tokens
  case '=': return finish(Tok::Equal, start + 1);
  case ':': return finish(Tok::Colon, start + 1);
  case ',': return finish(Tok::Comma, start + 1);
  case '|': return finish(Tok::Pipe, start + 1);
  case '%':
  case '@':
  case '#':
  case '^': {
    uint32_t e = scanName(start + 1, c == '@' || c == '#');
    if (c == '%' || c == '^') {
      // SSA names may be numeric: [A-Za-z0-9_$]+.
      e = start + 1;
      while (e < buf_.size() && isIdentChar(p[e])) ++e;
    }
    if (e == start + 1) {
      error(diag::DiagId::ParseMissingIdentifier, start, 1, "sigil", std::string(1, c));
      return finish(Tok::Error, start + 1);
    }
    Tok kind = c == '%' ? Tok::ValueId : c == '@' ? Tok::SymbolRef : c == '#' ? Tok::HashId : Tok::BlockLabel;
    return finish(kind, e);
  }
  case '"': {
    uint32_t e = start + 1;
    while (e < buf_.size() && p[e] != '"' && p[e] != '\n') {
      if (p[e] == '\\' && e + 1 < buf_.size()) ++e;
      ++e;
    }
    if (e >= buf_.size() || p[e] != '"') {
      error(diag::DiagId::ParseUnterminatedString, start, e - start, "", "");
      return finish(Tok::Error, e);
    }
    for (uint32_t i = start + 1; i < e;) {
      size_t n = utf8Length(buf_.substr(i, e - i));
      if (n == 0) {
        error(diag::DiagId::ParseInvalidUtf8, i, 1, "", "");
        return finish(Tok::Error, e + 1);
      }
      i += uint32_t(n);
    }
    return finish(Tok::String, e + 1);
  }
  case '-':
    if (start + 1 < buf_.size() && p[start + 1] == '>') return finish(Tok::Arrow, start + 2);
    // `-sramecc`: a negated target feature in an attribute list is one identifier.
    if (start + 1 < buf_.size() && isIdentStart(p[start + 1])) {
      uint32_t e = start + 1;
      while (e < buf_.size() && (isIdentChar(p[e]) || p[e] == '-')) ++e;
      return finish(Tok::Ident, e);
    }
    if (!(start + 1 < buf_.size() && isDigit(p[start + 1]))) {
      error(diag::DiagId::ParseUnexpectedCharacter, start, 1, "char", "-");
      return finish(Tok::Error, start + 1);
    }
    [[fallthrough]];
  default: break;
  }
  if (isDigit(c) || c == '-') {
    uint32_t e = start + (c == '-' ? 1 : 0);
    if (p[e] == '0' && e + 1 < buf_.size() && (p[e + 1] == 'x' || p[e + 1] == 'X') && e + 2 < buf_.size() &&
        isHex(p[e + 2])) {
      e += 2;
      while (e < buf_.size() && isHex(p[e])) ++e;
      return finish(Tok::Integer, e);
    }
    while (e < buf_.size() && isDigit(p[e])) ++e;
    bool isFloat = false;
    if (e + 1 < buf_.size() && p[e] == '.' && isDigit(p[e + 1])) {
      isFloat = true;
      ++e;
      while (e < buf_.size() && isDigit(p[e])) ++e;
    }
    if (e < buf_.size() && (p[e] == 'e' || p[e] == 'E')) {
      uint32_t x = e + 1;
      if (x < buf_.size() && (p[x] == '+' || p[x] == '-')) ++x;
      if (x < buf_.size() && isDigit(p[x])) {
        isFloat = true;
        e = x;
        while (e < buf_.size() && isDigit(p[e])) ++e;
      }
    }
    return finish(isFloat ? Tok::Float : Tok::Integer, e);
  }
  if (isIdentStart(c)) {
    uint32_t e = start;
    // Dots join op and type names (scalar.addi, pipeline.flow); a hyphen followed by a letter or
    // digit joins processor names (gfx11-generic). Loom has no binary minus, so this is safe.
    while (e < buf_.size()) {
      if (isIdentChar(p[e])) {
        ++e;
      } else if ((p[e] == '.' || p[e] == '-') && e + 1 < buf_.size() && isIdentChar(p[e + 1]) && p[e + 1] != '$') {
        ++e;
      } else {
        break;
      }
    }
    return finish(Tok::Ident, e);
  }
  size_t n = utf8Length(buf_.substr(start));
  if (n == 0) {
    error(diag::DiagId::ParseInvalidUtf8, start, 1, "", "");
    return finish(Tok::Error, start + 1);
  }
  error(diag::DiagId::ParseUnexpectedCharacter, start, uint32_t(n), "char", std::string(buf_.substr(start, n)));
  return finish(Tok::Error, start + uint32_t(n));
}

std::string Lexer::unescape(const Token &t) {
  std::string out;
  std::string_view s = t.text.substr(1, t.text.size() - 2);
  auto hex4 = [&](size_t at, unsigned &v) {
    if (at + 4 > s.size()) return false;
    v = 0;
    for (size_t k = 0; k < 4; ++k) {
      char h = s[at + k];
      if (!isHex(h)) return false;
      v = v * 16 + unsigned(isDigit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
    }
    return true;
  };
  auto put = [&](unsigned cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    uint32_t at = t.offset + 1 + uint32_t(i);
    char e = i + 1 < s.size() ? s[i + 1] : '\0';
    ++i;
    switch (e) {
    case '"': out += '"'; break;
    case '\\': out += '\\'; break;
    case '/': out += '/'; break;
    case 'b': out += '\b'; break;
    case 'f': out += '\f'; break;
    case 'n': out += '\n'; break;
    case 'r': out += '\r'; break;
    case 't': out += '\t'; break;
    case 'u': {
      unsigned cp;
      if (!hex4(i + 1, cp)) {
        error(diag::DiagId::ParseBadEscape, at, 2, "escape", "\\u");
        return out;
      }
      i += 4;
      if (cp >= 0xD800 && cp < 0xDC00) {
        unsigned lo;
        if (i + 2 < s.size() && s[i + 1] == '\\' && s[i + 2] == 'u' && hex4(i + 3, lo) && lo >= 0xDC00 && lo < 0xE000) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          i += 6;
        } else {
          error(diag::DiagId::ParseBadEscape, at, 6, "escape", "unpaired surrogate");
          return out;
        }
      } else if (cp >= 0xDC00 && cp < 0xE000) {
        error(diag::DiagId::ParseBadEscape, at, 6, "escape", "unpaired surrogate");
        return out;
      }
      put(cp);
      break;
    }
    default: error(diag::DiagId::ParseBadEscape, at, 2, "escape", std::string("\\") + e); return out;
    }
  }
  return out;
}

}  // namespace hrx::loom
