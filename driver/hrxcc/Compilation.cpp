#include "Compilation.h"

#include "DepFile.h"
#include "hrx/diag/Verify.h"
#include "hrx/loom/Loom.h"

#include "hrx/format/FileIO.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

namespace hrx::driver {
namespace {

using diag::DiagId;

std::vector<uint8_t> toBytes(std::string_view text) { return {text.begin(), text.end()}; }

// Collects the diagnostics of one parallel job.
class RecordingConsumer : public diag::DiagnosticConsumer {
public:
  void handle(const diag::Diagnostic &diag, const diag::SourceManager &) override { recorded.push_back(diag); }
  std::vector<diag::Diagnostic> recorded;
};

// Re-reports `recorded` (located in `from`) to `to`, whose SourceManager receives copies of the
// files, so that diagnostics come out in job order whatever -j is.
void replayDiagnostics(const std::vector<diag::Diagnostic> &recorded, const diag::SourceManager &from,
                       diag::DiagnosticEngine &to) {
  std::vector<uint32_t> fileMap;
  for (uint32_t file = 1; file <= from.fileCount(); ++file)
    fileMap.push_back(to.sourceManager().addBuffer(std::string(from.name(file)), std::string(from.contents(file)),
                                                   from.isVirtual(file)));
  auto remap = [&](diag::SourceRange range) {
    for (diag::SourceLocation *loc : {&range.begin, &range.end})
      if (loc->isValid()) loc->file = fileMap[loc->file - 1];
    return range;
  };
  for (const diag::Diagnostic &d : recorded) {
    std::vector<diag::RelatedNote> notes;
    for (const diag::RelatedNote &n : d.notes) notes.push_back({remap(n.range), n.message});
    if (d.id == DiagId::External) {
      to.reportExternal(d.severity, remap(d.range), d.message, d.flag, std::move(notes));
      continue;
    }
    diag::DiagnosticBuilder builder = to.report(d.id, remap(d.range));
    for (const auto &[name, value] : d.params) builder.arg(name, value);
    for (diag::RelatedNote &n : notes) builder.note(n.range, std::move(n.message));
    for (const diag::FixIt &f : d.fixits) builder.fixit(remap(f.range), f.replacement);
  }
}

// True when `result` is ok; a failure the library gave no diagnostic for gets DRIVER/018.
bool checkResult(const CompileResult &result, diag::DiagnosticEngine &diags, std::string job, unsigned errorsBefore) {
  if (result.ok) return true;
  if (diags.errorCount() == errorsBefore)
    diags.report(DiagId::DriverJobFailed, {})
        .arg("job", std::move(job))
        .arg("reason", "the compiler library reported failure without a diagnostic");
  return false;
}

void addUnique(std::vector<std::string> &list, const std::string &item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

}  // namespace

std::string sourceName(const std::string &spelled) {
  if (spelled == "-") return "<stdin>";
  std::filesystem::path path = std::filesystem::path(spelled).lexically_normal();
  if (path.is_absolute()) {
    std::error_code ec;
    std::filesystem::path rel = path.lexically_relative(std::filesystem::current_path(ec));
    if (!ec && !rel.empty() && *rel.begin() != "..") return rel.string();
  }
  return path.string();
}

bool Compilation::readFile(const std::string &path, std::string &text) {
  if (path == "-") {
    std::stringstream in;
    in << std::cin.rdbuf();
    text = in.str();
    return true;
  }
  auto read = io::readTextFile(path);
  if (!read) {
    diags_.report(DiagId::DriverCannotOpenFile, {})
        .arg("path", path)
        .arg("reason", io::failureReason(read.status(), path));
    return false;
  }
  text = std::move(*read);
  return true;
}

bool Compilation::readInput(size_t index) {
  if (inputs_[index]) return true;
  const InputFile &in = inv_.inputs[index];
  SourceText source{sourceName(in.path), {}};
  if (!readFile(in.path, source.text)) return false;
  inputs_[index] = std::move(source);
  return true;
}

bool Compilation::readConfigFiles(std::map<std::string, std::string> &config) {
  for (const std::string &path : inv_.configFiles) {
    std::string text;
    if (!readFile(path, text)) return false;
    // JSONC as upstream Loom reads it: comments allowed, nested object keys joined with '.'.
    nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
    auto invalid = [&](std::string reason) {
      diags_.report(DiagId::DriverInvalidConfigFile, {}).arg("path", path).arg("reason", std::move(reason));
      return false;
    };
    if (doc.is_discarded()) return invalid("not valid JSON");
    if (!doc.is_object()) return invalid("expected a JSON object of configuration constants");
    std::function<bool(const nlohmann::json &, const std::string &)> flatten = [&](const nlohmann::json &object,
                                                                                   const std::string &prefix) {
      for (const auto &[name, value] : object.items()) {
        std::string key = prefix + name;
        if (value.is_object()) {
          if (!flatten(value, key + ".")) return false;
        } else if (value.is_string()) {
          config[key] = value.get<std::string>();
        } else if (value.is_number() || value.is_boolean()) {
          config[key] = value.dump();
        } else {
          return invalid("member '" + key + "' must be a string, number or boolean");
        }
      }
      return true;
    };
    if (!flatten(doc, "")) return false;
  }
  for (const auto &[key, value] : inv_.configs) config[key] = value;
  return true;
}

CxxSource Compilation::cxxSource(size_t input) const {
  CxxSource src;
  src.name = inputs_[input]->name;
  src.text = inputs_[input]->text;
  src.language = inv_.inputs[input].kind == InputKind::C     ? CxxSource::Language::C
                 : inv_.inputs[input].kind == InputKind::Hip ? CxxSource::Language::Hip
                                                             : CxxSource::Language::Cxx;
  src.headers = headers_;
  src.standard = inv_.standard;
  src.includeDirs = inv_.includeDirs;
  src.defines = inv_.defines;
  src.preincludes = inv_.preincludes;
  src.hostHeaders = inv_.hostHeaders;
  src.fastMath = inv_.fastMath;
  // Clang searches the directory of the file for its quoted includes; standard input has none.
  if (const std::string &path = inv_.inputs[input].path; path != "-") {
    std::filesystem::path dir = std::filesystem::path(path).parent_path();
    src.directory = dir.empty() ? std::string(".") : dir.string();
  }
  return src;
}

bool Compilation::stage(const std::string &path, std::span<const uint8_t> bytes) {
  std::string error;
  if (outputs_.stage(path, bytes, error)) return true;
  diags_.report(DiagId::DriverCannotWriteFile, {}).arg("path", path).arg("reason", error);
  return false;
}

bool Compilation::runInputJob(const Job &job, diag::DiagnosticEngine &diags, std::vector<uint8_t> &printed) const {
  const SourceText &source = *inputs_[job.inputs.front()];
  if (job.kind == JobKind::CxxCheck) {
    Compiler compiler;
    compiler.sources({}, {cxxSource(job.inputs.front())});
    CompileRequest request{job.targets, {}, inv_.compilerOptions, EmitKind::Llvm};
    return checkResult(compiler.compile(request, diags), diags, "checking '" + source.name + "'", 0);
  }
  diag::SourceManager &sm = diags.sourceManager();
  uint32_t file = sm.addBuffer(source.name, source.text);
  loom::OwningModule module = loom::parseModule(sm, file, diags);
  if (module && !diags.hasErrors()) loom::verifyModule(*module, diags);
  if (!module || diags.hasErrors()) return false;
  if (job.kind == JobKind::LoomPrint) {
    std::ostringstream text;
    loom::printModule(*module, text);
    printed = toBytes(text.str());
  }
  return true;
}

bool Compilation::runInputJobs(const std::vector<const Job *> &jobs) {
  struct Run {
    diag::SourceManager sm;
    RecordingConsumer recorder;
    std::vector<uint8_t> printed;
    bool ok = false;
  };
  std::vector<std::unique_ptr<Run>> runs;
  for (const Job *job : jobs) {
    if (!readInput(job->inputs.front())) return false;
    runs.push_back(std::make_unique<Run>());
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < jobs.size(); i = next++) {
      Run &run = *runs[i];
      diag::DiagnosticEngine engine(run.sm);
      diag::DiagnosticOptions options = diags_.options();
      options.errorLimit = 0;  // the driver's engine applies the limit on replay
      engine.setOptions(std::move(options));
      engine.addConsumer(&run.recorder);
      run.ok = runInputJob(*jobs[i], engine, run.printed);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::min<size_t>(inv_.jobs, jobs.size()); ++t) pool.emplace_back(work);
  work();
  for (std::thread &t : pool) t.join();

  bool ok = true;
  for (size_t i = 0; i < jobs.size(); ++i) {
    replayDiagnostics(runs[i]->recorder.recorded, runs[i]->sm, diags_);
    ok &= runs[i]->ok;
    if (runs[i]->ok && jobs[i]->kind == JobKind::LoomPrint) ok &= stage(jobs[i]->output, runs[i]->printed);
  }
  return ok;
}

bool Compilation::runCompileJobs(const std::vector<const Job *> &jobs) {
  std::vector<LoomSource> loom;
  std::vector<CxxSource> cxx;
  for (size_t i = 0; i < inv_.inputs.size(); ++i) {
    if (!readInput(i)) return false;
    if (inv_.inputs[i].kind == InputKind::Loom) loom.push_back({inputs_[i]->name, inputs_[i]->text});
  }
  for (size_t i = 0; i < inv_.inputs.size(); ++i)
    if (inv_.inputs[i].kind != InputKind::Loom) cxx.push_back(cxxSource(i));
  std::map<std::string, std::string> config;
  if (!readConfigFiles(config)) return false;

  std::vector<CompileRequest> requests;
  for (const Job *job : jobs) {
    CompileRequest request;
    request.targets = job->targets;
    request.emit = job->emit;
    request.options = inv_.compilerOptions;
    request.specialization = {inv_.entry, config, inv_.report};
    requests.push_back(std::move(request));
  }
  Compiler compiler;
  compiler.sources(std::move(loom), std::move(cxx));
  unsigned errorsBefore = diags_.errorCount();
  std::vector<CompileResult> results = requests.size() == 1
                                           ? std::vector<CompileResult>{compiler.compile(requests.front(), diags_)}
                                           : compiler.compileAll(requests, diags_);
  bool ok = true;
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job &job = *jobs[i];
    const CompileResult &result = results[i];
    for (const std::string &file : result.filesRead) addUnique(libraryFilesRead_, file);
    if (!checkResult(result, diags_, "compiling " + std::string(emitKindName(job.emit)), errorsBefore)) {
      ok = false;
      continue;
    }
    ok &= stage(job.output, result.bytes);
    // A side output the library did not produce is an error, never an empty file.
    auto side = [&](const std::optional<std::string> &path, const std::string &text, std::string_view what) {
      if (!path) return;
      if (!text.empty()) {
        ok &= stage(*path, toBytes(text));
        return;
      }
      diags_.report(DiagId::DriverJobFailed, {})
          .arg("job", "writing '" + *path + "'")
          .arg("reason", "the compiler library returned no " + std::string(what));
      ok = false;
    };
    side(job.reportOutput, result.reportJson, "compile report");
    auto sideOutput = [&](const std::string &name) {
      auto it = result.sideOutputs.find(name);
      return it == result.sideOutputs.end() ? std::string() : it->second;
    };
    side(job.manifestOutput, sideOutput("manifest"), "manifest");
    side(job.launchOutput, sideOutput("launch"), "launch program (AMDGPU targets only)");
  }
  return ok;
}

bool Compilation::run(const std::vector<Job> &jobs, std::ostream *verbose) {
  inputs_.assign(inv_.inputs.size(), std::nullopt);
  for (const Job &job : jobs) {
    outputs_.expect(job.output);
    for (const auto *side : {&job.reportOutput, &job.manifestOutput, &job.launchOutput})
      if (*side) outputs_.expect(**side);
  }
  for (const auto &[virt, path] : inv_.headers) {
    std::string text;
    if (!readFile(path, text)) {
      outputs_.discard();
      return false;
    }
    headers_.emplace_back(virt, std::move(text));
  }

  std::vector<const Job *> inputJobs, compileJobs;
  const Job *depFileJob = nullptr;
  for (const Job &job : jobs) {
    if (job.kind == JobKind::Compile)
      compileJobs.push_back(&job);
    else if (job.kind == JobKind::DepFile)
      depFileJob = &job;
    else
      inputJobs.push_back(&job);
  }
  auto announce = [&](const std::vector<const Job *> &batch) {
    if (verbose)
      for (const Job *job : batch) printJob(*job, inv_, *verbose);
  };
  bool ok = true;
  if (!inputJobs.empty()) {
    announce(inputJobs);
    ok = runInputJobs(inputJobs);
  }
  if (ok && !compileJobs.empty()) {
    announce(compileJobs);
    ok = runCompileJobs(compileJobs);
  }
  // The depfile comes last: it lists what the other jobs read.
  if (ok && depFileJob) {
    announce({depFileJob});
    std::vector<std::string> targets = inv_.depFile.targets;
    if (targets.empty()) targets.push_back(jobs[jobs.size() - 2].output);
    ok = stage(depFileJob->output, toBytes(renderDepFile(targets, dependencies(), inv_.depFile.phonyTargets)));
  }
  if (!ok || diags_.hasErrors()) {
    outputs_.discard();
    return false;
  }
  std::string failedPath, error;
  if (!outputs_.commit(failedPath, error)) {
    diags_.report(DiagId::DriverCannotWriteFile, {}).arg("path", failedPath).arg("reason", error);
    return false;
  }
  return true;
}

bool Compilation::preprocess() {
  inputs_.assign(inv_.inputs.size(), std::nullopt);
  for (const auto &[virt, path] : inv_.headers) {
    std::string text;
    if (!readFile(path, text)) return false;
    headers_.emplace_back(virt, std::move(text));
  }
  bool ok = true;
  std::string text;
  for (size_t i = 0; i < inv_.inputs.size(); ++i) {
    if (!readInput(i)) return false;
    if (inv_.inputs[i].kind == InputKind::Loom) {
      diags_.report(DiagId::DriverPreprocessLoom, {}).arg("path", inputs_[i]->name);
      ok = false;
      continue;
    }
    std::optional<std::string> out =
        Compiler::preprocess(cxxSource(i), inv_.targets.front(), inv_.compilerOptions, diags_, &libraryFilesRead_);
    if (out)
      text += *out;
    else
      ok = false;
  }
  if (!ok || diags_.hasErrors()) return false;
  std::string path = inv_.output.value_or("-");
  outputs_.expect(path);
  if (!stage(path, toBytes(text))) return false;
  std::string failedPath, error;
  if (!outputs_.commit(failedPath, error)) {
    diags_.report(DiagId::DriverCannotWriteFile, {}).arg("path", failedPath).arg("reason", error);
    return false;
  }
  return true;
}

std::vector<std::string> Compilation::dependencies() const {
  std::vector<std::string> deps;
  for (const InputFile &in : inv_.inputs)
    if (in.path != "-") addUnique(deps, sourceName(in.path));
  for (const auto &[virt, path] : inv_.headers) addUnique(deps, sourceName(path));
  for (const std::string &path : inv_.configFiles) addUnique(deps, sourceName(path));
  for (const std::string &path : libraryFilesRead_) addUnique(deps, path);
  return deps;
}

void Compilation::addAnnotatedSources(diag::VerifyDiagnosticConsumer &verifier) {
  // Inputs a failed job never reached still carry annotations (e.g. for a missing --header).
  diag::SourceManager &sm = diags_.sourceManager();
  std::set<std::string, std::less<>> names;
  for (uint32_t file = 1; file <= sm.fileCount(); ++file) names.insert(std::string(sm.name(file)));
  for (size_t i = 0; i < inv_.inputs.size(); ++i)
    if ((inputs_[i] || readInput(i)) && !names.count(inputs_[i]->name)) {
      sm.addBuffer(inputs_[i]->name, inputs_[i]->text);
      names.insert(inputs_[i]->name);
    }
  names.clear();
  for (uint32_t file = 1; file <= sm.fileCount(); ++file)
    if (names.insert(std::string(sm.name(file))).second) verifier.addAnnotatedFile(sm, file, diags_);
}

}  // namespace hrx::driver
