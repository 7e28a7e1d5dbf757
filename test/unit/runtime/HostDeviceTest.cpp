#include "PlanBuilder.h"

#include "hrx/runtime/HostDevice.h"
#include "hrx/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>

using namespace hrx::runtime;
using hrx::StatusCode;
using hrx::format::PlanAccess;
using hrx::format::PortDirection;
using hrx::test::PlanBuilder;

namespace {

std::shared_ptr<HostCode> loadFixture() {
  std::ifstream in(HRX_TEST_HOST_MODULE, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
  auto code = HostCode::load(std::as_bytes(std::span(bytes)), "HostKernels.so");
  EXPECT_TRUE(code.isOk()) << code.status().toString();
  return code.isOk() ? *code : nullptr;
}

std::shared_ptr<Kernel> npuKernel(hrx::format::ArrayPlan plan) {
  auto contract = contractFromPlan(plan);
  EXPECT_TRUE(contract.isOk()) << contract.status().toString();
  auto kernel = makeHostNpuKernel(std::move(plan), loadFixture(), *contract);
  EXPECT_TRUE(kernel.isOk()) << kernel.status().toString();
  return kernel.isOk() ? *kernel : nullptr;
}

std::vector<int32_t> iota(size_t n, int32_t first = 0) {
  std::vector<int32_t> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

// Runs a kernel directly on vectors of i32 (binding order).
hrx::Status run(Kernel &kernel, std::vector<std::vector<int32_t>> &buffers, std::span<const std::byte> constants = {}) {
  std::vector<BindingSpan> spans;
  for (auto &b : buffers) spans.push_back({reinterpret_cast<std::byte *>(b.data()), b.size() * 4});
  return kernel.run(spans, constants);
}

// `stage` (default copy64) over `records` 64-byte records: binding 0 -> worker -> binding 1.
hrx::format::ArrayPlan copyPlan(uint32_t records, uint32_t capacity = 2, std::string stage = "copy64") {
  PlanBuilder b("copy");
  uint32_t in = b.binding(0, PlanAccess::Read, 64 * records), out = b.binding(1, PlanAccess::Write, 64 * records);
  uint32_t w = b.worker(std::move(stage), records, 2);
  uint32_t c0 = b.channel(64, capacity, PlanBuilder::fromBinding(PlanBuilder::contiguous(in, 64, records)),
                          PlanBuilder::port(w, 0));
  uint32_t c1 = b.channel(64, capacity, PlanBuilder::port(w, 1),
                          PlanBuilder::fromBinding(PlanBuilder::contiguous(out, 64, records)));
  b.addPort(w, PortDirection::Input, c0, 64);
  b.addPort(w, PortDirection::Output, c1, 64);
  return b.plan();
}

}  // namespace

// The dynamic loader identifies objects by path: two live loads must be two objects, not the
// first one handed back under a reused /proc/self/fd name.
TEST(HostCode, EachLoadIsItsOwnObject) {
  std::shared_ptr<HostCode> first = loadFixture(), second = loadFixture();
  ASSERT_TRUE(first && second);
  auto a = first->stage("copy64"), b = second->stage("copy64");
  ASSERT_TRUE(a.isOk() && b.isOk());
  EXPECT_NE(reinterpret_cast<void *>(*a), reinterpret_cast<void *>(*b));
}

TEST(HostCode, RejectsNonElfAndMissingSymbols) {
  std::vector<std::byte> junk(100, std::byte{1});
  auto bad = HostCode::load(junk, "junk.so");
  ASSERT_FALSE(bad.isOk());
  EXPECT_EQ(bad.status().message(),
            "junk.so: host code is not a loadable x86-64 shared object: ELF header e_ident: bad ELF magic");
  auto code = loadFixture();
  ASSERT_TRUE(code);
  EXPECT_TRUE(code->stage("copy64").isOk());
  EXPECT_EQ(code->stage("nope").status().message(), "HostKernels.so: host code has no symbol 'hrx.stage.nope'");
}

namespace {

std::vector<std::byte> fixtureBytes() {
  std::ifstream in(HRX_TEST_HOST_MODULE, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), {});
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

uint64_t field(const std::vector<std::byte> &b, size_t at, unsigned width) {
  uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i) v |= uint64_t(b[at + i]) << (8 * i);
  return v;
}

void setField(std::vector<std::byte> &b, size_t at, unsigned width, uint64_t v) {
  for (unsigned i = 0; i < width; ++i) b[at + i] = std::byte(v >> (8 * i));
}

// The file offset of the first program header of `type`.
size_t programHeader(const std::vector<std::byte> &b, uint32_t type) {
  for (uint64_t i = 0, phoff = field(b, 32, 8); i < field(b, 56, 2); ++i)
    if (field(b, phoff + i * 56, 4) == type) return phoff + i * 56;
  ADD_FAILURE() << "no program header of type " << type;
  return 0;
}

// The file offset of the first dynamic entry with `tag`.
size_t dynamicEntry(const std::vector<std::byte> &b, uint64_t tag) {
  size_t dynamic = programHeader(b, 2);
  for (uint64_t at = field(b, dynamic + 8, 8); field(b, at, 8) != 0; at += 16)
    if (field(b, at, 8) == tag) return at;
  ADD_FAILURE() << "no dynamic entry with tag " << tag;
  return 0;
}

// Rewrites every occurrence of `from` (same length as `to`) in the object.
void replaceText(std::vector<std::byte> &b, std::string_view from, std::string_view to) {
  auto *text = reinterpret_cast<const char *>(b.data());
  for (size_t at = 0; at + from.size() <= b.size(); ++at)
    if (std::string_view(text + at, from.size()) == from) std::memcpy(b.data() + at, to.data(), to.size());
}

std::string loadError(const std::vector<std::byte> &bytes) {
  auto code = HostCode::load(bytes, "k.xdna .hrx.host");
  return code.isOk() ? "loaded" : code.status().message();
}

}  // namespace

TEST(HostCode, StructuralValidationBeforeLoading) {
  const std::vector<std::byte> valid = fixtureBytes();
  ASSERT_EQ(loadError(valid), "loaded");
  const std::string prefix = "k.xdna .hrx.host: host code is not a loadable x86-64 shared object: ";
  auto mutated = [&](auto mutate) {
    std::vector<std::byte> b = valid;
    mutate(b);
    return loadError(b);
  };
  EXPECT_EQ(mutated([](auto &b) { setField(b, 18, 2, 40); }),
            prefix + "ELF header e_machine: 40 is not EM_X86_64 (62)");
  EXPECT_EQ(mutated([](auto &b) { setField(b, 16, 2, 2); }), prefix + "ELF header e_type: 2 is not ET_DYN (3)");
  EXPECT_NE(mutated([](auto &b) { setField(b, 32, 8, b.size() - 8); }).find(prefix + "ELF header e_phoff: "),
            std::string::npos);
  EXPECT_NE(mutated([](auto &b) { setField(b, 40, 8, uint64_t(1) << 62); }).find(prefix + "ELF header e_shoff: "),
            std::string::npos);
  EXPECT_NE(mutated([](auto &b) {
              setField(b, programHeader(b, 1) + 48, 8, 3);
            }).find("(PT_LOAD) p_align: 3 is not a power of two"),
            std::string::npos);
  EXPECT_NE(
      mutated([](auto &b) { setField(b, programHeader(b, 1) + 32, 8, b.size() + 1); }).find("(PT_LOAD) p_filesz: "),
      std::string::npos);
  EXPECT_NE(mutated([](auto &b) { setField(b, programHeader(b, 1) + 16, 8, 4096 + 1); }).find("(PT_LOAD) p_offset: "),
            std::string::npos);
  EXPECT_EQ(mutated([](auto &b) { setField(b, programHeader(b, 2), 4, 0); }),
            prefix + "program headers: 0 PT_DYNAMIC segments; exactly one is required");
  EXPECT_EQ(mutated([](auto &b) { replaceText(b, "libm.so.6", "libz.so.6"); }),
            prefix + "PT_DYNAMIC DT_NEEDED: 'libz.so.6' is not one of the libraries host code may import (libc.so.6, "
                     "libm.so.6, libgcc_s.so.1)");
  EXPECT_NE(mutated([](auto &b) {
              setField(b, dynamicEntry(b, 1), 8, 22);
            }).find("(DT_TEXTREL): the object needs text relocations"),
            std::string::npos);
  EXPECT_EQ(mutated([](auto &b) { setField(b, dynamicEntry(b, 6) + 8, 8, uint64_t(1) << 40); }),
            prefix + "PT_DYNAMIC DT_SYMTAB: [1099511627776, +1) is outside the loaded segments");
  EXPECT_NE(
      mutated([](auto &b) { setField(b, dynamicEntry(b, 8) + 8, 8, 25); }).find("PT_DYNAMIC DT_RELA: the table is not"),
      std::string::npos);
  EXPECT_EQ(mutated([](auto &b) { setField(b, field(b, dynamicEntry(b, 7) + 8, 8), 8, uint64_t(1) << 40); }),
            prefix + "PT_DYNAMIC DT_RELA entry 0 r_offset: 1099511627776 is outside the loaded segments");
  EXPECT_NE(mutated([](auto &b) {
              setField(b, field(b, dynamicEntry(b, 7) + 8, 8) + 12, 4, 9999);
            }).find("PT_DYNAMIC DT_RELA entry 0 r_info: symbol 9999 is not in .dynsym"),
            std::string::npos);
  EXPECT_EQ(mutated([](auto &b) { replaceText(b, "hrx.abi_version", "hrx.abi_versioX"); }),
            prefix + ".dynsym hrx.abi_version: the object does not export hrx.abi_version");
  // Every truncation is refused before the dynamic loader sees it.
  EXPECT_TRUE(validateHostCode(valid, "k").isOk());
  for (size_t size = 0; size < valid.size(); size += 64)
    EXPECT_FALSE(validateHostCode(std::span(valid).first(size), "k").isOk()) << size;
}

TEST(HostNpu, CopyPipelineEqualsOracle) {
  auto kernel = npuKernel(copyPlan(8));
  ASSERT_TRUE(kernel);
  std::vector<std::vector<int32_t>> buffers = {iota(128, 5), std::vector<int32_t>(128, -1)};
  ASSERT_TRUE(run(*kernel, buffers).isOk());
  EXPECT_EQ(buffers[1], buffers[0]);
  // Invocation 1 continues the established state and gives the same result.
  buffers[0] = iota(128, 1000);
  ASSERT_TRUE(run(*kernel, buffers).isOk());
  EXPECT_EQ(buffers[1], buffers[0]);
  EXPECT_EQ(kernel->imageBytes(), 2u * 2 * 64);  // two rings of two 64-byte slots
}

// A stage whose access table allows it gets its records where they lie in the bindings; the
// locks and results are those of the slot path (docs/formats/array-plan.md, "Records in place").
TEST(HostNpu, RecordsInPlaceWhenTheStageAllowsIt) {
  auto kernel = npuKernel(copyPlan(8, 2, "where64"));
  ASSERT_TRUE(kernel);
  std::vector<std::vector<int32_t>> buffers = {iota(128), std::vector<int32_t>(128, -1)};
  for (int invocation = 0; invocation < 2; ++invocation) {
    ASSERT_TRUE(run(*kernel, buffers).isOk());
    for (size_t k = 0; k < 8; ++k) {
      uint64_t where[2];
      std::memcpy(where, buffers[1].data() + 16 * k, sizeof where);
      EXPECT_EQ(where[0], reinterpret_cast<uint64_t>(buffers[0].data() + 16 * k)) << k;
      EXPECT_EQ(where[1], reinterpret_cast<uint64_t>(buffers[1].data() + 16 * k)) << k;
    }
  }
  auto copy = npuKernel(copyPlan(8, 2, "copy64_in_place"));
  ASSERT_TRUE(copy);
  for (int invocation = 0; invocation < 2; ++invocation) {
    buffers = {iota(128, 100 * invocation), std::vector<int32_t>(128, -1)};
    ASSERT_TRUE(run(*copy, buffers).isOk());
    EXPECT_EQ(buffers[1], buffers[0]);
  }
  // Two workers: the lock rounds run, with the transfers in place.
  PlanBuilder b("two_chains");
  constexpr uint32_t n = 12;
  for (uint32_t chain = 0; chain < 2; ++chain) {
    uint32_t in = b.binding(2 * chain, PlanAccess::Read, 64 * n), out = b.binding(2 * chain + 1, PlanAccess::Write, 64 * n);
    uint32_t w = b.worker("copy64_in_place", n, 2 + chain);
    uint32_t c0 = b.channel(64, 2, PlanBuilder::fromBinding(PlanBuilder::contiguous(in, 64, n)), PlanBuilder::port(w, 0));
    uint32_t c1 = b.channel(64, 3, PlanBuilder::port(w, 1), PlanBuilder::fromBinding(PlanBuilder::contiguous(out, 64, n)));
    b.addPort(w, PortDirection::Input, c0, 64);
    b.addPort(w, PortDirection::Output, c1, 64);
  }
  auto chains = npuKernel(b.plan());
  ASSERT_TRUE(chains);
  for (int invocation = 0; invocation < 2; ++invocation) {
    buffers = {iota(16 * n, invocation), std::vector<int32_t>(16 * n), iota(16 * n, 500), std::vector<int32_t>(16 * n)};
    ASSERT_TRUE(run(*chains, buffers).isOk());
    EXPECT_EQ(buffers[1], buffers[0]);
    EXPECT_EQ(buffers[3], buffers[2]);
  }
}

// Slots where in place would change what a transfer sees: a stage that writes its input record,
// a stage without an access table, bindings that overlap.
TEST(HostNpu, RecordsGoThroughSlotsWhereInPlaceWouldShow) {
  auto scribble = npuKernel(copyPlan(8, 2, "scribble64"));
  ASSERT_TRUE(scribble);
  std::vector<std::vector<int32_t>> buffers = {iota(128, 7), std::vector<int32_t>(128, -1)};
  ASSERT_TRUE(run(*scribble, buffers).isOk());
  EXPECT_EQ(buffers[0], iota(128, 7));
  EXPECT_EQ(buffers[1], buffers[0]);

  auto where = npuKernel(copyPlan(4, 2, "where64"));
  ASSERT_TRUE(where);
  std::vector<int32_t> shared(64, 0);
  auto *base = reinterpret_cast<std::byte *>(shared.data());
  std::vector<BindingSpan> same = {{base, 256}, {base, 256}};  // one buffer as input and output
  ASSERT_TRUE(where->run(same, {}).isOk());
  for (size_t k = 0; k < 4; ++k) {
    uint64_t at[2];
    std::memcpy(at, shared.data() + 16 * k, sizeof at);
    for (uint64_t a : at) EXPECT_FALSE(a >= reinterpret_cast<uint64_t>(base) && a < reinterpret_cast<uint64_t>(base) + 256) << k;
  }
}

TEST(HostNpu, TwoStagePipelineWithNeighborChannel) {
  PlanBuilder b("add_then_copy");
  constexpr uint32_t n = 6;
  uint32_t in = b.binding(0, PlanAccess::Read, 64 * n), out = b.binding(1, PlanAccess::Write, 64 * n);
  uint32_t w0 = b.worker("add_one64", n, 2), w1 = b.worker("copy64", n, 3);
  uint32_t c0 =
      b.channel(64, 2, PlanBuilder::fromBinding(PlanBuilder::contiguous(in, 64, n)), PlanBuilder::port(w0, 0));
  uint32_t c1 = b.channel(64, 1, PlanBuilder::port(w0, 1), PlanBuilder::port(w1, 0));
  uint32_t c2 =
      b.channel(64, 2, PlanBuilder::port(w1, 1), PlanBuilder::fromBinding(PlanBuilder::contiguous(out, 64, n)));
  b.addPort(w0, PortDirection::Input, c0, 64);
  b.addPort(w0, PortDirection::Output, c1, 64);
  b.addPort(w1, PortDirection::Input, c1, 64);
  b.addPort(w1, PortDirection::Output, c2, 64);
  auto kernel = npuKernel(b.plan());
  ASSERT_TRUE(kernel);
  std::vector<std::vector<int32_t>> buffers = {iota(16 * n), std::vector<int32_t>(16 * n)};
  ASSERT_TRUE(run(*kernel, buffers).isOk());
  for (size_t i = 0; i < buffers[0].size(); ++i) ASSERT_EQ(buffers[1][i], buffers[0][i] + 1) << i;
}

TEST(HostNpu, SlowIndependentWorkersRunInParallelAndEqualOracle) {
  // Two independent copy chains in one plan, each with a 50 us stage: once the measured stage
  // time passes the threshold, a round's batches run on the pool.
  PlanBuilder b("two_chains");
  constexpr uint32_t n = 24;
  uint32_t in0 = b.binding(0, PlanAccess::Read, 64 * n), out0 = b.binding(1, PlanAccess::Write, 64 * n);
  uint32_t in1 = b.binding(2, PlanAccess::Read, 64 * n), out1 = b.binding(3, PlanAccess::Write, 64 * n);
  for (uint32_t chain = 0; chain < 2; ++chain) {
    uint32_t w = b.worker("spin_copy64", n, 2 + chain);
    uint32_t c0 = b.channel(64, 4, PlanBuilder::fromBinding(PlanBuilder::contiguous(chain ? in1 : in0, 64, n)),
                            PlanBuilder::port(w, 0));
    uint32_t c1 = b.channel(64, 4, PlanBuilder::port(w, 1),
                            PlanBuilder::fromBinding(PlanBuilder::contiguous(chain ? out1 : out0, 64, n)));
    b.addPort(w, PortDirection::Input, c0, 64);
    b.addPort(w, PortDirection::Output, c1, 64);
  }
  auto kernel = npuKernel(b.plan());
  ASSERT_TRUE(kernel);
  for (int run = 0; run < 3; ++run) {
    std::vector<std::vector<int32_t>> buffers = {iota(16 * n, run), std::vector<int32_t>(16 * n),
                                                 iota(16 * n, 1000 + run), std::vector<int32_t>(16 * n)};
    ASSERT_TRUE(::run(*kernel, buffers).isOk());
    EXPECT_EQ(buffers[1], buffers[0]);
    EXPECT_EQ(buffers[3], buffers[2]);
  }
}

TEST(HostNpu, StridedGatherRepeatAndFold) {
  // Input: a 4 x 32-i32 matrix; each record gathers one 16-i32 half-row pair via a stride.
  // Record k: runs of 32 bytes (8 i32) at start + {0, 128} (two rows), start = k * 32.
  PlanBuilder b("fold");
  uint32_t in = b.binding(0, PlanAccess::Read, 4 * 128), out = b.binding(1, PlanAccess::Write, 64);
  hrx::format::BindingTransfer t;
  t.binding = in;
  t.runBytes = 32;
  t.dims = {{2, 256}};
  t.recordStride = 32;
  t.recordCount = 4;
  t.repeatCount = 2;  // the sequence is replayed: 8 records
  uint32_t w = b.worker("accumulate64", 8, 2);
  uint32_t c0 = b.channel(64, 2, PlanBuilder::fromBinding(t), PlanBuilder::port(w, 0));
  uint32_t c1 =
      b.channel(64, 2, PlanBuilder::port(w, 2), PlanBuilder::fromBinding(PlanBuilder::contiguous(out, 64, 1)));
  b.addPort(w, PortDirection::Input, c0, 64);
  b.addPort(w, PortDirection::State, std::nullopt, 64, 8);
  b.addPort(w, PortDirection::Output, c1, 64, 8);
  auto kernel = npuKernel(b.plan());
  ASSERT_TRUE(kernel);
  std::vector<std::vector<int32_t>> buffers = {iota(128), std::vector<int32_t>(16)};
  ASSERT_TRUE(run(*kernel, buffers).isOk());
  // Oracle: the same gather written as plain loops.
  std::vector<int32_t> expected(16, 0);
  for (int rep = 0; rep < 2; ++rep)
    for (int k = 0; k < 4; ++k)
      for (int run = 0; run < 2; ++run)
        for (int e = 0; e < 8; ++e) expected[run * 8 + e] += buffers[0][k * 8 + run * 64 + e];
  EXPECT_EQ(buffers[1], expected);
}

TEST(HostNpu, DeadlockIsReportedNotHung) {
  // The worker wants 4 records but the input DMA supplies 2.
  auto plan = copyPlan(4);
  plan.channels[0].sender.binding->recordCount = 2;
  auto kernel = npuKernel(plan);
  ASSERT_TRUE(kernel);
  std::vector<std::vector<int32_t>> buffers = {iota(64), std::vector<int32_t>(64)};
  hrx::Status s = run(*kernel, buffers);
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), "deadlock in array plan 'copy': every unfinished task is blocked\n"
                         "  worker 0 (@copy64 at tile (0,2), iteration 2 of 4) waits for ready on channel 0 (0 of 2 "
                         "slots ready)\n"
                         "  output DMA of binding 1 (record 2 of 4) waits for ready on channel 1 (0 of 2 slots ready)");
}

TEST(HostNpu, CyclicDeadlockNamesEveryBlockedWorker) {
  PlanBuilder b("cycle");
  b.binding(0, PlanAccess::Read, 64);
  uint32_t w0 = b.worker("copy64", 1, 2), w1 = b.worker("copy64", 1, 3);
  uint32_t c0 = b.channel(64, 1, PlanBuilder::port(w0, 1), PlanBuilder::port(w1, 0));
  uint32_t c1 = b.channel(64, 1, PlanBuilder::port(w1, 1), PlanBuilder::port(w0, 0));
  b.addPort(w0, PortDirection::Input, c1, 64);
  b.addPort(w0, PortDirection::Output, c0, 64);
  b.addPort(w1, PortDirection::Input, c0, 64);
  b.addPort(w1, PortDirection::Output, c1, 64);
  auto kernel = npuKernel(b.plan());
  ASSERT_TRUE(kernel);
  std::vector<std::vector<int32_t>> buffers = {iota(16)};
  hrx::Status s = run(*kernel, buffers);
  EXPECT_NE(s.message().find("worker 0 (@copy64 at tile (0,2), iteration 0 of 1) waits for ready on channel 1"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("worker 1 (@copy64 at tile (0,3), iteration 0 of 1) waits for ready on channel 0"),
            std::string::npos);
}

TEST(HostNpu, PlanErrorsNameTheField) {
  auto plan = copyPlan(2);
  plan.workers[0].entry = "missing";
  auto contract = contractFromPlan(plan);
  auto k = makeHostNpuKernel(plan, loadFixture(), *contract);
  ASSERT_FALSE(k.isOk());
  EXPECT_EQ(k.status().message(),
            "array plan 'copy': workers[0]: HostKernels.so: host code has no symbol 'hrx.stage.missing'");
  plan = copyPlan(2);
  plan.channels[1].receiver.binding->runBytes = 32;
  k = makeHostNpuKernel(plan, loadFixture(), *contract);
  EXPECT_EQ(k.status().message(),
            "array plan 'copy': channels[1].receiver: moves 32-byte records into a channel of 64-byte records");
}

TEST(HostNpu, TransfersOutsideABindingAreRefusedBeforeRunning) {
  auto kernel = npuKernel(copyPlan(4));
  std::vector<std::vector<int32_t>> buffers = {iota(32), std::vector<int32_t>(64)};
  hrx::Status s = run(*kernel, buffers);
  EXPECT_EQ(s.message(), "array plan 'copy': channel 0 transfers bytes up to 256 of binding 0, which has 128 bytes");
}

TEST(HostGpu, SpmdVaddAndBarrierKernelEqualOracle) {
  auto code = loadFixture();
  KernelContract contract{{{4096, 4, hrx::format::ContractAccess::Write, "i32 out"},
                           {4096, 4, hrx::format::ContractAccess::Read, "i32 a"},
                           {4096, 4, hrx::format::ContractAccess::Read, "i32 b"}},
                          {}};
  auto vadd = makeHostGpuKernel("vadd", code, contract, {1024});
  ASSERT_TRUE(vadd.isOk()) << vadd.status().toString();
  std::vector<std::vector<int32_t>> buffers = {std::vector<int32_t>(1024), iota(1024, 3), iota(1024, 100)};
  ASSERT_TRUE(run(**vadd, buffers).isOk());
  for (size_t i = 0; i < 1024; ++i) ASSERT_EQ(buffers[0][i], buffers[1][i] + buffers[2][i]);

  KernelContract two{
      {{4096, 4, hrx::format::ContractAccess::Write, ""}, {4096, 4, hrx::format::ContractAccess::Read, ""}}, {}};
  auto reverse = makeHostGpuKernel("reverse64", code, two, {1024});
  ASSERT_TRUE(reverse.isOk());
  std::vector<std::vector<int32_t>> rb = {std::vector<int32_t>(1024), iota(1024)};
  ASSERT_TRUE(run(**reverse, rb).isOk());
  for (size_t i = 0; i < 1024; ++i) ASSERT_EQ(rb[0][i], rb[1][(i / 64) * 64 + 63 - i % 64]);
  EXPECT_EQ(makeHostGpuKernel("nope", code, two, {1}).status().message(),
            "HostKernels.so: host code has no symbol 'hrx.kernel.nope'");
}

// scale(n: u64, y: buffer, factor: i32): launch arguments value, buffer, value.
GpuLaunchLayout scaleLayout(std::optional<uint64_t> maxFlatWorkgroupSize) {
  using hrx::format::LaunchArgumentKind;
  return {{{0, 8, LaunchArgumentKind::Value}, {8, 8, LaunchArgumentKind::Buffer}, {16, 4, LaunchArgumentKind::Value}},
          maxFlatWorkgroupSize};
}

TEST(HostGpu, ScalarsComeFromTheConstantsBlockInLaunchOrder) {
  KernelContract contract{{{4, 4, hrx::format::ContractAccess::ReadWrite, "i32 y"}}, {}};
  auto scale = makeHostGpuKernel("scale", loadFixture(), contract, {64}, scaleLayout(64));
  ASSERT_TRUE(scale.isOk()) << scale.status().toString();
  EXPECT_EQ((*scale)->constantBytes(), 12u);
  std::vector<std::byte> constants(12);
  uint64_t n = 40;
  int32_t factor = -3;
  std::memcpy(constants.data(), &n, 8);
  std::memcpy(constants.data() + 8, &factor, 4);
  std::vector<std::vector<int32_t>> buffers = {iota(64)};
  ASSERT_TRUE(run(**scale, buffers, constants).isOk());
  for (int32_t i = 0; i < 64; ++i) ASSERT_EQ(buffers[0][i], i < 40 ? -3 * i : i);
  EXPECT_EQ(run(**scale, buffers, std::span(constants).first(8)).message(),
            "kernel 'scale': 8 constant bytes given, its scalar arguments take 12");

  auto rt = std::move(Runtime::create()).value();
  Buffer y = *rt->allocate(256, Placement::HostVisible());
  Graph g(*rt);
  EXPECT_EQ(g.gpu(*scale, {y.view()}).message(),
            "kernel 'scale': its scalar arguments take 12 constant bytes, 0 were given");
  EXPECT_TRUE(g.gpu(*scale, {y.view()}, constants).isOk());

  EXPECT_EQ(makeHostGpuKernel("scale", loadFixture(), contract, {64}, scaleLayout(32)).status().message(),
            "kernel 'scale': the launch program's workgroup size 64x1x1 (64 work-items) exceeds the code object's "
            "max_flat_workgroup_size 32");
  KernelContract two{
      {{4, 4, hrx::format::ContractAccess::ReadWrite, ""}, {4, 4, hrx::format::ContractAccess::Read, ""}}, {}};
  EXPECT_EQ(makeHostGpuKernel("scale", loadFixture(), two, {64}, scaleLayout(64)).status().message(),
            "kernel 'scale': the launch signature has 1 buffer argument(s), the contract 2 binding(s)");
}

TEST(HostDevice, NpuAndGpuKernelsInOneGraph) {
  auto rt = std::move(Runtime::create()).value();
  auto npu = rt->adoptKernel(npuKernel(copyPlan(16)));
  ASSERT_TRUE(npu.isOk());
  EXPECT_EQ(rt->statistics().allocations, 0u);
  KernelContract contract{{{1024, 4, hrx::format::ContractAccess::Write, ""},
                           {1024, 4, hrx::format::ContractAccess::Read, ""},
                           {1024, 4, hrx::format::ContractAccess::Read, ""}},
                          {}};
  auto gpu = makeHostGpuKernel("vadd", loadFixture(), contract, {256});
  ASSERT_TRUE(gpu.isOk());
  Buffer a = *rt->allocate(1024, Placement::Shared(rt->host())), b = *rt->allocate(1024, Placement::Shared(rt->host()));
  Buffer c = *rt->allocate(1024, Placement::Shared(rt->host()));
  {
    auto w = a.mapWrite();
    auto *p = reinterpret_cast<int32_t *>(w->mutableBytes().data());
    for (int i = 0; i < 256; ++i) p[i] = i * 3;
  }
  Graph g(*rt);
  ASSERT_TRUE(g.npu(*npu, {a.view(), b.view()}).isOk());            // b = a
  ASSERT_TRUE(g.gpu(*gpu, {c.view(), a.view(), b.view()}).isOk());  // c = a + b (RAW on b)
  auto exe = rt->prepare(g);
  ASSERT_TRUE(exe.isOk());
  for (int replay = 0; replay < 3; ++replay) ASSERT_TRUE(exe->submit()->wait().isOk());
  auto r = c.mapRead();
  auto *p = reinterpret_cast<const int32_t *>(r->bytes().data());
  for (int i = 0; i < 256; ++i) ASSERT_EQ(p[i], 6 * i);
  EXPECT_EQ(rt->statistics().copiedBytes, 0u);
}

TEST(HostDevice, ImageBytesAreChargedToTheBudget) {
  RuntimeOptions options;
  options.memoryBudget = 300;
  auto rt = std::move(Runtime::create(options)).value();
  auto kernel = npuKernel(copyPlan(4));  // two rings of two 64-byte slots: 256 bytes
  {
    auto adopted = rt->adoptKernel(kernel);
    ASSERT_TRUE(adopted.isOk());
    auto buffer = rt->allocate(64, Placement::HostVisible());
    ASSERT_FALSE(buffer.isOk());
    EXPECT_EQ(buffer.status().message(), "memory budget exceeded: 64 bytes requested, 256 of 300 in use");
  }
  EXPECT_TRUE(rt->allocate(64, Placement::HostVisible()).isOk());  // the charge left with the kernel
}
