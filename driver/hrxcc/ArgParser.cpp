#include "ArgParser.h"

#include "hrx/format/FileIO.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace hrx::driver {
namespace {

using diag::DiagId;

// Splits response-file text into arguments: whitespace separates; '...' is literal; "..." and
// unquoted text honour backslash escapes.
std::vector<std::string> tokenizeResponseFile(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  bool inToken = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (inToken) out.push_back(std::exchange(current, {}));
      inToken = false;
      continue;
    }
    inToken = true;
    if (c == '\\' && i + 1 < text.size()) {
      current += text[++i];
    } else if (c == '\'') {
      size_t close = text.find('\'', i + 1);
      if (close == std::string_view::npos) close = text.size();
      current.append(text.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '"' || text[i + 1] == '\\')) ++i;
        current += text[i];
      }
    } else {
      current += c;
    }
  }
  if (inToken) out.push_back(std::move(current));
  return out;
}

void expandInto(const std::vector<std::string> &args, std::vector<std::string> &stack,
                std::vector<std::string> &out, diag::DiagnosticEngine &diags) {
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
      diags.report(DiagId::DriverCannotOpenFile, {}).arg("path", path).arg("reason", io::failureReason(text.status(), path));
      continue;
    }
    stack.push_back(path);
    expandInto(tokenizeResponseFile(*text), stack, out, diags);
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

std::vector<std::string> expandResponseFiles(const std::vector<std::string> &argv,
                                             diag::DiagnosticEngine &diags) {
  std::vector<std::string> out, stack;
  expandInto(argv, stack, out, diags);
  return out;
}

ArgList parseArgs(const std::vector<std::string> &args, diag::DiagnosticEngine &diags) {
  ArgList list;
  bool onlyInputs = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    // "-" alone is an input (standard input), as is everything after "--".
    if (onlyInputs || !arg.starts_with('-') || arg == "-") {
      list.args.push_back({OptionId::None, "", arg});
      continue;
    }
    const OptionInfo *opt = matchOption(arg);
    if (!opt) {
      std::optional<std::string> hint = suggestOption(arg);
      diags.report(DiagId::DriverUnknownArgument, {})
          .arg("arg", arg)
          .arg("suggestion", hint ? "; did you mean '" + *hint + "'?" : std::string());
      continue;
    }
    if (opt->id == OptionId::EndOfOptions) {
      onlyInputs = true;
      continue;
    }
    Arg parsed{opt->aliasOf == OptionId::None ? opt->id : opt->aliasOf, arg, ""};
    switch (opt->kind) {
    case OptionKind::Flag:
      break;
    case OptionKind::Joined:
    case OptionKind::CommaJoined:
      parsed.spelling = std::string(opt->spelling);
      parsed.value = arg.substr(opt->spelling.size());
      if (parsed.value.empty()) {
        diags.report(DiagId::DriverMissingArgument, {})
            .arg("option", arg)
            .arg("expected", std::string(opt->metavar));
        continue;
      }
      break;
    case OptionKind::Separate:
    case OptionKind::JoinedOrSeparate:
      parsed.spelling = std::string(opt->spelling);
      if (arg.size() > opt->spelling.size()) {
        parsed.value = arg.substr(opt->spelling.size());
        break;
      }
      if (i + 1 >= args.size()) {
        diags.report(DiagId::DriverMissingArgument, {})
            .arg("option", arg)
            .arg("expected", std::string(opt->metavar));
        continue;
      }
      parsed.value = args[++i];
      parsed.spelling += ' ';
      break;
    }
    list.args.push_back(std::move(parsed));
  }
  return list;
}

}  // namespace hrx::driver
