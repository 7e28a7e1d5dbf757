#include "hrx/array/ArrayModel.h"

#include "hrx/support/Text.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <sstream>

namespace hrx::array {
namespace {

using text::hex;  // hrx/support/Text.h

// Per-kind resources and register bases (aie-rt xaie2pgbl_reginit.c / xaie2pgbl_params.h:
// Aie2PTileDmaMod, Aie2PMemTileDmaMod, Aie2PShimDmaMod, the lock modules and the stream-switch
// modules; docs/formats/transaction.md cites each value).
struct KindTable {
  uint32_t dataBytes, programBytes;
  uint32_t bdBase, bdCount, bdWords;
  uint32_t s2mmBase, mm2sBase, channelCount;  // control at base + 8 * ch, queue at + 4
  uint32_t lockBase, lockCount;
  uint32_t masterBase, masterCount, slaveBase, slaveCount, slotBase;
};
constexpr KindTable kCompute{0x10000, 0x4000, 0x1D000, 16, 6,       0x1DE00, 0x1DE10, 2,
                             0x1F000, 16,     0x3F000, 23, 0x3F100, 25,      0x3F200};
constexpr KindTable kMemTile{0x80000, 0,  0xA0000, 48, 8,       0xA0600, 0xA0630, 6,
                             0xC0000, 64, 0xB0000, 17, 0xB0100, 18,      0xB0200};
constexpr KindTable kShim{0, 0, 0x1D000, 16, 8, 0x1D200, 0x1D210, 2, 0x14000, 16, 0x3F000, 22, 0x3F100, 24, 0x3F200};
constexpr uint32_t kProgramMemoryBase = 0x20000;
constexpr uint32_t kCoreControl = 0x32000;
constexpr uint32_t kShimMux = 0x1F000, kShimDemux = 0x1F004;
constexpr uint32_t kQueueDepth = 4;  // StartQSizeMax
constexpr size_t kStreamWords = 64;  // words a stream holds in flight between two DMAs

const KindTable &table(TileKind kind) {
  return kind == TileKind::Compute ? kCompute : kind == TileKind::MemTile ? kMemTile : kShim;
}
std::string_view kindName(TileKind kind) {
  return kind == TileKind::Compute ? "compute" : kind == TileKind::MemTile ? "memory tile" : "shim";
}

// Stream-switch port layout by register address (xaie2pgbl_params.h STREAM_SWITCH_MASTER_CONFIG_*
// / SLAVE_CONFIG_* of each module): bundle, register of port 0, port count.
struct BundleRange {
  Bundle bundle;
  uint32_t firstRegister;
  uint32_t count;
};
constexpr BundleRange kComputeMasters[] = {
    {Bundle::Core, 0x3F000, 1},  {Bundle::Dma, 0x3F004, 2},  {Bundle::Ctrl, 0x3F00C, 1},  {Bundle::Fifo, 0x3F010, 1},
    {Bundle::South, 0x3F014, 4}, {Bundle::West, 0x3F024, 4}, {Bundle::North, 0x3F034, 6}, {Bundle::East, 0x3F04C, 4}};
constexpr BundleRange kComputeSlaves[] = {
    {Bundle::Core, 0x3F100, 1},  {Bundle::Dma, 0x3F104, 2},   {Bundle::Ctrl, 0x3F10C, 1},
    {Bundle::Fifo, 0x3F110, 1},  {Bundle::South, 0x3F114, 6}, {Bundle::West, 0x3F12C, 4},
    {Bundle::North, 0x3F13C, 4}, {Bundle::East, 0x3F14C, 4},  {Bundle::Trace, 0x3F15C, 2}};
constexpr BundleRange kMemTileMasters[] = {
    {Bundle::Dma, 0xB0000, 6}, {Bundle::Ctrl, 0xB0018, 1}, {Bundle::South, 0xB001C, 4}, {Bundle::North, 0xB002C, 6}};
constexpr BundleRange kMemTileSlaves[] = {{Bundle::Dma, 0xB0100, 6},
                                          {Bundle::Ctrl, 0xB0118, 1},
                                          {Bundle::South, 0xB011C, 6},
                                          {Bundle::North, 0xB0134, 4},
                                          {Bundle::Trace, 0xB0144, 1}};
constexpr BundleRange kShimMasters[] = {{Bundle::Ctrl, 0x3F000, 1},  {Bundle::Fifo, 0x3F004, 1},
                                        {Bundle::South, 0x3F008, 6}, {Bundle::West, 0x3F020, 4},
                                        {Bundle::North, 0x3F030, 6}, {Bundle::East, 0x3F048, 4}};
constexpr BundleRange kShimSlaves[] = {
    {Bundle::Ctrl, 0x3F100, 1},  {Bundle::Fifo, 0x3F104, 1}, {Bundle::South, 0x3F108, 8}, {Bundle::West, 0x3F128, 4},
    {Bundle::North, 0x3F138, 4}, {Bundle::East, 0x3F148, 4}, {Bundle::Trace, 0x3F158, 2}};

std::span<const BundleRange> ranges(TileKind kind, bool master) {
  switch (kind) {
  case TileKind::Compute:
    return master ? std::span<const BundleRange>(kComputeMasters) : std::span<const BundleRange>(kComputeSlaves);
  case TileKind::MemTile:
    return master ? std::span<const BundleRange>(kMemTileMasters) : std::span<const BundleRange>(kMemTileSlaves);
  case TileKind::Shim: break;
  }
  return master ? std::span<const BundleRange>(kShimMasters) : std::span<const BundleRange>(kShimSlaves);
}

std::string portName(Port p) { return std::string(bundleName(p.bundle)) + std::to_string(p.index); }
std::string portText(TileKind kind, uint32_t physical, bool master) {
  auto p = switchPort(kind, physical, master);
  return p ? portName(*p) : "port " + std::to_string(physical);
}

int signed7(uint32_t v) { return (v & 0x40) ? int(v & 0x7F) - 128 : int(v & 0x7F); }

// The fields the model acts on, from one BD's words (field layouts: docs/formats/transaction.md).
struct BdFields {
  uint64_t base = 0;  // bytes
  uint32_t lengthWords = 0;
  uint32_t step[3] = {1, 1, 1};  // words
  uint32_t wrap[2] = {0, 0};
  uint32_t iterationStep = 1, iterationWrap = 1, iterationCurrent = 0;
  bool valid = false, useNext = false, acquireEnable = false;
  uint32_t next = 0, acquireId = 0, releaseId = 0;
  int acquireValue = 0, releaseValue = 0;
};

}  // namespace

std::string tileName(TileId t) { return "(" + std::to_string(t.column) + "," + std::to_string(t.row) + ")"; }
TileKind kindOfRow(uint32_t row) {
  return row == 0 ? TileKind::Shim : row == 1 ? TileKind::MemTile : TileKind::Compute;
}

std::string_view bundleName(Bundle b) {
  switch (b) {
  case Bundle::Core: return "core";
  case Bundle::Dma: return "dma";
  case Bundle::Ctrl: return "ctrl";
  case Bundle::Fifo: return "fifo";
  case Bundle::South: return "south";
  case Bundle::West: return "west";
  case Bundle::North: return "north";
  case Bundle::East: return "east";
  case Bundle::Trace: return "trace";
  }
  return "?";
}

std::optional<Port> switchPort(TileKind kind, uint32_t physical, bool master) {
  uint32_t base = master ? table(kind).masterBase : table(kind).slaveBase;
  uint32_t reg = base + 4 * physical;
  for (const BundleRange &r : ranges(kind, master))
    if (reg >= r.firstRegister && reg < r.firstRegister + 4 * r.count)
      return Port{r.bundle, (reg - r.firstRegister) / 4};
  return std::nullopt;
}

std::optional<uint32_t> switchIndex(TileKind kind, Port port, bool master) {
  uint32_t base = master ? table(kind).masterBase : table(kind).slaveBase;
  for (const BundleRange &r : ranges(kind, master))
    if (r.bundle == port.bundle)
      return port.index < r.count ? std::optional((r.firstRegister - base) / 4 + port.index) : std::nullopt;
  return std::nullopt;
}

std::optional<RegisterInfo> classifyRegister(TileKind kind, uint32_t offset) {
  const KindTable &t = table(kind);
  if (offset % 4) return std::nullopt;
  if (offset < t.dataBytes) return RegisterInfo{RegisterClass::DataMemory, offset};
  if (kind == TileKind::Compute && offset >= kProgramMemoryBase && offset < kProgramMemoryBase + t.programBytes)
    return RegisterInfo{RegisterClass::ProgramMemory, offset - kProgramMemoryBase};
  if (offset >= t.bdBase && offset < t.bdBase + 0x20 * t.bdCount) {
    uint32_t bd = (offset - t.bdBase) / 0x20, word = (offset - t.bdBase) % 0x20 / 4;
    if (word < t.bdWords) return RegisterInfo{RegisterClass::BufferDescriptor, bd, word};
    return std::nullopt;
  }
  for (bool s2mm : {true, false}) {
    uint32_t base = s2mm ? t.s2mmBase : t.mm2sBase;
    if (offset >= base && offset < base + 8 * t.channelCount) {
      uint32_t ch = (offset - base) / 8;
      return RegisterInfo{(offset - base) % 8 ? RegisterClass::ChannelQueue : RegisterClass::ChannelControl, ch, 0,
                          s2mm};
    }
  }
  if (offset >= t.lockBase && offset < t.lockBase + 0x10 * t.lockCount && (offset - t.lockBase) % 0x10 == 0)
    return RegisterInfo{RegisterClass::LockValue, (offset - t.lockBase) / 0x10};
  if (offset >= t.masterBase && offset < t.masterBase + 4 * t.masterCount)
    return RegisterInfo{RegisterClass::SwitchMaster, (offset - t.masterBase) / 4};
  if (offset >= t.slaveBase && offset < t.slaveBase + 4 * t.slaveCount)
    return RegisterInfo{RegisterClass::SwitchSlave, (offset - t.slaveBase) / 4};
  if (offset >= t.slotBase && offset < t.slotBase + 0x10 * t.slaveCount)
    return RegisterInfo{RegisterClass::SwitchSlot, (offset - t.slotBase) / 0x10, (offset - t.slotBase) % 0x10 / 4};
  if (kind == TileKind::Shim && offset == kShimMux) return RegisterInfo{RegisterClass::ShimMux};
  if (kind == TileKind::Shim && offset == kShimDemux) return RegisterInfo{RegisterClass::ShimDemux};
  if (kind == TileKind::Compute && offset == kCoreControl) return RegisterInfo{RegisterClass::CoreControl};
  return std::nullopt;
}

std::string describeRegister(TileKind kind, uint32_t offset) {
  auto info = classifyRegister(kind, offset);
  std::string k(kindName(kind));
  if (!info) return "unknown " + k + " register " + hex(offset);
  std::string n = std::to_string(info->index);
  switch (info->kind) {
  case RegisterClass::DataMemory: return k + " data memory " + hex(offset);
  case RegisterClass::ProgramMemory: return k + " program memory " + hex(info->index);
  case RegisterClass::BufferDescriptor: return k + " BD " + n + " word " + std::to_string(info->word);
  case RegisterClass::ChannelControl: return k + (info->s2mm ? " S2MM " : " MM2S ") + n + " control";
  case RegisterClass::ChannelQueue: return k + (info->s2mm ? " S2MM " : " MM2S ") + n + " task queue";
  case RegisterClass::LockValue: return k + " lock " + n + " value";
  case RegisterClass::SwitchMaster: return k + " stream-switch master " + portText(kind, info->index, true) + " config";
  case RegisterClass::SwitchSlave: return k + " stream-switch slave " + portText(kind, info->index, false) + " config";
  case RegisterClass::SwitchSlot:
    return k + " stream-switch slave " + portText(kind, info->index, false) + " slot " + std::to_string(info->word);
  case RegisterClass::ShimMux: return "shim mux config";
  case RegisterClass::ShimDemux: return "shim demux config";
  case RegisterClass::CoreControl: return "core control";
  }
  return k;
}

struct ArrayModel::Stream {
  std::deque<uint32_t> words;
  const Channel *producer = nullptr;
  std::string route;  // "(0,0) mm2s0 -> south3 ... -> (0,2) dma0"
};

struct Task {
  uint32_t startBd = 0;
  uint32_t executions = 1;  // repeat count + 1
  bool token = false;
};

struct ArrayModel::Channel {
  TileId tile;
  bool s2mm = true;
  uint32_t index = 0;
  uint32_t control = 0;
  std::deque<Task> queue;
  bool active = false;
  Task task;
  uint32_t execution = 0;  // completed chain runs of the current task
  uint32_t bd = 0;
  bool loaded = false, acquired = false;
  BdFields fields;
  uint64_t moved = 0;  // words of the current BD
  Stream input;        // S2MM: what the switch delivers
  Stream *output = nullptr;
  uint32_t tokens = 0, tokensTaken = 0;
  // Why the channel last stopped (formatted only for a deadlock report).
  enum class Wait : uint8_t { Idle, Lock, StreamData, StreamRoom } wait = Wait::Idle;
  int waitLockValue = 0;
  std::string name() const { return tileName(tile) + (s2mm ? " S2MM " : " MM2S ") + std::to_string(index); }
};

struct ArrayModel::Tile {
  TileId id;
  TileKind kind;
  std::vector<std::byte> memory;
  std::vector<uint8_t> program;
  std::vector<std::array<uint32_t, 8>> bds;
  std::vector<int> locks;
  std::vector<uint32_t> masters, slaves, slots;
  uint32_t mux = 0, demux = 0, coreControl = 0;
  uint32_t programWritten = 0;  // program memory bytes up to the last byte written
  uint64_t coreResets = 0;
  bool coreControlWritten = false;
  std::vector<std::unique_ptr<Channel>> s2mm, mm2s;
};

ArrayModel::ArrayModel(uint32_t columns) : columns_(columns) {
  for (uint32_t c = 0; c < columns; ++c)
    for (uint32_t r = 0; r < 6; ++r) {
      auto t = std::make_unique<Tile>();
      t->id = {c, r};
      t->kind = kindOfRow(r);
      const KindTable &k = table(t->kind);
      t->memory.assign(k.dataBytes, std::byte{0});
      t->program.assign(k.programBytes, 0);
      t->bds.assign(k.bdCount, {});
      t->locks.assign(k.lockCount, 0);
      t->masters.assign(k.masterCount, 0);
      t->slaves.assign(k.slaveCount, 0);
      t->slots.assign(4 * k.slaveCount, 0);
      for (uint32_t ch = 0; ch < k.channelCount; ++ch)
        for (bool s2mm : {true, false}) {
          auto channel = std::make_unique<Channel>();
          channel->tile = t->id;
          channel->s2mm = s2mm;
          channel->index = ch;
          (s2mm ? t->s2mm : t->mm2s).push_back(std::move(channel));
        }
      tiles_.push_back(std::move(t));
    }
}

ArrayModel::~ArrayModel() = default;

void ArrayModel::setCores(std::vector<std::unique_ptr<CoreProgram>> cores) { cores_ = std::move(cores); }

ArrayModel::Tile *ArrayModel::tileAt(TileId id) {
  if (id.column >= columns_ || id.row >= 6) return nullptr;
  return tiles_[id.column * 6 + id.row].get();
}

int ArrayModel::lockValue(TileId tile, uint32_t lock) const {
  if (tile.column >= columns_ || tile.row >= 6) return 0;
  const Tile &t = *tiles_[tile.column * 6 + tile.row];
  return lock < t.locks.size() ? t.locks[lock] : 0;
}

std::span<const uint8_t> ArrayModel::programMemory(TileId tile) const {
  if (tile.column >= columns_ || tile.row >= 6) return {};
  return tiles_[tile.column * 6 + tile.row]->program;
}

uint32_t ArrayModel::programBytesWritten(TileId tile) const {
  if (tile.column >= columns_ || tile.row >= 6) return 0;
  return tiles_[tile.column * 6 + tile.row]->programWritten;
}

uint64_t ArrayModel::coreResetCount(TileId tile) const {
  if (tile.column >= columns_ || tile.row >= 6) return 0;
  return tiles_[tile.column * 6 + tile.row]->coreResets;
}

bool ArrayModel::coreControlWritten(TileId tile) const {
  if (tile.column >= columns_ || tile.row >= 6) return false;
  return tiles_[tile.column * 6 + tile.row]->coreControlWritten;
}

std::vector<uint32_t> ArrayModel::bdWords(TileId tile, uint32_t bd) const {
  if (tile.column >= columns_ || tile.row >= 6) return {};
  const Tile &t = *tiles_[tile.column * 6 + tile.row];
  if (bd >= t.bds.size()) return {};
  return {t.bds[bd].begin(), t.bds[bd].begin() + table(t.kind).bdWords};
}

uint32_t ArrayModel::registerValue(TileId tile, uint32_t offset) const {
  if (tile.column >= columns_ || tile.row >= 6) return 0;
  const Tile &t = *tiles_[tile.column * 6 + tile.row];
  auto info = classifyRegister(t.kind, offset);
  if (!info) return 0;
  switch (info->kind) {
  case RegisterClass::BufferDescriptor: return t.bds[info->index][info->word];
  case RegisterClass::LockValue: return uint32_t(t.locks[info->index]);
  case RegisterClass::SwitchMaster: return t.masters[info->index];
  case RegisterClass::SwitchSlave: return t.slaves[info->index];
  case RegisterClass::SwitchSlot: return t.slots[4 * info->index + info->word];
  case RegisterClass::ShimMux: return t.mux;
  case RegisterClass::ShimDemux: return t.demux;
  case RegisterClass::CoreControl: return t.coreControl;
  case RegisterClass::ChannelControl: return (info->s2mm ? t.s2mm : t.mm2s)[info->index]->control;
  case RegisterClass::DataMemory: {
    uint32_t v;
    std::memcpy(&v, t.memory.data() + offset, 4);
    return v;
  }
  default: return 0;
  }
}

StatusOr<bool> ArrayModel::tryAcquire(TileId id, uint32_t lock, int value) {
  Tile *t = tileAt(id);
  if (!t || lock >= t->locks.size())
    return Status(StatusCode::InvalidArgument,
                  "lock " + std::to_string(lock) + " of tile " + tileName(id) + " does not exist");
  int &v = t->locks[lock];
  if (value < 0) {
    if (v < -value) return false;
    v += value;
    return true;
  }
  return v == value;
}

Status ArrayModel::release(TileId id, uint32_t lock, int value) {
  Tile *t = tileAt(id);
  if (!t || lock >= t->locks.size())
    return Status(StatusCode::InvalidArgument,
                  "lock " + std::to_string(lock) + " of tile " + tileName(id) + " does not exist");
  int &v = t->locks[lock];
  if (v + value > 63 || v + value < -64)
    return Status(StatusCode::FailedPrecondition, "releasing " + std::to_string(value) + " on lock " +
                                                      std::to_string(lock) + " of tile " + tileName(id) + " (value " +
                                                      std::to_string(v) + ") leaves the lock range -64..63");
  v += value;
  return Status::ok();
}

StatusOr<std::byte *> ArrayModel::dataMemory(TileId id, uint32_t offset, uint32_t bytes) {
  Tile *t = tileAt(id);
  if (!t) return Status(StatusCode::InvalidArgument, "tile " + tileName(id) + " is outside the context");
  if (uint64_t(offset) + bytes > t->memory.size())
    return Status(StatusCode::InvalidArgument, "bytes " + hex(offset) + ".." + hex(uint64_t(offset) + bytes) +
                                                   " lie outside the " + std::to_string(t->memory.size()) +
                                                   "-byte data memory of tile " + tileName(id));
  return t->memory.data() + offset;
}

int *ArrayModel::coreLocks(TileId id) {
  Tile *t = tileAt(id);
  return t && t->kind == TileKind::Compute ? t->locks.data() : nullptr;
}

Status ArrayModel::write(const format::txn::Operation &, uint64_t address, uint32_t value, uint32_t mask,
                         const std::string &where) {
  TileId id{uint32_t(address >> 25) & 0x7F, uint32_t(address >> 20) & 0x1F};
  uint32_t offset = uint32_t(address & 0xFFFFF);
  auto fail = [&](const std::string &what) { return Status(StatusCode::InvalidArgument, where + ": " + what); };
  if (address >> 32) return fail("register address " + hex(address) + " does not fit 32 bits");
  if (id.column >= columns_)
    return fail("register " + hex(address) + " is in column " + std::to_string(id.column) + ", outside the " +
                std::to_string(columns_) + "-column context");
  if (id.row >= 6)
    return fail("register " + hex(address) + " is in row " + std::to_string(id.row) + "; the array has rows 0-5");
  Tile &t = *tileAt(id);
  auto info = classifyRegister(t.kind, offset);
  if (!info)
    return fail("register " + hex(offset) + " of " + std::string(kindName(t.kind)) + " tile " + tileName(id) +
                " is not in the NPU5 register model");
  auto apply = [&](uint32_t &reg) { reg = (reg & ~mask) | (value & mask); };
  switch (info->kind) {
  case RegisterClass::DataMemory: {
    uint32_t v;
    std::memcpy(&v, t.memory.data() + offset, 4);
    apply(v);
    std::memcpy(t.memory.data() + offset, &v, 4);
    return Status::ok();
  }
  case RegisterClass::ProgramMemory:
    for (unsigned i = 0; i < 4; ++i)
      if (mask >> (8 * i) & 0xFF) {
        t.program[info->index + i] = uint8_t(value >> (8 * i));
        t.programWritten = std::max(t.programWritten, info->index + i + 1);
      }
    return Status::ok();
  case RegisterClass::BufferDescriptor: apply(t.bds[info->index][info->word]); return Status::ok();
  case RegisterClass::ChannelControl: apply((info->s2mm ? t.s2mm : t.mm2s)[info->index]->control); return Status::ok();
  case RegisterClass::ChannelQueue: {
    Channel &ch = *(info->s2mm ? t.s2mm : t.mm2s)[info->index];
    if (mask != 0xFFFFFFFFu)
      return fail("a masked write to the task queue of " + ch.name() + " (tasks are pushed whole)");
    uint32_t bdBits = t.kind == TileKind::MemTile ? 0x3F : 0xF;
    if (value & ~(0x80FF0000u | bdBits))
      return fail("task queue value " + hex(value) + " of " + ch.name() + " sets reserved bits");
    Task task{value & bdBits, ((value >> 16) & 0xFF) + 1, (value >> 31) != 0};
    if (task.startBd >= t.bds.size())
      return fail("task for " + ch.name() + " starts at BD " + std::to_string(task.startBd) + "; the tile has " +
                  std::to_string(t.bds.size()));
    if (ch.queue.size() >= kQueueDepth)
      return fail("the task queue of " + ch.name() + " already holds " + std::to_string(kQueueDepth) +
                  " tasks (overflow)");
    ch.queue.push_back(task);
    return Status::ok();
  }
  case RegisterClass::LockValue: {
    uint32_t v = uint32_t(t.locks[info->index]);
    apply(v);
    if (v > 63)
      return fail("lock " + std::to_string(info->index) + " of " + tileName(id) + " set to " + std::to_string(v) +
                  "; lock values are 0..63");
    t.locks[info->index] = int(v);
    return Status::ok();
  }
  case RegisterClass::SwitchMaster: apply(t.masters[info->index]); return Status::ok();
  case RegisterClass::SwitchSlave: apply(t.slaves[info->index]); return Status::ok();
  case RegisterClass::SwitchSlot: apply(t.slots[4 * info->index + info->word]); return Status::ok();
  case RegisterClass::ShimMux: apply(t.mux); return Status::ok();
  case RegisterClass::ShimDemux: apply(t.demux); return Status::ok();
  case RegisterClass::CoreControl:
    apply(t.coreControl);
    if (t.coreControl & ~3u)
      return fail("core control of " + tileName(id) + " set to " + hex(t.coreControl) +
                  "; only enable (bit 0) and reset (bit 1) are modelled");
    t.coreControlWritten = true;
    if (t.coreControl & 2u) ++t.coreResets;
    return Status::ok();
  }
  return Status::ok();
}

Status ArrayModel::execute(const format::txn::Transaction &command, const std::string &label) {
  using format::txn::Opcode;
  if (command.deviceGeneration != 4 || command.rows != 6 || command.memTileRows != 1 || command.columns != columns_)
    return Status(StatusCode::InvalidArgument,
                  label + ": transaction header is for generation " + std::to_string(command.deviceGeneration) + ", " +
                      std::to_string(command.rows) + " rows, " + std::to_string(command.columns) +
                      " columns; the array is AIE2P (4), 6 rows, " + std::to_string(columns_) + " columns");
  for (uint32_t i = 0; i < command.operations.size(); ++i) {
    const format::txn::Operation &op = command.operations[i];
    std::string where = label + " op " + std::to_string(i) + " (" +
                        std::string(format::txn::opcodeName(uint8_t(op.opcode))) + ") at byte " + hex(op.byteOffset);
    switch (op.opcode) {
    case Opcode::Write:
    case Opcode::MaskWrite:
      if (Status s = write(op, op.address, op.value, op.mask, where); !s) return s;
      break;
    case Opcode::BlockWrite:
      for (uint32_t w = 0; w < op.words.size(); ++w)
        if (Status s = write(op, op.address + 4 * w, op.words[w], 0xFFFFFFFFu, where + " word " + std::to_string(w));
            !s)
          return s;
      break;
    case Opcode::Tct: {
      TileId id{op.sync.column, op.sync.row};
      Tile *t = tileAt(id);
      if (!t)
        return Status(StatusCode::InvalidArgument,
                      where + ": sync names tile " + tileName(id) + ", outside the context");
      auto &list = op.sync.direction == 0 ? t->s2mm : t->mm2s;
      if (op.sync.channel >= list.size())
        return Status(StatusCode::InvalidArgument, where + ": sync names channel " + std::to_string(op.sync.channel) +
                                                       " of " + tileName(id) + ", which has " +
                                                       std::to_string(list.size()));
      if (op.sync.rowCount != 1 || op.sync.columnCount != 1)
        return Status(StatusCode::Unimplemented, where + ": syncs over " + std::to_string(op.sync.columnCount) + "x" +
                                                     std::to_string(op.sync.rowCount) +
                                                     " tiles are not modelled (1x1 only)");
      Channel &ch = *list[op.sync.channel];
      if (Status s = runUntil([&] { return ch.tokens > ch.tokensTaken; },
                              "the task-completion token of " + ch.name() + " (" + where + ")");
          !s)
        return s;
      ++ch.tokensTaken;
      break;
    }
    default: return Status(StatusCode::Unimplemented, where + ": the array model does not execute this op");
    }
  }
  return Status::ok();
}

Status ArrayModel::finishInvocation(const std::string &label) {
  if (Status s = runUntil(
          [&] { return std::all_of(cores_.begin(), cores_.end(), [](const auto &c) { return c->finished(); }); },
          "every core to finish (" + label + ")");
      !s)
    return s;
  // A BD left part-way is data the invocation did not account for (a length that disagrees
  // with the stream feeding it): the next invocation would start misaligned.
  for (const auto &t : tiles_)
    for (auto *list : {&t->mm2s, &t->s2mm})
      for (const auto &ch : *list)
        if (ch->active && ch->loaded && ch->acquired && ch->moved > 0 && ch->moved < ch->fields.lengthWords)
          return Status(StatusCode::FailedPrecondition, label + ": " + ch->name() + " BD " + std::to_string(ch->bd) +
                                                            " stopped part-way (" + std::to_string(ch->moved) + " of " +
                                                            std::to_string(ch->fields.lengthWords) +
                                                            " words) when the invocation ended");
  for (const auto &t : tiles_)
    for (const auto &ch : t->s2mm)
      if (!ch->input.words.empty())
        return Status(StatusCode::FailedPrecondition, label + ": " + std::to_string(ch->input.words.size()) +
                                                          " word(s) are left in the stream into " + ch->name() + " (" +
                                                          ch->input.route + ") after the invocation");
  return Status::ok();
}

Status ArrayModel::runUntil(const std::function<bool()> &done, const std::string &waitingFor) {
  for (uint64_t round = 0;; ++round) {
    if (done()) return Status::ok();
    if (round == roundLimit_)
      return Status(StatusCode::DeadlineExceeded, "livelock: waiting for " + waitingFor +
                                                      ", the array moved data for " + std::to_string(round) +
                                                      " scheduling rounds without reaching it" + waitingReport());
    bool progressed = false;
    for (auto &t : tiles_)
      for (auto *list : {&t->mm2s, &t->s2mm})
        for (auto &ch : *list) {
          auto p = stepChannel(*t, *ch);
          if (!p) return p.status();
          progressed |= *p;
        }
    for (auto &core : cores_) {
      auto p = core->step(*this);
      if (!p) return p.status();
      progressed |= *p;
    }
    if (!progressed && !done())
      return Status(StatusCode::DeadlineExceeded,
                    "deadlock: waiting for " + waitingFor + ", nothing in the array can move" + waitingReport());
  }
}

namespace {
std::string waitText(const ArrayModel::Channel &ch) {
  std::string bd = "BD " + std::to_string(ch.bd);
  switch (ch.wait) {
  case ArrayModel::Channel::Wait::Idle: return "idle";
  case ArrayModel::Channel::Wait::Lock:
    return bd + " waits to acquire lock " + std::to_string(ch.fields.acquireId) + " (value " +
           std::to_string(ch.waitLockValue) + ", needs >= " + std::to_string(-ch.fields.acquireValue) + ")";
  case ArrayModel::Channel::Wait::StreamData:
    return bd + " waits for stream data (" + std::to_string(ch.moved) + " of " + std::to_string(ch.fields.lengthWords) +
           " words)";
  case ArrayModel::Channel::Wait::StreamRoom:
    return bd + " waits for room in its stream (" + std::to_string(ch.moved) + " of " +
           std::to_string(ch.fields.lengthWords) + " words sent)";
  }
  return "";
}
}  // namespace

std::string ArrayModel::waitingReport() const {
  std::ostringstream os;
  for (const auto &t : tiles_)
    for (auto *list : {&t->mm2s, &t->s2mm})
      for (const auto &ch : *list)
        if (ch->active || !ch->queue.empty()) os << "\n  " << ch->name() << ": " << waitText(*ch);
  for (const auto &core : cores_)
    if (!core->finished()) os << "\n  core " << tileName(core->tile()) << ": " << core->waitingOn();
  return os.str();
}

StatusOr<std::byte *> ArrayModel::hostBytes(uint64_t address, uint32_t bytes, const std::function<std::string()> &who) {
  for (HostRegion &r : host_)
    if (address >= r.deviceAddress && address - r.deviceAddress + bytes <= r.length)
      return r.data + (address - r.deviceAddress);
  return Status(StatusCode::InvalidArgument, who() + " addresses host bytes " + hex(address) + ".." +
                                                 hex(address + bytes) + ", which no binding covers");
}

Status ArrayModel::startBd(Tile &t, Channel &ch) {
  const auto &w = t.bds[ch.bd];
  std::string who = ch.name() + " BD " + std::to_string(ch.bd);
  auto fail = [&](const std::string &what) { return Status(StatusCode::InvalidArgument, who + ": " + what); };
  BdFields f;
  uint32_t control;
  if (t.kind == TileKind::Compute) {
    f.lengthWords = w[0] & 0x3FFF;
    f.base = uint64_t((w[0] >> 14) & 0x3FFF) * 4;
    if (w[0] >> 28) return fail("word 0 sets reserved bits " + hex(w[0] & 0xF0000000u));
    if (w[1] >> 30) return fail("packet mode and compression (word 1 bits 31:30) are not modelled");
    f.step[0] = (w[2] & 0x1FFF) + 1, f.step[1] = ((w[2] >> 13) & 0x1FFF) + 1;
    f.step[2] = (w[3] & 0x1FFF) + 1, f.wrap[0] = (w[3] >> 13) & 0xFF, f.wrap[1] = (w[3] >> 21) & 0xFF;
    f.iterationStep = (w[4] & 0x1FFF) + 1, f.iterationWrap = ((w[4] >> 13) & 0x3F) + 1,
    f.iterationCurrent = (w[4] >> 19) & 0x3F;
    control = w[5];
  } else if (t.kind == TileKind::Shim) {
    f.lengthWords = w[0];
    f.base = uint64_t(w[1] & ~3u) | uint64_t(w[2] & 0xFFFF) << 32;
    if (w[1] & 3) return fail("word 1 bits 1:0 must be zero (the address is word aligned)");
    if (w[2] >> 30 & 1) return fail("packet mode (word 2 bit 30) is not modelled");
    f.step[0] = (w[3] & 0xFFFFF) + 1, f.wrap[0] = (w[3] >> 20) & 0x3FF;
    f.step[1] = (w[4] & 0xFFFFF) + 1, f.wrap[1] = (w[4] >> 20) & 0x3FF;
    f.step[2] = (w[5] & 0xFFFFF) + 1;
    f.iterationStep = (w[6] & 0xFFFFF) + 1, f.iterationWrap = ((w[6] >> 20) & 0x3F) + 1,
    f.iterationCurrent = w[6] >> 26;
    control = w[7];
  } else {
    return fail("memory-tile DMA execution is not modelled");
  }
  if (control & 0x00020010u) return fail("the last word sets reserved bits " + hex(control & 0x00020010u));
  f.valid = control >> 25 & 1, f.useNext = control >> 26 & 1, f.next = (control >> 27) & 0xF;
  f.releaseValue = signed7(control >> 18), f.releaseId = (control >> 13) & 0xF;
  f.acquireEnable = control >> 12 & 1, f.acquireValue = signed7(control >> 5), f.acquireId = control & 0xF;
  if (!f.valid) return fail("the BD is not valid (valid_bd, bit 25 of its last word, is clear)");
  if (f.lengthWords == 0) return fail("buffer length is 0 words");
  if (f.acquireEnable && f.acquireId >= t.locks.size())
    return fail("acquires lock " + std::to_string(f.acquireId) + "; the tile has " + std::to_string(t.locks.size()));
  if (f.releaseValue && f.releaseId >= t.locks.size())
    return fail("releases lock " + std::to_string(f.releaseId) + "; the tile has " + std::to_string(t.locks.size()));
  if (f.acquireEnable && f.acquireValue > 0)
    return fail("acquire-equal (a positive acquire value " + std::to_string(f.acquireValue) + ") is not modelled");
  ch.fields = f;
  ch.loaded = true;
  ch.acquired = !f.acquireEnable;
  ch.moved = 0;
  return Status::ok();
}

StatusOr<ArrayModel::Stream *> ArrayModel::routeFrom(Tile &t, Channel &ch) {
  std::string route = ch.name();
  auto fail = [&](const std::string &what) {
    return Status(StatusCode::FailedPrecondition, "the stream from " + ch.name() + " (" + route + ") " + what);
  };
  Tile *at = &t;
  Port slave;
  if (t.kind == TileKind::Shim) {
    uint32_t south = ch.index == 0 ? 3 : 7;  // xaie_noc.c: shim DMA into the array on south 3 / 7
    uint32_t field = (t.mux >> (south == 3 ? 10 : 14)) & 3;
    if (field != 1)
      return fail("enters the switch at south slave " + std::to_string(south) +
                  " through the shim mux, whose field for south " + std::to_string(south) + " selects " +
                  (field == 0   ? "PL (0, the reset value)"
                   : field == 2 ? "NoC (2)"
                                : "3") +
                  ", not DMA (1)");
    slave = {Bundle::South, south};
  } else {
    slave = {Bundle::Dma, ch.index};
  }
  for (int hop = 0; hop < 64; ++hop) {
    auto s = switchIndex(at->kind, slave, false);
    if (!s) return fail("arrives at " + portName(slave) + " of " + tileName(at->id) + ", which has no such slave port");
    route += " -> " + tileName(at->id) + " " + portName(slave);
    uint32_t scfg = at->slaves[*s];
    if (!(scfg >> 31))
      return fail("is not accepted: slave " + portName(slave) + " of " + tileName(at->id) + " is not enabled");
    if (scfg >> 30 & 1) return fail("reaches a packet-switched slave, which is not modelled");
    std::optional<uint32_t> found;
    for (uint32_t m = 0; m < at->masters.size(); ++m) {
      uint32_t mcfg = at->masters[m];
      if ((mcfg >> 31) && !(mcfg >> 30 & 1) && (mcfg & 0x7F) == *s) {
        if (found) return fail("is forwarded by two masters of " + tileName(at->id) + " (broadcast is not modelled)");
        found = m;
      }
    }
    if (!found)
      return fail("is routed nowhere: no enabled master of " + tileName(at->id) + " forwards slave " + portName(slave));
    Port master = *switchPort(at->kind, *found, true);
    route += " -> " + portName(master);
    TileId next = at->id;
    switch (master.bundle) {
    case Bundle::Dma:
      if (master.index >= at->s2mm.size())
        return fail("ends at DMA master " + std::to_string(master.index) + " of " + tileName(at->id) +
                    ", which has no such channel");
      at->s2mm[master.index]->input.route = route;
      return &at->s2mm[master.index]->input;
    case Bundle::South:
      if (at->kind == TileKind::Shim) {
        uint32_t field = master.index >= 2 && master.index <= 5 ? (at->demux >> (4 + 2 * (master.index - 2))) & 3 : 0;
        if ((master.index != 2 && master.index != 3) || field != 1)
          return fail("leaves the array at south master " + std::to_string(master.index) + " of " + tileName(at->id) +
                      ", which the shim demux does not hand to a DMA channel (S2MM 0/1 take south 2/3 when their demux "
                      "field is DMA (1))");
        Channel &dst = *at->s2mm[master.index - 2];
        dst.input.route = route + " -> " + dst.name();
        return &dst.input;
      }
      next.row -= 1, slave = {Bundle::North, master.index};
      break;
    case Bundle::North:
      if (at->id.row == 5) return fail("leaves the top row through north master " + std::to_string(master.index));
      next.row += 1, slave = {Bundle::South, master.index};
      break;
    case Bundle::East:
      if (at->id.column + 1 >= columns_)
        return fail("leaves the context through east master " + std::to_string(master.index) + " of " +
                    tileName(at->id));
      next.column += 1, slave = {Bundle::West, master.index};
      break;
    case Bundle::West:
      if (at->id.column == 0)
        return fail("leaves the context through west master " + std::to_string(master.index) + " of " +
                    tileName(at->id));
      next.column -= 1, slave = {Bundle::East, master.index};
      break;
    default:
      return fail("ends at " + portName(master) + " of " + tileName(at->id) +
                  " (core, control and FIFO streams are not modelled)");
    }
    at = tileAt(next);
  }
  return fail("loops through the switches");
}

StatusOr<bool> ArrayModel::stepChannel(Tile &t, Channel &ch) {
  bool progressed = false;
  for (;;) {
    if (!ch.active) {
      if (ch.queue.empty()) {
        ch.wait = Channel::Wait::Idle;
        return progressed;
      }
      ch.task = ch.queue.front();
      ch.queue.pop_front();
      ch.active = true;
      ch.execution = 0;
      ch.bd = ch.task.startBd;
      ch.loaded = false;
      progressed = true;
    }
    if (!ch.loaded) {
      if (Status s = startBd(t, ch); !s) return s;
      if (!ch.s2mm && !ch.output) {
        auto out = routeFrom(t, ch);
        if (!out) return out.status();
        if ((*out)->producer && (*out)->producer != &ch)
          return Status(StatusCode::FailedPrecondition, "the streams from " + (*out)->producer->name() + " and " +
                                                            ch.name() + " both reach " + (*out)->route +
                                                            " (merging is not modelled)");
        (*out)->producer = &ch;
        ch.output = *out;
      }
    }
    const BdFields &f = ch.fields;
    auto who = [&] { return ch.name() + " BD " + std::to_string(ch.bd); };
    if (!ch.acquired) {
      auto got = tryAcquire(t.id, f.acquireId, f.acquireValue);
      if (!got) return Status(got.status().code(), who() + ": " + got.status().message());
      if (!*got) {
        ch.wait = Channel::Wait::Lock;
        ch.waitLockValue = t.locks[f.acquireId];
        return progressed;
      }
      ch.acquired = true;
      progressed = true;
    }
    uint64_t iteration = (f.iterationCurrent + ch.execution) % f.iterationWrap;
    while (ch.moved < f.lengthWords) {
      uint64_t n = ch.moved, index0, index1 = 0, index2 = 0;
      if (f.wrap[0] == 0) {
        index0 = n;
      } else {
        index0 = n % f.wrap[0];
        uint64_t rest = n / f.wrap[0];
        if (f.wrap[1] == 0)
          index1 = rest;
        else
          index1 = rest % f.wrap[1], index2 = rest / f.wrap[1];
      }
      uint64_t address =
          f.base + 4 * (iteration * f.iterationStep + index0 * f.step[0] + index1 * f.step[1] + index2 * f.step[2]);
      std::byte *p;
      if (t.kind == TileKind::Shim) {
        auto h = hostBytes(address, 4, [&] { return who() + " word " + std::to_string(n); });
        if (!h) return h.status();
        p = *h;
      } else {
        if (address + 4 > t.memory.size())
          return Status(StatusCode::InvalidArgument, who() + " word " + std::to_string(n) + " addresses byte " +
                                                         hex(address) + ", outside the tile's " +
                                                         std::to_string(t.memory.size()) + "-byte data memory");
        p = t.memory.data() + address;
      }
      if (ch.s2mm) {
        if (ch.input.words.empty()) {
          ch.wait = Channel::Wait::StreamData;
          return progressed;
        }
        uint32_t v = ch.input.words.front();
        ch.input.words.pop_front();
        std::memcpy(p, &v, 4);
      } else {
        if (ch.output->words.size() >= kStreamWords) {
          ch.wait = Channel::Wait::StreamRoom;
          return progressed;
        }
        uint32_t v;
        std::memcpy(&v, p, 4);
        ch.output->words.push_back(v);
      }
      ++ch.moved;
      progressed = true;
    }
    // The BD is done: release, then follow the chain or finish one run of the task.
    if (f.releaseValue)
      if (Status s = release(t.id, f.releaseId, f.releaseValue); !s)
        return Status(s.code(), who() + ": " + s.message());
    ch.loaded = false;
    if (f.useNext) {
      ch.bd = f.next;
      continue;
    }
    if (++ch.execution < ch.task.executions) {
      ch.bd = ch.task.startBd;
      continue;
    }
    ch.active = false;
    if (ch.task.token) ++ch.tokens;
  }
}

}  // namespace hrx::array
