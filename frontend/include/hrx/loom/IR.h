// The Loom IR: modules, operations, regions, blocks, SSA values, interned types and attributes.
// Everything lives in a bump arena owned by the Module; nothing is freed before the module.
// This is the API the bridge consumes (see docs/loom.md).
#pragma once

#include "hrx/diag/SourceManager.h"
#include "hrx/loom/Loom.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hrx::loom {

class Attribute;
class Block;
class Module;
class Operation;
class Region;
class Type;
class Value;
struct OpDef;

// ---------------------------------------------------------------------------------------------
// Arena
// ---------------------------------------------------------------------------------------------

// Bump allocator; objects are never destroyed individually (all IR types are trivially
// destructible or only hold arena memory).
class Arena {
public:
  Arena() = default;
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;

  void *allocate(size_t size, size_t align) {
    uintptr_t p = (reinterpret_cast<uintptr_t>(cur_) + align - 1) & ~(uintptr_t(align) - 1);
    if (p + size > reinterpret_cast<uintptr_t>(end_)) return allocateSlow(size, align);
    cur_ = reinterpret_cast<char *>(p + size);
    return reinterpret_cast<void *>(p);
  }
  template <typename T, typename... Args> T *create(Args &&...args) {
    return new (allocate(sizeof(T), alignof(T))) T(std::forward<Args>(args)...);
  }
  template <typename T> std::span<T> copy(std::span<const T> items) {
    if (items.empty()) return {};
    T *out = static_cast<T *>(allocate(sizeof(T) * items.size(), alignof(T)));
    for (size_t i = 0; i < items.size(); ++i) new (out + i) T(items[i]);
    return {out, items.size()};
  }
  template <typename T> std::span<T> copy(const std::vector<T> &items) {
    return copy(std::span<const T>(items.data(), items.size()));
  }
  std::string_view copyString(std::string_view s) {
    if (s.empty()) return {};
    char *out = static_cast<char *>(allocate(s.size(), 1));
    std::memcpy(out, s.data(), s.size());
    return {out, s.size()};
  }
  size_t bytesAllocated() const { return total_; }

private:
  void *allocateSlow(size_t size, size_t align);
  std::vector<std::unique_ptr<char[]>> slabs_;
  char *cur_ = nullptr;
  char *end_ = nullptr;
  size_t total_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Types (uniqued per module: pointer equality is type equality)
// ---------------------------------------------------------------------------------------------

enum class TypeKind : uint8_t {
  Index,
  Offset,
  Integer,
  Float,
  Buffer,
  View,
  Vector,
  Tensor,
  Tile,
  Group,
  Flow,
  Encoding,
  Opaque,   // a named type outside the Phase-1 subset (pool, kernel.async.token, ...)
  Unknown,  // the result type of an op parsed without a definition (check.*, unknown ops)
};

enum class FloatKind : uint8_t { F8E4M3, F8E5M2, F16, BF16, F32, F64 };

// One dimension of a shape: a static extent or a dynamic `[%x]` reference to an index value.
struct Dim {
  int64_t extent = 0;
  Value *dynamic = nullptr;
  bool isStatic() const { return dynamic == nullptr; }
  friend bool operator==(const Dim &, const Dim &) = default;
};

// The optional trailing slot of view/tensor/tile: an SSA value or an attribute.
struct TypeSlot {
  Value *value = nullptr;
  Attribute *attr = nullptr;
  bool empty() const { return !value && !attr; }
};

class Type {
public:
  TypeKind kind() const { return kind_; }
  bool isIndex() const { return kind_ == TypeKind::Index; }
  bool isOffset() const { return kind_ == TypeKind::Offset; }
  bool isAddress() const { return isIndex() || isOffset(); }
  bool isInteger() const { return kind_ == TypeKind::Integer; }
  bool isInteger(unsigned width) const { return isInteger() && width_ == width; }
  bool isFloat() const { return kind_ == TypeKind::Float; }
  bool isScalar() const { return isInteger() || isFloat(); }
  bool isShaped() const {
    return kind_ == TypeKind::View || kind_ == TypeKind::Vector || kind_ == TypeKind::Tensor || kind_ == TypeKind::Tile;
  }
  bool isUnknown() const { return kind_ == TypeKind::Unknown; }
  // Function signatures `(A...) -> (R...)` and references `func.ref<[yieldable] T>` are opaque
  // types spelled canonically, with their structure attached.
  bool isFunctionSignature() const { return funcForm_ == FuncForm::Signature; }
  bool isFuncRef() const { return funcForm_ == FuncForm::Ref; }
  // A func.ref whose referent is a function signature (upstream's only valid kind).
  bool isCallableRef() const { return isFuncRef() && element_ && element_->isFunctionSignature(); }
  bool funcRefYieldable() const { return yieldable_; }
  // Channel endpoints `channel<P>`, `read<P[, mutable]>`, `write<P>` (opaque, spelled
  // canonically); elementType() is the record payload P.
  bool isChannel() const { return access_ == Access::Channel; }
  bool isChannelRead() const { return access_ == Access::Read; }
  bool isChannelWrite() const { return access_ == Access::Write; }
  bool isChannelAccess() const { return access_ != Access::None; }
  bool readIsMutable() const { return yieldable_ && isChannelRead(); }
  std::span<Type *const> functionInputs() const { return inputs_; }    // Signature
  std::span<Type *const> functionResults() const { return results_; }  // Signature

  unsigned width() const { return width_; }              // Integer; bits of Float
  FloatKind floatKind() const { return floatKind_; }     // Float
  std::span<const Dim> shape() const { return shape_; }  // shaped types
  size_t rank() const { return shape_.size(); }
  Type *elementType() const { return element_; }   // shaped types; Flow: its tile type; func.ref: its referent
  TypeSlot slot() const { return slot_; }          // view layout / tensor+tile encoding
  std::string_view name() const { return name_; }  // Encoding role; Opaque spelling
  bool hasStaticShape() const;
  // Product of static extents; -1 if any dimension is dynamic.
  int64_t staticElementCount() const;

  std::string str() const;

private:
  friend class TypeContext;
  enum class FuncForm : uint8_t { None, Signature, Ref };
  enum class Access : uint8_t { None, Channel, Read, Write };
  TypeKind kind_ = TypeKind::Unknown;
  FuncForm funcForm_ = FuncForm::None;
  Access access_ = Access::None;
  bool yieldable_ = false;
  std::span<Type *const> inputs_, results_;
  FloatKind floatKind_ = FloatKind::F32;
  unsigned width_ = 0;
  std::span<const Dim> shape_;
  Type *element_ = nullptr;
  TypeSlot slot_;
  std::string_view name_;
};

class TypeContext {
public:
  explicit TypeContext(Arena &arena);
  Type *index() const { return index_; }
  Type *offset() const { return offset_; }
  Type *buffer() const { return buffer_; }
  Type *group() const { return group_; }
  Type *unknown() const { return unknown_; }
  Type *integer(unsigned width);
  Type *floating(FloatKind kind);
  Type *shaped(TypeKind kind, std::span<const Dim> shape, Type *element, TypeSlot slot = {});
  Type *flow(Type *tile);
  Type *encoding(std::string_view role);
  Type *opaque(std::string_view spelling);
  Type *functionSignature(std::span<Type *const> inputs, std::span<Type *const> results);
  Type *funcRef(Type *referent, bool yieldable);
  // `channel<P>` ("channel"), `read<P[, mutable]>` ("read"), `write<P>` ("write").
  Type *channelAccess(std::string_view family, Type *payload, bool mutableRead = false);

private:
  Type *intern(Type proto);
  Arena &arena_;
  std::unordered_map<std::string, Type *> uniqued_;
  Type *index_, *offset_, *buffer_, *group_, *unknown_;
};

// ---------------------------------------------------------------------------------------------
// Attributes
// ---------------------------------------------------------------------------------------------

enum class AttrKind : uint8_t {
  Integer,    // 42, -1, 0x10
  Float,      // 0.0, 1e-6
  String,     // "text" (stored unescaped)
  Bool,       // true / false
  Unit,       // a present keyword (public, retain, pure, unroll)
  Ident,      // enum case: ult, global, x, gfx11-generic
  Flags,      // nnan|ninf (elements are Ident)
  Symbol,     // @name
  Hash,       // #name or #name<k=v, ...> (params are NamedAttr; positional params have empty names)
  Array,      // [a, b]
  Dict,       // {k = v}
  ValueRef,   // a typed SSA entry `%v : T` (operand dictionaries, predicate arguments)
  TypeRef,    // a type used as a value (function result types, config types)
  Predicate,  // range(%v, 1, 16): name + arguments
};

struct NamedAttr {
  std::string_view name;
  Attribute *value = nullptr;
};

class Attribute {
public:
  AttrKind kind() const { return kind_; }
  int64_t integer() const { return int_; }
  double floating() const { return float_; }
  bool boolean() const { return int_ != 0; }
  // String payload, identifier, symbol name (without @), hash name (without #), predicate name.
  std::string_view str() const { return {text_, textLength_}; }
  // Array, Flags, Predicate arguments.
  std::span<Attribute *const> elements() const {
    return isList() ? std::span<Attribute *const>(static_cast<Attribute *const *>(list_), listLength_)
                    : std::span<Attribute *const>();
  }
  // Dict entries, Hash parameters.
  std::span<const NamedAttr> entries() const {
    return isList() ? std::span<const NamedAttr>()
                    : std::span<const NamedAttr>(static_cast<const NamedAttr *>(list_), listLength_);
  }
  Value *value() const { return kind_ == AttrKind::ValueRef ? value_ : nullptr; }  // ValueRef
  Type *type() const { return type_; }                                             // ValueRef, TypeRef
  const Attribute *get(std::string_view key) const;                                // Dict/Hash lookup

  bool isIdent(std::string_view s) const { return kind_ == AttrKind::Ident && str() == s; }

private:
  friend class AttrBuilder;
  bool isList() const { return kind_ == AttrKind::Array || kind_ == AttrKind::Flags || kind_ == AttrKind::Predicate; }
  AttrKind kind_ = AttrKind::Unit;
  uint32_t textLength_ = 0;
  uint32_t listLength_ = 0;
  const char *text_ = nullptr;
  const void *list_ = nullptr;  // Attribute *const[] or NamedAttr[] depending on the kind
  union {
    int64_t int_ = 0;
    double float_;
    Value *value_;
  };
  Type *type_ = nullptr;
};

// Creates attributes in a module's arena.
class AttrBuilder {
public:
  explicit AttrBuilder(Arena &arena) : arena_(arena) {}
  Attribute *integer(int64_t v);
  Attribute *floating(double v);
  Attribute *string(std::string_view s);
  Attribute *boolean(bool v);
  Attribute *unit();
  Attribute *ident(std::string_view s);
  Attribute *flags(const std::vector<Attribute *> &idents);
  Attribute *symbol(std::string_view s);
  Attribute *hash(std::string_view name, const std::vector<NamedAttr> &params, bool hasParams);
  Attribute *array(const std::vector<Attribute *> &elements);
  Attribute *dict(const std::vector<NamedAttr> &entries);
  Attribute *valueRef(Value *v, Type *t);
  Attribute *typeRef(Type *t);
  Attribute *predicate(std::string_view name, const std::vector<Attribute *> &args);

private:
  Attribute *make(AttrKind kind);
  void setText(Attribute *a, std::string_view s);
  template <typename T> void setList(Attribute *a, const std::vector<T> &items);
  Arena &arena_;
  Attribute *smallIntegers_[64] = {};  // 0..63 are shared: index lists and constants repeat them
  Attribute *unit_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Values, operations, blocks, regions
// ---------------------------------------------------------------------------------------------

class Value {
public:
  Type *type() const { return type_; }
  void setType(Type *t) { type_ = t; }
  std::string_view name() const { return name_; }  // authored name without '%'
  bool isBlockArgument() const { return ownerBlock_ != nullptr; }
  Operation *definingOp() const { return ownerOp_; }
  Block *ownerBlock() const { return ownerBlock_; }
  unsigned index() const { return index_; }  // result number or argument number
  diag::SourceRange loc() const { return loc_; }

private:
  friend class Operation;
  friend class Block;
  friend class IRBuilder;
  Type *type_ = nullptr;
  std::string_view name_;
  Operation *ownerOp_ = nullptr;
  Block *ownerBlock_ = nullptr;
  unsigned index_ = 0;
  diag::SourceRange loc_;
};

// A branch target: the block plus the range of the op's operands passed as block arguments.
struct Successor {
  Block *block = nullptr;
  uint32_t firstOperand = 0;
  uint32_t operandCount = 0;
};

class Region {
public:
  Operation *parentOp() const { return parent_; }
  std::span<Block *const> blocks() const { return blocks_; }
  Block *entryBlock() const { return blocks_.empty() ? nullptr : blocks_.front(); }
  bool empty() const { return blocks_.empty(); }

private:
  friend class IRBuilder;
  Operation *parent_ = nullptr;
  std::span<Block *const> blocks_;
};

class Block {
public:
  Region *parentRegion() const { return parent_; }
  Operation *parentOp() const;
  std::string_view label() const { return label_; }  // without '^'; empty for an unlabeled entry
  std::span<Value *const> arguments() const { return args_; }
  Value *argument(unsigned i) const { return args_[i]; }
  Operation *front() const { return first_; }
  Operation *back() const { return last_; }
  Operation *terminator() const;  // the last op if it is a terminator, else null
  bool empty() const { return first_ == nullptr; }
  std::span<const std::string_view> leadingComments() const { return comments_; }
  // Comments after the last op of the block (before the closing brace).
  std::span<const std::string_view> trailingComments() const { return trailing_; }
  diag::SourceRange loc() const { return loc_; }

  // Iteration: for (Operation &op : block) ...
  class iterator {
  public:
    explicit iterator(Operation *op) : op_(op) {}
    Operation &operator*() const { return *op_; }
    Operation *operator->() const { return op_; }
    iterator &operator++();
    bool operator==(const iterator &o) const { return op_ == o.op_; }

  private:
    Operation *op_;
  };
  iterator begin() const { return iterator(first_); }
  iterator end() const { return iterator(nullptr); }

private:
  friend class IRBuilder;
  Region *parent_ = nullptr;
  std::string_view label_;
  std::span<Value *const> args_;
  Operation *first_ = nullptr;
  Operation *last_ = nullptr;
  std::span<const std::string_view> comments_;
  std::span<const std::string_view> trailing_;
  diag::SourceRange loc_;
};

// Op identifiers, one per row of Ops.def; Opaque marks an op parsed without a definition.
enum class OpCode : uint16_t {
#define HRX_LOOM_OP(ID, NAME, FORMAT, RESULTS, CLASS, TEMPLATE, HOOK, FLAGS) ID,
#include "hrx/loom/Ops.def"
#undef HRX_LOOM_OP
  Opaque,
};

// The target records `target(@t)` may name (one list for the verifier and the bridge).
inline constexpr std::initializer_list<OpCode> kTargetRecordOps = {
    OpCode::Aie2pTarget, OpCode::AmdgpuTarget, OpCode::TargetGeneric, OpCode::TargetDecl, OpCode::VmTarget,
    OpCode::X86Target,   OpCode::WasmTarget,   OpCode::LlvmirTarget,  OpCode::TestTarget};
inline bool isTargetRecord(OpCode code) {
  for (OpCode c : kTargetRecordOps)
    if (c == code) return true;
  return false;
}

class Operation {
public:
  OpCode opcode() const { return opcode_; }
  const OpDef *def() const { return def_; }  // null for opaque ops
  bool isOpaque() const { return def_ == nullptr; }
  std::string_view name() const { return {name_, nameLength_}; }
  diag::SourceRange loc() const { return {{file_, begin_}, {file_, end_}}; }
  Block *parentBlock() const { return block_; }
  Operation *parentOp() const;
  Operation *nextInBlock() const { return next_; }
  Operation *prevInBlock() const { return prev_; }

  std::span<Value *const> operands() const { return {operands_, count_[kOperands]}; }
  Value *operand(unsigned i) const { return operands_[i]; }
  size_t numOperands() const { return count_[kOperands]; }
  // The operands of one named operand group of the op's format ("lhs", "indices", "inits").
  std::span<Value *const> operandGroup(std::string_view name) const;
  Value *operandNamed(std::string_view name) const;  // first operand of the group, or null

  std::span<Value> results() const { return {results_, count_[kResults]}; }
  Value *result(unsigned i) const { return &results_[i]; }
  size_t numResults() const { return count_[kResults]; }

  std::span<Attribute *const> templateParams() const { return {template_, count_[kTemplate]}; }
  Attribute *templateParam(unsigned i = 0) const { return i < count_[kTemplate] ? template_[i] : nullptr; }
  // Format attributes (value, predicate, callee, sym_name, ...) and the `{...}` dictionary.
  std::span<const NamedAttr> attributes() const { return {attrs_, count_[kAttrs]}; }
  Attribute *attr(std::string_view name) const;
  bool hasAttr(std::string_view name) const { return attr(name) != nullptr; }
  std::string_view symbolName() const;  // sym_name without '@', or empty

  std::span<const Successor> successors() const { return {successors_, count_[kSuccessors]}; }
  std::span<Value *const> successorOperands(unsigned i) const {
    const Successor &s = successors_[i];
    return operands().subspan(s.firstOperand, s.operandCount);
  }

  std::span<Region> regions() const { return {regions_, count_[kRegions]}; }
  Region *region(unsigned i) const { return &regions_[i]; }
  size_t numRegions() const { return count_[kRegions]; }

  std::span<const std::string_view> leadingComments() const { return {comments_, count_[kComments]}; }
  bool blankLineBefore() const { return blankLineBefore_; }

  // Opaque ops keep their canonicalized text around their regions: segment i precedes region i,
  // the last segment follows the last region.
  std::span<const std::string_view> opaqueText() const { return {opaqueText_, count_[kOpaqueText]}; }

  // Walks this op and every nested op in pre-order.
  template <typename Fn> void walk(Fn &&fn);
  template <typename Fn> void walk(Fn &&fn) const { const_cast<Operation *>(this)->walk(fn); }

  // Internal: directive operand-segment sizes and optional-group presence (set by the parser).
  std::span<const uint32_t> segments() const { return {segments_, count_[kSegments]}; }
  uint64_t presentGroups() const { return groups_; }
  bool implicitTerminator() const { return implicit_; }

private:
  friend class IRBuilder;
  friend class Block;
  // Laid out compactly: a module holds one of these per op.
  const OpDef *def_ = nullptr;
  const char *name_ = nullptr;
  uint32_t nameLength_ = 0;
  uint32_t file_ = 0, begin_ = 0, end_ = 0;
  OpCode opcode_ = OpCode::Opaque;
  bool blankLineBefore_ = false;
  bool implicit_ = false;
  Block *block_ = nullptr;
  Operation *prev_ = nullptr;
  Operation *next_ = nullptr;
  Value *const *operands_ = nullptr;
  Value *results_ = nullptr;
  Attribute *const *template_ = nullptr;
  const NamedAttr *attrs_ = nullptr;
  const Successor *successors_ = nullptr;
  Region *regions_ = nullptr;
  const std::string_view *comments_ = nullptr;
  const std::string_view *opaqueText_ = nullptr;
  const uint32_t *segments_ = nullptr;
  uint64_t groups_ = 0;
  enum { kOperands, kResults, kTemplate, kAttrs, kSuccessors, kRegions, kComments, kOpaqueText, kSegments, kNumCounts };
  uint32_t count_[kNumCounts] = {};
};

inline Block::iterator &Block::iterator::operator++() {
  op_ = op_->nextInBlock();
  return *this;
}

template <typename Fn> void Operation::walk(Fn &&fn) {
  fn(*this);
  for (Region &r : regions())
    for (Block *b : r.blocks())
      for (Operation &op : *b) op.walk(fn);
}

// Assembles IR objects in a module's arena (used by the parser; usable by tests and tools).
class IRBuilder {
public:
  explicit IRBuilder(Module &module);
  Operation *createOp(OpCode opcode, const OpDef *def, std::string_view name, diag::SourceRange loc, size_t numResults,
                      size_t numRegions);
  void setOperands(Operation *op, const std::vector<Value *> &operands);
  void setResultNames(Operation *op, std::span<const std::string_view> names, std::span<const diag::SourceRange> locs);
  void setTemplate(Operation *op, const std::vector<Attribute *> &params);
  void setAttributes(Operation *op, const std::vector<NamedAttr> &attrs);
  void setSuccessors(Operation *op, const std::vector<Successor> &succs);
  void setSegments(Operation *op, const std::vector<uint32_t> &segments, uint64_t groups);
  void setComments(Operation *op, const std::vector<std::string_view> &comments, bool blankLine);
  void setOpaqueText(Operation *op, const std::vector<std::string_view> &text);
  void setImplicitTerminator(Operation *op) { op->implicit_ = true; }
  Block *createBlock(std::string_view label, diag::SourceRange loc);
  // Block arguments are created one at a time (a signature's later types may name earlier
  // arguments) and attached together.
  Value *createArgument(std::string_view name, Type *type, diag::SourceRange loc);
  void setBlockArguments(Block *block, const std::vector<Value *> &args);
  void setBlockComments(Block *block, const std::vector<std::string_view> &leading,
                        const std::vector<std::string_view> &trailing);
  void setRegionBlocks(Operation *op, unsigned region, const std::vector<Block *> &blocks);
  // Ops with a variable number of regions (scf.switch's cases): before the regions are set.
  void setRegionCount(Operation *op, size_t count);
  void append(Block *block, Operation *op);

private:
  Arena &arena_;
};

// ---------------------------------------------------------------------------------------------
// Module
// ---------------------------------------------------------------------------------------------

class Module {
public:
  Module(uint32_t file);
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  Arena &arena() { return arena_; }
  TypeContext &types() { return types_; }
  const TypeContext &types() const { return types_; }
  AttrBuilder &attrs() { return attrs_; }
  uint32_t file() const { return file_; }

  // The top-level ops, in source order.
  Block &body() { return *body_; }
  const Block &body() const { return *body_; }
  // The top-level op defining @name (the first one if duplicated), or null.
  Operation *lookupSymbol(std::string_view name) const;
  void addSymbol(std::string_view name, Operation *op) { symbols_.emplace(name, op); }
  size_t bytesAllocated() const { return arena_.bytesAllocated(); }

private:
  Arena arena_;
  TypeContext types_;
  AttrBuilder attrs_;
  uint32_t file_;
  Block *body_;
  std::unordered_map<std::string_view, Operation *> symbols_;
};

// ---------------------------------------------------------------------------------------------
// The op definition table (Ops.def) as seen by clients
// ---------------------------------------------------------------------------------------------

// Returns the definition of a registered op name, or null.
const OpDef *lookupOpDef(std::string_view name);
const OpDef &opDef(OpCode code);
std::string_view opName(OpCode code);
// All rows, in table order.
std::span<const OpDef *const> allOpDefs();

// Static properties of a row, queried by the verifier and the bridge.
bool isTerminator(const Operation &op);
bool isSymbolOp(const Operation &op);  // may appear at module level
bool isIsolatedFromAbove(const Operation &op);

// The `where [...]`/`[...]` predicates an op states (`range(%v, 1, 4)`, `le(%n, %c)`), in order.
std::vector<const Attribute *> predicatesOf(const Operation &op);

}  // namespace hrx::loom
