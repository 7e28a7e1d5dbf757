// The compiler library API (mirrors hrx-rs's loom::Compiler). hrxcc is a thin client of it.
#pragma once

#include <string>

namespace hrx {

// Identity of this compiler build, part of every artifact and report.
struct CompilerIdentity {
  std::string name;          // "hrxcc"
  std::string version;       // "0.1.0"
  std::string llvmVersion;   // "22.1.8"
  std::string clangVersion;  // "22.1.8"
};
CompilerIdentity compilerIdentity();

}  // namespace hrx
