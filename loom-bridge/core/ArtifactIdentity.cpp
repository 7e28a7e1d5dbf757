#include "hrx/bridge/ArtifactIdentity.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SHA256.h>

namespace hrx::bridge {

namespace {
std::string sha256Hex(llvm::StringRef bytes) {
  llvm::SHA256 sha;
  sha.update(bytes);
  return llvm::toHex(sha.final(), /*LowerCase=*/true);
}
}  // namespace

const std::string &compilerDigest() {
  static const std::string digest = [] {
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
         ";processor-mode=" + processorModeName(options.processorMode);
}

format::ArtifactIdentity artifactIdentity(const BackendRequest &request, std::string_view referenceOnlyReason) {
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
  identity.referenceOnly = !referenceOnlyReason.empty();
  identity.referenceOnlyReason = std::string(referenceOnlyReason);
  return identity;
}

}  // namespace hrx::bridge
