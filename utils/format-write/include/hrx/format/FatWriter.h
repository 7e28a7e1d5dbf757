// Writing the fat container (hrx/format/Fat.h reads it): clang offload binaries, each 8-byte
// aligned. Compiler and tools only: not part of libhrx-runtime.
#pragma once

#include "hrx/format/Fat.h"

#include <cstdint>
#include <span>
#include <vector>

namespace hrx::format {

std::vector<uint8_t> writeFat(std::span<const FatEntry> entries);

}  // namespace hrx::format
