#include "Options.h"

#include <gtest/gtest.h>

#include <set>

namespace hrx::driver {
namespace {

TEST(Options, SpellingsAreUniqueAndAliasesResolve) {
  std::set<std::string_view> seen;
  for (const OptionInfo &opt : allOptions()) {
    EXPECT_TRUE(seen.insert(opt.spelling).second) << opt.spelling;
    EXPECT_FALSE(opt.help.empty()) << opt.spelling;
    if (opt.aliasOf != OptionId::None) EXPECT_EQ(optionInfo(opt.aliasOf).aliasOf, OptionId::None) << opt.spelling;
  }
}

TEST(Options, LongestSpellingWins) {
  EXPECT_EQ(matchOption("-verify")->id, OptionId::Verify);
  EXPECT_EQ(matchOption("-verify=a,b")->id, OptionId::VerifyEq);
  EXPECT_EQ(matchOption("-save-temps=obj")->id, OptionId::SaveTempsEq);
  EXPECT_EQ(matchOption("-MMD")->id, OptionId::MMD);
  EXPECT_EQ(matchOption("-MFdeps.d")->id, OptionId::MF);
  EXPECT_EQ(matchOption("-Werror")->id, OptionId::Warning);
}

TEST(Options, FlagsAndSeparateOptionsMatchExactly) {
  EXPECT_EQ(matchOption("-gline-tables"), nullptr);
  EXPECT_EQ(matchOption("-targetxdna"), nullptr);
  EXPECT_EQ(matchOption("-fsyntax-only-please"), nullptr);
}

TEST(Options, EditDistanceCountsTranspositionsOnce) {
  EXPECT_EQ(editDistance("xdna", "xdna"), 0u);
  EXPECT_EQ(editDistance("xdan", "xdna"), 1u);
  EXPECT_EQ(editDistance("gfx1150", "gfx1151"), 1u);
  EXPECT_EQ(editDistance("", "abc"), 3u);
  EXPECT_EQ(editDistance("kitten", "sitting"), 3u);
}

TEST(Options, SuggestionsKeepTheValue) {
  EXPECT_EQ(suggestOption("--emti=llvm"), "--emit=llvm");
  EXPECT_EQ(suggestOption("-fsyntx-only"), "-fsyntax-only");
  EXPECT_EQ(suggestOption("--print-target"), "--print-targets");
  EXPECT_EQ(suggestOption("--frobnicate"), std::nullopt);
  EXPECT_EQ(suggestOption("-q"), std::nullopt);
}

}  // namespace
}  // namespace hrx::driver
