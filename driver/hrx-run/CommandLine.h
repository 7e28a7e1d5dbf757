// hrx-run's command-line errors in its own words: what the flag expects and what was given,
// instead of the parser library's phrasing ("At Most 1 required but received 2").
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace hrx::run {

// The message for a parse error of `app` on argv (not for --help/--version).
std::string explainParseError(const CLI::App &app, const CLI::ParseError &error, int argc, char **argv);

}  // namespace hrx::run
