// The host target's code: lowered LLVM IR → an x86-64 shared object following the host-code ABI
// (runtime/include/hrx/format/HostAbi.h), generated and linked in process.
#pragma once

#include "hrx/bridge/StageIr.h"

#include <llvm/IR/Module.h>

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <vector>

namespace hrx::bridge {

struct HostCodeOptions {
  std::string cpu = "x86-64-v2";  // "native": the compiling machine's CPU and features
  unsigned optLevel = 2;
  // The target family whose providers template.apply / func.apply select: the host twin of an
  // AMDGPU artifact runs what the GPU code runs, so it selects the GPU's providers.
  std::string_view providerFamily = "host";
  // The launch programs ("hrx.launch.*") alone: no kernels, stages or C/C++ code (the host
  // reference code of an AMDGPU artifact compiled with --host-twin=never).
  bool launchOnly = false;
  // An AMDGPU artifact's host code with --host-twin-opt=quick (the default): a short optimization
  // pipeline (inlining, scalar clean-up, the loop vectorizer) and x86 code generation at -O0.
  bool quickTwin = false;
};

// Why host code generation failed: in LLVM (LINK/004) or in the lld link (LINK/005).
struct HostCodeError {
  bool inLinker = false;
  std::string message;
};

// Prepares `module` for the host (triple, data layout, builtins, the hrx.abi_version symbol),
// runs the optimization pipeline and returns its assembly text or linked shared object.
std::expected<std::string, std::string> hostAssembly(llvm::Module &module, const HostCodeOptions &options);
std::expected<std::vector<uint8_t>, HostCodeError> hostSharedObject(llvm::Module &module,
                                                                    const HostCodeOptions &options);

// Prepares and optimizes `module` for the host without generating code (for --emit=llvm).
std::expected<void, std::string> optimizeForHost(llvm::Module &module, const HostCodeOptions &options);

// lowerStageIr + hostSharedObject: the host reference code other targets embed (e.g. the .xdna
// section .hrx.host). nullopt after reporting errors.
std::optional<std::vector<uint8_t>> buildHostCode(const Program &program, const HostCodeOptions &options,
                                                  diag::DiagnosticEngine &diags);

}  // namespace hrx::bridge
