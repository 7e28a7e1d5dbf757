#include "hrx/cxx/CxxImporter.h"

#include "DeviceLibraries.h"
#include "ImportSession.h"
#include "MountedFileSystem.h"
#include "hrx/format/Sha256.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/CodeGenOptions.h>
#include <clang/Basic/DiagnosticIDs.h>
#include <clang/Basic/LangStandard.h>
#include <clang/Basic/ParsedAttrInfo.h>
#include <clang/Basic/Version.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Driver/CreateInvocationFromArgs.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/HeaderSearchOptions.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <clang/Serialization/ASTReader.h>
#include <clang/Serialization/ModuleCache.h>
#include <clang/Serialization/PCHContainerOperations.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/ADT/StringSet.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <map>
#include <mutex>
#include <span>
#include <string_view>
#include <tuple>

namespace hrx::cxx {

std::string clangVersion() { return CLANG_VERSION_STRING; }

// Host libm and printf: what the host twin of a HIP unit may leave to the loading process.
bool isHostLibraryFunction(std::string_view name) {
  static const llvm::StringSet<> names = [] {
    llvm::StringSet<> set;
    for (const char *base :
         {"acos",  "asin",   "atan",    "acosh",  "asinh",     "atanh",     "cbrt",  "cos",   "cosh",  "erf",
          "erfc",  "exp",    "exp10",   "exp2",   "expm1",     "lgamma",    "log",   "log10", "log1p", "log2",
          "logb",  "sin",    "sinh",    "tan",    "tanh",      "tgamma",    "j0",    "j1",    "y0",    "y1",
          "atan2", "fmod",   "hypot",   "pow",    "remainder", "nextafter", "fdim",  "frexp", "ldexp", "modf",
          "ilogb", "scalbn", "scalbln", "remquo", "jn",        "yn",        "sincos"}) {
      set.insert(base);
      set.insert(std::string(base) + "f");
    }
    set.insert("printf");
    // What LLVM turns printf("text\n") and printf("%c", c) into.
    set.insert("puts");
    set.insert("putchar");
    return set;
  }();
  return names.contains(llvm::StringRef(name.data(), name.size()));
}

namespace {

// hrx's shipped headers, embedded at build time from frontend/cxx/headers.
struct ShippedHeader {
  std::string_view path;  // relative to headers/, e.g. "include/hrx/worker.h"
  std::string_view contents;
};
constexpr ShippedHeader kShippedHeaders[] = {
#include "ShippedHeaders.inc"
};

// The process hrx runs in: the host of a HIP compile for a GPU, and where host headers are probed.
constexpr llvm::StringLiteral kHostTriple = "x86_64-unknown-linux-gnu";

// -mcpu for a target with its own processor, else the host processor the options name.
std::string cpuFlag(const ImportTarget &target, const ImportOptions &options) {
  return target.cpu.empty() ? "-march=" + options.hostCpu : "-mcpu=" + target.cpu;
}

// The in-memory file system layout.
constexpr llvm::StringLiteral kSystemRoot = "/hrx";          // shipped: /hrx/include, /hrx/include-c++
constexpr llvm::StringLiteral kSourceDir = "/hrx/src";       // the unit
constexpr llvm::StringLiteral kVirtualDir = "/hrx/virtual";  // the unit's virtual headers
constexpr llvm::StringLiteral kMountDir = "/hrx/mount";      // the unit's include dirs, by index
// --host-headers: hrx's HIP headers alone (no freestanding libc/libc++ stand-ins), then the
// host's system include directories by index.
constexpr llvm::StringLiteral kHipOnlyDir = "/hrx/include-hip";
constexpr llvm::StringLiteral kHostDir = "/hrx/host";
constexpr llvm::StringLiteral kPreincludeDir = "/hrx/preinclude";  // -include files, by index
// HIP units: Clang's resource headers (its HIP wrapper and math) and ROCm's device libraries,
// mounted like include directories so that every file read is a declared input.
constexpr llvm::StringLiteral kClangIncludeDir = "/hrx/clang-include";
constexpr llvm::StringLiteral kRocmBitcodeDir = "/hrx/rocm-bitcode";
#ifndef HRX_CLANG_RESOURCE_INCLUDE
#define HRX_CLANG_RESOURCE_INCLUDE ""
#endif
#ifndef HRX_ROCM_BITCODE_DIR
#define HRX_ROCM_BITCODE_DIR ""
#endif
// The device libraries linked into every HIP unit for amdgcn, with the control settings Clang's
// HIP driver picks by default (IEEE denormals, correctly rounded sqrt, no fast-math, wave32).
constexpr const char *kRocmDeviceLibraries[] = {"ocml.bc",
                                                "ockl.bc",
                                                "oclc_finite_only_off.bc",
                                                "oclc_unsafe_math_off.bc",
                                                "oclc_daz_opt_off.bc",
                                                "oclc_correctly_rounded_sqrt_on.bc",
                                                "oclc_wavefrontsize64_off.bc",
                                                "oclc_abi_version_500.bc"};
// -ffast-math selects the libraries Clang's HIP driver picks for it.
constexpr const char *kRocmFastMathLibraries[] = {"ocml.bc",
                                                  "ockl.bc",
                                                  "oclc_finite_only_on.bc",
                                                  "oclc_unsafe_math_on.bc",
                                                  "oclc_daz_opt_off.bc",
                                                  "oclc_correctly_rounded_sqrt_on.bc",
                                                  "oclc_wavefrontsize64_off.bc",
                                                  "oclc_abi_version_500.bc"};

// The system include directories Clang's driver derives for a HIP unit on an x86-64 Linux host
// (Clang's CUDA wrappers, libstdc++, Clang's resource headers, glibc), probed once on the real
// file system; `externC` marks directories Clang searches as extern "C".
struct HostIncludeDir {
  std::string path;
  bool externC = false;
};
const std::vector<HostIncludeDir> &probeHostIncludeDirs() {
  static const std::vector<HostIncludeDir> dirs = [] {
    std::vector<HostIncludeDir> out;
    llvm::StringRef resourceInclude = HRX_CLANG_RESOURCE_INCLUDE;
    if (resourceInclude.empty()) return out;
    std::string resourceDir = llvm::sys::path::parent_path(resourceInclude).str();
    std::string hostTarget = ("--target=" + kHostTriple).str();
    std::vector<const char *> argv = {"clang",
                                      hostTarget.c_str(),
                                      "-x",
                                      "hip",
                                      "--cuda-device-only",
                                      "--offload-arch=gfx1151",
                                      "-nogpuinc",
                                      "-nogpulib",
                                      "-resource-dir",
                                      resourceDir.c_str(),
                                      "-fsyntax-only",
                                      "-"};
    clang::DiagnosticOptions diagOptions;
    clang::IgnoringDiagConsumer ignore;
    clang::CreateInvocationOptions cio;
    auto realFs = llvm::vfs::getRealFileSystem();
    cio.Diags = clang::CompilerInstance::createDiagnostics(*realFs, diagOptions, &ignore, false);
    cio.VFS = realFs;
    std::shared_ptr<clang::CompilerInvocation> invocation = clang::createInvocation(argv, cio);
    if (!invocation) return out;
    for (const clang::HeaderSearchOptions::Entry &entry : invocation->getHeaderSearchOpts().UserEntries) {
      using clang::frontend::IncludeDirGroup;
      if (entry.IsFramework ||
          !(entry.Group == clang::frontend::System || entry.Group == clang::frontend::CXXSystem ||
            entry.Group == clang::frontend::ExternCSystem || entry.Group == clang::frontend::CSystem))
        continue;
      llvm::SmallString<256> real;
      if (llvm::sys::fs::real_path(entry.Path, real) || !llvm::sys::fs::is_directory(real)) continue;
      if (llvm::any_of(out, [&](const HostIncludeDir &dir) { return dir.path == real; })) continue;
      out.push_back({real.str().str(), entry.Group == clang::frontend::ExternCSystem});
    }
    return out;
  }();
  return dirs;
}

Language languageOf(const CxxUnit &unit) {
  if (unit.language != Language::Auto) return unit.language;
  llvm::StringRef extension = llvm::sys::path::extension(unit.name);
  return extension == ".c" ? Language::C : extension == ".hip" ? Language::Hip : Language::Cxx;
}

// Collects the text of diagnostics outside any unit (the driver phase of a setup).
class MessageCollector : public clang::DiagnosticConsumer {
public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error) return;
    llvm::SmallString<128> text;
    info.FormatDiagnostic(text);
    messages.push_back(text.str().str());
  }
  std::vector<std::string> messages;
};

// Runs the restriction checks and collects signatures once the unit is parsed, before codegen.
class CheckingConsumer : public clang::ASTConsumer {
public:
  CheckingConsumer(const ImportTarget &target, bool requireDefinedCalls, SourceMapper &mapper,
                   ClangDiagnosticTranslator &translator, diag::DiagnosticEngine &engine, ImportedUnit &out)
      : target_(target), requireDefinedCalls_(requireDefinedCalls), mapper_(mapper), translator_(translator),
        engine_(engine), out_(out) {}
  void HandleTranslationUnit(clang::ASTContext &ast) override {
    translator_.flush();
    checkTargetRestrictions(ast, target_, requireDefinedCalls_, mapper_, engine_, out_.externalCalls);
    out_.signatures = collectSignatures(ast, mapper_);
    if (bodies_) collectFunctionBodies(ast);
  }
  void setFunctionBodies(std::vector<FunctionBody> *bodies) { bodies_ = bodies; }

private:
  // Bodies written in the unit's text, one per function (a template's pattern, not its
  // instantiations; a lambda belongs to the function around it).
  void collectFunctionBodies(clang::ASTContext &ast) {
    struct Visitor : clang::RecursiveASTVisitor<Visitor> {
      const clang::SourceManager &sm;
      SourceMapper &mapper;
      std::vector<FunctionBody> &out;
      Visitor(const clang::SourceManager &sm, SourceMapper &mapper, std::vector<FunctionBody> &out)
          : sm(sm), mapper(mapper), out(out) {}
      bool VisitFunctionDecl(clang::FunctionDecl *function) {
        if (!function->doesThisDeclarationHaveABody()) return true;
        if (auto *method = llvm::dyn_cast<clang::CXXMethodDecl>(function); method && method->getParent()->isLambda())
          return true;
        clang::Stmt *body = function->getBody();
        if (!body || !llvm::isa<clang::CompoundStmt>(body)) return true;
        clang::SourceLocation open = body->getBeginLoc(), close = body->getEndLoc();
        if (!open.isFileID() || !close.isFileID() || !sm.isInMainFile(open) || !sm.isInMainFile(close)) return true;
        out.push_back({function->getQualifiedNameAsString(), mapper.range(clang::SourceRange(open, close))});
        return true;
      }
    };
    bodies_->clear();
    Visitor visitor(ast.getSourceManager(), mapper_, *bodies_);
    // After the precompiled HIP header, the unit's own declarations (the PCH's are the header's).
    clang::TranslationUnitDecl *tu = ast.getTranslationUnitDecl();
    if (tu->hasExternalLexicalStorage()) {
      for (clang::Decl *decl : tu->noload_decls()) visitor.TraverseDecl(decl);
    } else {
      visitor.TraverseDecl(tu);
    }
  }

  std::vector<FunctionBody> *bodies_ = nullptr;
  const ImportTarget &target_;
  bool requireDefinedCalls_;
  SourceMapper &mapper_;
  ClangDiagnosticTranslator &translator_;
  diag::DiagnosticEngine &engine_;
  ImportedUnit &out_;
};

class ImportAction : public clang::EmitLLVMOnlyAction {
public:
  ImportAction(llvm::LLVMContext &context, std::unique_ptr<clang::ASTConsumer> checks)
      : clang::EmitLLVMOnlyAction(&context), checks_(std::move(checks)) {}

protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &ci, llvm::StringRef file) override {
    std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
    consumers.push_back(std::move(checks_));
    consumers.push_back(clang::EmitLLVMOnlyAction::CreateASTConsumer(ci, file));
    return std::make_unique<clang::MultiplexConsumer>(std::move(consumers));
  }

private:
  std::unique_ptr<clang::ASTConsumer> checks_;
};

// Removes the llvm.global.annotations entries the loom attribute handlers caused; the signature
// table carries that information, and the backends should not see it.
void stripLoomAnnotations(llvm::Module &module) {
  llvm::GlobalVariable *annotations = module.getNamedGlobal("llvm.global.annotations");
  if (!annotations || !annotations->hasInitializer()) return;
  auto *array = llvm::dyn_cast<llvm::ConstantArray>(annotations->getInitializer());
  if (!array) return;
  std::vector<llvm::Constant *> kept;
  for (llvm::Use &entry : array->operands()) {
    auto *fields = llvm::cast<llvm::ConstantStruct>(entry.get());
    auto *text = llvm::dyn_cast<llvm::GlobalVariable>(fields->getOperand(1)->stripPointerCasts());
    llvm::StringRef annotation;
    if (text && text->hasInitializer())
      if (auto *data = llvm::dyn_cast<llvm::ConstantDataSequential>(text->getInitializer()))
        annotation = data->getAsCString();
    if (!annotation.starts_with("loom.")) kept.push_back(fields);
  }
  if (kept.size() == array->getNumOperands()) return;
  std::vector<llvm::GlobalVariable *> strings;
  for (llvm::Use &entry : array->operands())
    for (llvm::Use &field : llvm::cast<llvm::ConstantStruct>(entry.get())->operands())
      if (auto *global = llvm::dyn_cast<llvm::GlobalVariable>(field->stripPointerCasts())) strings.push_back(global);
  if (kept.empty()) {
    annotations->eraseFromParent();
  } else {
    auto *type = llvm::ArrayType::get(array->getType()->getElementType(), kept.size());
    auto *replacement = new llvm::GlobalVariable(module, type, false, annotations->getLinkage(),
                                                 llvm::ConstantArray::get(type, kept), "");
    replacement->setSection(annotations->getSection());
    replacement->takeName(annotations);
    annotations->eraseFromParent();
  }
  // The erased table's constants may still refer to the strings until they are collected.
  std::sort(strings.begin(), strings.end());
  strings.erase(std::unique(strings.begin(), strings.end()), strings.end());
  for (llvm::GlobalVariable *global : strings) {
    global->removeDeadConstantUsers();
    if (global->use_empty() && global->getSection() == "llvm.metadata") global->eraseFromParent();
  }
}

// Clang's HIP device mode gives amdgcn kernels global (addrspace 1) pointer parameters; the
// backend expects kernels as the C++ mode makes them, with flat pointers, and wraps them itself.
void flattenHipKernelPointers(llvm::Module &module) {
  std::vector<llvm::Function *> kernels;
  for (llvm::Function &f : module)
    if (!f.isDeclaration() && f.getCallingConv() == llvm::CallingConv::AMDGPU_KERNEL) kernels.push_back(&f);
  for (llvm::Function *kernel : kernels) {
    llvm::FunctionType *type = kernel->getFunctionType();
    std::vector<llvm::Type *> params(type->param_begin(), type->param_end());
    bool changed = false;
    for (llvm::Type *&param : params)
      if (param->isPointerTy() && param->getPointerAddressSpace() == 1) {
        param = llvm::PointerType::get(module.getContext(), 0);
        changed = true;
      }
    if (!changed) continue;
    auto *flat = llvm::Function::Create(llvm::FunctionType::get(type->getReturnType(), params, false),
                                        kernel->getLinkage(), kernel->getAddressSpace(), "", &module);
    flat->copyAttributesFrom(kernel);
    flat->setComdat(kernel->getComdat());
    flat->copyMetadata(kernel, 0);
    flat->splice(flat->begin(), kernel);
    llvm::IRBuilder<> b(&*flat->getEntryBlock().getFirstInsertionPt());
    for (unsigned i = 0; i < kernel->arg_size(); ++i) {
      llvm::Argument *old = kernel->getArg(i);
      llvm::Argument *now = flat->getArg(i);
      now->takeName(old);
      old->replaceAllUsesWith(now->getType() == old->getType() ? static_cast<llvm::Value *>(now)
                                                               : b.CreateAddrSpaceCast(now, old->getType()));
    }
    flat->takeName(kernel);
    kernel->replaceAllUsesWith(flat);
    kernel->eraseFromParent();
  }
}

// The host device runs one workgroup per thread at a time, so thread-local storage is workgroup
// storage there: __shared__ variables (Clang leaves them uninitialised) become thread-local, and
// every extern __shared__ array (dynamic LDS) is one thread-local block of the GPU's LDS size.
constexpr uint64_t kHostDynamicSharedBytes = 65536;
void giveHipSharedVariablesWorkgroupStorage(llvm::Module &module) {
  llvm::GlobalVariable *dynamic = nullptr;
  for (llvm::GlobalVariable &global : llvm::make_early_inc_range(module.globals())) {
    if (global.getName().starts_with("llvm.") || global.isConstant()) continue;
    if (global.hasInitializer()) {
      if (llvm::isa<llvm::UndefValue>(global.getInitializer())) global.setThreadLocal(true);
      continue;
    }
    if (!dynamic) {
      auto *type = llvm::ArrayType::get(llvm::Type::getInt8Ty(module.getContext()), kHostDynamicSharedBytes);
      dynamic =
          new llvm::GlobalVariable(module, type, false, llvm::GlobalValue::InternalLinkage, llvm::UndefValue::get(type),
                                   "__hrx_dynamic_shared", nullptr, llvm::GlobalValue::GeneralDynamicTLSModel);
      dynamic->setAlignment(llvm::Align(16));
    }
    global.replaceAllUsesWith(dynamic);
    global.eraseFromParent();
  }
}

// hrx's one SHA-256 (hrx/format/Sha256.h, with NIST's known answers), not llvm::SHA256.
class IdentityHasher {
public:
  void add(llvm::StringRef text) {
    uint64_t size = text.size();
    sha_.update(std::span(reinterpret_cast<const uint8_t *>(&size), sizeof size));
    sha_.update(std::span(reinterpret_cast<const uint8_t *>(text.data()), text.size()));
  }
  std::string hex() { return sha_.finishHex(); }

private:
  format::Sha256 sha_;
};

std::string identityOf(const CxxUnit &unit, llvm::StringRef unitName, Language language, llvm::StringRef standard,
                       const ImportTarget &target, const ImportOptions &options,
                       const std::vector<MountedFile> &filesRead, llvm::vfs::FileSystem &memory) {
  IdentityHasher hash;
  hash.add(CLANG_VERSION_STRING);
  hash.add(target.name);
  hash.add(std::to_string(options.optLevel) + (options.debugInfo ? "g" : "") + options.hostCpu);
  hash.add(language == Language::C ? "c" : language == Language::Hip ? "hip" : "c++");
  hash.add(standard);
  hash.add(unitName);
  hash.add(unit.text);
  for (const auto &[path, contents] : unit.headers) {
    hash.add(path);
    hash.add(contents);
  }
  for (const std::string &define : unit.defines) hash.add(define);
  for (const std::string &file : unit.preincludes) hash.add("-include " + file);
  hash.add(std::string(unit.hostHeaders ? "host-headers" : "") + (unit.fastMath ? "fast-math" : ""));
  for (const MountedFile &file : filesRead) {
    hash.add(file.realPath);
    auto buffer = memory.getBufferForFile(file.vfsPath);
    hash.add(buffer ? (*buffer)->getBuffer() : llvm::StringRef());
  }
  return hash.hex();
}

// The unit's own files: the unit, its virtual headers and its mounted directories, and how
// diagnostics name each of them.
struct UnitFiles {
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> memory;
  llvm::StringMap<FileIdentity> identities;
  std::string unitPath;
  std::vector<Mount> mounts;
  std::vector<std::string> preincludes;  // in-memory paths (or names searched like #include "x")
};

std::optional<UnitFiles> unitFiles(const CxxUnit &unit, const std::string &unitName, Language language,
                                   const ImportTarget &target, diag::DiagnosticEngine &diags) {
  unsigned errorsBefore = diags.errorCount();
  UnitFiles files;
  files.memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  files.memory->setCurrentWorkingDirectory(kSourceDir);
  llvm::StringRef fileName = llvm::sys::path::filename(unitName);
  files.unitPath = (kSourceDir + "/" + (fileName.empty() ? llvm::StringRef("unit") : fileName)).str();
  files.memory->addFile(files.unitPath, 0, llvm::MemoryBuffer::getMemBufferCopy(unit.text, files.unitPath));
  files.identities[files.unitPath] = {unitName, false};
  for (const auto &[path, contents] : unit.headers) {
    llvm::SmallString<128> normalized(path);
    llvm::sys::path::remove_dots(normalized, /*remove_dot_dot=*/false, llvm::sys::path::Style::posix);
    bool escapes = llvm::any_of(llvm::make_range(llvm::sys::path::begin(normalized), llvm::sys::path::end(normalized)),
                                [](llvm::StringRef component) { return component == ".."; });
    std::string vfsPath = (kVirtualDir + "/" + normalized).str();
    std::string reason;
    if (normalized.empty() || llvm::sys::path::is_absolute(path) || escapes)
      reason = "the path must be relative and must not contain '..'";
    else if (files.identities.count(vfsPath))
      reason = "the path is given more than once";
    if (!reason.empty()) {
      diags.report(diag::DiagId::CxxBadVirtualHeader, {}).arg("path", path).arg("unit", unitName).arg("reason", reason);
      continue;
    }
    files.memory->addFile(vfsPath, 0, llvm::MemoryBuffer::getMemBufferCopy(contents, vfsPath));
    files.identities[vfsPath] = {path, true};
  }
  for (const std::string &dir : unit.includeDirs) {
    llvm::SmallString<256> canonical;
    std::string reason;
    if (std::error_code ec = llvm::sys::fs::real_path(dir, canonical))
      reason = ec.message();
    else if (!llvm::sys::fs::is_directory(canonical))
      reason = "not a directory";
    if (!reason.empty()) {
      diags.report(diag::DiagId::CxxMissingIncludeDir, {}).arg("dir", dir).arg("unit", unitName).arg("reason", reason);
      continue;
    }
    files.mounts.push_back({(kMountDir + "/" + llvm::Twine(files.mounts.size())).str(), dir, canonical.str().str()});
  }
  // The unit's own directory, for `#include "sibling.h"` (Clang searches the includer's directory
  // first); the unit's text stays the one given.
  // HIP units only: C/C++ workers keep their quoted includes to declared headers and directories.
  if (!unit.directory.empty() && language == Language::Hip) {
    llvm::SmallString<256> canonical;
    if (!llvm::sys::fs::real_path(unit.directory, canonical) && llvm::sys::fs::is_directory(canonical))
      files.mounts.push_back({kSourceDir.str(), unit.directory, canonical.str().str()});
  }
  for (const std::string &file : unit.preincludes) {
    llvm::SmallString<256> canonical;
    if (llvm::sys::fs::real_path(file, canonical) || !llvm::sys::fs::is_regular_file(canonical)) {
      files.preincludes.push_back(file);  // searched like #include "file"
      continue;
    }
    std::string root = (kPreincludeDir + "/" + llvm::Twine(files.preincludes.size())).str();
    llvm::SmallString<256> dir = llvm::sys::path::parent_path(canonical);
    files.mounts.push_back({root, dir.str().str(), dir.str().str()});
    files.preincludes.push_back(root + "/" + llvm::sys::path::filename(canonical).str());
  }
  if (unit.hostHeaders && language != Language::C) {
    const std::vector<HostIncludeDir> &hostDirs = probeHostIncludeDirs();
    for (size_t i = 0; i < hostDirs.size(); ++i) {
      llvm::SmallString<256> canonical;
      if (llvm::sys::fs::real_path(hostDirs[i].path, canonical)) continue;
      files.mounts.push_back({(kHostDir + "/" + llvm::Twine(i)).str(), hostDirs[i].path, canonical.str().str()});
    }
  }
  if (language == Language::Hip && !target.offloadArch.empty()) {
    for (auto [virtualRoot, dir, package] :
         {std::tuple{kClangIncludeDir, llvm::StringRef(HRX_CLANG_RESOURCE_INCLUDE), "clang-22"},
          std::tuple{kRocmBitcodeDir, llvm::StringRef(HRX_ROCM_BITCODE_DIR), "rocm-device-libs"}}) {
      llvm::SmallString<256> canonical;
      if (dir.empty() || llvm::sys::fs::real_path(dir, canonical) || !llvm::sys::fs::is_directory(canonical)) {
        diags.report(diag::DiagId::CxxMissingIncludeDir, {})
            .arg("dir", dir.empty() ? std::string("(not found when hrx was built)") : dir.str())
            .arg("unit", unitName)
            .arg("reason", std::string("HIP units for amdgcn need the Debian package ") + package);
        continue;
      }
      files.mounts.push_back({virtualRoot.str(), dir.str(), canonical.str().str()});
    }
  }
  if (diags.errorCount() != errorsBefore) return std::nullopt;
  return files;
}

// Specialises a shared setup for one unit: its input, search paths, macros, file naming and the
// engine's warning options.
void configureInvocation(clang::CompilerInvocation &invocation, const CxxUnit &unit, const UnitFiles &files,
                         const std::string &unitName, Language language, const diag::DiagnosticOptions &engineOptions) {
  // The driver asks Clang to leak its AST at exit (-disable-free); a long-lived importer may not.
  invocation.getFrontendOpts().DisableFree = false;
  invocation.getFrontendOpts().Inputs = {
      clang::FrontendInputFile(files.unitPath, clang::InputKind(language == Language::Cxx   ? clang::Language::CXX
                                                                : language == Language::Hip ? clang::Language::HIP
                                                                                            : clang::Language::C))};

  // Virtual headers, then mounted directories, for #include and #embed (the unit's own directory
  // holds only the unit); hrx's headers come last from the setup.
  std::vector<std::string> searchPath;
  if (!unit.headers.empty()) searchPath.push_back(kVirtualDir.str());
  for (const Mount &mount : files.mounts)
    if (mount.virtualRoot.starts_with(kMountDir)) searchPath.push_back(mount.virtualRoot);
  clang::PreprocessorOptions &preprocessor = invocation.getPreprocessorOpts();
  for (const std::string &dir : searchPath) {
    invocation.getHeaderSearchOpts().AddPath(dir, clang::frontend::Angled, false, true);
    preprocessor.EmbedEntries.push_back(dir);
  }
  for (const std::string &define : unit.defines) {
    llvm::StringRef d = define;
    if (d.consume_front("-U"))
      preprocessor.addMacroUndef(d);
    else
      preprocessor.addMacroDef(d);
  }
  for (const std::string &file : files.preincludes) preprocessor.Includes.push_back(file);

  // Debug info and __FILE__ name files as the user does, not by their in-memory paths.
  clang::CodeGenOptions &codegen = invocation.getCodeGenOpts();
  codegen.MainFileName = llvm::sys::path::filename(files.unitPath).str();
  codegen.DebugCompilationDir.clear();
  std::vector<std::pair<std::string, std::string>> prefixes = {{files.unitPath, unitName},
                                                               {(kVirtualDir + "/").str(), ""}};
  for (const Mount &mount : files.mounts) prefixes.emplace_back(mount.virtualRoot, mount.realDir);
  for (const auto &[from, to] : prefixes) {
    codegen.DebugPrefixMap.emplace_back(from, to);
    invocation.getLangOpts().MacroPrefixMap[from] = to;
  }

  // Warning and remark groups the engine enables or disables, where Clang knows them; -Werror
  // and the error limit stay with the engine.
  clang::DiagnosticOptions &clangOptions = invocation.getDiagnosticOpts();
  auto known = [](const std::string &group) {
    return clang::DiagnosticIDs::getGroupForWarningOption(group).has_value();
  };
  if (engineOptions.enableAllWarnings) clangOptions.Warnings.push_back("everything");
  for (const std::string &group : engineOptions.enabledGroups)
    if (known(group)) clangOptions.Warnings.push_back(group);
  for (const std::string &group : engineOptions.disabledGroups)
    if (known(group)) clangOptions.Warnings.push_back("no-" + group);
  clangOptions.IgnoreWarnings = engineOptions.ignoreAllWarnings;
  if (engineOptions.enableAllRemarks) clangOptions.Remarks.push_back("everything");
  for (const std::string &group : engineOptions.enabledRemarks)
    if (known(group)) clangOptions.Remarks.push_back(group);
}

// Compiler setups shared by every importer in the process: the invocation Clang's driver derives
// once per (target, language, standard, options), and hrx's shipped headers. Both are immutable
// once built, so imports on several threads copy from them concurrently.
class SharedSetups {
public:
  static SharedSetups &get() {
    static SharedSetups instance;
    return instance;
  }

  const llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> &shipped() const { return shipped_; }

  std::shared_ptr<const clang::CompilerInvocation> setup(const ImportTarget &target, Language language,
                                                         const std::string &standard, const ImportOptions &options,
                                                         bool hostHeaders, bool fastMath,
                                                         std::vector<std::string> &errors);

private:
  SharedSetups() : shipped_(llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>()) {
    registerLoomAttributes();
    clang::getAttributePluginInstances();  // Clang fills this list lazily, without a lock: do it here
    for (const ShippedHeader &header : kShippedHeaders) {
      llvm::StringRef path(header.path.data(), header.path.size());
      llvm::StringRef contents(header.contents.data(), header.contents.size());
      shipped_->addFile(kSystemRoot + "/" + path, 0,
                        llvm::MemoryBuffer::getMemBuffer(contents, path, /*RequiresNullTerminator=*/false));
      // hrx's HIP and kernel headers alone, for units over the host's C/C++ headers.
      if (llvm::StringRef rest = path;
          rest.consume_front("include/") && (rest.starts_with("hip/") || rest.starts_with("hrx/")))
        shipped_->addFile(kHipOnlyDir + "/" + rest, 0,
                          llvm::MemoryBuffer::getMemBuffer(contents, path, /*RequiresNullTerminator=*/false));
    }
    shipped_->setCurrentWorkingDirectory(kSourceDir);
  }

  using Key = std::tuple<ImportTarget, Language, std::string, unsigned, bool, std::string, bool, bool>;
  std::mutex mutex_;
  std::map<Key, std::shared_ptr<const clang::CompilerInvocation>> setups_;
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> shipped_;
};

std::shared_ptr<const clang::CompilerInvocation> SharedSetups::setup(const ImportTarget &target, Language language,
                                                                     const std::string &standard,
                                                                     const ImportOptions &options, bool hostHeaders,
                                                                     bool fastMath, std::vector<std::string> &errors) {
  std::lock_guard<std::mutex> lock(mutex_);
  Key key{target, language, standard, options.optLevel, options.debugInfo, options.hostCpu, hostHeaders, fastMath};
  if (auto it = setups_.find(key); it != setups_.end()) return it->second;

  bool hip = language == Language::Hip;
  bool cxx = language == Language::Cxx || hip;
  std::vector<std::string> args = {"/hrx/bin/clang"};
  if (hip) {
    // Clang's HIP device mode (--cuda-device-only semantics: host code is parsed and not
    // emitted). The host twin is the same mode with the x86-64 host as the device.
    if (!target.offloadArch.empty()) {
      args.insert(args.end(), {"--target=" + kHostTriple.str(), "-x", "hip", "--cuda-device-only",
                               "--offload-arch=" + target.offloadArch});
      for (const std::string &define : target.defines) args.push_back("-D" + define);
      for (const char *library : fastMath ? kRocmFastMathLibraries : kRocmDeviceLibraries)
        args.insert(args.end(),
                    {"-Xclang", "-mlink-builtin-bitcode", "-Xclang", (kRocmBitcodeDir + "/" + library).str()});
    } else {
      args.insert(args.end(), {"--target=" + target.triple, cpuFlag(target, options), "-x", "hip", "--cuda-host-only",
                               "-Xclang", "-fcuda-is-device", "-fno-math-errno", "-fPIC"});
      for (const std::string &define : target.defines) args.push_back("-D" + define);
    }
    args.insert(args.end(), {"-nogpuinc", "-nogpulib", "-fno-gpu-rdc", "-Wno-unknown-cuda-version"});
  } else {
    args.push_back("--target=" + target.triple);
    if (!target.offloadArch.empty()) args.push_back("-nogpulib");
    for (const std::string &define : target.defines) args.push_back("-D" + define);
    args.push_back(cpuFlag(target, options));
  }
  if (!hip) args.insert(args.end(), {"-x", cxx ? "c++" : "c"});
  // HIP on amdgcn and units over the host's headers are hosted, as Clang compiles them (device
  // printf is then Clang's builtin, lowered to ockl's hostcall printf).
  bool hosted = (hip && !target.offloadArch.empty()) || (hostHeaders && cxx);
  if (!hosted) args.push_back("-ffreestanding");
  args.insert(args.end(), {"-std=" + standard, "-nostdinc", "-D__HRX__=1", "-O" + std::to_string(options.optLevel),
                           "-Xclang", "-disable-llvm-passes", "-ferror-limit=0", "-fno-color-diagnostics"});
  bool overHostHeaders = hostHeaders && cxx;
  if (cxx)
    args.insert(args.end(), {"-nostdinc++", "-fno-exceptions", "-fno-rtti", "-fdeclspec", "-fno-threadsafe-statics",
                             "-Wno-c23-extensions"});
  if (overHostHeaders) {
    // hrx's HIP headers, then the host's in the order Clang's driver searches them.
    args.insert(args.end(), {"-isystem", kHipOnlyDir.str(), "-D__HRX_HOST_HEADERS__=1"});
    const std::vector<HostIncludeDir> &hostDirs = probeHostIncludeDirs();
    for (size_t i = 0; i < hostDirs.size(); ++i)
      args.insert(args.end(), {"-Xclang", hostDirs[i].externC ? "-internal-externc-isystem" : "-internal-isystem",
                               "-Xclang", (kHostDir + "/" + llvm::Twine(i)).str()});
    // The host twin reads the C library's own headers first, for host and device code (the last
    // directory with <stdlib.h> is the C library's; earlier ones are libstdc++'s wrappers).
    if (target.hostProcess)
      for (size_t i = hostDirs.size(); i-- > 0;)
        if (llvm::sys::fs::exists(hostDirs[i].path + "/stdlib.h")) {
          for (const char *header : {"stdlib", "string", "math", "stdio"}) {
            std::string macro = llvm::StringRef(header).upper();
            args.push_back("-D__HRX_LIBC_" + macro + "_H=\"" + (kHostDir + "/" + llvm::Twine(i)).str() + "/" + header +
                           ".h\"");
          }
          break;
        }
  } else {
    if (cxx) args.insert(args.end(), {"-isystem", (kSystemRoot + "/include-c++").str()});
    args.insert(args.end(), {"-isystem", (kSystemRoot + "/include").str()});
  }
  if (fastMath) args.push_back("-ffast-math");
  if (hip) {
    if (!target.offloadArch.empty() && !overHostHeaders) args.insert(args.end(), {"-isystem", kClangIncludeDir.str()});
    args.insert(args.end(), {"-include", "hip/__hrx_hip_device.h"});
    // hipcc searched $HIP_PATH/include/hip too: "hip_runtime.h" without "hip/" finds hrx's, last.
    args.insert(args.end(),
                {"-idirafter", (overHostHeaders ? kHipOnlyDir.str() : (kSystemRoot + "/include").str()) + "/hip"});
  }
  if (options.debugInfo) args.push_back("-g");
  args.push_back((kSourceDir + (hip ? "/unit.hip" : cxx ? "/unit.cpp" : "/unit.c")).str());

  std::vector<const char *> argv;
  for (const std::string &arg : args) argv.push_back(arg.c_str());
  MessageCollector collector;
  clang::DiagnosticOptions diagOptions;
  clang::CreateInvocationOptions cio;
  cio.Diags = clang::CompilerInstance::createDiagnostics(*shipped_, diagOptions, &collector, false);
  cio.VFS = shipped_;
  std::shared_ptr<clang::CompilerInvocation> invocation = clang::createInvocation(argv, cio);
  if (!invocation || collector.getNumErrors()) {
    errors = collector.messages;
    if (errors.empty()) errors.push_back("Clang rejected the compiler setup");
    return nullptr;
  }
  setups_.emplace(key, invocation);
  return invocation;
}

// The precompiled HIP device header. Every HIP unit begins with `-include hip/__hrx_hip_device.h`
// (hrx's HIP API over Clang's HIP wrapper): most of a small unit's parse. Clang's PCH of that
// include, made by the same invocation, replaces it (clang -include-pch): Clang checks the PCH's
// target, language and macro options against the unit's, and the PCH is keyed by every input of
// its compile. It is built on first use into the user's cache directory ($XDG_CACHE_HOME/hrx/pch,
// else ~/.cache/hrx/pch), written atomically; HRX_CXX_PCH=0 parses the header as before.
constexpr llvm::StringLiteral kDeviceHeader = "hip/__hrx_hip_device.h";
// The (empty) unit the PCH is made from, beside the unit (where Clang resolves "." for -include).
constexpr llvm::StringLiteral kPchMain = "/hrx/src/__hrx_device_pch.hip";
constexpr llvm::StringLiteral kPchFile = "/hrx/pch/device.pch";
constexpr llvm::StringLiteral kPchMagic = "hrx-pch-1\n";

bool pchEnabled() {
  const char *value = std::getenv("HRX_CXX_PCH");
  return !(value && std::string_view(value) == "0");
}

std::string pchCacheDir() {
  llvm::SmallString<256> dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg && llvm::sys::path::is_absolute(xdg))
    dir = xdg;
  else if (const char *home = std::getenv("HOME"); home && *home && llvm::sys::path::is_absolute(home))
    llvm::sys::path::append(dir, home, ".cache");
  else
    return {};
  llvm::sys::path::append(dir, "hrx", "pch");
  return dir.str().str();
}

// The mounts every HIP unit of a target has (Clang's resource headers, ROCm's bitcode, the host's
// include directories); a PCH reads nothing else from the real file system.
bool isSharedMount(const Mount &mount) {
  return mount.virtualRoot == kClangIncludeDir || mount.virtualRoot == kRocmBitcodeDir ||
         llvm::StringRef(mount.virtualRoot).starts_with(kHostDir);
}

// Whether the unit may start from the PCH: nothing of its own can change how the device header
// parses (no -D/-U, -include, virtual headers or include directories, no hip/__hrx_hip_device.h
// beside the unit, which the -include would find first).
bool unitMayUsePch(const CxxUnit &unit, const UnitFiles &files) {
  if (!unit.defines.empty() || !unit.preincludes.empty() || !unit.headers.empty() || !files.preincludes.empty())
    return false;
  for (const Mount &mount : files.mounts) {
    if (isSharedMount(mount)) continue;
    if (mount.virtualRoot == kSourceDir && !llvm::sys::fs::exists(mount.realDir + "/" + kDeviceHeader)) continue;
    return false;
  }
  return true;
}

// Counts every diagnostic the PCH's compile reports: a header that says anything under the unit's
// options is parsed with the unit, so that the unit reports it.
class CountingConsumer : public clang::DiagnosticConsumer {
public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) override {
    if (level != clang::DiagnosticsEngine::Ignored) ++count;
  }
  unsigned count = 0;
};

// A PCH loaded for one import: the cache file (kept alive while Clang reads it) and the real files
// its compile read from the mounts, in that order, with their size and modification time.
struct LoadedPch {
  std::unique_ptr<llvm::MemoryBuffer> file;
  llvm::StringRef ast;
  struct Input {
    std::string vfsPath, realPath;
    uint64_t size = 0;
    int64_t mtime = 0;
  };
  std::vector<Input> inputs;
};

bool realFileMatches(const LoadedPch::Input &input) {
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(input.realPath, status)) return false;
  return status.getSize() == input.size && status.getLastModificationTime().time_since_epoch().count() == input.mtime;
}

std::optional<LoadedPch> readPch(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) return std::nullopt;
  LoadedPch pch;
  llvm::StringRef rest = (*buffer)->getBuffer();
  if (!rest.consume_front(kPchMagic)) return std::nullopt;
  auto [countLine, lines] = rest.split('\n');
  size_t count = 0;
  if (countLine.getAsInteger(10, count)) return std::nullopt;
  for (size_t i = 0; i < count; ++i) {
    auto [line, next] = lines.split('\n');
    lines = next;
    llvm::SmallVector<llvm::StringRef, 4> fields;
    line.split(fields, '\t');
    LoadedPch::Input input;
    if (fields.size() != 4 || fields[2].getAsInteger(10, input.size) || fields[3].getAsInteger(10, input.mtime))
      return std::nullopt;
    input.vfsPath = fields[0].str();
    input.realPath = fields[1].str();
    pch.inputs.push_back(std::move(input));
  }
  if (lines.empty()) return std::nullopt;
  pch.ast = lines;
  pch.file = std::move(*buffer);
  return pch;
}

// Compiles the PCH with `generation` and writes it to `path` (temporary file, then rename).
bool writePch(std::shared_ptr<clang::CompilerInvocation> generation, const std::vector<Mount> &mounts,
              const llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> &shipped, const std::string &path) {
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  memory->setCurrentWorkingDirectory(kSourceDir);
  memory->addFile(kPchMain, 0, llvm::MemoryBuffer::getMemBuffer("", kPchMain));
  llvm::StringMap<FileIdentity> identities;
  std::vector<MountedFile> read;
  auto mounted = llvm::makeIntrusiveRefCnt<MountedFileSystem>(memory, mounts, identities, read);
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(shipped);
  overlay->pushOverlay(mounted);

  std::string unique = std::to_string(llvm::sys::Process::getProcessId()) + "-" +
                       std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id()));
  std::string astPath = path + ".ast." + unique, tempPath = path + ".tmp." + unique;
  generation->getFrontendOpts().OutputFile = astPath;
  CountingConsumer counter;
  bool ok;
  {
    clang::CompilerInstance ci(std::move(generation));
    ci.setVirtualFileSystem(overlay);
    ci.createDiagnostics(&counter, /*ShouldOwnClient=*/false);
    ci.createFileManager();
    clang::GeneratePCHAction action;
    ok = ci.ExecuteAction(action) && counter.count == 0;
  }
  auto ast = llvm::MemoryBuffer::getFile(astPath, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  llvm::sys::fs::remove(astPath);
  if (!ok || !ast) return false;
  std::string header = kPchMagic.str() + std::to_string(read.size()) + "\n";
  for (const MountedFile &file : read) {
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(file.realPath, status)) return false;
    header += file.vfsPath + "\t" + file.realPath + "\t" + std::to_string(status.getSize()) + "\t" +
              std::to_string(status.getLastModificationTime().time_since_epoch().count()) + "\n";
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(tempPath, ec, llvm::sys::fs::OF_None);
    if (ec) return false;
    out << header << (*ast)->getBuffer();
    out.close();
    if (out.has_error()) {
      out.clear_error();
      llvm::sys::fs::remove(tempPath);
      return false;
    }
  }
  if (llvm::sys::fs::rename(tempPath, path)) {
    llvm::sys::fs::remove(tempPath);
    return false;
  }
  return true;
}

// Hash of hrx's embedded headers (the PCH's key holds what the binary ships).
const std::string &shippedHeadersHash() {
  static const std::string hash = [] {
    IdentityHasher hasher;
    for (const ShippedHeader &header : kShippedHeaders) {
      hasher.add(llvm::StringRef(header.path.data(), header.path.size()));
      hasher.add(llvm::StringRef(header.contents.data(), header.contents.size()));
    }
    return hasher.hex();
  }();
  return hash;
}

// Makes `invocation` start from the PCH of its device header when it may (loading, or building on
// first use), adding the PCH and the files its compile read to the unit's file systems; returns
// the loaded cache file, or nothing to parse the header as before.
std::optional<LoadedPch> useDevicePch(clang::CompilerInvocation &invocation, const CxxUnit &unit,
                                      const UnitFiles &files, MountedFileSystem &mounted,
                                      const llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> &shipped) {
  if (!pchEnabled() || !unitMayUsePch(unit, files)) return std::nullopt;
  // Clang's code generation sees only the unit's own top-level declarations after a PCH: debug
  // info would lose the header's using-declarations (DW_TAG_imported_declaration).
  if (invocation.getCodeGenOpts().getDebugInfo() != llvm::codegenoptions::NoDebugInfo) return std::nullopt;
  std::vector<std::string> &includes = invocation.getPreprocessorOpts().Includes;
  if (includes.size() != 1 || includes.front() != kDeviceHeader) return std::nullopt;
  std::string cacheDir = pchCacheDir();
  if (cacheDir.empty()) return std::nullopt;

  // The PCH's own compile: the unit's invocation, on an empty header, without the unit's names.
  auto generation = std::make_shared<clang::CompilerInvocation>(invocation);
  generation->getFrontendOpts().Inputs = {clang::FrontendInputFile(kPchMain, clang::InputKind(clang::Language::HIP))};
  generation->getFrontendOpts().ProgramAction = clang::frontend::GeneratePCH;
  generation->getFrontendOpts().OutputFile.clear();
  clang::CodeGenOptions &codegen = generation->getCodeGenOpts();
  codegen.MainFileName.clear();
  codegen.DebugPrefixMap.clear();
  codegen.LinkBitcodeFiles.clear();
  std::vector<Mount> mounts;
  auto &macroPrefixes = generation->getLangOpts().MacroPrefixMap;
  macroPrefixes.erase(files.unitPath);
  macroPrefixes.erase(kSourceDir.str());
  for (const Mount &mount : files.mounts)
    if (isSharedMount(mount)) {
      mounts.push_back(mount);
      codegen.DebugPrefixMap.emplace_back(mount.virtualRoot, mount.realDir);
    }

  IdentityHasher key;
  key.add(kPchMagic);
  key.add(CLANG_VERSION_STRING);
  key.add(shippedHeadersHash());
  for (const std::string &arg : generation->getCC1CommandLine()) key.add(arg);
  for (const Mount &mount : mounts) {
    key.add(mount.virtualRoot);
    key.add(mount.canonicalDir);
  }
  for (const auto &[from, to] : macroPrefixes) {
    key.add(from);
    key.add(to);
  }
  std::string path = cacheDir + "/" + key.hex() + ".pch";

  auto acceptable = [&](const LoadedPch &pch) {
    if (!llvm::all_of(pch.inputs, realFileMatches)) return false;
    auto probe = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    probe->addFile(kPchFile, 0, llvm::MemoryBuffer::getMemBuffer(pch.ast, kPchFile, false));
    clang::FileManager fileManager(clang::FileSystemOptions(), probe);
    std::shared_ptr<clang::ModuleCache> moduleCache = clang::createCrossProcessModuleCache();
    clang::PCHContainerOperations operations;
    return clang::ASTReader::isAcceptableASTFile(
        kPchFile, fileManager, *moduleCache, operations.getRawReader(), invocation.getLangOpts(),
        invocation.getCodeGenOpts(), invocation.getTargetOpts(), invocation.getPreprocessorOpts(),
        invocation.getHeaderSearchOpts(), invocation.getHeaderSearchOpts().ModuleCachePath);
  };
  std::optional<LoadedPch> pch = readPch(path);
  if (!pch || !acceptable(*pch)) {
    pch.reset();
    if (llvm::sys::fs::create_directories(cacheDir) || !writePch(generation, mounts, shipped, path))
      return std::nullopt;
    pch = readPch(path);
    if (!pch || !acceptable(*pch)) return std::nullopt;
  }

  // The files the header read, read first as they were (inputs and identity keep their order).
  for (const LoadedPch::Input &input : pch->inputs)
    if (!mounted.status(input.vfsPath)) return std::nullopt;
  files.memory->addFile(kPchMain, 0, llvm::MemoryBuffer::getMemBuffer("", kPchMain));
  files.memory->addFile(kPchFile, 0, llvm::MemoryBuffer::getMemBuffer(pch->ast, kPchFile, false));
  includes.clear();
  invocation.getPreprocessorOpts().ImplicitPCHInclude = kPchFile.str();
  return pch;
}

// What import and preprocess share: the unit's language, name and standard (checked), its files,
// and the invocation configured for `target`.
struct PreparedUnit {
  Language language;
  std::string unitName;
  std::string standard;
  UnitFiles files;
  std::shared_ptr<clang::CompilerInvocation> invocation;
};

std::optional<PreparedUnit> prepareUnit(const CxxUnit &unit, const ImportTarget &target, const ImportOptions &options,
                                        diag::DiagnosticEngine &diags) {
  Language language = languageOf(unit);
  bool hip = language == Language::Hip;
  bool cxx = language == Language::Cxx || hip;
  std::string unitName = unit.name.empty() ? (hip ? "unit.hip" : cxx ? "unit.cpp" : "unit.c") : unit.name;

  std::string standard = unit.standard.empty() ? (hip ? "c++20" : cxx ? "c++26" : "c23") : unit.standard;
  const clang::LangStandard *langStandard = clang::LangStandard::getLangStandardForName(standard);
  bool accepted = langStandard && (langStandard->getLanguage() == clang::Language::CXX) == cxx &&
                  (hip   ? langStandard->isCPlusPlus17()
                   : cxx ? langStandard->isCPlusPlus26()
                         : langStandard->isC23());
  if (!accepted) {
    diags.report(diag::DiagId::CxxUnsupportedStandard, {})
        .arg("standard", standard)
        .arg("unit", unitName)
        .arg("accepted", hip   ? "C++17 or newer for HIP (c++17, c++20, c++23, c++26, gnu++17...)"
                         : cxx ? "C++26 or newer (c++26, gnu++26, c++2c)"
                               : "C23 or newer (c23, gnu23, c2y)");
    return std::nullopt;
  }

  std::optional<UnitFiles> files = unitFiles(unit, unitName, language, target, diags);
  if (!files) return std::nullopt;

  std::vector<std::string> setupErrors;
  std::shared_ptr<const clang::CompilerInvocation> base = SharedSetups::get().setup(
      target, language, standard, options, unit.hostHeaders && cxx, unit.fastMath, setupErrors);
  if (!base) {
    for (std::string &message : setupErrors)
      diags.reportExternal(diag::Severity::Error, {}, "internal compiler setup error: " + message);
    return std::nullopt;
  }
  auto invocation = std::make_shared<clang::CompilerInvocation>(*base);
  configureInvocation(*invocation, unit, *files, unitName, language, diags.options());
  return PreparedUnit{language, std::move(unitName), std::move(standard), std::move(*files), std::move(invocation)};
}

}  // namespace

const std::vector<std::string> &hostIncludeDirs() {
  static const std::vector<std::string> paths = [] {
    std::vector<std::string> out;
    for (const HostIncludeDir &dir : probeHostIncludeDirs()) out.push_back(dir.path);
    return out;
  }();
  return paths;
}

struct CxxImporter::Impl {
  ImportOptions options;
};

CxxImporter::CxxImporter(ImportOptions options) : impl_(std::make_unique<Impl>()) {
  SharedSetups::get();  // registers the loom attributes before anything is parsed
  impl_->options = std::move(options);
}

CxxImporter::~CxxImporter() = default;

namespace {
// A [[loom::kernel]] is known by its source name, as upstream links a `kernel.decl @copy_block`
// to C++'s `void copy_block(...)`: its function takes that name (C++ linkage would mangle it)
// unless it is in a namespace or class (Itanium `_ZN...`), a template specialization, an overload,
// or another function has the name.
void exportKernelsBySourceName(std::vector<Signature> &signatures, llvm::Module &module) {
  std::map<std::string, int> uses;
  for (const Signature &sig : signatures) ++uses[sig.name];
  for (Signature &sig : signatures) {
    if (!sig.isKernel || sig.symbol == sig.name || sig.symbol.starts_with("_ZN") || uses[sig.name] != 1 ||
        sig.name.find_first_of("<>:, ") != std::string::npos || module.getNamedValue(sig.name))
      continue;
    llvm::Function *function = module.getFunction(sig.symbol);
    if (!function) continue;
    function->setName(sig.name);
    sig.symbol = sig.name;
  }
}
}  // namespace

std::optional<ImportedUnit> CxxImporter::import(const CxxUnit &unit, const ImportTarget &target,
                                                llvm::LLVMContext &context, diag::DiagnosticEngine &diags) {
  unsigned errorsBefore = diags.errorCount();
  std::optional<PreparedUnit> prepared = prepareUnit(unit, target, impl_->options, diags);
  if (!prepared) return std::nullopt;
  const Language language = prepared->language;
  const bool hip = language == Language::Hip;
  const std::string &unitName = prepared->unitName;
  const std::string &standard = prepared->standard;
  std::optional<UnitFiles> files = std::move(prepared->files);
  std::shared_ptr<clang::CompilerInvocation> invocation = std::move(prepared->invocation);
  if (!impl_->options.clangWarnings) invocation->getDiagnosticOpts().IgnoreWarnings = true;
  const std::string &unitPath = files->unitPath;
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> memory = files->memory;
  llvm::StringMap<FileIdentity> &identities = files->identities;

  std::vector<MountedFile> filesRead;
  auto mounted = llvm::makeIntrusiveRefCnt<MountedFileSystem>(memory, files->mounts, identities, filesRead);
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(SharedSetups::get().shipped());
  overlay->pushOverlay(mounted);
  // Kept alive while Clang reads it.
  std::optional<LoadedPch> pch;
  if (hip) pch = useDevicePch(*invocation, unit, *files, *mounted, SharedSetups::get().shipped());

  SourceMapper mapper(diags.sourceManager(), identities);
  mapper.fileId(unitPath, unit.text);  // the unit is the first file of this import (for -verify)
  ClangDiagnosticTranslator translator(diags, mapper, target);
  translator.setHostHeaders(unit.hostHeaders);

  // The device libraries (-mlink-builtin-bitcode) are linked below, not by Clang's code
  // generation: the same link, with Clang's attributes merged into what it takes only.
  std::vector<std::string> deviceLibraries;
  auto &linkFiles = invocation->getCodeGenOpts().LinkBitcodeFiles;
  if (!impl_->options.clangLinksDeviceLibraries &&
      llvm::all_of(linkFiles, [](const clang::CodeGenOptions::BitcodeFileToLink &file) {
        return file.PropagateAttrs && file.Internalize && file.LinkFlags == llvm::Linker::Flags::LinkOnlyNeeded;
      })) {
    for (const clang::CodeGenOptions::BitcodeFileToLink &file : linkFiles) deviceLibraries.push_back(file.Filename);
    linkFiles.clear();
  }

  ImportedUnit out;
  clang::CompilerInstance ci(std::move(invocation));
  ci.setVirtualFileSystem(overlay);
  ci.createDiagnostics(&translator, /*ShouldOwnClient=*/false);
  ci.createFileManager();
  std::string verbose;
  llvm::raw_string_ostream verboseStream(verbose);
  ci.setVerboseOutputStream(verboseStream);
  auto checks =
      std::make_unique<CheckingConsumer>(target, impl_->options.requireDefinedCalls, mapper, translator, diags, out);
  checks->setFunctionBodies(unit.functionBodies);
  ImportAction action(context, std::move(checks));
  bool ok = ci.ExecuteAction(action);
  translator.flush();
  std::unique_ptr<llvm::Module> module = action.takeModule();
  if (!ok || !module || diags.errorCount() != errorsBefore) return std::nullopt;
  if (!deviceLibraries.empty()) {
    std::vector<std::string> warnings;
    std::string error = linkDeviceLibraries(ci, deviceLibraries, *module, warnings);
    if (impl_->options.clangWarnings)
      for (std::string &warning : warnings)
        diags.reportExternal(diag::Severity::Warning, {}, std::move(warning), "linker-warnings");
    if (!error.empty()) {
      diags.reportExternal(diag::Severity::Error, {}, std::move(error));
      return std::nullopt;
    }
  }

  stripLoomAnnotations(*module);
  if (!hip) exportKernelsBySourceName(out.signatures, *module);
  if (hip) {
    if (!target.offloadArch.empty())
      flattenHipKernelPointers(*module);
    else
      giveHipSharedVariablesWorkgroupStorage(*module);
  }
  module->setModuleIdentifier(unitName);
  module->setSourceFileName(unitName);
  for (llvm::Function &function : *module) {
    if (!function.isDeclaration() || function.isIntrinsic() || function.use_empty()) continue;
    if (target.hostProcess && function.getName().starts_with(kHostBuiltinPrefix)) {
      out.hostBuiltins.push_back(function.getName().str());
      continue;
    }
    // The host twin of a HIP unit calls the host libm and printf (the host code may import them).
    if (hip && target.hostProcess && isHostLibraryFunction(function.getName())) continue;
    // Runtime calls Clang's code generation introduced (the AST checks saw every user call).
    if (llvm::any_of(out.externalCalls, [&](const ExternalCall &call) { return call.symbol == function.getName(); }))
      continue;
    diag::SourceLocation unitStart{mapper.fileId(unitPath, unit.text), 0};
    out.externalCalls.push_back({function.getName().str(), function.getName().str(), unitStart});
    if (impl_->options.requireDefinedCalls)
      diags.report(diag::DiagId::CxxUndefinedFunction, unitStart).arg("name", function.getName().str());
  }
  if (diags.errorCount() != errorsBefore) return std::nullopt;
  out.module = std::move(module);
  for (const MountedFile &file : filesRead) out.filesRead.push_back(file.realPath);
  if (impl_->options.computeIdentity)
    out.identity = identityOf(unit, unitName, language, standard, target, impl_->options, filesRead, *memory);
  return out;
}

namespace {
// Prints the preprocessed unit into a string (clang -E).
class PreprocessToString : public clang::PreprocessorFrontendAction {
public:
  explicit PreprocessToString(std::string &out) : out_(out) {}

protected:
  void ExecuteAction() override {
    clang::CompilerInstance &ci = getCompilerInstance();
    llvm::raw_string_ostream os(out_);
    clang::DoPrintPreprocessedInput(ci.getPreprocessor(), &os, ci.getPreprocessorOutputOpts());
  }

private:
  std::string &out_;
};
}  // namespace

std::optional<std::string> CxxImporter::preprocess(const CxxUnit &unit, const ImportTarget &target,
                                                   diag::DiagnosticEngine &diags, std::vector<std::string> *filesRead) {
  unsigned errorsBefore = diags.errorCount();
  std::optional<PreparedUnit> prepared = prepareUnit(unit, target, impl_->options, diags);
  if (!prepared) return std::nullopt;
  const std::string &unitName = prepared->unitName;
  std::optional<UnitFiles> files = std::move(prepared->files);
  std::shared_ptr<clang::CompilerInvocation> invocation = std::move(prepared->invocation);
  invocation->getPreprocessorOutputOpts().ShowCPP = 1;
  invocation->getPreprocessorOutputOpts().ShowLineMarkers = 1;
  std::vector<MountedFile> read;
  auto mounted = llvm::makeIntrusiveRefCnt<MountedFileSystem>(files->memory, files->mounts, files->identities, read);
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(SharedSetups::get().shipped());
  overlay->pushOverlay(mounted);
  SourceMapper mapper(diags.sourceManager(), files->identities);
  mapper.fileId(files->unitPath, unit.text);
  ClangDiagnosticTranslator translator(diags, mapper, target);
  translator.setHostHeaders(unit.hostHeaders);
  clang::CompilerInstance ci(std::move(invocation));
  ci.setVirtualFileSystem(overlay);
  ci.createDiagnostics(&translator, /*ShouldOwnClient=*/false);
  ci.createFileManager();
  std::string text;
  PreprocessToString action(text);
  bool ok = ci.ExecuteAction(action);
  translator.flush();
  if (!ok || diags.errorCount() != errorsBefore) return std::nullopt;
  // Line markers name files as diagnostics do, not by their in-memory paths.
  std::vector<std::pair<std::string, std::string>> names = {{files->unitPath, unitName}};
  for (const Mount &mount : files->mounts) names.emplace_back(mount.virtualRoot, mount.realDir);
  std::string out;
  out.reserve(text.size());
  for (llvm::StringRef rest = text; !rest.empty();) {
    auto [line, tail] = rest.split('\n');
    std::string kept = line.str();
    if (line.starts_with("# "))
      for (const auto &[from, to] : names)
        if (size_t at = kept.find("\"" + from); at != std::string::npos) {
          kept.replace(at + 1, from.size(), to);
          break;
        }
    out += kept;
    if (tail.data() != rest.end() || rest.ends_with("\n")) out += '\n';
    rest = tail;
  }
  if (filesRead)
    for (const MountedFile &file : read) filesRead->push_back(file.realPath);
  return out;
}

}  // namespace hrx::cxx
