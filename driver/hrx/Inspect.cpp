#include "Inspect.h"

#include "hrx/support/Text.h"
#include "hrx/support/Utf8.h"

#include "hrx/aie2p/Asm.h"
#include "hrx/runtime/NativeCore.h"

#include <sstream>

namespace hrx::tool {

using format::ReportJson;
namespace xdna = format::xdna;

namespace {

using text::hex;  // hrx/support/Text.h

std::string accessText(uint16_t access) {
  switch (access) {
  case 1: return "read";
  case 2: return "write";
  case 3: return "read-write";
  default: return std::to_string(access);
  }
}

std::string usageText(uint16_t usage) {
  static constexpr std::pair<uint16_t, const char *> kBits[] = {{xdna::kDeviceVisible, "device-visible"},
                                                                {xdna::kHostVisible, "host-visible"},
                                                                {xdna::kCoherent, "coherent"},
                                                                {xdna::kCached, "cached"}};
  std::string out;
  for (auto [bit, name] : kBits)
    if (usage & bit) out += (out.empty() ? "" : "|") + std::string(name);
  return out.empty() ? "none" : out;
}

std::string sectionType(uint32_t type) {
  switch (type) {
  case 0: return "NULL";
  case 1: return "PROGBITS";
  case 2: return "SYMTAB";
  case 3: return "STRTAB";
  case 4: return "RELA";
  case 5: return "HASH";
  case 6: return "DYNAMIC";
  case 7: return "NOTE";
  case 8: return "NOBITS";
  case 11: return "DYNSYM";
  default: return hex(type);
  }
}

ReportJson bindingJson(const xdna::Binding &b) {
  if (b.kind == xdna::BindingKind::None) return {{"kind", "none"}};
  return {{"kind", "buffer"},
          {"address_space", b.addressSpace == xdna::AddressSpace::Global ? "global" : "host"},
          {"access", accessText(b.access)},
          {"usage", usageText(b.usage)},
          {"minimum_byte_length", b.minimumByteLength},
          {"minimum_alignment", b.minimumAlignment},
          {"minimum_byte_offset", b.minimumByteOffset},
          {"maximum_byte_offset",
           b.maximumByteOffset == UINT64_MAX ? ReportJson(nullptr) : ReportJson(b.maximumByteOffset)}};
}

ReportJson contractJson(const format::KernelContract &c) {
  ReportJson bindings = ReportJson::array();
  for (const auto &b : c.bindings)
    bindings.push_back({{"bytes", b.bytes},
                        {"alignment", b.alignment},
                        {"access", format::contractAccessName(b.access)},
                        {"layout", b.layout}});
  return {{"bindings", std::move(bindings)}, {"constants", c.constants}};
}

ReportJson identityJson(const format::Artifact &a) {
  if (!a.identity) return nullptr;
  const format::ArtifactIdentity &id = *a.identity;
  return {{"compiler", id.compilerName + " " + id.compilerVersion},
          {"llvm", id.llvmVersion},
          {"compiler_sha256", id.compilerDigest},
          {"target", id.target},
          {"symbol", id.symbol},
          {"config", id.config},
          {"report_mode", id.reportMode},
          {"processor_mode", id.processorMode},
          {"options_digest", id.optionsDigest}};
}

ReportJson referenceOnlyJson(const format::Artifact &a) {
  if (a.referenceOnly()) return {{"reference_only", true}, {"reason", a.identity->referenceOnlyReason}};
  if (a.identity && !a.identity->nativeCode.empty())
    return {{"reference_only", false}, {"native_code", a.identity->nativeCode}};
  return {{"reference_only", false}};
}

ReportJson sectionsJson(const format::Artifact &a) {
  ReportJson out = ReportJson::array();
  for (const format::SectionInfo &s : a.sectionHeaders()) {
    if (s.type == 0 && s.name.empty()) continue;
    out.push_back({{"name", s.name},
                   {"type", sectionType(s.type)},
                   {"offset", s.offset},
                   {"size", s.size},
                   {"compressed", (s.flags & 0x800) != 0}});
  }
  return out;
}

ReportJson xdnaJson(const format::Artifact &a) {
  const xdna::Image &img = *a.xdna;
  ReportJson entries = ReportJson::array();
  for (const xdna::Entry &e : img.entries) {
    ReportJson bindings = ReportJson::array();
    for (const xdna::Binding &b : img.bindingsOf(e)) bindings.push_back(bindingJson(b));
    ReportJson uses = ReportJson::array();
    for (uint32_t u = 0; u < e.allocationUseCount; ++u) uses.push_back(img.allocationUses[e.firstAllocationUse + u]);
    ReportJson invocations = ReportJson::array();
    for (uint32_t i = 0; i < e.invocationCount; ++i) {
      const xdna::Invocation &inv = img.invocations[e.firstInvocation + i];
      invocations.push_back({{"allocation_use", inv.allocationUse},
                             {"byte_offset", inv.byteOffset},
                             {"byte_length", inv.byteLength},
                             {"next", inv.nextInvocation}});
    }
    ReportJson relocations = ReportJson::array();
    auto addRelocations = [&](uint32_t first, uint32_t count, const char *kind) {
      for (uint32_t i = 0; i < count; ++i) {
        const xdna::Relocation &r = img.relocations[first + i];
        relocations.push_back({{"kind", kind},
                               {"destination_use", r.destinationUse},
                               {"byte_offset", r.byteOffset},
                               {std::string(kind) == "static" ? "source_use" : "source_binding", r.sourceOrdinal},
                               {"addend", r.addend},
                               {"alignment", r.alignment}});
      }
    };
    addRelocations(e.firstStaticRelocation, e.staticRelocationCount, "static");
    addRelocations(e.firstDynamicRelocation, e.dynamicRelocationCount, "dynamic");
    ReportJson entry{{"name", e.name},
                     {"allocation_uses", std::move(uses)},
                     {"bindings", std::move(bindings)},
                     {"relocations", std::move(relocations)},
                     {"invocations", std::move(invocations)}};
    entry["contract"] =
        a.contracts && a.contracts->count(e.name) ? contractJson(a.contracts->at(e.name)) : ReportJson(nullptr);
    entry["plan"] = nullptr;
    for (const format::ArrayPlan &p : a.plans)
      if (p.name == e.name)
        entry["plan"] = {{"workers", p.workers.size()}, {"channels", p.channels.size()}, {"slots", p.slots.size()},
                         {"locks", p.locks.size()},     {"dma", p.dmas.size()},          {"routes", p.routes.size()}};
    entries.push_back(std::move(entry));
  }
  ReportJson allocations = ReportJson::array();
  for (size_t i = 0; i < img.allocations.size(); ++i) {
    const xdna::Allocation &al = img.allocations[i];
    allocations.push_back({{"index", i},
                           {"domain", al.domain == xdna::Domain::Command ? "command" : "dma"},
                           {"immutable", (al.flags & xdna::kImmutable) != 0},
                           {"device_write", (al.flags & xdna::kDeviceWrite) != 0},
                           {"byte_length", al.byteLength},
                           {"alignment", al.alignment},
                           {"first_load", al.firstLoad},
                           {"load_count", al.loadCount}});
  }
  return {{"profile_id", hex(img.header.profileId)},
          {"profile_revision", img.header.profileRevision},
          {"firmware_abi_id", hex(img.header.firmwareAbiId)},
          {"columns", img.header.columns},
          {"rows", img.header.rows},
          {"entries", std::move(entries)},
          {"allocations", std::move(allocations)}};
}

// Core code an image carries: sections named .hrx.aie2p.text.<col>.<row> (the convention the hook
// reads; the image format has no core-code allocation yet), each disassembled bundle by bundle.
struct CoreCode {
  std::string section;
  size_t bytes = 0;
  std::vector<aie2p::DisasmLine> lines;
  bool ok = true;
  aie2p::AsmDiagnostic error;
};
std::vector<CoreCode> nativeCode(const format::Artifact &a) {
  std::vector<CoreCode> out;
  // Native code hrxcc compiled: what each entry's establish command writes into program memory.
  if (a.xdna)
    for (const format::xdna::Entry &e : a.xdna->entries) {
      auto tiles = runtime::nativeCoreCode(*a.xdna, e.name);
      if (!tiles) continue;
      for (const auto &[tile, bytes] : *tiles) {
        CoreCode &c = out.emplace_back();
        c.section =
            "entry " + e.name + " tile (" + std::to_string(tile.first) + "," + std::to_string(tile.second) + ")";
        c.bytes = bytes.size();
        c.ok = aie2p::disassemble(bytes, c.lines, c.error);
      }
    }
  for (const format::SectionInfo &s : a.sectionHeaders()) {
    if (!s.name.starts_with(".hrx.aie2p.text.")) continue;
    const std::vector<uint8_t> *bytes = a.section(s.name);
    if (!bytes) continue;
    CoreCode &c = out.emplace_back();
    c.section = s.name;
    c.bytes = bytes->size();
    c.ok = aie2p::disassemble(*bytes, c.lines, c.error);
  }
  return out;
}

ReportJson artifactJson(const format::Artifact &a) {
  ReportJson out{{"kind", format::artifactKindName(a.kind)}};
  if (a.kind == format::ArtifactKind::Fat) {
    ReportJson members = ReportJson::array();
    for (const format::Artifact &m : a.members) members.push_back(artifactJson(m));
    out["members"] = std::move(members);
    return out;
  }
  out["target"] = a.target;
  out.update(referenceOnlyJson(a));
  out["identity"] = identityJson(a);
  if (a.xdna) out["xdna"] = xdnaJson(a);
  if (a.amdgpu) {
    ReportJson contracts = ReportJson::object();
    if (a.contracts)
      for (const auto &[name, c] : *a.contracts) contracts[name] = contractJson(c);
    out["amdgpu"] = {
        {"e_flags", hex(a.amdgpu->flags)},
        {"abi_version", a.amdgpu->abiVersion},
        {"contracts", std::move(contracts)},
        {"manifest", a.section(format::kManifestSection) ? ReportJson("present") : ReportJson(nullptr)},
        {"launch_program", a.section(format::kLaunchSection) ? ReportJson("present") : ReportJson(nullptr)}};
  }
  out["report"] =
      a.report ? ReportJson{{"backend", a.report->backend()}, {"mode", a.report->mode()}} : ReportJson(nullptr);
  ReportJson core = ReportJson::array();
  for (const CoreCode &c : nativeCode(a)) {
    ReportJson bundles = ReportJson::array();
    for (const auto &l : c.lines) bundles.push_back({{"offset", l.offset}, {"size", l.size}, {"text", l.text}});
    core.push_back({{"section", c.section},
                    {"bytes", c.bytes},
                    {"bundles", std::move(bundles)},
                    {"error", c.ok ? ReportJson(nullptr) : ReportJson(c.error.message + " [" + c.error.code + "]")}});
  }
  if (!core.empty()) out["core_code"] = std::move(core);
  out["sections"] = sectionsJson(a);
  return out;
}

// The text form of nativeCode().
void textCoreCode(std::ostream &out, const format::Artifact &a, const std::string &indent) {
  for (const CoreCode &c : nativeCode(a)) {
    out << indent << "core code " << c.section << ": " << c.bytes << " bytes, " << c.lines.size() << " bundles"
        << (c.ok ? "" : " (then undecodable bytes)") << "\n";
    for (const auto &l : c.lines) {
      char off[16];
      std::snprintf(off, sizeof off, "%04x", l.offset);
      out << indent << "  " << off << ": " << l.text << "\n";
    }
    if (!c.ok) out << indent << "  error: " << c.error.message << " [" << c.error.code << "]\n";
  }
}

void textArtifact(std::ostringstream &out, const format::Artifact &a, const std::string &indent) {
  if (a.kind == format::ArtifactKind::Fat) {
    out << indent << "kind: fat container (LLVM offload binaries), " << a.members.size() << " members\n";
    for (size_t i = 0; i < a.members.size(); ++i) {
      out << indent << "member " << i << ":\n";
      textArtifact(out, a.members[i], indent + "  ");
    }
    return;
  }
  out << indent << "kind: "
      << (a.kind == format::ArtifactKind::Xdna ? "xdna (ELF32 EM_AIE, AIE2P, metadata v2)"
                                               : "amdgpu (HSACO, ELF64 EM_AMDGPU)")
      << "\n";
  out << indent << "target: " << a.target << "\n";
  if (a.referenceOnly())
    out << indent << "reference-only: yes: " << a.identity->referenceOnlyReason << "\n"
        << indent << "  the npu device refuses this image; run it on the host reference device (--device=host)\n";
  else if (a.identity && !a.identity->nativeCode.empty())
    out << indent << "reference-only: no: " << a.identity->nativeCode << "\n";
  else
    out << indent << "reference-only: no\n";
  if (a.identity) {
    const format::ArtifactIdentity &id = *a.identity;
    out << indent << "identity: " << id.compilerName << " " << id.compilerVersion << " (LLVM " << id.llvmVersion << ")"
        << (id.compilerDigest.empty() ? "" : " sha256 " + id.compilerDigest) << "\n";
    out << indent << "  specialization: " << (id.symbol.empty() ? "<all exports>" : id.symbol);
    for (const auto &[k, v] : id.config) out << " " << k << "=" << v;
    out << "\n" << indent << "  report mode: " << id.reportMode << ", processor mode: " << id.processorMode << "\n";
    if (!id.optionsDigest.empty()) out << indent << "  options digest: " << id.optionsDigest << "\n";
  } else {
    out << indent << "identity: none (no .hrx.identity section)\n";
  }
  if (a.xdna) {
    const xdna::Image &img = *a.xdna;
    out << indent << "profile: " << hex(img.header.profileId) << " revision " << img.header.profileRevision
        << ", firmware ABI " << hex(img.header.firmwareAbiId) << "\n";
    out << indent << "columns: " << img.header.columns << ", rows: " << img.header.rows << "\n";
    out << indent << "entries: " << img.entries.size() << "\n";
    for (const xdna::Entry &e : img.entries) {
      out << indent << "  entry " << e.name << ": " << e.allocationUseCount << " allocation uses, " << e.bindingCount
          << " bindings, " << e.staticRelocationCount << " static + " << e.dynamicRelocationCount
          << " dynamic relocations, " << e.invocationCount << " invocations\n";
      auto rows = img.bindingsOf(e);
      for (size_t i = 0; i < rows.size(); ++i) {
        const xdna::Binding &b = rows[i];
        if (b.kind == xdna::BindingKind::None) {
          out << indent << "    binding " << i << ": none (unused slot)\n";
          continue;
        }
        out << indent << "    binding " << i << ": buffer "
            << (b.addressSpace == xdna::AddressSpace::Global ? "global" : "host") << " " << accessText(b.access)
            << " usage=" << usageText(b.usage) << " min-bytes=" << b.minimumByteLength
            << " align=" << b.minimumAlignment << "\n";
      }
      if (a.contracts && a.contracts->count(e.name)) {
        const format::KernelContract &c = a.contracts->at(e.name);
        for (size_t i = 0; i < c.bindings.size(); ++i)
          out << indent << "    contract " << i << ": " << c.bindings[i].bytes << " bytes aligned to "
              << c.bindings[i].alignment << ", " << format::contractAccessName(c.bindings[i].access)
              << (c.bindings[i].layout.empty() ? "" : " (" + c.bindings[i].layout + ")") << "\n";
        out << indent << "    constants: " << c.constants.size() << " bytes\n";
      }
      for (uint32_t i = 0; i < e.staticRelocationCount + e.dynamicRelocationCount; ++i) {
        const xdna::Relocation &r = img.relocations[e.firstStaticRelocation + i];
        bool isStatic = i < e.staticRelocationCount;
        out << indent << "    relocation " << (isStatic ? "static " : "dynamic") << " use " << r.destinationUse << " +"
            << hex(r.byteOffset) << " <- " << (isStatic ? "allocation use " : "binding ") << r.sourceOrdinal
            << (r.addend ? " addend " + std::to_string(r.addend) : "") << "\n";
      }
      for (uint32_t i = 0; i < e.invocationCount; ++i) {
        const xdna::Invocation &inv = img.invocations[e.firstInvocation + i];
        out << indent << "    invocation " << i << ": use " << inv.allocationUse << " [" << hex(inv.byteOffset) << ", +"
            << inv.byteLength << ") next " << inv.nextInvocation << "\n";
      }
      for (const format::ArrayPlan &p : a.plans)
        if (p.name == e.name)
          out << indent << "    array plan: " << p.workers.size() << " workers, " << p.channels.size() << " channels, "
              << p.slots.size() << " slots, " << p.locks.size() << " locks, " << p.dmas.size() << " dma, "
              << p.routes.size() << " routes\n";
    }
    out << indent << "allocations: " << img.allocations.size() << "\n";
    for (size_t i = 0; i < img.allocations.size(); ++i) {
      const xdna::Allocation &al = img.allocations[i];
      out << indent << "  allocation " << i << ": " << (al.domain == xdna::Domain::Command ? "command" : "dma") << " "
          << al.byteLength << " bytes align " << al.alignment << ((al.flags & xdna::kImmutable) ? " immutable" : "")
          << ((al.flags & xdna::kDeviceWrite) ? " device-write" : "") << ", loads " << al.firstLoad << ".."
          << al.firstLoad + al.loadCount - 1 << "\n";
    }
  }
  if (a.amdgpu) {
    out << indent << "e_flags: " << hex(a.amdgpu->flags) << ", ABI version " << int(a.amdgpu->abiVersion) << "\n";
    if (a.contracts)
      for (const auto &[name, c] : *a.contracts) {
        out << indent << "  kernel " << name << ": " << c.bindings.size() << " bindings, " << c.constants.size()
            << " constant bytes\n";
        for (size_t i = 0; i < c.bindings.size(); ++i)
          out << indent << "    contract " << i << ": " << c.bindings[i].bytes << " bytes aligned to "
              << c.bindings[i].alignment << ", " << format::contractAccessName(c.bindings[i].access) << "\n";
      }
  }
  out << indent << "report: " << (a.report ? a.report->backend() + " " + a.report->mode() : std::string("none"))
      << "\n";
  textCoreCode(out, a, indent);
  out << indent << "sections:\n";
  for (const format::SectionInfo &s : a.sectionHeaders()) {
    if (s.type == 0 && s.name.empty()) continue;
    out << indent << "  " << s.name << " " << sectionType(s.type) << " offset " << hex(s.offset) << " size " << s.size
        << ((s.flags & 0x800) ? " (zstd)" : "") << "\n";
  }
}

}  // namespace

std::string inspectText(const format::Artifact &artifact) {
  std::ostringstream out;
  textArtifact(out, artifact, "");
  return out.str();
}

ReportJson inspectJson(const format::Artifact &artifact) { return artifactJson(artifact); }

namespace {

std::string escapeInvalidUtf8(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (size_t n = hrx::text::utf8Length(text.substr(i))) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    static const char *digits = "0123456789abcdef";
    unsigned char c = static_cast<unsigned char>(text[i++]);
    out += "\\x";
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

format::ReportJson escapedJson(const format::ReportJson &value) {
  if (value.is_string()) return escapeInvalidUtf8(value.get_ref<const std::string &>());
  if (value.is_array()) {
    format::ReportJson out = format::ReportJson::array();
    for (const format::ReportJson &element : value) out.push_back(escapedJson(element));
    return out;
  }
  if (value.is_object()) {
    format::ReportJson out = format::ReportJson::object();
    for (auto it = value.begin(); it != value.end(); ++it) out[escapeInvalidUtf8(it.key())] = escapedJson(it.value());
    return out;
  }
  return value;
}

}  // namespace

std::string dumpJson(const format::ReportJson &value) { return escapedJson(value).dump(2); }

}  // namespace hrx::tool
