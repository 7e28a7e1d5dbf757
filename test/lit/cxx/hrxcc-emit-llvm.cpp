// hrxcc checks and emits a C/C++ translation unit on its own: the LLVM IR is the imported module
// for the requested target (no link, so no export is needed).
// RUN: %hrxcc -fsyntax-only %s
// RUN: %hrxcc --emit=llvm -target host %s -o - | FileCheck %s --check-prefix=HOST
// RUN: %hrxcc --emit=llvm --offload-arch=gfx1151 %s -o - | FileCheck %s --check-prefix=GFX
// HOST: target triple = "x86_64
// HOST: define {{.*}}void @scale_record(ptr {{.*}}, ptr {{.*}})
// GFX: target triple = "amdgcn-amd-amdhsa"
// GFX: define {{.*}}void @scale_record(ptr {{.*}}, ptr {{.*}})
#include <stdint.h>

extern "C" void scale_record(const int32_t *input, int32_t *output) {
  for (int i = 0; i < 16; ++i) output[i] = input[i] * 3;
}
