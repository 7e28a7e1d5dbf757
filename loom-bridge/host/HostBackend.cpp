// The host target: Loom stage functions and kernels as an x86-64 shared object with the
// entry points of runtime/include/hrx/format/HostAbi.h.
#include "hrx/bridge/HostCode.h"
#include "hrx/bridge/StageIr.h"
#include "hrx/bridge/TargetBackend.h"
#include "hrx/format/HostAbi.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Support/raw_ostream.h>

namespace hrx::bridge {
namespace {

void reportHostCodeError(const HostCodeError &error, diag::DiagnosticEngine &diags) {
  diags.report(error.inLinker ? diag::DiagId::LinkLinkerFailed : diag::DiagId::LinkCodegenFailed, {})
      .arg("target", "host")
      .arg("message", error.message);
}

// What code may do through one pointer: HRX_HOST_RECORD_READ and/or HRX_HOST_RECORD_WRITE. Any
// use not understood (the pointer stored, converted to an integer, passed to an unknown callee)
// counts as both.
uint8_t pointerAccess(const llvm::Value *root, unsigned depth) {
  constexpr uint8_t kAny = HRX_HOST_RECORD_READ | HRX_HOST_RECORD_WRITE;
  uint8_t access = 0;
  llvm::SmallVector<const llvm::Value *, 16> work{root};
  llvm::SmallPtrSet<const llvm::Value *, 16> seen{root};
  while (!work.empty()) {
    const llvm::Value *value = work.pop_back_val();
    for (const llvm::Use &use : value->uses()) {
      const llvm::User *user = use.getUser();
      if (llvm::isa<llvm::LoadInst>(user)) {
        access |= HRX_HOST_RECORD_READ;
      } else if (auto *store = llvm::dyn_cast<llvm::StoreInst>(user)) {
        if (use.getOperandNo() != store->getPointerOperandIndex()) return kAny;
        access |= HRX_HOST_RECORD_WRITE;
      } else if (llvm::isa<llvm::GetElementPtrInst, llvm::BitCastInst, llvm::AddrSpaceCastInst, llvm::PHINode,
                           llvm::SelectInst>(user)) {
        if (seen.insert(user).second) work.push_back(user);
      } else if (llvm::isa<llvm::ICmpInst>(user)) {
        continue;
      } else if (auto *call = llvm::dyn_cast<llvm::CallBase>(user)) {
        if (call->isBundleOperand(use.getOperandNo())) continue;  // llvm.assume "align"
        if (auto *intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(call)) {
          switch (intrinsic->getIntrinsicID()) {
          case llvm::Intrinsic::memcpy:
          case llvm::Intrinsic::memcpy_inline:
          case llvm::Intrinsic::memmove:
            access |= use.getOperandNo() == 0 ? HRX_HOST_RECORD_WRITE : HRX_HOST_RECORD_READ;
            continue;
          case llvm::Intrinsic::memset:
          case llvm::Intrinsic::memset_inline: access |= HRX_HOST_RECORD_WRITE; continue;
          case llvm::Intrinsic::lifetime_start:
          case llvm::Intrinsic::lifetime_end:
          case llvm::Intrinsic::assume: continue;
          default: return kAny;
          }
        }
        const llvm::Function *callee = call->getCalledFunction();
        if (!callee || callee->isDeclaration() || callee->isVarArg() || depth >= 4 || !call->isArgOperand(&use))
          return kAny;
        access |= pointerAccess(callee->getArg(call->getArgOperandNo(&use)), depth + 1);
      } else {
        return kAny;
      }
      if (access == kAny) return kAny;
    }
  }
  return access;
}

// "hrx.stage_access.<sym>" for every stage entry (HostAbi.h), once the module holds all code:
// the access of each record pointer the entry passes to its callee.
void emitStageAccess(llvm::Module &module) {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> tables;
  for (llvm::Function &entry : module) {
    if (entry.isDeclaration() || !entry.getName().starts_with(HRX_HOST_STAGE_PREFIX)) continue;
    const llvm::CallBase *call = nullptr;
    for (const llvm::Instruction &inst : entry.getEntryBlock())
      if (auto *c = llvm::dyn_cast<llvm::CallBase>(&inst)) call = c;
    const llvm::Function *callee = call ? call->getCalledFunction() : nullptr;
    if (!callee || callee->isDeclaration() || callee->arg_size() != call->arg_size()) continue;
    std::vector<uint8_t> access;
    for (const llvm::Argument &arg : callee->args()) access.push_back(pointerAccess(&arg, 0));
    tables.emplace_back(HRX_HOST_STAGE_ACCESS_PREFIX + entry.getName().drop_front(sizeof HRX_HOST_STAGE_PREFIX - 1).str(),
                        std::move(access));
  }
  for (auto &[name, access] : tables) {
    llvm::Constant *init = llvm::ConstantDataArray::get(module.getContext(), access);
    new llvm::GlobalVariable(module, init->getType(), /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage, init,
                             name);
  }
}

}  // namespace

std::optional<std::vector<uint8_t>> buildHostCode(const Program &program, const HostCodeOptions &options,
                                                  diag::DiagnosticEngine &diags) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module =
      lowerStageIr(program, context, diags, /*forHostTarget=*/false, options.providerFamily, options.launchOnly);
  if (!module) return std::nullopt;
  emitStageAccess(*module);
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
                      {"x86_64"},
                      {}}};
    info.isDefault = true;
    info.hostReference = true;
    info.checkRunPath = "host-object";
    info.runsCxxKernels = true;
    info.savedForms = {EmitKind::Llvm, EmitKind::Asm, EmitKind::Object};
    info.artifactExtension = ".host.so";
    info.notFatMemberNote = "xdna and AMDGPU members already carry their host reference code, which hrx-run "
                            "--device=host runs; compile the host target on its own for a host shared object";
    return info;
  }

  std::optional<cxx::ImportTarget> cxxImportTarget(const Target &) const override {
    return hostProcessImportTarget("host", "__HRX_TARGET_HOST__=1");
  }

  std::optional<std::vector<uint8_t>> hostReferenceCode(const Program &program, const CompilerOptions &options,
                                                        std::string_view providerFamily,
                                                        diag::DiagnosticEngine &diags) override {
    // Only an AMDGPU artifact's host code is quick: its twin is most of a GPU compile's time, and
    // launch programs alone (--host-twin=never) are scalar code run once per dispatch. The NPU's
    // host code (its workers' twins) keeps the whole pipeline.
    bool quick = providerFamily == "amdgpu" && options.hostTwinQuick;
    return buildHostCode(
        program, HostCodeOptions{options.hostCpu, options.optLevel, providerFamily, !options.hostTwin, quick}, diags);
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
    emitStageAccess(*module);
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
