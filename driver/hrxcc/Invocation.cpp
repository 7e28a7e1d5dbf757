#include "Invocation.h"

#include "hrx/TargetRegistry.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>

namespace hrx::driver {
namespace {

using diag::DiagId;

class Builder {
public:
  Builder(const ArgList &args, diag::DiagnosticEngine &diags) : args_(args), diags_(diags) {}
  Invocation build();

private:
  void invalid(const Arg &arg, std::string expected) {
    diags_.report(DiagId::DriverInvalidValue, {})
        .arg("value", arg.value)
        .arg("option", arg.asWritten())
        .arg("expected", std::move(expected));
  }
  void conflict(const Arg &first, const Arg &second, std::string reason) {
    diags_.report(DiagId::DriverConflictingOptions, {})
        .arg("first", first.asWritten())
        .arg("second", second.asWritten())
        .arg("reason", std::move(reason));
  }
  void unused(const Arg &arg, std::string reason) {
    diags_.report(DiagId::DriverUnusedArgument, {}).arg("arg", arg.asWritten()).arg("reason", std::move(reason));
  }
  std::optional<unsigned> number(const Arg &arg, unsigned min, unsigned max) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(arg.value.data(), arg.value.data() + arg.value.size(), value);
    if (ec != std::errc() || end != arg.value.data() + arg.value.size() || value < min || value > max) {
      invalid(arg, "an integer from " + std::to_string(min) + " to " + std::to_string(max));
      return std::nullopt;
    }
    return value;
  }

  void immediateActions();
  void inputs();
  void targets();
  void phases();
  void sources();
  void specialization();
  void codeGeneration();
  void sideOutputs();
  void diagnostics();

  const ArgList &args_;
  diag::DiagnosticEngine &diags_;
  Invocation inv_;
};

std::optional<InputKind> kindFromExtension(std::string_view path) {
  std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".loom" || ext == ".loom-test") return InputKind::Loom;  // .loom-test: loom-check fixtures
  if (ext == ".c") return InputKind::C;
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx") return InputKind::Cxx;
  if (ext == ".hip") return InputKind::Hip;
  return std::nullopt;
}

void Builder::immediateActions() {
  if (args_.has(OptionId::Help))
    inv_.immediate = ImmediateAction::Help;
  else if (args_.has(OptionId::HelpMarkdown))
    inv_.immediate = ImmediateAction::HelpMarkdown;
  else if (args_.has(OptionId::Version))
    inv_.immediate = ImmediateAction::Version;
  else if (args_.has(OptionId::PrintTargets))
    inv_.immediate = ImmediateAction::PrintTargets;
  else if (args_.has(OptionId::PrintTargetsJson))
    inv_.immediate = ImmediateAction::PrintTargetsJson;
  else if (const Arg *a = args_.last(OptionId::Explain)) {
    inv_.immediate = ImmediateAction::Explain;
    inv_.explainCode = a->value;
  }
}

void Builder::inputs() {
  std::optional<InputKind> forced;  // -x, for the inputs after it
  for (const Arg &arg : args_.args) {
    if (arg.id == OptionId::Language) {
      if (arg.value == "loom")
        forced = InputKind::Loom;
      else if (arg.value == "c")
        forced = InputKind::C;
      else if (arg.value == "c++")
        forced = InputKind::Cxx;
      else if (arg.value == "hip")
        forced = InputKind::Hip;
      else if (arg.value == "none")
        forced.reset();
      else
        invalid(arg, "loom, c, c++, hip or none");
      continue;
    }
    if (arg.id != OptionId::None) continue;
    std::optional<InputKind> kind = forced ? forced : kindFromExtension(arg.value);
    if (!kind) {
      diags_.report(DiagId::DriverUnknownInputType, {}).arg("path", arg.value);
      continue;
    }
    inv_.inputs.push_back({arg.value, *kind});
  }
  if (inv_.inputs.empty() && inv_.immediate == ImmediateAction::None && !diags_.hasErrors())
    diags_.report(DiagId::DriverNoInputs, {});
}

void Builder::targets() {
  std::vector<std::string> names;
  for (const auto &[name, description] : Target::all()) names.push_back(name);
  auto add = [&](const Arg &arg, bool offloadArch) {
    std::optional<Target> target = Target::parse(arg.value);
    if (!target) {
      std::optional<std::string> hint = closestMatch(arg.value, names);
      std::string valid;
      for (const std::string &n : names) valid += (valid.empty() ? "" : ", ") + n;
      diags_.report(DiagId::DriverUnknownTarget, {})
          .arg("target", arg.value)
          .arg("suggestion", hint ? "; did you mean '" + *hint + "'?" : std::string())
          .arg("valid", valid);
      return;
    }
    if (offloadArch && !target->info->offloadArch) {
      std::vector<std::string> arches;
      for (const TargetInfo *info : registeredTargets())
        if (info->offloadArch)
          for (const TargetProfile &p : info->profiles) arches.push_back(p.name);
      invalid(arg, "an AMDGPU architecture (" + joinNames(arches, "or") + "); use -target for " + target->name());
      return;
    }
    if (std::find(inv_.targets.begin(), inv_.targets.end(), *target) == inv_.targets.end())
      inv_.targets.push_back(*target);
  };
  for (const Arg &arg : args_.args) {
    if (arg.id == OptionId::Target)
      add(arg, false);
    else if (arg.id == OptionId::OffloadArch)
      add(arg, true);
  }
  if (inv_.targets.empty())
    if (std::optional<Target> fallback = defaultTarget()) inv_.targets.push_back(*fallback);
}

void Builder::phases() {
  inv_.syntaxOnly = args_.has(OptionId::SyntaxOnly);
  inv_.preprocessOnly = args_.has(OptionId::PreprocessOnly);
  // -fgpu-rdc: the device units of one invocation are linked into one code object (calls between
  // them resolve), as `hipcc -fgpu-rdc a.hip b.hip` does; a lone unit would need a relocatable
  // device object, which hrxcc does not write.
  if (const Arg *rdc = args_.last(OptionId::GpuRdc)) {
    size_t units = std::count_if(inv_.inputs.begin(), inv_.inputs.end(), [](const InputFile &in) {
      return in.kind == InputKind::Hip || in.kind == InputKind::Cxx || in.kind == InputKind::C;
    });
    if (units < 2)
      diags_.report(DiagId::DriverUnsupportedClangOption, {})
          .arg("option", rdc->asWritten())
          .arg("reason", "hrxcc writes no relocatable device objects; give every unit of the device program to one "
                         "hrxcc command (e.g. hrxcc -fgpu-rdc main.hip library.hip), which links them");
  }
  if (!args_.last(OptionId::Emit)) {  // Clang's -c and -S, when --emit does not say otherwise
    if (args_.has(OptionId::CompileOnly))
      inv_.emit = EmitKind::Object;
    else if (args_.has(OptionId::AssembleOnly))
      inv_.emit = EmitKind::Asm;
  }
  if (const Arg *emit = args_.last(OptionId::Emit)) {
    static constexpr std::pair<std::string_view, EmitKind> kinds[] = {{"loom", EmitKind::Loom},
                                                                      {"llvm", EmitKind::Llvm},
                                                                      {"asm", EmitKind::Asm},
                                                                      {"array-plan", EmitKind::ArrayPlan},
                                                                      {"array-plan-svg", EmitKind::ArrayPlanSvg},
                                                                      {"object", EmitKind::Object},
                                                                      {"artifact", EmitKind::Artifact}};
    auto it = std::find_if(std::begin(kinds), std::end(kinds), [&](auto &k) { return k.first == emit->value; });
    if (it == std::end(kinds))
      invalid(*emit, "loom, llvm, asm, array-plan, array-plan-svg, object or artifact");
    else
      inv_.emit = it->second;
    if (const Arg *syntaxOnly = args_.last(OptionId::SyntaxOnly))
      conflict(*syntaxOnly, *emit, "-fsyntax-only writes no output");
  }
  if (const Arg *o = args_.last(OptionId::Output)) {
    inv_.output = o->value;
    if (inv_.syntaxOnly) unused(*o, "-fsyntax-only writes no output");
    if (o->value == "-" && (inv_.emit == EmitKind::Object || inv_.emit == EmitKind::Artifact) && !inv_.syntaxOnly) {
      const Arg *emit = args_.last(OptionId::Emit);
      diags_.report(DiagId::DriverBinaryToTerminal, {}).arg("emit", emit ? emit->value : "artifact");
    }
  }
  if (inv_.emit == EmitKind::Loom)
    for (const InputFile &in : inv_.inputs)
      if (in.kind != InputKind::Loom) diags_.report(DiagId::DriverEmitNeedsLoom, {}).arg("path", in.path);
  // A form only some targets' pipelines produce (xdna's array plan) exists for those only.
  const TargetStage *stage = nullptr;
  for (const TargetInfo *info : registeredTargets())
    if (!stage) stage = info->stageEmitting(inv_.emit);
  if (stage) {
    const Arg implicitTarget{OptionId::Target, "-target ", inv_.targets.empty() ? "" : inv_.targets.front().name()};
    const Arg *target = args_.lastOf({OptionId::Target, OptionId::OffloadArch});
    for (const Target &t : inv_.targets)
      if (!t.info->stageEmitting(inv_.emit)) {
        EmitKind emit = inv_.emit;
        std::string producers =
            backendNames([&](const TargetInfo &info) { return info.stageEmitting(emit) != nullptr; });
        conflict(*args_.last(OptionId::Emit), target ? *target : implicitTarget,
                 stage->what + " exist for " + producers + " only");
        break;
      }
  }
  if (const Arg *s = args_.lastOf({OptionId::SaveTemps, OptionId::SaveTempsEq})) {
    if (s->id == OptionId::SaveTemps || s->value == "cwd")
      inv_.saveTemps = SaveTemps::Cwd;
    else if (s->value == "obj")
      inv_.saveTemps = SaveTemps::Obj;
    else
      invalid(*s, "cwd or obj");
  }
  if (const Arg *j = args_.last(OptionId::Jobs))
    if (std::optional<unsigned> n = number(*j, 1, 256)) inv_.jobs = *n;
  inv_.printJobs = args_.has(OptionId::HashHashHash);
  inv_.printPhases = args_.has(OptionId::PrintPhases);
  inv_.printBindings = args_.has(OptionId::PrintBindings);
  inv_.verbose = args_.has(OptionId::Verbose);
}

void Builder::sources() {
  for (const Arg &arg : args_.args) {
    if (arg.id == OptionId::Standard)
      inv_.standard = arg.value;  // checked by the importer
    else if (arg.id == OptionId::Define)
      inv_.defines.push_back(arg.value);
    else if (arg.id == OptionId::Undefine)
      inv_.defines.push_back("-U" + arg.value);
    else if (arg.id == OptionId::Include)
      inv_.includeDirs.push_back(arg.value);
    else if (arg.id == OptionId::PreInclude)
      inv_.preincludes.push_back(arg.value);
    else if (arg.id == OptionId::Header) {
      size_t eq = arg.value.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == arg.value.size())
        invalid(arg, "<virtual-path>=<file>");
      else
        inv_.headers.emplace_back(arg.value.substr(0, eq), arg.value.substr(eq + 1));
    }
  }
  inv_.hostHeaders = args_.has(OptionId::HostHeaders);
  if (const Arg *math = args_.lastOf({OptionId::FastMath, OptionId::NoFastMath}))
    inv_.fastMath = math->id == OptionId::FastMath;
  if (const Arg *standard = args_.last(OptionId::Standard))
    if (std::none_of(inv_.inputs.begin(), inv_.inputs.end(),
                     [](const InputFile &in) { return in.kind != InputKind::Loom; }))
      unused(*standard, "no C/C++ inputs");
}

void Builder::specialization() {
  for (const Arg &arg : args_.args) {
    if (arg.id == OptionId::Config) {
      size_t eq = arg.value.find('=');
      if (eq == std::string::npos || eq == 0)
        invalid(arg, "<key>=<value>");
      else
        inv_.configs.emplace_back(arg.value.substr(0, eq), arg.value.substr(eq + 1));
    } else if (arg.id == OptionId::ConfigFile) {
      inv_.configFiles.push_back(arg.value);
    }
  }
  if (const Arg *e = args_.last(OptionId::Entry)) {
    inv_.entry = e->value.starts_with('@') ? e->value.substr(1) : e->value;
    if (inv_.entry.empty()) invalid(*e, "an export name");
  }
  if (const Arg *r = args_.last(OptionId::Report)) {
    if (r->value == "none")
      inv_.report = ReportMode::None;
    else if (r->value == "summary")
      inv_.report = ReportMode::Summary;
    else if (r->value == "details")
      inv_.report = ReportMode::Details;
    else
      invalid(*r, "none, summary or details");
  }
}

void Builder::codeGeneration() {
  CompilerOptions &opts = inv_.compilerOptions;
  opts.workers = inv_.jobs;
  if (const Arg *o = args_.last(OptionId::OptLevel)) {
    if (o->value.size() == 1 && o->value[0] >= '0' && o->value[0] <= '3')
      opts.optLevel = o->value[0] - '0';
    else
      invalid(*o, "0, 1, 2 or 3");
  }
  opts.debugInfo = args_.has(OptionId::DebugInfo);
  // Target options apply to the targets that read them (TargetInfo::options).
  auto anyReads = [&](std::string_view option) {
    return std::any_of(inv_.targets.begin(), inv_.targets.end(),
                       [&](const Target &t) { return t.info->reads(option); });
  };
  auto readers = [](std::string_view option) {
    return backendNames([&](const TargetInfo &info) { return info.reads(option); });
  };
  if (const Arg *c = args_.last(OptionId::Columns)) {
    if (std::optional<unsigned> n = number(*c, 1, 8)) opts.columns = *n;
    std::string_view option = optionInfo(OptionId::Columns).spelling;  // "--columns="
    if (!anyReads(option))
      unused(*c, std::string(option.substr(0, option.size() - 1)) + " applies to " + readers(option) + " only");
  }
  if (const Arg *p = args_.last(OptionId::ProcessorMode)) {
    if (p->value == "default")
      opts.processorMode = ProcessorMode::Default;
    else if (p->value == "cu")
      opts.processorMode = ProcessorMode::Cu;
    else if (p->value == "wgp")
      opts.processorMode = ProcessorMode::Wgp;
    else
      invalid(*p, "default, cu or wgp");
    if (opts.processorMode != ProcessorMode::Default)
      for (const Target &t : inv_.targets)
        if (!t.info->reads(optionInfo(OptionId::ProcessorMode).spelling))
          diags_.report(DiagId::DriverProcessorModeNotAmdgpu, {}).arg("option", p->asWritten()).arg("target", t.name());
  }
  if (const Arg *h = args_.last(OptionId::HostTwin)) {
    if (h->value == "always" || h->value == "never")
      opts.hostTwin = h->value == "always";
    else
      invalid(*h, "always or never");
    std::string_view option = optionInfo(OptionId::HostTwin).spelling;  // "--host-twin="
    if (!anyReads(option))
      unused(*h, std::string(option.substr(0, option.size() - 1)) + " applies to " + readers(option) + " only");
  }
  if (const Arg *h = args_.last(OptionId::HostTwinOpt)) {
    if (h->value == "quick" || h->value == "full")
      opts.hostTwinQuick = h->value == "quick";
    else
      invalid(*h, "quick or full");
    std::string_view option = optionInfo(OptionId::HostTwinOpt).spelling;  // "--host-twin-opt="
    if (!anyReads(option))
      unused(*h, std::string(option.substr(0, option.size() - 1)) + " applies to " + readers(option) + " only");
  }
}

void Builder::sideOutputs() {
  if (const Arg *a = args_.last(OptionId::ReportOutput)) {
    inv_.reportOutput = a->value;
    if (inv_.report == ReportMode::None) inv_.report = ReportMode::Summary;
    // Reports have one target (their identity); a fat artifact embeds one per member instead.
    if (inv_.targets.size() > 1 && inv_.emit == EmitKind::Artifact && !inv_.syntaxOnly)
      conflict(*a, *args_.lastOf({OptionId::Target, OptionId::OffloadArch}),
               "a fat artifact embeds one compile report per member; read one with hrx report show FILE --member=N");
  }
  if (const Arg *a = args_.last(OptionId::ManifestOutput)) inv_.manifestOutput = a->value;
  if (const Arg *a = args_.last(OptionId::LaunchOutput)) inv_.launchOutput = a->value;

  DepFileOptions &dep = inv_.depFile;
  dep.enabled = args_.lastOf({OptionId::MD, OptionId::MMD}) != nullptr;
  if (const Arg *a = args_.last(OptionId::MF)) dep.path = a->value;
  for (const Arg *a : args_.all(OptionId::MT)) dep.targets.push_back(a->value);
  dep.phonyTargets = args_.has(OptionId::MP);
  if (!dep.enabled) {
    for (OptionId id : {OptionId::MF, OptionId::MT, OptionId::MP})
      if (const Arg *a = args_.last(id)) unused(*a, "no -MD or -MMD");
  } else if (inv_.syntaxOnly) {
    unused(*args_.lastOf({OptionId::MD, OptionId::MMD}), "-fsyntax-only writes no output");
    dep.enabled = false;
  }
}

void Builder::diagnostics() {
  diag::DiagnosticOptions &d = inv_.diagOptions;
  for (const Arg &arg : args_.args) {
    if (arg.id == OptionId::Warning || arg.id == OptionId::Remark || arg.id == OptionId::NoWarnings) {
      // -Wl,... and -Rpass=... belong to tools hrxcc does not run.
      if (!diag::parseDiagnosticFlag(arg.asWritten(), d))
        diags_.report(DiagId::DriverUnknownArgument, {}).arg("arg", arg.asWritten()).arg("suggestion", "");
    } else if (arg.id == OptionId::ErrorLimit) {
      if (std::optional<unsigned> n = number(arg, 0, 1000000)) d.errorLimit = *n;
    } else if (arg.id == OptionId::DiagnosticsFormat) {
      if (arg.value == "text")
        inv_.diagFormat = DiagnosticsFormat::Text;
      else if (arg.value == "json")
        inv_.diagFormat = DiagnosticsFormat::Json;
      else if (arg.value == "sarif")
        inv_.diagFormat = DiagnosticsFormat::Sarif;
      else
        invalid(arg, "text, json or sarif");
    } else if (arg.id == OptionId::SplitInputFile) {
      inv_.splitInputFile = true;
    } else if (arg.id == OptionId::Verify || arg.id == OptionId::VerifyEq) {
      inv_.verify = true;
      if (arg.id == OptionId::Verify) continue;
      for (const std::string &prefix : arg.values()) {
        bool ok = !prefix.empty() && std::isalpha(static_cast<unsigned char>(prefix[0])) &&
                  std::all_of(prefix.begin(), prefix.end(), [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
                  });
        if (!ok)
          invalid(arg, "prefixes that start with a letter and contain only letters, digits, '-' and '_'");
        else if (std::find(inv_.verifyPrefixes.begin(), inv_.verifyPrefixes.end(), prefix) == inv_.verifyPrefixes.end())
          inv_.verifyPrefixes.push_back(prefix);
      }
    }
  }
  if (const Arg *c = args_.lastOf({OptionId::ColorDiagnostics, OptionId::NoColorDiagnostics}))
    inv_.color = c->id == OptionId::ColorDiagnostics;
}

Invocation Builder::build() {
  diagnostics();
  immediateActions();
  inputs();
  targets();
  phases();
  sources();
  specialization();
  codeGeneration();
  sideOutputs();
  return std::move(inv_);
}

}  // namespace

std::string_view inputKindName(InputKind kind) {
  switch (kind) {
  case InputKind::Loom: return "loom";
  case InputKind::C: return "c";
  case InputKind::Cxx: return "c++";
  case InputKind::Hip: return "hip";
  }
  return "";
}

Invocation buildInvocation(const ArgList &args, diag::DiagnosticEngine &diags) { return Builder(args, diags).build(); }

}  // namespace hrx::driver
