// Builds fake sysfs trees (HRX_SYSFS_ROOT layout) for admission tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <string>

namespace hrx::test {

class FakeSysfs {
public:
  FakeSysfs() {
    root_ = std::filesystem::temp_directory_path() /
            ("hrx-sysfs-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    std::filesystem::create_directories(root_);
  }
  ~FakeSysfs() { std::filesystem::remove_all(root_); }
  std::string root() const { return root_.string(); }

  void addNpu(const std::string &node, const char *vendor, const char *device, const char *revision,
              const char *driver) {
    auto dir = root_ / "class" / "accel" / node / "device";
    std::filesystem::create_directories(dir);
    write(dir / "vendor", vendor);
    write(dir / "device", device);
    write(dir / "revision", revision);
    if (driver)
      std::filesystem::create_directory_symlink(std::string("../../../../bus/pci/drivers/") + driver, dir / "driver");
  }
  void addKfdNode(const std::string &node, uint32_t gfxTargetVersion) {
    auto dir = root_ / "class/kfd/kfd/topology/nodes" / node;
    std::filesystem::create_directories(dir);
    write(dir / "properties", "cpu_cores_count 0\nsimd_count 80\ngfx_target_version " +
                                  std::to_string(gfxTargetVersion) + "\nvendor_id 4098\n");
  }

private:
  static void write(const std::filesystem::path &path, const std::string &text) { std::ofstream(path) << text << "\n"; }
  static int &counter() {
    static int n = 0;
    return n;
  }
  std::filesystem::path root_;
};

}  // namespace hrx::test
