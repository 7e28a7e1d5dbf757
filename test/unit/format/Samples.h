// Valid sample artifacts built with the format library's writers, shared by the unit tests
// and hrx-format-testgen (which writes them to disk for the lit tests).
#pragma once

#include "hrx/format/ArrayPlan.h"

namespace hrx::format::samples {

// A copy pipeline: binding 0 (read) → shim DMA → worker (0,2) "copy_stage" → shim DMA →
// binding 1 (write), `records` records of `recordBytes` bytes.
ArrayPlan copyPlan(uint32_t records = 16, uint32_t recordBytes = 64);

}  // namespace hrx::format::samples
