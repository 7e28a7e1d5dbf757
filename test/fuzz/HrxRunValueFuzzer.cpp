// hrx-run's typed-input parser and .npy reader (driver/hrx-run/Values.cpp, compiled in here since
// hrx-run has no library). The first byte picks the mode: a "[DIMSx]TYPE=VALUES" spec, or a .npy
// file given as "@path.npy". Accepted values are printed and compared with themselves.
#include "Values.h"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

using namespace hrx::run;

namespace {

const std::string &npyPath() {
  static const std::string path = "/tmp/hrx-run-value-fuzzer-" + std::to_string(getpid()) + ".npy";
  return path;
}

bool writeFile(const std::string &path, const uint8_t *data, size_t size) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  std::string spec;
  if (data[0] & 1) {
    if (!writeFile(npyPath(), data + 1, size - 1)) return 0;
    spec = "@" + npyPath();
  } else {
    spec.assign(reinterpret_cast<const char *>(data + 1), size - 1);
    if (spec.find('@') != std::string::npos) return 0;  // no reading of arbitrary host files
  }
  // hrx-run bounds inputs by the machine's memory; the fuzzer by what it may allocate.
  constexpr uint64_t kFuzzMaxBytes = uint64_t(64) << 20;
  auto value = parseValue(spec, kFuzzMaxBytes);
  if (value.isOk()) {
    (void)formatValue(value.value(), 64);
    (void)compareValues(value.value(), value.value(), 0.0);
  }
  return 0;
}
