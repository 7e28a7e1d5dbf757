// Floating-point operations the AIE2P selector has no instruction for, rewritten in the IR it
// selects (docs/aie2p.md "Native core code"). AIE2P's scalar unit has no floating point and its
// vector multiplier multiplies bf16, so an fp32 product is computed exactly in integer arithmetic.
#pragma once

#include <llvm/IR/Function.h>

namespace hrx::xdna {

// In `f` (a prepared stage function):
//  - fpext of a loaded bf16 to float becomes a 16-bit load shifted left by 16 (exact);
//  - llvm.fmuladd of float / 16 x float becomes fmul then fadd: two roundings, as the host twin's
//    x86-64-v2 code computes it (no FMA there);
//  - a scalar `fmul float` becomes an IEEE binary32 multiply (round to nearest even, subnormals,
//    infinities, NaNs) in i32 operations on the operands' bits;
//  - a `fmul <16 x float>` becomes a 16-iteration loop of that multiply over stack copies of its
//    operands (a zero-overhead loop: the multiply has no branch);
//  - a scalar `fneg float` flips the sign bit.
// Scalar fadd/fsub stay: the selector adds them in the vector unit (vadd.f / vsub.f).
// Each expanded multiply is about 1.1 KB of program memory (16 KB per core), so a function with
// more than kMaxExpandedFloatMultiplies multiplies (a vector multiply's loop counts once) keeps
// them all, and the selector names the first: the worker stays on its host twin.
inline constexpr unsigned kMaxExpandedFloatMultiplies = 10;
void lowerFloatForAie2p(llvm::Function &f);

}  // namespace hrx::xdna
