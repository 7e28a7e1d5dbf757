// The loadable code object reader (PT_LOAD segments, NT_AMDGPU_METADATA msgpack, kernel
// descriptors, relocations): whatever it accepts must lay out into an image of imageBytes with
// every kernel descriptor inside it.
#include "hrx/format/AmdgpuCodeObject.h"

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto object = hrx::format::readAmdgpuCodeObject({data, size});
  if (!object.isOk()) return 0;
  std::vector<uint8_t> image(object->imageBytes);
  object->loadImage({data, size}, 0x7f0000000000ull, image);
  for (const hrx::format::CodeObjectKernel &k : object->kernels) {
    if (k.descriptorAddress + hrx::format::kKernelDescriptorBytes > image.size()) __builtin_trap();
    for (const hrx::format::KernargField &f : k.args)
      if (f.offset + f.size > k.kernargSegmentSize) __builtin_trap();
  }
  return 0;
}
