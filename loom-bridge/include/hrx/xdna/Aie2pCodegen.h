// Native AIE2P core code for NPU workers: a selector of our own over the LLVM IR the host
// lowering already produces for a worker's stage function ("hrx.stage.<entry>", HostAbi.h),
// onto the AIE2P machine layer's instruction table (runtime/aie2p, linked as data).
//
// Why our own selector and not an LLVM target: the IR is the host lowering's (one stage function
// per worker, everything inlined), the subset a worker needs is small, and the machine layer
// already knows every encoding and latency; an out-of-tree TableGen target would duplicate the
// table. See docs/aie2p.md "Native core code" for the subset, the calling convention and gaps.
//
// The program a worker tile gets (offset 0 of its program memory; Aie2pMain.h links main):
//   entry:  j #main, five delay-slot nops
//   worker: the stage function: r0 = address of the record-pointer array (records[i] at
//           r0 + 4 i), sp = the bottom of the stack reserve (the stack grows upwards);
//           returns with ret lr.
// One instruction per bundle; nops where a result is read before the table's write cycle, and in
// every branch's delay slots. What cannot be selected is an error naming the construct; the
// caller keeps that worker on its host twin (never wrong code).
#pragma once

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <expected>
#include <string>
#include <vector>

namespace hrx::xdna {

// 32-bit pointers, x86-64's alignments otherwise (record layouts computed by the host lowering
// stay valid); the selector's target.
inline constexpr const char *kAie2pDataLayout = "e-m:e-p:32:32-i64:64-i128:128-n32-S64";

struct CoreCode {
  std::vector<uint8_t> bytes;  // entry + worker + the smallest main (`done`), assembled
  std::string assembly;        // entry + worker in llvm-aie syntax, one bundle per line (jumps to `main`)
  uint32_t bundles = 0;
  uint32_t frameBytes = 0;  // the worker's stack frame (allocas and spills)
};

struct CodegenError {
  std::string construct;  // what could not be selected: "'fdiv float'", "a call to @memcpy"
  std::string reason;     // why
};

// Prepares a module from bridge::lowerStageIr for selection: the AIE2P data layout, every
// function but the stage entry points inlined into them, the O2 pipeline without vectorization
// or unrolling, critical edges split.
void prepareModuleForAie2p(llvm::Module &module);

// Selects, allocates registers for and assembles one prepared stage function.
std::expected<CoreCode, CodegenError> compileStageForAie2p(llvm::Function &stage);

}  // namespace hrx::xdna
