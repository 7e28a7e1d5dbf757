// Restrictions that hold on every target, checked on the host reference device.
// RUN: hrx-cxx-import -verify --target=host %s

namespace std { class type_info; }
struct Shape { virtual ~Shape(); };
void *operator new(decltype(sizeof 0));
void operator delete(void *) noexcept;
extern "C" void *malloc(decltype(sizeof 0));
extern "C" int puts(const char *);

int fail(int x) {
  if (x) throw x;  // expected-error {{exceptions are not supported on host: 'throw'}}
  try {            // expected-error {{exceptions are not supported on host: 'try'}}
  } catch (...) {
  }
  return 0;
}

bool rtti(Shape &s) {
  return &typeid(s) != nullptr;  // expected-error {{run-time type information is not supported on host: 'typeid'}}
}

int *allocate() {
  int *p = new int(3);         // expected-error {{dynamic memory allocation is not supported on host: 'new'}}
  delete p;                    // expected-error {{dynamic memory allocation is not supported on host: 'delete'}}
  return (int *)malloc(16);    // expected-error {{dynamic memory allocation is not supported on host: 'malloc'}}
}

thread_local int counter;      // expected-error {{thread_local variable 'counter' is not supported on host}}

int sum(int n, ...) {          // expected-error {{C variadic function 'sum' is not supported on host}}
  return n;
}

int greet() {
  return puts("hi");           // expected-error {{call to 'puts', which is defined neither in this translation unit nor by hrx}}
}

void spin() {
  asm volatile("pause");       // expected-error {{inline assembly is not supported on host}}
}
