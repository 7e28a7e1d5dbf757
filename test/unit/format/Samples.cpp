#include "Samples.h"

namespace hrx::format::samples {

ArrayPlan copyPlan(uint32_t records, uint32_t recordBytes) {
  const uint64_t bytes = uint64_t(records) * recordBytes;
  ArrayPlan plan;
  plan.name = "copy";
  plan.columns = 1;
  plan.groups = 1;
  plan.bindings = {{0, PlanAccess::Read, bytes}, {1, PlanAccess::Write, bytes}};
  PlanWorker worker;
  worker.entry = "copy_stage";
  worker.tile = {0, 2};
  worker.codeBytes = 512;
  worker.iterations = records;
  worker.ports = {{PortDirection::Input, 0, recordBytes, 1}, {PortDirection::Output, 1, recordBytes, 1}};
  plan.workers = {worker};
  auto transfer = [&](uint32_t binding) {
    return BindingTransfer{binding, 0, recordBytes, {}, recordBytes, records, 1};
  };
  PlanChannel in{Transport::ExternalDma, recordBytes, 2, {transfer(0), {}}, {{}, WorkerEndpoint{0, 0}}, {}};
  PlanChannel out{Transport::ExternalDma, recordBytes, 2, {{}, WorkerEndpoint{0, 1}}, {transfer(1), {}}, {}};
  plan.channels = {in, out};
  const TileCoord core{0, 2}, shim{0, 0}, mem{0, 1};
  for (uint32_t c = 0; c < 2; ++c)
    for (uint32_t s = 0; s < 2; ++s) {
      uint32_t offset = (c * 2 + s) * 0x400;
      plan.slots.push_back({c, s, core, offset, recordBytes, c == 1 ? std::optional<uint32_t>(0x70000 + offset) : std::nullopt,
                            c == 0 ? std::optional<uint32_t>(0x70000 + offset) : std::nullopt});
    }
  plan.locks = {{0, core, 0, LockRole::Credit, 2}, {0, core, 1, LockRole::Ready, 0},
                {1, core, 2, LockRole::Credit, 2}, {1, core, 3, LockRole::Ready, 0}};
  auto pattern = [&](uint32_t binding) { return BdPattern{binding, 0, uint32_t(bytes / 4), {}, 0, 0, 1}; };
  plan.dmas = {{0, shim, DmaDirection::MemoryToStream, 0, 0, 1, pattern(0)},
               {0, core, DmaDirection::StreamToMemory, 0, 0, 1, {}},
               {1, core, DmaDirection::MemoryToStream, 0, 1, 1, {}},
               {1, shim, DmaDirection::StreamToMemory, 0, 1, 1, pattern(1)}};
  plan.routes = {{0, shim, RouteKind::ShimMux, {PortBundle::Dma, 0}, {PortBundle::North, 3}},
                 {0, shim, RouteKind::Switch, {PortBundle::South, 3}, {PortBundle::North, 0}},
                 {0, mem, RouteKind::Switch, {PortBundle::South, 0}, {PortBundle::North, 0}},
                 {0, core, RouteKind::Switch, {PortBundle::South, 0}, {PortBundle::Dma, 0}},
                 {1, core, RouteKind::Switch, {PortBundle::Dma, 0}, {PortBundle::South, 0}},
                 {1, mem, RouteKind::Switch, {PortBundle::North, 0}, {PortBundle::South, 0}},
                 {1, shim, RouteKind::Switch, {PortBundle::North, 0}, {PortBundle::South, 2}},
                 {1, shim, RouteKind::ShimMux, {PortBundle::South, 2}, {PortBundle::Dma, 0}}};
  return plan;
}

}  // namespace hrx::format::samples
