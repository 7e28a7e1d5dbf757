// hrx-run's checks of values against an entry's contract, kept apart from the command line:
// element types of typed inputs and expected outputs.
#pragma once

#include "Values.h"

#include "hrx/format/KernelContract.h"

#include <optional>
#include <string>

namespace hrx::run {

// The element type a contract layout names ("view<[%count]xf32> row-major" -> f32,
// "i32 records" -> i32); nullopt when it names none ("contiguous row-major").
std::optional<ElementType> layoutElementType(const std::string &layout);

// A typed value (a literal or a .npy file) must have the binding's element type; integers of
// one size and either signedness agree. Raw bytes carry no type and always pass.
// `what` names the value in the error ("input 2").
Status checkElementType(const Value &value, const format::BindingContract &binding, size_t ordinal,
                        const std::string &what);

// An expected output of another type than the binding's values is an error naming both,
// not a comparison of reinterpreted bits.
Status checkExpectedType(const Value &expected, const Value &actual, size_t ordinal);

}  // namespace hrx::run
