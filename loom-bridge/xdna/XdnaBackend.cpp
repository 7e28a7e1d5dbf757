// The xdna target (amd.xdna.strix_halo.17f0_11): every pipeline.def<kernel> export becomes an
// NPU entry: PipelineGraph -> array plan -> transactions -> canonical .xdna image.
#include "hrx/bridge/HostCode.h"
#include "hrx/bridge/TargetBackend.h"
#include "hrx/xdna/Npu5Model.h"
#include "hrx/xdna/PipelineExtract.h"
#include "hrx/xdna/Planner.h"
#include "hrx/xdna/XdnaImage.h"

#include <llvm/Support/SHA256.h>

namespace hrx::bridge {
namespace {

using xdna::PlannedEntry;

std::vector<uint8_t> bytesOf(const std::string &text) { return {text.begin(), text.end()}; }

std::string hex(llvm::ArrayRef<uint8_t> bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : bytes) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}

// Options that change the bytes of an .xdna image, in a canonical spelling.
std::string optionsDigest(const CompilerOptions &options) {
  std::string canonical = "columns=" + std::to_string(options.columns) + ";O=" + std::to_string(options.optLevel) +
                          ";g=" + std::to_string(options.debugInfo) + ";host-cpu=" + options.hostCpu;
  llvm::SHA256 sha;
  sha.update(canonical);
  auto digest = sha.final();
  return hex(digest);
}

class XdnaBackend final : public TargetBackend {
public:
  TargetKind kind() const override { return TargetKind::Xdna; }

  std::optional<std::vector<uint8_t>> emit(const BackendRequest &request, diag::DiagnosticEngine &diags) override {
    const Program &program = request.program;
    unsigned columns = request.options.columns;
    if (!xdna::Npu5Model::isValidContextWidth(columns)) {
      diags.report(diag::DiagId::XdnaColumnsOutOfRange, {}).arg("columns", (long long)columns);
      return std::nullopt;
    }
    std::vector<PlannedEntry> entries;
    bool ok = true;
    for (size_t i = 0; i < program.exports.size(); ++i) {
      const loom::Operation &op = *program.exports[i];
      if (op.name() != "pipeline.def")
        continue;  // workers and GPU kernels are not NPU entries
      std::optional<xdna::PipelineGraph> graph = xdna::extractPipelineGraph(program, op, program.contracts.at(i), diags);
      std::optional<format::ArrayPlan> plan = graph ? xdna::planArray(*graph, {columns}, diags) : std::nullopt;
      if (!plan) {
        ok = false;
        continue;
      }
      entries.push_back({std::move(*plan), program.contracts.at(i), op.loc()});
    }
    if (!ok)
      return std::nullopt;
    if (entries.empty()) {
      diags.report(diag::DiagId::XdnaUnsupportedConstruct, {})
          .arg("construct", "a program without a pipeline.def<kernel> export (the NPU runs pipelines)");
      return std::nullopt;
    }
    if (request.emit == EmitKind::ArrayPlan) {
      std::string text;
      for (const PlannedEntry &e : entries)
        text += format::printArrayPlan(e.plan);
      return bytesOf(text);
    }
    if (request.emit != EmitKind::Artifact && request.emit != EmitKind::Object) {
      diags.report(diag::DiagId::XdnaUnsupportedConstruct, {})
          .arg("construct", "this output kind for the xdna target (use --emit=array-plan, or an .xdna artifact)");
      return std::nullopt;
    }
    std::optional<std::vector<uint8_t>> host =
        buildHostCode(program, HostCodeOptions{request.options.hostCpu, request.options.optLevel}, diags);
    if (!host)
      return std::nullopt;
    CompilerIdentity compiler = compilerIdentity();
    xdna::ImageSections sections;
    sections.hostCode = std::move(*host);
    sections.identity.compilerName = compiler.name;
    sections.identity.compilerVersion = compiler.version;
    sections.identity.llvmVersion = compiler.llvmVersion;
    sections.identity.target = request.target.profile;
    for (const auto &[key, value] : program.config)
      sections.identity.config[key] = value.spelling;
    sections.identity.optionsDigest = optionsDigest(request.options);
    std::optional<format::xdna::Image> image = xdna::buildImage(entries, columns, std::move(sections), diags);
    if (!image)
      return std::nullopt;
    StatusOr<std::vector<uint8_t>> bytes = format::xdna::writeImage(*image);
    if (!bytes) {
      diags.report(diag::DiagId::LinkCodegenFailed, {}).arg("target", "xdna").arg("message", bytes.status().message());
      return std::nullopt;
    }
    return std::move(*bytes);
  }
};

}  // namespace

std::unique_ptr<TargetBackend> createXdnaBackend() { return std::make_unique<XdnaBackend>(); }

}  // namespace hrx::bridge
