#include "hrx/bridge/Codegen.h"

#include <lld/Common/Driver.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCObjectFileInfo.h>
#include <llvm/MC/MCParser/MCAsmParser.h>
#include <llvm/MC/MCParser/MCTargetAsmParser.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCStreamer.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <mutex>

LLD_HAS_DRIVER(elf)

namespace hrx::bridge {
namespace {

llvm::CodeGenOptLevel codegenLevel(unsigned optLevel) {
  switch (optLevel) {
  case 0: return llvm::CodeGenOptLevel::None;
  case 1: return llvm::CodeGenOptLevel::Less;
  case 2: return llvm::CodeGenOptLevel::Default;
  default: return llvm::CodeGenOptLevel::Aggressive;
  }
}

// Removes a directory tree on scope exit.
struct TempDir {
  llvm::SmallString<128> path;
  ~TempDir() {
    if (!path.empty()) llvm::sys::fs::remove_directories(path);
  }
};

}  // namespace

void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();  // inline asm in builtins (the host device's fiber switch)
  });
}

std::expected<std::unique_ptr<llvm::TargetMachine>, std::string>
createTargetMachine(const std::string &triple, const std::string &cpu, const std::string &features, unsigned optLevel) {
  initializeTargets();
  llvm::Triple tt(triple);
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(tt, error);
  if (!target) return std::unexpected(error);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      tt, cpu, features, llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt, codegenLevel(optLevel)));
  if (!machine) return std::unexpected("no target machine for " + triple);
  if (!machine->getMCSubtargetInfo()->isCPUStringValid(cpu))
    return std::unexpected("unknown CPU '" + cpu + "' for " + triple);
  return machine;
}

void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine, unsigned optLevel) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = optLevel >= 2;
  tuning.SLPVectorization = optLevel >= 2;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = optLevel == 0   ? llvm::OptimizationLevel::O0
                                  : optLevel == 1 ? llvm::OptimizationLevel::O1
                                  : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                  : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager passes =
      optLevel == 0 ? builder.buildO0DefaultPipeline(level) : builder.buildPerModuleDefaultPipeline(level);
  passes.run(module, mam);
}

namespace {
// Collects the errors a target reports during code generation (a kernel over the LDS limit, say):
// without a handler LLVM prints "<unknown>:0:0" and exits the whole process.
class CodegenErrors : public llvm::DiagnosticHandler {
public:
  explicit CodegenErrors(std::string &errors) : errors_(errors) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    if (info.getSeverity() != llvm::DS_Error) return false;  // LLVM's default handling, as before
    llvm::raw_string_ostream os(errors_);
    if (!errors_.empty()) os << "; ";
    std::string text;
    llvm::raw_string_ostream message(text);
    llvm::DiagnosticPrinterRawOStream printer(message);
    info.print(printer);
    // A resource limit names its function but has no source location of its own.
    std::string_view unlocated = "<unknown>:0:0: ";
    os << (std::string_view(text).starts_with(unlocated) ? text.substr(unlocated.size()) : text);
    return true;
  }

private:
  std::string &errors_;
};
}  // namespace

std::expected<std::vector<uint8_t>, std::string> emitModule(llvm::Module &module, llvm::TargetMachine &machine,
                                                            EmitFile kind) {
  module.setDataLayout(machine.createDataLayout());
  module.setTargetTriple(machine.getTargetTriple());
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager passes;
  auto type = kind == EmitFile::Object ? llvm::CodeGenFileType::ObjectFile : llvm::CodeGenFileType::AssemblyFile;
  if (machine.addPassesToEmitFile(passes, stream, nullptr, type))
    return std::unexpected("the target cannot emit this file type");
  llvm::LLVMContext &context = module.getContext();
  std::string errors;
  std::unique_ptr<llvm::DiagnosticHandler> previous = context.getDiagnosticHandler();
  context.setDiagnosticHandler(std::make_unique<CodegenErrors>(errors));
  passes.run(module);
  context.setDiagnosticHandler(std::move(previous));
  if (!errors.empty()) return std::unexpected(errors);
  return std::vector<uint8_t>(buffer.begin(), buffer.end());
}

std::optional<std::string> assemblyError(const std::string &triple, const std::string &cpu, std::string_view text) {
  initializeTargets();
  llvm::Triple tt(triple);
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(tt, error);
  if (!target) return error;
  llvm::MCTargetOptions options;
  std::unique_ptr<llvm::MCRegisterInfo> registers(target->createMCRegInfo(tt));
  std::unique_ptr<llvm::MCAsmInfo> asmInfo(target->createMCAsmInfo(*registers, tt, options));
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(target->createMCSubtargetInfo(tt, cpu, ""));
  std::unique_ptr<llvm::MCInstrInfo> instructions(target->createMCInstrInfo());
  if (!registers || !asmInfo || !subtarget || !instructions) return "the target has no assembler";
  llvm::SourceMgr sources;
  std::string message;
  sources.setDiagHandler(
      [](const llvm::SMDiagnostic &d, void *out) {
        auto &first = *static_cast<std::string *>(out);
        if (first.empty() && d.getKind() == llvm::SourceMgr::DK_Error) first = d.getMessage().str();
      },
      &message);
  sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(text.data(), text.size())),
                             llvm::SMLoc());
  llvm::MCContext context(tt, asmInfo.get(), registers.get(), subtarget.get(), &sources, &options);
  std::unique_ptr<llvm::MCObjectFileInfo> objectInfo(target->createMCObjectFileInfo(context, false));
  context.setObjectFileInfo(objectInfo.get());
  std::unique_ptr<llvm::MCStreamer> streamer(llvm::createNullStreamer(context));
  std::unique_ptr<llvm::MCAsmParser> parser(llvm::createMCAsmParser(sources, context, *streamer, *asmInfo));
  std::unique_ptr<llvm::MCTargetAsmParser> targetParser(
      target->createMCAsmParser(*subtarget, *parser, *instructions, options));
  if (!targetParser) return "the target has no assembler";
  parser->setTargetParser(*targetParser);
  if (parser->Run(/*NoInitialTextSection=*/false) && message.empty()) message = "the assembler rejects it";
  if (message.empty()) return std::nullopt;
  return message;
}

std::expected<std::vector<uint8_t>, std::string> linkElf(const std::vector<std::string> &arguments,
                                                         const std::vector<std::vector<uint8_t>> &objects) {
  TempDir dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("hrx-link", dir.path))
    return std::unexpected("cannot create a temporary directory: " + ec.message());
  std::vector<std::string> owned = {"ld.lld"};
  owned.insert(owned.end(), arguments.begin(), arguments.end());
  for (size_t i = 0; i < objects.size(); ++i) {
    llvm::SmallString<128> path(dir.path);
    llvm::sys::path::append(path, "input" + std::to_string(i) + ".o");
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec);
    if (ec) return std::unexpected("cannot write " + std::string(path) + ": " + ec.message());
    out.write(reinterpret_cast<const char *>(objects[i].data()), objects[i].size());
    owned.push_back(std::string(path));
  }
  llvm::SmallString<128> output(dir.path);
  llvm::sys::path::append(output, "output");
  owned.push_back("-o");
  owned.push_back(std::string(output));

  std::vector<const char *> argv;
  for (const std::string &a : owned) argv.push_back(a.c_str());
  std::string messages;
  llvm::raw_string_ostream errors(messages);
  std::string ignored;
  llvm::raw_string_ostream stdoutStream(ignored);
  static std::mutex lldMutex;  // lld keeps global state; one link at a time
  lld::Result result;
  {
    std::lock_guard<std::mutex> lock(lldMutex);
    result = lld::lldMain(argv, stdoutStream, errors, {{lld::Gnu, &lld::elf::link}});
  }
  if (result.retCode != 0) return std::unexpected(messages.empty() ? "lld failed" : messages);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> bytes = llvm::MemoryBuffer::getFile(output);
  if (!bytes) return std::unexpected("cannot read the linked output: " + bytes.getError().message());
  return std::vector<uint8_t>((*bytes)->getBufferStart(), (*bytes)->getBufferEnd());
}

}  // namespace hrx::bridge
