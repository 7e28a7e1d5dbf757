// The core main program of a worker tile (see hrx/xdna/Aie2pMain.h).
#include "hrx/xdna/Aie2pMain.h"

#include "BundleEmitter.h"

#include "hrx/aie2p/Asm.h"
#include "hrx/aie2p/Isa.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace hrx::xdna {
namespace {

constexpr uint32_t kDataMemoryBytes = 64 * 1024;
constexpr uint32_t kOwnBase = 0x70000;  // the core's own data memory (south 0x40000, west 0x50000, north 0x60000)

// The selector's bundle emitter (BundleEmitter.h) with the main program's few instruction forms.
class Bundler : public BundleEmitter {
public:
  void movxm(const std::string &reg, int64_t value) {
    if (value >= -1024 && value <= 1023)
      emit("MOV_mv_cg", "mov " + reg + ", #" + std::to_string(value), {}, {reg});
    else
      emit("MOVXM", "movxm " + reg + ", #" + std::to_string(value), {}, {reg});
  }
  void load(const std::string &reg, const std::string &pointer) {
    emit("LDA_dms_lda_idx_imm", "lda " + reg + ", [" + pointer + ", #0]", {pointer}, {reg});
  }
  void store(const std::string &reg, const std::string &pointer) {
    emit("ST_dms_sts_idx_imm", "st " + reg + ", [" + pointer + ", #0]", {reg, pointer}, {});
  }
};

struct CorePort {
  bool ring = false;  // Input/Output; false: State
  uint32_t period = 1;
  uint32_t acquireLock = 0, releaseLock = 0;  // core lock ids (0-63)
  std::vector<uint32_t> slots;                // core addresses by ring index
  uint32_t slotWord = 0, phaseWord = 0;       // device-state addresses (core view)
  uint32_t recordWord = 0;                    // its entry in the record-pointer array
  uint32_t privateRecord = 0, privateWords = 0;
};

std::string tileText(format::TileCoord t) { return "(" + std::to_string(t.column) + "," + std::to_string(t.row) + ")"; }

}  // namespace

std::expected<LinkedCoreProgram, std::string> linkCoreProgram(const std::string &workerAssembly, uint32_t frameBytes,
                                                              const format::ArrayPlan &plan,
                                                              const format::PlanWorker &worker) {
  const format::TileCoord me = worker.tile;
  // The memory window and lock block through which the core reaches a neighbour's memory.
  auto window = [&](format::TileCoord owner, uint32_t &base, uint32_t &lockBase) {
    if (owner == me) return base = 0x70000, lockBase = 48, true;
    if (owner.column == me.column && owner.row + 1 == me.row && owner.row >= 2)
      return base = 0x40000, lockBase = 0, true;
    if (owner.row == me.row && owner.column + 1 == me.column) return base = 0x50000, lockBase = 16, true;
    if (owner.column == me.column && owner.row == me.row + 1) return base = 0x60000, lockBase = 32, true;
    return false;
  };
  // The device state: [0] the iterations left, two words (slot, phase) per port, the
  // record-pointer array, then the State ports' records.
  std::vector<CorePort> ports(worker.ports.size());
  uint32_t stateWords = 1 + 2 * uint32_t(ports.size()) + uint32_t(ports.size());
  uint32_t privateBytes = 0;
  for (const format::WorkerPort &wp : worker.ports)
    if (wp.direction == format::PortDirection::State) privateBytes += (wp.recordBytes + 63) / 64 * 64;
  uint32_t stateBytes = (4 * stateWords + 63) / 64 * 64 + privateBytes;
  uint32_t stackBytes = std::max<uint32_t>(64, (frameBytes + 63) / 64 * 64);
  if (stateBytes + stackBytes > kDataMemoryBytes / 2)
    return std::unexpected("its device state and stack (" + std::to_string(stateBytes + stackBytes) +
                           " bytes) exceed half the tile's data memory");
  uint32_t stateOffset = kDataMemoryBytes - stateBytes - stackBytes;
  // The state and the stack must not overlap a ring slot the tile owns.
  for (const format::PlanSlot &s : plan.slots)
    if (s.owner == me && s.offset + s.bytes > stateOffset)
      return std::unexpected("the core main program's state and the worker's stack (" +
                             std::to_string(stateBytes + stackBytes) + " bytes at the top of tile " + tileText(me) +
                             "'s data memory) overlap ring slot " + std::to_string(s.index) + " of channel " +
                             std::to_string(s.channel));
  uint32_t state = kOwnBase + stateOffset;
  uint32_t records = state + 4 * (1 + 2 * uint32_t(ports.size()));
  uint32_t nextPrivate = state + (4 * stateWords + 63) / 64 * 64;
  for (size_t i = 0; i < ports.size(); ++i) {
    const format::WorkerPort &wp = worker.ports[i];
    CorePort &p = ports[i];
    p.period = std::max<uint32_t>(1, wp.period);
    p.slotWord = state + 4 + 8 * uint32_t(i);
    p.phaseWord = p.slotWord + 4;
    p.recordWord = records + 4 * uint32_t(i);
    std::string where = "port " + std::to_string(i);
    if (wp.direction == format::PortDirection::State) {
      p.privateRecord = nextPrivate;
      p.privateWords = (wp.recordBytes + 3) / 4;
      nextPrivate += (wp.recordBytes + 63) / 64 * 64;
      continue;
    }
    p.ring = true;
    if (!wp.channel) return std::unexpected(where + " has no channel");
    std::vector<const format::PlanSlot *> slots;
    for (const format::PlanSlot &s : plan.slots)
      if (s.channel == *wp.channel) slots.push_back(&s);
    std::sort(slots.begin(), slots.end(), [](auto *a, auto *b) { return a->index < b->index; });
    if (slots.empty()) return std::unexpected(where + ": channel " + std::to_string(*wp.channel) + " has no slots");
    uint32_t base = 0, lockBase = 0;
    format::TileCoord owner = slots[0]->owner;
    if (!window(owner, base, lockBase))
      return std::unexpected(where + ": its slots are on tile " + tileText(owner) + ", which the core of tile " +
                             tileText(me) + " cannot address (own, south, west and north compute tiles only)");
    for (const format::PlanSlot *s : slots) {
      if (!(s->owner == owner))
        return std::unexpected(where + ": the slots of channel " + std::to_string(*wp.channel) + " span two tiles");
      p.slots.push_back(base + s->offset);
    }
    std::optional<uint32_t> credit, ready;
    for (const format::PlanLock &l : plan.locks)
      if (l.channel == *wp.channel && l.tile == owner) (l.role == format::LockRole::Credit ? credit : ready) = l.id;
    if (!credit || !ready)
      return std::unexpected(where + ": channel " + std::to_string(*wp.channel) + " lacks a credit or ready lock");
    bool input = wp.direction == format::PortDirection::Input;
    p.acquireLock = lockBase + (input ? *ready : *credit);
    p.releaseLock = lockBase + (input ? *credit : *ready);
  }

  Bundler b;
  // slot = slot + 1 == n ? 0 : slot + 1
  auto advance = [&](const CorePort &p) {
    if (p.slots.size() < 2) return;
    b.movxm("p0", p.slotWord);
    b.load("r3", "p0");
    b.emit("ADD_add_r_ri", "add r3, r3, #1", {"r3"}, {"r3"});
    b.movxm("r4", int64_t(p.slots.size()));
    b.emit("NE", "ne r27, r3, r4", {"r3", "r4"}, {"r27"});
    b.emit("MUL", "mul r3, r3, r27", {"r3", "r27"}, {"r3"});
    b.store("r3", "p0");
  };
  auto lockOp = [&](bool acquire, uint32_t id) {
    b.movxm("r3", acquire ? -1 : 1);
    if (acquire)
      b.emit("ACQ_mLockId_imm", "acq #" + std::to_string(id) + ", r3", {"r3"}, {});
    else
      b.emit("REL_mLockId_imm", "rel #" + std::to_string(id) + ", r3", {"r3"}, {});
  };
  b.label("main");
  b.movxm("r1", worker.iterations);
  b.branch("JZ", "jz r1, #m_done", {"r1"});
  b.movxm("p0", state);
  b.store("r1", "p0");
  // A new invocation starts a new record on every port (an earlier one that ended part-way
  // through a period leaves that record behind, as the ring's DMA does).
  for (size_t i = 0; i < ports.size(); ++i) {
    const CorePort &p = ports[i];
    if (p.period == 1) continue;
    std::string skip = "m_start" + std::to_string(i);
    b.movxm("p0", p.phaseWord);
    b.load("r2", "p0");
    b.branch("JZ", "jz r2, #" + skip, {"r2"});
    b.movxm("r2", 0);
    b.movxm("p0", p.phaseWord);
    b.store("r2", "p0");
    if (p.ring) advance(p);
    b.label(skip);
  }
  b.label("m_iter");
  for (size_t i = 0; i < ports.size(); ++i) {
    const CorePort &p = ports[i];
    std::string n = std::to_string(i);
    if (p.period > 1) {  // a record starts when the phase is 0
      b.movxm("p0", p.phaseWord);
      b.load("r2", "p0");
      b.branch("JNZ", "jnz r2, #m_started" + n, {"r2"});
    }
    if (p.ring) {
      lockOp(true, p.acquireLock);
    } else {  // a State record starts zeroed
      b.movxm("p1", p.privateRecord);
      b.movxm("r2", 0);
      b.movxm("r4", p.privateWords);
      b.label("m_zero" + n);
      b.emit("ST_dms_sts_pstm_nrm_imm", "st r2, [p1], #4", {"r2", "p1"}, {"p1"});
      b.emit("ADD_add_r_ri", "add r4, r4, #-1", {"r4"}, {"r4"});
      b.branch("JNZ", "jnz r4, #m_zero" + n, {"r4"});
    }
    if (p.period > 1) b.label("m_started" + n);
    // The record's address: slot k's, selected by the ring position.
    if (p.ring) {
      b.movxm("r5", p.slots[0]);
      if (p.slots.size() > 1) {
        b.movxm("p0", p.slotWord);
        b.load("r3", "p0");
        for (size_t k = 1; k < p.slots.size(); ++k) {
          b.movxm("r6", p.slots[k]);
          b.movxm("r7", int64_t(k));
          b.emit("EQ", "eq r27, r3, r7", {"r3", "r7"}, {"r27"});
          b.emit("SEL_NEZ", "sel.nez r5, r6, r5, r27", {"r6", "r5", "r27"}, {"r5"});
        }
      }
    } else {
      b.movxm("r5", p.privateRecord);
    }
    b.movxm("p1", p.recordWord);
    b.store("r5", "p1");
  }
  b.movxm("r0", records);
  b.movxm("sp", state + stateBytes);
  b.flush();
  b.emit("JL_lng", "jl #worker", {}, {"lr"});
  b.flush();
  for (size_t i = 0; i < ports.size(); ++i) {
    const CorePort &p = ports[i];
    std::string n = std::to_string(i);
    if (p.period > 1) {  // phase = (phase + 1) mod period; a record finishes when it wraps
      b.movxm("p0", p.phaseWord);
      b.load("r2", "p0");
      b.emit("ADD_add_r_ri", "add r2, r2, #1", {"r2"}, {"r2"});
      b.movxm("r4", p.period);
      b.emit("NE", "ne r27, r2, r4", {"r2", "r4"}, {"r27"});
      b.emit("MUL", "mul r2, r2, r27", {"r2", "r27"}, {"r2"});
      b.store("r2", "p0");
      if (p.ring) b.branch("JNZ", "jnz r2, #m_kept" + n, {"r2"});
    }
    if (p.ring) {
      lockOp(false, p.releaseLock);
      advance(p);
      if (p.period > 1) b.label("m_kept" + n);
    }
  }
  b.movxm("p0", state);
  b.load("r1", "p0");
  b.emit("ADD_add_r_ri", "add r1, r1, #-1", {"r1"}, {"r1"});
  b.store("r1", "p0");
  b.branch("JNZ", "jnz r1, #m_iter", {"r1"});
  b.label("m_done");
  b.emit("DONE", "done", {}, {});
  b.flush();

  LinkedCoreProgram linked;
  linked.assembly = workerAssembly + b.text();
  aie2p::AsmProgram program;
  std::vector<aie2p::AsmDiagnostic> diags;
  if (!aie2p::assemble(linked.assembly, program, diags))
    return std::unexpected("internal: the core program does not assemble (line " +
                           std::to_string(diags.empty() ? 0 : diags[0].line) + ": " +
                           (diags.empty() ? "" : diags[0].message) + ")");
  for (const auto &l : program.labels)
    if (l.name == "worker" && l.offset != kAie2pWorkerOffset)
      return std::unexpected("internal: the worker starts at " + std::to_string(l.offset) + ", not " +
                             std::to_string(kAie2pWorkerOffset));
  linked.bytes = std::move(program.bytes);
  linked.bundles = uint32_t(program.bundles.size());
  linked.stateOffset = stateOffset;
  linked.stateBytes = stateBytes;
  return linked;
}

}  // namespace hrx::xdna
