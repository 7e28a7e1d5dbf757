// low.* (target machine code kept as text, Ops.def flag TextBody): the rules hrxcc can check
// from a low function's header and a light scan of its body lines. The header gives the target,
// the signature and the kernel launch shape; each body line is an opaque op whose written
// operands are re-read with textBodyTokens. Bodies written as `asm { ... }` are target assembly
// and are not scanned.
#include "HookContext.h"

#include "hrx/loom/TextBody.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hrx::loom::verify {
namespace {

using diag::DiagId;
using Toks = std::vector<Token>;

bool opens(const Token &t) { return t.is(Tok::LParen) || t.is(Tok::LSquare) || t.is(Tok::LBrace) || t.is(Tok::Less); }
bool closes(const Token &t) {
  return t.is(Tok::RParen) || t.is(Tok::RSquare) || t.is(Tok::RBrace) || t.is(Tok::Greater);
}

// The index just past the bracketed group opening at `i` (tokens[i] opens).
size_t skipGroup(const Toks &t, size_t i) {
  int depth = 0;
  for (; i < t.size(); ++i) {
    if (opens(t[i])) ++depth;
    if (closes(t[i]) && --depth == 0) return i + 1;
  }
  return t.size();
}

// A type written from `i` (a name and its <...>), spaces removed; `i` moves past it.
std::string readType(const Toks &t, size_t &i) {
  std::string out;
  if (i >= t.size()) return out;
  out += t[i].text;
  size_t start = ++i;
  if (i < t.size() && t[i].is(Tok::Less)) {
    i = skipGroup(t, i);
    for (size_t k = start; k < i; ++k) {
      if (t[k].spaceBefore && k > start && !closes(t[k]) && !t[k - 1].is(Tok::Less)) out += ' ';
      out += t[k].text;
    }
  }
  return out;
}

std::string squeeze(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  return out;
}

// The types of a `( T, T )` list or a single type at `i`.
std::vector<std::string> readTypeList(const Toks &t, size_t &i) {
  std::vector<std::string> out;
  if (i >= t.size()) return out;
  if (!t[i].is(Tok::LParen)) {
    out.push_back(readType(t, i));
    return out;
  }
  ++i;
  while (i < t.size() && !t[i].is(Tok::RParen)) {
    if (t[i].is(Tok::Comma)) {
      ++i;
      continue;
    }
    size_t before = i;
    out.push_back(readType(t, i));
    if (i == before) ++i;
  }
  if (i < t.size()) ++i;
  return out;
}

// A register type `reg<CLASS xN>`: its class and its unit count.
struct Reg {
  std::string cls;
  uint64_t units = 1;
};
std::optional<Reg> parseReg(std::string_view type) {
  if (!type.starts_with("reg<") || !type.ends_with(">")) return std::nullopt;
  std::string_view body = type.substr(4, type.size() - 5);
  Reg r;
  size_t sp = body.rfind(' ');
  if (sp != std::string_view::npos && sp + 1 < body.size() && body[sp + 1] == 'x') {
    std::string_view n = body.substr(sp + 2);
    if (!n.empty() && n.find_first_not_of("0123456789") == std::string_view::npos) {
      r.units = std::stoull(std::string(n));
      body = body.substr(0, sp);
    }
  }
  r.cls = squeeze(body);
  return r;
}

std::optional<int64_t> intOf(const Token &t) {
  if (!t.is(Tok::Integer) || t.text.starts_with("0x") || t.text.starts_with("-0x")) return std::nullopt;
  try {
    return std::stoll(std::string(t.text));
  } catch (...) {
    return std::nullopt;
  }
}

// `key = value` entries of the first top-level `{ ... }` attribute dictionary.
struct AttrEntry {
  std::string_view key;
  Token value;
};
std::vector<AttrEntry> attrDict(const Toks &t) {
  std::vector<AttrEntry> out;
  int depth = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (depth == 0 && t[i].is(Tok::LBrace)) {
      size_t end = skipGroup(t, i);
      for (size_t k = i + 1; k + 2 < end; ++k)
        if (t[k].is(Tok::Ident) && t[k + 1].is(Tok::Equal) && (t[k - 1].is(Tok::LBrace) || t[k - 1].is(Tok::Comma)))
          out.push_back({t[k].text, t[k + 2]});
      return out;
    }
    if (opens(t[i])) ++depth;
    if (closes(t[i]) && depth > 0) --depth;
  }
  return out;
}

// A low function's header, read from its written tokens.
struct Header {
  Toks toks;
  std::string name;
  std::string target;  // the target record named by target(@x) / target<...>(@x)
  std::string abi;
  bool asmBody = false;
  std::vector<std::string> argTypes;
  std::vector<std::string> resultTypes;
};

Header readHeader(const Operation &fn, HookContext &ctx) {
  Header h;
  h.toks = textBodyTokens(ctx.sourceText(fn), fn).tokens;
  const Toks &t = h.toks;
  int depth = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (depth == 0 && t[i].isIdent("target")) {
      size_t k = i + 1;
      if (k < t.size() && t[k].is(Tok::Less)) k = skipGroup(t, k);
      if (k + 1 < t.size() && t[k].is(Tok::LParen) && t[k + 1].is(Tok::SymbolRef)) h.target = t[k + 1].name();
    }
    if (depth == 0 && t[i].isIdent("abi") && i + 2 < t.size() && t[i + 1].is(Tok::LParen)) h.abi = t[i + 2].text;
    if (depth == 0 && t[i].isIdent("asm")) h.asmBody = true;
    if (depth == 0 && t[i].is(Tok::SymbolRef) && h.name.empty() && i + 1 < t.size() && t[i + 1].is(Tok::LParen)) {
      h.name = t[i].name();
      size_t end = skipGroup(t, i + 1);
      for (size_t k = i + 2; k + 1 < end; ++k)
        if (t[k].is(Tok::ValueId) && t[k + 1].is(Tok::Colon)) {
          size_t j = k + 2;
          h.argTypes.push_back(readType(t, j));
          k = j - 1;
        }
      if (end < t.size() && t[end].is(Tok::Arrow)) {
        size_t j = end + 1;
        h.resultTypes = readTypeList(t, j);
      }
      i = end - 1;
      continue;
    }
    if (opens(t[i])) ++depth;
    if (closes(t[i]) && depth > 0) --depth;
  }
  return h;
}

bool isLowFunction(OpCode c) {
  return c == OpCode::LowFuncDef || c == OpCode::LowKernelDef || c == OpCode::LowFuncDecl;
}

class LowVerifier {
public:
  LowVerifier(const Operation &fn, HookContext &ctx) : fn_(fn), ctx_(ctx), h_(readHeader(fn, ctx)) {}

  void run() {
    headerRules();
    if (fn_.opcode() == OpCode::LowFuncDecl || h_.asmBody) return;
    for (Region &r : fn_.regions()) {
      bool entry = true;
      for (Block *b : r.blocks()) {
        bool ordinary = false;
        for (const Operation &op : *b) bodyOp(op, entry, ordinary, r);
        entry = false;
      }
    }
  }

private:
  const Operation &fn_;
  HookContext &ctx_;
  Header h_;

  std::string fnName() const { return std::string(fn_.name()); }

  // ---- the header ----
  void headerRules() {
    const Toks &t = h_.toks;
    bool hasExport = false, hasLinkage = false;
    int depth = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      if (depth == 0 && t[i].isIdent("export")) hasExport = true;
      if (depth == 0 && t[i].isIdent("linkage") && i + 1 < t.size() && t[i + 1].is(Tok::LParen)) hasLinkage = true;
      if (t[i].is(Tok::SymbolRef) && depth == 0) break;  // the signature follows
      if (opens(t[i])) ++depth;
      if (closes(t[i]) && depth > 0) --depth;
    }
    if (hasLinkage && !hasExport) ctx_.attrConstraint(fn_, "export", "0", "present when linkage is present");
    if (fn_.opcode() != OpCode::LowKernelDef) return;
    auto triple = [&](std::string_view key, std::string_view attr, std::vector<uint64_t> &out) -> bool {
      Toks g;
      if (!textBodyGroup(t, key, g)) return true;
      static const char *axes[] = {"x", "y", "z"};
      for (const Token &v : g) {
        if (v.is(Tok::Comma)) continue;
        std::optional<int64_t> n = intOf(v);
        std::string name = std::string(attr) + "_" + (out.size() < 3 ? axes[out.size()] : "?");
        if (!n) return true;  // not a literal extent: left alone
        if (*n <= 0 || *n > int64_t(UINT32_MAX)) {
          ctx_.attrConstraint(fn_, name, std::string(v.text), "positive u32");
          return false;
        }
        out.push_back(uint64_t(*n));
      }
      return out.size() == 3;
    };
    std::vector<uint64_t> size, count, cluster;
    bool sizeOk = triple("workgroup_size", "workgroup_size", size);
    bool countOk = triple("workgroup_count", "workgroup_count", count);
    bool clusterOk = triple("cluster_size", "workgroup_cluster_size", cluster);
    (void)sizeOk;
    if (!clusterOk || cluster.size() != 3) return;
    static const char *axes[] = {"x", "y", "z"};
    if (cluster[0] == 1 && cluster[1] == 1 && cluster[2] == 1) {
      ctx_.attrConstraint(fn_, "workgroup_cluster_size_x", "1", "omitted when the complete cluster shape is 1x1x1");
      return;
    }
    // Each extent is a u32, so the product of all three fits 96 bits.
    unsigned __int128 product = (unsigned __int128)cluster[0] * cluster[1] * cluster[2];
    if (product > UINT32_MAX) {
      ctx_.attrConstraint(fn_, "workgroup_cluster_size_z", std::to_string(cluster[2]),
                          "a value whose product with the x and y dimensions fits u32");
      return;
    }
    if (!countOk || count.size() != 3) return;
    for (int d = 0; d < 3; ++d)
      if (count[d] % cluster[d] != 0) {
        ctx_.attrConstraint(fn_, std::string("workgroup_count_") + axes[d], std::to_string(count[d]),
                            std::string("a positive multiple of workgroup_cluster_size_") + axes[d]);
        return;
      }
  }

  // ---- the body ----
  void bodyOp(const Operation &op, bool entry, bool &ordinary, const Region &fnRegion) {
    std::string_view name = op.name();
    if (op.opcode() == OpCode::LowInvoke) {
      ctx_.report(DiagId::StructureMisplacedOp, op)
          .arg("op", "low.invoke")
          .arg("parent", "source code")
          .arg("placement",
               " (it calls a low function from source IR; inside " + fnName() + " call it with low.func.call)")
          .arg("constraint_kind", "forbidden")
          .arg("ancestor_name", fnName())
          .arg("actual_ancestor", fnName());
      return;
    }
    if (!op.isOpaque()) return;
    if (name == "low.live_in" || name == "low.resource") {
      if (!entry)
        ctx_.report(DiagId::StructureLowEntryBlock, op)
            .arg("op_name", std::string(name))
            .arg("expected_block", "the low entry block")
            .arg("actual_block", "a non-entry block");
      else if (ordinary)
        ctx_.report(DiagId::StructureLowPreamble, op)
            .arg("op_name", std::string(name))
            .arg("placement", "before")
            .arg("reference_name", "ordinary low packets");
    } else {
      ordinary = true;
    }
    Toks t = textBodyTokens(ctx_.sourceText(op), op).tokens;
    if (name == "low.return")
      lowReturn(op, t);
    else if (name == "low.func.call")
      call(op, t);
    else if (name == "low.resource")
      resource(op, t);
    else if (name == "low.storage.address")
      storageAddress(op, t);
    else if (name == "low.copy")
      copy(op, t);
    else if (name == "low.slice")
      slice(op, t);
    else if (name == "low.concat")
      concat(op, t);
    else if (name == "low.br" || name == "low.cond_br")
      branch(op, t, fnRegion);
    else if (name == "low.scf.if")
      scfIf(op, t);
    // Nested regions (low.scf.*): their ops are not in the entry block.
    for (Region &r : op.regions())
      for (Block *b : r.blocks()) {
        bool nestedOrdinary = true;
        for (const Operation &inner : *b) bodyOp(inner, false, nestedOrdinary, fnRegion);
      }
  }

  // The value operands written before the top-level ':' and the types after it.
  static size_t valueCount(const Toks &t) {
    size_t n = 0;
    for (const Token &k : t) {
      if (k.is(Tok::Colon)) break;
      if (k.is(Tok::ValueId)) ++n;
    }
    return n;
  }
  static size_t colonAt(const Toks &t) {
    int depth = 0;
    size_t at = t.size();
    for (size_t i = 0; i < t.size(); ++i) {
      if (opens(t[i])) ++depth;
      if (closes(t[i]) && depth > 0) --depth;
      if (depth == 0 && t[i].is(Tok::Colon)) at = i;
    }
    return at;
  }
  // The written types: operands (after ':') and results (after '->').
  static void writtenTypes(const Toks &t, std::vector<std::string> &ins, std::vector<std::string> &outs) {
    size_t i = colonAt(t);
    if (i >= t.size()) return;
    ++i;
    ins = readTypeList(t, i);
    if (i < t.size() && t[i].is(Tok::Arrow)) {
      ++i;
      outs = readTypeList(t, i);
    }
  }

  void lowReturn(const Operation &op, const Toks &t) {
    if (fn_.opcode() != OpCode::LowKernelDef) return;
    size_t n = valueCount(t);
    if (n == 0) return;
    ctx_.report(DiagId::StructureOperandCount, op)
        .arg("op_name", "low.return")
        .arg("actual_count", std::to_string(n))
        .arg("expected_count", "0")
        .note(fn_.loc(), "a low.kernel.def returns no values");
  }

  void call(const Operation &op, const Toks &t) {
    if (t.empty() || !t[0].is(Tok::SymbolRef) || !ctx_.module()) return;
    std::string callee(t[0].name());
    const Operation *target = ctx_.module()->lookupSymbol(callee);
    if (!target) {
      ctx_.report(DiagId::SymbolUndefined, op).arg("name", "@" + callee);
      return;
    }
    if (target->opcode() != OpCode::LowFuncDef && target->opcode() != OpCode::LowFuncDecl) {
      ctx_.report(DiagId::SymbolWrongKind, op)
          .arg("name", "@" + callee)
          .arg("kind", std::string(target->name()))
          .arg("expected", "a low.func.def or low.func.decl")
          .arg("symbol_name", callee)
          .arg("actual_kind", std::string(HookContext::symbolKind(target->opcode())))
          .arg("expected_kind", "low function")
          .note(target->loc(), "defined here");
      return;
    }
    Header ch = readHeader(*target, ctx_);
    if (!ch.target.empty() && !h_.target.empty() && ch.target != h_.target) {
      ctx_.report(DiagId::TargetLowCalleeTarget, op)
          .arg("op_name", "low.func.call")
          .arg("field_name", "callee")
          .arg("callee", callee)
          .arg("callee_target_name", ch.target)
          .arg("caller_target_name", h_.target);
      return;
    }
    size_t n = 0;
    if (t.size() > 1 && t[1].is(Tok::LParen))
      for (size_t i = 2; i < t.size() && !t[i].is(Tok::RParen); ++i)
        if (t[i].is(Tok::ValueId)) ++n;
    if (n != ch.argTypes.size()) {
      ctx_.report(DiagId::StructureOperandCount, op)
          .arg("op_name", "low.func.call")
          .arg("actual_count", std::to_string(n))
          .arg("expected_count", std::to_string(ch.argTypes.size()))
          .note(target->loc(), "'@" + callee + "' declared here");
      return;
    }
    std::vector<std::string> ins, outs;
    writtenTypes(t, ins, outs);
    for (size_t i = 0; i < ins.size() && i < ch.argTypes.size(); ++i)
      if (squeeze(ins[i]) != squeeze(ch.argTypes[i])) {
        ctx_.report(DiagId::TypeFieldMismatch, op)
            .arg("op", "low.func.call")
            .arg("field_a", "operand " + std::to_string(i))
            .arg("type_a", ins[i])
            .arg("field_b", "callee argument " + std::to_string(i))
            .arg("type_b", ch.argTypes[i]);
        return;
      }
  }

  void resource(const Operation &op, const Toks &t) {
    bool extentOperand = false;
    std::string kind;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i].isIdent("extent") && i + 1 < t.size() && t[i + 1].is(Tok::LParen)) extentOperand = true;
      if (i == 0 && t[i].is(Tok::Less) && i + 1 < t.size()) kind = t[i + 1].text;
    }
    for (const AttrEntry &e : attrDict(t)) {
      std::optional<int64_t> n = intOf(e.value);
      if (e.key == "extent" && extentOperand)
        ctx_.attrConstraint(op, "extent", std::string(e.value.text), "absent when extent operand is present");
      else if (e.key == "extent" && n && *n < 0)
        ctx_.attrConstraint(op, "extent", std::string(e.value.text), ">= 0");
      else if (e.key == "cache_swizzle_stride" && n && (*n < 0 || *n >= (1 << 14)))
        ctx_.attrConstraint(op, "cache_swizzle_stride", std::string(e.value.text), "14-bit non-negative byte stride");
    }
    if (kind == "vm_state" && !h_.abi.empty() && h_.abi != "vm_module_function")
      ctx_.report(DiagId::TargetLowResourceAbi, op)
          .arg("op_name", "low.resource")
          .arg("field_name", "import_kind")
          .arg("import_kind", kind)
          .arg("expected_abi", "vm_module_function")
          .arg("actual_abi", h_.abi);
  }

  void storageAddress(const Operation &op, const Toks &t) {
    std::vector<std::string> ins, outs;
    writtenTypes(t, ins, outs);
    if (outs.size() == 1 && !parseReg(outs[0]))
      ctx_.report(DiagId::TypeResultMismatch, op)
          .arg("op", "low.storage.address")
          .arg("field", "result")
          .arg("actual", outs[0])
          .arg("expected", "a register type (reg<...>)")
          .arg("result_name", "result")
          .arg("actual_type", outs[0])
          .arg("expected_constraint", "register");
  }

  void copy(const Operation &op, const Toks &t) {
    std::vector<std::string> ins, outs;
    writtenTypes(t, ins, outs);
    if (ins.size() != 1 || outs.size() != 1) return;
    std::optional<Reg> a = parseReg(ins[0]), b = parseReg(outs[0]);
    if (a && b && (a->cls != b->cls || a->units != b->units))
      ctx_.report(DiagId::TypeFieldMismatch, op)
          .arg("op", "low.copy")
          .arg("field_a", "source")
          .arg("type_a", ins[0])
          .arg("field_b", "result")
          .arg("type_b", outs[0]);
  }

  void slice(const Operation &op, const Toks &t) {
    std::optional<int64_t> offset;
    for (size_t i = 0; i + 2 < t.size(); ++i)
      if (t[i].is(Tok::LSquare) && t[i + 2].is(Tok::RSquare)) {
        offset = intOf(t[i + 1]);
        break;
      }
    std::vector<std::string> ins, outs;
    writtenTypes(t, ins, outs);
    if (!offset || ins.size() != 1 || outs.size() != 1) return;
    if (*offset < 0)
      return ctx_.attrConstraint(op, "offset", std::to_string(*offset), "non-negative register-unit offset");
    std::optional<Reg> a = parseReg(ins[0]), b = parseReg(outs[0]);
    if (!a || !b) return;
    if (a->cls != b->cls) {
      ctx_.report(DiagId::TypeFieldMismatch, op)
          .arg("op", "low.slice")
          .arg("field_a", "source")
          .arg("type_a", ins[0])
          .arg("field_b", "result")
          .arg("type_b", outs[0]);
      return;
    }
    if (uint64_t(*offset) + b->units > a->units)
      ctx_.report(DiagId::SubrangeOutOfBounds, op)
          .arg("op", "low.slice")
          .arg("detail", "register units [" + std::to_string(*offset) + ", " + std::to_string(*offset + b->units) + ")")
          .arg("type", ins[0] + " (" + std::to_string(a->units) + " units)")
          .arg("dim_index", "0")
          .arg("offset", std::to_string(*offset))
          .arg("size", std::to_string(b->units))
          .arg("total", std::to_string(*offset + b->units))
          .arg("bound", std::to_string(a->units));
  }

  void concat(const Operation &op, const Toks &t) {
    std::vector<std::string> ins, outs;
    writtenTypes(t, ins, outs);
    if (ins.empty() || outs.size() != 1) return;
    std::optional<Reg> r = parseReg(outs[0]);
    if (!r) return;
    uint64_t units = 0;
    for (size_t i = 0; i < ins.size(); ++i) {
      std::optional<Reg> a = parseReg(ins[i]);
      if (!a) return;
      if (a->cls != r->cls) {
        ctx_.report(DiagId::TypeFieldMismatch, op)
            .arg("op", "low.concat")
            .arg("field_a", "operand " + std::to_string(i))
            .arg("type_a", ins[i])
            .arg("field_b", "result")
            .arg("type_b", outs[0]);
        return;
      }
      units += a->units;
    }
    if (units != r->units)
      ctx_.report(DiagId::TypeResultMismatch, op)
          .arg("op", "low.concat")
          .arg("field", "result")
          .arg("actual", outs[0])
          .arg("expected", "reg<" + r->cls + " x" + std::to_string(units) + "> (the operands' " +
                               std::to_string(units) + " units)");
  }

  void branch(const Operation &op, const Toks &t, const Region &fnRegion) {
    unsigned succ = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      if (!t[i].is(Tok::BlockLabel)) continue;
      std::string_view label = t[i].name();
      std::vector<std::string> types;
      size_t n = 0;
      if (i + 1 < t.size() && t[i + 1].is(Tok::LParen)) {
        size_t end = skipGroup(t, i + 1);
        for (size_t k = i + 2; k + 1 < end; ++k)
          if (t[k].is(Tok::ValueId)) {
            ++n;
            if (t[k + 1].is(Tok::Colon)) {
              size_t j = k + 2;
              types.push_back(readType(t, j));
            } else {
              types.emplace_back();
            }
          }
        i = end - 1;
      }
      destCheck(op, label, succ++, n, types, fnRegion);
    }
  }

  void destCheck(const Operation &op, std::string_view label, unsigned index, size_t n,
                 const std::vector<std::string> &types, const Region &fnRegion) {
    const Block *dest = nullptr;
    for (Block *b : fnRegion.blocks())
      if (b->label() == label) dest = b;
    if (!dest) return;
    std::string name(op.name());
    if (dest->arguments().size() != n) {
      ctx_.report(DiagId::StructureSuccessorArgCount, op)
          .arg("op_name", name)
          .arg("actual_count", std::to_string(n))
          .arg("successor_index", std::to_string(index))
          .arg("expected_count", std::to_string(dest->arguments().size()));
      return;
    }
    for (size_t a = 0; a < n; ++a) {
      const Type *want = dest->argument(unsigned(a))->type();
      if (!want || types[a].empty()) continue;
      std::string expected = want->str();
      if (squeeze(expected) == squeeze(types[a]) || expected.find('?') != std::string::npos) continue;
      ctx_.report(DiagId::StructureSuccessorArgType, op)
          .arg("op_name", name)
          .arg("argument_index", std::to_string(a))
          .arg("successor_index", std::to_string(index))
          .arg("actual_type", types[a])
          .arg("expected_type", expected);
      return;
    }
  }

  void scfIf(const Operation &op, const Toks &t) {
    std::vector<std::string> results;
    for (size_t i = 0; i < t.size(); ++i)
      if (t[i].is(Tok::Arrow)) {
        size_t j = i + 1;
        results = readTypeList(t, j);
        break;
      }
    if (!results.empty() && op.numRegions() < 2)
      ctx_.report(DiagId::StructureCountMismatch, op)
          .arg("op", "low.scf.if")
          .arg("field_a", "else_region")
          .arg("count_a", "0")
          .arg("field_b", "present when low.scf.if has results")
          .arg("count_b", "1");
    static const char *regionNames[] = {"then_region", "else_region"};
    for (unsigned r = 0; r < op.numRegions() && r < 2; ++r) {
      const Region &region = op.regions()[r];
      const Block *entry = region.entryBlock();
      if (!entry) continue;
      if (!entry->arguments().empty()) {
        ctx_.report(DiagId::StructureCountMismatch, op)
            .arg("op", "low.scf.if")
            .arg("field_a", regionNames[r])
            .arg("count_a", std::to_string(entry->arguments().size()))
            .arg("field_b", "0 branch arguments")
            .arg("count_b", "0");
        return;
      }
      const Operation *last = region.blocks().back()->back();
      if (!last) {
        if (!results.empty()) yieldCount(op, r, 0, results.size());
        continue;
      }
      if (last->name() != "low.scf.yield") {
        ctx_.report(DiagId::StructureMissingTerminator, op)
            .arg("region", std::to_string(r))
            .arg("op", "low.scf.if")
            .arg("terminator", "low.scf.yield")
            .arg("found", " (found " + std::string(last->name()) + ")");
        return;
      }
      Toks yt = textBodyTokens(ctx_.sourceText(*last), *last).tokens;
      size_t n = valueCount(yt);
      if (n != results.size()) {
        yieldCount(op, r, n, results.size());
        return;
      }
      std::vector<std::string> ins, outs;
      writtenTypes(yt, ins, outs);
      for (size_t i = 0; i < ins.size() && i < results.size(); ++i)
        if (squeeze(ins[i]) != squeeze(results[i])) {
          ctx_.report(DiagId::TypeYieldMismatch, op)
              .arg("op", "low.scf.if")
              .arg("region", std::to_string(r))
              .arg("index", std::to_string(i))
              .arg("actual_type", ins[i])
              .arg("expected_type", results[i]);
          return;
        }
    }
  }

  void yieldCount(const Operation &op, unsigned region, size_t n, size_t expected) {
    ctx_.report(DiagId::StructureYieldCount, op)
        .arg("op", std::string(op.name()))
        .arg("region", std::to_string(region))
        .arg("actual_count", std::to_string(n))
        .arg("expected_count", std::to_string(expected));
  }
};

}  // namespace

void checkLowOp(const Operation &op, HookContext &ctx) {
  if (isLowFunction(op.opcode())) return LowVerifier(op, ctx).run();
  if (op.opcode() != OpCode::LowFuncCall) return;
  // Its callee rules are the enclosing low function's (LowVerifier); here only its placement.
  for (const Operation *p = op.parentOp(); p; p = p->parentOp())
    if (p->opcode() == OpCode::LowFuncDef || p->opcode() == OpCode::LowKernelDef) return;
  std::string nearest = "the module";
  for (const Operation *p = op.parentOp(); p; p = p->parentOp())
    if (p->isOpaque() || (p->def() && p->def()->has(opflag::Isolated))) {
      nearest = std::string(p->name());
      break;
    }
  ctx.report(DiagId::StructureMisplacedOp, op)
      .arg("op", "low.func.call")
      .arg("parent", "a low executable (low.func.def or low.kernel.def body)")
      .arg("placement",
           " (the nearest isolated ancestor is " + nearest + "; source code calls low code with low.invoke)")
      .arg("constraint_kind", "required")
      .arg("ancestor_name", "low executable")
      .arg("actual_ancestor", nearest);
}

}  // namespace hrx::loom::verify
