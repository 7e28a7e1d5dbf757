// low.invoke of a low.func.def whose body is AMDGPU assembly (`asm { ... }`): one inline-asm
// call. Each line is an instruction in Loom's spelling (`%r = s_sendmsg_rtn_b32 {message = 131}`);
// results become early-clobber outputs, the function's parameters inputs, each constrained by
// its register class (reg<amdgpu.sgpr> 's', vgpr 'v', agpr 'a'). Every line is checked by the
// AMDGPU assembler first, so a bad instruction is a located error and not a codegen failure.
#include "LoweringImpl.h"
#include "LowHost.h"

#include "hrx/bridge/Codegen.h"
#include "hrx/diag/SourceManager.h"
#include "hrx/loom/Lexer.h"

#include <llvm/IR/InlineAsm.h>

namespace hrx::bridge {
namespace {

using loom::Tok;
using loom::Token;

using lowlane::lexText;
using lowlane::RegisterClass;
using lowlane::registerClassAt;

char constraintLetter(const RegisterClass &rc) {
  if (rc.name == "amdgpu.sgpr") return 's';
  if (rc.name == "amdgpu.vgpr") return 'v';
  if (rc.name == "amdgpu.agpr") return 'a';
  return 0;
}

// The register class an instruction's result has when the body does not write one: scalar
// (s_*) instructions write SGPRs, vector (v_*) ones VGPRs; 64-bit forms a pair.
std::optional<RegisterClass> impliedClass(std::string_view mnemonic) {
  bool wide = mnemonic.ends_with("_b64") || mnemonic.ends_with("_u64") || mnemonic.ends_with("_i64") ||
              mnemonic.ends_with("_f64");
  if (mnemonic.starts_with("s_")) return RegisterClass{"amdgpu.sgpr", wide ? 2u : 1u};
  if (mnemonic.starts_with("v_")) return RegisterClass{"amdgpu.vgpr", wide ? 2u : 1u};
  return std::nullopt;
}

// A register of the class, for checking a line with the assembler (`s10`, `v[12:13]`).
std::string sampleRegister(char letter, unsigned units, unsigned index) {
  unsigned first = 16 + 4 * index;
  if (units == 1) return letter + std::to_string(first);
  return std::string(1, letter) + "[" + std::to_string(first) + ":" + std::to_string(first + units - 1) + "]";
}

// The AMDGPU spelling of one `key = value` of an instruction's attribute dictionary; empty when
// the key has none.
std::string operandSpelling(std::string_view key, std::string_view value) {
  if (key == "vmcnt" || key == "lgkmcnt" || key == "expcnt") return std::string(key) + "(" + std::string(value) + ")";
  if (key == "vscnt") return "null, " + std::string(value);
  if (key == "message") return "sendmsg(" + std::string(value) + ")";
  if (key == "offset") return "offset:" + std::string(value);
  if (key == "imm" || key == "value") return std::string(value);
  return {};
}

}  // namespace

void Lowering::Impl::lowerLowInvoke(const Operation &op) {
  const SymbolEntry *callee = program_.lookup(ir::symbolRef(op));
  if (!callee || callee->cxx || callee->op->opcode() != loom::OpCode::LowFuncDef)
    unsupported(op, "the callee is not a low.func.def defined in the inputs");
  const Operation &fn = *callee->op;
  std::vector<Token> head = fn.opaqueText().empty() ? std::vector<Token>{} : lexText(fn.opaqueText()[0]);
  std::string arch = "unknown";
  for (size_t i = 0; i + 2 < head.size(); ++i)
    if (head[i].isIdent("target") && head[i + 1].is(Tok::Less)) {
      std::string_view contract = head[i + 2].text;
      arch = std::string(contract.substr(0, contract.find('.')));
      break;
    }
  // The signature: parameter and result register classes, in order.
  std::vector<RegisterClass> params, results;
  bool afterArrow = false;
  for (size_t i = 0; i < head.size();) {
    if (head[i].is(Tok::Arrow)) afterArrow = true;
    if (std::optional<RegisterClass> rc = registerClassAt(head, i)) {
      (afterArrow ? results : params).push_back(*rc);
      continue;
    }
    ++i;
  }
  // The body's per-lane meaning (lower/LowHost.cpp). A body without one is a located LINK/040,
  // or in a GPU compile's host twin keeps the kernel out of the twin (LINK/045).
  auto lowerLanes = [&] {
    auto fail = [&](const lowlane::LaneFailure &failure) {
      if (inGpuHostTwin())
        return markHostUnavailable(op, "low.invoke of @" + std::string(fn.symbolName()) + ": " + failure.reason);
      unsupported(failure.at ? *failure.at : op, failure.reason);
    };
    if (params.size() != op.numOperands() || results.size() != op.numResults())
      return fail({nullptr, "its operands and results do not match the low.func.def's " +
                                std::to_string(params.size()) + " parameter(s) and " + std::to_string(results.size()) +
                                " result(s)"});
    const llvm::DataLayout &layout = module_.getDataLayout();
    auto bitsOf = [&](llvm::Type *type) -> uint64_t {
      return type->isPointerTy() ? layout.getPointerSizeInBits(type->getPointerAddressSpace())
                                 : uint64_t(type->getPrimitiveSizeInBits());
    };
    auto registerBits = [](const RegisterClass &rc) { return rc.isScc() ? 1u : 32 * rc.units; };
    // Every check before any IR: the operands fit their registers, the results their types.
    std::vector<llvm::Type *> resultTypes;
    for (unsigned j = 0; j < op.numResults(); ++j) {
      llvm::Type *type = valueType(*op.result(j)->type(), &op);
      if (type->isPointerTy() || bitsOf(type) != registerBits(results[j]))
        return fail({nullptr, "result " + std::to_string(j) + " has " + std::to_string(bitsOf(type)) +
                                  " bits, its register " + std::to_string(registerBits(results[j]))});
      resultTypes.push_back(type);
    }
    std::vector<llvm::Value *> operands;
    for (unsigned i = 0; i < op.numOperands(); ++i) {
      llvm::Value *v = get(op.operand(i));
      uint64_t bits = registerBits(params[i]);
      bool widens = v->getType()->isIntegerTy() && v->getType()->getIntegerBitWidth() < bits;
      if (!widens && bitsOf(v->getType()) != bits)
        return fail(
            {nullptr, "operand " + std::to_string(i) + " does not fit its " + std::to_string(bits) + "-bit register"});
      operands.push_back(v);
    }
    std::expected<std::shared_ptr<const lowlane::LaneProgram>, lowlane::LaneFailure> program =
        lowlane::decodeLaneBody(fn, params, results);
    if (!program) return fail(program.error());
    llvm::IRBuilder<> &b = *b_;
    for (size_t i = 0; i < operands.size(); ++i) {
      llvm::Type *word = b.getIntNTy(unsigned(registerBits(params[i])));
      llvm::Value *&v = operands[i];
      if (v->getType()->isPointerTy()) v = b.CreatePtrToInt(v, b.getIntNTy(unsigned(bitsOf(v->getType()))));
      v = v->getType()->isIntegerTy() ? b.CreateZExt(v, word) : b.CreateBitCast(v, word);
    }
    std::vector<llvm::Value *> values = lowlane::emitLaneBody(b, **program, operands);
    for (unsigned j = 0; j < op.numResults(); ++j)
      set(op, j, resultTypes[j]->isIntegerTy() ? values[j] : b.CreateBitCast(values[j], resultTypes[j]));
  };
  bool device = options_.targetFamily == "amdgpu" && !options_.targetCpu.empty();
  bool asmBody = !head.empty() && head.back().isIdent("asm");
  bool singleBlock = !fn.regions().empty() && fn.regions()[0].blocks().size() == 1;
  // The host (and a GPU compile's host twin) runs the body's per-lane meaning; so does the device
  // for bodies inline asm cannot hold (low.* dataflow, asm with blocks).
  if (arch == "amdgpu" && (options_.targetFamily == "host" || (device && !(asmBody && singleBlock))))
    return lowerLanes();
  if (arch != "amdgpu" || !device)
    unsupported(op,
                "low.invoke of " + arch + " assembly cannot run on " +
                    (options_.targetFamily == "amdgpu" && !options_.targetCpu.empty() ? "this target" : "the host"));
  const loom::Block &body = *fn.regions()[0].blocks()[0];
  if (params.size() != body.arguments().size() || params.size() != op.numOperands() ||
      results.size() != op.numResults())
    unsupported(op, "its operands and results do not match the low.func.def's " + std::to_string(params.size()) +
                        " parameter(s) and " + std::to_string(results.size()) + " result(s)");

  // Operands of the asm: every instruction result (outputs), then the parameters and the
  // 32-bit slices of parameters (inputs). `%s = slice %p[i] : reg<C xN> -> reg<C>` is register i
  // of a parameter (extracted before the asm); `%t = concat(%a, ...) : (...) -> reg<C xN>` joins
  // instruction results into a tuple (joined after it).
  struct Slice {
    std::string_view name;
    unsigned param = 0, element = 0;
  };
  std::vector<Slice> slices;
  std::map<std::string_view, std::vector<std::string_view>> concats;
  auto paramIndex = [&](std::string_view name) -> std::optional<unsigned> {
    for (size_t k = 0; k < body.arguments().size(); ++k)
      if (body.arguments()[k]->name() == name) return unsigned(k);
    return std::nullopt;
  };
  for (const Operation &line : body) {
    if (line.numResults() != 1 || (line.name() != "slice" && line.name() != "concat")) continue;
    std::vector<Token> text = lexText(line.opaqueText().empty() ? "" : line.opaqueText()[0]);
    if (line.name() == "slice") {
      std::optional<unsigned> param = text.empty() ? std::nullopt : paramIndex(text[0].name());
      if (!param || text.size() < 4 || !text[1].is(Tok::LSquare) || !text[2].is(Tok::Integer))
        unsupported(line, "a slice takes register [i] of a parameter of the callee (`slice %p[0] : ...`)");
      unsigned element = unsigned(std::atoi(std::string(text[2].text).c_str()));
      if (element >= params[*param].units)
        unsupported(line, "register " + std::to_string(element) + " of a " + std::to_string(params[*param].units) +
                              "-register parameter");
      slices.push_back({line.result(0)->name(), *param, element});
      continue;
    }
    std::vector<std::string_view> parts;
    for (const Token &t : text) {
      if (t.is(Tok::Colon)) break;
      if (t.is(Tok::ValueId)) parts.push_back(t.name());
    }
    concats[line.result(0)->name()] = std::move(parts);
  }
  auto isPseudo = [](const Operation &line) { return line.name() == "slice" || line.name() == "concat"; };
  std::vector<const Value *> outputs;
  std::vector<std::optional<RegisterClass>> outputClasses;
  std::vector<std::vector<std::string_view>> returned;  // per result: its parts
  for (const Operation &line : body) {
    if (isPseudo(line)) continue;
    if (line.name() == "return") {
      for (const Token &t : lexText(line.opaqueText().empty() ? "" : line.opaqueText()[0])) {
        if (!t.is(Tok::ValueId)) continue;
        // A returned concat returns its parts, one output each (joined into the result after).
        auto c = concats.find(t.name());
        returned.push_back(c != concats.end() ? c->second : std::vector<std::string_view>{t.name()});
      }
      continue;
    }
    for (unsigned r = 0; r < line.numResults(); ++r) {
      outputs.push_back(line.result(r));
      std::vector<Token> text = lexText(line.opaqueText().empty() ? "" : line.opaqueText()[0]);
      std::optional<RegisterClass> written;
      for (size_t i = 0; i < text.size(); ++i)
        if (text[i].is(Tok::Arrow) && i + 1 < text.size()) {
          size_t at = i + 1;
          written = registerClassAt(text, at);
        }
      outputClasses.push_back(written ? written : impliedClass(line.name()));
    }
  }
  if (returned.size() != results.size())
    unsupported(op, "the callee's asm body returns " + std::to_string(returned.size()) + " value(s), its signature " +
                        std::to_string(results.size()));
  std::vector<int> returnSlot(outputs.size(), -1);
  std::vector<std::vector<unsigned>> resultParts(returned.size());  // output indices per result
  for (size_t j = 0; j < returned.size(); ++j) {
    unsigned parts = unsigned(returned[j].size());
    if (results[j].units % parts != 0)
      unsupported(op, "result " + std::to_string(j) + " joins " + std::to_string(parts) + " registers into " +
                          std::to_string(results[j].units));
    for (std::string_view part : returned[j]) {
      bool found = false;
      for (size_t k = 0; k < outputs.size() && !found; ++k)
        if (outputs[k]->name() == part) {
          returnSlot[k] = int(j);
          outputClasses[k] = RegisterClass{results[j].name, results[j].units / parts};
          resultParts[j].push_back(unsigned(k));
          found = true;
        }
      if (!found) unsupported(op, "the callee returns %" + std::string(part) + ", which no instruction defines");
    }
  }

  auto operandIndex = [&](std::string_view name) -> std::optional<unsigned> {
    for (size_t k = 0; k < outputs.size(); ++k)
      if (outputs[k]->name() == name) return unsigned(k);
    for (size_t k = 0; k < body.arguments().size(); ++k)
      if (body.arguments()[k]->name() == name) return unsigned(outputs.size() + k);
    for (size_t k = 0; k < slices.size(); ++k)
      if (slices[k].name == name) return unsigned(outputs.size() + params.size() + k);
    return std::nullopt;
  };
  auto classOf = [&](unsigned index) {
    if (index < outputs.size()) return *outputClasses[index];
    if (index < outputs.size() + params.size()) return params[index - outputs.size()];
    return RegisterClass{params[slices[index - outputs.size() - params.size()].param].name, 1};
  };
  for (size_t k = 0; k < outputs.size(); ++k)
    if (!outputClasses[k] || !constraintLetter(*outputClasses[k]))
      unsupported(op,
                  "the register class of %" + std::string(outputs[k]->name()) +
                      " in the callee is not amdgpu.sgpr, amdgpu.vgpr or amdgpu.agpr (an unreturned result names it: "
                      "`: ... -> reg<amdgpu.vgpr>`)");
  for (const RegisterClass &rc : params)
    if (!constraintLetter(rc)) unsupported(op, "the callee's parameter register class " + rc.name + " is not AMDGPU's");

  // Each line in AMDGPU syntax, with $N for LLVM and sample registers for the assembler check.
  std::string asmText;
  for (const Operation &line : body) {
    if (line.name() == "return" || isPseudo(line)) continue;
    std::vector<std::string> forLlvm, forCheck;
    auto addRegister = [&](unsigned index) {
      RegisterClass rc = classOf(index);
      forLlvm.push_back("$" + std::to_string(index));
      forCheck.push_back(sampleRegister(constraintLetter(rc), rc.units, index));
    };
    for (unsigned r = 0; r < line.numResults(); ++r) addRegister(*operandIndex(line.result(r)->name()));
    std::vector<Token> text = lexText(line.opaqueText().empty() ? "" : line.opaqueText()[0]);
    std::vector<std::string> attrs;
    int depth = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      const Token &t = text[i];
      if (t.is(Tok::Colon) && depth == 0) break;  // the written types
      if (t.is(Tok::LBrace)) ++depth;
      if (t.is(Tok::RBrace)) --depth;
      if (t.is(Tok::ValueId) && depth == 0) {
        std::optional<unsigned> index = operandIndex(t.name());
        if (!index) {
          diags_.report(diag::DiagId::LinkUnsupportedOp, line.loc())
              .arg("op", std::string(line.name()))
              .arg("target", target_)
              .arg("reason", "%" + std::string(t.name()) + " is neither a parameter nor an earlier result");
          throw LoweringError{};
        }
        addRegister(*index);
      }
      if (t.is(Tok::Integer) && depth == 0) {  // an immediate operand (`s_mov_b32 84148480`)
        forLlvm.emplace_back(t.text);
        forCheck.emplace_back(t.text);
      }
      if (depth == 1 && t.is(Tok::Ident) && i + 2 < text.size() && text[i + 1].is(Tok::Equal)) {
        std::string spelled = operandSpelling(t.text, text[i + 2].text);
        if (spelled.empty()) {
          diags_.report(diag::DiagId::LinkUnsupportedOp, line.loc())
              .arg("op", std::string(line.name()))
              .arg("target", target_)
              .arg("reason", "its attribute '" + std::string(t.text) + "' has no AMDGPU assembly spelling in hrxcc");
          throw LoweringError{};
        }
        attrs.push_back(std::move(spelled));
      }
    }
    // Counter waits list their counters space-separated; other attributes are operands.
    bool counters = line.name() == "s_waitcnt";
    auto render = [&](const std::vector<std::string> &registers) {
      std::string out(line.name());
      std::string sep = " ";
      for (const std::string &r : registers) out += std::exchange(sep, ", ") + r;
      for (const std::string &a : attrs) out += (counters ? " " : std::exchange(sep, ", ")) + a;
      return out;
    };
    std::string checked = render(forCheck);
    if (std::optional<std::string> error =
            assemblyError(module_.getTargetTriple().str(), std::string(options_.targetCpu), checked)) {
      diags_.report(diag::DiagId::LinkUnsupportedOp, line.loc())
          .arg("op", std::string(line.name()))
          .arg("target", target_)
          .arg("reason", "the AMDGPU assembler rejects '" + checked + "': " + *error);
      throw LoweringError{};
    }
    asmText += render(forLlvm) + "\n";
  }

  // The call: outputs (returned ones in the invoke's result types), then the inputs.
  llvm::IRBuilder<> &b = *b_;
  std::string constraints;
  std::vector<llvm::Type *> outputTypes;
  for (size_t k = 0; k < outputs.size(); ++k) {
    RegisterClass rc = *outputClasses[k];
    constraints += std::string(constraints.empty() ? "" : ",") + "=&" + constraintLetter(rc);
    bool whole = returnSlot[k] >= 0 && resultParts[size_t(returnSlot[k])].size() == 1;
    llvm::Type *type = whole ? valueType(*op.result(unsigned(returnSlot[k]))->type(), &op)
                             : llvm::Type::getIntNTy(context_, 32 * rc.units);
    if (type->getPrimitiveSizeInBits() != 32 * rc.units)
      unsupported(op, "result " + std::to_string(returnSlot[k]) + " has " +
                          std::to_string(type->getPrimitiveSizeInBits()) + " bits, its register " +
                          std::to_string(32 * rc.units));
    outputTypes.push_back(type);
  }
  std::vector<llvm::Value *> inputs;
  std::vector<llvm::Type *> inputTypes;
  for (unsigned i = 0; i < op.numOperands(); ++i) {
    llvm::Value *v = get(op.operand(i));
    unsigned bits = 32 * params[i].units;
    if (v->getType()->isIntegerTy() && v->getType()->getIntegerBitWidth() < bits)
      v = b.CreateZExt(v, b.getIntNTy(bits));
    if (v->getType()->getPrimitiveSizeInBits() != bits)
      unsupported(op, "operand " + std::to_string(i) + " does not fit its " + std::to_string(bits) + "-bit register");
    constraints += std::string(constraints.empty() ? "" : ",") + constraintLetter(params[i]);
    inputs.push_back(v);
    inputTypes.push_back(v->getType());
  }
  for (const Slice &s : slices) {
    llvm::Value *whole = inputs[s.param];
    unsigned units = params[s.param].units;
    llvm::Value *words = b.CreateBitCast(whole, llvm::FixedVectorType::get(b.getInt32Ty(), units));
    constraints += std::string(",") + constraintLetter(params[s.param]);
    inputs.push_back(b.CreateExtractElement(words, uint64_t(s.element)));
    inputTypes.push_back(b.getInt32Ty());
  }
  llvm::Type *ret = outputTypes.empty()       ? b.getVoidTy()
                    : outputTypes.size() == 1 ? outputTypes[0]
                                              : llvm::StructType::get(context_, outputTypes);
  auto *asmCall = llvm::InlineAsm::get(llvm::FunctionType::get(ret, inputTypes, false), asmText, constraints,
                                       /*hasSideEffects=*/true);
  llvm::CallInst *call = b.CreateCall(asmCall, inputs);
  auto output = [&](unsigned k) { return outputs.size() == 1 ? call : b.CreateExtractValue(call, k); };
  for (size_t j = 0; j < resultParts.size(); ++j) {
    const std::vector<unsigned> &parts = resultParts[j];
    if (parts.size() == 1) {
      set(op, unsigned(j), output(parts[0]));
      continue;
    }
    // A concat: its parts' words in order, as the result's type.
    unsigned partUnits = results[j].units / unsigned(parts.size());
    llvm::Value *words = llvm::PoisonValue::get(llvm::FixedVectorType::get(b.getInt32Ty(), results[j].units));
    for (size_t p = 0; p < parts.size(); ++p) {
      llvm::Value *part = b.CreateBitCast(output(parts[p]), llvm::FixedVectorType::get(b.getInt32Ty(), partUnits));
      for (unsigned w = 0; w < partUnits; ++w)
        words = b.CreateInsertElement(words, b.CreateExtractElement(part, uint64_t(w)), uint64_t(p * partUnits + w));
    }
    llvm::Type *type = valueType(*op.result(unsigned(j))->type(), &op);
    if (type->getPrimitiveSizeInBits() != 32 * results[j].units)
      unsupported(op, "result " + std::to_string(j) + " has " + std::to_string(type->getPrimitiveSizeInBits()) +
                          " bits, its registers " + std::to_string(32 * results[j].units));
    set(op, unsigned(j), b.CreateBitCast(words, type));
  }
}

// The host twin of a GPU compile: the construct stays out of the twin. A call of the marker
// function (it traps) stands in for it and its results are poison; the kernels that reach the call
// get no host entry (hostUnavailableReason), and LINK/045 says so, instead of failing the compile.
void Lowering::Impl::markHostUnavailable(const Operation &op, std::string reason) {
  llvm::Function *marker = module_.getFunction(kHostUnavailableMarker);
  if (!marker) {
    auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context_), {llvm::Type::getInt32Ty(context_)}, false);
    marker = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, kHostUnavailableMarker, module_);
    marker->addFnAttr(llvm::Attribute::NoInline);
    llvm::IRBuilder<> body(llvm::BasicBlock::Create(context_, "entry", marker));
    body.CreateIntrinsic(llvm::Intrinsic::trap, {});
    body.CreateUnreachable();
  }
  hostUnavailable_.push_back({&op, std::move(reason)});
  b_->CreateCall(marker, {b_->getInt32(uint32_t(hostUnavailable_.size() - 1))});
  for (unsigned r = 0; r < op.numResults(); ++r)
    set(op, r, llvm::PoisonValue::get(valueType(*op.result(r)->type(), &op)));
}

std::optional<Lowering::HostUnavailable> Lowering::Impl::hostUnavailableReason(const llvm::Function &root) const {
  const llvm::Function *marker = module_.getFunction(kHostUnavailableMarker);
  if (!marker) return std::nullopt;
  std::set<const llvm::Function *> seen;
  std::vector<const llvm::Function *> work = {&root};
  while (!work.empty()) {
    const llvm::Function *f = work.back();
    work.pop_back();
    if (!f || !seen.insert(f).second) continue;
    for (const llvm::BasicBlock &block : *f)
      for (const llvm::Instruction &inst : block)
        if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
          if (call->getCalledFunction() == marker) {
            auto *index = llvm::cast<llvm::ConstantInt>(call->getArgOperand(0));
            const auto &[op, reason] = hostUnavailable_[index->getZExtValue()];
            return HostUnavailable{op, reason};
          }
          work.push_back(call->getCalledFunction());
        }
  }
  return std::nullopt;
}

}  // namespace hrx::bridge
