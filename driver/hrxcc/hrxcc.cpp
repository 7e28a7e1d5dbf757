// hrxcc: the compiler driver.
#include "hrx/Compiler.h"
#include "hrx/Version.h"

#include <cstring>
#include <iostream>
#include <string_view>

namespace {

void printVersion() {
  hrx::CompilerIdentity id = hrx::compilerIdentity();
  std::cout << "hrxcc version " << id.version << " (LLVM " << id.llvmVersion << ", Clang "
            << id.clangVersion << ")\n"
            << "Targets: " << HRX_SUPPORTED_TARGETS << "\n";
}

void printHelp() {
  std::cout << "OVERVIEW: hrx compiler driver for Strix Halo (XDNA2 NPU5 and gfx1151)\n\n"
               "USAGE: hrxcc [options] <inputs: .loom .c .cpp .cc .cxx>\n\n"
               "OPTIONS:\n"
               "  --help      Display available options\n"
               "  --version   Print version information\n";
}

}  // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--version") {
      printVersion();
      return 0;
    }
    if (arg == "--help" || arg == "-help") {
      printHelp();
      return 0;
    }
  }
  std::cerr << "hrxcc: error: compilation is not implemented yet\n";
  return 1;
}
