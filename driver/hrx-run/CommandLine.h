// hrx-run's command-line errors in its own words: what the flag expects and what was given,
// instead of the parser library's phrasing ("At Most 1 required but received 2").
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace hrx::run {

// The message for a parse error of `app` on argv (not for --help/--version).
std::string explainParseError(const CLI::App &app, const CLI::ParseError &error, int argc, char **argv);

// IREE's empty values, which the parser would otherwise read as "take the next argument":
// `--entry=` and `--function=` (the first entry, the default) are dropped, `--output=` (skip a
// binding) becomes `--output=` + kSkipOutput. The result owns the strings `argv` points into.
inline constexpr const char *kSkipOutput = "\x1f(skip)";
struct Arguments {
  std::vector<std::string> strings;
  std::vector<char *> argv;
  int argc() const { return static_cast<int>(argv.size()); }
};
Arguments withIreeEmptyValues(int argc, char **argv);

}  // namespace hrx::run
