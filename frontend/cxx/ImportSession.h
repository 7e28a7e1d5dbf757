// Internal: the state of one import shared by the diagnostic translator, the target checks and
// the signature extraction.
#pragma once

#include "hrx/cxx/CxxImporter.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/SourceLocation.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/StringMap.h>

#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class Decl;
class LangOptions;
class Preprocessor;
class SourceManager;
}  // namespace clang

namespace hrx::cxx {

// How a file of the in-memory file system is named in diagnostics.
struct FileIdentity {
  std::string displayName;
  bool isVirtual = true;
};

// Maps Clang source locations to hrx ones; files are added to the hrx SourceManager on first
// use (a buffer with the same name and contents that the caller registered is reused).
class SourceMapper {
public:
  SourceMapper(diag::SourceManager &sm, const llvm::StringMap<FileIdentity> &identities)
      : sm_(sm), identities_(identities) {}
  void setClangSourceManager(const clang::SourceManager *sm, const clang::LangOptions *lang) {
    clangSM_ = sm;
    lang_ = lang;
    fileIds_.clear();
  }
  diag::SourceLocation location(clang::SourceLocation loc);
  // A token range: the end is extended past the last token.
  diag::SourceRange range(clang::SourceRange range);
  diag::SourceRange range(const clang::CharSourceRange &range);
  // Registers `vfsPath` under its display name (the unit itself, so -verify can see it first).
  uint32_t fileId(llvm::StringRef vfsPath, llvm::StringRef contents);

private:
  uint32_t fileId(clang::FileID fid);

  diag::SourceManager &sm_;
  const llvm::StringMap<FileIdentity> &identities_;
  const clang::SourceManager *clangSM_ = nullptr;
  const clang::LangOptions *lang_ = nullptr;
  llvm::DenseMap<clang::FileID, uint32_t> fileIds_;
};

// Custom Clang diagnostics the attribute handlers emit, recognised by the translator.
inline constexpr char kBadLaunchAttributeFormat[] = "'%0' needs three positive integer constants";
inline constexpr char kBadAssumeAlignedFormat[] = "'loom::assume_aligned' %0";

// Translates Clang diagnostics into the hrx engine: notes are attached to the diagnostic they
// follow, flags keep Clang's names, and diagnostics hrx owns (exceptions, RTTI, launch
// attributes) get their CXX codes.
class ClangDiagnosticTranslator : public clang::DiagnosticConsumer {
public:
  ClangDiagnosticTranslator(diag::DiagnosticEngine &engine, SourceMapper &mapper, const ImportTarget &target)
      : engine_(engine), mapper_(mapper), target_(target) {}
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) override;
  void BeginSourceFile(const clang::LangOptions &lang, const clang::Preprocessor *pp) override;
  void finish() override { flush(); }
  // Emits the pending diagnostic (call before reporting hrx diagnostics of the same unit).
  void flush();
  // The unit sees the host's headers (--host-headers): a missing header is then just missing.
  void setHostHeaders(bool on) { hostHeaders_ = on; }

private:
  struct Pending {
    diag::Severity severity;
    diag::SourceRange range;
    std::string message;
    std::string flag;
    std::vector<diag::RelatedNote> notes;
    std::optional<diag::DiagId> id;  // a diagnostic hrx owns
    std::vector<std::pair<std::string, std::string>> params;
  };
  void addIncludeStack(const clang::Diagnostic &info, Pending &pending);

  diag::DiagnosticEngine &engine_;
  SourceMapper &mapper_;
  const ImportTarget &target_;
  std::optional<Pending> pending_;
  bool hipUnit_ = false;
  bool hostHeaders_ = false;
};

// Registers [[loom::kernel]], [[loom::workgroup_size]] and [[loom::workgroup_count]] with
// Clang's attribute registry (idempotent).
void registerLoomAttributes();

// True when `decl` carries [[clang::annotate(annotation)]] (explicit or from a loom attribute).
bool hasAnnotation(const clang::Decl *decl, llvm::StringRef annotation);

// Annotation strings the attribute handlers attach; Signatures.cpp reads them.
inline constexpr llvm::StringLiteral kKernelAnnotation = "loom.kernel";
inline constexpr llvm::StringLiteral kWorkgroupSizeAnnotation = "loom.workgroup_size=";
inline constexpr llvm::StringLiteral kWorkgroupCountAnnotation = "loom.workgroup_count=";
inline constexpr llvm::StringLiteral kLaunchBoundsAnnotation = "loom.launch_bounds";  // <hip/hip_runtime.h>
inline constexpr llvm::StringLiteral kBf16Annotation = "hrx.bf16";
// Prefix of the work-item functions the bridge's host target defines.
inline constexpr llvm::StringLiteral kHostBuiltinPrefix = "__hrx_host_";

// Target restrictions on the parsed unit (CXX/003..CXX/011, CXX/014, CXX/016). Calls to
// functions the unit does not define are collected in `externalCalls`, and reported as CXX/009
// when `requireDefinedCalls`.
void checkTargetRestrictions(clang::ASTContext &ast, const ImportTarget &target, bool requireDefinedCalls,
                             SourceMapper &mapper, diag::DiagnosticEngine &engine,
                             std::vector<ExternalCall> &externalCalls);
// Exported extern "C" functions and kernels of the unit.
std::vector<Signature> collectSignatures(clang::ASTContext &ast, SourceMapper &mapper);

}  // namespace hrx::cxx
