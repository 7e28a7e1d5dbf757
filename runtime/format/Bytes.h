// Little-endian field access over untrusted bytes (never a struct cast over file bytes), and
// the bounded zstd helpers the readers share. Internal to runtime/format.
#pragma once

#include "hrx/runtime/Status.h"

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::format::detail {

inline bool fits(uint64_t offset, uint64_t length, uint64_t size) { return offset <= size && length <= size - offset; }

inline uint64_t readLE(std::span<const uint8_t> bytes, size_t offset, unsigned width) {
  uint64_t value = 0;
  for (unsigned i = 0; i < width; ++i) value |= uint64_t(bytes[offset + i]) << (8 * i);
  return value;
}
inline uint16_t le16(std::span<const uint8_t> b, size_t o) { return uint16_t(readLE(b, o, 2)); }
inline uint32_t le32(std::span<const uint8_t> b, size_t o) { return uint32_t(readLE(b, o, 4)); }
inline uint64_t le64(std::span<const uint8_t> b, size_t o) { return readLE(b, o, 8); }

// Appends little-endian fields.
class ByteWriter {
public:
  void u8(uint8_t v) { bytes_.push_back(v); }
  void u16(uint16_t v) { put(v, 2); }
  void u32(uint32_t v) { put(v, 4); }
  void u64(uint64_t v) { put(v, 8); }
  void append(std::span<const uint8_t> data) { bytes_.insert(bytes_.end(), data.begin(), data.end()); }
  void append(std::string_view text) { bytes_.insert(bytes_.end(), text.begin(), text.end()); }
  void padTo(size_t alignment) {
    while (bytes_.size() % alignment) bytes_.push_back(0);
  }
  void zeros(size_t count) { bytes_.resize(bytes_.size() + count, 0); }
  void patch16(size_t offset, uint16_t v) { patch(offset, v, 2); }
  void patch64(size_t offset, uint64_t v) { patch(offset, v, 8); }
  size_t size() const { return bytes_.size(); }
  std::vector<uint8_t> take() { return std::move(bytes_); }

private:
  void patch(size_t offset, uint64_t v, unsigned width) {
    for (unsigned i = 0; i < width; ++i) bytes_[offset + i] = uint8_t(v >> (8 * i));
  }
  void put(uint64_t v, unsigned width) {
    for (unsigned i = 0; i < width; ++i) bytes_.push_back(uint8_t(v >> (8 * i)));
  }
  std::vector<uint8_t> bytes_;
};

inline bool isPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// ELF SHF_COMPRESSED with ELFCOMPRESS_ZSTD (2): a compression header, then one zstd frame.
inline constexpr uint32_t kElfCompressZstd = 2;
inline constexpr uint64_t kSectionCompressed = 0x800;
// Decompressed sections larger than this are refused (a hostile ch_size must not make us
// allocate gigabytes).
inline constexpr uint64_t kMaxDecompressedBytes = 512ull * 1024 * 1024;

// Bounds the bytes a reader copies or decompresses out of section payloads in total: sections
// may alias one range or each declare a large uncompressed size.
class PayloadBudget {
public:
  Status take(uint64_t bytes, const std::string &what) {
    if (bytes > kMaxDecompressedBytes - used_)
      return Status(StatusCode::InvalidArgument,
                    what + ": section payloads exceed " + std::to_string(kMaxDecompressedBytes) + " bytes in total");
    used_ += bytes;
    return Status::ok();
  }

private:
  uint64_t used_ = 0;
};

std::vector<uint8_t> zstdCompress(std::span<const uint8_t> data);
// Decompresses exactly `expectedBytes`; `what` names the section in errors.
StatusOr<std::vector<uint8_t>> zstdDecompress(std::span<const uint8_t> frame, uint64_t expectedBytes,
                                              std::string_view what);

}  // namespace hrx::format::detail
