// The xdna target (amd.xdna.strix_halo.17f0_11): every pipeline.def<kernel> export becomes an
// NPU entry: PipelineGraph -> array plan -> transactions -> canonical .xdna image.
#include "hrx/bridge/ArtifactIdentity.h"
#include "hrx/format/ArrayPlanSvg.h"
#include "hrx/format/Fat.h"
#include "hrx/bridge/HostCode.h"
#include "hrx/bridge/TargetBackend.h"
#include "hrx/format/HostAbi.h"
#include "hrx/xdna/Aie2pCodegen.h"
#include "hrx/xdna/Npu5Model.h"
#include "hrx/xdna/PipelineExtract.h"
#include "hrx/xdna/Planner.h"
#include "hrx/xdna/XdnaImage.h"

#include <llvm/IR/LLVMContext.h>

#include <map>
#include <set>

namespace hrx::bridge {
namespace {

using xdna::PlannedEntry;

std::vector<uint8_t> bytesOf(const std::string &text) { return {text.begin(), text.end()}; }

struct WorkerCode {
  std::optional<xdna::CoreCode> code;
  std::string twinReason;  // why it has none
};

// Native AIE2P code for every worker entry of the planned pipelines, from a second lowering of
// the program (its diagnostics are the host code's, reported once by buildHostCode). A worker
// the selector cannot compile keeps its host twin (XDNA/015); native code over the program
// memory is XDNA/016. False after an error.
bool compileWorkers(const Program &program, std::vector<PlannedEntry> &entries, std::map<std::string, WorkerCode> &out,
                    diag::DiagnosticEngine &diags) {
  diag::DiagnosticEngine quiet(diags.sourceManager());
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = lowerForHost(program, context, quiet);
  if (module) xdna::prepareModuleForAie2p(*module);
  bool ok = true;
  for (PlannedEntry &e : entries) {
    for (const format::PlanWorker &w : e.plan.workers) {
      auto [it, inserted] = out.try_emplace(w.entry);
      WorkerCode &wc = it->second;
      if (inserted) {
        llvm::Function *stage = module ? module->getFunction(std::string(HRX_HOST_STAGE_PREFIX) + w.entry) : nullptr;
        auto compiled = stage ? xdna::compileStageForAie2p(*stage)
                              : std::expected<xdna::CoreCode, xdna::CodegenError>(std::unexpected(
                                    xdna::CodegenError{"its stage function", "the host lowering did not produce it"}));
        if (!compiled) {
          diags.report(diag::DiagId::XdnaWorkerStaysTwin, e.loc)
              .arg("entry", w.entry)
              .arg("construct", compiled.error().construct)
              .arg("reason", compiled.error().reason);
          wc.twinReason = "worker @" + w.entry + " has no native code: " + compiled.error().construct + " (" +
                          compiled.error().reason + ")";
        } else if (compiled->bytes.size() > xdna::Npu5Model::resources(format::TileKind::Compute).programMemoryBytes) {
          diags.report(diag::DiagId::XdnaProgramMemoryExceeded, e.loc)
              .arg("entry", w.entry)
              .arg("needed", (long long)compiled->bytes.size())
              .arg("available", (long long)xdna::Npu5Model::resources(format::TileKind::Compute).programMemoryBytes);
          ok = false;
        } else {
          wc.code = std::move(*compiled);
        }
      }
      if (wc.code) e.code.push_back({w.tile, wc.code->bytes});
    }
  }
  return ok;
}

std::string nativeCodeStatus(const std::vector<PlannedEntry> &entries, const std::map<std::string, WorkerCode> &code) {
  std::string twins;
  for (const PlannedEntry &e : entries)
    for (const format::PlanWorker &w : e.plan.workers)
      if (const WorkerCode &wc = code.at(w.entry); !wc.code && twins.find("@" + w.entry + " ") == std::string::npos)
        twins += (twins.empty() ? "" : "; ") + wc.twinReason;
  if (!twins.empty())
    return "not every worker has native AIE2P core code (" + twins +
           "); the image runs on the host reference device only";
  return "every worker has native AIE2P core code (in the establish command's program-memory writes; run by the host "
         "reference device's instruction-set simulator, not yet run on hardware), but the core main program that "
         "acquires locks and walks the rings is not generated yet, so the image does not run on an NPU";
}

class XdnaBackend final : public TargetBackend {
public:
  TargetInfo info() const override {
    TargetInfo info;
    info.backend = "xdna";
    info.profiles = {
        {"xdna",
         "amd.xdna.strix_halo.17f0_11",
         {{"xdna", "Strix Halo NPU5 (alias of amd.xdna.aie2p:amd.xdna.strix_halo.17f0_11)"},
          {"amd.xdna.aie2p:amd.xdna.strix_halo.17f0_11", "Strix Halo NPU5, XDNA2/AIE2P array, PCI 1022:17f0 rev 0x11"}},
         {"amd.xdna.strix_halo.17f0_11"}}};
    info.options = {"--columns="};
    info.stagesBeforeLowering = {{"plan", "array-plan", {EmitKind::ArrayPlan, EmitKind::ArrayPlanSvg}, "array plans"}};
    // The NPU5 planner's only intermediate form is the array plan (XDNA/011 for the others).
    info.savedForms = {EmitKind::ArrayPlan};
    info.artifactExtension = ".xdna";
    info.fatMember = FatMember{"aie2p-amd-xdna", format::kOffloadNone};
    return info;
  }

  std::optional<cxx::ImportTarget> cxxImportTarget(const Target &) const override {
    return cxx::ImportTarget::XdnaWorker;
  }

  std::optional<BackendOutput> emit(const BackendRequest &request, diag::DiagnosticEngine &diags) override {
    // C/C++ workers imported for another member of a fat artifact are imported again for the NPU.
    std::unique_ptr<Program> retargeted;
    const Program *forTarget = programForTarget(request.program, request.target, request.options, retargeted, diags);
    if (!forTarget) return std::nullopt;
    const Program &program = *forTarget;
    unsigned columns = request.options.columns;
    if (!xdna::Npu5Model::isValidContextWidth(columns)) {
      diags.report(diag::DiagId::XdnaColumnsOutOfRange, {}).arg("columns", (long long)columns);
      return std::nullopt;
    }
    std::vector<PlannedEntry> entries;
    bool ok = true;
    for (size_t i = 0; i < program.exports.size(); ++i) {
      const loom::Operation &op = *program.exports[i];
      if (op.opcode() != loom::OpCode::PipelineDef) continue;  // workers and GPU kernels are not NPU entries
      std::optional<xdna::PipelineGraph> graph =
          xdna::extractPipelineGraph(program, op, program.contracts.at(i), diags);
      std::optional<format::ArrayPlan> plan = graph ? xdna::planArray(*graph, {columns}, diags) : std::nullopt;
      if (!plan) {
        ok = false;
        continue;
      }
      entries.push_back({std::move(*plan), program.contracts.at(i), op.loc(), {}});
    }
    if (!ok) return std::nullopt;
    if (entries.empty()) {
      diags.report(diag::DiagId::XdnaUnsupportedConstruct, {})
          .arg("construct", "a program without a pipeline.def<kernel> export (the NPU runs pipelines)");
      return std::nullopt;
    }
    if (request.emit == EmitKind::ArrayPlan) {
      std::string text;
      for (const PlannedEntry &e : entries) text += format::printArrayPlan(e.plan);
      return BackendOutput{bytesOf(text), {}};
    }
    if (request.emit == EmitKind::ArrayPlanSvg) {
      std::vector<format::ArrayPlan> plans;
      for (const PlannedEntry &e : entries) plans.push_back(e.plan);
      return BackendOutput{bytesOf(format::renderArrayPlanSvg(plans)), {}};
    }
    std::map<std::string, WorkerCode> workerCode;
    if (!compileWorkers(program, entries, workerCode, diags)) return std::nullopt;
    if (request.emit == EmitKind::Asm) {
      std::string text;
      std::set<std::string> printed;
      for (const PlannedEntry &e : entries)
        for (const format::PlanWorker &w : e.plan.workers) {
          if (!printed.insert(w.entry).second) continue;
          const WorkerCode &wc = workerCode.at(w.entry);
          if (!wc.code) {
            text += "// worker @" + w.entry + ": no native code (" + wc.twinReason + ")\n";
            continue;
          }
          text += "// worker @" + w.entry + ": " + std::to_string(wc.code->bytes.size()) + " bytes, " +
                  std::to_string(wc.code->bundles) + " bundles, a " + std::to_string(wc.code->frameBytes) +
                  "-byte frame\n" + wc.code->assembly;
        }
      return BackendOutput{bytesOf(text), {}};
    }
    if (request.emit != EmitKind::Artifact && request.emit != EmitKind::Object) {
      diags.report(diag::DiagId::XdnaUnsupportedConstruct, {})
          .arg("construct", "this output kind for the xdna target (use --emit=array-plan, or an .xdna artifact)");
      return std::nullopt;
    }
    std::optional<std::vector<uint8_t>> host = buildHostReferenceCode(request, program, diags);
    if (!host) return std::nullopt;
    xdna::ImageSections sections;
    sections.hostCode = std::move(*host);
    sections.referenceOnlyReason = nativeCodeStatus(entries, workerCode);
    sections.identity = artifactIdentity(request, sections.hostCode, sections.referenceOnlyReason);
    // The compiler build's digest, as in AMDGPU reports (the name only when it is unknown).
    const std::string &digest = compilerDigest();
    if (request.specialization.report != ReportMode::None)
      sections.reportJson = xdna::buildReport(entries, digest.empty() ? compilerIdentity().name : digest,
                                              reportModeName(request.specialization.report));
    std::string reportJson = sections.reportJson;
    std::optional<format::xdna::Image> image = xdna::buildImage(entries, columns, std::move(sections), diags);
    if (!image) return std::nullopt;
    StatusOr<std::vector<uint8_t>> bytes = format::xdna::writeImage(*image);
    if (!bytes) {
      diags.report(diag::DiagId::LinkCodegenFailed, {}).arg("target", "xdna").arg("message", bytes.status().message());
      return std::nullopt;
    }
    return BackendOutput{std::move(*bytes), std::move(reportJson)};
  }
};

}  // namespace

std::unique_ptr<TargetBackend> createXdnaBackend() { return std::make_unique<XdnaBackend>(); }

}  // namespace hrx::bridge
