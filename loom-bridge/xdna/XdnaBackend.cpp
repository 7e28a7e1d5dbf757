// The xdna target (amd.xdna.strix_halo.17f0_11): every pipeline.def<kernel> export becomes an
// NPU entry: PipelineGraph -> array plan -> transactions -> canonical .xdna image.
#include "hrx/bridge/ArtifactIdentity.h"
#include "hrx/format/ArrayPlanSvg.h"
#include "hrx/format/Fat.h"
#include "hrx/bridge/StageIr.h"
#include "hrx/bridge/TargetBackend.h"
#include "hrx/format/HostAbi.h"
#include "hrx/format/ArrayPlanWriter.h"
#include "hrx/format/XdnaWriter.h"
#include "hrx/xdna/Aie2pCodegen.h"
#include "hrx/xdna/Aie2pMain.h"
#include "hrx/xdna/Npu5Model.h"
#include "hrx/xdna/PipelineExtract.h"
#include "hrx/xdna/Planner.h"
#include "hrx/xdna/XdnaImage.h"

#include <llvm/IR/LLVMContext.h>

#include <algorithm>
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
// the program's stage IR (its diagnostics are the host code's, reported once there), linked per
// worker tile with the core main program its ports imply. A worker the selector cannot compile,
// or whose main program cannot be linked, keeps its host twin (XDNA/015); a program over the
// program memory is XDNA/016. `twins` collects why, once per worker. False after an error.
bool compileWorkers(const Program &program, std::vector<PlannedEntry> &entries, std::map<std::string, WorkerCode> &out,
                    std::vector<std::string> &twins, diag::DiagnosticEngine &diags) {
  diag::DiagnosticEngine quiet(diags.sourceManager());
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = lowerStageIr(program, context, quiet);
  if (module) xdna::prepareModuleForAie2p(*module);
  bool ok = true;
  const uint64_t supply = xdna::Npu5Model::resources(format::TileKind::Compute).programMemoryBytes;
  auto twin = [&](const PlannedEntry &e, const std::string &entry, const std::string &construct,
                  const std::string &reason) {
    diags.report(diag::DiagId::XdnaWorkerStaysTwin, e.loc)
        .arg("entry", entry)
        .arg("construct", construct)
        .arg("reason", reason);
    std::string why = "worker @" + entry + " has no native code: " + construct + " (" + reason + ")";
    if (std::find(twins.begin(), twins.end(), why) == twins.end()) twins.push_back(why);
  };
  for (PlannedEntry &e : entries) {
    std::set<std::pair<uint32_t, uint32_t>> tiles;
    for (const format::PlanWorker &w : e.plan.workers) {
      auto [it, inserted] = out.try_emplace(w.entry);
      WorkerCode &wc = it->second;
      if (inserted) {
        llvm::Function *stage = module ? module->getFunction(std::string(HRX_HOST_STAGE_PREFIX) + w.entry) : nullptr;
        auto compiled = stage ? xdna::compileStageForAie2p(*stage)
                              : std::expected<xdna::CoreCode, xdna::CodegenError>(std::unexpected(
                                    xdna::CodegenError{"its stage function", "the host lowering did not produce it"}));
        if (!compiled) {
          wc.twinReason = compiled.error().construct + "\x1f" + compiled.error().reason;
        } else {
          wc.code = std::move(*compiled);
        }
      }
      if (!wc.code) {
        size_t cut = wc.twinReason.find('\x1f');
        twin(e, w.entry, wc.twinReason.substr(0, cut), wc.twinReason.substr(cut + 1));
        continue;
      }
      if (!tiles.insert({w.tile.column, w.tile.row}).second) {
        twin(e, w.entry, "its tile", "another worker already runs on that core");
        continue;
      }
      auto linked = xdna::linkCoreProgram(wc.code->assembly, wc.code->frameBytes, e.plan, w);
      if (!linked) {
        twin(e, w.entry, "its core main program", linked.error());
        continue;
      }
      if (linked->bytes.size() > supply) {
        diags.report(diag::DiagId::XdnaProgramMemoryExceeded, e.loc)
            .arg("entry", w.entry)
            .arg("needed", (long long)linked->bytes.size())
            .arg("available", (long long)supply);
        ok = false;
        continue;
      }
      e.code.push_back(
          {w.tile, std::move(linked->bytes), linked->stateOffset, linked->stateBytes, std::move(linked->assembly)});
    }
  }
  return ok;
}

// The reference-only reason: empty when every worker has native core code (the commands load
// and enable every core), else the workers that keep only their host twins.
std::string nativeCodeStatus(const std::vector<std::string> &twins) {
  if (twins.empty()) return "";
  std::string list;
  for (const std::string &t : twins) list += (list.empty() ? "" : "; ") + t;
  return "not every worker has native AIE2P core code (" + list + "); the image runs on the host reference device only";
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
         {"amd.xdna.strix_halo.17f0_11"},
         {"aie2p"}}};
    info.options = {"--columns="};
    info.checkRunPath = "array-plan";
    info.stagesBeforeLowering = {{"plan", "array-plan", {EmitKind::ArrayPlan, EmitKind::ArrayPlanSvg}, "array plans"}};
    // The NPU5 planner's only intermediate form is the array plan (XDNA/011 for the others).
    info.savedForms = {EmitKind::ArrayPlan};
    info.artifactExtension = ".xdna";
    info.fatMember = FatMember{"aie2p-amd-xdna", format::kOffloadNone};
#define HRX_REPORT_BACKEND(name) info.reportBackends.push_back(name);
#define HRX_REPORT_FIELD(name, pointer) info.reportFields.push_back({name, pointer});
#include "ReportFields.def"
#undef HRX_REPORT_FIELD
#undef HRX_REPORT_BACKEND
    return info;
  }

  // NPU workers are x86-64 host code here (the host reference device runs them), under the NPU
  // worker restrictions.
  std::optional<cxx::ImportTarget> cxxImportTarget(const Target &) const override {
    cxx::ImportTarget target = hostProcessImportTarget("xdna-worker", "__HRX_TARGET_XDNA__=1");
    target.npuWorker = true;
    return target;
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
    std::vector<std::string> twins;
    if (!compileWorkers(program, entries, workerCode, twins, diags)) return std::nullopt;
    if (request.emit == EmitKind::Asm) {
      std::string text;
      for (const std::string &t : twins) text += "// " + t + "\n";
      for (const PlannedEntry &e : entries)
        for (const xdna::TileCode &c : e.code) {
          const format::PlanWorker *w = nullptr;
          for (const format::PlanWorker &pw : e.plan.workers)
            if (pw.tile == c.tile) w = &pw;
          const WorkerCode &wc = workerCode.at(w->entry);
          text += "// worker @" + w->entry + " on tile (" + std::to_string(c.tile.column) + "," +
                  std::to_string(c.tile.row) + "): " + std::to_string(c.bytes.size()) + " bytes, a " +
                  std::to_string(wc.code->frameBytes) + "-byte frame, " + std::to_string(w->iterations) +
                  " iteration(s) per invocation\n" + c.assembly;
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
    sections.referenceOnlyReason = nativeCodeStatus(twins);
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
