#include "Bytes.h"

#include <zstd.h>

namespace hrx::format::detail {

std::vector<uint8_t> zstdCompress(std::span<const uint8_t> data) {
  std::vector<uint8_t> out(ZSTD_compressBound(data.size()));
  // Level 19 single-threaded: deterministic bytes for deterministic input.
  size_t written = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), 19);
  out.resize(ZSTD_isError(written) ? 0 : written);
  return out;
}

StatusOr<std::vector<uint8_t>> zstdDecompress(std::span<const uint8_t> frame, uint64_t expectedBytes, std::string_view what) {
  if (expectedBytes > kMaxDecompressedBytes)
    return Status(StatusCode::InvalidArgument, std::string(what) + ": declared uncompressed size " + std::to_string(expectedBytes) +
                                                   " exceeds the " + std::to_string(kMaxDecompressedBytes) + "-byte limit");
  std::vector<uint8_t> out(expectedBytes);
  size_t produced = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(produced))
    return Status(StatusCode::InvalidArgument, std::string(what) + ": zstd payload is corrupt (" + ZSTD_getErrorName(produced) + ")");
  if (produced != expectedBytes)
    return Status(StatusCode::InvalidArgument, std::string(what) + ": zstd payload holds " + std::to_string(produced) +
                                                   " bytes, the compression header declares " + std::to_string(expectedBytes));
  return out;
}

}  // namespace hrx::format::detail
