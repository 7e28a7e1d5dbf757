// Every target restriction: the code, and the unit and line it points at.
#include "CxxTestSupport.h"

#include <gtest/gtest.h>

namespace hrx::cxx::test {
namespace {

struct Case {
  const char *name;
  ImportTarget target;
  const char *text;
  const char *code;
  unsigned line;
};

class Restriction : public ::testing::TestWithParam<Case> {};

TEST_P(Restriction, IsReportedAtTheOffendingLine) {
  const Case &c = GetParam();
  ImportRun run;
  bool ok = run.run(unitOf(std::string(c.name) + ".cpp", c.text), c.target);
  EXPECT_TRUE(run.capture.has(c.code, c.line)) << run.capture.dump();
  for (const CapturedDiagnostic &d : run.capture.all)
    if (d.code == c.code) EXPECT_EQ(d.file, std::string(c.name) + ".cpp");
  bool isError = std::string(c.code) != "CXX/011";
  EXPECT_EQ(ok, !isError) << run.capture.dump();
}

INSTANTIATE_TEST_SUITE_P(
    Cxx, Restriction,
    ::testing::Values(
        Case{"throw", hostTarget(), "void f(int x) {\n  if (x) throw 1;\n}\n", "CXX/001", 2},
        Case{"try", gfx1151Target(), "void f() {\n  try { } catch (...) { }\n}\n", "CXX/001", 2},
        Case{"typeid", hostTarget(),
             "namespace std { class type_info; }\nstruct A { virtual ~A(); };\nbool f(A &a) {\n  return &typeid(a) != "
             "nullptr;\n}\n",
             "CXX/002", 4},
        Case{"dynamic_cast", xdnaWorkerTarget(),
             "struct A { virtual void g() {} };\nstruct B : A {};\nB *f(A *a) {\n  return dynamic_cast<B *>(a);\n}\n",
             "CXX/002", 4},
        Case{"new", xdnaWorkerTarget(),
             "void *operator new(decltype(sizeof 0));\nint *f() {\n  return new int(3);\n}\n", "CXX/003", 3},
        Case{"delete", hostTarget(), "void operator delete(void *) noexcept;\nvoid f(int *p) {\n  delete p;\n}\n",
             "CXX/003", 3},
        Case{"malloc", gfx1151Target(),
             "extern \"C\" void *malloc(decltype(sizeof 0));\nvoid *f() {\n  return malloc(16);\n}\n", "CXX/003", 3},
        Case{"thread_local", hostTarget(), "int g;\nthread_local int counter;\n", "CXX/004", 2},
        Case{"variadic", xdnaWorkerTarget(), "int g;\nint sum(int n, ...) { return n; }\n", "CXX/005", 2},
        Case{"recursion", xdnaWorkerTarget(), "int fact(int n) {\n  return n <= 1 ? 1 : n * fact(n - 1);\n}\n",
             "CXX/006", 2},
        Case{"mutual_recursion", xdnaWorkerTarget(),
             "int odd(int);\nint even(int n) { return n == 0 ? 1 : odd(n - 1); }\nint odd(int n) { return n == 0 ? 0 : "
             "even(n - 1); }\n",
             "CXX/006", 2},
        Case{"virtual_call", xdnaWorkerTarget(),
             "struct S { virtual int v() { return 1; } };\nint f(S &s) {\n  return s.v();\n}\n", "CXX/007", 3},
        Case{"function_pointer", xdnaWorkerTarget(),
             "int twice(int x) { return 2 * x; }\nint f(int (*fn)(int)) {\n  return fn(3);\n}\n", "CXX/008", 3},
        Case{"undefined", hostTarget(), "extern \"C\" int puts(const char *);\nint f() {\n  return puts(\"hi\");\n}\n",
             "CXX/009", 3},
        Case{"inline_asm", hostTarget(), "void f() {\n  asm volatile(\"nop\");\n}\n", "CXX/010", 2},
        Case{"float_atomic_max", gfx1151Target(),
             "void f(float *p, float v) {\n  __atomic_fetch_max(p, v, __ATOMIC_RELAXED);\n}\n", "CXX/011", 2},
        Case{"bad_workgroup_size", gfx1151Target(), "[[loom::kernel]]\n[[loom::workgroup_size(0, 1, 1)]] void k() {}\n",
             "CXX/013", 2},
        Case{"kernel_returns_value", hostTarget(), "[[loom::kernel]] int k() {\n  return 1;\n}\n", "CXX/014", 1},
        Case{"kernel_on_worker", xdnaWorkerTarget(), "int g;\n[[loom::kernel]] void k() {}\n", "CXX/016", 2}),
    [](const ::testing::TestParamInfo<Case> &info) { return std::string(info.param.name); });

TEST(CxxRestrictions, NpuOnlyRestrictionsDoNotApplyToTheGpu) {
  ImportRun run;
  const char *text = "struct S { virtual int v() { return 1; } };\n"
                     "int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }\n"
                     "int call(S &s, int (*fn)(int)) { return s.v() + fn(2); }\n";
  EXPECT_TRUE(run.run(unitOf("gpu.cpp", text), gfx1151Target())) << run.capture.dump();
  EXPECT_TRUE(run.capture.all.empty()) << run.capture.dump();
}

TEST(CxxRestrictions, FinalAndQualifiedCallsAreDirect) {
  ImportRun run;
  const char *text = "struct S { virtual int v() { return 1; } };\n"
                     "struct F final : S { int v() override { return 2; } };\n"
                     "int call(S &s, F &f) { return s.S::v() + f.v(); }\n";
  EXPECT_TRUE(run.run(unitOf("direct.cpp", text), xdnaWorkerTarget())) << run.capture.dump();
}

TEST(CxxRestrictions, FloatAtomicMaxWarningNamesTheWorkaround) {
  ImportRun run;
  ASSERT_TRUE(run.run(unitOf("m.cpp", "void f(float *p, float v) { __atomic_fetch_max(p, v, __ATOMIC_RELAXED); }\n"),
                      gfx1151Target()));
  ASSERT_EQ(run.capture.all.size(), 1u);
  EXPECT_EQ(run.capture.all[0].flag, "-Wfloat-atomic-max");
  EXPECT_NE(std::string(diag::info(diag::DiagId::CxxFloatAtomicMax).doc).find("compare/exchange"), std::string::npos);
  // The workaround itself compiles cleanly.
  ImportRun fixed;
  EXPECT_TRUE(
      fixed.run(unitOf("m.cpp", "#include <hrx/kernel.h>\nvoid f(float *p, float v) { hrx_atomic_max_f32(p, v); }\n"),
                gfx1151Target()));
  EXPECT_TRUE(fixed.capture.all.empty()) << fixed.capture.dump();
}

TEST(CxxRestrictions, SharedMemoryFromTheHipHeaderIsAllowed) {
  const char *text = "#include <hip/hip_runtime.h>\n"
                     "extern \"C\" __global__ [[loom::workgroup_size(64, 1, 1)]] void rev(float *data) {\n"
                     "  __shared__ float tile[64];\n"
                     "  tile[threadIdx.x] = data[threadIdx.x];\n"
                     "  __syncthreads();\n"
                     "  data[threadIdx.x] = tile[63 - threadIdx.x];\n"
                     "}\n";
  for (ImportTarget target : {gfx1151Target(), hostTarget()}) {
    ImportRun run;
    ASSERT_TRUE(run.run(unitOf("rev.cpp", text), target)) << run.capture.dump();
    EXPECT_TRUE(run.capture.all.empty()) << run.capture.dump();
    std::string ir = run.ir();
    if (target == gfx1151Target())
      EXPECT_NE(ir.find("addrspace(3) global [64 x float] undef"), std::string::npos) << ir;
    else
      EXPECT_NE(ir.find("thread_local"), std::string::npos) << ir;
  }
}

}  // namespace
}  // namespace hrx::cxx::test
