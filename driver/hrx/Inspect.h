// `hrx inspect`: a readable (or JSON) listing of an artifact, in the manner of cuobjdump and
// llvm-objdump --offloading.
#pragma once

#include "hrx/format/Artifact.h"

#include <string>

namespace hrx::tool {

std::string inspectText(const format::Artifact &artifact);
format::ReportJson inspectJson(const format::Artifact &artifact);

}  // namespace hrx::tool
