// [[loom::assume_aligned(N)]] states a pointer parameter's alignment (Clang's align_value): the
// parameter carries `align N` on every target. N must be a power-of-two constant and the
// parameter a pointer (CXX/018, located at the attribute).
// RUN: %hrxcc -target host %s --emit=llvm -o - | FileCheck %s --check-prefix=HOST
// RUN: %hrxcc --offload-arch=gfx1151 %s --emit=llvm -o - | FileCheck %s --check-prefix=GPU
// RUN: not %hrxcc -target host -DBAD %s --emit=llvm -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// HOST: define {{.*}}void @copy_aligned(ptr noundef align 64 %{{.*}}, ptr noundef align 64 %{{.*}})
// GPU: define protected amdgpu_kernel void @copy_aligned(ptr noundef align 64 %{{.*}}, ptr noundef align 64 %{{.*}})

[[loom::kernel, loom::workgroup_size(1, 1, 1), loom::workgroup_count(1, 1, 1)]]
void copy_aligned([[loom::assume_aligned(64)]] const unsigned *input, [[loom::assume_aligned(64)]] unsigned *output) {
  for (int i = 0; i < 16; ++i) output[i] = input[i];
}

#ifdef BAD
// BAD: assume-aligned.cpp:[[@LINE+2]]:50: error: 'loom::assume_aligned' needs one power-of-two integer constant [CXX/018]
// BAD: assume-aligned.cpp:[[@LINE+1]]:70: error: 'loom::assume_aligned' applies to a pointer parameter [CXX/018]
[[loom::kernel]] void bad([[loom::assume_aligned(3)]] unsigned *p, [[loom::assume_aligned(8)]] int n) { p[0] = n; }
#endif
