// Numeric helpers (bfp16ebs8 encode and MMA) that lowered code calls. They are C compiled to
// LLVM bitcode at build time (core/builtins/Numerics.c) and linked into a module on demand.
#pragma once

#include <llvm/IR/Module.h>

namespace hrx::bridge {

inline constexpr const char *kBfpEncodeF32 = "__hrx_bfp16ebs8_encode_f32";
inline constexpr const char *kBfpEncodeBf16 = "__hrx_bfp16ebs8_encode_bf16";
inline constexpr const char *kBfpMma = "__hrx_bfp16ebs8_mma";
// The 8x8x8 MMA of two encoded 64-value bf16 operands, from the bf16 values (no payload bytes).
inline constexpr const char *kBfpMmaBf16 = "__hrx_bfp16ebs8_mma_bf16";

// Declares builtin `name` in `module` (with its bitcode signature) and returns it.
llvm::Function *declareBuiltin(llvm::Module &module, llvm::StringRef name);

// Links the definitions of every builtin `module` references, with internal linkage and the
// module's target attributes. Returns false (with `error` set) if the bitcode cannot be read.
bool linkBuiltins(llvm::Module &module, std::string &error);

// The lowering hands the fused bfp16ebs8 MMA its operands, accumulator and result through stack
// slots. Where a slot only relays a plain load just before the call, a constant, or a plain
// store just after it (no other memory access in between), the call takes that memory (or a
// constant global) instead, so an optimized stage does not copy 768 bytes per product. Returns
// the number of calls changed.
unsigned forwardFusedMmaSlots(llvm::Module &module);

}  // namespace hrx::bridge
