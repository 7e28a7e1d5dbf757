// Writing array plans (hrx/format/ArrayPlan.h reads and validates them): the JSON payload of
// `.hrx.plan` and the text form. Compiler and tools only: not part of libhrx-runtime.
#pragma once

#include "hrx/format/ArrayPlan.h"

#include <span>
#include <string>

namespace hrx::format {

// JSON form (the payload of .hrx.plan: {"format":"hrx.array-plan","version":1,"plans":[...]}),
// indented by `indent` spaces a level, or compact (-1: what images embed, read at every load).
std::string writeArrayPlans(std::span<const ArrayPlan> plans, int indent = 1);

// The text form of loom-language §9.2 (hrxcc --emit=array-plan).
std::string printArrayPlan(const ArrayPlan &plan);

}  // namespace hrx::format
