// The AMDGPU code object's .hrx.manifest and .hrx.launch readers (hrx/format/AmdgpuManifest.h):
// an accepted manifest keeps the invariants the runtime's kernarg packing relies on (arguments
// in order inside the kernarg segment, binding and constant counts that match them, extents
// naming a buffer and a 4- or 8-byte value argument, names and symbols found again). The
// manifest is written by the AMDGPU backend only (no format writer), so there is no round trip.
#include "hrx/format/AmdgpuManifest.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace {

using namespace hrx::format;

void checkExport(const AmdgpuManifest &manifest, const AmdgpuExport &e) {
  if (manifest.find(e.name) != &e) std::abort();
  uint64_t end = 0, buffers = 0, constants = 0;
  for (size_t i = 0; i < e.arguments.size(); ++i) {
    const LaunchArgument &a = e.arguments[i];
    if (a.size == 0 || a.offset < end || a.offset + a.size > e.kernargBytes) std::abort();
    if (a.kind == LaunchArgumentKind::Buffer && (a.size != 8 || (a.type && *a.type != ScalarType::Pointer)))
      std::abort();
    if (a.type && scalarTypeBytes(*a.type) != a.size) std::abort();
    end = a.offset + a.size;
    (a.kind == LaunchArgumentKind::Buffer ? buffers : constants) += a.kind == LaunchArgumentKind::Buffer ? 1 : a.size;
    (void)describeLaunchArgument(e.arguments, i);
  }
  if (buffers != e.bindingCount || constants != e.constantBytes) std::abort();
  // The constants block of a dispatch, all zero (each extent needs its base bytes exactly) and
  // all ones (the product may overflow: then nullopt, never a wrong number).
  if (e.constantBytes > (1u << 16)) return;
  std::vector<uint8_t> zeros(e.constantBytes, 0), ones(e.constantBytes, 0xff);
  for (const LaunchExtent &x : e.extents) {
    if (x.buffer >= e.arguments.size() || e.arguments[x.buffer].kind != LaunchArgumentKind::Buffer) std::abort();
    if (x.argument >= e.arguments.size() || e.arguments[x.argument].kind != LaunchArgumentKind::Value) std::abort();
    uint64_t unitBytes = e.arguments[x.argument].size;
    if ((unitBytes != 4 && unitBytes != 8) || x.bytesPerUnit == 0) std::abort();
    if (requiredExtentBytes(x, e.arguments, zeros) != x.baseBytes) std::abort();
    uint64_t units = unitBytes == 8 ? UINT64_MAX : UINT32_MAX, bytes = 0;
    bool overflows =
        __builtin_mul_overflow(units, x.bytesPerUnit, &bytes) || __builtin_add_overflow(bytes, x.baseBytes, &bytes);
    auto required = requiredExtentBytes(x, e.arguments, ones);
    if (overflows ? required.has_value() : required != bytes) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  auto manifest = readAmdgpuManifest(text);
  if (manifest.isOk()) {
    for (const AmdgpuExport &e : manifest.value().exports) checkExport(manifest.value(), e);
    for (const DeviceGlobal &g : manifest.value().globals) {
      if (g.name.empty() || g.count == 0 || g.bytes == 0 || manifest.value().findGlobal(g.symbol) != &g) std::abort();
      if (g.element && g.bytes != g.count * scalarTypeBytes(*g.element)) std::abort();
    }
  }
  auto launches = readAmdgpuLaunches(text);
  if (launches.isOk())
    for (const AmdgpuLaunch &launch : launches.value())
      if (launch.evaluator != "hrx.launch." + launch.symbol || launch.symbol.empty()) std::abort();
  if (manifest.isOk() && launches.isOk()) (void)checkManifestAgainstLaunches(manifest.value(), launches.value());
  return 0;
}
