// The format library's flat JSON reader against nlohmann::json on any text: the same texts
// accepted, the same values read, nlohmann's error text on rejection (JsonDifferential.h).
#include "JsonDifferential.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  if (std::string why = hrx::format::testing::disagreement(text); !why.empty()) {
    std::fprintf(stderr, "flat JSON reader disagrees with nlohmann: %s\n", why.c_str());
    std::abort();
  }
  return 0;
}
