#include "ActionGraph.h"

#include "DepFile.h"
#include "hrx/TargetRegistry.h"

#include <algorithm>
#include <filesystem>

namespace hrx::driver {
namespace {

std::string_view phaseName(Phase phase) {
  switch (phase) {
  case Phase::Input: return "input";
  case Phase::LoomParse: return "loom-parse";
  case Phase::CxxImport: return "cxx-import";
  case Phase::Link: return "link";
  case Phase::Specialize: return "specialize";
  case Phase::TargetStage: return "";  // Action::stage names it
  case Phase::Lower: return "lower";
  case Phase::Backend: return "backend";
  case Phase::Package: return "package";
  }
  return "";
}

std::string_view jobKindName(JobKind kind) {
  switch (kind) {
  case JobKind::LoomCheck: return "loom-check";
  case JobKind::LoomPrint: return "loom-print";
  case JobKind::CxxCheck: return "cxx-check";
  case JobKind::Compile: return "compile";
  case JobKind::DepFile: return "depfile";
  }
  return "";
}

std::string_view outputExtension(EmitKind emit) {
  switch (emit) {
  case EmitKind::Loom: return ".loom";
  case EmitKind::Llvm: return ".ll";
  case EmitKind::Asm: return ".s";
  case EmitKind::ArrayPlan: return ".plan";
  case EmitKind::ArrayPlanSvg: return ".svg";
  case EmitKind::Object: return ".o";
  case EmitKind::Artifact: return "";
  }
  return "";
}

// Position in the pipeline, so that -save-temps keeps exactly the forms before the requested one.
int pipelineRank(EmitKind kind) {
  switch (kind) {
  case EmitKind::Loom: return 0;
  case EmitKind::ArrayPlan:
  case EmitKind::ArrayPlanSvg: return 1;
  case EmitKind::Llvm: return 2;
  case EmitKind::Asm: return 3;
  case EmitKind::Object: return 4;
  case EmitKind::Artifact: return 5;
  }
  return 0;
}

std::string artifactName(const std::vector<Target> &targets) {
  if (targets.size() > 1) return "a.hrxfat";
  const std::string &extension = targets.front().info->artifactExtension;
  return extension.empty() ? "a.out" : "a" + extension;
}

std::string inputStem(const Invocation &inv) {
  const std::string &path = inv.inputs.front().path;
  return path == "-" ? "stdin" : std::filesystem::path(path).stem().string();
}

std::string quoteString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

std::string quoteList(const std::vector<std::string> &items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + quoteString(items[i]);
  return out + "]";
}

// Whether a target of `targets` reads the target option `id` (TargetInfo::options).
bool anyReads(const std::vector<Target> &targets, OptionId id) {
  for (const Target &t : targets)
    if (t.info->reads(optionInfo(id).spelling)) return true;
  return false;
}

// The request options a compile job passes to the library, spelled as hrxcc options.
std::vector<std::string> compileOptions(const Job &job, const Invocation &inv) {
  const CompilerOptions &o = inv.compilerOptions;
  std::vector<std::string> out;
  if (job.kind == JobKind::Compile) out.push_back("--emit=" + std::string(emitKindName(job.emit)));
  out.push_back("-O" + std::to_string(o.optLevel));
  if (o.debugInfo) out.push_back("-g");
  if (anyReads(job.targets, OptionId::Columns)) out.push_back("--columns=" + std::to_string(o.columns));
  if (anyReads(job.targets, OptionId::ProcessorMode)) {
    static constexpr std::string_view modes[] = {"default", "cu", "wgp"};
    out.push_back("--processor-mode=" + std::string(modes[static_cast<int>(o.processorMode)]));
  }
  if (job.kind == JobKind::Compile) {
    if (!inv.entry.empty()) out.push_back("--entry=" + inv.entry);
    for (const std::string &file : inv.configFiles) out.push_back("--config-file=" + file);
    for (const auto &[key, value] : inv.configs) out.push_back("--config=" + key + "=" + value);
    static constexpr std::string_view reports[] = {"none", "summary", "details"};
    out.push_back("--report=" + std::string(reports[static_cast<int>(inv.report)]));
  }
  for (const std::string &d : inv.defines) out.push_back(d.starts_with("-U") ? d : "-D" + d);
  for (const std::string &dir : inv.includeDirs) out.push_back("--include=" + dir);
  for (const auto &[virt, file] : inv.headers) out.push_back("--header=" + virt + "=" + file);
  for (const std::string &file : inv.preincludes) out.push_back("-include" + file);
  if (inv.hostHeaders) out.push_back("--host-headers");
  if (inv.fastMath) out.push_back("-ffast-math");
  return out;
}

bool samePath(const std::string &a, const std::string &b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  return std::filesystem::path(a).lexically_normal() == std::filesystem::path(b).lexically_normal();
}

Job makeJob(JobKind kind, std::vector<size_t> inputs, std::vector<Target> targets = {},
            EmitKind emit = EmitKind::Artifact) {
  Job job;
  job.kind = kind;
  job.inputs = std::move(inputs);
  job.targets = std::move(targets);
  job.emit = emit;
  return job;
}

}  // namespace

std::string_view emitKindName(EmitKind kind) {
  switch (kind) {
  case EmitKind::Loom: return "loom";
  case EmitKind::Llvm: return "llvm";
  case EmitKind::Asm: return "asm";
  case EmitKind::ArrayPlan: return "array-plan";
  case EmitKind::ArrayPlanSvg: return "array-plan-svg";
  case EmitKind::Object: return "object";
  case EmitKind::Artifact: return "artifact";
  }
  return "";
}

std::string defaultOutputName(const Invocation &inv, EmitKind emit, const std::vector<Target> &targets) {
  if (emit == EmitKind::Loom) return "-";
  if (emit == EmitKind::Artifact) return artifactName(targets);
  std::string name = inputStem(inv);
  if (inv.targets.size() > 1) name += "-" + targets.front().name();
  return name + std::string(outputExtension(emit));
}

std::vector<Action> buildActionGraph(const Invocation &inv) {
  std::vector<Action> graph;
  auto add = [&](Action a) {
    graph.push_back(std::move(a));
    return graph.size() - 1;
  };
  std::vector<size_t> loomModules;
  std::vector<size_t> cxxInputs;
  for (size_t i = 0; i < inv.inputs.size(); ++i) {
    const InputFile &in = inv.inputs[i];
    Action inputAction{Phase::Input, {}, std::string(inputKindName(in.kind)), in.path, std::nullopt};
    inputAction.inputFile = i;
    size_t input = add(std::move(inputAction));
    if (in.kind == InputKind::Loom) {
      bool printed = inv.emit == EmitKind::Loom && !inv.syntaxOnly;
      Action parse{Phase::LoomParse,
                   {input},
                   inv.syntaxOnly ? "none"
                   : printed      ? "loom"
                                  : "loom-module",
                   "",
                   std::nullopt};
      if (printed) parse.forms = {EmitKind::Loom};
      loomModules.push_back(add(std::move(parse)));
    } else {
      cxxInputs.push_back(input);
    }
  }
  if (inv.syntaxOnly) {
    for (size_t input : cxxInputs)
      for (const Target &t : inv.targets) add({Phase::CxxImport, {input}, "none", "", t});
    return graph;
  }
  if (inv.emit == EmitKind::Loom) return graph;

  std::vector<size_t> packaged;
  for (const Target &t : inv.targets) {
    std::vector<size_t> linkInputs = loomModules;
    for (size_t input : cxxInputs) linkInputs.push_back(add({Phase::CxxImport, {input}, "llvm-ir", "", t}));
    size_t node = add({Phase::Link, linkInputs, "program", "", t});
    node = add({Phase::Specialize, {node}, "program", "", t});
    bool stopped = false;
    for (const TargetStage &stage : t.info->stagesBeforeLowering) {
      node = add({Phase::TargetStage, {node}, stage.produces, "", t, stage.phase, stage.emits});
      stopped = std::find(stage.emits.begin(), stage.emits.end(), inv.emit) != stage.emits.end();
      if (stopped) break;
    }
    if (stopped) continue;
    node = add({Phase::Lower, {node}, "llvm-ir", "", t, "", {EmitKind::Llvm}});
    if (inv.emit == EmitKind::Llvm) continue;
    node = add({Phase::Backend,
                {node},
                inv.emit == EmitKind::Asm ? "asm" : "object",
                "",
                t,
                "",
                {EmitKind::Asm, EmitKind::Object}});
    if (inv.emit != EmitKind::Artifact) continue;
    if (inv.targets.size() == 1)
      add({Phase::Package, {node}, "artifact", "", t, "", {EmitKind::Artifact}});
    else
      packaged.push_back(node);
  }
  if (!packaged.empty()) add({Phase::Package, packaged, "fat-artifact", "", std::nullopt, "", {EmitKind::Artifact}});
  return graph;
}

void printActionGraph(const std::vector<Action> &actions, std::ostream &os) {
  for (size_t i = 0; i < actions.size(); ++i) {
    const Action &a = actions[i];
    os << i << ": " << (a.phase == Phase::TargetStage ? std::string_view(a.stage) : phaseName(a.phase)) << ", ";
    if (a.phase == Phase::Input) {
      os << quoteString(a.path);
    } else {
      os << '{';
      for (size_t j = 0; j < a.inputs.size(); ++j) os << (j ? ", " : "") << a.inputs[j];
      os << '}';
    }
    os << ", " << a.type;
    if (a.target) os << ", (" << a.target->name() << ')';
    os << '\n';
  }
}

std::vector<Job> planJobs(const Invocation &inv, const std::vector<Action> &graph, diag::DiagnosticEngine &diags) {
  std::vector<Job> jobs;
  std::vector<size_t> allInputs;
  for (size_t i = 0; i < inv.inputs.size(); ++i) allInputs.push_back(i);
  // The files an action reads, through its inputs.
  auto inputFiles = [&](size_t action) {
    std::vector<bool> seen(graph.size());
    std::vector<size_t> stack = {action}, files;
    while (!stack.empty()) {
      size_t a = stack.back();
      stack.pop_back();
      if (seen[a]) continue;
      seen[a] = true;
      if (graph[a].phase == Phase::Input) files.push_back(graph[a].inputFile);
      stack.insert(stack.end(), graph[a].inputs.begin(), graph[a].inputs.end());
    }
    std::sort(files.begin(), files.end());
    return files;
  };

  // The requested results are the graph's sinks: the actions nothing else consumes (an input
  // always has a consumer). Each becomes one job.
  std::vector<bool> consumed(graph.size());
  for (const Action &a : graph)
    for (size_t input : a.inputs) consumed[input] = true;
  std::vector<Job> finals;
  for (size_t a = 0; a < graph.size(); ++a) {
    const Action &action = graph[a];
    if (consumed[a] || action.phase == Phase::Input) continue;
    Job job;
    job.action = a;
    job.inputs = inputFiles(a);
    if (action.phase == Phase::LoomParse) {
      job.kind = inv.syntaxOnly ? JobKind::LoomCheck : JobKind::LoomPrint;
      job.emit = inv.syntaxOnly ? EmitKind::Artifact : EmitKind::Loom;
    } else if (action.phase == Phase::CxxImport) {
      job.kind = JobKind::CxxCheck;
      job.targets = {*action.target};
    } else {
      // A compile job runs the library over every input; a fat package, for every target.
      job.kind = JobKind::Compile;
      job.inputs = allInputs;
      job.targets = action.target ? std::vector<Target>{*action.target} : inv.targets;
      job.emit = inv.emit;
    }
    finals.push_back(std::move(job));
  }
  if (inv.syntaxOnly) return finals;  // checks write nothing

  if (inv.output && finals.size() > 1)
    diags.report(diag::DiagId::DriverOutputWithMultipleOutputs, {}).arg("count", static_cast<long long>(finals.size()));
  for (Job &job : finals) job.output = inv.output ? *inv.output : defaultOutputName(inv, job.emit, job.targets);

  bool sideOutputs = inv.reportOutput || inv.manifestOutput || inv.launchOutput;
  if (sideOutputs && (finals.size() != 1 || finals.front().kind != JobKind::Compile)) {
    diags.report(diag::DiagId::DriverConflictingOptions, {})
        .arg("first", inv.reportOutput     ? "--report-output"
                      : inv.manifestOutput ? "--manifest-output"
                                           : "--launch-output")
        .arg("second", "--emit=" + std::string(emitKindName(inv.emit)))
        .arg("reason", "side outputs belong to exactly one compile job");
  } else if (sideOutputs) {
    finals.front().reportOutput = inv.reportOutput;
    finals.front().manifestOutput = inv.manifestOutput;
    finals.front().launchOutput = inv.launchOutput;
  }

  // -save-temps: the result of every earlier action in a form its target keeps
  // (TargetInfo::savedForms), in graph order.
  if (inv.saveTemps != SaveTemps::None && inv.emit != EmitKind::Loom) {
    std::filesystem::path dir;
    if (inv.saveTemps == SaveTemps::Obj && finals.front().output != "-")
      dir = std::filesystem::path(finals.front().output).parent_path();
    for (size_t a = 0; a < graph.size(); ++a) {
      const Action &action = graph[a];
      if (!action.target) continue;
      const Target &t = *action.target;
      for (EmitKind kind : action.forms) {
        const std::vector<EmitKind> &kept = t.info->savedForms;
        if (std::find(kept.begin(), kept.end(), kind) == kept.end()) continue;
        if (pipelineRank(kind) >= pipelineRank(inv.emit)) continue;
        Job temp = makeJob(JobKind::Compile, allInputs, {t}, kind);
        temp.action = a;
        temp.intermediate = true;
        temp.output = (dir / (inputStem(inv) + "-" + t.name() + std::string(outputExtension(kind)))).string();
        jobs.push_back(std::move(temp));
      }
    }
  }
  for (Job &job : finals) jobs.push_back(std::move(job));

  if (inv.depFile.enabled) {
    const std::string &main = jobs.back().output;
    if (main == "-" && inv.depFile.targets.empty())
      diags.report(diag::DiagId::DriverConflictingOptions, {})
          .arg("first", "-MD")
          .arg("second", "-o -")
          .arg("reason", "standard output is no make target; name one with -MT");
    Job dep = makeJob(JobKind::DepFile, allInputs);
    dep.output = inv.depFile.path ? *inv.depFile.path : defaultDepFilePath(main == "-" ? inputStem(inv) + ".d" : main);
    jobs.push_back(std::move(dep));
  }
  // Writing (or, on failure, removing) an output must never touch an input.
  for (const Job &job : jobs)
    for (const std::string *out :
         {&job.output, job.reportOutput ? &*job.reportOutput : nullptr,
          job.manifestOutput ? &*job.manifestOutput : nullptr, job.launchOutput ? &*job.launchOutput : nullptr})
      if (out && !out->empty() && *out != "-")
        for (const InputFile &in : inv.inputs)
          if (samePath(*out, in.path))
            diags.report(diag::DiagId::DriverConflictingOptions, {})
                .arg("first", *out)
                .arg("second", in.path)
                .arg("reason", "the output would overwrite an input");
  return jobs;
}

void printBindings(const std::vector<Job> &jobs, const std::vector<Action> &graph, std::ostream &os) {
  for (const Job &job : jobs) {
    os << "# ";
    if (job.action) {
      const Action &a = graph[*job.action];
      os << "action " << *job.action << " ("
         << (a.phase == Phase::TargetStage ? std::string_view(a.stage) : phaseName(a.phase)) << ") -> ";
    }
    os << quoteString(jobKindName(job.kind));
    if (!job.targets.empty()) {
      os << " (";
      for (size_t i = 0; i < job.targets.size(); ++i) os << (i ? ", " : "") << job.targets[i].name();
      os << ')';
    }
    if (job.kind == JobKind::Compile) os << ", emit: " << emitKindName(job.emit);
    if (!job.output.empty()) os << ", output: " << quoteString(job.output);
    os << '\n';
  }
}

void printJob(const Job &job, const Invocation &inv, std::ostream &os) {
  os << ' ' << quoteString(jobKindName(job.kind));
  if (!job.targets.empty()) {
    os << " (";
    for (size_t i = 0; i < job.targets.size(); ++i) os << (i ? ", " : "") << job.targets[i].name();
    os << ')';
  }
  std::vector<std::string> inputs;
  for (size_t i : job.inputs) inputs.push_back(inv.inputs[i].path);
  os << " inputs: " << quoteList(inputs);
  std::vector<std::string> outputs;
  if (!job.output.empty()) outputs.push_back(job.output);
  for (const auto *side : {&job.reportOutput, &job.manifestOutput, &job.launchOutput})
    if (*side) outputs.push_back(**side);
  if (!outputs.empty()) os << " outputs: " << quoteList(outputs);
  if (job.kind == JobKind::Compile || job.kind == JobKind::CxxCheck)
    os << " options: " << quoteList(compileOptions(job, inv));
  if (job.kind == JobKind::DepFile) {
    std::vector<std::string> opts;
    for (const std::string &t : inv.depFile.targets) opts.push_back("-MT" + t);
    if (inv.depFile.phonyTargets) opts.push_back("-MP");
    if (!opts.empty()) os << " options: " << quoteList(opts);
  }
  os << '\n';
}

}  // namespace hrx::driver
