// hrx-loom-docs: prints the per-target op table of docs/loom.md, or checks or updates the
// generated section of that file (--check FILE, --update FILE).
//
// The table is measured, not written down: for every op of the registry (Ops.def) the tool builds
// a small probe program that uses the op and compiles it through the compiler library for each
// target. A cell says "yes" only when the probe compiled; otherwise it names the first diagnostic.
// Ops whose operand forms the tool cannot synthesize are listed as "not probed", never guessed.
#include "hrx/Compiler.h"
#include "hrx/loom/IR.h"
#include "hrx/loom/OpDef.h"

#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

using namespace hrx;

// Where a probe puts the op: in a work-item body of a kernel, in the body of a Loom worker of an
// NPU pipeline stage, or in the pipeline itself.
enum class Context { Body, Kernel, Pipeline };

struct Probe {
  Context context = Context::Body;
  std::string top;   // module-level lines placed before the wrapper
  std::string body;  // lines placed in the wrapper's body
};

// Values a probe body may use: each name with the line that defines it (the tool adds the lines a
// body needs, in this order). %data is the wrapper's buffer argument.
const std::vector<std::pair<std::string, std::string>> &valueDefinitions() {
  static const std::vector<std::pair<std::string, std::string>> defs = {
      {"zero", "%zero = index.constant 0 : offset"},
      {"i0", "%i0 = index.constant 0 : index"},
      {"i1", "%i1 = index.constant 1 : index"},
      {"i4", "%i4 = index.constant 4 : index"},
      {"src", "%src = buffer.view %data[%zero] : buffer -> view<4xf32>"},
      {"f", "%f = scalar.constant 1.5 : f32"},
      {"hf", "%hf = scalar.constant 1.5 : f16"},
      {"i", "%i = scalar.constant 3 : i32"},
      {"h", "%h = scalar.constant 3 : i16"},
      {"vf", "%vf = vector.splat %f : vector<4xf32>"},
      {"vhf", "%vhf = vector.splat %hf : vector<4xf16>"},
      {"vi", "%vi = vector.splat %i : vector<4xi32>"},
      {"vh", "%vh = vector.splat %h : vector<4xi16>"},
      {"c", "%c = scalar.cmpf olt, %f, %f : f32"},
      {"vc", "%vc = vector.cmpf olt, %vf, %vf : vector<4xf32> -> vector<4xi1>"},
  };
  return defs;
}

// The value of each probe type.
const std::map<std::string, std::string> kValueOfType = {
    {"index", "%i4"},
    {"i32", "%i"},
    {"i16", "%h"},
    {"f32", "%f"},
    {"f16", "%hf"},
    {"vector<4xf32>", "%vf"},
    {"vector<4xi32>", "%vi"},
    {"vector<4xi16>", "%vh"},
    {"vector<4xf16>", "%vhf"},
};

// The probe type of an op's principal slot, from its type class.
std::optional<std::string> probeType(loom::TypeClass typeClass) {
  switch (typeClass) {
  case loom::TypeClass::Address:
  case loom::TypeClass::Index: return "index";
  case loom::TypeClass::Int: return "i32";
  case loom::TypeClass::Float:
  case loom::TypeClass::Scalar: return "f32";
  case loom::TypeClass::IntVector: return "vector<4xi32>";
  case loom::TypeClass::FloatVector:
  case loom::TypeClass::AnyVector: return "vector<4xf32>";
  default: return std::nullopt;
  }
}

// Source and result types of a conversion, by its verifier hook.
std::optional<std::pair<std::string, std::string>> conversionTypes(const loom::OpDef &def) {
  using loom::VerifyHook;
  std::pair<std::string, std::string> scalar;
  switch (def.hook) {
  case VerifyHook::ExtendInt: scalar = {"i16", "i32"}; break;
  case VerifyHook::TruncateInt: scalar = {"i32", "i16"}; break;
  case VerifyHook::ExtendFloat: scalar = {"f16", "f32"}; break;
  case VerifyHook::TruncateFloat: scalar = {"f32", "f16"}; break;
  case VerifyHook::IntToFloat: scalar = {"i32", "f32"}; break;
  case VerifyHook::FloatToInt: scalar = {"f32", "i32"}; break;
  case VerifyHook::Bitcast: scalar = {"i32", "f32"}; break;
  case VerifyHook::IndexCast: return std::pair<std::string, std::string>{"index", "i32"};
  default: return std::nullopt;
  }
  if (!def.name.starts_with("vector.")) return scalar;
  return std::pair<std::string, std::string>{"vector<4x" + scalar.first + ">", "vector<4x" + scalar.second + ">"};
}

// Probes for ops with forms of their own (inputs to the measurement, not answers).
// Providers the template.* and func.template probes select.
constexpr const char *kTemplateProvider =
    "template.decl @probe.family(%x: f32) -> (f32)\n"
    "template.def<@probe.family> @probe.impl(%x: f32) -> (f32) {\n  template.return %x : f32\n}";
constexpr const char *kLowProvider = "low.func.def target<amdgpu.gfx11.generic.core> @probe.low() -> "
                                     "(reg<amdgpu.sgpr>) asm {\n  %t = s_mov_b32 0\n  return %t\n}";
constexpr const char *kFuncProvider =
    "func.template<probe.key> @probe.provider(%x: f32) -> (f32) {\n  func.return %x : f32\n}";
constexpr const char *kWhileProbe = "%r = scf.while(%w = %i : i32) -> (i32) {\n"
                                    "    %more = scalar.cmpi slt, %w, %i : i32\n"
                                    "    scf.condition %more, %w : i1, i32\n"
                                    "  } do(%x: i32) {\n"
                                    "    scf.yield %x : i32\n"
                                    "  }";

const std::map<std::string, Probe, std::less<>> &specialProbes() {
  static const std::map<std::string, Probe, std::less<>> probes = {
      // Upstream ops added for issue 19 (providers, records, scf.while, vector and scalar forms).
      {"vm.target", {Context::Body, "vm.target<core> @vm", ""}},
      {"x86.target", {Context::Body, "x86.target @x86", ""}},
      {"wasm.target", {Context::Body, "wasm.target @wasm", ""}},
      {"template.decl", {Context::Body, kTemplateProvider, "%r = template.apply<@probe.family>(%f) : (f32) -> (f32)"}},
      {"template.def", {Context::Body, kTemplateProvider, "%r = template.apply<@probe.family>(%f) : (f32) -> (f32)"}},
      {"template.apply", {Context::Body, kTemplateProvider, "%r = template.apply<@probe.family>(%f) : (f32) -> (f32)"}},
      {"template.return",
       {Context::Body, kTemplateProvider, "%r = template.apply<@probe.family>(%f) : (f32) -> (f32)"}},
      {"func.template", {Context::Body, kFuncProvider, "%r = func.apply<probe.key>(%f) : (f32) -> (f32)"}},
      {"func.apply", {Context::Body, kFuncProvider, "%r = func.apply<probe.key>(%f) : (f32) -> (f32)"}},
      {"scalar.bitfield.extractu",
       {Context::Body, "", "%r = scalar.bitfield.extractu %i {offset = 4, width = 8} : i32 -> i32"}},
      {"scalar.bitfield.extracts",
       {Context::Body, "", "%r = scalar.bitfield.extracts %i {offset = 4, width = 8} : i32 -> i32"}},
      {"vector.extract", {Context::Body, "", "%r = vector.extract %vi[2] : vector<4xi32> -> i32"}},
      {"vector.insert", {Context::Body, "", "%r = vector.insert %i into %vi[1] : i32, vector<4xi32>"}},
      {"vector.from_elements", {Context::Body, "", "%r = vector.from_elements %i, %i, %i, %i : vector<4xi32>"}},
      {"vector.broadcast",
       {Context::Body, "",
        "%one = vector.from_elements %i : vector<1xi32>\n  %r = vector.broadcast %one : vector<1xi32> -> "
        "vector<4xi32>"}},
      {"vector.dot4i",
       {Context::Body, "",
        "%b = vector.bitcast %vi : vector<4xi32> to vector<16xi8>\n  %r = vector.dot4i<s8s8> %b, %b, %vi : "
        "vector<16xi8>, vector<16xi8>, vector<4xi32>"}},
      {"vector.bitunpacku", {Context::Body, "", "%r = vector.bitunpacku<8> %vi : vector<4xi32> -> vector<16xi32>"}},
      {"vector.bitunpacks", {Context::Body, "", "%r = vector.bitunpacks<8> %vi : vector<4xi32> -> vector<16xi32>"}},
      {"vector.bitfield.extractu",
       {Context::Body, "",
        "%r = vector.bitfield.extractu %vi {offset = 4, width = 8} : vector<4xi32> -> vector<4xi32>"}},
      {"vector.bitfield.extracts",
       {Context::Body, "",
        "%r = vector.bitfield.extracts %vi {offset = 4, width = 8} : vector<4xi32> -> vector<4xi32>"}},
      {"vector.bitfield.insert",
       {Context::Body, "",
        "%r = vector.bitfield.insert %vi into %vi {offset = 4, width = 8} : vector<4xi32>, vector<4xi32>"}},
      {"vector.concat",
       {Context::Body, "", "%r = vector.concat<0> %vi, %vi : vector<4xi32>, vector<4xi32> -> vector<8xi32>"}},
      {"vector.interleave",
       {Context::Body, "", "%r = vector.interleave<0> %vi, %vi : vector<4xi32>, vector<4xi32> -> vector<8xi32>"}},
      {"vector.slice", {Context::Body, "", "%r = vector.slice %vi[1] : vector<4xi32> -> vector<2xi32>"}},
      {"vector.deinterleave",
       {Context::Body, "", "%e, %o = vector.deinterleave<0> %vi : vector<4xi32> -> vector<2xi32>, vector<2xi32>"}},
      {"vector.table.lookup",
       {Context::Body, "", "%r = vector.table.lookup %vi[%vi] : vector<4xi32>, vector<4xi32> -> vector<4xi32>"}},
      {"vector.dot8i4", {Context::Body, "", "%r = vector.dot8i4<s4s4> %vi, %vi, %vi : vector<4xi32>"}},
      {"vector.dot4f8", {Context::Body, "", "%r = vector.dot4f8<fp8bf8> %vi, %vi, %vf : vector<4xi32>, vector<4xf32>"}},
      {"vector.table.quantize",
       {Context::Body, "",
        "%r = vector.table.quantize %vf, %vf {nan = zero, tie = lower} : vector<4xf32>, vector<4xf32> -> "
        "vector<4xi8>"}},
      {"vector.transform",
       {Context::Body, "",
        "%xf = encoding.define #numeric_transform<family=\"hadamard\", input_elems=4, output_elems=4> : "
        "encoding<transform>\n  %r = vector.transform %vf, %xf : vector<4xf32>, encoding<transform> -> "
        "vector<4xf32>"}},
      {"vector.scatter.mask",
       {Context::Body, "",
        "%mask = vector.cmpi eq, %vi, %vi : vector<4xi32> -> vector<4xi1>\n  %src4 = buffer.view %data[%zero] : buffer "
        "-> view<4xi32>\n  %offs = vector.iota %i0 step %i0 : vector<4xindex>\n  vector.scatter.mask %vi, "
        "%src4[%i0][%offs], %mask : vector<4xi32>, view<4xi32>, vector<4xindex>, vector<4xi1>"}},
      {"view.atomic.load",
       {Context::Body, "",
        "%r = view.atomic.load %src[%i0] {ordering = acquire, scope = device} : view<4xf32> -> f32"}},
      {"view.atomic.store",
       {Context::Body, "", "view.atomic.store %f, %src[%i0] {ordering = release, scope = device} : f32, view<4xf32>"}},
      {"buffer.fence", {Context::Body, "", "buffer.fence scope(device) ordering(acq_rel)"}},
      {"encoding.layout.strided",
       {Context::Body, "",
        "%l = encoding.layout.strided [1, 2] : encoding<layout>\n  %lv = buffer.view %data[%zero] : buffer -> "
        "view<2x2xf32, %l>\n"
        "  view.store %f, %lv[%i0, %i0] : f32, view<2x2xf32, %l>"}},
      {"scf.while", {Context::Body, "", kWhileProbe}},
      {"encoding.layout.dense",
       {Context::Body, "",
        "%l = encoding.layout.dense : encoding<layout>\n  %lv = buffer.view %data[%zero] : buffer -> "
        "view<2x2xf32, %l>\n"
        "  view.store %f, %lv[%i0, %i0] : f32, view<2x2xf32, %l>"}},
      {"vector.reduce.axes",
       {Context::Body, "",
        "%m = vector.bitcast %vi : vector<4xi32> to vector<2x2xi32>\n  %half = vector.slice %vi[0] : vector<4xi32> -> "
        "vector<2xi32>\n  %r = vector.reduce.axes<addi> %m, %half axes [0] : vector<2x2xi32>, vector<2xi32>"}},
      {"vector.atomic.reduce",
       {Context::Body, "",
        "%src4 = buffer.view %data[%zero] : buffer -> view<4xi32>\n  %offs = vector.iota %i0 step %i0 : "
        "vector<4xindex>\n  vector.atomic.reduce<addi> %vi, %src4[%i0][%offs] {ordering = relaxed, scope = device} : "
        "vector<4xi32>, view<4xi32>, vector<4xindex>"}},
      {"vector.atomic.rmw.mask",
       {Context::Body, "",
        "%mask = vector.cmpi eq, %vi, %vi : vector<4xi32> -> vector<4xi1>\n  %src4 = buffer.view %data[%zero] : buffer "
        "-> view<4xi32>\n  %offs = vector.iota %i0 step %i0 : vector<4xindex>\n  %r = vector.atomic.rmw.mask<addi> "
        "%vi, %src4[%i0][%offs], %mask, %vi {ordering = relaxed, scope = device} : vector<4xi32>, view<4xi32>, "
        "vector<4xindex>, vector<4xi1>, vector<4xi32>"}},
      {"vector.atomic.cmpxchg",
       {Context::Body, "",
        "%src4 = buffer.view %data[%zero] : buffer -> view<4xi32>\n  %offs = vector.iota %i0 step %i0 : "
        "vector<4xindex>\n  %r = vector.atomic.cmpxchg %vi, %vi, %src4[%i0][%offs] {success_ordering = acq_rel, "
        "failure_ordering = acquire, scope = device} : vector<4xi32>, view<4xi32>, vector<4xindex> -> vector<4xi32>"}},
      {"vector.load.expand",
       {Context::Body, "",
        "%mask = vector.cmpi eq, %vi, %vi : vector<4xi32> -> vector<4xi1>\n  %src4 = buffer.view %data[%zero] : buffer "
        "-> "
        "view<4xi32>\n  %r = vector.load.expand %src4[%i0], %mask, %vi : view<4xi32>, vector<4xi1>, vector<4xi32>"}},
      {"vector.store.compress",
       {Context::Body, "",
        "%mask = vector.cmpi eq, %vi, %vi : vector<4xi32> -> vector<4xi1>\n  %dst4 = buffer.view %data[%zero] : buffer "
        "-> "
        "view<4xi32>\n  vector.store.compress %vi, %dst4[%i0], %mask : vector<4xi32>, view<4xi32>, vector<4xi1>"}},
      {"vector.empty", {Context::Body, "", "%r = vector.empty : vector<0xf32>"}},
      {"vector.poison", {Context::Body, "", "%r = vector.poison : vector<4xf32>"}},
      {"sanitizer.assert.access", {Context::Body, "", "sanitizer.assert.access<read> %src[%i0] : view<4xf32>"}},
      {"sanitizer.race.sync", {Context::Body, "", "sanitizer.race.sync<workgroup> scope(workgroup) ordering(acq_rel)"}},
      {"scf.condition", {Context::Body, "", kWhileProbe}},
      {"scf.schedule.fence", {Context::Body, "", "scf.schedule.fence"}},
      {"aie2p.target", {Context::Pipeline, "", ""}},
      {"pipeline.def", {Context::Pipeline, "", ""}},
      {"pipeline.read", {Context::Pipeline, "", ""}},
      {"pipeline.stage", {Context::Pipeline, "", ""}},
      {"pipeline.write", {Context::Pipeline, "", ""}},
      {"pipeline.return", {Context::Pipeline, "", ""}},
      {"group.create", {Context::Pipeline, "", ""}},
      {"pipeline.buffer",
       {Context::Pipeline, "",
        "%held = pipeline.buffer %f capacity %c1 : (pipeline.flow<tile<4xf32>>, index) -> pipeline.flow<tile<4xf32>>"}},
      {"pipeline.fold", {Context::Pipeline, "", "%folded = pipeline.fold<addf> %f : pipeline.flow<tile<4xf32>>"}},
      {"pipeline.scatter",
       {Context::Pipeline, "",
        "%lanes = buffer.view %input[%c0] : buffer -> view<1x4x4xf32>\n"
        "  %parts = pipeline.scatter %lanes across %g : view<1x4x4xf32>, group -> pipeline.flow<tile<4xf32>>"}},
      {"kernel.def", {Context::Kernel, "", ""}},
      {"kernel.launch.config", {Context::Kernel, "", ""}},
      {"kernel.return", {Context::Kernel, "", ""}},
      {"kernel.barrier", {Context::Kernel, "", "kernel.barrier<workgroup> scope(workgroup) ordering(acq_rel)"}},
      {"kernel.subgroup.reduce", {Context::Kernel, "", "%r = kernel.subgroup.reduce<addf> %f : f32"}},
      {"low.invoke", {Context::Body, kLowProvider, "%r = low.invoke @probe.low() : () -> (i32)"}},
      {"test.fact_uniform", {Context::Body, "", "%r = test.fact_uniform %f : f32 -> i1"}},
      {"test.fact_lane_varying", {Context::Body, "", "%r = test.fact_lane_varying %f : f32 -> i1"}},
      {"test.fact_lane_predicate", {Context::Body, "", "%r = test.fact_lane_predicate %f : f32 -> i1"}},
      {"test.use", {Context::Body, "", "test.use %f : f32"}},
      {"kernel.workgroup.reduce", {Context::Kernel, "", "%r = kernel.workgroup.reduce<addf> %f : f32"}},
      {"kernel.decl", {Context::Kernel, "kernel.decl @declared(%count: index) launch(%data: buffer)", ""}},
      {"func.def",
       {Context::Body, "func.def @callee(%x: f32) -> (f32) {\n  func.return %x : f32\n}",
        "%r = func.call @callee(%f) : (f32) -> (f32)"}},
      {"func.call",
       {Context::Body, "func.def @callee(%x: f32) -> (f32) {\n  func.return %x : f32\n}",
        "%r = func.call @callee(%f) : (f32) -> (f32)"}},
      {"func.return",
       {Context::Body, "func.def @callee(%x: f32) -> (f32) {\n  func.return %x : f32\n}",
        "%r = func.call @callee(%f) : (f32) -> (f32)"}},
      {"func.decl", {Context::Body, "func.decl @declared(%x: f32) -> (f32)", ""}},
      {"config.decl",
       {Context::Body, "config.decl @probe.declared : index", "%r = config.get @probe.declared : index"}},
      {"config.def", {Context::Body, "config.def @probe.n = 4 : index", "%r = config.get @probe.n : index"}},
      {"config.get", {Context::Body, "config.def @probe.n = 4 : index", "%r = config.get @probe.n : index"}},
      {"amdgpu.target", {Context::Body, "amdgpu.target<gfx1151> @gpu {subgroup_size = 32}", ""}},
      {"target.decl", {Context::Body, "target.decl @external", ""}},
      {"target.generic", {Context::Body, "target.generic<cpu> @generic", ""}},
      {"index.constant", {Context::Body, "", "%r = index.constant 7 : index"}},
      {"index.scale", {Context::Body, "", "%r = index.scale %i4, %zero : index, offset -> offset"}},
      {"index.assume", {Context::Body, "", "%r = index.assume %i4 [range(%i4, 1, 64)] : index"}},
      {"scalar.constant", {Context::Body, "", "%r = scalar.constant 2.5 : f32"}},
      {"scalar.assume", {Context::Body, "", "%r = scalar.assume %i [range(%i, 0, 8)] : i32"}},
      {"vector.constant", {Context::Body, "", "%r = vector.constant 2.5 : vector<4xf32>"}},
      {"vector.splat", {Context::Body, "", "%r = vector.splat %f : vector<4xf32>"}},
      {"vector.iota", {Context::Body, "", "%r = vector.iota %i step %i : vector<4xi32>"}},
      {"vector.select", {Context::Body, "", "%r = vector.select %vc, %vf, %vf : vector<4xf32>"}},
      {"vector.load", {Context::Body, "", "%r = vector.load %src[0] : view<4xf32> -> vector<4xf32>"}},
      {"vector.store", {Context::Body, "", "vector.store %vf, %src[0] : vector<4xf32>, view<4xf32>"}},
      {"vector.mask.range",
       {Context::Body, "", "%r = vector.mask.range [%i0 to %i4 step %i1] : index -> vector<4xi1>"}},
      {"vector.load.mask",
       {Context::Body, "", "%r = vector.load.mask %src[0], %vc, %vf : view<4xf32>, vector<4xi1>, vector<4xf32>"}},
      {"vector.store.mask",
       {Context::Body, "", "vector.store.mask %vf, %src[0], %vc : vector<4xf32>, view<4xf32>, vector<4xi1>"}},
      {"vector.reduce", {Context::Body, "", "%r = vector.reduce<addf> %vf, %f : vector<4xf32>, f32"}},
      {"vector.dotf", {Context::Body, "", "%r = vector.dotf %vf, %vf, %f : vector<4xf32>, vector<4xf32>, f32"}},
      {"buffer.view", {Context::Body, "", "%r = buffer.view %data[%zero] : buffer -> view<2xi32>"}},
      {"buffer.alloca",
       {Context::Body, "",
        "%bytes = index.constant 16 : offset\n  %r = buffer.alloca<private> align(16) %bytes : buffer"}},
      {"buffer.length", {Context::Body, "", "view.store %f, %src[%i0] : f32, view<4xf32>\n  %r = buffer.length %data"}},
      {"buffer.assume.noalias", {Context::Body, "", "%x, %y = buffer.assume.noalias %data, %data : buffer, buffer"}},
      {"buffer.assume.same_root", {Context::Body, "", "%r = buffer.assume.same_root %data, %data : buffer"}},
      {"cfg.br",
       {Context::Body, "", "cfg.br ^next(%f: f32)\n^next(%x: f32):\n  view.store %x, %src[%i0] : f32, view<4xf32>"}},
      {"cfg.cond_br",
       {Context::Body, "",
        "cfg.cond_br %c, ^yes, ^no\n^yes:\n  view.store %f, %src[%i0] : f32, view<4xf32>\n  cfg.br ^no\n^no:"}},
      {"buffer.assume.alignment",
       {Context::Body, "", "%r = buffer.assume.alignment %data {minimum_alignment = 16} : buffer"}},
      {"buffer.assume.memory_space", {Context::Body, "", "%r = buffer.assume.memory_space<global> %data : buffer"}},
      {"view.load", {Context::Body, "", "%r = view.load %src[%i0] : view<4xf32> -> f32"}},
      {"view.store", {Context::Body, "", "view.store %f, %src[%i0] : f32, view<4xf32>"}},
      {"view.atomic.reduce", {Context::Body, "", "view.atomic.reduce<addf> %f, %src[%i0] : f32, view<4xf32>"}},
      {"view.atomic.rmw", {Context::Body, "", "%r = view.atomic.rmw<addf> %f, %src[%i0] : f32, view<4xf32> -> f32"}},
      {"view.atomic.cmpxchg",
       {Context::Body, "", "%r = view.atomic.cmpxchg %f, %f, %src[%i0] : f32, view<4xf32> -> f32"}},
      {"view.subview", {Context::Body, "", "%r = view.subview %src[%i1] : view<4xf32> -> view<2xf32>"}},
      {"vector.fragment",
       {Context::Body, "",
        "%eight = index.constant 8 : index\n"
        "  %one = scalar.constant 1.0 : bf16\n"
        "  %zeros = vector.constant 0.0 : vector<64xf32>\n"
        "  %x = vector.splat %one : vector<64xbf16>\n"
        "  %xf = vector.fragment<lhs> %x shape [%eight, %eight] : vector<64xbf16>\n"
        "  %yf = vector.fragment<rhs> %x shape [%eight, %eight] : vector<64xbf16>\n"
        "  %acc = vector.fragment<init> %zeros shape [%eight, %eight] : vector<64xf32>\n"
        "  %r = vector.mma %xf, %yf, %acc : vector<64xbf16>, vector<64xbf16>, vector<64xf32>"}},
      {"vector.mma",
       {Context::Body, "",
        "%eight = index.constant 8 : index\n"
        "  %one = scalar.constant 1.0 : bf16\n"
        "  %zeros = vector.constant 0.0 : vector<64xf32>\n"
        "  %x = vector.splat %one : vector<64xbf16>\n"
        "  %xf = vector.fragment<lhs> %x shape [%eight, %eight] : vector<64xbf16>\n"
        "  %yf = vector.fragment<rhs> %x shape [%eight, %eight] : vector<64xbf16>\n"
        "  %acc = vector.fragment<init> %zeros shape [%eight, %eight] : vector<64xf32>\n"
        "  %r = vector.mma %xf, %yf, %acc : vector<64xbf16>, vector<64xbf16>, vector<64xf32>"}},
      {"encoding.define",
       {Context::Body, "",
        "%r = encoding.define #encoding.operand<element_format=bfp16ebs8, payload_elements=64, "
        "payload_packing=target_fragment, payload_registers=18, rounding=flush_subnormal> : encoding<schema>"}},
      {"vector.encode",
       {Context::Body, "",
        "%fmt = encoding.define #encoding.operand<element_format=bfp16ebs8, payload_elements=64, "
        "payload_packing=target_fragment, payload_registers=18, rounding=flush_subnormal> : encoding<schema>\n"
        "  %one = scalar.constant 1.0 : bf16\n"
        "  %x = vector.splat %one : vector<64xbf16>\n"
        "  %r = vector.encode %x using %fmt : vector<64xbf16>, encoding<schema> -> vector<72xi8>"}},
      {"vector.fragment.load",
       {Context::Body, "",
        "%c16 = index.constant 16 : index\n"
        "  %av = buffer.view %data[%zero] : buffer -> view<16x16xf16>\n"
        "  %r = vector.fragment.load<lhs> %av[%i0, %i0] shape [%c16, %c16] : view<16x16xf16> -> vector<16xf16>"}},
      {"vector.fragment.store",
       {Context::Body, "",
        "%eight = index.constant 8 : index\n"
        "  %zeros = vector.constant 0.0 : vector<64xf32>\n"
        "  %cv = buffer.view %data[%zero] : buffer -> view<8x8xf32>\n"
        "  vector.fragment.store<result> %zeros, %cv[0, 0] shape [%eight, %eight] : vector<64xf32>, view<8x8xf32>"}},
      {"scf.select", {Context::Body, "", "%r = scf.select %c, %f, %f : f32"}},
      // loomglob5 (issue 19): globals, multi-way selection, byte-level buffer access, encoding queries.
      {"global.constant",
       {Context::Body, "global.constant @gc : f32 = 2.5",
        "%g = global.load @gc : f32\n  view.store %g, %src[%i0] : f32, view<4xf32>"}},
      {"global.variable", {Context::Body, "global.variable @gv : f32", "global.store %f, @gv : f32"}},
      {"global.load",
       {Context::Body, "global.variable @gl : f32",
        "%g = global.load @gl : f32\n  view.store %g, %src[%i0] : f32, view<4xf32>"}},
      {"global.store", {Context::Body, "global.variable @gs : f32", "global.store %f, @gs : f32"}},
      {"global.rodata.def", {Context::Body, "global.rodata.def @rd = bytes(\"00\")", ""}},
      {"global.rodata.decl", {Context::Body, "global.rodata.decl @rd", ""}},
      {"scf.switch",
       {Context::Body, "",
        "%r = scf.switch %i4 -> (f32) {\n    case 0 {\n      scf.yield %f : f32\n    }\n    default {\n      scf.yield "
        "%f : f32\n    }\n  }\n  view.store %r, %src[%i0] : f32, view<4xf32>"}},
      {"scf.lookup",
       {Context::Body, "",
        "%r = scf.lookup %i4 {\n    1 = (%f)\n  } default(%f) : f32\n  view.store %r, %src[%i0] : f32, view<4xf32>"}},
      {"buffer.load.i8.u",
       {Context::Body, "",
        "%b = buffer.load.i8.u %data[%zero]\n  %bf = scalar.sitofp %b : i32 to f32\n  view.store %bf, %src[%i0] : f32, "
        "view<4xf32>"}},
      {"buffer.load.i8.s",
       {Context::Body, "",
        "%b = buffer.load.i8.s %data[%zero]\n  buffer.store.i8 %b, %data[%zero]\n  view.store %f, %src[%i0] : f32, "
        "view<4xf32>"}},
      {"buffer.load.i16.u",
       {Context::Body, "",
        "%b = buffer.load.i16.u %data[%zero]\n  buffer.store.i16 %b, %data[%zero]\n  view.store %f, %src[%i0] : f32, "
        "view<4xf32>"}},
      {"buffer.load.i16.s",
       {Context::Body, "",
        "%b = buffer.load.i16.s %data[%zero]\n  buffer.store.i16 %b, %data[%zero]\n  view.store %f, %src[%i0] : f32, "
        "view<4xf32>"}},
      {"buffer.store.i8",
       {Context::Body, "", "buffer.store.i8 %i, %data[%zero]\n  view.store %f, %src[%i0] : f32, view<4xf32>"}},
      {"buffer.store.i16",
       {Context::Body, "", "buffer.store.i16 %i, %data[%zero]\n  view.store %f, %src[%i0] : f32, view<4xf32>"}},
      {"buffer.fill",
       {Context::Body, "",
        "%four = index.constant 4 : offset\n  buffer.fill %f, %data[%zero], %four : f32\n  view.store %f, %src[%i0] : "
        "f32, view<4xf32>"}},
      {"buffer.pack",
       {Context::Body, "", "%four = index.constant 4 : offset\n  %t, %o = buffer.pack [align(4) %four] : offset"}},
      {"encoding.isa",
       {Context::Body, "",
        "%e = encoding.define #q8_0<block=32> : encoding<schema>\n  %is = encoding.isa %e, \"quantized\" : i1"}},
      {"encoding.layout.assume.strided",
       {Context::Body, "",
        "%l = encoding.layout.dense : encoding<layout>\n  %s = encoding.layout.assume.strided %l {rank = 1} : "
        "encoding<layout>"}},
      {"encoding.assume.spec",
       {Context::Body, "",
        "%l = encoding.layout.dense : encoding<layout>\n  %s = encoding.assume.spec %l, #dense : encoding<layout>"}},
      {"scf.if", {Context::Body, "", "scf.if %c {\n    view.store %f, %src[%i0] : f32, view<4xf32>\n  }"}},
      {"scf.yield",
       {Context::Body, "",
        "%r = scf.if %c -> (f32) {\n    scf.yield %f : f32\n  } else {\n    scf.yield %f : f32\n  }"}},
      {"scf.for",
       {Context::Body, "",
        "scf.for %k = [%i0 to %i4 step %i1] {\n    view.store %f, %src[%k] : f32, view<4xf32>\n  }"}},
      {"func.address",
       {Context::Body, "func.def @callee(%x: f32) -> (f32) {\n  func.return %x : f32\n}",
        "%r = func.address @callee : func.ref<(f32) -> (f32)>"}},
      {"func.null", {Context::Body, "", "%r = func.null : func.ref<(f32) -> (f32)>"}},
      {"func.compare.null",
       {Context::Body, "",
        "%n = func.null : func.ref<(f32) -> (f32)>\n  %r = func.compare.null %n : func.ref<(f32) -> (f32)>"}},
      {"func.call.indirect",
       {Context::Body, "func.def @callee(%x: f32) -> (f32) {\n  func.return %x : f32\n}",
        "%a = func.address @callee : func.ref<(f32) -> (f32)>\n  %r = func.call.indirect %a(%f) : (f32) -> (f32)"}},
      {"func.ref.cast",
       {Context::Body, "func.def @callee(%x: f32) -> (f32) {\n  func.return %x : f32\n}",
        "%a = func.address @callee : func.ref<(f32) -> (f32)>\n  %r = func.ref.cast %a : func.ref<(f32) -> (f32)> to "
        "func.ref<yieldable (f32) -> (f32)>"}},
      {"kernel.async.copy",
       {Context::Kernel, "",
        "%lds_bytes = index.constant 1024 : offset\n  %lds = buffer.alloca<workgroup> align(16) %lds_bytes : buffer\n  "
        "%o = index.constant 0 : offset\n  %w = buffer.view %lds[%o] : buffer -> view<4xf32>\n  "
        "%t = kernel.async.copy %src to %w {} : view<4xf32> to view<4xf32> -> kernel.async.token\n  %all = "
        "kernel.async.group %t : kernel.async.token -> kernel.async.group\n  "
        "kernel.async.wait %all {newer_groups = 0} : kernel.async.group"}},
      {"kernel.async.gather",
       {Context::Kernel, "",
        "%lds_bytes = index.constant 1024 : offset\n  %lds = buffer.alloca<workgroup> align(16) %lds_bytes : buffer\n  "
        "%o = index.constant 0 : offset\n  %w = buffer.view %lds[%o] : buffer -> view<64x4xf32>\n  "
        "%t = kernel.async.gather %src to %w {} : view<4xf32> to view<64x4xf32> -> kernel.async.token\n  %all = "
        "kernel.async.group %t : kernel.async.token -> kernel.async.group\n  "
        "kernel.async.wait %all {newer_groups = 0} : kernel.async.group"}},
  };
  return probes;
}

// The probe of `def`, or nullopt when the tool has none.
std::optional<Probe> probeFor(const loom::OpDef &def) {
  const auto &special = specialProbes();
  if (auto it = special.find(def.name); it != special.end()) return it->second;

  std::string name(def.name);
  Context context = def.has(loom::opflag::InKernel) ? Context::Kernel : Context::Body;
  std::string format(def.format);
  if (format.starts_with("<>? ")) format.erase(0, 4);
  if (format == ": !r" || (format == "<> : !r" && def.templateKind == "dimension")) {
    std::string dimension = format.starts_with("<>") ? "<x>" : "";
    if (std::optional<std::string> type = probeType(def.typeClass))
      return Probe{context, "", "%r = " + name + dimension + " : " + *type};
  }
  if (std::optional<std::pair<std::string, std::string>> types = conversionTypes(def))
    return Probe{context, "",
                 "%r = " + name + " " + kValueOfType.at(types->first) + " : " + types->first + " to " + types->second};
  std::optional<std::string> type = probeType(def.typeClass);
  if (!type) return std::nullopt;
  const std::string &value = kValueOfType.at(*type);
  if (format == "%lhs , %rhs : !lhs|rhs|r")
    return Probe{context, "", "%r = " + name + " " + value + ", " + value + " : " + *type};
  if (format == "%in : !in|r" || format == "%in : !in")
    return Probe{context, "", "%r = " + name + " " + value + " : " + *type};
  if (format == "%a , %b , %c : !a|b|c|r")
    return Probe{context, "", "%r = " + name + " " + value + ", " + value + ", " + value + " : " + *type};
  bool floatCompare = format == "$predicate:cmpf , %lhs , %rhs : !lhs|rhs" ||
                      format == "$predicate:cmpf , %lhs , %rhs : !lhs|rhs -> !r";
  bool intCompare = format == "$predicate:cmpi , %lhs , %rhs : !lhs|rhs" ||
                    format == "$predicate:cmpi , %lhs , %rhs : !lhs|rhs -> !r";
  if (floatCompare || intCompare) {
    std::string use = "%r = " + name + (floatCompare ? " olt, " : " slt, ") + value + ", " + value + " : " + *type;
    if (format.ends_with("-> !r")) use += " -> vector<4xi1>";
    return Probe{context, "", use};
  }
  return std::nullopt;
}

// The lines defining every value `body` uses, in definition order.
std::string definitionsFor(const std::string &body) {
  std::string needed = body, lines;
  const auto &defs = valueDefinitions();
  // Definitions use earlier values: walk backwards so that dependencies are collected too.
  std::vector<bool> used(defs.size());
  for (size_t i = defs.size(); i-- > 0;) {
    std::regex use("%" + defs[i].first + "\\b");
    if (std::regex_search(needed, use)) {
      used[i] = true;
      needed += "\n" + defs[i].second;
    }
  }
  for (size_t i = 0; i < defs.size(); ++i)
    if (used[i]) lines += "  " + defs[i].second + "\n";
  return lines;
}

std::string indent(const std::string &body) { return body.empty() ? "" : "  " + body + "\n"; }

// The module for `probe` placed as `context` says; `wrapper` picks the shape for Body probes.
std::string probeModule(const Probe &probe, Context wrapper) {
  std::string top = probe.top.empty() ? "" : probe.top + "\n";
  std::string body = indent(probe.body);
  if (wrapper == Context::Kernel)
    return top +
           "kernel.def @probe(%count: index) {\n"
           "  %one = index.constant 1 : index\n"
           "  kernel.launch.config workgroups(%one, %one, %one) workgroup_size(%one, %one, %one) : index\n"
           "} launch(%data: buffer) {\n" +
           definitionsFor(probe.body) + body + "  kernel.return\n}\n";
  std::string worker = "func.def @worker(%data: buffer, %output: buffer) {\n" +
                       (wrapper == Context::Body ? definitionsFor(probe.body) + body : std::string()) +
                       "  func.return\n}\n";
  std::string flowUse = wrapper == Context::Pipeline ? body : std::string();
  return "aie2p.target<array> @array_target\n" + top + worker +
         "pipeline.def<kernel> public retain target(@array_target) @probe() launch(%input: buffer, %output: buffer) {\n"
         "  %c0 = index.constant 0 : offset\n"
         "  %c1 = index.constant 1 : index\n"
         "  %in = buffer.view %input[%c0] : buffer -> view<4x4xf32>\n"
         "  %out = buffer.view %output[%c0] : buffer -> view<4x4xf32>\n"
         "  %g = group.create %c1 : index -> group\n"
         "  %f = pipeline.read %in on %g : view<4x4xf32>, group -> pipeline.flow<tile<4xf32>>\n" +
         flowUse +
         "  %o = pipeline.stage @worker on %g(%f) : (group, pipeline.flow<tile<4xf32>>) -> "
         "(pipeline.flow<tile<4xf32>>)\n"
         "  pipeline.write %o to %out : pipeline.flow<tile<4xf32>>, view<4x4xf32>\n"
         "  pipeline.return\n}\n";
}

class FirstError : public diag::DiagnosticConsumer {
public:
  void handle(const diag::Diagnostic &d, const diag::SourceManager &) override {
    if (d.severity >= diag::Severity::Error && message.empty()) message = d.code.empty() ? d.message : d.code;
    if (d.severity >= diag::Severity::Error && full.empty())
      full = d.message + (d.code.empty() ? "" : " [" + d.code + "]");
  }
  std::string message, full;
};

// Compiles `text` (only parses and verifies it without a target); the first error's code, or
// nullopt on success.
std::optional<FirstError> compileInProcess(const std::string &text, const std::optional<Target> &target) {
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  FirstError first;
  diags.addConsumer(&first);
  Compiler compiler;
  compiler.sources({{"probe.loom", text}}, {});
  CompileRequest request;
  request.specialization.config = {{"probe.declared", "4"}};  // binds config.decl @probe.declared
  if (target) request.targets = {*target};
  request.emit = target ? EmitKind::Artifact : EmitKind::Loom;
  if (compiler.compile(request, diags).ok && !diags.hasErrors()) return std::nullopt;
  if (first.message.empty()) first.message = first.full = "failed without a diagnostic";
  return first;
}

// compileInProcess in a child process, so that a compiler crash is reported as one, not fatal here.
std::optional<FirstError> compileProbe(const std::string &text, const std::optional<Target> &target) {
  int fds[2];
  if (pipe(fds) != 0) return compileInProcess(text, target);
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    std::optional<FirstError> failed = compileInProcess(text, target);
    std::string reply = failed ? failed->message + '\n' + failed->full : std::string();
    ssize_t written = write(fds[1], reply.data(), reply.size());
    _exit(written == ssize_t(reply.size()) ? 0 : 1);
  }
  close(fds[1]);
  std::string reply;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) reply.append(buffer, size_t(n));
  close(fds[0]);
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    FirstError crash;
    crash.message = "compiler crash";
    crash.full =
        "the compiler crashed" + (WIFSIGNALED(status) ? " (signal " + std::to_string(WTERMSIG(status)) + ")" : "");
    return crash;
  }
  if (reply.empty()) return std::nullopt;
  FirstError failed;
  size_t newline = reply.find('\n');
  failed.message = reply.substr(0, newline);
  failed.full = reply.substr(newline + 1);
  return failed;
}

struct Row {
  std::string name;
  std::vector<std::string> cells;  // xdna worker, host, amdgpu kernel
};

// Measures every op. Returns false when a probe itself is malformed (a bug of this tool); sets
// `crashed` when the compiler crashed on a probe (a bug of the compiler, shown in the table).
bool measure(std::vector<Row> &rows, bool &crashed) {
  struct Column {
    Target target;
    Context bodyWrapper;
  };
  const Column columns[] = {
      {Target::xdna(), Context::Body}, {Target::host(), Context::Kernel}, {Target::gfx1151(), Context::Kernel}};
  bool ok = true;
  for (const loom::OpDef *def : loom::allOpDefs()) {
    Row row{std::string(def->name), {}};
    std::optional<Probe> probe = probeFor(*def);
    for (const Column &column : columns) {
      if (def->has(loom::opflag::TextBody)) {
        row.cells.push_back("kept as text");  // recognised and printed back; no target compiles it
        continue;
      }
      if (!probe) {
        row.cells.push_back("not probed");
        continue;
      }
      Context wrapper = probe->context == Context::Body ? column.bodyWrapper : probe->context;
      std::string text = probeModule(*probe, wrapper);
      if (std::optional<FirstError> bad = compileProbe(text, std::nullopt)) {
        std::cerr << "hrx-loom-docs: error: the probe of '" << def->name << "' is not valid Loom: " << bad->full << "\n"
                  << text;
        ok = false;
        break;
      }
      std::optional<FirstError> failed = compileProbe(text, column.target);
      if (failed && failed->message == "compiler crash") {
        std::cerr << "hrx-loom-docs: error: compiling the probe of '" << def->name << "' for " << column.target.name()
                  << " crashed:\n"
                  << text;
        crashed = true;
      }
      row.cells.push_back(failed ? "no (" + failed->message + ")" : "yes");
    }
    rows.push_back(std::move(row));
  }
  return ok;
}

std::string renderTable(const std::vector<Row> &rows) {
  std::ostringstream out;
  out << "| op | xdna worker | host | amdgpu kernel |\n| --- | --- | --- | --- |\n";
  for (const Row &row : rows) {
    out << "| `" << row.name << "` |";
    for (const std::string &cell : row.cells) out << ' ' << cell << " |";
    out << '\n';
  }
  return out.str();
}

constexpr std::string_view kBegin = "<!-- BEGIN GENERATED: hrx-loom-docs -->\n";
constexpr std::string_view kEnd = "<!-- END GENERATED -->\n";

// Replaces the generated section of `text`; false when the markers are missing.
bool replaceSection(std::string &text, const std::string &table) {
  size_t begin = text.find(kBegin);
  size_t end = begin == std::string::npos ? begin : text.find(kEnd, begin);
  if (end == std::string::npos) return false;
  text.replace(begin + kBegin.size(), end - begin - kBegin.size(), table);
  return true;
}

int usage() {
  std::cerr << "usage: hrx-loom-docs [--check FILE... | --update FILE...]\n";
  return 2;
}

// Checks or updates the generated section of `path`; false when it fails (or differs).
bool process(const std::string &path, bool update, const std::string &table) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str(), updated = text;
  if (!in || !replaceSection(updated, table)) {
    std::cerr << path << ": error: cannot read the section between '" << kBegin.substr(0, kBegin.size() - 1)
              << "' and '" << kEnd.substr(0, kEnd.size() - 1) << "'\n";
    return false;
  }
  if (!update) {
    if (updated == text) return true;
    std::cerr << path << ": error: the op table differs from what the compiler supports\n"
              << path << ": note: regenerate it with hrx-loom-docs --update " << path << "\n";
    return false;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << updated;
  if (out) return true;
  std::cerr << path << ": error: cannot write\n";
  return false;
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args.size() < 2 || (args[0] != "--check" && args[0] != "--update"))) return usage();
  std::vector<Row> rows;
  bool crashed = false;
  if (!measure(rows, crashed)) return 1;
  std::string table = renderTable(rows);
  bool ok = !crashed;
  if (args.empty()) std::cout << table;
  for (size_t i = 1; i < args.size(); ++i) ok &= process(args[i], args[0] == "--update", table);
  return ok ? 0 : 1;
}
