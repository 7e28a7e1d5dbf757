// The fat-container (LLVM offload binary) reader, whose accepted entries must write back and
// re-read, and the artifact loader over the container and its members.
#include "hrx/format/Artifact.h"
#include "hrx/format/FatWriter.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto entries = hrx::format::readFat({data, size});
  if (entries.isOk() && !hrx::format::readFat(hrx::format::writeFat(entries.value())).isOk()) __builtin_trap();
  (void)hrx::format::readArtifact({data, size});
  return 0;
}
