// Canonical Loom text, driven by the same format directives as the parser.
#include "hrx/loom/OpDef.h"

#include <charconv>
#include <ostream>

namespace hrx::loom {

namespace {

std::string quote(std::string_view s) {
  std::string out = "\"";
  static const char *hex = "0123456789abcdef";
  for (unsigned char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20) {
        out += "\\u00";
        out += hex[c >> 4];
        out += hex[c & 15];
      } else {
        out += char(c);
      }
    }
  }
  return out + "\"";
}

std::string formatFloat(double v) {
  char buf[64];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, p);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

std::string printAttribute(const Attribute &a) {
  switch (a.kind()) {
  case AttrKind::Integer: return std::to_string(a.integer());
  case AttrKind::Float: return formatFloat(a.floating());
  case AttrKind::String: return quote(a.str());
  case AttrKind::Bool: return a.boolean() ? "true" : "false";
  case AttrKind::Unit: return "unit";
  case AttrKind::Ident: return std::string(a.str());
  case AttrKind::Symbol: return "@" + std::string(a.str());
  case AttrKind::TypeRef: return a.type()->str();
  case AttrKind::ValueRef: return "%" + std::string(a.value()->name()) + " : " + a.type()->str();
  case AttrKind::Flags: {
    std::string s;
    for (Attribute *e : a.elements()) s += (s.empty() ? "" : "|") + printAttribute(*e);
    return s;
  }
  case AttrKind::Array: {
    std::string s = "[";
    for (size_t i = 0; i < a.elements().size(); ++i) s += (i ? ", " : "") + printAttribute(*a.elements()[i]);
    return s + "]";
  }
  case AttrKind::Dict: {
    std::string s = "{";
    for (size_t i = 0; i < a.entries().size(); ++i)
      s += (i ? ", " : "") + std::string(a.entries()[i].name) + " = " + printAttribute(*a.entries()[i].value);
    return s + "}";
  }
  case AttrKind::Hash: {
    std::string s = "#" + std::string(a.str());
    if (a.integer()) {
      s += "<";
      for (size_t i = 0; i < a.entries().size(); ++i) {
        const NamedAttr &e = a.entries()[i];
        s += i ? ", " : "";
        if (!e.name.empty()) s += std::string(e.name) + "=";
        s += printAttribute(*e.value);
      }
      s += ">";
    }
    return s;
  }
  case AttrKind::Predicate: {
    std::string s = std::string(a.str()) + "(";
    for (size_t i = 0; i < a.elements().size(); ++i) {
      const Attribute *e = a.elements()[i];
      s += i ? ", " : "";
      s += e->kind() == AttrKind::ValueRef ? "%" + std::string(e->value()->name()) : printAttribute(*e);
    }
    return s + ")";
  }
  }
  return "?";
}

namespace {

class Printer {
public:
  explicit Printer(std::ostream &os) : os_(os) {}

  void printModule(const Module &m) {
    for (const Operation &op : m.body()) printOpLine(op, 0);
    for (std::string_view c : m.body().trailingComments()) os_ << c << '\n';
  }

private:
  // ---- line assembly ----
  void word(std::string_view text) {
    if (!line_.empty() && line_.back() != '(' && line_.back() != '[' && line_.back() != ' ') line_ += ' ';
    line_ += text;
    last_ = text;
  }
  void attach(std::string_view text) {
    line_ += text;
    last_ = text;
  }
  void flush() {
    os_ << line_ << '\n';
    line_.clear();
  }
  void indentLine(unsigned indent) { line_.assign(indent * 2, ' '); }

  static bool omitted(const Operation &op) {
    if (op.implicitTerminator()) return true;
    // pipeline.finish and pipeline.end are implied at the end of their bodies.
    if ((op.opcode() == OpCode::PipelineFinish || op.opcode() == OpCode::PipelineEnd) && op.leadingComments().empty())
      return true;
    // An empty scf.yield in a resultless structured region is implied.
    const Operation *parent = op.parentOp();
    return op.opcode() == OpCode::ScfYield && op.numOperands() == 0 && op.leadingComments().empty() && parent &&
           parent->def() && parent->def()->has(opflag::ImplicitYield) && parent->numResults() == 0;
  }

  void printOpLine(const Operation &op, unsigned indent) {
    if (omitted(op)) return;
    if (op.blankLineBefore()) os_ << '\n';
    for (std::string_view c : op.leadingComments()) os_ << std::string(indent * 2, ' ') << c << '\n';
    indentLine(indent);
    printOp(op, indent);
    flush();
  }

  void printOp(const Operation &op, unsigned indent) {
    if (op.numResults()) {
      for (size_t i = 0; i < op.numResults(); ++i) {
        line_ += i ? ", %" : "%";
        line_ += op.result(unsigned(i))->name();
      }
      line_ += " =";
    }
    word(op.name());
    if (op.isOpaque()) {
      auto text = op.opaqueText();
      for (size_t i = 0; i < text.size(); ++i) {
        attach(text[i]);  // each segment keeps the space that preceded it
        if (i < op.numRegions()) printRegion(*op.region(unsigned(i)), indent);
      }
      return;
    }
    Cursor c;
    printDirectives(op, c, 0, op.def()->directives.size(), indent);
  }

  void printRegion(const Region &r, unsigned indent) {
    word("{");
    flush();
    for (Block *b : r.blocks()) {
      bool entry = b == r.entryBlock();
      for (std::string_view c : b->leadingComments()) os_ << std::string(indent * 2, ' ') << c << '\n';
      if (!entry || !b->label().empty()) {
        std::string label = std::string(indent * 2, ' ') + "^" + std::string(b->label());
        if (!b->arguments().empty()) {
          label += "(";
          for (size_t i = 0; i < b->arguments().size(); ++i) {
            Value *a = b->argument(unsigned(i));
            label += (i ? ", %" : "%") + std::string(a->name()) + ": " + a->type()->str();
          }
          label += ")";
        }
        os_ << label << ":\n";
      }
      for (const Operation &op : *b) printOpLine(op, indent + 1);
      for (std::string_view c : b->trailingComments()) os_ << std::string((indent + 1) * 2, ' ') << c << '\n';
    }
    indentLine(indent);
    attach("}");
  }

  struct Cursor {
    unsigned successor = 0;
  };

  std::span<Value *const> group(const Operation &op, int segment) {
    auto segs = op.segments();
    size_t start = 0;
    for (int s = 0; s < segment; ++s) start += segs[s];
    return op.operands().subspan(start, segs[segment]);
  }

  size_t count(const Operation &op, std::string_view name) {
    if (name == "r") return op.numResults();
    int seg = op.def()->segmentIndex(name);
    return seg < 0 ? 0 : op.segments()[seg];
  }

  Type *entityType(const Operation &op, std::string_view name, size_t i) {
    if (name == "r") return op.result(unsigned(i))->type();
    return group(op, op.def()->segmentIndex(name))[i]->type();
  }

  void printTypeSlot(const Operation &op, const Directive &d) {
    const Directive::Binding *list = nullptr;
    for (const auto &b : d.bindings)
      if (b.elementwise) list = &b;
    if (list) {
      size_t n = count(op, list->name);
      for (size_t i = 0; i < n; ++i) {
        if (i) attach(",");
        word(entityType(op, list->name, i)->str());
      }
      return;
    }
    for (const auto &b : d.bindings)
      if (count(op, b.name)) {
        word(entityType(op, b.name, 0)->str());
        return;
      }
  }

  void printDirectives(const Operation &op, Cursor &c, size_t begin, size_t end, unsigned indent) {
    const OpDef &def = *op.def();
    for (size_t i = begin; i < end; ++i) {
      const Directive &d = def.directives[i];
      switch (d.kind) {
      case Directive::GroupBegin:
        if (op.presentGroups() & (uint64_t(1) << d.index)) printDirectives(op, c, i + 1, d.groupEnd, indent);
        i = d.groupEnd;
        break;
      case Directive::GroupEnd: break;
      case Directive::Literal:
        if (d.text == ",") {
          if (i + 1 < end) {
            const Directive &n = def.directives[i + 1];
            if (n.kind == Directive::TypeSlot && n.bindings[0].elementwise && count(op, n.bindings[0].name) == 0) break;
          }
          attach(",");
        } else if (d.text == ")" || d.text == "]" || d.text == ">") {
          attach(d.text);
        } else if (d.text == "[" && last_.starts_with("@")) {
          attach("[");  // a launch's workload list follows its kernel: @k[%n]
        } else if (d.text == "(" && last_ != ":" && last_ != "->" && last_ != "," && last_ != "=" && last_ != "to") {
          attach("(");
        } else {
          word(d.text);
        }
        break;
      case Directive::Operand: {
        auto vals = group(op, d.segment);
        for (size_t k = 0; k < vals.size(); ++k) {
          if (k) attach(",");
          word("%" + std::string(vals[k]->name()));
        }
        lastWasOperand_ = true;
        lastWasIndexList_ = lastWasTemplate_ = false;
        continue;
      }
      case Directive::IndexList: {
        Attribute *list = op.attr(d.text);
        std::string s = "[";
        for (size_t k = 0; list && k < list->elements().size(); ++k) {
          const Attribute *e = list->elements()[k];
          s += k ? ", " : "";
          s += e->kind() == AttrKind::ValueRef ? "%" + std::string(e->value()->name()) : printAttribute(*e);
        }
        s += "]";
        // `%v[%i]`, a second list right after the first (`%view[%i][%offsets]`) and a list after
        // template parameters (`pipeline.memory<workgroup>[0, 3]`) attach.
        if (lastWasOperand_ || lastWasIndexList_ || lastWasTemplate_)
          attach(s);
        else
          word(s);
        lastWasOperand_ = false;
        lastWasIndexList_ = true;
        lastWasTemplate_ = false;
        continue;
      }
      case Directive::Symbol:
        if (Attribute *a = op.attr(d.text)) word("@" + std::string(a->str()));
        break;
      case Directive::Attr:
        if (Attribute *a = op.attr(d.text)) word(printAttribute(*a));
        break;
      case Directive::OptKeyword:
        if (op.hasAttr(d.text)) word(d.text);
        break;
      case Directive::Template:
        if (!op.templateParams().empty()) {
          std::string s = "<";
          for (size_t k = 0; k < op.templateParams().size(); ++k)
            s += (k ? ", " : "") + printAttribute(*op.templateParams()[k]);
          attach(s + ">");
          lastWasOperand_ = lastWasIndexList_ = false;
          lastWasTemplate_ = true;
          continue;
        }
        break;
      case Directive::AttrDict: {
        Attribute *dict = nullptr;
        for (const NamedAttr &a : op.attributes())
          if (a.name == d.text && a.value->kind() == AttrKind::Dict) dict = a.value;
        if (dict) word(printAttribute(*dict));
        break;
      }
      case Directive::TypeSlot: printTypeSlot(op, d); break;
      case Directive::Region:
        if (!op.region(d.index)->empty()) printRegion(*op.region(d.index), indent);
        break;
      case Directive::Signature: {
        size_t offset = 0;
        for (size_t k = 0; k < i; ++k) {
          const Directive &p = def.directives[k];
          if (p.kind == Directive::Signature && p.index == d.index) offset += size_t(op.attr(p.text)->integer());
        }
        size_t n = size_t(op.attr(d.text)->integer());
        Block *entry = op.region(d.index)->entryBlock();
        std::string s = "(";
        for (size_t k = 0; k < n; ++k) {
          Value *a = entry->argument(unsigned(offset + k));
          s += (k ? ", %" : "%") + std::string(a->name()) + ": " + a->type()->str();
        }
        attach(s + ")");
        break;
      }
      case Directive::FnResults: {
        Attribute *types = op.attr("result_types");
        const Attribute *names = op.attr("result_names"), *ties = op.attr("result_ties");
        auto at = [](const Attribute *list, size_t k) {
          return list && k < list->elements().size() ? list->elements()[k]->str() : std::string_view();
        };
        for (size_t k = 0; types && k < types->elements().size(); ++k) {
          if (k) attach(",");
          std::string_view name = at(names, k), tie = at(ties, k);
          std::string prefix = !name.empty()  ? "%" + std::string(name) + ": "
                               : !tie.empty() ? "%" + std::string(tie) + " as "
                                              : std::string();
          word(prefix + types->elements()[k]->type()->str());
        }
        break;
      }
      case Directive::IterArgs: {
        auto inits = group(op, d.segment);
        Block *body = op.region(0)->entryBlock();
        // scf.for's region starts with its induction variable; scf.while's has none.
        bool hasInductionVar = false;
        for (const Directive &p : def.directives) hasInductionVar |= p.kind == Directive::InductionVar;
        for (size_t k = 0; k < inits.size(); ++k) {
          if (k) attach(",");
          Value *arg = body->argument(unsigned(k + (hasInductionVar ? 1 : 0)));
          word("%" + std::string(arg->name()) + " = %" + std::string(inits[k]->name()) + " : " + arg->type()->str());
        }
        break;
      }
      case Directive::InductionVar: word("%" + std::string(op.region(0)->entryBlock()->argument(0)->name())); break;
      case Directive::Successors: {
        unsigned s = c.successor++;
        const Successor &succ = op.successors()[s];
        std::string text = "^" + std::string(succ.block->label());
        auto args = op.successorOperands(s);
        if (!args.empty()) {
          text += "(";
          for (size_t k = 0; k < args.size(); ++k)
            text += (k ? ", %" : "%") + std::string(args[k]->name()) + ": " + args[k]->type()->str();
          text += ")";
        }
        word(text);
        break;
      }
      case Directive::ConfigType: {
        Block *binding = op.numRegions() ? op.region(0)->entryBlock() : nullptr;
        if (binding && !binding->arguments().empty()) {
          Value *v = binding->argument(0);
          word("%" + std::string(v->name()) + ": " + v->type()->str());
          if (Attribute *w = op.attr("where")) word("where " + printAttribute(*w));
        } else if (Attribute *t = op.attr("type")) {
          word(t->type()->str());
        }
        break;
      }
      case Directive::SwitchCases: {
        const Attribute *keys = op.attr("case_keys");
        word("{");
        flush();
        for (unsigned r = 1; r <= op.numRegions(); ++r) {
          unsigned region = r == op.numRegions() ? 0 : r;  // the cases, then the default
          indentLine(indent + 1);
          if (region)
            word("case " + std::to_string(keys && region <= keys->elements().size()
                                              ? keys->elements()[region - 1]->integer()
                                              : 0));
          else
            word("default");
          printRegion(*op.region(region), indent + 1);
          flush();
        }
        indentLine(indent);
        attach("}");
        break;
      }
      case Directive::PackRanges: {
        const Attribute *aligns = op.attr("minimum_alignments");
        auto lengths = group(op, d.segment);
        std::string s = "[";
        for (size_t k = 0; k < lengths.size(); ++k) {
          int64_t a = aligns && k < aligns->elements().size() ? aligns->elements()[k]->integer() : 0;
          s += (k ? ", " : "") + (a ? "align(" + std::to_string(a) + ") " : std::string()) + "%" +
               std::string(lengths[k]->name());
        }
        word(s + "]");
        break;
      }
      case Directive::LookupTable: {
        const Attribute *keys = op.attr("case_keys");
        size_t rows = (keys ? keys->elements().size() : 0) + 1;
        auto table = group(op, d.segment);
        size_t width = table.size() / rows;
        auto row = [&](size_t i) {
          std::string s = "(";
          for (size_t k = 0; k < width; ++k) s += (k ? ", %" : "%") + std::string(table[i * width + k]->name());
          return s + ")";
        };
        word("{");
        flush();
        for (size_t i = 0; i + 1 < rows; ++i) {
          indentLine(indent + 1);
          word(std::to_string(keys->elements()[i]->integer()) + " = " + row(i) + (i + 2 < rows ? "," : ""));
          flush();
        }
        indentLine(indent);
        attach("}");
        word("default");
        attach(row(rows - 1));
        break;
      }
      case Directive::GlobalType:
      case Directive::CoResultType:
        if (Attribute *t = op.attr("type")) word(t->type()->str());
        break;
      }
      lastWasOperand_ = false;
      lastWasIndexList_ = false;
      lastWasTemplate_ = false;
    }
  }

  std::ostream &os_;
  std::string line_;
  std::string last_;
  bool lastWasOperand_ = false;
  bool lastWasIndexList_ = false;
  bool lastWasTemplate_ = false;
};

}  // namespace

void printModule(const Module &module, std::ostream &os) {
  Printer p(os);
  p.printModule(module);
}

}  // namespace hrx::loom
