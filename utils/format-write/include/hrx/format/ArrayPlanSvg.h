// A picture of array plans (hrx inspect --plan-svg, hrxcc --emit=array-plan-svg): the NPU5
// partition as the plan uses it, one panel per plan. Rows run shim (row 0, bottom), memory tile
// (row 1), compute (rows 2-5); each worker sits on its tile with its entry name; each channel is
// drawn along its routed path with an arrow (sender to receiver) and its record size; each tile
// lists its locks, buffer descriptors, DMA channels and data memory against the tile's supply,
// coloured near (>= 75%) and at the limit. Deterministic: the same plans give the same bytes.
//
// Structure (what tools and tests may rely on): one <g class="worker" data-worker="W"
// data-entry="NAME"> per worker, one <g class="channel" data-channel="C"> per channel, one
// <g class="tile" data-tile="COL,ROW"> per tile of the partition, inside one
// <g class="plan" data-entry="NAME"> per plan.
#pragma once

#include "hrx/format/ArrayPlan.h"

#include <span>
#include <string>

namespace hrx::format {

std::string renderArrayPlanSvg(std::span<const ArrayPlan> plans);

}  // namespace hrx::format
