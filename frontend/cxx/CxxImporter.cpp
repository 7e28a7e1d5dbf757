#include "hrx/cxx/CxxImporter.h"

#include <clang/Basic/Version.h>

namespace hrx::cxx {
std::string clangVersion() { return CLANG_VERSION_STRING; }
}  // namespace hrx::cxx
