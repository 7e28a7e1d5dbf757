#include "hrx/xdna/Planner.h"

#include "hrx/xdna/Npu5Model.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <tuple>

namespace hrx::xdna {
namespace {

using diag::DiagId;
using diag::SourceRange;
using format::ArrayPlan;
using format::BdPattern;
using format::BindingTransfer;
using format::DmaDirection;
using format::LockRole;
using format::PlanChannel;
using format::PlanDma;
using format::PlanLock;
using format::PlanRoute;
using format::PlanSlot;
using format::RouteKind;
using format::SwitchPort;
using format::Transport;

std::string tileText(TileCoord t) { return "(" + std::to_string(t.column) + "," + std::to_string(t.row) + ")"; }

// The shim switch south port of a DMA channel (Npu5Model: MM2S 0/1 on south slaves 3/7,
// S2MM 0/1 on south masters 2/3, the only ports aie-rt's shim mux and demux connect to DMA).
uint32_t shimMuxPort(DmaDirection direction, uint32_t channel) {
  return direction == DmaDirection::MemoryToStream ? Npu5Model::shimMm2sSouthPort(channel)
                                                   : Npu5Model::shimS2mmSouthPort(channel);
}

PortBundle opposite(PortBundle b) {
  switch (b) {
  case PortBundle::North: return PortBundle::South;
  case PortBundle::South: return PortBundle::North;
  case PortBundle::East: return PortBundle::West;
  case PortBundle::West: return PortBundle::East;
  default: return b;
  }
}

// Every resource demand on one tile, counted past the supply so diagnostics can say by how much.
struct TileUsage {
  unsigned locks = 0;
  unsigned s2mm = 0;
  unsigned mm2s = 0;
  unsigned bds = 0;
  uint32_t privateBytes = 0;
  std::array<unsigned, 9> masters{};
  std::array<unsigned, 9> slaves{};
  std::vector<uint32_t> slots;   // plan slot indices owned here, in channel order
  std::vector<uint32_t> flows;   // graph flows with slots, locks or DMA here (for notes)
  std::vector<uint32_t> routed;  // graph flows whose streams pass through the switch
};

struct TileLess {
  bool operator()(TileCoord a, TileCoord b) const { return std::pair(a.column, a.row) < std::pair(b.column, b.row); }
};

// One plan channel before resources: which flow and lane it carries and its two ends.
struct ChannelSpec {
  uint32_t flow = 0;
  uint32_t lane = 0;
  std::optional<uint32_t> senderWorker;    // plan worker index
  std::optional<uint32_t> receiverWorker;  // plan worker index
};

class ArrayPlanner {
public:
  ArrayPlanner(const PipelineGraph &graph, const PlanOptions &options, diag::DiagnosticEngine &diags)
      : graph_(graph), columns_(options.columns), diags_(diags) {}

  std::optional<ArrayPlan> run();

private:
  bool checkStructure();
  bool checkGraph();
  bool checkPorts();
  void createWorkers();
  void place();
  void createChannels();
  void allocateChannel(uint32_t channel);
  bool checkResources();
  const GraphWorker *deepestStackOn(TileCoord tile) const;
  // The data memory a tile keeps for its worker's stack: the reserve, or more for deep workers.
  uint64_t stackReserveOn(TileCoord tile) const {
    const GraphWorker *deepest = deepestStackOn(tile);
    return std::max<uint64_t>(Npu5Model::kStackReserveBytes, deepest ? deepest->stackBytes : 0);
  }

  TileCoord workerTile(uint32_t planWorker) const { return plan_.workers[planWorker].tile; }
  std::optional<TileCoord> sharedMemory(TileCoord producer, TileCoord consumer) const;
  void addSlots(uint32_t channel, TileCoord owner, std::optional<TileCoord> senderCore,
                std::optional<TileCoord> receiverCore);
  void addLockPair(uint32_t channel, TileCoord tile);
  void addComputeDma(uint32_t channel, TileCoord tile, DmaDirection direction);
  void addShimDma(uint32_t channel, uint32_t shimColumn, DmaDirection direction, const BindingTransfer &transfer);
  std::optional<uint32_t> pickShimColumn(uint32_t nearColumn, DmaDirection direction);
  void route(uint32_t channel, TileCoord from, SwitchPort source, TileCoord to, SwitchPort destination);
  SwitchPort hop(uint32_t channel, TileCoord &at, SwitchPort source, PortBundle out);
  void layoutSlots();
  BindingTransfer transferFor(const FlowEnd &end, uint32_t lane) const;
  std::optional<BdPattern> shimPattern(const BindingTransfer &transfer, uint32_t flow);
  diag::DiagnosticBuilder reportAtTile(DiagId id, std::vector<uint32_t> flows);

  const PipelineGraph &graph_;
  unsigned columns_;
  diag::DiagnosticEngine &diags_;
  ArrayPlan plan_;
  std::vector<std::optional<uint32_t>> planBinding_;  // graph binding -> plan binding
  std::vector<uint32_t> firstWorker_;                 // graph worker -> first plan worker
  std::vector<ChannelSpec> specs_;
  std::map<TileCoord, TileUsage, TileLess> usage_;
  unsigned shimDemand_[2] = {0, 0};  // by DmaDirection
  bool allocationError_ = false;     // an error reported while allocating (no plan results)
};

std::optional<ArrayPlan> ArrayPlanner::run() {
  if (!checkGraph()) return std::nullopt;
  plan_.name = graph_.name;
  plan_.columns = columns_;
  plan_.groups = uint32_t(graph_.groups.size());
  for (const GraphBinding &b : graph_.bindings) {
    if (!b.used) {
      planBinding_.push_back(std::nullopt);
      continue;
    }
    planBinding_.push_back(uint32_t(plan_.bindings.size()));
    plan_.bindings.push_back({uint32_t(planBinding_.size() - 1), b.access, b.bytes});
  }
  createWorkers();
  place();
  createChannels();
  for (uint32_t c = 0; c < plan_.channels.size(); ++c) allocateChannel(c);
  layoutSlots();
  if (!checkResources() || allocationError_) return std::nullopt;
  return std::move(plan_);
}

// Cross references inside the graph; the extractor builds them, so a failure is a malformed
// graph rather than a user error, but it is still reported instead of trusted.
bool ArrayPlanner::checkStructure() {
  std::string problem;
  auto endOk = [&](const FlowEnd &end) {
    if (end.kind == FlowEnd::Kind::Binding)
      return end.index < graph_.bindings.size() && graph_.bindings[end.index].used;
    return end.index < graph_.workers.size();
  };
  for (const GraphGroup &g : graph_.groups)
    if (g.lanes == 0) problem = "a group with no lanes";
  for (const GraphWorker &w : graph_.workers)
    if (w.group >= graph_.groups.size()) problem = "a worker of an unknown group";
  for (const GraphFlow &f : graph_.flows) {
    if (!endOk(f.from) || !endOk(f.to))
      problem = "a flow with an unknown or unused end";
    else if (f.recordBytes == 0)
      problem = "a flow of empty records";
  }
  if (problem.empty()) return true;
  diags_.report(DiagId::XdnaUnsupportedConstruct, graph_.loc)
      .arg("construct", "a malformed pipeline graph (" + problem + ")");
  return false;
}

bool ArrayPlanner::checkGraph() {
  bool ok = true;
  if (!checkStructure()) return false;
  if (!Npu5Model::isValidContextWidth(columns_)) {
    diags_.report(DiagId::XdnaColumnsOutOfRange, graph_.loc).arg("columns", (long long)columns_);
    return false;
  }
  unsigned used = 0;
  for (const GraphBinding &b : graph_.bindings) used += b.used;
  if (used > Npu5Model::kMaxBindingsPerCommand) {
    auto builder = diags_.report(DiagId::XdnaTooManyBindings, graph_.loc);
    builder.arg("name", graph_.name).arg("count", (long long)used);
    for (size_t i = Npu5Model::kMaxBindingsPerCommand; i < graph_.bindings.size(); ++i)
      if (graph_.bindings[i].used)
        builder.note(graph_.bindings[i].loc,
                     "binding " + std::to_string(i) + " (" + graph_.bindings[i].name + ") is over the limit");
    ok = false;
  }
  uint32_t needed = graph_.totalWorkers();
  uint32_t available = Npu5Model::computeTiles(columns_);
  if (needed > available) {
    unsigned fit = (needed + Npu5Model::kComputeRowsPerColumn - 1) / Npu5Model::kComputeRowsPerColumn;
    std::string hint =
        fit <= Npu5Model::kMaxContextColumns
            ? " (use --columns=" + std::to_string(fit) + ")"
            : " (the whole array has " + std::to_string(Npu5Model::computeTiles(Npu5Model::kColumns)) + ")";
    auto builder = diags_.report(DiagId::XdnaTooManyWorkers, graph_.loc);
    builder.arg("needed", (long long)needed)
        .arg("columns", (long long)columns_)
        .arg("provide", columns_ == 1 ? "column provides" : "columns provide")
        .arg("available", (long long)available)
        .arg("hint", hint);
    for (const GraphGroup &g : graph_.groups)
      builder.note(g.loc, "group of " + std::to_string(g.lanes) + " lane(s) created here");
    ok = false;
  }
  for (const GraphFlow &f : graph_.flows) {
    if (f.capacity < 1 || f.capacity > Npu5Model::kMaxLockValue) {
      diags_.report(DiagId::XdnaCapacityOutOfRange, f.capacityLoc.isValid() ? f.capacityLoc : f.loc)
          .arg("capacity", (long long)f.capacity)
          .arg("maximum", (long long)Npu5Model::kMaxLockValue);
      ok = false;
    }
    std::string unsupported;
    if (f.from.kind == FlowEnd::Kind::Binding && f.to.kind == FlowEnd::Kind::Binding)
      unsupported = "a flow from a binding straight to a binding (no stage)";
    else if (f.map == LaneMap::Gather && (f.from.kind != FlowEnd::Kind::Worker || f.to.kind != FlowEnd::Kind::Worker))
      unsupported = "a reduce whose source or target is not a worker group";
    else if (f.map == LaneMap::Gather && graph_.laneCount(f.to.index) != 1)
      unsupported = "a reduce onto a group with more than one lane";
    else if (f.map == LaneMap::PerLane && f.from.kind == FlowEnd::Kind::Worker && f.to.kind == FlowEnd::Kind::Worker &&
             graph_.laneCount(f.from.index) != graph_.laneCount(f.to.index))
      unsupported = "a flow between groups with different lane counts";
    if (!unsupported.empty()) {
      diags_.report(DiagId::XdnaUnsupportedConstruct, f.loc).arg("construct", unsupported);
      ok = false;
    }
  }
  for (const GraphWorker &w : graph_.workers) {
    if (w.codeBytes > Npu5Model::resources(TileKind::Compute).programMemoryBytes)
      diags_.report(DiagId::XdnaProgramMemoryEstimate, w.loc)
          .arg("entry", w.entry)
          .arg("needed", (long long)w.codeBytes)
          .arg("available", (long long)Npu5Model::resources(TileKind::Compute).programMemoryBytes);
  }
  return checkPorts() && ok;
}

// Every worker port is fed by exactly one flow (single-producer channels, loom-language §9.3).
bool ArrayPlanner::checkPorts() {
  bool ok = true;
  for (uint32_t w = 0; w < graph_.workers.size(); ++w) {
    const GraphWorker &worker = graph_.workers[w];
    std::vector<std::vector<uint32_t>> producers(worker.ports.size());
    for (uint32_t f = 0; f < graph_.flows.size(); ++f) {
      const GraphFlow &flow = graph_.flows[f];
      if (flow.to.kind != FlowEnd::Kind::Worker || flow.to.index != w) continue;
      bool gather = flow.map == LaneMap::Gather && flow.from.kind == FlowEnd::Kind::Worker;
      uint32_t span = gather ? graph_.laneCount(flow.from.index) : 1;
      for (uint32_t p = flow.to.port; p < flow.to.port + span; ++p) {
        if (p >= producers.size()) {
          diags_.report(DiagId::XdnaUnsupportedConstruct, flow.loc)
              .arg("construct", "a flow into port " + std::to_string(p) + " of @" + worker.entry + ", which has " +
                                    std::to_string(worker.ports.size()) + " ports");
          ok = false;
          break;
        }
        producers[p].push_back(f);
      }
    }
    for (uint32_t p = 0; p < producers.size(); ++p) {
      if (producers[p].size() <= 1) continue;
      auto builder = diags_.report(DiagId::XdnaMultiProducerChannel, graph_.flows[producers[p][1]].loc);
      builder.arg("port", (long long)p).arg("entry", worker.entry).arg("count", (long long)producers[p].size());
      for (uint32_t f : producers[p]) builder.note(graph_.flows[f].loc, "producer flow created here");
      ok = false;
    }
  }
  return ok;
}

void ArrayPlanner::createWorkers() {
  for (const GraphWorker &w : graph_.workers) {
    firstWorker_.push_back(uint32_t(plan_.workers.size()));
    for (uint32_t lane = 0; lane < graph_.groups.at(w.group).lanes; ++lane) {
      format::PlanWorker pw;
      pw.entry = w.entry;
      pw.group = w.group;
      pw.lane = lane;
      pw.codeBytes = w.codeBytes;
      pw.iterations = w.iterations;
      plan_.workers.push_back(std::move(pw));
    }
  }
}

// The memory a neighbour-memory channel between two adjacent cores lives in: the producer's
// own when the consumer reaches it, else the consumer's own when the producer reaches it.
std::optional<TileCoord> ArrayPlanner::sharedMemory(TileCoord producer, TileCoord consumer) const {
  for (TileCoord m : {producer, consumer})
    if (Npu5Model::coreWindow(producer, m) && Npu5Model::coreWindow(consumer, m)) return m;
  return std::nullopt;
}

// Greedy placement. Workers linked to placed workers go first, then those with more links.
// Each takes the free
// tile with the most neighbour-memory links to workers already placed, then the most room for
// its links not placed yet (free adjacent tiles), then the lowest column and row, so linked
// stages stack up a column (loom-language §9.1: a reducer between its two source lanes). A
// worker with no links goes to the least-used column, which spreads independent lanes and
// their shim DMA over the columns.
void ArrayPlanner::place() {
  std::vector<std::vector<uint32_t>> linked(plan_.workers.size());
  auto planWorker = [&](const FlowEnd &end, uint32_t lane) -> std::optional<uint32_t> {
    if (end.kind != FlowEnd::Kind::Worker) return std::nullopt;
    return firstWorker_[end.index] + lane;
  };
  for (const GraphFlow &f : graph_.flows) {
    uint32_t lanes =
        f.from.kind == FlowEnd::Kind::Worker ? graph_.laneCount(f.from.index) : graph_.laneCount(f.to.index);
    for (uint32_t lane = 0; lane < lanes; ++lane) {
      auto a = planWorker(f.from, lane);
      auto b = planWorker(f.to, f.map == LaneMap::Gather ? 0 : lane);
      if (a && b && *a != *b) {
        linked[*a].push_back(*b);
        linked[*b].push_back(*a);
      }
    }
  }
  for (auto &l : linked) {
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
  }
  auto index = [](TileCoord t) { return t.column * Npu5Model::kRows + t.row; };
  std::vector<bool> taken(Npu5Model::kColumns * Npu5Model::kRows, false);
  std::vector<unsigned> columnLoad(columns_, 0);
  std::vector<bool> placed(plan_.workers.size(), false);
  auto freeNeighbours = [&](TileCoord t) {
    unsigned n = 0;
    for (auto [dc, dr] : {std::pair{0, 1}, {0, -1}, {1, 0}, {-1, 0}}) {
      int c = int(t.column) + dc, r = int(t.row) + dr;
      if (c >= 0 && c < int(columns_) && r >= int(Npu5Model::kFirstComputeRow) && r < int(Npu5Model::kRows) &&
          !taken[index({uint32_t(c), uint32_t(r)})])
        ++n;
    }
    return n;
  };
  // Next worker: the one with the most links to placed workers, then the most links, then
  // the lowest index, so each connected cluster grows around its first worker.
  auto nextWorker = [&] {
    std::optional<uint32_t> best;
    std::pair<size_t, size_t> bestKey{};
    for (uint32_t w = 0; w < plan_.workers.size(); ++w) {
      if (placed[w]) continue;
      size_t placedLinks = 0;
      for (uint32_t other : linked[w]) placedLinks += placed[other];
      std::pair<size_t, size_t> key{placedLinks, linked[w].size()};
      if (!best || key > bestKey) {
        best = w;
        bestKey = key;
      }
    }
    return *best;
  };
  for (size_t step = 0; step < plan_.workers.size(); ++step) {
    uint32_t w = nextWorker();
    unsigned unplacedLinks = 0;
    for (uint32_t other : linked[w]) unplacedLinks += !placed[other];
    std::optional<TileCoord> best;
    std::pair<unsigned, unsigned> bestScore{};
    for (uint32_t c = 0; c < columns_; ++c)
      for (uint32_t r = Npu5Model::kFirstComputeRow; r < Npu5Model::kRows; ++r) {
        TileCoord t{c, r};
        if (taken[index(t)]) continue;
        unsigned adjacent = 0;
        for (uint32_t other : linked[w]) adjacent += placed[other] && sharedMemory(t, workerTile(other)).has_value();
        std::pair<unsigned, unsigned> score{adjacent, std::min(freeNeighbours(t), unplacedLinks)};
        bool better = !best || score > bestScore || (linked[w].empty() && columnLoad[c] < columnLoad[best->column]);
        if (better) {
          best = t;
          bestScore = score;
        }
      }
    plan_.workers[w].tile = *best;  // checkGraph guaranteed enough free tiles
    taken[index(*best)] = true;
    ++columnLoad[best->column];
    placed[w] = true;
  }
}

BindingTransfer ArrayPlanner::transferFor(const FlowEnd &end, uint32_t lane) const {
  const BindingWalk &walk = end.walk;
  BindingTransfer t;
  t.binding = *planBinding_.at(end.index);
  t.byteOffset = walk.byteOffset + uint64_t(lane) * walk.laneBytes;
  t.runBytes = walk.runBytes;
  t.dims = walk.dims;
  t.recordStride = walk.recordStride;
  t.recordCount = walk.recordCount;
  t.repeatCount = walk.repeatCount;
  return t;
}

void ArrayPlanner::createChannels() {
  for (uint32_t f = 0; f < graph_.flows.size(); ++f) {
    const GraphFlow &flow = graph_.flows[f];
    bool fromWorker = flow.from.kind == FlowEnd::Kind::Worker;
    uint32_t lanes = fromWorker ? graph_.laneCount(flow.from.index) : graph_.laneCount(flow.to.index);
    for (uint32_t lane = 0; lane < lanes; ++lane) {
      PlanChannel ch;
      ChannelSpec spec{f, lane, std::nullopt, std::nullopt};
      ch.recordBytes = flow.recordBytes;
      ch.capacity = flow.capacity;
      if (fromWorker) {
        spec.senderWorker = firstWorker_[flow.from.index] + lane;
        ch.sender.worker = format::WorkerEndpoint{*spec.senderWorker, flow.from.port};
      } else {
        ch.sender.binding = transferFor(flow.from, lane);
      }
      if (flow.to.kind == FlowEnd::Kind::Worker) {
        bool gather = flow.map == LaneMap::Gather;
        spec.receiverWorker = firstWorker_[flow.to.index] + (gather ? 0 : lane);
        ch.receiver.worker = format::WorkerEndpoint{*spec.receiverWorker, flow.to.port + (gather ? lane : 0)};
      } else {
        ch.receiver.binding = transferFor(flow.to, lane);
      }
      const FlowEnd &bindingEnd = fromWorker ? flow.to : flow.from;
      if (bindingEnd.kind == FlowEnd::Kind::Binding && lanes > 1 && bindingEnd.walk.laneBytes != 0)
        ch.partition = format::Partition{lane, lanes, bindingEnd.walk.laneBytes};
      if (spec.senderWorker && spec.receiverWorker &&
          sharedMemory(workerTile(*spec.senderWorker), workerTile(*spec.receiverWorker)))
        ch.transport = Transport::NeighborMemory;
      plan_.channels.push_back(std::move(ch));
      specs_.push_back(spec);
    }
  }
  // Worker ports in callee argument order, with the channels that now feed them.
  for (uint32_t gw = 0; gw < graph_.workers.size(); ++gw) {
    for (uint32_t lane = 0; lane < graph_.laneCount(gw); ++lane) {
      uint32_t pw = firstWorker_[gw] + lane;
      for (uint32_t p = 0; p < graph_.workers[gw].ports.size(); ++p) {
        const GraphPort &gp = graph_.workers[gw].ports[p];
        format::WorkerPort port;
        port.direction = gp.direction;
        port.recordBytes = gp.recordBytes;
        port.period = gp.period;
        for (uint32_t c = 0; c < plan_.channels.size(); ++c) {
          const auto &end = gp.direction == PortDirection::Output ? plan_.channels[c].sender.worker
                                                                  : plan_.channels[c].receiver.worker;
          if (end && end->worker == pw && end->port == p) port.channel = c;
        }
        plan_.workers[pw].ports.push_back(port);
        if (gp.direction == PortDirection::State) usage_[plan_.workers[pw].tile].privateBytes += gp.recordBytes;
      }
    }
  }
}

void ArrayPlanner::allocateChannel(uint32_t c) {
  const ChannelSpec &spec = specs_[c];
  const PlanChannel &ch = plan_.channels[c];
  auto noteTile = [&](TileCoord t) { usage_[t].flows.push_back(spec.flow); };
  if (ch.transport == Transport::NeighborMemory) {
    TileCoord p = workerTile(*spec.senderWorker), r = workerTile(*spec.receiverWorker);
    TileCoord owner = *sharedMemory(p, r);
    noteTile(owner);
    addSlots(c, owner, p, r);
    addLockPair(c, owner);
    return;
  }
  if (spec.senderWorker && spec.receiverWorker) {
    // Records between compute tiles that share no memory would need a DMA ring on each side,
    // which the array-plan format (one ring per channel) cannot express yet.
    TileCoord p = workerTile(*spec.senderWorker), r = workerTile(*spec.receiverWorker);
    diags_.report(DiagId::XdnaUnsupportedConstruct, graph_.flows[spec.flow].loc)
        .arg("construct", "a channel between workers on non-adjacent tiles " + tileText(p) + " and " + tileText(r) +
                              " (tile-to-tile DMA)")
        .note(graph_.loc, "placement puts linked workers side by side when it can; fewer lanes or more "
                          "columns may make room");
    allocationError_ = true;
    return;
  }
  bool inbound = !spec.senderWorker;
  TileCoord tile = workerTile(inbound ? *spec.receiverWorker : *spec.senderWorker);
  noteTile(tile);
  const BindingTransfer &transfer = inbound ? *ch.sender.binding : *ch.receiver.binding;
  DmaDirection shimDirection = inbound ? DmaDirection::MemoryToStream : DmaDirection::StreamToMemory;
  DmaDirection tileDirection = inbound ? DmaDirection::StreamToMemory : DmaDirection::MemoryToStream;
  addSlots(c, tile, inbound ? std::nullopt : std::optional(tile), inbound ? std::optional(tile) : std::nullopt);
  addLockPair(c, tile);
  addComputeDma(c, tile, tileDirection);
  uint32_t tileChannel = plan_.dmas.back().engineChannel;
  ++shimDemand_[unsigned(shimDirection)];
  std::optional<uint32_t> shimColumn = pickShimColumn(tile.column, shimDirection);
  if (!shimColumn) return;  // reported by checkResources from shimDemand_
  addShimDma(c, *shimColumn, shimDirection, transfer);
  TileCoord shim{*shimColumn, Npu5Model::kShimRow};
  uint32_t shimChannel = plan_.dmas.back().engineChannel;
  uint32_t mux = shimMuxPort(shimDirection, shimChannel);
  if (inbound) {
    plan_.routes.push_back({c, shim, RouteKind::ShimMux, {PortBundle::Dma, shimChannel}, {PortBundle::North, mux}});
    route(c, shim, {PortBundle::South, mux}, tile, {PortBundle::Dma, tileChannel});
  } else {
    route(c, tile, {PortBundle::Dma, tileChannel}, shim, {PortBundle::South, mux});
    plan_.routes.push_back({c, shim, RouteKind::ShimMux, {PortBundle::North, mux}, {PortBundle::Dma, shimChannel}});
  }
}

void ArrayPlanner::addSlots(uint32_t channel, TileCoord owner, std::optional<TileCoord> senderCore,
                            std::optional<TileCoord> receiverCore) {
  const PlanChannel &ch = plan_.channels[channel];
  for (uint32_t i = 0; i < ch.capacity; ++i) {
    PlanSlot slot;
    slot.channel = channel;
    slot.index = i;
    slot.owner = owner;
    slot.bytes = ch.recordBytes;
    // Addresses are filled in by layoutSlots once every slot of the tile is known; the
    // window of each side is kept in the optional until then.
    if (senderCore) slot.senderAddress = *Npu5Model::coreWindow(*senderCore, owner);
    if (receiverCore) slot.receiverAddress = *Npu5Model::coreWindow(*receiverCore, owner);
    usage_[owner].slots.push_back(uint32_t(plan_.slots.size()));
    plan_.slots.push_back(slot);
  }
}

void ArrayPlanner::addLockPair(uint32_t channel, TileCoord tile) {
  TileUsage &u = usage_[tile];
  plan_.locks.push_back({channel, tile, u.locks++, LockRole::Credit, plan_.channels[channel].capacity});
  plan_.locks.push_back({channel, tile, u.locks++, LockRole::Ready, 0});
}

void ArrayPlanner::addComputeDma(uint32_t channel, TileCoord tile, DmaDirection direction) {
  TileUsage &u = usage_[tile];
  PlanDma dma;
  dma.channel = channel;
  dma.tile = tile;
  dma.direction = direction;
  dma.engineChannel = direction == DmaDirection::StreamToMemory ? u.s2mm++ : u.mm2s++;
  dma.bdStart = u.bds;
  dma.bdCount = plan_.channels[channel].capacity;  // one BD per ring slot, chained in a ring
  u.bds += dma.bdCount;
  plan_.dmas.push_back(std::move(dma));
}

std::optional<uint32_t> ArrayPlanner::pickShimColumn(uint32_t nearColumn, DmaDirection direction) {
  const TileResources &shim = Npu5Model::resources(TileKind::Shim);
  unsigned supply = direction == DmaDirection::StreamToMemory ? shim.s2mmChannels : shim.mm2sChannels;
  // Nearest column first, the lower one on a tie.
  for (uint32_t distance = 0; distance < columns_; ++distance) {
    for (int sign : {-1, 1}) {
      int c = int(nearColumn) + sign * int(distance);
      if (c < 0 || c >= int(columns_) || (distance == 0 && sign == 1)) continue;
      TileUsage &u = usage_[TileCoord{uint32_t(c), Npu5Model::kShimRow}];
      unsigned used = direction == DmaDirection::StreamToMemory ? u.s2mm : u.mm2s;
      if (used < supply) return uint32_t(c);
    }
  }
  return std::nullopt;
}

void ArrayPlanner::addShimDma(uint32_t channel, uint32_t shimColumn, DmaDirection direction,
                              const BindingTransfer &transfer) {
  TileCoord tile{shimColumn, Npu5Model::kShimRow};
  TileUsage &u = usage_[tile];
  u.flows.push_back(specs_[channel].flow);
  PlanDma dma;
  dma.channel = channel;
  dma.tile = tile;
  dma.direction = direction;
  dma.engineChannel = direction == DmaDirection::StreamToMemory ? u.s2mm++ : u.mm2s++;
  dma.bdStart = u.bds;
  dma.bdCount = 1;
  u.bds += 1;
  dma.shimPattern = shimPattern(transfer, specs_[channel].flow);
  plan_.dmas.push_back(std::move(dma));
}

// Encodes a binding walk in one shim BD (npu5-hardware §2.4): d0 moves a contiguous run, the
// walk's dimensions follow, the record sequence takes the next free dimension or the iteration
// dimension, and repetitions become the task repeat count.
std::optional<BdPattern> ArrayPlanner::shimPattern(const BindingTransfer &t, uint32_t flow) {
  const BdFieldWidths &bd = Npu5Model::resources(TileKind::Shim).bd;
  BdPattern p;
  p.binding = t.binding;
  p.address = t.byteOffset;
  p.repeatCount = t.repeatCount;
  uint64_t recordBytes = uint64_t(t.runBytes);
  for (const AccessDim &d : t.dims) recordBytes *= d.size;
  auto fail = [&](std::string field, std::string needed, std::string available) {
    diags_.report(DiagId::XdnaDmaPatternUnrepresentable, graph_.flows[flow].loc)
        .arg("binding", (long long)plan_.bindings[t.binding].ordinal)
        .arg("field", std::move(field))
        .arg("needed", std::move(needed))
        .arg("tile", "shim")
        .arg("available", std::move(available));
    allocationError_ = true;
    return std::nullopt;
  };
  auto tooLarge = [&](std::string field, uint64_t needed, uint64_t available) {
    return fail(std::move(field), std::to_string(needed), std::to_string(available));
  };
  auto unaligned = [&](std::string field, uint64_t bytes) -> std::optional<BdPattern> {
    if (bytes % 4 == 0) return BdPattern{};
    return fail(std::move(field), std::to_string(bytes), "multiples of 4 bytes");
  };
  if (!unaligned("byte_offset", t.byteOffset) || !unaligned("run_bytes", t.runBytes)) return std::nullopt;
  if (t.repeatCount < 1 || t.repeatCount > Npu5Model::kMaxRepeatCount)
    return tooLarge("repeat_count", t.repeatCount, Npu5Model::kMaxRepeatCount);
  uint64_t totalWords = recordBytes / 4 * t.recordCount;
  if (totalWords > BdFieldWidths::maxOf(bd.bufferLengthBits))
    return tooLarge("buffer_length (words)", totalWords, BdFieldWidths::maxOf(bd.bufferLengthBits));
  p.lengthWords = uint32_t(totalWords);
  bool contiguous = t.dims.empty() && (t.recordCount == 1 || t.recordStride == t.runBytes);
  if (contiguous) return p;
  // d0: the run (split in two when it is longer than a wrap); then the walk's dims; then the
  // record dimension.
  uint32_t runWords = t.runBytes / 4, d0 = runWords;
  uint64_t maxWrap = BdFieldWidths::maxOf(bd.wrapBits);
  while (d0 > maxWrap || runWords % d0 != 0) --d0;
  std::vector<AccessDim> dims{{d0, 4}};
  if (d0 != runWords) dims.push_back({runWords / d0, uint64_t(d0) * 4});
  dims.insert(dims.end(), t.dims.begin(), t.dims.end());
  bool recordsAsIteration = dims.size() >= bd.addressDims;
  if (!recordsAsIteration && t.recordCount > 1) dims.push_back({t.recordCount, t.recordStride});
  if (dims.size() > bd.addressDims) return tooLarge("address dimensions", dims.size(), bd.addressDims);
  for (size_t i = 0; i < dims.size(); ++i) {
    std::string d = "d" + std::to_string(i);
    if (!unaligned(d + "_step (bytes)", dims[i].strideBytes)) return std::nullopt;
    uint64_t step = dims[i].strideBytes / 4;
    if (step > BdFieldWidths::maxOf(bd.stepBits))
      return tooLarge(d + "_step_size (words)", step, BdFieldWidths::maxOf(bd.stepBits));
    // The array-plan format bounds every dimension's size by the wrap width, including the
    // outermost one, whose hardware wrap is implied by the buffer length.
    if (dims[i].size > BdFieldWidths::maxOf(bd.wrapBits))
      return tooLarge(d + "_wrap", dims[i].size, BdFieldWidths::maxOf(bd.wrapBits));
  }
  if (recordsAsIteration && t.recordCount > 1) {
    if (!unaligned("record_stride (bytes)", t.recordStride)) return std::nullopt;
    if (t.recordStride / 4 > BdFieldWidths::maxOf(bd.iterationStepBits))
      return tooLarge("iteration_step (words)", t.recordStride / 4, BdFieldWidths::maxOf(bd.iterationStepBits));
    if (t.recordCount > BdFieldWidths::maxOf(bd.iterationWrapBits))
      return tooLarge("iteration_wrap", t.recordCount, BdFieldWidths::maxOf(bd.iterationWrapBits));
    if (uint64_t(t.recordCount) * t.repeatCount > Npu5Model::kMaxRepeatCount)
      return tooLarge("repeat_count (records x repetitions)", uint64_t(t.recordCount) * t.repeatCount,
                      Npu5Model::kMaxRepeatCount);
    p.iterationStepWords = uint32_t(t.recordStride / 4);
    p.iterationWrap = t.recordCount;
    p.lengthWords = uint32_t(recordBytes / 4);
  }
  p.dims = std::move(dims);
  return p;
}

// Routes a stream from `source` at tile `from` to `destination` at tile `to`: first along the
// row (the shim row for external transfers; memory tiles have no east/west ports), then along
// the column.
void ArrayPlanner::route(uint32_t channel, TileCoord from, SwitchPort source, TileCoord to, SwitchPort destination) {
  TileCoord at = from;
  if (to.row == Npu5Model::kShimRow)
    while (at.row > to.row) source = hop(channel, at, source, PortBundle::South);
  while (at.column != to.column)
    source = hop(channel, at, source, at.column < to.column ? PortBundle::East : PortBundle::West);
  while (at.row != to.row) source = hop(channel, at, source, at.row < to.row ? PortBundle::North : PortBundle::South);
  plan_.routes.push_back({channel, at, RouteKind::Switch, source, destination});
  TileUsage &u = usage_[at];
  if (destination.bundle != PortBundle::Dma)
    u.masters[unsigned(destination.bundle)] = std::max(u.masters[unsigned(destination.bundle)], destination.index + 1);
}

// One switch hop out of `at` through bundle `out`; returns the slave port it arrives on.
SwitchPort ArrayPlanner::hop(uint32_t channel, TileCoord &at, SwitchPort source, PortBundle out) {
  TileUsage &here = usage_[at];
  TileCoord next = at;
  switch (out) {
  case PortBundle::North: ++next.row; break;
  case PortBundle::South: --next.row; break;
  case PortBundle::East: ++next.column; break;
  default: --next.column; break;
  }
  TileUsage &there = usage_[next];
  here.routed.push_back(specs_[channel].flow);
  there.routed.push_back(specs_[channel].flow);
  // A link uses master `index` here and slave `index` on the neighbour.
  uint32_t index = std::max(here.masters[unsigned(out)], there.slaves[unsigned(opposite(out))]);
  here.masters[unsigned(out)] = index + 1;
  there.slaves[unsigned(opposite(out))] = index + 1;
  plan_.routes.push_back({channel, at, RouteKind::Switch, source, {out, index}});
  at = next;
  return {opposite(out), index};
}

// Ring slots of a tile at bank strides (16 KiB) when they fit beside the stack reserve, so a
// producer and a consumer work on different banks; packed at 64-byte alignment otherwise.
void ArrayPlanner::layoutSlots() {
  const TileResources &compute = Npu5Model::resources(TileKind::Compute);
  for (auto &[tile, usage] : usage_) {
    if (usage.slots.empty()) continue;
    bool banked = usage.slots.size() <= compute.bankCount;
    for (size_t i = 0; i < usage.slots.size() && banked; ++i) {
      uint32_t end = uint32_t(i) * Npu5Model::kBankBytes + plan_.slots[usage.slots[i]].bytes;
      banked = plan_.slots[usage.slots[i]].bytes <= Npu5Model::kBankBytes &&
               end + usage.privateBytes + stackReserveOn(tile) <= compute.dataMemoryBytes;
    }
    uint32_t offset = 0;
    for (uint32_t s : usage.slots) {
      PlanSlot &slot = plan_.slots[s];
      slot.offset = offset;
      if (slot.senderAddress) *slot.senderAddress += offset;
      if (slot.receiverAddress) *slot.receiverAddress += offset;
      uint32_t aligned =
          (slot.bytes + Npu5Model::kSlotAlignment - 1) / Npu5Model::kSlotAlignment * Npu5Model::kSlotAlignment;
      offset += banked ? Npu5Model::kBankBytes : aligned;
    }
  }
}

// Reports a tile's shortfall at the last flow that uses the tile (the one that tipped it over),
// with a note at every other flow that shares it.
diag::DiagnosticBuilder ArrayPlanner::reportAtTile(DiagId id, std::vector<uint32_t> flows) {
  std::sort(flows.begin(), flows.end());
  flows.erase(std::unique(flows.begin(), flows.end()), flows.end());
  SourceRange at = flows.empty() ? graph_.loc : graph_.flows[flows.back()].loc;
  auto builder = diags_.report(id, at);
  for (uint32_t f : flows) {
    const GraphFlow &flow = graph_.flows[f];
    builder.note(flow.loc, "channel of " + flow.recordType + " (" + std::to_string(flow.recordBytes) +
                               " bytes, capacity " + std::to_string(flow.capacity) + ") uses this tile");
  }
  return builder;
}

// The worker placed on `tile` with the largest stack estimate, or null.
const GraphWorker *ArrayPlanner::deepestStackOn(TileCoord tile) const {
  const GraphWorker *deepest = nullptr;
  for (const format::PlanWorker &pw : plan_.workers) {
    if (!(pw.tile == tile)) continue;
    for (const GraphWorker &w : graph_.workers)
      if (w.entry == pw.entry && (!deepest || w.stackBytes > deepest->stackBytes)) deepest = &w;
  }
  return deepest;
}

bool ArrayPlanner::checkResources() {
  bool ok = true;
  for (const auto &[tile, u] : usage_) {
    const TileResources &res = Npu5Model::resources(tile);
    auto check = [&](DiagId id, uint64_t needed, uint64_t available) {
      if (needed <= available) return;
      auto builder = reportAtTile(id, u.flows);
      builder.arg("column", (long long)tile.column)
          .arg("row", (long long)tile.row)
          .arg("needed", (long long)needed)
          .arg("available", (long long)available);
      ok = false;
    };
    if (res.kind == TileKind::Compute) {
      uint64_t bytes = 0;
      for (uint32_t s : u.slots)
        bytes += (plan_.slots[s].bytes + Npu5Model::kSlotAlignment - 1) / Npu5Model::kSlotAlignment *
                 Npu5Model::kSlotAlignment;
      bool hasWorker = std::any_of(plan_.workers.begin(), plan_.workers.end(),
                                   [&](const format::PlanWorker &w) { return w.tile == tile; });
      const GraphWorker *deepest = deepestStackOn(tile);
      uint64_t stack =
          hasWorker ? std::max<uint64_t>(Npu5Model::kStackReserveBytes, deepest ? deepest->stackBytes : 0) : 0;
      bytes += u.privateBytes + stack;
      if (bytes > res.dataMemoryBytes && deepest && deepest->stackBytes > Npu5Model::kStackReserveBytes) {
        // The worker's own locals tipped the tile over: say so at the stage, with demand and supply.
        reportAtTile(DiagId::XdnaDataMemoryExceeded, u.flows)
            .arg("column", (long long)tile.column)
            .arg("row", (long long)tile.row)
            .arg("needed", (long long)bytes)
            .arg("available", (long long)res.dataMemoryBytes)
            .note(deepest->loc, "worker @" + deepest->entry + " needs a stack of at least " +
                                    std::to_string(deepest->stackBytes) +
                                    " bytes for its local variables (the tile's " +
                                    std::to_string(res.dataMemoryBytes) + " bytes also hold its record slots)");
        ok = false;
      } else {
        check(DiagId::XdnaDataMemoryExceeded, bytes, res.dataMemoryBytes);
      }
      check(DiagId::XdnaLocksExhausted, u.locks, res.locks);
      check(DiagId::XdnaBdsExhausted, u.bds, res.bufferDescriptors);
      for (auto [count, supply, name] : {std::tuple{u.s2mm, res.s2mmChannels, "stream-to-memory"},
                                         std::tuple{u.mm2s, res.mm2sChannels, "memory-to-stream"}}) {
        if (count <= supply) continue;
        reportAtTile(DiagId::XdnaDmaChannelsExhausted, u.flows)
            .arg("where", "tile " + tileText(tile))
            .arg("needed", (long long)count)
            .arg("direction", name)
            .arg("available", (long long)supply);
        ok = false;
      }
    }
    for (unsigned b = 0; b < 9; ++b) {
      for (bool master : {true, false}) {
        unsigned needed = master ? u.masters[b] : u.slaves[b];
        unsigned available = master ? res.ports.masters[b] : res.ports.slaves[b];
        if (needed <= available) continue;
        reportAtTile(DiagId::XdnaStreamPortsExhausted, u.routed)
            .arg("column", (long long)tile.column)
            .arg("row", (long long)tile.row)
            .arg("needed", (long long)needed)
            .arg("bundle", std::string(portBundleName(PortBundle(b))))
            .arg("side", master ? "master" : "slave")
            .arg("available", (long long)available);
        ok = false;
      }
    }
  }
  const TileResources &shim = Npu5Model::resources(TileKind::Shim);
  for (auto [direction, supply, name] :
       {std::tuple{DmaDirection::StreamToMemory, shim.s2mmChannels, "stream-to-memory"},
        std::tuple{DmaDirection::MemoryToStream, shim.mm2sChannels, "memory-to-stream"}}) {
    unsigned needed = shimDemand_[unsigned(direction)];
    unsigned available = supply * columns_;
    if (needed <= available) continue;
    std::string hint;
    unsigned fit = (needed + supply - 1) / supply;
    auto builder = diags_.report(DiagId::XdnaDmaChannelsExhausted, graph_.loc);
    builder.arg("where", "the shim row of " + std::to_string(columns_) + " column(s)")
        .arg("needed", (long long)needed)
        .arg("direction", name)
        .arg("available", (long long)available);
    if (fit <= Npu5Model::kMaxContextColumns)
      builder.note(graph_.loc, "each column's shim tile has " + std::to_string(supply) +
                                   " such channels; --columns=" + std::to_string(fit) + " provides enough");
    ok = false;
  }
  return ok;
}

}  // namespace

std::optional<format::ArrayPlan> planArray(const PipelineGraph &graph, const PlanOptions &options,
                                           diag::DiagnosticEngine &diags) {
  return ArrayPlanner(graph, options, diags).run();
}

}  // namespace hrx::xdna
