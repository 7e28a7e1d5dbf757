// The amdxdna boundary: the ERT packet encoding and the emulated driver's checks (the uAPI
// struct layouts are static_asserts in Amdxdna.h itself).
#include "Amdxdna.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace hrx;
using namespace hrx::runtime::amdxdna;

namespace {

TEST(Amdxdna, ErtStartNpuHeader) {
  // state NEW (1) [3:0], 5 payload words [22:12], opcode ERT_START_NPU (20) [27:23].
  EXPECT_EQ(ertHeader(kStateNew, 5, kOpcodeStartNpu), 0x0A005001u);
  EXPECT_STREQ(cmdStateName(kStateCompleted), "COMPLETED");
  EXPECT_STREQ(cmdStateName(kStateTimeout), "TIMEOUT");
}

TEST(Amdxdna, EmulatedDriverChecksWhatTheDriverChecks) {
  auto driver = makeEmulatedDriver("accel0");
  EXPECT_TRUE(driver->emulated());
  EXPECT_EQ(driver->createHwctx(6).status().message(),
            "emulated amdxdna (accel0): CREATE_HWCTX num_tiles 6 is not 4 x 1..8 columns (EINVAL)");
  auto ctx = driver->createHwctx(4);
  ASSERT_TRUE(ctx.isOk());
  auto bo = driver->createBo(kBoShmem, 100);
  ASSERT_TRUE(bo.isOk());
  EXPECT_EQ(bo->xdnaAddr % 32768, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(bo->host) % 32768, 0u);
  auto heap = driver->createBo(kBoDevHeap, 1 << 20);
  ASSERT_TRUE(heap.isOk());
  EXPECT_EQ(heap->xdnaAddr, 0x4000000u);
  auto cmd = driver->createBo(kBoCmd, 4096);
  ASSERT_TRUE(cmd.isOk());
  // A packet that is not ERT_START_NPU retires in ERROR, saying why.
  uint32_t packet[6] = {ertHeader(kStateNew, 5, 0), 1, 0, 0, 16, 0};
  std::memcpy(cmd->host, packet, sizeof packet);
  auto seq = driver->execCmd(*ctx, *cmd, {bo->handle});
  ASSERT_TRUE(seq.isOk()) << seq.status().message();
  EXPECT_TRUE(driver->waitCmd(*ctx, *seq, 1000).isOk());
  uint32_t header;
  std::memcpy(&header, cmd->host, 4);
  EXPECT_EQ(header & 0xF, kStateError);
  EXPECT_EQ(driver->lastError(), "ERT opcode 0, the emulator runs ERT_START_NPU (20) only");
  // An instruction buffer off the 32 KiB alignment.
  uint64_t address = bo->xdnaAddr + 4;
  uint32_t start[6] = {ertHeader(kStateNew, 5, kOpcodeStartNpu), 1, uint32_t(address), uint32_t(address >> 32), 16, 0};
  std::memcpy(cmd->host, start, sizeof start);
  ASSERT_TRUE(driver->execCmd(*ctx, *cmd, {bo->handle}).isOk());
  EXPECT_EQ(driver->lastError(),
            "instruction buffer address 0x100000004 is not aligned to the NPU2 instruction alignment 32768");
  EXPECT_EQ(driver->execCmd(*ctx, *bo, {}).status().message(),
            "emulated amdxdna (accel0): EXEC_CMD handle is not a CMD BO (EINVAL)");
}

}  // namespace
