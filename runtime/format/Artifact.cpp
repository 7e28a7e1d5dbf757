#include "hrx/format/Artifact.h"

#include "hrx/format/CompileReport.h"

#include <algorithm>
#include <cstdio>

#include "hrx/format/Fat.h"

#include <set>
#include <string_view>

namespace hrx::format {

namespace {

std::string_view text(const std::vector<uint8_t> &bytes) {
  return {reinterpret_cast<const char *>(bytes.data()), bytes.size()};
}

Status prefixed(const Status &status, std::string_view where) {
  return Status(status.code(), std::string(where) + status.message());
}

// Decodes the .hrx.* JSON payloads shared by every artifact kind.
Status readCommonSections(Artifact &artifact) {
  if (const auto *id = artifact.section(xdna::kIdentitySection)) {
    auto identity = readIdentity(text(*id));
    if (!identity.isOk()) return identity.status();
    artifact.identity = std::move(identity.value());
  }
  if (const auto *contract = artifact.section(xdna::kContractSection)) {
    auto table = readContractTable(text(*contract));
    if (!table.isOk()) return table.status();
    artifact.contracts = std::move(table.value());
  }
  if (const auto *host = artifact.section(xdna::kHostSection)) {
    // The host device hands this to the dynamic loader: check it is what that expects.
    auto elf = readElf64Sections(*host);
    if (!elf.isOk()) return prefixed(elf.status(), ".hrx.host: ");
    if (elf->machine != kMachineX86_64 || elf->type != kElfTypeShared)
      return Status(StatusCode::InvalidArgument,
                    ".hrx.host: expected an x86-64 shared object (e_machine 62, e_type 3), found e_machine " +
                        std::to_string(elf->machine) + ", e_type " + std::to_string(elf->type));
  }
  if (const auto *report = artifact.section(xdna::kReportSection)) {
    auto parsed = readCompileReport(text(*report));
    if (!parsed.isOk()) return prefixed(parsed.status(), ".hrx.report: ");
    artifact.report =
        ReportSummary{parsed->compiler, parsed->target, parsed->processorMode, parsed->backend(), parsed->mode()};
  }
  return Status::ok();
}

// .hrx.manifest and .hrx.launch come together and describe the same exports; every contract
// binds exactly the manifest's buffer arguments.
// The ELF header fields an AMDHSA code object must carry (code object v5, or v6 for generic
// processors), and only .hrx.* sections this reader knows: a renamed one would otherwise load
// as if absent.
Status checkAmdgpuCodeObject(const Elf64File &elf, std::string_view processor) {
  constexpr uint8_t kOsAbiAmdgpuHsa = 64, kAbiVersionV5 = 3, kAbiVersionV6 = 4;
  constexpr uint32_t kMachMask = 0xFF, kFeatureMask = 0xF00, kGenericVersionShift = 24;
  auto bad = [](const std::string &what) { return Status(StatusCode::InvalidArgument, "ELF64: " + what); };
  if (elf.type != kElfTypeShared) return bad("e_type is " + std::to_string(elf.type) + ", expected 3 (ET_DYN)");
  if (elf.osAbi != kOsAbiAmdgpuHsa)
    return bad("e_ident[EI_OSABI] is " + std::to_string(elf.osAbi) + ", expected 64 (ELFOSABI_AMDGPU_HSA)");
  // Generic processors exist from code object v6 on; specific ones may be v5 or v6.
  bool generic = processor.ends_with("-generic");
  if (elf.abiVersion != kAbiVersionV6 && (generic || elf.abiVersion != kAbiVersionV5))
    return bad("e_ident[EI_ABIVERSION] is " + std::to_string(elf.abiVersion) + ", expected " +
               (generic ? "4 (code object v6, for a generic processor)" : "3 or 4 (code object v5 or v6)"));
  uint32_t genericVersion = elf.flags >> kGenericVersionShift;
  uint32_t reserved = elf.flags & ~(kMachMask | kFeatureMask | (0xFFu << kGenericVersionShift));
  if (reserved != 0 || (genericVersion != 0) != generic)
    return bad("e_flags 0x" +
               [&] {
                 char hex[9];
                 std::snprintf(hex, sizeof hex, "%08x", elf.flags);
                 return std::string(hex);
               }() +
               " has reserved bits set or a generic version that does not match " + std::string(processor));
  static constexpr std::string_view known[] = {kManifestSection,       kLaunchSection,     xdna::kContractSection,
                                               xdna::kIdentitySection, xdna::kHostSection, xdna::kReportSection};
  for (const SectionPayload &section : elf.hrxSections)
    if (std::find(std::begin(known), std::end(known), section.name) == std::end(known))
      return bad("section '" + section.name + "' is not an hrx section (the .hrx. prefix is reserved for them)");
  return Status::ok();
}

Status readAmdgpuSections(Artifact &artifact) {
  const auto *manifestBytes = artifact.section(kManifestSection);
  const auto *launchBytes = artifact.section(kLaunchSection);
  if (!manifestBytes && !launchBytes) return Status::ok();
  if (!manifestBytes || !launchBytes)
    return Status(StatusCode::InvalidArgument, std::string(manifestBytes ? kLaunchSection : kManifestSection) +
                                                   ": section is missing (" +
                                                   std::string(manifestBytes ? kManifestSection : kLaunchSection) +
                                                   " is present; the two come together)");
  // hrxcc writes these beside the manifest; one renamed away would otherwise read as absent.
  for (std::string_view required : {xdna::kContractSection, xdna::kIdentitySection, xdna::kHostSection})
    if (!artifact.section(required))
      return Status(StatusCode::InvalidArgument, std::string(required) +
                                                     ": section is missing (an AMDGPU artifact with " +
                                                     std::string(kManifestSection) + " carries it)");
  auto manifest = readAmdgpuManifest(text(*manifestBytes));
  if (!manifest.isOk()) return manifest.status();
  constexpr unsigned kAbiVersionOffset = 2;  // EI_ABIVERSION 3 is code object v5, 4 is v6
  if (manifest->codeObjectVersion != artifact.amdgpu->abiVersion + kAbiVersionOffset)
    return Status(StatusCode::InvalidArgument,
                  ".hrx.manifest: code_object_version is " + std::to_string(manifest->codeObjectVersion) +
                      ", but the ELF header's EI_ABIVERSION " + std::to_string(artifact.amdgpu->abiVersion) +
                      " means v" + std::to_string(artifact.amdgpu->abiVersion + kAbiVersionOffset));
  auto launches = readAmdgpuLaunches(text(*launchBytes));
  if (!launches.isOk()) return launches.status();
  if (Status s = checkManifestAgainstLaunches(*manifest, *launches); !s.isOk()) return s;
  if (artifact.contracts)
    for (const auto &[name, contract] : *artifact.contracts) {
      const AmdgpuExport *e = manifest->find(name);
      if (!e)
        return Status(StatusCode::InvalidArgument,
                      ".hrx.contract: contract for '" + name + "' names no .hrx.manifest export");
      if (contract.bindings.size() != e->bindingCount)
        return Status(StatusCode::InvalidArgument,
                      ".hrx.contract: contract for '" + name + "' has " + std::to_string(contract.bindings.size()) +
                          " binding(s), .hrx.manifest says binding_count " + std::to_string(e->bindingCount));
    }
  artifact.manifest = std::move(manifest.value());
  artifact.launches = std::move(launches.value());
  return Status::ok();
}

Status checkXdnaAgreement(Artifact &artifact) {
  const xdna::Image &image = *artifact.xdna;
  if (artifact.contracts) {
    for (const auto &[name, contract] : *artifact.contracts) {
      const xdna::Entry *entry = image.entry(name);
      if (!entry)
        return Status(StatusCode::InvalidArgument,
                      ".hrx.contract: contract for '" + name + "' names no entry of the image");
      Status agree = checkContractAgainstBindings(name, contract, image.bindingsOf(*entry));
      if (!agree.isOk()) return prefixed(agree, ".hrx.contract: ");
    }
  }
  if (const auto *plan = artifact.section(xdna::kPlanSection)) {
    auto plans = readArrayPlans(text(*plan));
    if (!plans.isOk()) return prefixed(plans.status(), ".hrx.plan: ");
    std::set<std::string> seen;
    for (const ArrayPlan &p : plans.value()) {
      const xdna::Entry *entry = image.entry(p.name);
      auto bad = [&](const std::string &what) {
        return Status(StatusCode::InvalidArgument, ".hrx.plan: plan '" + p.name + "' " + what);
      };
      if (!entry) return bad("names no entry of the image");
      if (!seen.insert(p.name).second) return bad("appears twice");
      if (p.columns != image.header.columns)
        return bad("uses " + std::to_string(p.columns) + " columns, the image header says " +
                   std::to_string(image.header.columns));
      auto rows = image.bindingsOf(*entry);
      for (size_t i = 0; i < p.bindings.size(); ++i) {
        const PlanBinding &b = p.bindings[i];
        if (b.ordinal >= rows.size() || rows[b.ordinal].kind != xdna::BindingKind::Buffer)
          return bad("binding " + std::to_string(i) + " uses ordinal " + std::to_string(b.ordinal) +
                     ", which is not a BUFFER row of the entry");
        if (b.bytes > rows[b.ordinal].minimumByteLength)
          return bad("binding " + std::to_string(i) + " touches " + std::to_string(b.bytes) +
                     " bytes, the binding row guarantees only " + std::to_string(rows[b.ordinal].minimumByteLength));
      }
    }
    artifact.plans = std::move(plans.value());
  }
  return Status::ok();
}

}  // namespace

std::string_view artifactKindName(ArtifactKind kind) {
  switch (kind) {
  case ArtifactKind::Xdna: return "xdna";
  case ArtifactKind::Amdgpu: return "amdgpu";
  case ArtifactKind::Fat: return "fat";
  }
  return "?";
}

const std::vector<uint8_t> *Artifact::section(std::string_view name) const {
  if (xdna)
    if (const xdna::Section *s = xdna->section(name)) return &s->bytes;
  if (amdgpu)
    if (const SectionPayload *s = amdgpu->section(name)) return &s->bytes;
  return nullptr;
}

std::vector<SectionInfo> Artifact::sectionHeaders() const {
  if (xdna) return xdna->sectionHeaders;
  if (amdgpu) return amdgpu->sections;
  return {};
}

StatusOr<Artifact> readArtifact(std::span<const uint8_t> bytes) {
  Artifact artifact;
  if (isFatContainer(bytes)) {
    auto entries = readFat(bytes);
    if (!entries.isOk()) return entries.status();
    artifact.kind = ArtifactKind::Fat;
    for (size_t i = 0; i < entries->size(); ++i) {
      const FatEntry &entry = (*entries)[i];
      if (isFatContainer(entry.image))
        return Status(StatusCode::InvalidArgument,
                      "fat container: member " + std::to_string(i) + " is itself a fat container");
      auto member = readArtifact(entry.image);
      if (!member.isOk())
        return prefixed(member.status(), "fat container: member " + std::to_string(i) + " (" +
                                             std::string(entry.string("arch")) + "): ");
      if (member->target != entry.string("arch"))
        return Status(StatusCode::InvalidArgument, "fat container: member " + std::to_string(i) +
                                                       " is labelled arch \"" + std::string(entry.string("arch")) +
                                                       "\" but holds a " + member->target + " artifact");
      artifact.members.push_back(std::move(member.value()));
    }
    return artifact;
  }
  if (bytes.size() >= 5 && bytes[0] == 0x7F && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F' && bytes[4] == 2) {
    auto elf = readElf64Sections(bytes);
    if (!elf.isOk()) return elf.status();
    if (elf->machine != kMachineAmdgpu)
      return Status(StatusCode::InvalidArgument,
                    "ELF64: e_machine is " + std::to_string(elf->machine) + ", expected 224 (EM_AMDGPU)");
    artifact.kind = ArtifactKind::Amdgpu;
    artifact.target = std::string(amdgpuProcessorName(elf->flags));
    if (artifact.target.empty())
      return Status(StatusCode::InvalidArgument, "ELF64: e_flags processor " + std::to_string(elf->flags & 0xFF) +
                                                     " is not a supported AMDGPU target");
    if (Status header = checkAmdgpuCodeObject(*elf, artifact.target); !header.isOk()) return header;
    artifact.amdgpu = std::move(elf.value());
    artifact.codeObject.assign(bytes.begin(), bytes.end());
    Status common = readCommonSections(artifact);
    if (!common.isOk()) return common;
    Status sections = readAmdgpuSections(artifact);
    if (!sections.isOk()) return sections;
    return artifact;
  }
  auto image = xdna::readImage(bytes);
  if (!image.isOk()) return image.status();
  artifact.kind = ArtifactKind::Xdna;
  artifact.target = image->header.profileId == xdna::kStrixHalo.id ? std::string(xdna::kStrixHalo.key)
                                                                   : std::string("unknown-xdna-profile");
  artifact.xdna = std::move(image.value());
  Status common = readCommonSections(artifact);
  if (!common.isOk()) return common;
  Status agree = checkXdnaAgreement(artifact);
  if (!agree.isOk()) return agree;
  return artifact;
}

}  // namespace hrx::format
