#include "hrx/bridge/Builtins.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

namespace hrx::bridge {
namespace {

const unsigned char kNumericsBitcode[] = {
#include "Numerics.x86_64.bc.inc"
};

llvm::Expected<std::unique_ptr<llvm::Module>> loadNumerics(llvm::LLVMContext &context) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(kNumericsBitcode), sizeof kNumericsBitcode);
  return llvm::parseBitcodeFile(llvm::MemoryBufferRef(bytes, "hrx-numerics"), context);
}

bool isBuiltin(llvm::StringRef name) { return name.starts_with("__hrx_"); }

}  // namespace

llvm::Function *declareBuiltin(llvm::Module &module, llvm::StringRef name) {
  if (llvm::Function *existing = module.getFunction(name)) return existing;
  llvm::Expected<std::unique_ptr<llvm::Module>> numerics = loadNumerics(module.getContext());
  if (!numerics) {
    llvm::consumeError(numerics.takeError());
    return nullptr;
  }
  llvm::Function *definition = (*numerics)->getFunction(name);
  if (!definition) return nullptr;
  return llvm::Function::Create(definition->getFunctionType(), llvm::GlobalValue::ExternalLinkage, name, module);
}

bool linkBuiltins(llvm::Module &module, std::string &error) {
  bool needed = false;
  for (llvm::Function &f : module) needed |= f.isDeclaration() && isBuiltin(f.getName());
  if (!needed) return true;
  llvm::Expected<std::unique_ptr<llvm::Module>> numerics = loadNumerics(module.getContext());
  if (!numerics) {
    error = llvm::toString(numerics.takeError());
    return false;
  }
  (*numerics)->setDataLayout(module.getDataLayout());
  (*numerics)->setTargetTriple(module.getTargetTriple());
  for (llvm::Function &f : **numerics) {
    // Vector variants keep their ISA; Numerics.c calls them only after checking the CPU.
    if (f.getName().ends_with("_avx512")) continue;
    f.removeFnAttr("target-cpu");
    f.removeFnAttr("target-features");
    f.removeFnAttr("tune-cpu");
  }
  if (llvm::Linker::linkModules(module, std::move(*numerics), llvm::Linker::LinkOnlyNeeded)) {
    error = "cannot link the numeric builtins";
    return false;
  }
  for (llvm::Function &f : module)
    if (isBuiltin(f.getName()) && !f.isDeclaration()) f.setLinkage(llvm::GlobalValue::InternalLinkage);
  return true;
}

}  // namespace hrx::bridge
