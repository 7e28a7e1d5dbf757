// The per-lane meaning of a low.func.def body: each work-item runs the body as its own value
// stream. A reg<amdgpu.vgpr> is this lane's 32-bit value; a reg<amdgpu.sgpr> is computed
// redundantly in every lane (its inputs are uniform operands); reg<C xN> is N consecutive 32-bit
// words; reg<amdgpu.scc> is an i1. Instruction semantics come from AmdgpuLaneSemantics.def;
// blocks become LLVM blocks and block arguments phis. Decoding checks everything first, so a
// body without a per-lane meaning leaves no IR behind.
#include "LowHost.h"

#include "hrx/diag/SourceManager.h"

#include <llvm/IR/Intrinsics.h>

#include <charconv>
#include <map>

namespace hrx::bridge::lowlane {

using loom::Tok;
using loom::Token;

std::vector<Token> lexText(std::string_view text) {
  diag::SourceManager sm;
  diag::DiagnosticEngine quiet(sm);
  loom::Lexer lex(text, 0, quiet);
  std::vector<Token> tokens;
  for (Token t = lex.next(); !t.is(Tok::Eof) && !t.is(Tok::Error); t = lex.next()) tokens.push_back(t);
  return tokens;
}

std::optional<RegisterClass> registerClassAt(const std::vector<Token> &tokens, size_t &i) {
  if (i + 2 >= tokens.size() || !tokens[i].isIdent("reg") || !tokens[i + 1].is(Tok::Less)) return std::nullopt;
  RegisterClass out{std::string(tokens[i + 2].text)};
  i += 3;
  if (i < tokens.size() && tokens[i].is(Tok::Ident) && tokens[i].text.starts_with('x'))
    out.units = unsigned(std::clamp(std::atoi(std::string(tokens[i].text.substr(1)).c_str()), 1, 1024));
  for (int depth = 1; i < tokens.size() && depth > 0; ++i) {
    if (tokens[i].is(Tok::Less)) ++depth;
    if (tokens[i].is(Tok::Greater)) --depth;
  }
  return out;
}

namespace {

// ---- the semantics table ----------------------------------------------------------------------

enum class Shape : uint8_t {
  None,
  Unary,
  Binary,
  BinaryRev,
  Compare,
  Select,
  Ternary,
  LoadSaddr,
  StoreSaddr,
  LoadFlat,
  StoreFlat
};
enum class LaneOp : uint8_t {
  Nothing,
  Copy,
  Not,
  Add,
  Sub,
  And,
  Or,
  Xor,
  Shl,
  LShr,
  AShr,
  Mul,
  MulHiU,
  MulHiI,
  MinI,
  MinU,
  MaxI,
  MaxU,
  Eq,
  Ne,
  Slt,
  Sle,
  Sgt,
  Sge,
  Ult,
  Ule,
  Ugt,
  Uge,
  Select,
  Perm,
  Load,
  Store
};
enum class Scc : uint8_t { NoScc, Carry, Overflow, NonZero, IsResult };

struct LaneRow {
  std::string_view mnemonic;
  Shape shape;
  LaneOp op;
  Scc scc;
};

constexpr LaneRow kRows[] = {
#define HRX_AMDGPU_LANE_OP(MNEMONIC, SHAPE, OP, SCC) {#MNEMONIC, Shape::SHAPE, LaneOp::OP, Scc::SCC},
#include "AmdgpuLaneSemantics.def"
#undef HRX_AMDGPU_LANE_OP
};

const LaneRow *rowFor(std::string_view mnemonic) {
  for (const LaneRow &row : kRows)
    if (row.mnemonic == mnemonic) return &row;
  return nullptr;
}

// Instructions that read or write other lanes, the exec mask or VCC: a lane's value stream
// cannot express them, so they say so instead of "no row".
bool isCrossLane(std::string_view m) {
  for (std::string_view prefix :
       {"v_readlane", "v_readfirstlane", "v_writelane", "v_permlane", "ds_swizzle", "ds_permute", "ds_bpermute",
        "v_cmp", "v_cndmask", "s_cbranch_exec", "s_cbranch_vcc", "v_swap"})
    if (m.starts_with(prefix)) return true;
  for (std::string_view part : {"_dpp", "saveexec", "exec", "_co_", "vcc", "wqm", "_ballot", "bpermute"})
    if (m.find(part) != std::string_view::npos) return true;
  return false;
}

// Scalar instructions that read SCC without it being an operand.
bool readsImplicitScc(std::string_view m) {
  for (std::string_view prefix : {"s_addc_", "s_subb_", "s_cmov", "s_cbranch_scc", "s_cselect_"})
    if (m.starts_with(prefix)) return true;
  return false;
}

// ---- the decoded body -------------------------------------------------------------------------

struct ValueShape {
  unsigned units = 1;
  bool scc = false;
  bool operator==(const ValueShape &) const = default;
};

std::string shapeText(const ValueShape &s) {
  return s.scc ? "reg<amdgpu.scc>" : s.units == 1 ? "one register" : std::to_string(s.units) + " registers";
}

struct Operand {
  int value = -1;   // a value id, or -1 for an immediate
  int64_t imm = 0;  // the immediate
};

struct Edge {
  unsigned block = 0;
  std::vector<unsigned> args;
};

enum class LineKind : uint8_t { Instruction, Slice, Concat, Copy, Br, CondBr, Return };

struct Line {
  const loom::Operation *op = nullptr;
  LineKind kind = LineKind::Instruction;
  const LaneRow *row = nullptr;
  std::vector<Operand> operands;
  std::vector<unsigned> results;
  unsigned first = 0;  // slice: the first word
  int64_t offset = 0;  // memory: the offset attribute
  std::vector<Edge> edges;
};

struct LaneBlock {
  const loom::Block *block = nullptr;
  std::vector<unsigned> args;
  std::vector<Line> lines;
  std::vector<unsigned> successors;
};

}  // namespace

struct LaneProgram {
  std::vector<ValueShape> values;
  std::vector<LaneBlock> blocks;
  std::vector<unsigned> order;  // reachable blocks, reverse post-order (the entry first)
  std::vector<ValueShape> results;
  std::vector<std::string> labels;
};

namespace {

bool isTerminator(std::string_view name) {
  return name == "return" || name == "low.return" || name == "low.br" || name == "low.cond_br";
}

std::optional<int64_t> integerToken(const Token &t) {
  std::string_view s = t.text;
  bool negative = s.starts_with('-');
  if (negative) s.remove_prefix(1);
  int base = 10;
  if (s.starts_with("0x") || s.starts_with("0X")) {
    s.remove_prefix(2);
    base = 16;
  }
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return negative ? -int64_t(v) : int64_t(v);
}

class Decoder {
public:
  Decoder(const loom::Operation &fn, const std::vector<RegisterClass> &params,
          const std::vector<RegisterClass> &results)
      : fn_(fn), params_(params), resultClasses_(results) {}

  std::expected<std::shared_ptr<const LaneProgram>, LaneFailure> run() {
    if (fn_.regions().empty() || fn_.regions()[0].blocks().empty()) return fail(nullptr, "the callee has no body");
    std::span<loom::Block *const> blocks = fn_.regions()[0].blocks();
    auto program = std::make_shared<LaneProgram>();
    p_ = program.get();
    for (const RegisterClass &rc : resultClasses_) p_->results.push_back(shapeOf(rc));
    // Blocks by label, and the values their arguments define.
    for (size_t k = 0; k < blocks.size(); ++k) {
      LaneBlock lb;
      lb.block = blocks[k];
      p_->blocks.push_back(std::move(lb));
      p_->labels.emplace_back(blocks[k]->label());
      if (!blocks[k]->label().empty()) blockByLabel_[blocks[k]->label()] = unsigned(k);
    }
    const loom::Block &entry = *blocks[0];
    if (entry.arguments().size() != params_.size())
      return fail(nullptr, "the callee's body takes " + std::to_string(entry.arguments().size()) +
                               " argument(s), its signature " + std::to_string(params_.size()));
    for (size_t k = 0; k < blocks.size(); ++k)
      for (size_t a = 0; a < blocks[k]->arguments().size(); ++a) {
        const loom::Value *arg = blocks[k]->arguments()[a];
        ValueShape shape;
        if (k == 0) {
          shape = shapeOf(params_[a]);
        } else {
          std::string spelled = arg->type() ? arg->type()->str() : "";  // the tokens view it
          std::vector<Token> type = lexText(spelled);
          size_t at = 0;
          std::optional<RegisterClass> rc = registerClassAt(type, at);
          if (!rc) return fail(nullptr, "block argument %" + std::string(arg->name()) + " is not a register");
          shape = shapeOf(*rc);
        }
        std::optional<unsigned> id = define(arg->name(), shape, unsigned(k), -1);
        if (!id) return fail(nullptr, "%" + std::string(arg->name()) + " is defined twice");
        p_->blocks[k].args.push_back(*id);
      }
    // Line results (their shapes are set while decoding the line), terminators and edges.
    for (size_t k = 0; k < blocks.size(); ++k) {
      int position = 0;
      const loom::Operation *last = nullptr;
      for (const loom::Operation &line : *blocks[k]) {
        if (last && isTerminator(last->name())) return fail(&line, "it follows the block's terminator");
        for (unsigned r = 0; r < line.numResults(); ++r)
          if (!define(line.result(r)->name(), ValueShape{}, unsigned(k), position))
            return fail(&line, "%" + std::string(line.result(r)->name()) + " is defined twice");
        last = &line;
        ++position;
      }
      if (!last || !isTerminator(last->name()))
        return fail(last, blockName(unsigned(k)) + " does not end in return, low.br or low.cond_br");
      for (const Token &t : tokensOf(*last))
        if (t.is(Tok::BlockLabel)) {
          auto it = blockByLabel_.find(t.name());
          if (it == blockByLabel_.end()) return fail(last, "no block is labelled " + std::string(t.text));
          if (it->second == 0) return fail(last, "a branch to the entry block has no per-lane meaning");
          p_->blocks[k].successors.push_back(it->second);
        }
    }
    orderBlocks();
    for (unsigned k : p_->order) {
      int position = 0;
      for (const loom::Operation &line : *blocks[k]) {
        std::optional<LaneFailure> failure = decodeLine(line, k, position++);
        if (failure) return std::unexpected(std::move(*failure));
      }
    }
    return program;
  }

private:
  struct Definition {
    unsigned id = 0, block = 0;
    int position = -1;  // -1: a block argument
  };

  const loom::Operation &fn_;
  const std::vector<RegisterClass> &params_, &resultClasses_;
  LaneProgram *p_ = nullptr;
  std::map<std::string_view, unsigned> blockByLabel_;
  std::map<std::string_view, Definition> defs_;
  std::vector<int> idom_;  // per block; -1 unreachable

  static std::unexpected<LaneFailure> fail(const loom::Operation *at, std::string reason) {
    return std::unexpected(LaneFailure{at, std::move(reason)});
  }
  static ValueShape shapeOf(const RegisterClass &rc) { return rc.isScc() ? ValueShape{1, true} : ValueShape{rc.units}; }
  std::string blockName(unsigned k) const { return p_->labels[k].empty() ? "the entry block" : "^" + p_->labels[k]; }
  static std::vector<Token> tokensOf(const loom::Operation &line) {
    return lexText(line.opaqueText().empty() ? "" : line.opaqueText()[0]);
  }

  std::optional<unsigned> define(std::string_view name, ValueShape shape, unsigned block, int position) {
    if (defs_.count(name)) return std::nullopt;
    unsigned id = unsigned(p_->values.size());
    p_->values.push_back(shape);
    defs_[name] = {id, block, position};
    return id;
  }

  // Reverse post-order from the entry, then dominators (Cooper, Harvey and Kennedy).
  void orderBlocks() {
    size_t n = p_->blocks.size();
    std::vector<char> seen(n, 0);
    std::vector<unsigned> post;
    std::vector<std::pair<unsigned, size_t>> stack = {{0u, 0u}};
    seen[0] = 1;
    while (!stack.empty()) {
      auto &[k, next] = stack.back();
      if (next < p_->blocks[k].successors.size()) {
        unsigned s = p_->blocks[k].successors[next++];
        if (!seen[s]) {
          seen[s] = 1;
          stack.push_back({s, 0});
        }
        continue;
      }
      post.push_back(k);
      stack.pop_back();
    }
    p_->order.assign(post.rbegin(), post.rend());
    std::vector<int> rank(n, -1);
    for (size_t i = 0; i < p_->order.size(); ++i) rank[p_->order[i]] = int(i);
    std::vector<std::vector<unsigned>> preds(n);
    for (unsigned k : p_->order)
      for (unsigned s : p_->blocks[k].successors) preds[s].push_back(k);
    idom_.assign(n, -1);
    idom_[0] = 0;
    for (bool changed = true; changed;) {
      changed = false;
      for (unsigned k : p_->order) {
        if (k == 0) continue;
        int best = -1;
        for (unsigned pred : preds[k]) {
          if (idom_[pred] < 0) continue;
          if (best < 0) {
            best = int(pred);
            continue;
          }
          int a = int(pred), b = best;
          while (a != b) {
            while (rank[a] > rank[b]) a = idom_[a];
            while (rank[b] > rank[a]) b = idom_[b];
          }
          best = a;
        }
        if (best >= 0 && idom_[k] != best) {
          idom_[k] = best;
          changed = true;
        }
      }
    }
  }

  bool dominates(unsigned a, unsigned b) const {
    for (int k = int(b);; k = idom_[k]) {
      if (k == int(a)) return true;
      if (k == 0 || idom_[k] < 0) return false;
    }
  }

  // The value `name` as an operand of the line at (block, position): defined, and dominating it.
  std::expected<unsigned, LaneFailure> use(const loom::Operation &line, std::string_view name, unsigned block,
                                           int position) {
    auto it = defs_.find(name);
    if (it == defs_.end())
      return fail(&line, "%" + std::string(name) + " is neither a parameter nor a result in the callee");
    const Definition &d = it->second;
    bool before = d.block == block ? d.position < position : dominates(d.block, block);
    if (!before) return fail(&line, "%" + std::string(name) + " is used where its definition does not dominate");
    return d.id;
  }

  std::optional<LaneFailure> decodeLine(const loom::Operation &line, unsigned block, int position) {
    std::string_view name = line.name();
    std::vector<Token> t = tokensOf(line);
    Line out;
    out.op = &line;
    for (unsigned r = 0; r < line.numResults(); ++r) out.results.push_back(defs_[line.result(r)->name()].id);
    // The value operands before the top-level ':' (the written types follow it).
    auto valueOperands = [&](std::vector<unsigned> &ids) -> std::optional<LaneFailure> {
      int depth = 0;
      for (const Token &k : t) {
        if (k.is(Tok::Colon) && depth == 0) break;
        if (k.is(Tok::LParen) || k.is(Tok::LSquare) || k.is(Tok::LBrace)) ++depth;
        if ((k.is(Tok::RParen) || k.is(Tok::RSquare) || k.is(Tok::RBrace)) && depth > 0) --depth;
        if (!k.is(Tok::ValueId)) continue;
        auto id = use(line, k.name(), block, position);
        if (!id) return id.error();
        ids.push_back(*id);
      }
      return std::nullopt;
    };
    auto writtenResult = [&]() -> std::optional<RegisterClass> {
      for (size_t i = 0; i + 1 < t.size(); ++i)
        if (t[i].is(Tok::Arrow)) {
          size_t at = i + 1;
          return registerClassAt(t, at);
        }
      return std::nullopt;
    };
    auto failure = [&](std::string reason) {
      return std::optional<LaneFailure>(LaneFailure{&line, std::move(reason)});
    };
    auto oneResult = [&]() -> std::optional<LaneFailure> {
      if (line.numResults() != 1) return failure("it has " + std::to_string(line.numResults()) + " results, not one");
      return std::nullopt;
    };

    if (name == "return" || name == "low.return") {
      out.kind = LineKind::Return;
      std::vector<unsigned> ids;
      if (auto f = valueOperands(ids)) return f;
      if (ids.size() != p_->results.size())
        return failure("it returns " + std::to_string(ids.size()) + " value(s), the signature " +
                       std::to_string(p_->results.size()));
      for (size_t j = 0; j < ids.size(); ++j) {
        if (p_->values[ids[j]] != p_->results[j])
          return failure("result " + std::to_string(j) + " is " + shapeText(p_->values[ids[j]]) + ", the signature's " +
                         shapeText(p_->results[j]));
        out.operands.push_back({int(ids[j])});
      }
    } else if (name == "low.br" || name == "low.cond_br") {
      out.kind = name == "low.br" ? LineKind::Br : LineKind::CondBr;
      for (size_t i = 0; i < t.size(); ++i) {
        if (t[i].is(Tok::ValueId) && out.kind == LineKind::CondBr && out.edges.empty() && out.operands.empty()) {
          auto id = use(line, t[i].name(), block, position);
          if (!id) return id.error();
          if (!p_->values[*id].scc)
            return failure("its condition %" + std::string(t[i].name()) + " is not reg<amdgpu.scc>");
          out.operands.push_back({int(*id)});
          continue;
        }
        if (!t[i].is(Tok::BlockLabel)) continue;
        Edge edge{blockByLabel_[t[i].name()], {}};
        if (i + 1 < t.size() && t[i + 1].is(Tok::LParen)) {
          int depth = 0;
          for (++i; i < t.size(); ++i) {
            if (t[i].is(Tok::LParen) || t[i].is(Tok::Less)) ++depth;
            if (t[i].is(Tok::RParen) || t[i].is(Tok::Greater)) --depth;
            if (depth == 0) break;
            if (depth == 1 && t[i].is(Tok::ValueId)) {
              auto id = use(line, t[i].name(), block, position);
              if (!id) return id.error();
              edge.args.push_back(*id);
            }
          }
        }
        const LaneBlock &dest = p_->blocks[edge.block];
        if (edge.args.size() != dest.args.size())
          return failure("it passes " + std::to_string(edge.args.size()) + " argument(s) to " + blockName(edge.block) +
                         ", which takes " + std::to_string(dest.args.size()));
        for (size_t a = 0; a < edge.args.size(); ++a)
          if (p_->values[edge.args[a]] != p_->values[dest.args[a]])
            return failure("argument " + std::to_string(a) + " of " + blockName(edge.block) + " is " +
                           shapeText(p_->values[dest.args[a]]) + ", the branch passes " +
                           shapeText(p_->values[edge.args[a]]));
        out.edges.push_back(std::move(edge));
      }
      size_t want = out.kind == LineKind::Br ? 1 : 2;
      if (out.edges.size() != want || (out.kind == LineKind::CondBr && out.operands.empty()))
        return failure(out.kind == LineKind::Br ? "it names one successor block (`low.br ^bb(...)`)"
                                                : "it takes an SCC condition and two successor blocks");
    } else if (name == "slice" || name == "low.slice") {
      out.kind = LineKind::Slice;
      if (auto f = oneResult()) return f;
      if (t.size() < 4 || !t[0].is(Tok::ValueId) || !t[1].is(Tok::LSquare) || !t[2].is(Tok::Integer))
        return failure("a slice takes register [i] of a register tuple (`slice %p[0] : ...`)");
      auto id = use(line, t[0].name(), block, position);
      if (!id) return id.error();
      std::optional<int64_t> first = integerToken(t[2]);
      std::optional<RegisterClass> written = writtenResult();
      unsigned units = written ? written->units : 1;
      const ValueShape &source = p_->values[*id];
      if (!first || *first < 0 || source.scc || uint64_t(*first) + units > source.units)
        return failure("register " + std::string(t[2].text) + " of a " + std::to_string(source.units) +
                       "-register value");
      out.operands.push_back({int(*id)});
      out.first = unsigned(*first);
      p_->values[out.results[0]] = ValueShape{units};
    } else if (name == "concat" || name == "low.concat") {
      out.kind = LineKind::Concat;
      if (auto f = oneResult()) return f;
      std::vector<unsigned> ids;
      if (auto f = valueOperands(ids)) return f;
      unsigned units = 0;
      for (unsigned id : ids) {
        if (p_->values[id].scc) return failure("it joins an SCC bit, which is not a register");
        units += p_->values[id].units;
        out.operands.push_back({int(id)});
      }
      std::optional<RegisterClass> written = writtenResult();
      if (ids.empty() || (written && written->units != units))
        return failure("it joins " + std::to_string(units) + " register(s) into " +
                       std::to_string(written ? written->units : 0));
      p_->values[out.results[0]] = ValueShape{units};
    } else if (name == "low.copy") {
      out.kind = LineKind::Copy;
      if (auto f = oneResult()) return f;
      std::vector<unsigned> ids;
      if (auto f = valueOperands(ids)) return f;
      if (ids.size() != 1) return failure("a copy takes one register");
      out.operands.push_back({int(ids[0])});
      p_->values[out.results[0]] = p_->values[ids[0]];
    } else if (auto f = decodeInstruction(line, t, out, block, position)) {
      return f;
    }
    p_->blocks[block].lines.push_back(std::move(out));
    return std::nullopt;
  }

  std::optional<LaneFailure> decodeInstruction(const loom::Operation &line, const std::vector<Token> &t, Line &out,
                                               unsigned block, int position) {
    std::string_view m = line.name();
    auto failure = [&](std::string reason) {
      return std::optional<LaneFailure>(LaneFailure{&line, std::move(reason)});
    };
    const LaneRow *row = rowFor(m);
    if (!row) {
      std::string mnemonic(m);
      if (isCrossLane(m))
        return failure("the host twin has no meaning for " + mnemonic +
                       ": it reads or writes other lanes, the exec mask or VCC, which a lane's value stream does "
                       "not model");
      if (readsImplicitScc(m))
        return failure("the host twin has no meaning for " + mnemonic + ": it reads SCC, which the body does not name");
      if (m.starts_with("low."))
        return failure("the host twin has no meaning for " + mnemonic + " (its per-lane translation is not written)");
      return failure("the host twin has no meaning for " + mnemonic +
                     " (no row in loom-bridge/core/lower/AmdgpuLaneSemantics.def)");
    }
    out.kind = LineKind::Instruction;
    out.row = row;
    int depth = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      const Token &k = t[i];
      if (k.is(Tok::Colon) && depth == 0) break;
      if (k.is(Tok::LBrace)) {
        ++depth;
        continue;
      }
      if (k.is(Tok::RBrace)) {
        --depth;
        continue;
      }
      if (depth > 0) {
        // `{key = value}`: waits and nops ignore theirs; memory takes an offset.
        if (!k.is(Tok::Ident) || i + 2 >= t.size() || !t[i + 1].is(Tok::Equal) || row->shape == Shape::None) continue;
        std::optional<int64_t> n = integerToken(t[i + 2]);
        bool memory = row->op == LaneOp::Load || row->op == LaneOp::Store;
        if (!memory || k.text != "offset" || !n)
          return failure("its attribute '" + std::string(k.text) + "' has no meaning on the host twin");
        out.offset = *n;
        i += 2;
        continue;
      }
      if (row->shape == Shape::None) continue;
      if (k.is(Tok::ValueId)) {
        auto id = use(line, k.name(), block, position);
        if (!id) return id.error();
        out.operands.push_back({int(*id)});
      } else if (k.is(Tok::Integer)) {
        std::optional<int64_t> n = integerToken(k);
        if (!n) return failure("its immediate " + std::string(k.text) + " is not an integer");
        out.operands.push_back({-1, *n});
      } else if (k.is(Tok::Float)) {
        return failure("its immediate " + std::string(k.text) + " is not an integer (float literals have no row)");
      } else if (k.is(Tok::Ident)) {
        return failure("its operand '" + std::string(k.text) + "' names a register the host twin does not model");
      }
    }
    // The operands each shape takes: the register count of each (0: the SCC bit).
    std::vector<unsigned> want;
    switch (row->shape) {
    case Shape::None: break;
    case Shape::Unary: want = {1}; break;
    case Shape::Binary:
    case Shape::BinaryRev:
    case Shape::Compare: want = {1, 1}; break;
    case Shape::Select: want = {1, 1, 0}; break;
    case Shape::Ternary: want = {1, 1, 1}; break;
    case Shape::LoadSaddr: want = {1, 2}; break;
    case Shape::StoreSaddr: want = {1, 1, 2}; break;
    case Shape::LoadFlat: want = {2}; break;
    case Shape::StoreFlat: want = {2, 1}; break;
    }
    if (row->shape == Shape::Select && out.operands.size() == 2)
      return failure(std::string(m) + " reads SCC, which the body does not name (write it as a third operand)");
    if (out.operands.size() != want.size())
      return failure(std::string(m) + " takes " + std::to_string(want.size()) + " operand(s), the line has " +
                     std::to_string(out.operands.size()));
    for (size_t i = 0; i < want.size(); ++i) {
      const Operand &o = out.operands[i];
      ValueShape expected = want[i] == 0 ? ValueShape{1, true} : ValueShape{want[i]};
      bool fits = o.value < 0 ? !expected.scc && expected.units == 1 : p_->values[size_t(o.value)] == expected;
      if (!fits)
        return failure("operand " + std::to_string(i) + " of " + std::string(m) + " must be " + shapeText(expected) +
                       (o.value < 0 ? ", not an immediate" : ", not " + shapeText(p_->values[size_t(o.value)])));
    }
    bool writes = row->shape != Shape::None && row->shape != Shape::StoreSaddr && row->shape != Shape::StoreFlat;
    size_t maxResults = !writes ? 0 : row->scc != Scc::NoScc && row->scc != Scc::IsResult ? 2 : 1;
    if (line.numResults() > maxResults || (writes && line.numResults() == 0))
      return failure(std::string(m) + " has " + std::to_string(maxResults == 2 ? 1 : maxResults) + " result" +
                     (maxResults == 2 ? " and its SCC" : "") + ", the line names " + std::to_string(line.numResults()));
    if (!out.results.empty())
      p_->values[out.results[0]] = row->shape == Shape::Compare ? ValueShape{1, true} : ValueShape{1};
    if (out.results.size() == 2) p_->values[out.results[1]] = ValueShape{1, true};
    return std::nullopt;
  }
};

// ---- emission ---------------------------------------------------------------------------------

class Emitter {
public:
  Emitter(llvm::IRBuilder<> &b, const LaneProgram &p) : b_(b), p_(p), values_(p.values.size()) {}

  std::vector<llvm::Value *> run(std::span<llvm::Value *const> params) {
    llvm::LLVMContext &context = b_.getContext();
    llvm::Function *function = b_.GetInsertBlock()->getParent();
    const LaneBlock &entry = p_.blocks[0];
    for (size_t a = 0; a < entry.args.size(); ++a) values_[entry.args[a]] = words(params[a], p_.values[entry.args[a]]);
    // One LLVM block per reachable block after the entry, its arguments phis.
    std::vector<llvm::BasicBlock *> blocks(p_.blocks.size(), nullptr);
    blocks[0] = b_.GetInsertBlock();
    for (unsigned k : p_.order) {
      if (k == 0) continue;
      blocks[k] = llvm::BasicBlock::Create(context, "lane." + p_.labels[k], function);
      b_.SetInsertPoint(blocks[k]);
      for (unsigned arg : p_.blocks[k].args) {
        const ValueShape &shape = p_.values[arg];
        for (unsigned w = 0; w < shape.units; ++w)
          values_[arg].push_back(b_.CreatePHI(shape.scc ? b_.getInt1Ty() : b_.getInt32Ty(), 2, p_.labels[k]));
      }
    }
    std::vector<std::pair<llvm::BasicBlock *, std::vector<llvm::Value *>>> returns;
    for (unsigned k : p_.order) {
      b_.SetInsertPoint(blocks[k]);
      for (const Line &line : p_.blocks[k].lines) {
        switch (line.kind) {
        case LineKind::Return: {
          std::vector<llvm::Value *> out;
          for (const Operand &o : line.operands) out.push_back(joined(unsigned(o.value)));
          returns.emplace_back(b_.GetInsertBlock(), std::move(out));
          break;
        }
        case LineKind::Br:
          branchArgs(line.edges[0], b_.GetInsertBlock());
          b_.CreateBr(blocks[line.edges[0].block]);
          break;
        case LineKind::CondBr: {
          llvm::Value *condition = values_[size_t(line.operands[0].value)][0];
          const Edge &yes = line.edges[0], &no = line.edges[1];
          if (yes.block == no.block) {
            // Both edges reach one block: one edge, its arguments chosen by the condition.
            Edge chosen = yes;
            std::vector<std::vector<llvm::Value *>> picked;
            for (size_t a = 0; a < yes.args.size(); ++a) {
              std::vector<llvm::Value *> w;
              for (size_t i = 0; i < values_[yes.args[a]].size(); ++i)
                w.push_back(b_.CreateSelect(condition, values_[yes.args[a]][i], values_[no.args[a]][i]));
              picked.push_back(std::move(w));
            }
            addIncoming(yes.block, picked, b_.GetInsertBlock());
            b_.CreateBr(blocks[yes.block]);
            break;
          }
          branchArgs(yes, b_.GetInsertBlock());
          branchArgs(no, b_.GetInsertBlock());
          b_.CreateCondBr(condition, blocks[yes.block], blocks[no.block]);
          break;
        }
        case LineKind::Slice: {
          const std::vector<llvm::Value *> &source = values_[size_t(line.operands[0].value)];
          unsigned units = p_.values[line.results[0]].units;
          values_[line.results[0]].assign(source.begin() + line.first, source.begin() + line.first + units);
          break;
        }
        case LineKind::Concat:
          for (const Operand &o : line.operands)
            values_[line.results[0]].insert(values_[line.results[0]].end(), values_[size_t(o.value)].begin(),
                                            values_[size_t(o.value)].end());
          break;
        case LineKind::Copy: values_[line.results[0]] = values_[size_t(line.operands[0].value)]; break;
        case LineKind::Instruction: instruction(line); break;
        }
      }
    }
    // The results: straight from the one return, or phis where several meet.
    std::vector<llvm::Value *> results;
    if (returns.size() == 1) {
      b_.SetInsertPoint(returns[0].first);
      return returns[0].second;
    }
    llvm::BasicBlock *exit = llvm::BasicBlock::Create(context, "lane.exit", function);
    b_.SetInsertPoint(exit);
    for (size_t j = 0; j < p_.results.size(); ++j) {
      llvm::Type *type = p_.results[j].scc ? b_.getInt1Ty() : b_.getIntNTy(32 * p_.results[j].units);
      if (returns.empty()) {
        results.push_back(llvm::PoisonValue::get(type));  // the body never returns
        continue;
      }
      llvm::PHINode *phi = b_.CreatePHI(type, unsigned(returns.size()), "lane.result");
      for (auto &[from, values] : returns) phi->addIncoming(values[j], from);
      results.push_back(phi);
    }
    for (auto &[from, values] : returns) {
      b_.SetInsertPoint(from);
      b_.CreateBr(exit);
    }
    b_.SetInsertPoint(exit);
    return results;
  }

private:
  llvm::IRBuilder<> &b_;
  const LaneProgram &p_;
  std::vector<std::vector<llvm::Value *>> values_;  // per value: its words (or its SCC bit)

  std::vector<llvm::Value *> words(llvm::Value *v, const ValueShape &shape) {
    if (shape.scc || shape.units == 1) return {v};
    llvm::Value *vector = b_.CreateBitCast(v, llvm::FixedVectorType::get(b_.getInt32Ty(), shape.units));
    std::vector<llvm::Value *> out;
    for (unsigned w = 0; w < shape.units; ++w) out.push_back(b_.CreateExtractElement(vector, uint64_t(w)));
    return out;
  }
  llvm::Value *joined(unsigned id) {
    const std::vector<llvm::Value *> &w = values_[id];
    if (w.size() == 1) return w[0];
    llvm::Value *vector = llvm::PoisonValue::get(llvm::FixedVectorType::get(b_.getInt32Ty(), unsigned(w.size())));
    for (size_t i = 0; i < w.size(); ++i) vector = b_.CreateInsertElement(vector, w[i], uint64_t(i));
    return b_.CreateBitCast(vector, b_.getIntNTy(32 * unsigned(w.size())));
  }

  void addIncoming(unsigned block, const std::vector<std::vector<llvm::Value *>> &args, llvm::BasicBlock *from) {
    const LaneBlock &dest = p_.blocks[block];
    for (size_t a = 0; a < dest.args.size(); ++a)
      for (size_t w = 0; w < args[a].size(); ++w)
        llvm::cast<llvm::PHINode>(values_[dest.args[a]][w])->addIncoming(args[a][w], from);
  }
  void branchArgs(const Edge &edge, llvm::BasicBlock *from) {
    std::vector<std::vector<llvm::Value *>> args;
    for (unsigned id : edge.args) args.push_back(values_[id]);
    addIncoming(edge.block, args, from);
  }

  llvm::Value *operand(const Line &line, size_t i) {
    const Operand &o = line.operands[i];
    return o.value < 0 ? b_.getInt32(uint32_t(uint64_t(o.imm))) : values_[size_t(o.value)][0];
  }
  // A 64-bit address from a register pair (low word first).
  llvm::Value *pairAddress(const Line &line, size_t i) {
    const std::vector<llvm::Value *> &pair = values_[size_t(line.operands[i].value)];
    llvm::Value *low = b_.CreateZExt(pair[0], b_.getInt64Ty());
    llvm::Value *high = b_.CreateShl(b_.CreateZExt(pair[1], b_.getInt64Ty()), 32);
    return b_.CreateOr(low, high);
  }
  llvm::Value *pointer(llvm::Value *address, const Line &line) {
    if (line.offset) address = b_.CreateAdd(address, b_.getInt64(uint64_t(line.offset)));
    return b_.CreateIntToPtr(address, llvm::PointerType::getUnqual(b_.getContext()));
  }

  void instruction(const Line &line) {
    const LaneRow &row = *line.row;
    auto result = [&](unsigned r, llvm::Value *v) {
      if (r < line.results.size()) values_[line.results[r]] = {v};
    };
    switch (row.shape) {
    case Shape::None: return;
    case Shape::LoadSaddr:
    case Shape::LoadFlat: {
      llvm::Value *address = row.shape == Shape::LoadFlat
                                 ? pairAddress(line, 0)
                                 : b_.CreateAdd(pairAddress(line, 1), b_.CreateZExt(operand(line, 0), b_.getInt64Ty()));
      return result(0, b_.CreateAlignedLoad(b_.getInt32Ty(), pointer(address, line), llvm::Align(1)));
    }
    case Shape::StoreSaddr:
    case Shape::StoreFlat: {
      bool flat = row.shape == Shape::StoreFlat;
      llvm::Value *address = flat
                                 ? pairAddress(line, 0)
                                 : b_.CreateAdd(pairAddress(line, 2), b_.CreateZExt(operand(line, 0), b_.getInt64Ty()));
      b_.CreateAlignedStore(operand(line, 1), pointer(address, line), llvm::Align(1));
      return;
    }
    case Shape::Select:
      return result(0, b_.CreateSelect(values_[size_t(line.operands[2].value)][0], operand(line, 0), operand(line, 1)));
    case Shape::Ternary: return result(0, permute(operand(line, 0), operand(line, 1), operand(line, 2)));
    case Shape::Unary: {
      llvm::Value *v = row.op == LaneOp::Not ? b_.CreateNot(operand(line, 0)) : operand(line, 0);
      result(0, v);
      if (line.results.size() == 2) result(1, b_.CreateICmpNE(v, b_.getInt32(0)));
      return;
    }
    case Shape::Compare: return result(0, b_.CreateICmp(predicate(row.op), operand(line, 0), operand(line, 1)));
    case Shape::Binary:
    case Shape::BinaryRev: break;
    }
    llvm::Value *a = operand(line, 0), *c = operand(line, 1);
    if (row.shape == Shape::BinaryRev) std::swap(a, c);
    llvm::Value *v = binary(row.op, a, c);
    result(0, v);
    if (line.results.size() < 2) return;
    // The named SCC of the instruction.
    if (row.scc == Scc::NonZero) return result(1, b_.CreateICmpNE(v, b_.getInt32(0)));
    bool add = row.op == LaneOp::Add;
    llvm::Intrinsic::ID id = row.scc == Scc::Carry
                                 ? (add ? llvm::Intrinsic::uadd_with_overflow : llvm::Intrinsic::usub_with_overflow)
                                 : (add ? llvm::Intrinsic::sadd_with_overflow : llvm::Intrinsic::ssub_with_overflow);
    result(1, b_.CreateExtractValue(b_.CreateBinaryIntrinsic(id, a, c), 1));
  }

  static llvm::CmpInst::Predicate predicate(LaneOp op) {
    switch (op) {
    case LaneOp::Eq: return llvm::CmpInst::ICMP_EQ;
    case LaneOp::Ne: return llvm::CmpInst::ICMP_NE;
    case LaneOp::Slt: return llvm::CmpInst::ICMP_SLT;
    case LaneOp::Sle: return llvm::CmpInst::ICMP_SLE;
    case LaneOp::Sgt: return llvm::CmpInst::ICMP_SGT;
    case LaneOp::Sge: return llvm::CmpInst::ICMP_SGE;
    case LaneOp::Ult: return llvm::CmpInst::ICMP_ULT;
    case LaneOp::Ule: return llvm::CmpInst::ICMP_ULE;
    case LaneOp::Ugt: return llvm::CmpInst::ICMP_UGT;
    default: return llvm::CmpInst::ICMP_UGE;
    }
  }

  llvm::Value *binary(LaneOp op, llvm::Value *a, llvm::Value *c) {
    auto amount = [&] { return b_.CreateAnd(c, b_.getInt32(31)); };  // the low 5 bits
    auto high = [&](bool isSigned) {
      auto widen = [&](llvm::Value *x) {
        return isSigned ? b_.CreateSExt(x, b_.getInt64Ty()) : b_.CreateZExt(x, b_.getInt64Ty());
      };
      return b_.CreateTrunc(b_.CreateLShr(b_.CreateMul(widen(a), widen(c)), 32), b_.getInt32Ty());
    };
    switch (op) {
    case LaneOp::Add: return b_.CreateAdd(a, c);
    case LaneOp::Sub: return b_.CreateSub(a, c);
    case LaneOp::And: return b_.CreateAnd(a, c);
    case LaneOp::Or: return b_.CreateOr(a, c);
    case LaneOp::Xor: return b_.CreateXor(a, c);
    case LaneOp::Shl: return b_.CreateShl(a, amount());
    case LaneOp::LShr: return b_.CreateLShr(a, amount());
    case LaneOp::AShr: return b_.CreateAShr(a, amount());
    case LaneOp::Mul: return b_.CreateMul(a, c);
    case LaneOp::MulHiU: return high(false);
    case LaneOp::MulHiI: return high(true);
    case LaneOp::MinI: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a, c);
    case LaneOp::MinU: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, a, c);
    case LaneOp::MaxI: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, a, c);
    case LaneOp::MaxU: return b_.CreateBinaryIntrinsic(llvm::Intrinsic::umax, a, c);
    default: return a;
    }
  }

  // v_perm_b32: result byte i is chosen by selector byte i from the data {S0 (bytes 4..7),
  // S1 (bytes 0..3)}: 0..7 that byte, 8..11 0xFF if bit 15, 31, 47 or 63 is set (else 0),
  // 12 zero, 13 and above 0xFF.
  llvm::Value *permute(llvm::Value *s0, llvm::Value *s1, llvm::Value *selector) {
    llvm::Type *i64 = b_.getInt64Ty(), *i8 = b_.getInt8Ty();
    llvm::Value *data = b_.CreateOr(b_.CreateShl(b_.CreateZExt(s0, i64), 32), b_.CreateZExt(s1, i64));
    llvm::Value *out = b_.getInt32(0);
    for (unsigned i = 0; i < 4; ++i) {
      llvm::Value *sel = b_.CreateAnd(b_.CreateLShr(selector, 8 * i), 0xFF);
      llvm::Value *sel64 = b_.CreateZExt(sel, i64);
      llvm::Value *picked =
          b_.CreateTrunc(b_.CreateLShr(data, b_.CreateMul(b_.CreateAnd(sel64, 7), b_.getInt64(8))), i8);
      llvm::Value *bit = b_.CreateAdd(b_.CreateMul(b_.CreateAnd(sel64, 3), b_.getInt64(16)), b_.getInt64(15));
      llvm::Value *sign = b_.CreateTrunc(b_.CreateLShr(data, bit), b_.getInt1Ty());
      llvm::Value *signByte = b_.CreateSelect(sign, b_.getInt8(0xFF), b_.getInt8(0));
      llvm::Value *byte = b_.CreateSelect(
          b_.CreateICmpULT(sel, b_.getInt32(8)), picked,
          b_.CreateSelect(b_.CreateICmpULT(sel, b_.getInt32(12)), signByte,
                          b_.CreateSelect(b_.CreateICmpEQ(sel, b_.getInt32(12)), b_.getInt8(0), b_.getInt8(0xFF))));
      out = b_.CreateOr(out, b_.CreateShl(b_.CreateZExt(byte, b_.getInt32Ty()), 8 * i));
    }
    return out;
  }
};

}  // namespace

std::expected<std::shared_ptr<const LaneProgram>, LaneFailure>
decodeLaneBody(const loom::Operation &fn, const std::vector<RegisterClass> &params,
               const std::vector<RegisterClass> &results) {
  return Decoder(fn, params, results).run();
}

std::vector<llvm::Value *> emitLaneBody(llvm::IRBuilder<> &b, const LaneProgram &program,
                                        std::span<llvm::Value *const> params) {
  return Emitter(b, program).run(params);
}

}  // namespace hrx::bridge::lowlane
