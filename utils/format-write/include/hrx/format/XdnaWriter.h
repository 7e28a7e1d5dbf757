// Writing `.xdna` images (hrx/format/Xdna.h reads and validates them). Compiler and tools
// only: not part of libhrx-runtime.
#pragma once

#include "hrx/format/Xdna.h"

#include <cstdint>
#include <vector>

namespace hrx::format::xdna {

// Serialises `image` deterministically (allocation first_load/load_count are computed from
// `loads`). Fails on images the validator would reject, or on payloads too large for ELF32.
StatusOr<std::vector<uint8_t>> writeImage(const Image &image);

// The 16-byte AIE2P transaction 0.1 header that starts every command (§1.5).
std::vector<uint8_t> encodeTransactionHeader(const TransactionHeader &header);

}  // namespace hrx::format::xdna
