// Wide vector copies and constant fills as memcpy/memset, and wide lane-wise arithmetic split into
// x-register pieces, for the AIE2P selector (see Aie2pCopies.h).
#include "Aie2pCopies.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <algorithm>
#include <map>
#include <set>
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

// The lanes of one x register of element type `e` (0: none).
unsigned registerLanes(llvm::Type *e) {
  unsigned bits = e->isFloatTy() ? 32 : e->isIntegerTy() ? e->getIntegerBitWidth() : 0;
  return bits == 8 || bits == 16 || bits == 32 ? 512 / bits : 0;
}

bool laneWise(const llvm::Instruction &i) {
  switch (i.getOpcode()) {
  case llvm::Instruction::FAdd:
  case llvm::Instruction::FSub: return i.getType()->getScalarType()->isFloatTy();
  case llvm::Instruction::Add:
  case llvm::Instruction::Sub:
  case llvm::Instruction::And:
  case llvm::Instruction::Or:
  case llvm::Instruction::Xor: return i.getType()->getScalarType()->isIntegerTy();
  default: return false;
  }
}

// The instructions computing a wide store's value, when they are loads and lane-wise arithmetic
// used only inside the tree; empty when the value has another shape.
std::vector<llvm::Instruction *> wideTree(llvm::StoreInst *store) {
  std::vector<llvm::Instruction *> order;
  std::set<llvm::Instruction *> seen;
  bool ok = true;
  auto visit = [&](auto &self, llvm::Value *v) -> void {
    if (!ok || llvm::isa<llvm::Constant>(v)) return;
    auto *i = llvm::dyn_cast<llvm::Instruction>(v);
    if (!i || i->getParent() != store->getParent()) {
      ok = false;
      return;
    }
    if (seen.count(i)) return;
    if (auto *load = llvm::dyn_cast<llvm::LoadInst>(i)) {
      ok = load->isSimple() && nothingWritesBetween(load, store);
    } else if (laneWise(*i)) {
      for (llvm::Value *operand : i->operands()) self(self, operand);
    } else {
      ok = false;
    }
    seen.insert(i);
    order.push_back(i);  // operands first
  };
  visit(visit, store->getValueOperand());
  // A plain copy is lowerMemoryCopiesForAie2p's (a word loop, no registers).
  if (std::none_of(order.begin(), order.end(), [](llvm::Instruction *i) { return laneWise(*i); })) ok = false;
  for (llvm::Instruction *i : order)
    for (llvm::User *user : i->users())
      if (user != store && !seen.count(llvm::dyn_cast<llvm::Instruction>(user))) ok = false;
  return ok ? order : std::vector<llvm::Instruction *>{};
}

}  // namespace

void splitWideVectorsForAie2p(llvm::Function &f) {
  std::vector<llvm::StoreInst *> stores;
  for (llvm::BasicBlock &block : f)
    for (llvm::Instruction &i : block)
      if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&i); store && store->isSimple())
        if (auto *v = llvm::dyn_cast<llvm::FixedVectorType>(store->getValueOperand()->getType())) {
          unsigned lanes = registerLanes(v->getElementType());
          if (lanes && v->getNumElements() > lanes && v->getNumElements() % lanes == 0) stores.push_back(store);
        }
  for (llvm::StoreInst *store : stores) {
    std::vector<llvm::Instruction *> tree = wideTree(store);
    if (tree.empty()) continue;
    auto *wide = llvm::cast<llvm::FixedVectorType>(store->getValueOperand()->getType());
    unsigned lanes = registerLanes(wide->getElementType());
    unsigned pieces = wide->getNumElements() / lanes;
    llvm::IRBuilder<> b(store);
    auto slice = [&](llvm::Value *pointer, llvm::Align align, unsigned piece) {
      llvm::Value *at = b.CreateConstInBoundsGEP1_32(b.getInt8Ty(), pointer, piece * 64);
      return std::pair(at, llvm::commonAlignment(align, piece * 64));
    };
    std::vector<llvm::Value *> results;
    for (unsigned piece = 0; piece < pieces; ++piece) {
      std::map<llvm::Value *, llvm::Value *> part;
      auto partOf = [&](llvm::Value *v) -> llvm::Value * {
        if (auto it = part.find(v); it != part.end()) return it->second;
        llvm::SmallVector<int, 64> mask;
        for (unsigned lane = 0; lane < lanes; ++lane) mask.push_back(int(piece * lanes + lane));
        return b.CreateShuffleVector(v, mask);  // a constant's piece (folded)
      };
      auto *narrow = llvm::FixedVectorType::get(wide->getElementType(), lanes);
      for (llvm::Instruction *i : tree) {
        llvm::Value *value;
        if (auto *load = llvm::dyn_cast<llvm::LoadInst>(i)) {
          auto [at, align] = slice(load->getPointerOperand(), load->getAlign(), piece);
          auto *l = b.CreateAlignedLoad(narrow, at, align);
          l->copyMetadata(*load, {llvm::LLVMContext::MD_noalias, llvm::LLVMContext::MD_alias_scope});
          value = l;
        } else {
          auto *bin = llvm::cast<llvm::BinaryOperator>(i);
          value = b.CreateBinOp(bin->getOpcode(), partOf(bin->getOperand(0)), partOf(bin->getOperand(1)));
          if (auto *made = llvm::dyn_cast<llvm::Instruction>(value)) made->copyIRFlags(bin);
        }
        part[i] = value;
      }
      results.push_back(partOf(store->getValueOperand()));
    }
    for (unsigned piece = 0; piece < pieces; ++piece) {
      auto [at, align] = slice(store->getPointerOperand(), store->getAlign(), piece);
      b.CreateAlignedStore(results[piece], at, align);
    }
    store->eraseFromParent();
    for (auto it = tree.rbegin(); it != tree.rend(); ++it) (*it)->eraseFromParent();
  }
}

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
