#include "hrx/xdna/Transaction.h"

#include "hrx/format/Xdna.h"
#include "hrx/xdna/Npu5Model.h"

namespace hrx::xdna {
namespace {

using format::DmaDirection;
using format::LockRole;
using format::PlanDma;

constexpr uint32_t kWrite32Bytes = 24;
constexpr uint32_t kBlockWriteHeaderBytes = 12;
constexpr uint32_t kSyncBytes = 16;
constexpr uint32_t kValidBd = 1u << 25;
constexpr uint32_t kUseNextBd = 1u << 26;
constexpr uint32_t kAcquireEnable = 1u << 12;
constexpr uint32_t kEnableTokenIssue = 1u << 31;
constexpr uint32_t kSwitchEnable = 1u << 31;
constexpr uint32_t kShimBurst512 = 3u << 30;  // burst-length encoding 3 (npu5-hardware §2.2)

class CommandWriter {
public:
  void write32(TileCoord tile, uint32_t offset, uint32_t value) {
    u8(uint8_t(TransactionOp::Write32));
    u8(uint8_t(tile.column));
    u8(uint8_t(tile.row));
    for (int i = 0; i < 5; ++i)
      u8(0);
    u64(Npu5Model::registerAddress(tile, offset));
    u32(value);
    u32(kWrite32Bytes);
    ++ops_;
  }
  // Returns the body offset of words[0].
  uint32_t blockWrite(TileCoord tile, uint32_t offset, const std::vector<uint32_t> &words) {
    u8(uint8_t(TransactionOp::BlockWrite));
    u8(uint8_t(tile.column));
    u8(uint8_t(tile.row));
    u8(0);
    u32(uint32_t(Npu5Model::registerAddress(tile, offset)));
    u32(kBlockWriteHeaderBytes + 4 * uint32_t(words.size()));
    uint32_t first = uint32_t(body_.size());
    for (uint32_t w : words)
      u32(w);
    ++ops_;
    return first;
  }
  void sync(TileCoord tile, DmaDirection direction, uint32_t channel) {
    u8(uint8_t(TransactionOp::Sync));
    u8(0), u8(0), u8(0);
    u32(kSyncBytes);
    u8(uint8_t(tile.column));
    u8(uint8_t(tile.row));
    u8(direction == DmaDirection::StreamToMemory ? 0 : 1);
    u8(uint8_t(channel));
    u8(1), u8(1), u8(0), u8(0);  // one column, one row
    ++ops_;
  }
  void patchAt(uint32_t bodyOffset, uint32_t binding, uint64_t addend) {
    patches_.push_back({bodyOffset, binding, addend});
  }
  Command finish(uint32_t columns) {
    format::xdna::TransactionHeader header;
    header.columns = uint8_t(columns);
    header.operationCount = ops_;
    header.totalBytes = uint32_t(16 + body_.size());
    Command c;
    c.bytes = format::xdna::encodeTransactionHeader(header);
    c.bytes.insert(c.bytes.end(), body_.begin(), body_.end());
    c.operations = ops_;
    for (AddressPatch p : patches_) {
      p.byteOffset += 16;
      c.patches.push_back(p);
    }
    return c;
  }

private:
  void u8(uint8_t v) { body_.push_back(v); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
      body_.push_back(uint8_t(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    u32(uint32_t(v));
    u32(uint32_t(v >> 32));
  }
  std::vector<uint8_t> body_;
  uint32_t ops_ = 0;
  std::vector<AddressPatch> patches_;
};

// Stream-switch port ids: bundles in PortBundle order, each bundle's ports consecutive.
uint32_t switchPortId(TileCoord tile, format::SwitchPort port, bool master) {
  const SwitchPorts &ports = Npu5Model::resources(tile).ports;
  uint32_t id = 0;
  for (unsigned b = 0; b < unsigned(port.bundle); ++b)
    id += master ? ports.masters[b] : ports.slaves[b];
  return id + port.index;
}

uint32_t controlBase(const TileResources &r, DmaDirection d) {
  return d == DmaDirection::StreamToMemory ? r.s2mmControlBase : r.mm2sControlBase;
}

uint32_t lockId(const format::ArrayPlan &plan, uint32_t channel, TileCoord tile, LockRole role) {
  for (const format::PlanLock &l : plan.locks)
    if (l.channel == channel && l.tile == tile && l.role == role)
      return l.id;
  return 0;
}

// Lock fields of a compute BD word 5: acquire id [3:0], acquire value [11:5] (signed 7 bits),
// acquire enable, release id [16:13], release value [23:17].
uint32_t lockWord(uint32_t acquireId, int acquireValue, uint32_t releaseId, int releaseValue) {
  return (acquireId & 0xF) | ((uint32_t(acquireValue) & 0x7F) << 5) | kAcquireEnable | ((releaseId & 0xF) << 13) |
         ((uint32_t(releaseValue) & 0x7F) << 17);
}

// A compute-tile DMA is a ring of one BD per slot, each chained to the next.
void encodeComputeRing(CommandWriter &w, const format::ArrayPlan &plan, const PlanDma &dma) {
  const TileResources &res = Npu5Model::resources(dma.tile);
  std::vector<const format::PlanSlot *> slots;
  for (const format::PlanSlot &s : plan.slots)
    if (s.channel == dma.channel && s.owner == dma.tile)
      slots.push_back(&s);
  bool intoMemory = dma.direction == DmaDirection::StreamToMemory;
  uint32_t credit = lockId(plan, dma.channel, dma.tile, LockRole::Credit);
  uint32_t ready = lockId(plan, dma.channel, dma.tile, LockRole::Ready);
  for (uint32_t i = 0; i < slots.size(); ++i) {
    const format::PlanSlot &s = *slots[i];
    uint32_t bd = dma.bdStart + i;
    uint32_t next = dma.bdStart + (i + 1) % uint32_t(slots.size());
    uint32_t words0 = (s.bytes / 4) & 0x3FFF;
    words0 |= ((s.offset / 4) & 0x3FFF) << 14;
    uint32_t locks = intoMemory ? lockWord(credit, -1, ready, 1) : lockWord(ready, -1, credit, 1);
    std::vector<uint32_t> words{words0, 0, 0, 0, (next & 0xF) | kUseNextBd | kValidBd, locks};
    w.blockWrite(dma.tile, res.bdBase + res.bdStride * bd, words);
  }
  uint32_t queue = controlBase(res, dma.direction) + 8 * dma.engineChannel + 4;
  w.write32(dma.tile, queue, dma.bdStart & 0xF);
}

// A shim DMA: one BD with the binding's address pattern, started with its repeat count.
void encodeShimTask(CommandWriter &w, const PlanDma &dma, const format::ArrayPlan &plan) {
  const TileResources &res = Npu5Model::resources(dma.tile);
  const format::BdPattern &p = *dma.shimPattern;
  auto dim = [&](size_t d) -> std::pair<uint32_t, uint32_t> {
    if (d >= p.dims.size())
      return {0, 0};
    return {uint32_t(p.dims[d].strideBytes / 4 - 1) & 0xFFFFF, p.dims[d].size & 0x3FF};
  };
  auto [s0, w0] = dim(0);
  auto [s1, w1] = dim(1);
  auto [s2, w2] = dim(2);
  (void)w2;  // the outermost wrap is implied by the length
  uint32_t iteration = p.iterationWrap ? ((p.iterationStepWords - 1) & 0xFFFFF) | ((p.iterationWrap - 1) & 0x3F) << 20 : 0;
  std::vector<uint32_t> words{p.lengthWords, 0, 0, s0 | w0 << 20, s1 | w1 << 20, s2 | kShimBurst512, iteration,
                              kValidBd};
  uint32_t first = w.blockWrite(dma.tile, res.bdBase + res.bdStride * dma.bdStart, words);
  w.patchAt(first + 4, plan.bindings[p.binding].ordinal, p.address);
  uint32_t queue = controlBase(res, dma.direction) + 8 * dma.engineChannel + 4;
  uint32_t token = dma.direction == DmaDirection::StreamToMemory ? kEnableTokenIssue : 0;
  w.write32(dma.tile, queue, (dma.bdStart & 0xF) | ((p.repeatCount - 1) & 0xFF) << 16 | token);
}

}  // namespace

EncodedPlan encodeTransactions(const format::ArrayPlan &plan) {
  CommandWriter establish, repeat;
  for (const format::PlanLock &l : plan.locks)
    establish.write32(l.tile, Npu5Model::resources(l.tile).lockBase + 0x10 * l.id, l.initial);
  for (const format::PlanRoute &r : plan.routes) {
    if (r.kind != format::RouteKind::Switch)
      continue;  // shim-mux selections are fixed by the channel (Planner.cpp)
    uint32_t base = Npu5Model::resources(r.tile).switchBase;
    uint32_t slave = switchPortId(r.tile, r.source, false);
    establish.write32(r.tile, base + 0x100 + 4 * slave, kSwitchEnable);
    establish.write32(r.tile, base + 4 * switchPortId(r.tile, r.destination, true), kSwitchEnable | (slave & 0x7F));
  }
  for (const format::PlanDma &d : plan.dmas)
    if (d.tile.row != Npu5Model::kShimRow)
      encodeComputeRing(establish, plan, d);
  for (const format::PlanDma &d : plan.dmas)
    if (d.tile.row == Npu5Model::kShimRow)
      encodeShimTask(repeat, d, plan);
  for (const format::PlanDma &d : plan.dmas)
    if (d.tile.row == Npu5Model::kShimRow && d.direction == DmaDirection::StreamToMemory)
      repeat.sync(d.tile, d.direction, d.engineChannel);
  return {establish.finish(plan.columns), repeat.finish(plan.columns)};
}

}  // namespace hrx::xdna
