// The core main program of a worker tile: the loop the array plan implies, in AIE2P assembly,
// linked in front of the worker's native code (docs/aie2p.md "The core main program").
//
// Program memory of a worker tile, from offset 0:
//   entry:  j #main and its five delay-slot nops (16 bytes)
//   worker: the worker (Aie2pCodegen.h), returning with ret lr
//   main:   per invocation, for the planned iterations: acquire each port's lock (an input's
//           ready lock, an output's credit lock) on the iterations that start a record, write
//           the current slot addresses into the record-pointer array, call the worker, release
//           (an input's credit lock, an output's ready lock) on the iterations that finish a
//           record, advance the rings; then done.
// The device state (ring positions and phases, the iteration counter, the record-pointer array,
// State ports' private records) and the worker's stack sit at the top of the tile's own data
// memory; the establish command zeroes the state once, so ring positions persist from one
// invocation to the next as the DMA BD chains' do.
#pragma once

#include "hrx/format/ArrayPlan.h"

#include <cstdint>
#include <expected>
#include <string>
#include <vector>

namespace hrx::xdna {

inline constexpr uint32_t kAie2pWorkerOffset = 16;  // after `j #main` and five 16-bit nops

struct LinkedCoreProgram {
  std::vector<uint8_t> bytes;  // the whole program memory image, from offset 0
  std::string assembly;        // re-assembles to `bytes`
  uint32_t bundles = 0;
  uint32_t stateOffset = 0;  // the device state in the tile's own data memory (DMA view)
  uint32_t stateBytes = 0;   // zeroed by the establish command
};

// Links the worker's assembly (from "entry:" through its last bundle; it jumps to `main`) with
// the main program for plan worker `worker` whose stack frame is `frameBytes`. An error (a port
// whose slots a core cannot reach, state that overlaps the tile's ring slots) names the reason;
// the worker then keeps its host twin.
std::expected<LinkedCoreProgram, std::string> linkCoreProgram(const std::string &workerAssembly, uint32_t frameBytes,
                                                              const format::ArrayPlan &plan,
                                                              const format::PlanWorker &worker);

}  // namespace hrx::xdna
