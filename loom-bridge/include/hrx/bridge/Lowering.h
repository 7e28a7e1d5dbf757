// Loom → LLVM IR for the bodies every backend shares: functions, kernel work-items and kernel
// launch-config programs. Targets supply kernel coordinates through KernelCoordinates and wrap
// the lowered functions in their own entry ABI.
#pragma once

#include "hrx/bridge/Program.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <array>
#include <memory>
#include <string>
#include <string_view>

namespace hrx::bridge {


// A work-item coordinate a target provides, one per kernel.* coordinate op.
enum class Coordinate : uint8_t {
  WorkitemId,
  WorkitemDispatchId,
  WorkgroupId,
  WorkgroupSize,
  WorkgroupCount,
  SubgroupId,
  SubgroupLaneId,
  SubgroupSize,
  SubgroupCount,
};

// One WMMA that vector.mma asks of a target: lhs/rhs/acc are the lane's registers as Loom types
// them (16 × f16/bf16, or 32-bit words of packed i8/u8/i4/u4; the accumulator 256 / wave values,
// 512 / wave for f16/bf16 accumulators, whose odd elements are unused).
struct MatrixMultiply {
  enum class Kind : uint8_t { F32F16, F32BF16, F16F16, BF16BF16, I32IU8, I32IU4 };
  Kind kind = Kind::F32F16;
  bool lhsSigned = true, rhsSigned = true;  // the iu8/iu4 operands' element formats
  unsigned wave = 32;
  llvm::Value *lhs = nullptr, *rhs = nullptr, *acc = nullptr;
};

// How a target materializes kernel coordinates inside a lowered work-item function, and the
// workgroup-level operations it executes natively (a target without them, like the host, splits
// kernels into phases instead: Lowering::kernelPhases).
class KernelCoordinates {
public:
  virtual ~KernelCoordinates() = default;
  // Extra leading parameters of every work-item function (e.g. a dispatch pointer, ids).
  virtual std::vector<llvm::Type *> leadingParameters(llvm::LLVMContext &context) const = 0;
  // The value of a kernel.workitem.* / workgroup.* / subgroup.* coordinate, an i64. Null when the
  // target cannot provide it (the lowering then reports the op).
  virtual llvm::Value *coordinate(llvm::IRBuilder<> &builder, llvm::Function &function, Coordinate kind,
                                  unsigned dimension) const = 0;
  // A workgroup barrier with release/acquire workgroup fences; false when not native.
  virtual bool barrier(llvm::IRBuilder<> &) const { return false; }
  // Fresh storage shared by the workgroup (one per allocation op), as a flat pointer; null when
  // not native.
  virtual llvm::Value *workgroupStorage(llvm::IRBuilder<> &, uint64_t /*bytes*/, uint64_t /*alignment*/) const {
    return nullptr;
  }
  // The dispatch's dynamic workgroup storage (the bytes the launch grants beyond the kernel's
  // fixed storage), as a flat pointer aligned to at least `alignment`; null when not native.
  virtual llvm::Value *dynamicWorkgroupStorage(llvm::IRBuilder<> &, uint64_t /*alignment*/) const { return nullptr; }
  // `value` combined over the active lanes of the subgroup (`kind`: addf, maxsi, ...), in every
  // lane; null when the target cannot (then `why` says why).
  virtual llvm::Value *subgroupReduce(llvm::IRBuilder<> &, std::string_view /*kind*/, llvm::Value * /*value*/,
                                      std::string &why) const {
    why = "this kernel operation is not supported by this target";
    return nullptr;
  }
  // A gfx11 WMMA (16×16×16) on per-lane fragments (vector.mma, docs/loom.md "Matrix fragments"):
  // the result registers, or null when not native (then `why`, or an empty `why` when the
  // lowering may emulate it with subgroupGather).
  virtual llvm::Value *matrixMultiply(llvm::IRBuilder<> &, const MatrixMultiply &, std::string &why) const {
    why.clear();
    return nullptr;
  }
  // The i32 `value` of lane `lane` (an i32 lane index, per lane), or null when not native.
  virtual llvm::Value *readLane(llvm::IRBuilder<> &, llvm::Value * /*value*/, llvm::Value * /*lane*/) const {
    return nullptr;
  }
  // The i64 mask of the active lanes of the subgroup whose i1 `predicate` holds (bit i is lane
  // i), or null when not native (the lowering then folds a subgroupGather).
  virtual llvm::Value *ballot(llvm::IRBuilder<> &, llvm::Value * /*predicate*/) const { return nullptr; }
  // `value` as lane `lane` (a subgroup-uniform i32) holds it, any type; null when not native.
  virtual llvm::Value *readUniformLane(llvm::IRBuilder<> &, llvm::Value * /*value*/, llvm::Value * /*lane*/) const {
    return nullptr;
  }
  // Copies `bytes` at `value` of every active lane of the subgroup into `lanes` (lane i at
  // lanes + i * bytes) and returns the i64 mask of active lanes; null when not supported.
  virtual llvm::Value *subgroupGather(llvm::IRBuilder<> &, llvm::Value * /*value*/, uint64_t /*bytes*/,
                                      llvm::Value * /*lanes*/) const {
    return nullptr;
  }
};

struct LoweringOptions {
  // AMDGPU's memory model for atomics: on a coherent binding (memory_space<host>) float max/min
  // (view.atomic.reduce/rmw<maxnumf|minnumf|maximumf|minimumf>) become a compare-exchange loop
  // over the float bits, with remark AMDGPU/004 (gfx1151's native float atomic max does not update
  // coherent memory); every other atomicrmw is marked !amdgpu.no.fine.grained.memory, so the
  // backend may use the native instruction.
  bool amdgpuAtomics = false;
  // The family of target records this target satisfies when template.apply / func.apply pick a
  // provider with target(@t): "amdgpu" or "host".
  std::string_view targetFamily = "host";
  // The family whose providers are selected, when it is not targetFamily (a host twin).
  std::string_view providerFamily = {};
  // Whether the target has a device math library (libm calls stay calls). Without one (AMDGPU),
  // the hyperbolic functions are expanded from exp and the rest are refused (LINK/040).
  bool deviceMathLibrary = true;
  // The processor whose assembler checks low.invoke's inline assembly (AMDGPU: "gfx1151").
  std::string_view targetCpu = {};
};

class Lowering {
public:
  Lowering(const Program &program, llvm::Module &module, diag::DiagnosticEngine &diags, std::string targetName,
           LoweringOptions options = {});
  ~Lowering();

  // The internal function "loom.<sym>" for a func.def; its body is lowered on first request.
  llvm::Function *function(const loom::Operation &funcDef);
  // "loom.kernel.<sym>.item": runs one work-item of a kernel.def's body; parameters are the
  // coordinates' leading parameters followed by the launch arguments.
  llvm::Function *kernelItem(const loom::Operation &kernelDef, const KernelCoordinates &coordinates);
  // A kernel whose body has top-level kernel.barrier (or kernel.workgroup.reduce,
  // kernel.subgroup.reduce) ops, split at them ("loop fission"): every
  // work-item of the workgroup runs phases[p] before any runs phases[p + 1]. A phase function
  // takes the coordinates' leading parameters, then `ptr spill` (spillBytes per work-item, indexed
  // by the linear work-item id: values that cross a barrier), then `ptr shared` (one pointer per
  // workgroup allocation, sized by sharedAllocations), then the launch arguments.
  // A top-level kernel.workgroup.reduce or kernel.subgroup.reduce also ends a phase:
  // `combine(ptr spill, i64 items, ptr shared)` folds every work-item's operand (in linear id
  // order) into a shared slot (one per subgroup of the kernel's subgroup size for a subgroup
  // reduction), and runs between phases[beforePhase - 1] and phases[beforePhase]. Targets whose
  // coordinates have no subgroups get them from the linear work-item id.
  struct WorkgroupCombine {
    unsigned beforePhase = 0;
    llvm::Function *combine = nullptr;
  };
  struct KernelPhases {
    std::vector<llvm::Function *> phases;
    std::vector<WorkgroupCombine> combines;
    uint64_t spillBytes = 0;
    std::vector<std::pair<uint64_t, uint64_t>> sharedAllocations;  // bytes, alignment
  };
  static bool hasBarriers(const loom::Operation &kernelDef);
  // Whether the host twin runs the kernel's work-items as cooperating fibers
  // (builtins/Workgroup.c) rather than in phases: a barrier or collective inside control flow,
  // cross-lane matrix fragments (vector.mma, vector.fragment.repack), workgroup memory without
  // a barrier, dynamic workgroup storage, or barriers in a multi-block body.
  bool needsCooperativeTwin(const loom::Operation &kernelDef) const;
  // The kernel's subgroup size (its target record's subgroup_size, 32 by default).
  uint64_t subgroupSize(const loom::Operation &kernelDef) const;
  // The target record a kernel.def names (`target(@t)`, looked up in the kernel's own module: target
  // records are per module), or null.
  static const loom::Operation *targetRecord(const Program &program, const loom::Operation &kernelDef);
  std::optional<KernelPhases> kernelPhases(const loom::Operation &kernelDef, const KernelCoordinates &coordinates);

  // "loom.kernel.<sym>.config": evaluates the launch-config region for the workload arguments and
  // returns [7 x i64] {workgroups x,y,z, workgroup_size x,y,z, dynamic workgroup storage bytes}.
  llvm::Function *kernelConfig(const loom::Operation &kernelDef);
  static constexpr unsigned kLaunchStorageElement = 6;
  // Whether the launch region asks for dynamic workgroup storage (kernel.launch.config ...
  // dynamic_workgroup_storage(%n)), which the host code's "hrx.launch_storage.<sym>" reports.
  static bool hasDynamicWorkgroupStorage(const loom::Operation &kernelDef);

  // "loom.cxx.<symbol>.config": the launch-config of a C/C++ kernel (docs/cxx.md), same result as
  // kernelConfig. Its workload (cxxWorkloadBits) is the total work-items in x (one i64), or
  // nothing when [[loom::workgroup_count]] fixes the grid. The workgroup size is
  // [[loom::workgroup_size]], else (__launch_bounds__ maximum, 1, 1), else (256, 1, 1); the grid
  // is [[loom::workgroup_count]], else (ceil(items / size x), 1, 1).
  llvm::Function *kernelConfig(const cxx::Signature &kernel);
  static std::vector<unsigned> cxxWorkloadBits(const cxx::Signature &kernel);
  static std::array<uint32_t, 3> cxxWorkgroupSize(const cxx::Signature &kernel);

  // The LLVM type a Loom value of `type` is passed as (null if it cannot cross a call).
  llvm::Type *parameterType(const loom::Type &type);

  bool failed() const;

  // In a GPU compile's host twin, a construct with no CPU meaning (low.invoke of amdgpu assembly)
  // is not an error: it becomes a trapping call, and a kernel whose code reaches one has no twin.
  // The first such construct `root` reaches, through direct calls.
  struct HostUnavailable {
    const loom::Operation *op;
    std::string reason;
  };
  std::optional<HostUnavailable> hostUnavailableReason(const llvm::Function &root) const;

private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hrx::bridge
