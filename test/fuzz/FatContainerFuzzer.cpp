// The fat-container (LLVM offload binary) reader; what it accepts must write back and re-read.
#include "hrx/format/Fat.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto entries = hrx::format::readFat({data, size});
  if (entries.isOk() && !hrx::format::readFat(hrx::format::writeFat(entries.value())).isOk()) __builtin_trap();
  return 0;
}
