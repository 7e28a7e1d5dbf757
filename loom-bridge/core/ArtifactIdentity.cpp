#include "hrx/bridge/ArtifactIdentity.h"

#include "hrx/format/Sha256.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/MemoryBuffer.h>

#include <elf.h>
#include <link.h>

#include <cstring>

namespace hrx::bridge {

namespace {
// The runtime's SHA-256 (one implementation: hrx/format/Sha256.h), not llvm::SHA256.
std::string sha256Hex(llvm::StringRef bytes) { return format::sha256Hex(llvm::arrayRefFromStringRef(bytes)); }

// The GNU build ID of every object loaded into this process (the executable, hrx's libraries,
// LLVM, Clang, the C++ runtime), in load order, as "name=hex;". Empty when any object lacks
// one, so the caller falls back to hashing the executable's bytes.
std::string loadedBuildIds() {
  struct Collected {
    std::string ids;
    bool complete = true;
  } collected;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        auto &out = *static_cast<Collected *>(data);
        std::string_view name = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "<main>";
        if (name.starts_with("linux-vdso")) return 0;
        std::string id;
        for (unsigned i = 0; i < info->dlpi_phnum && id.empty(); ++i) {
          const ElfW(Phdr) &segment = info->dlpi_phdr[i];
          if (segment.p_type != PT_NOTE) continue;
          auto *at = reinterpret_cast<const uint8_t *>(info->dlpi_addr + segment.p_vaddr);
          const uint8_t *end = at + segment.p_memsz;
          while (at + sizeof(ElfW(Nhdr)) <= end) {
            ElfW(Nhdr) note;
            std::memcpy(&note, at, sizeof note);
            const uint8_t *noteName = at + sizeof note;
            const uint8_t *desc = noteName + ((note.n_namesz + 3) & ~3u);
            const uint8_t *next = desc + ((note.n_descsz + 3) & ~3u);
            if (next > end) break;
            if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(noteName, "GNU", 4) == 0)
              id = llvm::toHex(llvm::ArrayRef<uint8_t>(desc, note.n_descsz), /*LowerCase=*/true);
            at = next;
          }
        }
        if (id.empty()) out.complete = false;
        out.ids += std::string(name.substr(name.rfind('/') + 1)) + "=" + id + ";";
        return 0;
      },
      &collected);
  return collected.complete ? collected.ids : std::string();
}
}  // namespace

const std::string &compilerDigest() {
  // Build IDs identify the exact code that generates the bytes without reading megabytes of
  // executable on every compile (hashing /proc/self/exe was a quarter of a small compile).
  static const std::string digest = [] {
    if (std::string ids = loadedBuildIds(); !ids.empty()) return sha256Hex("build-ids:" + ids);
    auto buffer = llvm::MemoryBuffer::getFile("/proc/self/exe", /*IsText=*/false, /*RequiresNullTerminator=*/false);
    return buffer ? sha256Hex((*buffer)->getBuffer()) : std::string();
  }();
  return digest;
}

std::string processorModeName(ProcessorMode mode) {
  switch (mode) {
  case ProcessorMode::Cu: return "ComputeUnit";
  case ProcessorMode::Wgp: return "WorkgroupProcessor";
  case ProcessorMode::Default: break;
  }
  return "Default";
}

std::string reportModeName(ReportMode mode) {
  switch (mode) {
  case ReportMode::Summary: return "summary";
  case ReportMode::Details: return "details";
  case ReportMode::None: break;
  }
  return "none";
}

std::string canonicalOptions(const CompilerOptions &options) {
  // `workers` only changes scheduling, never bytes, so it is not part of the identity.
  return "columns=" + std::to_string(options.columns) + ";debug-info=" + std::to_string(options.debugInfo) +
         ";host-cpu=" + options.hostCpu + ";opt-level=" + std::to_string(options.optLevel) +
         ";processor-mode=" + processorModeName(options.processorMode) +
         (options.hostTwin ? "" : ";host-twin=never") +  // absent by default: digests stay as they were
         (options.hostTwinQuick ? "" : ";host-twin-opt=full");
}

format::ArtifactIdentity artifactIdentity(const BackendRequest &request, std::span<const uint8_t> hostCode,
                                          std::string_view referenceOnlyReason) {
  CompilerIdentity compiler = compilerIdentity();
  format::ArtifactIdentity identity;
  identity.compilerName = compiler.name;
  identity.compilerVersion = compiler.version;
  identity.llvmVersion = compiler.llvmVersion;
  identity.compilerDigest = compilerDigest();
  identity.target = request.target.profile;
  identity.symbol = request.specialization.symbol;
  identity.config = request.specialization.config;
  identity.reportMode = reportModeName(request.specialization.report);
  identity.processorMode = processorModeName(request.options.processorMode);
  identity.optionsDigest = sha256Hex(canonicalOptions(request.options));
  identity.hostSha256 = sha256Hex(llvm::toStringRef(llvm::ArrayRef<uint8_t>(hostCode.data(), hostCode.size())));
  identity.referenceOnly = !referenceOnlyReason.empty();
  identity.referenceOnlyReason = std::string(referenceOnlyReason);
  return identity;
}

}  // namespace hrx::bridge
