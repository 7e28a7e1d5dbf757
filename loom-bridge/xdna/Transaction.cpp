#include "hrx/xdna/Transaction.h"

#include "hrx/format/Xdna.h"
#include "hrx/format/XdnaWriter.h"
#include "hrx/xdna/Npu5Model.h"

#include <optional>

namespace hrx::xdna {
namespace {

using format::DmaDirection;
using format::LockRole;
using format::PlanDma;
using format::PortBundle;

// Transaction 0.1 (the legacy, naturally aligned aie-rt op layout; docs/formats/transaction.md).
constexpr uint32_t kWrite32Bytes = 24;           // op, col, row, pad, u64 address, value, size
constexpr uint32_t kMaskWrite32Bytes = 28;       // op, col, row, pad, u64 address, value, mask, size
constexpr uint32_t kBlockWriteHeaderBytes = 16;  // op, col, row, pad, address at +8, size at +12
constexpr uint32_t kSyncBytes = 16;              // mlir-aie appendSync (XAIE_IO_CUSTOM_OP_TCT)
// Buffer-descriptor fields (xaie2pgbl_params.h MEMORY_MODULE_DMA_BDn_5 for compute tiles,
// NOC_MODULE_DMA_BDn_7 for shims; both words have the same layout).
constexpr uint32_t kNextBdShift = 27;  // [30:27]
constexpr uint32_t kUseNextBd = 1u << 26;
constexpr uint32_t kValidBd = 1u << 25;
constexpr uint32_t kLockReleaseValueShift = 18;  // [24:18], signed 7 bits
constexpr uint32_t kLockReleaseIdShift = 13;     // [16:13]
constexpr uint32_t kLockAcquireEnable = 1u << 12;
constexpr uint32_t kLockAcquireValueShift = 5;    // [11:5], signed 7 bits
constexpr uint32_t kEnableTokenIssue = 1u << 31;  // channel task queue [31]
constexpr uint32_t kRepeatCountShift = 16;        // channel task queue [23:16]
constexpr uint32_t kSwitchEnable = 1u << 31;      // stream-switch master and slave configuration
constexpr uint32_t kShimBurstShift = 30;          // NOC_MODULE_DMA_BDn_4 [31:30]
constexpr uint32_t kShimBurst512 = 3;             // burst-length encoding 3 = 512 bytes (npu5-hardware §2.2)

class CommandWriter {
public:
  void write32(TileCoord tile, uint32_t offset, uint32_t value) {
    opHeader(TransactionOp::Write32, tile);
    u64(Npu5Model::registerAddress(tile, offset));
    u32(value);
    u32(kWrite32Bytes);
    ++ops_;
  }
  void maskWrite32(TileCoord tile, uint32_t offset, uint32_t mask, uint32_t value) {
    opHeader(TransactionOp::MaskWrite32, tile);
    u64(Npu5Model::registerAddress(tile, offset));
    u32(value);
    u32(mask);
    u32(kMaskWrite32Bytes);
    ++ops_;
  }
  // Returns the body offset of words[0].
  uint32_t blockWrite(TileCoord tile, uint32_t offset, const std::vector<uint32_t> &words) {
    opHeader(TransactionOp::BlockWrite, tile);
    u32(uint32_t(Npu5Model::registerAddress(tile, offset)));
    u32(kBlockWriteHeaderBytes + 4 * uint32_t(words.size()));
    uint32_t first = uint32_t(body_.size());
    for (uint32_t w : words) u32(w);
    ++ops_;
    return first;
  }
  // Waits for the task-completion token of one channel (mlir-aie appendSync's word layout:
  // word 2 = direction | row << 8 | column << 16, word 3 = row count << 8 | column count << 16 |
  // channel << 24; direction 0 = S2MM).
  void sync(TileCoord tile, DmaDirection direction, uint32_t channel) {
    u32(uint32_t(TransactionOp::Sync));
    u32(kSyncBytes);
    u32((direction == DmaDirection::StreamToMemory ? 0u : 1u) | (tile.row & 0xFF) << 8 | (tile.column & 0xFF) << 16);
    u32(1u << 8 | 1u << 16 | (channel & 0xFF) << 24);  // one row, one column
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
  // The 8 bytes every register op starts with: op, column, row and five zero bytes (the
  // legacy XAie_OpHdr padded to the u64 register offset that follows).
  void opHeader(TransactionOp op, TileCoord tile) {
    u8(uint8_t(op));
    u8(uint8_t(tile.column));
    u8(uint8_t(tile.row));
    for (int i = 0; i < 5; ++i) u8(0);
  }
  void u8(uint8_t v) { body_.push_back(v); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) body_.push_back(uint8_t(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    u32(uint32_t(v));
    u32(uint32_t(v >> 32));
  }
  std::vector<uint8_t> body_;
  uint32_t ops_ = 0;
  std::vector<AddressPatch> patches_;
};

// The physical port index (Npu5Model::switchPortIndex); the plan validator has checked that
// the port exists on the tile.
uint32_t switchPortId(TileCoord tile, format::SwitchPort port, bool master) {
  return Npu5Model::switchPortIndex(Npu5Model::kindOfRow(tile.row), port.bundle, port.index, master).value_or(0);
}

uint32_t controlBase(const TileResources &r, DmaDirection d) {
  return d == DmaDirection::StreamToMemory ? r.s2mmControlBase : r.mm2sControlBase;
}

uint32_t lockId(const format::ArrayPlan &plan, uint32_t channel, TileCoord tile, LockRole role) {
  for (const format::PlanLock &l : plan.locks)
    if (l.channel == channel && l.tile == tile && l.role == role) return l.id;
  return 0;
}

// The last BD word of compute and shim tiles: next BD, use-next, valid, and the locks
// (release id [16:13] value [24:18], acquire enable, id [3:0] value [11:5]; values signed
// 7-bit: acquire -1 waits for a value of at least 1 and takes it, release +1 adds one).
uint32_t controlWord(std::optional<uint32_t> nextBd, uint32_t acquireId, int acquireValue, uint32_t releaseId,
                     int releaseValue) {
  uint32_t w = kValidBd | (acquireId & 0xF) | (uint32_t(acquireValue) & 0x7F) << kLockAcquireValueShift |
               kLockAcquireEnable | (releaseId & 0xF) << kLockReleaseIdShift |
               (uint32_t(releaseValue) & 0x7F) << kLockReleaseValueShift;
  if (nextBd) w |= (*nextBd & 0xF) << kNextBdShift | kUseNextBd;
  return w;
}

// A compute-tile DMA is a ring of one BD per slot, each chained to the next.
void encodeComputeRing(CommandWriter &w, const format::ArrayPlan &plan, const PlanDma &dma) {
  const TileResources &res = Npu5Model::resources(dma.tile);
  std::vector<const format::PlanSlot *> slots;
  for (const format::PlanSlot &s : plan.slots)
    if (s.channel == dma.channel && s.owner == dma.tile) slots.push_back(&s);
  bool intoMemory = dma.direction == DmaDirection::StreamToMemory;
  uint32_t credit = lockId(plan, dma.channel, dma.tile, LockRole::Credit);
  uint32_t ready = lockId(plan, dma.channel, dma.tile, LockRole::Ready);
  for (uint32_t i = 0; i < slots.size(); ++i) {
    const format::PlanSlot &s = *slots[i];
    uint32_t bd = dma.bdStart + i;
    uint32_t next = dma.bdStart + (i + 1) % uint32_t(slots.size());
    uint32_t words0 = (s.bytes / 4) & 0x3FFF;
    words0 |= ((s.offset / 4) & 0x3FFF) << 14;
    uint32_t control = intoMemory ? controlWord(next, credit, -1, ready, 1) : controlWord(next, ready, -1, credit, 1);
    std::vector<uint32_t> words{words0, 0, 0, 0, 0, control};
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
    if (d >= p.dims.size()) return {0, 0};
    return {uint32_t(p.dims[d].strideBytes / 4 - 1) & 0xFFFFF, p.dims[d].size & 0x3FF};
  };
  auto [s0, w0] = dim(0);
  auto [s1, w1] = dim(1);
  auto [s2, w2] = dim(2);
  (void)w2;  // the outermost wrap is implied by the length
  uint32_t iteration =
      p.iterationWrap ? ((p.iterationStepWords - 1) & 0xFFFFF) | ((p.iterationWrap - 1) & 0x3F) << 20 : 0;
  std::vector<uint32_t> words{
      p.lengthWords, 0, 0, s0 | w0 << 20, s1 | w1 << 20 | kShimBurst512 << kShimBurstShift, s2, iteration, kValidBd};
  uint32_t first = w.blockWrite(dma.tile, res.bdBase + res.bdStride * dma.bdStart, words);
  w.patchAt(first + 4, plan.bindings[p.binding].ordinal, p.address);
  uint32_t queue = controlBase(res, dma.direction) + 8 * dma.engineChannel + 4;
  uint32_t token = dma.direction == DmaDirection::StreamToMemory ? kEnableTokenIssue : 0;
  // The task runs the BD once per execution: the records (when they walk the iteration
  // dimension) times the repetitions.
  uint32_t executions = p.repeatCount * (p.iterationWrap ? p.iterationWrap : 1);
  w.write32(dma.tile, queue, (dma.bdStart & 0xF) | ((executions - 1) & 0xFF) << kRepeatCountShift | token);
}

}  // namespace

EncodedPlan encodeTransactions(const format::ArrayPlan &plan, const std::vector<TileCode> &code) {
  CommandWriter establish, repeat;
  // Cores with code: held in reset and disabled while their program memory is written (aie-rt
  // and mlir-aie reset and disable a core before loading its ELF); every invocation then resets
  // each core (pc 0; the ring positions live in data memory) and takes it out of reset enabled,
  // before the shim tasks feed it, so the main program runs once per invocation.
  for (const TileCode &c : code) {
    establish.write32(c.tile, Npu5Model::kCoreControl, Npu5Model::kCoreReset);
    repeat.write32(c.tile, Npu5Model::kCoreControl, Npu5Model::kCoreReset);
    repeat.write32(c.tile, Npu5Model::kCoreControl, Npu5Model::kCoreEnable);
  }
  for (const TileCode &c : code) {
    std::vector<uint32_t> words((c.bytes.size() + 3) / 4, 0);
    for (size_t i = 0; i < c.bytes.size(); ++i) words[i / 4] |= uint32_t(c.bytes[i]) << (8 * (i % 4));
    establish.blockWrite(c.tile, Npu5Model::kProgramMemoryOffset, words);
    if (c.stateBytes) establish.blockWrite(c.tile, c.stateOffset, std::vector<uint32_t>(c.stateBytes / 4, 0));
  }
  for (const format::PlanLock &l : plan.locks)
    establish.write32(l.tile, Npu5Model::resources(l.tile).lockBase + 0x10 * l.id, l.initial);
  for (const format::PlanRoute &r : plan.routes) {
    if (r.kind == format::RouteKind::ShimMux) {
      // Into the array: the mux feeds a south slave from the DMA; out of it: the demux hands
      // a south master's stream to the DMA. Both reset to PL (xaie_noc.c).
      bool inbound = r.source.bundle == PortBundle::Dma;
      uint32_t south = inbound ? r.destination.index : r.source.index;
      auto shift = inbound ? Npu5Model::shimMuxFieldShift(south) : Npu5Model::shimDemuxFieldShift(south);
      uint32_t reg = inbound ? Npu5Model::kShimMuxConfig : Npu5Model::kShimDemuxConfig;
      establish.maskWrite32(r.tile, reg, 3u << shift.value_or(0), Npu5Model::kShimMuxSelectDma << shift.value_or(0));
      continue;
    }
    uint32_t base = Npu5Model::resources(r.tile).switchBase;
    uint32_t slave = switchPortId(r.tile, r.source, false);
    establish.write32(r.tile, base + 0x100 + 4 * slave, kSwitchEnable);
    establish.write32(r.tile, base + 4 * switchPortId(r.tile, r.destination, true), kSwitchEnable | (slave & 0x7F));
  }
  for (const format::PlanDma &d : plan.dmas)
    if (d.tile.row != Npu5Model::kShimRow) encodeComputeRing(establish, plan, d);
  for (const format::PlanDma &d : plan.dmas)
    if (d.tile.row == Npu5Model::kShimRow) encodeShimTask(repeat, d, plan);
  for (const format::PlanDma &d : plan.dmas)
    if (d.tile.row == Npu5Model::kShimRow && d.direction == DmaDirection::StreamToMemory)
      repeat.sync(d.tile, d.direction, d.engineChannel);
  return {establish.finish(plan.columns), repeat.finish(plan.columns)};
}

}  // namespace hrx::xdna
