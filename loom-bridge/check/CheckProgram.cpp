// Discovery of Loom check programs: the file goes through frontend/loom's parser (check.* ops
// are rows of its op table), the check definitions are read from the parsed module and their
// ops dispatched on their op ids; each op's own operands are frontend/loom's tokens. Also the
// code under test with its func.call wrappers.
#include "CheckInternal.h"

#include "hrx/diag/Diagnostic.h"
#include "hrx/diag/SourceManager.h"
#include "hrx/loom/IR.h"
#include "hrx/loom/Lexer.h"
#include "hrx/loom/Loom.h"
#include "hrx/loom/TextBody.h"

#include <algorithm>
#include <functional>
#include <set>
#include <map>
#include <tuple>

namespace hrx::check {
namespace {

using loom::Tok;

// Byte offset -> 1-based line and column.
class LineTable {
public:
  explicit LineTable(std::string_view text) {
    starts_.push_back(0);
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') starts_.push_back(uint32_t(i + 1));
  }
  std::pair<unsigned, unsigned> at(uint32_t offset) const {
    auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
    size_t line = size_t(it - starts_.begin());
    return {unsigned(line), unsigned(offset - starts_[line - 1] + 1)};
  }

private:
  std::vector<uint32_t> starts_;
};

Token::Kind tokenKind(Tok kind) {
  switch (kind) {
  case Tok::Ident:
  case Tok::HashId:
  case Tok::BlockLabel: return Token::Ident;
  case Tok::ValueId: return Token::Value;
  case Tok::SymbolRef: return Token::Symbol;
  case Tok::Integer:
  case Tok::Float: return Token::Number;
  case Tok::String: return Token::String;
  default: return Token::Punct;
  }
}

RawToken rawToken(const loom::Token &t, const LineTable &lines) {
  RawToken r;
  r.kind = tokenKind(t.kind);
  r.text = std::string(t.text);
  std::tie(r.line, r.column) = lines.at(t.offset);
  r.offset = t.offset;
  r.end = t.end();
  r.lineStart = t.lineStart;
  return r;
}

// Collects the parser's errors (their location and message) without printing them: the ones in
// the code under test are hrxcc's to report, the ones inside check definitions are ours.
class ErrorCollector : public diag::DiagnosticConsumer {
public:
  void handle(const diag::Diagnostic &d, const diag::SourceManager &) override {
    if (d.severity == diag::Severity::Error || d.severity == diag::Severity::Fatal)
      errors.push_back({d.range.begin.offset, d.code.empty() ? d.message : d.message + " [" + d.code + "]"});
  }
  std::vector<std::pair<uint32_t, std::string>> errors;
};

// Reads the check definitions out of the module frontend/loom parsed: an op's operands, types
// and attributes are its TextBody tokens (hrx/loom/TextBody.h), its results and nested ops the
// parser's.
class DefinitionReader {
public:
  explicit DefinitionReader(std::string_view text) : text_(text), lines_(text) {}

  // The tokens after the op name; `regionOpen`/`end` as loom::TextBodyTokens has them.
  std::vector<Token> header(const loom::Operation &op, uint32_t &regionOpen, uint32_t &end) {
    loom::TextBodyTokens body = loom::textBodyTokens(text_, op);
    regionOpen = body.regionOpen;
    end = body.regionOpen ? body.regionEnd : body.end;
    std::vector<Token> out;
    out.reserve(body.tokens.size());
    for (const loom::Token &t : body.tokens) out.push_back(rawToken(t, lines_));
    return out;
  }

  CheckOp op(const loom::Operation &op) {
    CheckOp out;
    out.name = std::string(op.name());
    out.code = op.opcode();
    uint32_t at = op.loc().begin.offset;
    for (const loom::Value &r : op.results()) {
      out.results.push_back(std::string(r.name()));
      at = std::min(at, r.loc().begin.offset);
    }
    std::tie(out.line, out.column) = lines_.at(at);
    uint32_t open = 0, end = 0;
    out.tokens = header(op, open, end);
    if (open && op.numRegions() > 0) body(*op.region(0), out.region);
    return out;
  }

  void body(const loom::Region &region, std::vector<CheckOp> &ops) {
    for (loom::Block *b : region.blocks())
      for (const loom::Operation &nested : *b) ops.push_back(op(nested));
  }

  std::pair<unsigned, unsigned> lineColumn(uint32_t offset) const { return lines_.at(offset); }

private:
  std::string_view text_;
  LineTable lines_;
};

}  // namespace

namespace {

// Calls `visit` on every op nested in `region`, in order.
template <typename Visit> void walk(const loom::Region &region, Visit &&visit) {
  for (loom::Block *block : region.blocks())
    for (const loom::Operation &op : *block) {
      visit(op);
      for (const loom::Region &nested : op.regions()) walk(nested, visit);
    }
}

struct ConfigRules {
  std::vector<ExtentRule> extents;
  std::vector<CapacityRule> capacities;
};

// The configuration rules of a kernel.def's launch body or a func.def's body (`body`, whose entry
// block arguments are the parameters): `%x = config.get @key` results (through index.assume) used
// as the dynamic dimension of a `buffer.view %param[...] : buffer -> view<...>` (through
// buffer.assume.*), and ones an `index.assume` states to be at least an index parameter.
ConfigRules configRules(const loom::Region &body, const std::set<std::string, std::less<>> &configs) {
  ConfigRules rules;
  std::vector<ExtentRule> &out = rules.extents;
  loom::Block *entry = body.entryBlock();
  if (!entry) return rules;
  std::map<const loom::Value *, size_t> params;
  for (size_t i = 0; i < entry->arguments().size(); ++i) params.emplace(entry->argument(unsigned(i)), i);
  std::map<const loom::Value *, std::string> configOf;
  walk(body, [&](const loom::Operation &op) {
    switch (op.opcode()) {
    case loom::OpCode::ConfigGet:
      if (const loom::Attribute *key = op.attr("config"); key && configs.count(key->str()))
        configOf[op.result(0)] = std::string(key->str());
      return;
    case loom::OpCode::IndexAssume:  // %b, ... = index.assume %n, ...: %b is %n
    case loom::OpCode::BufferAssumeAlignment:
    case loom::OpCode::BufferAssumeNoalias:
    case loom::OpCode::BufferAssumeMemorySpace:
    case loom::OpCode::BufferAssumeSameRoot: {
      std::span<loom::Value *const> sources = op.operandGroup("in");
      for (size_t r = 0; r < op.numResults() && r < sources.size(); ++r) {
        if (auto p = params.find(sources[r]); p != params.end()) params.emplace(op.result(unsigned(r)), p->second);
        if (auto c = configOf.find(sources[r]); c != configOf.end()) configOf[op.result(unsigned(r))] = c->second;
      }
      if (const loom::Attribute *facts = op.attr("facts"); facts && facts->kind() == loom::AttrKind::Array)
        for (const loom::Attribute *fact : facts->elements()) {
          // le(%param, %capacity)
          auto args = fact->kind() == loom::AttrKind::Predicate && fact->str() == "le"
                          ? fact->elements()
                          : std::span<loom::Attribute *const>{};
          if (args.size() != 2 || args[0]->kind() != loom::AttrKind::ValueRef ||
              args[1]->kind() != loom::AttrKind::ValueRef)
            continue;
          auto p = params.find(args[0]->value());
          auto c = configOf.find(args[1]->value());
          if (p != params.end() && c != configOf.end()) rules.capacities.push_back({p->second, c->second});
        }
      return;
    }
    case loom::OpCode::BufferView: {
      auto p = params.find(op.operandNamed("source"));
      const loom::Type *view = op.result(0)->type();
      if (p == params.end() || view->kind() != loom::TypeKind::View) return;
      auto element = elementInfo(view->elementType()->str());
      if (!element) return;
      ExtentRule rule;
      rule.param = p->second;
      rule.elementBytes = element->bytes;
      bool sizedByConfig = false;
      for (const loom::Dim &d : view->shape()) {
        ExtentDim dim;
        dim.size = d.isStatic() ? d.extent : -1;
        if (!d.isStatic())
          if (auto c = configOf.find(d.dynamic); c != configOf.end()) dim.key = c->second, sizedByConfig = true;
        rule.dims.push_back(std::move(dim));
      }
      if (sizedByConfig) out.push_back(std::move(rule));
      return;
    }
    default: return;
    }
  });
  return rules;
}

void addConfigRules(CheckFile &file, const std::string &symbol, ConfigRules rules) {
  if (!rules.extents.empty()) file.extentRules[symbol] = std::move(rules.extents);
  if (!rules.capacities.empty()) file.capacityRules[symbol] = std::move(rules.capacities);
}

std::vector<std::string> argumentNames(const loom::Operation &op, unsigned region) {
  std::vector<std::string> names;
  if (region >= op.regions().size() || !op.region(region)->entryBlock()) return names;
  for (const loom::Value *arg : op.region(region)->entryBlock()->arguments()) names.emplace_back(arg->name());
  return names;
}

// The keys each top-level symbol reads through config.get, directly or through the symbols it
// names (calls, launches, template applications), and each config.decl's declared range.
void readConfigUse(const loom::Module &module, CheckFile &file) {
  std::map<std::string, std::set<std::string>> named;  // symbol → symbols its body names
  std::function<void(const loom::Attribute *, std::set<std::string> &)> symbolsIn = [&](const loom::Attribute *a,
                                                                                        std::set<std::string> &out) {
    if (!a) return;
    if (a->kind() == loom::AttrKind::Symbol) out.insert(std::string(a->str()));
    if (a->kind() == loom::AttrKind::Array || a->kind() == loom::AttrKind::Predicate)
      for (const loom::Attribute *e : a->elements()) symbolsIn(e, out);
    if (a->kind() == loom::AttrKind::Dict || a->kind() == loom::AttrKind::Hash)
      for (const loom::NamedAttr &e : a->entries()) symbolsIn(e.value, out);
  };
  for (const loom::Operation &top : module.body()) {
    std::string name(top.symbolName());
    if (top.opcode() == loom::OpCode::ConfigDecl) {
      for (const loom::Attribute *p : loom::predicatesOf(top)) {
        auto args = p->elements();
        if (p->str() == "range" && args.size() == 3 && args[1]->kind() == loom::AttrKind::Integer &&
            args[2]->kind() == loom::AttrKind::Integer)
          file.configRanges[name] = {args[1]->integer(), args[2]->integer()};
      }
      continue;
    }
    if (name.empty() || top.opcode() == loom::OpCode::CheckCase || top.opcode() == loom::OpCode::CheckScenario ||
        top.opcode() == loom::OpCode::CheckBenchmark)
      continue;
    for (const loom::Region &r : top.regions())
      walk(r, [&](const loom::Operation &op) {
        if (op.opcode() == loom::OpCode::ConfigGet) {
          if (const loom::Attribute *key = op.attr("config")) file.configReads[name].insert(std::string(key->str()));
          return;
        }
        for (const loom::NamedAttr &a : op.attributes()) symbolsIn(a.value, named[name]);
      });
  }
  for (const loom::Operation &top : module.body())
    if (top.opcode() == loom::OpCode::ConfigDef) file.configRanges.erase(std::string(top.symbolName()));
  // Close over the names: what a callee reads, its caller reads.
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto &[caller, callees] : named)
      for (const std::string &callee : callees)
        if (auto it = file.configReads.find(callee); it != file.configReads.end() && callee != caller)
          for (const std::string &key : std::set<std::string>(it->second))
            grew |= file.configReads[caller].insert(key).second;
  }
}

// The code under test's kernels (their workload and launch parameters), pipelines and extent
// rules, from the parsed module's top-level ops.
void readCodeUnderTest(const loom::Module &module, CheckFile &file) {
  readConfigUse(module, file);
  std::set<std::string, std::less<>> configs;
  for (const loom::Operation &top : module.body())
    if (top.opcode() == loom::OpCode::ConfigDecl) configs.emplace(top.symbolName());
  for (const loom::Operation &top : module.body()) {
    std::string name(top.symbolName());
    if (!name.empty()) file.symbols.insert(name);
    switch (top.opcode()) {
    case loom::OpCode::PipelineDef: file.pipelines.insert(name); break;
    case loom::OpCode::KernelDef:
    case loom::OpCode::KernelDecl: {
      // kernel.def @name(%workload: T, ...) { launch config } launch(%arg: T, ...) { body }
      file.kernels[name] = KernelSignature{argumentNames(top, 0), argumentNames(top, 1)};
      if (top.opcode() == loom::OpCode::KernelDef && top.regions().size() > 1)
        addConfigRules(file, name, configRules(*top.region(1), configs));
      break;
    }
    case loom::OpCode::FuncDef:
      if (!top.regions().empty()) addConfigRules(file, name, configRules(*top.region(0), configs));
      break;
    default: break;
    }
  }
}

}  // namespace

namespace {

// The check.case / check.scenario / check.benchmark definitions of the module frontend/loom
// parses from `file.text`; a parse error inside one is a located problem of the check program.
void readDefinitions(CheckFile &file) {
  diag::SourceManager sm;
  uint32_t id = sm.addBuffer(file.path, file.text);
  diag::DiagnosticOptions options;
  options.errorLimit = 0;
  diag::DiagnosticEngine diags(sm);
  diags.setOptions(options);
  ErrorCollector errors;
  diags.addConsumer(&errors);
  loom::OwningModule module = loom::parseModule(sm, id, diags);
  if (!module) return;
  readCodeUnderTest(*module, file);
  // The check dialect's verify rules, as hrxcc runs them.
  loom::verifyCheckPrograms(*module, diags);
  DefinitionReader reader(sm.contents(id));
  auto problem = [&](unsigned line, unsigned column, std::string message) {
    file.problems.push_back({line, column, std::move(message)});
  };
  for (loom::Operation &top : module->body()) {
    loom::OpCode code = top.opcode();
    if (code != loom::OpCode::CheckCase && code != loom::OpCode::CheckScenario && code != loom::OpCode::CheckBenchmark)
      continue;
    CheckDefinition def;
    def.kind = std::string(top.name());
    def.code = code;
    std::tie(def.line, def.column) = reader.lineColumn(top.loc().begin.offset);
    def.beginOffset = top.loc().begin.offset;
    uint32_t open = 0;
    std::vector<Token> h = reader.header(top, open, def.endOffset);
    // The parser's and verifier's errors inside the definition (the code under test never sees
    // its text).
    for (const auto &[at, message] : errors.errors)
      if (at >= def.beginOffset && at < def.endOffset) {
        auto [line, column] = reader.lineColumn(at);
        problem(line, column, message);
      }
    size_t j = 0;
    if (code == loom::OpCode::CheckBenchmark) {
      // check.benchmark<@case> @name {k = v, ...}
      if (j + 2 < h.size() && h[j].text == "<" && h[j + 1].kind == Token::Symbol && h[j + 2].text == ">") {
        def.benchmarkOf = h[j + 1].text.substr(1);
        j += 3;
      } else {
        problem(def.line, def.column, "check.benchmark expects <@case> after its name");
      }
      // Without its own @name, a benchmark is named after its case.
      def.name = j < h.size() && h[j].kind == Token::Symbol ? h[j++].text.substr(1) : def.benchmarkOf;
      if (j < h.size() && h[j].text == "{") {
        ++j;
        while (j < h.size() && h[j].text != "}") {
          if (h[j].kind == Token::Ident && j + 2 < h.size() && h[j + 1].text == "=") {
            std::string value = h[j + 2].text;
            if (h[j + 2].kind == Token::String && value.size() >= 2) value = value.substr(1, value.size() - 2);
            def.fixed.emplace_back(h[j].text, value);
            j += 3;
          } else {
            problem(h[j].line, h[j].column, "expected 'name = value' in check.benchmark, found '" + h[j].text + "'");
            ++j;
          }
          if (j < h.size() && h[j].text == ",") ++j;
        }
      }
      file.definitions.push_back(std::move(def));
      continue;
    }
    while (j < h.size() && h[j].kind == Token::Ident && h[j].text != "configure") ++j;  // public, retain
    if (j < h.size() && h[j].kind == Token::Symbol)
      def.name = h[j++].text.substr(1);
    else
      problem(def.line, def.column, def.kind + " expects a @name");
    // configure[N](%x: index, %entropy: check.entropy)
    if (j + 2 < h.size() && h[j].text == "configure" && h[j + 1].text == "[") {
      def.configureCount = std::strtoll(h[j + 2].text.c_str(), nullptr, 10);
      j += 3;
      if (j < h.size() && h[j].text == "]") ++j;
      if (j < h.size() && h[j].text == "(")
        for (++j; j < h.size() && h[j].text != ")"; ++j)
          if (h[j].kind == Token::Value) def.configureArgs.push_back(h[j].text.substr(1));
      if (def.configureCount < 1 || def.configureArgs.size() != 2)
        problem(def.line, def.column,
                "configure is written configure[N](%value: index, %entropy: check.entropy) with N >= 1");
    }
    if (!open || top.numRegions() == 0) {
      problem(def.line, def.column, def.kind + " expects a '{' body");
      continue;
    }
    reader.body(*top.region(0), def.body);
    file.definitions.push_back(std::move(def));
  }
}

}  // namespace

void addLinkedCode(CheckFile &file, std::string_view path, std::string_view text) {
  diag::SourceManager sm;
  uint32_t id = sm.addBuffer(std::string(path), std::string(text));
  diag::DiagnosticEngine quiet(sm);  // hrxcc reports the linked file's own errors
  loom::OwningModule module = loom::parseModule(sm, id, quiet);
  if (!module) return;
  CheckFile linked;
  readCodeUnderTest(*module, linked);
  file.kernels.merge(linked.kernels);
  file.pipelines.merge(linked.pipelines);
  file.extentRules.merge(linked.extentRules);
  file.capacityRules.merge(linked.capacityRules);
  file.configRanges.merge(linked.configRanges);
  for (auto &[symbol, keys] : linked.configReads) file.configReads[symbol].merge(keys);
  file.symbols.merge(linked.symbols);
}

CheckFile discoverChecks(std::string path, std::string text) {
  CheckFile file;
  file.path = std::move(path);
  file.text = std::move(text);
  readDefinitions(file);
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
  shape.resultNames = op.results;
  return shape;
}

namespace {

// One named result group of check.compare's `-> [actual(%a: T, ...), expected(%e: T, ...)]`,
// starting at t[i] (the group's name): its names and types; `i` ends past its ')'.
bool resultGroup(const std::vector<Token> &t, size_t &i, std::string_view group, std::vector<std::string> &names,
                 std::vector<std::string> &types) {
  if (i + 1 >= t.size() || t[i].text != group || t[i + 1].text != "(") return false;
  size_t close = i + 2;
  for (int depth = 1; close < t.size(); ++close) {
    if (t[close].text == "(" || t[close].text == "<" || t[close].text == "[") ++depth;
    if (t[close].text == ")" || t[close].text == ">" || t[close].text == "]") --depth;
    if (depth == 0) break;
  }
  if (close >= t.size()) return false;
  for (const std::string &entry : splitTypeList(joinTokens(t, i + 2, close))) {
    size_t colon = entry.find(':');
    if (!entry.starts_with("%") || colon == std::string::npos) return false;
    names.push_back(entry.substr(1, colon - 1));
    types.push_back(entry.substr(colon + 1));
  }
  i = close + 1;
  return true;
}

}  // namespace

std::vector<CallShape> compareCalls(const CheckOp &op) {
  // check.compare<@impl[, @oracle]>(%a, ...) : (types) -> ()
  //   or -> [actual(%a: T, ...), expected(%e: T, ...)]: the impl's results and the oracle's
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
  CallShape oracle = shape;
  if (size_t k = arrow + 1; k < t.size() && t[k].text == "[") {
    ++k;
    std::vector<std::string> expectedTypes;
    if (!resultGroup(t, k, "actual", shape.resultNames, shape.resultTypes) || k >= t.size() || t[k].text != "," ||
        !resultGroup(t, ++k, "expected", oracle.resultNames, expectedTypes) || expectedTypes != shape.resultTypes)
      return {};
    oracle.resultTypes = std::move(expectedTypes);
  }
  shape.callee = symbols.front();
  oracle.callee = symbols.back();
  return {shape, oracle};
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
    if (op.code == loom::OpCode::FuncCall)
      if (auto shape = callShape(op)) shapes.push_back(*shape);
    if (op.code == loom::OpCode::CheckCompare) shapes = compareCalls(op);
    // A callee nothing defines gets no wrapper: its cases fail alone (CheckRunner), and the
    // others still compile.
    for (const CallShape &shape : shapes)
      if (!file.kernels.count(shape.callee) && !file.pipelines.count(shape.callee) &&
          (file.foreignLinks || file.symbols.count(shape.callee)) && seen.insert(wrapperKey(shape)).second)
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
