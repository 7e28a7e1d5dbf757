// The one SHA-256 (FIPS 180-4) of hrx: the runtime checks host-code digests with it and the
// compiler names its own code with it (loom-bridge/core/ArtifactIdentity.cpp). Hand-written
// because the runtime links no LLVM; test/unit/format/Sha256Test.cpp runs NIST's known answers.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace hrx::format {

// Incremental SHA-256 (FIPS 180-4).
class Sha256 {
public:
  Sha256();
  void update(std::span<const uint8_t> bytes);
  // Lowercase hex digest; the object must not be updated afterwards.
  std::string finishHex();

private:
  void compress(const uint8_t *block);
  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  uint64_t length_ = 0;
};

// The lowercase hex digest of `bytes`.
std::string sha256Hex(std::span<const uint8_t> bytes);

}  // namespace hrx::format
