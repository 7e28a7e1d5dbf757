// hrx check FILE...: runs the Loom check programs of .loom files (docs/hrx.md "hrx check").
#pragma once

#include <string>
#include <vector>

namespace hrx::tool {

struct CheckCommand {
  std::vector<std::string> files;
  std::string target;  // a target spelling hrxcc takes (empty: the host reference target)
  std::string filter;
  std::string format = "text";  // text | json
  unsigned jobs = 1;
  unsigned repetitions = 20;  // check.benchmark samples
  bool list = false;
  std::vector<std::string> configs;      // --config KEY=VALUE, passed to hrxcc
  std::vector<std::string> configFiles;  // --config-file FILE (JSON/JSONC), passed to hrxcc
  std::vector<std::string> links;    // --link FILE: more sources of the code under test
};

// Exit code: 0 every case passed or was skipped, 1 a case failed or a file could not be read.
int checkFiles(const CheckCommand &command);

}  // namespace hrx::tool
