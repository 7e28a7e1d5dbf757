// hrx-format-testgen DIR: writes the sample artifacts and reports of Samples.h into DIR for the
// lit tests of `hrx inspect` and `hrx report` (test/lit/hrx). Test-only; not installed.
#include "Samples.h"
#include "hrx/format/XdnaWriter.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

using namespace hrx::format;

namespace {

bool write(const std::string &path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  return bool(out.flush());
}
bool write(const std::string &path, const std::vector<uint8_t> &bytes) {
  return write(path, std::string_view(reinterpret_cast<const char *>(bytes.data()), bytes.size()));
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: hrx-format-testgen DIR\n";
    return 64;
  }
  std::string dir = argv[1];
  std::vector<uint8_t> image = samples::copyImageBytes();
  // A copy whose dynamic relocation names a NONE binding (the unused-middle-binding rule):
  // rewrite binding row 0 to all zeros. Binding rows start after the header, 2 allocations,
  // 2 uses and 1 entry.
  std::vector<uint8_t> unusedBinding = image;
  size_t metadata = size_t(image[56]) | size_t(image[57]) << 8 | size_t(image[58]) << 16 | size_t(image[59]) << 24;
  for (size_t i = 0; i < 40; ++i) unusedBinding[metadata + 64 + 2 * 32 + 2 * 4 + 48 + i] = 0;
  std::vector<uint8_t> truncated(image.begin(), image.begin() + 200);
  // A copy carrying hand-made AIE2P core code for tile (0,2) in a .hrx.aie2p.text.<col>.<row>
  // section (the hook `hrx inspect` disassembles; no compiler writes core code yet): upstream
  // Loom's 32-byte vector-add leaf.
  xdna::Image withCore = samples::copyImage();
  withCore.sections.push_back(
      {".hrx.aie2p.text.0.2",
       {0x3c, 0x68, 0x09, 0x72, 0x83, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x18, 0x00,
        0x28, 0x10, 0x00, 0x00, 0x78, 0x2d, 0x10, 0x18, 0x00, 0x00, 0x18, 0x13, 0x04, 0x0a, 0x00, 0x00},
       false});
  withCore.sections.push_back({".hrx.aie2p.text.0.3", {0x00, 0x80}, false});  // bits no instruction has
  bool ok = write(dir + "/copy.xdna", image) && write(dir + "/copy-noreport.xdna", samples::copyImageBytes(false)) &&
            write(dir + "/unused-binding.xdna", unusedBinding) &&
            write(dir + "/copy-core.xdna", xdna::writeImage(withCore).value()) &&
            write(dir + "/truncated.xdna", truncated) && write(dir + "/kernel.hsaco", samples::hsacoBytes()) &&
            write(dir + "/fat.bin", samples::fatBytes()) &&
            write(dir + "/gpu-before.json", samples::amdgpuReportJson(256, 8)) &&
            write(dir + "/gpu-after.json", samples::amdgpuReportJson(300, -1)) &&
            write(dir + "/gpu-other-compiler.json", samples::amdgpuReportJson(256, 8, "ffff")) &&
            write(dir + "/xdna-summary.json", samples::xdnaReportJson("summary", 512)) &&
            write(dir + "/xdna-summary-bigger.json", samples::xdnaReportJson("summary", 768)) &&
            write(dir + "/xdna-details.json", samples::xdnaReportJson("details", 512));
  if (!ok) {
    std::cerr << "hrx-format-testgen: cannot write into " << dir << "\n";
    return 1;
  }
  return 0;
}
