// Internal: links the ROCm device libraries into a HIP unit for amdgcn the way Clang's
// -mlink-builtin-bitcode does, propagating Clang's default attributes only to what is linked.
#pragma once

#include <string>
#include <vector>

namespace clang {
class CompilerInstance;
}
namespace llvm {
class Module;
}

namespace hrx::cxx {

// Links each library (the files Clang's setup named with -mlink-builtin-bitcode, in order) into
// `module`: only what it needs, internalized, with the unit's default function attributes, as
// Clang does. Clang merges those attributes into every function of each library before the
// link; this merges them into the functions the link can reach from `module` only (a tenth of a
// one-kernel HIP compile less, the same module). Files are read through `ci`'s file manager, so
// they reach the depfile as before. The linker's warnings go to `warnings`. Returns an error
// message, or an empty string.
std::string linkDeviceLibraries(clang::CompilerInstance &ci, const std::vector<std::string> &libraries,
                                llvm::Module &module, std::vector<std::string> &warnings);

}  // namespace hrx::cxx
