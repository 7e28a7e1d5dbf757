// The AMDGPU target (gfx1151, gfx11-generic): every kernel.def export becomes an amdgpu_kernel in
// one HSACO (code object v5, linked in process by lld), with the executable manifest, the launch
// program, the contract, the identity and the host twin in non-loaded .hrx.* sections.
#include "hrx/amdgpu/CodeObjectInfo.h"
#include "hrx/bridge/ArtifactIdentity.h"
#include "hrx/bridge/Codegen.h"
#include "hrx/bridge/IrQueries.h"
#include "hrx/bridge/Lowering.h"
#include "hrx/bridge/TargetBackend.h"
#include "hrx/format/AmdgpuManifest.h"
#include "hrx/format/CompileReport.h"
#include "hrx/format/Elf64Writer.h"
#include "hrx/format/Fat.h"
#include "hrx/format/Identity.h"
#include "hrx/format/KernelContract.h"
#include "hrx/format/IdentityWriter.h"
#include "hrx/format/KernelContractWriter.h"
#include "hrx/format/ReportRender.h"

#include <llvm/Demangle/Demangle.h>
#include <llvm/IR/IntrinsicsAMDGPU.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/raw_ostream.h>

#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <algorithm>
#include <map>
#include <set>
#include <thread>

namespace hrx::bridge {
namespace {

constexpr const char *kAmdgpuTriple = "amdgcn-amd-amdhsa";
constexpr unsigned kGlobalAddressSpace = 1;
// Code object v5 is what ROCm 6 loaders accept everywhere; generic processors (gfx11-generic)
// exist only from v6 on, so they get v6.
unsigned codeObjectVersion(const Target &target) { return target.profile.ends_with("-generic") ? 600 : 500; }

constexpr unsigned kLocalAddressSpace = 3;
constexpr const char *kDynamicStorageName = "loom.dynamic_workgroup_storage";

// Work-item functions take no extra parameters: coordinates come from intrinsics and the
// code object v5 implicit kernel arguments (block counts at 0/4/8, group sizes at 12/14/16).
// Subgroups are waves; barriers, LDS and wave reductions are native.
class AmdgpuCoordinates final : public KernelCoordinates {
public:
  explicit AmdgpuCoordinates(unsigned waveSize) : wave_(waveSize) {}

  std::vector<llvm::Type *> leadingParameters(llvm::LLVMContext &) const override { return {}; }

  llvm::Value *coordinate(llvm::IRBuilder<> &b, llvm::Function &f, Coordinate kind, unsigned dim) const override {
    if (dim > 2) return nullptr;
    if (kind == Coordinate::WorkitemId) return itemId(b, dim);
    if (kind == Coordinate::WorkgroupId) return groupId(b, dim);
    if (kind == Coordinate::WorkgroupSize) return groupSize(b, dim);
    if (kind == Coordinate::WorkgroupCount) return implicitArg(b, 4 * dim, b.getInt32Ty());
    if (kind == Coordinate::WorkitemDispatchId)
      return b.CreateAdd(b.CreateMul(groupId(b, dim), groupSize(b, dim)), itemId(b, dim));
    if (kind == Coordinate::SubgroupSize) return b.getInt64(wave_);
    if (kind == Coordinate::SubgroupLaneId) {
      llvm::Value *lane = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_mbcnt_lo, {}, {b.getInt32(~0u), b.getInt32(0)});
      if (wave_ == 64) lane = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_mbcnt_hi, {}, {b.getInt32(~0u), lane});
      return b.CreateZExt(lane, b.getInt64Ty());
    }
    if (kind == Coordinate::SubgroupId) return b.CreateUDiv(linearItem(b), b.getInt64(wave_));
    if (kind == Coordinate::SubgroupCount) {
      llvm::Value *items = b.CreateMul(b.CreateMul(groupSize(b, 0), groupSize(b, 1)), groupSize(b, 2));
      return b.CreateUDiv(b.CreateAdd(items, b.getInt64(wave_ - 1)), b.getInt64(wave_));
    }
    return nullptr;
  }

  bool barrier(llvm::IRBuilder<> &b) const override {
    llvm::SyncScope::ID workgroup = b.getContext().getOrInsertSyncScopeID("workgroup");
    b.CreateFence(llvm::AtomicOrdering::Release, workgroup);
    b.CreateIntrinsic(llvm::Intrinsic::amdgcn_s_barrier, {});
    b.CreateFence(llvm::AtomicOrdering::Acquire, workgroup);
    return true;
  }

  // LDS: one addrspace(3) global per allocation (its size is in .group_segment_fixed_size).
  llvm::Value *workgroupStorage(llvm::IRBuilder<> &b, uint64_t bytes, uint64_t alignment) const override {
    llvm::Module &module = *b.GetInsertBlock()->getModule();
    auto *type = llvm::ArrayType::get(b.getInt8Ty(), bytes);
    auto *storage =
        new llvm::GlobalVariable(module, type, false, llvm::GlobalValue::InternalLinkage, llvm::PoisonValue::get(type),
                                 "lds", nullptr, llvm::GlobalValue::NotThreadLocal, kLocalAddressSpace);
    storage->setAlignment(llvm::Align(alignment));
    return b.CreateAddrSpaceCast(storage, b.getPtrTy());
  }

  // Dynamic LDS: a zero-length external addrspace(3) array (HIP's extern __shared__), which the
  // code generator places after the fixed LDS; the dispatch packet's group_segment_size grants it.
  llvm::Value *dynamicWorkgroupStorage(llvm::IRBuilder<> &b, uint64_t alignment) const override {
    llvm::Module &module = *b.GetInsertBlock()->getModule();
    auto *type = llvm::ArrayType::get(b.getInt8Ty(), 0);
    llvm::GlobalVariable *storage = module.getGlobalVariable(kDynamicStorageName, true);
    if (!storage)
      storage =
          new llvm::GlobalVariable(module, type, false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                   kDynamicStorageName, nullptr, llvm::GlobalValue::NotThreadLocal, kLocalAddressSpace);
    storage->setAlignment(llvm::Align(std::max<uint64_t>(alignment, storage->getAlign().valueOrOne().value())));
    return b.CreateAddrSpaceCast(storage, b.getPtrTy());
  }

  // llvm.amdgcn.wave.reduce.* over the active lanes: 32- and 64-bit integers (narrower ones
  // widened, which is exact for every integer kind) and f32.
  llvm::Value *subgroupReduce(llvm::IRBuilder<> &b, std::string_view kind, llvm::Value *value,
                              std::string &why) const override {
    static const std::map<std::string_view, std::pair<llvm::Intrinsic::ID, bool>> kinds = {
        {"addi", {llvm::Intrinsic::amdgcn_wave_reduce_add, false}},
        {"andi", {llvm::Intrinsic::amdgcn_wave_reduce_and, false}},
        {"ori", {llvm::Intrinsic::amdgcn_wave_reduce_or, false}},
        {"xori", {llvm::Intrinsic::amdgcn_wave_reduce_xor, false}},
        {"maxsi", {llvm::Intrinsic::amdgcn_wave_reduce_max, true}},
        {"minsi", {llvm::Intrinsic::amdgcn_wave_reduce_min, true}},
        {"maxui", {llvm::Intrinsic::amdgcn_wave_reduce_umax, false}},
        {"minui", {llvm::Intrinsic::amdgcn_wave_reduce_umin, false}},
        {"addf", {llvm::Intrinsic::amdgcn_wave_reduce_fadd, false}},
        {"maxnumf", {llvm::Intrinsic::amdgcn_wave_reduce_fmax, false}},
        {"minnumf", {llvm::Intrinsic::amdgcn_wave_reduce_fmin, false}}};
    auto found = kinds.find(kind);
    llvm::Type *type = value->getType();
    bool integer = type->isIntegerTy() && type->getIntegerBitWidth() <= 64;
    if (found == kinds.end() || (kind.ends_with("f") ? !type->isFloatTy() : !integer)) {
      why = "amdgcn wave reductions support " + std::string(kind.ends_with("f") ? "f32" : "integers up to 64 bits") +
            (found == kinds.end() ? "; there is none for '" + std::string(kind) + "'" : "");
      return nullptr;
    }
    auto [id, isSigned] = found->second;
    if (integer && type->getIntegerBitWidth() < 32) {
      llvm::Value *wide = isSigned ? b.CreateSExt(value, b.getInt32Ty()) : b.CreateZExt(value, b.getInt32Ty());
      return b.CreateTrunc(b.CreateIntrinsic(id, {b.getInt32Ty()}, {wide, b.getInt32(0)}), type);
    }
    if (integer && type->getIntegerBitWidth() != 32 && type->getIntegerBitWidth() != 64) {
      why = "amdgcn wave reductions support integers of 8, 16, 32 and 64 bits";
      return nullptr;
    }
    return b.CreateIntrinsic(id, {type}, {value, b.getInt32(0)});
  }

  // ds_bpermute: any lane of the wave (wave32; in wave64 it does not cross the 32-lane halves).
  llvm::Value *readLane(llvm::IRBuilder<> &b, llvm::Value *value, llvm::Value *lane) const override {
    if (wave_ != 32) return nullptr;
    return b.CreateIntrinsic(llvm::Intrinsic::amdgcn_ds_bpermute, {}, {b.CreateShl(lane, b.getInt32(2)), value});
  }

  // v_cmp + s_mov of the exec-masked condition: only active lanes set their bit.
  llvm::Value *ballot(llvm::IRBuilder<> &b, llvm::Value *predicate) const override {
    llvm::Type *mask = b.getIntNTy(wave_);
    return b.CreateZExt(b.CreateIntrinsic(llvm::Intrinsic::amdgcn_ballot, {mask}, {predicate}), b.getInt64Ty());
  }

  // v_readlane_b32 per 32-bit word of the value (narrower values widened first).
  llvm::Value *readUniformLane(llvm::IRBuilder<> &b, llvm::Value *value, llvm::Value *lane) const override {
    const llvm::DataLayout &layout = b.GetInsertBlock()->getModule()->getDataLayout();
    llvm::Type *type = value->getType();
    uint64_t bits = layout.getTypeSizeInBits(type).getFixedValue();
    if (type->isPointerTy())
      value = b.CreatePtrToInt(value, b.getIntNTy(unsigned(bits)));
    else if (!type->isIntegerTy())
      value = b.CreateBitCast(value, b.getIntNTy(unsigned(bits)));
    unsigned words = unsigned((bits + 31) / 32);
    llvm::Value *wide = b.CreateZExt(value, b.getIntNTy(words * 32));
    llvm::Value *result = llvm::PoisonValue::get(b.getIntNTy(words * 32));
    for (unsigned w = 0; w < words; ++w) {
      llvm::Value *word = b.CreateTrunc(b.CreateLShr(wide, w * 32), b.getInt32Ty());
      llvm::Value *read = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_readlane, {b.getInt32Ty()}, {word, lane});
      llvm::Value *placed = b.CreateShl(b.CreateZExt(read, wide->getType()), w * 32);
      result = w == 0 ? placed : b.CreateOr(result, placed);
    }
    llvm::Value *narrow = b.CreateTrunc(result, b.getIntNTy(unsigned(bits)));
    if (type->isPointerTy()) return b.CreateIntToPtr(narrow, type);
    return type->isIntegerTy() ? narrow : b.CreateBitCast(narrow, type);
  }

  // gfx11 WMMA (v_wmma_*_16x16x16_*). bf16 operands travel as i16 words; the 16-bit accumulators
  // use the tied forms, whose unused halves keep the accumulator's bits (as the host twin does).
  llvm::Value *matrixMultiply(llvm::IRBuilder<> &b, const MatrixMultiply &m, std::string &why) const override {
    if (m.wave != wave_) {
      why = "the fragments are laid out for a wave of " + std::to_string(m.wave) + ", the kernel runs waves of " +
            std::to_string(wave_);
      return nullptr;
    }
    auto asWords = [&](llvm::Value *v) {
      auto *type = llvm::cast<llvm::FixedVectorType>(v->getType());
      return b.CreateBitCast(v, llvm::FixedVectorType::get(b.getInt16Ty(), type->getNumElements()));
    };
    using Kind = MatrixMultiply::Kind;
    llvm::Type *accType = m.acc->getType();
    switch (m.kind) {
    case Kind::F32F16:
      return b.CreateIntrinsic(accType, llvm::Intrinsic::amdgcn_wmma_f32_16x16x16_f16, {m.lhs, m.rhs, m.acc});
    case Kind::F32BF16:
      return b.CreateIntrinsic(accType, llvm::Intrinsic::amdgcn_wmma_f32_16x16x16_bf16,
                               {asWords(m.lhs), asWords(m.rhs), m.acc});
    case Kind::F16F16:
      return b.CreateIntrinsic(accType, llvm::Intrinsic::amdgcn_wmma_f16_16x16x16_f16_tied,
                               {m.lhs, m.rhs, m.acc, b.getFalse()});
    case Kind::BF16BF16: {
      llvm::Value *words = asWords(m.acc);
      llvm::Value *out = b.CreateIntrinsic(words->getType(), llvm::Intrinsic::amdgcn_wmma_bf16_16x16x16_bf16_tied,
                                           {asWords(m.lhs), asWords(m.rhs), words, b.getFalse()});
      return b.CreateBitCast(out, accType);
    }
    case Kind::I32IU8:
    case Kind::I32IU4:
      return b.CreateIntrinsic(accType,
                               m.kind == Kind::I32IU8 ? llvm::Intrinsic::amdgcn_wmma_i32_16x16x16_iu8
                                                      : llvm::Intrinsic::amdgcn_wmma_i32_16x16x16_iu4,
                               {b.getInt1(m.lhsSigned), m.lhs, b.getInt1(m.rhsSigned), m.rhs, m.acc, b.getFalse()});
    }
    why = "no WMMA for this element type";
    return nullptr;
  }

private:
  unsigned wave_;

  static llvm::Value *groupSize(llvm::IRBuilder<> &b, unsigned dim) {
    return implicitArg(b, 12 + 2 * dim, b.getInt16Ty());
  }
  static llvm::Value *linearItem(llvm::IRBuilder<> &b) {
    return b.CreateAdd(
        b.CreateMul(b.CreateAdd(b.CreateMul(itemId(b, 2), groupSize(b, 1)), itemId(b, 1)), groupSize(b, 0)),
        itemId(b, 0));
  }
  static llvm::Value *itemId(llvm::IRBuilder<> &b, unsigned dim) {
    static constexpr llvm::Intrinsic::ID ids[] = {llvm::Intrinsic::amdgcn_workitem_id_x,
                                                  llvm::Intrinsic::amdgcn_workitem_id_y,
                                                  llvm::Intrinsic::amdgcn_workitem_id_z};
    return b.CreateZExt(b.CreateIntrinsic(ids[dim], {}), b.getInt64Ty());
  }
  static llvm::Value *groupId(llvm::IRBuilder<> &b, unsigned dim) {
    static constexpr llvm::Intrinsic::ID ids[] = {llvm::Intrinsic::amdgcn_workgroup_id_x,
                                                  llvm::Intrinsic::amdgcn_workgroup_id_y,
                                                  llvm::Intrinsic::amdgcn_workgroup_id_z};
    return b.CreateZExt(b.CreateIntrinsic(ids[dim], {}), b.getInt64Ty());
  }
  static llvm::Value *implicitArg(llvm::IRBuilder<> &b, unsigned offset, llvm::Type *type) {
    llvm::Value *base = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_implicitarg_ptr, {});
    llvm::Value *address = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), base, offset);
    return b.CreateZExt(b.CreateAlignedLoad(type, address, llvm::Align(type->getPrimitiveSizeInBits() / 8)),
                        b.getInt64Ty());
  }
};

// The kernel entry: buffers (flat pointers) arrive as global pointers and enter the body as flat
// ones; other parameters (scalars, vectors, byref records, LDS pointers) pass through unchanged,
// with their attributes.
llvm::Function &emitKernelEntry(llvm::Module &module, llvm::Function &item, const std::string &name) {
  llvm::LLVMContext &context = module.getContext();
  auto isBuffer = [](const llvm::Argument &arg) {
    return arg.getType()->isPointerTy() && arg.getType()->getPointerAddressSpace() == 0;
  };
  std::vector<llvm::Type *> params;
  for (llvm::Argument &arg : item.args())
    params.push_back(isBuffer(arg) ? llvm::PointerType::get(context, kGlobalAddressSpace) : arg.getType());
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context), params, false);
  llvm::Function *entry = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module);
  entry->setCallingConv(llvm::CallingConv::AMDGPU_KERNEL);
  entry->setVisibility(llvm::GlobalValue::ProtectedVisibility);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
  std::vector<llvm::Value *> args;
  for (unsigned i = 0; i < item.arg_size(); ++i) {
    llvm::Value *arg = entry->getArg(i);
    if (isBuffer(*item.getArg(i))) {
      // __restrict__ buffers stay noalias, so the metadata gets .actual_access as Clang's does.
      if (item.getArg(i)->hasNoAliasAttr()) entry->addParamAttr(i, llvm::Attribute::NoAlias);
      args.push_back(b.CreateAddrSpaceCast(arg, item.getArg(i)->getType()));
    } else {
      entry->addParamAttrs(i, llvm::AttrBuilder(context, item.getAttributes().getParamAttrs(i)));
      args.push_back(arg);
    }
  }
  b.CreateCall(&item, args);
  b.CreateRetVoid();
  item.setLinkage(llvm::GlobalValue::InternalLinkage);
  return *entry;
}

// The workgroup size a kernel.def's launch-config region fixes after specialization (every
// workgroup_size operand a constant), or nullopt.
std::optional<std::array<uint64_t, 3>> fixedWorkgroupSize(const Program &program, const loom::Operation &kernelDef) {
  const loom::Region *config = kernelDef.region(0);
  if (!config || config->empty()) return std::nullopt;
  for (const loom::Operation &op : *config->entryBlock()) {
    if (op.opcode() != loom::OpCode::KernelLaunchConfig) continue;
    std::span<loom::Value *const> sizes = op.operandGroup("workgroup_size");
    if (sizes.empty() || sizes.size() > 3) return std::nullopt;
    std::array<uint64_t, 3> fixed = {1, 1, 1};
    for (size_t d = 0; d < sizes.size(); ++d) {
      std::optional<int64_t> size = program.evaluateInteger(sizes[d]);
      if (!size || *size < 1 || *size > 1024) return std::nullopt;
      fixed[d] = uint64_t(*size);
    }
    return fixed;
  }
  return std::nullopt;
}

// A fixed workgroup size lets the code generator size registers and LDS for exactly that many
// work-items (.reqd_workgroup_size and .max_flat_workgroup_size in the metadata).
void requireWorkgroupSize(llvm::Function &entry, const std::array<uint64_t, 3> &size) {
  uint64_t items = size[0] * size[1] * size[2];
  if (items > 1024) return;
  llvm::LLVMContext &context = entry.getContext();
  std::vector<llvm::Metadata *> dims;
  for (uint64_t n : size)
    dims.push_back(llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), n)));
  entry.setMetadata("reqd_work_group_size", llvm::MDNode::get(context, dims));
  entry.addFnAttr("amdgpu-flat-work-group-size", std::to_string(items) + "," + std::to_string(items));
}

std::string exportName(const loom::Operation &kernelDef) {
  if (const loom::Attribute *name = kernelDef.attr("export")) return std::string(name->str());
  return std::string(kernelDef.symbolName());
}

// Wave size from the kernel's amdgpu.target record (subgroup_size), 32 by default.
std::optional<unsigned> waveSize(const Program &program, const loom::Operation &kernelDef, const Target &target,
                                 diag::DiagnosticEngine &diags) {
  const loom::Operation *record = Lowering::targetRecord(program, kernelDef);
  std::optional<int64_t> size = record ? ir::integerAttr(*record, "subgroup_size") : std::nullopt;
  if (!size) return 32;
  if (*size != 32 && *size != 64) {
    diags.report(diag::DiagId::AmdgpuBadSubgroupSize, record->loc()).arg("size", *size).arg("target", target.profile);
    return std::nullopt;
  }
  return unsigned(*size);
}

std::string features(ProcessorMode mode, unsigned wave) {
  std::string out = mode == ProcessorMode::Cu ? "+cumode" : mode == ProcessorMode::Wgp ? "-cumode" : "";
  if (wave == 64) out += std::string(out.empty() ? "" : ",") + "+wavefrontsize64";
  return out;
}

nlohmann::json optional(const std::optional<uint64_t> &v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

// What the source declared of one launch argument, for the manifest (and so the runtime's
// check of the scalars a launch is given).
struct ArgumentFacts {
  std::string name;
  std::optional<format::ScalarType> type;
};

// Loom integers are signless; they are recorded as signed. index and offset have 8-byte
// carriers on AMDGPU.
std::optional<format::ScalarType> loomArgumentType(const loom::Type &type) {
  using T = format::ScalarType;
  switch (type.kind()) {
  case loom::TypeKind::Buffer:
  case loom::TypeKind::View: return T::Pointer;  // a view launch argument is its binding's base
  case loom::TypeKind::Index: return T::I64;
  case loom::TypeKind::Offset: return T::U64;
  case loom::TypeKind::Integer:
    switch (type.width()) {
    case 1: return T::Bool;
    case 8: return T::I8;
    case 16: return T::I16;
    case 32: return T::I32;
    case 64: return T::I64;
    default: return std::nullopt;
    }
  case loom::TypeKind::Float:
    switch (type.floatKind()) {
    case loom::FloatKind::F16: return T::F16;
    case loom::FloatKind::BF16: return T::BF16;
    case loom::FloatKind::F32: return T::F32;
    case loom::FloatKind::F64: return T::F64;
    default: return std::nullopt;
    }
  default: return std::nullopt;
  }
}

std::vector<ArgumentFacts> loomArgumentFacts(const loom::Operation &kernelDef) {
  std::vector<ArgumentFacts> facts;
  for (const loom::Value *v : ir::signatureValues(kernelDef, 1))
    facts.push_back({std::string(v->name()), loomArgumentType(*v->type())});
  return facts;
}

// C/C++/HIP parameters: pointers, and scalars by their element type ("i32", "u64", "bf16").
std::vector<ArgumentFacts> cxxArgumentFacts(const cxx::Signature &kernel) {
  std::vector<ArgumentFacts> facts;
  for (const cxx::Parameter &p : kernel.params) {
    std::optional<format::ScalarType> type;
    if (p.type.kind == cxx::ValueType::Kind::Pointer) type = format::ScalarType::Pointer;
    if (p.type.kind == cxx::ValueType::Kind::Scalar) type = format::parseScalarType(p.type.element.name());
    facts.push_back({p.name, type});
  }
  return facts;
}

// The C/C++ `__device__` (global address space) and `__constant__` globals the code object
// exports, for hrx-run --symbol: source name, symbol, element type and count (arrays of
// scalars), bytes. Clang's and the device libraries' own globals (`__...`) are left out.
nlohmann::json deviceGlobalsJson(const llvm::Module &module) {
  nlohmann::json globals = nlohmann::json::array();
  const llvm::DataLayout &layout = module.getDataLayout();
  for (const llvm::GlobalVariable &global : module.globals()) {
    unsigned space = global.getAddressSpace();
    if (global.isDeclaration() || global.hasLocalLinkage() || (space != 1 && space != 4) ||
        global.getName().starts_with("__") || global.getName().starts_with("llvm."))
      continue;
    llvm::Type *type = global.getValueType();
    uint64_t count = 1;
    while (auto *array = llvm::dyn_cast<llvm::ArrayType>(type)) {
      count *= array->getNumElements();
      type = array->getElementType();
    }
    const char *element = nullptr;
    if (type->isFloatTy())
      element = "f32";
    else if (type->isDoubleTy())
      element = "f64";
    else if (type->isHalfTy())
      element = "f16";
    else if (type->isBFloatTy())
      element = "bf16";
    else if (type->isIntegerTy(8))
      element = "i8";
    else if (type->isIntegerTy(16))
      element = "i16";
    else if (type->isIntegerTy(32))
      element = "i32";
    else if (type->isIntegerTy(64))
      element = "i64";
    uint64_t bytes = layout.getTypeAllocSize(global.getValueType());
    if (bytes == 0) continue;
    nlohmann::json row = {{"name", llvm::demangle(global.getName().str())},
                          {"symbol", global.getName().str()},
                          {"count", element ? count : 1},
                          {"bytes", bytes}};
    if (element) row["element"] = element;
    globals.push_back(std::move(row));
  }
  return globals;
}

// The executable manifest (docs/formats/amdgpu.md): per export its kernarg layout and resources;
// the device globals when there are some.
std::string manifestJson(const amdgpu::CodeObjectInfo &info, const Target &target, ProcessorMode mode,
                         const std::vector<std::string> &names,
                         const std::map<std::string, const KernelContract *> &contracts,
                         const std::map<std::string, std::vector<ArgumentFacts>> &argumentFacts,
                         const nlohmann::json &globals) {
  nlohmann::json exports = nlohmann::json::array();
  for (const std::string &name : names) {
    auto kernel = std::find_if(info.kernels.begin(), info.kernels.end(), [&](auto &k) { return k.name == name; });
    if (kernel == info.kernels.end()) continue;
    nlohmann::json args = nlohmann::json::array();
    unsigned bindings = 0;
    uint64_t constantBytes = 0;
    std::vector<const amdgpu::KernargSlot *> slots;
    for (const amdgpu::KernargSlot &slot : kernel->kernargs)
      if (!slot.valueKind.starts_with("hidden_")) slots.push_back(&slot);
    auto contract = contracts.find(name);
    // The source's names and types, where its arguments are the code object's one for one.
    const std::vector<ArgumentFacts> *facts = nullptr;
    if (auto found = argumentFacts.find(name); found != argumentFacts.end() && found->second.size() == slots.size())
      facts = &found->second;
    for (size_t i = 0; i < slots.size(); ++i) {
      const amdgpu::KernargSlot *slot = slots[i];
      bool buffer = slot->valueKind == "global_buffer";
      nlohmann::json arg = {{"offset", slot->offset}, {"size", slot->size}, {"kind", buffer ? "buffer" : "value"}};
      if (facts) {
        const ArgumentFacts &f = (*facts)[i];
        if (!f.name.empty()) arg["name"] = f.name;
        if (f.type && format::scalarTypeBytes(*f.type) == slot->size &&
            (*f.type == format::ScalarType::Pointer) == buffer)
          arg["type"] = std::string(format::scalarTypeName(*f.type));
      }
      // The buffer's size relations to scalar arguments, for the runtime's pre-launch check.
      if (buffer && contract != contracts.end() && bindings < contract->second->bindings.size()) {
        nlohmann::json extents = nlohmann::json::array();
        for (const ExtentRelation &r : contract->second->bindings[bindings].extents) {
          bool scalar = r.argument < slots.size() && slots[r.argument]->valueKind != "global_buffer" &&
                        (slots[r.argument]->size == 4 || slots[r.argument]->size == 8);
          if (scalar)
            extents.push_back(
                {{"argument", r.argument}, {"bytes_per_unit", r.bytesPerUnit}, {"base_bytes", r.baseBytes}});
        }
        if (!extents.empty()) arg["extents"] = extents;
      }
      bindings += buffer;
      if (!buffer) constantBytes += slot->size;
      args.push_back(arg);
    }
    exports.push_back(
        {{"name", name},
         {"kernarg_bytes", kernel->kernargSegmentSize},
         {"arguments", args},
         {"binding_count", bindings},
         {"constant_bytes", constantBytes},
         {"lds_bytes", optional(kernel->ldsBytes)},
         {"private_bytes", optional(kernel->privateBytes)},
         {"wavefront_size", optional(kernel->wavefrontSize)},
         {"max_flat_workgroup_size", optional(kernel->maxFlatWorkgroupSize)},
         {"resources",
          {{"code_bytes", optional(kernel->codeBytes)},
           {"vgpr_count", optional(kernel->vgprCount)},
           {"sgpr_count", optional(kernel->sgprCount)},
           {"vgpr_spill_count", optional(kernel->vgprSpillCount)},
           {"sgpr_spill_count", optional(kernel->sgprSpillCount)},
           {"occupancy_waves_per_simd", optional(kernel->occupancyWavesPerSimd)},
           {"workgroup_processor_mode", kernel->workgroupProcessorMode ? nlohmann::json(*kernel->workgroupProcessorMode)
                                                                       : nlohmann::json(nullptr)}}}});
  }
  nlohmann::json manifest = {{"schema_version", 1},
                             {"target", target.profile},
                             {"code_object_version", codeObjectVersion(target) / 100},
                             {"processor_mode", processorModeName(mode)},
                             {"exports", exports}};
  if (!globals.empty()) manifest["globals"] = globals;
  return manifest.dump(2);
}

// The compile report (docs/reports.md): one entry row per exported kernel from the code
// object's own facts; a fact the metadata does not give stays null.
// Wall time per compile phase, in the order the phases ran (details reports only).
using PhaseTimes = std::vector<std::pair<std::string, double>>;

std::string reportJson(const amdgpu::CodeObjectInfo &info, const BackendRequest &request,
                       const std::vector<std::string> &names, const PhaseTimes &phases) {
  constexpr double kMaxWavesPerSimd = 16;
  format::ReportJson rows = format::ReportJson::array();
  auto count = [](const std::optional<uint64_t> &v) { return v ? format::ReportJson(*v) : format::ReportJson(); };
  for (const std::string &name : names) {
    auto kernel = std::find_if(info.kernels.begin(), info.kernels.end(), [&](auto &k) { return k.name == name; });
    if (kernel == info.kernels.end()) continue;
    std::optional<uint64_t> spills;
    if (kernel->vgprSpillCount && kernel->sgprSpillCount) spills = *kernel->vgprSpillCount + *kernel->sgprSpillCount;
    format::ReportJson occupancy;
    if (kernel->occupancyWavesPerSimd) occupancy = 100.0 * double(*kernel->occupancyWavesPerSimd) / kMaxWavesPerSimd;
    rows.push_back({{"function", name},
                    {"code_byte_count", count(kernel->codeBytes)},
                    {"local_memory_bytes", count(kernel->ldsBytes)},
                    {"private_memory_bytes", count(kernel->privateBytes)},
                    {"allocation_spill_count", count(spills)},
                    {"target_resources",
                     {{"scalar", {{"final", {{"register_count", count(kernel->sgprCount)}}}}},
                      {"vector", {{"final", {{"register_count", count(kernel->vgprCount)}}}}},
                      {"occupancy_percent", occupancy},
                      {"wave_size", count(kernel->wavefrontSize)}}}});
  }
  const std::string &digest = compilerDigest();
  format::CompileReport report;
  report.compiler = digest.empty() ? compilerIdentity().name : digest;
  report.target = request.target.profile;
  report.processorMode = processorModeName(request.options.processorMode);
  report.document = {{"kind", "loom.compile_report"},
                     {"schema_version", 0},
                     {"backend", "amdgpu-hsaco"},
                     {"target_key", request.target.profile},
                     {"mode", reportModeName(request.specialization.report)},
                     {"entries", {{"count", rows.size()}, {"rows", rows}}}};
  if (request.specialization.report == ReportMode::Details) {
    format::ReportJson times = format::ReportJson::array();
    for (const auto &[phase, ms] : phases) times.push_back({{"phase", phase}, {"wall_ms", ms}});
    report.document["compile_phase_times"] = times;
  }
  return format::writeCompileReport(report);
}

// The launch program: each export's workload signature and the host-evaluable entry point in
// the host twin (.hrx.host, HostAbi.h "hrx.launch.<sym>") that maps it to the launch grid.
std::string launchJson(const std::vector<const loom::Operation *> &kernels,
                       const std::vector<const cxx::Signature *> &cxxKernels) {
  nlohmann::json exports = nlohmann::json::array();
  auto add = [&](const std::string &name, const std::string &symbol, const nlohmann::json &workload) {
    exports.push_back(
        {{"name", name}, {"symbol", symbol}, {"workload_bits", workload}, {"evaluator", "hrx.launch." + symbol}});
  };
  for (const loom::Operation *def : kernels) {
    nlohmann::json workload = nlohmann::json::array();
    for (const loom::Type *type : ir::signatureTypes(*def, 0)) workload.push_back(ir::elementBytes(*type) * 8);
    add(exportName(*def), std::string(def->symbolName()), workload);
  }
  for (const cxx::Signature *kernel : cxxKernels)
    add(kernel->symbol, kernel->symbol, Lowering::cxxWorkloadBits(*kernel));
  return nlohmann::json{{"schema_version", 1}, {"exports", exports}}.dump(2);
}

// Links the C/C++ units (imported for this target) into the code object's module; the backend,
// not Clang, decides the code object version.
bool linkCxxUnits(const Program &program, llvm::Module &module) {
  for (std::unique_ptr<llvm::Module> &unit : program.cxxModules(module.getContext())) {
    if (llvm::NamedMDNode *flags = unit->getModuleFlagsMetadata()) {
      std::vector<llvm::MDNode *> kept;
      for (llvm::MDNode *flag : flags->operands())
        if (auto *key = llvm::dyn_cast<llvm::MDString>(flag->getOperand(1));
            !key || key->getString() != "amdhsa_code_object_version")
          kept.push_back(flag);
      flags->clearOperands();
      for (llvm::MDNode *flag : kept) flags->addOperand(flag);
    }
    if (llvm::Linker::linkModules(module, std::move(unit))) return false;
  }
  return true;
}

// A C/C++ kernel as Clang made it (device-kernel calling convention, flat pointers) becomes the
// body of a new amdgpu_kernel of the same name whose buffers are global pointers; its fixed
// workgroup size becomes reqd_work_group_size.
// Keeps what a compile reports, to replay into another engine, and its first error.
class DiagnosticRecorder : public diag::DiagnosticConsumer {
public:
  void handle(const diag::Diagnostic &d, const diag::SourceManager &) override {
    if (!first && d.severity == diag::Severity::Error) first = d;
    all.push_back(d);
  }
  void replay(diag::DiagnosticEngine &diags) const {
    for (const diag::Diagnostic &d : all) {
      if (d.id == diag::DiagId::External) {
        diags.reportExternal(d.severity, d.range, d.message, d.flag, d.notes);
        continue;
      }
      diag::DiagnosticBuilder b = diags.report(d.id, d.range);
      for (const auto &[name, value] : d.params) b.arg(name, value);
      for (const diag::RelatedNote &n : d.notes) b.note(n.range, n.message);
    }
  }
  std::optional<diag::Diagnostic> first;
  std::vector<diag::Diagnostic> all;
};

// The host twin kernel by kernel. When the twin's errors are all constructs with no CPU meaning
// inside function bodies of the units' own text, those bodies become a call to
// __hrx_host_unavailable(N) (<hip/__hrx_hip_device.h>; newlines kept, so lines stay) and the units
// are imported again: the kernels that reach such a call have no host code (one LINK/044 per
// construct, with a note per kernel), the others keep theirs. Null when that does not apply.
std::unique_ptr<Program> hostTwinKernelByKernel(const Program &program, const Target &host,
                                                const CompilerOptions &options, diag::DiagnosticEngine &diags,
                                                const std::vector<diag::Diagnostic> &twinDiagnostics,
                                                const std::vector<std::vector<cxx::FunctionBody>> &bodies) {
  std::vector<const diag::Diagnostic *> errors;
  for (const diag::Diagnostic &d : twinDiagnostics)
    if (d.severity == diag::Severity::Error) {
      if (d.id != diag::DiagId::External) return nullptr;
      errors.push_back(&d);
    }
  if (errors.empty() || bodies.size() != program.cxxSources.size()) return nullptr;
  // (unit, body) → the first error inside it (innermost body).
  std::map<std::pair<size_t, size_t>, size_t> blanked;
  for (size_t e = 0; e < errors.size(); ++e) {
    diag::SourceLocation at = errors[e]->range.begin;
    std::optional<std::pair<size_t, size_t>> best;
    for (size_t u = 0; u < bodies.size(); ++u)
      for (size_t b = 0; b < bodies[u].size(); ++b) {
        const diag::SourceRange &r = bodies[u][b].range;
        if (r.begin.file != at.file || at.offset < r.begin.offset || at.offset >= r.end.offset) continue;
        const diag::SourceRange *current = best ? &bodies[best->first][best->second].range : nullptr;
        if (!current || r.end.offset - r.begin.offset < current->end.offset - current->begin.offset) best = {u, b};
      }
    if (!best) return nullptr;
    blanked.try_emplace(*best, e);
  }
  std::vector<CxxSource> sources = program.cxxSources;
  for (auto it = blanked.rbegin(); it != blanked.rend(); ++it) {  // later bodies first: offsets stay valid
    auto [u, b] = it->first;
    const diag::SourceRange &r = bodies[u][b].range;
    std::string &text = sources[u].text;
    if (r.end.offset > text.size() || r.end.offset < r.begin.offset + 2 || text[r.begin.offset] != '{' ||
        text[r.end.offset - 1] != '}')
      return nullptr;
    size_t inner = r.end.offset - r.begin.offset - 2;
    size_t lines = std::count(text.begin() + r.begin.offset + 1, text.begin() + r.end.offset - 1, '\n');
    text.replace(r.begin.offset + 1, inner,
                 " __hrx_host_unavailable(" + std::to_string(it->second) + "); " + std::string(lines, '\n'));
  }
  diag::DiagnosticEngine scratch(diags.sourceManager());
  scratch.setOptions(diags.options());
  std::unique_ptr<Program> twin = retargetCxx(program, host, options, scratch, &sources);
  if (!twin || twin->cxxKernels.size() != program.cxxKernels.size()) return nullptr;

  // Which error each function reaches, through direct calls.
  std::map<const llvm::Function *, size_t> marked;
  for (const cxx::ImportedUnit &unit : twin->cxxUnits)
    if (llvm::Function *marker = unit.module->getFunction("__hrx_host_unavailable"))
      for (llvm::User *user : marker->users())
        if (auto *call = llvm::dyn_cast<llvm::CallBase>(user))
          if (auto *index = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(0)))
            marked.try_emplace(call->getFunction(), index->getZExtValue());
  auto reached = [&](const llvm::Function *root) -> std::optional<size_t> {
    std::set<const llvm::Function *> seen;
    std::vector<const llvm::Function *> work = {root};
    while (!work.empty()) {
      const llvm::Function *f = work.back();
      work.pop_back();
      if (!f || !seen.insert(f).second) continue;
      if (auto it = marked.find(f); it != marked.end()) return it->second;
      for (const llvm::BasicBlock &block : *f)
        for (const llvm::Instruction &inst : block)
          if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst)) work.push_back(call->getCalledFunction());
    }
    return std::nullopt;
  };
  std::map<size_t, std::vector<size_t>> kernelsByError;
  for (size_t k = 0; k < twin->cxxKernels.size(); ++k) {
    const cxx::Signature *kernel = twin->cxxKernels[k];
    if (!kernel) return nullptr;
    const llvm::Function *body = nullptr;
    for (const cxx::ImportedUnit &unit : twin->cxxUnits)
      if (const llvm::Function *f = unit.module->getFunction(kernel->symbol); f && !f->isDeclaration()) body = f;
    if (std::optional<size_t> error = body ? reached(body) : std::nullopt) kernelsByError[*error].push_back(k);
  }
  for (const auto &[e, kernels] : kernelsByError) {
    const diag::Diagnostic &error = *errors[e];
    diag::LineColumn at = diags.sourceManager().lineColumn(error.range.begin);
    std::string where = std::string(diags.sourceManager().name(error.range.begin.file)) + ":" +
                        std::to_string(at.line) + ":" + std::to_string(at.column);
    diag::DiagnosticBuilder warning = diags.report(diag::DiagId::LinkHostTwinUnavailable, error.range);
    warning.arg("reason", error.message);
    for (size_t k : kernels) {
      const cxx::Signature &kernel = *program.cxxKernels[k];
      twin->hostUnavailable[kernel.symbol] = error.message + " (" + where + ", LINK/044)";
      warning.note(kernel.location,
                   "kernel '" + kernel.name + "' has no host code; the unit's other kernels keep theirs");
    }
  }
  return twin;
}

bool wrapCxxKernel(llvm::Module &module, const cxx::Signature &kernel) {
  llvm::Function *body = module.getFunction(kernel.symbol);
  if (!body || body->isDeclaration()) return false;
  body->setName(kernel.symbol + ".body");
  body->setCallingConv(llvm::CallingConv::C);
  body->setVisibility(llvm::GlobalValue::DefaultVisibility);
  body->removeFnAttr(llvm::Attribute::NoInline);
  body->removeFnAttr(llvm::Attribute::OptimizeNone);
  body->addFnAttr(llvm::Attribute::AlwaysInline);
  llvm::Function &entry = emitKernelEntry(module, *body, kernel.symbol);
  for (const llvm::Attribute &attr : body->getAttributes().getFnAttrs())
    if (attr.isStringAttribute() && attr.getKindAsString().starts_with("amdgpu-")) entry.addFnAttr(attr);
  if (kernel.workgroupSize)
    requireWorkgroupSize(entry, {(*kernel.workgroupSize)[0], (*kernel.workgroupSize)[1], (*kernel.workgroupSize)[2]});
  return true;
}

std::vector<uint8_t> bytesOf(const std::string &text) { return {text.begin(), text.end()}; }

// The contract as the code object needs it: every buffer argument is a binding (the manifest
// counts them all), so an argument the kernel never uses is one too, asking only for a buffer.
format::KernelContract codeObjectContract(KernelContract contract) {
  for (BindingContract &b : contract.bindings)
    if (!b.used) b = {b.name, true, 1, 1, Access::Read, "global", kUsageDeviceVisible, "unused"};
  return contract.toFormat();
}

class AmdgpuBackend final : public TargetBackend {
public:
  TargetInfo info() const override {
    TargetInfo info;
    info.backend = "amdgpu";
    info.profiles = {{"gfx1151",
                      "gfx1151",
                      {{"gfx1151", "Strix Halo iGPU (Radeon 8060S), RDNA 3.5"}},
                      {},
                      {R"(hal.amdgpu.descriptor_set {descriptor_set = "amdgpu.rdna3_5.core"})",
                       R"(hal.amdgpu.descriptor_set {descriptor_set = "amdgpu.rdna3.core"})"}},
                     {"gfx11-generic",
                      "gfx11-generic",
                      {{"gfx11-generic", "any gfx11 GPU (generic code object)"}},
                      {},
                      {R"(hal.amdgpu.descriptor_set {descriptor_set = "amdgpu.rdna3.core"})"}}};
    info.checkRunPath = "host-twin";
    info.offloadArch = true;
    info.runsCxxKernels = true;
    info.hipDeviceLibraries = true;
    info.options = {"--processor-mode=", "--host-twin=", "--host-twin-opt="};
    info.savedForms = {EmitKind::Llvm, EmitKind::Asm, EmitKind::Object};
    info.artifactExtension = ".hsaco";
    info.fatMember = FatMember{kAmdgpuTriple, format::kOffloadHip};
#define HRX_REPORT_BACKEND(name) info.reportBackends.push_back(name);
#define HRX_REPORT_FIELD(name, pointer) info.reportFields.push_back({name, pointer});
#include "ReportFields.def"
#undef HRX_REPORT_FIELD
#undef HRX_REPORT_BACKEND
    return info;
  }

  std::optional<cxx::ImportTarget> cxxImportTarget(const Target &target) const override {
    cxx::ImportTarget imported;
    imported.name = target.profile;  // "gfx1151", "gfx11-generic"
    imported.triple = kAmdgpuTriple;
    imported.cpu = target.profile;
    imported.offloadArch = target.profile;
    imported.defines = {"__HRX_TARGET_AMDGPU__=1"};
    imported.warnFloatAtomicMax = true;  // not on coherent memory (CXX/011)
    return imported;
  }

  std::optional<BackendOutput> emit(const BackendRequest &request, diag::DiagnosticEngine &diags) override {
    const Target &target = request.target;
    auto fail = [&](diag::DiagId id, const std::string &message) -> std::optional<BackendOutput> {
      diags.report(id, {}).arg("target", target.profile).arg("message", message);
      return std::nullopt;
    };
    // C/C++ units imported for another target (another member of a fat artifact) are imported
    // again for this one, and for the host twin.
    std::unique_ptr<Program> retargeted;
    const Program *forTarget = programForTarget(request.program, target, request.options, retargeted, diags);
    if (!forTarget) return std::nullopt;
    const Program &program = *forTarget;

    std::vector<const loom::Operation *> kernels;
    for (const loom::Operation *def : program.exports)
      if (def->opcode() == loom::OpCode::KernelDef) kernels.push_back(def);
    // HIP units of device functions only (a device library) give a code object without kernels.
    bool hipLibrary = program.modules.empty() && !program.cxxSources.empty() &&
                      std::all_of(program.cxxSources.begin(), program.cxxSources.end(),
                                  [](const CxxSource &s) { return s.language == CxxSource::Language::Hip; });
    if (kernels.empty() && program.cxxKernels.empty() && !hipLibrary) {
      diags.report(diag::DiagId::AmdgpuNoKernels, {}).arg("target", target.profile);
      return std::nullopt;
    }
    // Each kernel runs waves of its target record's subgroup size (a per-function subtarget
    // feature); other functions get the narrowest, so they inline into every kernel.
    std::optional<unsigned> wave = kernels.empty() ? std::optional<unsigned>(32) : std::nullopt;
    unsigned narrowest = 64;
    std::map<const loom::Operation *, unsigned> kernelWaves;
    for (const loom::Operation *def : kernels) {
      std::optional<unsigned> w = waveSize(program, *def, target, diags);
      if (!w) return std::nullopt;
      kernelWaves[def] = *w;
      narrowest = std::min(narrowest, *w);
      wave = wave ? std::max(*wave, *w) : *w;
    }
    if (kernels.empty()) narrowest = *wave;
    auto machine = createTargetMachine(kAmdgpuTriple, target.profile,
                                       features(request.options.processorMode, narrowest), request.options.optLevel);
    if (!machine) return fail(diag::DiagId::LinkCodegenFailed, machine.error());

    // The device module and its context, freed once the code object is built (with -j1 before
    // the host twin, whose import and pipeline then reuse that memory).
    struct DeviceModule {
      llvm::LLVMContext context;
      llvm::Module module{"hrx-amdgpu", context};
    };
    auto device = std::make_unique<DeviceModule>();
    llvm::Module &module = device->module;
    module.setTargetTriple(llvm::Triple(kAmdgpuTriple));
    module.setDataLayout((*machine)->createDataLayout());
    module.addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version", codeObjectVersion(target));
    PhaseTimes phases;
    auto phaseStart = std::chrono::steady_clock::now();
    auto endPhase = [&](const char *name) {
      auto now = std::chrono::steady_clock::now();
      phases.emplace_back(name, std::chrono::duration<double, std::milli>(now - phaseStart).count());
      phaseStart = now;
    };
    auto lowering = std::make_unique<Lowering>(program, module, diags,
                                               "the " + target.profile + " target",
                                               LoweringOptions{.amdgpuAtomics = true,
                                                               .targetFamily = "amdgpu",
                                                               .deviceMathLibrary = false,
                                                               .targetCpu = target.profile});
    std::vector<std::string> names;
    std::map<const llvm::Function *, unsigned> functionWaves;  // kernels' entries and items
    for (const loom::Operation *def : kernels) {
      AmdgpuCoordinates coordinates(kernelWaves.at(def));
      llvm::Function *item = lowering->kernelItem(*def, coordinates);
      if (!item || item->isDeclaration()) continue;
      names.push_back(exportName(*def));
      llvm::Function &entry = emitKernelEntry(module, *item, names.back());
      functionWaves[item] = functionWaves[&entry] = kernelWaves.at(def);
      if (std::optional<std::array<uint64_t, 3>> size = fixedWorkgroupSize(program, *def))
        requireWorkgroupSize(entry, *size);
    }
    if (lowering->failed()) return std::nullopt;
    if (!linkCxxUnits(program, module)) return fail(diag::DiagId::LinkCodegenFailed, "cannot link the C/C++ code");
    for (const cxx::Signature *kernel : program.cxxKernels) {
      if (!wrapCxxKernel(module, *kernel))
        return fail(diag::DiagId::LinkCodegenFailed, "the C/C++ kernel '" + kernel->symbol + "' has no definition");
      names.push_back(kernel->symbol);
    }
    endPhase("lower");
    // Subtargets are per function: every function carries the processor and its features. Only
    // kernels are visible in the code object, so C/C++ device functions may be inlined.
    const std::string featureString = features(request.options.processorMode, narrowest);
    for (llvm::Function &f : module) {
      if (f.isDeclaration()) continue;
      if (f.getCallingConv() != llvm::CallingConv::AMDGPU_KERNEL) {
        f.setVisibility(llvm::GlobalValue::DefaultVisibility);
        f.setLinkage(llvm::GlobalValue::InternalLinkage);
        f.setComdat(nullptr);
      }
      f.addFnAttr("target-cpu", target.profile);
      // One feature set and freestanding everywhere (Clang's functions differ from the lowered
      // Loom ones in both, which would keep them from inlining).
      f.removeFnAttr("target-features");
      f.addFnAttr("no-builtins");
      auto own = functionWaves.find(&f);
      std::string functionFeatures =
          own == functionWaves.end() ? featureString : features(request.options.processorMode, own->second);
      if (!functionFeatures.empty()) f.addFnAttr("target-features", functionFeatures);
    }
    std::string verifyErrors;
    llvm::raw_string_ostream verifyStream(verifyErrors);
    if (llvm::verifyModule(module, &verifyStream)) return fail(diag::DiagId::LinkCodegenFailed, verifyErrors);
    const nlohmann::json globals = deviceGlobalsJson(module);

    if (request.emit != EmitKind::Artifact) {
      optimizeModule(module, **machine, request.options.optLevel);
      if (request.emit == EmitKind::Llvm) {
        std::string text;
        llvm::raw_string_ostream os(text);
        module.print(os, nullptr);
        return BackendOutput{bytesOf(text), {}};
      }
      if (request.emit != EmitKind::Asm && request.emit != EmitKind::Object) {
        diags.report(diag::DiagId::LinkNotImplemented, {}).arg("what", "this output kind for AMDGPU targets");
        return std::nullopt;
      }
      auto output =
          emitModule(module, **machine, request.emit == EmitKind::Asm ? EmitFile::Assembly : EmitFile::Object);
      if (!output) return fail(diag::DiagId::LinkCodegenFailed, output.error());
      return BackendOutput{std::move(*output), {}};
    }

    // The code object (optimize, generate, link: LLVM only, no diagnostics), then the host twin;
    // failures are reported after both finish. With -j2 or more the code object is built on a
    // second thread beside the twin (less wall time); with -j1 one after the other, so the peak
    // memory of the device optimization and the twin's import do not add up (the same CPU time
    // and bytes).
    std::expected<std::vector<uint8_t>, std::pair<diag::DiagId, std::string>> hsaco;
    auto buildCodeObject = [&] {
      optimizeModule(module, **machine, request.options.optLevel);
      endPhase("optimize");
      auto object = emitModule(module, **machine, EmitFile::Object);
      if (!object) {
        hsaco = std::unexpected(std::pair(diag::DiagId::LinkCodegenFailed, object.error()));
        return;
      }
      endPhase("codegen");
      auto linked = linkElf({"-m", "elf64_amdgpu", "--no-undefined", "-shared"}, {*object});
      if (!linked) {
        hsaco = std::unexpected(std::pair(diag::DiagId::LinkLinkerFailed, linked.error()));
        return;
      }
      endPhase("link");
      hsaco = std::move(*linked);
    };
    std::thread codeObject;
    if (request.options.workers > 1)
      codeObject = std::thread(buildCodeObject);
    else {
      buildCodeObject();
      lowering.reset();
      device.reset();
    }
    // --host-twin=never: the host code carries the launch programs only (every device sizes a
    // dispatch with them), not the kernels, so C/C++ is not imported for the host.
    const bool twin = request.options.hostTwin;
    std::unique_ptr<Program> hostProgram;
    bool hostImported = true;
    if (twin && !program.cxxSources.empty()) {
      // The twin's diagnostics go to a scratch engine: what the GPU compile accepted but the host
      // cannot compile becomes one warning (LINK/044) and an artifact without those host kernels.
      diag::DiagnosticEngine twinDiags(diags.sourceManager());
      twinDiags.setOptions(diags.options());
      DiagnosticRecorder twin;
      twinDiags.addConsumer(&twin);
      std::vector<std::vector<cxx::FunctionBody>> bodies;
      hostProgram = request.hostReference
                        ? retargetCxx(program, *request.hostReference, request.options, twinDiags, nullptr, &bodies)
                        : nullptr;
      // A Clang error the GPU compile did not have: a construct with no CPU meaning.
      bool hostOnlyError = twin.first && twin.first->id == diag::DiagId::External;
      if (!hostProgram && hostOnlyError)
        hostProgram = hostTwinKernelByKernel(program, *request.hostReference, request.options, diags, twin.all, bodies);
      if (!hostProgram && kernels.empty() && hostOnlyError) {
        diags.report(diag::DiagId::LinkHostTwinUnavailable, twin.first->range).arg("reason", twin.first->message);
        hostProgram = std::make_unique<Program>();  // host code without the C/C++ kernels
      } else if (!hostProgram) {
        twin.replay(diags);
      }
      hostImported = hostProgram != nullptr;
    }
    std::optional<std::vector<uint8_t>> host;
    if (hostImported)
      host = buildHostReferenceCode(request, hostProgram ? *hostProgram : program, diags, "amdgpu",
                                    /*launchOnly=*/!twin);
    if (codeObject.joinable()) codeObject.join();
    if (!hostImported) return std::nullopt;
    if (!hsaco) return fail(hsaco.error().first, hsaco.error().second);
    if (!host) return std::nullopt;
    auto info = amdgpu::readCodeObjectInfo(*hsaco);
    if (!info) {
      diags.report(diag::DiagId::AmdgpuMetadataUnreadable, {}).arg("message", info.error());
      return std::nullopt;
    }

    std::string report;
    if (request.specialization.report != ReportMode::None) report = reportJson(*info, request, names, phases);

    format::ContractTable contracts;
    for (size_t i = 0; i < program.exports.size(); ++i)
      if (program.exports[i]->opcode() == loom::OpCode::KernelDef)
        contracts[exportName(*program.exports[i])] = codeObjectContract(program.contracts[i]);
    for (size_t i = 0; i < program.cxxKernels.size(); ++i)
      contracts[program.cxxKernels[i]->symbol] = codeObjectContract(program.contracts[program.exports.size() + i]);

    std::map<std::string, const KernelContract *> contractsByName;
    for (size_t i = 0; i < program.exports.size(); ++i)
      if (program.exports[i]->opcode() == loom::OpCode::KernelDef)
        contractsByName[exportName(*program.exports[i])] = &program.contracts[i];
    std::map<std::string, std::vector<ArgumentFacts>> argumentFacts;
    for (const loom::Operation *def : kernels) argumentFacts[exportName(*def)] = loomArgumentFacts(*def);
    for (const cxx::Signature *kernel : program.cxxKernels) argumentFacts[kernel->symbol] = cxxArgumentFacts(*kernel);
    std::string manifest =
        manifestJson(*info, target, request.options.processorMode, names, contractsByName, argumentFacts, globals);
    std::string launch = launchJson(kernels, program.cxxKernels);
    format::ArtifactIdentity identity = artifactIdentity(request, *host);
    std::vector<format::SectionPayload> sections = {
        {std::string(format::kManifestSection), bytesOf(manifest), false},
        {std::string(format::kLaunchSection), bytesOf(launch), false},
        {".hrx.contract", bytesOf(format::writeContractTable(contracts)), false},
        {".hrx.identity", bytesOf(format::writeIdentity(identity)), false},
        {".hrx.host", std::move(*host), true},
    };
    if (!report.empty()) sections.push_back({".hrx.report", bytesOf(report), false});
    StatusOr<std::vector<uint8_t>> artifact = format::appendElf64Sections(*hsaco, sections);
    if (!artifact) return fail(diag::DiagId::LinkCodegenFailed, artifact.status().message());
    return BackendOutput{
        std::move(*artifact), std::move(report), {{"manifest", std::move(manifest)}, {"launch", std::move(launch)}}};
  }
};

}  // namespace

std::unique_ptr<TargetBackend> createAmdgpuBackend() { return std::make_unique<AmdgpuBackend>(); }

}  // namespace hrx::bridge
