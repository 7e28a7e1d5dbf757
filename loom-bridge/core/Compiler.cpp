#include "hrx/Compiler.h"

#include "hrx/Version.h"
#include "hrx/cxx/CxxImporter.h"

#include <llvm/Config/llvm-config.h>

namespace hrx {

CompilerIdentity compilerIdentity() {
  return {"hrxcc", HRX_VERSION_STRING, LLVM_VERSION_STRING, cxx::clangVersion()};
}

}  // namespace hrx
