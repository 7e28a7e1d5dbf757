// Discovery of Loom check programs: a small tokenizer of its own (check ops are data here, not
// IR: the code under test goes through the real frontend), the top-level definitions, and the
// code under test with its func.call wrappers.
#include "CheckInternal.h"

#include <cctype>
#include <set>
#include <map>

namespace hrx::check {
namespace {

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$'; }

}  // namespace

std::vector<RawToken> tokenize(std::string_view text) {
  std::vector<RawToken> out;
  unsigned line = 1;
  size_t lineBegin = 0;
  bool lineStart = true;
  size_t i = 0;
  auto push = [&](Token::Kind kind, size_t begin, size_t end) {
    RawToken t;
    t.kind = kind;
    t.text = std::string(text.substr(begin, end - begin));
    t.line = line;
    t.column = unsigned(begin - lineBegin + 1);
    t.offset = uint32_t(begin);
    t.end = uint32_t(end);
    t.lineStart = lineStart;
    lineStart = false;
    out.push_back(std::move(t));
  };
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      lineBegin = ++i;
      lineStart = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    size_t begin = i;
    if (c == '"') {
      ++i;
      while (i < text.size() && text[i] != '"' && text[i] != '\n') i += text[i] == '\\' ? 2 : 1;
      if (i < text.size() && text[i] == '"') ++i;
      push(Token::String, begin, i);
    } else if ((c == '%' || c == '@' || c == '^' || c == '#') && i + 1 < text.size()) {
      ++i;
      while (i < text.size() && identChar(text[i])) ++i;
      push(c == '%' ? Token::Value : c == '@' ? Token::Symbol : Token::Ident, begin, i);
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '-' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))) {
      ++i;
      while (i < text.size()) {
        char d = text[i];
        bool exponentSign = (d == '+' || d == '-') && (text[i - 1] == 'e' || text[i - 1] == 'E') &&
                            !(begin + 1 < text.size() && (text[begin + 1] == 'x' || text[begin + 2] == 'x'));
        if (std::isalnum(static_cast<unsigned char>(d)) || d == '.' || d == '_' || exponentSign)
          ++i;
        else
          break;
      }
      push(Token::Number, begin, i);
    } else if (identStart(c)) {
      while (i < text.size() && identChar(text[i])) ++i;
      push(Token::Ident, begin, i);
    } else if (c == '-' && i + 1 < text.size() && text[i + 1] == '>') {
      i += 2;
      push(Token::Punct, begin, i);
    } else {
      ++i;
      push(Token::Punct, begin, i);
    }
  }
  return out;
}

namespace {

bool isPunct(const RawToken &t, char c) { return t.kind == Token::Punct && t.text.size() == 1 && t.text[0] == c; }

// Parses the ops of a region body starting at `i` (after its '{'), up to and including the
// closing '}'. Problems are recorded; parsing resumes at the next line.
class OpParser {
public:
  OpParser(const std::vector<RawToken> &toks, std::vector<CheckProblem> &problems) : t_(toks), problems_(problems) {}

  size_t parseRegion(size_t i, std::vector<CheckOp> &ops) {
    while (i < t_.size()) {
      if (isPunct(t_[i], '}')) return i + 1;
      CheckOp op;
      size_t next = parseOp(i, op);
      if (next == i) next = i + 1;
      if (!op.name.empty()) ops.push_back(std::move(op));
      i = next;
    }
    problems_.push_back(
        {t_.empty() ? 0 : t_.back().line, t_.empty() ? 0 : t_.back().column, "unterminated region: expected '}'"});
    return i;
  }

private:
  size_t parseOp(size_t i, CheckOp &op) {
    size_t start = i;
    // Results: %a, %b =
    size_t j = i;
    std::vector<std::string> results;
    while (j < t_.size() && t_[j].kind == Token::Value) {
      results.push_back(t_[j].text.substr(1));
      ++j;
      if (j < t_.size() && isPunct(t_[j], ','))
        ++j;
      else
        break;
    }
    if (!results.empty() && j < t_.size() && isPunct(t_[j], '='))
      i = j + 1;
    else
      results.clear();
    if (i >= t_.size() || t_[i].kind != Token::Ident) {
      const RawToken &at = t_[std::min(i, t_.size() - 1)];
      problems_.push_back({at.line, at.column, "expected an op name, found '" + at.text + "'"});
      return skipLine(start);
    }
    op.name = t_[i].text;
    op.results = std::move(results);
    op.line = t_[start].line;
    op.column = t_[start].column;
    ++i;
    int depth = 0;
    while (i < t_.size()) {
      const RawToken &t = t_[i];
      if (depth == 0 && t.lineStart) break;
      if (depth == 0 && isPunct(t, '}')) break;
      if (isPunct(t, '{') && depth == 0 && i + 1 < t_.size() && t_[i + 1].lineStart) {
        return parseRegion(i + 1, op.region);
      }
      if (isPunct(t, '(') || isPunct(t, '[') || isPunct(t, '{')) ++depth;
      if (isPunct(t, ')') || isPunct(t, ']') || isPunct(t, '}')) --depth;
      op.tokens.push_back(t);
      ++i;
    }
    return i;
  }

  size_t skipLine(size_t i) {
    ++i;
    while (i < t_.size() && !t_[i].lineStart) ++i;
    return i;
  }

  const std::vector<RawToken> &t_;
  std::vector<CheckProblem> &problems_;
};

}  // namespace

// The ExtentRules of the definition whose parameters start at toks[open] ('(') and whose body
// runs to `end`: `%x = config.get @key` results used as the one dynamic dimension of a
// `buffer.view %param[...] : buffer -> view<...>` (through buffer.assume.* renames).
static void extentRules(const std::vector<RawToken> &toks, size_t open, size_t end,
                        const std::set<std::string> &configs, std::vector<ExtentRule> &out) {
  std::map<std::string, size_t> params;
  size_t k = open + 1;
  for (int depth = 1; k < end && depth > 0; ++k) {
    if (isPunct(toks[k], '(')) ++depth;
    if (isPunct(toks[k], ')')) --depth;
    if (depth == 1 && toks[k].kind == Token::Value && k + 1 < end && isPunct(toks[k + 1], ':')) {
      size_t index = params.size();
      params.emplace(toks[k].text.substr(1), index);
    }
  }
  std::map<std::string, std::string> configOf;  // SSA name -> config key
  for (size_t i = k; i < end; ++i) {
    // %a, %b = buffer.assume.* %x, %y ...: %a is %x, %b is %y
    if (toks[i].lineStart && toks[i].kind == Token::Value) {
      std::vector<std::string> results;
      size_t j = i;
      while (j < end && toks[j].kind == Token::Value) {
        results.push_back(toks[j].text.substr(1));
        ++j;
        if (j < end && isPunct(toks[j], ','))
          ++j;
        else
          break;
      }
      if (j + 1 < end && isPunct(toks[j], '=')) {
        const RawToken &opTok = toks[j + 1];
        if (opTok.text == "config.get" && j + 2 < end && toks[j + 2].kind == Token::Symbol && results.size() == 1 &&
            configs.count(toks[j + 2].text.substr(1)))
          configOf[results[0]] = toks[j + 2].text.substr(1);
        // %b = index.assume %n [...]: %b is %n
        if (opTok.text == "index.assume" && j + 2 < end && toks[j + 2].kind == Token::Value && results.size() == 1)
          if (auto c = configOf.find(toks[j + 2].text.substr(1)); c != configOf.end()) configOf[results[0]] = c->second;
        if (opTok.text.starts_with("buffer.assume.")) {
          std::vector<std::string> sources;
          for (size_t m = j + 2; m < end && !toks[m].lineStart && !isPunct(toks[m], '{') && !isPunct(toks[m], ':'); ++m)
            if (toks[m].kind == Token::Value) sources.push_back(toks[m].text.substr(1));
          for (size_t r = 0; r < results.size() && r < sources.size(); ++r)
            if (auto p = params.find(sources[r]); p != params.end()) params.emplace(results[r], p->second);
        }
        if (opTok.text == "buffer.view" && j + 2 < end && toks[j + 2].kind == Token::Value) {
          auto p = params.find(toks[j + 2].text.substr(1));
          size_t m = j + 3;
          while (m < end && !toks[m].lineStart && toks[m].text != "->") ++m;
          if (p == params.end() || m + 2 >= end || toks[m + 1].text != "view" || toks[m + 2].text != "<") continue;
          std::string written;
          int depth = 0;
          for (size_t q = m + 2; q < end && !toks[q].lineStart; ++q) {
            if (toks[q].text == "<") ++depth;
            if (toks[q].text == ">" && --depth == 0) break;
            if (depth == 1 && toks[q].text == ",") break;  // a layout (#dense, #strided<...>) follows
            if (depth > 0 && !(depth == 1 && toks[q].text == "<")) written += toks[q].text;
          }
          auto spec = parseTypeSpec("tensor<" + written + ">");
          if (!spec) continue;
          auto element = elementInfo(spec->element);
          if (!element) continue;
          ExtentRule rule;
          rule.param = p->second;
          rule.elementBytes = element->bytes;
          bool sizedByConfig = false;
          for (const DimSpec &d : spec->dims) {
            ExtentDim dim;
            dim.size = d.size;
            if (d.size < 0)
              if (auto c = configOf.find(d.name); c != configOf.end()) dim.key = c->second, sizedByConfig = true;
            rule.dims.push_back(std::move(dim));
          }
          if (sizedByConfig) out.push_back(std::move(rule));
        }
      }
    }
  }
}

CheckFile discoverChecks(std::string path, std::string text) {
  CheckFile file;
  file.path = std::move(path);
  file.text = std::move(text);
  std::vector<RawToken> toks = tokenize(file.text);
  // Top-level definitions: where each starts, for the extent rules of kernels and functions.
  std::set<std::string> configs;
  std::vector<size_t> starts;
  {
    int d = 0;
    for (size_t i = 0; i < toks.size(); ++i) {
      if (isPunct(toks[i], '{')) ++d;
      if (isPunct(toks[i], '}')) --d;
      if (d == 0 && toks[i].lineStart && toks[i].kind == Token::Ident) {
        starts.push_back(i);
        if (toks[i].text == "config.decl" && i + 1 < toks.size() && toks[i + 1].kind == Token::Symbol)
          configs.insert(toks[i + 1].text.substr(1));
      }
    }
    starts.push_back(toks.size());
    for (size_t n = 0; n + 1 < starts.size(); ++n) {
      size_t i = starts[n], end = starts[n + 1];
      const std::string &kind = toks[i].text;
      if (kind != "kernel.def" && kind != "func.def") continue;
      size_t sym = i + 1;
      while (sym < end && !(toks[sym].kind == Token::Symbol && toks[sym - 1].text != "(")) ++sym;
      if (sym >= end) continue;
      size_t open = sym + 1;
      if (kind == "kernel.def") {  // the launch(...) signature
        int dd = 0;
        for (open = sym + 1; open < end; ++open) {
          if (isPunct(toks[open], '{')) ++dd;
          if (isPunct(toks[open], '}')) --dd;
          if (dd == 0 && toks[open].text == "launch" && open + 1 < end && isPunct(toks[open + 1], '(')) break;
        }
        ++open;
      }
      if (open >= end || !isPunct(toks[open], '(')) continue;
      std::vector<ExtentRule> rules;
      extentRules(toks, open, end, configs, rules);
      if (!rules.empty()) file.extentRules[toks[sym].text.substr(1)] = std::move(rules);
    }
  }
  int depth = 0;
  for (size_t i = 0; i < toks.size(); ++i) {
    const RawToken &t = toks[i];
    if (isPunct(t, '{')) ++depth;
    if (isPunct(t, '}')) --depth;
    if (depth != 0 || t.kind != Token::Ident || !t.lineStart) continue;
    if (t.text == "pipeline.def") {
      for (size_t k = i + 1; k < toks.size() && !toks[k].lineStart; ++k)
        if (toks[k].kind == Token::Symbol && toks[k - 1].text != "(") {
          file.pipelines.insert(toks[k].text.substr(1));
          break;
        }
      continue;
    }
    if (t.text == "kernel.def" || t.text == "kernel.decl") {
      // kernel.def [target(@t)] [export("x")] @name(%workload: T, ...) { ... } launch(%arg: T, ...)
      size_t k = i + 1;
      while (k < toks.size() && !(toks[k].kind == Token::Symbol && toks[k - 1].text != "(")) ++k;
      if (k >= toks.size()) continue;
      KernelSignature sig;
      auto params = [&](size_t at, std::vector<std::string> &names) {
        if (at >= toks.size() || !isPunct(toks[at], '(')) return at;
        int d = 0;
        for (; at < toks.size(); ++at) {
          if (isPunct(toks[at], '(')) ++d;
          if (isPunct(toks[at], ')') && --d == 0) return at + 1;
          if (d == 1 && toks[at].kind == Token::Value && at + 1 < toks.size() && isPunct(toks[at + 1], ':'))
            names.push_back(toks[at].text.substr(1));
        }
        return at;
      };
      size_t after = params(k + 1, sig.workload);
      for (size_t m = after; m < toks.size(); ++m) {
        if (toks[m].kind == Token::Ident && toks[m].text == "launch" && m + 1 < toks.size() &&
            isPunct(toks[m + 1], '(')) {
          params(m + 1, sig.launch);
          break;
        }
        if (toks[m].lineStart && toks[m].kind == Token::Ident && toks[m].text.find('.') != std::string::npos &&
            m > after + 1 && toks[m - 1].text == "}" && toks[m - 1].lineStart)
          break;  // the next top-level op: a declaration without launch(...)
      }
      file.kernels[toks[k].text.substr(1)] = std::move(sig);
      continue;
    }
    if (t.text != "check.case" && t.text != "check.scenario" && t.text != "check.benchmark") continue;
    CheckDefinition def;
    def.kind = t.text;
    def.line = t.line;
    def.column = t.column;
    def.beginOffset = t.offset;
    size_t j = i + 1;
    if (def.kind == "check.benchmark") {
      // check.benchmark<@case> @name {k = v, ...}
      if (j + 2 < toks.size() && isPunct(toks[j], '<') && toks[j + 1].kind == Token::Symbol &&
          isPunct(toks[j + 2], '>')) {
        def.benchmarkOf = toks[j + 1].text.substr(1);
        j += 3;
      } else {
        file.problems.push_back({t.line, t.column, "check.benchmark expects <@case> after its name"});
      }
      // Without its own @name, a benchmark is named after its case.
      if (j < toks.size() && toks[j].kind == Token::Symbol && !toks[j].lineStart)
        def.name = toks[j++].text.substr(1);
      else
        def.name = def.benchmarkOf;
      def.endOffset = j > 0 ? toks[j - 1].end : t.end;
      if (j < toks.size() && isPunct(toks[j], '{') && !toks[j].lineStart) {
        ++j;
        while (j < toks.size() && !isPunct(toks[j], '}')) {
          if (toks[j].kind == Token::Ident && j + 2 < toks.size() && isPunct(toks[j + 1], '=')) {
            std::string value = toks[j + 2].text;
            if (toks[j + 2].kind == Token::String && value.size() >= 2) value = value.substr(1, value.size() - 2);
            def.fixed.emplace_back(toks[j].text, value);
            j += 3;
          } else {
            file.problems.push_back({toks[j].line, toks[j].column,
                                     "expected 'name = value' in check.benchmark, found '" + toks[j].text + "'"});
            ++j;
          }
          if (j < toks.size() && isPunct(toks[j], ',')) ++j;
        }
        if (j < toks.size()) def.endOffset = toks[j].end;
      }
      i = j;
      file.definitions.push_back(std::move(def));
      continue;
    }
    while (j < toks.size() && toks[j].kind == Token::Ident && !toks[j].lineStart) ++j;  // public, retain
    if (j < toks.size() && toks[j].kind == Token::Symbol)
      def.name = toks[j++].text.substr(1);
    else
      file.problems.push_back({t.line, t.column, def.kind + " expects a @name"});
    // configure[N](%x: index, %entropy: check.entropy)
    if (j + 3 < toks.size() && toks[j].kind == Token::Ident && toks[j].text == "configure" &&
        isPunct(toks[j + 1], '[')) {
      def.configureCount = std::strtoll(toks[j + 2].text.c_str(), nullptr, 10);
      j += 3;
      if (j < toks.size() && isPunct(toks[j], ']')) ++j;
      if (j < toks.size() && isPunct(toks[j], '(')) {
        for (++j; j < toks.size() && !isPunct(toks[j], ')'); ++j)
          if (toks[j].kind == Token::Value) def.configureArgs.push_back(toks[j].text.substr(1));
        ++j;
      }
      if (def.configureCount < 1 || def.configureArgs.size() != 2)
        file.problems.push_back(
            {t.line, t.column,
             "configure is written configure[N](%value: index, %entropy: check.entropy) with N >= 1"});
    }
    if (j >= toks.size() || !isPunct(toks[j], '{')) {
      file.problems.push_back({t.line, t.column, def.kind + " expects a '{' body"});
      continue;
    }
    OpParser parser(toks, file.problems);
    size_t end = parser.parseRegion(j + 1, def.body);
    def.endOffset = end > 0 && end <= toks.size() ? toks[end - 1].end : uint32_t(file.text.size());
    i = end - 1;
    file.definitions.push_back(std::move(def));
  }
  return file;
}

// ---- types as written ----------------------------------------------------------------------

std::string joinTokens(const std::vector<Token> &toks, size_t begin, size_t end) {
  std::string s;
  for (size_t i = begin; i < end && i < toks.size(); ++i) s += toks[i].text;
  return s;
}

std::optional<TypeSpec> parseTypeSpec(std::string_view s) {
  TypeSpec spec;
  if (s.starts_with("tensor<") && s.ends_with(">")) {
    spec.tensor = true;
    std::string_view body = s.substr(7, s.size() - 8);
    while (!body.empty()) {
      if (body[0] == '[') {
        size_t close = body.find(']');
        if (close == std::string_view::npos || close + 1 >= body.size() || body[close + 1] != 'x') return std::nullopt;
        std::string_view name = body.substr(1, close - 1);
        if (name.starts_with("%")) name.remove_prefix(1);
        spec.dims.push_back({-1, std::string(name)});
        body.remove_prefix(close + 2);
      } else if (std::isdigit(static_cast<unsigned char>(body[0]))) {
        size_t k = 0;
        while (k < body.size() && std::isdigit(static_cast<unsigned char>(body[k]))) ++k;
        if (k >= body.size() || body[k] != 'x') break;  // a digit-leading element type cannot happen
        spec.dims.push_back({std::stoll(std::string(body.substr(0, k))), ""});
        body.remove_prefix(k + 1);
      } else {
        break;
      }
    }
    spec.element = std::string(body);
  } else {
    spec.element = std::string(s);
  }
  if (!elementInfo(spec.element)) return std::nullopt;
  return spec;
}

std::vector<std::string> splitTypeList(std::string_view s) {
  if (s.starts_with("(") && s.ends_with(")")) s = s.substr(1, s.size() - 2);
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::optional<ElementInfo> elementInfo(std::string_view e) {
  if (e == "i1") return ElementInfo{ElementKind::Int, 1, 1};
  if (e == "i8") return ElementInfo{ElementKind::Int, 8, 1};
  if (e == "i16") return ElementInfo{ElementKind::Int, 16, 2};
  if (e == "i32") return ElementInfo{ElementKind::Int, 32, 4};
  if (e == "i64" || e == "index" || e == "offset") return ElementInfo{ElementKind::Int, 64, 8};
  if (e == "f8E4M3") return ElementInfo{ElementKind::Float8E4M3, 8, 1};
  if (e == "f8E5M2") return ElementInfo{ElementKind::Float8E5M2, 8, 1};
  if (e == "f16") return ElementInfo{ElementKind::Half, 16, 2};
  if (e == "bf16") return ElementInfo{ElementKind::BFloat, 16, 2};
  if (e == "f32") return ElementInfo{ElementKind::Float, 32, 4};
  if (e == "f64") return ElementInfo{ElementKind::Double, 64, 8};
  return std::nullopt;
}

// ---- the code under test ---------------------------------------------------------------------

std::optional<CallShape> callShape(const CheckOp &op) {
  // func.call @f(%a, ...) : (T, ...) [-> (R, ...)]
  const auto &t = op.tokens;
  if (t.empty() || t[0].kind != Token::Symbol) return std::nullopt;
  CallShape shape;
  shape.callee = t[0].text.substr(1);
  size_t i = 1;
  if (i >= t.size() || t[i].text != "(") return std::nullopt;
  for (++i; i < t.size() && t[i].text != ")"; ++i)
    if (t[i].kind == Token::Value) shape.args.push_back(t[i].text.substr(1));
  ++i;
  if (i >= t.size() || t[i].text != ":") return std::nullopt;
  ++i;
  size_t arrow = i;
  while (arrow < t.size() && t[arrow].text != "->") ++arrow;
  shape.argTypes = splitTypeList(joinTokens(t, i, arrow));
  if (arrow < t.size()) shape.resultTypes = splitTypeList(joinTokens(t, arrow + 1, t.size()));
  return shape;
}

std::vector<CallShape> compareCalls(const CheckOp &op) {
  // check.compare<@impl[, @oracle]>(%a, ...) : (types) -> ()
  const auto &t = op.tokens;
  std::vector<std::string> symbols;
  size_t i = 0;
  if (i < t.size() && t[i].text == "<")
    for (++i; i < t.size() && t[i].text != ">"; ++i)
      if (t[i].kind == Token::Symbol) symbols.push_back(t[i].text.substr(1));
  if (symbols.empty() || symbols.size() > 2) return {};
  CallShape shape;
  for (++i; i < t.size() && t[i].text != ")"; ++i)
    if (t[i].kind == Token::Value) shape.args.push_back(t[i].text.substr(1));
  ++i;
  if (i >= t.size() || t[i].text != ":") return {};
  size_t arrow = i + 1;
  while (arrow < t.size() && t[arrow].text != "->") ++arrow;
  shape.argTypes = splitTypeList(joinTokens(t, i + 1, arrow));
  std::vector<CallShape> out;
  for (const std::string &s : symbols) {
    shape.callee = s;
    out.push_back(shape);
  }
  return out;
}

std::string wrapperKey(const CallShape &shape) {
  std::string key = shape.callee + "(";
  for (const std::string &a : shape.argTypes) key += a + ",";
  key += ")->(";
  for (const std::string &r : shape.resultTypes) key += r + ",";
  return key + ")";
}

namespace {

void collectCalls(const CheckFile &file, const std::vector<CheckOp> &ops, std::vector<CallShape> &calls,
                  std::set<std::string> &seen) {
  for (const CheckOp &op : ops) {
    std::vector<CallShape> shapes;
    if (op.name == "func.call")
      if (auto shape = callShape(op)) shapes.push_back(*shape);
    if (op.name == "check.compare") shapes = compareCalls(op);
    for (const CallShape &shape : shapes)
      if (!file.kernels.count(shape.callee) && !file.pipelines.count(shape.callee) &&
          seen.insert(wrapperKey(shape)).second)
        calls.push_back(shape);
    collectCalls(file, op.region, calls, seen);
  }
}

std::string loomType(const std::string &written) { return written.starts_with("tensor<") ? "buffer" : written; }

}  // namespace

std::vector<CallShape> wrappedCalls(const CheckFile &file) {
  std::vector<CallShape> calls;
  std::set<std::string> seen;
  for (const CheckDefinition &def : file.definitions) collectCalls(file, def.body, calls, seen);
  return calls;
}

std::string wrapperName(size_t index) { return "__hrx_check_call_" + std::to_string(index); }

std::string codeUnderTest(const CheckFile &file) {
  std::string text = file.text;
  for (const CheckDefinition &def : file.definitions)
    for (uint32_t k = def.beginOffset; k < def.endOffset && k < text.size(); ++k)
      if (text[k] != '\n') text[k] = ' ';
  std::vector<CallShape> calls = wrappedCalls(file);
  for (size_t n = 0; n < calls.size(); ++n) {
    const CallShape &c = calls[n];
    std::string params, args, types, results, resultTypes;
    for (size_t k = 0; k < c.argTypes.size(); ++k) {
      params += (k ? ", " : "") + std::string("%a") + std::to_string(k) + ": " + loomType(c.argTypes[k]);
      args += (k ? ", " : "") + std::string("%a") + std::to_string(k);
      types += (k ? ", " : "") + loomType(c.argTypes[k]);
    }
    for (size_t k = 0; k < c.resultTypes.size(); ++k) {
      params += (params.empty() ? "" : ", ") + std::string("%r") + std::to_string(k) + ": buffer";
      results += (k ? ", " : "") + std::string("%v") + std::to_string(k);
      resultTypes += (k ? ", " : "") + c.resultTypes[k];
    }
    std::string body = "\n// hrx check: calls @" + c.callee + " from a check program\nkernel.def @" + wrapperName(n) +
                       "() {\n  %one = index.constant 1 : index\n"
                       "  kernel.launch.config workgroups(%one, %one, %one) workgroup_size(%one, %one, %one) : index\n"
                       "} launch(" +
                       params + ") {\n";
    body += "  " + (results.empty() ? std::string() : results + " = ") + "func.call @" + c.callee + "(" + args +
            ") : (" + types + ")" + (resultTypes.empty() ? "" : " -> (" + resultTypes + ")") + "\n";
    if (!c.resultTypes.empty()) body += "  %base = index.constant 0 : offset\n  %first = index.constant 0 : index\n";
    for (size_t k = 0; k < c.resultTypes.size(); ++k) {
      std::string r = std::to_string(k);
      std::string stored = c.resultTypes[k] == "i1" ? "i8" : c.resultTypes[k];
      std::string value = "%v" + r;
      if (c.resultTypes[k] == "i1") {
        body += "  %t" + r + " = scalar.constant 1 : i8\n  %f" + r + " = scalar.constant 0 : i8\n";
        body += "  %s" + r + " = scf.select %v" + r + ", %t" + r + ", %f" + r + " : i8\n";
        value = "%s" + r;
      }
      body += "  %view" + r + " = buffer.view %r" + r + "[%base] : buffer -> view<1x" + stored + ">\n";
      body += "  view.store " + value + ", %view" + r + "[%first] : " + stored + ", view<1x" + stored + ">\n";
    }
    body += "  kernel.return\n}\n";
    text += body;
  }
  return text;
}

}  // namespace hrx::check
