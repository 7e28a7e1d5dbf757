// Simulator programs with the results and cycle counts the ISA facts predict: a scalar loop (a
// conditional branch with its 5 delay slots, and a zero-overhead loop), a 16-lane i32 vector add,
// a 32-lane bf16 add through the fp32 accumulators, a load-latency hazard and a lock hand-off
// between two cores sharing memory.
#include "hrx/aie2p/Asm.h"
#include "hrx/aie2p/Simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>

using namespace hrx::aie2p;

namespace {

std::vector<uint8_t> build(const std::string &text) {
  AsmProgram program;
  std::vector<AsmDiagnostic> diags;
  EXPECT_TRUE(assemble(text, program, diags))
      << (diags.empty() ? "" : std::to_string(diags[0].line) + ": " + diags[0].message);
  return program.bytes;
}

Reg r(unsigned i) { return Reg{RegKind::R, static_cast<uint8_t>(i)}; }

uint32_t word(const TileMemory &m, uint32_t offset) {
  uint32_t v;
  std::memcpy(&v, m.data.data() + offset, 4);
  return v;
}

}  // namespace

TEST(Aie2pSim, ScalarLoopWithConditionalBranch) {
  // sum = 10 + 9 + ... + 1. Each iteration: 2 adds, jnz, 5 delay slots = 8 bundles.
  TileMemory mem;
  Core core(build("movxm r0, #10\nmovxm r1, #0\n"
                  "loop: add r1, r1, r0\nadd r0, r0, #-1\njnz r0, #loop\nnop\nnop\nnop\nnop\nnop\n"
                  "done\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(1)), 55u);
  EXPECT_EQ(core.stats().cycles, 2u + 10u * 8u + 1u);
  EXPECT_EQ(core.stats().stallCycles, 0u);
}

TEST(Aie2pSim, ZeroOverheadLoop) {
  // ls/le/lc: the two-bundle body runs lc = 10 times with no branch bundles.
  TileMemory mem;
  Core core(build("movxm ls, #body\nmovxm le, #last\nmovx lc, #10\nmovxm r0, #1\nmovxm r1, #0\n"
                  "body: add r1, r1, r0\nlast: add r0, r0, #1\n"
                  "done\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(1)), 55u);
  EXPECT_EQ(core.scalar(r(0)), 11u);
  EXPECT_EQ(core.stats().cycles, 5u + 2u * 10u + 1u);
}

TEST(Aie2pSim, LoadLatencyHazard) {
  // lda writes its result at cycle 7 (AIE2PGenSchedule.td): bundles 1..6 after it read the old r1,
  // the 7th the loaded value.
  TileMemory mem;
  uint32_t v = 42;
  std::memcpy(mem.data.data(), &v, 4);
  Core core(build("movxm p0, #0x70000\nlda r1, [p0, #0]\nadd r2, r1, r1\nnop\nnop\nnop\nnop\nadd r4, r1, r1\nadd r3, "
                  "r1, r1\ndone\n"),
            {&mem});
  core.setScalar(r(1), 7);
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(2)), 14u);  // 1 cycle after the load: old value
  EXPECT_EQ(core.scalar(r(4)), 14u);  // 6 cycles after: still old
  EXPECT_EQ(core.scalar(r(3)), 84u);  // 7 cycles after: loaded
  EXPECT_EQ(core.scalar(r(1)), 42u);
  EXPECT_EQ(core.stats().cycles, 10u);
}

TEST(Aie2pSim, VectorAdd16LanesI32) {
  TileMemory mem;
  for (uint32_t i = 0; i < 16; ++i) {
    uint32_t a = i * 3 + 1, b = 1000 - i;
    std::memcpy(mem.data.data() + 4 * i, &a, 4);
    std::memcpy(mem.data.data() + 0x40 + 4 * i, &b, 4);
  }
  // vlda/vldb: result at cycle 7; vadd.32: result at cycle 2 (the store reads at cycle 1).
  Core core(build("movxm p0, #0x70000\nmovxm p1, #0x70040\nmovxm p2, #0x70080\n"
                  "vlda x0, [p0, #0]; vldb x2, [p1, #0]\nnop\nnop\nnop\nnop\nnop\nnop\n"
                  "vadd.32 x4, x0, x2\nnop\nvst x4, [p2, #0]\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(word(mem, 0x80 + 4 * i), i * 3 + 1 + 1000 - i) << i;
  EXPECT_EQ(core.stats().cycles, 3u + 1u + 6u + 1u + 1u + 1u + 1u);
}

TEST(Aie2pSim, VectorAddTooEarlyReadsOldRegisters) {
  // The same add one bundle early (6 after the loads) adds the old (zero) x0 and x2.
  TileMemory mem;
  for (uint32_t i = 0; i < 32; ++i) mem.data[i] = 1;
  Core core(build("movxm p0, #0x70000\nvlda x0, [p0, #0]\nnop\nnop\nnop\nnop\nnop\nvadd.32 x4, x0, x0\nnop\nvst x4, "
                  "[p0, #64]\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(word(mem, 64), 0u);
}

TEST(Aie2pSim, Bf16Add32Lanes) {
  auto bf16 = [](float f) { return static_cast<uint16_t>(std::bit_cast<uint32_t>(f) >> 16); };
  TileMemory mem;
  for (unsigned i = 0; i < 32; ++i) {
    uint16_t a = bf16(1.5f * i), b = bf16(0.25f * i - 4.0f);
    std::memcpy(mem.data.data() + 2 * i, &a, 2);
    std::memcpy(mem.data.data() + 0x40 + 2 * i, &b, 2);
  }
  // bf16 -> fp32 accumulator halves (vconv.fp32.bf16, result at 2), vadd.f (reads at 4, writes
  // at 6), fp32 -> bf16 (vconv.bf16.fp32 reads at 1, writes at 2), vst.
  Core core(build("movxm p0, #0x70000\nmovxm p1, #0x70040\nmovxm p2, #0x70080\nmovxm r0, #0\n"
                  "vlda x0, [p0, #0]; vldb x1, [p1, #0]\nnop\nnop\nnop\nnop\nnop\nnop\n"
                  "vconv.fp32.bf16 cml0, x0\nvconv.fp32.bf16 cml1, x1\nvadd.f dm2, dm0, dm1, r0\n"
                  "nop\nnop\nnop\nnop\nnop\nvconv.bf16.fp32 x2, cml2\nnop\nvst x2, [p2, #0]\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  for (unsigned i = 0; i < 32; ++i) {
    uint16_t out;
    std::memcpy(&out, mem.data.data() + 0x80 + 2 * i, 2);
    EXPECT_EQ(out, bf16(1.5f * i + 0.25f * i - 4.0f)) << i;  // exact in bf16
  }
  EXPECT_EQ(core.stats().cycles, 4u + 1u + 6u + 3u + 5u + 1u + 1u + 1u + 1u);
}

TEST(Aie2pSim, LockHandOffBetweenTwoCores) {
  // Core A (tile row 2) stores 123 in its memory and releases its lock 0 (id 48). Core B (the tile
  // north of it) sees A's memory as south (0x40000) and A's locks as ids 0-15: it acquires, loads,
  // doubles, stores in its own memory. B reaches the acquire at cycle 3, A releases at cycle 4
  // (cores step in order each cycle): B stalls one cycle.
  TileMemory a, b;
  Core coreA(build("movxm r1, #1\nmovxm p0, #0x70000\nmovxm r0, #123\nst r0, [p0, #0]\nrel #48, r1\ndone\n"),
             {&a, nullptr, nullptr, &b});
  Core coreB(build("movxm r1, #1\nmovxm p0, #0x40000\nmovxm p1, #0x70000\nacq #0, r1\nlda r2, [p0, #0]\n"
                   "nop\nnop\nnop\nnop\nnop\nnop\nadd r3, r2, r2\nst r3, [p1, #0]\ndone\n"),
             {&b, &a, nullptr, nullptr});
  Core *cores[] = {&coreA, &coreB};
  ASSERT_EQ(runCores(cores), CoreState::Halted);
  EXPECT_EQ(word(b, 0), 246u);
  EXPECT_EQ(coreA.stats().cycles, 6u);
  EXPECT_EQ(coreB.stats().cycles, 15u);
  EXPECT_EQ(coreB.stats().stallCycles, 1u);
  EXPECT_EQ(a.locks[0], 0);
}

TEST(Aie2pSim, DeadlockIsATrap) {
  TileMemory mem;
  Core core(build("movxm r1, #1\nacq #48, r1\ndone\n"), {&mem});
  Core *cores[] = {&core};
  EXPECT_EQ(runCores(cores), CoreState::Trapped);
  EXPECT_NE(core.trap()->reason.find("deadlock"), std::string::npos);
}

TEST(Aie2pSim, PreciseTraps) {
  TileMemory mem;
  Core outside(build("movxm p0, #0x80000\nlda r0, [p0, #0]\ndone\n"), {&mem});
  EXPECT_EQ(outside.run(), CoreState::Trapped);
  EXPECT_EQ(outside.trap()->pc, 6u);
  EXPECT_EQ(outside.trap()->bundle, "lda r0, [p0, #0]");
  EXPECT_NE(outside.trap()->reason.find("outside the core's data memory map"), std::string::npos);

  Core misaligned(build("movxm p0, #0x70002\nlda r0, [p0, #0]\ndone\n"), {&mem});
  EXPECT_EQ(misaligned.run(), CoreState::Trapped);
  EXPECT_NE(misaligned.trap()->reason.find("misaligned"), std::string::npos);

  Core runaway(build("l: j #l\nnop\nnop\nnop\nnop\nnop\n"), {&mem}, 1000);
  EXPECT_EQ(runaway.run(), CoreState::Trapped);
  EXPECT_NE(runaway.trap()->reason.find("cycle limit"), std::string::npos);

  Core illegal({0x00, 0x80}, {&mem});
  EXPECT_EQ(illegal.run(), CoreState::Trapped);
  EXPECT_NE(illegal.trap()->reason.find("illegal bundle"), std::string::npos);
  EXPECT_EQ(illegal.trap()->bundle, "00 80");
}

TEST(Aie2pSim, CallAndReturnWithDelaySlots) {
  // jl sets lr to the bundle after its 5 delay slots; ret returns there after its own 5.
  TileMemory mem;
  Core core(build("jl #f\nnop\nnop\nnop\nnop\nnop\nadd r2, r1, #1\ndone\n"
                  "f: movxm r1, #41\nret lr\nnop\nnop\nnop\nnop\nnop\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(2)), 42u);
  EXPECT_EQ(core.stats().cycles, 6u + 7u + 2u);
}

TEST(Aie2pSim, VectorSubSelectAndXor) {
  // vsub.32 then vsel.32 with mask r16 = 0x5555: even lanes from s2 (the difference), odd lanes
  // from s1 (a). xor on the scalar side.
  TileMemory mem;
  for (uint32_t i = 0; i < 16; ++i) {
    uint32_t a = 100 + i, b = i;
    std::memcpy(mem.data.data() + 4 * i, &a, 4);
    std::memcpy(mem.data.data() + 0x40 + 4 * i, &b, 4);
  }
  Core core(build("movxm p0, #0x70000\nmovxm r16, #0x5555\nmovxm r1, #0xff00\nmovxm r2, #0x0ff0\n"
                  "vlda x0, [p0, #0]; vldb x2, [p0, #64]\nxor r3, r1, r2\nnop\nnop\nnop\nnop\nnop\n"
                  "vsub.32 x4, x0, x2\nnop\nvsel.32 x6, x0, x4, r16\nnop\nvst x6, [p0, #128]\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  for (uint32_t i = 0; i < 16; ++i) EXPECT_EQ(word(mem, 128 + 4 * i), (i % 2 == 0) ? 100u : 100u + i) << i;
  EXPECT_EQ(core.scalar(r(3)), 0xf0f0u);
}

TEST(Aie2pSim, SpillsBelowTheStackPointer) {
  // Stack-relative forms take negative offsets only (c12n_step4, c16n_step64).
  TileMemory mem;
  Core core(build("movxm sp, #0x70400\nmovxm r1, #77\nvbcst.32 x1, r1\nst r1, [sp, #-4]\nnop\nvst x1, [sp, #-64]\n"
                  "lda r2, [sp, #-4]\nvlda x2, [sp, #-64]\nnop\nnop\nnop\nnop\nnop\nnop\nvst x2, [sp, #-128]\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(2)), 77u);
  EXPECT_EQ(word(mem, 0x3fc), 77u);
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(word(mem, 0x380 + 4 * i), 77u) << i;
}

TEST(Aie2pSim, ScalarMultiplyAccumulate) {
  // mac writes at cycle 2 and reads its accumulator at 2: back-to-back macs chain.
  TileMemory mem;
  Core core(build("movxm r1, #10\nmovxm r2, #3\nmovxm r3, #4\nmac r1, r1, r2, r3\nmac r1, r1, r2, r3\nmsc r1, r1, r2, "
                  "r2\nnop\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(1)), 10u + 12u + 12u - 9u);
}

TEST(Aie2pSim, LaterLandingResultWins) {
  // lda r1 (lands at cycle 7) then add r1 (lands at 1, one bundle later): the add's value is
  // visible for a while, then the load's replaces it, even though the load issued first.
  TileMemory mem;
  uint32_t v = 42;
  std::memcpy(mem.data.data(), &v, 4);
  Core core(build("movxm p0, #0x70000\nlda r1, [p0, #0]\nadd r1, r2, #5\nadd r3, r1, #0\ndone\n"), {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(3)), 5u);   // read before the load landed
  EXPECT_EQ(core.scalar(r(1)), 42u);  // the load lands last (after done, as the pipeline drains)
}

TEST(Aie2pSim, VectorMaxLtAndMinGeWriteValueAndMask) {
  // Lane 0 of x0 is 0xFFFFFFFF (the least value read signed, the greatest unsigned), the other
  // lanes 0; x1 is 7 everywhere. vmax_lt's mask is s1 < s2 and vmin_ge's s1 >= s2 (r16, bit per
  // lane); vaddsign1 compares signed, vaddsign0 unsigned.
  TileMemory mem;
  uint32_t minusOne = 0xFFFFFFFFu;
  std::memcpy(mem.data.data(), &minusOne, 4);
  Core core(build("movxm p0, #0x70000\nmovxm r1, #7\nvlda x0, [p0, #0]\nvbcst.32 x1, r1\nnop\nnop\nnop\nnop\nnop\nnop\n"
                  "vmax_lt.32 x2, r16, x0, x1, vaddsign1\nnop\nmov r2, r16\nvst x2, [p0, #64]\n"
                  "vmax_lt.32 x3, r16, x0, x1, vaddsign0\nnop\nmov r3, r16\nvst x3, [p0, #128]\n"
                  "vmin_ge.32 x4, r16, x0, x1, vaddsign0\nnop\nmov r4, r16\nvst x4, [p0, #192]\n"
                  "vmin_ge.16 x5, r16, x0, x1, vaddsign1\nnop\nmov r5, r16\nvst x5, [p0, #256]\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(2)), 0xFFFFu);  // signed: every lane takes the 7
  EXPECT_EQ(core.scalar(r(3)), 0xFFFEu);  // unsigned: lane 0 keeps 0xFFFFFFFF
  EXPECT_EQ(core.scalar(r(4)), 0x1u);     // the exact complement at the same signedness
  for (uint32_t i = 0; i < 16; ++i) {
    EXPECT_EQ(word(mem, 64 + 4 * i), 7u) << i;
    EXPECT_EQ(word(mem, 128 + 4 * i), i == 0 ? 0xFFFFFFFFu : 7u) << i;
    EXPECT_EQ(word(mem, 192 + 4 * i), i == 0 ? 7u : 0u) << i;
  }
  // 16-bit lanes, signed: lanes 0 and 1 are 0xFFFF (-1), even lanes of x1 are 7, odd 0. Lane 0:
  // -1 >= 7 no (keeps -1); lane 1: -1 >= 0 no (keeps -1); other even lanes 0 >= 7 no, odd 0 >= 0
  // yes (takes 0). Mask: the odd lanes from 3 up.
  EXPECT_EQ(core.scalar(r(5)), 0xAAAAAAA8u);
  EXPECT_EQ(word(mem, 256), 0xFFFFFFFFu);
  EXPECT_EQ(word(mem, 260), 0u);
}

TEST(Aie2pSim, VectorCompareAndExtract) {
  // vlt/vge write only the mask; vextract reads one lane into a scalar (vaddsign1 sign-extends
  // the 16-bit lane); vextbcst copies one lane to all. Lane 0 of x0 is 0xFFFFFFFF, lane 1 is 5,
  // the rest 0; x1 is 5 everywhere.
  TileMemory mem;
  uint32_t init[2] = {0xFFFFFFFFu, 5};
  std::memcpy(mem.data.data(), init, 8);
  Core core(
      build("movxm p0, #0x70000\nmovxm r1, #5\nvlda x0, [p0, #0]\nvbcst.32 x1, r1\nnop\nnop\nnop\nnop\nnop\nnop\n"
            "vlt.32 r20, x0, x1, vaddsign1\nvlt.32 r21, x0, x1, vaddsign0\nvge.32 r22, x0, x1, vaddsign0\n"
            "vge.16 r23, x0, x1, vaddsign1\nvextract.32 r2, x0, #1, vaddsign0\nvextract.16 r3, x0, #0, vaddsign1\n"
            "vextract.16 r4, x0, #1, vaddsign0\nmovxm r6, #17\nvextract.32 r5, x0, r6, vaddsign0\n"
            "movxm r7, #34\nvextbcst.32 x2, x0, #1\nvextbcst.16 x3, x0, r7\nnop\nvst x2, [p0, #64]\nvst x3, [p0, "
            "#128]\ndone\n"),
      {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(20)), 0xFFFDu);  // signed: -1 < 5 and 0 < 5; 5 < 5 fails in lane 1
  EXPECT_EQ(core.scalar(r(21)), 0xFFFCu);  // unsigned: 0xFFFFFFFF is not below 5
  EXPECT_EQ(core.scalar(r(22)), 0x0003u);  // the complement of r21
  // 16-bit lanes of x0: ffff ffff 0005 0000 0 ...; of x1: 0005 0000 repeated. Signed >=:
  // lane 0 -1>=5 no, lane 1 -1>=0 no, lane 2 5>=5 yes, lane 3 0>=0 yes, then even no, odd yes.
  EXPECT_EQ(core.scalar(r(23)), 0xAAAAAAACu);
  EXPECT_EQ(core.scalar(r(2)), 5u);
  EXPECT_EQ(core.scalar(r(3)), 0xFFFFFFFFu);
  EXPECT_EQ(core.scalar(r(4)), 0xFFFFu);
  EXPECT_EQ(core.scalar(r(5)), 5u);  // register index 17 wraps to lane 1 of 16
  for (uint32_t i = 0; i < 16; ++i) {
    EXPECT_EQ(word(mem, 64 + 4 * i), 5u) << i;            // lane 1 everywhere
    EXPECT_EQ(word(mem, 128 + 4 * i), 0x00050005u) << i;  // 16-bit lane 34 % 32 = 2 (0x0005)
  }
}

TEST(Aie2pSim, AbsCountLeadingZerosAndExtends) {
  TileMemory mem;
  Core core(build("movxm r1, #-5\nmovxm r2, #0x1234ff80\nmovxm r3, #0x00008001\nmovxm r4, #0\n"
                  "abs r10, r1\nclz r11, r3\nclz r12, r4\nextend.s8 r13, r2\nextend.s16 r14, r2\n"
                  "extend.u8 r15, r2\nextend.u16 r16, r2\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(10)), 5u);
  EXPECT_EQ(core.scalar(r(11)), 16u);
  EXPECT_EQ(core.scalar(r(12)), 32u);
  EXPECT_EQ(core.scalar(r(13)), 0xFFFFFF80u);
  EXPECT_EQ(core.scalar(r(14)), 0xFFFFFF80u);
  EXPECT_EQ(core.scalar(r(15)), 0x80u);
  EXPECT_EQ(core.scalar(r(16)), 0xFF80u);
}

TEST(Aie2pSim, Bf16MaxMinAndCompare) {
  // bf16 lanes: a = 1.0 (0x3f80) in even lanes, -2.0 (0xc000) in odd; b = 0.5 (0x3f00)
  // everywhere. vmax_lt takes b where a < b (the odd lanes), vmin_ge where a >= b (the even).
  TileMemory mem;
  for (unsigned i = 0; i < 32; ++i) {
    uint16_t a = i % 2 ? 0xc000 : 0x3f80, b = 0x3f00;
    std::memcpy(mem.data.data() + 2 * i, &a, 2);
    std::memcpy(mem.data.data() + 64 + 2 * i, &b, 2);
  }
  Core core(build("movxm p0, #0x70000\nvlda x0, [p0, #0]; vldb x1, [p0, #64]\nnop\nnop\nnop\nnop\nnop\nnop\n"
                  "vmax_lt.bf16 x2, r16, x0, x1\nvlt.bf16 r20, x0, x1\nmov r1, r16\nvmin_ge.bf16 x3, r16, x0, x1\n"
                  "vst x2, [p0, #128]\nmov r2, r16\nvst x3, [p0, #192]\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(1)), 0xAAAAAAAAu);
  EXPECT_EQ(core.scalar(r(20)), 0xAAAAAAAAu);
  EXPECT_EQ(core.scalar(r(2)), 0x55555555u);
  for (unsigned i = 0; i < 32; ++i) {
    uint16_t mx, mn;
    std::memcpy(&mx, mem.data.data() + 128 + 2 * i, 2);
    std::memcpy(&mn, mem.data.data() + 192 + 2 * i, 2);
    EXPECT_EQ(mx, i % 2 ? 0x3f00 : 0x3f80) << i;  // max(1, .5) = 1, max(-2, .5) = .5
    EXPECT_EQ(mn, i % 2 ? 0xc000 : 0x3f00) << i;  // min(1, .5) = .5, min(-2, .5) = -2
  }
}

TEST(Aie2pSim, DecrementAndBranchLoop) {
  // jnzd r1, r1, p1 jumps while r1 (before the decrement) is non-zero: r1 = 3 runs the body 4
  // times. 3 setup bundles + 4 x (add, jnzd, 5 delay slots) + done = 32 cycles.
  TileMemory mem;
  Core core(build("movxm r1, #3\nmovxm r2, #0\nmovxm p1, #loop\nloop:\nadd r2, r2, #1\njnzd r1, r1, p1\n"
                  "nop\nnop\nnop\nnop\nnop\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(2)), 4u);
  EXPECT_EQ(core.scalar(r(1)), 0xFFFFFFFFu);
  EXPECT_EQ(core.stats().cycles, 32u);
}

TEST(Aie2pSim, TwoDimensionalPostModifyFollowsTheUpstreamRunTest) {
  // The two shapes of llvm-aie's aie2p-2d-addressing run test (moved to this core's memory map):
  // a circular walk over four 64-byte slots (m = -192, dn = 3, dj = 64) and a pointer held for
  // dn + 1 steps then stepped by m = 4 (dj = 0). Five steps each: p0 ends one slot in with
  // dc0 = 1, p1 ends 4 bytes in with dc1 = 1.
  TileMemory mem;
  Core core(
      build("movxm p0, #0x70000\nmovxm r0, #-192\nmov m0, r0\nmovxm r1, #3\nmov dn0, r1\nmovxm r2, #64\nmov dj0, r2\n"
            "movxm r3, #0\nmov dc0, r3\nmovxm p1, #0x70080\nmovxm r4, #4\nmov m1, r4\nmov dn1, r1\nmovxm r5, #0\n"
            "mov dj1, r5\nmov dc1, r3\n"
            "padda.2d [p0], d0\npadda.2d [p0], d0\npadda.2d [p0], d0\npadda.2d [p0], d0\npadda.2d [p0], d0\n"
            "paddb.2d [p1], d1\npaddb.2d [p1], d1\npadds.2d [p1], d1\npadds.2d [p1], d1\npadda.2d [p1], d1\ndone\n"),
      {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(Reg{RegKind::P, 0}), 0x70040u);
  EXPECT_EQ(core.scalar(Reg{RegKind::DC, 0}), 1u);
  EXPECT_EQ(core.scalar(Reg{RegKind::P, 1}), 0x70084u);
  EXPECT_EQ(core.scalar(Reg{RegKind::DC, 1}), 1u);
}

TEST(Aie2pSim, TwoDimensionalLoadsAndStoresPingPong) {
  // The upstream test's third shape: d2 (m = -64, dn = 1, dj = 64) walks two 64-byte slots and
  // back; two vst.2d write both, two vlda.2d read them back, and st.2d/lda.2d take the same step.
  TileMemory mem;
  Core core(
      build("movxm p2, #0x70100\nmovxm p3, #0x70100\nmovxm r6, #-64\nmov m2, r6\nmovxm r7, #1\nmov dn2, r7\n"
            "movxm r2, #64\nmov dj2, r2\nmovxm r3, #0\nmov dc2, r3\nmovxm r8, #0x7E7E7E7E\nvbcst.32 x2, r8\nnop\n"
            "vst.2d x2, [p2], d2\nvst.2d x2, [p2], d2\nmov dc2, r3\nvlda.2d x3, [p3], d2\nvlda.2d x4, [p3], d2\n"
            "nop\nnop\nnop\nnop\nnop\nnop\n"
            "movxm p4, #0x70200\nmov dc2, r3\nmovxm r9, #11\nst.2d r9, [p4], d2\nmovxm r9, #22\nst.2d r9, [p4], d2\n"
            "mov dc2, r3\nlda.2d r10, [p4], d2\nlda.2d r11, [p4], d2\nnop\nnop\nnop\nnop\nnop\nnop\ndone\n"),
      {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(Reg{RegKind::P, 2}), 0x70100u);
  EXPECT_EQ(core.scalar(Reg{RegKind::P, 3}), 0x70100u);
  for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(word(mem, 0x100 + 4 * i), 0x7E7E7E7Eu) << i;
  for (uint8_t b : core.vector(Reg{RegKind::X, 3})) EXPECT_EQ(b, 0x7E);
  for (uint8_t b : core.vector(Reg{RegKind::X, 4})) EXPECT_EQ(b, 0x7E);
  EXPECT_EQ(word(mem, 0x200), 11u);
  EXPECT_EQ(word(mem, 0x240), 22u);
  EXPECT_EQ(core.scalar(r(10)), 11u);
  EXPECT_EQ(core.scalar(r(11)), 22u);
}

TEST(Aie2pSim, ByteAndHalfwordLoadsExtendAndStoresWriteOnlyTheirBytes) {
  TileMemory mem;
  const uint8_t init[8] = {0x80, 0x7f, 0xfe, 0xff, 0x11, 0x22, 0x33, 0x44};
  std::memcpy(mem.data.data(), init, 8);
  Core core(
      build("movxm p0, #0x70000\nmovxm p1, #0x70004\nlda.s8 r1, [p0, #0]\nlda.u8 r2, [p0, #0]\nlda.s16 r3, [p0, #2]\n"
            "lda.u16 r4, [p0, #2]\nlda.u8 r5, [p0], #1\nlda.u8 r6, [p0, #0]\nmovxm r7, #0xABCD\n"
            "st.s8 r7, [p1, #1]\nst.s16 r7, [p1, #2]\nnop\nnop\nnop\nnop\nnop\nnop\ndone\n"),
      {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(1)), 0xFFFFFF80u);
  EXPECT_EQ(core.scalar(r(2)), 0x80u);
  EXPECT_EQ(core.scalar(r(3)), 0xFFFFFFFEu);
  EXPECT_EQ(core.scalar(r(4)), 0xFFFEu);
  EXPECT_EQ(core.scalar(r(5)), 0x80u);   // post-modify reads the old pointer
  EXPECT_EQ(core.scalar(r(6)), 0x7Fu);   // ... and the next bundle sees p0 + 1
  EXPECT_EQ(word(mem, 4), 0xABCDCD11u);  // byte 5 = 0xCD, bytes 6-7 = 0xABCD, byte 4 untouched
}

TEST(Aie2pSim, HalfwordAccessNeedsTwoByteAlignment) {
  TileMemory mem;
  Core core(build("movxm p0, #0x70001\nlda.s16 r1, [p0, #0]\ndone\n"), {&mem});
  EXPECT_EQ(core.run(), CoreState::Trapped);
  EXPECT_NE(core.trap()->reason.find("misaligned 16-bit access"), std::string::npos) << core.trap()->reason;
}

TEST(Aie2pSim, ByteMaxMinMaskIsTheR17R16Pair) {
  // 64 byte lanes: x0 lane i = i - 32 (as a signed byte), x1 = 0 everywhere. Signed, vmax_lt's
  // mask (s1 < s2) holds for lanes 0..31; unsigned, lanes 0..31 are 0xE0..0xFF, never below 0.
  TileMemory mem;
  for (unsigned i = 0; i < 64; ++i) mem.data[i] = static_cast<uint8_t>(int(i) - 32);
  Core core(
      build("movxm p0, #0x70000\nvlda x0, [p0, #0]\nvclr dm0\nnop\nnop\nnop\nnop\nnop\nmovxm r1, #0\nvbcst.32 x1, "
            "r1\nnop\n"
            "vmax_lt.8 x2, r17:r16, x0, x1, vaddsign1\nnop\nmov r2, r16\nmov r3, r17\nvst x2, [p0, #64]\n"
            "vmin_ge.8 x3, r17:r16, x0, x1, vaddsign0\nnop\nmov r4, r16\nmov r5, r17\nvst x3, [p0, #128]\ndone\n"),
      {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(2)), 0xFFFFFFFFu);
  EXPECT_EQ(core.scalar(r(3)), 0u);
  EXPECT_EQ(core.scalar(r(4)), 0xFFFFFFFFu);  // unsigned s1 >= 0 everywhere
  EXPECT_EQ(core.scalar(r(5)), 0xFFFFFFFFu);
  for (unsigned i = 0; i < 64; ++i) {
    EXPECT_EQ(mem.data[64 + i], i < 32 ? 0 : i - 32) << i;  // max(s1, 0) signed
    EXPECT_EQ(mem.data[128 + i], 0) << i;                   // min unsigned with 0
  }
}

TEST(Aie2pSim, VectorShiftTakesBytesOfTheConcatenation) {
  TileMemory mem;
  for (unsigned i = 0; i < 128; ++i) mem.data[i] = static_cast<uint8_t>(i);
  Core core(build("movxm p0, #0x70000\nvlda x0, [p0, #0]\nvlda x1, [p0, #64]\nmovxm r1, #5\nnop\nnop\nnop\nnop\nnop\n"
                  "vshift x2, x0, x1, r1\nnop\nvst x2, [p0, #128]\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  for (unsigned i = 0; i < 64; ++i) EXPECT_EQ(mem.data[128 + i], i + 5) << i;
}

TEST(Aie2pSim, Int8MatrixMultiplyAccumulate) {
  // vmul with control word 776 (s8 x s8, upstream Loom's 8x8x8 word): C = A * B, A[i][k] = i - k,
  // B[k][j] = k + 2j - 7 (both signed bytes, row-major); then vmac adds A * B again (u8 x u8
  // word 8 reads the same bytes unsigned) and vmsc subtracts the signed product.
  TileMemory mem;
  int8_t a[64], b[64];
  for (int i = 0; i < 8; ++i)
    for (int k = 0; k < 8; ++k)
      a[8 * i + k] = static_cast<int8_t>(i - k), b[8 * i + k] = static_cast<int8_t>(i + 2 * k - 7);
  std::memcpy(mem.data.data(), a, 64);
  std::memcpy(mem.data.data() + 64, b, 64);
  Core core(build("movxm p0, #0x70000\nvlda x0, [p0, #0]\nvlda x1, [p0, #64]\nmovxm r1, #776\nmovxm r2, "
                  "#8\nnop\nnop\nnop\nnop\n"
                  "vmul dm1, x0, x1, r1\nnop\nnop\nnop\nnop\nnop\n"
                  "vmac dm2, dm1, x0, x1, r2\nnop\nnop\nnop\nnop\nnop\n"
                  "vmsc dm3, dm2, x0, x1, r1\nnop\nnop\nnop\nnop\nnop\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  auto lane = [&](unsigned d, unsigned l) {
    auto v = core.vector(Reg{RegKind::DM, static_cast<uint8_t>(d)});
    uint32_t x;
    std::memcpy(&x, v.data() + 4 * l, 4);
    return x;
  };
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      int32_t s = 0;
      uint32_t u = 0;
      for (int k = 0; k < 8; ++k)
        s += a[8 * i + k] * b[8 * k + j], u += uint32_t(uint8_t(a[8 * i + k])) * uint8_t(b[8 * k + j]);
      EXPECT_EQ(lane(1, 8 * i + j), static_cast<uint32_t>(s)) << i << "," << j;
      EXPECT_EQ(lane(2, 8 * i + j), static_cast<uint32_t>(s) + u) << i << "," << j;
      EXPECT_EQ(lane(3, 8 * i + j), u) << i << "," << j;
    }
}

TEST(Aie2pSim, UnmodelledMultiplyControlWordsTrap) {
  TileMemory mem;
  Core core(build("movxm r1, #780\nvmul dm0, x0, x1, r1\ndone\n"), {&mem});
  EXPECT_EQ(core.run(), CoreState::Trapped);
  EXPECT_NE(core.trap()->reason.find("control word r1 = 0x30c is not modelled for vmul"), std::string::npos)
      << core.trap()->reason;
  Core bf(build("movxm r1, #0\nvmul.f dm0, x0, x1, r1\ndone\n"), {&mem});
  EXPECT_EQ(bf.run(), CoreState::Trapped);
}

namespace {

uint16_t bf16Of(float f) { return static_cast<uint16_t>(std::bit_cast<uint32_t>(f) >> 16); }  // exact values only
float floatOfBf16(uint16_t h) { return std::bit_cast<float>(uint32_t(h) << 16); }
float lane(const Core &core, unsigned dm, unsigned i) {
  auto v = core.vector(Reg{RegKind::DM, static_cast<uint8_t>(dm)});
  uint32_t x;
  std::memcpy(&x, v.data() + 4 * i, 4);
  return std::bit_cast<float>(x);
}

}  // namespace

TEST(Aie2pSim, Bf16ElementwiseMultiplyAccumulate) {
  // Control word 60 (amode 2, bmode 3, variant 1: elementwise bf16) on 32 lanes of x0, x1:
  // dm0 = a * b; vmac.f three cycles later reads dm0 at its cycle 4, after the product landed at
  // cycle 6 (dm1 = 2ab), two cycles later it reads the old dm0 (zero: dm2 = ab); vmsc.f and
  // vnegmul.f (828: both sign bits) negate the product. The values are exact in bf16 and every
  // product and sum is exact in fp32, so the lanes are the real-number results.
  TileMemory mem;
  uint16_t a[32], b[32];
  for (int i = 0; i < 32; ++i) a[i] = bf16Of(0.5f * i - 3.0f), b[i] = bf16Of(1.25f + 0.125f * i);
  std::memcpy(mem.data.data(), a, 64);
  std::memcpy(mem.data.data() + 64, b, 64);
  Core core(build("movxm p0, #0x70000\nvlda x0, [p0, #0]\nvlda x1, [p0, #64]\nmovxm r1, #60\nmovxm r2, #828\n"
                  "nop\nnop\nnop\nnop\n"
                  "vmul.f dm0, x0, x1, r1\nnop\n"
                  "vmac.f dm2, dm0, x0, x1, r1\n"  // 2 cycles after: reads the old dm0
                  "vmac.f dm1, dm0, x0, x1, r1\n"  // 3 cycles after: reads a * b
                  "nop\nnop\nnop\nnop\nnop\n"
                  "vmsc.f dm3, dm1, x0, x1, r2\n"  // 2ab - ab
                  "vnegmul.f dm4, x0, x1, r2\n"    // -ab
                  "nop\nnop\nnop\nnop\nnop\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  for (int i = 0; i < 32; ++i) {
    float ab = (0.5f * i - 3.0f) * (1.25f + 0.125f * i);
    EXPECT_EQ(lane(core, 0, i), ab) << i;
    EXPECT_EQ(lane(core, 1, i), 2 * ab) << i;
    EXPECT_EQ(lane(core, 2, i), ab) << i;
    EXPECT_EQ(lane(core, 3, i), ab) << i;
    EXPECT_EQ(lane(core, 4, i), -ab) << i;
  }
  // The X_X forms fill the low 32 lanes; vmul.f's high lanes are zero.
  for (int i = 32; i < 64; ++i) EXPECT_EQ(lane(core, 0, i), 0.0f) << i;
  // 5 setup, 4 nops, vmul.f, nop, 2 vmac.f, 5 nops, vmsc.f, vnegmul.f, 5 nops, done: 26 bundles.
  EXPECT_EQ(core.stats().cycles, 26u);
}

TEST(Aie2pSim, Bf16TimesOneWidensSixtyFourLanesExactly) {
  // vmul.f dm, y, y with word 60 and a y of 1.0: the 64 bf16 lanes of y1 = x2:x3 as fp32 (the
  // conversion public AIE2P kernels use before a bfp16 matrix multiply; bit-exact on an NPU by
  // their report). Then a sum that is not exact: 1.0 * 1.0 plus 2^-12 * 2^-12 is 1 + 2^-24, half
  // way between two fp32 values, and rounds to the even one, 1.0.
  TileMemory mem;
  uint16_t v[64];
  for (int i = 0; i < 64; ++i) v[i] = bf16Of(static_cast<float>(i - 20) * 0.25f);
  std::memcpy(mem.data.data(), v, 128);
  Core core(build("movxm p0, #0x70000\nvlda x2, [p0, #0]\nvlda x3, [p0, #64]\nmovxm r1, #16256\nmovxm r2, #60\n"
                  "vbcst.16 x0, r1\nvbcst.16 x1, r1\nnop\nnop\nnop\n"
                  "vmul.f dm0, y1, y0, r2\nnop\nnop\nnop\nnop\nnop\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(lane(core, 0, i), floatOfBf16(v[i])) << i;

  TileMemory mem2;
  uint16_t ones[32], tiny[32];
  for (int i = 0; i < 32; ++i) ones[i] = bf16Of(1.0f), tiny[i] = bf16Of(0x1p-12f);
  std::memcpy(mem2.data.data(), ones, 64);
  std::memcpy(mem2.data.data() + 64, tiny, 64);
  Core round(build("movxm p0, #0x70000\nvlda x0, [p0, #0]\nvlda x1, [p0, #64]\nmovxm r1, #60\nnop\nnop\nnop\nnop\nnop\n"
                   "vmul.f dm0, x0, x0, r1\nnop\nnop\n"
                   "vmac.f dm0, dm0, x1, x1, r1\nnop\nnop\nnop\nnop\nnop\ndone\n"),
             {&mem2});
  ASSERT_EQ(round.run(), CoreState::Halted) << round.trap()->message();
  EXPECT_EQ(lane(round, 0, 0), 1.0f);  // 1 + 2^-24 is a tie: to even
}

TEST(Aie2pSim, Bf16ControlWordFlags) {
  // zero_acc (bit 0) ignores acc1; sub_mul (bit 11) negates the product; sub_acc1 (bit 12) acc1.
  TileMemory mem;
  uint16_t a[32], b[32];
  for (int i = 0; i < 32; ++i) a[i] = bf16Of(2.0f), b[i] = bf16Of(3.0f);
  std::memcpy(mem.data.data(), a, 64);
  std::memcpy(mem.data.data() + 64, b, 64);
  Core core(build("movxm p0, #0x70000\nvlda x0, [p0, #0]\nvlda x1, [p0, #64]\nmovxm r1, #60\nmovxm r2, #61\n"
                  "movxm r3, #2108\nmovxm r4, #4156\nnop\nnop\n"
                  "vmul.f dm0, x0, x0, r1\nnop\nnop\nnop\nnop\nnop\n"  // dm0 = 4
                  "vmac.f dm1, dm0, x0, x1, r2\n"                      // zero_acc: 6
                  "vmac.f dm2, dm0, x0, x1, r3\n"                      // sub_mul: 4 - 6
                  "vmac.f dm3, dm0, x0, x1, r4\n"                      // sub_acc1: -4 + 6
                  "nop\nnop\nnop\nnop\nnop\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(lane(core, 1, 5), 6.0f);
  EXPECT_EQ(lane(core, 2, 5), -2.0f);
  EXPECT_EQ(lane(core, 3, 5), 2.0f);
  Core matrix(build("movxm r1, #28\nvmac.f dm0, dm0, x0, x1, r1\ndone\n"), {&mem});
  EXPECT_EQ(matrix.run(), CoreState::Trapped);
  EXPECT_NE(matrix.trap()->reason.find("control word r1 = 0x1c is not modelled for vmac.f"), std::string::npos)
      << matrix.trap()->reason;
}

TEST(Aie2pSim, ShuffleTransposeModesGiveThePublishedLanes) {
  // 16-bit lane i of the pair x0 : x1 holds 0xF000 | i; each expected list is the source lanes
  // llvm-aie's aie2p-vector-shuffle-wide-shapes run test gives for the mode.
  struct Case {
    unsigned mode;
    uint8_t lanes[32];
  } cases[] = {
      {24, {0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60,
            1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 45, 49, 53, 57, 61}},
      {26, {0, 16, 32, 48, 1, 17, 33, 49, 2, 18, 34, 50, 3, 19, 35, 51,
            4, 20, 36, 52, 5, 21, 37, 53, 6, 22, 38, 54, 7, 23, 39, 55}},
      {31, {4, 5, 12, 13, 20, 21, 28, 29, 36, 37, 44, 45, 52, 53, 60, 61,
            6, 7, 14, 15, 22, 23, 30, 31, 38, 39, 46, 47, 54, 55, 62, 63}},
      {52, {0, 8,  16, 24, 32, 40, 48, 56, 1, 9,  17, 25, 33, 41, 49, 57,
            2, 10, 18, 26, 34, 42, 50, 58, 3, 11, 19, 27, 35, 43, 51, 59}},
      {53, {4, 12, 20, 28, 36, 44, 52, 60, 5, 13, 21, 29, 37, 45, 53, 61,
            6, 14, 22, 30, 38, 46, 54, 62, 7, 15, 23, 31, 39, 47, 55, 63}},
  };
  for (const auto &c : cases) {
    TileMemory mem;
    for (uint16_t i = 0; i < 64; ++i) {
      uint16_t v = 0xF000 | i;
      std::memcpy(mem.data.data() + 2 * i, &v, 2);
    }
    Core core(build("movxm p0, #0x70000\nvlda x0, [p0, #0]\nvlda x1, [p0, #64]\nmovxm r0, #" + std::to_string(c.mode) +
                    "\nnop\nnop\nnop\nnop\nnop\nvshuffle x2, x0, x1, r0\nnop\nvst x2, [p0, #128]\ndone\n"),
              {&mem});
    ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
    for (unsigned i = 0; i < 32; ++i) {
      uint16_t v;
      std::memcpy(&v, mem.data.data() + 128 + 2 * i, 2);
      EXPECT_EQ(v, 0xF000 | c.lanes[i]) << "mode " << c.mode << " lane " << i;
    }
  }
  TileMemory mem;
  Core bad(build("movxm r0, #39\nvshuffle x2, x0, x1, r0\ndone\n"), {&mem});
  EXPECT_EQ(bad.run(), CoreState::Trapped);
  EXPECT_NE(bad.trap()->reason.find("vshuffle mode 39 is not modelled"), std::string::npos) << bad.trap()->reason;
}

TEST(Aie2pSim, ByteLaneComparesWriteSixtyFourBitMasks) {
  // vlt.8 / vge.8 into l1 = r3:r2 (lanes 0-31 in r2), then vsel.8 takes s2 where the bit is set.
  TileMemory mem;
  for (unsigned i = 0; i < 64; ++i) mem.data[i] = static_cast<uint8_t>(i), mem.data[64 + i] = 20;
  Core core(build("movxm p0, #0x70000\nvlda x0, [p0, #0]\nvlda x1, [p0, #64]\nnop\nnop\nnop\nnop\nnop\nnop\n"
                  "vlt.8 l1, x0, x1, vaddsign0\nvge.8 l2, x0, x1, vaddsign1\nvsel.8 x2, x0, x1, l1\nnop\n"
                  "vst x2, [p0, #128]\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(2)), 0x000FFFFFu);  // lanes 0-19 are below 20
  EXPECT_EQ(core.scalar(r(3)), 0u);
  EXPECT_EQ(core.scalar(r(4)), 0xFFF00000u);
  EXPECT_EQ(core.scalar(r(5)), 0xFFFFFFFFu);
  for (unsigned i = 0; i < 64; ++i) EXPECT_EQ(mem.data[128 + i], i < 20 ? 20 : i) << i;  // vsel: s2 where s1 < s2
}

TEST(Aie2pSim, ShiftRoundSaturateTruncatesWithTheResetControls) {
  // crRnd = crSat = 0 (upstream Loom's narrow.trunc): lanes shifted right by s0 keep their low
  // bits. vsrs.4x: crSRSMode 0 narrows 64 x 32-bit dm lanes to bytes, 1 narrows 32 x 64-bit lanes
  // to halfwords; vsrs.2x narrows the 32 x 32-bit lanes of a cm half to halfwords.
  TileMemory mem;
  Core core(build("movxm p0, #0x70000\nmov crRnd, #0\nmov crSat, #0\nmov crSRSMode, #0\nmov s0, #4\n"
                  "vsrs.4x x0, dm0, s0, srssign1\nvsrs.4x x1, dm0, s0, srssign0\nvsrs.2x x2, cml1, s0, srssign1\n"
                  "vst.srs.4x dm0, s0, srssign1, [p0], #64\n"
                  "mov crSRSMode, #1\nvsrs.4x x3, dm2, s0, srssign1\nnop\ndone\n"),
            {&mem});
  std::vector<uint8_t> dm0(256), cm(128), dm2(256);
  for (int i = 0; i < 64; ++i) {
    int32_t v = (i - 32) * 100;
    std::memcpy(dm0.data() + 4 * i, &v, 4);
  }
  for (int i = 0; i < 32; ++i) {
    int32_t v = (i - 16) * 70000;
    std::memcpy(cm.data() + 4 * i, &v, 4);
    int64_t w = (int64_t(i) - 16) * 0x123456789LL;
    std::memcpy(dm2.data() + 8 * i, &w, 8);
  }
  core.setVector(Reg{RegKind::DM, 0}, dm0);
  core.setVector(Reg{RegKind::CML, 1}, cm);
  core.setVector(Reg{RegKind::DM, 2}, dm2);
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  auto x = [&](unsigned k) { return core.vector(Reg{RegKind::X, static_cast<uint8_t>(k)}); };
  for (int i = 0; i < 64; ++i) {
    int32_t v = (i - 32) * 100;
    EXPECT_EQ(x(0)[i], static_cast<uint8_t>(v >> 4)) << i;
    EXPECT_EQ(x(1)[i], static_cast<uint8_t>(static_cast<uint32_t>(v) >> 4)) << i;
  }
  // vst.srs.4x stores what vsrs.4x computes, and post-increments.
  EXPECT_EQ(std::vector<uint8_t>(mem.data.begin(), mem.data.begin() + 64), x(0));
  EXPECT_EQ(core.scalar(Reg{RegKind::P, 0}), 0x70040u);
  for (int i = 0; i < 32; ++i) {
    uint16_t h, w;
    std::memcpy(&h, x(2).data() + 2 * i, 2);
    std::memcpy(&w, x(3).data() + 2 * i, 2);
    EXPECT_EQ(h, static_cast<uint16_t>(((i - 16) * 70000) >> 4)) << i;
    EXPECT_EQ(w, static_cast<uint16_t>(((int64_t(i) - 16) * 0x123456789LL) >> 4)) << i;
  }
  // crRnd 4 names no rounding mode (0-3 and 8-13 do): it traps rather than guess.
  Core rounding(build("mov crRnd, #4\nvsrs.4x x0, dm0, s0, srssign1\ndone\n"), {&mem});
  EXPECT_EQ(rounding.run(), CoreState::Trapped);
  EXPECT_NE(rounding.trap()->reason.find("crRnd = 4"), std::string::npos) << rounding.trap()->reason;
}

TEST(Aie2pSim, ThreeDimensionalPostModifyFollowsAddThreeD) {
  // AMD's add_3d rule with d0 = (m0, dn0, dj0, dc0) and the second dimension in d4: the first
  // count advances by dj0 until it reaches dn0, then restarts while the second advances by dj4,
  // and when both have reached their sizes the pointer takes m0 and both restart. dn0 = dn4 = 1,
  // dj0 = 4, dj4 = 16, m0 = 64: the old pointers are base + 0, 4, 20, 24, 88, 92, 108, 112.
  TileMemory mem;
  for (uint32_t i = 0; i < 64; ++i) std::memcpy(mem.data.data() + 4 * i, &i, 4);
  std::string setup = "movxm p0, #0x70000\nmovxm m0, #64\nmovxm dn0, #1\nmovxm dj0, #4\nmovxm dn4, #1\nmovxm dj4, #16\n"
                      "movxm dc0, #0\nmovxm dc4, #0\n";
  std::string text = setup;
  for (int i = 0; i < 8; ++i) text += "lda.3d r" + std::to_string(i) + ", [p0], d0\n";
  text += "nop\nnop\nnop\nnop\nnop\nnop\ndone\n";
  Core core(build(text), {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  const uint32_t expected[] = {0, 1, 5, 6, 22, 23, 27, 28};  // words at the old pointers
  for (int i = 0; i < 8; ++i) EXPECT_EQ(core.scalar(r(i)), expected[i]) << i;
  EXPECT_EQ(core.scalar(Reg{RegKind::P, 0}), 0x70000u + 176);
  EXPECT_EQ(core.scalar(Reg{RegKind::DC, 0}), 0u);
  EXPECT_EQ(core.scalar(Reg{RegKind::DC, 4}), 0u);

  // padda.3d, st.3d and vst.3d step the same way (d1 with d5: dn1 = 0, so every step wraps the
  // first dimension; dn5 = 2, dj5 = 64, m1 = -128: +64, +64, -128).
  TileMemory mem2;
  Core stores(build("movxm p1, #0x70000\nmovxm m1, #-128\nmovxm dn1, #0\nmovxm dj1, #4\nmovxm dn5, #2\nmovxm dj5, "
                    "#64\nmovxm r1, #7\n"
                    "st.3d r1, [p1], d1\npadda.3d [p1], d1\nvst.3d x0, [p1], d1\nmov r2, p1\nmov r3, dc5\ndone\n"),
              {&mem2});
  ASSERT_EQ(stores.run(), CoreState::Halted) << stores.trap()->message();
  EXPECT_EQ(word(mem2, 0), 7u);
  EXPECT_EQ(stores.scalar(r(2)), 0x70000u);  // +64, +64, then m1 = -128
  EXPECT_EQ(stores.scalar(r(3)), 0u);
}

TEST(Aie2pSim, Bf16MatrixTimesVectorRowsThroughBroadcastAndMac) {
  // C (2 x 32) = A (2 x 4) * B (4 x 32) the way a bf16 GEMM worker accumulates over k: for each
  // k, vextbcst.16 spreads A[i][k] over 32 lanes and vmac.f (word 60) adds it times row k of B.
  // The chain on one accumulator needs 3 cycles between vmac.f's (acc1 read at 4, result at 6).
  // Expected: the same products and sums in fp32, in the same order, narrowed to bf16 with
  // round-to-nearest-even.
  TileMemory mem;
  float a[2][4] = {{1.5f, -2.0f, 0.375f, 3.0f}, {0.5f, 0.25f, -1.25f, 2.5f}};
  uint16_t aBits[32] = {};
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 4; ++k) aBits[4 * i + k] = bf16Of(a[i][k]);
  std::memcpy(mem.data.data(), aBits, 64);
  float b[4][32];
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 32; ++j) {
      b[k][j] = static_cast<float>((k + 1) * (j - 13)) / 8.0f;
      uint16_t h = bf16Of(b[k][j]);
      std::memcpy(mem.data.data() + 64 * (k + 1) + 2 * j, &h, 2);
    }
  std::string text = "movxm p0, #0x70000\nvlda x0, [p0, #0]\nvlda x1, [p0, #64]\nvlda x2, [p0, #128]\n"
                     "vlda x3, [p0, #192]\nvlda x4, [p0, #256]\nmovxm r1, #60\nvclr dm0\nvclr dm1\n"
                     "nop\nnop\nnop\nnop\nnop\n";
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 4; ++k)
      text += "vextbcst.16 x5, x0, #" + std::to_string(4 * i + k) + "\nnop\nvmac.f dm" + std::to_string(i) + ", dm" +
              std::to_string(i) + ", x5, x" + std::to_string(k + 1) + ", r1\n";
  text += "nop\nnop\nnop\nnop\nnop\nvconv.bf16.fp32 x6, cml0\nvconv.bf16.fp32 x7, cml1\nnop\n"
          "vst x6, [p0, #320]\nvst x7, [p0, #384]\ndone\n";
  Core core(build(text), {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 32; ++j) {
      float c = 0.0f;
      for (int k = 0; k < 4; ++k) c += a[i][k] * b[k][j];
      uint32_t f = std::bit_cast<uint32_t>(c);
      uint16_t expected = static_cast<uint16_t>((f + 0x7FFFu + ((f >> 16) & 1)) >> 16);
      uint16_t got;
      std::memcpy(&got, mem.data.data() + 320 + 64 * i + 2 * j, 2);
      EXPECT_EQ(got, expected) << i << "," << j;
    }
  // 14 set-up bundles, 8 x (vextbcst, nop, vmac.f), 5 nops, 2 vconv, nop, 2 vst, done.
  EXPECT_EQ(core.stats().cycles, 14u + 24u + 5u + 2u + 1u + 2u + 1u);
}

TEST(Aie2pSim, ShiftRoundSaturateRoundsByCrRnd) {
  // Every crRnd mode on lanes / 16 = 1.5, 2.5, -1.5, -2.5, 1.4375, 1.5625, -1.4375, -1.5625, 1, -1,
  // with the results the modes' definitions give (floor, ceil, towards zero, away from zero, then
  // nearest with the half towards -inf, +inf, zero, away from zero, even, odd).
  const int32_t lanes[] = {24, 40, -24, -40, 23, 25, -23, -25, 16, -16};
  const struct {
    unsigned mode;
    int16_t expect[10];
  } cases[] = {
      {0, {1, 2, -2, -3, 1, 1, -2, -2, 1, -1}},  {1, {2, 3, -1, -2, 2, 2, -1, -1, 1, -1}},
      {2, {1, 2, -1, -2, 1, 1, -1, -1, 1, -1}},  {3, {2, 3, -2, -3, 2, 2, -2, -2, 1, -1}},
      {8, {1, 2, -2, -3, 1, 2, -1, -2, 1, -1}},  {9, {2, 3, -1, -2, 1, 2, -1, -2, 1, -1}},
      {10, {1, 2, -1, -2, 1, 2, -1, -2, 1, -1}}, {11, {2, 3, -2, -3, 1, 2, -1, -2, 1, -1}},
      {12, {2, 2, -2, -2, 1, 2, -1, -2, 1, -1}}, {13, {1, 3, -1, -3, 1, 2, -1, -2, 1, -1}},
  };
  std::vector<uint8_t> cm(128, 0);
  std::memcpy(cm.data(), lanes, sizeof lanes);
  for (const auto &c : cases) {
    TileMemory mem;
    Core core(
        build("mov s0, #4\nmov crRnd, #" + std::to_string(c.mode) + "\nvsrs.2x x0, cml0, s0, srssign1\nnop\ndone\n"),
        {&mem});
    core.setVector(Reg{RegKind::CML, 0}, cm);
    ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
    auto x = core.vector(Reg{RegKind::X, 0});
    for (unsigned i = 0; i < 10; ++i) {
      int16_t v;
      std::memcpy(&v, x.data() + 2 * i, 2);
      EXPECT_EQ(v, c.expect[i]) << "crRnd " << c.mode << " lane " << i;
    }
  }
}

TEST(Aie2pSim, ShiftRoundSaturateSaturatesByCrSat) {
  // vsrs.4x to bytes with a shift of 4 (floor rounding): crSat 1 clamps to the output range
  // (srssign1: -128..127, srssign0: 0..255), 3 makes the signed minimum -127, 0 keeps the low bits.
  const int32_t lanes[] = {200 * 16, -200 * 16, 300 * 16, -5 * 16, 100 * 16};
  std::vector<uint8_t> dm(256, 0);
  std::memcpy(dm.data(), lanes, sizeof lanes);
  auto run = [&](unsigned sat, const char *sign) {
    TileMemory mem;
    Core core(
        build("mov s0, #4\nmov crSat, #" + std::to_string(sat) + "\nvsrs.4x x0, dm0, s0, " + sign + "\nnop\ndone\n"),
        {&mem});
    core.setVector(Reg{RegKind::DM, 0}, dm);
    EXPECT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
    auto x = core.vector(Reg{RegKind::X, 0});
    return std::vector<uint8_t>(x.begin(), x.begin() + 5);
  };
  EXPECT_EQ(run(1, "srssign1"), (std::vector<uint8_t>{127, 0x80, 127, uint8_t(-5), 100}));
  EXPECT_EQ(run(3, "srssign1"), (std::vector<uint8_t>{127, 0x81, 127, uint8_t(-5), 100}));
  EXPECT_EQ(run(0, "srssign1"), (std::vector<uint8_t>{200, 56, 44, uint8_t(-5), 100}));
  EXPECT_EQ(run(1, "srssign0"), (std::vector<uint8_t>{200, 0, 255, 0, 100}));
  TileMemory mem;
  Core bad(build("mov crSat, #2\nvsrs.4x x0, dm0, s0, srssign1\ndone\n"), {&mem});
  EXPECT_EQ(bad.run(), CoreState::Trapped);
  EXPECT_NE(bad.trap()->reason.find("crSat = 2"), std::string::npos) << bad.trap()->reason;
}

TEST(Aie2pSim, StoreShiftRoundSaturateFromAnAccumulatorHalf) {
  // vst.srs.2x stores what vsrs.2x computes from cmh0 (32 x 32-bit lanes to halfwords, here with
  // conv_even rounding) and post-increments its pointer.
  TileMemory mem;
  Core core(build("movxm p0, #0x70000\nmov crRnd, #12\nmov s0, #1\n"
                  "vsrs.2x x0, cmh0, s0, srssign1\nvst.srs.2x cmh0, s0, srssign1, [p0], #64\nnop\ndone\n"),
            {&mem});
  std::vector<uint8_t> cm(128);
  for (int i = 0; i < 32; ++i) {
    int32_t v = 2 * i + 1 - 32;  // odd: every lane is a half after the shift
    std::memcpy(cm.data() + 4 * i, &v, 4);
  }
  core.setVector(Reg{RegKind::CMH, 0}, cm);
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(std::vector<uint8_t>(mem.data.begin(), mem.data.begin() + 64), core.vector(Reg{RegKind::X, 0}));
  EXPECT_EQ(core.scalar(Reg{RegKind::P, 0}), 0x70040u);
  for (int i = 0; i < 32; ++i) {
    int16_t h;
    std::memcpy(&h, mem.data.data() + 2 * i, 2);
    int v = 2 * i + 1 - 32, lo = v >> 1;  // v / 2 = lo + 0.5: the even one of lo, lo + 1
    EXPECT_EQ(h, (lo & 1) ? lo + 1 : lo) << i;
  }
}

TEST(Aie2pSim, UpshiftWidensAsThePublishedRunTestSays) {
  // The public llvm-aie-run test aie2p-ups.s: x0 = vbcst.32 0xFFFF0002. As 16-bit lanes (crUPSMode
  // 0) 0x0002, 0xFFFF widen to 2, -1 (upssign1) or 2, 0xFFFF (upssign0); shifted by 4, 0x20 and
  // 0xFFFFFFF0; as bytes into a dm, 02 00 FF FF become 2, 0, -1, -1. Under crUPSMode 1 the 32-bit
  // lanes widen to 64 bits: 0xFFFFFFFFFFFF0002.
  TileMemory mem;
  Core core(build("movxm r0, #0xFFFF0002\nvbcst.32 x0, r0\nmov s0, #0\nmov s1, #4\n"
                  "vups.2x cml1, x0, s0, upssign1\nvups.2x cmh3, x0, s0, upssign0\nvups.2x cml2, x0, s1, upssign1\n"
                  "vups.4x dm0, x0, s0, upssign1\nvups.4x dm4, x0, s0, upssign0\nnop\nnop\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  auto lanes32 = [&](Reg reg) {
    auto v = core.vector(reg);
    std::vector<uint32_t> out(v.size() / 4);
    std::memcpy(out.data(), v.data(), v.size());
    return out;
  };
  auto cml1 = lanes32(Reg{RegKind::CML, 1}), cmh3 = lanes32(Reg{RegKind::CMH, 3}), cml2 = lanes32(Reg{RegKind::CML, 2});
  auto dm0 = lanes32(Reg{RegKind::DM, 0}), dm4 = lanes32(Reg{RegKind::DM, 4});
  ASSERT_EQ(cml1.size(), 32u);
  ASSERT_EQ(dm0.size(), 64u);
  for (unsigned i = 0; i < 32; ++i) {
    EXPECT_EQ(cml1[i], i % 2 ? 0xFFFFFFFFu : 2u) << i;
    EXPECT_EQ(cmh3[i], i % 2 ? 0x0000FFFFu : 2u) << i;
    EXPECT_EQ(cml2[i], i % 2 ? 0xFFFFFFF0u : 0x20u) << i;
  }
  const uint32_t bytesSigned[] = {2, 0, 0xFFFFFFFFu, 0xFFFFFFFFu}, bytesUnsigned[] = {2, 0, 0xFF, 0xFF};
  for (unsigned i = 0; i < 64; ++i) {
    EXPECT_EQ(dm0[i], bytesSigned[i % 4]) << i;
    EXPECT_EQ(dm4[i], bytesUnsigned[i % 4]) << i;
  }

  // crUPSMode is read at cycle 2: set one bundle earlier it is in place.
  Core wide(
      build("movxm r0, #0xFFFF0002\nvbcst.32 x0, r0\nmov s0, #0\nmov crUPSMode, #1\n"
            "vups.2x cml0, x0, s0, upssign1\nvups.2x cmh0, x0, s0, upssign0\nmov r5, crUPSMode\nnop\nnop\ndone\n"),
      {&mem});
  ASSERT_EQ(wide.run(), CoreState::Halted) << wide.trap()->message();
  auto lanes64 = [&](Reg reg) {
    auto v = wide.vector(reg);
    std::vector<uint64_t> out(v.size() / 8);
    std::memcpy(out.data(), v.data(), v.size());
    return out;
  };
  auto s64 = lanes64(Reg{RegKind::CML, 0}), u64 = lanes64(Reg{RegKind::CMH, 0});
  ASSERT_EQ(s64.size(), 16u);
  for (unsigned i = 0; i < 16; ++i) {
    EXPECT_EQ(s64[i], 0xFFFFFFFFFFFF0002ull) << i;
    EXPECT_EQ(u64[i], 0x00000000FFFF0002ull) << i;
  }
  EXPECT_EQ(wide.scalar(r(5)), 1u);  // mov from a control register reads it
}

TEST(Aie2pSim, UpshiftSaturatesAndLandsAtCycleThree) {
  // 0x4000 << 20 overflows a 32-bit lane: crSat 1 clamps it to 0x7FFFFFFF (and -0x4000 << 20 to
  // 0x80000000), crSat 0 keeps the low bits (0). vups writes at cycle 3 (its itinerary): a vsrs
  // issued two bundles later reads the old accumulator, three bundles later the new one.
  TileMemory mem;
  Core core(build("movxm r0, #0xC0004000\nvbcst.32 x0, r0\nmov s0, #20\nmov crSat, #1\nnop\n"
                  "vups.2x cml0, x0, s0, upssign1\nnop\nvsrs.2x x1, cml0, s1, srssign1\n"
                  "vsrs.2x x2, cml0, s1, srssign1\nmov crSat, #0\nvups.2x cmh0, x0, s0, upssign1\nnop\nnop\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  auto lanes32 = [&](Reg reg) {
    auto v = core.vector(reg);
    std::vector<uint32_t> out(v.size() / 4);
    std::memcpy(out.data(), v.data(), v.size());
    return out;
  };
  auto cml0 = lanes32(Reg{RegKind::CML, 0}), cmh0 = lanes32(Reg{RegKind::CMH, 0});
  for (unsigned i = 0; i < 32; ++i) {
    EXPECT_EQ(cml0[i], i % 2 ? 0x80000000u : 0x7FFFFFFFu) << i;
    EXPECT_EQ(cmh0[i], 0u) << i;
  }
  auto x1 = core.vector(Reg{RegKind::X, 1}), x2 = core.vector(Reg{RegKind::X, 2});
  EXPECT_EQ(x1, std::vector<uint8_t>(64, 0));  // read at +2: the reset accumulator
  for (unsigned i = 0; i < 32; ++i) {
    int16_t v;
    std::memcpy(&v, x2.data() + 2 * i, 2);
    EXPECT_EQ(v, i % 2 ? INT16_MIN : INT16_MAX) << i;  // saturated again to 16 bits
  }
}

TEST(Aie2pSim, LockValueSignSelectsEqualOrGreaterEqual) {
  // aie2p_locks.h: acquire_greater_equal passes -V (wait for >= V, take V), acquire_equal passes
  // V (wait for == V). Lock 48 released to 2: acq with -1 takes 1 (leaving 1), acq with +1 then
  // finds it equal and takes it (0); an acq with +2 on 0... never matches: deadlock.
  TileMemory mem;
  Core core(build("movxm r1, #2\nrel #48, r1\nmovxm r2, #-1\nacq #48, r2\nmovxm r3, #1\nacq #48, r3\ndone\n"), {&mem});
  Core *cores[] = {&core};
  ASSERT_EQ(runCores(cores), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(mem.locks[0], 0);
  EXPECT_EQ(core.stats().stallCycles, 0u);
  TileMemory other;
  Core equal(build("movxm r1, #2\nrel #48, r1\nmovxm r3, #1\nacq #48, r3\ndone\n"), {&other});
  Core *one[] = {&equal};
  EXPECT_EQ(runCores(one), CoreState::Trapped);  // 2 is not 1: acquire_equal waits for ever
  EXPECT_NE(equal.trap()->reason.find("deadlock"), std::string::npos) << equal.trap()->reason;
}

TEST(Aie2pSim, ConditionalLocksActOnlyWhenR26IsSet) {
  // acq.cond/rel.cond with r26 = 0 do nothing (no wait, no change); with r26 != 0 they are acq/rel.
  TileMemory mem;
  Core core(build("movxm r26, #0\nmovxm r1, #1\nmovxm r2, #-1\nacq.cond #48, r2, r26\nrel.cond #49, r1, r26\n"
                  "movxm r26, #1\nrel.cond #50, r1, r26\nacq.cond #50, r2, r26\nrel.cond #51, r1, r26\ndone\n"),
            {&mem});
  Core *cores[] = {&core};
  ASSERT_EQ(runCores(cores), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(mem.locks[0], 0);
  EXPECT_EQ(mem.locks[1], 0);
  EXPECT_EQ(mem.locks[2], 0);
  EXPECT_EQ(mem.locks[3], 1);
  EXPECT_EQ(core.stats().stallCycles, 0u);
}

TEST(Aie2pSim, ConditionalLockHandOffBetweenTwoCores) {
  // The hand-off of LockHandOffBetweenTwoCores through the conditional forms: A releases its lock 0
  // only under r26 = 1 (a first rel.cond under r26 = 0 does nothing); B waits in acq.cond with
  // r26 = 1 for at least 1 (-1). B reaches its acquire at cycle 4 and A releases at cycle 6: B
  // stalls two cycles.
  TileMemory a, b;
  Core coreA(build("movxm r1, #1\nmovxm r26, #0\nrel.cond #48, r1, r26\nmovxm r26, #1\nmovxm r0, #7\n"
                   "rel.cond #48, r1, r26\ndone\n"),
             {&a, nullptr, nullptr, &b});
  Core coreB(build("movxm r1, #-1\nmovxm r26, #1\nnop\nacq.cond #0, r1, r26\ndone\n"), {&b, &a, nullptr, nullptr});
  Core *cores[] = {&coreA, &coreB};
  ASSERT_EQ(runCores(cores), CoreState::Halted);
  EXPECT_EQ(a.locks[0], 0);
  EXPECT_EQ(coreA.stats().cycles, 7u);
  EXPECT_EQ(coreB.stats().stallCycles, 2u);
  EXPECT_EQ(coreB.stats().cycles, 7u);
}

TEST(Aie2pSim, TwoDimensionalStoreShiftRoundSaturateWalksTheTwoDRule) {
  // vst.2d.srs.2x with d0 = (m0 256, dn0 1, dj0 64, dc0 0): the first store goes to the base and
  // steps by dj0 (dc0 0 < dn0 1), the second to base + 64 and steps by m0 (dc0 has reached dn0):
  // p0 ends at base + 320 with dc0 back at 0. Both stores hold the srs of cml0 (shift 0).
  TileMemory mem;
  Core core(build("movxm p0, #0x70000\nmovxm m0, #256\nmovxm dn0, #1\nmovxm dj0, #64\nmov s0, #0\n"
                  "vst.2d.srs.2x cml0, s0, srssign1, [p0], d0\nvst.2d.srs.2x cml0, s0, srssign1, [p0], d0\ndone\n"),
            {&mem});
  std::vector<uint8_t> cm(128);
  for (int i = 0; i < 32; ++i) {
    int32_t v = 1000 * (i - 16);
    std::memcpy(cm.data() + 4 * i, &v, 4);
  }
  core.setVector(Reg{RegKind::CML, 0}, cm);
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(Reg{RegKind::P, 0}), 0x70140u);
  EXPECT_EQ(core.scalar(Reg{RegKind::DC, 0}), 0u);
  for (int at : {0, 64})
    for (int i = 0; i < 32; ++i) {
      int16_t h;
      std::memcpy(&h, mem.data.data() + at + 2 * i, 2);
      EXPECT_EQ(h, 1000 * (i - 16)) << at << " lane " << i;
    }
}

TEST(Aie2pSim, OverflowStatusIsStickyUntilCleared) {
  // srSRS_of (AMD's AI Engine-ML srs model: the rounded lane above the output range, or the exact
  // shifted lane below it) is set by a narrowing that overflows, saturating or not, stays set
  // across one that does not, and is cleared by a move. srUPS_of is set by a vups lane that does
  // not fit its accumulator lane (0x4000 << 20 in 32 bits).
  TileMemory mem;
  Core core(build("mov s0, #0\nvsrs.4x x0, dm0, s0, srssign1\nnop\nmov r1, srSRS_of\n"
                  "mov crSat, #1\nvsrs.4x x1, dm1, s0, srssign1\nnop\nmov r2, srSRS_of\n"
                  "vsrs.4x x2, dm0, s0, srssign1\nnop\nmov r3, srSRS_of\nmov srSRS_of, #0\nmov r4, srSRS_of\n"
                  "movxm r0, #0x4000\nvbcst.32 x3, r0\nmov s1, #20\nvups.2x cml3, x3, s1, upssign1\nnop\nnop\n"
                  "mov r5, srUPS_of\ndone\n"),
            {&mem});
  std::vector<uint8_t> small(256, 0), big(256, 0);
  int32_t lane = 200;  // 200 does not fit a signed byte
  std::memcpy(big.data(), &lane, 4);
  core.setVector(Reg{RegKind::DM, 0}, small);
  core.setVector(Reg{RegKind::DM, 1}, big);
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(1)), 0u);  // zeros fit
  EXPECT_EQ(core.scalar(r(2)), 1u);  // 200 saturates to 127 and flags
  EXPECT_EQ(core.scalar(r(3)), 1u);  // still set after a narrowing that fits
  EXPECT_EQ(core.scalar(r(4)), 0u);  // cleared by the move
  EXPECT_EQ(core.scalar(r(5)), 1u);
  EXPECT_EQ(core.vector(Reg{RegKind::X, 1})[0], 127);
}

TEST(Aie2pSim, ResetRunsTheProgramAgainFromTheConstructedState) {
  // A run leaves registers, a branch's lr and pending results; reset() returns to the state after
  // construction, so a second run gives the same registers and cycle count (the decoded bundles
  // are kept). Stores record the byte range they wrote in the tile.
  TileMemory mem;
  Core core(build("movxm p0, #0x70100\nadd r1, r1, #5\nst r1, [p0, #8]\nlda r2, [p0, #8]\n"
                  "movxm r0, #10\nloop: add r3, r3, r0\nadd r0, r0, #-1\njnz r0, #loop\nnop\nnop\nnop\nnop\nnop\n"
                  "done\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  const uint64_t cycles = core.stats().cycles;
  EXPECT_EQ(core.scalar(r(1)), 5u);
  EXPECT_EQ(core.scalar(r(3)), 55u);
  EXPECT_EQ(mem.writtenLow, 0x108u);
  EXPECT_EQ(mem.writtenHigh, 0x10Cu);
  core.reset();
  EXPECT_EQ(core.pc(), 0u);
  EXPECT_EQ(core.stats().cycles, 0u);
  EXPECT_EQ(core.scalar(r(3)), 0u);
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.scalar(r(1)), 5u);  // not 10: r1 restarted from 0
  EXPECT_EQ(core.scalar(r(3)), 55u);
  EXPECT_EQ(core.stats().cycles, cycles);
}

TEST(Aie2pSim, ResetClearsATrap) {
  // A trapped run (a load outside every window) resets to a runnable core; the trap returns.
  TileMemory mem;
  Core core(build("movxm p0, #0x80000\nlda r0, [p0, #0]\ndone\n"), {&mem});
  ASSERT_EQ(core.run(), CoreState::Trapped);
  core.reset();
  EXPECT_FALSE(core.trap().has_value());
  EXPECT_EQ(core.state(), CoreState::Running);
  EXPECT_EQ(core.run(), CoreState::Trapped);
}

TEST(Aie2pSim, Fp32AddThroughAccumulatorQuarters) {
  // 16 fp32 lanes: vmov into bmll0/bmll1 (lanes 0-15 of dm0/dm1, result at 2), vadd.f (reads its
  // accumulators at 4, writes at 6), vmov the low quarter back to x4, store. The sum rounds to
  // nearest even as the host's float add does; an x4 read 5 bundles after the vadd.f is too early.
  TileMemory mem;
  float a[16], b[16];
  for (int i = 0; i < 16; ++i) {
    a[i] = 1.0f + 0.1f * static_cast<float>(i);
    b[i] = i % 3 == 0 ? 3e-8f : -0.37f * static_cast<float>(i);
  }
  std::memcpy(mem.data.data(), a, 64);
  std::memcpy(mem.data.data() + 0x40, b, 64);
  Core core(
      build("movxm p0, #0x70000\nmovxm p1, #0x70040\nmovxm p2, #0x70080\n"
            "vlda x0, [p0, #0]; vldb x2, [p1, #0]\nnop\nnop\nnop\nnop\nnop\nnop\n"
            "vmov bmll0, x0\nvmov bmll1, x2; mova r0, #0\nvadd.f dm2, dm0, dm1, r0\n"
            "vmov x6, bmll2\nnop\nnop\nnop\nnop\nvmov x4, bmll2\nnop\nvst x4, [p2, #0]\nvst x6, [p2, #64]\ndone\n"),
      {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  for (int i = 0; i < 16; ++i) {
    float sum;
    std::memcpy(&sum, mem.data.data() + 0x80 + 4 * i, 4);
    EXPECT_EQ(std::bit_cast<uint32_t>(sum), std::bit_cast<uint32_t>(a[i] + b[i])) << i;
    EXPECT_EQ(word(mem, 0xC0 + 4 * i), 0u) << "lane " << i << ": read before the vadd.f landed";
  }
  EXPECT_EQ(core.stats().cycles, 3u + 1u + 6u + 3u + 5u + 1u + 1u + 2u + 1u);
}

namespace {

// Loads 64 bf16 values at 0x70000 + offset into x(dst) and x(dst + 1) and widens them into dm
// (cml, cmh), as the GEMM worker does before converting to bfp16.
std::string widenToAccumulator(unsigned offset, unsigned x, unsigned dm) {
  return "vlda x" + std::to_string(x) + ", [p0, #" + std::to_string(offset) + "]\nvlda x" + std::to_string(x + 1) +
         ", [p0, #" + std::to_string(offset + 64) + "]\nnop\nnop\nnop\nnop\nnop\nnop\nvconv.fp32.bf16 cml" +
         std::to_string(dm) + ", x" + std::to_string(x) + "\nvconv.fp32.bf16 cmh" + std::to_string(dm) + ", x" +
         std::to_string(x + 1) + "\nnop\n";
}

// bfp16ebs8 of 8 values written from the closed form q = floor(+-M / 2^(17 + E - e)).
void referenceBlock(const float *values, int8_t *q, uint8_t &exponent) {
  exponent = 0;
  for (int i = 0; i < 8; ++i)
    exponent = std::max<uint8_t>(exponent, static_cast<uint8_t>((std::bit_cast<uint32_t>(values[i]) >> 23) & 0xFF));
  for (int i = 0; i < 8; ++i) {
    uint32_t bits = std::bit_cast<uint32_t>(values[i]), e = (bits >> 23) & 0xFF;
    double magnitude = double((bits & 0x7FFFFF) | (e ? 0x800000 : 0));
    q[i] = static_cast<int8_t>(std::floor((bits >> 31 ? -magnitude : magnitude) / std::ldexp(1.0, 17 + exponent - e)));
  }
}

}  // namespace

TEST(Aie2pSim, Bfp16ConversionGivesThePublishedLanes) {
  // The lanes of the public llvm-aie-run test aie2p-conv-bfp16ebs8.s: block 0 (max exponent 128)
  // floors -(1 + 2^-7) twice to 0xDF and keeps -2^-10 at -1 (0xFF); block 4 (max 126) loses no
  // bit. Mantissas land in x0 (lane i = byte i), exponents in e0 (block b = byte b).
  TileMemory mem;
  const float block0[] = {1.0f, -1.0f, 2.0f, 0.5f, -(1.0f + 0x1p-7f), 1.0f + 0x1p-7f, 0x1p-10f, -0x1p-10f};
  const float block4[] = {0.5f, -0.5f, 0.25f, -0.25f};
  uint16_t v[64] = {};
  for (int i = 0; i < 8; ++i) v[i] = bf16Of(block0[i]);
  for (int i = 0; i < 4; ++i) v[32 + i] = bf16Of(block4[i]);
  std::memcpy(mem.data.data(), v, 128);
  const std::string program =
      "movxm p0, #0x70000\n" + widenToAccumulator(0, 2, 0) + "nop\nvconv.bfp16ebs8.fp32 ex0, dm0\n";
  // The result lands at cycle 4: a copy 3 bundles later reads the old x0, one 4 later the new.
  Core core(build(program + "nop\nnop\nvmov x8, x0\nvmov x9, x0\nnop\ndone\n"), {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  EXPECT_EQ(core.vector(Reg{RegKind::X, 8})[0], 0u);
  EXPECT_EQ(core.vector(Reg{RegKind::X, 9})[0], 0x20u);
  std::vector<uint8_t> x0 = core.vector(Reg{RegKind::X, 0}), e0 = core.vector(Reg{RegKind::E, 0});
  const uint8_t mantissas0[] = {0x20, 0xE0, 0x40, 0x10, 0xDF, 0x20, 0x00, 0xFF},
                mantissas4[] = {0x40, 0xC0, 0x20, 0xE0};
  for (int i = 0; i < 64; ++i) {
    uint8_t expected = i < 8 ? mantissas0[i] : (i >= 32 && i < 36) ? mantissas4[i - 32] : 0;
    EXPECT_EQ(x0[i], expected) << i;
  }
  const uint8_t exponents[] = {0x80, 0, 0, 0, 0x7E, 0, 0, 0};
  for (int b = 0; b < 8; ++b) EXPECT_EQ(e0[b], exponents[b]) << b;

  Core ceil(build("movxm r5, #1\nmov crRnd, r5\nvconv.bfp16ebs8.fp32 ex0, dm0\ndone\n"), {&mem});
  EXPECT_EQ(ceil.run(), CoreState::Trapped);
  EXPECT_NE(ceil.trap()->reason.find("crRnd = 1 is not modelled"), std::string::npos) << ceil.trap()->reason;
}

TEST(Aie2pSim, Bfp16MatrixMultiplyIsATimesBTransposed) {
  // vmul.f dm2, ex0, ex2 with word 780: lane 8r + c = sum_k A[r][k] * B[c][k] over the encoded
  // values (one exponent per dot product, so the sum is exact), and vmac.f adds acc1 with one
  // fp32 rounding. Random bf16 inputs with exponents spread over 10 octaves per block.
  std::mt19937 rng(23);
  TileMemory mem;
  uint16_t a[64], b[64];
  float av[64], bv[64];
  for (int i = 0; i < 64; ++i) {
    auto pick = [&] {
      int exponent = std::uniform_int_distribution<int>(117, 127)(rng);
      uint32_t bits = (std::uniform_int_distribution<uint32_t>(0, 1)(rng) << 31) | (uint32_t(exponent) << 23) |
                      (std::uniform_int_distribution<uint32_t>(0, 127)(rng) << 16);
      return static_cast<uint16_t>(bits >> 16);
    };
    a[i] = pick(), b[i] = pick(), av[i] = floatOfBf16(a[i]), bv[i] = floatOfBf16(b[i]);
  }
  std::memcpy(mem.data.data(), a, 128);
  std::memcpy(mem.data.data() + 128, b, 128);
  Core core(build("movxm p0, #0x70000\nmovxm r1, #780\n" + widenToAccumulator(0, 4, 0) + widenToAccumulator(128, 6, 1) +
                  "vconv.bfp16ebs8.fp32 ex0, dm0\nvconv.bfp16ebs8.fp32 ex2, dm1\nnop\nnop\nnop\n"
                  "vmul.f dm2, ex0, ex2, r1\nnop\nnop\nnop\nnop\nnop\n"
                  "vmac.f dm3, dm2, ex0, ex2, r1\nnop\nnop\nnop\nnop\nnop\ndone\n"),
            {&mem});
  ASSERT_EQ(core.run(), CoreState::Halted) << core.trap()->message();
  int8_t qa[64], qb[64];
  uint8_t ea[8], eb[8];
  for (int blk = 0; blk < 8; ++blk)
    referenceBlock(av + 8 * blk, qa + 8 * blk, ea[blk]), referenceBlock(bv + 8 * blk, qb + 8 * blk, eb[blk]);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) {
      double sum = 0;
      for (int k = 0; k < 8; ++k)
        sum += std::ldexp(qa[8 * r + k], ea[r] - 133) * std::ldexp(qb[8 * c + k], eb[c] - 133);
      EXPECT_EQ(lane(core, 2, 8 * r + c), static_cast<float>(sum)) << r << "," << c;
      EXPECT_EQ(lane(core, 3, 8 * r + c), static_cast<float>(2 * sum)) << r << "," << c;
    }

  Core bf16Word(build("movxm r1, #60\nvmul.f dm0, ex0, ex2, r1\ndone\n"), {&mem});
  EXPECT_EQ(bf16Word.run(), CoreState::Trapped);
  EXPECT_NE(bf16Word.trap()->reason.find("only the bfp16ebs8 word 780"), std::string::npos) << bf16Word.trap()->reason;
}
