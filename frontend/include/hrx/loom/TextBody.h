// The written operands of an op of a dialect kept as text (Ops.def flag TextBody: check.*, low.*,
// command programs): frontend/loom's own tokens after the op name, up to its region or the end of
// its line. The parser keeps such an op's structure (results, regions, op id); its verifier hooks
// and `hrx check` read the operands from these tokens, so nothing else tokenizes Loom.
#pragma once

#include "hrx/loom/IR.h"
#include "hrx/loom/Lexer.h"

#include <string_view>
#include <vector>

namespace hrx::loom {

struct TextBodyTokens {
  std::vector<Token> tokens;  // views into the buffer
  uint32_t end = 0;           // just past the last token (or the name)
  uint32_t regionOpen = 0;    // offset of the region's '{' at the end of a line (0: none)
  uint32_t regionEnd = 0;     // just past the '}' closing it (0: none)
};

// `buffer` is the text `op` was parsed from.
TextBodyTokens textBodyTokens(std::string_view buffer, const Operation &op);

// The tokens inside `key( ... )` of `tokens` (nested parentheses kept), or false when absent.
bool textBodyGroup(const std::vector<Token> &tokens, std::string_view key, std::vector<Token> &out);

// The type written after the last top-level ':' (up to a top-level '->'; with `result`, the type
// after that '->' when there is one), spaces removed.
std::string textBodyType(const std::vector<Token> &tokens, bool result = false);

}  // namespace hrx::loom
