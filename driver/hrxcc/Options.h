// The hrxcc option table (Options.def) and what is derived from it: lookup, suggestions for
// misspellings, --help and the option reference in docs/hrxcc.md.
#pragma once

#include "hrx/diag/EditDistance.h"

#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

namespace hrx::driver {

enum class OptionGroup : uint8_t {
#define HRXCC_GROUP(ID, TITLE) ID,
#include "Options.def"
#undef HRXCC_GROUP
};

enum class OptionId : uint8_t {
  None,
#define HRXCC_OPTION(ID, SPELLING, KIND, GROUP, ALIAS, METAVAR, FLAGS, HELP) ID,
#include "Options.def"
#undef HRXCC_OPTION
};

enum class OptionKind : uint8_t { Flag, Joined, Separate, JoinedOrSeparate, CommaJoined };
enum class OptionVisibility : uint8_t { Visible, Hidden };

struct OptionInfo {
  OptionId id;
  std::string_view spelling;  // "-o", "--emit=", "-target"
  OptionKind kind;
  OptionGroup group;
  OptionId aliasOf;  // OptionId::None unless this spelling stands for another option
  std::string_view metavar;
  OptionVisibility visibility;
  std::string_view help;
};

std::span<const OptionInfo> allOptions();
const OptionInfo &optionInfo(OptionId id);

// The option whose spelling matches `arg`: Flag and Separate spellings match exactly, the others
// by prefix; the longest matching spelling wins. Matched by the llvm::opt table (ArgParser.cpp).
const OptionInfo *matchOption(std::string_view arg);

// The closest spelling to an unknown `arg` (edit distance), completed with the value `arg`
// carried, e.g. "--emti=llvm" -> "--emit=llvm"; nullopt when nothing is close.
std::optional<std::string> suggestOption(std::string_view arg);

// Edit distance with unit costs (insert, delete, substitute, swap adjacent characters): the diag
// library's.
using diag::editDistance;

// The closest candidate to `value` when it is near enough to be a likely typo.
std::optional<std::string> closestMatch(std::string_view value, std::span<const std::string> candidates);

// --help, grouped by OptionGroup as clang's is.
void printHelp(std::ostream &os);
// The option reference of docs/hrxcc.md (Markdown tables, one per group).
void printHelpMarkdown(std::ostream &os);

}  // namespace hrx::driver
