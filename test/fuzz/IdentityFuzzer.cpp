// The .hrx.identity reader (hrx/format/Identity.h): an accepted identity keeps its own rules (a
// reference-only artifact says why and describes no native code; the host digest is SHA-256
// hex) and written back (IdentityWriter) reads back equal. Any disagreement aborts: a finding.
#include "hrx/format/Bundle.h"
#include "hrx/format/Identity.h"
#include "hrx/format/IdentityWriter.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  auto identity = hrx::format::readIdentity(text);
  if (!identity.isOk()) return 0;
  const hrx::format::ArtifactIdentity &id = identity.value();
  if (id.target.empty()) std::abort();
  if (id.referenceOnly && (id.referenceOnlyReason.empty() || !id.nativeCode.empty())) std::abort();
  if (!id.hostSha256.empty() && !hrx::format::isSha256Hex(id.hostSha256)) std::abort();
  auto again = hrx::format::readIdentity(hrx::format::writeIdentity(id));
  if (!again.isOk() || again.value() != id) std::abort();
  return 0;
}
