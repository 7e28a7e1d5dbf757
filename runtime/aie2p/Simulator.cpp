// The AIE2P core simulator (see Simulator.h for the model).
#include "hrx/aie2p/Simulator.h"

#include "hrx/support/Text.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace hrx::aie2p {

namespace {

// r, p, m, dn, dj, dc, lr, sp, ls, le, lc, core_id, s0..s3, crRnd, crSat, crSRSMode, crUPSMode,
// srSRS_of, srUPS_of
constexpr uint16_t kScalarBytes = 88 * 4;
static_assert(kScalarBytes <= 384);
constexpr uint16_t kVectorBase = 384;                 // 12 x 64 bytes
constexpr uint16_t kAccBase = kVectorBase + 12 * 64;  // 5 x 256 bytes
constexpr uint16_t kExponentBase = kAccBase + 5 * 256;  // e0..e11: 12 x 8 bytes
constexpr uint16_t kRegBytes = kExponentBase + 12 * 8;

unsigned scalarIndex(Reg r) {
  switch (r.kind) {
  case RegKind::R: return r.index;
  case RegKind::P: return 32 + r.index;
  case RegKind::M: return 40 + r.index;
  case RegKind::DN: return 48 + r.index;
  case RegKind::DJ: return 56 + r.index;
  case RegKind::DC: return 64 + r.index;
  case RegKind::LR: return 72;
  case RegKind::SP: return 73;
  case RegKind::LS: return 74;
  case RegKind::LE: return 75;
  case RegKind::LC: return 76;
  case RegKind::CoreId: return 77;
  case RegKind::S: return 78 + r.index;
  case RegKind::CrRnd: return 82;
  case RegKind::CrSat: return 83;
  case RegKind::CrSRSMode: return 84;
  case RegKind::CrUPSMode: return 85;
  case RegKind::SrSRSOf: return 86;
  case RegKind::SrUPSOf: return 87;
  default: return ~0u;
  }
}

// Pointer, modifier, dimension and loop-address registers are 20 bits wide
// (AIE2PRegisterInfo.td; shared/reference/npu5-hardware.md).
uint32_t widthMask(Reg r) {
  switch (r.kind) {
  case RegKind::R:
  case RegKind::LC:
  case RegKind::CoreId: return 0xFFFFFFFFu;
  default: return 0xFFFFFu;
  }
}

// crRnd values (llvm-aie's aie2p rounding enum; AMD's AIE-ML model, srs_round): floor, ceil,
// symmetric floor and ceil (towards / away from zero), then the round-to-nearest modes that
// differ at the half: towards -inf, +inf, zero, away from zero, even, odd.
enum Rounding : uint32_t {
  kFloor = 0,
  kCeil = 1,
  kSymFloor = 2,
  kSymCeil = 3,
  kNegInf = 8,
  kPosInf = 9,
  kSymZero = 10,
  kSymInf = 11,
  kConvEven = 12,
  kConvOdd = 13,
};
bool isRoundingMode(uint32_t rnd) { return rnd <= kSymCeil || (rnd >= kNegInf && rnd <= kConvOdd); }

// One lane of shift-round-saturate: `v >> shift` rounded by crRnd (the decision of AMD's AIE-ML
// model from the kept lsb, the guard bit and the sticky bits below it), then clamped to the
// output range when saturating (crSat bit 0; bit 1 makes a signed minimum symmetric, -(2^(n-1)-1))
// and truncated to `outBits`. `overflow` is set, as the model's flag, when the rounded value is
// above the range or the exact shifted value below it (whether or not it saturates).
uint64_t shiftRoundSaturate(int64_t v, unsigned shift, unsigned outBits, bool outSigned, uint32_t rnd, uint32_t sat,
                            bool &overflow) {
  const int64_t floor = shift >= 64 ? (v < 0 ? -1 : 0) : v >> shift;
  const bool guard = shift > 0 && shift <= 64 && ((v >> (shift - 1)) & 1);
  const bool sticky = shift > 1 && (shift > 64 || (uint64_t(v) & ((uint64_t(1) << (shift - 1)) - 1)) != 0);
  const bool lsb = floor & 1, negative = v < 0;
  const bool halfway = rnd >= kNegInf;
  const bool symmetric = rnd == kSymFloor || rnd == kSymCeil || rnd == kSymInf || rnd == kSymZero;
  const bool otherDirection = rnd == kCeil || rnd == kSymCeil || rnd == kPosInf || rnd == kSymInf || rnd == kConvOdd;
  bool decide = (rnd == kConvEven || rnd == kConvOdd) ? lsb : symmetric ? negative : false;
  if (otherDirection) decide = !decide;
  const bool up = halfway ? guard && (decide || sticky) : decide && (guard || sticky);
  __int128 r = __int128(floor) + (up ? 1 : 0);
  const __int128 hi = outSigned ? (__int128(1) << (outBits - 1)) - 1 : (__int128(1) << outBits) - 1;
  const __int128 lo = outSigned ? -(__int128(1) << (outBits - 1)) + ((sat & 2) ? 1 : 0) : 0;
  overflow = r > hi || __int128(v) < lo * (__int128(1) << shift);
  if (sat & 1) r = r > hi ? hi : r < lo ? lo : r;
  const uint64_t mask = outBits >= 64 ? ~uint64_t(0) : (uint64_t(1) << outBits) - 1;
  return uint64_t(r) & mask;
}

uint32_t load32(const uint8_t *p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
void store32(uint8_t *p, uint32_t v) { std::memcpy(p, &v, 4); }

// a < b for one vector lane of `width` bytes, signed or unsigned.
bool laneLess(const uint8_t *a, const uint8_t *b, unsigned width, bool isSigned) {
  uint32_t x = 0, y = 0;
  std::memcpy(&x, a, width), std::memcpy(&y, b, width);
  if (!isSigned) return x < y;
  unsigned shift = 32 - 8 * width;
  return (static_cast<int32_t>(x << shift) >> shift) < (static_cast<int32_t>(y << shift) >> shift);
}

float bitsToFloat(uint32_t b) { return std::bit_cast<float>(b); }
uint32_t floatToBits(float f) { return std::bit_cast<uint32_t>(f); }

// fp32 -> bf16, round to nearest even (NaN stays NaN).
uint16_t toBf16(uint32_t f) {
  if ((f & 0x7F800000u) == 0x7F800000u && (f & 0x7FFFFFu)) return static_cast<uint16_t>((f >> 16) | 0x40);
  uint32_t rounding = 0x7FFFu + ((f >> 16) & 1);
  return static_cast<uint16_t>((f + rounding) >> 16);
}

using text::hex;  // hrx/support/Text.h

int operandIndex(const InstrInfo &info, std::string_view field) {
  for (size_t i = 0; i < info.operands.size(); ++i)
    if (info.operands[i].field == field) return static_cast<int>(i);
  return -1;
}

// The operands the memory access path names, found once per instruction form instead of by name
// on every execution (the table is fixed once built).
struct AccessFields {
  int ptr, imm, mod, dj, dst, src;
  unsigned ptrWriteCycle, dcWriteCycle;
};

const AccessFields &accessFields(uint16_t id) {
  static const std::vector<AccessFields> table = [] {
    std::vector<AccessFields> t;
    t.reserve(instructions().size());
    for (const InstrInfo &info : instructions())
      t.push_back({operandIndex(info, "ptr"), operandIndex(info, "imm"), operandIndex(info, "mod"),
                   operandIndex(info, "dj"), operandIndex(info, "dst"), operandIndex(info, "src"),
                   info.writeCycleOf("ptr"), info.writeCycleOf("dc")});
    return t;
  }();
  return table[id];
}

}  // namespace

std::string Trap::message() const {
  char head[96];
  std::snprintf(head, sizeof head, "trap at pc 0x%04x (cycle %llu)", pc, static_cast<unsigned long long>(cycle));
  return std::string(head) + ", bundle '" + bundle + "': " + reason;
}

Core::Core(std::vector<uint8_t> program, CoreMemoryMap memory, uint64_t cycleLimit, uint32_t coreId)
    : program_(std::move(program)), memory_(memory), cycleLimit_(cycleLimit), coreId_(coreId), regs_(kRegBytes, 0) {
  store32(regs_.data() + 4 * scalarIndex(Reg{RegKind::CoreId, 0}), coreId_);
  if (program_.size() > kProgramMemorySize) {
    trap_ = Trap{0, 0, "",
                 "the program is " + std::to_string(program_.size()) + " bytes; program memory holds " +
                     std::to_string(kProgramMemorySize)};
    state_ = CoreState::Trapped;
  }
}

void Core::reset() {
  std::fill(regs_.begin(), regs_.end(), uint8_t(0));
  store32(regs_.data() + 4 * scalarIndex(Reg{RegKind::CoreId, 0}), coreId_);
  pending_.clear();
  freeSlots_.clear();
  for (size_t i = pendingBytes_.size(); i-- > 0;) freeSlots_.push_back(static_cast<uint16_t>(i));
  pc_ = 0;
  cycle_ = 0;
  stats_ = CoreStats{};
  branch_.reset();
  newBranch_.reset();
  done_ = false;
  currentBundle_ = 0;
  currentBundleText_.clear();
  if (state_ == CoreState::Trapped && program_.size() > kProgramMemorySize) return;  // the constructor's trap stays
  trap_.reset();
  state_ = CoreState::Running;
}

Core::Location Core::locate(Reg reg) {
  switch (reg.kind) {
  case RegKind::X: return {static_cast<uint16_t>(kVectorBase + 64 * reg.index), 64};
  case RegKind::Y: return {static_cast<uint16_t>(kVectorBase + 128 * reg.index), 128};  // x2K : x2K+1
  case RegKind::L: return {static_cast<uint16_t>(8 * reg.index), 8};                    // r2K : r2K+1
  case RegKind::DM: return {static_cast<uint16_t>(kAccBase + 256 * reg.index), 256};
  case RegKind::CML: return {static_cast<uint16_t>(kAccBase + 256 * reg.index), 128};
  case RegKind::CMH: return {static_cast<uint16_t>(kAccBase + 256 * reg.index + 128), 128};
  // exK is xK (the mantissas, located here) and eK (the exponents, read and written beside it).
  case RegKind::EX: return {static_cast<uint16_t>(kVectorBase + 64 * reg.index), 64};
  case RegKind::E: return {static_cast<uint16_t>(kExponentBase + 8 * reg.index), 8};
  case RegKind::BMLL:
  case RegKind::BMLH:
  case RegKind::BMHL:
  case RegKind::BMHH:  // bmllK = bytes 0-63 of dmK (cmlK's low half) ... bmhhK = bytes 192-255
    return {static_cast<uint16_t>(kAccBase + 256 * reg.index +
                                  64 * (static_cast<unsigned>(reg.kind) - static_cast<unsigned>(RegKind::BMLL))),
            64};
  default: return {static_cast<uint16_t>(4 * scalarIndex(reg)), 4};
  }
}

void Core::retire() {
  // Results written by the end of an earlier cycle become the committed state, in issue order.
  // The list is ordered by commit cycle, so they are its front.
  size_t done = 0;
  for (; done < pending_.size() && pending_[done].commitCycle < cycle_; ++done) {
    const Pending &p = pending_[done];
    if (p.size == 4)
      std::memcpy(regs_.data() + p.offset, pendingBytes_[p.slot].data(), 4);
    else
      std::memcpy(regs_.data() + p.offset, pendingBytes_[p.slot].data(), p.size);
    freeSlots_.push_back(p.slot);
  }
  if (done == pending_.size())
    pending_.clear();
  else if (done)
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(done));
}

void Core::readBytes(Reg reg, unsigned readCycle, uint8_t *out) const {
  Location loc = locate(reg);
  std::memcpy(out, regs_.data() + loc.offset, loc.size);
  // A read at pipeline cycle U of this bundle happens in absolute cycle cycle_ + U - 1: it sees
  // results written by the end of an earlier absolute cycle (a front of the ordered list).
  uint64_t readAt = cycle_ + readCycle - 1;
  for (const auto &p : pending_) {
    if (p.commitCycle >= readAt) break;
    unsigned lo = std::max<unsigned>(p.offset, loc.offset),
             hi = std::min<unsigned>(p.offset + p.size, loc.offset + loc.size);
    if (lo < hi) std::memcpy(out + (lo - loc.offset), pendingBytes_[p.slot].data() + (lo - p.offset), hi - lo);
  }
}

uint32_t Core::readScalar(Reg reg, unsigned readCycle) const {
  Location loc = locate(reg);
  if (loc.size != 4) {
    uint8_t b[256];
    readBytes(reg, readCycle, b);
    return load32(b);
  }
  // readBytes for one 32-bit register: a pending result for exactly it replaces the value, one
  // that overlaps part of it (a register pair) replaces those bytes.
  uint8_t b[4];
  std::memcpy(b, regs_.data() + loc.offset, 4);
  uint64_t readAt = cycle_ + readCycle - 1;
  for (const auto &p : pending_) {
    if (p.commitCycle >= readAt) break;
    if (p.offset == loc.offset && p.size == 4) {
      std::memcpy(b, pendingBytes_[p.slot].data(), 4);
      continue;
    }
    unsigned lo = std::max<unsigned>(p.offset, loc.offset), hi = std::min<unsigned>(p.offset + p.size, loc.offset + 4u);
    if (lo < hi) std::memcpy(b + (lo - loc.offset), pendingBytes_[p.slot].data() + (lo - p.offset), hi - lo);
  }
  return load32(b);
}

uint16_t Core::pendingSlot() {
  if (freeSlots_.empty()) {
    pendingBytes_.emplace_back();
    return static_cast<uint16_t>(pendingBytes_.size() - 1);
  }
  uint16_t slot = freeSlots_.back();
  freeSlots_.pop_back();
  return slot;
}

void Core::addPending(const Pending &p) {
  // Kept in commit order (issue order among equal cycles): a result that lands later overrides
  // one that lands earlier, whatever their issue order (lda r1 then add r1: r1 ends as loaded).
  if (pending_.empty() || pending_.back().commitCycle <= p.commitCycle) {
    pending_.push_back(p);
    return;
  }
  auto at = std::upper_bound(pending_.begin(), pending_.end(), p.commitCycle,
                             [](uint64_t c, const Pending &q) { return c < q.commitCycle; });
  pending_.insert(at, p);
}

void Core::writeBytes(Reg reg, unsigned writeCycle, const uint8_t *bytes) {
  Location loc = locate(reg);
  Pending p;
  p.commitCycle = cycle_ + std::max(writeCycle, 1u) - 1;
  p.offset = loc.offset;
  p.size = loc.size;
  p.slot = pendingSlot();
  if (loc.size == 4)  // a fixed-size copy for the common scalar, not a call
    std::memcpy(pendingBytes_[p.slot].data(), bytes, 4);
  else
    std::memcpy(pendingBytes_[p.slot].data(), bytes, loc.size);
  addPending(p);
}

void Core::writeScalar(Reg reg, unsigned writeCycle, uint32_t value) {
  uint8_t b[4];
  store32(b, value & widthMask(reg));
  writeBytes(reg, writeCycle, b);
}

uint32_t Core::scalar(Reg reg) const { return load32(regs_.data() + locate(reg).offset); }
void Core::setScalar(Reg reg, uint32_t value) { store32(regs_.data() + locate(reg).offset, value & widthMask(reg)); }

std::vector<uint8_t> Core::vector(Reg reg) const {
  Location loc = locate(reg);
  return std::vector<uint8_t>(regs_.begin() + loc.offset, regs_.begin() + loc.offset + loc.size);
}

void Core::setVector(Reg reg, std::span<const uint8_t> bytes) {
  Location loc = locate(reg);
  std::memcpy(regs_.data() + loc.offset, bytes.data(), std::min<size_t>(bytes.size(), loc.size));
}

bool Core::mapAddress(uint32_t address, uint32_t size, TileMemory *&tile, uint32_t &offset, std::string &why) const {
  static constexpr const char *kNames[] = {"south", "west", "north", "own"};
  if (address < 0x40000 || address >= 0x80000) {
    why = "address " + hex(address) + " is outside the core's data memory map (0x40000..0x7ffff)";
    return false;
  }
  unsigned window = (address - 0x40000) / kDataMemorySize;
  TileMemory *tiles[] = {memory_.south, memory_.west, memory_.north, memory_.own};
  tile = tiles[window];
  offset = address % kDataMemorySize;
  if (!tile) {
    why = "address " + hex(address) + " is in the " + kNames[window] +
          " neighbour's memory, which this core does not have";
    return false;
  }
  if (offset + size > kDataMemorySize) {
    why = "access of " + std::to_string(size) + " bytes at " + hex(address) +
          " crosses the end of a 64 KiB memory window";
    return false;
  }
  // Scalar words need 4-byte alignment; vectors the 256-bit memory word (32 bytes).
  uint32_t align = std::min<uint32_t>(size, 32);
  if (address % align) {
    why = "misaligned " + std::to_string(size * 8) + "-bit access at " + hex(address) + " (needs " +
          std::to_string(align) + "-byte alignment)";
    return false;
  }
  return true;
}

bool Core::readMemory(uint32_t address, std::span<uint8_t> out) const {
  for (size_t i = 0; i < out.size(); ++i) {
    TileMemory *tile;
    uint32_t offset;
    std::string why;
    if (!mapAddress(static_cast<uint32_t>(address + i), 1, tile, offset, why)) return false;
    out[i] = tile->bytes()[offset];
  }
  return true;
}

bool Core::writeMemory(uint32_t address, std::span<const uint8_t> bytes) {
  for (size_t i = 0; i < bytes.size(); ++i) {
    TileMemory *tile;
    uint32_t offset;
    std::string why;
    if (!mapAddress(static_cast<uint32_t>(address + i), 1, tile, offset, why)) return false;
    tile->bytes()[offset] = bytes[i];
    tile->noteWrite(offset, 1);
  }
  return true;
}

int32_t *Core::lock(unsigned id) {
  if (id >= 4 * kLocksPerTile) return nullptr;
  TileMemory *tiles[] = {memory_.south, memory_.west, memory_.north, memory_.own};
  TileMemory *tile = tiles[id / kLocksPerTile];
  return tile ? tile->lockAt(id % kLocksPerTile) : nullptr;
}

void Core::fail(std::string reason) {
  trap_ = Trap{pc_, cycle_, currentBundle_ ? formatBundle(decoded_[currentBundle_ - 1].bundle) : currentBundleText_,
               std::move(reason)};
  state_ = CoreState::Trapped;
}

void Core::raiseTrap(std::string reason) {
  if (state_ == CoreState::Halted || state_ == CoreState::Trapped) return;
  fail(std::move(reason));
}

// Lock requests (llvm-aie's aie2p_locks.h): a negative value -V asks for at least V and takes
// it (acquire_greater_equal passes -val), a value V >= 0 waits until the lock equals V
// (acquire_equal) and then takes V (the decrement is inferred); a release adds the value. The
// conditional forms do nothing when r26 is zero.
bool Core::lockConditionHolds(const Instr &instr) const {
  const Semantic sem = instr.info().semantic;
  if (sem != Semantic::AcquireConditional && sem != Semantic::ReleaseConditional) return true;
  return readScalar(Reg{RegKind::R, 26}, 1) != 0;
}

bool Core::lockAvailable(const Instr &instr, std::string &why) {
  const auto &info = instr.info();
  if (!lockConditionHolds(instr)) return true;
  const Operand &idOp = instr.ops[operandIndex(info, "id")];
  uint32_t id = idOp.isReg ? readScalar(idOp.reg, 1) : static_cast<uint32_t>(idOp.imm);
  int32_t *l = lock(id);
  if (!l) {
    why = "lock " + std::to_string(id) +
          " is not mapped (0-15 south, 16-31 west, 32-47 north, 48-63 own; the neighbour must exist)";
    return false;
  }
  int32_t value = static_cast<int32_t>(readScalar(instr.ops[operandIndex(info, "s1")].reg, 1));
  return value < 0 ? *l >= -int64_t(value) : *l == value;
}

bool Core::execute(const Instr &instr, uint32_t bundleSize, std::string &why) {
  const auto &info = instr.info();
  auto reg = [&](int i) { return instr.ops[i].reg; };
  auto rd = [&](int i) { return readScalar(reg(i), info.operands[i].readCycle); };
  auto wr = [&](int i, uint32_t v) { writeScalar(reg(i), info.operands[i].writeCycle, v); };
  auto imm = [&](int i) { return instr.ops[i].imm; };
  auto field = [&](std::string_view name) { return operandIndex(info, name); };
  const AccessFields &access = accessFields(instr.id);
  auto vec = [&](int i, uint8_t *out) { readBytes(reg(i), info.operands[i].readCycle, out); };
  auto wvec = [&](int i, const uint8_t *bytes) { writeBytes(reg(i), info.operands[i].writeCycle, bytes); };
  auto branch = [&](uint32_t target, bool call) {
    if (branch_ || newBranch_) {
      why = "branch in the delay slots of another branch";
      return false;
    }
    newBranch_ = BranchInFlight{target, info.delaySlots, call};
    return true;
  };
  // 2D post-modify with dK = (mK, dnK, djK, dcK): when the count has reached the size the pointer
  // takes the modifier and the count restarts, otherwise it takes the increment and the count
  // advances (llvm-aie's aie2p-2d-addressing run test; AMD's add_2d intrinsic). 3D adds a second
  // counter: when the first wraps the pointer takes d(K+4)'s increment and its count advances,
  // and only when both have reached their sizes does it take mK (AMD's add_3d). Both return the
  // old pointer.
  auto step2D = [&](int ptr) -> uint32_t {
    uint8_t k = reg(access.mod).index;
    uint32_t base = rd(ptr);
    uint32_t m = readScalar(Reg{RegKind::M, k}, 1), dn = readScalar(Reg{RegKind::DN, k}, 1);
    uint32_t dj = readScalar(Reg{RegKind::DJ, k}, 1), dc = readScalar(Reg{RegKind::DC, k}, 1);
    bool wrap = dc >= dn;
    writeScalar(reg(ptr), access.ptrWriteCycle, base + (wrap ? m : dj));
    writeScalar(Reg{RegKind::DC, k}, access.dcWriteCycle, wrap ? 0 : dc + 1);
    return base;
  };
  auto step3D = [&](int ptr) -> uint32_t {
    uint8_t lo = reg(access.mod).index, hi = static_cast<uint8_t>(lo + 4);
    uint32_t base = rd(ptr);
    uint32_t m = readScalar(Reg{RegKind::M, lo}, 1);
    uint32_t dn1 = readScalar(Reg{RegKind::DN, lo}, 1), dj1 = readScalar(Reg{RegKind::DJ, lo}, 1);
    uint32_t dc1 = readScalar(Reg{RegKind::DC, lo}, 1);
    uint32_t dn2 = readScalar(Reg{RegKind::DN, hi}, 1), dj2 = readScalar(Reg{RegKind::DJ, hi}, 1);
    uint32_t dc2 = readScalar(Reg{RegKind::DC, hi}, 1);
    uint32_t step = dj1;
    if (dc1 >= dn1) {
      dc1 = 0;
      if (dc2 >= dn2)
        dc2 = 0, step = m;
      else
        ++dc2, step = dj2;
    } else {
      ++dc1;
    }
    writeScalar(reg(ptr), access.ptrWriteCycle, base + step);
    writeScalar(Reg{RegKind::DC, lo}, access.dcWriteCycle, dc1);
    writeScalar(Reg{RegKind::DC, hi}, access.dcWriteCycle, dc2);
    return base;
  };
  // Effective address and post-modify for the addressing modes.
  auto address = [&](uint32_t &addr) {
    if (info.mode == AddrMode::Stack) {
      addr = (readScalar(Reg{RegKind::SP, 0}, 1) + static_cast<uint32_t>(imm(access.imm))) & 0xFFFFFu;
      return;
    }
    int ptr = access.ptr;
    uint32_t base = rd(ptr);
    switch (info.mode) {
    case AddrMode::IdxImm: addr = base + static_cast<uint32_t>(imm(access.imm)); break;
    case AddrMode::Idx: addr = base + rd(access.dj); break;
    case AddrMode::PostImm:
      addr = base;
      writeScalar(reg(ptr), access.ptrWriteCycle, base + static_cast<uint32_t>(imm(access.imm)));
      break;
    case AddrMode::PostMod:
      addr = base;
      writeScalar(reg(ptr), access.ptrWriteCycle, base + rd(access.mod));
      break;
    case AddrMode::Post2D: addr = step2D(ptr); break;
    case AddrMode::Post3D: addr = step3D(ptr); break;
    case AddrMode::None:
    case AddrMode::Stack: addr = base; break;
    }
    addr &= 0xFFFFFu;
  };
  auto shift = [](uint32_t v, int32_t amount, bool arithmetic) -> uint32_t {
    if (amount >= 0) return amount >= 32 ? 0 : v << amount;
    int32_t right = -amount;
    if (arithmetic) return static_cast<uint32_t>(static_cast<int32_t>(v) >> std::min(right, 31));
    return right >= 32 ? 0 : v >> right;
  };
  // Accumulator lanes shifted right by the shift register and narrowed (vsrs, vst.srs): .4x takes
  // dm (crSRSMode 0: 64 x 32 bits to 8; 1: 32 x 64 bits to 16), .2x a cm half (0: 32 x 32 bits to
  // 16; 1: 16 x 64 to 32). The lanes are signed (two's complement); srssign1 makes the result
  // signed, srssign0 unsigned (its saturation range). Rounding by crRnd, saturation by crSat
  // (0 none, 1 saturate, 3 symmetric), as in shiftRoundSaturate.
  auto srs = [&](int src, int su, uint8_t *d) {
    uint32_t rnd = readScalar(Reg{RegKind::CrRnd, 0}, 1), sat = readScalar(Reg{RegKind::CrSat, 0}, 1);
    uint32_t mode = readScalar(Reg{RegKind::CrSRSMode, 0}, 1);
    if (!isRoundingMode(rnd) || (sat != 0 && sat != 1 && sat != 3) || mode > 1) {
      why = std::string(info.mnemonic) + " with crRnd = " + std::to_string(rnd) + ", crSat = " + std::to_string(sat) +
            ", crSRSMode = " + std::to_string(mode) +
            " is not modelled (crRnd 0-3 or 8-13, crSat 0, 1 or 3, crSRSMode 0 or 1)";
      return false;
    }
    const bool fromDm = reg(src).kind == RegKind::DM, isSigned = info.syntax.find("srssign1") != std::string_view::npos;
    const unsigned inBytes = mode ? 8 : 4, outBytes = fromDm ? inBytes / 4 : inBytes / 2;
    const unsigned lanes = (fromDm ? 256 : 128) / inBytes;
    const unsigned amount = rd(su) & 63;
    uint8_t in[256];
    vec(src, in);
    std::memset(d, 0, 64);
    bool anyOverflow = false;
    for (unsigned i = 0; i < lanes; ++i) {
      int64_t v = 0;
      if (inBytes == 4) {
        int32_t narrow;
        std::memcpy(&narrow, in + i * inBytes, 4);
        v = narrow;
      } else {
        std::memcpy(&v, in + i * inBytes, 8);
      }
      bool overflow = false;
      uint64_t out = shiftRoundSaturate(v, amount, outBytes * 8, isSigned, rnd, sat, overflow);
      anyOverflow |= overflow;
      std::memcpy(d + i * outBytes, &out, outBytes);
    }
    // srSRS_of is sticky (software clears it: aie2p_set_mode.h's clr_srs_of); written with the
    // result (vsrs: cycle 2; the stores: 1; inferred, the itinerary was not read for it).
    if (anyOverflow) writeScalar(Reg{RegKind::SrSRSOf, 0}, field("dst") >= 0 ? info.writeCycleOf("dst") : 1, 1);
    return true;
  };
  switch (info.semantic) {
  case Semantic::Nop:
  case Semantic::Event: return true;
  case Semantic::Done: done_ = true; return true;
  case Semantic::Add: wr(0, rd(1) + (instr.ops[2].isReg ? rd(2) : static_cast<uint32_t>(imm(2)))); return true;
  case Semantic::Sub: wr(0, rd(1) - rd(2)); return true;
  case Semantic::And: wr(0, rd(1) & rd(2)); return true;
  case Semantic::Or: wr(0, rd(1) | rd(2)); return true;
  case Semantic::Xor: wr(0, rd(1) ^ rd(2)); return true;
  case Semantic::Lshl: wr(0, shift(rd(1), static_cast<int32_t>(rd(2)), false)); return true;
  case Semantic::Ashl: wr(0, shift(rd(1), static_cast<int32_t>(rd(2)), true)); return true;
  case Semantic::Eq: wr(0, rd(1) == rd(2)); return true;
  case Semantic::Ne: wr(0, rd(1) != rd(2)); return true;
  case Semantic::Lt: wr(0, static_cast<int32_t>(rd(1)) < static_cast<int32_t>(rd(2))); return true;
  case Semantic::Ltu: wr(0, rd(1) < rd(2)); return true;
  case Semantic::Ge: wr(0, static_cast<int32_t>(rd(1)) >= static_cast<int32_t>(rd(2))); return true;
  case Semantic::Geu: wr(0, rd(1) >= rd(2)); return true;
  case Semantic::Eqz: wr(0, rd(1) == 0); return true;
  case Semantic::Nez: wr(0, rd(1) != 0); return true;
  case Semantic::Mul: wr(0, rd(1) * rd(2)); return true;
  case Semantic::Mac: wr(0, rd(1) + rd(2) * rd(3)); return true;
  case Semantic::Msc: wr(0, rd(1) - rd(2) * rd(3)); return true;
  case Semantic::Abs: {
    int32_t v = static_cast<int32_t>(rd(1));
    wr(0, v < 0 ? 0u - static_cast<uint32_t>(v) : static_cast<uint32_t>(v));  // abs(INT32_MIN) wraps
    return true;
  }
  case Semantic::CountLeadingZeros: wr(0, static_cast<uint32_t>(std::countl_zero(rd(1)))); return true;
  case Semantic::ExtendS8: wr(0, static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(rd(1))))); return true;
  case Semantic::ExtendS16:
    wr(0, static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(rd(1)))));
    return true;
  case Semantic::ExtendU8: wr(0, rd(1) & 0xFFu); return true;
  case Semantic::ExtendU16: wr(0, rd(1) & 0xFFFFu); return true;
  case Semantic::SelEqz:
  case Semantic::SelNez: {
    bool zero = readScalar(Reg{RegKind::R, 27}, 1) == 0;
    bool first = info.semantic == Semantic::SelEqz ? zero : !zero;
    wr(0, first ? rd(1) : rd(2));
    return true;
  }
  case Semantic::Move: wr(0, rd(1)); return true;
  case Semantic::MovImm: wr(0, static_cast<uint32_t>(imm(1))); return true;
  case Semantic::AddNoCarry: wr(0, rd(1) + static_cast<uint32_t>(imm(2))); return true;
  case Semantic::Acquire:
  case Semantic::AcquireConditional: {
    if (!lockConditionHolds(instr)) return true;
    const Operand &idOp = instr.ops[field("id")];
    uint32_t id = idOp.isReg ? rd(field("id")) : static_cast<uint32_t>(idOp.imm);
    int32_t amount = static_cast<int32_t>(rd(field("s1")));
    *lock(id) -= amount < 0 ? -amount : amount;  // availability was checked before issue
    return true;
  }
  case Semantic::Release:
  case Semantic::ReleaseConditional: {
    if (!lockConditionHolds(instr)) return true;
    const Operand &idOp = instr.ops[field("id")];
    uint32_t id = idOp.isReg ? rd(field("id")) : static_cast<uint32_t>(idOp.imm);
    int32_t *l = lock(id);
    if (!l) {
      why = "lock " + std::to_string(id) +
            " is not mapped (0-15 south, 16-31 west, 32-47 north, 48-63 own; the neighbour must exist)";
      return false;
    }
    int32_t amount = static_cast<int32_t>(rd(field("s1")));
    *l += amount < 0 ? -amount : amount;
    if (*l > 63) {
      why = "lock " + std::to_string(id) + " released above 63 (value " + std::to_string(*l) + ")";
      return false;
    }
    return true;
  }
  case Semantic::Jump:
  case Semantic::Call: {
    int a = field("a");
    uint32_t target = a >= 0 ? rd(a) : static_cast<uint32_t>(imm(field("i")));
    return branch(target, info.semantic == Semantic::Call);
  }
  case Semantic::Return: return branch(readScalar(Reg{RegKind::LR, 0}, 1), false);
  case Semantic::JumpNonZero:
  case Semantic::JumpZero: {
    bool nonzero = rd(field("s0")) != 0;
    if (nonzero == (info.semantic == Semantic::JumpNonZero))
      return branch(static_cast<uint32_t>(imm(field("i"))), false);
    return true;
  }
  case Semantic::JumpNonZeroDecrement: {
    // d0 = s0 - 1, and a jump to the pointer register while s0 (before the decrement) is not 0.
    uint32_t count = rd(field("s0"));
    wr(field("d0"), count - 1);
    if (count != 0) return branch(rd(field("a")), false);
    return true;
  }
  case Semantic::PointerAdd: {
    int ptr = access.ptr;
    if (info.mode == AddrMode::Post2D || info.mode == AddrMode::Post3D) {
      info.mode == AddrMode::Post2D ? step2D(ptr) : step3D(ptr);
      return true;
    }
    uint32_t step = info.mode == AddrMode::PostImm ? static_cast<uint32_t>(imm(access.imm)) : rd(access.mod);
    writeScalar(reg(ptr), access.ptrWriteCycle, rd(ptr) + step);
    return true;
  }
  case Semantic::StackAdd: {
    Reg sp{RegKind::SP, 0};
    writeScalar(sp, 1, readScalar(sp, 1) + static_cast<uint32_t>(imm(0)));
    return true;
  }
  case Semantic::Load:
  case Semantic::Store:
  case Semantic::VectorLoad:
  case Semantic::VectorStore:
  case Semantic::LoadS8:
  case Semantic::LoadU8:
  case Semantic::LoadS16:
  case Semantic::LoadU16:
  case Semantic::Store8:
  case Semantic::Store16:
  case Semantic::VectorStoreSrs: {
    // One path for every access: its width, the address mode, the map and alignment, and the
    // error's prefix. Byte and halfword loads extend to 32 bits; narrow stores change only their
    // bytes.
    const Semantic sem = info.semantic;
    const bool load = sem == Semantic::Load || sem == Semantic::VectorLoad || sem == Semantic::LoadS8 ||
                      sem == Semantic::LoadU8 || sem == Semantic::LoadS16 || sem == Semantic::LoadU16;
    uint32_t size = 4;
    switch (sem) {
    case Semantic::VectorLoad:
    case Semantic::VectorStore:
    case Semantic::VectorStoreSrs: size = 64; break;
    case Semantic::LoadS8:
    case Semantic::LoadU8:
    case Semantic::Store8: size = 1; break;
    case Semantic::LoadS16:
    case Semantic::LoadU16:
    case Semantic::Store16: size = 2; break;
    default: break;
    }
    uint32_t addr;
    address(addr);
    TileMemory *tile;
    uint32_t offset;
    if (!mapAddress(addr, size, tile, offset, why)) {
      why = std::string(load ? "load" : "store") + ": " + why;
      return false;
    }
    uint8_t *at = tile->bytes() + offset;
    const int data = load ? access.dst : access.src;
    if (load && size == 64) {
      wvec(data, at);
    } else if (load) {
      uint32_t v = 0;
      std::memcpy(&v, at, size);
      if (sem == Semantic::LoadS8) v = static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(v)));
      if (sem == Semantic::LoadS16) v = static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(v)));
      wr(data, v);
    } else {
      uint8_t bytes[64];
      if (sem == Semantic::VectorStoreSrs) {
        if (!srs(data, field("su"), bytes)) return false;
      } else if (size == 64) {
        vec(data, bytes);
      } else {
        store32(bytes, rd(data));
      }
      std::memcpy(at, bytes, size);
      tile->noteWrite(offset, size);
    }
    return true;
  }
  case Semantic::VectorMaxLt8:
  case Semantic::VectorMinGe8: {
    // 64 byte lanes; the mask is 64 bits in the pair r17:r16 (lanes 0-31 in r16).
    bool isMax = info.semantic == Semantic::VectorMaxLt8;
    bool isSigned = info.syntax.ends_with("vaddsign1");
    uint8_t a[64], b[64], d[64];
    vec(1, a), vec(2, b);
    uint64_t mask = 0;
    for (unsigned lane = 0; lane < 64; ++lane) {
      bool bit = laneLess(a + lane, b + lane, 1, isSigned) == isMax;
      if (bit) mask |= uint64_t(1) << lane;
      d[lane] = bit ? b[lane] : a[lane];
    }
    wvec(0, d);
    writeScalar(Reg{RegKind::R, 16}, info.operands[0].writeCycle, static_cast<uint32_t>(mask));
    writeScalar(Reg{RegKind::R, 17}, info.operands[0].writeCycle, static_cast<uint32_t>(mask >> 32));
    return true;
  }
  case Semantic::VectorShuffle: {
    // The transpose modes of aie2p_enums.h: T<W>_<R>x<C> views the input as an R x C row-major
    // matrix of W-bit elements and writes its transpose (C x R, row-major). When R * C * W is
    // 1024 the input is the pair s1 (low) : s2 (high) and _lo/_hi (even/odd mode) give the low or
    // high 512 bits (the rule and expected lanes of llvm-aie's aie2p-vector-shuffle run tests);
    // when it is 512 the input is s1 alone (inferred). The flip and 256-bit modes are not modelled.
    struct Shape {
      uint8_t mode;
      uint16_t bits;
      uint8_t rows, cols;
    };
    static constexpr Shape kShapes[] = {
        {0, 8, 64, 2},   {2, 16, 32, 2},  {4, 32, 16, 2},  {6, 64, 8, 2},   {8, 128, 4, 2}, {10, 256, 2, 2},
        {12, 128, 2, 4}, {14, 64, 2, 8},  {16, 32, 2, 16}, {18, 16, 2, 32}, {20, 8, 2, 64}, {22, 512, 1, 2},
        {24, 16, 16, 4}, {26, 16, 4, 16}, {30, 32, 8, 4},  {32, 32, 4, 8},  {52, 16, 8, 8}, {28, 16, 8, 4},
        {29, 16, 4, 8},  {34, 32, 4, 4},  {35, 8, 8, 8},   {36, 8, 16, 4},  {37, 8, 4, 16}, {48, 32, 8, 2},
        {49, 32, 2, 8},  {50, 64, 4, 2},  {51, 64, 2, 4},
    };
    uint32_t mode = rd(3);
    const Shape *shape = nullptr;
    for (const auto &sh : kShapes) {
      bool pair = sh.bits * sh.rows * sh.cols == 1024;
      if (mode == sh.mode || (pair && mode == sh.mode + 1u)) shape = &sh;
    }
    if (!shape) {
      why = "vshuffle mode " + std::to_string(mode) + " is not modelled (the transpose modes of 512 or 1024 bits are)";
      return false;
    }
    uint8_t in[128], out[128], d[64];
    vec(1, in), vec(2, in + 64);
    const unsigned width = shape->bits / 8;
    for (unsigned r = 0; r < shape->rows; ++r)
      for (unsigned c = 0; c < shape->cols; ++c)
        std::memcpy(out + (c * shape->rows + r) * width, in + (r * shape->cols + c) * width, width);
    bool high = shape->bits * shape->rows * shape->cols == 1024 && mode == shape->mode + 1u;
    std::memcpy(d, out + (high ? 64 : 0), 64);
    wvec(0, d);
    return true;
  }
  case Semantic::VectorSelect8: {
    // Byte lane i takes s2 where bit i of the 64-bit lK (r2K+1:r2K) is set, s1 elsewhere.
    uint8_t a[64], b[64], d[64], mask[8];
    vec(1, a), vec(2, b), vec(3, mask);
    for (unsigned lane = 0; lane < 64; ++lane) d[lane] = (mask[lane / 8] >> (lane % 8)) & 1 ? b[lane] : a[lane];
    wvec(0, d);
    return true;
  }
  case Semantic::VectorLt8:
  case Semantic::VectorGe8: {
    // 64 byte lanes; bit i of lK (lanes 0-31 in r2K, 32-63 in r2K+1) is lane i's s1 < s2 (s1 >= s2).
    bool isLt = info.semantic == Semantic::VectorLt8;
    bool isSigned = info.syntax.ends_with("vaddsign1");
    uint8_t a[64], b[64], mask[8] = {};
    vec(1, a), vec(2, b);
    for (unsigned lane = 0; lane < 64; ++lane)
      if (laneLess(a + lane, b + lane, 1, isSigned) == isLt) mask[lane / 8] |= uint8_t(1u << (lane % 8));
    wvec(0, mask);
    return true;
  }
  case Semantic::VectorSrs: {
    uint8_t d[64];
    if (!srs(1, 2, d)) return false;
    wvec(0, d);
    return true;
  }
  case Semantic::VectorUps: {
    // Each lane of x sign- (upssign1) or zero-extended (upssign0) to the accumulator lane width
    // crUPSMode gives (0: 32 bits, 1: 64; read at cycle 2 as the itinerary says), shifted left by
    // sK, clamped to the signed lane range when crSat bit 0 is set, else truncated. vups.4x
    // fills a dm (64 x 8 -> 32 or 32 x 16 -> 64 bits), vups.2x a cm half (32 x 16 -> 32 or
    // 16 x 32 -> 64).
    uint32_t mode = readScalar(Reg{RegKind::CrUPSMode, 0}, 2), sat = readScalar(Reg{RegKind::CrSat, 0}, 1);
    if (mode > 1 || (sat != 0 && sat != 1 && sat != 3)) {
      why = std::string(info.mnemonic) + " with crUPSMode = " + std::to_string(mode) +
            ", crSat = " + std::to_string(sat) + " is not modelled (crUPSMode 0 or 1, crSat 0, 1 or 3)";
      return false;
    }
    const bool toDm = reg(0).kind == RegKind::DM, isSigned = info.syntax.find("upssign1") != std::string_view::npos;
    const unsigned accBytes = mode ? 8 : 4, lanes = (toDm ? 256u : 128u) / accBytes, inBytes = 64 / lanes;
    const unsigned amount = rd(2) & 63;
    uint8_t in[64], d[256];
    vec(1, in);
    bool anyOverflow = false;
    for (unsigned i = 0; i < lanes; ++i) {
      uint64_t raw = 0;
      std::memcpy(&raw, in + i * inBytes, inBytes);
      const unsigned inBits = inBytes * 8;
      __int128 v = (isSigned && (raw >> (inBits - 1)) & 1) ? __int128(raw) - (__int128(1) << inBits) : __int128(raw);
      __int128 u = v * (__int128(1) << amount);
      const __int128 hi = (__int128(1) << (accBytes * 8 - 1)) - 1, lo = -(__int128(1) << (accBytes * 8 - 1));
      anyOverflow |= u > hi || u < lo;
      if (sat & 1) u = u > hi ? hi : u < lo ? lo : u;
      uint64_t out = uint64_t(u);
      std::memcpy(d + i * accBytes, &out, accBytes);
    }
    // srUPS_of: sticky, set when a lane does not fit (inferred from srs's flag), at cycle 3 (the
    // itinerary's srUPS_of cycle).
    if (anyOverflow) writeScalar(Reg{RegKind::SrUPSOf, 0}, 3, 1);
    wvec(0, d);
    return true;
  }
  case Semantic::VectorShift: {
    // Byte i of the result is byte i + shift of the 128-byte concatenation s1 (low) : s2 (high),
    // the shift taken modulo 64 (AIE API's shift_bytes; inferred, see docs/aie2p.md).
    uint8_t both[128], d[64];
    vec(1, both), vec(2, both + 64);
    uint32_t amount = rd(3) % 64;
    std::memcpy(d, both + amount, 64);
    wvec(0, d);
    return true;
  }
  case Semantic::MatMulFloat:
  case Semantic::MatMulNegFloat:
  case Semantic::MatMulAccFloat:
  case Semantic::MatMulSubFloat: {
    // bf16 elementwise multiply into fp32 lanes: lane i = [acc1 lane i +/-] s1 lane i * s2 lane i,
    // 32 lanes for the X_X forms (the dm's low half; its high half keeps acc1's or becomes zero),
    // 64 for Y_Y. The word's layout is llvm-aie's aie2p_compute_control (zero_acc bit 0, amode
    // bits 1-2, bmode 3-4, variant 5-7, sign bits 8-9, sub_mul bit 11, sub_acc1 bit 12); amode 2,
    // bmode 3, variant 1 (60, or 828 with both sign bits) is the elementwise bf16 mode public
    // programs use. The product of two bf16 values is exact in fp32; the add rounds to nearest
    // even. Every other word (bf16 matrix modes, bfp16) is not modelled.
    uint32_t control = rd(field("acc"));
    constexpr uint32_t kElementwiseBf16 = 60, kFlagBits = 0x1u | 0x300u | 0x800u | 0x1000u;
    if ((control & ~kFlagBits) != kElementwiseBf16) {
      why = "accumulator control word " + regName(reg(field("acc"))) + " = " + hex(control) + " is not modelled for " +
            std::string(info.mnemonic) + " (only the elementwise bf16 words 60 and 828, with zero_acc/sub bits)";
      return false;
    }
    const bool zeroAcc = control & 0x1u, subMul = control & 0x800u, subAcc = control & 0x1000u;
    const unsigned lanes = reg(field("s1")).kind == RegKind::Y ? 64 : 32;
    uint8_t a[128], b[128], c[256] = {};
    vec(field("s1"), a), vec(field("s2"), b);
    int acc1 = field("acc1");
    if (acc1 >= 0) vec(acc1, c);
    for (unsigned i = 0; i < 64; ++i) {
      if (i >= lanes) {
        if (acc1 < 0) store32(c + 4 * i, 0);
        continue;
      }
      uint16_t x, y;
      std::memcpy(&x, a + 2 * i, 2), std::memcpy(&y, b + 2 * i, 2);
      float product = bitsToFloat(uint32_t(x) << 16) * bitsToFloat(uint32_t(y) << 16);
      bool negate = subMul != (info.semantic == Semantic::MatMulNegFloat || info.semantic == Semantic::MatMulSubFloat);
      if (negate) product = -product;
      float result = product;
      if (acc1 >= 0 && !zeroAcc) {
        float prior = bitsToFloat(load32(c + 4 * i));
        result = (subAcc ? -prior : prior) + product;
      }
      store32(c + 4 * i, floatToBits(result));
    }
    wvec(field("dst"), c);
    return true;
  }
  case Semantic::ConvertBfp16: {
    // 64 fp32 lanes of dm to bfp16ebs8, 8 blocks of 8 lanes: a block's exponent E is its largest
    // biased exponent field (subnormals count as 0); lane q = (int8)(+-M >> 17) >> min(E - e, 31)
    // with M the significand and its implicit bit, arithmetic shifts (floor). That is crRnd 0;
    // a public llvm-aie-run test (aie2p-conv-bfp16ebs8.s) pins these lanes and refuses any other
    // crRnd, and so does this model. A block with an infinite or NaN lane gets exponent 0xFF and
    // zero mantissas (hrx's definition, as the CPU oracle's; the hardware's is not known) and makes
    // every product reading it NaN.
    uint32_t rounding = readScalar(Reg{RegKind::CrRnd, 0}, 1);
    if (rounding != 0) {
      why = "vconv.bfp16ebs8.fp32 with crRnd = " + std::to_string(rounding) +
            " is not modelled (only 0, floor: the rounding the published lanes pin)";
      return false;
    }
    uint8_t lanes[256], mantissas[64], exponents[8];
    vec(field("src"), lanes);
    for (unsigned block = 0; block < 8; ++block) {
      uint32_t shared = 0;
      bool finite = true;
      for (unsigned i = 0; i < 8; ++i) {
        uint32_t e = (load32(lanes + 4 * (8 * block + i)) >> 23) & 0xFFu;
        finite &= e != 0xFFu;
        shared = std::max(shared, e);
      }
      exponents[block] = static_cast<uint8_t>(finite ? shared : 0xFFu);
      for (unsigned i = 0; i < 8; ++i) {
        uint32_t bits = load32(lanes + 4 * (8 * block + i)), e = (bits >> 23) & 0xFFu;
        int32_t significand = static_cast<int32_t>((bits & 0x7FFFFFu) | (e ? 0x800000u : 0u));
        if (bits >> 31) significand = -significand;
        int32_t q = static_cast<int8_t>(significand >> 17);
        q >>= std::min<uint32_t>(shared - e, 31);
        mantissas[8 * block + i] = finite ? static_cast<uint8_t>(q) : 0;
      }
    }
    const Reg dst = reg(field("dst"));
    const unsigned cycle = info.operands[field("dst")].writeCycle;
    writeBytes(Reg{RegKind::X, dst.index}, cycle, mantissas);
    writeBytes(Reg{RegKind::E, dst.index}, cycle, exponents);
    return true;
  }
  case Semantic::MatMulBfp:
  case Semantic::MatMulAccBfp: {
    // Word 780 (amode 2, bmode 1, both sign bits): the bfp16ebs8 8x8x8 product C = A * B^T, A = s1
    // and B = s2 with block r = row r (a public NPU measurement: both operands are contracted along
    // their blocks, so a K x N matrix is transposed before it is converted). Lane 8r + c of dm is
    // 2^(Ea[r] + Eb[c] - 266) * sum_k qa[8r + k] * qb[8c + k] (an exact integer below 2^18 times a
    // power of two: one exponent per dot product), added to acc1's fp32 lane and rounded once to
    // nearest even (inferred: the adder's rounding is not published; the double sum cannot reach
    // an fp32 rounding boundary it would miss). zero_acc, sub_mul and sub_acc1 act as for bf16.
    uint32_t control = rd(field("acc"));
    constexpr uint32_t kBfp16 = 780, kFlagBits = 0x1u | 0x800u | 0x1000u;
    if ((control & ~kFlagBits) != kBfp16) {
      why = "accumulator control word " + regName(reg(field("acc"))) + " = " + hex(control) + " is not modelled for " +
            std::string(info.mnemonic) + " on ex registers (only the bfp16ebs8 word 780, with zero_acc/sub bits)";
      return false;
    }
    const bool zeroAcc = control & 0x1u, subMul = control & 0x800u, subAcc = control & 0x1000u;
    uint8_t qa[64], qb[64], ea[8], eb[8], c[256] = {};
    const int s1 = field("s1"), s2 = field("s2"), acc1 = field("acc1");
    vec(s1, qa), vec(s2, qb);
    readBytes(Reg{RegKind::E, reg(s1).index}, info.operands[s1].readCycle, ea);
    readBytes(Reg{RegKind::E, reg(s2).index}, info.operands[s2].readCycle, eb);
    if (acc1 >= 0) vec(acc1, c);
    for (unsigned r = 0; r < 8; ++r)
      for (unsigned col = 0; col < 8; ++col) {
        int32_t dot = 0;
        for (unsigned k = 0; k < 8; ++k) dot += int32_t(int8_t(qa[8 * r + k])) * int32_t(int8_t(qb[8 * col + k]));
        double product = ea[r] == 0xFF || eb[col] == 0xFF ? std::numeric_limits<double>::quiet_NaN()
                                                          : std::ldexp(double(dot), int(ea[r]) + int(eb[col]) - 266);
        if (subMul) product = -product;
        double prior = acc1 >= 0 && !zeroAcc ? double(bitsToFloat(load32(c + 4 * (8 * r + col)))) : 0.0;
        store32(c + 4 * (8 * r + col), floatToBits(static_cast<float>((subAcc ? -prior : prior) + product)));
      }
    wvec(field("dst"), c);
    return true;
  }
  case Semantic::MatMul:
  case Semantic::MatMulNeg:
  case Semantic::MatMulAcc:
  case Semantic::MatMulSub: {
    // The 8x8x8 integer modes of upstream Loom's matrix lowering: C[i][j] (+/-)= sum_k A[i][k] *
    // B[k][j] with A = s1 and B = s2 as row-major 8x8 bytes and C row-major 64 int32 lanes.
    // Bit 9 of the control word makes A signed, bit 8 makes B signed (776 s8xs8, 264 u8xs8,
    // 520 s8xu8, 8 u8xu8). Other words are not modelled.
    uint32_t control = rd(field("acc"));
    if ((control & ~0x300u) != 8) {
      why = "accumulator control word " + regName(reg(field("acc"))) + " = " + hex(control) + " is not modelled for " +
            std::string(info.mnemonic) + " (only the 8x8x8 integer words 776, 264, 520 and 8)";
      return false;
    }
    bool aSigned = control & 0x200, bSigned = control & 0x100;
    uint8_t a[64], b[64], c[256] = {};
    vec(field("s1"), a), vec(field("s2"), b);
    int acc1 = field("acc1");
    if (acc1 >= 0) vec(acc1, c);
    for (unsigned i = 0; i < 8; ++i)
      for (unsigned j = 0; j < 8; ++j) {
        int32_t sum = 0;
        for (unsigned k = 0; k < 8; ++k) {
          int32_t x = aSigned ? static_cast<int8_t>(a[8 * i + k]) : a[8 * i + k];
          int32_t y = bSigned ? static_cast<int8_t>(b[8 * k + j]) : b[8 * k + j];
          sum += x * y;
        }
        uint32_t prior = load32(c + 4 * (8 * i + j));
        uint32_t r = static_cast<uint32_t>(sum);
        switch (info.semantic) {
        case Semantic::MatMulNeg: r = 0u - r; break;
        case Semantic::MatMulAcc: r = prior + r; break;
        case Semantic::MatMulSub: r = prior - r; break;
        default: break;
        }
        store32(c + 4 * (8 * i + j), r);
      }
    wvec(field("dst"), c);
    return true;
  }
  case Semantic::VectorAdd32:
  case Semantic::VectorAdd16:
  case Semantic::VectorAdd8:
  case Semantic::VectorSub32:
  case Semantic::VectorSub16:
  case Semantic::VectorSub8:
  case Semantic::VectorAnd:
  case Semantic::VectorOr: {
    uint8_t a[64], b[64], d[64];
    vec(1, a), vec(2, b);
    for (unsigned i = 0; i < 64;) {
      switch (info.semantic) {
      case Semantic::VectorAdd32: store32(d + i, load32(a + i) + load32(b + i)), i += 4; break;
      case Semantic::VectorAdd16: {
        uint16_t x, y;
        std::memcpy(&x, a + i, 2), std::memcpy(&y, b + i, 2);
        uint16_t s = static_cast<uint16_t>(x + y);
        std::memcpy(d + i, &s, 2), i += 2;
        break;
      }
      case Semantic::VectorAdd8: d[i] = static_cast<uint8_t>(a[i] + b[i]), ++i; break;
      case Semantic::VectorSub32: store32(d + i, load32(a + i) - load32(b + i)), i += 4; break;
      case Semantic::VectorSub16: {
        uint16_t x, y;
        std::memcpy(&x, a + i, 2), std::memcpy(&y, b + i, 2);
        uint16_t s = static_cast<uint16_t>(x - y);
        std::memcpy(d + i, &s, 2), i += 2;
        break;
      }
      case Semantic::VectorSub8: d[i] = static_cast<uint8_t>(a[i] - b[i]), ++i; break;
      case Semantic::VectorAnd: d[i] = a[i] & b[i], ++i; break;
      default: d[i] = a[i] | b[i], ++i; break;
      }
    }
    wvec(0, d);
    return true;
  }
  case Semantic::VectorSelect32:
  case Semantic::VectorSelect16: {
    // Lane i takes s2 where bit i of the mask register is set, s1 elsewhere.
    unsigned width = info.semantic == Semantic::VectorSelect32 ? 4 : 2;
    uint8_t a[64], b[64], d[64];
    vec(1, a), vec(2, b);
    uint32_t mask = rd(3);
    for (unsigned lane = 0; lane < 64 / width; ++lane)
      std::memcpy(d + lane * width, ((mask >> lane) & 1) ? b + lane * width : a + lane * width, width);
    wvec(0, d);
    return true;
  }
  case Semantic::VectorMaxLt32:
  case Semantic::VectorMaxLt16:
  case Semantic::VectorMinGe32:
  case Semantic::VectorMinGe16: {
    // Two results: the lane-wise max (min) in d and the comparison that chose it in r16, bit i
    // for lane i: s1 < s2 for vmax_lt, s1 >= s2 for vmin_ge. vaddsign1 compares signed,
    // vaddsign0 unsigned (llvm-aie's patterns select vaddSign1 for setlt, vaddSign0 for setult).
    bool isMax = info.semantic == Semantic::VectorMaxLt32 || info.semantic == Semantic::VectorMaxLt16;
    unsigned width = info.semantic == Semantic::VectorMaxLt32 || info.semantic == Semantic::VectorMinGe32 ? 4 : 2;
    bool isSigned = info.syntax.ends_with("vaddsign1");
    uint8_t a[64], b[64], d[64];
    vec(1, a), vec(2, b);
    uint32_t mask = 0;
    for (unsigned lane = 0; lane < 64 / width; ++lane) {
      bool less = laneLess(a + lane * width, b + lane * width, width, isSigned);
      bool bit = isMax ? less : !less;
      if (bit) mask |= uint32_t(1) << lane;
      // vmax_lt takes s2 where s1 < s2; vmin_ge takes s2 where s1 >= s2.
      std::memcpy(d + lane * width, bit ? b + lane * width : a + lane * width, width);
    }
    wvec(0, d);
    writeScalar(Reg{RegKind::R, 16}, info.operands[0].writeCycle, mask);
    return true;
  }
  case Semantic::VectorLt32:
  case Semantic::VectorLt16:
  case Semantic::VectorGe32:
  case Semantic::VectorGe16: {
    // The mask alone: bit i is lane i's s1 < s2 (vlt) or s1 >= s2 (vge).
    bool isLt = info.semantic == Semantic::VectorLt32 || info.semantic == Semantic::VectorLt16;
    unsigned width = info.semantic == Semantic::VectorLt32 || info.semantic == Semantic::VectorGe32 ? 4 : 2;
    bool isSigned = info.syntax.ends_with("vaddsign1");
    uint8_t a[64], b[64];
    vec(1, a), vec(2, b);
    uint32_t mask = 0;
    for (unsigned lane = 0; lane < 64 / width; ++lane) {
      bool less = laneLess(a + lane * width, b + lane * width, width, isSigned);
      if (isLt ? less : !less) mask |= uint32_t(1) << lane;
    }
    wr(0, mask);
    return true;
  }
  case Semantic::VectorExtract32:
  case Semantic::VectorExtract16: {
    // Lane idx (immediate or register, modulo the lane count) to a scalar, sign-extended under vaddsign1.
    unsigned width = info.semantic == Semantic::VectorExtract32 ? 4 : 2;
    uint8_t a[64];
    vec(1, a);
    unsigned lane = static_cast<unsigned>(instr.ops[2].isReg ? rd(2) : static_cast<uint32_t>(imm(2))) % (64 / width);
    uint32_t v = 0;
    std::memcpy(&v, a + lane * width, width);
    if (width == 2 && info.syntax.ends_with("vaddsign1"))
      v = static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(v)));
    wr(0, v);
    return true;
  }
  case Semantic::VectorExtractBroadcast32:
  case Semantic::VectorExtractBroadcast16: {
    // Lane idx (modulo the lane count) of s1 copied to every lane of d.
    unsigned width = info.semantic == Semantic::VectorExtractBroadcast32 ? 4 : 2;
    uint8_t a[64], d[64];
    vec(1, a);
    unsigned lane = static_cast<unsigned>(instr.ops[2].isReg ? rd(2) : static_cast<uint32_t>(imm(2))) % (64 / width);
    for (unsigned i = 0; i < 64; i += width) std::memcpy(d + i, a + lane * width, width);
    wvec(0, d);
    return true;
  }
  case Semantic::VectorMaxLtBf16:
  case Semantic::VectorMinGeBf16:
  case Semantic::VectorLtBf16: {
    // 32 bf16 lanes compared as floats; bit i of the mask is lane i's s1 < s2 (vmax_lt, vlt) or
    // its complement (vmin_ge), so a NaN lane clears the vmax_lt bit and sets the vmin_ge one.
    uint8_t a[64], b[64], d[64];
    vec(1, a), vec(2, b);
    uint32_t mask = 0;
    for (unsigned lane = 0; lane < 32; ++lane) {
      uint16_t x, y;
      std::memcpy(&x, a + 2 * lane, 2), std::memcpy(&y, b + 2 * lane, 2);
      bool less = bitsToFloat(uint32_t(x) << 16) < bitsToFloat(uint32_t(y) << 16);
      bool bit = info.semantic == Semantic::VectorMinGeBf16 ? !less : less;
      if (bit) mask |= uint32_t(1) << lane;
      std::memcpy(d + 2 * lane, bit ? b + 2 * lane : a + 2 * lane, 2);
    }
    if (info.semantic == Semantic::VectorLtBf16) {
      wr(0, mask);
      return true;
    }
    wvec(0, d);
    writeScalar(Reg{RegKind::R, 16}, info.operands[0].writeCycle, mask);
    return true;
  }
  case Semantic::Broadcast32:
  case Semantic::Broadcast16:
  case Semantic::Broadcast8: {
    unsigned width = info.semantic == Semantic::Broadcast32 ? 4 : info.semantic == Semantic::Broadcast16 ? 2 : 1;
    uint32_t v = rd(1);
    uint8_t d[64];
    for (unsigned i = 0; i < 64; i += width) std::memcpy(d + i, &v, width);
    wvec(0, d);
    return true;
  }
  case Semantic::WidenBf16: {  // 32 bf16 lanes of x -> 32 fp32 lanes of a 1024-bit accumulator half
    uint8_t src[64], dst[128];
    vec(1, src);
    for (unsigned i = 0; i < 32; ++i) {
      uint16_t h;
      std::memcpy(&h, src + 2 * i, 2);
      store32(dst + 4 * i, uint32_t(h) << 16);
    }
    wvec(0, dst);
    return true;
  }
  case Semantic::NarrowBf16: {  // 32 fp32 lanes -> 32 bf16 lanes of x
    uint8_t src[128], dst[64];
    vec(1, src);
    for (unsigned i = 0; i < 32; ++i) {
      uint16_t h = toBf16(load32(src + 4 * i));
      std::memcpy(dst + 2 * i, &h, 2);
    }
    wvec(0, dst);
    return true;
  }
  case Semantic::AccumulatorAddFloat:
  case Semantic::AccumulatorAdd:
  case Semantic::AccumulatorSubFloat:
  case Semantic::AccumulatorSub: {
    uint32_t control = rd(field("acc"));
    if (control != 0) {
      why = "accumulator control word " + regName(reg(field("acc"))) + " = " + hex(control) +
            " is not modelled (only 0, a plain lane-wise add)";
      return false;
    }
    uint8_t a[256], b[256], d[256];
    vec(field("acc1"), a), vec(field("acc2"), b);
    for (unsigned i = 0; i < 256; i += 4) {
      uint32_t x = load32(a + i), y = load32(b + i), r;
      switch (info.semantic) {
      case Semantic::AccumulatorAddFloat: r = floatToBits(bitsToFloat(x) + bitsToFloat(y)); break;
      case Semantic::AccumulatorSubFloat: r = floatToBits(bitsToFloat(x) - bitsToFloat(y)); break;
      case Semantic::AccumulatorSub: r = x - y; break;
      default: r = x + y; break;
      }
      store32(d + i, r);
    }
    wvec(field("dst"), d);
    return true;
  }
  case Semantic::AccumulatorClear: {
    uint8_t zero[256] = {};
    wvec(0, zero);
    return true;
  }
  case Semantic::VectorMove: {
    uint8_t bytes[64];
    vec(1, bytes);
    wvec(0, bytes);
    return true;
  }
  }
  (void)bundleSize;
  why = "instruction " + std::string(info.name) + " has no simulator semantics";
  return false;
}

CoreState Core::step() {
  if (state_ == CoreState::Halted || state_ == CoreState::Trapped) return state_;
  retire();
  if (cycle_ >= cycleLimit_) {
    currentBundle_ = 0;
    currentBundleText_.clear();
    fail("cycle limit of " + std::to_string(cycleLimit_) + " cycles reached (runaway program?)");
    return state_;
  }
  uint32_t at = pc_ < decodedAt_.size() ? decodedAt_[pc_] : 0;
  if (at == 0) {
    currentBundle_ = 0;
    if (pc_ >= program_.size()) {
      currentBundleText_ = "";
      fail("pc " + hex(pc_) + " is past the end of the program (" + std::to_string(program_.size()) + " bytes)");
      return state_;
    }
    Bundle bundle;
    unsigned size = 0;
    std::string why;
    if (!decodeBundle(std::span<const uint8_t>(program_).subspan(pc_), bundle, size, why)) {
      currentBundleText_.clear();
      for (size_t i = pc_; i < std::min<size_t>(program_.size(), pc_ + 16); ++i) {
        char b[4];
        std::snprintf(b, sizeof b, "%02x", program_[i]);
        currentBundleText_ += (currentBundleText_.empty() ? "" : " ") + std::string(b);
      }
      fail("illegal bundle: " + why);
      return state_;
    }
    if (decodedAt_.empty()) decodedAt_.assign(program_.size(), 0);
    bool acquires = std::any_of(bundle.slots.begin(), bundle.slots.end(), [](const Instr &instr) {
      return instr.info().semantic == Semantic::Acquire || instr.info().semantic == Semantic::AcquireConditional;
    });
    decoded_.push_back(Decoded{std::move(bundle), size, acquires});
    at = decodedAt_[pc_] = static_cast<uint32_t>(decoded_.size());
  }
  const Bundle &bundle = decoded_[at - 1].bundle;
  const unsigned size = decoded_[at - 1].size;
  currentBundle_ = at;
  // A lock that cannot be granted holds the whole bundle.
  for (const auto &instr :
       decoded_[at - 1].acquires ? std::span<const Instr>(bundle.slots) : std::span<const Instr>()) {
    const Semantic sem = instr.info().semantic;
    if (sem != Semantic::Acquire && sem != Semantic::AcquireConditional) continue;
    std::string why;
    bool ok = lockAvailable(instr, why);
    if (!why.empty()) {
      fail(why);
      return state_;
    }
    if (!ok) {
      ++cycle_;
      ++stats_.stallCycles;
      stats_.cycles = cycle_;
      state_ = CoreState::Stalled;
      return state_;
    }
  }
  state_ = CoreState::Running;
  newBranch_.reset();
  for (const auto &instr : bundle.slots) {
    std::string why;
    if (!execute(instr, size, why)) {
      fail(why);
      return state_;
    }
  }
  ++stats_.bundles;
  // Next pc: a branch in flight takes effect after its delay slots; otherwise the zero-overhead
  // loop (ls/le/lc) closes at the bundle that starts at le; otherwise the next bundle.
  uint32_t next = pc_ + size;
  if (branch_) {
    if (--branch_->remaining == 0) {
      if (branch_->call) writeScalar(Reg{RegKind::LR, 0}, 1, next);
      next = branch_->target;
      branch_.reset();
    }
  } else if (newBranch_) {
    branch_ = newBranch_;
    newBranch_.reset();
    if (branch_->remaining == 0) {
      next = branch_->target;
      branch_.reset();
    }
  } else {
    uint32_t le = readScalar(Reg{RegKind::LE, 0}, 1), lc = readScalar(Reg{RegKind::LC, 0}, 1);
    if (lc != 0 && pc_ == le) {
      writeScalar(Reg{RegKind::LC, 0}, 1, lc - 1);
      if (lc > 1) next = readScalar(Reg{RegKind::LS, 0}, 1);
    }
  }
  ++cycle_;
  stats_.cycles = cycle_;
  if (done_) {
    // The pipeline drains: every result already issued lands.
    cycle_ = UINT64_MAX;
    retire();
    cycle_ = stats_.cycles;
    state_ = CoreState::Halted;
    return state_;
  }
  pc_ = next;
  return state_;
}

CoreState Core::run() {
  while (state_ == CoreState::Running || state_ == CoreState::Stalled) step();
  return state_;
}

CoreState runCores(std::span<Core *const> cores) {
  while (true) {
    bool anyActive = false, anyProgress = false;
    for (Core *core : cores) {
      CoreState before = core->state();
      if (before == CoreState::Halted || before == CoreState::Trapped) continue;
      CoreState after = core->step();
      if (after == CoreState::Trapped) return after;
      anyActive |= after != CoreState::Halted;
      anyProgress |= after != CoreState::Stalled;
    }
    if (!anyActive) return CoreState::Halted;
    if (!anyProgress) {
      for (Core *core : cores)
        if (core->state() == CoreState::Stalled)
          core->raiseTrap("deadlock: every running core waits on a lock that no core can release");
      return CoreState::Trapped;
    }
  }
}

}  // namespace hrx::aie2p
