// The edit distance of "did you mean" suggestions, the one every tool uses.
#pragma once

#include <cstddef>
#include <string_view>

namespace hrx::diag {

// Insertions, deletions, substitutions and swaps of adjacent characters each cost one (optimal
// string alignment), so "xdan" is one edit from "xdna".
size_t editDistance(std::string_view a, std::string_view b);

}  // namespace hrx::diag
