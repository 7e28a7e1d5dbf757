// The interface every target (xdna, amdgpu, host) implements. The compiler links and specializes
// the program once; each backend then turns that program into its part of the artifact.
//
// Adding a target touches no other target: the target's folder defines one factory function and
// registers it from its CMakeLists.txt with
//   hrx_bridge_backend(FACTORY createFooBackend LIBRARY hrx_bridge_foo)
// (the factory lives in namespace hrx::bridge); the build generates the registry table.
#pragma once

#include "hrx/Compiler.h"
#include "hrx/diag/Diagnostic.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
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
};

// What a backend produces: the artifact (or intermediate form) and, when the request asked for a
// report (Specialization::report), the compile report JSON it also embeds as `.hrx.report`.
struct BackendOutput {
  std::vector<uint8_t> bytes;
  std::string reportJson;
  std::string manifestJson = {};  // AMDGPU: the executable manifest (.hrx.manifest)
  std::string launchJson = {};    // AMDGPU: the launch program (.hrx.launch)
};

class TargetBackend {
public:
  virtual ~TargetBackend() = default;

  virtual TargetKind kind() const = 0;

  // Produces this target's artifact (or the requested intermediate form, see EmitKind).
  // Returns nullopt after reporting at least one error to `diags`; never a placeholder.
  virtual std::optional<BackendOutput> emit(const BackendRequest &request, diag::DiagnosticEngine &diags) = 0;
};

using BackendFactory = std::unique_ptr<TargetBackend> (*)();

// Every backend linked into this build (generated from the hrx_bridge_backend registrations).
const std::vector<BackendFactory> &registeredBackends();

// The backend for `kind`, or null when this build has none.
std::unique_ptr<TargetBackend> createBackend(TargetKind kind);

}  // namespace hrx::bridge
