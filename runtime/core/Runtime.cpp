#include "hrx/runtime/Runtime.h"

#include "hrx/Version.h"

namespace hrx::runtime {
std::string version() { return HRX_VERSION_STRING; }
}  // namespace hrx::runtime
