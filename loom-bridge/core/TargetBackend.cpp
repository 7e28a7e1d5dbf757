#include "hrx/bridge/TargetBackend.h"
#include "hrx/bridge/StageIr.h"

namespace hrx::bridge {

cxx::ImportTarget hostProcessImportTarget(std::string name, std::string define) {
  cxx::ImportTarget target;
  target.name = std::move(name);
  target.triple = kHostTriple;
  target.defines = {std::move(define)};
  target.hostProcess = true;
  return target;
}

std::unique_ptr<TargetBackend> createBackend(const Target &target) {
  return target.info && target.info->create ? target.info->create() : nullptr;
}

std::optional<std::vector<uint8_t>> TargetBackend::hostReferenceCode(const Program &, const CompilerOptions &,
                                                                     std::string_view, diag::DiagnosticEngine &diags) {
  diags.report(diag::DiagId::LinkNotImplemented, {})
      .arg("what", "host reference code from the " + info().backend + " backend");
  return std::nullopt;
}

std::optional<std::vector<uint8_t>> buildHostReferenceCode(const BackendRequest &request, const Program &program,
                                                           diag::DiagnosticEngine &diags,
                                                           std::string_view providerFamily, bool launchOnly) {
  std::unique_ptr<TargetBackend> host = request.hostReference ? createBackend(*request.hostReference) : nullptr;
  if (!host) {
    diags.report(diag::DiagId::LinkNotImplemented, {})
        .arg("what", "host reference code (this build has no host backend)");
    return std::nullopt;
  }
  CompilerOptions options = request.options;
  options.hostTwin = !launchOnly;  // what the host backend reads (other members keep full host code)
  return host->hostReferenceCode(program, options, providerFamily, diags);
}

}  // namespace hrx::bridge
