// The compiler library API, mirroring hrx-rs's loom::Compiler (seed "Compilation").
// hrxcc is a thin client of it; embedders compile in process the same way.
#pragma once

#include "hrx/diag/Diagnostic.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hrx {

// Identity of this compiler build, part of every artifact and report.
struct CompilerIdentity {
  std::string name;          // "hrxcc"
  std::string version;       // "0.1.0"
  std::string llvmVersion;   // "22.1.8"
  std::string clangVersion;  // "22.1.8"
};
CompilerIdentity compilerIdentity();

// The warning groups of the C/C++ frontend (Clang's), which -W<group> options may also name.
std::vector<std::string> cxxWarningGroups();

struct TargetInfo;  // hrx/TargetRegistry.h: what a registered backend says about itself

// A compile target: a registered backend and one of its profiles. Profiles of this build:
// "amd.xdna.strix_halo.17f0_11" (xdna), "gfx1151", "gfx11-generic" (amdgpu), "x86_64" (host
// reference device); --print-targets lists them.
struct Target {
  const TargetInfo *info = nullptr;  // the backend (owned by the registry); null: none
  std::string profile;

  // Named shorthands for this build's targets (parse of their canonical spelling).
  static Target xdna();
  static Target gfx1151();
  static Target gfx11Generic();
  static Target host();
  // Any spelling a registered backend accepts ("xdna", "amd.xdna.aie2p:amd.xdna.strix_halo.17f0_11",
  // "gfx1151", "gfx11-generic", "host", ...); nullopt otherwise.
  static std::optional<Target> parse(std::string_view name);
  // Every listed spelling with a one-line description (for --print-targets).
  static std::vector<std::pair<std::string, std::string>> all();
  std::string name() const;  // canonical spelling
  friend bool operator==(const Target &, const Target &) = default;
};

enum class ReportMode { None, Summary, Details };
enum class ProcessorMode { Default, Cu, Wgp };  // AMDGPU only

// A Loom module. `name` is what diagnostics print.
struct LoomSource {
  std::string name;
  std::string text;
};

// A named C23/C++26 translation unit with explicit virtual headers; there is no implicit host
// include search.
struct CxxSource {
  enum class Language { Auto, C, Cxx, Hip };  // Auto: from the extension (.c → C23, .hip → HIP, else C++26)
  std::string name;
  std::string text;
  Language language = Language::Auto;
  std::vector<std::pair<std::string, std::string>> headers;  // virtual path → contents
  std::vector<std::string> includeDirs;                      // virtual include roots
  std::vector<std::string> defines;                          // "N=4", "-UX" for undefine
  // "-std=" value: "c23" (the default for C) or newer, "c++26" (the default for C++) or newer.
  std::string standard = {};
  std::string directory = {};                 // the real directory of the source file (quoted includes)
  std::vector<std::string> preincludes = {};  // -include files
  bool hostHeaders = false;                   // mount the host's C/C++ headers (--host-headers)
  bool fastMath = false;                      // -ffast-math
};

struct Specialization {
  std::string symbol;                         // export to compile (empty: every export)
  std::map<std::string, std::string> config;  // --config key → value (textual)
  ReportMode report = ReportMode::None;
};

struct CompilerOptions {
  ProcessorMode processorMode = ProcessorMode::Default;
  unsigned columns = 1;    // xdna context width 1..8
  unsigned optLevel = 2;   // -O0..-O3
  bool debugInfo = false;  // -g
  unsigned workers = 1;    // compile_all pool size
  std::string hostCpu = "x86-64-v2";
  bool hostTwin = true;  // AMDGPU artifacts embed the host twin (--host-twin=never clears it)
  bool hostTwinQuick = true;  // ... optimized by the quick twin pipeline (--host-twin-opt=full clears it)
};

// What to produce. Artifact is the default; the others are intermediate forms (text except
// Object). ArrayPlanSvg is the array plan drawn as SVG (hrx/format/ArrayPlanSvg.h).
enum class EmitKind { Loom, Llvm, Asm, ArrayPlan, ArrayPlanSvg, Object, Artifact };

struct CompileRequest {
  std::vector<Target> targets;  // several → one fat artifact
  Specialization specialization;
  CompilerOptions options;
  EmitKind emit = EmitKind::Artifact;
};

struct CompileResult {
  bool ok = false;
  std::vector<uint8_t> bytes;  // the artifact, object or text
  std::string contractJson;    // KernelContract(s) of the compiled export(s)
  std::string reportJson;      // when report != None
  // Artifacts' side outputs by name: "manifest" (every artifact: AMDGPU's executable manifest,
  // else the KernelContract table), "launch" (AMDGPU: the launch program).
  std::map<std::string, std::string> sideOutputs;
  std::vector<std::string> filesRead;  // for depfiles (real files only)
};

class Compiler {
public:
  // An offline compiler for one target profile (or several for a fat artifact).
  static Compiler forTarget(Target target);
  Compiler() = default;

  // Links Loom modules and C/C++ translation units into one program.
  Compiler &sources(std::vector<LoomSource> loom, std::vector<CxxSource> cxx);

  // Diagnostics go to `diags` (sources are added to its SourceManager).
  CompileResult compile(const CompileRequest &request, diag::DiagnosticEngine &diags) const;

  // Compiles a batch on a worker pool; results in request order.
  std::vector<CompileResult> compileAll(const std::vector<CompileRequest> &requests,
                                        diag::DiagnosticEngine &diags) const;

  // Clang's -E: one C/C++/HIP source preprocessed as it is compiled for `target`. Nullopt after
  // reporting errors; `filesRead` receives the real files read (for depfiles).
  static std::optional<std::string> preprocess(const CxxSource &source, const Target &target,
                                               const CompilerOptions &options, diag::DiagnosticEngine &diags,
                                               std::vector<std::string> *filesRead = nullptr);

  const std::vector<LoomSource> &loomSources() const { return loom_; }
  const std::vector<CxxSource> &cxxSources() const { return cxx_; }

private:
  std::vector<Target> targets_;
  std::vector<LoomSource> loom_;
  std::vector<CxxSource> cxx_;
};

}  // namespace hrx
