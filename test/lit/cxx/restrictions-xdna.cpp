// NPU worker restrictions: no recursion, no virtual calls, no calls through function pointers,
// no GPU kernels; RTTI and allocation stay forbidden.
// RUN: hrx-cxx-import -verify --target=xdna-worker %s
// RUN: %hrxcc -fsyntax-only -verify -target xdna %s

int fact(int n) {
  return n <= 1 ? 1 : n * fact(n - 1);  // expected-error {{recursion is not supported in NPU workers: 'fact' calls itself}}
}

int odd(int);
int even(int n) {
  return n == 0 ? 1 : odd(n - 1);  // expected-error {{recursion is not supported in NPU workers: 'even' calls itself through 'odd'}}
}
int odd(int n) { return n == 0 ? 0 : even(n - 1); }

struct Filter {
  virtual int apply(int x) { return x; }
};
struct Fixed final : Filter {
  int apply(int x) override { return x + 1; }
};

int run(Filter &f, Fixed &g, int (*fn)(int)) {
  int a = f.apply(1);          // expected-error {{virtual call to 'Filter::apply' is not supported in NPU workers}}
  int b = g.apply(2) + f.Filter::apply(3);  // final class and qualified call: direct
  return a + b + fn(4);        // expected-error {{call through a function pointer is not supported in NPU workers}}
}

Fixed *cast(Filter *f) {
  return dynamic_cast<Fixed *>(f);  // expected-error {{run-time type information is not supported on xdna-worker: 'dynamic_cast'}}
}

[[loom::kernel]] void kernel() {}  // expected-error {{kernel 'kernel' cannot be compiled for an NPU worker}}

// Recursion through templates and self-calling lambdas is found per instantiation; code shared by
// several instantiations is reported once.
template <class T> T tfact(T n) {
  return n <= 1 ? 1 : n * tfact(n - 1);  // expected-error {{recursion is not supported in NPU workers: 'tfact' calls itself}}
}
int useTemplates() { return tfact(4) + tfact(4L); }

template <int N> int depth() { return depth<N - 1>() + 1; }  // distinct functions: no recursion
template <> int depth<0>() { return 0; }
int useDepth() { return depth<3>(); }

int viaLambda(int n) {
  auto self = [](this auto const &self, int k) -> int {
    return k <= 1 ? 1 : k * self(k - 1);  // expected-error {{recursion is not supported in NPU workers: 'lambda' calls itself}}
  };
  auto twice = [](auto x) { return x * 2; };
  return self(n) + twice(1) + twice(2L);
}
