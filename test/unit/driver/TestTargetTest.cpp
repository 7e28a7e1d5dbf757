// A backend registered only here is usable from the driver's planning code and the Compiler API
// with no other edit: the registry (hrx/TargetRegistry.h) is all they ask.
#include "ActionGraph.h"
#include "ArgParser.h"
#include "Invocation.h"
#include "hrx/TargetRegistry.h"
#include "hrx/bridge/TargetBackend.h"

#include <gtest/gtest.h>

#include <sstream>

namespace hrx::driver {
namespace {

class TestBackend final : public bridge::TargetBackend {
public:
  TargetInfo info() const override {
    TargetInfo info;
    info.backend = "testbackend";
    info.profiles = {
        {"testtarget", "test-profile-1", {{"testtarget", "a target registered by a unit test"}}, {"tt"}, {}}};
    info.options = {"--columns="};
    info.stagesBeforeLowering = {{"tune", "tuned-program", {}, "tuned programs"}};
    info.savedForms = {EmitKind::Llvm};
    info.artifactExtension = ".tt";
    return info;
  }
  // C/C++ compiles as host code under the NPU worker restrictions, with the target's own macro.
  std::optional<cxx::ImportTarget> cxxImportTarget(const Target &) const override {
    cxx::ImportTarget target;
    target.name = "testtarget-worker";
    target.triple = "x86_64-unknown-linux-gnu";
    target.defines = {"__TEST_TARGET__=1"};
    target.hostProcess = true;
    target.npuWorker = true;
    return target;
  }
  std::optional<bridge::BackendOutput> emit(const bridge::BackendRequest &request, diag::DiagnosticEngine &) override {
    std::string text = "test artifact for " + request.target.profile;
    return bridge::BackendOutput{{text.begin(), text.end()}, {}};
  }
};

std::unique_ptr<bridge::TargetBackend> createTestBackend() { return std::make_unique<TestBackend>(); }

const TargetInfo &testTarget() {
  static const TargetInfo &info = bridge::registerBackend(&createTestBackend);
  return info;
}

struct Planned {
  diag::SourceManager sm;
  diag::DiagnosticEngine diags{sm};
  Invocation inv;
  std::vector<Job> jobs;
  explicit Planned(std::vector<std::string> argv) {
    (void)testTarget();
    inv = buildInvocation(parseArgs(argv, diags), diags);
    if (!diags.hasErrors()) jobs = planJobs(inv, buildActionGraph(inv), diags);
  }
  std::string phases() const {
    std::ostringstream os;
    printActionGraph(buildActionGraph(inv), os);
    return os.str();
  }
  std::string jobLines() const {
    std::ostringstream os;
    for (const Job &job : jobs) printJob(job, inv, os);
    return os.str();
  }
};

TEST(TestTarget, ParsesAndIsListed) {
  const TargetInfo &info = testTarget();
  std::optional<Target> target = Target::parse("testtarget");
  ASSERT_TRUE(target.has_value());
  EXPECT_EQ(target->info, &info);
  EXPECT_EQ(target->profile, "test-profile-1");
  EXPECT_EQ(target->name(), "testtarget");
  EXPECT_EQ(Target::parse("tt"), target);  // an alias
  bool listed = false;
  for (const auto &[spelling, description] : Target::all()) listed |= spelling == "testtarget";
  EXPECT_TRUE(listed);
}

TEST(TestTarget, PlansPhasesAndJobs) {
  Planned p({"-target", "testtarget", "--columns=2", "in.loom"});
  ASSERT_FALSE(p.diags.hasErrors());
  EXPECT_EQ(p.phases(), "0: input, \"in.loom\", loom\n"
                        "1: loom-parse, {0}, loom-module\n"
                        "2: link, {1}, program, (testtarget)\n"
                        "3: specialize, {2}, program, (testtarget)\n"
                        "4: tune, {3}, tuned-program, (testtarget)\n"
                        "5: lower, {4}, llvm-ir, (testtarget)\n"
                        "6: backend, {5}, object, (testtarget)\n"
                        "7: package, {6}, artifact, (testtarget)\n");
  EXPECT_EQ(p.jobLines(), " \"compile\" (testtarget) inputs: [\"in.loom\"] outputs: [\"a.tt\"] options: "
                          "[\"--emit=artifact\", \"-O2\", \"--columns=2\", \"--report=none\"]\n");
}

TEST(TestTarget, SaveTempsKeepsItsForms) {
  Planned p({"-target", "testtarget", "-save-temps", "in.loom"});
  ASSERT_FALSE(p.diags.hasErrors());
  ASSERT_EQ(p.jobs.size(), 2u);
  EXPECT_EQ(p.jobs[0].emit, EmitKind::Llvm);
  EXPECT_EQ(p.jobs[0].output, "in-testtarget.ll");
  EXPECT_EQ(p.jobs[1].output, "a.tt");
}

TEST(TestTarget, OtherTargetsOptionsAndFormsAreRejected) {
  Planned mode({"-target", "testtarget", "--processor-mode=cu", "in.loom"});
  EXPECT_TRUE(mode.diags.hasErrors());
  Planned plan({"-target", "testtarget", "--emit=array-plan", "in.loom"});
  EXPECT_TRUE(plan.diags.hasErrors());
  Planned arch({"--offload-arch=testtarget", "in.loom"});
  EXPECT_TRUE(arch.diags.hasErrors());
}

TEST(TestTarget, CompilesThroughTheCompilerApi) {
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  Compiler compiler = Compiler::forTarget(*Target::parse("testtarget"));
  compiler.sources({{"t.loom", "func.def public @f() {\n  func.return\n}\n"}}, {});
  CompileResult result = compiler.compile(CompileRequest{}, diags);
  ASSERT_TRUE(result.ok) << diags.errorCount();
  EXPECT_EQ(std::string(result.bytes.begin(), result.bytes.end()), "test artifact for test-profile-1");
  EXPECT_FALSE(result.sideOutputs.at("manifest").empty());  // the KernelContract table
}

// The importer compiles C/C++ for the test backend by the record it supplies: its macros, its
// checks and its name in the messages, with no edit to frontend/cxx.
TEST(TestTarget, ImportsCxxByTheRecordItSupplies) {
  (void)testTarget();
  std::optional<cxx::ImportTarget> found = bridge::cxxImportTargetNamed("testtarget-worker");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->defines, std::vector<std::string>{"__TEST_TARGET__=1"});

  struct Messages final : diag::DiagnosticConsumer {
    std::vector<std::string> lines;
    void handle(const diag::Diagnostic &d, const diag::SourceManager &) override {
      lines.push_back(d.code + " " + d.message);
    }
  };
  auto compile = [](const std::string &text, Messages &messages) {
    diag::SourceManager sm;
    diag::DiagnosticEngine diags(sm);
    diags.addConsumer(&messages);
    Compiler compiler = Compiler::forTarget(*Target::parse("testtarget"));
    CxxSource source;
    source.name = "w.c";
    source.text = text;
    compiler.sources({}, {source});
    return compiler.compile(CompileRequest{}, diags).ok;
  };
  // The unit imports (its macro is defined); a C function alone is no export to compile.
  Messages fine;
  EXPECT_FALSE(compile("#ifndef __TEST_TARGET__\n#error no target macro\n#endif\n"
                       "int f(int x) { return x + 1; }\n",
                       fine));
  ASSERT_EQ(fine.lines.size(), 1u);
  EXPECT_EQ(fine.lines[0], "LINK/015 the inputs define no export to compile");
  Messages restricted;
  EXPECT_FALSE(
      compile("_Thread_local int counter;\nint fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }\n", restricted));
  std::string all;
  for (const std::string &line : restricted.lines) all += line + "\n";
  EXPECT_NE(all.find("CXX/004 thread_local variable 'counter' is not supported on testtarget-worker"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("CXX/006"), std::string::npos) << all;  // npuWorker: no recursion
}

}  // namespace
}  // namespace hrx::driver
