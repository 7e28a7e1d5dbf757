// Runs the planned jobs in process: reads the inputs, calls the Loom frontend and the compiler
// library, and writes every output atomically (OutputFile.h).
#pragma once

#include "ActionGraph.h"
#include "OutputFile.h"

#include <map>
#include <optional>
#include <span>

#include <ostream>

namespace hrx::diag {
class VerifyDiagnosticConsumer;
}

namespace hrx::driver {

class Compilation {
public:
  Compilation(const Invocation &inv, diag::DiagnosticEngine &diags) : inv_(inv), diags_(diags) {}

  // Runs `jobs` in order (printing each to `verbose` when set). Returns true when every job
  // succeeded and every output was written; otherwise no output is left behind.
  bool run(const std::vector<Job> &jobs, std::ostream *verbose);
  // -E: every C/C++/HIP input preprocessed for the first target, to -o or standard output.
  bool preprocess();

  // With -verify: registers the annotations of every source read so far.
  void addAnnotatedSources(diag::VerifyDiagnosticConsumer &verifier);

private:
  struct SourceText {
    std::string name;  // the name diagnostics and the library see (see sourceName)
    std::string text;
  };
  bool readInput(size_t index);
  bool readFile(const std::string &path, std::string &text);
  bool readConfigFiles(std::map<std::string, std::string> &config);
  // Per-input jobs (loom-check, loom-print, cxx-check) are independent: they run on up to -j
  // threads, each with its own SourceManager and engine, and their diagnostics are replayed in
  // job order.
  bool runInputJobs(const std::vector<const Job *> &jobs);
  bool runInputJob(const Job &job, diag::DiagnosticEngine &diags, std::vector<uint8_t> &printed) const;
  bool runCompileJobs(const std::vector<const Job *> &jobs);
  CxxSource cxxSource(size_t input) const;
  bool stage(const std::string &path, std::span<const uint8_t> bytes);
  // The depfile's dependencies: inputs, --header files, --config-file files, then the files the
  // library read (under --include).
  std::vector<std::string> dependencies() const;

  const Invocation &inv_;
  diag::DiagnosticEngine &diags_;
  std::vector<std::optional<SourceText>> inputs_;
  std::vector<std::pair<std::string, std::string>> headers_;  // virtual path -> contents
  std::vector<std::string> libraryFilesRead_;                 // CompileResult::filesRead, for the depfile
  OutputSet outputs_;
};

// The name a source gets in diagnostics and in the compile request: the path as spelled,
// lexically normalized, and made relative when it is an absolute path inside the working
// directory; "<stdin>" for "-". Nothing depends on the working directory beyond that.
std::string sourceName(const std::string &spelled);

}  // namespace hrx::driver
