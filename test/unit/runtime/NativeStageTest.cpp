// The plan path's prepared native stage: reused for every record, it gives what a fresh tile and
// core per record (runNativeStage) gives, even when the worker stores outside its records (the
// padding after a record, read back by the next call, must be zero again).
#include "hrx/aie2p/Asm.h"
#include "hrx/runtime/NativeCore.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace hrx;

namespace {

// 16 bytes of nops (the main program's jump in hrxcc's layout), then the worker: record 1's
// word 0 = record 0's word 0 + the word after record 1 (its padding), which it then overwrites.
std::vector<uint8_t> paddingWorker() {
  std::string text = "nop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\n"
                     "mov p0, r0\nlda r1, [p0, #0]\nlda r2, [p0, #4]\n";
  for (int i = 0; i < 6; ++i) text += "nop\n";
  text += "mov p1, r1\nmov p2, r2\nlda r3, [p1, #0]\nlda r4, [p2, #4]\n";
  for (int i = 0; i < 6; ++i) text += "nop\n";
  text += "add r5, r3, r4\nst r5, [p2, #0]\nst r3, [p2, #4]\nret lr\nnop\nnop\nnop\nnop\nnop\n";
  aie2p::AsmProgram program;
  std::vector<aie2p::AsmDiagnostic> diagnostics;
  EXPECT_TRUE(aie2p::assemble(text, program, diagnostics));
  return program.bytes;
}

}  // namespace

TEST(NativeStage, ReusedStageMatchesAFreshRunPerRecord) {
  const std::vector<uint8_t> program = paddingWorker();
  const std::vector<uint32_t> recordBytes = {4, 4};
  int32_t in = 7, out = 0;
  std::vector<void *> records = {&in, &out};

  auto before = runtime::nativeCoreTotals();
  ASSERT_TRUE(runtime::runNativeStage(program, records, recordBytes, "fresh"));
  EXPECT_EQ(out, 7);
  auto fresh = runtime::nativeCoreTotals();
  const uint64_t freshCycles = fresh.cycles - before.cycles;

  runtime::NativeStage stage(program, recordBytes);
  for (int call = 0; call < 3; ++call) {
    in = 7 + call, out = -1;
    auto start = runtime::nativeCoreTotals();
    ASSERT_TRUE(stage.run(records, [] { return std::string("prepared"); }));
    EXPECT_EQ(out, 7 + call) << "call " << call << " saw the previous call's padding";
    EXPECT_EQ(runtime::nativeCoreTotals().cycles - start.cycles, freshCycles) << "call " << call;
  }
}

TEST(NativeStage, ATrapNamesTheWorkerAndTheNextCallRunsAgain) {
  // A worker that loads from outside every memory window traps; the stage stays usable.
  aie2p::AsmProgram program;
  std::vector<aie2p::AsmDiagnostic> diagnostics;
  ASSERT_TRUE(aie2p::assemble("nop\nnop\nnop\nnop\nnop\nnop\nnop\nnop\nmovxm p0, #0x80000\nlda r1, [p0, #0]\n"
                              "ret lr\nnop\nnop\nnop\nnop\nnop\n",
                              program, diagnostics));
  const std::vector<uint32_t> recordBytes = {4};
  int32_t value = 0;
  std::vector<void *> records = {&value};
  runtime::NativeStage stage(program.bytes, recordBytes);
  for (int call = 0; call < 2; ++call) {
    Status s = stage.run(records, [] { return std::string("worker @w iteration 0"); });
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("worker @w iteration 0: the native core code trapped"), std::string::npos)
        << s.message();
  }
}
