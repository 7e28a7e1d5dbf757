// hrx check: Loom's own executable tests (check.case, check.scenario, check.benchmark) found in
// .loom files, their inputs generated, the code under test run on the host reference device
// through the chosen target's path, and their expectations evaluated. No LLVM: compiling the
// code under test is the caller's (hrx runs hrxcc), so this library links only the runtime.
#pragma once

#include "hrx/runtime/Status.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace hrx::loom {
enum class OpCode : uint16_t;  // hrx/loom/IR.h: one id per row of Ops.def
}

namespace hrx::check {

// One check program op as written: `%a, %b = name tokens... { region }`.
struct Token {
  enum Kind { Ident, Value, Symbol, Number, String, Punct } kind = Punct;
  std::string text;
  unsigned line = 0, column = 0;
};

struct CheckOp {
  std::string name;
  loom::OpCode code{};               // its Ops.def row (OpCode::Opaque for an op outside the table)
  std::vector<std::string> results;  // without '%'
  std::vector<Token> tokens;         // after the name, up to the region (or the end of the op)
  std::vector<CheckOp> region;       // ops of a trailing { ... } region
  unsigned line = 0, column = 0;
};

// A top-level check.case / check.scenario / check.benchmark.
struct CheckDefinition {
  std::string kind;                                        // "check.case", "check.scenario", "check.benchmark"
  loom::OpCode code{};                                     // CheckCase, CheckScenario or CheckBenchmark
  std::string name;                                        // without '@'
  std::string benchmarkOf;                                 // check.benchmark<@case>: the case
  std::vector<std::pair<std::string, std::string>> fixed;  // check.benchmark {k = v}
  std::vector<CheckOp> body;
  // check.scenario @s configure[N](%x: index, %e: check.entropy): the body runs N times.
  int64_t configureCount = 0;
  std::vector<std::string> configureArgs;
  unsigned line = 0, column = 0;
  uint32_t beginOffset = 0, endOffset = 0;  // source range (blanked in the code under test)
};

// A located problem in a check program (file:line:col: message).
struct CheckProblem {
  unsigned line = 0, column = 0;
  std::string message;
};

// The parameter names of a kernel's workload and launch signatures (a launch without a written
// workload binds each workload parameter to the launch argument of the same name).
struct KernelSignature {
  std::vector<std::string> workload, launch;
};

// The configuration values a launch implies: the view a function or kernel takes of its buffer
// parameter `param` has dimensions sized by `config.get @key` values, so the shape (or the byte
// size) of the tensor bound to that parameter gives them.
struct ExtentDim {
  int64_t size = -1;  // a static dimension; -1 when `key` names it or nothing known does
  std::string key;    // the config.decl sizing it (empty: static, or sized by something else)
};
struct ExtentRule {
  size_t param = 0;
  std::vector<ExtentDim> dims;
  unsigned elementBytes = 0;
};
// A capacity: `index.assume %param [le(%param, %cap)]` with %cap a `config.get @key`, so the
// index value bound to scalar parameter `param` is the least capacity that admits it. Used when
// no tensor's extent gives the key.
struct CapacityRule {
  size_t param = 0;
  std::string key;
};

struct CheckFile {
  std::string path;
  std::string text;
  std::vector<CheckDefinition> definitions;
  std::map<std::string, KernelSignature> kernels;              // kernel.def/decl (a func.call of one launches it)
  std::set<std::string> pipelines;                             // pipeline.def (run through the xdna array plan)
  std::set<std::string> symbols;  // every top-level symbol of the file and its linked Loom files
  bool foreignLinks = false;      // a linked C/C++ file may define symbols `symbols` does not list
  std::map<std::string, std::vector<ExtentRule>> extentRules;  // by kernel/function symbol
  std::map<std::string, std::vector<CapacityRule>> capacityRules;  // by kernel/function symbol
  // Configuration a case may sweep: each config.decl's `range(%value, lo, hi)` (inclusive), and
  // the keys each top-level symbol reads through config.get, itself or through what it calls.
  std::map<std::string, std::pair<int64_t, int64_t>> configRanges;
  std::map<std::string, std::set<std::string>> configReads;
  std::vector<CheckProblem> problems;                          // malformed top-level structure
};

// Finds every top-level check.* definition of `text` (a .loom file).
CheckFile discoverChecks(std::string path, std::string text);

// Adds the kernels, pipelines and extent rules of a Loom file linked with `file` (hrx check
// --link), so its cases launch them as upstream's runner does once the library is linked into
// the test module; the linked file's own check definitions are not cases of `file`.
void addLinkedCode(CheckFile &file, std::string_view path, std::string_view text);

// The Loom text to compile: `file.text` with the check definitions blanked (line numbers stay
// true) plus one wrapper kernel per distinct func.call in the check programs (a 1x1x1 kernel
// calling the function and storing its results), named __hrx_check_call_<N>.
std::string codeUnderTest(const CheckFile &file);

// A target the code under test compiles for, as its backend describes it (the target registry,
// read through hrxcc --print-targets-json): the check library names no target.
struct RunTarget {
  // How its artifacts run on the host reference device.
  enum class Path { HostObject, HostTwin, ArrayPlan };
  std::string name;                     // canonical spelling: what hrxcc -target takes
  std::string backend;                  // its backend's name
  std::vector<std::string> spellings;   // every spelling of the profile (name, aliases, profile)
  std::vector<std::string> checkFacts;  // check.requires predicates it meets: `provider {k = "v"}`
  Path path = Path::HostObject;
};
const char *runTargetName(const RunTarget &target);

// Compiles `source` (named `displayPath` in diagnostics) for `target` ("host" or "gfx1151"):
// the artifact or shared object bytes, or an error holding the compiler's diagnostics. `entry`
// names the one kernel or wrapper a launch runs, compiled alone as upstream's runner compiles the
// launched root only (empty: every export). `config` holds the configuration values the launch
// implies (ExtentRule), KEY -> VALUE.
using CompileFn = std::function<StatusOr<std::vector<uint8_t>>(
    const std::string &source, const std::string &displayPath, const RunTarget &target, const std::string &entry,
    const std::map<std::string, std::string> &config)>;

enum class Outcome { Pass, Fail, Skip, Benchmark };

struct CaseResult {
  std::string file;
  unsigned line = 0;
  std::string name;
  Outcome outcome = Outcome::Pass;
  std::string message;  // Fail: what differed; Skip: why; Benchmark: the figures
  double minUs = 0, medianUs = 0, p95Us = 0;
  unsigned samples = 0;  // parameter assignments (x trials) run
};

struct RunOptions {
  RunTarget target;         // the code under test's target
  RunTarget hostReference;  // where check.compare runs its oracle
  // Canonical names of the targets that run pipeline.def code (ArrayPlan) and kernel code (the
  // host reference first), for the skip messages.
  std::vector<std::string> pipelineTargets, kernelTargets;
  std::string filter;  // ECMAScript regex over the case name ("" = all)
  unsigned jobs = 1;
  unsigned benchmarkRepetitions = 20;
  std::set<std::string> boundConfigs;  // keys the user binds (--config, --config-file): never swept
};

// Runs every selected definition of `file`. Problems in one case (a malformed check, a missing
// result) fail that case with a located message; the others still run.
std::vector<CaseResult> runChecks(const CheckFile &file, const RunOptions &options, const CompileFn &compile);

// The selected definitions, without running them (hrx check --list).
std::vector<CaseResult> listChecks(const CheckFile &file, const RunOptions &options);

}  // namespace hrx::check
