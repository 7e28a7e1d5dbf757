// The per-lane meaning of a low.func.def body (lower/LowHost.cpp): AMDGPU instructions, asm
// block arguments and branches, and the plain low.* register dataflow, as LLVM IR for one
// work-item. A body is decoded first (every error before any IR), then emitted at the builder.
#pragma once

#include "hrx/loom/IR.h"
#include "hrx/loom/Lexer.h"

#include <llvm/IR/IRBuilder.h>

#include <expected>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hrx::bridge::lowlane {

// The tokens of a text body's line (the module's parse reported any lexing error).
std::vector<loom::Token> lexText(std::string_view text);

// A register type `reg<amdgpu.CLASS [xN] [: T]>`.
struct RegisterClass {
  std::string name;  // amdgpu.sgpr
  unsigned units = 1;
  bool isScc() const { return name == "amdgpu.scc"; }
};

// The register class starting at tokens[i] (`reg`), advancing i past it.
std::optional<RegisterClass> registerClassAt(const std::vector<loom::Token> &tokens, size_t &i);

// Why a body has no per-lane translation: the line at fault (null: the invoke) and the reason.
struct LaneFailure {
  const loom::Operation *at = nullptr;
  std::string reason;
};

struct LaneProgram;  // a decoded body

std::expected<std::shared_ptr<const LaneProgram>, LaneFailure>
decodeLaneBody(const loom::Operation &fn, const std::vector<RegisterClass> &params,
               const std::vector<RegisterClass> &results);

// Emits the body at the builder's insertion point (it may end in a new block). `params` holds one
// value per parameter: i(32·units), or i1 for reg<amdgpu.scc>. Returns one value per result in
// the same form.
std::vector<llvm::Value *> emitLaneBody(llvm::IRBuilder<> &b, const LaneProgram &program,
                                        std::span<llvm::Value *const> params);

}  // namespace hrx::bridge::lowlane
