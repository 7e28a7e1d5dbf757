// The op definition table: the rows of Ops.def, compiled once into format directives.
#include "hrx/loom/OpDef.h"

#include <array>
#include <unordered_map>

namespace hrx::loom {
namespace {

using namespace opflag;
using enum TypeClass;

struct Row {
  OpCode code;
  std::string_view name, format, results;
  TypeClass typeClass;
  std::string_view templateKind;
  VerifyHook hook;
  uint32_t flags;
};

constexpr Row kRows[] = {
#define HRX_LOOM_OP(ID, NAME, FORMAT, RESULTS, CLASS, TEMPLATE, HOOK, FLAGS)                                           \
  {OpCode::ID, NAME, FORMAT, RESULTS, CLASS, TEMPLATE, VerifyHook::HOOK, FLAGS},
#include "hrx/loom/Ops.def"
#undef HRX_LOOM_OP
};

struct EnumSet {
  std::string_view kind;
  std::vector<std::string_view> cases;
  bool flags;
};

const std::vector<EnumSet> &enumSets() {
  static const std::vector<EnumSet> sets = {
      {"dimension", {"x", "y", "z"}, false},
      {"memory_space",
       {"unknown", "global", "workgroup", "private", "constant", "generic", "host", "descriptor"},
       false},
      {"cmpi", {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"}, false},
      {"cmpf",
       {"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno",
        "true"},
       false},
      {"fast_math", {"reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "fast"}, true},
      {"int_flags", {"nsw", "nuw"}, true},
      {"gelu", {"erf", "tanh", "logistic", "reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "fast"}, true},
      {"combining",
       {"addf",     "addi",  "mulf", "muli",  "maxnumf", "minnumf", "maximumf", "minimumf", "maxsi", "minsi",
        "maxui",    "minui", "andi", "ori",   "xori",    "reassoc", "nnan",     "ninf",     "nsz",   "arcp",
        "contract", "afn",   "fast", "noftz", "xchgi",   "xchgf",   "subi",     "subf"},
       false},
      {"shuffle_mode", {"xor", "up", "down", "index"}, false},
      {"fragment_role", {"lhs", "rhs", "init", "result"}, false},
      {"aie2p_kind", {"core", "array"}, false},
      {"pipeline_scope", {"kernel", "command"}, false},
      {"pipeline_form", {"launch", "run"}, false},
      {"channel_discipline", {"fifo"}, false},
      {"channel_mode", {"mutable"}, false},
      {"callconv", {"host", "device", "initializer", "deinitializer"}, false},
      {"temp", {"hot", "cold"}, false},
      {"inlinepolicy", {"inline", "noinline"}, false},
      {"schedule", {"linear", "interleaved", "recurrence"}, false},
      {"memory_access", {"volatile", "nontemporal"}, false},
      {"access_kind", {"read", "write"}, false},
      {"fence_ordering", {"acquire", "release", "acq_rel", "seq_cst"}, false},
      {"asm_flags", {"sideeffect", "alignstack", "inteldialect"}, true},
      {"llvmir_target_kind", {"object"}, false},
  };
  return sets;
}

const EnumSet *findSet(std::string_view kind) {
  for (const EnumSet &s : enumSets())
    if (s.kind == kind) return &s;
  return nullptr;
}

// Splits the format string and resolves groups, segments and regions.
void compile(OpDef &def) {
  std::vector<unsigned> open;
  std::string_view f = def.format;
  size_t pos = 0;
  auto addSegment = [&](Directive &d) {
    d.segment = int(def.segmentNames.size());
    def.segmentNames.push_back(d.text);
  };
  while (pos < f.size()) {
    size_t end = f.find(' ', pos);
    if (end == std::string_view::npos) end = f.size();
    std::string_view tok = f.substr(pos, end - pos);
    pos = end + 1;
    if (tok.empty()) continue;
    Directive d;
    if (tok == "(?") {
      d.kind = Directive::GroupBegin;
      d.index = def.numGroups++;
      open.push_back(unsigned(def.directives.size()));
    } else if (tok == "?)") {
      d.kind = Directive::GroupEnd;
      def.directives[open.back()].groupEnd = unsigned(def.directives.size());
      open.pop_back();
    } else if (tok[0] == '%') {
      d.kind = Directive::Operand;
      std::string_view name = tok.substr(1);
      if (name.back() == '*') d.arity = Directive::Many;
      if (name.back() == '+') d.arity = Directive::AtLeastOne;
      if (d.arity != Directive::One) name.remove_suffix(1);
      d.text = name;
      addSegment(d);
    } else if (tok.size() > 2 && tok[0] == '[' && tok[1] == '%') {
      d.kind = Directive::IndexList;
      d.text = tok.substr(2, tok.size() - 3);
      addSegment(d);
    } else if (tok[0] == '@') {
      d.kind = Directive::Symbol;
      d.text = tok.substr(1);
    } else if (tok[0] == '$') {
      d.kind = Directive::Attr;
      size_t colon = tok.find(':');
      d.text = tok.substr(1, colon - 1);
      if (d.text.back() == '?') {
        d.optional = true;
        d.text.remove_suffix(1);
      }
      d.attrKind = tok.substr(colon + 1);
    } else if (tok[0] == '?' && tok.size() > 1) {
      d.kind = Directive::OptKeyword;
      d.text = tok.substr(1);
    } else if (tok == "<>" || tok == "<>?") {
      d.kind = Directive::Template;
      d.optional = tok.size() == 3;
    } else if (tok[0] == '{') {
      d.kind = Directive::AttrDict;
      std::string_view inner = tok.substr(1, tok.size() - 2);
      d.bare = inner == "bare";
      d.text = (inner.empty() || d.bare) ? std::string_view() : inner;
    } else if (tok[0] == '!') {
      d.kind = Directive::TypeSlot;
      std::string_view rest = tok.substr(1);
      while (!rest.empty()) {
        size_t bar = rest.find('|');
        std::string_view item = rest.substr(0, bar);
        Directive::Binding b;
        b.elementwise = item.back() == '*';
        b.name = b.elementwise ? item.substr(0, item.size() - 1) : item;
        d.bindings.push_back(b);
        rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
      }
    } else if (tok[0] == '^') {
      std::string_view what = tok.substr(1);
      auto field = [&](unsigned n) {
        std::string_view s = what;
        for (unsigned i = 0; i < n; ++i) s = s.substr(s.find(':') + 1);
        return s.substr(0, s.find(':'));
      };
      if (what.starts_with("region:")) {
        d.kind = Directive::Region;
        d.index = unsigned(field(1)[0] - '0');
        def.numRegions = std::max(def.numRegions, d.index + 1);
      } else if (what.starts_with("sig:")) {
        d.kind = Directive::Signature;
        d.index = unsigned(field(1)[0] - '0');
        d.text = field(2);
        def.numRegions = std::max(def.numRegions, d.index + 1);
      } else if (what == "fnresults") {
        d.kind = Directive::FnResults;
      } else if (what == "iterargs") {
        d.kind = Directive::IterArgs;
        d.text = "inits";
        addSegment(d);
      } else if (what == "iv") {
        d.kind = Directive::InductionVar;
      } else if (what == "succ") {
        d.kind = Directive::Successors;
        d.text = "successor";
        addSegment(d);
      } else if (what == "configtype") {
        d.kind = Directive::ConfigType;
        def.numRegions = std::max(def.numRegions, 1u);
      } else if (what == "globaltype") {
        d.kind = Directive::GlobalType;
        def.numRegions = std::max(def.numRegions, 1u);
      } else if (what == "coresulttype") {
        d.kind = Directive::CoResultType;
      } else if (what == "cases") {
        d.kind = Directive::SwitchCases;
        def.numRegions = std::max(def.numRegions, 1u);
      } else if (what == "packranges") {
        d.kind = Directive::PackRanges;
        d.text = "byte_lengths";
        addSegment(d);
      } else if (what == "table") {
        d.kind = Directive::LookupTable;
        d.text = "table";
        addSegment(d);
      }
    } else {
      d.kind = Directive::Literal;
      d.text = tok;
    }
    def.directives.push_back(std::move(d));
  }
}

struct Table {
  std::vector<OpDef> defs;
  std::vector<const OpDef *> pointers;
  std::unordered_map<std::string_view, const OpDef *> byName;
  Table() {
    defs.reserve(std::size(kRows));
    for (const Row &r : kRows) {
      OpDef d{r.code, r.name, r.format, r.results, r.typeClass, r.templateKind, r.hook, r.flags, {}, {}, 0, 0};
      compile(d);
      defs.push_back(std::move(d));
    }
    for (const OpDef &d : defs) {
      pointers.push_back(&d);
      byName.emplace(d.name, &d);
    }
  }
};

const Table &table() {
  static const Table t;
  return t;
}

}  // namespace

int OpDef::segmentIndex(std::string_view n) const {
  for (size_t i = 0; i < segmentNames.size(); ++i)
    if (segmentNames[i] == n) return int(i);
  return -1;
}

const OpDef *lookupOpDef(std::string_view name) {
  auto &t = table();
  auto it = t.byName.find(name);
  return it == t.byName.end() ? nullptr : it->second;
}

const OpDef &opDef(OpCode code) { return table().defs.at(size_t(code)); }

std::string_view opName(OpCode code) {
  return code == OpCode::Opaque ? std::string_view("<opaque>") : opDef(code).name;
}

std::span<const OpDef *const> allOpDefs() { return table().pointers; }

std::span<const std::string_view> enumCases(std::string_view kind) {
  const EnumSet *s = findSet(kind);
  return s ? std::span<const std::string_view>(s->cases) : std::span<const std::string_view>();
}

bool isFlagSet(std::string_view kind) {
  const EnumSet *s = findSet(kind);
  return s && s->flags;
}

bool typeInClass(const Type *t, TypeClass c) {
  switch (c) {
  case TypeClass::Any: return true;
  case TypeClass::Address: return t->isAddress();
  case TypeClass::Index: return t->isIndex();
  case TypeClass::Int: return t->isInteger();
  case TypeClass::Float: return t->isFloat();
  case TypeClass::Scalar: return t->isScalar();
  case TypeClass::Buffer: return t->kind() == TypeKind::Buffer;
  case TypeClass::IntVector: return t->kind() == TypeKind::Vector && t->elementType()->isInteger();
  case TypeClass::FloatVector: return t->kind() == TypeKind::Vector && t->elementType()->isFloat();
  case TypeClass::AnyVector: return t->kind() == TypeKind::Vector;
  }
  return false;
}

}  // namespace hrx::loom
