#include "hrx/bridge/Builtins.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

#include <map>

namespace hrx::bridge {
namespace {

const unsigned char kNumericsBitcode[] = {
#include "Numerics.x86_64.bc.inc"
};

// Lazily: a module uses a few of the library's functions, and the linker materializes only those
// (parsing every body cost a small kernel's host twin a tenth of its compile).
llvm::Expected<std::unique_ptr<llvm::Module>> loadNumerics(llvm::LLVMContext &context) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(kNumericsBitcode), sizeof kNumericsBitcode);
  return llvm::getLazyBitcodeModule(llvm::MemoryBufferRef(bytes, "hrx-numerics"), context);
}

bool isBuiltin(llvm::StringRef name) { return name.starts_with("__hrx_"); }

// Whether no instruction strictly between `from` and `to` (one block, `from` first) writes
// memory, or with `reads` reads it, other than simple stores into stack slots other than `keep`.
bool quietBetween(llvm::Instruction *from, llvm::Instruction *to, const llvm::Value *keep, bool reads) {
  if (from->getParent() != to->getParent() || !from->comesBefore(to)) return false;
  for (llvm::Instruction *i = from->getNextNode(); i != to; i = i->getNextNode()) {
    if (reads && i->mayReadFromMemory()) return false;
    if (!i->mayWriteToMemory()) continue;
    auto *store = llvm::dyn_cast<llvm::StoreInst>(i);
    const llvm::Value *object = store ? llvm::getUnderlyingObject(store->getPointerOperand()) : nullptr;
    if (!store || !store->isSimple() || !llvm::isa<llvm::AllocaInst>(object) || object == keep) return false;
  }
  return true;
}

// Makes `value` available at `point`: an instruction after it in its block that computes
// without memory or side effects (an address) moves before it, with its operands.
bool availableAt(llvm::Value *value, llvm::Instruction *point, unsigned depth = 0) {
  auto *inst = llvm::dyn_cast<llvm::Instruction>(value);
  if (!inst) return true;
  if (inst->getParent() != point->getParent()) return inst->getParent()->isEntryBlock();
  if (inst->comesBefore(point)) return true;
  if (depth > 4 || llvm::isa<llvm::PHINode>(inst) || inst->mayReadOrWriteMemory() || inst->mayHaveSideEffects())
    return false;
  for (llvm::Value *operand : inst->operands())
    if (!availableAt(operand, point, depth + 1)) return false;
  inst->moveBefore(point->getIterator());
  return true;
}

// A stack slot whose only users are `besides` and one simple store into it: that store.
llvm::StoreInst *onlyStoreInto(llvm::AllocaInst *slot, llvm::User *besides) {
  llvm::StoreInst *only = nullptr;
  for (llvm::User *user : slot->users()) {
    if (user == besides) continue;
    auto *store = llvm::dyn_cast<llvm::StoreInst>(user);
    if (!store || only || !store->isSimple() || store->getPointerOperand() != slot) return nullptr;
    only = store;
  }
  return only;
}

// The operands (0 lhs, 1 rhs, 2 acc) a fused MMA reads through slots; `constants` holds the
// globals made for constant operands so far.
bool forwardOperand(llvm::CallInst &mma, unsigned arg, std::map<llvm::Constant *, llvm::GlobalVariable *> &constants) {
  auto *slot = llvm::dyn_cast<llvm::AllocaInst>(mma.getArgOperand(arg));
  if (!slot || slot->getNumUses() != 2) return false;
  llvm::StoreInst *store = onlyStoreInto(slot, &mma);
  if (!store || store->getParent() != mma.getParent() || !store->comesBefore(&mma)) return false;
  llvm::Value *stored = store->getValueOperand();
  llvm::Value *source = nullptr;
  if (auto *constant = llvm::dyn_cast<llvm::Constant>(stored)) {
    llvm::GlobalVariable *&global = constants[constant];
    if (!global) {
      global = new llvm::GlobalVariable(*mma.getModule(), constant->getType(), /*isConstant=*/true,
                                        llvm::GlobalValue::PrivateLinkage, constant, "hrx.mma.constant");
      global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
      global->setAlignment(llvm::Align(64));
    }
    source = global;
  } else if (auto *load = llvm::dyn_cast<llvm::LoadInst>(stored)) {
    if (load->isSimple() &&
        quietBetween(load, &mma, llvm::getUnderlyingObject(load->getPointerOperand()), /*reads=*/false))
      source = load->getPointerOperand();
  }
  if (!source) return false;
  mma.setArgOperand(arg, source);
  store->eraseFromParent();
  slot->eraseFromParent();
  if (auto *load = llvm::dyn_cast<llvm::LoadInst>(stored); load && load->use_empty()) load->eraseFromParent();
  return true;
}

// The result slot (arg 3), loaded once and stored once.
bool forwardResult(llvm::CallInst &mma) {
  auto *out = llvm::dyn_cast<llvm::AllocaInst>(mma.getArgOperand(3));
  if (!out || out->getNumUses() != 2) return false;
  llvm::LoadInst *result = nullptr;
  for (llvm::User *user : out->users())
    if (user != &mma) result = llvm::dyn_cast<llvm::LoadInst>(user);
  if (!result || !result->isSimple() || !result->hasOneUse() || result->getPointerOperand() != out) return false;
  auto *store = llvm::dyn_cast<llvm::StoreInst>(result->user_back());
  if (!store || !store->isSimple() || store->getValueOperand() != result) return false;
  if (!quietBetween(&mma, result, nullptr, /*reads=*/true) || !quietBetween(result, store, nullptr, /*reads=*/true))
    return false;
  llvm::Value *target = store->getPointerOperand();
  if (!availableAt(target, &mma)) return false;
  mma.setArgOperand(3, target);
  store->eraseFromParent();
  result->eraseFromParent();
  out->eraseFromParent();
  return true;
}

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

unsigned forwardFusedMmaSlots(llvm::Module &module) {
  llvm::Function *fused = module.getFunction(kBfpMmaBf16);
  if (!fused) return 0;
  std::vector<llvm::CallInst *> calls;
  for (llvm::User *user : fused->users())
    if (auto *call = llvm::dyn_cast<llvm::CallInst>(user); call && call->getCalledFunction() == fused)
      calls.push_back(call);
  unsigned changed = 0;
  std::map<llvm::Constant *, llvm::GlobalVariable *> constants;
  for (llvm::CallInst *call : calls) {
    bool any = false;
    for (unsigned arg : {0u, 1u, 2u}) any |= forwardOperand(*call, arg, constants);
    any |= forwardResult(*call);
    changed += any;
  }
  return changed;
}

}  // namespace hrx::bridge
