// The flat JSON reader (runtime/format/JsonDocument) against nlohmann::json: the same texts
// accepted, the same values read, nlohmann's error text on rejection.
#include "JsonDifferential.h"

#include "hrx/format/ArrayPlan.h"
#include "hrx/format/ArrayPlanWriter.h"
#include "Samples.h"

#include <gtest/gtest.h>

#include <random>

namespace hrx::format {
namespace {

using testing::disagreement;

TEST(JsonDocument, AgreesWithNlohmannOnEdgeCases) {
  const char *cases[] = {"",
                         " ",
                         "null",
                         "true",
                         "false",
                         "nul",
                         "truex",
                         "0",
                         "-0",
                         "01",
                         "-",
                         "1.",
                         ".5",
                         "1.5",
                         "1e5",
                         "1E+5",
                         "1e-5",
                         "1e",
                         "18446744073709551615",
                         "18446744073709551616",
                         "-9223372036854775808",
                         "-9223372036854775809",
                         "123456789012345678901234567890",
                         "1e400",
                         "\"\"",
                         "\"a\"",
                         "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
                         "\"\\u0041\\u00e9\\u4e2d\"",
                         "\"\\u0000\"",
                         "\"\\ud83d\\ude00\"",
                         "\"\\ud83d\"",
                         "\"\\ude00\"",
                         "\"\\ud83dx\"",
                         "\"\\u12\"",
                         "\"\\x\"",
                         "\"a\nb\"",
                         "\"\x7f\"",
                         "\"\xc3\xa9\"",
                         "\"\xc3\"",
                         "\"\xe0\x80\x80\"",
                         "\"\xed\xa0\x80\"",
                         "\"\xf0\x9f\x98\x80\"",
                         "\"\xf4\x90\x80\x80\"",
                         "\"\xff\"",
                         "\"unterminated",
                         "[]",
                         "[ ]",
                         "[1,2,3]",
                         "[1,]",
                         "[,1]",
                         "[1 2]",
                         "{}",
                         "{ }",
                         "{\"a\":1}",
                         "{\"a\":1,}",
                         "{\"a\" 1}",
                         "{a:1}",
                         "{\"a\":}",
                         "{\"a\":1,\"b\":2,\"a\":3}",
                         "{\"a\":{\"x\":1},\"a\":[2]}",
                         "{\"k\\u0041\":1,\"kA\":2}",
                         "[1] x",
                         "[1]\n",
                         " \t\r\n[1] \t\r\n",
                         "\xef\xbb\xbf[1]",
                         "\xef\xbb[1]",
                         "[1]\0",
                         "[\"a\" , {\"b\" : [ null , true ] } ]",
                         "{\"\":0}",
                         "[-]",
                         "[--1]",
                         "[+1]",
                         "[1e+]",
                         "[0x10]",
                         "[Infinity]",
                         "[NaN]",
                         "/* c */ 1",
                         "[\"\\ud800\\udc00\"]",
                         "[\"\\uDBFF\\uDFFF\"]"};
  for (const char *text : cases) EXPECT_EQ(disagreement(text), "") << "text: " << text;
  // Embedded NUL bytes, inside and outside strings.
  EXPECT_EQ(disagreement(std::string_view("\"a\0b\"", 5)), "");
  EXPECT_EQ(disagreement(std::string_view("[1,\0]", 5)), "");
  EXPECT_EQ(disagreement(std::string_view("[1]\0x", 5)), "");
  EXPECT_EQ(disagreement(std::string_view("0\r\0\0\"", 5)), "");
  EXPECT_EQ(disagreement(std::string_view("\0", 1)), "");
}

// Strings scanned 16 bytes at a time: the byte that ends the plain run (quote, backslash,
// control byte, UTF-8 lead, NUL) at every offset of a 40-byte string; integers around the plain
// integer path's limits.
TEST(JsonDocument, AgreesWithNlohmannOnLongStringsAndIntegers) {
  const std::string_view stops[] = {
      "\"", "\\n", "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xc3", "\xff", std::string_view("\0", 1)};
  for (std::string_view stop : stops)
    for (size_t at = 0; at < 40; ++at) {
      std::string text = "[\"" + std::string(at, 'a') + std::string(stop) + std::string(40 - at, 'b') + "\"]";
      EXPECT_EQ(disagreement(text), "") << "stop " << int(uint8_t(stop[0])) << " at " << at;
    }
  for (const char *text : {"[1234567890123456789]", "[9999999999999999999]", "[12345678901234567890]",
                           "[18446744073709551615,18446744073709551616]", "[0,00]", "[7.]", "[7e]", "[7e1,8]",
                           "{\"a\":123,\"b\":0.5,\"c\":-4}", "[0]", "[0", "[12", "1234"})
    EXPECT_EQ(disagreement(text), "") << "text: " << text;
}

TEST(JsonDocument, NestingBound) {
  for (size_t depth : {1, 63, 64, 65, 66, 1000}) {
    std::string text = std::string(depth, '[') + std::string(depth, ']');
    EXPECT_EQ(disagreement(text), "") << depth << " levels";
    std::string withValue = std::string(depth, '[') + "1" + std::string(depth, ']');
    EXPECT_EQ(disagreement(withValue), "") << depth << " levels around a value";
    std::string objects;
    for (size_t i = 0; i < depth; ++i) objects += "{\"k\":";
    objects += "0" + std::string(depth, '}');
    EXPECT_EQ(disagreement(objects), "") << depth << " objects";
    // A syntax error after (or before) the nesting bound: the first one met is reported
    // (test/fuzz/regressions/JsonDocumentFuzzer).
    EXPECT_EQ(disagreement(std::string(depth, '[') + "("), "") << depth << " levels, then a syntax error";
  }
  EXPECT_EQ(disagreement("[(" + std::string(100, '[')), "");
}

TEST(JsonDocument, ManyMembersAndDuplicates) {
  std::string text = "{";
  for (int i = 0; i < 200; ++i) text += "\"k" + std::to_string(i % 150) + "\":" + std::to_string(i) + ",";
  text += "\"last\":[]}";
  EXPECT_EQ(disagreement(text), "");
}

// Deterministic mutants of a real plan document: byte flips, insertions of JSON syntax and
// deletions, each compared with nlohmann.
TEST(JsonDocument, AgreesWithNlohmannOnMutants) {
  ArrayPlan plans[] = {samples::copyPlan(), samples::splitKPlan()};
  std::string plan = writeArrayPlans(plans);
  ASSERT_EQ(disagreement(plan), "");
  std::mt19937 random(25);
  const std::string_view pieces[] = {"\"", "\\", "{",   "}",       "[",    "]",    ",", ":",  "-",    ".",
                                     "e",  "0",  "\\u", "\\ud800", "\xc3", "\xff", " ", "\n", "1e999"};
  for (int n = 0; n < 1000; ++n) {
    std::string text = plan;
    for (int edits = 1 + int(random() % 3); edits > 0; --edits) {
      size_t at = random() % text.size();
      switch (random() % 3) {
      case 0: text[at] = char(random() % 256); break;
      case 1: text.insert(at, pieces[random() % std::size(pieces)]); break;
      default: text.erase(at, 1 + random() % 8); break;
      }
    }
    ASSERT_EQ(disagreement(text), "") << "mutant " << n << ": " << text;
  }
}

}  // namespace
}  // namespace hrx::format
