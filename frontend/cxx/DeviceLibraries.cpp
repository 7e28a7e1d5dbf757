#include "DeviceLibraries.h"

#include <clang/Basic/CodeGenOptions.h>
#include <clang/Basic/FileManager.h>
#include <clang/Basic/LangOptions.h>
#include <clang/Basic/TargetOptions.h>
#include <clang/Frontend/CompilerInstance.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/StringSet.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalAlias.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/IPO/Internalize.h>

namespace clang::CodeGen {
// Clang's attribute propagation for -mlink-builtin-bitcode (clang/lib/CodeGen/CGCall.h, which is
// not installed; libclang-cpp exports it). Calling Clang's own keeps the attributes Clang's.
void mergeDefaultFunctionDefinitionAttributes(llvm::Function &F, const CodeGenOptions &CodeGenOpts,
                                              const LangOptions &LangOpts, const TargetOptions &TargetOpts,
                                              bool WillInternalize);
}  // namespace clang::CodeGen

namespace hrx::cxx {
namespace {

// The linker's diagnostics, as Clang words them ("linking module 'X': ..."), while it runs.
class LinkerDiagnostics : public llvm::DiagnosticHandler {
public:
  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    if (info.getSeverity() != llvm::DS_Error && info.getSeverity() != llvm::DS_Warning) return true;
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::DiagnosticPrinterRawOStream printer(os);
    info.print(printer);
    (info.getSeverity() == llvm::DS_Error ? errors : warnings).push_back("linking module '" + current + "': " + text);
    return true;
  }
  std::string current;
  std::vector<std::string> errors, warnings;
};

void mergeClangAttributes(llvm::Function &function, clang::CompilerInstance &ci) {
  clang::CodeGen::mergeDefaultFunctionDefinitionAttributes(function, ci.getCodeGenOpts(), ci.getLangOpts(),
                                                           ci.getTargetOpts(), /*WillInternalize=*/true);
}

// Merges Clang's attributes into the functions of `library` a LinkOnlyNeeded link into `module`
// can take (a superset): those `module` names, the appending globals, and everything their
// definitions reference. Each function is merged when first found, before its body is read, as
// Clang merges before the link reads bodies (bitcode upgrades run after the merge). Returns an
// error message, or an empty string.
std::string mergeReachable(llvm::Module &library, const llvm::Module &module, clang::CompilerInstance &ci) {
  std::vector<llvm::GlobalValue *> work;
  llvm::DenseSet<llvm::GlobalValue *> found;
  auto add = [&](llvm::GlobalValue *value) {
    if (!found.insert(value).second) return;
    if (auto *function = llvm::dyn_cast<llvm::Function>(value); function && !function->isIntrinsic())
      mergeClangAttributes(*function, ci);
    work.push_back(value);
  };
  for (llvm::GlobalValue &value : library.global_values())
    if (value.hasAppendingLinkage() || (value.hasName() && module.getNamedValue(value.getName()))) add(&value);
  llvm::SmallPtrSet<const llvm::Constant *, 32> seenConstants;
  std::vector<const llvm::Constant *> constants;
  auto scan = [&](const llvm::Constant *root) {
    constants.push_back(root);
    while (!constants.empty()) {
      const llvm::Constant *c = constants.back();
      constants.pop_back();
      if (!seenConstants.insert(c).second) continue;
      if (auto *value = llvm::dyn_cast<llvm::GlobalValue>(c)) {
        add(const_cast<llvm::GlobalValue *>(value));
        continue;
      }
      for (const llvm::Use &operand : c->operands())
        if (auto *inner = llvm::dyn_cast<llvm::Constant>(operand.get())) constants.push_back(inner);
    }
  };
  while (!work.empty()) {
    llvm::GlobalValue *value = work.back();
    work.pop_back();
    if (llvm::Error e = value->materialize()) return llvm::toString(std::move(e));
    if (auto *function = llvm::dyn_cast<llvm::Function>(value)) {
      if (function->hasPersonalityFn()) scan(function->getPersonalityFn());
      if (function->hasPrefixData()) scan(function->getPrefixData());
      if (function->hasPrologueData()) scan(function->getPrologueData());
      for (const llvm::Instruction &inst : llvm::instructions(*function))
        for (const llvm::Use &operand : inst.operands())
          if (auto *c = llvm::dyn_cast<llvm::Constant>(operand.get())) scan(c);
    } else if (auto *variable = llvm::dyn_cast<llvm::GlobalVariable>(value)) {
      if (variable->hasInitializer()) scan(variable->getInitializer());
    } else if (auto *alias = llvm::dyn_cast<llvm::GlobalAlias>(value)) {
      scan(alias->getAliasee());
    }
  }
  return {};
}

// Links each library (LinkOnlyNeeded, then internalized) after merging Clang's attributes.
std::string linkAll(clang::CompilerInstance &ci, const std::vector<std::string> &libraries, llvm::Module &module,
                    LinkerDiagnostics &linker) {
  for (const std::string &path : libraries) {
    auto buffer = ci.getFileManager().getBufferForFile(path);
    if (!buffer) return "cannot read the device library '" + path + "': " + buffer.getError().message();
    llvm::Expected<std::unique_ptr<llvm::Module>> library =
        llvm::getOwningLazyBitcodeModule(std::move(*buffer), module.getContext());
    if (!library) return "cannot load the device library '" + path + "': " + llvm::toString(library.takeError());
    // A comdat links as a whole and an ifunc hides its target: for those, Clang's way (all).
    bool followable =
        (*library)->ifunc_empty() &&
        llvm::none_of((*library)->global_values(), [](const llvm::GlobalValue &v) { return v.hasComdat(); });
    if (!followable) {
      for (llvm::Function &function : **library)
        if (!function.isIntrinsic()) mergeClangAttributes(function, ci);
    } else if (std::string error = mergeReachable(**library, module, ci); !error.empty()) {
      return "cannot load the device library '" + path + "': " + error;
    }
    linker.current = (*library)->getModuleIdentifier();
    bool failed = llvm::Linker::linkModules(module, std::move(*library), llvm::Linker::Flags::LinkOnlyNeeded,
                                            [](llvm::Module &linked, const llvm::StringSet<> &names) {
                                              llvm::internalizeModule(linked, [&names](const llvm::GlobalValue &value) {
                                                return !value.hasName() || names.count(value.getName()) == 0;
                                              });
                                            });
    if (failed) return linker.errors.empty() ? "cannot link the device library '" + path + "'" : linker.errors.front();
  }
  return {};
}

}  // namespace

std::string linkDeviceLibraries(clang::CompilerInstance &ci, const std::vector<std::string> &libraries,
                                llvm::Module &module, std::vector<std::string> &warnings) {
  llvm::LLVMContext &context = module.getContext();
  std::unique_ptr<llvm::DiagnosticHandler> previous = context.getDiagnosticHandler();
  auto owned = std::make_unique<LinkerDiagnostics>();
  LinkerDiagnostics &linker = *owned;
  context.setDiagnosticHandler(std::move(owned));
  std::string error = linkAll(ci, libraries, module, linker);
  context.setDiagnosticHandler(std::move(previous));
  warnings = std::move(linker.warnings);
  if (error.empty() && !linker.errors.empty()) error = linker.errors.front();
  return error;
}

}  // namespace hrx::cxx
