#include "hrx/diag/Verify.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <regex>
#include <set>
#include <unordered_map>

namespace hrx::diag {
namespace {

constexpr unsigned kUnbounded = std::numeric_limits<unsigned>::max();
// std::regex compiles and matches recursively; these bounds keep hostile input off the stack.
constexpr size_t kMaxRegexLength = 1024;
constexpr unsigned kMaxRegexNesting = 32;
constexpr size_t kMaxRegexSubject = 4096;

constexpr size_t kNoParent = std::numeric_limits<size_t>::max();

constexpr Severity kKinds[] = {Severity::Error, Severity::Warning, Severity::Remark, Severity::Note};

// Loom's annotation word for a kind: ERROR, WARNING, REMARK, NOTE.
std::string loomWord(Severity kind) {
  std::string word(severityName(kind));
  for (char &c : word) c = static_cast<char>(c - 'a' + 'A');
  return word;
}

enum class Style : uint8_t { Clang, Loom };

struct Directive {
  Style style;
  Severity kind;      // Error, Warning, Remark or Note
  std::string label;  // "expected-error", "foo-note", "ERROR"
  uint32_t file = 0;  // where the directive is written
  uint32_t line = 0;
  uint32_t targetFile = 0;   // where the expected diagnostic is; unused with anyLocation
  uint32_t targetLine = 0;   // unused with anyLocation or anyLine
  bool anyLocation = false;  // @*: any file, any line, or no location
  bool anyLine = false;      // @file:*
  unsigned min = 1, max = 1;
  std::string text;  // clang: the text; Loom: the expectation as written
  std::optional<std::regex> regex;
  std::string code;  // Loom: "PARSE/006", a domain "PARSE", or empty
  std::vector<std::string> substrings;
  std::vector<std::pair<std::string, std::string>> params;
  bool missing = false;
};

struct Seen {
  Severity kind;
  uint32_t file;  // 0: no location
  uint32_t line;
  std::string message;
  std::string code;
  std::vector<std::pair<std::string, std::string>> params;
  size_t parent = kNoParent;  // for a note attached to a diagnostic: that diagnostic's index
  bool matched = false;
  bool matchedByLoom = false;
};

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool isLower(char c) { return c >= 'a' && c <= 'z'; }
bool isAlpha(char c) { return isUpper(c) || isLower(c); }
bool isIdentifierChar(char c) { return isAlpha(c) || isDigit(c) || c == '_'; }
bool isWordChar(char c) { return isIdentifierChar(c) || c == '-'; }
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// Parses decimal digits at `p`, saturating; false when there are none.
bool parseNumber(std::string_view s, size_t &p, unsigned &value) {
  if (p >= s.size() || !isDigit(s[p])) return false;
  uint64_t v = 0;
  for (; p < s.size() && isDigit(s[p]); ++p) v = std::min<uint64_t>(v * 10 + (s[p] - '0'), kUnbounded - 1);
  value = static_cast<unsigned>(v);
  return true;
}

// Skips a string or character literal starting at `i` (a quote). Literals end at their line, so
// a stray quote (a digit separator, an apostrophe in Loom) costs nothing.
size_t skipLiteral(std::string_view text, size_t i) {
  char quote = text[i];
  bool raw = quote == '"' && i > 0 && text[i - 1] == 'R' &&
             (i == 1 || !isIdentifierChar(text[i - 2]) ||
              std::string_view("8uUL").find(text[i - 2]) != std::string_view::npos);
  if (raw) {
    size_t open = text.find('(', i + 1);
    if (open != std::string_view::npos && open - i <= 17) {
      std::string close = ")" + std::string(text.substr(i + 1, open - i - 1)) + "\"";
      size_t end = text.find(close, open + 1);
      if (end != std::string_view::npos) return end + close.size();
    }
  }
  for (size_t j = i + 1; j < text.size() && text[j] != '\n'; ++j) {
    if (text[j] == '\\')
      ++j;
    else if (text[j] == quote)
      return j + 1;
  }
  return i + 1;
}

// Turns -re text into one regex: {{...}} parts verbatim (grouped), the rest escaped.
std::optional<std::string> buildRegex(std::string_view text, std::string &error) {
  std::string out;
  while (!text.empty()) {
    if (text.starts_with("{{")) {
      size_t close = text.find("}}", 2);
      if (close == std::string_view::npos) {
        error = "unterminated '{{' in regex";
        return std::nullopt;
      }
      out += '(';
      out += text.substr(2, close - 2);
      out += ')';
      text.remove_prefix(close + 2);
      continue;
    }
    size_t literal = std::min(text.find("{{"), text.size());
    for (char c : text.substr(0, literal)) {
      if (std::string_view("\\^$.[]|()*+?{}").find(c) != std::string_view::npos) out += '\\';
      out += c;
    }
    text.remove_prefix(literal);
  }
  unsigned depth = 0, deepest = 0;
  for (char c : out) {
    if (c == '(')
      deepest = std::max(deepest, ++depth);
    else if (c == ')' && depth)
      --depth;
  }
  if (out.size() > kMaxRegexLength || deepest > kMaxRegexNesting) {
    error = "regex is too long or too deeply nested";
    return std::nullopt;
  }
  return out;
}

}  // namespace

struct VerifyDiagnosticConsumer::Impl {
  enum class Status : uint8_t { None, NoDiagnostics, Others };

  std::vector<std::string> prefixes;   // sorted, unique
  bool loomAnnotations = false;        // Loom's // ERROR: form is active
  bool implicitNoDiagnostics = false;  // no annotation = no diagnostics expected
  std::vector<Directive> directives;
  std::vector<Seen> seen;
  std::set<uint32_t> files;
  Status status = Status::None;
  std::string noDiagnosticsSpelling;
  bool usedClang = false, usedLoom = false;  // styles of the accepted directives (for labels)
  unsigned failures = 0;

  // Per-file parsing state.
  const SourceManager *sm = nullptr;
  DiagnosticEngine *engine = nullptr;
  uint32_t file = 0;
  std::string_view text;

  SourceLocation at(size_t offset) const { return {file, static_cast<uint32_t>(offset)}; }
  uint32_t lineOf(size_t offset) const { return sm->lineColumn(at(offset)).line; }
  bool validLine(long long line, uint32_t inFile) const { return line >= 1 && line <= sm->lineCount(inFile); }
  // The input named `name` in full or by a trailing path component sequence; 0 when none.
  uint32_t findFile(std::string_view name) const {
    uint32_t suffixMatch = 0;
    for (uint32_t id = 1; id <= sm->fileCount(); ++id) {
      std::string_view candidate = sm->name(id);
      if (candidate == name) return id;
      if (!suffixMatch && candidate.size() > name.size() && candidate.ends_with(name) &&
          candidate[candidate.size() - name.size() - 1] == '/')
        suffixMatch = id;
    }
    return suffixMatch;
  }

  void scanComments();
  void parseClangDirectives(size_t begin, size_t end);
  // Parses one clang directive whose token is text[tokenBegin, p); returns false to stop
  // scanning the comment.
  bool parseClangDirective(std::string_view token, size_t tokenBegin, size_t &p, size_t end);
  bool parseLoomAnnotation(size_t begin, size_t end);
  // Applies the expected-no-diagnostics rules to a new directive; false when it is rejected.
  bool acceptDirective(std::string_view spelling, size_t offset, bool noDiagnostics);

  bool matches(const Directive &d, const Seen &s) const;
  static bool hasParam(const Seen &s, const std::pair<std::string, std::string> &param);
  void matchAll();
  void report(const SourceManager &sm, std::ostream &os);
};

void VerifyDiagnosticConsumer::Impl::scanComments() {
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      size_t end = std::min(text.find('\n', i), text.size());
      if (!(loomAnnotations && parseLoomAnnotation(i + 2, end))) parseClangDirectives(i + 2, end);
      i = end;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t close = text.find("*/", i + 2);
      size_t end = close == std::string_view::npos ? text.size() : close;
      parseClangDirectives(i + 2, end);
      i = close == std::string_view::npos ? end : end + 2;
    } else if (c == '"' || c == '\'') {
      i = skipLiteral(text, i);
    } else {
      ++i;
    }
  }
}

bool VerifyDiagnosticConsumer::Impl::acceptDirective(std::string_view spelling, size_t offset, bool noDiagnostics) {
  if (noDiagnostics) {
    if (status == Status::Others) {
      engine->report(DiagId::VerifyNoDiagnosticsAfterOthers, at(offset)).arg("spelling", std::string(spelling));
      return false;
    }
    status = Status::NoDiagnostics;
    noDiagnosticsSpelling = spelling;
    return true;
  }
  if (status == Status::NoDiagnostics) {
    engine->report(DiagId::VerifyDirectiveAfterNoDiagnostics, at(offset))
        .arg("spelling", std::string(spelling))
        .arg("nodiag", noDiagnosticsSpelling);
    return false;
  }
  status = Status::Others;
  return true;
}

void VerifyDiagnosticConsumer::Impl::parseClangDirectives(size_t begin, size_t end) {
  for (size_t p = begin; p < end;) {
    bool wordStart = isAlpha(text[p]) && (p == begin || !isWordChar(text[p - 1]));
    if (!wordStart) {
      ++p;
      continue;
    }
    size_t tokenBegin = p;
    while (p < end && isWordChar(text[p])) ++p;
    if (!parseClangDirective(text.substr(tokenBegin, p - tokenBegin), tokenBegin, p, end)) return;
  }
}

bool VerifyDiagnosticConsumer::Impl::parseClangDirective(std::string_view token, size_t tokenBegin, size_t &p,
                                                         size_t end) {
  std::string_view rest = token;
  bool isRegex = rest.ends_with("-re");
  if (isRegex) rest.remove_suffix(3);
  std::optional<Severity> kind;
  bool noDiagnostics = false;
  for (Severity k : kKinds) {
    std::string suffix = "-" + std::string(severityName(k));
    if (rest.ends_with(suffix)) {
      kind = k;
      rest.remove_suffix(suffix.size());
      break;
    }
  }
  if (!kind && !isRegex && rest.ends_with("-no-diagnostics")) {
    noDiagnostics = true;
    rest.remove_suffix(std::string_view("-no-diagnostics").size());
  }
  if ((!kind && !noDiagnostics) || !std::binary_search(prefixes.begin(), prefixes.end(), rest)) return true;
  // A rejected no-diagnostics directive leaves the comment's other directives alone; a directive
  // after no-diagnostics ends the comment (as in clang).
  if (!acceptDirective(token, tokenBegin, noDiagnostics)) return noDiagnostics;
  usedClang = true;
  if (noDiagnostics) return true;

  std::string kindWord = isRegex ? "regex" : "string";
  Directive d;
  d.style = Style::Clang;
  d.kind = *kind;
  d.label = std::string(rest) + "-" + std::string(severityName(*kind));
  d.file = file;
  d.line = lineOf(tokenBegin);
  d.targetFile = file;
  d.targetLine = d.line;

  std::string_view s = text.substr(0, end);
  if (p < end && text[p] == '@') {
    ++p;
    unsigned n = 0;
    long long target = -1;
    if (p < end && (text[p] == '+' || text[p] == '-')) {
      bool plus = text[p++] == '+';
      if (parseNumber(s, p, n)) target = plus ? d.line + static_cast<long long>(n) : d.line - static_cast<long long>(n);
    } else if (parseNumber(s, p, n)) {
      target = n;
    } else if (p < end && text[p] == '*') {
      ++p;
      d.anyLocation = true;
    } else {
      // @file:line or @file:*, for a diagnostic in another input (a header).
      size_t colon = p;
      while (colon < end && text[colon] != ':' && !isSpace(text[colon])) ++colon;
      if (colon > p && colon < end && text[colon] == ':') {
        std::string_view name = text.substr(p, colon - p);
        d.targetFile = findFile(name);
        if (!d.targetFile) {
          engine->report(DiagId::VerifyMissingFile, at(p)).arg("file", std::string(name)).arg("kind", kindWord);
          return true;
        }
        p = colon + 1;
        if (p < end && text[p] == '*') {
          ++p;
          d.anyLine = true;
        } else if (parseNumber(s, p, n)) {
          target = n;
        }
      }
    }
    if (!d.anyLocation && !d.anyLine && !validLine(target, d.targetFile)) {
      engine->report(DiagId::VerifyMissingLine, at(p)).arg("kind", kindWord);
      return true;
    }
    d.targetLine = static_cast<uint32_t>(std::max(target, 0LL));
  }
  while (p < end && isSpace(text[p])) ++p;

  if (p < end && isDigit(text[p])) {
    parseNumber(s, p, d.min);
    d.max = d.min;
    if (p < end && text[p] == '+') {
      ++p;
      d.max = kUnbounded;
    } else if (p < end && text[p] == '-') {
      ++p;
      if (!parseNumber(s, p, d.max) || d.max < d.min) {
        engine->report(DiagId::VerifyInvalidRange, at(p)).arg("kind", kindWord);
        return true;
      }
    }
  } else if (p < end && text[p] == '+') {
    ++p;
    d.max = kUnbounded;
  }
  while (p < end && isSpace(text[p])) ++p;

  if (!s.substr(p).starts_with("{{")) {
    engine->report(DiagId::VerifyMissingStart, at(p)).arg("kind", kindWord);
    return true;
  }
  size_t braces = 2;
  if (!isRegex)
    while (p + braces < end && text[p + braces] == '{') ++braces;
  std::string open(braces, '{'), close(braces, '}');
  size_t contentBegin = p + braces, q = contentBegin;
  for (unsigned depth = 1; q < end; ++q) {
    if (s.substr(q).starts_with(close)) {
      if (--depth == 0) break;
      q += close.size() - 1;
    } else if (s.substr(q).starts_with(open)) {
      ++depth;
      q += open.size() - 1;
    }
  }
  if (q >= end) {
    engine->report(DiagId::VerifyMissingEnd, at(p)).arg("kind", kindWord).arg("close", close);
    return false;
  }
  std::string_view content = s.substr(contentBegin, q - contentBegin);
  p = q + close.size();
  for (size_t i = 0; i < content.size(); ++i) {
    if (content.substr(i).starts_with("\\n")) {
      d.text += '\n';
      ++i;
    } else {
      d.text += content[i];
    }
  }

  if (isRegex) {
    if (d.text.find("{{") == std::string::npos) {
      engine->report(DiagId::VerifyMissingRegex, at(contentBegin)).arg("text", d.text);
      return false;
    }
    std::string error;
    std::optional<std::string> pattern = buildRegex(d.text, error);
    try {
      if (pattern) d.regex.emplace(*pattern, std::regex::extended);
    } catch (const std::regex_error &e) {
      error = e.what();
    }
    if (!d.regex) {
      engine->report(DiagId::VerifyInvalidRegex, at(contentBegin)).arg("reason", error);
      return true;
    }
  }
  directives.push_back(std::move(d));
  return true;
}

bool VerifyDiagnosticConsumer::Impl::parseLoomAnnotation(size_t begin, size_t end) {
  size_t p = begin;
  while (p < end && (text[p] == ' ' || text[p] == '\t')) ++p;
  std::optional<Severity> kind;
  std::string_view word;
  for (Severity k : kKinds) {
    std::string upper = loomWord(k);
    if (text.substr(p, end - p).starts_with(upper)) {
      kind = k;
      word = text.substr(p, upper.size());
      break;
    }
  }
  if (!kind) return false;
  size_t wordBegin = p;
  p += word.size();
  if (p >= end || (text[p] != '@' && text[p] != ':')) return false;
  std::string kindText(word);

  // Without an offset, text that does not read as an expectation is prose ("// NOTE: ...");
  // `committed` marks the point from which it can only be a (possibly malformed) annotation.
  bool committed = text[p] == '@';
  long long target = lineOf(wordBegin);
  if (text[p] == '@') {
    ++p;
    unsigned n = 0;
    bool plus = p < end && text[p] == '+';
    bool sign = plus || (p < end && text[p] == '-');
    if (sign) ++p;
    if (!sign || !parseNumber(text.substr(0, end), p, n) || !validLine(target + (plus ? 1LL : -1LL) * n, file)) {
      engine->report(DiagId::VerifyLoomInvalidOffset, at(p)).arg("kind", kindText);
      return true;
    }
    target += (plus ? 1LL : -1LL) * n;
    if (p >= end || text[p] != ':') {
      engine->report(DiagId::VerifyLoomMissingColon, at(p)).arg("kind", kindText);
      return true;
    }
  }
  ++p;  // ':'
  Directive d;
  d.style = Style::Loom;
  d.kind = *kind;
  d.label = kindText;
  d.file = file;
  d.line = lineOf(wordBegin);
  d.targetFile = file;
  d.targetLine = static_cast<uint32_t>(target);
  std::string_view expectation = text.substr(p, end - p);
  while (!expectation.empty() && isSpace(expectation.front())) expectation.remove_prefix(1);
  while (!expectation.empty() && isSpace(expectation.back())) expectation.remove_suffix(1);
  d.text = expectation.empty() ? "(any " + std::string(severityName(*kind)) + ")" : std::string(expectation);
  auto skipSpaces = [&] {
    while (p < end && isSpace(text[p])) ++p;
  };
  // Reads a quoted string at p (a '"'); false after reporting an unterminated one.
  auto readString = [&](std::string &out) {
    for (++p; p < end; ++p) {
      if (text[p] == '"') {
        ++p;
        return true;
      }
      if (text[p] == '\\' && p + 1 < end) {
        char e = text[++p];
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        out += text[p];
      }
    }
    engine->report(DiagId::VerifyLoomUnterminatedString, at(p)).arg("kind", kindText);
    return false;
  };
  auto malformedParams = [&](std::string reason) {
    engine->report(DiagId::VerifyLoomMalformedParams, at(p)).arg("kind", kindText).arg("reason", std::move(reason));
    return true;
  };

  skipSpaces();
  if (p < end && isAlpha(text[p])) {
    size_t codeBegin = p;
    while (p < end && (isAlpha(text[p]) || isDigit(text[p]) || text[p] == '_' || text[p] == '/')) ++p;
    std::string_view code = text.substr(codeBegin, p - codeBegin);
    bool hasSlash = code.find('/') != std::string_view::npos;
    if (!committed && !hasSlash && std::any_of(code.begin(), code.end(), isLower)) return false;
    size_t slash = std::min(code.find('/'), code.size());
    std::string_view domain = code.substr(0, slash), number = code.substr(std::min(slash + 1, code.size()));
    bool valid =
        isUpper(domain.front()) &&
        std::all_of(domain.begin(), domain.end(), [](char c) { return isUpper(c) || isDigit(c) || c == '_'; }) &&
        (!hasSlash || (!number.empty() && std::all_of(number.begin(), number.end(), isDigit)));
    if (!valid) {
      engine->report(DiagId::VerifyLoomMalformedCode, at(codeBegin))
          .arg("code", std::string(code))
          .arg("kind", kindText);
      return true;
    }
    committed = committed || hasSlash || p >= end;
    d.code = code;
  } else if (!committed && p < end && text[p] != '"' && text[p] != '{') {
    return false;
  }
  bool sawParams = false;
  for (skipSpaces(); p < end; skipSpaces()) {
    if (text[p] == '"' && !sawParams) {
      std::string substring;
      if (!readString(substring)) return true;
      d.substrings.push_back(std::move(substring));
    } else if (text[p] == '{' && !sawParams) {
      sawParams = true;
      ++p;
      skipSpaces();
      if (p < end && text[p] == '}') {
        ++p;
        continue;
      }
      while (true) {
        skipSpaces();
        size_t nameBegin = p;
        while (p < end && (isAlpha(text[p]) || isDigit(text[p]) || text[p] == '_' || text[p] == '.')) ++p;
        if (p == nameBegin || isDigit(text[nameBegin])) return malformedParams("expected a parameter name");
        std::string name(text.substr(nameBegin, p - nameBegin));
        skipSpaces();
        if (p >= end || text[p] != '=') return malformedParams("expected '=' after '" + name + "'");
        ++p;
        skipSpaces();
        if (p >= end || text[p] != '"') return malformedParams("expected a quoted value for '" + name + "'");
        std::string value;
        if (!readString(value)) return true;
        d.params.emplace_back(std::move(name), std::move(value));
        skipSpaces();
        if (p < end && text[p] == ',') {
          ++p;
          continue;
        }
        if (p < end && text[p] == '}') {
          ++p;
          break;
        }
        return malformedParams("expected ',' or '}'");
      }
    } else {
      if (!committed && d.substrings.empty() && !sawParams) return false;
      size_t wordEnd = p;
      while (wordEnd < end && !isSpace(text[wordEnd]) && wordEnd - p < 24) ++wordEnd;
      engine->report(DiagId::VerifyLoomUnexpectedText, at(p))
          .arg("text", std::string(text.substr(p, std::max<size_t>(wordEnd - p, 1))))
          .arg("kind", kindText);
      return true;
    }
  }
  if (!acceptDirective(kindText, wordBegin, false)) return true;
  usedLoom = true;
  directives.push_back(std::move(d));
  return true;
}

bool VerifyDiagnosticConsumer::Impl::matches(const Directive &d, const Seen &s) const {
  if (d.kind != s.kind) return false;
  if (!d.anyLocation && (s.file != d.targetFile || (!d.anyLine && s.line != d.targetLine))) return false;
  if (d.style == Style::Clang) {
    if (!d.regex) return s.message.find(d.text) != std::string::npos;
    std::string_view subject(s.message.data(), std::min(s.message.size(), kMaxRegexSubject));
    return std::regex_search(subject.begin(), subject.end(), *d.regex);
  }
  if (!d.code.empty()) {
    bool domainOnly = d.code.find('/') == std::string::npos;
    if (domainOnly ? !(s.code.starts_with(d.code) && s.code.size() > d.code.size() && s.code[d.code.size()] == '/')
                   : s.code != d.code)
      return false;
  }
  for (const std::string &sub : d.substrings)
    if (s.message.find(sub) == std::string::npos) return false;
  for (const auto &param : d.params)
    if (!hasParam(s, param)) return false;
  return true;
}

// Upstream Loom names the parameters of its TYPE and SYMBOL diagnostics op_name, operand_name,
// result_name, actual_type, expected_constraint and symbol_name; hrx's diagnostics carry the same
// facts as op, field, actual, expected and name ('@' included). Either spelling matches.
bool VerifyDiagnosticConsumer::Impl::hasParam(const Seen &s, const std::pair<std::string, std::string> &param) {
  if (std::find(s.params.begin(), s.params.end(), param) != s.params.end()) return true;
  static constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
      {"op_name", "op"},         {"operand_name", "field"},           {"result_name", "field"},
      {"actual_type", "actual"}, {"expected_constraint", "expected"}, {"symbol_name", "name"},
  };
  for (auto [upstream, own] : kAliases) {
    if (param.first != upstream) continue;
    std::string value = param.first == "symbol_name" ? "@" + param.second : param.second;
    for (const auto &[name, v] : s.params)
      if (name == own && v == value) return true;
  }
  return false;
}

void VerifyDiagnosticConsumer::Impl::matchAll() {
  // Seen diagnostics by (file, line), in emission order, so that a directive looks at its line only.
  std::unordered_map<uint64_t, std::vector<Seen *>> byLine;
  std::vector<Seen *> all;
  all.reserve(seen.size());
  for (Seen &s : seen) {
    s.matched = false;
    byLine[uint64_t(s.file) << 32 | s.line].push_back(&s);
    all.push_back(&s);
  }
  static const std::vector<Seen *> kNone;
  // Directives for a line go first so that @* and @file:* directives cannot take their diagnostics.
  for (bool anyPass : {false, true}) {
    for (Directive &d : directives) {
      if ((d.anyLocation || d.anyLine) != anyPass) continue;
      auto it = anyPass ? byLine.end() : byLine.find(uint64_t(d.targetFile) << 32 | d.targetLine);
      const std::vector<Seen *> &candidates = anyPass ? all : it == byLine.end() ? kNone : it->second;
      unsigned count = 0;
      for (auto c = candidates.begin(); count < d.max && c != candidates.end(); ++c) {
        if ((*c)->matched || !matches(d, **c)) continue;
        (*c)->matched = true;
        (*c)->matchedByLoom = d.style == Style::Loom;
        ++count;
      }
      d.missing = count < d.min;
    }
  }
  // A Loom annotation covers its diagnostic's attached notes (Loom's related locations are part
  // of one diagnostic); NOTE annotations may still check them, and clang style needs them.
  for (Seen &s : seen)
    if (!s.matched && s.parent != kNoParent && seen[s.parent].matchedByLoom) s.matched = true;
}

void VerifyDiagnosticConsumer::Impl::report(const SourceManager &sm, std::ostream &os) {
  bool multi = prefixes.size() > 1 || (usedLoom && usedClang);
  bool loomLabels = (usedLoom || implicitNoDiagnostics) && !usedClang;  // a split Loom case: Loom's words
  for (Severity kind : kKinds) {
    std::string kindText(severityName(kind));
    std::string label = loomLabels ? loomWord(kind) : prefixes.front() + "-" + kindText;
    auto header = [&](bool expected) {
      const char *what = expected ? "expected but not seen:" : "seen but not expected:";
      if (multi)
        os << "error: diagnostics with '" << kindText << "' severity " << what << '\n';
      else
        os << "error: '" << label << "' diagnostics " << what << '\n';
      ++failures;
    };
    bool any = false;
    for (const Directive &d : directives) {
      if (d.kind != kind || !d.missing) continue;
      if (!any) header(true), any = true;
      bool anyLine = d.anyLocation || d.anyLine;
      os << "  File " << (d.anyLocation ? std::string("*") : std::string(sm.name(d.targetFile))) << " Line "
         << (anyLine ? std::string("*") : std::to_string(d.targetLine));
      if (anyLine || d.targetFile != d.file || d.targetLine != d.line)
        os << " (directive at " << sm.name(d.file) << ':' << d.line << ')';
      if (multi) os << " '" << d.label << '\'';
      os << ": " << d.text << '\n';
    }
    any = false;
    for (const Seen &s : seen) {
      if (s.kind != kind || s.matched) continue;
      if (!any) header(false), any = true;
      if (s.file == 0)
        os << "  (frontend): " << s.message << '\n';
      else
        os << "  File " << sm.name(s.file) << " Line " << s.line << ": " << s.message << '\n';
    }
  }
}

VerifyDiagnosticConsumer::VerifyDiagnosticConsumer(std::vector<std::string> prefixes) : impl_(new Impl) {
  if (prefixes.empty()) prefixes.push_back("expected");
  std::sort(prefixes.begin(), prefixes.end());
  prefixes.erase(std::unique(prefixes.begin(), prefixes.end()), prefixes.end());
  impl_->loomAnnotations = std::binary_search(prefixes.begin(), prefixes.end(), std::string("expected"));
  impl_->prefixes = std::move(prefixes);
}

VerifyDiagnosticConsumer::~VerifyDiagnosticConsumer() = default;

void VerifyDiagnosticConsumer::addAnnotatedFile(const SourceManager &sm, uint32_t file, DiagnosticEngine &engine) {
  if (!impl_->files.insert(file).second) return;
  impl_->sm = &sm;
  impl_->engine = &engine;
  impl_->file = file;
  impl_->text = sm.contents(file);
  impl_->scanComments();
}

void VerifyDiagnosticConsumer::handle(const Diagnostic &diag, const SourceManager &sm) {
  std::vector<Seen> &seen = impl_->seen;
  size_t parent = seen.size();
  seen.push_back({diag.severity == Severity::Fatal ? Severity::Error : diag.severity, diag.range.begin.file,
                  sm.lineColumn(diag.range.begin).line, diag.message, diag.code, diag.params});
  for (const RelatedNote &note : diag.notes) {
    seen.push_back({Severity::Note, note.range.begin.file, sm.lineColumn(note.range.begin).line, note.message, {}, {}});
    seen.back().parent = parent;
  }
}

bool VerifyDiagnosticConsumer::check(const SourceManager &sm, std::ostream &os) {
  Impl &impl = *impl_;
  impl.failures = 0;
  if (impl.status == Impl::Status::None && !impl.implicitNoDiagnostics) {
    os << "error: no expected directives found: consider use of '" << impl.prefixes.front() << "-no-diagnostics'\n";
    ++impl.failures;
  }
  impl.matchAll();
  impl.report(sm, os);
  os.flush();
  return impl.failures == 0;
}

void VerifyDiagnosticConsumer::setImplicitNoDiagnostics(bool implicit) { impl_->implicitNoDiagnostics = implicit; }

unsigned VerifyDiagnosticConsumer::failureCount() const { return impl_->failures; }

}  // namespace hrx::diag
