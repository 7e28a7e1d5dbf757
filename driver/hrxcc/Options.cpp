#include "Options.h"

#include <algorithm>
#include <array>
#include <vector>

namespace hrx::driver {
namespace {

constexpr OptionInfo kOptions[] = {
#define HRXCC_OPTION(ID, SPELLING, KIND, GROUP, ALIAS, METAVAR, FLAGS, HELP)                                           \
  {OptionId::ID,    SPELLING, OptionKind::KIND,        OptionGroup::GROUP,                                             \
   OptionId::ALIAS, METAVAR,  OptionVisibility::FLAGS, HELP},
#include "Options.def"
#undef HRXCC_OPTION
};

constexpr std::string_view kGroupTitles[] = {
#define HRXCC_GROUP(ID, TITLE) TITLE,
#include "Options.def"
#undef HRXCC_GROUP
};

// "-o <file>", "--emit=<kind>", "-O<level>": how the option is written with its value.
std::string synopsis(const OptionInfo &opt) {
  std::string out(opt.spelling);
  if (opt.metavar.empty()) return out;
  bool separated = opt.kind == OptionKind::Separate || opt.kind == OptionKind::JoinedOrSeparate;
  if (separated) out += ' ';
  out += opt.metavar;
  return out;
}

template <typename Fn> void forEachGroupWithVisibleOptions(Fn fn) {
  for (size_t g = 0; g < std::size(kGroupTitles); ++g) {
    std::vector<const OptionInfo *> rows;
    for (const OptionInfo &opt : kOptions)
      if (opt.group == OptionGroup(g) && opt.visibility == OptionVisibility::Visible) rows.push_back(&opt);
    if (!rows.empty()) fn(kGroupTitles[g], rows);
  }
}

}  // namespace

std::span<const OptionInfo> allOptions() { return kOptions; }

const OptionInfo &optionInfo(OptionId id) { return kOptions[static_cast<size_t>(id) - 1]; }

std::optional<std::string> closestMatch(std::string_view value, std::span<const std::string> candidates) {
  if (value.size() < 2) return std::nullopt;
  // Near enough: at most 2 edits, and fewer than half the word's characters.
  size_t limit = std::min<size_t>(2, (value.size() - 1) / 2);
  std::optional<std::string> best;
  size_t bestDistance = limit + 1;
  for (const std::string &candidate : candidates) {
    size_t d = editDistance(value, candidate);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return best;
}

std::optional<std::string> suggestOption(std::string_view arg) {
  // Compare the option part only: "--emti=llvm" is "--emti=" carrying the value "llvm".
  size_t eq = arg.find('=');
  std::string_view name = eq == std::string_view::npos ? arg : arg.substr(0, eq + 1);
  std::string_view value = eq == std::string_view::npos ? std::string_view() : arg.substr(eq + 1);
  std::vector<std::string> spellings;
  for (const OptionInfo &opt : kOptions) {
    if (opt.visibility == OptionVisibility::Hidden) continue;
    bool takesEq = opt.spelling.ends_with('=');
    if (takesEq == (eq != std::string_view::npos)) spellings.emplace_back(opt.spelling);
  }
  std::optional<std::string> best = closestMatch(name, spellings);
  if (best) *best += value;
  return best;
}

void printHelp(std::ostream &os) {
  os << "OVERVIEW: hrx compiler driver for Strix Halo (XDNA2 NPU5 and gfx1151)\n\n"
        "USAGE: hrxcc [options] <inputs: .loom .c .cpp .cc .cxx>\n";
  constexpr size_t kColumn = 30;
  forEachGroupWithVisibleOptions([&](std::string_view title, const auto &rows) {
    os << '\n' << title << ":\n";
    for (const OptionInfo *opt : rows) {
      std::string left = "  " + synopsis(*opt);
      if (left.size() + 1 > kColumn)
        os << left << '\n' << std::string(kColumn, ' ');
      else
        os << left << std::string(kColumn - left.size(), ' ');
      os << opt->help << '\n';
    }
  });
}

void printHelpMarkdown(std::ostream &os) {
  forEachGroupWithVisibleOptions([&](std::string_view title, const auto &rows) {
    os << "### " << title << "\n\n| Option | Description |\n| --- | --- |\n";
    for (const OptionInfo *opt : rows) {
      os << "| `" << synopsis(*opt) << "` | ";
      for (char c : opt->help) os << (c == '<' ? "&lt;" : c == '>' ? "&gt;" : std::string(1, c));
      os << " |\n";
    }
    os << '\n';
  });
}

}  // namespace hrx::driver
