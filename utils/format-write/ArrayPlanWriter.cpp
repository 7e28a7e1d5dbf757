#include "hrx/format/ArrayPlanWriter.h"

#include "hrx/support/Text.h"

#include "ArrayPlanNames.h"
#include "JsonFields.h"

#include <sstream>

namespace hrx::format {
using namespace detail;

namespace {

using text::hex;  // hrx/support/Text.h

// ---- JSON form ------------------------------------------------------------------------------

Json tileJson(TileCoord t) { return Json::array({t.column, t.row}); }

Json dimsJson(const std::vector<AccessDim> &dims) {
  Json out = Json::array();
  for (const AccessDim &d : dims) out.push_back({{"size", d.size}, {"stride", d.strideBytes}});
  return out;
}

Json endJson(const ChannelEnd &end) {
  if (end.worker) return {{"worker", end.worker->worker}, {"port", end.worker->port}};
  const BindingTransfer &t = *end.binding;
  return {{"binding", t.binding},         {"offset", t.byteOffset},          {"run_bytes", t.runBytes},
          {"dims", dimsJson(t.dims)},     {"record_stride", t.recordStride}, {"record_count", t.recordCount},
          {"repeat_count", t.repeatCount}};
}

Json planJson(const ArrayPlan &plan) {
  Json j;
  j["name"] = plan.name;
  j["family"] = plan.family;
  j["columns"] = plan.columns;
  j["groups"] = plan.groups;
  Json &bindings = j["bindings"] = Json::array();
  for (const PlanBinding &b : plan.bindings)
    bindings.push_back({{"ordinal", b.ordinal}, {"access", nameOf(kAccesses, b.access)}, {"bytes", b.bytes}});
  Json &workers = j["workers"] = Json::array();
  for (const PlanWorker &w : plan.workers) {
    Json ports = Json::array();
    for (const WorkerPort &p : w.ports) {
      Json port{{"direction", nameOf(kDirections, p.direction)}};
      if (p.channel) port["channel"] = *p.channel;
      port["record_bytes"] = p.recordBytes;
      port["period"] = p.period;
      ports.push_back(std::move(port));
    }
    workers.push_back({{"entry", w.entry},
                       {"group", w.group},
                       {"lane", w.lane},
                       {"tile", tileJson(w.tile)},
                       {"code_bytes", w.codeBytes},
                       {"iterations", w.iterations},
                       {"ports", std::move(ports)}});
  }
  Json &channels = j["channels"] = Json::array();
  for (const PlanChannel &c : plan.channels) {
    Json ch{{"transport", nameOf(kTransports, c.transport)},
            {"record_bytes", c.recordBytes},
            {"capacity", c.capacity},
            {"sender", endJson(c.sender)},
            {"receiver", endJson(c.receiver)}};
    if (c.partition)
      ch["partition"] = {
          {"lane", c.partition->lane}, {"lanes", c.partition->lanes}, {"lane_bytes", c.partition->laneBytes}};
    channels.push_back(std::move(ch));
  }
  Json &slots = j["slots"] = Json::array();
  for (const PlanSlot &s : plan.slots) {
    Json slot{{"channel", s.channel},
              {"index", s.index},
              {"owner", tileJson(s.owner)},
              {"offset", s.offset},
              {"bytes", s.bytes}};
    if (s.senderAddress) slot["sender_address"] = *s.senderAddress;
    if (s.receiverAddress) slot["receiver_address"] = *s.receiverAddress;
    slots.push_back(std::move(slot));
  }
  Json &locks = j["locks"] = Json::array();
  for (const PlanLock &l : plan.locks)
    locks.push_back({{"channel", l.channel},
                     {"tile", tileJson(l.tile)},
                     {"id", l.id},
                     {"role", nameOf(kLockRoles, l.role)},
                     {"initial", l.initial}});
  Json &dmas = j["dma"] = Json::array();
  for (const PlanDma &d : plan.dmas) {
    Json dma{{"channel", d.channel},
             {"tile", tileJson(d.tile)},
             {"direction", nameOf(kDmaDirections, d.direction)},
             {"engine_channel", d.engineChannel},
             {"bd_start", d.bdStart},
             {"bd_count", d.bdCount}};
    if (const auto &p = d.shimPattern)
      dma["shim_bd"] = {{"binding", p->binding},
                        {"address", p->address},
                        {"length_words", p->lengthWords},
                        {"dims", dimsJson(p->dims)},
                        {"iteration_step_words", p->iterationStepWords},
                        {"iteration_wrap", p->iterationWrap},
                        {"repeat_count", p->repeatCount}};
    dmas.push_back(std::move(dma));
  }
  Json &routes = j["routes"] = Json::array();
  auto portJson = [](SwitchPort p) { return Json{{"bundle", nameOf(kBundles, p.bundle)}, {"index", p.index}}; };
  for (const PlanRoute &r : plan.routes)
    routes.push_back({{"channel", r.channel},
                      {"tile", tileJson(r.tile)},
                      {"kind", nameOf(kRouteKinds, r.kind)},
                      {"source", portJson(r.source)},
                      {"destination", portJson(r.destination)}});
  return j;
}

// ---- text form ------------------------------------------------------------------------------

std::string endText(const ChannelEnd &end) {
  if (end.worker) return "w" + std::to_string(end.worker->worker) + "." + std::to_string(end.worker->port);
  const BindingTransfer &t = *end.binding;
  std::string text = "b" + std::to_string(t.binding) + "[" + hex(t.byteOffset) +
                     " stride=" + std::to_string(t.recordStride) + " records=" + std::to_string(t.recordCount);
  if (t.repeatCount != 1) text += " repeat=" + std::to_string(t.repeatCount);
  if (!t.dims.empty()) {
    text += " run=" + std::to_string(t.runBytes) + " dims=";
    for (size_t d = 0; d < t.dims.size(); ++d)
      text += (d ? "," : "") + std::to_string(t.dims[d].size) + ":" + std::to_string(t.dims[d].strideBytes);
  }
  return text + "]";
}
std::string portText(SwitchPort p) {
  return std::string(nameOf(kBundles, p.bundle)) + "[" + std::to_string(p.index) + "]";
}
}  // namespace

std::string writeArrayPlans(std::span<const ArrayPlan> plans, int indent) {
  Json doc{{"format", "hrx.array-plan"}, {"version", 1}, {"plans", Json::array()}};
  for (const ArrayPlan &plan : plans) doc["plans"].push_back(planJson(plan));
  return doc.dump(indent) + "\n";
}

std::string printArrayPlan(const ArrayPlan &plan) {
  std::ostringstream out;
  out << "array @" << plan.name << " family=" << plan.family << " columns=" << plan.columns << " groups=" << plan.groups
      << " workers=" << plan.workers.size() << " bindings=" << plan.bindings.size()
      << " channels=" << plan.channels.size() << " slots=" << plan.slots.size() << " locks=" << plan.locks.size()
      << " dma=" << plan.dmas.size() << " routes=" << plan.routes.size() << "\n";
  for (size_t i = 0; i < plan.bindings.size(); ++i)
    out << "  binding index=" << i << " ordinal=" << plan.bindings[i].ordinal
        << " access=" << planAccessName(plan.bindings[i].access) << " bytes=" << plan.bindings[i].bytes << "\n";
  for (size_t i = 0; i < plan.workers.size(); ++i) {
    const PlanWorker &w = plan.workers[i];
    out << "  worker index=" << i << " group=" << w.group << " lane=" << w.lane << " entry=@" << w.entry
        << " tile=" << tileText(w.tile) << " code-bytes=" << w.codeBytes << " iterations=" << w.iterations << "\n";
  }
  for (size_t i = 0; i < plan.channels.size(); ++i) {
    const PlanChannel &c = plan.channels[i];
    out << "  channel index=" << i << " transport=" << transportName(c.transport) << " record-bytes=" << c.recordBytes
        << " capacity=" << c.capacity << " sender=" << endText(c.sender) << " receiver=" << endText(c.receiver);
    if (c.partition) out << " partition=" << c.partition->lane << "/" << c.partition->lanes;
    out << "\n";
  }
  for (size_t i = 0; i < plan.workers.size(); ++i)
    for (size_t p = 0; p < plan.workers[i].ports.size(); ++p) {
      const WorkerPort &port = plan.workers[i].ports[p];
      out << "  worker-port worker=" << i << " port=" << p << " direction=" << nameOf(kDirections, port.direction);
      if (port.channel) out << " channel=" << *port.channel;
      out << " record-bytes=" << port.recordBytes;
      if (port.period != 1) out << " period=" << port.period;
      out << "\n";
    }
  for (const PlanSlot &s : plan.slots)
    out << "  slot channel=" << s.channel << " index=" << s.index << " owner=" << tileText(s.owner)
        << " offset=" << hex(s.offset) << " bytes=" << s.bytes
        << " sender=" << (s.senderAddress ? hex(*s.senderAddress) : "external")
        << " receiver=" << (s.receiverAddress ? hex(*s.receiverAddress) : "external") << "\n";
  for (const PlanLock &l : plan.locks)
    out << "  lock channel=" << l.channel << " tile=" << tileText(l.tile) << " id=" << l.id
        << " role=" << nameOf(kLockRoles, l.role) << " initial=" << l.initial << "\n";
  for (const PlanDma &d : plan.dmas) {
    out << "  dma channel=" << d.channel << " tile=" << tileText(d.tile) << " side=" << tileKindName(d.tile.kind())
        << " direction=" << nameOf(kDmaDirections, d.direction) << " engine-channel=" << d.engineChannel
        << " bd-start=" << d.bdStart << " bd-count=" << d.bdCount;
    if (const auto &p = d.shimPattern) {
      out << " binding=" << p->binding << " address=" << hex(p->address) << " length-words=" << p->lengthWords;
      for (size_t k = 0; k < p->dims.size(); ++k)
        out << " d" << k << "=" << p->dims[k].size << ":" << p->dims[k].strideBytes / 4;
      if (p->iterationWrap) out << " iteration=" << p->iterationWrap << ":" << p->iterationStepWords;
      out << " repeat=" << p->repeatCount;
    }
    out << "\n";
  }
  for (const PlanRoute &r : plan.routes)
    out << "  route channel=" << r.channel << " tile=" << tileText(r.tile) << " kind=" << nameOf(kRouteKinds, r.kind)
        << " source=" << portText(r.source) << " destination=" << portText(r.destination) << "\n";
  return out.str();
}

}  // namespace hrx::format
