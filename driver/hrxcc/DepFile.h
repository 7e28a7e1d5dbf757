// Makefile dependency files (-MD, -MMD, -MF, -MT, -MP).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hrx::driver {

// Escapes a file name for a Makefile rule: spaces and '#' get a backslash, '$' doubles.
std::string escapeMakeTarget(std::string_view name);

// "targets: dep dep ..." with line continuations; with `phonyTargets`, an empty rule for every
// dependency but the first (so that deleting a header does not break the build).
std::string renderDepFile(const std::vector<std::string> &targets, const std::vector<std::string> &deps,
                          bool phonyTargets);

// The default depfile name: the output with its extension replaced by ".d".
std::string defaultDepFilePath(std::string_view output);

}  // namespace hrx::driver
