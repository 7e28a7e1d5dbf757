// The target registry: what each registered backend (loom-bridge/<target>/) says about itself,
// so that the driver and the compiler core never name a target. Plain data and lookups, no LLVM:
// the driver reads it to parse -target, plan the action graph and print --print-targets.
#pragma once

#include "hrx/Compiler.h"
#include "hrx/format/ReportField.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hrx {

namespace bridge {
class TargetBackend;
}

// A spelling --print-targets lists, with its one-line description.
struct TargetSpelling {
  std::string spelling;
  std::string description;
};

// One profile a backend compiles for (a Target is a backend and one of its profiles).
struct TargetProfile {
  std::string name;                    // canonical spelling (Target::name): "xdna", "gfx1151"
  std::string profile;                 // Target::profile: "amd.xdna.strix_halo.17f0_11"
  std::vector<TargetSpelling> listed;  // spellings -target accepts and --print-targets lists
  std::vector<std::string> aliases;    // further spellings -target accepts, not listed
  // The check.requires predicates its devices meet (hrx check), spelled as hrx check prints a
  // requirement: `provider {key = "value"}`.
  std::vector<std::string> checkFacts;
};

// A pipeline stage a backend runs between specialization and lowering (xdna: the array planner).
struct TargetStage {
  std::string phase;            // its --print-phases name: "plan"
  std::string produces;         // what it produces (--print-phases type): "array-plan"
  std::vector<EmitKind> emits;  // the --emit kinds that stop after it
  std::string what;             // the output in messages: "array plans"
};

// How a backend's artifact sits in a fat container (docs/formats/fat.md).
struct FatMember {
  std::string triple;        // the member's "triple" string
  uint16_t offloadKind = 0;  // format::OffloadKindBits
};

struct TargetInfo {
  std::string backend;                  // "xdna", "amdgpu", "host": named in messages
  std::vector<TargetProfile> profiles;  // in --print-targets order
  bool offloadArch = false;             // --offload-arch accepts its profiles
  bool isDefault = false;               // the target when none is given
  bool hostReference = false;           // builds the host reference code other targets embed
  bool runsCxxKernels = false;          // C/C++ kernels are exports on this target
  // HIP units of device functions alone (a device library) are an artifact without kernels, as
  // clang -x hip --cuda-device-only builds them.
  bool hipDeviceLibraries = false;
  // How hrx check runs its artifacts on the host reference device: "host-object" (a host shared
  // object), "host-twin" (the artifact's embedded .hrx.host code), "array-plan" (the NPU array
  // plan of its pipelines); empty: hrx check cannot run them.
  std::string checkRunPath;
  std::vector<std::string> options;     // target options it reads, as spelled: "--columns="
  std::vector<TargetStage> stagesBeforeLowering;
  std::vector<EmitKind> savedForms;    // what -save-temps keeps, in pipeline order
  std::string artifactExtension;       // the default artifact is "a" + this: ".xdna"
  std::optional<FatMember> fatMember;  // nullopt: never a fat member
  std::string notFatMemberNote;        // why not, as a note to the error
  // Its compile reports (the folder's ReportFields.def): their document.backend, and the entry
  // resources they carry, in the order `hrx report show` prints them.
  std::vector<std::string> reportBackends;
  std::vector<format::ReportField> reportFields;
  // Set by the registry: makes a fresh backend (each compile, on any thread, gets its own).
  std::unique_ptr<bridge::TargetBackend> (*create)() = nullptr;

  bool reads(std::string_view option) const;  // `option` is in `options`
  const TargetStage *stageEmitting(EmitKind kind) const;
};

// Every registered target, in registration order (the build's backends, then any registered at
// run time with bridge::registerBackend).
std::vector<const TargetInfo *> registeredTargets();
// "a", "a or b", "a, b or c" (with `conjunction` "or"), for messages.
std::string joinNames(const std::vector<std::string> &names, std::string_view conjunction);
// The registered backends for which `predicate(info)` holds, joined with "and": "xdna".
template <typename Predicate> std::string backendNames(Predicate predicate) {
  std::vector<std::string> names;
  for (const TargetInfo *info : registeredTargets())
    if (predicate(*info)) names.push_back(info->backend);
  return joinNames(names, "and");
}
// The target used when none is given, and the host reference target; nullopt when none is registered.
std::optional<Target> defaultTarget();
std::optional<Target> hostReferenceTarget();

}  // namespace hrx
