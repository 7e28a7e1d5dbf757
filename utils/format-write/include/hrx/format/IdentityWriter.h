// Writing the `.hrx.identity` section (hrx/format/Identity.h reads it). Compiler and tools
// only: not part of libhrx-runtime.
#pragma once

#include "hrx/format/Identity.h"

#include <string>

namespace hrx::format {

std::string writeIdentity(const ArtifactIdentity &identity);

}  // namespace hrx::format
