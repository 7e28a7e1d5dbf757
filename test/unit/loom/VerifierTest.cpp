#include "LoomTestSupport.h"

#include <gtest/gtest.h>

namespace hrx::loom::test {
namespace {

std::vector<std::string> verifyCodes(const std::string &text) {
  Parsed p = parse(text);
  return p.codes();
}

// A flow pipeline with `lanes` workers scattering `source` and writing to `target`.
std::string scatterWrite(int lanes, const std::string &source, const std::string &tile, const std::string &target) {
  return "func.def @noop(%i: buffer, %o: buffer) {\n  func.return\n}\n"
         "pipeline.def @p() launch(%a: buffer, %b: buffer) {\n"
         "  %n = index.constant " +
         std::to_string(lanes) +
         " : index\n"
         "  %z = index.constant 0 : offset\n"
         "  %g = group.create %n : index -> group\n"
         "  %in = buffer.view %a[%z] : buffer -> " +
         source +
         "\n"
         "  %out = buffer.view %b[%z] : buffer -> " +
         target +
         "\n"
         "  %f = pipeline.scatter %in across %g : " +
         source + ", group -> pipeline.flow<" + tile +
         ">\n"
         "  pipeline.write %f to %out : pipeline.flow<" +
         tile + ">, " + target +
         "\n"
         "  pipeline.return\n}\n";
}

TEST(LoomVerifier, RecordShapesThatAreValid) {
  EXPECT_TRUE(verifyCodes(scatterWrite(2, "view<2x3x4xi32>", "tile<4xi32>", "view<2x3x4xi32>")).empty());
  EXPECT_TRUE(verifyCodes(scatterWrite(1, "view<1x1x4xi32>", "tile<4xi32>", "view<1x4xi32>")).empty());
  EXPECT_TRUE(verifyCodes(scatterWrite(1, "view<1x4xi32>", "tile<4xi32>", "view<4xi32>")).empty());
}

TEST(LoomVerifier, RecordShapeRejections) {
  Parsed missing = parse(scatterWrite(2, "view<2x3x4xi32>", "tile<4xi32>", "view<3x4xi32>"));
  ASSERT_EQ(missing.codes(), std::vector<std::string>{"LOWERING/060"});
  EXPECT_EQ(missing.param(0, "lane_count"), "2");
  Parsed extent = parse(scatterWrite(1, "view<1x3x4xi32>", "tile<4xi32>", "view<2x3x4xi32>"));
  ASSERT_EQ(extent.codes(), std::vector<std::string>{"LOWERING/061"});
  EXPECT_EQ(extent.param(0, "extent"), "2");
  EXPECT_EQ(extent.param(0, "lane_count"), "1");
  Parsed rank = parse(scatterWrite(2, "view<2x3x4xi32>", "tile<4xi32>", "view<2x1x3x4xi32>"));
  ASSERT_EQ(rank.codes(), std::vector<std::string>{"LOWERING/062"});
  EXPECT_EQ(rank.param(0, "rank"), "2");
  EXPECT_EQ(rank.param(0, "expected_rank"), "1");
  Parsed dims = parse(scatterWrite(2, "view<2x2x3x4xi32>", "tile<4xi32>", "view<2x3x2x4xi32>"));
  ASSERT_EQ(dims.codes(), std::vector<std::string>{"LOWERING/063"});
  EXPECT_EQ(dims.param(0, "dimension"), "0");
  EXPECT_EQ(dims.param(0, "extent"), "3");
  EXPECT_EQ(dims.param(0, "expected_extent"), "2");
}

TEST(LoomVerifier, TypeRules) {
  EXPECT_EQ(verifyCodes("func.def @f(%a: i32, %b: f32) {\n  %c = scalar.addi %a, %b : i32\n  func.return\n}\n"),
            std::vector<std::string>{"TYPE/003"});
  EXPECT_EQ(verifyCodes("func.def @f(%a: f32, %b: f32) {\n  %c = scalar.addi %a, %b : f32\n  func.return\n}\n"),
            std::vector<std::string>{"TYPE/003"});
  EXPECT_EQ(verifyCodes("func.def @f(%a: i32) {\n  %c = scalar.extsi %a : i32 to i16\n  func.return\n}\n"),
            std::vector<std::string>{"TYPE/004"});
  EXPECT_EQ(verifyCodes("func.def @f(%a: offset, %b: offset) {\n  %c = index.mul %a, %b : offset\n  func.return\n}\n"),
            std::vector<std::string>{"TYPE/003"});
  EXPECT_EQ(verifyCodes("func.def @f(%b: buffer) {\n  %z = index.constant 0 : offset\n"
                        "  %v = buffer.view %b[%z] : buffer -> view<4x4xf32>\n  %i = index.constant 0 : index\n"
                        "  %x = view.load %v[%i] : view<4x4xf32> -> f32\n  func.return\n}\n"),
            std::vector<std::string>{"SUBRANGE/001"});  // one index per view axis (upstream's code)
}

TEST(LoomVerifier, StructureAndSymbols) {
  EXPECT_EQ(verifyCodes("%c = index.constant 1 : index\n"), std::vector<std::string>{"STRUCTURE/011"});
  EXPECT_EQ(verifyCodes("func.def @f() {\n  %c = index.constant 1 : index\n}\n"),
            std::vector<std::string>{"STRUCTURE/018"});
  EXPECT_EQ(verifyCodes("func.def @f() {\n  %x = kernel.workitem.id<x> : index\n  func.return\n}\n"),
            std::vector<std::string>{"STRUCTURE/029"});
  EXPECT_EQ(verifyCodes("func.def @f() {\n  func.return\n  func.return\n}\n"),
            std::vector<std::string>{"STRUCTURE/003"});
  EXPECT_EQ(verifyCodes("func.def @f(%n: index) {\n  scf.for %i = [%n to %n step %n] {\n  ^b:\n    scf.yield\n  }\n  "
                        "func.return\n}\n"),
            std::vector<std::string>{"STRUCTURE/004"});
  EXPECT_EQ(verifyCodes("func.def @f() {\n  func.call @g() : () -> ()\n  func.return\n}\n"),
            std::vector<std::string>{"SYMBOL/002"});
  EXPECT_EQ(verifyCodes("target.decl @f\ntarget.decl @f\n"), std::vector<std::string>{"SYMBOL/005"});
  EXPECT_EQ(verifyCodes("target.decl @t\nfunc.def @f() {\n  %x = config.get @t : index\n  func.return\n}\n"),
            std::vector<std::string>{"SYMBOL/003"});
  EXPECT_EQ(verifyCodes("func.decl @g(%a: i32)\nfunc.def @f() {\n  func.call @g() : () -> ()\n  func.return\n}\n"),
            std::vector<std::string>{"SYMBOL/004"});
}

TEST(LoomVerifier, Dominance) {
  EXPECT_EQ(
      verifyCodes("func.def @f(%c: i1) -> (i32) {\n  cfg.cond_br %c, ^a, ^b\n^a:\n  %x = scalar.constant 1 : i32\n"
                  "  cfg.br ^b\n^b:\n  func.return %x : i32\n}\n"),
      std::vector<std::string>{"DOMINANCE/001"});
}

}  // namespace
}  // namespace hrx::loom::test
