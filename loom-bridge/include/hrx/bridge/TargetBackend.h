// The interface every target (xdna, amdgpu, host) implements. The compiler links and specializes
// the program once; each backend then turns that program into its part of the artifact.
//
// Adding a target touches no other target: the target's folder (loom-bridge/<target>/) defines
// one factory function and registers it from its CMakeLists.txt with
//   hrx_bridge_backend(FACTORY createFooBackend LIBRARY hrx_bridge_foo)
// (the factory lives in namespace hrx::bridge); the build generates the registry table. The
// backend's info() (hrx/TargetRegistry.h) is everything the driver and the core know about it.
#pragma once

#include "hrx/Compiler.h"
#include "hrx/TargetRegistry.h"
#include "hrx/cxx/CxxImporter.h"
#include "hrx/diag/Diagnostic.h"

#include <map>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::bridge {

class Program;  // hrx/bridge/Program.h: linked, specialized, with contracts

struct BackendRequest {
  const Program &program;
  const Target &target;
  const CompilerOptions &options;
  EmitKind emit;
  // The request's specialization (symbol, configuration as given, report mode): part of the
  // artifact's identity together with the target and the processor mode.
  const Specialization &specialization;
  // The host reference target (TargetInfo::hostReference), whose backend builds the host code
  // other targets embed; null when the build has none.
  const Target *hostReference = nullptr;
};

// What a backend produces: the artifact (or intermediate form) and, when the request asked for a
// report (Specialization::report), the compile report JSON it also embeds as `.hrx.report`.
struct BackendOutput {
  std::vector<uint8_t> bytes;
  std::string reportJson;
  // Further outputs by name (CompileResult::sideOutputs): "manifest" (AMDGPU: the executable
  // manifest; the core supplies the KernelContract table otherwise), "launch" (AMDGPU).
  std::map<std::string, std::string> sideOutputs = {};
};

class TargetBackend {
public:
  virtual ~TargetBackend() = default;

  // What this backend compiles for and how the driver plans it (hrx/TargetRegistry.h).
  virtual TargetInfo info() const = 0;

  // How C/C++ sources are imported for `target` (one of this backend's); nullopt: not at all.
  virtual std::optional<cxx::ImportTarget> cxxImportTarget(const Target &target) const = 0;

  // Produces this target's artifact (or the requested intermediate form, see EmitKind).
  // Returns nullopt after reporting at least one error to `diags`; never a placeholder.
  virtual std::optional<BackendOutput> emit(const BackendRequest &request, diag::DiagnosticEngine &diags) = 0;

  // The host reference code of `program` (an x86-64 shared object, format/HostAbi.h) that other
  // targets embed. Only the host reference backend builds it; the others report LINK/001.
  // `providerFamily` is the family whose providers template.apply / func.apply select: the
  // embedding target's, so the host twin runs what that target's code runs.
  virtual std::optional<std::vector<uint8_t>> hostReferenceCode(const Program &program, const CompilerOptions &options,
                                                                std::string_view providerFamily,
                                                                diag::DiagnosticEngine &diags);
};

using BackendFactory = std::unique_ptr<TargetBackend> (*)();

// Every backend linked into this build (generated from the hrx_bridge_backend registrations).
const std::vector<BackendFactory> &registeredBackends();

// Adds a backend at run time (tests, embedders), after the build's own; its targets are then
// accepted everywhere the build's are. Returns its info as registered.
const TargetInfo &registerBackend(BackendFactory factory);

// The import target of C/C++ that runs in the host process (x86-64, ImportOptions::hostCpu):
// `name` in messages, `define` the target's macro ("__HRX_TARGET_HOST__=1"). For backends whose
// C/C++ the host reference device runs.
cxx::ImportTarget hostProcessImportTarget(std::string name, std::string define);

// The C/C++ import target a registered backend describes under `name` (cxx::ImportTarget::name:
// "gfx1151", "host", "xdna-worker"), for tools that import without compiling; nullopt: none.
std::optional<cxx::ImportTarget> cxxImportTargetNamed(std::string_view name);

// A fresh backend for `target`, or null when it names none.
std::unique_ptr<TargetBackend> createBackend(const Target &target);

// hostReferenceCode of request.hostReference's backend (LINK/001 when the build has none).
// `launchOnly`: the kernels' launch programs alone, not the kernels (hrxcc --host-twin=never);
// the host backend reads it as options.hostTwin == false.
std::optional<std::vector<uint8_t>> buildHostReferenceCode(const BackendRequest &request, const Program &program,
                                                           diag::DiagnosticEngine &diags,
                                                           std::string_view providerFamily = "host",
                                                           bool launchOnly = false);

}  // namespace hrx::bridge
