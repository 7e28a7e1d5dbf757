#include "ArgParser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace hrx::driver {
namespace {

struct Parsed {
  diag::SourceManager sm;
  diag::DiagnosticEngine diags{sm};
  ArgList args;
  explicit Parsed(std::vector<std::string> argv) { args = parseArgs(expandResponseFiles(argv, diags), diags); }
};

TEST(ArgParser, OptionKinds) {
  Parsed p({"-o", "out.xdna", "-DN=4", "-D", "M", "--emit=llvm", "-target", "xdna", "-verify=a,b", "in.loom"});
  ASSERT_FALSE(p.diags.hasErrors());
  ASSERT_EQ(p.args.args.size(), 7u);
  EXPECT_EQ(p.args.last(OptionId::Output)->value, "out.xdna");
  auto defines = p.args.all(OptionId::Define);
  ASSERT_EQ(defines.size(), 2u);
  EXPECT_EQ(defines[0]->value, "N=4");
  EXPECT_EQ(defines[1]->value, "M");
  EXPECT_EQ(p.args.last(OptionId::Emit)->value, "llvm");
  // -target is an alias of --target=.
  EXPECT_EQ(p.args.last(OptionId::Target)->value, "xdna");
  EXPECT_EQ(p.args.last(OptionId::Target)->asWritten(), "-target xdna");
  EXPECT_EQ(p.args.last(OptionId::VerifyEq)->values(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.args.args.back().id, OptionId::None);
  EXPECT_EQ(p.args.args.back().value, "in.loom");
}

TEST(ArgParser, DoubleDashAndStdin) {
  Parsed p({"--", "-o", "-"});
  ASSERT_FALSE(p.diags.hasErrors());
  ASSERT_EQ(p.args.args.size(), 2u);
  EXPECT_EQ(p.args.args[0].id, OptionId::None);
  EXPECT_EQ(p.args.args[0].value, "-o");
  EXPECT_EQ(p.args.args[1].value, "-");
}

TEST(ArgParser, ErrorsAreReported) {
  EXPECT_TRUE(Parsed({"--nonsense"}).diags.hasErrors());
  EXPECT_TRUE(Parsed({"-o"}).diags.hasErrors());
  EXPECT_TRUE(Parsed({"--emit="}).diags.hasErrors());
}

TEST(ArgParser, ResponseFileQuoting) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("hrxcc-rsp-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string rsp = (dir / "args.rsp").string();
  std::ofstream(rsp) << "-DA='x y' \"-DB=\\\"q\\\"\"\n  plain\\ space.loom\n";
  Parsed p({"@" + rsp});
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(p.diags.hasErrors());
  ASSERT_EQ(p.args.args.size(), 3u);
  EXPECT_EQ(p.args.args[0].value, "A=x y");
  EXPECT_EQ(p.args.args[1].value, "B=\"q\"");
  EXPECT_EQ(p.args.args[2].value, "plain space.loom");
}

}  // namespace
}  // namespace hrx::driver
