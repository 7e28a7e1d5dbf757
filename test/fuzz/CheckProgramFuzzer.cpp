// Fuzzes hrx check's program discovery and evaluator (loom-bridge/check): the input is a .loom
// file; its check definitions are found, the code under test is derived, and every case runs
// with a compiler that always refuses, so generators and expectations run up to the first
// launch. Any input must end in results, never a crash, hang or sanitizer report.
#include "hrx/check/Check.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace hrx;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  check::CheckFile file = check::discoverChecks("fuzz.loom", std::string(reinterpret_cast<const char *>(data), size));
  std::string code = check::codeUnderTest(file);
  check::RunOptions options;
  options.benchmarkRepetitions = 1;
  (void)check::listChecks(file, options);
  auto refuse = [](const std::string &, const std::string &, const check::RunTarget &, const std::string &,
                   const std::map<std::string, std::string> &) -> StatusOr<std::vector<uint8_t>> {
    return Status(StatusCode::InvalidArgument, "not compiled while fuzzing");
  };
  (void)check::runChecks(file, options, refuse);
  return code.size() >= file.text.size() ? 0 : 1;
}
