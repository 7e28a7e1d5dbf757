// Loading any hrx artifact: a canonical .xdna image, an AMDGPU code object (HSACO) with our
// sections, or a fat container of several. Loading validates the container and every .hrx.*
// payload it understands, and their agreement (contracts vs binding rows, plans vs entries).
#pragma once

#include "hrx/runtime/Export.h"
#include "hrx/format/AmdgpuManifest.h"
#include "hrx/format/ArrayPlan.h"
#include "hrx/format/Elf64Sections.h"
#include "hrx/format/Identity.h"
#include "hrx/format/KernelContract.h"
#include "hrx/format/Xdna.h"
#include "hrx/runtime/Status.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hrx::format {

enum class ArtifactKind { Xdna, Amdgpu, Fat };
HRX_RUNTIME_API std::string_view artifactKindName(ArtifactKind kind);

// What readArtifact keeps of a validated .hrx.report; the whole document is
// readCompileReport(section(".hrx.report")) (hrx/format/CompileReport.h, compiler and tools).
struct HRX_RUNTIME_API ReportSummary {
  std::string compiler, target, processorMode;
  std::string backendName, modeName;  // "" when missing
  const std::string &backend() const { return backendName; }
  const std::string &mode() const { return modeName; }
};

struct HRX_RUNTIME_API Artifact {
  ArtifactKind kind = ArtifactKind::Xdna;
  std::string target;  // profile key or processor: "amd.xdna.strix_halo.17f0_11", "gfx1151"
  std::optional<xdna::Image> xdna;
  std::optional<Elf64File> amdgpu;
  std::vector<Artifact> members;  // Fat: one per offload binary, in container order

  // Decoded payloads (present when the section is).
  std::optional<ArtifactIdentity> identity;
  std::optional<ContractTable> contracts;
  std::optional<ReportSummary> report;
  std::vector<ArrayPlan> plans;
  std::optional<AmdgpuManifest> manifest;  // AMDGPU: .hrx.manifest
  std::vector<AmdgpuLaunch> launches;      // AMDGPU: .hrx.launch
  // AMDGPU: the code object's bytes, for loading its segments on the GPU (AmdgpuCodeObject.h).
  std::vector<uint8_t> codeObject;

  // Whether the artifact carries no native device code (runs on the host device only).
  // Images without .hrx.identity are not ours and are treated as native.
  bool referenceOnly() const { return identity && identity->referenceOnly; }
  // Raw bytes of a .hrx.* section (uncompressed), or null.
  const std::vector<uint8_t> *section(std::string_view name) const;
  // Every section header (diagnostic listing).
  std::vector<SectionInfo> sectionHeaders() const;
};

HRX_RUNTIME_API StatusOr<Artifact> readArtifact(std::span<const uint8_t> bytes);

}  // namespace hrx::format
