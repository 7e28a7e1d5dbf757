// Valid sample artifacts built with the format library's writers, shared by the unit tests
// and hrx-format-testgen (which writes them to disk for the lit tests).
#pragma once

#include "hrx/format/ArrayPlan.h"
#include "hrx/format/Xdna.h"

namespace hrx::format::samples {

// A copy pipeline: binding 0 (read) → shim DMA → worker (0,2) "copy_stage" → shim DMA →
// binding 1 (write), `records` records of `recordBytes` bytes.
ArrayPlan copyPlan(uint32_t records = 16, uint32_t recordBytes = 64);

// A valid single-entry image "copy" for the copy plan: a COMMAND allocation holding two
// transactions (establish at 0, repeat at 64; invocations 0 -> 1 -> 1), a DMA allocation with a
// zero-filled tail, one static and two dynamic SHIM_ADDRESS relocations, two BUFFER bindings,
// and the .hrx.* sections (the host section zstd-compressed).
xdna::Image copyImage();

}  // namespace hrx::format::samples
