#include "hrx/format/ArrayPlan.h"

#include "hrx/support/Text.h"

#include "ArrayPlanNames.h"
#include "CanonicalJson.h"
#include "JsonFields.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <tuple>

namespace hrx::format {
using namespace detail;

namespace {

// `Object` is JsonObject (any JSON) or CanonicalObject (the writer's own form, one pass).
template <typename E, size_t N, typename Object>
E enumAt(const std::pair<std::string_view, E> (&names)[N], Object &object, std::string_view key) {
  return object.template enumeration<E>(names, key);
}

// Per-tile resources by kind (npu5-hardware §2.2).
struct TileResources {
  uint32_t dataBytes, locks, dmaChannels, bds;
  // Stream-switch slave (source) and master (destination) port counts, indexed by PortBundle.
  std::array<uint32_t, 9> slaves, masters;
};
// Order: Dma, Core, Ctrl, Fifo, South, West, North, East, Noc.
constexpr TileResources kCompute{npu5::kComputeDataBytes,    16, 2, 16, {2, 1, 1, 1, 6, 4, 4, 4, 0},
                                 {2, 1, 1, 1, 4, 4, 6, 4, 0}};
constexpr TileResources kMemTile{npu5::kMemTileDataBytes,    64, 6, 48, {6, 0, 1, 0, 6, 0, 4, 0, 0},
                                 {6, 0, 1, 0, 4, 0, 6, 0, 0}};
constexpr TileResources kShim{0, 16, 2, 16, {0, 0, 1, 1, 8, 4, 4, 4, 0}, {0, 0, 1, 1, 6, 4, 6, 4, 0}};
// The shim mux connects the shim DMA and NoC to the switch's 8 south slaves and 6 south masters
// (its "north" side; MM2S 1 enters at south slave 7, aie-rt xaie_noc.c).
constexpr std::array<uint32_t, 9> kShimMuxPorts{2, 0, 0, 0, 8, 0, 8, 0, 4};

const TileResources &resourcesOf(TileKind kind) {
  switch (kind) {
  case TileKind::Shim: return kShim;
  case TileKind::MemTile: return kMemTile;
  case TileKind::Compute: return kCompute;
  }
  return kCompute;
}

using text::hex;  // hrx/support/Text.h

// ---- JSON reading ---------------------------------------------------------------------------
// Paths ("channels[2].sender.dims[0]") are spelled only on errors: JsonObject keeps its parent.

template <typename Object> TileCoord readTile(Object &o, std::string_view key) {
  auto [column, row] = o.columnRow(key);
  return {column, row};
}

template <typename T, typename Object, typename F>
std::vector<T> readRows(Object &o, std::string_view key, F &&readRow) {
  std::vector<T> rows;
  o.eachRow(key, [&](Object &row) { rows.push_back(readRow(row)); });
  return rows;
}

template <typename Object> std::vector<AccessDim> readDims(Object &o) {
  return readRows<AccessDim>(o, "dims", [](Object &d) { return AccessDim{d.u32("size"), d.u64("stride")}; });
}

template <typename Object> ChannelEnd readEnd(Object &&o) {
  ChannelEnd end;
  if (o.has("worker")) {
    end.worker = WorkerEndpoint{o.u32("worker"), o.u32("port")};
  } else if (o.has("binding")) {
    BindingTransfer t;
    t.binding = o.u32("binding");
    t.byteOffset = o.u64("offset");
    t.runBytes = o.u32("run_bytes");
    t.dims = readDims(o);
    t.recordStride = o.u64("record_stride");
    t.recordCount = o.u32("record_count");
    t.repeatCount = o.u32("repeat_count");
    end.binding = std::move(t);
  } else {
    o.reject("expected a \"worker\" or a \"binding\" end");
  }
  o.finish();
  return end;
}

template <typename Object> SwitchPort readPort(Object &o, std::string_view key) {
  auto p = o.member(key);
  SwitchPort port{enumAt(kBundles, p, "bundle"), p.u32("index")};
  p.finish();
  return port;
}

template <typename Object> ArrayPlan readPlan(Object &o) {
  using Row = Object &;
  ArrayPlan plan;
  plan.name = o.string("name");
  plan.family = o.string("family");
  plan.columns = o.u32("columns");
  plan.groups = o.u32("groups");
  plan.bindings = readRows<PlanBinding>(o, "bindings", [](Row r) {
    return PlanBinding{r.u32("ordinal"), enumAt(kAccesses, r, "access"), r.u64("bytes")};
  });
  plan.workers = readRows<PlanWorker>(o, "workers", [](Row r) {
    PlanWorker w;
    w.entry = r.string("entry");
    w.group = r.u32("group");
    w.lane = r.u32("lane");
    w.tile = readTile(r, "tile");
    w.codeBytes = r.u32("code_bytes");
    w.iterations = r.u32("iterations");
    w.ports = readRows<WorkerPort>(r, "ports", [](Row p) {
      WorkerPort port;
      port.direction = enumAt(kDirections, p, "direction");
      port.channel = p.optionalU32("channel");
      port.recordBytes = p.u32("record_bytes");
      port.period = p.u32("period");
      return port;
    });
    return w;
  });
  plan.channels = readRows<PlanChannel>(o, "channels", [](Row r) {
    PlanChannel c;
    c.transport = enumAt(kTransports, r, "transport");
    c.recordBytes = r.u32("record_bytes");
    c.capacity = r.u32("capacity");
    c.sender = readEnd(r.member("sender"));
    c.receiver = readEnd(r.member("receiver"));
    if (auto part = r.optionalMember("partition")) {
      c.partition = Partition{part->u32("lane"), part->u32("lanes"), part->u64("lane_bytes")};
      part->finish();
    }
    return c;
  });
  plan.slots = readRows<PlanSlot>(o, "slots", [](Row r) {
    PlanSlot s;
    s.channel = r.u32("channel");
    s.index = r.u32("index");
    s.owner = readTile(r, "owner");
    s.offset = r.u32("offset");
    s.bytes = r.u32("bytes");
    s.senderAddress = r.optionalU32("sender_address");
    s.receiverAddress = r.optionalU32("receiver_address");
    return s;
  });
  plan.locks = readRows<PlanLock>(o, "locks", [](Row r) {
    return PlanLock{r.u32("channel"), readTile(r, "tile"), r.u32("id"), enumAt(kLockRoles, r, "role"),
                    r.u32("initial")};
  });
  plan.dmas = readRows<PlanDma>(o, "dma", [](Row r) {
    PlanDma d;
    d.channel = r.u32("channel");
    d.tile = readTile(r, "tile");
    d.direction = enumAt(kDmaDirections, r, "direction");
    d.engineChannel = r.u32("engine_channel");
    d.bdStart = r.u32("bd_start");
    d.bdCount = r.u32("bd_count");
    if (auto bd = r.optionalMember("shim_bd")) {
      BdPattern pattern;
      pattern.binding = bd->u32("binding");
      pattern.address = bd->u64("address");
      pattern.lengthWords = bd->u32("length_words");
      pattern.dims = readDims(*bd);
      pattern.iterationStepWords = bd->u32("iteration_step_words");
      pattern.iterationWrap = bd->u32("iteration_wrap");
      pattern.repeatCount = bd->u32("repeat_count");
      bd->finish();
      d.shimPattern = std::move(pattern);
    }
    return d;
  });
  plan.routes = readRows<PlanRoute>(o, "routes", [](Row r) {
    return PlanRoute{r.u32("channel"), readTile(r, "tile"), enumAt(kRouteKinds, r, "kind"), readPort(r, "source"),
                     readPort(r, "destination")};
  });
  return plan;
}

// ---- validation -----------------------------------------------------------------------------

class PlanValidator {
public:
  explicit PlanValidator(const ArrayPlan &plan) : plan_(plan) {}

  void run() {
    if (plan_.name.empty()) failAt("name", "must not be empty");
    if (plan_.family != npu5::kFamily)
      failAt("family", "expected \"" + std::string(npu5::kFamily) + "\", found \"" + plan_.family + "\"");
    if (plan_.columns < 1 || plan_.columns > npu5::kColumns)
      failAt("columns", "must be in 1..8, found " + std::to_string(plan_.columns));
    checkBindings();
    checkWorkers();
    checkChannels();
    checkSlots();
    checkLocks();
    checkDmas();
    checkRoutes();
  }

private:
  static std::string row(std::string_view table, size_t i, std::string_view field) {
    return std::string(table) + "[" + std::to_string(i) + "]." + std::string(field);
  }

  // A field path ("slots[3].owner", "workers[0].ports[1].channel"), spelled only when a check
  // fails: the valid plan builds no strings.
  struct RowPath {
    std::string_view table;
    size_t index;
    std::string_view field;
    size_t subIndex = SIZE_MAX;
    std::string_view subField = {};
    std::string text() const {
      std::string out = row(table, index, field);
      if (subIndex != SIZE_MAX) out += "[" + std::to_string(subIndex) + "]";
      if (!subField.empty()) out += "." + std::string(subField);
      return out;
    }
  };

  void checkTile(TileCoord t, const RowPath &path) const {
    if (t.column >= plan_.columns)
      failAt(path.text(),
             "tile " + tileText(t) + " lies outside the " + std::to_string(plan_.columns) + "-column partition");
    if (t.row >= npu5::kRows) failAt(path.text(), "tile " + tileText(t) + " lies outside the 6-row array");
  }

  void checkChannelIndex(uint32_t channel, const RowPath &path) const {
    if (channel >= plan_.channels.size())
      failAt(path.text(), "refers to channel " + std::to_string(channel) + " but the plan has " +
                              std::to_string(plan_.channels.size()) + " channels");
  }

  void checkBindings() const {
    constexpr size_t kMaxBindings = 5;  // ERT command records carry at most 5 addresses
    if (plan_.bindings.size() > kMaxBindings)
      failAt("bindings", "has " + std::to_string(plan_.bindings.size()) + " rows; an NPU command carries at most 5");
    for (size_t i = 0; i < plan_.bindings.size(); ++i) {
      if (plan_.bindings[i].bytes == 0) failAt(row("bindings", i, "bytes"), "must be nonzero");
      if (i > 0 && plan_.bindings[i].ordinal <= plan_.bindings[i - 1].ordinal)
        failAt(row("bindings", i, "ordinal"), "ordinals must be strictly increasing");
    }
  }

  void checkWorkers() const {
    std::set<std::pair<uint32_t, uint32_t>> tiles, lanes;
    for (size_t i = 0; i < plan_.workers.size(); ++i) {
      const PlanWorker &w = plan_.workers[i];
      if (w.entry.empty()) failAt(row("workers", i, "entry"), "must not be empty");
      if (w.group >= plan_.groups)
        failAt(row("workers", i, "group"), "group " + std::to_string(w.group) + " but the plan declares " +
                                               std::to_string(plan_.groups) + " groups");
      if (!lanes.insert({w.group, w.lane}).second)
        failAt(row("workers", i, "lane"),
               "lane " + std::to_string(w.lane) + " of group " + std::to_string(w.group) + " appears twice");
      checkTile(w.tile, RowPath{"workers", i, "tile"});
      if (w.tile.kind() != TileKind::Compute)
        failAt(row("workers", i, "tile"), "workers need a compute tile (rows 2-5), found " + tileText(w.tile));
      if (!tiles.insert({w.tile.column, w.tile.row}).second)
        failAt(row("workers", i, "tile"), "tile " + tileText(w.tile) + " already holds another worker");
      if (w.codeBytes > npu5::kProgramMemoryBytes)
        failAt(row("workers", i, "code_bytes"),
               std::to_string(w.codeBytes) + " bytes exceed the 16384-byte program memory");
      if (w.iterations == 0) failAt(row("workers", i, "iterations"), "must be at least 1");
      for (size_t p = 0; p < w.ports.size(); ++p) {
        const WorkerPort &port = w.ports[p];
        auto path = [&] { return row("workers", i, "ports") + "[" + std::to_string(p) + "]"; };
        if (port.recordBytes == 0) failAt(path() + ".record_bytes", "must be nonzero");
        if (port.period == 0 || w.iterations % port.period != 0)
          failAt(path() + ".period",
                 "must be nonzero and divide the worker's " + std::to_string(w.iterations) + " iterations");
        if (port.direction == PortDirection::State) {
          if (port.channel) failAt(path() + ".channel", "a state port has no channel");
          continue;
        }
        if (!port.channel) failAt(path() + ".channel", "an in/out port needs a channel");
        checkChannelIndex(*port.channel, RowPath{"workers", i, "ports", p, "channel"});
        const PlanChannel &c = plan_.channels[*port.channel];
        const ChannelEnd &end = port.direction == PortDirection::Input ? c.receiver : c.sender;
        if (!end.worker || end.worker->worker != i || end.worker->port != p)
          failAt(path() + ".channel", "channel " + std::to_string(*port.channel) + " does not name this port as its " +
                                          (port.direction == PortDirection::Input ? "receiver" : "sender"));
        if (port.recordBytes != c.recordBytes)
          failAt(path() + ".record_bytes", std::to_string(port.recordBytes) + " differs from channel " +
                                               std::to_string(*port.channel) + "'s " + std::to_string(c.recordBytes));
      }
    }
  }

  // Records that one end moves per invocation of the entry.
  uint64_t checkEnd(const ChannelEnd &end, size_t channel, std::string_view side, bool sends) const {
    auto path = [&] { return row("channels", channel, side); };
    const PlanChannel &c = plan_.channels[channel];
    if (end.worker.has_value() == end.binding.has_value())
      failAt(path(), "needs exactly one of a worker port or a binding transfer");
    if (end.worker) {
      const WorkerEndpoint &we = *end.worker;
      if (we.worker >= plan_.workers.size())
        failAt(path() + ".worker", "refers to worker " + std::to_string(we.worker) + " but the plan has " +
                                       std::to_string(plan_.workers.size()) + " workers");
      const PlanWorker &w = plan_.workers[we.worker];
      if (we.port >= w.ports.size())
        failAt(path() + ".port", "worker " + std::to_string(we.worker) + " has no port " + std::to_string(we.port));
      const WorkerPort &port = w.ports[we.port];
      PortDirection expected = sends ? PortDirection::Output : PortDirection::Input;
      if (port.direction != expected || port.channel != channel)
        failAt(path() + ".port", "port " + std::to_string(we.port) + " of worker " + std::to_string(we.worker) +
                                     " is not an " + (sends ? "out" : "in") + " port on this channel");
      return w.iterations / port.period;
    }
    const BindingTransfer &t = *end.binding;
    if (t.binding >= plan_.bindings.size())
      failAt(path() + ".binding", "refers to binding " + std::to_string(t.binding) + " but the plan has " +
                                      std::to_string(plan_.bindings.size()) + " bindings");
    const PlanBinding &b = plan_.bindings[t.binding];
    if (sends && b.access == PlanAccess::Write)
      failAt(path() + ".binding", "binding " + std::to_string(t.binding) + " is write-only but this end reads it");
    if (!sends && b.access == PlanAccess::Read)
      failAt(path() + ".binding", "binding " + std::to_string(t.binding) + " is read-only but this end writes it");
    if (t.runBytes == 0) failAt(path() + ".run_bytes", "must be nonzero");
    if (t.recordCount == 0) failAt(path() + ".record_count", "must be at least 1");
    if (t.repeatCount == 0) failAt(path() + ".repeat_count", "must be at least 1");
    // Record size and furthest byte touched, with overflow checks (inputs are untrusted).
    unsigned __int128 recordBytes = t.runBytes;
    unsigned __int128 last = t.byteOffset + (unsigned __int128)(t.recordCount - 1) * t.recordStride;
    for (size_t d = 0; d < t.dims.size(); ++d) {
      if (t.dims[d].size == 0) failAt(path() + ".dims[" + std::to_string(d) + "].size", "must be at least 1");
      recordBytes *= t.dims[d].size;
      last += (unsigned __int128)(t.dims[d].size - 1) * t.dims[d].strideBytes;
      if (recordBytes > UINT32_MAX || last > UINT64_MAX) failAt(path() + ".dims", "address pattern overflows");
    }
    if (recordBytes != c.recordBytes)
      failAt(path() + ".dims", "pattern moves " + std::to_string(uint64_t(recordBytes)) +
                                   " bytes per record, channel records are " + std::to_string(c.recordBytes));
    if (last + t.runBytes > b.bytes)
      failAt(path() + ".offset", "pattern reaches byte " + std::to_string(uint64_t(last + t.runBytes)) +
                                     " of binding " + std::to_string(t.binding) + ", which has " +
                                     std::to_string(b.bytes));
    return t.recordsMoved();
  }

  void checkChannels() const {
    for (size_t i = 0; i < plan_.channels.size(); ++i) {
      const PlanChannel &c = plan_.channels[i];
      if (c.recordBytes == 0) failAt(row("channels", i, "record_bytes"), "must be nonzero");
      if (c.capacity < 1 || c.capacity > npu5::kMaxLockValue)
        failAt(row("channels", i, "capacity"),
               "must be in 1..63 (a credit lock counts the free slots), found " + std::to_string(c.capacity));
      uint64_t sent = checkEnd(c.sender, i, "sender", true);
      uint64_t received = checkEnd(c.receiver, i, "receiver", false);
      if (c.sender.binding && c.receiver.binding)
        failAt(row("channels", i, "receiver"), "a channel needs a worker on at least one end");
      if (sent != received)
        failAt(row("channels", i, "receiver"), "receives " + std::to_string(received) + " records per invocation but " +
                                                   std::to_string(sent) + " are sent");
      if (c.transport == Transport::NeighborMemory) {
        if (!c.sender.worker || !c.receiver.worker)
          failAt(row("channels", i, "transport"), "neighbor-memory needs workers on both ends");
        TileCoord a = plan_.workers[c.sender.worker->worker].tile, b = plan_.workers[c.receiver.worker->worker].tile;
        uint32_t distance = (a.column > b.column ? a.column - b.column : b.column - a.column) +
                            (a.row > b.row ? a.row - b.row : b.row - a.row);
        if (distance != 1)
          failAt(row("channels", i, "transport"),
                 "neighbor-memory needs adjacent tiles, found " + tileText(a) + " and " + tileText(b));
      }
      if (c.partition) {
        if (c.partition->lanes == 0 || c.partition->lane >= c.partition->lanes)
          failAt(row("channels", i, "partition"), "lane " + std::to_string(c.partition->lane) + " is not below lanes " +
                                                      std::to_string(c.partition->lanes));
      }
    }
  }

  void checkSlots() const {
    std::vector<uint32_t> seen(plan_.channels.size());  // bit mask of ring positions, capacity ≤ 63
    std::vector<uint64_t> positions(plan_.channels.size());
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::pair<uint32_t, size_t>> ranges;  // (col,row,offset)
    for (size_t i = 0; i < plan_.slots.size(); ++i) {
      const PlanSlot &s = plan_.slots[i];
      checkChannelIndex(s.channel, RowPath{"slots", i, "channel"});
      const PlanChannel &c = plan_.channels[s.channel];
      if (s.index >= c.capacity)
        failAt(row("slots", i, "index"), "ring position " + std::to_string(s.index) + " but channel " +
                                             std::to_string(s.channel) + " has capacity " + std::to_string(c.capacity));
      if (positions[s.channel] & (uint64_t(1) << s.index))
        failAt(row("slots", i, "index"), "ring position " + std::to_string(s.index) + " of channel " +
                                             std::to_string(s.channel) + " appears twice");
      positions[s.channel] |= uint64_t(1) << s.index;
      ++seen[s.channel];
      checkTile(s.owner, RowPath{"slots", i, "owner"});
      const TileResources &r = resourcesOf(s.owner.kind());
      if (r.dataBytes == 0) failAt(row("slots", i, "owner"), "shim tiles have no data memory");
      if (s.bytes < c.recordBytes)
        failAt(row("slots", i, "bytes"),
               std::to_string(s.bytes) + " bytes cannot hold a " + std::to_string(c.recordBytes) + "-byte record");
      if (uint64_t(s.offset) + s.bytes > r.dataBytes)
        failAt(row("slots", i, "offset"), "slot " + hex(s.offset) + "+" + std::to_string(s.bytes) + " exceeds the " +
                                              std::to_string(r.dataBytes) + "-byte data memory of tile " +
                                              tileText(s.owner));
      if (c.transport == Transport::NeighborMemory) {
        TileCoord a = plan_.workers[c.sender.worker->worker].tile, b = plan_.workers[c.receiver.worker->worker].tile;
        if (!(s.owner == a) && !(s.owner == b))
          failAt(row("slots", i, "owner"), "a neighbor-memory slot must live in the sender's or the receiver's tile");
      }
      ranges[{s.owner.column, s.owner.row, s.offset}] = {s.bytes, i};
    }
    // Slots on one tile must not overlap: walk each tile's slots in address order.
    const std::pair<uint32_t, size_t> *previous = nullptr;
    std::tuple<uint32_t, uint32_t, uint32_t> previousKey{};
    for (const auto &[key, value] : ranges) {
      if (previous && std::get<0>(previousKey) == std::get<0>(key) && std::get<1>(previousKey) == std::get<1>(key) &&
          uint64_t(std::get<2>(previousKey)) + previous->first > std::get<2>(key))
        failAt(row("slots", value.second, "offset"), "overlaps slots[" + std::to_string(previous->second) + "]");
      previous = &value;
      previousKey = key;
    }
    if (ranges.size() != plan_.slots.size()) failAt("slots", "two slots share one tile address");
    for (size_t c = 0; c < plan_.channels.size(); ++c)
      if (seen[c] != plan_.channels[c].capacity)
        failAt(row("channels", c, "capacity"), "channel has " + std::to_string(seen[c]) + " slots for capacity " +
                                                   std::to_string(plan_.channels[c].capacity));
  }

  void checkLocks() const {
    std::set<std::tuple<uint32_t, uint32_t, uint32_t>> ids;
    std::vector<std::pair<bool, bool>> roles(plan_.channels.size());
    for (size_t i = 0; i < plan_.locks.size(); ++i) {
      const PlanLock &l = plan_.locks[i];
      checkChannelIndex(l.channel, RowPath{"locks", i, "channel"});
      checkTile(l.tile, RowPath{"locks", i, "tile"});
      uint32_t available = resourcesOf(l.tile.kind()).locks;
      if (l.id >= available)
        failAt(row("locks", i, "id"), "lock " + std::to_string(l.id) + " but a " +
                                          std::string(tileKindName(l.tile.kind())) + " tile has " +
                                          std::to_string(available));
      if (!ids.insert({l.tile.column, l.tile.row, l.id}).second)
        failAt(row("locks", i, "id"),
               "lock " + std::to_string(l.id) + " of tile " + tileText(l.tile) + " is used twice");
      uint32_t expected = l.role == LockRole::Credit ? plan_.channels[l.channel].capacity : 0;
      if (l.initial != expected)
        failAt(row("locks", i, "initial"),
               std::string(l.role == LockRole::Credit ? "a credit lock starts at the capacity "
                                                      : "a ready lock starts at ") +
                   std::to_string(expected) + ", found " + std::to_string(l.initial));
      (l.role == LockRole::Credit ? roles[l.channel].first : roles[l.channel].second) = true;
    }
    for (size_t c = 0; c < roles.size(); ++c)
      if (!roles[c].first || !roles[c].second)
        failAt(row("channels", c, "locks"),
               std::string("channel has no ") + (roles[c].first ? "ready" : "credit") + " lock");
  }

  void checkDmas() const {
    std::set<std::tuple<uint32_t, uint32_t, int, uint32_t>> engines;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::pair<uint32_t, size_t>> bdRanges;
    for (size_t i = 0; i < plan_.dmas.size(); ++i) {
      const PlanDma &d = plan_.dmas[i];
      checkChannelIndex(d.channel, RowPath{"dma", i, "channel"});
      checkTile(d.tile, RowPath{"dma", i, "tile"});
      TileKind kind = d.tile.kind();
      const TileResources &r = resourcesOf(kind);
      if (d.engineChannel >= r.dmaChannels)
        failAt(row("dma", i, "engine_channel"), "channel " + std::to_string(d.engineChannel) + " but a " +
                                                    std::string(tileKindName(kind)) + " tile has " +
                                                    std::to_string(r.dmaChannels) + " per direction");
      if (!engines.insert({d.tile.column, d.tile.row, int(d.direction), d.engineChannel}).second)
        failAt(row("dma", i, "engine_channel"), "engine channel already used on tile " + tileText(d.tile));
      if (d.bdCount == 0 || uint64_t(d.bdStart) + d.bdCount > r.bds)
        failAt(row("dma", i, "bd_count"), "BDs " + std::to_string(d.bdStart) + "+" + std::to_string(d.bdCount) +
                                              " exceed the " + std::to_string(r.bds) + " buffer descriptors of tile " +
                                              tileText(d.tile));
      if (kind == TileKind::MemTile) {
        // Even memtile channels reach BDs 0-23, odd ones 24-47.
        uint32_t low = d.engineChannel % 2 == 0 ? 0 : 24;
        if (d.bdStart < low || d.bdStart + d.bdCount > low + 24)
          failAt(row("dma", i, "bd_start"), "memtile channel " + std::to_string(d.engineChannel) +
                                                " may only use BDs " + std::to_string(low) + "-" +
                                                std::to_string(low + 23));
      }
      auto [it, inserted] = bdRanges.insert({{d.tile.column, d.tile.row, d.bdStart}, {d.bdCount, i}});
      if (!inserted)
        failAt(row("dma", i, "bd_start"), "BD " + std::to_string(d.bdStart) + " is already used by dma[" +
                                              std::to_string(it->second.second) + "]");
      if (kind == TileKind::Shim) {
        if (!d.shimPattern) failAt(row("dma", i, "shim_bd"), "a shim DMA needs its buffer-descriptor pattern");
        checkShimPattern(*d.shimPattern, RowPath{"dma", i, "shim_bd"});
      } else if (d.shimPattern) {
        failAt(row("dma", i, "shim_bd"), "only shim DMAs carry a binding pattern");
      }
    }
    const std::pair<uint32_t, size_t> *previous = nullptr;
    std::tuple<uint32_t, uint32_t, uint32_t> previousKey{};
    for (const auto &[key, value] : bdRanges) {
      if (previous && std::get<0>(previousKey) == std::get<0>(key) && std::get<1>(previousKey) == std::get<1>(key) &&
          std::get<2>(previousKey) + previous->first > std::get<2>(key))
        failAt(row("dma", value.second, "bd_start"), "BD range overlaps dma[" + std::to_string(previous->second) + "]");
      previous = &value;
      previousKey = key;
    }
  }

  // Shim BD field widths (npu5-hardware §2.4).
  void checkShimPattern(const BdPattern &p, const RowPath &where) const {
    auto path = [&] { return where.text(); };
    if (p.binding >= plan_.bindings.size())
      failAt(path() + ".binding", "refers to binding " + std::to_string(p.binding) + " but the plan has " +
                                      std::to_string(plan_.bindings.size()) + " bindings");
    if (p.address % 4 != 0 || p.address > (uint64_t(1) << 48) - 1)
      failAt(path() + ".address", "must be a 4-byte aligned 48-bit address, found " + hex(p.address));
    if (p.lengthWords == 0) failAt(path() + ".length_words", "must be nonzero");
    if (p.address + uint64_t(p.lengthWords) * 4 > plan_.bindings[p.binding].bytes)
      failAt(path() + ".length_words", "transfer reaches past the end of binding " + std::to_string(p.binding));
    if (p.dims.size() > 3) failAt(path() + ".dims", "a shim BD has at most 3 dimensions");
    for (size_t d = 0; d < p.dims.size(); ++d) {
      std::string dim = path() + ".dims[" + std::to_string(d) + "]";
      if (p.dims[d].strideBytes % 4 != 0 || p.dims[d].strideBytes / 4 > (1u << 20) - 1)
        failAt(dim + ".stride", "must be a multiple of 4 with a step below 2^20 words");
      if (p.dims[d].size == 0 || p.dims[d].size > 1023) failAt(dim + ".size", "wrap must be in 1..1023");
    }
    if (p.iterationStepWords > (1u << 20) - 1) failAt(path() + ".iteration_step_words", "must be below 2^20");
    if (p.iterationWrap > 63) failAt(path() + ".iteration_wrap", "must be at most 63");
    if (p.repeatCount < 1 || p.repeatCount > 256) failAt(path() + ".repeat_count", "must be in 1..256");
  }

  void checkRoutes() const {
    for (size_t i = 0; i < plan_.routes.size(); ++i) {
      const PlanRoute &r = plan_.routes[i];
      checkChannelIndex(r.channel, RowPath{"routes", i, "channel"});
      checkTile(r.tile, RowPath{"routes", i, "tile"});
      TileKind kind = r.tile.kind();
      if (r.kind == RouteKind::ShimMux && kind != TileKind::Shim)
        failAt(row("routes", i, "kind"), "a shim-mux route needs a shim tile, found " + tileText(r.tile));
      const auto &slaves = r.kind == RouteKind::ShimMux ? kShimMuxPorts : resourcesOf(kind).slaves;
      const auto &masters = r.kind == RouteKind::ShimMux ? kShimMuxPorts : resourcesOf(kind).masters;
      checkPort(r.source, slaves[size_t(r.source.bundle)], RowPath{"routes", i, "source"}, r.tile);
      checkPort(r.destination, masters[size_t(r.destination.bundle)], RowPath{"routes", i, "destination"}, r.tile);
    }
  }

  void checkPort(SwitchPort port, uint32_t available, const RowPath &path, TileCoord tile) const {
    if (port.index >= available)
      failAt(path.text(), std::string(nameOf(kBundles, port.bundle)) + "[" + std::to_string(port.index) +
                              "] does not exist on tile " + tileText(tile) + " (" + std::to_string(available) +
                              " ports)");
  }

  const ArrayPlan &plan_;
};

}  // namespace

TileKind TileCoord::kind() const {
  if (row == npu5::kShimRow) return TileKind::Shim;
  if (row == npu5::kMemTileRow) return TileKind::MemTile;
  return TileKind::Compute;
}

std::string_view tileKindName(TileKind kind) { return nameOf(kTileKinds, kind); }
std::string_view planAccessName(PlanAccess access) { return nameOf(kAccesses, access); }
std::string_view transportName(Transport transport) { return nameOf(kTransports, transport); }

Status validateArrayPlan(const ArrayPlan &plan) {
  return guarded("array plan '" + plan.name + "': ", [&]() -> Status {
    PlanValidator(plan).run();
    return Status::ok();
  });
}

namespace {

// `read(plan)` runs on each plan as soon as it is read.
template <typename Object, typename F> std::vector<ArrayPlan> readPlans(Object &top, F &&read) {
  if (top.string("format") != "hrx.array-plan") failAt("format", "expected \"hrx.array-plan\"");
  if (top.u64("version") != 1) failAt("version", "expected 1 (this reader knows version 1 only)");
  return readRows<ArrayPlan>(top, "plans", [&](Object &row) {
    ArrayPlan plan = readPlan(row);
    read(plan);
    return plan;
  });
}

std::optional<std::vector<ArrayPlan>> readCanonicalPlans(std::string_view json) {
  try {
    const char *cursor = json.data(), *end = json.data() + json.size();
    CanonicalObject top(cursor, end);
    std::vector<ArrayPlan> plans = readPlans(top, [](const ArrayPlan &) {});
    top.finish();
    while (cursor != end && (*cursor == '\n' || *cursor == ' ')) ++cursor;  // the writers end with a newline
    if (cursor != end) return std::nullopt;
    return plans;
  } catch (const NotCanonical &) {
    return std::nullopt;
  } catch (const FormatError &) {
    return std::nullopt;  // a reader's own check (format, version): the document reader reports it
  }
}

}  // namespace

StatusOr<std::vector<ArrayPlan>> readArrayPlans(std::string_view json) {
  return guarded("array plan: ", [&]() -> StatusOr<std::vector<ArrayPlan>> {
    // The writer's own form in one pass, then every plan validated; any other text through the
    // document reader, which validates each plan once read and reports every error.
    if (std::optional<std::vector<ArrayPlan>> plans = readCanonicalPlans(json)) {
      for (const ArrayPlan &plan : *plans) PlanValidator(plan).run();
      return std::move(*plans);
    }
    JsonDocument document = parseJson(json, "the document");
    JsonObject top(document.root(), "");
    std::vector<ArrayPlan> plans = readPlans(top, [](const ArrayPlan &plan) { PlanValidator(plan).run(); });
    top.finish();
    return plans;
  });
}

}  // namespace hrx::format
