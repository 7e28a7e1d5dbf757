#include "hrx/format/ArrayPlanSvg.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace hrx::format {
namespace {

// Layout in pixels.
// A tile is a text area (worker, resources) on the left and a lane area on the right where the
// channels run, each in its own lane; horizontal runs use the free band at kLaneBandY.
constexpr int kTileWidth = 250, kTileHeight = 160, kGap = 18, kMargin = 24, kRowLabelWidth = 96;
constexpr int kTextWidth = 172, kLaneWidth = 7, kLanes = 9, kLaneBandY = 80;
constexpr int kTitleHeight = 46, kColumnLabelHeight = 20, kBusHeight = 26, kBindingHeight = 38;
constexpr int kLegendHeight = 40, kPanelGap = 28;

// What one tile offers (npu5-hardware §2.2; the same bounds validateArrayPlan enforces).
struct TileSupply {
  uint32_t dataBytes, locks, bds, dmaPerDirection;
};
TileSupply supplyOf(TileKind kind) {
  switch (kind) {
  case TileKind::Shim: return {0, 16, 16, 2};
  case TileKind::MemTile: return {npu5::kMemTileDataBytes, 64, 48, 6};
  case TileKind::Compute: return {npu5::kComputeDataBytes, 16, 16, 2};
  }
  return {0, 0, 0, 0};
}

// What the plan takes from one tile.
struct TileUse {
  uint32_t dataEnd = 0;  // highest slot end in data memory
  uint32_t locks = 0, bds = 0, streamToMemory = 0, memoryToStream = 0, routes = 0, codeBytes = 0;
  std::vector<uint32_t> workers;
  bool used() const {
    return dataEnd || locks || bds || streamToMemory || memoryToStream || routes || !workers.empty();
  }
};

enum class Level { Ok, Near, Full };
Level levelOf(uint64_t used, uint64_t supply) {
  if (supply == 0) return used ? Level::Full : Level::Ok;
  if (used >= supply) return Level::Full;
  if (used * 4 >= supply * 3) return Level::Near;
  return Level::Ok;
}
const char *levelClass(Level level) {
  switch (level) {
  case Level::Ok: return "ok";
  case Level::Near: return "near";
  case Level::Full: return "full";
  }
  return "ok";
}

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

// "1.5 KiB" with one decimal, integer arithmetic only (bytes below 1 KiB print as bytes).
std::string bytesText(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  uint64_t tenths = (bytes * 10 + 512) / 1024;
  return std::to_string(tenths / 10) + (tenths % 10 ? "." + std::to_string(tenths % 10) : "") + " KiB";
}

struct Point {
  int x = 0, y = 0;
  bool operator==(const Point &) const = default;
};

class PanelWriter {
public:
  PanelWriter(const ArrayPlan &plan, int top, std::ostringstream &out) : plan_(plan), top_(top), out_(out) {
    for (size_t i = 0; i < plan.workers.size(); ++i) {
      TileUse &u = use(plan.workers[i].tile);
      u.workers.push_back(uint32_t(i));
      u.codeBytes += plan.workers[i].codeBytes;
    }
    for (const PlanSlot &s : plan.slots) use(s.owner).dataEnd = std::max(use(s.owner).dataEnd, s.offset + s.bytes);
    for (const PlanLock &l : plan.locks) ++use(l.tile).locks;
    for (const PlanDma &d : plan.dmas) {
      TileUse &u = use(d.tile);
      u.bds += d.bdCount;
      ++(d.direction == DmaDirection::StreamToMemory ? u.streamToMemory : u.memoryToStream);
    }
    for (const PlanRoute &r : plan.routes) ++use(r.tile).routes;
  }

  static int width(const ArrayPlan &plan) {
    return std::max(2 * kMargin + kRowLabelWidth + int(plan.columns) * (kTileWidth + kGap), 560);
  }
  static int height() {
    return kTitleHeight + kColumnLabelHeight + int(npu5::kRows) * (kTileHeight + kGap) + kBusHeight + kBindingHeight +
           kLegendHeight;
  }

  void write() {
    out_ << "<g class=\"plan\" data-entry=\"" << escape(plan_.name) << "\">\n";
    out_ << "<text class=\"title\" x=\"" << kMargin << "\" y=\"" << top_ + 28 << "\">array @" << escape(plan_.name)
         << ": " << plan_.columns << " column(s), " << plan_.workers.size() << " worker(s), " << plan_.channels.size()
         << " channel(s), " << plan_.bindings.size() << " binding(s)</text>\n";
    for (uint32_t c = 0; c < plan_.columns; ++c)
      out_ << "<text class=\"axis\" x=\"" << tileLeft(c) + kTileWidth / 2 << "\" y=\"" << top_ + kTitleHeight + 12
           << "\" text-anchor=\"middle\">column " << c << "</text>\n";
    for (uint32_t r = 0; r < npu5::kRows; ++r) {
      const char *kind = r == npu5::kShimRow ? "shim" : r == npu5::kMemTileRow ? "memory tile" : "compute";
      out_ << "<text class=\"axis\" x=\"" << kMargin << "\" y=\"" << tileTop(r) + kTileHeight / 2 << "\">row " << r
           << "</text><text class=\"axis sub\" x=\"" << kMargin << "\" y=\"" << tileTop(r) + kTileHeight / 2 + 14
           << "\">" << kind << "</text>\n";
    }
    for (uint32_t r = npu5::kRows; r-- > 0;)
      for (uint32_t c = 0; c < plan_.columns; ++c) writeTile({c, r});
    for (size_t b = 0; b < plan_.bindings.size(); ++b) writeBinding(b);
    for (size_t i = 0; i < plan_.workers.size(); ++i) writeWorker(i);
    for (size_t i = 0; i < plan_.channels.size(); ++i) writeChannel(i);
    writeLegend();
    out_ << "</g>\n";
  }

private:
  TileUse &use(TileCoord t) { return uses_[{t.column, t.row}]; }
  int tileLeft(uint32_t column) const { return kMargin + kRowLabelWidth + int(column) * (kTileWidth + kGap); }
  int tileTop(uint32_t row) const {
    return top_ + kTitleHeight + kColumnLabelHeight + int(npu5::kRows - 1 - row) * (kTileHeight + kGap);
  }
  // Where channel `channel` crosses a tile: its own lane, in the band between the worker box and
  // the resource lines.
  Point lanePoint(TileCoord t, size_t channel) const {
    int lane = int(channel % kLanes);
    return {tileLeft(t.column) + kTextWidth + 6 + lane * kLaneWidth,
            tileTop(t.row) + kLaneBandY + (lane - kLanes / 2) * 2};
  }
  int busY(size_t channel) const { return tileTop(0) + kTileHeight + 6 + int(channel % kLanes) * 2; }
  int bindingTop() const { return tileTop(0) + kTileHeight + kBusHeight; }
  Point bindingAnchor(uint32_t binding) const {
    return {kMargin + kRowLabelWidth + int(binding) * 150 + 65, bindingTop()};
  }

  void resourceLine(int x, int y, const std::string &label, uint64_t used, uint64_t supply, const std::string &text) {
    out_ << "<text class=\"res " << levelClass(levelOf(used, supply)) << "\" x=\"" << x << "\" y=\"" << y << "\">"
         << label << " " << text << "</text>\n";
  }

  void writeTile(TileCoord t) {
    TileKind kind = t.kind();
    TileSupply supply = supplyOf(kind);
    auto found = uses_.find({t.column, t.row});
    TileUse u = found == uses_.end() ? TileUse{} : found->second;
    Level worst =
        std::max({levelOf(u.locks, supply.locks), levelOf(u.bds, supply.bds),
                  levelOf(u.streamToMemory, supply.dmaPerDirection), levelOf(u.memoryToStream, supply.dmaPerDirection),
                  supply.dataBytes ? levelOf(u.dataEnd, supply.dataBytes) : Level::Ok});
    const char *kindClass = kind == TileKind::Shim ? "shim" : kind == TileKind::MemTile ? "memtile" : "compute";
    int x = tileLeft(t.column), y = tileTop(t.row);
    out_ << "<g class=\"tile\" data-tile=\"" << t.column << "," << t.row << "\">\n";
    out_ << "<rect class=\"" << kindClass << (u.used() ? "" : " unused") << " edge-" << levelClass(worst) << "\" x=\""
         << x << "\" y=\"" << y << "\" width=\"" << kTileWidth << "\" height=\"" << kTileHeight << "\" rx=\"6\"/>\n";
    out_ << "<text class=\"coord\" x=\"" << x + kTileWidth - 6 << "\" y=\"" << y + 14 << "\" text-anchor=\"end\">("
         << t.column << "," << t.row << ")</text>\n";
    if (!u.used()) {
      out_ << "<text class=\"res idle\" x=\"" << x + 8 << "\" y=\"" << y + kTileHeight - 10
           << "\">unused</text>\n</g>\n";
      return;
    }
    int line = y + kTileHeight - 10 - 14 * (supply.dataBytes ? 3 : 2);
    int left = x + 8;
    if (supply.dataBytes) {
      resourceLine(left, line, "memory", u.dataEnd, supply.dataBytes,
                   bytesText(u.dataEnd) + " / " + bytesText(supply.dataBytes));
      line += 14;
    }
    resourceLine(left, line, "locks", u.locks, supply.locks,
                 std::to_string(u.locks) + "/" + std::to_string(supply.locks));
    resourceLine(left + 86, line, "BDs", u.bds, supply.bds, std::to_string(u.bds) + "/" + std::to_string(supply.bds));
    line += 14;
    uint32_t dma = std::max(u.streamToMemory, u.memoryToStream);
    resourceLine(left, line, "DMA", dma, supply.dmaPerDirection,
                 "in " + std::to_string(u.streamToMemory) + "/" + std::to_string(supply.dmaPerDirection) + ", out " +
                     std::to_string(u.memoryToStream) + "/" + std::to_string(supply.dmaPerDirection));
    line += 14;
    out_ << "<text class=\"res ok\" x=\"" << left << "\" y=\"" << line << "\">" << u.routes
         << " switch route(s)</text>\n";
    out_ << "</g>\n";
  }

  void writeBinding(size_t b) {
    const PlanBinding &binding = plan_.bindings[b];
    Point anchor = bindingAnchor(uint32_t(b));
    out_ << "<g class=\"binding\" data-binding=\"" << b << "\"><rect x=\"" << anchor.x - 65 << "\" y=\"" << anchor.y
         << "\" width=\"130\" height=\"38\" rx=\"4\"/><text x=\"" << anchor.x << "\" y=\"" << anchor.y + 16
         << "\" text-anchor=\"middle\">binding " << b << " (slot " << binding.ordinal
         << ")</text><text class=\"sub\" x=\"" << anchor.x << "\" y=\"" << anchor.y + 31 << "\" text-anchor=\"middle\">"
         << planAccessName(binding.access) << ", " << bytesText(binding.bytes) << "</text></g>\n";
  }

  void writeWorker(size_t i) {
    const PlanWorker &w = plan_.workers[i];
    int x = tileLeft(w.tile.column) + 8, y = tileTop(w.tile.row) + 20;
    out_ << "<g class=\"worker\" data-worker=\"" << i << "\" data-entry=\"" << escape(w.entry) << "\"><rect x=\"" << x
         << "\" y=\"" << y << "\" width=\"" << kTextWidth - 10
         << "\" height=\"40\" rx=\"4\"/><text class=\"entry\" x=\"" << x + 6 << "\" y=\"" << y + 16 << "\">@"
         << escape(w.entry) << "</text><text class=\"sub "
         << levelClass(levelOf(w.codeBytes, npu5::kProgramMemoryBytes)) << "\" x=\"" << x + 6 << "\" y=\"" << y + 32
         << "\">w" << i << " g" << w.group << ".l" << w.lane << ", " << w.iterations << " iter, code "
         << bytesText(w.codeBytes) << "</text></g>\n";
  }

  // Where a channel end sits, in path order for a sender: its worker's tile, or its binding and
  // the bus under the shim row up to the shim DMA's lane.
  std::vector<Point> endPoints(size_t channel, const ChannelEnd &end, bool sender) const {
    if (end.worker) return {lanePoint(plan_.workers[end.worker->worker].tile, channel)};
    std::vector<Point> points;
    if (end.binding) {
      Point anchor = bindingAnchor(end.binding->binding);
      int x = anchor.x - 40 + int(channel % kLanes) * 10;
      points.push_back({x, anchor.y});
      points.push_back({x, busY(channel)});
      DmaDirection direction = sender ? DmaDirection::MemoryToStream : DmaDirection::StreamToMemory;
      for (const PlanDma &d : plan_.dmas)
        if (d.channel == channel && d.direction == direction && d.tile.kind() == TileKind::Shim) {
          Point shim = lanePoint(d.tile, channel);
          points.push_back({shim.x, busY(channel)});
          points.push_back(shim);
          break;
        }
    }
    return points;
  }

  void writeChannel(size_t i) {
    const PlanChannel &c = plan_.channels[i];
    std::vector<Point> points = endPoints(i, c.sender, true);
    if (c.transport == Transport::ExternalDma)
      for (const PlanRoute &r : plan_.routes)
        if (r.channel == i) {
          Point p = lanePoint(r.tile, i);
          if (points.empty() || !(points.back() == p)) points.push_back(p);
        }
    std::vector<Point> receiver = endPoints(i, c.receiver, false);
    std::reverse(receiver.begin(), receiver.end());
    for (const Point &p : receiver)
      if (points.empty() || !(points.back() == p)) points.push_back(p);
    if (points.size() == 1) points.push_back({points[0].x, points[0].y + 1});
    std::string sender = c.sender.worker
                             ? "@" + plan_.workers[c.sender.worker->worker].entry
                             : "binding " + std::to_string(c.sender.binding ? c.sender.binding->binding : 0);
    std::string receiverName = c.receiver.worker
                                   ? "@" + plan_.workers[c.receiver.worker->worker].entry
                                   : "binding " + std::to_string(c.receiver.binding ? c.receiver.binding->binding : 0);
    bool neighbor = c.transport == Transport::NeighborMemory;
    out_ << "<g class=\"channel\" data-channel=\"" << i << "\" data-transport=\"" << transportName(c.transport)
         << "\"><title>channel " << i << ": " << escape(sender) << " to " << escape(receiverName) << ", "
         << c.recordBytes << "-byte records, " << c.capacity << " slot(s)</title><path class=\""
         << (neighbor ? "route neighbor" : "route") << "\" d=\"";
    // Right-angled runs between lane points: vertical first, then horizontal in the lane band.
    std::vector<Point> path{points.front()};
    for (size_t k = 1; k < points.size(); ++k) {
      Point from = path.back(), to = points[k];
      if (from.x != to.x && from.y != to.y) path.push_back({from.x, to.y});
      path.push_back(to);
    }
    for (size_t k = 0; k < path.size(); ++k) out_ << (k ? " L " : "M ") << path[k].x << " " << path[k].y;
    out_ << "\" marker-end=\"url(#arrow)\"/>";
    // The label sits beside the arrow's last run, so it names the channel where it arrives.
    Point end = path.back(), before = path[path.size() - 2];
    int lx = (end.x + before.x) / 2 + 3, ly = (end.y + before.y) / 2 - 3 + int(i % 3) * 10;
    out_ << "<text class=\"label\" x=\"" << lx << "\" y=\"" << ly << "\">c" << i << " " << c.recordBytes
         << " B</text></g>\n";
  }

  void writeLegend() {
    int y = bindingTop() + kBindingHeight + 24;
    out_ << "<text class=\"legend\" x=\"" << kMargin << "\" y=\"" << y << "\">resources used / supply: "
         << "<tspan class=\"ok\">below 75%</tspan>, <tspan class=\"near\">75% or more</tspan>, "
         << "<tspan class=\"full\">at the limit</tspan>; arrows run sender to receiver; dashed: neighbor "
            "memory</text>\n";
  }

  const ArrayPlan &plan_;
  int top_;
  std::ostringstream &out_;
  std::map<std::pair<uint32_t, uint32_t>, TileUse> uses_;
};

constexpr const char *kStyle =
    "text{font-family:sans-serif;font-size:11px;fill:#1f2937}"
    ".title{font-size:16px;font-weight:bold}.axis{font-size:12px;fill:#374151}.sub{font-size:10px;fill:#4b5563}"
    ".coord{font-size:10px;fill:#6b7280}"
    "rect.shim{fill:#e0f2fe}rect.memtile{fill:#ede9fe}rect.compute{fill:#ecfdf5}rect.unused{fill:#f9fafb;stroke-"
    "dasharray:4 3}"
    ".tile rect{stroke:#9ca3af;stroke-width:1.5}.tile rect.edge-near{stroke:#d97706;stroke-width:3}"
    ".tile rect.edge-full{stroke:#dc2626;stroke-width:3}"
    ".worker rect{fill:#ffffff;stroke:#059669;stroke-width:1.5}.entry{font-weight:bold;font-size:12px}"
    ".binding rect{fill:#fef3c7;stroke:#b45309}"
    ".route{fill:none;stroke:#2563eb;stroke-width:2;stroke-opacity:0.8}.neighbor{stroke:#7c3aed;stroke-dasharray:6 4}"
    ".label{font-size:10px;fill:#1d4ed8;font-weight:bold}"
    ".res.ok,.ok{fill:#374151}.near{fill:#b45309;font-weight:bold}.full{fill:#b91c1c;font-weight:bold}.idle{fill:#"
    "9ca3af}"
    ".legend{font-size:11px}";

}  // namespace

std::string renderArrayPlanSvg(std::span<const ArrayPlan> plans) {
  int width = 560, height = 0;
  for (const ArrayPlan &plan : plans) {
    width = std::max(width, PanelWriter::width(plan));
    height += PanelWriter::height() + kPanelGap;
  }
  if (plans.empty()) height = 80;
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height << "\" class=\"hrx-array-plan\">\n"
      << "<style>" << kStyle << "</style>\n"
      << "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
         "orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#2563eb\"/></marker></defs>\n"
      << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height << "\" fill=\"#ffffff\"/>\n";
  if (plans.empty()) out << "<text x=\"24\" y=\"40\">no array plans</text>\n";
  int top = 0;
  for (const ArrayPlan &plan : plans) {
    PanelWriter(plan, top, out).write();
    top += PanelWriter::height() + kPanelGap;
  }
  out << "</svg>\n";
  return out.str();
}

}  // namespace hrx::format
