// The typed meaning of an hrxcc command line, checked for consistency. Everything after this
// point (action graph, jobs) reads the Invocation, never the raw arguments.
#pragma once

#include "ArgParser.h"
#include "hrx/Compiler.h"
#include "hrx/diag/Diagnostic.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hrx::driver {

enum class InputKind { Loom, C, Cxx, Hip };
std::string_view inputKindName(InputKind kind);  // "loom", "c", "c++", "hip"

struct InputFile {
  std::string path;  // as the user spelled it; "-" is standard input
  InputKind kind;
};

enum class DiagnosticsFormat { Text, Json, Sarif };
enum class SaveTemps { None, Cwd, Obj };

// What the user asked for besides compiling.
enum class ImmediateAction { None, Help, HelpMarkdown, Version, PrintTargets, PrintTargetsJson, Explain };

struct DepFileOptions {
  bool enabled = false;              // -MD / -MMD
  std::optional<std::string> path;   // -MF
  std::vector<std::string> targets;  // -MT
  bool phonyTargets = false;         // -MP
};

struct Invocation {
  ImmediateAction immediate = ImmediateAction::None;
  std::string explainCode;

  std::vector<InputFile> inputs;
  std::vector<Target> targets;  // never empty once built: host when none was given
  bool syntaxOnly = false;
  bool preprocessOnly = false;  // -E
  EmitKind emit = EmitKind::Artifact;
  std::optional<std::string> output;  // -o
  SaveTemps saveTemps = SaveTemps::None;
  unsigned jobs = 1;

  bool printJobs = false;      // -###
  bool printPhases = false;    // --print-phases
  bool printBindings = false;  // --print-bindings
  bool verbose = false;        // -v

  // C/C++ sources.
  std::string standard;              // -std= (CxxSource::standard; empty: c23 / c++26)
  std::vector<std::string> defines;  // "N=4", "-UX" (CxxSource::defines)
  std::vector<std::string> includeDirs;
  std::vector<std::pair<std::string, std::string>> headers;  // virtual path -> real file
  std::vector<std::string> preincludes;                      // -include
  bool hostHeaders = false;                                  // --host-headers
  bool fastMath = false;                                     // -ffast-math (last of -ffast-math / -fno-fast-math)

  // Specialization and code generation.
  std::string entry;
  std::vector<std::pair<std::string, std::string>> configs;  // --config, in order
  std::vector<std::string> configFiles;
  ReportMode report = ReportMode::None;
  CompilerOptions compilerOptions;

  std::optional<std::string> reportOutput, manifestOutput, launchOutput;
  DepFileOptions depFile;

  // Diagnostics.
  diag::DiagnosticOptions diagOptions;
  DiagnosticsFormat diagFormat = DiagnosticsFormat::Text;
  std::optional<bool> color;  // unset: color iff standard error is a terminal
  bool verify = false;
  std::vector<std::string> verifyPrefixes;
  bool splitInputFile = false;  // --split-input-file (SplitInput.h)
};

// Builds the invocation; reports every problem to `diags` (all are usage errors).
Invocation buildInvocation(const ArgList &args, diag::DiagnosticEngine &diags);

}  // namespace hrx::driver
