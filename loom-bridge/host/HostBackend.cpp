// The host target: Loom stage functions and kernels as an x86-64 shared object with the
// entry points of runtime/include/hrx/format/HostAbi.h.
#include "hrx/bridge/HostCode.h"
#include "hrx/bridge/StageIr.h"
#include "hrx/bridge/TargetBackend.h"

#include <llvm/Support/raw_ostream.h>

namespace hrx::bridge {
namespace {

void reportHostCodeError(const HostCodeError &error, diag::DiagnosticEngine &diags) {
  diags.report(error.inLinker ? diag::DiagId::LinkLinkerFailed : diag::DiagId::LinkCodegenFailed, {})
      .arg("target", "host")
      .arg("message", error.message);
}

}  // namespace

std::optional<std::vector<uint8_t>> buildHostCode(const Program &program, const HostCodeOptions &options,
                                                  diag::DiagnosticEngine &diags) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module =
      lowerStageIr(program, context, diags, /*forHostTarget=*/false, options.providerFamily, options.launchOnly);
  if (!module) return std::nullopt;
  auto so = hostSharedObject(*module, options);
  if (!so) {
    reportHostCodeError(so.error(), diags);
    return std::nullopt;
  }
  return std::move(*so);
}

namespace {

class HostBackend final : public TargetBackend {
public:
  TargetInfo info() const override {
    TargetInfo info;
    info.backend = "host";
    info.profiles = {{"host",
                      "x86_64",
                      {{"host", "x86-64 host reference device (code the runtime's host device executes)"}},
                      {"x86_64"}}};
    info.isDefault = true;
    info.hostReference = true;
    info.runsCxxKernels = true;
    info.savedForms = {EmitKind::Llvm, EmitKind::Asm, EmitKind::Object};
    info.artifactExtension = ".host.so";
    info.notFatMemberNote = "xdna and AMDGPU members already carry their host reference code, which hrx-run "
                            "--device=host runs; compile the host target on its own for a host shared object";
    return info;
  }

  std::optional<cxx::ImportTarget> cxxImportTarget(const Target &) const override { return cxx::ImportTarget::Host; }

  std::optional<std::vector<uint8_t>> hostReferenceCode(const Program &program, const CompilerOptions &options,
                                                        std::string_view providerFamily,
                                                        diag::DiagnosticEngine &diags) override {
    return buildHostCode(program, HostCodeOptions{options.hostCpu, options.optLevel, providerFamily, !options.hostTwin},
                         diags);
  }

  std::optional<BackendOutput> emit(const BackendRequest &request, diag::DiagnosticEngine &diags) override {
    std::optional<std::vector<uint8_t>> bytes = emitBytes(request, diags);
    if (!bytes) return std::nullopt;
    return BackendOutput{std::move(*bytes), {}};
  }

private:
  std::optional<std::vector<uint8_t>> emitBytes(const BackendRequest &request, diag::DiagnosticEngine &diags) {
    HostCodeOptions options{request.options.hostCpu, request.options.optLevel};
    std::unique_ptr<Program> retargeted;
    const Program *program = programForTarget(request.program, request.target, request.options, retargeted, diags);
    if (!program) return std::nullopt;
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = lowerStageIr(*program, context, diags, /*forHostTarget=*/true);
    if (!module) return std::nullopt;
    auto fail = [&](const std::string &message) -> std::optional<std::vector<uint8_t>> {
      diags.report(diag::DiagId::LinkCodegenFailed, {}).arg("target", "host").arg("message", message);
      return std::nullopt;
    };
    switch (request.emit) {
    case EmitKind::Llvm: {
      if (auto ok = optimizeForHost(*module, options); !ok) return fail(ok.error());
      std::string text;
      llvm::raw_string_ostream os(text);
      module->print(os, nullptr);
      return std::vector<uint8_t>(text.begin(), text.end());
    }
    case EmitKind::Asm: {
      auto text = hostAssembly(*module, options);
      if (!text) return fail(text.error());
      return std::vector<uint8_t>(text->begin(), text->end());
    }
    case EmitKind::Object:
    case EmitKind::Artifact: {
      auto so = hostSharedObject(*module, options);
      if (!so) {
        reportHostCodeError(so.error(), diags);
        return std::nullopt;
      }
      return std::move(*so);
    }
    default:
      diags.report(diag::DiagId::LinkNotImplemented, {}).arg("what", "this output kind for the host target");
      return std::nullopt;
    }
  }
};

}  // namespace

std::unique_ptr<TargetBackend> createHostBackend() { return std::make_unique<HostBackend>(); }

}  // namespace hrx::bridge
