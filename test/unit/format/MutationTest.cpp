// Hostile .xdna images: every 32-bit word of the ELF header, the program headers and the
// metadata, replaced by 0, all-ones, +1 and a flipped top bit; and every truncation.
#include "Samples.h"

#include "hrx/format/Artifact.h"
#include "hrx/format/XdnaWriter.h"

#include <gtest/gtest.h>

using namespace hrx::format;

namespace {

uint32_t word(const std::vector<uint8_t> &b, size_t at) {
  return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}

// Whether the loader would run the image: it reads and validates, and is admitted.
bool admitted(const std::vector<uint8_t> &bytes) {
  auto image = xdna::readImage(bytes);
  return image.isOk() && xdna::checkAdmission(image.value(), xdna::kStrixHalo, 1).isOk();
}

TEST(Mutation, EveryStructuralWord) {
  const std::vector<uint8_t> original = samples::copyImageBytes();
  const size_t metadata = word(original, 52 + 4), metadataEnd = metadata + word(original, 52 + 16);
  size_t accepted = 0, rejected = 0;
  for (size_t at = 0; at + 4 <= metadataEnd; at += 4) {
    uint32_t value = word(original, at);
    for (uint32_t replacement : {0u, 0xFFFFFFFFu, value + 1, value ^ 0x80000000u}) {
      if (replacement == value) continue;
      std::vector<uint8_t> bytes = original;
      for (unsigned i = 0; i < 4; ++i) bytes[at + i] = uint8_t(replacement >> (8 * i));
      auto image = xdna::readImage(bytes);
      (void)readArtifact(bytes);
      if (at < 52) {
        EXPECT_FALSE(image.isOk()) << "ELF header word at " << at << " = " << replacement << " was accepted";
      } else if (at >= metadata && at < metadata + 64) {
        EXPECT_FALSE(admitted(bytes)) << "metadata header word at " << at << " = " << replacement << " was admitted";
      }
      if (!image.isOk()) {
        ++rejected;
        continue;
      }
      ++accepted;
      // A mutation that keeps the image valid must survive a write/read round trip.
      auto rewritten = xdna::writeImage(image.value());
      ASSERT_TRUE(rewritten.isOk()) << "word at " << at << ": " << rewritten.status().message();
      EXPECT_TRUE(xdna::readImage(rewritten.value()).isOk());
    }
  }
  EXPECT_GT(rejected, accepted);  // most words are structural
}

TEST(Mutation, EveryTruncation) {
  const std::vector<uint8_t> original = samples::copyImageBytes();
  for (size_t size = 0; size < original.size(); ++size) {
    std::vector<uint8_t> prefix(original.begin(), original.begin() + size);
    EXPECT_FALSE(xdna::readImage(prefix).isOk()) << size;
    EXPECT_FALSE(readArtifact(prefix).isOk()) << size;
  }
  const std::vector<uint8_t> fat = samples::fatBytes();
  for (size_t size = 1; size < fat.size(); size += 7) {
    std::vector<uint8_t> prefix(fat.begin(), fat.begin() + size);
    (void)readArtifact(prefix);  // a prefix ending on a member boundary is a valid smaller container
  }
}

}  // namespace
