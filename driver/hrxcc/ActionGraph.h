// The action graph (what happens to each input, per target; --print-phases) and the jobs the
// driver runs in process to carry it out (-###, -v, --print-bindings). As in clang, the jobs are
// derived from the graph: each job writes the result of one action.
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
  std::vector<size_t> inputs;    // indices of earlier actions
  std::string type;              // what it produces: "loom", "llvm-ir", "array-plan", ...
  std::string path;              // Input: the file
  std::optional<Target> target;  // per-target actions
  std::string stage = {};        // TargetStage: its phase name ("plan")
  // The --emit kinds whose output is this action's result: what a job that stops here writes
  // (lower: llvm; backend: asm, object; package: artifact).
  std::vector<EmitKind> forms = {};
  size_t inputFile = 0;  // Input: the index into Invocation::inputs
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
  std::optional<size_t> action;  // the action whose result it writes (none: the depfile)
  std::vector<size_t> inputs;    // indices into Invocation::inputs
  std::vector<Target> targets;
  EmitKind emit = EmitKind::Artifact;
  std::string output;         // empty: none; "-": standard output
  bool intermediate = false;  // a -save-temps copy, not the requested output
  std::optional<std::string> reportOutput, manifestOutput, launchOutput;
};

// Derives the jobs from `graph` (buildActionGraph(inv)): one per result the user asked for (the
// graph's sinks), one per -save-temps form of an earlier action, and the depfile. Binds outputs;
// reports usage errors (e.g. -o with several outputs).
std::vector<Job> planJobs(const Invocation &inv, const std::vector<Action> &graph, diag::DiagnosticEngine &diags);
// One line, as for -### and -v: ` "kind" (targets) inputs: [...] outputs: [...] options: [...]`.
void printJob(const Job &job, const Invocation &inv, std::ostream &os);
// One line per job, as clang's -ccc-print-bindings: `# action N (phase) -> "kind" (targets), output: "..."`.
void printBindings(const std::vector<Job> &jobs, const std::vector<Action> &graph, std::ostream &os);

std::string_view emitKindName(EmitKind kind);
// The default output for `emit` when no -o is given (see docs/hrxcc.md "Output names").
std::string defaultOutputName(const Invocation &inv, EmitKind emit, const std::vector<Target> &targets);

}  // namespace hrx::driver
