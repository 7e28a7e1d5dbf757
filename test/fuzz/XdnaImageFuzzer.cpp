// The .xdna reader and validator, and the artifact loader behind it (contracts, plans,
// identity, reports in .hrx.* sections): every input is rejected or accepted, never a crash.
#include "hrx/format/Artifact.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto image = hrx::format::xdna::readImage({data, size});
  if (image.isOk()) (void)hrx::format::xdna::checkAdmission(image.value(), hrx::format::xdna::kStrixHalo, 1);
  (void)hrx::format::readArtifact({data, size});
  return 0;
}
