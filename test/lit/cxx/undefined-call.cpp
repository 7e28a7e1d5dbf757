// A call to a function no unit defines (a host library function here) is CXX/009, from the
// importer alone and from hrxcc, which resolves calls across every unit it links.
// RUN: hrx-cxx-import -verify --target=host %s
// RUN: %hrxcc -fsyntax-only -verify -target host %s

extern "C" int puts(const char *);

extern "C" int greet() {
  return puts("hi");  // expected-error {{call to 'puts', which is defined neither in this translation unit nor by hrx}}
}
