#include "hrx/Compiler.h"

#include "hrx/TargetRegistry.h"

#include "hrx/Version.h"
#include "hrx/bridge/Codegen.h"
#include "hrx/bridge/Program.h"
#include "hrx/bridge/TargetBackend.h"
#include "hrx/cxx/CxxImporter.h"
#include "hrx/format/FatWriter.h"
#include "hrx/format/KernelContractWriter.h"
#include "hrx/loom/Loom.h"

#include <clang/Basic/DiagnosticIDs.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/raw_ostream.h>

#include <atomic>
#include <sstream>
#include <thread>

namespace hrx {

CompilerIdentity compilerIdentity() { return {"hrxcc", HRX_VERSION_STRING, LLVM_VERSION_STRING, cxx::clangVersion()}; }

std::vector<std::string> cxxWarningGroups() {
  std::vector<std::string> groups;
  for (const std::string &flag : clang::DiagnosticIDs::getDiagnosticFlags())
    if (flag.starts_with("-W") && !flag.starts_with("-Wno-")) groups.push_back(flag.substr(2));
  return groups;
}

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
  // A target without a fat-member form (the host) is never a member.
  for (const Target &target : request.targets)
    if (!target.info->fatMember) {
      diags.report(diag::DiagId::LinkNotImplemented, {})
          .arg("what", "target '" + target.name() + "' as a fat artifact member")
          .note({}, target.info->notFatMemberNote);
      return {};
    }
  std::optional<Target> hostReference = hostReferenceTarget();
  std::vector<format::FatEntry> members;
  for (const Target &target : request.targets) {
    format::FatEntry member;
    member.offloadKind = target.info->fatMember->offloadKind;
    member.strings = {{"triple", target.info->fatMember->triple}, {"arch", target.profile}};
    std::unique_ptr<bridge::TargetBackend> backend = bridge::createBackend(target);
    bridge::BackendRequest memberRequest{program,
                                         target,
                                         request.options,
                                         request.emit,
                                         request.specialization,
                                         hostReference ? &*hostReference : nullptr};
    std::optional<bridge::BackendOutput> output = backend->emit(memberRequest, diags);
    if (!output) return {};
    member.image = std::move(output->bytes);
    members.push_back(std::move(member));
  }
  return format::writeFat(members);
}

}  // namespace

std::optional<std::string> Compiler::preprocess(const CxxSource &source, const Target &target,
                                                const CompilerOptions &options, diag::DiagnosticEngine &diags,
                                                std::vector<std::string> *filesRead) {
  bridge::initializeTargets();
  return bridge::preprocessCxx(source, target, options, diags, filesRead);
}

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
    if (!bridge::createBackend(target)) notImplemented(diags, "code generation for target '" + target.name() + "'");
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
  std::unique_ptr<bridge::TargetBackend> backend = bridge::createBackend(targets.front());
  std::optional<Target> hostReference = hostReferenceTarget();
  bridge::BackendRequest backendRequest{
      *program,     targets.front(),        request.options,
      request.emit, request.specialization, hostReference ? &*hostReference : nullptr};
  std::optional<bridge::BackendOutput> output = backend->emit(backendRequest, diags);
  if (!output || failed()) return result;
  result.bytes = std::move(output->bytes);
  result.reportJson = std::move(output->reportJson);
  // Every artifact has a manifest: the backend's own (AMDGPU: the executable manifest) or the
  // KernelContract table.
  result.sideOutputs = std::move(output->sideOutputs);
  if (result.sideOutputs["manifest"].empty()) result.sideOutputs["manifest"] = result.contractJson;
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
  void handle(const diag::Diagnostic &diag, const diag::SourceManager &) override { recorded.push_back(diag); }
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
    fileMap.push_back(to.sourceManager().addBuffer(std::string(from.name(file)), std::string(from.contents(file)),
                                                   from.isVirtual(file)));
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
