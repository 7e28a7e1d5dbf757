// Verifier hooks of the check dialect (Loom's test programs, run by `hrx check`), upstream's
// check.* verify rules: body ops live in a check.case or check.scenario, a case ends with
// check.return, a benchmark names a case or scenario, a literal fits its element type, and an expectation
// compares two values of one type. Check ops are kept as text (TextBody): their operands are
// read from frontend/loom's tokens (hrx/loom/TextBody.h).
#include "HookContext.h"

#include "hrx/loom/TextBody.h"

#include <map>

namespace hrx::loom::verify {
namespace {

using diag::DiagId;

bool isDefinition(OpCode c) { return c == OpCode::CheckCase || c == OpCode::CheckScenario; }

// The check.case / check.scenario around `op`, or the nearest other isolated op (null: none).
const Operation *owner(const Operation &op) {
  for (const Operation *p = op.parentOp(); p; p = p->parentOp())
    if (isDefinition(p->opcode()) || isIsolatedFromAbove(*p)) return p;
  return nullptr;
}

bool integerElement(std::string_view type) {
  // i1..i64, index, offset, or a tensor of them.
  if (type.starts_with("tensor<") && type.ends_with(">")) {
    size_t x = type.rfind('x');
    type = type.substr(x == std::string_view::npos ? 7 : x + 1);
    type.remove_suffix(1);
  }
  return type == "index" || type == "offset" ||
         (type.size() > 1 && type[0] == 'i' && type.find_first_not_of("0123456789", 1) == std::string_view::npos);
}

class CheckVerifier {
public:
  CheckVerifier(const Operation &op, HookContext &ctx)
      : op_(op), ctx_(ctx), buffer_(ctx.sourceText(op)), text_(textBodyTokens(buffer_, op)) {}

  void run(VerifyHook hook) {
    switch (hook) {
    case VerifyHook::CheckDefinition: return definition();
    case VerifyHook::CheckBenchmark: return benchmark();
    case VerifyHook::CheckLiteral: placement(), literal(); return;
    case VerifyHook::CheckExpect: placement(), expectation(); return;
    case VerifyHook::CheckBodyOp: return placement();
    default: return;
    }
  }

private:
  void placement() {
    const Operation *p = owner(op_);
    if (p && isDefinition(p->opcode())) return;
    ctx_.report(DiagId::StructureMisplacedOp, op_)
        .arg("op", std::string(op_.name()))
        .arg("parent", "a check.case or check.scenario body (its required ancestor), not " +
                           (p ? std::string(p->name()) : std::string("the module")))
        .arg("placement", "");
  }

  // A case (or scenario) body ends with check.return.
  void definition() {
    if (op_.numRegions() == 0) return;
    for (Block *b : op_.region(0)->blocks()) {
      const Operation *last = b->back();
      if (last && last->opcode() == OpCode::CheckReturn) continue;
      ctx_.report(DiagId::StructureMissingTerminator, op_)
          .arg("op", std::string(op_.name()))
          .arg("region", "0")
          .arg("terminator", "'check.return'")
          .arg("found", last ? ", not '" + std::string(last->name()) + "'" : std::string());
    }
  }

  // check.benchmark<@case>: the symbol is a check.case or check.scenario.
  void benchmark() {
    const auto &t = text_.tokens;
    if (t.size() < 3 || !t[0].is(Tok::Less) || !t[1].is(Tok::SymbolRef) || !t[2].is(Tok::Greater)) return;
    std::string_view name = t[1].name();
    const Module *m = ctx_.module();
    const Operation *target = m ? m->lookupSymbol(name) : nullptr;
    if (!m) return;
    if (!target) {
      ctx_.report(DiagId::SymbolUndefined, op_).arg("name", "@" + std::string(name));
      return;
    }
    // A scenario is measured as a case is (it is no case itself, but benchmarking it is valid).
    if (!isDefinition(target->opcode()))
      ctx_.report(DiagId::SymbolWrongKind, op_)
          .arg("name", "@" + std::string(name))
          .arg("kind", std::string(target->name()))
          .arg("expected", "check case (check.benchmark<@case> names a check.case or check.scenario)")
          .note(target->loc(), "defined here");
  }

  // check.literal value(...) : T: a float literal cannot initialize an integer element.
  void literal() {
    std::vector<Token> value;
    if (!textBodyGroup(text_.tokens, "value", value)) return;
    std::string type = textBodyType(text_.tokens);
    if (!integerElement(type)) return;
    for (const Token &v : value)
      if (v.is(Tok::Float)) {
        ctx_.report(DiagId::TypeLiteralKind, op_)
            .arg("op", std::string(op_.name()))
            .arg("attr_name", "value")
            .arg("actual", "the float " + std::string(v.text))
            .arg("expected", "an integer for " + type);
        return;
      }
  }

  // check.expect.*: actual(%a) and expected(%e) are values of one type.
  void expectation() {
    std::vector<Token> actual, expected;
    if (!textBodyGroup(text_.tokens, "actual", actual) || !textBodyGroup(text_.tokens, "expected", expected) ||
        actual.size() != 1 || expected.size() != 1 || !actual[0].is(Tok::ValueId) || !expected[0].is(Tok::ValueId))
      return;
    std::string ta = typeOf(actual[0].name()), te = typeOf(expected[0].name());
    if (ta.empty() || te.empty() || ta == te) return;
    ctx_.report(DiagId::TypeFieldMismatch, op_)
        .arg("op", std::string(op_.name()))
        .arg("field_a", "actual")
        .arg("type_a", ta)
        .arg("field_b", "expected")
        .arg("type_b", te);
  }

  // The type an earlier op of the enclosing definition writes for its result `name` ("" unknown).
  // The type of the nearest `%name` in scope: defined earlier in this op's block or in an
  // enclosing block before the op that holds it (sibling trials may reuse a name).
  std::string typeOf(std::string_view name) {
    const Operation *p = owner(op_);
    if (!p || !isDefinition(p->opcode())) return "";
    for (const Operation *at = &op_; at && at != p; at = at->parentOp()) {
      const Block *block = at->parentBlock();
      if (!block) break;
      std::string found;
      for (const Operation &o : *block) {
        if (&o == at) break;
        for (const Value &r : o.results())
          if (r.name() == name && o.numResults() == 1 && o.opaqueText().size() > 0)
            found = textBodyType(textBodyTokens(buffer_, o).tokens, /*result=*/true);
      }
      if (!found.empty()) return found;
    }
    return "";
  }

  const Operation &op_;
  HookContext &ctx_;
  std::string_view buffer_;
  TextBodyTokens text_;
};

}  // namespace

void checkCheckOp(const Operation &op, HookContext &ctx) {
  if (op.opcode() == OpCode::Opaque) return;
  CheckVerifier(op, ctx).run(opDef(op.opcode()).hook);
}

}  // namespace hrx::loom::verify
