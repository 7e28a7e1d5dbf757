#include "DepFile.h"

#include <filesystem>

namespace hrx::driver {

std::string escapeMakeTarget(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == ' ' || c == '#')
      out += '\\';
    else if (c == '$')
      out += '$';
    out += c;
  }
  return out;
}

std::string renderDepFile(const std::vector<std::string> &targets, const std::vector<std::string> &deps,
                          bool phonyTargets) {
  std::string out;
  for (size_t i = 0; i < targets.size(); ++i) out += (i ? " " : "") + escapeMakeTarget(targets[i]);
  out += ':';
  for (const std::string &dep : deps) out += " \\\n  " + escapeMakeTarget(dep);
  out += '\n';
  if (phonyTargets)
    for (size_t i = 1; i < deps.size(); ++i) out += '\n' + escapeMakeTarget(deps[i]) + ":\n";
  return out;
}

std::string defaultDepFilePath(std::string_view output) {
  return std::filesystem::path(output).replace_extension(".d").string();
}

}  // namespace hrx::driver
