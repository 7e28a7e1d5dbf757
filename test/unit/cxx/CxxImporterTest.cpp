// The importer end to end: languages, headers, include directories, targets, IR, signatures.
#include "CxxTestSupport.h"

#include <gtest/gtest.h>

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>

#include <fstream>
#include <thread>

namespace hrx::cxx::test {
namespace {

std::string readWorker(const std::string &name) {
  auto buffer = llvm::MemoryBuffer::getFile(std::string(HRX_CXX_WORKERS_DIR) + "/" + name);
  EXPECT_TRUE(static_cast<bool>(buffer)) << name;
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

CxxUnit scaleWorker() {
  CxxUnit unit = unitOf("scale_worker.c", readWorker("scale_worker.c"));
  std::string coefficients;
  for (int i = 0; i < 16; ++i) coefficients.push_back(static_cast<char>(i + 1));
  unit.headers.push_back({"coefficients.bin", coefficients});
  return unit;
}

TEST(CxxImporter, C23WorkerWithEmbedAndConstexpr) {
  ImportRun run;
  ASSERT_TRUE(run.run(scaleWorker(), xdnaWorkerTarget())) << run.capture.dump();
  EXPECT_TRUE(run.capture.all.empty()) << run.capture.dump();
  const Signature *scale = run.signature("scale");
  ASSERT_NE(scale, nullptr);
  EXPECT_FALSE(scale->isKernel);
  ASSERT_EQ(scale->params.size(), 2u);
  EXPECT_EQ(scale->params[0].type.kind, ValueType::Kind::Pointer);
  EXPECT_TRUE(scale->params[0].type.pointeeConst);
  EXPECT_EQ(scale->params[0].type.lanes, 16u);
  EXPECT_EQ(scale->params[0].type.element.name(), "f32");
  EXPECT_EQ(scale->params[0].type.pointeeBytes, 64u);
  EXPECT_FALSE(scale->params[1].type.pointeeConst);
  // The embedded coefficients reach the IR.
  EXPECT_NE(run.ir().find("c\"\\01\\02\\03\\04"), std::string::npos) << run.ir();
}

TEST(CxxImporter, Cxx26WorkerWithPackIndexing) {
  ImportRun run;
  ASSERT_TRUE(run.run(unitOf("gemm_worker.cpp", readWorker("gemm_worker.cpp")), xdnaWorkerTarget()))
      << run.capture.dump();
  const Signature *gemm = run.signature("gemm_8x8");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->symbol, "gemm_8x8");
  ASSERT_EQ(gemm->params.size(), 3u);
  EXPECT_EQ(gemm->params[0].name, "lhs");
  EXPECT_EQ(gemm->params[0].type.element.name(), "bf16");
  EXPECT_EQ(gemm->params[0].type.pointeeBytes, 2u);
  EXPECT_EQ(gemm->params[2].type.element.name(), "f32");
  EXPECT_EQ(gemm->result.kind, ValueType::Kind::Void);
  EXPECT_EQ(run.result->module->getTargetTriple().str(), "x86_64-unknown-linux-gnu");
  EXPECT_EQ(run.signature("dot"), nullptr);  // static helpers are not exported
}

TEST(CxxImporter, HipKernelForGfx1151) {
  ImportRun run;
  ASSERT_TRUE(run.run(unitOf("affine.cpp", readWorker("affine.cpp")), gfx1151Target())) << run.capture.dump();
  const Signature *affine = run.signature("affine");
  ASSERT_NE(affine, nullptr);
  EXPECT_TRUE(affine->isKernel);
  ASSERT_TRUE(affine->workgroupSize.has_value());
  EXPECT_EQ(*affine->workgroupSize, (std::array<uint32_t, 3>{256, 1, 1}));
  ASSERT_TRUE(affine->workgroupCount.has_value());
  EXPECT_EQ(*affine->workgroupCount, (std::array<uint32_t, 3>{65536, 1, 1}));
  ASSERT_EQ(affine->params.size(), 2u);
  EXPECT_EQ(affine->params[0].type.element.name(), "i32");
  EXPECT_TRUE(affine->params[0].type.pointeeConst);
  EXPECT_EQ(affine->params[1].type.bytes, 8u);
  std::string ir = run.ir();
  EXPECT_NE(ir.find("target triple = \"amdgcn-amd-amdhsa\""), std::string::npos);
  EXPECT_NE(ir.find("amdgpu_kernel void @affine("), std::string::npos) << ir;
  EXPECT_NE(ir.find("\"target-cpu\"=\"gfx1151\""), std::string::npos);
  EXPECT_NE(ir.find("llvm.amdgcn.workitem.id.x"), std::string::npos);
  EXPECT_EQ(ir.find("llvm.global.annotations"), std::string::npos);  // loom attributes stripped
  EXPECT_TRUE(run.result->hostBuiltins.empty());
}

TEST(CxxImporter, HipKernelForGfx11GenericAndDefines) {
  ImportRun run;
  CxxUnit unit = unitOf("affine.cpp", readWorker("affine.cpp"));
  unit.defines = {"ELEMENTS=1024"};
  ASSERT_TRUE(run.run(unit, gfx11GenericTarget())) << run.capture.dump();
  EXPECT_EQ(*run.signature("affine")->workgroupCount, (std::array<uint32_t, 3>{4, 1, 1}));
  EXPECT_NE(run.ir().find("\"target-cpu\"=\"gfx11-generic\""), std::string::npos);
}

TEST(CxxImporter, HipKernelForHostLeavesWorkItemFunctionsToTheBridge) {
  ImportRun run;
  ASSERT_TRUE(run.run(unitOf("affine.cpp", readWorker("affine.cpp")), hostTarget())) << run.capture.dump();
  std::string ir = run.ir();
  EXPECT_NE(ir.find("target triple = \"x86_64-unknown-linux-gnu\""), std::string::npos);
  EXPECT_NE(ir.find("\"target-cpu\"=\"x86-64-v2\""), std::string::npos) << ir;
  EXPECT_NE(ir.find("define dso_local void @affine(ptr"), std::string::npos) << ir;
  std::vector<std::string> expected = {"__hrx_host_workgroup_id", "__hrx_host_workgroup_size",
                                       "__hrx_host_workitem_id"};
  std::vector<std::string> builtins = run.result->hostBuiltins;
  std::sort(builtins.begin(), builtins.end());
  EXPECT_EQ(builtins, expected);
}

TEST(CxxImporter, HostStdioIsNotFound) {
  ImportRun run;
  EXPECT_FALSE(
      run.run(unitOf("w.c", "#include <stdint.h>\n#include <stdio.h>\nint f(void) { return 0; }\n"), hostTarget()));
  ASSERT_FALSE(run.capture.all.empty());
  const CapturedDiagnostic &d = run.capture.all.front();
  EXPECT_EQ(d.file, "w.c");
  EXPECT_EQ(d.line, 2u);
  EXPECT_EQ(d.column, 10u);
  EXPECT_EQ(d.message, "'stdio.h' file not found");
  EXPECT_EQ(d.severity, diag::Severity::Fatal);
}

TEST(CxxImporter, VirtualHeaderIsFoundAndNamedInDiagnostics) {
  ImportRun run;
  CxxUnit unit = unitOf("k.cpp", "#include \"config/params.h\"\nextern \"C\" int lanes() { return LANES; }\n");
  unit.headers.push_back(
      {"config/params.h", "#pragma once\n#define LANES 16\nint unused_in_header() { int x; return 0; }\n"});
  diag::DiagnosticOptions options;
  options.enabledGroups = {"unused-variable"};
  ImportRun warned(options);
  ASSERT_TRUE(warned.run(unit, hostTarget())) << warned.capture.dump();
  ASSERT_EQ(warned.capture.all.size(), 1u) << warned.capture.dump();
  const CapturedDiagnostic &d = warned.capture.all.front();
  EXPECT_EQ(d.file, "config/params.h");
  EXPECT_EQ(d.line, 3u);
  EXPECT_EQ(d.flag, "-Wunused-variable");
  EXPECT_EQ(d.message, "unused variable 'x'");
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes.front(), "in file included from here");
  EXPECT_NE(warned.ir().find("ret i32 16"), std::string::npos);
}

TEST(CxxImporter, EngineWarningOptionsReachClang) {
  CxxUnit unit = unitOf("w.c", "int f(void) {\n  int x;\n  return 0;\n}\n");
  ImportRun quiet;
  ASSERT_TRUE(quiet.run(unit, hostTarget()));
  EXPECT_TRUE(quiet.capture.all.empty()) << quiet.capture.dump();  // -Wunused-variable is off by default

  diag::DiagnosticOptions all;
  all.enabledGroups = {"all"};
  ImportRun wall(all);
  ASSERT_TRUE(wall.run(unit, hostTarget()));
  EXPECT_EQ(wall.capture.dump(), "w.c:2:7: unused variable 'x' [-Wunused-variable]\n");

  all.disabledGroups = {"unused-variable"};
  ImportRun disabled(all);
  ASSERT_TRUE(disabled.run(unit, hostTarget()));
  EXPECT_TRUE(disabled.capture.all.empty()) << disabled.capture.dump();

  diag::DiagnosticOptions werror;
  werror.enabledGroups = {"unused-variable"};
  werror.warningsAsErrors = true;
  ImportRun promoted(werror);
  EXPECT_FALSE(promoted.run(unit, hostTarget()));  // the engine's -Werror fails the import
  ASSERT_EQ(promoted.capture.all.size(), 1u);
  EXPECT_EQ(promoted.capture.all[0].severity, diag::Severity::Error);

  diag::DiagnosticOptions silent;
  silent.enabledGroups = {"unused-variable"};
  silent.ignoreAllWarnings = true;
  ImportRun ignored(silent);
  ASSERT_TRUE(ignored.run(unit, hostTarget()));
  EXPECT_TRUE(ignored.capture.all.empty()) << ignored.capture.dump();
}

TEST(CxxImporter, IncludeDirectoriesRecordFilesReadAndStayInside) {
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("hrx-cxx-include", dir));
  std::string root = dir.str().str();
  llvm::sys::fs::create_directories(root + "/inc/sub");
  std::ofstream(root + "/inc/sub/used.h") << "#define USED 3\n";
  std::ofstream(root + "/inc/unused.h") << "#define UNUSED 4\n";
  std::ofstream(root + "/secret.h") << "#define SECRET 5\n";

  ImportRun run;
  CxxUnit unit = unitOf("m.c", "#include <sub/used.h>\nint f(void) { return USED; }\n");
  unit.includeDirs = {root + "/inc"};
  ASSERT_TRUE(run.run(unit, hostTarget())) << run.capture.dump();
  EXPECT_EQ(run.result->filesRead, std::vector<std::string>{root + "/inc/sub/used.h"});

  ImportRun escape;
  unit.text = "#include \"../secret.h\"\n";
  EXPECT_FALSE(escape.run(unit, hostTarget()));
  ASSERT_FALSE(escape.capture.all.empty());
  EXPECT_EQ(escape.capture.all.front().message, "'../secret.h' file not found");

  ImportRun missing;
  unit.includeDirs = {root + "/nope"};
  EXPECT_FALSE(missing.run(unit, hostTarget()));
  EXPECT_TRUE(missing.capture.has("CXX/015", 0)) << missing.capture.dump();
  llvm::sys::fs::remove_directories(root);
}

TEST(CxxImporter, OnlyC23AndCxx26OrNewer) {
  ImportRun old;
  CxxUnit unit = unitOf("w.cpp", "int x;\n");
  unit.standard = "c++20";
  EXPECT_FALSE(old.run(unit, hostTarget()));
  EXPECT_TRUE(old.capture.has("CXX/012", 0)) << old.capture.dump();

  ImportRun mismatched;
  unit.standard = "c23";
  EXPECT_FALSE(mismatched.run(unit, hostTarget()));
  EXPECT_TRUE(mismatched.capture.has("CXX/012", 0));

  ImportRun newer;
  unit.standard = "gnu++2c";
  EXPECT_TRUE(newer.run(unit, hostTarget())) << newer.capture.dump();

  ImportRun forcedC;
  CxxUnit c = unitOf("w.cc", "static_assert(__STDC_VERSION__ >= 202311L);\nint y = nullptr == nullptr;\n", Language::C);
  EXPECT_TRUE(forcedC.run(c, hostTarget())) << forcedC.capture.dump();
}

TEST(CxxImporter, ClangErrorsKeepSourceIdentity) {
  ImportRun run;
  EXPECT_FALSE(run.run(unitOf("bad.cpp", "extern \"C\" int f() {\n  return undefined_thing;\n}\n"), gfx1151Target()));
  ASSERT_EQ(run.capture.all.size(), 1u) << run.capture.dump();
  EXPECT_EQ(run.capture.all[0].file, "bad.cpp");
  EXPECT_EQ(run.capture.all[0].line, 2u);
  EXPECT_EQ(run.capture.all[0].column, 10u);
  EXPECT_EQ(run.capture.all[0].message, "use of undeclared identifier 'undefined_thing'");
}

TEST(CxxImporter, ShippedFreestandingHeaders) {
  ImportRun run;
  const char *text = R"(
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <float.h>
#include <limits.h>
#include <span>
#include <stdbool.h>
#include <type_traits>
#include <utility>
#include <hrx/worker.h>
static_assert(std::is_same_v<std::uint32_t, unsigned>);
static_assert(std::bit_cast<std::uint32_t>(1.0f) == 0x3f800000u);
static_assert(std::popcount(0xf0u) == 4 && std::countl_zero(std::uint8_t(1)) == 7);
static_assert(INT_MAX == 2147483647 && CHAR_BIT == 8 && FLT_MANT_DIG == 24);
static_assert(hrx::bf16(1.00390625f).bits == 0x3f80);  // truncates, never rounds up
static_assert(static_cast<float>(hrx::bf16(-3.0f)) == -3.0f);
constexpr int sum() {
  std::array<int, 4> a{1, 2, 3, 4};
  std::span<int> s(a);
  int t = 0;
  for (int v : s.subspan(1)) t += v;
  return t;
}
static_assert(sum() == 9);
extern "C" float first(const hrx_bf16x16 *v) {
  hrx_f32x16 f = hrx_f32x16_from_bf16x16(*v);
  return f[0];
}
)";
  ASSERT_TRUE(run.run(unitOf("headers.cpp", text), hostTarget())) << run.capture.dump();
  ASSERT_TRUE(run.run(unitOf("headers.cpp", text), gfx1151Target())) << run.capture.dump();
  const Signature *first = run.signature("first");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->params[0].type.element.name(), "bf16");
  EXPECT_EQ(first->params[0].type.lanes, 16u);
  EXPECT_EQ(first->result.element.name(), "f32");
}

TEST(CxxImporter, IdentityCoversEveryInput) {
  auto identity = [](const CxxUnit &unit, ImportTarget target) {
    ImportRun run;
    EXPECT_TRUE(run.run(unit, target)) << run.capture.dump();
    return run.result ? run.result->identity : std::string();
  };
  CxxUnit base = unitOf("id.c", "#include \"h.h\"\nint f(void) { return N + H; }\n");
  base.headers = {{"h.h", "#define H 1\n"}};
  base.defines = {"N=2"};
  std::string first = identity(base, hostTarget());
  EXPECT_EQ(first.size(), 64u);
  EXPECT_EQ(identity(base, hostTarget()), first);
  EXPECT_NE(identity(base, xdnaWorkerTarget()), first);
  CxxUnit defined = base;
  defined.defines = {"N=3"};
  EXPECT_NE(identity(defined, hostTarget()), first);
  CxxUnit header = base;
  header.headers = {{"h.h", "#define H 2\n"}};
  EXPECT_NE(identity(header, hostTarget()), first);
}

TEST(CxxImporter, DebugInfoNamesTheUnitAsTheUserDoes) {
  CxxImporter importer(ImportOptions{2, /*debugInfo=*/true, "x86-64-v2"});
  diag::SourceManager sm;
  diag::DiagnosticEngine engine(sm);
  llvm::LLVMContext context;
  auto result = importer.import(unitOf("src/dbg.c", "int f(int x) { return x + 1; }\n"), hostTarget(), context, engine);
  ASSERT_TRUE(result.has_value());
  std::string ir;
  llvm::raw_string_ostream os(ir);
  result->module->print(os, nullptr);
  EXPECT_NE(ir.find("!DIFile(filename: \"src/dbg.c\""), std::string::npos) << ir;
  EXPECT_EQ(ir.find("/hrx/src"), std::string::npos) << ir;
}

TEST(CxxImporter, ExternalCallsAreLeftToTheLinkerWhenAsked) {
  CxxUnit unit = unitOf("caller.cpp", "namespace ops { int helper(int); }\nextern \"C\" int scale(int);\n"
                                      "extern \"C\" int f(int x) {\n  return scale(x) + ops::helper(x);\n}\n");
  ImportRun strict;
  EXPECT_FALSE(strict.run(unit, xdnaWorkerTarget()));
  EXPECT_TRUE(strict.capture.has("CXX/009", 4)) << strict.capture.dump();

  CxxImporter linking(ImportOptions{2, false, "x86-64-v2", /*requireDefinedCalls=*/false});
  diag::SourceManager sm;
  diag::DiagnosticEngine engine(sm);
  llvm::LLVMContext context;
  auto result = linking.import(unit, xdnaWorkerTarget(), context, engine);
  ASSERT_TRUE(result.has_value());
  ASSERT_EQ(result->externalCalls.size(), 2u);
  EXPECT_EQ(result->externalCalls[0].symbol, "scale");
  EXPECT_EQ(result->externalCalls[1].symbol, "_ZN3ops6helperEi");
  EXPECT_EQ(result->externalCalls[1].name, "ops::helper");
  EXPECT_EQ(sm.lineColumn(result->externalCalls[1].location.begin).line, 4u);
}

TEST(CxxImporter, ImportersOnSeveralThreadsShareTheSetups) {
  std::string affine = readWorker("affine.cpp");
  auto work = [&](ImportTarget target, bool &ok) {
    CxxImporter own;  // per-thread importer; the compiler setups are shared
    ok = true;
    for (int i = 0; i < 4; ++i) {
      diag::SourceManager sm;
      diag::DiagnosticEngine engine(sm);
      llvm::LLVMContext context;
      auto result = own.import(unitOf("affine.cpp", affine), target, context, engine);
      ok = ok && result && result->signatures.size() == 1 && engine.errorCount() == 0;
    }
  };
  bool first = false, second = false;
  std::thread a(work, gfx1151Target(), std::ref(first));
  std::thread b(work, hostTarget(), std::ref(second));
  a.join();
  b.join();
  EXPECT_TRUE(first);
  EXPECT_TRUE(second);
}

TEST(CxxImporter, ReusedAcrossCompilesAndTargets) {
  for (int round = 0; round < 3; ++round) {
    for (ImportTarget target : {hostTarget(), gfx1151Target(), xdnaWorkerTarget()}) {
      ImportRun run;
      CxxUnit unit = unitOf("r.c", "int f(int x) { return x * " + std::to_string(round + 2) + "; }\n");
      ASSERT_TRUE(run.run(unit, target)) << run.capture.dump();
      EXPECT_NE(run.ir().find("mul nsw i32 %"), std::string::npos);
      EXPECT_NE(run.ir().find(std::to_string(round + 2)), std::string::npos);
    }
  }
  // A failed import leaves the importer usable.
  ImportRun failed;
  EXPECT_FALSE(failed.run(unitOf("e.c", "int f(void) { return }\n"), hostTarget()));
  ImportRun after;
  EXPECT_TRUE(after.run(unitOf("ok.c", "int g(void) { return 1; }\n"), hostTarget())) << after.capture.dump();
}

// The importer links ROCm's device libraries itself and merges Clang's attributes into what it
// links only; the module must be the one Clang's own -mlink-builtin-bitcode link makes.
TEST(CxxImporter, DeviceLibraryLinkMatchesClangs) {
  const char *text = R"(#include <hip/hip_runtime.h>
__device__ float helper(float x) { return sinf(x) + __expf(x) + sqrtf(x); }
extern "C" __global__ void math(const float *x, double *y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = helper(x[i]) + pow(double(x[i]), 3.0) + atomicAdd((float *)x, 1.0f);
}
)";
  auto importIr = [&](bool clangLinks, bool fastMath, std::string &identity) {
    ImportOptions options;
    options.requireDefinedCalls = false;
    options.computeIdentity = false;
    options.clangLinksDeviceLibraries = clangLinks;
    CxxImporter importer(options);
    ImportRun run;
    CxxUnit unit = unitOf("math.hip", text);
    unit.fastMath = fastMath;
    run.result = importer.import(unit, gfx1151Target(), run.context, run.engine);
    EXPECT_TRUE(run.result.has_value()) << run.capture.dump();
    if (!run.result) return std::string();
    identity = run.result->identity;
    return run.ir();
  };
  for (bool fastMath : {false, true}) {
    std::string identity = "unset";
    std::string ours = importIr(false, fastMath, identity);
    EXPECT_TRUE(identity.empty());  // computeIdentity off
    std::string clangs = importIr(true, fastMath, identity);
    EXPECT_EQ(ours, clangs) << "fast-math " << fastMath;
    EXPECT_NE(ours.find("define internal double @__ocml_pow_f64"), std::string::npos);  // linked, internal
    EXPECT_EQ(ours.find("declare double @__ocml_pow_f64"), std::string::npos);
  }
}
}  // namespace
}  // namespace hrx::cxx::test
