// libhrx-runtime: public entry points.
#pragma once

#include <string>

namespace hrx::runtime {
// "0.1.0"
std::string version();
}  // namespace hrx::runtime
