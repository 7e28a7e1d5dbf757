#include "ArgParser.h"

#include "hrx/format/FileIO.h"

#include <llvm/Option/Arg.h>
#include <llvm/Option/ArgList.h>
#include <llvm/Option/OptTable.h>
#include <llvm/Option/Option.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/StringSaver.h>

#include <algorithm>

namespace hrx::driver {
namespace {

using diag::DiagId;

// ---- The llvm::opt table built from Options.def ----------------------------------------------
// llvm::opt splits a spelling into a prefix ("-" or "--") and a name, keeps the options sorted by
// name (as OptTable's lower_bound expects) and numbers them by position; kLlvmToOption maps those
// numbers back to OptionId. "--" (EndOfOptions) is handled before the table, as clang does.

// The string table: the empty string first (llvm::StringTable requires it), then the prefixes,
// the two special options' names and every spelling.
constexpr std::string_view kPrefixes[] = {"-", "--"};
constexpr std::string_view kSpecialNames[] = {"<input>", "<unknown>"};
constexpr std::string_view kSpellings[] = {
#define HRXCC_OPTION(ID, SPELLING, KIND, GROUP, ALIAS, METAVAR, FLAGS, HELP) SPELLING,
#include "Options.def"
#undef HRXCC_OPTION
};

constexpr size_t stringTableSize() {
  size_t size = 1;
  for (std::string_view s : kPrefixes) size += s.size() + 1;
  for (std::string_view s : kSpecialNames) size += s.size() + 1;
  for (std::string_view s : kSpellings) size += s.size() + 1;
  return size;
}

struct StringTableChars {
  char chars[stringTableSize()] = {};
};

constexpr StringTableChars buildStringTable() {
  StringTableChars table;
  size_t at = 1;
  auto append = [&](std::string_view s) {
    for (char c : s) table.chars[at++] = c;
    table.chars[at++] = '\0';
  };
  for (std::string_view s : kPrefixes) append(s);
  for (std::string_view s : kSpecialNames) append(s);
  for (std::string_view s : kSpellings) append(s);
  return table;
}

constexpr StringTableChars kStringTableChars = buildStringTable();

unsigned llvmKind(OptionKind kind) {
  switch (kind) {
  case OptionKind::Flag: return llvm::opt::Option::FlagClass;
  case OptionKind::Joined: return llvm::opt::Option::JoinedClass;
  case OptionKind::Separate: return llvm::opt::Option::SeparateClass;
  case OptionKind::JoinedOrSeparate: return llvm::opt::Option::JoinedOrSeparateClass;
  case OptionKind::CommaJoined: return llvm::opt::Option::CommaJoinedClass;
  }
  return llvm::opt::Option::FlagClass;
}

// OptTable's ordering: case-insensitive, a name before the names it prefixes, then case-sensitive.
int compareOptionNames(llvm::StringRef a, llvm::StringRef b) {
  size_t common = std::min(a.size(), b.size());
  if (int c = a.substr(0, common).compare_insensitive(b.substr(0, common))) return c;
  if (a.size() != b.size()) return a.size() == common ? 1 : -1;
  return a.compare(b);
}

class HrxccOptTable final : public llvm::opt::GenericOptTable {
public:
  static const HrxccOptTable &get() {
    static const Tables tables = buildTables();
    static const HrxccOptTable table(tables);
    return table;
  }
  static constexpr unsigned kInputId = 1, kUnknownId = 2;

  // The OptionId of llvm::opt option `id` (an option of Options.def).
  OptionId optionId(unsigned id) const { return tables_.optionIds[id - 1]; }

private:
  struct Tables {
    llvm::StringTable strings{kStringTableChars.chars};
    std::vector<llvm::StringTable::Offset> prefixes;
    std::vector<Info> infos;
    std::vector<OptionId> optionIds;  // by llvm id - 1
  };

  static Tables buildTables() {
    Tables t;
    // Offsets in the order buildStringTable laid the strings out.
    unsigned at = 1;
    auto next = [&](std::string_view s) {
      unsigned offset = at;
      at += static_cast<unsigned>(s.size()) + 1;
      return offset;
    };
    unsigned prefixOffsets[std::size(kPrefixes)];
    for (size_t i = 0; i < std::size(kPrefixes); ++i) prefixOffsets[i] = next(kPrefixes[i]);
    unsigned inputName = next(kSpecialNames[0]), unknownName = next(kSpecialNames[1]);
    // The prefix sets: {0} (none), {1, "-"}, {1, "--"}.
    t.prefixes = {0, 1, prefixOffsets[0], 1, prefixOffsets[1]};
    constexpr unsigned kNoPrefix = 0, kDash = 1, kDashDash = 3;

    auto info = [](unsigned prefixes, unsigned name, unsigned kind, const char *help, const char *metavar) {
      Info i{};
      i.PrefixesOffset = prefixes;
      i.PrefixedNameOffset = name;
      i.HelpText = help;
      i.MetaVar = metavar;
      i.Kind = static_cast<unsigned char>(kind);
      i.Visibility = 1;  // ParseOneArg's default mask admits every visibility bit
      return i;
    };
    t.infos.push_back(info(kNoPrefix, inputName, llvm::opt::Option::InputClass, nullptr, nullptr));
    t.infos.push_back(info(kNoPrefix, unknownName, llvm::opt::Option::UnknownClass, nullptr, nullptr));
    t.optionIds = {OptionId::None, OptionId::None};

    struct Row {
      const OptionInfo *option;
      unsigned nameOffset;
      std::string_view prefix;
    };
    std::vector<Row> rows;
    for (const OptionInfo &opt : allOptions()) {
      unsigned offset = next(opt.spelling);
      if (opt.id == OptionId::EndOfOptions) continue;
      rows.push_back({&opt, offset, opt.spelling.starts_with("--") ? kPrefixes[1] : kPrefixes[0]});
    }
    auto name = [](const Row &r) { return llvm::StringRef(r.option->spelling.substr(r.prefix.size())); };
    std::sort(rows.begin(), rows.end(), [&](const Row &a, const Row &b) {
      if (int c = compareOptionNames(name(a), name(b))) return c < 0;
      return compareOptionNames(a.prefix, b.prefix) < 0;
    });
    for (const Row &r : rows) {
      Info i = info(r.prefix == kPrefixes[1] ? kDashDash : kDash, r.nameOffset, llvmKind(r.option->kind),
                    r.option->help.data(), r.option->metavar.data());
      i.ID = static_cast<unsigned>(t.infos.size()) + 1;
      t.infos.push_back(i);
      t.optionIds.push_back(r.option->id);
    }
    t.infos[0].ID = kInputId;
    t.infos[1].ID = kUnknownId;
    return t;
  }

  explicit HrxccOptTable(const Tables &tables)
      : GenericOptTable(tables.strings, tables.prefixes, tables.infos), tables_(tables) {}

  const Tables &tables_;
};

// Expands "@file" arguments; each file is split as a POSIX shell would (LLVM's GNU tokenizer).
void expandInto(const std::vector<std::string> &args, std::vector<std::string> &stack, std::vector<std::string> &out,
                diag::DiagnosticEngine &diags) {
  for (const std::string &arg : args) {
    if (!arg.starts_with('@') || arg.size() == 1) {
      out.push_back(arg);
      continue;
    }
    std::string path = arg.substr(1);
    if (std::find(stack.begin(), stack.end(), path) != stack.end()) {
      diags.report(DiagId::DriverResponseFileRecursion, {}).arg("path", path);
      continue;
    }
    auto text = io::readTextFile(path);
    if (!text) {
      diags.report(DiagId::DriverCannotOpenFile, {})
          .arg("path", path)
          .arg("reason", io::failureReason(text.status(), path));
      continue;
    }
    llvm::BumpPtrAllocator allocator;
    llvm::StringSaver saver(allocator);
    llvm::SmallVector<const char *, 16> tokens;
    llvm::cl::TokenizeGNUCommandLine(*text, saver, tokens);
    stack.push_back(path);
    expandInto(std::vector<std::string>(tokens.begin(), tokens.end()), stack, out, diags);
    stack.pop_back();
  }
}

}  // namespace

std::vector<std::string> Arg::values() const {
  std::vector<std::string> out;
  std::string_view rest = value;
  while (true) {
    size_t comma = rest.find(',');
    out.emplace_back(rest.substr(0, comma));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

std::string Arg::asWritten() const { return id == OptionId::None ? value : spelling + value; }

bool ArgList::has(OptionId id) const { return last(id) != nullptr; }

const Arg *ArgList::last(OptionId id) const { return lastOf({id}); }

const Arg *ArgList::lastOf(std::initializer_list<OptionId> ids) const {
  for (auto it = args.rbegin(); it != args.rend(); ++it)
    if (std::find(ids.begin(), ids.end(), it->id) != ids.end()) return &*it;
  return nullptr;
}

std::vector<const Arg *> ArgList::all(OptionId id) const {
  std::vector<const Arg *> out;
  for (const Arg &a : args)
    if (a.id == id) out.push_back(&a);
  return out;
}

std::vector<std::string> expandResponseFiles(const std::vector<std::string> &argv, diag::DiagnosticEngine &diags) {
  std::vector<std::string> out, stack;
  expandInto(argv, stack, out, diags);
  return out;
}

const OptionInfo *matchOption(std::string_view arg) {
  if (arg == "--") return &optionInfo(OptionId::EndOfOptions);
  // A placeholder value after `arg`, so that options taking the next argument match too.
  std::string spelled(arg);
  const char *argv[] = {spelled.c_str(), ""};
  llvm::opt::InputArgList parsed(std::begin(argv), std::end(argv));
  unsigned index = 0;
  const HrxccOptTable &table = HrxccOptTable::get();
  std::unique_ptr<llvm::opt::Arg> a = table.ParseOneArg(parsed, index);
  if (!a || a->getOption().getID() <= HrxccOptTable::kUnknownId) return nullptr;
  return &optionInfo(table.optionId(a->getOption().getID()));
}

ArgList parseArgs(const std::vector<std::string> &args, diag::DiagnosticEngine &diags) {
  const HrxccOptTable &table = HrxccOptTable::get();
  std::vector<const char *> argv;
  for (const std::string &arg : args) argv.push_back(arg.c_str());
  llvm::opt::InputArgList parsed(argv.data(), argv.data() + argv.size());

  ArgList list;
  bool onlyInputs = false;
  for (unsigned index = 0; index < argv.size();) {
    const std::string &arg = args[index];
    // Everything after "--" is an input.
    if (onlyInputs || arg == "--") {
      if (!onlyInputs)
        onlyInputs = true;
      else
        list.args.push_back({OptionId::None, "", arg});
      ++index;
      continue;
    }
    unsigned start = index;
    std::unique_ptr<llvm::opt::Arg> a = table.ParseOneArg(parsed, index);
    if (!a) {  // a Separate value past the end
      const OptionInfo *opt = matchOption(arg);
      diags.report(DiagId::DriverMissingArgument, {})
          .arg("option", arg)
          .arg("expected", opt ? std::string(opt->metavar) : std::string());
      continue;
    }
    unsigned id = a->getOption().getID();
    if (id == HrxccOptTable::kInputId) {  // "-" alone is an input (standard input)
      list.args.push_back({OptionId::None, "", arg});
      continue;
    }
    if (id == HrxccOptTable::kUnknownId) {
      std::optional<std::string> hint = suggestOption(arg);
      diags.report(DiagId::DriverUnknownArgument, {})
          .arg("arg", arg)
          .arg("suggestion", hint ? "; did you mean '" + *hint + "'?" : std::string());
      continue;
    }
    const OptionInfo &opt = optionInfo(table.optionId(id));
    Arg out{opt.aliasOf == OptionId::None ? opt.id : opt.aliasOf, arg, ""};
    if (opt.kind != OptionKind::Flag) {
      out.spelling = std::string(opt.spelling);
      bool separated = index - start == 2;
      // Joined forms keep the whole text after the spelling (CommaJoined splits in Arg::values).
      out.value = separated ? args[start + 1] : arg.substr(opt.spelling.size());
      if (separated) out.spelling += ' ';
      if (out.value.empty() && !separated) {
        if (opt.kind == OptionKind::Joined || opt.kind == OptionKind::CommaJoined) {
          diags.report(DiagId::DriverMissingArgument, {}).arg("option", arg).arg("expected", std::string(opt.metavar));
          continue;
        }
      }
    }
    list.args.push_back(std::move(out));
  }
  return list;
}

}  // namespace hrx::driver
