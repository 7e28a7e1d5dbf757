// Vector values the AIE2P selector cannot hold in a register: those that only move between memory
// areas rewritten as the word loops it has, lane-wise arithmetic on them computed one register at
// a time (docs/aie2p.md "Native core code").
#pragma once

#include <llvm/IR/Function.h>

namespace hrx::xdna {

// In `f` (a prepared stage function), for vectors that are not one 512-bit x register (16 x i32,
// 32 x i16, 64 x i8, 16 x float), e.g. 64 x bf16 or 64 x f32 fragments:
//  - a load whose one use is a store later in its block, with nothing between them that may write
//    memory, becomes a memcpy between the two pointers when one is a stack slot and the other
//    another object (so the areas cannot overlap);
//  - a store of a constant whose bytes are all equal (a zero accumulator) becomes a memset.
// Both need whole words at word-aligned addresses. Anything else is left for the selector to
// name (XDNA/015).
void lowerMemoryCopiesForAie2p(llvm::Function &f);

// In `f`, a store of a vector that is a whole number (2 or more) of x registers wide (64 x f32,
// say), computed from loads by at least one lane-wise fadd/fsub/add/sub/and/or/xor (constants
// allowed) that nothing else uses, becomes the same computation one 512-bit piece at a time: every piece's
// loads and arithmetic, then the pieces' stores. The loads stay ahead of every store, so it is
// exact whatever the pointers alias; it needs each load in the store's block with nothing that
// may write memory between it and the store. Anything else is left as it is (XDNA/015).
void splitWideVectorsForAie2p(llvm::Function &f);

}  // namespace hrx::xdna
