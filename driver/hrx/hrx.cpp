// hrx: prepare, doctor, report show|diff, inspect, info, gc.
#include "hrx/Version.h"
#include "hrx/runtime/Runtime.h"

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char **argv) {
  CLI::App app{"hrx: set up, check and inspect the hrx toolchain and its artifacts"};
  app.set_version_flag("--version",
                       std::string("hrx version ") + hrx::runtime::version() +
                           " (artifacts from hrxcc on LLVM " HRX_LLVM_VERSION_STRING ")\nTargets: " HRX_SUPPORTED_TARGETS);
  app.require_subcommand(0, 1);
  CLI11_PARSE(app, argc, argv);
  if (argc == 1) {
    std::cout << app.help();
    return 0;
  }
  return 0;
}
