// The bundle.json reader: any accepted manifest satisfies the invariants `hrx prepare` relies on
// (flat names, well-formed digests, the required libraries), and SHA-256 of the input is stable.
#include "hrx/format/Bundle.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  auto manifest = hrx::format::readBundleManifest(text);
  if (manifest.isOk()) {
    if (!hrx::format::isSha256Hex(manifest->archiveSha256)) std::abort();
    for (const auto &[name, digest] : manifest->files)
      if (!hrx::format::isFlatFileName(name) || !hrx::format::isSha256Hex(digest)) std::abort();
    for (std::string_view library : hrx::format::kRequiredBundleLibraries)
      if (!manifest->files.contains(std::string(library))) std::abort();
  }
  hrx::format::Sha256 whole, split;
  whole.update(std::span(data, size));
  split.update(std::span(data, size / 2));
  split.update(std::span(data + size / 2, size - size / 2));
  if (whole.finishHex() != split.finishHex()) std::abort();
  return 0;
}
