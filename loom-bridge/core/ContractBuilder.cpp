// KernelContracts from the specialized program: per launch buffer, the bytes its views reach, the
// alignment its assume facts promise, and the access its uses perform.
#include "ContractBuilder.h"

#include "hrx/bridge/IrQueries.h"
#include "hrx/bridge/Lowering.h"

#include <llvm/Passes/PassBuilder.h>

#include <algorithm>
#include <map>
#include <set>

namespace hrx::bridge {

using loom::Operation;
using loom::Value;

const char *accessName(Access access) {
  switch (access) {
  case Access::Read: return "Read";
  case Access::Write: return "Write";
  case Access::ReadWrite: return "ReadWrite";
  case Access::None: return "None";
  }
  return "None";
}

format::KernelContract KernelContract::toFormat() const {
  format::KernelContract out;
  for (const BindingContract &b : bindings) {
    if (!b.used) continue;
    format::ContractAccess access = b.access == Access::Read    ? format::ContractAccess::Read
                                    : b.access == Access::Write ? format::ContractAccess::Write
                                                                : format::ContractAccess::ReadWrite;
    out.bindings.push_back({b.bytes, b.alignment, access, b.layout});
  }
  for (const ContractConstant &c : constants) out.constants.insert(out.constants.end(), c.bytes.begin(), c.bytes.end());
  return out;
}

namespace {

Access operator|(Access a, Access b) { return Access(uint8_t(a) | uint8_t(b)); }

struct Usage {
  Access access = Access::None;
  uint64_t bytes = 0;
  uint64_t alignmentFact = 0;
  uint64_t elementAlignment = 0;
  std::string layout;
  std::string failure;  // why bytes could not be derived
  bool sized = false;   // some view of the buffer gave a length (possibly 0)
  std::vector<ExtentRelation> extents;
  bool coherent = false;  // assumed memory_space<host>: coherent, host-visible memory
  bool opaque = false;    // passed to low.invoke assembly, whose addresses no analysis sees
  void merge(const Usage &o) {
    access = access | o.access;
    opaque = opaque || o.opaque;
    coherent = coherent || o.coherent;
    bytes = std::max(bytes, o.bytes);
    alignmentFact = std::max(alignmentFact, o.alignmentFact);
    elementAlignment = std::max(elementAlignment, o.elementAlignment);
    if (layout.empty()) layout = o.layout;
    if (failure.empty()) failure = o.failure;
    sized = sized || o.sized;
    for (const ExtentRelation &r : o.extents)
      if (std::find(extents.begin(), extents.end(), r) == extents.end()) extents.push_back(r);
  }
};

// Operand uses of every value inside one top-level definition.
using UseMap = std::map<const Value *, std::vector<std::pair<const Operation *, unsigned>>>;

class ContractBuilder {
public:
  ContractBuilder(const Program &program, diag::DiagnosticEngine &diags) : program_(program), diags_(diags) {}

  KernelContract build(const Operation &exportOp) {
    KernelContract contract;
    contract.symbol = std::string(exportOp.symbolName());
    unsigned region = exportOp.opcode() == loom::OpCode::KernelDef ? 1 : 0;
    auto signature = ir::signatureValues(exportOp, region);
    signature_.assign(signature.begin(), signature.end());
    for (const Value *arg : signature) {
      const bool view = arg->type()->kind() == loom::TypeKind::View && region == 1;
      if (arg->type()->kind() != loom::TypeKind::Buffer && !view) continue;
      Usage usage = view ? launchView(exportOp, arg) : analyzeBuffer(exportOp, arg);
      BindingContract binding;
      binding.name = std::string(arg->name());
      if (usage.access == Access::None) {
        diags_.report(diag::DiagId::LinkUnusedLaunchArgument, arg->loc())
            .arg("name", binding.name)
            .arg("symbol", contract.symbol);
        contract.bindings.push_back(binding);
        continue;
      }
      // A buffer only assembly reads has no derivable length: like a C/C++ pointer, its minimum
      // is one element, a 32-bit register word.
      if (usage.failure.empty() && !usage.sized && usage.opaque) {
        usage.sized = true;
        usage.bytes = 4;
        usage.elementAlignment = 4;
        usage.layout = "opaque (addressed by low.invoke assembly)";
      }
      if (!usage.failure.empty() || !usage.sized) {
        diags_.report(diag::DiagId::LinkContractExtent, arg->loc())
            .arg("name", binding.name)
            .arg("reason", usage.failure.empty() ? "no view of it has a known extent" : usage.failure);
        continue;
      }
      binding.used = true;
      binding.bytes = usage.bytes;
      binding.alignment = std::max<uint64_t>({usage.alignmentFact, usage.elementAlignment, 1});
      binding.access = usage.access;
      binding.addressSpace = "global";
      binding.usage = kUsageDeviceVisible | (usage.coherent ? kUsageHostVisible | kUsageCoherent : 0);
      binding.layout = usage.layout;
      binding.extents = usage.extents;
      contract.bindings.push_back(binding);
    }
    return contract;
  }

private:
  const UseMap &uses(const Operation &def) {
    auto [it, inserted] = useMaps_.try_emplace(&def);
    if (inserted)
      def.walk([&](const Operation &op) {
        for (unsigned i = 0; i < op.numOperands(); ++i) it->second[op.operand(i)].emplace_back(&op, i);
      });
    return it->second;
  }

  // A proven lower bound of an index value: its folded value, or the low end of a range fact.
  std::optional<int64_t> lowerBound(const Value *v) {
    if (std::optional<int64_t> folded = program_.evaluateInteger(v)) return folded;
    if (v->definingOp() && v->definingOp()->opcode() == loom::OpCode::IndexAssume) {
      const Operation &assume = *v->definingOp();
      const Value *source = assume.operand(v->index());
      for (const loom::Attribute *p : ir::predicates(assume)) {
        auto args = p->elements();
        if (p->str() == "range" && args.size() == 3 && args[0]->kind() == loom::AttrKind::ValueRef &&
            (args[0]->value() == source || args[0]->value() == v) && args[1]->kind() == loom::AttrKind::Integer)
          return args[1]->integer();
      }
      return lowerBound(source);
    }
    return std::nullopt;
  }

  // Bytes spanned by a view type placed at `offset`.
  Usage viewExtent(const loom::Type &view, std::optional<int64_t> offset) {
    Usage u;
    u.layout = view.str() + " row-major";
    const loom::Type &element = *view.elementType();
    u.elementAlignment = ir::elementBytes(element);
    // The length a launch must provide: the view's end at the smallest offset and extents the
    // facts allow. An offset or extent with no stated lower bound is at least 0 (upstream's rule).
    if (!offset || *offset < 0) offset = 0;
    uint64_t count = 1, staticCount = 1;
    const Value *dynamicDim = nullptr;
    unsigned dynamicDims = 0;
    for (const loom::Dim &d : view.shape()) {
      if (d.isStatic())
        staticCount *= uint64_t(std::max<int64_t>(d.extent, 0));
      else
        dynamicDim = d.dynamic, ++dynamicDims;
      std::optional<int64_t> extent = d.isStatic() ? std::optional<int64_t>(d.extent) : lowerBound(d.dynamic);
      count *= uint64_t(extent && *extent > 0 ? *extent : 0);
    }
    u.bytes = uint64_t(*offset) + count * ir::elementBytes(element);
    u.sized = true;
    // One extent taken from a scalar launch argument: the launch states how much it reaches.
    if (dynamicDims == 1)
      if (std::optional<unsigned> argument = launchArgumentOf(dynamicDim))
        u.extents.push_back({*argument, staticCount * ir::elementBytes(element), uint64_t(*offset)});
    return u;
  }

  // The launch signature position of the scalar `v` is (through index.assume), if any.
  std::optional<unsigned> launchArgumentOf(const Value *v) {
    for (unsigned depth = 0; v && depth < 64; ++depth) {
      auto at = std::find(signature_.begin(), signature_.end(), v);
      if (at != signature_.end()) return unsigned(at - signature_.begin());
      const Operation *def = v->definingOp();
      if (!def || def->opcode() != loom::OpCode::IndexAssume || v->index() >= def->numOperands()) return std::nullopt;
      v = def->operand(v->index());
    }
    return std::nullopt;
  }

  // Removes a value from the set of values being visited when the visit ends.
  struct VisitGuard {
    std::set<const Value *> &visiting;
    const Value *value;
    ~VisitGuard() { visiting.erase(value); }
  };

  Usage analyzeBuffer(const Operation &def, const Value *buffer) {
    Usage total;
    if (!active_.insert(buffer).second) return total;  // recursive calls add nothing new
    VisitGuard leave{active_, buffer};
    auto found = uses(def).find(buffer);
    if (found == uses(def).end()) return total;
    for (const auto &[user, index] : found->second) {
      const loom::OpCode code = user->opcode();
      if (code == loom::OpCode::BufferAssumeAlignment) {
        Usage u = analyzeBuffer(def, user->result(index));
        if (std::optional<int64_t> a = ir::integerAttr(*user, "minimum_alignment"))
          u.alignmentFact = std::max<uint64_t>(u.alignmentFact, *a);
        total.merge(u);
      } else if (ir::isBufferAssume(*user)) {
        Usage u = analyzeBuffer(def, user->result(index < user->numResults() ? index : 0));
        if (code == loom::OpCode::BufferAssumeMemorySpace && user->templateParam(0) && user->templateParam(0)->str() == "host")
          u.coherent = true;
        total.merge(u);
      } else if (code == loom::OpCode::BufferView) {
        Usage extent = viewExtent(*user->result(0)->type(), program_.evaluateInteger(user->operand(1)));
        Usage access = analyzeView(def, user->result(0));
        if (access.access != Access::None) {
          extent.access = access.access;
          extent.alignmentFact = access.alignmentFact;
          total.merge(extent);
        }
      } else if (code == loom::OpCode::ScfSelect && index > 0) {
        total.merge(analyzeBuffer(def, user->result(0)));  // either side may be the one viewed
      } else if (code == loom::OpCode::ScfYield && user->parentOp() &&
                 (user->parentOp()->opcode() == loom::OpCode::ScfIf) && index < user->parentOp()->numResults()) {
        total.merge(analyzeBuffer(def, user->parentOp()->result(index)));  // leaves the scf.if as its result
      } else if (user->opcode() == loom::OpCode::TemplateApply || user->opcode() == loom::OpCode::FuncApply) {
        // Any provider may be the one a target selects: the buffer needs what each of them uses.
        for (const Operation *provider : ir::providerCandidates(program_, *user)) {
          std::span<Value *const> params = ir::signatureValues(*provider, 0);
          if (index < params.size()) total.merge(analyzeBuffer(*provider, params[index]));
        }
      } else if (code == loom::OpCode::LowInvoke) {
        total.access = total.access | Access::ReadWrite;
        total.opaque = true;
      } else if (code == loom::OpCode::FuncCall) {
        const SymbolEntry *callee = program_.lookup(ir::symbolRef(*user));
        if (callee && callee->cxx) {
          bool readOnly = index < callee->cxx->params.size() && callee->cxx->params[index].type.pointeeConst;
          total.access = total.access | (readOnly ? Access::Read : Access::ReadWrite);
          continue;
        }
        std::span<Value *const> params = callee ? ir::signatureValues(*callee->op, 0) : std::span<Value *const>();
        if (index < params.size()) total.merge(analyzeBuffer(*callee->op, params[index]));
      } else {
        total.access = total.access | Access::ReadWrite;  // any other use may read and write
      }
    }
    return total;
  }

  // Access through a view (and the alignment facts of the stage records it feeds).
  // A kernel's view launch argument: its binding holds exactly the view (at offset 0).
  Usage launchView(const Operation &def, const Value *view) {
    Usage extent = viewExtent(*view->type(), 0);
    Usage access = analyzeView(def, view);
    extent.access = access.access;
    extent.alignmentFact = access.alignmentFact;
    return extent;
  }

  Usage analyzeView(const Operation &def, const Value *view) {
    Usage total;
    auto found = uses(def).find(view);
    if (found == uses(def).end()) return total;
    for (const auto &[user, index] : found->second) {
      using loom::OpCode;
      const OpCode n = user->opcode();
      bool isBase = user->operandNamed("base") == view;
      bool loads = n == OpCode::ViewLoad || n == OpCode::VectorLoad || n == OpCode::VectorLoadMask ||
                   n == OpCode::VectorFragmentLoad;
      bool stores = n == OpCode::ViewStore || n == OpCode::VectorStore || n == OpCode::VectorStoreMask ||
                    n == OpCode::VectorFragmentStore;
      if (loads && isBase)
        total.access = total.access | Access::Read;
      else if (stores && isBase)
        total.access = total.access | Access::Write;
      else if (n == OpCode::ViewSubview)
        total.merge(analyzeView(def, user->result(0)));
      else if (n == OpCode::PipelineRead || n == OpCode::PipelineScatter) {
        total.access = total.access | Access::Read;
        total.alignmentFact = std::max(total.alignmentFact, recordAlignment(def, user->result(0)));
      } else if (n == OpCode::PipelineWrite) {
        total.access = total.access | Access::Write;
        total.alignmentFact = std::max(total.alignmentFact, recordAlignment(def, user->operand(0)));
      } else
        total.access = total.access | Access::ReadWrite;
    }
    return total;
  }

  // The largest alignment a stage/reduce callee assumes for the records of `flow`.
  uint64_t recordAlignment(const Operation &pipeline, const Value *flow) {
    // A pipeline.buffer links its input and output flows both ways: visit each flow once.
    if (!alignmentVisits_.insert(flow).second) return 0;
    VisitGuard leave{alignmentVisits_, flow};
    uint64_t best = 0;
    auto calleeParam = [&](const Operation &use, unsigned position) {
      const SymbolEntry *callee = program_.lookup(ir::symbolRef(use));
      if (!callee || !callee->op) return;  // C/C++ workers state no alignment facts
      std::span<Value *const> params = ir::signatureValues(*callee->op, 0);
      if (position < params.size()) best = std::max(best, analyzeBuffer(*callee->op, params[position]).alignmentFact);
    };
    // Consumers of the flow.
    if (auto found = uses(pipeline).find(flow); found != uses(pipeline).end())
      for (const auto &[user, index] : found->second) {
        const loom::OpCode n = user->opcode();
        if (n == loom::OpCode::PipelineBuffer) best = std::max(best, recordAlignment(pipeline, user->result(0)));
        if (n == loom::OpCode::PipelineStage || n == loom::OpCode::PipelineReduce) {
          unsigned position = 0;
          for (std::string_view group : {"partials", "inputs"})
            for (const Value *v : user->operandGroup(group)) {
              if (v == flow) calleeParam(*user, position);
              ++position;
            }
        }
      }
    // The producer of the flow.
    if (const Operation *producer = flow->definingOp()) {
      const loom::OpCode n = producer->opcode();
      if (n == loom::OpCode::PipelineStage || n == loom::OpCode::PipelineReduce) {
        unsigned inputs = 0;
        for (std::string_view group : {"partials", "inputs"}) inputs += producer->operandGroup(group).size();
        calleeParam(*producer, inputs + flow->index());
      } else if (n == loom::OpCode::PipelineBuffer) {
        best = std::max(best, recordAlignment(pipeline, producer->operand(0)));
      }
    }
    return best;
  }

  const Program &program_;
  diag::DiagnosticEngine &diags_;
  std::map<const Operation *, UseMap> useMaps_;
  std::set<const Value *> active_;
  std::set<const Value *> alignmentVisits_;
  std::vector<const Value *> signature_;  // of the export being built
};

}  // namespace

namespace {

// Promotes the importer's stack slots to values and infers each function's argument memory
// effects (readonly / writeonly), which is what a C/C++ kernel's contract reads.
void inferArgumentEffects(llvm::Module &module) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder;
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager passes;
  llvm::cantFail(builder.parsePassPipeline(passes, "always-inline,function(sroa,early-cse),cgscc(function-attrs)"));
  passes.run(module, modules);
}

// A C/C++ kernel's contract from its signature and attributes: each pointer parameter is a
// binding (const pointee → Read; otherwise what the body does: Write or ReadWrite); with a fixed
// grid (loom::workgroup_count, and the workgroup size of the launch program) every work-item owns
// one element, else the minimum is one element.
KernelContract cxxKernelContract(const cxx::Signature &sig, const llvm::Function *function) {
  KernelContract contract;
  contract.symbol = sig.symbol;
  std::optional<uint64_t> items;
  if (sig.workgroupCount) {
    std::array<uint32_t, 3> size = Lowering::cxxWorkgroupSize(sig);
    items = 1;
    for (unsigned d = 0; d < 3; ++d) *items *= uint64_t(size[d]) * (*sig.workgroupCount)[d];
  }
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const cxx::ValueType &type = sig.params[i].type;
    // Buffers are generic or global pointers; a pointer into another address space (LDS) is not.
    if (type.kind != cxx::ValueType::Kind::Pointer || type.addressSpace > 1) continue;
    BindingContract binding;
    binding.name = sig.params[i].name;
    const llvm::Argument *arg = function && i < function->arg_size() ? function->getArg(unsigned(i)) : nullptr;
    bool reads = !arg || !arg->hasAttribute(llvm::Attribute::WriteOnly);
    bool writes = !type.pointeeConst && (!arg || !arg->onlyReadsMemory());
    if (arg && arg->use_empty()) reads = writes = false;
    binding.access = reads && writes ? Access::ReadWrite : writes ? Access::Write : reads ? Access::Read : Access::None;
    binding.used = binding.access != Access::None;
    if (binding.used) {
      uint64_t element = std::max<uint64_t>(type.pointeeBytes, 1);
      binding.bytes = items ? *items * element : element;
      binding.alignment = 64;
      binding.addressSpace = "global";
      binding.usage = kUsageDeviceVisible;
      binding.layout = "contiguous row-major";
    }
    contract.bindings.push_back(binding);
  }
  return contract;
}

}  // namespace

bool deriveContracts(Program &program, diag::DiagnosticEngine &diags) {
  unsigned errors = diags.errorCount();
  ContractBuilder builder(program, diags);
  for (const Operation *exportOp : program.exports) program.contracts.push_back(builder.build(*exportOp));
  std::set<size_t> analyzed;
  for (const cxx::Signature *kernel : program.cxxKernels) {
    const SymbolEntry *entry = program.lookup(kernel->name);
    size_t unit = entry && entry->cxx == kernel ? entry->cxxUnit : program.cxxUnits.size();
    const llvm::Function *function = nullptr;
    if (unit < program.cxxUnits.size()) {
      llvm::Module &module = *program.cxxUnits[unit].module;
      if (analyzed.insert(unit).second) inferArgumentEffects(module);
      function = module.getFunction(kernel->symbol);
    }
    program.contracts.push_back(cxxKernelContract(*kernel, function));
  }
  return diags.errorCount() == errors;
}

}  // namespace hrx::bridge
