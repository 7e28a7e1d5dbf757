// hrxcc: the compiler driver. Parses the command line (ArgParser, Invocation), builds the action
// graph and jobs (ActionGraph), and runs them in process (Compilation). Exit codes: 0 success,
// 1 compile error, 2 usage error.
#include "ActionGraph.h"
#include "ArgParser.h"
#include "Compilation.h"
#include "SplitInput.h"
#include "Invocation.h"
#include "Options.h"
#include "hrx/Compiler.h"
#include "hrx/TargetRegistry.h"
#include "hrx/Version.h"
#include "hrx/diag/Renderers.h"
#include "hrx/diag/TextDiagnosticPrinter.h"
#include "hrx/diag/Verify.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <unistd.h>

namespace {

using namespace hrx;
using namespace hrx::driver;

enum ExitCode { kSuccess = 0, kCompileError = 1, kUsageError = 2 };

// Keeps the diagnostics of the command line until the invocation says how to render them; then
// they are re-reported, so that -W options and -Werror apply to them as well.
class DeferredDiagnostics : public diag::DiagnosticConsumer {
public:
  void handle(const diag::Diagnostic &diag, const diag::SourceManager &) override { recorded_.push_back(diag); }
  void replay(diag::DiagnosticEngine &to) const {
    for (const diag::Diagnostic &d : recorded_) {
      diag::DiagnosticBuilder builder = to.report(d.id, d.range);
      for (const auto &[name, value] : d.params) builder.arg(name, value);
    }
  }

private:
  std::vector<diag::Diagnostic> recorded_;
};

// Routes diagnostics to the renderer chosen by -fdiagnostics-format, or to the -verify checker
// once compilation starts. Text diagnostics without a location get clang's "hrxcc: " prefix.
class DiagnosticRouter : public diag::DiagnosticConsumer {
public:
  DiagnosticRouter(std::unique_ptr<diag::DiagnosticConsumer> renderer, bool text)
      : renderer_(std::move(renderer)), text_(text) {}
  void setVerifier(diag::VerifyDiagnosticConsumer *verifier) { verifier_ = verifier; }
  void handle(const diag::Diagnostic &diag, const diag::SourceManager &sm) override {
    if (verifier_) return verifier_->handle(diag, sm);
    if (text_ && !diag.range.isValid()) std::cerr << "hrxcc: ";
    renderer_->handle(diag, sm);
  }
  void finish(const diag::SourceManager &sm) override { renderer_->finish(sm); }

private:
  std::unique_ptr<diag::DiagnosticConsumer> renderer_;
  bool text_;
  diag::VerifyDiagnosticConsumer *verifier_ = nullptr;
};

std::unique_ptr<diag::DiagnosticConsumer> createRenderer(const Invocation &inv) {
  switch (inv.diagFormat) {
  case DiagnosticsFormat::Json: return diag::createJsonPrinter(std::cerr);
  case DiagnosticsFormat::Sarif: return diag::createSarifPrinter(std::cerr, compilerIdentity().version);
  case DiagnosticsFormat::Text: break;
  }
  return std::make_unique<diag::TextDiagnosticPrinter>(std::cerr, inv.color.value_or(isatty(STDERR_FILENO) != 0));
}

void printVersion(std::ostream &os) {
  CompilerIdentity id = compilerIdentity();
  os << "hrxcc version " << id.version << " (LLVM " << id.llvmVersion << ", Clang " << id.clangVersion << ")\n"
     << "Targets: ";
  // From the registry: each profile's name, with its other listed spellings in parentheses.
  std::vector<std::string> names;
  for (const TargetInfo *info : registeredTargets())
    for (const TargetProfile &p : info->profiles) {
      std::string other;
      for (const TargetSpelling &s : p.listed)
        if (s.spelling != p.name) other += (other.empty() ? "" : ", ") + s.spelling;
      names.push_back(other.empty() ? p.name : p.name + " (" + other + ")");
    }
  for (size_t i = 0; i < names.size(); ++i) os << (i ? ", " : "") << names[i];
  os << "\n";
}

void printTargets(std::ostream &os) {
  os << "Targets and profiles:\n";
  for (const auto &[name, description] : Target::all()) {
    std::string left = "  " + name;
    os << left << std::string(left.size() < 48 ? 48 - left.size() : 1, ' ') << description << '\n';
  }
}

// --print-targets-json: one object per profile, in --print-targets order (hrx check reads it to
// resolve --target without naming a target itself).
void printTargetsJson(std::ostream &os) {
  nlohmann::json profiles = nlohmann::json::array();
  for (const TargetInfo *info : registeredTargets())
    for (const TargetProfile &p : info->profiles) {
      nlohmann::json spellings = nlohmann::json::array();
      for (const TargetSpelling &s : p.listed) spellings.push_back(s.spelling);
      for (const std::string &a : p.aliases) spellings.push_back(a);
      profiles.push_back({{"name", p.name},
                          {"profile", p.profile},
                          {"backend", info->backend},
                          {"spellings", spellings},
                          {"description", p.listed.empty() ? std::string() : p.listed.front().description},
                          {"default", info->isDefault},
                          {"host_reference", info->hostReference},
                          {"offload_arch", info->offloadArch},
                          {"check_run_path", info->checkRunPath},
                          {"check_facts", p.checkFacts}});
    }
  os << profiles.dump(2) << '\n';
}

// --explain CODE. Returns the exit code.
int explainCode(const std::string &code, diag::DiagnosticEngine &diags) {
  if (std::optional<std::string> text = diag::explain(code)) {
    std::cout << *text << '\n';
    return kSuccess;
  }
  std::vector<std::string> codes;
  for (const diag::DiagInfo *d : diag::allDiagnostics()) codes.emplace_back(d->code);
  std::optional<std::string> hint = closestMatch(code, codes);
  diags.report(diag::DiagId::DriverUnknownDiagnosticCode, {})
      .arg("code", code)
      .arg("suggestion", hint ? "; did you mean '" + *hint + "'?" : std::string());
  return kUsageError;
}

int runDriver(int argc, char **argv) {
  diag::SourceManager sm;

  // 1. The command line, with its diagnostics held back until we know how to render them.
  diag::DiagnosticEngine commandLineDiags(sm);
  diag::DiagnosticOptions unlimited;
  unlimited.errorLimit = 0;
  commandLineDiags.setOptions(unlimited);
  DeferredDiagnostics deferred;
  commandLineDiags.addConsumer(&deferred);
  std::vector<std::string> args = expandResponseFiles({argv + 1, argv + argc}, commandLineDiags);
  ArgList argList = parseArgs(args, commandLineDiags);
  Invocation inv = buildInvocation(argList, commandLineDiags);
  // The jobs are derived from the action graph, so --print-phases, -### and what runs agree.
  std::vector<Action> graph;
  std::vector<Job> jobs;
  if (inv.immediate == ImmediateAction::None && !commandLineDiags.hasErrors()) {
    graph = buildActionGraph(inv);
    jobs = planJobs(inv, graph, commandLineDiags);
  }

  diag::DiagnosticEngine diags(sm);
  diags.setOptions(inv.diagOptions);
  DiagnosticRouter router(createRenderer(inv), inv.diagFormat == DiagnosticsFormat::Text);
  diags.addConsumer(&router);
  deferred.replay(diags);
  if (!inv.diagOptions.groupFlags.empty()) {
    std::vector<std::string> cxxGroups = cxxWarningGroups();
    std::vector<std::string_view> groups(cxxGroups.begin(), cxxGroups.end());
    diag::reportUnknownDiagnosticFlags(diags, groups);
  }
  struct FinishOnExit {
    diag::DiagnosticEngine &diags;
    ~FinishOnExit() { diags.finish(); }
  } finishOnExit{diags};
  if (diags.hasErrors()) return kUsageError;

  // 2. Requests answered without compiling.
  switch (inv.immediate) {
  case ImmediateAction::Help: printHelp(std::cout); return kSuccess;
  case ImmediateAction::HelpMarkdown: printHelpMarkdown(std::cout); return kSuccess;
  case ImmediateAction::Version: printVersion(std::cout); return kSuccess;
  case ImmediateAction::PrintTargets: printTargets(std::cout); return kSuccess;
  case ImmediateAction::PrintTargetsJson: printTargetsJson(std::cout); return kSuccess;
  case ImmediateAction::Explain: return explainCode(inv.explainCode, diags);
  case ImmediateAction::None: break;
  }

  // 3. Plan inspection.
  if (inv.printPhases || inv.printJobs || inv.printBindings) {
    if (inv.printPhases) printActionGraph(graph, std::cout);
    if (inv.printBindings) printBindings(jobs, graph, std::cout);
    if (inv.printJobs)
      for (const Job &job : jobs) printJob(job, inv, std::cerr);
    return kSuccess;
  }
  if (inv.verbose) {
    printVersion(std::cerr);
    std::cerr << "Target:";
    for (const Target &t : inv.targets) std::cerr << ' ' << t.name();
    std::cerr << '\n';
  }

  // 4. The jobs (split inputs run case by case instead).
  if (inv.splitInputFile) return runSplitInputFile(inv);
  if (inv.preprocessOnly) return Compilation(inv, diags).preprocess() ? kSuccess : kCompileError;
  std::unique_ptr<diag::VerifyDiagnosticConsumer> verifier;
  if (inv.verify) {
    verifier = std::make_unique<diag::VerifyDiagnosticConsumer>(inv.verifyPrefixes);
    router.setVerifier(verifier.get());
  }
  Compilation compilation(inv, diags);
  bool ok = compilation.run(jobs, inv.verbose ? &std::cerr : nullptr);
  if (verifier) {
    compilation.addAnnotatedSources(*verifier);
    router.setVerifier(nullptr);
    return verifier->check(sm, std::cerr) ? kSuccess : kCompileError;
  }
  return ok ? kSuccess : kCompileError;
}

}  // namespace

// No exception leaves hrxcc: a failure it did not foresee is still an error message.
int main(int argc, char **argv) {
  try {
    return runDriver(argc, argv);
  } catch (const std::exception &e) {
    std::cerr << "hrxcc: error: internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "hrxcc: error: internal error: an unknown exception\n";
  }
  return kCompileError;
}
