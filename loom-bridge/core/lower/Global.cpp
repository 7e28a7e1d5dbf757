// Lowering of global.load and global.store: each global.constant / global.variable becomes one
// LLVM global of the module (address space 1, global memory, on AMDGPU; 0 on the host), holding
// its initializer or zero. Globals with dynamic dimensions (tiles, views) have no storage here.
#include "LoweringImpl.h"

namespace hrx::bridge {

using loom::OpCode;

llvm::GlobalVariable *Lowering::Impl::globalStorage(const Operation &access) {
  const loom::Attribute *ref = access.attr("global");
  const SymbolEntry *entry = ref ? program_.lookup(ref->str()) : nullptr;
  const Operation *decl = entry ? entry->op : nullptr;
  if (!decl || (decl->opcode() != OpCode::GlobalConstant && decl->opcode() != OpCode::GlobalVariable))
    unsupported(access, "the global is not defined in the program");
  const loom::Attribute *typeAttr = decl->attr("type");
  const loom::Type *type = typeAttr ? typeAttr->type() : nullptr;
  bool storable = type && (type->isScalar() || type->isAddress() ||
                           (type->kind() == loom::TypeKind::Vector && type->hasStaticShape()));
  if (!storable)
    unsupported(access, "only globals of scalar, index or static vector type have storage here (@" +
                            std::string(ref->str()) + " has type " + (type ? type->str() : "none") + ")");
  std::string name = "loom.global." + std::string(ref->str());
  if (llvm::GlobalVariable *g = module_.getNamedGlobal(name)) return g;
  llvm::Type *storage = valueType(*type, &access);
  llvm::Constant *init = llvm::Constant::getNullValue(storage);
  if (const loom::Attribute *v = decl->attr("initializer")) {
    llvm::Type *scalar = storage->getScalarType();
    if (scalar->isFloatingPointTy())
      init = llvm::ConstantFP::get(scalar, v->kind() == loom::AttrKind::Float ? v->floating() : double(v->integer()));
    else
      init = llvm::ConstantInt::get(
          scalar, v->kind() == loom::AttrKind::Bool ? uint64_t(v->boolean()) : uint64_t(v->integer()), true);
    if (auto *vt = llvm::dyn_cast<llvm::FixedVectorType>(storage))
      init = llvm::ConstantVector::getSplat(vt->getElementCount(), init);
  }
  // A constant without an initializer is written by its initializer function: keep it writable.
  bool readOnly = decl->opcode() == OpCode::GlobalConstant && decl->hasAttr("initializer");
  unsigned space = module_.getTargetTriple().isAMDGPU() ? 1 : 0;
  return new llvm::GlobalVariable(module_, storage, readOnly, llvm::GlobalValue::InternalLinkage, init, name, nullptr,
                                  llvm::GlobalValue::NotThreadLocal, space);
}

// A global.rodata.def's bytes: one private constant array (address space 4, constant memory, on
// AMDGPU), with the def's alignment; global.load of it is a buffer over them.
llvm::Value *Lowering::Impl::rodataBuffer(const Operation &access, const Operation &def) {
  if (def.opcode() != OpCode::GlobalRodataDef)
    unsupported(access,
                "the read-only payload @" + std::string(def.symbolName()) + " is declared but no input defines it");
  std::string name = "loom.rodata." + std::string(def.symbolName());
  llvm::GlobalVariable *g = module_.getNamedGlobal(name);
  if (!g) {
    std::string_view hex = def.attr("bytes") ? def.attr("bytes")->str() : std::string_view{};
    std::vector<uint8_t> bytes;
    for (size_t i = 0; i + 1 < hex.size(); i += 2)
      bytes.push_back(uint8_t(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
    llvm::Constant *init = llvm::ConstantDataArray::get(context_, bytes);
    unsigned space = module_.getTargetTriple().isAMDGPU() ? 4 : 0;
    g = new llvm::GlobalVariable(module_, init->getType(), /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage, init,
                                 name, nullptr, llvm::GlobalValue::NotThreadLocal, space);
    const loom::Attribute *align = def.attr("align");
    g->setAlignment(llvm::Align(align && align->integer() > 0 ? uint64_t(align->integer()) : 1));
  }
  return b_->CreatePointerBitCastOrAddrSpaceCast(g, llvm::PointerType::getUnqual(context_));
}

void Lowering::Impl::lowerGlobal(const Operation &op) {
  llvm::IRBuilder<> &b = *b_;
  if (const loom::Attribute *ref = op.attr("global"); ref && op.opcode() == OpCode::GlobalLoad) {
    const SymbolEntry *entry = program_.lookup(ref->str());
    if (entry && entry->op &&
        (entry->op->opcode() == OpCode::GlobalRodataDef || entry->op->opcode() == OpCode::GlobalRodataDecl))
      return set(op, 0, rodataBuffer(op, *entry->op));
  }
  llvm::GlobalVariable *g = globalStorage(op);
  if (op.opcode() == OpCode::GlobalLoad) {
    if (op.numResults() != 1) unsupported(op, "a load with co-results needs a global with dynamic dimensions");
    set(op, 0, b.CreateLoad(g->getValueType(), g, std::string(op.result(0)->name())));
    return;
  }
  b.CreateStore(operand(op, "value"), g);
}

}  // namespace hrx::bridge
