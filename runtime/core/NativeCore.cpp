// Native AIE2P core code on the host reference device (see hrx/runtime/NativeCore.h).
#include "hrx/runtime/NativeCore.h"

#include "hrx/aie2p/Asm.h"
#include "hrx/aie2p/Simulator.h"
#include "hrx/format/Transaction.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace hrx::runtime {
namespace {

// Program memory in a compute tile's register space (hrx-product §1.5) and its size.
constexpr uint32_t kProgramMemoryOffset = 0x20000;
constexpr uint32_t kProgramMemoryBytes = aie2p::kProgramMemorySize;
constexpr uint32_t kFirstComputeRow = 2;
// The simulated tile: records from offset 0 (each 64-byte aligned), the record-pointer array
// and the stack at the top (a stage's frame is at most 2048 bytes, docs/aie2p.md).
constexpr uint32_t kStackRegion = 4096;
constexpr uint64_t kCycleLimit = 200'000'000;

std::atomic<uint64_t> gCalls{0}, gCycles{0}, gBundles{0};

const std::vector<uint8_t> &doneBundle() {
  static const std::vector<uint8_t> bytes = [] {
    aie2p::AsmProgram program;
    std::vector<aie2p::AsmDiagnostic> diagnostics;
    aie2p::assemble("done\n", program, diagnostics);
    return program.bytes;
  }();
  return bytes;
}

}  // namespace

StatusOr<CoreModelKind> parseCoreModel(std::string_view name) {
  if (name == "native") return CoreModelKind::Native;
  if (name == "twin") return CoreModelKind::Twin;
  return Status(StatusCode::InvalidArgument, "unknown core model '" + std::string(name) + "'; expected native or twin");
}

StatusOr<TileCodeMap> nativeCoreCode(const format::xdna::Image &image, const std::string &name) {
  namespace fx = format::xdna;
  auto entry =
      std::find_if(image.entries.begin(), image.entries.end(), [&](const fx::Entry &e) { return e.name == name; });
  TileCodeMap code;
  if (entry == image.entries.end() || entry->invocationCount == 0 || entry->allocationUseCount == 0) return code;
  if (entry->firstAllocationUse >= image.allocationUses.size()) return code;
  uint32_t a = image.allocationUses[entry->firstAllocationUse];
  if (a >= image.allocations.size() || image.allocations[a].byteLength > (uint64_t(1) << 24)) return code;
  const fx::Allocation &alloc = image.allocations[a];
  std::vector<uint8_t> command(alloc.byteLength, 0);
  for (const fx::Load &l : image.loads)
    if (l.allocation == a && l.offset + l.bytes.size() <= command.size())
      std::copy(l.bytes.begin(), l.bytes.end(), command.begin() + long(l.offset));
  // The plan executor does not need the transactions; an image whose establish command does not
  // decode (hand-made test images) simply has no core code for it. The transaction model checks
  // the commands themselves.
  if (entry->firstInvocation >= image.invocations.size()) return code;
  const fx::Invocation &establish = image.invocations[entry->firstInvocation];
  if (uint64_t(establish.byteOffset) + establish.byteLength > command.size()) return code;
  auto decoded = format::txn::decodeTransaction(std::span(command).subspan(establish.byteOffset, establish.byteLength));
  if (!decoded) return code;
  for (const format::txn::RegisterWrite &w : format::txn::registerWrites(*decoded)) {
    uint32_t column = uint32_t(w.address >> 25), row = uint32_t(w.address >> 20) & 0x1F;
    uint32_t offset = uint32_t(w.address & 0xFFFFF);
    if (row < kFirstComputeRow || offset < kProgramMemoryOffset || offset >= kProgramMemoryOffset + kProgramMemoryBytes)
      continue;
    std::vector<uint8_t> &bytes = code[{column, row}];
    uint32_t at = offset - kProgramMemoryOffset;
    if (bytes.size() < at + 4) bytes.resize(at + 4, 0);
    for (unsigned i = 0; i < 4; ++i)
      if ((w.mask >> (8 * i)) & 0xFF) bytes[at + i] = uint8_t(w.value >> (8 * i));
  }
  return code;
}

// The tile layout (records from offset 0, each 64-byte aligned; the record-pointer array and
// the stack at the top) and the core stay; each run resets the core and zeroes what the last run
// stored.
struct NativeStage::State {
  aie2p::TileMemory memory;
  std::vector<uint32_t> at, bytes;
  uint32_t arrayAt = aie2p::kDataMemorySize - kStackRegion, used = 0;
  std::unique_ptr<aie2p::Core> core;
  uint32_t doneAt = 0;
};

NativeStage::NativeStage(std::span<const uint8_t> program, std::span<const uint32_t> recordBytes)
    : state_(std::make_unique<State>()) {
  State &s = *state_;
  s.bytes.assign(recordBytes.begin(), recordBytes.end());
  for (uint32_t b : recordBytes) {
    s.at.push_back(s.used);
    s.used += (b + 63) / 64 * 64;
  }
  // The worker returns to a `done` appended after the program (I32_ALU format, bundle bytes
  // from the table's encoder).
  std::vector<uint8_t> bytes(program.begin(), program.end());
  while (bytes.size() % 4) bytes.push_back(0);  // never executed: after every bundle
  s.doneAt = uint32_t(bytes.size());
  bytes.insert(bytes.end(), doneBundle().begin(), doneBundle().end());
  s.core = std::make_unique<aie2p::Core>(std::move(bytes), aie2p::CoreMemoryMap{&s.memory}, kCycleLimit);
}

NativeStage::~NativeStage() = default;

Status NativeStage::run(std::span<void *const> records, const std::function<std::string()> &who) {
  State &s = *state_;
  if (s.used > s.arrayAt || 4 * records.size() > 512)
    return Status(StatusCode::ResourceExhausted,
                  who() + ": its records (" + std::to_string(s.used) +
                      " bytes) do not fit one simulated tile's data memory beside the stack");
  if (records.size() != s.at.size())
    return Status(StatusCode::Internal, who() + ": " + std::to_string(records.size()) + " records for a stage of " +
                                            std::to_string(s.at.size()));
  aie2p::TileMemory &m = s.memory;
  if (m.writtenHigh > m.writtenLow)
    std::memset(m.data.data() + m.writtenLow, 0,
                std::min<uint32_t>(m.writtenHigh, aie2p::kDataMemorySize) - m.writtenLow);
  m.writtenLow = UINT32_MAX, m.writtenHigh = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    std::memcpy(m.data.data() + s.at[i], records[i], s.bytes[i]);
    uint32_t address = aie2p::kOwnMemoryBase + s.at[i];
    std::memcpy(m.data.data() + s.arrayAt + 4 * i, &address, 4);
  }
  aie2p::Core &core = *s.core;
  core.reset();
  core.setPc(kWorkerOffset);
  core.setScalar(aie2p::Reg{aie2p::RegKind::LR, 0}, s.doneAt);
  core.setScalar(aie2p::Reg{aie2p::RegKind::R, 0}, aie2p::kOwnMemoryBase + s.arrayAt);
  core.setScalar(aie2p::Reg{aie2p::RegKind::SP, 0}, aie2p::kOwnMemoryBase + s.arrayAt + 512);
  aie2p::CoreState state = core.run();
  gCalls.fetch_add(1, std::memory_order_relaxed);
  gCycles.fetch_add(core.stats().cycles, std::memory_order_relaxed);
  gBundles.fetch_add(core.stats().bundles, std::memory_order_relaxed);
  if (state != aie2p::CoreState::Halted)
    return Status(StatusCode::Internal, who() + ": the native core code trapped: " +
                                            (core.trap() ? core.trap()->message() : std::string("it did not halt")));
  for (size_t i = 0; i < records.size(); ++i) std::memcpy(records[i], m.data.data() + s.at[i], s.bytes[i]);
  return Status::ok();
}

Status runNativeStage(std::span<const uint8_t> program, std::span<void *const> records,
                      std::span<const uint32_t> recordBytes, const std::string &who) {
  NativeStage stage(program, recordBytes);
  return stage.run(records, [&] { return who; });
}

void addNativeCoreTotals(uint64_t calls, uint64_t cycles, uint64_t bundles) {
  gCalls.fetch_add(calls, std::memory_order_relaxed);
  gCycles.fetch_add(cycles, std::memory_order_relaxed);
  gBundles.fetch_add(bundles, std::memory_order_relaxed);
}

NativeCoreTotals nativeCoreTotals() {
  return {gCalls.load(std::memory_order_relaxed), gCycles.load(std::memory_order_relaxed),
          gBundles.load(std::memory_order_relaxed)};
}

}  // namespace hrx::runtime
