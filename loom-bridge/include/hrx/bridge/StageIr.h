// The stage IR: a program's stage functions and kernels (Loom and C/C++) lowered into one LLVM
// module with the entry points of the host-code ABI ("hrx.stage.*", "hrx.kernel.*",
// "hrx.launch.*"; runtime/include/hrx/format/HostAbi.h). Target-neutral, in hrx_bridge_core:
// the host backend compiles it to an x86-64 shared object, and the xdna backend selects AIE2P
// code from its stage functions, so neither backend links the other.
#pragma once

#include "hrx/bridge/Program.h"
#include "hrx/diag/Diagnostic.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string_view>

namespace hrx::bridge {

// The stage IR's target triple (the host reference device's).
inline constexpr const char *kHostTriple = "x86_64-unknown-linux-gnu";

// Lowers the program's stage functions and kernels into a new module. `forHostTarget`: the
// module is the host target's own output, not the host twin of another target's artifact (a
// C/C++ kernel the host cannot run is then an error, not a warning). `providerFamily` is the
// family whose providers template.apply / func.apply select. `launchOnly`: only the
// "hrx.launch.*" entry points (HostCodeOptions::launchOnly; hrxcc --host-twin=never). Null after
// reporting errors.
std::unique_ptr<llvm::Module> lowerStageIr(const Program &program, llvm::LLVMContext &context,
                                           diag::DiagnosticEngine &diags, bool forHostTarget = false,
                                           std::string_view providerFamily = "host", bool launchOnly = false);

}  // namespace hrx::bridge
