// The core main program (hrx/xdna/Aie2pMain.h) driving a compiled worker on the transaction
// array model: the copy pipeline's commands move the records through the shim and the tile's
// rings, the simulated core acquires and releases the array model's locks. Intact it copies
// every record across invocations (the ring positions persist); with one lock id, one slot
// address or the lock order wrong in the plan it was linked from, the run fails.
#include "ArrayFixtures.h"
#include "Graphs.h"

#include "hrx/array/ArrayModel.h"
#include "hrx/format/Transaction.h"
#include "hrx/runtime/HostDevice.h"
#include "hrx/runtime/NativeCore.h"
#include "hrx/xdna/Aie2pCodegen.h"
#include "hrx/xdna/Aie2pMain.h"
#include "hrx/xdna/Planner.h"
#include "hrx/xdna/XdnaImage.h"

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/SourceMgr.h>

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <numeric>

using namespace hrx;
using namespace hrx::xdna;
using namespace hrx::xdna::testing;
namespace fx = hrx::format::xdna;
namespace txn = hrx::format::txn;

namespace {

// out[i] = in[i] + 1 over a 1024 x i32 record.
const char *kStage = R"(
target datalayout = "e-m:e-p:32:32-i64:64-i128:128-n32-S64"
define void @hrx.stage.copy_record(ptr %records) {
entry:
  %in = load ptr, ptr %records
  %p1 = getelementptr i8, ptr %records, i32 4
  %out = load ptr, ptr %p1
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %src = getelementptr i32, ptr %in, i32 %i
  %x = load i32, ptr %src
  %y = add i32 %x, 1
  %dst = getelementptr i32, ptr %out, i32 %i
  store i32 %y, ptr %dst
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, 1024
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
)";

CoreCode compileWorker(const char *ir = kStage, const char *name = "hrx.stage.copy_record") {
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(ir, error, context);
  EXPECT_TRUE(module) << error.getMessage().str();
  prepareModuleForAie2p(*module);
  auto code = compileStageForAie2p(*module->getFunction(name));
  EXPECT_TRUE(code) << code.error().construct << ": " << code.error().reason;
  return *code;
}

void neverCalled(void *const *) { ADD_FAILURE() << "the host twin ran instead of the native core"; }

// Plans the copy pipeline for `packets` records, links the worker's main program from the plan
// as `corrupt` alters it, and runs `invocations` dispatches of the entry on the array model.
struct Shape {
  PipelineGraph graph;
  const CoreCode *worker;
  uint32_t inputWords, outputWords;
  std::function<int32_t(const std::vector<int32_t> &in, size_t i)> expected;
};

Shape copyShape(uint32_t packets) {
  static const CoreCode worker = compileWorker();
  return {copyGraph(packets), &worker, 1024 * packets, 1024 * packets,
          [](const std::vector<int32_t> &in, size_t i) { return in[i] + 1; }};
}

Status runShape(const Shape &shape, uint32_t invocations, const std::function<void(format::ArrayPlan &)> &corrupt,
                uint64_t *cyclesOut = nullptr, const CommandEdit &edit = {}) {
  const PipelineGraph &g = shape.graph;
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  auto plan = planArray(g, {1}, diags);
  EXPECT_TRUE(plan);
  if (!plan) return Status(StatusCode::InvalidArgument, "the graph does not plan");
  const CoreCode &worker = *shape.worker;
  format::ArrayPlan linkedFrom = *plan;
  corrupt(linkedFrom);
  auto linked = linkCoreProgram(worker.assembly, worker.frameBytes, linkedFrom, linkedFrom.workers[0]);
  if (!linked) return Status(StatusCode::InvalidArgument, linked.error());
  PlannedEntry entry{*plan, contractOf(g), {}};
  entry.code.push_back({plan->workers[0].tile, linked->bytes, linked->stateOffset, linked->stateBytes, ""});
  ImageSections sections;
  sections.hostCode = {0x7f, 'E', 'L', 'F'};
  auto image = buildImage({entry}, 1, std::move(sections), diags);
  EXPECT_TRUE(image);
  std::vector<uint8_t> command = commandOf(*image);
  auto native = runtime::nativeCoreCode(*image, g.name);
  if (!native) return native.status();
  EXPECT_EQ(native->size(), 1u);
  if (Status s = relocate(*image, command); !s) return s;
  array::ArrayModel model(1);
  auto cores = runtime::makeHostTwinCores(
      *plan, [](const std::string &) -> StatusOr<hrx_host_stage_fn> { return &neverCalled; }, &*native);
  if (!cores) return cores.status();
  model.setCores(std::move(*cores));
  model.setRoundLimit(uint64_t(1) << 24);
  uint64_t before = runtime::nativeCoreTotals().cycles;
  bool established = false;
  uint32_t next = 0;
  for (uint32_t n = 0; n < invocations; ++n) {
    std::vector<int32_t> in(shape.inputWords), out(shape.outputWords, 0);
    std::iota(in.begin(), in.end(), int32_t(-100 + 7 * n));
    model.setHostMemory({{bindingBase(0), reinterpret_cast<std::byte *>(in.data()), 4ull * in.size(), "input"},
                         {bindingBase(1), reinterpret_cast<std::byte *>(out.data()), 4ull * out.size(), "output"}});
    if (Status s = dispatchOnModel(model, *image, command, established, next, "dispatch " + std::to_string(n), edit);
        !s)
      return s;
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i] != shape.expected(in, i))
        return Status(StatusCode::Internal, "dispatch " + std::to_string(n) + ": output word " + std::to_string(i) +
                                                " is " + std::to_string(out[i]) + ", expected " +
                                                std::to_string(shape.expected(in, i)));
  }
  if (cyclesOut) *cyclesOut = runtime::nativeCoreTotals().cycles - before;
  return Status::ok();
}

Status runNative(uint32_t packets, uint32_t invocations, const std::function<void(format::ArrayPlan &)> &corrupt,
                 uint64_t *cyclesOut = nullptr, const CommandEdit &edit = {}) {
  return runShape(copyShape(packets), invocations, corrupt, cyclesOut, edit);
}

constexpr uint32_t kCoreControl = 0x32000, kProgramMemory = 0x20000;
bool writesCoreControl(const txn::Operation &op, uint32_t value) {
  return op.opcode == txn::Opcode::Write && (op.address & 0xFFFFF) == kCoreControl && op.value == value;
}
// Drops the ops `drop` matches from the command of invocation `which`.
CommandEdit dropOps(uint32_t which, std::function<bool(const txn::Operation &)> drop) {
  return [which, drop](txn::Transaction &t, uint32_t invocation) {
    if (invocation != which) return;
    std::erase_if(t.operations, drop);
    t.operationCount = uint32_t(t.operations.size());
  };
}

// A fold: each output record is the sum of two input records, accumulated in a State record
// (period 2) that the main program zeroes at the start of each period; the output (period 2)
// is released every second iteration.
const char *kFold = R"(
target datalayout = "e-m:e-p:32:32-i64:64-i128:128-n32-S64"
define void @hrx.stage.fold(ptr %records) {
entry:
  %in = load ptr, ptr %records
  %p1 = getelementptr i8, ptr %records, i32 4
  %acc = load ptr, ptr %p1
  %p2 = getelementptr i8, ptr %records, i32 8
  %out = load ptr, ptr %p2
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %src = getelementptr i32, ptr %in, i32 %i
  %x = load i32, ptr %src
  %at = getelementptr i32, ptr %acc, i32 %i
  %a = load i32, ptr %at
  %s = add i32 %a, %x
  store i32 %s, ptr %at
  %dst = getelementptr i32, ptr %out, i32 %i
  store i32 %s, ptr %dst
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, 64
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
)";

Shape foldShape(uint32_t outputs) {
  static const CoreCode worker = compileWorker(kFold, "hrx.stage.fold");
  PipelineGraph g;
  g.name = "fold";
  g.bindings = {{"%input", format::PlanAccess::Read, uint64_t(outputs) * 512, true, {}},
                {"%output", format::PlanAccess::Write, uint64_t(outputs) * 256, true, {}}};
  g.groups = {{1, {}}};
  GraphWorker w;
  w.entry = "fold";
  w.iterations = 2 * outputs;
  w.codeBytes = 512;
  w.ports = {port(PortDirection::Input, 0, 256), port(PortDirection::State, 0, 256, 2),
             port(PortDirection::Output, 1, 256, 2)};
  g.workers = {w};
  g.flows = {flow(FlowEnd::binding(0, contiguous(256, 2 * outputs)), FlowEnd::worker(0, 0), 256, "tile<64xi32>"),
             flow(FlowEnd::worker(0, 2), FlowEnd::binding(1, contiguous(256, outputs)), 256, "tile<64xi32>")};
  return {g, &worker, 128 * outputs, 64 * outputs, [](const std::vector<int32_t> &in, size_t i) {
            size_t record = i / 64, word = i % 64;
            return in[(2 * record) * 64 + word] + in[(2 * record + 1) * 64 + word];
          }};
}

uint32_t &lockId(format::ArrayPlan &p, uint32_t channel, format::LockRole role) {
  for (format::PlanLock &l : p.locks)
    if (l.channel == channel && l.role == role) return l.id;
  ADD_FAILURE() << "no lock";
  static uint32_t none = 0;
  return none;
}

}  // namespace

TEST(Aie2pMain, DrivesTheWorkerThroughTheArrayModel) {
  uint64_t cycles = 0;
  // Three records per dispatch on a two-slot ring: the second dispatch starts at slot 1.
  Status s = runNative(3, 2, [](format::ArrayPlan &) {}, &cycles);
  ASSERT_TRUE(s) << s.message();
  EXPECT_GT(cycles, 6u * 1024);  // six records of 1024 words, at least a bundle per word
}

TEST(Aie2pMain, TheCommandsResetLoadAndEnableTheCore) {
  // Establish holds the core in reset while it writes program memory; each invocation's command
  // resets the core and then enables it.
  std::vector<std::vector<uint32_t>> controls(2);
  Status s = runNative(
      2, 1, [](format::ArrayPlan &) {}, nullptr,
      [&](txn::Transaction &t, uint32_t invocation) {
        for (const txn::Operation &op : t.operations) {
          if ((op.address & 0xFFFFF) == kCoreControl) controls[invocation].push_back(op.value);
          if (op.opcode == txn::Opcode::BlockWrite && (op.address & 0xFFFFF) == kProgramMemory)
            EXPECT_EQ(controls[invocation], std::vector<uint32_t>{2u}) << "program memory written out of reset";
        }
      });
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(controls[0], std::vector<uint32_t>{2u});
  EXPECT_EQ(controls[1], (std::vector<uint32_t>{2u, 1u}));
}

TEST(Aie2pMain, WithoutTheEnableWriteThePipelineStalls) {
  Status s = runNative(
      2, 1, [](format::ArrayPlan &) {}, nullptr,
      dropOps(1, [](const txn::Operation &op) { return writesCoreControl(op, 1); }));
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("deadlock"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("invocation 1 op"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("the native core has not started: its core control (0x32000) is 2"), std::string::npos)
      << s.message();
}

TEST(Aie2pMain, ASecondInvocationWithoutTheResetFindsTheCoreDone) {
  // The first dispatch runs; the second drops the reset, so the core stays at its done.
  bool first = true;
  Status s = runNative(
      2, 2, [](format::ArrayPlan &) {}, nullptr,
      [&](txn::Transaction &t, uint32_t invocation) {
        if (invocation != 1) return;
        if (!first) std::erase_if(t.operations, [](const txn::Operation &op) { return writesCoreControl(op, 2); });
        t.operationCount = uint32_t(t.operations.size());
        first = false;
      });
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("finished its main program in an earlier invocation"), std::string::npos) << s.message();
}

TEST(Aie2pMain, ACoreWhoseProgramMemoryWasNotWrittenIsRefused) {
  Status s = runNative(
      2, 1, [](format::ArrayPlan &) {}, nullptr, dropOps(0, [](const txn::Operation &op) {
        return op.opcode == txn::Opcode::BlockWrite && (op.address & 0xFFFFF) == kProgramMemory;
      }));
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("the core is enabled but no command wrote its program memory"), std::string::npos)
      << s.message();
}

TEST(Aie2pMain, AWrongLockIdFails) {
  // The input's ready lock replaced by its credit lock's id: the core takes the DMA's credits
  // instead of ready records and finishes before the input has arrived.
  Status s = runNative(3, 1, [](format::ArrayPlan &p) {
    lockId(p, 0, format::LockRole::Ready) = lockId(p, 0, format::LockRole::Credit);
  });
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("stopped part-way"), std::string::npos) << s.message();
}

TEST(Aie2pMain, AnUnusedLockIdDeadlocks) {
  Status s = runNative(3, 1, [](format::ArrayPlan &p) { lockId(p, 1, format::LockRole::Credit) = 15; });
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("deadlock"), std::string::npos) << s.message();
}

TEST(Aie2pMain, AWrongSlotAddressGivesWrongRecords) {
  Status s = runNative(3, 1, [](format::ArrayPlan &p) {
    for (format::PlanSlot &slot : p.slots)
      if (slot.channel == 1 && slot.index == 1) slot.offset += 64;
  });
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("output word"), std::string::npos) << s.message();
}

TEST(Aie2pMain, SwappedLockOrderFails) {
  // The output's credit and ready locks swapped: the core acquires ready (0) first.
  Status s = runNative(3, 1, [](format::ArrayPlan &p) {
    std::swap(lockId(p, 1, format::LockRole::Credit), lockId(p, 1, format::LockRole::Ready));
  });
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("deadlock"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("native core main program waits at pc"), std::string::npos) << s.message();
}

TEST(Aie2pMain, UnreachableSlotsAreRefused) {
  PipelineGraph g = copyGraph(2);
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  auto plan = planArray(g, {1}, diags);
  ASSERT_TRUE(plan);
  for (format::PlanSlot &slot : plan->slots)
    if (slot.channel == 0) slot.owner = {0, 5};
  auto linked = linkCoreProgram("entry:\n  j #main\n  nop\n  nop\n  nop\n  nop\n  nop\nworker:\n  ret lr\n", 0, *plan,
                                plan->workers[0]);
  ASSERT_FALSE(linked);
  EXPECT_NE(linked.error().find("cannot address"), std::string::npos) << linked.error();
}

TEST(Aie2pMain, StateRecordsAndPeriodsFollowThePlan) {
  // Three outputs from six inputs per dispatch, twice (the rings continue across dispatches).
  Status s = runShape(foldShape(3), 2, [](format::ArrayPlan &) {});
  ASSERT_TRUE(s) << s.message();
}
