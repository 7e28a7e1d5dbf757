// No host include search: <stdio.h> is not found although the host has it, in hrxcc too.
// RUN: %hrxcc -fsyntax-only -verify -target host %s
// RUN: not %hrxcc -fsyntax-only -target host %s 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: not %hrxcc -fsyntax-only -target host -fdiagnostics-format=json %s 2>&1 | FileCheck %s --check-prefix=JSON
// RUN: not %hrxcc -fsyntax-only -target host -fdiagnostics-format=sarif %s 2>&1 | FileCheck %s --check-prefix=SARIF
// TEXT: host-headers.cpp:[[@LINE+4]]:10: fatal error: 'stdio.h' file not found
// JSON: "message": "'stdio.h' file not found"
// SARIF: "text": "'stdio.h' file not found"
#include <stdint.h>
#include <stdio.h>  // expected-error {{'stdio.h' file not found}}
