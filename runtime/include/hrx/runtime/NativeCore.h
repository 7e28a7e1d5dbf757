// Native AIE2P core code on the host reference device: the code an .xdna entry writes into its
// compute tiles' program memory, run by the AIE2P instruction-set simulator (runtime/aie2p)
// instead of the worker's host twin. docs/aie2p.md "Native core code" describes the program
// layout and the calling convention (r0 = the record-pointer array, sp = the stack).
#pragma once

#include "hrx/format/Xdna.h"
#include "hrx/runtime/Export.h"
#include "hrx/runtime/Status.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hrx::runtime {

// --core-model: native (the simulator runs the image's core code; the default when the image
// has it) or twin (the host-compiled twin, the oracle for differential tests).
enum class CoreModelKind { Native, Twin };

// The program layout hrxcc writes (docs/aie2p.md): offset 0 jumps to the core main program
// (one 48-bit j and five 16-bit nops), the worker starts right after it.
inline constexpr uint32_t kWorkerOffset = 16;
HRX_RUNTIME_API StatusOr<CoreModelKind> parseCoreModel(std::string_view name);  // "native" | "twin"

// Per compute tile (column, row): the bytes the entry's establish invocation writes into program
// memory, from offset 0. Empty when the image carries no core code for the entry.
using TileCodeMap = std::map<std::pair<uint32_t, uint32_t>, std::vector<uint8_t>>;
HRX_RUNTIME_API StatusOr<TileCodeMap> nativeCoreCode(const format::xdna::Image &image, const std::string &entry);

// One stage call run natively (the plan executor's path): the records are copied into a
// simulated tile's data memory, the core runs the worker alone (from kWorkerOffset, returning to
// a `done` appended after the program) and the records are copied back. `who` names the worker in errors (a trap carries pc and bundle).
HRX_RUNTIME_API Status runNativeStage(std::span<const uint8_t> program, std::span<void *const> records,
                                      std::span<const uint32_t> recordBytes, const std::string &who);

// The same, prepared once per worker and called once per record: the simulated tile and the
// core (with the bundles it has decoded) are kept between calls. Before each call the core is
// reset and the bytes the previous call stored are returned to zero, so every call sees what a
// fresh runNativeStage would: the same results and cycle counts. Not for concurrent calls.
class HRX_RUNTIME_API NativeStage {
public:
  NativeStage(std::span<const uint8_t> program, std::span<const uint32_t> recordBytes);
  ~NativeStage();
  NativeStage(const NativeStage &) = delete;
  NativeStage &operator=(const NativeStage &) = delete;
  // `who` is called only to name the worker in an error.
  Status run(std::span<void *const> records, const std::function<std::string()> &who);

private:
  struct State;
  std::unique_ptr<State> state_;
};

// Process-wide counters of native stage calls (hrx-run --core-stats).
struct NativeCoreTotals {
  uint64_t calls = 0, cycles = 0, bundles = 0;
};
HRX_RUNTIME_API NativeCoreTotals nativeCoreTotals();
// Adds a native core's records (stage calls), issued cycles and bundles to the totals.
void addNativeCoreTotals(uint64_t calls, uint64_t cycles, uint64_t bundles);

}  // namespace hrx::runtime
