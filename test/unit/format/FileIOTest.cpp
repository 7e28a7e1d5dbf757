// hrx::io: every read and write failure is a Status naming the path and the reason; writes
// replace the destination whole. Also the .hrx.manifest "extents" of buffer arguments.
#include "hrx/format/AmdgpuManifest.h"
#include "hrx/format/FileIO.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

using namespace hrx;

namespace {

class FileIO : public ::testing::Test {
protected:
  void SetUp() override {
    char pattern[] = "/tmp/hrx-fileio-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { ASSERT_EQ(std::system(("rm -rf " + dir_).c_str()), 0); }
  std::string path(const std::string &name) const { return dir_ + "/" + name; }
  std::string dir_;
};

TEST_F(FileIO, ReadsRegularFiles) {
  std::ofstream(path("a.bin"), std::ios::binary) << "hello";
  auto bytes = io::readFile(path("a.bin"));
  ASSERT_TRUE(bytes.isOk()) << bytes.status().message();
  EXPECT_EQ(std::string(bytes->begin(), bytes->end()), "hello");
  auto empty = io::readFile(path("empty"));
  EXPECT_EQ(empty.status().message(), "cannot read '" + path("empty") + "': No such file or directory");
}

TEST_F(FileIO, RefusesWhatIsNotARegularFile) {
  EXPECT_EQ(io::readFile(dir_).status().message(), "cannot read '" + dir_ + "': it is a directory");
  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
  EXPECT_EQ(io::readFile(path("fifo")).status().message(),
            "cannot read '" + path("fifo") + "': it is a FIFO (named pipe), not a regular file");
  EXPECT_EQ(io::readFile("/dev/null").status().message(),
            "cannot read '/dev/null': it is a device, not a regular file");
  EXPECT_EQ(io::failureReason(io::readFile(dir_).status(), dir_), "it is a directory");
}

TEST_F(FileIO, RefusesFilesOverTheLimit) {
  std::ofstream(path("big"), std::ios::binary) << std::string(100, 'x');
  EXPECT_EQ(io::readFile(path("big"), 99).status().message(),
            "cannot read '" + path("big") + "': it holds 100 bytes, more than the 99-byte limit");
  EXPECT_TRUE(io::readFile(path("big"), 100).isOk());
}

TEST_F(FileIO, WritesReplaceTheDestinationWhole) {
  ASSERT_TRUE(io::writeFileAtomically(path("out"), std::string_view("first version")).isOk());
  ASSERT_TRUE(io::writeFileAtomically(path("out"), std::string_view("second")).isOk());
  auto text = io::readTextFile(path("out"));
  ASSERT_TRUE(text.isOk());
  EXPECT_EQ(*text, "second");
  struct stat st;
  ASSERT_EQ(stat(path("out").c_str(), &st), 0);
  mode_t mask = umask(0);
  umask(mask);
  EXPECT_EQ(st.st_mode & 0777, 0666u & ~mask);
  // Nothing but the destination is left in the directory.
  EXPECT_EQ(std::system(("test $(ls -A " + dir_ + " | wc -l) -eq 1").c_str()), 0);
}

TEST_F(FileIO, WriteFailuresNameThePath) {
  EXPECT_EQ(io::writeFileAtomically(dir_, std::string_view("x")).message(),
            "cannot write '" + dir_ + "': it is a directory");
  std::string missing = path("no/such/file");
  EXPECT_EQ(io::writeFileAtomically(missing, std::string_view("x")).message(),
            "cannot write '" + missing + "': No such file or directory (creating a temporary file beside it)");
  // Devices are written in place.
  EXPECT_TRUE(io::writeFileAtomically("/dev/null", std::string_view("x")).isOk());
}

// launch(%n: index, %delta: f32, %y: buffer) with %y sized view<[%n]xf32>.
const char *kManifest =
    R"({"schema_version":1,"target":"gfx1151","code_object_version":5,"processor_mode":"wgp","exports":[)"
    R"({"name":"add_delta","kernarg_bytes":24,"arguments":[{"offset":0,"size":8,"kind":"value"},)"
    R"({"offset":8,"size":4,"kind":"value"},{"offset":16,"size":8,"kind":"buffer",)"
    R"("extents":[{"argument":ARG,"bytes_per_unit":4,"base_bytes":16}]}],"binding_count":1,"constant_bytes":12,)"
    R"("lds_bytes":0,"private_bytes":0,"wavefront_size":32,"max_flat_workgroup_size":128,)"
    R"("resources":{"code_bytes":256,"vgpr_count":4,"sgpr_count":12,"vgpr_spill_count":0,)"
    R"("sgpr_spill_count":0,"occupancy_waves_per_simd":16,"workgroup_processor_mode":null}}]})";

std::string manifestWith(const std::string &argument) {
  std::string text = kManifest;
  text.replace(text.find("ARG"), 3, argument);
  return text;
}

TEST(ManifestExtents, ReadAndEvaluated) {
  auto m = format::readAmdgpuManifest(manifestWith("0"));
  ASSERT_TRUE(m.isOk()) << m.status().message();
  const format::AmdgpuExport &e = m->exports[0];
  ASSERT_EQ(e.extents.size(), 1u);
  EXPECT_EQ(e.extents[0], (format::LaunchExtent{2, 0, 4, 16}));
  std::vector<uint8_t> constants = {10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(format::requiredExtentBytes(e.extents[0], e.arguments, constants), 56u);
  constants = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
  EXPECT_EQ(format::requiredExtentBytes(e.extents[0], e.arguments, constants), std::nullopt);  // overflows
  EXPECT_EQ(format::requiredExtentBytes(e.extents[0], e.arguments, std::span<const uint8_t>()), std::nullopt);
}

TEST(ManifestExtents, NameAValueArgument) {
  EXPECT_NE(
      format::readAmdgpuManifest(manifestWith("2")).status().message().find("is not a 4- or 8-byte value argument"),
      std::string::npos);
  EXPECT_NE(
      format::readAmdgpuManifest(manifestWith("9")).status().message().find("is not a 4- or 8-byte value argument"),
      std::string::npos);
}

}  // namespace
