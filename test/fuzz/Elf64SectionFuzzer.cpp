// The ELF64 (HSACO) section reader, appending a section to whatever it accepted, and the
// artifact loader over a whole code object (.hrx.manifest, .hrx.launch, contracts, host code).
#include "hrx/format/Artifact.h"
#include "hrx/format/Elf64Writer.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto elf = hrx::format::readElf64Sections({data, size});
  if (elf.isOk()) {
    hrx::format::SectionPayload extra{".hrx.fuzz", {1, 2, 3}, false};
    auto appended = hrx::format::appendElf64Sections({data, size}, {&extra, 1});
    if (appended.isOk() && !hrx::format::readElf64Sections(appended.value()).isOk()) __builtin_trap();
  }
  (void)hrx::format::readArtifact({data, size});
  return 0;
}
