// The action graph (what happens to each input, per target; --print-phases) and the jobs the
// driver runs in process to carry it out (-###, -v).
#pragma once

#include "Invocation.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace hrx::driver {

// TargetStage: a stage of the target's own between specialization and lowering
// (TargetInfo::stagesBeforeLowering: xdna's "plan").
enum class Phase { Input, LoomParse, CxxImport, Link, Specialize, TargetStage, Lower, Backend, Package };

struct Action {
  Phase phase;
  std::vector<size_t> inputs;   // indices of earlier actions
  std::string type;             // what it produces: "loom", "llvm-ir", "array-plan", ...
  std::string path;             // Input: the file
  std::optional<Target> target;  // per-target actions
  std::string stage = {};        // TargetStage: its phase name ("plan")
};

std::vector<Action> buildActionGraph(const Invocation &inv);
// One line per action, as clang's -ccc-print-phases: `N: phase, {inputs}, type[, (target)]`.
void printActionGraph(const std::vector<Action> &actions, std::ostream &os);

enum class JobKind {
  LoomCheck,  // parse + verify one .loom input
  LoomPrint,  // parse + verify + print one .loom input
  CxxCheck,   // import one C/C++ input for one target, no output
  Compile,    // the compiler library: link, specialize, plan/lower, backend, package
  DepFile,    // write the Makefile depfile of the compile jobs
};

struct Job {
  JobKind kind;
  std::vector<size_t> inputs;  // indices into Invocation::inputs
  std::vector<Target> targets;
  EmitKind emit = EmitKind::Artifact;
  std::string output;  // empty: none; "-": standard output
  bool intermediate = false;  // a -save-temps copy, not the requested output
  std::optional<std::string> reportOutput, manifestOutput, launchOutput;
};

// Binds outputs and plans the jobs; reports usage errors (e.g. -o with several outputs).
std::vector<Job> planJobs(const Invocation &inv, diag::DiagnosticEngine &diags);
// One line, as for -### and -v: ` "kind" (targets) inputs: [...] outputs: [...] options: [...]`.
void printJob(const Job &job, const Invocation &inv, std::ostream &os);

std::string_view emitKindName(EmitKind kind);
// The default output for `emit` when no -o is given (see docs/hrxcc.md "Output names").
std::string defaultOutputName(const Invocation &inv, EmitKind emit, const std::vector<Target> &targets);

}  // namespace hrx::driver
