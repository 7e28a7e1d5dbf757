// Adding sections to an ELF64 file (hrx/format/Elf64Sections.h reads them). Compiler and
// tools only: not part of libhrx-runtime.
#pragma once

#include "hrx/format/Elf64Sections.h"

#include <cstdint>
#include <span>
#include <vector>

namespace hrx::format {

// Appends `sections` to an ELF64 file: payloads, a new section-name table and a new
// section-header table at the end; existing bytes are not moved. Fails on names that already
// exist.
StatusOr<std::vector<uint8_t>> appendElf64Sections(std::span<const uint8_t> elf,
                                                   std::span<const SectionPayload> sections);

}  // namespace hrx::format
