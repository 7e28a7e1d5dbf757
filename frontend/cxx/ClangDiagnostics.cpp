// Clang → hrx diagnostics: location mapping and the translating consumer.
#include "ImportSession.h"

#include <clang/Basic/DiagnosticIDs.h>
#include <clang/Basic/DiagnosticLex.h>
#include <clang/Basic/DiagnosticSema.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/Preprocessor.h>
#include <llvm/ADT/SmallString.h>

namespace hrx::cxx {

uint32_t SourceMapper::fileId(llvm::StringRef vfsPath, llvm::StringRef contents) {
  auto it = identities_.find(vfsPath);
  std::string name = it != identities_.end() ? it->second.displayName : vfsPath.str();
  bool isVirtual = it != identities_.end() ? it->second.isVirtual : true;
  for (uint32_t id = 1; id <= sm_.fileCount(); ++id)
    if (sm_.name(id) == name && sm_.contents(id) == std::string_view(contents)) return id;
  return sm_.addBuffer(std::move(name), contents.str(), isVirtual);
}

uint32_t SourceMapper::fileId(clang::FileID fid) {
  auto cached = fileIds_.find(fid);
  if (cached != fileIds_.end()) return cached->second;
  uint32_t id = 0;
  if (clang::OptionalFileEntryRef entry = clangSM_->getFileEntryRefForID(fid)) {
    if (std::optional<llvm::StringRef> data = clangSM_->getBufferDataOrNone(fid)) id = fileId(entry->getName(), *data);
  }
  fileIds_[fid] = id;  // 0 for Clang's own buffers (<built-in>, <scratch space>)
  return id;
}

diag::SourceLocation SourceMapper::location(clang::SourceLocation loc) {
  if (!clangSM_ || loc.isInvalid()) return {};
  clang::SourceLocation fileLoc = clangSM_->getFileLoc(loc);
  auto [fid, offset] = clangSM_->getDecomposedLoc(fileLoc);
  uint32_t id = fileId(fid);
  if (id == 0) return {};
  return {id, offset};
}

diag::SourceRange SourceMapper::range(clang::SourceRange range) {
  return this->range(clang::CharSourceRange::getTokenRange(range));
}

diag::SourceRange SourceMapper::range(const clang::CharSourceRange &range) {
  diag::SourceLocation begin = location(range.getBegin());
  if (!begin.isValid() || range.getEnd().isInvalid()) return begin;
  clang::SourceLocation endLoc = clangSM_->getFileLoc(range.getEnd());
  if (range.isTokenRange() && lang_) endLoc = clang::Lexer::getLocForEndOfToken(endLoc, 0, *clangSM_, *lang_);
  diag::SourceLocation end = location(endLoc);
  if (end.file != begin.file || end.offset < begin.offset) return begin;
  return {begin, end};
}

namespace {

diag::Severity severityOf(clang::DiagnosticsEngine::Level level) {
  switch (level) {
  case clang::DiagnosticsEngine::Ignored: return diag::Severity::Ignored;
  case clang::DiagnosticsEngine::Note: return diag::Severity::Note;
  case clang::DiagnosticsEngine::Remark: return diag::Severity::Remark;
  case clang::DiagnosticsEngine::Warning: return diag::Severity::Warning;
  case clang::DiagnosticsEngine::Error: return diag::Severity::Error;
  case clang::DiagnosticsEngine::Fatal: return diag::Severity::Fatal;
  }
  return diag::Severity::Error;
}

std::string stringArg(const clang::Diagnostic &info, unsigned index) {
  if (index >= info.getNumArgs()) return {};
  switch (info.getArgKind(index)) {
  case clang::DiagnosticsEngine::ak_c_string: return info.getArgCStr(index);
  case clang::DiagnosticsEngine::ak_std_string: return info.getArgStdStr(index);
  default: return {};
  }
}

}  // namespace

void ClangDiagnosticTranslator::BeginSourceFile(const clang::LangOptions &lang, const clang::Preprocessor *pp) {
  hipUnit_ = lang.HIP;
  if (pp) mapper_.setClangSourceManager(&pp->getSourceManager(), &lang);
}

void ClangDiagnosticTranslator::flush() {
  if (!pending_) return;
  Pending p = std::move(*pending_);
  pending_.reset();
  if (p.id) {
    auto builder = engine_.report(*p.id, p.range);
    for (auto &[name, value] : p.params) builder.arg(name, std::move(value));
    for (diag::RelatedNote &note : p.notes) builder.note(note.range, std::move(note.message));
    return;
  }
  engine_.reportExternal(p.severity, p.range, std::move(p.message), std::move(p.flag), std::move(p.notes));
}

void ClangDiagnosticTranslator::addIncludeStack(const clang::Diagnostic &info, Pending &pending) {
  if (!info.hasSourceManager() || info.getLocation().isInvalid()) return;
  const clang::SourceManager &sm = info.getSourceManager();
  clang::FileID fid = sm.getFileID(sm.getFileLoc(info.getLocation()));
  for (clang::SourceLocation include = sm.getIncludeLoc(fid); include.isValid();
       include = sm.getIncludeLoc(sm.getFileID(include))) {
    diag::SourceLocation loc = mapper_.location(include);
    if (loc.isValid()) pending.notes.push_back({loc, "in file included from here"});
  }
}

void ClangDiagnosticTranslator::HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic &info) {
  clang::DiagnosticConsumer::HandleDiagnostic(level, info);  // keeps Clang's error counts
  llvm::SmallString<256> message;
  info.FormatDiagnostic(message);
  // The caret is the diagnostic's location; the first range that contains it gives the underline.
  diag::SourceRange range = mapper_.location(info.getLocation());
  for (const clang::CharSourceRange &r : info.getRanges()) {
    diag::SourceRange mapped = mapper_.range(r);
    if (mapped.begin.file == range.begin.file && mapped.begin.offset <= range.begin.offset &&
        range.begin.offset < mapped.end.offset) {
      range.end = mapped.end;
      break;
    }
  }

  if (level == clang::DiagnosticsEngine::Note) {
    if (pending_) pending_->notes.push_back({range, message.str().str()});
    return;
  }
  flush();

  Pending p{severityOf(level), range, message.str().str(), {}, {}, std::nullopt, {}};
  unsigned id = info.getID();
  if (level == clang::DiagnosticsEngine::Warning || level == clang::DiagnosticsEngine::Remark ||
      level == clang::DiagnosticsEngine::Error) {
    llvm::StringRef option = info.getDiags()->getDiagnosticIDs()->getWarningOptionForDiag(id);
    if (!option.empty()) p.flag = (level == clang::DiagnosticsEngine::Remark ? "-R" : "-W") + option.str();
  }
  if (id == clang::diag::err_exceptions_disabled) {
    p.id = diag::DiagId::CxxExceptions;
    p.params = {{"target", target_.name}, {"construct", stringArg(info, 0)}};
  } else if (id == clang::diag::err_no_typeid_with_fno_rtti || id == clang::diag::err_no_dynamic_cast_with_fno_rtti) {
    p.id = diag::DiagId::CxxRtti;
    p.params = {{"target", target_.name},
                {"construct", id == clang::diag::err_no_typeid_with_fno_rtti ? "typeid" : "dynamic_cast"}};
  } else if (id == info.getDiags()->getDiagnosticIDs()->getCustomDiagID(clang::DiagnosticIDs::Error,
                                                                        kBadLaunchAttributeFormat)) {
    p.id = diag::DiagId::CxxBadLaunchAttribute;
    p.params = {{"attr", stringArg(info, 0)}};
  } else if (id == info.getDiags()->getDiagnosticIDs()->getCustomDiagID(clang::DiagnosticIDs::Error,
                                                                        kBadAssumeAlignedFormat)) {
    p.id = diag::DiagId::CxxBadAssumeAligned;
    p.params = {{"problem", stringArg(info, 0)}};
  }
  // A missing header in a HIP unit: say why a host header is not there (docs/cxx.md).
  if (id == clang::diag::err_pp_file_not_found && hipUnit_ && !hostHeaders_)
    p.notes.push_back({range, "hrx compiles HIP device code over its own headers only: host headers such as "
                              "<iostream>, <vector> and <stdio.h> are not available unless you pass --host-headers "
                              "(the host's C/C++ include directories, mounted read-only and listed in the depfile); "
                              "pass the unit's own headers with -I or --header"});
  if (p.id && p.range.begin == p.range.end)  // hrx-owned: underline the offending token
    p.range = mapper_.range(clang::SourceRange(info.getLocation(), info.getLocation()));
  addIncludeStack(info, p);
  pending_ = std::move(p);
}

}  // namespace hrx::cxx
