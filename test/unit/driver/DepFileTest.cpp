#include "DepFile.h"

#include <gtest/gtest.h>

namespace hrx::driver {
namespace {

TEST(DepFile, Escaping) {
  EXPECT_EQ(escapeMakeTarget("a b.loom"), "a\\ b.loom");
  EXPECT_EQ(escapeMakeTarget("cost$1.loom"), "cost$$1.loom");
  EXPECT_EQ(escapeMakeTarget("no#te.h"), "no\\#te.h");
}

TEST(DepFile, Render) {
  EXPECT_EQ(renderDepFile({"a.xdna"}, {"p.loom", "w.h"}, false), "a.xdna: \\\n  p.loom \\\n  w.h\n");
  EXPECT_EQ(renderDepFile({"x", "y"}, {"p.loom", "w.h"}, true), "x y: \\\n  p.loom \\\n  w.h\n\nw.h:\n");
}

TEST(DepFile, DefaultPath) {
  EXPECT_EQ(defaultDepFilePath("a.xdna"), "a.d");
  EXPECT_EQ(defaultDepFilePath("out/k.hsaco"), "out/k.d");
  EXPECT_EQ(defaultDepFilePath("noext"), "noext.d");
}

}  // namespace
}  // namespace hrx::driver
