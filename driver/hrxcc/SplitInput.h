// --split-input-file (MLIR's flag, Loom's loom-check convention): an input holds several cases
// separated by `// ====` (Loom) or `// -----` (MLIR) lines; each case is checked alone.
#pragma once

#include "Invocation.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::driver {

// One case of a split input: `text` is the whole input with every line outside the case left
// empty, so diagnostics keep the file's real line numbers. A `// ----` line inside a case (the
// loom-check input/expected separator) ends the case's input.
struct InputCase {
  unsigned number = 0;     // 1-based
  unsigned firstLine = 0;  // the case's first line in the file
  std::string text;
  std::optional<std::string> expected;  // the lines after `// ----`: the golden print
};
std::vector<InputCase> splitInputCases(std::string_view text);

// Runs -fsyntax-only, -verify or --emit=loom case by case over the Loom inputs. Returns the exit
// code (0 every case passed, 1 a case failed, 2 a usage problem).
int runSplitInputFile(const Invocation &inv);

}  // namespace hrx::driver
