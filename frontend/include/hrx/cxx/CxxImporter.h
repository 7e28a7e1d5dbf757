// C23/C++26 importer on Clang 22.
#pragma once

#include <string>

namespace hrx::cxx {
// The Clang version the importer is built on, e.g. "22.1.8".
std::string clangVersion();
}  // namespace hrx::cxx
