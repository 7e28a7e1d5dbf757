#include "lower/LoweringImpl.h"

namespace hrx::bridge {
Lowering::Lowering(const Program &program, llvm::Module &module, diag::DiagnosticEngine &diags, std::string targetName,
                   LoweringOptions options)
    : impl_(std::make_unique<Impl>(program, module, diags, std::move(targetName), options)) {}
Lowering::~Lowering() = default;

llvm::Function *Lowering::function(const loom::Operation &funcDef) { return impl_->function(funcDef); }
llvm::Function *Lowering::kernelItem(const loom::Operation &kernelDef, const KernelCoordinates &coordinates) {
  return impl_->kernelItem(kernelDef, coordinates);
}
bool Lowering::hasBarriers(const loom::Operation &kernelDef) {
  bool found = false;
  if (kernelDef.numRegions() > 1)
    for (const loom::Block *block : kernelDef.region(1)->blocks())
      for (const loom::Operation &op : *block)
        op.walk([&](const loom::Operation &inner) {
          found |= Impl::isBarrier(inner) || Impl::isGroupReduce(inner) || Impl::isExchange(inner);
        });
  return found;
}
// Functions and providers the kernel calls count as its body: their barriers, fragments and
// lane collectives run in the kernel (lowered in its context, Impl::function).
bool Lowering::needsCooperativeTwin(const loom::Operation &kernelDef) const {
  if (kernelDef.numRegions() < 2) return false;
  const loom::Region &body = *kernelDef.region(1);
  bool sync = false, nestedSync = false, fragments = false, workgroupMemory = false, dynamicStorage = false;
  std::set<const loom::Operation *> visited;
  std::function<void(const loom::Operation &, bool)> visit = [&](const loom::Operation &top, bool inCallee) {
    top.walk([&](const loom::Operation &inner) {
      bool isSync = Impl::isBarrier(inner) || Impl::isGroupReduce(inner) || Impl::isExchange(inner);
      sync |= isSync;
      nestedSync |= isSync && (inCallee || &inner != &top);
      fragments |= inner.opcode() == loom::OpCode::VectorMma || inner.opcode() == loom::OpCode::VectorFragmentRepack ||
                   Impl::isLaneCollective(inner);
      workgroupMemory |= inner.opcode() == loom::OpCode::BufferAlloca && ir::allocaSpace(inner) == "workgroup";
      dynamicStorage |= inner.opcode() == loom::OpCode::KernelWorkgroupStorage;
      for (const loom::Operation *callee : impl_->kernelCallees(inner))
        if (visited.insert(callee).second && callee->numRegions())
          for (const loom::Block *block : callee->region(0)->blocks())
            for (const loom::Operation &op : *block) visit(op, true);
    });
  };
  for (const loom::Block *block : body.blocks())
    for (const loom::Operation &op : *block) visit(op, false);
  return nestedSync || fragments || dynamicStorage || (workgroupMemory && !sync) || (sync && body.blocks().size() > 1);
}
bool Lowering::hasDynamicWorkgroupStorage(const loom::Operation &kernelDef) {
  const loom::Region *config = kernelDef.numRegions() ? kernelDef.region(0) : nullptr;
  if (!config || config->empty()) return false;
  for (const loom::Block *block : config->blocks())
    for (const loom::Operation &op : *block)
      if (op.opcode() == loom::OpCode::KernelLaunchConfig && !op.operandGroup("dynamic_workgroup_storage").empty())
        return true;
  return false;
}
uint64_t Lowering::subgroupSize(const loom::Operation &kernelDef) const { return impl_->subgroupSize(kernelDef); }
const loom::Operation *Lowering::targetRecord(const Program &program, const loom::Operation &kernelDef) {
  const loom::Attribute *targetRef = kernelDef.attr("target");
  const SymbolEntry *kernel = program.lookup(kernelDef.symbolName());
  return targetRef && kernel && kernel->module ? kernel->module->lookupSymbol(targetRef->str()) : nullptr;
}
std::optional<Lowering::KernelPhases> Lowering::kernelPhases(const loom::Operation &kernelDef,
                                                             const KernelCoordinates &coordinates) {
  return impl_->kernelPhases(kernelDef, coordinates);
}
llvm::Function *Lowering::kernelConfig(const loom::Operation &kernelDef) { return impl_->kernelConfig(kernelDef); }

std::vector<unsigned> Lowering::cxxWorkloadBits(const cxx::Signature &kernel) {
  return kernel.workgroupCount ? std::vector<unsigned>{} : std::vector<unsigned>{64};
}

std::array<uint32_t, 3> Lowering::cxxWorkgroupSize(const cxx::Signature &kernel) {
  return kernel.workgroupSize.value_or(std::array<uint32_t, 3>{kernel.maxWorkgroupSize.value_or(256), 1, 1});
}

llvm::Function *Lowering::kernelConfig(const cxx::Signature &kernel) {
  llvm::Module &module = impl_->module();
  std::string name = "loom.cxx." + kernel.symbol + ".config";
  if (llvm::Function *f = module.getFunction(name)) return f;
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *i64 = llvm::Type::getInt64Ty(context);
  std::vector<llvm::Type *> params(cxxWorkloadBits(kernel).size(), i64);
  auto *f = llvm::Function::Create(llvm::FunctionType::get(llvm::ArrayType::get(i64, 7), params, false),
                                   llvm::GlobalValue::InternalLinkage, name, module);
  f->addFnAttr(llvm::Attribute::AlwaysInline);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", f));
  std::array<uint32_t, 3> size = cxxWorkgroupSize(kernel);
  std::array<llvm::Value *, 3> groups;
  if (kernel.workgroupCount) {
    for (unsigned d = 0; d < 3; ++d) groups[d] = b.getInt64((*kernel.workgroupCount)[d]);
  } else {
    llvm::Value *items = f->getArg(0);
    llvm::Value *width = b.getInt64(size[0]);
    llvm::Value *partial = b.CreateZExt(b.CreateICmpNE(b.CreateURem(items, width), b.getInt64(0)), i64);
    groups = {b.CreateAdd(b.CreateUDiv(items, width), partial), b.getInt64(1), b.getInt64(1)};
  }
  llvm::Value *result = llvm::PoisonValue::get(f->getReturnType());
  for (unsigned d = 0; d < 3; ++d) {
    result = b.CreateInsertValue(result, groups[d], d);
    result = b.CreateInsertValue(result, b.getInt64(size[d]), 3 + d);
  }
  result = b.CreateInsertValue(result, b.getInt64(0), kLaunchStorageElement);
  b.CreateRet(result);
  return f;
}
llvm::Type *Lowering::parameterType(const loom::Type &type) { return impl_->valueType(type, nullptr); }
bool Lowering::failed() const { return impl_->failed(); }
std::optional<Lowering::HostUnavailable> Lowering::hostUnavailableReason(const llvm::Function &root) const {
  return impl_->hostUnavailableReason(root);
}

}  // namespace hrx::bridge
