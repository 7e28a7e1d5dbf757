#include "FakeSysfs.h"

#include "hrx/runtime/Admission.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace hrx::runtime;
using hrx::StatusCode;
using hrx::test::FakeSysfs;

TEST(Admission, QualifiedNpu5IsAdmitted) {
  FakeSysfs sys;
  sys.addNpu("accel0", "0x1022", "0x17f0", "0x11", "amdxdna");
  auto npu = admitNpu(sys.root());
  ASSERT_TRUE(npu.isOk()) << npu.status().toString();
  EXPECT_EQ(npu->target, "amd.xdna.strix_halo.17f0_11");
  EXPECT_EQ(npu->identity.node, "accel0");
}

TEST(Admission, Npu4IsRefusedNamingFoundAndRequired) {
  FakeSysfs sys;
  sys.addNpu("accel0", "0x1022", "0x17f0", "0x10", "amdxdna");
  auto npu = admitNpu(sys.root());
  ASSERT_FALSE(npu.isOk());
  EXPECT_EQ(npu.status().code(), StatusCode::FailedPrecondition);
  EXPECT_EQ(npu.status().message(),
            "unqualified NPU accel0: found PCI 1022:17f0 revision 0x10 (NPU4, amd.xdna.strix.17f0_10) under driver "
            "amdxdna; required: PCI 1022:17f0 revision 0x11 (NPU5, amd.xdna.strix_halo.17f0_11) under driver amdxdna");
}

TEST(Admission, Npu6IsRefused) {
  FakeSysfs sys;
  sys.addNpu("accel0", "0x1022", "0x17f0", "0x20", "amdxdna");
  auto npu = admitNpu(sys.root());
  ASSERT_FALSE(npu.isOk());
  EXPECT_NE(npu.status().message().find("revision 0x20 (NPU6, amd.xdna.krackan.17f0_20)"), std::string::npos);
}

TEST(Admission, Npu5UnderAnotherDriverIsRefused) {
  FakeSysfs sys;
  sys.addNpu("accel0", "0x1022", "0x17f0", "0x11", nullptr);
  auto npu = admitNpu(sys.root());
  ASSERT_FALSE(npu.isOk());
  EXPECT_NE(npu.status().message().find("under driver (none)"), std::string::npos);
}

TEST(Admission, NoDevices) {
  FakeSysfs sys;
  auto npu = admitNpu(sys.root());
  ASSERT_FALSE(npu.isOk());
  EXPECT_EQ(npu.status().code(), StatusCode::Unavailable);
  EXPECT_NE(npu.status().message().find("no NPU found under " + sys.root() + "/class/accel"), std::string::npos);
  auto gpu = admitGpu(sys.root());
  ASSERT_FALSE(gpu.isOk());
  EXPECT_EQ(gpu.status().code(), StatusCode::Unavailable);
}

TEST(Admission, NpuIndexOutOfRange) {
  FakeSysfs sys;
  sys.addNpu("accel0", "0x1022", "0x17f0", "0x11", "amdxdna");
  auto npu = admitNpu(sys.root(), 1);
  ASSERT_FALSE(npu.isOk());
  EXPECT_EQ(npu.status().message(), "NPU index 1 is unavailable; 1 accel device(s) found");
}

TEST(Admission, Gfx1151IsAdmittedAndCpuNodesSkipped) {
  FakeSysfs sys;
  sys.addKfdNode("0", 0);
  sys.addKfdNode("1", 110501);
  auto gpu = admitGpu(sys.root());
  ASSERT_TRUE(gpu.isOk()) << gpu.status().toString();
  EXPECT_EQ(gpu->target, "gfx1151");
  EXPECT_EQ(gpu->identity.node, "1");
}

TEST(Admission, Gfx1100IsRefused) {
  FakeSysfs sys;
  sys.addKfdNode("1", 110000);
  auto gpu = admitGpu(sys.root());
  ASSERT_FALSE(gpu.isOk());
  EXPECT_EQ(gpu.status().code(), StatusCode::FailedPrecondition);
  EXPECT_EQ(gpu.status().message(), "unqualified GPU at KFD node 1: found gfx1100 (gfx_target_version 110000); "
                                    "required: gfx1151 (KFD gfx_target_version 110501)");
}

TEST(Admission, GfxTargetNames) {
  EXPECT_EQ((GpuIdentity{"1", 90010}.target()), "gfx90a");
  EXPECT_EQ((GpuIdentity{"1", 110502}.target()), "gfx1152");
}

TEST(Admission, SysfsRootFollowsEnvironment) {
  setenv("HRX_SYSFS_ROOT", "/tmp/some-root", 1);
  EXPECT_EQ(sysfsRoot(), "/tmp/some-root");
  unsetenv("HRX_SYSFS_ROOT");
  EXPECT_EQ(sysfsRoot(), "/sys");
}

TEST(Admission, NativeLibraryLookup) {
  FakeSysfs home;  // an empty directory to serve as HOME
  setenv("HOME", home.root().c_str(), 1);
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HRX_RUNTIME_DIR");
  unsetenv("HRX_AMDF_LIBRARY");
  auto missing = findNativeLibrary();
  ASSERT_FALSE(missing.isOk());
  EXPECT_EQ(missing.status().code(), StatusCode::Unavailable);
  EXPECT_NE(missing.status().message().find("run `hrx prepare`"), std::string::npos);

  setenv("HRX_AMDF_LIBRARY", "/nonexistent/libamdf.so", 1);
  auto bad = findNativeLibrary();
  ASSERT_FALSE(bad.isOk());
  EXPECT_EQ(bad.status().message(), "HRX_AMDF_LIBRARY names /nonexistent/libamdf.so, which does not exist");
  unsetenv("HRX_AMDF_LIBRARY");

  std::filesystem::create_directories(home.root() + "/.cache/hrx/runtime/abc");
  std::ofstream(home.root() + "/.cache/hrx/runtime/abc/manifest.json") << "{}";
  std::ofstream(home.root() + "/.cache/hrx/runtime/abc/libamdf.so") << "";
  auto found = findNativeLibrary();
  ASSERT_TRUE(found.isOk()) << found.status().toString();
  EXPECT_EQ(*found, home.root() + "/.cache/hrx/runtime/abc/libamdf.so");
}
