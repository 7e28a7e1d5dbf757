// The one SHA-256 (hrx/format/Sha256.h) against the FIPS 180-4 / NIST example messages.
#include "hrx/format/Sha256.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace {

using hrx::format::Sha256;
using hrx::format::sha256Hex;

std::span<const uint8_t> bytesOf(std::string_view text) {
  return {reinterpret_cast<const uint8_t *>(text.data()), text.size()};
}

TEST(Sha256, NistKnownAnswers) {
  EXPECT_EQ(sha256Hex(bytesOf("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256Hex(bytesOf("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // 448 bits: the padding spills into a second block.
  EXPECT_EQ(sha256Hex(bytesOf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // 896 bits.
  EXPECT_EQ(sha256Hex(bytesOf("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqr"
                              "lmnopqrsmnopqrstnopqrstu")),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, OneMillionAs) {
  std::string million(1000000, 'a');
  EXPECT_EQ(sha256Hex(bytesOf(million)), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // The same message fed in uneven pieces, across and within blocks.
  Sha256 sha;
  size_t at = 0;
  for (size_t piece = 1; at < million.size(); piece = piece * 7 % 1000 + 1) {
    size_t take = std::min(piece, million.size() - at);
    sha.update(bytesOf(std::string_view(million).substr(at, take)));
    at += take;
  }
  EXPECT_EQ(sha.finishHex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, EverySplitOfAMessageGivesOneDigest) {
  std::string message;
  for (int i = 0; i < 200; ++i) message += char('a' + i % 26);
  const std::string whole = sha256Hex(bytesOf(message));
  for (size_t split = 0; split <= message.size(); ++split) {
    Sha256 sha;
    sha.update(bytesOf(std::string_view(message).substr(0, split)));
    sha.update(bytesOf(std::string_view(message).substr(split)));
    EXPECT_EQ(sha.finishHex(), whole) << "split at " << split;
  }
}

}  // namespace
