#include "hrx/runtime/Loader.h"

#include "hrx/format/Bundle.h"
#include "hrx/runtime/Admission.h"
#include "hrx/runtime/HostDevice.h"

#include <algorithm>
#include <cstdlib>

namespace hrx::runtime {
namespace {

// The contract an image's binding rows state, for images without .hrx.contract.
KernelContract contractFromRows(std::span<const format::xdna::Binding> rows) {
  KernelContract contract;
  for (const format::xdna::Binding &row : rows) {
    if (row.kind == format::xdna::BindingKind::None) {
      contract.bindings.push_back({1, 1, format::ContractAccess::Read, "unused slot"});
      continue;
    }
    bool read = row.access & format::xdna::kAccessRead, write = row.access & format::xdna::kAccessWrite;
    format::ContractAccess access = read && write ? format::ContractAccess::ReadWrite
                                    : write       ? format::ContractAccess::Write
                                                  : format::ContractAccess::Read;
    contract.bindings.push_back({row.minimumByteLength, std::max<uint64_t>(row.minimumAlignment, 1), access, ""});
  }
  return contract;
}

Status collect(const format::Artifact &artifact, std::vector<ArtifactEntry> &out) {
  switch (artifact.kind) {
  case format::ArtifactKind::Fat:
    for (const format::Artifact &member : artifact.members)
      if (Status s = collect(member, out); !s) return s;
    return Status::ok();
  case format::ArtifactKind::Xdna: {
    const format::xdna::Image &image = *artifact.xdna;
    for (const format::xdna::Entry &entry : image.entries) {
      ArtifactEntry e{entry.name, Engine::Npu, &artifact, {}, image.header.columns};
      if (artifact.contracts && artifact.contracts->count(entry.name))
        e.contract = artifact.contracts->at(entry.name);
      else
        e.contract = contractFromRows(image.bindingsOf(entry));
      out.push_back(std::move(e));
    }
    return Status::ok();
  }
  case format::ArtifactKind::Amdgpu:
    if (!artifact.contracts)
      return Status(StatusCode::InvalidArgument, "AMDGPU artifact for " + artifact.target +
                                                     " has no .hrx.contract section: its entries are unknown");
    for (const auto &[name, contract] : *artifact.contracts) {
      ArtifactEntry e{name, Engine::Gpu, &artifact, contract, 0};
      if (artifact.manifest) {
        e.gpuExport = artifact.manifest->find(name);
        for (const format::AmdgpuLaunch &launch : artifact.launches)
          if (launch.name == name) e.gpuLaunch = &launch;
      }
      out.push_back(std::move(e));
    }
    return Status::ok();
  }
  return Status::ok();
}

}  // namespace

StatusOr<std::vector<ArtifactEntry>> listEntries(const format::Artifact &artifact) {
  std::vector<ArtifactEntry> entries;
  if (Status s = collect(artifact, entries); !s) return s;
  if (entries.empty()) return Status(StatusCode::InvalidArgument, "the artifact has no entries");
  return entries;
}

StatusOr<const ArtifactEntry *> findEntry(const std::vector<ArtifactEntry> &entries, const std::string &name,
                                          Engine preferred) {
  if (entries.empty()) return Status(StatusCode::NotFound, "the artifact has no entries");
  if (name.empty()) return &entries.front();
  const ArtifactEntry *found = nullptr;
  for (const ArtifactEntry &e : entries)
    if (e.name == name && (!found || e.engine == preferred)) found = &e;
  if (found) return found;
  std::string names;
  for (const ArtifactEntry &e : entries) names += (names.empty() ? "" : ", ") + e.name;
  return Status(StatusCode::NotFound, "entry '" + name + "' was not found; the artifact has: " + names);
}

Status checkNativeExecution(const ArtifactEntry &entry, const Device &device, uint32_t requestedColumns) {
  const format::Artifact &artifact = *entry.member;
  if (artifact.target != device.target)
    return Status(StatusCode::FailedPrecondition, "artifact and device targets differ: the artifact is for " +
                                                      artifact.target + ", the device is " + device.target);
  if (entry.engine == Engine::Npu) {
    if (requestedColumns != entry.columns)
      return Status(StatusCode::FailedPrecondition, "the image needs exactly " + std::to_string(entry.columns) +
                                                        " column(s); " + std::to_string(requestedColumns) +
                                                        " were requested");
    if (artifact.xdna)
      if (Status s = format::xdna::checkAdmission(*artifact.xdna, format::xdna::kStrixHalo, requestedColumns); !s)
        return s;
    if (artifact.referenceOnly())
      return Status(StatusCode::FailedPrecondition,
                    "the image is reference-only: it carries no native AIE2P core code (" +
                        artifact.identity->referenceOnlyReason +
                        "), so the npu device cannot run it; run it on the host reference device with --device=host");
  }
  // GPU entries run through KFD (hrx/runtime/GpuDevice.h: loadOnGpu), not the native library.
  if (entry.engine == Engine::Gpu) return Status::ok();
  // An image with native core code is accepted up to here; nothing has run it on hardware.
  std::string nativeCode = entry.engine == Engine::Npu && artifact.identity && !artifact.identity->nativeCode.empty()
                               ? "the image carries " + artifact.identity->nativeCode + ", but "
                               : "";
  auto library = findNativeLibrary();
  if (!library) return Status(library.status().code(), nativeCode + library.status().message());
  return Status(StatusCode::Unimplemented,
                nativeCode + "native " + std::string(entry.engine == Engine::Npu ? "NPU" : "GPU") +
                    " execution through " + *library + " is not implemented by this runtime; run with --device=host");
}

StatusOr<ArrayModelKind> parseArrayModel(std::string_view name) {
  if (name == "plan") return ArrayModelKind::Plan;
  if (name == "transaction") return ArrayModelKind::Transaction;
  return Status(StatusCode::InvalidArgument,
                "unknown array model '" + std::string(name) + "'; expected plan or transaction");
}

StatusOr<std::shared_ptr<Kernel>> loadOnHost(const ArtifactEntry &entry, const std::vector<uint64_t> &workload,
                                             std::optional<LaunchDimensions> dimensions,
                                             std::optional<ArrayModelKind> requestedModel,
                                             std::optional<CoreModelKind> requestedCoreModel) {
  // nullopt: the default (below, once the core code is known).
  std::optional<ArrayModelKind> arrayModel = requestedModel;
  if (!arrayModel)
    if (const char *env = std::getenv("HRX_ARRAY_MODEL"); env && *env) {
      auto parsed = parseArrayModel(env);
      if (!parsed) return Status(parsed.status().code(), "HRX_ARRAY_MODEL: " + parsed.status().message());
      arrayModel = *parsed;
    }
  const format::Artifact &artifact = *entry.member;
  const std::vector<uint8_t> *host = artifact.section(format::xdna::kHostSection);
  if (!host)
    return Status(StatusCode::FailedPrecondition, "the " + artifact.target +
                                                      " artifact has no host code (.hrx.host): the host reference "
                                                      "device cannot run entry '" +
                                                      entry.name + "'");
  if (artifact.identity && !artifact.identity->hostSha256.empty()) {
    format::Sha256 sha;
    sha.update(*host);
    std::string actual = sha.finishHex();
    if (actual != artifact.identity->hostSha256)
      return Status(StatusCode::InvalidArgument, "the " + artifact.target + " artifact's .hrx.host has SHA-256 " +
                                                     actual + ", but .hrx.identity host_sha256 records " +
                                                     artifact.identity->hostSha256 +
                                                     ": the host code was altered after compilation");
  }
  auto code = HostCode::load(std::as_bytes(std::span(*host)), artifact.target + " .hrx.host");
  if (!code) return code.status();
  if (entry.engine == Engine::Gpu) {
    GpuLaunchLayout layout;
    std::string symbol = entry.name;
    if (entry.gpuExport && entry.gpuLaunch) {
      layout.arguments = entry.gpuExport->arguments;
      layout.extents = entry.gpuExport->extents;
      layout.maxFlatWorkgroupSize = entry.gpuExport->maxFlatWorkgroupSize;
      symbol = entry.gpuLaunch->symbol;
      size_t expected = entry.gpuLaunch->workloadBits.size();
      if (workload.size() != expected && !(dimensions && workload.empty()))
        return Status(StatusCode::InvalidArgument, "GPU entry '" + entry.name + "' takes " + std::to_string(expected) +
                                                       " workload value(s) (the kernel definition's arguments, for its "
                                                       "launch program); " +
                                                       std::to_string(workload.size()) + " were given with --workload");
    } else if (workload.empty() && !dimensions) {
      return Status(StatusCode::InvalidArgument, "GPU entry '" + entry.name +
                                                     "' needs its workload (the kernel definition's u64 workload "
                                                     "arguments) to evaluate the launch program; pass --workload");
    }
    layout.dimensions = dimensions;
    return makeHostGpuKernel(symbol, *code, entry.contract, workload, std::move(layout));
  }
  // The host reference device stands in for the admitted NPU context: the image must match
  // it in every field §1.3 lists (profile id and revision, firmware ABI, rows, columns).
  if (artifact.xdna)
    if (Status s = format::xdna::checkAdmission(*artifact.xdna, format::xdna::kStrixHalo, entry.columns); !s) return s;
  auto plan = std::find_if(artifact.plans.begin(), artifact.plans.end(),
                           [&](const format::ArrayPlan &p) { return p.name == entry.name; });
  if (plan == artifact.plans.end())
    return Status(StatusCode::FailedPrecondition, "the image has no array plan (.hrx.plan) for entry '" + entry.name +
                                                      "': the host reference device cannot run it");
  CoreModelKind coreModel = CoreModelKind::Native;
  if (requestedCoreModel) {
    coreModel = *requestedCoreModel;
  } else if (const char *env = std::getenv("HRX_CORE_MODEL"); env && *env) {
    auto parsed = parseCoreModel(env);
    if (!parsed) return Status(parsed.status().code(), "HRX_CORE_MODEL: " + parsed.status().message());
    coreModel = *parsed;
  }
  TileCodeMap native;
  if (coreModel == CoreModelKind::Native && artifact.xdna) {
    auto code = nativeCoreCode(*artifact.xdna, entry.name);
    if (!code) return code.status();
    native = std::move(*code);
  }
  // By default an entry whose workers have native core code runs its own commands, so the core
  // main programs drive the workers (docs/runtime.md); the others run the plan executor.
  if (!arrayModel) arrayModel = native.empty() ? ArrayModelKind::Plan : ArrayModelKind::Transaction;
  if (*arrayModel == ArrayModelKind::Transaction) {
    if (!artifact.xdna)
      return Status(StatusCode::FailedPrecondition, "entry '" + entry.name + "' has no .xdna image to execute");
    return makeTransactionNpuKernel(*artifact.xdna, entry.name, *plan, *code, entry.contract, std::move(native));
  }
  return makeHostNpuKernel(*plan, *code, entry.contract, std::move(native));
}

}  // namespace hrx::runtime
