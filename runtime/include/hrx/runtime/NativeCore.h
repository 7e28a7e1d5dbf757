// Native AIE2P core code on the host reference device: the code an .xdna entry writes into its
// compute tiles' program memory, run by the AIE2P instruction-set simulator (runtime/aie2p)
// instead of the worker's host twin. docs/aie2p.md "Native core code" describes the program
// layout and the calling convention (r0 = the record-pointer array, sp = the stack).
#pragma once

#include "hrx/format/Xdna.h"
#include "hrx/runtime/Export.h"
#include "hrx/runtime/Status.h"

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hrx::runtime {

// --core-model: native (the simulator runs the image's core code; the default when the image
// has it) or twin (the host-compiled twin, the oracle for differential tests).
enum class CoreModelKind { Native, Twin };
HRX_RUNTIME_API StatusOr<CoreModelKind> parseCoreModel(std::string_view name);  // "native" | "twin"

// Per compute tile (column, row): the bytes the entry's establish invocation writes into program
// memory, from offset 0. Empty when the image carries no core code for the entry.
using TileCodeMap = std::map<std::pair<uint32_t, uint32_t>, std::vector<uint8_t>>;
HRX_RUNTIME_API StatusOr<TileCodeMap> nativeCoreCode(const format::xdna::Image &image, const std::string &entry);

// One stage call run natively: the records are copied into a simulated tile's data memory,
// the core runs the program from 0 (main calls the worker, which returns to `done`) and the
// records are copied back. `who` names the worker in errors (a trap carries pc and bundle).
HRX_RUNTIME_API Status runNativeStage(std::span<const uint8_t> program, std::span<void *const> records,
                                      std::span<const uint32_t> recordBytes, const std::string &who);

// Process-wide counters of native stage calls (hrx-run --core-stats).
struct NativeCoreTotals {
  uint64_t calls = 0, cycles = 0, bundles = 0;
};
HRX_RUNTIME_API NativeCoreTotals nativeCoreTotals();

}  // namespace hrx::runtime
