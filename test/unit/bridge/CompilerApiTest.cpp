// The Compiler API in process: targets, compileAll ordering, C/C++ workers, API-only errors.
#include "CompileHelpers.h"
#include "HostLibrary.h"

#include "hrx/format/HostAbi.h"

namespace hrx::bridge::test {
namespace {

constexpr const char *kDoubler = R"(
func.def public @doubler(%input: buffer, %output: buffer) {
  %zero = index.constant 0 : offset
  %in = buffer.view %input[%zero] : buffer -> view<8xi32>
  %out = buffer.view %output[%zero] : buffer -> view<8xi32>
  %v = vector.load %in[0] : view<8xi32> -> vector<8xi32>
  %w = vector.addi %v, %v : vector<8xi32>
  vector.store %w, %out[0] : vector<8xi32>, view<8xi32>
  func.return
}
)";

TEST(CompilerApi, TargetsParseAndName) {
  EXPECT_EQ(Target::parse("xdna"), Target::xdna());
  EXPECT_EQ(Target::parse("amd.xdna.aie2p:amd.xdna.strix_halo.17f0_11"), Target::xdna());
  EXPECT_EQ(Target::parse("gfx1151"), Target::gfx1151());
  EXPECT_EQ(Target::parse("gfx11-generic"), Target::gfx11Generic());
  EXPECT_EQ(Target::parse("host"), Target::host());
  EXPECT_FALSE(Target::parse("gfx90a").has_value());
  EXPECT_EQ(Target::xdna().profile, "amd.xdna.strix_halo.17f0_11");
  EXPECT_EQ(Target::gfx11Generic().name(), "gfx11-generic");
  for (const auto &[spelling, description] : Target::all()) EXPECT_TRUE(Target::parse(spelling)) << spelling;
}

TEST(CompilerApi, CompileAllKeepsRequestOrderAndDiagnostics) {
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  CollectingConsumer consumer;
  diags.addConsumer(&consumer);
  Compiler compiler = Compiler::forTarget(Target::host());
  compiler.sources({{"doubler.loom", kDoubler}}, {});
  std::vector<CompileRequest> requests(4);
  requests[0].emit = EmitKind::Llvm;
  requests[1].specialization.symbol = "nope";
  requests[2].emit = EmitKind::Loom;
  requests[3].emit = EmitKind::Artifact;
  for (CompileRequest &r : requests) r.options.workers = 3;
  std::vector<CompileResult> results = compiler.compileAll(requests, diags);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_TRUE(results[0].ok);
  EXPECT_NE(std::string(results[0].bytes.begin(), results[0].bytes.end()).find("define void @hrx.stage.doubler"),
            std::string::npos);
  EXPECT_FALSE(results[1].ok);
  EXPECT_NE(consumer.text.find("LINK/014 no export named '@nope'; exports: @doubler"), std::string::npos)
      << consumer.text;
  EXPECT_TRUE(results[2].ok);
  EXPECT_NE(std::string(results[2].bytes.begin(), results[2].bytes.end()).find("func.def public @doubler"),
            std::string::npos);
  ASSERT_TRUE(results[3].ok);
  HostLibrary library(results[3].bytes);
  ASSERT_TRUE(library.loaded()) << library.error();
  auto stage = library.lookup<hrx_host_stage_fn>(HRX_HOST_STAGE_PREFIX "doubler");
  ASSERT_NE(stage, nullptr);
  int32_t in[8] = {1, 2, 3, 4, -5, 6, 7, 8}, out[8] = {};
  void *records[] = {in, out};
  stage(records);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], 2 * in[i]);
}

constexpr const char *kPipelineWithCxxWorker = R"(
aie2p.target<array> @array
aie2p.target<core> @core
config.decl @twice.packets : %value: index where [range(%value, 1, 64)]
func.decl target(@core) @twice(%input: buffer, %output: buffer)
pipeline.def<kernel> public retain target(@array) @stream() launch(%input: buffer, %output: buffer) {
  %packets = config.get @twice.packets : index
  %one = index.constant 1 : index
  %zero = index.constant 0 : offset
  %in = buffer.view %input[%zero] : buffer -> view<[%packets]x64xi32>
  %out = buffer.view %output[%zero] : buffer -> view<[%packets]x64xi32>
  %group = group.create %one : index -> group
  %records = pipeline.read %in on %group : view<[%packets]x64xi32>, group -> pipeline.flow<tile<64xi32>>
  %result = pipeline.stage @twice on %group(%records) : (group, pipeline.flow<tile<64xi32>>) -> (pipeline.flow<tile<64xi32>>)
  pipeline.write %result to %out : pipeline.flow<tile<64xi32>>, view<[%packets]x64xi32>
  pipeline.return
}
)";

TEST(CompilerApi, PipelineWithCxxWorkerRunsOnTheHost) {
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  CollectingConsumer consumer;
  diags.addConsumer(&consumer);
  Compiler compiler = Compiler::forTarget(Target::host());
  CxxSource worker{"worker.cpp",
                   "#include <stdint.h>\n"
                   "extern \"C\" void twice(const int32_t *in, int32_t *out) {\n"
                   "  for (int i = 0; i < 64; ++i) out[i] = in[i] * 2 + OFFSET;\n"
                   "}\n",
                   CxxSource::Language::Auto,
                   {},
                   {},
                   {"OFFSET=5"}};
  compiler.sources({{"stream.loom", kPipelineWithCxxWorker}}, {worker});
  CompileRequest request;
  request.specialization.config = {{"twice.packets", "3"}};
  CompileResult result = compiler.compile(request, diags);
  ASSERT_TRUE(result.ok) << consumer.text;
  EXPECT_NE(result.contractJson.find("\"bytes\":768"), std::string::npos) << result.contractJson;
  HostLibrary library(result.bytes);
  ASSERT_TRUE(library.loaded()) << library.error();
  auto stage = library.lookup<hrx_host_stage_fn>(HRX_HOST_STAGE_PREFIX "twice");
  ASSERT_NE(stage, nullptr);
  int32_t in[64], out[64];
  for (int i = 0; i < 64; ++i) in[i] = i - 20;
  void *records[] = {in, out};
  stage(records);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], in[i] * 2 + 5) << i;
}

TEST(CompilerApi, NoTargetIsAnError) {
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  CollectingConsumer consumer;
  diags.addConsumer(&consumer);
  Compiler compiler;
  compiler.sources({{"doubler.loom", kDoubler}}, {});
  CompileResult result = compiler.compile({}, diags);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(consumer.text.find("LINK/002 no compile target was given"), std::string::npos) << consumer.text;
}

TEST(CompilerApi, UnknownHostCpuIsACodegenError) {
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  CollectingConsumer consumer;
  diags.addConsumer(&consumer);
  Compiler compiler = Compiler::forTarget(Target::host());
  compiler.sources({{"doubler.loom", kDoubler}}, {});
  CompileRequest request;
  request.options.hostCpu = "not-a-cpu";
  EXPECT_FALSE(compiler.compile(request, diags).ok);
  EXPECT_NE(consumer.text.find("LINK/004 code generation for host failed: unknown CPU 'not-a-cpu'"), std::string::npos)
      << consumer.text;
}

TEST(CompilerApi, NativeHostCpuCompiles) {
  Compiler compiler = Compiler::forTarget(Target::host());
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  compiler.sources({{"doubler.loom", kDoubler}}, {});
  CompileRequest request;
  request.options.hostCpu = "native";
  CompileResult result = compiler.compile(request, diags);
  ASSERT_TRUE(result.ok);
  HostLibrary library(result.bytes);
  EXPECT_TRUE(library.loaded()) << library.error();
}

}  // namespace
}  // namespace hrx::bridge::test
