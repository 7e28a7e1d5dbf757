// HRX_RUNTIME_API marks what libhrx-runtime.so exports: the library is built with hidden
// visibility, so a declaration without it stays inside the library (docs/runtime.md,
// "What the library exports"; test/lit/runtime/exported-symbols.test checks the list).
#pragma once

#define HRX_RUNTIME_API __attribute__((visibility("default")))
