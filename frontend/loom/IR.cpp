// IR storage: arena, type uniquing, attribute construction, builders and accessors.
#include "hrx/loom/IR.h"

#include "hrx/loom/OpDef.h"

#include <algorithm>

namespace hrx::loom {

void *Arena::allocateSlow(size_t size, size_t align) {
  size_t slab = std::max<size_t>(size + align, slabs_.size() < 4 ? 64 * 1024 : 1024 * 1024);
  slabs_.push_back(std::make_unique<char[]>(slab));
  cur_ = slabs_.back().get();
  end_ = cur_ + slab;
  total_ += slab;
  return allocate(size, align);
}

// ---- types -------------------------------------------------------------------------------------

bool Type::hasStaticShape() const {
  return std::all_of(shape_.begin(), shape_.end(), [](const Dim &d) { return d.isStatic(); });
}

int64_t Type::staticElementCount() const {
  int64_t n = 1;
  for (const Dim &d : shape_) {
    if (!d.isStatic()) return -1;
    n *= d.extent;
  }
  return n;
}

namespace {
std::string_view floatName(FloatKind k) {
  switch (k) {
  case FloatKind::F8E4M3: return "f8E4M3";
  case FloatKind::F8E5M2: return "f8E5M2";
  case FloatKind::F16: return "f16";
  case FloatKind::BF16: return "bf16";
  case FloatKind::F32: return "f32";
  case FloatKind::F64: return "f64";
  }
  return "f32";
}
}  // namespace

std::string printAttribute(const Attribute &attr);  // Printer.cpp

std::string Type::str() const {
  switch (kind_) {
  case TypeKind::Index: return "index";
  case TypeKind::Offset: return "offset";
  case TypeKind::Integer: return "i" + std::to_string(width_);
  case TypeKind::Float: return std::string(floatName(floatKind_));
  case TypeKind::Buffer: return "buffer";
  case TypeKind::Group: return "group";
  case TypeKind::Flow: return "pipeline.flow<" + element_->str() + ">";
  case TypeKind::Encoding: return name_.empty() ? "encoding" : "encoding<" + std::string(name_) + ">";
  case TypeKind::Opaque: return std::string(name_);
  case TypeKind::Unknown: return "<unknown>";
  case TypeKind::View:
  case TypeKind::Vector:
  case TypeKind::Tensor:
  case TypeKind::Tile: {
    std::string s = kind_ == TypeKind::View     ? "view<"
                    : kind_ == TypeKind::Vector ? "vector<"
                    : kind_ == TypeKind::Tensor ? "tensor<"
                                                : "tile<";
    for (const Dim &d : shape_) {
      if (d.isStatic())
        s += std::to_string(d.extent);
      else
        s += "[%" + std::string(d.dynamic->name()) + "]";
      s += "x";
    }
    s += element_->str();
    if (slot_.value) s += ", %" + std::string(slot_.value->name());
    if (slot_.attr) s += ", " + printAttribute(*slot_.attr);
    return s + ">";
  }
  }
  return "?";
}

TypeContext::TypeContext(Arena &arena) : arena_(arena) {
  Type t;
  t.kind_ = TypeKind::Index;
  index_ = intern(t);
  t.kind_ = TypeKind::Offset;
  offset_ = intern(t);
  t.kind_ = TypeKind::Buffer;
  buffer_ = intern(t);
  t.kind_ = TypeKind::Group;
  group_ = intern(t);
  t.kind_ = TypeKind::Unknown;
  unknown_ = intern(t);
}

// The uniquing key is the type's structure in binary: element types are already unique, and
// dynamic dimensions are keyed by the identity of the SSA value they name (two types spelled
// alike can bind different values). Attribute slots are keyed by their printed form.
Type *TypeContext::intern(Type proto) {
  std::string key;
  auto put = [&key](const auto &v) { key.append(reinterpret_cast<const char *>(&v), sizeof(v)); };
  put(proto.kind_);
  put(proto.floatKind_);
  put(proto.width_);
  put(proto.element_);
  put(proto.slot_.value);
  for (const Dim &d : proto.shape_) {
    put(d.extent);
    put(d.dynamic);
  }
  key += '|';
  key += proto.name_;
  if (proto.slot_.attr) key += printAttribute(*proto.slot_.attr);
  auto it = uniqued_.find(key);
  if (it != uniqued_.end()) return it->second;
  proto.shape_ = arena_.copy(proto.shape_);
  proto.inputs_ = arena_.copy(proto.inputs_);
  proto.results_ = arena_.copy(proto.results_);
  proto.name_ = arena_.copyString(proto.name_);
  Type *t = arena_.create<Type>(proto);
  uniqued_.emplace(std::move(key), t);
  return t;
}

Type *TypeContext::integer(unsigned width) {
  Type t;
  t.kind_ = TypeKind::Integer;
  t.width_ = width;
  return intern(t);
}

Type *TypeContext::floating(FloatKind kind) {
  Type t;
  t.kind_ = TypeKind::Float;
  t.floatKind_ = kind;
  t.width_ = kind == FloatKind::F64 ? 64 : kind == FloatKind::F32 ? 32 : kind <= FloatKind::F8E5M2 ? 8 : 16;
  return intern(t);
}

Type *TypeContext::shaped(TypeKind kind, std::span<const Dim> shape, Type *element, TypeSlot slot) {
  Type t;
  t.kind_ = kind;
  t.shape_ = shape;
  t.element_ = element;
  t.slot_ = slot;
  return intern(t);
}

Type *TypeContext::flow(Type *tile) {
  Type t;
  t.kind_ = TypeKind::Flow;
  t.element_ = tile;
  return intern(t);
}

Type *TypeContext::encoding(std::string_view role) {
  Type t;
  t.kind_ = TypeKind::Encoding;
  t.name_ = role;
  return intern(t);
}

Type *TypeContext::opaque(std::string_view spelling) {
  Type t;
  t.kind_ = TypeKind::Opaque;
  t.name_ = spelling;
  return intern(t);
}

// The canonical spellings are the uniquing key: the parts are already unique types.
Type *TypeContext::functionSignature(std::span<Type *const> inputs, std::span<Type *const> results) {
  auto list = [](std::span<Type *const> types) {
    std::string out = "(";
    for (size_t i = 0; i < types.size(); ++i) out += (i ? ", " : "") + types[i]->str();
    return out + ")";
  };
  std::string spelling = list(inputs) + " -> " + list(results);
  Type t;
  t.kind_ = TypeKind::Opaque;
  t.funcForm_ = Type::FuncForm::Signature;
  t.inputs_ = inputs;
  t.results_ = results;
  t.name_ = spelling;
  return intern(t);
}

Type *TypeContext::funcRef(Type *referent, bool yieldable) {
  std::string spelling = std::string("func.ref<") + (yieldable ? "yieldable " : "") + referent->str() + ">";
  Type t;
  t.kind_ = TypeKind::Opaque;
  t.funcForm_ = Type::FuncForm::Ref;
  t.yieldable_ = yieldable;
  t.element_ = referent;
  t.name_ = spelling;
  return intern(t);
}

Type *TypeContext::channelAccess(std::string_view family, Type *payload, bool mutableRead) {
  std::string spelling = std::string(family) + "<" + payload->str() + (mutableRead ? ", mutable>" : ">");
  Type t;
  t.kind_ = TypeKind::Opaque;
  t.access_ = family == "channel" ? Type::Access::Channel : family == "read" ? Type::Access::Read : Type::Access::Write;
  t.yieldable_ = mutableRead;
  t.element_ = payload;
  t.name_ = spelling;
  return intern(t);
}

// ---- attributes --------------------------------------------------------------------------------

const Attribute *Attribute::get(std::string_view key) const {
  for (const NamedAttr &e : entries())
    if (e.name == key) return e.value;
  return nullptr;
}

Attribute *AttrBuilder::make(AttrKind kind) {
  Attribute *a = arena_.create<Attribute>();
  a->kind_ = kind;
  return a;
}
void AttrBuilder::setText(Attribute *a, std::string_view s) {
  std::string_view copy = arena_.copyString(s);
  a->text_ = copy.data();
  a->textLength_ = uint32_t(copy.size());
}
template <typename T> void AttrBuilder::setList(Attribute *a, const std::vector<T> &items) {
  auto copy = arena_.copy(items);
  a->list_ = copy.data();
  a->listLength_ = uint32_t(copy.size());
}
Attribute *AttrBuilder::integer(int64_t v) {
  bool small = v >= 0 && v < int64_t(std::size(smallIntegers_));
  if (small && smallIntegers_[v]) return smallIntegers_[v];
  Attribute *a = make(AttrKind::Integer);
  a->int_ = v;
  if (small) smallIntegers_[v] = a;
  return a;
}
Attribute *AttrBuilder::floating(double v) {
  Attribute *a = make(AttrKind::Float);
  a->float_ = v;
  return a;
}
Attribute *AttrBuilder::string(std::string_view s) {
  Attribute *a = make(AttrKind::String);
  setText(a, s);
  return a;
}
Attribute *AttrBuilder::boolean(bool v) {
  Attribute *a = make(AttrKind::Bool);
  a->int_ = v;
  return a;
}
Attribute *AttrBuilder::unit() {
  if (!unit_) unit_ = make(AttrKind::Unit);
  return unit_;
}
Attribute *AttrBuilder::ident(std::string_view s) {
  Attribute *a = make(AttrKind::Ident);
  setText(a, s);
  return a;
}
Attribute *AttrBuilder::flags(const std::vector<Attribute *> &idents) {
  Attribute *a = make(AttrKind::Flags);
  setList(a, idents);
  return a;
}
Attribute *AttrBuilder::symbol(std::string_view s) {
  Attribute *a = make(AttrKind::Symbol);
  setText(a, s);
  return a;
}
Attribute *AttrBuilder::hash(std::string_view name, const std::vector<NamedAttr> &params, bool hasParams) {
  Attribute *a = make(AttrKind::Hash);
  setText(a, name);
  setList(a, params);
  a->int_ = hasParams;
  return a;
}
Attribute *AttrBuilder::array(const std::vector<Attribute *> &elements) {
  Attribute *a = make(AttrKind::Array);
  setList(a, elements);
  return a;
}
Attribute *AttrBuilder::dict(const std::vector<NamedAttr> &entries) {
  Attribute *a = make(AttrKind::Dict);
  setList(a, entries);
  return a;
}
Attribute *AttrBuilder::valueRef(Value *v, Type *t) {
  Attribute *a = make(AttrKind::ValueRef);
  a->value_ = v;
  a->type_ = t;
  return a;
}
Attribute *AttrBuilder::typeRef(Type *t) {
  Attribute *a = make(AttrKind::TypeRef);
  a->type_ = t;
  return a;
}
Attribute *AttrBuilder::predicate(std::string_view name, const std::vector<Attribute *> &args) {
  Attribute *a = make(AttrKind::Predicate);
  setText(a, name);
  setList(a, args);
  return a;
}

// ---- operations and blocks ---------------------------------------------------------------------

Operation *Block::parentOp() const { return parent_ ? parent_->parentOp() : nullptr; }

Operation *Block::terminator() const { return last_ && isTerminator(*last_) ? last_ : nullptr; }

Operation *Operation::parentOp() const { return block_ ? block_->parentOp() : nullptr; }

Attribute *Operation::attr(std::string_view name) const {
  for (const NamedAttr &a : attributes())
    if (a.name == name) return a.value;
  // Entries of the `{...}` dictionary (stored under the empty name).
  for (const NamedAttr &a : attributes())
    if (a.name.empty())
      for (const NamedAttr &e : a.value->entries())
        if (e.name == name) return e.value;
  return nullptr;
}

std::string_view Operation::symbolName() const {
  Attribute *a = attr("sym_name");
  return a ? a->str() : std::string_view();
}

std::span<Value *const> Operation::operandGroup(std::string_view name) const {
  if (!def_) return {};
  int seg = def_->segmentIndex(name);
  if (seg < 0 || size_t(seg) >= count_[kSegments]) return {};
  size_t start = 0;
  for (int i = 0; i < seg; ++i) start += segments_[i];
  return operands().subspan(start, segments_[seg]);
}

Value *Operation::operandNamed(std::string_view name) const {
  auto group = operandGroup(name);
  return group.empty() ? nullptr : group.front();
}

namespace {
void collectPredicates(const Attribute *a, std::vector<const Attribute *> &out) {
  if (!a) return;
  if (a->kind() == AttrKind::Predicate) {
    out.push_back(a);
    return;
  }
  if (a->kind() == AttrKind::Array)
    for (const Attribute *e : a->elements()) collectPredicates(e, out);
}
}  // namespace

std::vector<const Attribute *> predicatesOf(const Operation &op) {
  std::vector<const Attribute *> out;
  for (const NamedAttr &a : op.attributes()) collectPredicates(a.value, out);
  return out;
}

bool isTerminator(const Operation &op) { return op.def() && op.def()->has(opflag::Term); }
bool isSymbolOp(const Operation &op) { return op.isOpaque() ? op.hasAttr("sym_name") : op.def()->has(opflag::Symbol); }
bool isIsolatedFromAbove(const Operation &op) {
  return op.isOpaque() ? op.parentOp() == nullptr : op.def()->has(opflag::Isolated);
}

IRBuilder::IRBuilder(Module &module) : arena_(module.arena()) {}

Operation *IRBuilder::createOp(OpCode opcode, const OpDef *def, std::string_view name, diag::SourceRange loc,
                               size_t numResults, size_t numRegions) {
  Operation *op = arena_.create<Operation>();
  op->opcode_ = opcode;
  op->def_ = def;
  std::string_view n = def ? def->name : arena_.copyString(name);
  op->name_ = n.data();
  op->nameLength_ = uint32_t(n.size());
  op->file_ = loc.begin.file;
  op->begin_ = loc.begin.offset;
  op->end_ = loc.end.file == loc.begin.file ? loc.end.offset : loc.begin.offset;
  if (numResults) {
    Value *results = static_cast<Value *>(arena_.allocate(sizeof(Value) * numResults, alignof(Value)));
    for (size_t i = 0; i < numResults; ++i) {
      new (results + i) Value();
      results[i].ownerOp_ = op;
      results[i].index_ = unsigned(i);
    }
    op->results_ = results;
    op->count_[Operation::kResults] = uint32_t(numResults);
  }
  if (numRegions) {
    Region *regions = static_cast<Region *>(arena_.allocate(sizeof(Region) * numRegions, alignof(Region)));
    for (size_t i = 0; i < numRegions; ++i) {
      new (regions + i) Region();
      regions[i].parent_ = op;
    }
    op->regions_ = regions;
    op->count_[Operation::kRegions] = uint32_t(numRegions);
  }
  return op;
}

void IRBuilder::setOperands(Operation *op, const std::vector<Value *> &operands) {
  {
    auto copied = arena_.copy(operands);
    op->operands_ = copied.data();
    op->count_[Operation::kOperands] = uint32_t(copied.size());
  }
}

void IRBuilder::setResultNames(Operation *op, std::span<const std::string_view> names,
                               std::span<const diag::SourceRange> locs) {
  for (size_t i = 0; i < names.size() && i < op->numResults(); ++i) {
    op->results_[i].name_ = arena_.copyString(names[i]);
    op->results_[i].loc_ = locs[i];
  }
}

void IRBuilder::setTemplate(Operation *op, const std::vector<Attribute *> &params) {
  {
    auto copied = arena_.copy(params);
    op->template_ = copied.data();
    op->count_[Operation::kTemplate] = uint32_t(copied.size());
  }
}
void IRBuilder::setAttributes(Operation *op, const std::vector<NamedAttr> &attrs) {
  {
    auto copied = arena_.copy(attrs);
    op->attrs_ = copied.data();
    op->count_[Operation::kAttrs] = uint32_t(copied.size());
  }
}
void IRBuilder::setSuccessors(Operation *op, const std::vector<Successor> &succs) {
  {
    auto copied = arena_.copy(succs);
    op->successors_ = copied.data();
    op->count_[Operation::kSuccessors] = uint32_t(copied.size());
  }
}
void IRBuilder::setSegments(Operation *op, const std::vector<uint32_t> &segments, uint64_t groups) {
  {
    auto copied = arena_.copy(segments);
    op->segments_ = copied.data();
    op->count_[Operation::kSegments] = uint32_t(copied.size());
  }
  op->groups_ = groups;
}
void IRBuilder::setComments(Operation *op, const std::vector<std::string_view> &comments, bool blankLine) {
  {
    auto copied = arena_.copy(comments);
    op->comments_ = copied.data();
    op->count_[Operation::kComments] = uint32_t(copied.size());
  }
  op->blankLineBefore_ = blankLine;
}
void IRBuilder::setOpaqueText(Operation *op, const std::vector<std::string_view> &text) {
  std::vector<std::string_view> copied;
  for (std::string_view s : text) copied.push_back(arena_.copyString(s));
  {
    auto stored = arena_.copy(copied);
    op->opaqueText_ = stored.data();
    op->count_[Operation::kOpaqueText] = uint32_t(stored.size());
  }
}

Block *IRBuilder::createBlock(std::string_view label, diag::SourceRange loc) {
  Block *b = arena_.create<Block>();
  b->label_ = arena_.copyString(label);
  b->loc_ = loc;
  return b;
}

Value *IRBuilder::createArgument(std::string_view name, Type *type, diag::SourceRange loc) {
  Value *v = arena_.create<Value>();
  v->name_ = arena_.copyString(name);
  v->type_ = type;
  v->loc_ = loc;
  return v;
}

void IRBuilder::setBlockArguments(Block *block, const std::vector<Value *> &args) {
  for (size_t i = 0; i < args.size(); ++i) {
    args[i]->ownerBlock_ = block;
    args[i]->index_ = unsigned(i);
  }
  block->args_ = arena_.copy(args);
}

void IRBuilder::setBlockComments(Block *block, const std::vector<std::string_view> &leading,
                                 const std::vector<std::string_view> &trailing) {
  block->comments_ = arena_.copy(leading);
  block->trailing_ = arena_.copy(trailing);
}

void IRBuilder::setRegionCount(Operation *op, size_t count) {
  Region *regions = static_cast<Region *>(arena_.allocate(sizeof(Region) * (count ? count : 1), alignof(Region)));
  for (size_t i = 0; i < count; ++i) {
    new (regions + i) Region();
    regions[i].parent_ = op;
  }
  op->regions_ = regions;
  op->count_[Operation::kRegions] = uint32_t(count);
}

void IRBuilder::setRegionBlocks(Operation *op, unsigned region, const std::vector<Block *> &blocks) {
  Region &r = op->regions_[region];
  r.blocks_ = arena_.copy(blocks);
  for (Block *b : blocks) b->parent_ = &r;
}

void IRBuilder::append(Block *block, Operation *op) {
  op->block_ = block;
  op->prev_ = block->last_;
  op->next_ = nullptr;
  if (block->last_)
    block->last_->next_ = op;
  else
    block->first_ = op;
  block->last_ = op;
}

Module::Module(uint32_t file) : types_(arena_), attrs_(arena_), file_(file) { body_ = arena_.create<Block>(); }

Operation *Module::lookupSymbol(std::string_view name) const {
  auto it = symbols_.find(name);
  return it == symbols_.end() ? nullptr : it->second;
}

void ModuleDeleter::operator()(Module *m) const { delete m; }

}  // namespace hrx::loom
