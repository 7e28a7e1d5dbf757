// hrx-run: load an artifact and run one entry on a device.
#include "hrx/Version.h"
#include "hrx/runtime/Runtime.h"

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char **argv) {
  CLI::App app{"hrx-run: load an hrx artifact (.xdna, .hsaco, fat) and run one entry"};
  app.set_version_flag("--version",
                       std::string("hrx-run version ") + hrx::runtime::version() +
                           " (artifacts from hrxcc on LLVM " HRX_LLVM_VERSION_STRING ")\nTargets: " HRX_SUPPORTED_TARGETS);
  std::string artifact;
  app.add_option("artifact", artifact, "Artifact to load");
  CLI11_PARSE(app, argc, argv);
  std::cerr << "hrx-run: error: running artifacts is not implemented yet\n";
  return 1;
}
