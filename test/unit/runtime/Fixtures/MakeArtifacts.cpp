// hrx-runtime-testgen OUTDIR HOST_MODULE: writes small artifacts for the hrx-run lit tests,
// through the format library's writers, with HOST_MODULE (the HostKernels fixture) as their
// host code. Until hrxcc emits these, they are the inputs the runner is tested on.
#include "hrx/format/ArrayPlan.h"
#include "hrx/format/Bundle.h"
#include "hrx/format/Elf64Writer.h"
#include "hrx/format/FatWriter.h"
#include "hrx/format/Identity.h"
#include "hrx/format/Xdna.h"
#include "hrx/format/ArrayPlanWriter.h"
#include "hrx/format/IdentityWriter.h"
#include "hrx/format/XdnaWriter.h"

#include <fstream>
#include <iostream>
#include <iterator>

using namespace hrx::format;

namespace {

std::vector<uint8_t> asBytes(std::string_view text) { return {text.begin(), text.end()}; }

// A pipeline of `stages` workers in column 0 (rows 2, 3, ...), each running `entry` on 64-byte
// records: binding 0 -> shim DMA -> worker 0 -> ... -> worker n-1 -> shim DMA -> binding 1.
ArrayPlan pipelinePlan(const std::string &name, const std::vector<std::string> &stages, uint32_t records) {
  constexpr uint32_t kRecord = 64;
  ArrayPlan plan;
  plan.name = name;
  plan.groups = static_cast<uint32_t>(stages.size());
  plan.bindings = {{0, PlanAccess::Read, uint64_t(records) * kRecord},
                   {1, PlanAccess::Write, uint64_t(records) * kRecord}};
  const TileCoord shim{0, 0}, mem{0, 1};
  auto transfer = [&](uint32_t binding) { return BindingTransfer{binding, 0, kRecord, {}, kRecord, records, 1}; };
  uint32_t channels = static_cast<uint32_t>(stages.size()) + 1;
  for (uint32_t w = 0; w < stages.size(); ++w) {
    PlanWorker worker;
    worker.entry = stages[w];
    worker.group = w;
    worker.tile = {0, 2 + w};
    worker.codeBytes = 256;
    worker.iterations = records;
    worker.ports = {{PortDirection::Input, w, kRecord, 1}, {PortDirection::Output, w + 1, kRecord, 1}};
    plan.workers.push_back(worker);
  }
  for (uint32_t c = 0; c < channels; ++c) {
    PlanChannel channel;
    channel.recordBytes = kRecord;
    channel.capacity = 2;
    bool first = c == 0, last = c + 1 == channels;
    channel.transport = first || last ? Transport::ExternalDma : Transport::NeighborMemory;
    if (first)
      channel.sender.binding = transfer(0);
    else
      channel.sender.worker = WorkerEndpoint{c - 1, 1};
    if (last)
      channel.receiver.binding = transfer(1);
    else
      channel.receiver.worker = WorkerEndpoint{c, 0};
    plan.channels.push_back(channel);
    // Ring slots live in the receiving core's memory (the sender's for the output channel).
    TileCoord owner{0, 2 + (last ? c - 1 : c)};
    for (uint32_t s = 0; s < 2; ++s) {
      uint32_t offset = (c * 2 + s) * 0x400;
      plan.slots.push_back({c, s, owner, offset, kRecord,
                            first ? std::nullopt : std::optional<uint32_t>(0x70000 + offset),
                            last ? std::nullopt : std::optional<uint32_t>(0x70000 + offset)});
    }
    plan.locks.push_back({c, owner, 2 * c, LockRole::Credit, 2});
    plan.locks.push_back({c, owner, 2 * c + 1, LockRole::Ready, 0});
    uint64_t bytes = uint64_t(records) * kRecord;
    if (first) {
      plan.dmas.push_back(
          {c, shim, DmaDirection::MemoryToStream, 0, 0, 1, BdPattern{0, 0, uint32_t(bytes / 4), {}, 0, 0, 1}});
      plan.dmas.push_back({c, owner, DmaDirection::StreamToMemory, 0, 0, 1, {}});
      plan.routes.push_back({c, shim, RouteKind::ShimMux, {PortBundle::Dma, 0}, {PortBundle::North, 3}});
      plan.routes.push_back({c, shim, RouteKind::Switch, {PortBundle::South, 3}, {PortBundle::North, 0}});
      plan.routes.push_back({c, mem, RouteKind::Switch, {PortBundle::South, 0}, {PortBundle::North, 0}});
      for (uint32_t row = 2; row < owner.row; ++row)
        plan.routes.push_back({c, {0, row}, RouteKind::Switch, {PortBundle::South, 0}, {PortBundle::North, 0}});
      plan.routes.push_back({c, owner, RouteKind::Switch, {PortBundle::South, 0}, {PortBundle::Dma, 0}});
    }
    if (last) {
      plan.dmas.push_back({c, owner, DmaDirection::MemoryToStream, 0, 1, 1, {}});
      plan.dmas.push_back(
          {c, shim, DmaDirection::StreamToMemory, 0, 1, 1, BdPattern{1, 0, uint32_t(bytes / 4), {}, 0, 0, 1}});
      plan.routes.push_back({c, owner, RouteKind::Switch, {PortBundle::Dma, 0}, {PortBundle::South, 0}});
      for (uint32_t row = owner.row - 1; row >= 2; --row)
        plan.routes.push_back({c, {0, row}, RouteKind::Switch, {PortBundle::North, 0}, {PortBundle::South, 0}});
      plan.routes.push_back({c, mem, RouteKind::Switch, {PortBundle::North, 0}, {PortBundle::South, 0}});
      plan.routes.push_back({c, shim, RouteKind::Switch, {PortBundle::North, 0}, {PortBundle::South, 2}});
      plan.routes.push_back({c, shim, RouteKind::ShimMux, {PortBundle::South, 2}, {PortBundle::Dma, 0}});
    }
  }
  return plan;
}

std::string sha256(const std::vector<uint8_t> &bytes) {
  Sha256 sha;
  sha.update(bytes);
  return sha.finishHex();
}

// `host` is the host code whose digest the identity records.
ArtifactIdentity identity(const std::string &target, const std::string &symbol, bool referenceOnly,
                          const std::vector<uint8_t> &host) {
  ArtifactIdentity id;
  id.hostSha256 = sha256(host);
  id.compilerName = "hrxcc";
  id.compilerVersion = "0.1.0";
  id.llvmVersion = "22.1.0";
  id.target = target;
  id.symbol = symbol;
  id.referenceOnly = referenceOnly;
  if (referenceOnly) id.referenceOnlyReason = "no AIE2P code generator is available: the cores carry no native code";
  return id;
}

// A one-entry .xdna image: a COMMAND allocation with the establish and repeat transactions
// (invocations 0 -> 1 -> 1) and two BUFFER bindings of `bytes` bytes, carrying `plan`. The
// identity records the digest of `identityHost` (default: `host`).
std::vector<uint8_t> xdnaImage(const ArrayPlan &plan, const std::vector<uint8_t> &host, bool referenceOnly,
                               uint16_t columns = 1, uint64_t profileId = xdna::kStrixHalo.id,
                               const std::vector<uint8_t> *identityHost = nullptr) {
  using namespace xdna;
  uint64_t bytes = plan.bindings[0].bytes;
  Image image;
  image.header.columns = columns;
  image.header.profileId = profileId;
  ArrayPlan planForImage = plan;
  planForImage.columns = columns;
  image.allocations = {{Domain::Command, 0, 128, 16, 0, 0}};
  image.allocationUses = {0};
  Entry entry;
  entry.name = plan.name;
  entry.allocationUseCount = 1;
  entry.bindingCount = 2;
  entry.firstDynamicRelocation = 0;
  entry.dynamicRelocationCount = 2;
  entry.invocationCount = 2;
  image.entries = {entry};
  image.bindings = {Binding::buffer(kAccessRead, bytes, 64), Binding::buffer(kAccessWrite, bytes, 64)};
  image.relocations = {{0, 0, 88, RelocationKind::ShimAddress, 0, 0, kMaxShimAddress, 4},
                       {0, 1, 104, RelocationKind::ShimAddress, 0, 0, kMaxShimAddress, 4}};
  image.invocations = {{0, 0, 64, 1}, {0, 64, 64, 1}};
  std::vector<uint8_t> command;
  for (int half = 0; half < 2; ++half) {
    std::vector<uint8_t> header = encodeTransactionHeader({static_cast<uint8_t>(columns), 1, 64});
    command.insert(command.end(), header.begin(), header.end());
    command.resize(command.size() + 48, 0);
  }
  image.loads = {{0, 0, command, 128}};
  std::string contract =
      R"({"version":1,"contracts":{")" + plan.name + R"(":{"bindings":[{"bytes":)" + std::to_string(bytes) +
      R"(,"alignment":64,"access":"Read","layout":"i32 records"},{"bytes":)" + std::to_string(bytes) +
      R"(,"alignment":64,"access":"Write","layout":"i32 records"}],"constants":[]}}})";
  image.sections = {{std::string(kContractSection), asBytes(contract), false},
                    {std::string(kPlanSection), asBytes(writeArrayPlans(std::span(&planForImage, 1))), false},
                    {std::string(kHostSection), host, true},
                    {std::string(kIdentitySection),
                     asBytes(writeIdentity(identity("amd.xdna.strix_halo.17f0_11", plan.name, referenceOnly,
                                                    identityHost ? *identityHost : host))),
                     false}};
  auto written = writeImage(image);
  if (!written.isOk()) {
    std::cerr << "hrx-runtime-testgen: " << written.status().message() << "\n";
    std::exit(1);
  }
  return std::move(written).value();
}

// An AMDGPU (gfx1151) code object with no device code, carrying the vadd contract and host code.
std::vector<uint8_t> hsaco(const std::vector<uint8_t> &host) {
  std::vector<uint8_t> b(64, 0);
  auto put = [&](size_t at, uint64_t v, unsigned width) {
    for (unsigned i = 0; i < width; ++i) b[at + i] = uint8_t(v >> (8 * i));
  };
  const uint8_t ident[] = {0x7F, 'E', 'L', 'F', 2, 1, 1, 64, 4};
  std::copy(std::begin(ident), std::end(ident), b.begin());
  put(16, 3, 2);    // ET_DYN
  put(18, 224, 2);  // EM_AMDGPU
  put(20, 1, 4);
  put(48, 0x04a, 4);  // EF_AMDGPU_MACH_AMDGCN_GFX1151
  put(52, 64, 2);
  put(58, 64, 2);
  const std::string names("\0.shstrtab\0", 11);
  size_t namesOffset = b.size();
  b.insert(b.end(), names.begin(), names.end());
  while (b.size() % 8) b.push_back(0);
  size_t shoff = b.size();
  b.resize(shoff + 2 * 64, 0);
  size_t at = shoff + 64;
  put(at, 1, 4), put(at + 4, 3, 4), put(at + 24, namesOffset, 8), put(at + 32, names.size(), 8), put(at + 48, 1, 8);
  put(40, shoff, 8);
  put(60, 2, 2);
  put(62, 1, 2);
  std::string contract = R"({"version":1,"contracts":{"vadd":{"bindings":[)"
                         R"({"bytes":256,"alignment":4,"access":"Write","layout":"i32[64] out"},)"
                         R"({"bytes":256,"alignment":4,"access":"Read","layout":"i32[64] a"},)"
                         R"({"bytes":256,"alignment":4,"access":"Read","layout":"i32[64] b"}],"constants":[]}}})";
  std::vector<SectionPayload> sections = {
      {std::string(xdna::kContractSection), asBytes(contract), false},
      {std::string(xdna::kHostSection), host, true},
      {std::string(xdna::kIdentitySection), asBytes(writeIdentity(identity("gfx1151", "vadd", false, host))), false}};
  auto written = appendElf64Sections(b, sections);
  if (!written.isOk()) {
    std::cerr << "hrx-runtime-testgen: " << written.status().message() << "\n";
    std::exit(1);
  }
  return std::move(written).value();
}

void write(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::cerr << "hrx-runtime-testgen: cannot write " << path << "\n";
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::cerr << "usage: hrx-runtime-testgen OUTDIR HOST_MODULE\n";
    return 1;
  }
  std::string dir = argv[1];
  std::ifstream in(argv[2], std::ios::binary);
  std::vector<uint8_t> host((std::istreambuf_iterator<char>(in)), {});
  if (host.empty()) {
    std::cerr << "hrx-runtime-testgen: cannot read " << argv[2] << "\n";
    return 1;
  }
  write(dir + "/copy.xdna", xdnaImage(pipelinePlan("copy", {"copy64"}, 4), host, true));
  write(dir + "/add_one.xdna", xdnaImage(pipelinePlan("add_one", {"add_one64", "copy64"}, 4), host, true));
  write(dir + "/copy2col.xdna", xdnaImage(pipelinePlan("copy", {"copy64"}, 4), host, true, 2));
  write(dir + "/slow.xdna", xdnaImage(pipelinePlan("slow", {"slow_copy64"}, 4), host, true));
  write(dir + "/strix.xdna", xdnaImage(pipelinePlan("copy", {"copy64"}, 4), host, false, 1,
                                       0x5354524958000001ull));  // the Strix (NPU4) profile
  write(dir + "/native.xdna", xdnaImage(pipelinePlan("copy", {"copy64"}, 4), host, false));
  write(dir + "/vadd.hsaco", hsaco(host));
  // Host code that is not what the identity's host_sha256 records.
  std::vector<uint8_t> other = host;
  other.back() ^= 1;
  write(dir + "/tampered.xdna",
        xdnaImage(pipelinePlan("copy", {"copy64"}, 4), other, true, 1, xdna::kStrixHalo.id, &host));
  std::vector<FatEntry> fat(2);
  fat[0].strings = {{"triple", "aie2p-amd-xdna"}, {"arch", "amd.xdna.strix_halo.17f0_11"}};
  fat[0].image = xdnaImage(pipelinePlan("copy", {"copy64"}, 4), host, true);
  fat[1].offloadKind = kOffloadHip;
  fat[1].strings = {{"triple", "amdgcn-amd-amdhsa"}, {"arch", "gfx1151"}};
  fat[1].image = hsaco(host);
  write(dir + "/fat.hrxfat", writeFat(fat));
  return 0;
}
