#include "CommandLine.h"

#include <string_view>
#include <vector>

namespace hrx::run {
namespace {

// The option a CLI11 message is about: its text up to the first ": " when that names an option.
const CLI::Option *optionNamed(const CLI::App &app, const std::string &message) {
  size_t colon = message.find(": ");
  std::string name = colon == std::string::npos ? message : message.substr(0, colon);
  if (!name.starts_with("-")) {
    // "Could not convert: --columns = x", "... --columns=x"
    for (size_t at = message.find("--"); at != std::string::npos; at = message.find("--", at + 2)) {
      size_t end = message.find_first_of(" =:", at);
      if (const CLI::Option *o = app.get_option_no_throw(message.substr(at, end - at))) return o;
    }
    return nullptr;
  }
  if (size_t comma = name.find(','); comma != std::string::npos) name = name.substr(0, comma);
  return app.get_option_no_throw(name);
}

// What `option` takes, in words, from its type name.
std::string expectation(const CLI::Option &option) {
  std::string type = option.get_type_name();
  if (type.find("UINT") != std::string::npos) return "a nonnegative integer";
  if (type.find("INT") != std::string::npos) return "an integer";
  if (type.find("FLOAT") != std::string::npos || type.find("POSITIVE") != std::string::npos ||
      type.find("NONNEGATIVE") != std::string::npos)
    return "a number";
  return "a value";
}

// The values argv gives `option` ("--device=npu", "--device npu").
std::vector<std::string> valuesGiven(const CLI::Option &option, int argc, char **argv) {
  std::vector<std::string> values;
  for (int i = 1; i < argc; ++i) {
    std::string_view argument = argv[i];
    for (const std::string &name : option.get_lnames()) {
      std::string flag = "--" + name;
      if (argument.starts_with(flag + "="))
        values.emplace_back(argument.substr(flag.size() + 1));
      else if (argument == flag && i + 1 < argc)
        values.emplace_back(argv[i + 1]);
    }
  }
  return values;
}

std::string quotedList(const std::vector<std::string> &values) {
  std::string out;
  for (const std::string &v : values) out += (out.empty() ? "'" : ", '") + v + "'";
  return out;
}

}  // namespace

Arguments withIreeEmptyValues(int argc, char **argv) {
  Arguments out;
  for (int i = 0; i < argc; ++i) {
    std::string_view argument = argv[i];
    if (i > 0 && (argument == "--entry=" || argument == "--function=")) continue;
    out.strings.emplace_back(argument == "--output=" ? std::string("--output=") + kSkipOutput : std::string(argument));
  }
  for (std::string &s : out.strings) out.argv.push_back(s.data());
  return out;
}

std::string explainParseError(const CLI::App &app, const CLI::ParseError &error, int argc, char **argv) {
  std::string message = error.what();
  const CLI::Option *option = optionNamed(app, message);
  if (!option) return "cannot read the command line: " + message;
  std::string flag = option->get_name(false, true);
  if (size_t comma = flag.find(','); comma != std::string::npos) flag = flag.substr(0, comma);
  std::vector<std::string> given = valuesGiven(*option, argc, argv);
  if (message.find("At Most") != std::string::npos || message.find("received") != std::string::npos) {
    if (given.size() > 1)
      return flag + " takes one value, but was given " + std::to_string(given.size()) + ": " + quotedList(given);
  }
  if (message.find("required") != std::string::npos && message.find("missing") != std::string::npos)
    return flag + " expects " + expectation(*option) + " (" + flag + "=VALUE), but none was given";
  if (message.find("Could not convert") != std::string::npos || message.find("Failed parsing") != std::string::npos ||
      error.get_name() == "ConversionError")
    return flag + " expects " + expectation(*option) + ", but was given " +
           (given.empty() ? std::string("something else") : quotedList(given));
  if (error.get_name() == "ValidationError") {
    // Our validators say "expected ..., got '...'"; CLI::Range says "Value 9 not in range 1 to 8".
    size_t colon = message.find(": ");
    std::string why = colon == std::string::npos ? message : message.substr(colon + 2);
    if (size_t range = why.find(" not in range "); why.starts_with("Value ") && range != std::string::npos) {
      std::string bounds = why.substr(range + 14);
      if (size_t to = bounds.find(" to "); to != std::string::npos) bounds.replace(to, 4, "..");
      std::erase(bounds, '[');
      std::erase(bounds, ']');
      return flag + " expects an integer in " + bounds + ", but was given " + quotedList(given);
    }
    // hrx-run's own validators already say "expected ..., got '...'".
    return flag + ": " + why;
  }
  if (option->get_expected_max() == 0)
    return flag + " is a switch and takes no value, but was given " + quotedList(given);
  size_t colon = message.find(": ");
  return flag + ": " + (colon == std::string::npos ? message : message.substr(colon + 2));
}

}  // namespace hrx::run
