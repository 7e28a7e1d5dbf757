#include "hrx/xdna/PipelineExtract.h"

#include "hrx/bridge/IrQueries.h"

#include <map>
#include <set>

namespace hrx::xdna {
namespace {

using diag::DiagId;
using loom::Operation;
using loom::Value;

// A flow value and where its records come from, until an op consumes it.
struct FlowSource {
  FlowEnd end;
  uint32_t group = 0;  // the lanes the records are on
  std::string recordType;
  uint32_t recordBytes = 0;
  uint32_t capacity = 2;
  uint32_t recordsPerLane = 1;
  diag::SourceRange loc;
  diag::SourceRange capacityLoc;
  bool consumed = false;
};

// A pipeline written in the strand form: `run(...)` arguments, or strands, pools, compositions or
// channels in its body.
bool isStrandForm(const Operation &pipeline) {
  const loom::Attribute *form = pipeline.attr("form");
  bool strand = form && form->str() == "run";
  pipeline.walk([&](const Operation &op) {
    switch (op.opcode()) {
    case loom::OpCode::PipelineStrand:
    case loom::OpCode::PipelineMemory:
    case loom::OpCode::PipelineCompose:
    case loom::OpCode::ChannelBind:
    case loom::OpCode::ChannelReserve:
    case loom::OpCode::ChannelAccept:
    case loom::OpCode::ChannelWait:
    case loom::OpCode::ChannelAcquire:
    case loom::OpCode::ChannelPublish:
    case loom::OpCode::ChannelRelease:
    case loom::OpCode::ChannelFanout:
    case loom::OpCode::ChannelCopy:
    case loom::OpCode::ChannelSelect: strand = true; break;
    default: break;
    }
  });
  return strand;
}

class Extractor {
public:
  Extractor(const bridge::Program &program, const Operation &pipeline, const bridge::KernelContract &contract,
            diag::DiagnosticEngine &diags)
      : program_(program), pipeline_(pipeline), contract_(contract), diags_(diags) {}

  std::optional<PipelineGraph> run();

private:
  bool unsupported(diag::SourceRange at, std::string construct) {
    diags_.report(DiagId::XdnaUnsupportedConstruct, at).arg("construct", std::move(construct));
    return false;
  }
  std::optional<int64_t> evaluate(const Value *v) const { return program_.evaluateInteger(v); }
  // XDNA/011 for a dimension written with `value` that does not fold, naming it, with a note
  // where it is defined.
  void notConstant(diag::SourceRange at, std::string_view construct, std::string_view extent, const Value &value) {
    std::string name = value.name().empty() ? "an SSA value" : "%" + std::string(value.name());
    diags_.report(DiagId::XdnaUnsupportedConstruct, at)
        .arg("construct", std::string(construct) + " " + name + " is not a compile-time constant")
        .note(value.loc(), name + " is defined here; " + std::string(extent) +
                               " must fold (index.constant, config.get, index arithmetic on those)");
  }
  bool group(const Operation &op);
  bool source(const Operation &op, bool scatter);
  bool buffer(const Operation &op);
  bool stage(const Operation &op, bool reduce);
  bool write(const Operation &op);

  // The launch binding and byte offset behind a view, with its evaluated shape.
  struct ViewInfo {
    uint32_t binding = 0;
    uint64_t byteOffset = 0;
    std::vector<uint64_t> shape;
    uint32_t elementBytes = 0;
  };
  std::optional<ViewInfo> view(const Value *value, diag::SourceRange at);
  // A flow's record: its tile extents folded, its byte size and its type as the notes print it.
  struct TileShape {
    std::vector<uint64_t> extents;
    uint32_t bytes = 0;
    std::string type;
  };
  std::optional<TileShape> tileShape(const loom::Type *flowType, diag::SourceRange at);
  FlowSource *take(const Value *flow, diag::SourceRange at);
  void add(const Value *flow, FlowSource source) {
    flows_[flow] = std::move(source);
    flowOrder_.push_back(flow);
  }
  void connect(FlowSource &from, FlowEnd to, LaneMap map, diag::SourceRange at);
  uint32_t groupOf(const Value *g) const;

  const bridge::Program &program_;
  const Operation &pipeline_;
  const bridge::KernelContract &contract_;
  diag::DiagnosticEngine &diags_;
  PipelineGraph graph_;
  std::map<const Value *, uint32_t> bindingOf_;  // launch buffer argument -> binding index
  std::map<const Value *, uint32_t> groups_;
  std::map<const Value *, FlowSource> flows_;
  std::vector<const Value *> flowOrder_;  // flows_ keys in program order
  std::set<const Value *> failed_;        // results of ops that reported an error
  std::map<uint32_t, uint32_t> workerOfGroup_;
  enum : uint8_t { kRead = 1, kWrite = 2 };
  std::vector<uint8_t> access_;  // per binding, from the ops that use it
};

std::optional<PipelineGraph> Extractor::run() {
  graph_.name = std::string(pipeline_.symbolName());
  graph_.loc = pipeline_.loc();
  const loom::Attribute *scope = pipeline_.templateParam();
  if (scope && !scope->isIdent("kernel")) {
    unsupported(pipeline_.loc(),
                "a pipeline.def<" + std::string(scope->str()) + "> (only <kernel> becomes an NPU entry)");
    return std::nullopt;
  }
  if (isStrandForm(pipeline_)) {
    diags_.report(DiagId::XdnaUnsupportedConstruct, pipeline_.loc())
        .arg("construct", "the strand-form pipeline '@" + graph_.name +
                              "' (pipeline.def ... run(...) with pipeline.strand, pipeline.memory, "
                              "pipeline.compose and channel.*)")
        .note(pipeline_.loc(), "the planner takes flow-form pipelines (pipeline.def ... launch(...) with "
                               "group.create and pipeline.read/scatter/stage/buffer/reduce/write)");
    return std::nullopt;
  }
  uint32_t position = 0;
  for (const Value *argument : bridge::ir::signatureValues(pipeline_, 0)) {
    const Value &arg = *argument;
    if (arg.type()->kind() != loom::TypeKind::Buffer) continue;
    const bridge::BindingContract *c = position < contract_.bindings.size() ? &contract_.bindings[position] : nullptr;
    GraphBinding b;
    b.name = "%" + std::string(arg.name());
    b.used = c && c->used;
    b.bytes = c ? c->bytes : 0;
    b.loc = arg.loc();
    bindingOf_[&arg] = position++;
    graph_.bindings.push_back(std::move(b));
    access_.push_back(0);
  }
  bool ok = true;
  // hrx-product §1.4: an NPU launch list holds only used buffers (the runtime's contract
  // check has no slot for an unused one).
  for (const GraphBinding &b : graph_.bindings)
    if (!b.used) {
      diags_.report(DiagId::XdnaUnsupportedConstruct, b.loc)
          .arg("construct", "an unused launch buffer (" + b.name + ")")
          .note(pipeline_.loc(), "an NPU launch list holds only the buffers the pipeline uses; remove it");
      ok = false;
    }
  const loom::Region *body = pipeline_.numRegions() ? pipeline_.region(0) : nullptr;
  if (!body || !body->entryBlock()) return std::nullopt;
  for (const Operation &op : *body->entryBlock()) {
    std::string_view n = op.name();
    bool opOk = true;
    if (n == "group.create")
      opOk = group(op);
    else if (n == "pipeline.read" || n == "pipeline.scatter")
      opOk = source(op, n == "pipeline.scatter");
    else if (n == "pipeline.buffer")
      opOk = buffer(op);
    else if (n == "pipeline.stage" || n == "pipeline.reduce")
      opOk = stage(op, n == "pipeline.reduce");
    else if (n == "pipeline.write")
      opOk = write(op);
    else if (n == "pipeline.fold")
      opOk = unsupported(op.loc(), "pipeline.fold (it needs a fused worker entry, which the host code does not "
                                   "generate yet)");
    else if (n == "pipeline.return" || op.opcode() == loom::OpCode::PipelineFinish || n.starts_with("index.") ||
             n.starts_with("buffer.") || n.starts_with("config.") || n.starts_with("view.subview"))
      continue;  // terminator and address arithmetic, folded through evaluateInteger
    else
      opOk = unsupported(op.loc(), "'" + std::string(n) + "' in a pipeline body");
    // The results of an op already reported stand for nothing; their consumers stay quiet.
    if (!opOk)
      for (const Value &result : op.results()) failed_.insert(&result);
    ok &= opOk;
    if (diags_.stopped()) return std::nullopt;
  }
  for (const Value *value : flowOrder_)
    if (!flows_.at(value).consumed && ok)
      ok = unsupported(flows_.at(value).loc, "a flow that is never written or consumed");
  if (!ok) return std::nullopt;
  for (size_t b = 0; b < graph_.bindings.size(); ++b)
    graph_.bindings[b].access = access_[b] == (kRead | kWrite) ? PlanAccess::ReadWrite
                                : access_[b] == kWrite         ? PlanAccess::Write
                                                               : PlanAccess::Read;
  return std::move(graph_);
}

uint32_t Extractor::groupOf(const Value *g) const {
  auto it = groups_.find(g);
  return it == groups_.end() ? UINT32_MAX : it->second;
}

bool Extractor::group(const Operation &op) {
  std::optional<int64_t> lanes = evaluate(op.operand(0));
  if (!lanes || *lanes < 1 || *lanes > int64_t(UINT32_MAX))
    return unsupported(op.loc(), "a group whose lane count is not a positive specialization constant");
  groups_[op.result(0)] = uint32_t(graph_.groups.size());
  graph_.groups.push_back({uint32_t(*lanes), op.loc()});
  return true;
}

std::optional<Extractor::ViewInfo> Extractor::view(const Value *value, diag::SourceRange at) {
  const Operation *def = value->definingOp();
  if (!def || def->opcode() != loom::OpCode::BufferView) {
    unsupported(at, "a pipeline view that is not a buffer.view of a launch buffer");
    return std::nullopt;
  }
  const Value *root = def->operand(0);
  while (root->definingOp() && bridge::ir::isBufferAssume(*root->definingOp()))
    root = root->definingOp()->operand(root->index());
  auto binding = bindingOf_.find(root);
  std::optional<int64_t> offset = evaluate(def->operand(1));
  if (binding == bindingOf_.end() || !offset || *offset < 0) {
    unsupported(at, "a pipeline view whose buffer or byte offset is not fixed by the specialization");
    return std::nullopt;
  }
  ViewInfo info;
  info.binding = binding->second;
  info.byteOffset = uint64_t(*offset);
  const loom::Type &type = *def->result(0)->type();
  info.elementBytes = uint32_t(bridge::ir::elementBytes(*type.elementType()));
  for (const loom::Dim &d : type.shape()) {
    std::optional<int64_t> extent = d.isStatic() ? std::optional<int64_t>(d.extent) : evaluate(d.dynamic);
    if (!extent) {
      notConstant(at, "a pipeline view whose dimension", "a view extent", *d.dynamic);
      return std::nullopt;
    }
    if (*extent < 0) {
      unsupported(at, "a pipeline view extent of " + std::to_string(*extent));
      return std::nullopt;
    }
    info.shape.push_back(uint64_t(*extent));
  }
  return info;
}

// The tile of a flow type with each extent folded: a dimension written as an SSA value that
// the specialization makes constant (index.constant, config.get, index arithmetic) counts as
// the static extent.
std::optional<Extractor::TileShape> Extractor::tileShape(const loom::Type *flowType, diag::SourceRange at) {
  const loom::Type *tile = flowType ? flowType->elementType() : nullptr;
  if (!tile || !tile->elementType()) {
    unsupported(at, "a flow record without a tile type");
    return std::nullopt;
  }
  TileShape shape;
  uint64_t count = 1;
  std::string dims;
  for (const loom::Dim &d : tile->shape()) {
    std::optional<int64_t> extent = d.isStatic() ? std::optional<int64_t>(d.extent) : evaluate(d.dynamic);
    if (!extent) {
      notConstant(at, "a flow record whose tile dimension", "a tile extent", *d.dynamic);
      return std::nullopt;
    }
    if (*extent <= 0) {
      unsupported(at, "a flow record with a tile extent of " + std::to_string(*extent));
      return std::nullopt;
    }
    count *= uint64_t(*extent);
    if (count > UINT32_MAX) break;
    shape.extents.push_back(uint64_t(*extent));
    dims += std::to_string(*extent) + "x";
  }
  uint64_t bytes = count * bridge::ir::elementBytes(*tile->elementType());
  if (bytes == 0 || bytes > UINT32_MAX) {
    unsupported(at, "a flow record of " + std::to_string(bytes) + " bytes");
    return std::nullopt;
  }
  shape.bytes = uint32_t(bytes);
  shape.type = tile->hasStaticShape() ? tile->str() : "tile<" + dims + tile->elementType()->str() + ">";
  return shape;
}

// read: every lane gets view[temporal..., tile]; scatter: view[lane, temporal..., tile].
bool Extractor::source(const Operation &op, bool scatter) {
  uint32_t g = groupOf(op.operand(1));
  if (g == UINT32_MAX) return unsupported(op.loc(), "a flow on a value that is not a group.create");
  std::optional<ViewInfo> v = view(op.operand(0), op.loc());
  std::optional<TileShape> tile = tileShape(op.result(0)->type(), op.loc());
  if (!v || !tile) return false;
  const uint32_t *record = &tile->bytes;
  size_t tileRank = tile->extents.size();
  size_t leading = v->shape.size() >= tileRank ? v->shape.size() - tileRank : 0;
  uint64_t records = 1;
  for (size_t i = scatter ? 1 : 0; i < leading; ++i) records *= v->shape[i];
  if (records > UINT32_MAX) return unsupported(op.loc(), "a flow of more than 2^32 records");
  access_[v->binding] |= kRead;
  BindingWalk walk;
  walk.byteOffset = v->byteOffset;
  walk.laneBytes = scatter ? records * *record : 0;
  walk.runBytes = *record;
  walk.recordStride = *record;
  walk.recordCount = uint32_t(records);
  FlowSource s;
  s.end = FlowEnd::binding(v->binding, walk);
  s.group = g;
  s.recordType = tile->type;
  s.recordBytes = *record;
  s.recordsPerLane = uint32_t(records);
  s.loc = op.loc();
  add(op.result(0), std::move(s));
  return true;
}

FlowSource *Extractor::take(const Value *flow, diag::SourceRange at) {
  auto it = flows_.find(flow);
  if (it == flows_.end()) {
    if (failed_.count(flow)) return nullptr;
    unsupported(at, "a flow operand that no pipeline op produced");
    return nullptr;
  }
  if (it->second.consumed) {
    unsupported(at, "a flow with several consumers (NPU channels have one)");
    return nullptr;
  }
  it->second.consumed = true;
  return &it->second;
}

bool Extractor::buffer(const Operation &op) {
  FlowSource *s = take(op.operand(0), op.loc());
  std::optional<int64_t> capacity = evaluate(op.operand(1));
  if (!s) return false;
  if (!capacity || *capacity < 1 || *capacity > int64_t(UINT32_MAX))
    return unsupported(op.loc(), "a pipeline.buffer capacity that is not a positive specialization constant");
  FlowSource raised = *s;
  raised.consumed = false;
  raised.capacity = std::max(raised.capacity, uint32_t(*capacity));
  raised.capacityLoc = op.loc();
  add(op.result(0), std::move(raised));
  return true;
}

void Extractor::connect(FlowSource &from, FlowEnd to, LaneMap map, diag::SourceRange at) {
  GraphFlow f;
  f.from = from.end;
  f.to = std::move(to);
  f.map = map;
  f.recordType = from.recordType;
  f.recordBytes = from.recordBytes;
  f.capacity = from.capacity;
  // A binding's records are blamed on the read/scatter that names it; others on the consumer.
  f.loc = from.end.kind == FlowEnd::Kind::Binding ? from.loc : at;
  f.capacityLoc = from.capacityLoc;
  graph_.flows.push_back(std::move(f));
  if (from.end.kind == FlowEnd::Kind::Worker)
    graph_.workers[from.end.index].ports[from.end.port].flow = uint32_t(graph_.flows.size() - 1);
}

// A stage (or reduce) is the worker of its group: ports are the callee's buffer arguments,
// inputs first (for reduce: one per source lane of each partial, then the target-side
// inputs), then outputs.
bool Extractor::stage(const Operation &op, bool reduce) {
  std::string callee(bridge::ir::symbolRef(op));
  uint32_t g = groupOf(op.operandNamed(reduce ? "target_group" : "group"));
  if (g == UINT32_MAX) return unsupported(op.loc(), "a stage on a value that is not a group.create");
  if (workerOfGroup_.count(g))
    return unsupported(op.loc(), "a second stage on one group (fusing stages into one worker entry is not "
                                 "generated by the host code yet)");
  uint32_t w = uint32_t(graph_.workers.size());
  workerOfGroup_[g] = w;
  GraphWorker worker;
  worker.group = g;
  worker.entry = callee;
  worker.codeBytes = estimateCodeBytes(program_, callee);
  worker.stackBytes = program_.cxxStackBytes(callee);
  worker.loc = op.loc();
  uint32_t iterations = 0;
  auto input = [&](const Value *flowValue, LaneMap map) -> bool {
    FlowSource *s = take(flowValue, op.loc());
    if (!s) return false;
    uint32_t lanes = map == LaneMap::Gather ? graph_.groups[s->group].lanes : 1;
    if (map == LaneMap::Gather && s->end.kind != FlowEnd::Kind::Worker)
      return unsupported(op.loc(), "a reduce partial that does not come from a stage");
    connect(*s, FlowEnd::worker(w, uint32_t(worker.ports.size())), map, op.loc());
    GraphPort p;  // one per source lane for a gather
    p.direction = PortDirection::Input;
    p.flow = uint32_t(graph_.flows.size() - 1);
    p.recordBytes = s->recordBytes;
    worker.ports.insert(worker.ports.end(), lanes, p);
    if (iterations && iterations != s->recordsPerLane)
      return unsupported(op.loc(), "stage inputs with different record counts (" + std::to_string(iterations) +
                                       " and " + std::to_string(s->recordsPerLane) + ")");
    iterations = s->recordsPerLane;
    return true;
  };
  if (reduce)
    for (const Value *partial : op.operandGroup("partials"))
      if (!input(partial, LaneMap::Gather)) return false;
  for (const Value *in : op.operandGroup("inputs"))
    if (!input(in, LaneMap::PerLane)) return false;
  worker.iterations = std::max<uint32_t>(iterations, 1);
  for (const Value &out : op.results()) {
    std::optional<TileShape> tile = tileShape(out.type(), op.loc());
    if (!tile) return false;
    const uint32_t *record = &tile->bytes;
    uint32_t port = uint32_t(worker.ports.size());
    GraphPort p;
    p.direction = PortDirection::Output;
    p.recordBytes = *record;
    worker.ports.push_back(p);
    FlowSource s;
    s.end = FlowEnd::worker(w, port);
    s.group = g;
    s.recordType = tile->type;
    s.recordBytes = *record;
    s.recordsPerLane = worker.iterations;
    s.loc = op.loc();
    add(&out, std::move(s));
  }
  graph_.workers.push_back(std::move(worker));
  return true;
}

// write: view = [lane axis]? x temporal x tile (loom-language §5.10 record-shape rules).
bool Extractor::write(const Operation &op) {
  FlowSource *s = take(op.operand(0), op.loc());
  std::optional<ViewInfo> v = view(op.operand(1), op.loc());
  if (!s || !v) return false;
  access_[v->binding] |= kWrite;
  uint32_t lanes = graph_.groups[s->group].lanes;
  BindingWalk walk;
  walk.byteOffset = v->byteOffset;
  walk.laneBytes = lanes > 1 ? uint64_t(s->recordsPerLane) * s->recordBytes : 0;
  walk.runBytes = s->recordBytes;
  walk.recordStride = s->recordBytes;
  walk.recordCount = s->recordsPerLane;
  connect(*s, FlowEnd::binding(v->binding, walk), LaneMap::PerLane, op.loc());
  return true;
}

}  // namespace

uint32_t estimateCodeBytes(const bridge::Program &program, std::string_view callee) {
  std::set<std::string> seen;
  std::vector<std::string> work{std::string(callee)};
  uint64_t ops = 0;
  while (!work.empty()) {
    std::string name = std::move(work.back());
    work.pop_back();
    if (!seen.insert(name).second) continue;
    const bridge::SymbolEntry *entry = program.lookup(name);
    if (!entry || !entry->op || entry->op->opcode() != loom::OpCode::FuncDef) continue;
    entry->op->walk([&](const Operation &op) {
      ++ops;
      if (op.opcode() == loom::OpCode::FuncCall) work.push_back(std::string(bridge::ir::symbolRef(op)));
    });
  }
  if (ops == 0) return 0;
  return uint32_t(std::min<uint64_t>(64 + 32 * ops, UINT32_MAX));
}

std::optional<PipelineGraph> extractPipelineGraph(const bridge::Program &program, const loom::Operation &pipeline,
                                                  const bridge::KernelContract &contract,
                                                  diag::DiagnosticEngine &diags) {
  return Extractor(program, pipeline, contract, diags).run();
}

}  // namespace hrx::xdna
