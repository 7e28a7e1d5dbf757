// GPU-specific checks: float atomic max on coherent memory, launch attributes, kernel shape.
// The same code is fine for the GPU where NPU-only restrictions would reject it.
// RUN: hrx-cxx-import -verify --target=gfx1151 %s
// RUN: %hrxcc -fsyntax-only -verify --offload-arch=gfx1151 %s

#include <hrx/kernel.h>

void accumulate(float *maximum, float value) {
  __atomic_fetch_max(maximum, value, __ATOMIC_RELAXED);  // expected-warning {{floating-point atomic max does not update coherent memory on gfx1151}}
  hrx_atomic_max_f32(maximum, value);  // the integer compare/exchange loop: fine
}

int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

[[loom::kernel, loom::workgroup_size(0, 1, 1)]] void empty() {}  // expected-error {{'loom::workgroup_size' needs three positive integer constants}}

[[loom::kernel]] int value() { return 1; }  // expected-error {{kernel 'value' must return void}}

[[loom::kernel, loom::workgroup_count(4, 1)]] void two() {}  // expected-error {{'loom::workgroup_count' attribute requires exactly 3 arguments}}

[[gnu::workgroup_size(1, 1, 1)]] void unscoped() {}  // expected-warning {{unknown attribute 'gnu::workgroup_size' ignored}}
