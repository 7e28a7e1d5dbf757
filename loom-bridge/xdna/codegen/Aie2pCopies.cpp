// Wide vector copies and constant fills as memcpy/memset for the AIE2P selector (see Aie2pCopies.h).
#include "Aie2pCopies.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <vector>

namespace hrx::xdna {
namespace {

// The vectors the selector keeps in one x register (Aie2pCodegen.cpp's laneBits).
bool heldInRegister(llvm::Type *t) {
  auto *v = llvm::dyn_cast<llvm::FixedVectorType>(t);
  if (!v) return true;  // not a vector: not ours
  llvm::Type *e = v->getElementType();
  unsigned bits = e->isFloatTy() ? 32 : e->isIntegerTy() ? e->getIntegerBitWidth() : 0;
  return (bits == 8 || bits == 16 || bits == 32) && bits * v->getNumElements() == 512;
}

// Whole words at word-aligned addresses: what the selector's word loop moves.
bool wholeWords(const llvm::DataLayout &layout, llvm::Type *t, llvm::Align a, llvm::Align b) {
  uint64_t bytes = layout.getTypeStoreSize(t).getFixedValue();
  return bytes > 0 && bytes % 4 == 0 && layout.getTypeAllocSize(t).getFixedValue() == bytes && a.value() >= 4 &&
         b.value() >= 4;
}

// No instruction strictly between `from` (a load) and `to` (same block, `from` first) may write
// the loaded memory: each write is a store, memset or memcpy into a stack slot other than the
// load's object (an earlier copy this pass made, for instance).
bool nothingWritesBetween(llvm::LoadInst *from, llvm::Instruction *to) {
  const llvm::Value *source = llvm::getUnderlyingObject(from->getPointerOperand());
  auto otherStackSlot = [&](llvm::Value *pointer) {
    const llvm::Value *object = llvm::getUnderlyingObject(pointer);
    return object != source && llvm::isa<llvm::AllocaInst>(object);
  };
  for (llvm::Instruction *i = from->getNextNode(); i && i != to; i = i->getNextNode()) {
    if (!i->mayWriteToMemory()) continue;
    if (auto *store = llvm::dyn_cast<llvm::StoreInst>(i); store && otherStackSlot(store->getPointerOperand())) continue;
    if (auto *fill = llvm::dyn_cast<llvm::MemIntrinsic>(i); fill && otherStackSlot(fill->getDest())) continue;
    return false;
  }
  return true;
}

// The two areas are different objects and one of them is a stack slot: they cannot overlap.
bool disjoint(llvm::Value *dst, llvm::Value *src) {
  const llvm::Value *d = llvm::getUnderlyingObject(dst), *s = llvm::getUnderlyingObject(src);
  return d != s && (llvm::isa<llvm::AllocaInst>(d) || llvm::isa<llvm::AllocaInst>(s));
}

}  // namespace

void lowerMemoryCopiesForAie2p(llvm::Function &f) {
  const llvm::DataLayout &layout = f.getParent()->getDataLayout();
  std::vector<llvm::StoreInst *> stores;
  for (llvm::BasicBlock &block : f)
    for (llvm::Instruction &i : block)
      if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&i);
          store && store->isSimple() && !heldInRegister(store->getValueOperand()->getType()))
        stores.push_back(store);
  for (llvm::StoreInst *store : stores) {
    llvm::Value *value = store->getValueOperand();
    llvm::Type *type = value->getType();
    llvm::IRBuilder<> b(store);
    llvm::Value *bytes = b.getInt32(uint32_t(layout.getTypeStoreSize(type).getFixedValue()));
    if (auto *constant = llvm::dyn_cast<llvm::Constant>(value)) {
      llvm::Value *fill = llvm::isBytewiseValue(constant, layout);
      if (!fill || !llvm::isa<llvm::ConstantInt>(fill) || !wholeWords(layout, type, store->getAlign(), llvm::Align(4)))
        continue;
      b.CreateMemSet(store->getPointerOperand(), fill, bytes, store->getAlign());
      store->eraseFromParent();
      continue;
    }
    auto *load = llvm::dyn_cast<llvm::LoadInst>(value);
    if (!load || !load->isSimple() || !load->hasOneUse() || load->getParent() != store->getParent() ||
        !load->comesBefore(store) || !nothingWritesBetween(load, store) ||
        !wholeWords(layout, type, load->getAlign(), store->getAlign()) ||
        !disjoint(store->getPointerOperand(), load->getPointerOperand()))
      continue;
    b.CreateMemCpy(store->getPointerOperand(), store->getAlign(), load->getPointerOperand(), load->getAlign(), bytes);
    store->eraseFromParent();
    load->eraseFromParent();
  }
}

}  // namespace hrx::xdna
