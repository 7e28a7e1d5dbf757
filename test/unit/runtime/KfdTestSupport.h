// Shared by the KFD tests: the example code objects (built by examples/CMakeLists.txt) and a
// fake sysfs tree with a Strix Halo KFD topology, installed as HRX_SYSFS_ROOT together with
// HRX_KFD=emulated before any test runs.
#pragma once

#include "hrx/format/Artifact.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

namespace hrx::test {

inline std::vector<uint8_t> readBinary(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), {});
}

// The gfx1151 node the lit tests' make-gfx1151-sysfs.sh writes (docs/runtime.md lists them).
inline std::string makeKfdSysfs() {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("hrx-kfd-sysfs-" + std::to_string(::getpid()));
  fs::path nodes = root / "class/kfd/kfd/topology/nodes";
  fs::create_directories(nodes / "0");
  fs::create_directories(nodes / "1");
  std::ofstream(nodes / "0/properties") << "cpu_cores_count 16\nsimd_count 0\ngfx_target_version 0\n";
  std::ofstream(nodes / "0/gpu_id") << "0\n";
  std::ofstream(nodes / "1/properties")
      << "cpu_cores_count 0\nsimd_count 80\nmax_waves_per_simd 16\nlds_size_in_kb 64\nwave_front_size 32\n"
         "array_count 4\nsimd_arrays_per_engine 2\ncu_per_simd_array 10\nsimd_per_cu 2\nmax_slots_scratch_cu 32\n"
         "gfx_target_version 110501\nvendor_id 4098\ndevice_id 5510\ndrm_render_minor 128\nnum_xcc 1\n";
  std::ofstream(nodes / "1/gpu_id") << "52565\n";
  return root.string();
}

inline const std::string &kfdSysfsRoot() {
  // Leaked: the exit handler that removes the tree runs after static destructors would have.
  static const std::string *root = [] {
    auto *r = new std::string(makeKfdSysfs());
    ::setenv("HRX_SYSFS_ROOT", r->c_str(), 1);
    ::setenv("HRX_KFD", "emulated", 1);
    std::atexit([] { std::filesystem::remove_all(kfdSysfsRoot()); });
    return r;
  }();
  return *root;
}
// Installed before main, so every runtime call sees the fake tree and the emulator.
inline const bool kKfdEnvironment = !kfdSysfsRoot().empty();

struct ExampleKernels {
  std::vector<uint8_t> affineBytes, elementwiseBytes;
  format::Artifact affine, elementwise;
  static const ExampleKernels &get() {
    static const ExampleKernels *examples = [] {
      auto *e = new ExampleKernels;
      e->affineBytes = readBinary(HRX_TEST_AFFINE_HSACO);
      e->elementwiseBytes = readBinary(HRX_TEST_ELEMENTWISE_HSACO);
      e->affine = std::move(format::readArtifact(e->affineBytes)).value();
      e->elementwise = std::move(format::readArtifact(e->elementwiseBytes)).value();
      return e;
    }();
    return *examples;
  }
};

}  // namespace hrx::test
