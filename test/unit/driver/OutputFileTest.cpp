#include "OutputFile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace hrx::driver {
namespace {

namespace fs = std::filesystem;

class OutputSetTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hrxcc-out-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const char *name) { return (dir_ / name).string(); }
  static std::string read(const std::string &p) {
    std::stringstream s;
    s << std::ifstream(p).rdbuf();
    return s.str();
  }
  size_t fileCount() {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
  fs::path dir_;
};

const std::vector<uint8_t> kBytes{'h', 'i'};

TEST_F(OutputSetTest, NothingAppearsBeforeCommit) {
  OutputSet out;
  std::string error, failed;
  ASSERT_TRUE(out.stage(path("a.xdna"), kBytes, error)) << error;
  EXPECT_FALSE(fs::exists(path("a.xdna")));
  ASSERT_TRUE(out.commit(failed, error)) << error;
  EXPECT_EQ(read(path("a.xdna")), "hi");
  EXPECT_EQ(fileCount(), 1u);  // no temporary left
}

TEST_F(OutputSetTest, DiscardRemovesTemporariesAndStaleOutputs) {
  std::ofstream(path("a.xdna")) << "stale";
  std::ofstream(path("a.d")) << "stale";
  {
    OutputSet out;
    std::string error;
    out.expect(path("a.d"));
    ASSERT_TRUE(out.stage(path("a.xdna"), kBytes, error)) << error;
    out.discard();
  }
  EXPECT_EQ(fileCount(), 0u);
}

TEST_F(OutputSetTest, DestructionWithoutCommitLeavesNoTemporary) {
  {
    OutputSet out;
    std::string error;
    ASSERT_TRUE(out.stage(path("a.xdna"), kBytes, error)) << error;
  }
  EXPECT_EQ(fileCount(), 0u);
}

TEST_F(OutputSetTest, UnwritableDirectoryIsAnError) {
  OutputSet out;
  std::string error;
  EXPECT_FALSE(out.stage(path("missing/a.xdna"), kBytes, error));
  EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace hrx::driver
