// `hrx inspect`: a readable (or JSON) listing of an artifact, in the manner of cuobjdump and
// llvm-objdump --offloading.
#pragma once

#include "hrx/format/Artifact.h"
#include "hrx/format/CompileReport.h"  // ReportJson

#include <string>

namespace hrx::tool {

std::string inspectText(const format::Artifact &artifact);
format::ReportJson inspectJson(const format::Artifact &artifact);

// JSON text of `value` (indented by 2) that never fails: bytes of strings and keys that are not
// UTF-8 (a corrupt section name) are written as the text "\\xNN".
std::string dumpJson(const format::ReportJson &value);

}  // namespace hrx::tool
