// Lowering of the llvmir dialect, LLVM's own constructs passed through on LLVM targets:
// llvmir.intrinsic<llvm.NAME> is a call of the intrinsic (overloads resolved from the written
// types, as LLVM's verifier would check them), llvmir.inline_asm an inline-asm call whose
// constraints LLVM's InlineAsm::verify accepts. A target intrinsic of another architecture is a
// located LINK/040; in the host twin of a GPU compile, GPU-only constructs leave the kernel out
// of the twin (LINK/045) instead.
#include "LoweringImpl.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/Support/Error.h>

namespace hrx::bridge {
namespace {

std::string describe(llvm::Type *type) {
  std::string out;
  llvm::raw_string_ostream os(out);
  type->print(os);
  return out;
}

}  // namespace

llvm::FunctionType *Lowering::Impl::llvmIrSignature(const Operation &op, std::vector<llvm::Value *> &args) {
  std::vector<llvm::Type *> params, results;
  for (unsigned i = 0; i < op.numOperands(); ++i) {
    args.push_back(get(op.operand(i)));
    params.push_back(args.back()->getType());
  }
  for (unsigned r = 0; r < op.numResults(); ++r) results.push_back(valueType(*op.result(r)->type(), &op));
  llvm::Type *ret = results.empty()       ? llvm::Type::getVoidTy(context_)
                    : results.size() == 1 ? results[0]
                                          : llvm::StructType::get(context_, results);
  return llvm::FunctionType::get(ret, params, false);
}

void Lowering::Impl::setLlvmIrResults(const Operation &op, llvm::Value *call) {
  for (unsigned r = 0; r < op.numResults(); ++r)
    set(op, r, op.numResults() == 1 ? call : b_->CreateExtractValue(call, r));
}

bool Lowering::Impl::inGpuHostTwin() const {
  return options_.targetFamily == "host" && options_.providerFamily == "amdgpu";
}

void Lowering::Impl::lowerLlvmIr(const Operation &op) {
  if (op.opcode() == loom::OpCode::LlvmirIntrinsic) return lowerLlvmIntrinsic(op);
  if (inGpuHostTwin())
    return markHostUnavailable(op, "llvmir.inline_asm in a GPU compile is GPU assembly, which has no CPU meaning");
  std::vector<llvm::Value *> args;
  llvm::FunctionType *type = llvmIrSignature(op, args);
  const loom::Attribute *text = op.attr("asm_template"), *constraints = op.attr("constraints");
  if (!text || !constraints) unsupported(op, "the asm template or its constraints are missing");
  if (llvm::Error error = llvm::InlineAsm::verify(type, constraints->str()))
    unsupported(op, "LLVM rejects the constraints \"" + std::string(constraints->str()) +
                        "\" for this signature: " + llvm::toString(std::move(error)));
  bool sideEffects = false, alignStack = false, intel = false;
  for (std::string_view f : templateFlags(op)) {
    sideEffects |= f == "sideeffect";
    alignStack |= f == "alignstack";
    intel |= f == "inteldialect";
  }
  auto *asmCall = llvm::InlineAsm::get(type, text->str(), constraints->str(), sideEffects, alignStack,
                                       intel ? llvm::InlineAsm::AD_Intel : llvm::InlineAsm::AD_ATT);
  setLlvmIrResults(op, b_->CreateCall(asmCall, args));
}

void Lowering::Impl::lowerLlvmIntrinsic(const Operation &op) {
  auto params = op.templateParams();
  std::string name = params.empty() ? "" : std::string(params[0]->str());
  llvm::Intrinsic::ID id = llvm::Intrinsic::lookupIntrinsicID(name);
  if (id == llvm::Intrinsic::not_intrinsic) unsupported(op, "LLVM has no intrinsic named '" + name + "'");
  const llvm::Triple &triple = module_.getTargetTriple();
  if (llvm::Intrinsic::isTargetIntrinsic(id)) {
    std::string_view arch = std::string_view(name).substr(5);  // after "llvm."
    arch = arch.substr(0, arch.find('.'));
    std::string_view own = llvm::Triple::getArchTypePrefix(triple.getArch());
    if (arch != own) {
      if (inGpuHostTwin() && arch == "amdgcn")
        return markHostUnavailable(op, "the amdgcn intrinsic " + name + " has no CPU meaning");
      unsupported(op, name + " is a target intrinsic of " + std::string(arch) + "; this target is " +
                          triple.getArchName().str());
    }
  }
  std::vector<llvm::Value *> args;
  llvm::FunctionType *type = llvmIrSignature(op, args);
  llvm::SmallVector<llvm::Intrinsic::IITDescriptor, 8> table;
  llvm::Intrinsic::getIntrinsicInfoTableEntries(id, table);
  llvm::ArrayRef<llvm::Intrinsic::IITDescriptor> rest = table;
  llvm::SmallVector<llvm::Type *, 4> overloads;
  if (llvm::Intrinsic::matchIntrinsicSignature(type, rest, overloads) != llvm::Intrinsic::MatchIntrinsicTypes_Match ||
      llvm::Intrinsic::matchIntrinsicVarArg(type->isVarArg(), rest))
    unsupported(op, "the written signature " + describe(type) + " is not one of " + name + "'s");
  llvm::Function *callee = llvm::Intrinsic::getOrInsertDeclaration(&module_, id, overloads);
  for (unsigned i = 0; i < args.size(); ++i)
    if (callee->hasParamAttribute(i, llvm::Attribute::ImmArg) &&
        !llvm::isa<llvm::ConstantInt, llvm::ConstantFP>(args[i]))
      unsupported(op, "operand " + std::to_string(i) + " of " + name + " must be a constant (LLVM's immarg)");
  setLlvmIrResults(op, b_->CreateCall(callee, args));
}

}  // namespace hrx::bridge
