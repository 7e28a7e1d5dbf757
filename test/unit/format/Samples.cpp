#include "Samples.h"

#include "hrx/format/ArrayPlanWriter.h"
#include "hrx/format/IdentityWriter.h"
#include "hrx/format/XdnaWriter.h"

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
      plan.slots.push_back({c, s, core, offset, recordBytes,
                            c == 1 ? std::optional<uint32_t>(0x70000 + offset) : std::nullopt,
                            c == 0 ? std::optional<uint32_t>(0x70000 + offset) : std::nullopt});
    }
  plan.locks = {{0, core, 0, LockRole::Credit, 2},
                {0, core, 1, LockRole::Ready, 0},
                {1, core, 2, LockRole::Credit, 2},
                {1, core, 3, LockRole::Ready, 0}};
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
       asBytes(
           R"({"version":1,"contracts":{"copy":{"bindings":[{"bytes":1024,"alignment":4,"access":"Read","layout":"64 x u8 records"},)"
           R"({"bytes":1024,"alignment":4,"access":"Write","layout":"64 x u8 records"}],"constants":[]}}})"),
       false},
      {std::string(kPlanSection), asBytes(planJson), false},
      {std::string(kHostSection), hostObject(), true},
  };
  return image;
}

}  // namespace hrx::format::samples

#include "hrx/format/Elf64Writer.h"
#include "hrx/format/FatWriter.h"

namespace hrx::format::samples {

namespace {
std::vector<uint8_t> asBytes(std::string_view text) { return {text.begin(), text.end()}; }
}  // namespace

ArtifactIdentity xdnaIdentity() {
  ArtifactIdentity id;
  id.compilerName = "hrxcc";
  id.compilerVersion = "0.1.0";
  id.llvmVersion = "22.1.8";
  id.compilerDigest = std::string(64, 'a');
  id.target = "amd.xdna.strix_halo.17f0_11";
  id.symbol = "copy";
  id.config = {{"copy.packets", "16"}};
  id.reportMode = "summary";
  id.optionsDigest = std::string(64, 'b');
  id.referenceOnly = true;
  id.referenceOnlyReason = "no AIE2P code generator is available: the cores carry no native code";
  return id;
}

std::string xdnaReportJson(std::string_view mode, uint64_t programBytes) {
  return R"({"compiler":")" + std::string(64, 'a') +
         R"(","target":"amd.xdna.strix_halo.17f0_11","processor_mode":"Default",)"
         R"("document":{"kind":"loom.compile_report","schema_version":0,"backend":"xdna-aie2p",)"
         R"("target_key":"amd.xdna.strix_halo.17f0_11","mode":")" +
         std::string(mode) +
         R"(",)"
         R"("entries":{"count":1,"rows":[{"function":"copy","array":{"columns":1,"worker_count":1,"channel_count":2,)"
         R"("max_tile_slot_bytes":256,"locks":{"used":4,"available":16},"buffer_descriptors":{"used":4,"available":16},)"
         R"("dma_channels":{"used":4,"available":4},"binding_count":2,"program_bytes_estimate":)" +
         std::to_string(programBytes) + "}}]}}}";
}

std::string amdgpuReportJson(int64_t codeBytes, int64_t vgprs, std::string_view compiler) {
  std::string row = R"({"function":"fill")";
  if (codeBytes >= 0) row += R"(,"code_byte_count":)" + std::to_string(codeBytes);
  if (vgprs >= 0) row += R"(,"target_resources":{"vector":{"final":{"register_count":)" + std::to_string(vgprs) + "}}}";
  row += "}";
  return R"({"compiler":")" + std::string(compiler) +
         R"(","target":"gfx1151","processor_mode":"Default",)"
         R"("document":{"kind":"loom.compile_report","schema_version":0,"backend":"amdgpu-hsaco","target_key":"gfx1151","mode":"summary",)"
         R"("entries":{"count":1,"rows":[)" +
         row + R"(]},"wait_reason_summary_rows":{"count":0}}})";
}

std::vector<uint8_t> copyImageBytes(bool withReport) {
  xdna::Image image = copyImage();
  image.sections.push_back({std::string(xdna::kIdentitySection), asBytes(writeIdentity(xdnaIdentity())), false});
  if (withReport) image.sections.push_back({std::string(xdna::kReportSection), asBytes(xdnaReportJson()), false});
  return xdna::writeImage(image).value();
}

std::vector<uint8_t> elf64Object(uint16_t machine, uint32_t eflags, size_t textBytes) {
  // ELF64 header | .text | .shstrtab | section headers (null, .text, .shstrtab).
  std::vector<uint8_t> b(64, 0);
  auto put = [&](size_t at, uint64_t v, unsigned width) {
    for (unsigned i = 0; i < width; ++i) b[at + i] = uint8_t(v >> (8 * i));
  };
  const uint8_t ident[] = {0x7F,
                           'E',
                           'L',
                           'F',
                           2,
                           1,
                           1,
                           uint8_t(machine == 224 ? 64 : 0),
                           uint8_t(machine == 224 ? 3 : 0)};  // AMDHSA, code object v5
  std::copy(std::begin(ident), std::end(ident), b.begin());
  put(16, 3, 2);  // ET_DYN
  put(18, machine, 2);
  put(20, 1, 4);
  put(48, eflags, 4);
  put(52, 64, 2);
  put(58, 64, 2);
  b.resize(64 + textBytes, 0xC3);
  const std::string names = std::string("\0.text\0.shstrtab\0", 17);
  size_t namesOffset = b.size();
  b.insert(b.end(), names.begin(), names.end());
  while (b.size() % 8) b.push_back(0);
  size_t shoff = b.size();
  b.resize(shoff + 3 * 64, 0);
  auto shdr = [&](int i, uint32_t name, uint32_t type, uint64_t flags, uint64_t offset, uint64_t size) {
    size_t at = shoff + size_t(i) * 64;
    put(at, name, 4), put(at + 4, type, 4), put(at + 8, flags, 8), put(at + 24, offset, 8), put(at + 32, size, 8),
        put(at + 48, 1, 8);
  };
  shdr(1, 1, 1, 6, 64, textBytes);
  shdr(2, 7, 3, 0, namesOffset, names.size());
  put(40, shoff, 8);
  put(60, 3, 2);
  put(62, 2, 2);
  return b;
}

std::vector<uint8_t> hostObject() { return elf64Object(62, 0, 4096); }

std::vector<uint8_t> hsacoBytes() {
  std::vector<uint8_t> b = elf64Object(224, 0x04a, 16);  // EF_AMDGPU_MACH_AMDGCN_GFX1151
  ArtifactIdentity id = xdnaIdentity();
  id.target = "gfx1151";
  id.symbol = "fill";
  id.referenceOnly = false;
  id.referenceOnlyReason.clear();
  std::vector<SectionPayload> sections = {
      // fill(value: f32, out: buffer)
      {std::string(kManifestSection),
       asBytes(R"({"schema_version":1,"target":"gfx1151","code_object_version":5,"processor_mode":"Default",)"
               R"("exports":[{"name":"fill","kernarg_bytes":16,"arguments":[{"offset":0,"size":4,"kind":"value"},)"
               R"({"offset":8,"size":8,"kind":"buffer"}],"binding_count":1,"constant_bytes":4,"lds_bytes":0,)"
               R"("private_bytes":0,"wavefront_size":32,"max_flat_workgroup_size":256,"resources":{"code_bytes":64,)"
               R"("vgpr_count":2,"sgpr_count":4,"vgpr_spill_count":0,"sgpr_spill_count":0,)"
               R"("occupancy_waves_per_simd":16,"workgroup_processor_mode":true}}]})"),
       false},
      {std::string(kLaunchSection),
       asBytes(R"({"schema_version":1,"exports":[{"name":"fill","symbol":"fill","workload_bits":[64],)"
               R"("evaluator":"hrx.launch.fill"}]})"),
       false},
      {std::string(xdna::kContractSection),
       asBytes(
           R"({"version":1,"contracts":{"fill":{"bindings":[{"bytes":4096,"alignment":4,"access":"Write","layout":"u32[1024]"}],"constants":[0,0,128,63]}}})"),
       false},
      {std::string(xdna::kIdentitySection), asBytes(writeIdentity(id)), false},
      {std::string(xdna::kReportSection), asBytes(amdgpuReportJson(256, 8)), false},
      {std::string(xdna::kHostSection), hostObject(), true},
  };
  return appendElf64Sections(b, sections).value();
}

std::vector<uint8_t> fatBytes() {
  std::vector<FatEntry> entries(2);
  entries[0].strings = {{"triple", "aie2p-amd-xdna"}, {"arch", "amd.xdna.strix_halo.17f0_11"}};
  entries[0].image = copyImageBytes();
  entries[1].offloadKind = kOffloadHip;
  entries[1].strings = {{"triple", "amdgcn-amd-amdhsa"}, {"arch", "gfx1151"}};
  entries[1].image = hsacoBytes();
  return writeFat(entries);
}

}  // namespace hrx::format::samples

namespace hrx::format::samples {

ArrayPlan splitKPlan(uint32_t records) {
  constexpr uint32_t kRecord = 16;
  const uint64_t laneBytes = uint64_t(records) * kRecord;
  ArrayPlan plan;
  plan.name = "split_k";
  plan.columns = 1;
  plan.groups = 2;
  plan.bindings = {{0, PlanAccess::Read, 2 * laneBytes}, {1, PlanAccess::Write, kRecord}};
  const TileCoord lane0{0, 2}, reducer{0, 3}, lane1{0, 4}, shim{0, 0};
  auto stage = [&](uint32_t lane, TileCoord tile, uint32_t in, uint32_t out) {
    return PlanWorker{"stage",
                      0,
                      lane,
                      tile,
                      256,
                      records,
                      {{PortDirection::Input, in, kRecord, 1}, {PortDirection::Output, out, kRecord, 1}}};
  };
  plan.workers = {stage(0, lane0, 0, 2), stage(1, lane1, 1, 3),
                  PlanWorker{"reduce",
                             1,
                             0,
                             reducer,
                             384,
                             records,
                             {{PortDirection::Input, 2, kRecord, 1},
                              {PortDirection::Input, 3, kRecord, 1},
                              {PortDirection::State, std::nullopt, kRecord, records},
                              {PortDirection::Output, 4, kRecord, records}}}};
  auto scatter = [&](uint32_t lane) {
    return ChannelEnd{BindingTransfer{0, lane * laneBytes, kRecord, {}, kRecord, records, 1}, {}};
  };
  auto port = [](uint32_t worker, uint32_t p) { return ChannelEnd{{}, WorkerEndpoint{worker, p}}; };
  plan.channels = {
      {Transport::ExternalDma, kRecord, 2, scatter(0), port(0, 0), Partition{0, 2, laneBytes}},
      {Transport::ExternalDma, kRecord, 2, scatter(1), port(1, 0), Partition{1, 2, laneBytes}},
      {Transport::NeighborMemory, kRecord, 2, port(0, 1), port(2, 0), {}},
      {Transport::NeighborMemory, kRecord, 2, port(1, 1), port(2, 1), {}},
      {Transport::ExternalDma,
       kRecord,
       2,
       port(2, 3),
       ChannelEnd{BindingTransfer{1, 0, kRecord, {}, kRecord, 1, 1}, {}},
       {}},
  };
  const TileCoord owners[] = {lane0, lane1, reducer, reducer, reducer};
  uint32_t nextOffset[6] = {};
  for (uint32_t c = 0; c < 5; ++c)
    for (uint32_t s = 0; s < 2; ++s) {
      uint32_t &offset = nextOffset[owners[c].row];
      plan.slots.push_back({c, s, owners[c], offset, kRecord, std::nullopt, std::nullopt});
      offset += 0x400;
    }
  uint32_t nextLock[6] = {};
  for (uint32_t c = 0; c < 5; ++c) {
    TileCoord t = owners[c];
    plan.locks.push_back({c, t, nextLock[t.row]++, LockRole::Credit, 2});
    plan.locks.push_back({c, t, nextLock[t.row]++, LockRole::Ready, 0});
  }
  auto pattern = [](uint32_t binding, uint64_t address, uint64_t bytes) {
    return BdPattern{binding, address, uint32_t(bytes / 4), {}, 0, 0, 1};
  };
  plan.dmas = {{0, shim, DmaDirection::MemoryToStream, 0, 0, 1, pattern(0, 0, laneBytes)},
               {0, lane0, DmaDirection::StreamToMemory, 0, 0, 1, {}},
               {1, shim, DmaDirection::MemoryToStream, 1, 1, 1, pattern(0, laneBytes, laneBytes)},
               {1, lane1, DmaDirection::StreamToMemory, 0, 0, 1, {}},
               {4, reducer, DmaDirection::MemoryToStream, 0, 0, 1, {}},
               {4, shim, DmaDirection::StreamToMemory, 0, 2, 1, pattern(1, 0, kRecord)}};
  return plan;
}

}  // namespace hrx::format::samples
