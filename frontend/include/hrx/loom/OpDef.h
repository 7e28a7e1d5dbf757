// One row of the op definition table (Ops.def), compiled once into directives that drive both
// the parser and the printer, plus the static properties the verifier checks.
#pragma once

#include "hrx/loom/IR.h"

#include <string_view>
#include <vector>

namespace hrx::loom {

// The type family an op's principal type slot must belong to.
enum class TypeClass : uint8_t {
  Any,
  Address,
  Index,
  Int,
  Float,
  Scalar,
  Buffer,
  IntVector,
  FloatVector,
  AnyVector,
};

// Op-specific checks beyond the generic ones (Verifier.cpp implements each).
enum class VerifyHook : uint8_t {
  None,
  ConfigDef,
  Function,
  IndexScale,
  IndexCast,
  Assume,
  Constant,
  ExtendInt,
  TruncateInt,
  ExtendFloat,
  TruncateFloat,
  IntToFloat,
  FloatToInt,
  Bitcast,
  VectorLoad,
  VectorStore,
  Splat,
  Iota,
  MaskRange,
  VectorCompare,
  VectorSelect,
  Reduce,
  Dot,
  Fragment,
  Mma,
  Encode,
  BufferView,
  Alloca,
  SameCount,
  BufferOperand,
  ViewAccess,
  Subview,
  For,
  If,
  Yield,
  Select,
  Branch,
  Call,
  Return,
  LaunchConfig,
  GroupCreate,
  FlowSource,
  FlowStage,
  FlowBuffer,
  FlowFold,
  FlowReduce,
  FlowWrite,
  ConfigGet,
  EncodingDefine,
  Provider,
  Bitfield,
  VectorExtract,
  VectorInsert,
  FromElements,
  Broadcast,
  While,
  Condition,
  Apply,
  LowInvoke,
  Low,  // low.* kept as text (frontend/loom/verify/Low.cpp)
  TestFact,
  Exchange,
  Scatter,
  Refine,
  LayoutValue,
  ReduceAxes,
  VectorShape,
  SanitizerAccess,
  SanitizerSync,
  SanitizerFacts,
  SanitizerLayout,
  KernelLaunch,
  // The check dialect (frontend/loom/verify/Check.cpp).
  CheckDefinition,
  CheckBenchmark,
  CheckBodyOp,
  CheckLiteral,
  CheckExpect,
  Global,
  Switch,
  BufferBytes,
  EncodingQuery,
  CommandProgram,
  FuncRef,
  KernelAsync,
  LaneCollective,
  VectorGather,
  Bitpack,
  ViewPrefetch,
  // The strand form and channels (frontend/loom/verify/Pipeline.cpp).
  PipelineStrand,
  PipelineMemory,
  PipelineCompose,
  Channel,
};

namespace opflag {
enum : uint32_t {
  Term = 1u << 0,           // ends its block
  Symbol = 1u << 1,         // defines a module-level symbol
  Isolated = 1u << 2,       // bodies see no enclosing SSA values
  InKernel = 1u << 3,       // needs a kernel.def ancestor
  InPipeline = 1u << 4,     // needs a pipeline.def ancestor
  ImplicitYield = 1u << 5,  // resultless regions may omit their scf.yield
  TextBody = 1u << 6,       // a known op of a dialect kept as text (parsed for structure, printed
                            // back as written, verified only by its hook): low.* machine code,
                            // command programs, check programs, module imports
};
}  // namespace opflag

// A compiled format directive (see the grammar at the top of Ops.def).
struct Directive {
  enum Kind : uint8_t {
    Literal,
    Operand,
    IndexList,
    Symbol,
    Attr,
    OptKeyword,
    Template,
    AttrDict,
    GroupBegin,
    GroupEnd,
    TypeSlot,
    Region,
    Signature,
    FnResults,
    IterArgs,
    InductionVar,
    Successors,
    ConfigType,
    GlobalType,    // ^globaltype: a global's type, naming its own dimensions (region 0's arguments)
    CoResultType,  // ^coresulttype: a loaded type whose dimensions are the op's later results
    SwitchCases,   // ^cases: `{ case K {...} ... default {...} }`, one region per case (case_keys)
    LookupTable,   // ^table: `{ K = (%v, ...), ... } default(%v, ...)` (case_keys, operand group table)
    PackRanges,    // ^packranges: `[align(16) %a, %b]` (byte_lengths, minimum_alignments; 0 = natural)
  };
  enum Arity : uint8_t { One, Many, AtLeastOne };
  Kind kind = Literal;
  Arity arity = One;
  bool optional = false;      // Template <>?, Attr $x?:k
  bool bare = false;          // AttrDict {bare}
  std::string_view text;      // literal text, name, attribute kind
  std::string_view attrKind;  // Attr: int, number, string, ident, attr, hash, preds, type, enum
  unsigned index = 0;         // Region/Signature region index; GroupBegin: group number
  unsigned groupEnd = 0;      // GroupBegin: index of the matching GroupEnd
  int segment = -1;           // Operand/IndexList/IterArgs/Successors: operand segment number
  struct Binding {
    std::string_view name;  // operand group or result ("r")
    bool elementwise = false;
  };
  std::vector<Binding> bindings;  // TypeSlot
};

struct OpDef {
  OpCode code;
  std::string_view name;
  std::string_view format;
  std::string_view results;  // "", "r", "r*", "r:i1", "r:offset", "r:index"
  TypeClass typeClass;
  std::string_view templateKind;
  VerifyHook hook;
  uint32_t flags;
  // Compiled from `format`.
  std::vector<Directive> directives;
  std::vector<std::string_view> segmentNames;  // operand segment i's name
  unsigned numRegions = 0;
  unsigned numGroups = 0;

  bool has(uint32_t flag) const { return (flags & flag) != 0; }
  int segmentIndex(std::string_view name) const;
};

// The enumeration behind a template kind or an enum attribute kind; empty when free-form.
std::span<const std::string_view> enumCases(std::string_view kind);
// True when `t` belongs to the type family `c`.
bool typeInClass(const Type *t, TypeClass c);
// True when `kind` names a flag set whose cases may be joined with '|'.
bool isFlagSet(std::string_view kind);

}  // namespace hrx::loom
