#include "hrx/bridge/HostCode.h"

#include "hrx/bridge/Builtins.h"
#include "hrx/bridge/Codegen.h"
#include "hrx/format/HostAbi.h"
#include "hrx/cxx/CxxImporter.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>

namespace hrx::bridge {
namespace {

// External functions the shared object may leave to the loading process: the C library's memory
// routines LLVM itself emits for copy loops, the dynamic loader's TLS lookup (C/C++ __shared__
// variables are thread_local on the host), and libm (always loaded beside libstdc++).
bool mayStayUndefined(llvm::StringRef name) {
  static const llvm::StringRef allowed[] = {"memcpy", "memmove", "memset", "__tls_get_addr", "expf", "exp2f", "expm1f",
                                            "logf", "log2f", "log10f", "log1pf", "sinf", "cosf", "tanf", "asinf",
                                            "acosf", "atanf", "atan2f", "sinhf", "coshf", "tanhf", "asinhf", "acoshf",
                                            "atanhf", "erff", "erfcf", "cbrtf", "powf", "fmodf", "exp", "exp2", "log",
                                            "log2", "log10", "sin", "cos", "tan", "pow", "fmod", "erf", "tanh",
                                            // the cooperative workgroup scheduler's stacks (builtins/Workgroup.c)
                                            "mmap", "munmap", "mprotect"};
  for (llvm::StringRef a : allowed)
    if (name == a) return true;
  // HIP units' host twins: the rest of the host libm, and printf.
  return cxx::isHostLibraryFunction(name);
}

bool isAbiSymbol(llvm::StringRef name) { return name.starts_with("hrx."); }

std::expected<std::unique_ptr<llvm::TargetMachine>, std::string> hostMachine(const HostCodeOptions &options) {
  std::string cpu = options.cpu;
  std::string features;
  if (cpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features += (features.empty() ? "" : ",") + std::string(feature.second ? "+" : "-") + feature.first().str();
  }
  // The quick twin: fast instruction selection and register allocation (a tenth of -O2's time).
  return createTargetMachine(kHostTriple, cpu, features, options.quickTwin ? 0 : options.optLevel);
}

// The new pass manager's analysis managers, registered and cross-linked for one machine.
struct AnalysisManagers {
  explicit AnalysisManagers(llvm::TargetMachine &machine) : builder(&machine) {
    builder.registerModuleAnalyses(mam);
    builder.registerCGSCCAnalyses(cgam);
    builder.registerFunctionAnalyses(fam);
    builder.registerLoopAnalyses(lam);
    builder.crossRegisterProxies(lam, fam, cgam, mam);
  }
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder;
};

// Runs a textual new-pass-manager pipeline over the module; `what` names it in the error.
// Pipelines spell function<eager-inv>(...): a function's analyses are dropped once its passes
// ran (as the default pipelines do), instead of staying cached for every function at once.
std::expected<void, std::string> runPipeline(llvm::Module &module, llvm::TargetMachine &machine, const char *pipeline,
                                             const char *what) {
  AnalysisManagers managers(machine);
  llvm::ModulePassManager passes;
  if (llvm::Error error = managers.builder.parsePassPipeline(passes, pipeline))
    return std::unexpected(std::string(what) + ": " + llvm::toString(std::move(error)));
  passes.run(module, managers.mam);
  return {};
}

// Work-item loops carry the kernel's bounds check (`if (i < count)`) in their body, which keeps the
// vectorizer from running them on SSE. Before the default pipeline unrolls them: inline the
// work-items into their loops, hoist the dispatch fields out of them, and let inductive range
// check elimination split each loop into a check-free main part (which vectorizes) and a checked
// remainder.
std::expected<void, std::string> constrainRangeChecks(llvm::Module &module, llvm::TargetMachine &machine) {
  return runPipeline(
      module, machine,
      "always-inline,function<eager-inv>(sroa,early-cse<memssa>,simplifycfg,loop-mssa(licm),loop-simplify,"
      "loop-rotate,irce)",
      "the host loop pipeline");
}

// Whether an innermost loop of `function` may vectorize on the twin's CPU: one whose stores all
// run on every iteration (their blocks dominate the latch). A store under a condition inside the
// loop (a HIP kernel's `if (i < n)` that the range-check split could not take out, on i32 index
// arithmetic) needs masked stores, which x86-64-v2 lacks: the vectorizer's cost model declines
// such a loop every time, after spending as long as on one it vectorizes.
bool mayVectorize(llvm::Function &function) {
  llvm::DominatorTree dominators(function);
  llvm::LoopInfo loops(dominators);
  for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
    if (!loop->isInnermost()) continue;
    llvm::BasicBlock *latch = loop->getLoopLatch();
    if (!latch) continue;
    bool predicatedStore = llvm::any_of(loop->blocks(), [&](llvm::BasicBlock *block) {
      return !dominators.dominates(block, latch) &&
             llvm::any_of(*block, [](const llvm::Instruction &inst) { return inst.mayWriteToMemory(); });
    });
    if (!predicatedStore) return true;
  }
  return false;
}

// The quick host twin's pipeline (--host-twin-opt=quick): what the twin's run-time figures need
// (inlining, scalar clean-up, the loop vectorizer on the range-check-free loops) without the rest
// of the default pipeline, which costs about four times as much per kernel. The vectorizer and its
// clean-up run only on functions with a loop that may vectorize (mayVectorize): they were two
// thirds of a HIP twin's pipeline, spent on loops they leave as they were. The others get the
// CFG clean-up alone (what the vectorizer's clean-up did to them: the empty blocks loop
// simplification left, which cost at -O0).
std::expected<void, std::string> quickTwinPipeline(llvm::Module &module, llvm::TargetMachine &machine) {
  AnalysisManagers managers(machine);
  llvm::ModulePassManager scalar;
  llvm::FunctionPassManager vector, cleanup;
  if (llvm::Error error = managers.builder.parsePassPipeline(
          scalar, "globaldce,"
                  "cgscc(inline,function<eager-inv>(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,simplifycfg)),"
                  "function<eager-inv>(loop-simplify,lcssa,loop-mssa(licm))"))
    return std::unexpected("the quick host twin pipeline: " + llvm::toString(std::move(error)));
  if (llvm::Error error = managers.builder.parsePassPipeline(
          vector, "loop-vectorize,instcombine<no-verify-fixpoint>,simplifycfg"))
    return std::unexpected("the quick host twin pipeline: " + llvm::toString(std::move(error)));
  if (llvm::Error error = managers.builder.parsePassPipeline(cleanup, "simplifycfg"))
    return std::unexpected("the quick host twin pipeline: " + llvm::toString(std::move(error)));
  scalar.run(module, managers.mam);
  managers.mam.clear();
  managers.fam.clear();
  for (llvm::Function &function : module) {
    if (function.isDeclaration()) continue;
    (mayVectorize(function) ? vector : cleanup).run(function, managers.fam);
    managers.fam.clear(function, function.getName());
  }
  return runPipeline(module, machine, "globaldce", "the quick host twin pipeline");
}

std::expected<void, std::string> prepare(llvm::Module &module, llvm::TargetMachine &machine,
                                         const HostCodeOptions &options) {
  module.setTargetTriple(machine.getTargetTriple());
  module.setDataLayout(machine.createDataLayout());
  // A shared object, not an executable: Clang's PIE level (from the imported units) would make
  // thread-local variables local-exec, which a shared object cannot use.
  if (llvm::NamedMDNode *flags = module.getModuleFlagsMetadata()) {
    std::vector<llvm::MDNode *> kept;
    for (llvm::MDNode *flag : flags->operands())
      if (flag->getNumOperands() < 2 || !llvm::isa<llvm::MDString>(flag->getOperand(1)) ||
          llvm::cast<llvm::MDString>(flag->getOperand(1))->getString() != "PIE Level")
        kept.push_back(flag);
    flags->clearOperands();
    for (llvm::MDNode *flag : kept) flags->addOperand(flag);
  }
  if (!module.getGlobalVariable(HRX_HOST_ABI_VERSION_SYMBOL)) {
    llvm::Type *i32 = llvm::Type::getInt32Ty(module.getContext());
    new llvm::GlobalVariable(module, i32, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
                             llvm::ConstantInt::get(i32, HRX_HOST_ABI_VERSION), HRX_HOST_ABI_VERSION_SYMBOL);
  }
  std::string error;
  if (!linkBuiltins(module, error)) return std::unexpected(error);
  if (options.optLevel >= 1) forwardFusedMmaSlots(module);
  // The bfp16 MMA takes its shape as arguments (8x8x8 for the NPU's BF16 MMA); inlined at its
  // call sites the shape is constant, so its loops unroll and vectorize (1.4x faster GEMM stages).
  if (llvm::Function *mma = module.getFunction(kBfpMma); mma && !mma->isDeclaration() && options.optLevel >= 2) {
    mma->removeFnAttr(llvm::Attribute::NoInline);
    mma->addFnAttr(llvm::Attribute::AlwaysInline);
  }
  // HIP __constant__ globals are externally initialized constants: the runtime writes them
  // before a launch (hrx-run --symbol, hipMemcpyToSymbol's role), so they live in writable data.
  for (llvm::GlobalVariable &global : module.globals())
    if (global.isExternallyInitialized() && global.isConstant() && !global.isDeclaration()) global.setConstant(false);
  // Only the ABI entry points are exported; everything else may be inlined away.
  for (llvm::Function &f : module)
    if (!f.isDeclaration() && !isAbiSymbol(f.getName())) f.setLinkage(llvm::GlobalValue::InternalLinkage);
  std::string verifyErrors;
  llvm::raw_string_ostream verifyStream(verifyErrors);
  if (llvm::verifyModule(module, &verifyStream)) return std::unexpected("invalid lowered IR: " + verifyErrors);
  if (options.optLevel >= 2)
    if (auto constrained = constrainRangeChecks(module, machine); !constrained) return constrained;
  if (options.quickTwin && options.optLevel >= 1) {
    if (auto quick = quickTwinPipeline(module, machine); !quick) return quick;
  } else {
    optimizeModule(module, machine, options.optLevel);
  }
  for (llvm::Function &f : module)
    if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty() && !mayStayUndefined(f.getName()))
      return std::unexpected("the lowered code calls '" + f.getName().str() +
                             "', which the host shared object cannot import");
  return {};
}

}  // namespace

std::expected<void, std::string> optimizeForHost(llvm::Module &module, const HostCodeOptions &options) {
  auto machine = hostMachine(options);
  if (!machine) return std::unexpected(machine.error());
  return prepare(module, **machine, options);
}

std::expected<std::string, std::string> hostAssembly(llvm::Module &module, const HostCodeOptions &options) {
  auto machine = hostMachine(options);
  if (!machine) return std::unexpected(machine.error());
  if (auto prepared = prepare(module, **machine, options); !prepared) return std::unexpected(prepared.error());
  auto text = emitModule(module, **machine, EmitFile::Assembly);
  if (!text) return std::unexpected(text.error());
  return std::string(text->begin(), text->end());
}

std::expected<std::vector<uint8_t>, HostCodeError> hostSharedObject(llvm::Module &module,
                                                                    const HostCodeOptions &options) {
  auto machine = hostMachine(options);
  if (!machine) return std::unexpected(HostCodeError{false, machine.error()});
  if (auto prepared = prepare(module, **machine, options); !prepared)
    return std::unexpected(HostCodeError{false, prepared.error()});
  auto object = emitModule(module, **machine, EmitFile::Object);
  if (!object) return std::unexpected(HostCodeError{false, object.error()});
  auto linked = linkElf(
      {"-shared", "-z", "noexecstack", "--build-id=none", "--hash-style=gnu", "-soname", "hrx-host.so"}, {*object});
  if (!linked) return std::unexpected(HostCodeError{true, linked.error()});
  return std::move(*linked);
}

}  // namespace hrx::bridge
