// Turns argv into an ordered list of recognized options and inputs: expands @file response
// files, honours "--", and reports unknown options (with a suggestion) and missing values.
// Matching is llvm::opt's (an OptTable built from Options.def); response files are split by
// llvm::cl::TokenizeGNUCommandLine.
#pragma once

#include "Options.h"
#include "hrx/diag/Diagnostic.h"

#include <string>
#include <vector>

namespace hrx::driver {

struct Arg {
  OptionId id = OptionId::None;             // the canonical option (aliases resolved); None for an input
  std::string spelling;                     // as written: "-target", "--target=", "" for an input
  std::string value;                        // the value, or the input path
  std::vector<std::string> values() const;  // CommaJoined: the value split at commas
  // How the user wrote it, for messages: "-target xdna", "--emit=llvm", "in.loom".
  std::string asWritten() const;
};

class ArgList {
public:
  std::vector<Arg> args;

  bool has(OptionId id) const;
  const Arg *last(OptionId id) const;
  // The last of several mutually overriding options (-fcolor-diagnostics vs -fno-...).
  const Arg *lastOf(std::initializer_list<OptionId> ids) const;
  std::vector<const Arg *> all(OptionId id) const;
};

// Expands "@file" arguments (GNU quoting: quotes and backslashes; nested files allowed, relative
// to the working directory; recursion is an error).
std::vector<std::string> expandResponseFiles(const std::vector<std::string> &argv, diag::DiagnosticEngine &diags);

// Parses expanded arguments (without argv[0]).
ArgList parseArgs(const std::vector<std::string> &args, diag::DiagnosticEngine &diags);

}  // namespace hrx::driver
