#include "hrx/Compiler.h"

#include "hrx/Version.h"
#include "hrx/bridge/Codegen.h"
#include "hrx/bridge/Program.h"
#include "hrx/bridge/TargetBackend.h"
#include "hrx/cxx/CxxImporter.h"
#include "hrx/format/FatWriter.h"
#include "hrx/loom/Loom.h"

#include <clang/Basic/DiagnosticIDs.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/raw_ostream.h>

#include <atomic>
#include <sstream>
#include <thread>

namespace hrx {

CompilerIdentity compilerIdentity() {
  return {"hrxcc", HRX_VERSION_STRING, LLVM_VERSION_STRING, cxx::clangVersion()};
}

std::vector<std::string> cxxWarningGroups() {
  std::vector<std::string> groups;
  for (const std::string &flag : clang::DiagnosticIDs::getDiagnosticFlags())
    if (flag.starts_with("-W") && !flag.starts_with("-Wno-")) groups.push_back(flag.substr(2));
  return groups;
}

namespace {
constexpr std::string_view kXdnaProfile = "amd.xdna.strix_halo.17f0_11";
constexpr std::string_view kXdnaQualified = "amd.xdna.aie2p:amd.xdna.strix_halo.17f0_11";
}  // namespace

Target Target::xdna() { return {TargetKind::Xdna, std::string(kXdnaProfile)}; }
Target Target::gfx1151() { return {TargetKind::Amdgpu, "gfx1151"}; }
Target Target::gfx11Generic() { return {TargetKind::Amdgpu, "gfx11-generic"}; }
Target Target::host() { return {TargetKind::Host, "x86_64"}; }

std::optional<Target> Target::parse(std::string_view name) {
  if (name == "xdna" || name == kXdnaQualified || name == kXdnaProfile) return xdna();
  if (name == "gfx1151") return gfx1151();
  if (name == "gfx11-generic") return gfx11Generic();
  if (name == "host" || name == "x86_64") return host();
  return std::nullopt;
}

std::vector<std::pair<std::string, std::string>> Target::all() {
  return {
      {"xdna", "Strix Halo NPU5 (alias of " + std::string(kXdnaQualified) + ")"},
      {std::string(kXdnaQualified), "Strix Halo NPU5, XDNA2/AIE2P array, PCI 1022:17f0 rev 0x11"},
      {"gfx1151", "Strix Halo iGPU (Radeon 8060S), RDNA 3.5"},
      {"gfx11-generic", "any gfx11 GPU (generic code object)"},
      {"host", "x86-64 host reference device (code the runtime's host device executes)"},
  };
}

std::string Target::name() const {
  switch (kind) {
  case TargetKind::Xdna: return "xdna";
  case TargetKind::Amdgpu: return profile;
  case TargetKind::Host: return "host";
  }
  return profile;
}

namespace bridge {
std::unique_ptr<TargetBackend> createBackend(TargetKind kind) {
  for (BackendFactory factory : registeredBackends()) {
    std::unique_ptr<TargetBackend> backend = factory();
    if (backend->kind() == kind) return backend;
  }
  return nullptr;
}
}  // namespace bridge

Compiler Compiler::forTarget(Target target) {
  Compiler compiler;
  compiler.targets_.push_back(std::move(target));
  return compiler;
}

Compiler &Compiler::sources(std::vector<LoomSource> loom, std::vector<CxxSource> cxx) {
  loom_ = std::move(loom);
  cxx_ = std::move(cxx);
  return *this;
}

namespace {

std::vector<uint8_t> toBytes(const std::string &text) { return {text.begin(), text.end()}; }

void notImplemented(diag::DiagnosticEngine &diags, std::string what) {
  diags.report(diag::DiagId::LinkNotImplemented, {}).arg("what", std::move(what));
}

// Several targets: one fat container (docs/formats/fat.md) with one member per target, each
// a complete artifact carrying its own contract, identity and (when asked for) report.
std::vector<uint8_t> buildFat(const bridge::Program &program, const CompileRequest &request,
                              diag::DiagnosticEngine &diags) {
  if (request.emit != EmitKind::Artifact) {
    notImplemented(diags, "intermediate outputs (--emit) for several targets in one invocation");
    return {};
  }
  // The host target is never a member: xdna and AMDGPU members already embed their host reference
  // code, and a host shared object is no artifact the runtime loads.
  for (const Target &target : request.targets)
    if (target.kind == TargetKind::Host) {
      diags.report(diag::DiagId::LinkNotImplemented, {})
          .arg("what", "target '" + target.name() + "' as a fat artifact member")
          .note({}, "xdna and AMDGPU members already carry their host reference code, which hrx-run "
                    "--device=host runs; compile the host target on its own for a host shared object");
      return {};
    }
  std::vector<format::FatEntry> members;
  for (const Target &target : request.targets) {
    format::FatEntry member;
    if (target.kind == TargetKind::Xdna) {
      member.strings = {{"triple", "aie2p-amd-xdna"}, {"arch", target.profile}};
    } else {
      member.offloadKind = format::kOffloadHip;
      member.strings = {{"triple", "amdgcn-amd-amdhsa"}, {"arch", target.profile}};
    }
    std::unique_ptr<bridge::TargetBackend> backend = bridge::createBackend(target.kind);
    bridge::BackendRequest memberRequest{program, target, request.options, request.emit, request.specialization};
    std::optional<bridge::BackendOutput> output = backend->emit(memberRequest, diags);
    if (!output) return {};
    member.image = std::move(output->bytes);
    members.push_back(std::move(member));
  }
  return format::writeFat(members);
}

}  // namespace

CompileResult Compiler::compile(const CompileRequest &request, diag::DiagnosticEngine &diags) const {
  bridge::initializeTargets();  // before any import: compileAll runs requests on several threads
  CompileResult result;
  const unsigned errorsBefore = diags.errorCount();
  auto failed = [&] { return diags.errorCount() != errorsBefore; };

  std::vector<loom::OwningModule> modules;
  for (const LoomSource &source : loom_) {
    uint32_t file = diags.sourceManager().addBuffer(source.name, source.text);
    loom::OwningModule module = loom::parseModule(diags.sourceManager(), file, diags);
    if (module && !failed()) loom::verifyModule(*module, diags);
    modules.push_back(std::move(module));
  }
  if (failed()) return result;

  if (request.emit == EmitKind::Loom) {
    std::ostringstream text;
    for (const loom::OwningModule &module : modules)
      if (module) loom::printModule(*module, text);
    result.bytes = toBytes(text.str());
    result.ok = true;
    return result;
  }

  CompileRequest resolved = request;
  if (resolved.targets.empty()) resolved.targets = targets_;
  const std::vector<Target> &targets = resolved.targets;
  if (targets.empty()) {
    diags.report(diag::DiagId::LinkNoTarget, {});
    return result;
  }
  for (const Target &target : targets)
    if (!bridge::createBackend(target.kind)) notImplemented(diags, "code generation for target '" + target.name() + "'");
  if (failed()) return result;

  // C/C++ alone has no export to link: its LLVM IR (also the -fsyntax-only check) is the imported
  // modules themselves.
  if (loom_.empty() && request.emit == EmitKind::Llvm) {
    bridge::Program imported;
    if (!bridge::importCxxUnits(imported, cxx_, resolved, diags)) return result;
    std::string text;
    llvm::raw_string_ostream os(text);
    for (const cxx::ImportedUnit &unit : imported.cxxUnits) {
      unit.module->print(os, nullptr);
      result.filesRead.insert(result.filesRead.end(), unit.filesRead.begin(), unit.filesRead.end());
    }
    result.bytes = toBytes(text);
    result.ok = true;
    return result;
  }

  std::unique_ptr<bridge::Program> program = bridge::buildProgram(std::move(modules), cxx_, resolved, diags);
  if (!program) return result;
  for (const cxx::ImportedUnit &unit : program->cxxUnits)
    result.filesRead.insert(result.filesRead.end(), unit.filesRead.begin(), unit.filesRead.end());
  if (program->contracts.size() == 1) {
    result.contractJson = program->contracts.front().toJson();
  } else {
    format::ContractTable table;
    for (const bridge::KernelContract &contract : program->contracts) table[contract.symbol] = contract.toFormat();
    result.contractJson = format::writeContractTable(table);
  }

  if (targets.size() > 1) {
    result.bytes = buildFat(*program, resolved, diags);
    result.ok = !failed();
    return result;
  }
  std::unique_ptr<bridge::TargetBackend> backend = bridge::createBackend(targets.front().kind);
  bridge::BackendRequest backendRequest{*program, targets.front(), request.options, request.emit,
                                        request.specialization};
  std::optional<bridge::BackendOutput> output = backend->emit(backendRequest, diags);
  if (!output || failed()) return result;
  result.bytes = std::move(output->bytes);
  result.reportJson = std::move(output->reportJson);
  // AMDGPU artifacts have an executable manifest; for NPU and host artifacts the manifest is their
  // KernelContract table.
  result.manifestJson = output->manifestJson.empty() ? result.contractJson : std::move(output->manifestJson);
  result.launchJson = std::move(output->launchJson);
  if (request.specialization.report != ReportMode::None && request.emit == EmitKind::Artifact &&
      result.reportJson.empty()) {
    notImplemented(diags, "compile reports for target '" + targets.front().name() + "'");
    return result;
  }
  result.ok = true;
  return result;
}

namespace {

// Records every diagnostic of one request so that compileAll can replay them in request order.
class RecordingConsumer : public diag::DiagnosticConsumer {
public:
  void handle(const diag::Diagnostic &diag, const diag::SourceManager &) override {
    recorded.push_back(diag);
  }
  std::vector<diag::Diagnostic> recorded;
};

diag::SourceRange remap(diag::SourceRange range, const std::vector<uint32_t> &fileMap) {
  auto map = [&](diag::SourceLocation loc) {
    if (loc.isValid() && loc.file <= fileMap.size()) loc.file = fileMap[loc.file - 1];
    return loc;
  };
  return {map(range.begin), map(range.end)};
}

// Re-emits `recorded` (whose file ids refer to `from`) into `to`.
void replay(const std::vector<diag::Diagnostic> &recorded, const diag::SourceManager &from,
            diag::DiagnosticEngine &to) {
  std::vector<uint32_t> fileMap;
  for (uint32_t file = 1; file <= from.fileCount(); ++file)
    fileMap.push_back(to.sourceManager().addBuffer(std::string(from.name(file)),
                                                   std::string(from.contents(file)), from.isVirtual(file)));
  for (const diag::Diagnostic &d : recorded) {
    if (d.id == diag::DiagId::External) {
      std::vector<diag::RelatedNote> notes;
      for (const diag::RelatedNote &n : d.notes) notes.push_back({remap(n.range, fileMap), n.message});
      to.reportExternal(d.severity, remap(d.range, fileMap), d.message, d.flag, std::move(notes));
      continue;
    }
    diag::DiagnosticBuilder builder = to.report(d.id, remap(d.range, fileMap));
    for (const auto &[name, value] : d.params) builder.arg(name, value);
    for (const diag::RelatedNote &n : d.notes) builder.note(remap(n.range, fileMap), n.message);
    for (const diag::FixIt &f : d.fixits) builder.fixit(remap(f.range, fileMap), f.replacement);
  }
}

}  // namespace

std::vector<CompileResult> Compiler::compileAll(const std::vector<CompileRequest> &requests,
                                                diag::DiagnosticEngine &diags) const {
  struct Slot {
    diag::SourceManager sm;
    RecordingConsumer consumer;
    CompileResult result;
  };
  std::vector<std::unique_ptr<Slot>> slots;
  for (size_t i = 0; i < requests.size(); ++i) slots.push_back(std::make_unique<Slot>());

  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < requests.size(); i = next++) {
      Slot &slot = *slots[i];
      diag::DiagnosticEngine engine(slot.sm);
      diag::DiagnosticOptions options = diags.options();
      options.errorLimit = 0;  // the shared engine applies the limit on replay
      engine.setOptions(std::move(options));
      engine.addConsumer(&slot.consumer);
      slot.result = compile(requests[i], engine);
    }
  };
  unsigned workers = 1;
  for (const CompileRequest &r : requests) workers = std::max(workers, r.options.workers);
  workers = std::min<unsigned>(workers, static_cast<unsigned>(requests.size()));
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread &t : pool) t.join();

  std::vector<CompileResult> results;
  for (std::unique_ptr<Slot> &slot : slots) {
    replay(slot->consumer.recorded, slot->sm, diags);
    results.push_back(std::move(slot->result));
  }
  return results;
}

}  // namespace hrx
