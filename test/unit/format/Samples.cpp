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

namespace hrx::format::samples {

xdna::Image copyImage() {
  using namespace xdna;
  Image image;
  image.header.columns = 1;
  image.allocations = {{Domain::Command, 0, 128, 16, 0, 0}, {Domain::Dma, kDeviceWrite, 256, 64, 0, 0}};
  image.allocationUses = {0, 1};
  Entry entry;
  entry.name = "copy";
  entry.firstAllocationUse = 0;
  entry.allocationUseCount = 2;
  entry.bindingCount = 2;
  entry.staticRelocationCount = 1;
  entry.firstDynamicRelocation = 1;
  entry.dynamicRelocationCount = 2;
  entry.invocationCount = 2;
  image.entries = {entry};
  const uint64_t bytes = 1024;
  image.bindings = {Binding::buffer(kAccessRead, bytes, 4), Binding::buffer(kAccessWrite, bytes, 4)};
  // Static: the DMA allocation's address into the establish command; dynamic: the two binding
  // addresses into the repeat command.
  image.relocations = {{0, 1, 24, RelocationKind::ShimAddress, 0, 0, kMaxShimAddress, 4},
                       {0, 0, 88, RelocationKind::ShimAddress, 0, 0, kMaxShimAddress, 4},
                       {0, 1, 104, RelocationKind::ShimAddress, 0, 0, kMaxShimAddress, 4}};
  image.invocations = {{0, 0, 64, 1}, {0, 64, 64, 1}};
  std::vector<uint8_t> command;
  for (int half = 0; half < 2; ++half) {
    std::vector<uint8_t> header = encodeTransactionHeader({1, 3, 64});
    command.insert(command.end(), header.begin(), header.end());
    for (uint32_t i = 16; i < 64; ++i) command.push_back(uint8_t(i * 7 + half));
  }
  // Preserved control bits of the shim address fields (bit 0 of low, the high half).
  for (size_t field : {24u, 88u, 104u}) {
    command[field] = 0x01;
    command[field + 1] = command[field + 2] = command[field + 3] = 0;
    command[field + 4] = command[field + 5] = 0;
    command[field + 6] = command[field + 7] = 0xA5;
  }
  image.loads = {{0, 0, command, 128}, {1, 0, std::vector<uint8_t>(64, 0x5A), 256}};
  ArrayPlan plan = copyPlan();
  std::string planJson = writeArrayPlans(std::span(&plan, 1));
  auto asBytes = [](std::string_view text) { return std::vector<uint8_t>(text.begin(), text.end()); };
  image.sections = {
      {std::string(kContractSection),
       asBytes(R"({"version":1,"contracts":{"copy":{"bindings":[{"bytes":1024,"alignment":4,"access":"Read","layout":"64 x u8 records"},)"
               R"({"bytes":1024,"alignment":4,"access":"Write","layout":"64 x u8 records"}],"constants":[]}}})"),
       false},
      {std::string(kPlanSection), asBytes(planJson), false},
      {std::string(kHostSection), std::vector<uint8_t>(4096, 0x90), true},
  };
  return image;
}

}  // namespace hrx::format::samples
