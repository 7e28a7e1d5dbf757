// The COMMAND transaction of a planned pipeline, read back by the runtime's independent reader
// (hrx/format/Transaction.h) and compared with register/value pairs derived by hand from
// aie-rt's AIE2P register database and mlir-aie's op layouts (docs/formats/transaction.md);
// then executed on the transaction array model (hrx/array/ArrayModel.h), intact and with one
// field corrupted at a time.
#include "ArrayFixtures.h"
#include "Graphs.h"

#include "hrx/array/ArrayModel.h"
#include "hrx/format/Transaction.h"
#include "hrx/runtime/HostDevice.h"
#include "hrx/xdna/Planner.h"
#include "hrx/xdna/XdnaImage.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <numeric>

using namespace hrx;
using namespace hrx::xdna;
using namespace hrx::xdna::testing;
namespace fx = hrx::format::xdna;
namespace txn = hrx::format::txn;

namespace {

// Absolute register address of a tile offset: column << 25 | row << 20 | offset.
constexpr uint64_t reg(uint32_t column, uint32_t row, uint32_t offset) {
  return uint64_t(column) << 25 | uint64_t(row) << 20 | offset;
}

struct Built {
  format::ArrayPlan plan;
  fx::Image image;
  std::vector<uint8_t> command;  // the COMMAND allocation
};

Built build(const PipelineGraph &g) {
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  auto plan = planArray(g, {1}, diags);
  EXPECT_TRUE(plan);
  ImageSections sections;
  sections.hostCode = {0x7f, 'E', 'L', 'F'};
  auto image = buildImage({{*plan, contractOf(g), {}}}, 1, std::move(sections), diags);
  EXPECT_TRUE(image);
  return Built{*plan, *image, commandOf(*image)};
}

std::span<const uint8_t> range(const Built &b, uint32_t invocation) {
  const fx::Invocation &inv = b.image.invocations[invocation];
  return std::span(b.command).subspan(inv.byteOffset, inv.byteLength);
}

std::map<uint64_t, uint32_t> writesOf(const txn::Transaction &t) {
  std::map<uint64_t, uint32_t> m;
  for (const txn::RegisterWrite &w : txn::registerWrites(t))
    m[w.address] = (m[w.address] & ~w.mask) | (w.value & w.mask);
  return m;
}

TEST(TransactionReader, DecodesHandWrittenOps) {
  // Header 0.1, generation 4, 6 rows, 1 column, 1 memtile row, 3 ops, then a write32, a
  // blockwrite of two words and a TCT sync, laid out as mlir-aie's AIETargetNPU writes them.
  std::vector<uint32_t> words = {0x06040100, 0x00000101, 3, 0,
                                 // write32 (0,2)+0x1F000 = 2
                                 0x00000200, 0, 0x0021F000, 0, 2, 24,
                                 // blockwrite (0,2)+0x1D000 = {0x400, 0}
                                 0x00000201, 0, 0x0021D000, 24, 0x400, 0,
                                 // sync s2mm (0,0) channel 1
                                 0x80, 16, 0x00000000, 0x01010100};
  words[3] = uint32_t(words.size() * 4);
  std::vector<uint8_t> bytes(words.size() * 4);
  std::memcpy(bytes.data(), words.data(), bytes.size());
  auto t = txn::decodeTransaction(bytes);
  ASSERT_TRUE(t.isOk()) << t.status().message();
  ASSERT_EQ(t->operations.size(), 3u);
  EXPECT_EQ(t->operations[0].address, 0x21F000u);
  EXPECT_EQ(t->operations[0].value, 2u);
  EXPECT_EQ(t->operations[1].words, (std::vector<uint32_t>{0x400, 0}));
  EXPECT_EQ(t->operations[2].sync.channel, 1u);
  EXPECT_EQ(t->operations[2].sync.rowCount, 1u);
  EXPECT_EQ(t->operations[2].sync.columnCount, 1u);
  EXPECT_EQ(t->operations[2].sync.direction, 0u);

  // A blockwrite with the 12-byte header our encoder used to write desynchronises here.
  std::vector<uint8_t> old = bytes;
  old[40 + 12] = 20;  // size field now 20: 16-byte header + 1 word, the next op starts mid-payload
  auto bad = txn::decodeTransaction(old);
  ASSERT_FALSE(bad.isOk());
  EXPECT_EQ(bad.status().message(), "transaction: op 2 (WRITE) at byte 0x3c: needs 24 bytes, 20 remain in the command");
  std::vector<uint8_t> counted = bytes;
  counted[8] = 4;
  EXPECT_EQ(txn::decodeTransaction(counted).status().message(),
            "transaction: header: operation count 4, the command holds 3 operations");
}

// The instruction words mlir-aie's own test of its transaction writer publishes
// (test/Targets/NPU/npu_instgen.mlir: an NPU1 sequence of two write32, two blockwrite, a
// maskwrite32, a sync and a load_pdi), decoded by our reader op by op.
TEST(TransactionReader, DecodesMlirAiePublishedInstructionWords) {
  std::vector<uint32_t> words = {0x06030100, 0x00000104, 0x00000007, 0x000000DC, 0x00000000, 0x00000000, 0x06400DEF,
                                 0x00000000, 0x00000042, 0x00000018, 0x00000000, 0x00000000, 0xABC00DEF, 0x00000000,
                                 0x00000314, 0x00000018, 0x00000001, 0x00000000, 0x12345679, 0x00000030, 100,
                                 101,        102,        103,        104,        105,        106,        107,
                                 0x00000001, 0x00000101, 0x02100064, 0x00000030, 100,        101,        102,
                                 103,        104,        105,        106,        107,        0x00000003, 0x00000000,
                                 0x0430567A, 0x00000000, 0x00001001, 0xF00FF00F, 0x0000001C, 0x00000080, 0x00000010,
                                 0x00030401, 0x05010200, 0x00020008, 0x00000400, 0x12345678, 0x00000ABC};
  ASSERT_EQ(words.size() * 4, 0xDCu);
  std::vector<uint8_t> bytes(words.size() * 4);
  std::memcpy(bytes.data(), words.data(), bytes.size());
  auto t = txn::decodeTransaction(bytes);
  ASSERT_TRUE(t.isOk()) << t.status().message();
  EXPECT_EQ(t->deviceGeneration, 3u);
  EXPECT_EQ(t->columns, 4u);
  ASSERT_EQ(t->operations.size(), 7u);
  // write32 {column 3, row 4, address 0xabc00def} keeps the offset's low 20 bits in the tile.
  EXPECT_EQ(t->operations[0].address, 0x06400DEFu);
  EXPECT_EQ(t->operations[0].value, 0x42u);
  EXPECT_EQ(t->operations[1].address, 0xABC00DEFu);
  EXPECT_EQ(t->operations[2].words, (std::vector<uint32_t>{100, 101, 102, 103, 104, 105, 106, 107}));
  // blockwrite {column 1, row 1, address 100}: the tile in header bytes 4-5 and in the address.
  EXPECT_EQ(t->operations[3].address, 0x02100064u);
  EXPECT_EQ(t->operations[3].column, 1u);
  EXPECT_EQ(t->operations[3].row, 1u);
  EXPECT_EQ(t->operations[4].opcode, txn::Opcode::MaskWrite);
  EXPECT_EQ(t->operations[4].address, 0x0430567Au);
  EXPECT_EQ(t->operations[4].value, 0x1001u);
  EXPECT_EQ(t->operations[4].mask, 0xF00FF00Fu);
  // npu.sync(column 3, row 4, direction 1, channel 5, column_num 1, row_num 2).
  const txn::Operation::Sync &sync = t->operations[5].sync;
  EXPECT_EQ(sync.column, 3u);
  EXPECT_EQ(sync.row, 4u);
  EXPECT_EQ(sync.direction, 1u);
  EXPECT_EQ(sync.channel, 5u);
  EXPECT_EQ(sync.columnCount, 1u);
  EXPECT_EQ(sync.rowCount, 2u);
  EXPECT_EQ(t->operations[6].opcode, txn::Opcode::LoadPdi);
  EXPECT_EQ(t->operations[6].value, 2u);    // id
  EXPECT_EQ(t->operations[6].mask, 1024u);  // size
  EXPECT_EQ(t->operations[6].address, 0xABC12345678u);
  // Our encoder's sync for (0,0) S2MM 0 has mlir-aie's layout: the same two words.
  Built b = build(copyGraph(1));
  auto repeat = txn::decodeTransaction(range(b, 1));
  ASSERT_TRUE(repeat.isOk());
  uint32_t at = b.image.invocations[1].byteOffset + repeat->operations.back().byteOffset;
  uint32_t w2, w3;
  std::memcpy(&w2, b.command.data() + at + 8, 4);
  std::memcpy(&w3, b.command.data() + at + 12, 4);
  EXPECT_EQ(w2, 0x00000000u);  // direction 0 | row 0 << 8 | column 0 << 16
  EXPECT_EQ(w3, 0x00010100u);  // row count 1 << 8 | column count 1 << 16 | channel 0 << 24
}

TEST(TransactionFacts, CopyCommandsWriteTheRegisterDatabaseValues) {
  Built b = build(copyGraph(4));
  // Both invocations start on the NPU2 instruction alignment (32768).
  ASSERT_EQ(b.image.invocations.size(), 2u);
  EXPECT_EQ(b.image.invocations[1].byteOffset, 32768u);
  EXPECT_EQ(b.image.allocations[0].alignment, 32768u);
  auto establish = txn::decodeTransaction(range(b, 0));
  ASSERT_TRUE(establish.isOk()) << establish.status().message();
  auto repeat = txn::decodeTransaction(range(b, 1));
  ASSERT_TRUE(repeat.isOk()) << repeat.status().message();
  auto e = writesOf(*establish), r = writesOf(*repeat);

  // Locks of (0,2) (MEMORY_MODULE_LOCKn_VALUE = 0x1F000 + 0x10 n): credit 2, ready 0.
  EXPECT_EQ(e.at(reg(0, 2, 0x1F000)), 2u);
  EXPECT_EQ(e.at(reg(0, 2, 0x1F010)), 0u);
  // Shim mux: south 3 fed by DMA (MUX_CONFIG bits 11:10 = 1); demux: south 2 to DMA (bits 5:4 = 1).
  EXPECT_EQ(e.at(reg(0, 0, 0x1F000)), 0x400u);
  EXPECT_EQ(e.at(reg(0, 0, 0x1F004)), 0x10u);
  // Input path: shim slave south3 (physical 5, 0x3F114) -> master north0 (physical 12, 0x3F030);
  // memtile slave south0 (7, 0xB011C) -> master north0 (11, 0xB002C); core slave south0
  // (5, 0x3F114) -> master dma0 (1, 0x3F004). A master's value is enable | physical slave.
  EXPECT_EQ(e.at(reg(0, 0, 0x3F114)), 0x80000000u);
  EXPECT_EQ(e.at(reg(0, 0, 0x3F030)), 0x80000005u);
  EXPECT_EQ(e.at(reg(0, 1, 0xB011C)), 0x80000000u);
  EXPECT_EQ(e.at(reg(0, 1, 0xB002C)), 0x80000007u);
  EXPECT_EQ(e.at(reg(0, 2, 0x3F114)), 0x80000000u);
  EXPECT_EQ(e.at(reg(0, 2, 0x3F004)), 0x80000005u);
  // Output path: core slave dma0 (1) -> master south0 (5, 0x3F014); memtile slave north0 (13,
  // 0xB0134) -> master south0 (7, 0xB001C); shim slave north0 (14, 0x3F138) -> master south2
  // (4, 0x3F010).
  EXPECT_EQ(e.at(reg(0, 2, 0x3F014)), 0x80000001u);
  EXPECT_EQ(e.at(reg(0, 1, 0xB001C)), 0x8000000Du);
  EXPECT_EQ(e.at(reg(0, 0, 0x3F010)), 0x8000000Eu);
  // Core BD 0 (0x1D000): 1024 words at word address 0; word 5 = next BD 1 [30:27], use-next 26,
  // valid 25, release +1 [24:18] on lock 1 [16:13], acquire enable 12, acquire -1 [11:5] on lock 0.
  EXPECT_EQ(e.at(reg(0, 2, 0x1D000)), 0x400u);
  EXPECT_EQ(e.at(reg(0, 2, 0x1D014)),
            0x08000000u | 0x04000000u | 0x02000000u | 1u << 18 | 1u << 13 | 1u << 12 | 0x7Fu << 5 | 0u);
  // Core BD 1 (0x1D020) at slot 1 (byte 0x4000 = word 0x1000 in bits 27:14), chained back to BD 0.
  EXPECT_EQ(e.at(reg(0, 2, 0x1D020)), 0x1000u << 14 | 0x400u);
  EXPECT_EQ(e.at(reg(0, 2, 0x1D034)) >> 25, 0x3u);  // next 0, use-next, valid
  // S2MM 0 starts at BD 0 (MEMORY_MODULE_DMA_S2MM_0_START_QUEUE 0x1DE04).
  EXPECT_EQ(e.at(reg(0, 2, 0x1DE04)), 0u);

  // Repeat: shim BD 0 (NOC_MODULE_DMA_BD0_*) moves 4096 words; burst length 3 (512 B) in word
  // 4 bits 31:30, word 5 (SMID/AxCache/AxQoS, D2 step) clear, word 7 valid.
  EXPECT_EQ(r.at(reg(0, 0, 0x1D000)), 4096u);
  EXPECT_EQ(r.at(reg(0, 0, 0x1D010)) >> 30, 3u);
  EXPECT_EQ(r.at(reg(0, 0, 0x1D014)), 0u);
  EXPECT_EQ(r.at(reg(0, 0, 0x1D01C)), 0x02000000u);
  // MM2S 0 task queue (0x1D214): BD 0, one execution; S2MM 0 (0x1D204) issues a token (bit 31).
  EXPECT_EQ(r.at(reg(0, 0, 0x1D214)), 0u);
  EXPECT_EQ(r.at(reg(0, 0, 0x1D204)), 0x80000000u | 1u);
  // The last op waits for S2MM 0 of (0,0): word 2 = direction | row << 8 | column << 16.
  const txn::Operation &sync = repeat->operations.back();
  ASSERT_EQ(sync.opcode, txn::Opcode::Tct);
  EXPECT_EQ(sync.sync.direction, 0u);
  EXPECT_EQ(sync.sync.channel, 0u);
  EXPECT_EQ(sync.sync.column, 0u);
  EXPECT_EQ(sync.sync.row, 0u);
  // Every write lands on a register the runtime's model knows.
  for (const auto *t : {&*establish, &*repeat})
    for (const txn::RegisterWrite &w : txn::registerWrites(*t)) {
      array::TileId tile{uint32_t(w.address >> 25), uint32_t(w.address >> 20) & 0x1F};
      EXPECT_TRUE(array::classifyRegister(array::kindOfRow(tile.row), uint32_t(w.address & 0xFFFFF)))
          << std::hex << w.address;
    }
}

void copyRecord(void *const *records) { std::memcpy(records[1], records[0], 4096); }

// Runs the copy pipeline's commands on the model with `corrupt` applied to the command bytes.
Status runCopy(const std::function<void(Built &)> &corrupt, std::vector<int32_t> *output = nullptr) {
  Built b = build(copyGraph(4));
  corrupt(b);
  std::vector<int32_t> in(4096), out(4096, 0);
  std::iota(in.begin(), in.end(), -100);
  if (Status s = relocate(b.image, b.command); !s) return s;
  array::ArrayModel model(1);
  model.setHostMemory({{bindingBase(0), reinterpret_cast<std::byte *>(in.data()), 16384, "input"},
                       {bindingBase(1), reinterpret_cast<std::byte *>(out.data()), 16384, "output"}});
  auto cores = runtime::makeHostTwinCores(
      b.plan, [](const std::string &) -> StatusOr<hrx_host_stage_fn> { return &copyRecord; });
  if (!cores) return cores.status();
  model.setCores(std::move(*cores));
  bool established = false;
  uint32_t next = 0;
  if (Status s = dispatchOnModel(model, b.image, b.command, established, next, "invocation 1"); !s) return s;
  if (output) *output = out;
  if (out != in) return Status(StatusCode::Internal, "output differs from input");
  return Status::ok();
}

// The byte offset, in the command, of the first word of the blockwrite at `address` (or of the
// value of the write32/maskwrite at it).
uint32_t fieldAt(const Built &b, uint32_t invocation, uint64_t address) {
  auto t = txn::decodeTransaction(range(b, invocation));
  for (const txn::Operation &op : t->operations) {
    uint32_t at = b.image.invocations[invocation].byteOffset + op.byteOffset;
    if (op.opcode == txn::Opcode::BlockWrite && address >= op.address && address < op.address + 4 * op.words.size())
      return at + 16 + uint32_t(address - op.address);
    if ((op.opcode == txn::Opcode::Write || op.opcode == txn::Opcode::MaskWrite) && op.address == address)
      return at + 16;
  }
  ADD_FAILURE() << "no write to " << std::hex << address;
  return 0;
}

void put32(Built &b, uint32_t at, uint32_t v) { std::memcpy(b.command.data() + at, &v, 4); }
uint32_t get32(const Built &b, uint32_t at) {
  uint32_t v;
  std::memcpy(&v, b.command.data() + at, 4);
  return v;
}

TEST(TransactionModel, CopyMovesEveryRecord) {
  Status s = runCopy([](Built &) {});
  EXPECT_TRUE(s.isOk()) << s.message();
}

TEST(TransactionModel, CorruptedFieldsFailPrecisely) {
  auto message = [](const std::function<void(Built &)> &corrupt) { return runCopy(corrupt).message(); };
  // A core BD whose length is one word short: the stream keeps the surplus words.
  std::string shortBd = message([](Built &b) {
    uint32_t at = fieldAt(b, 0, reg(0, 2, 0x1D000));
    put32(b, at, get32(b, at) - 1);
  });
  EXPECT_EQ(shortBd, "invocation 1: (0,2) S2MM 0 BD 0 stopped part-way (2 of 1023 words) when the invocation ended");
  // A BD placed past the end of the tile's memory.
  EXPECT_EQ(message([](Built &b) { put32(b, fieldAt(b, 0, reg(0, 2, 0x1D020)), 0x3F00u << 14 | 0x400u); }),
            "(0,2) S2MM 0 BD 1 word 256 addresses byte 0x10000, outside the tile's 65536-byte data memory");
  // A BD acquiring a lock nobody releases: a deadlock naming the waiting channel and core.
  std::string lock = message([](Built &b) {
    uint32_t at = fieldAt(b, 0, reg(0, 2, 0x1D014));
    put32(b, at, (get32(b, at) & ~0xFu) | 9u);
  });
  EXPECT_NE(lock.find("deadlock: waiting for the task-completion token of (0,0) S2MM 0"), std::string::npos) << lock;
  EXPECT_NE(lock.find("(0,2) S2MM 0: BD 0 waits to acquire lock 9 (value 0, needs >= 1)"), std::string::npos) << lock;
  EXPECT_NE(
      lock.find("core (0,2): worker 0 @copy_record iteration 0 of 4 waits to acquire lock 1 of (0,2) (ready, value 0)"),
      std::string::npos)
      << lock;
  // A switch port: the memory tile's north0 master forwards south1 instead of south0.
  EXPECT_EQ(
      message([](Built &b) { put32(b, fieldAt(b, 0, reg(0, 1, 0xB002C)), 0x80000008u); }),
      "the stream from (0,0) MM2S 0 ((0,0) MM2S 0 -> (0,0) south3 -> north0 -> (0,1) south0) is routed nowhere: no "
      "enabled master of (0,1) forwards slave south0");
  // The shim mux left at its reset value (PL).
  EXPECT_EQ(
      message([](Built &b) { put32(b, fieldAt(b, 0, reg(0, 0, 0x1F000)), 0u); }),
      "the stream from (0,0) MM2S 0 ((0,0) MM2S 0) enters the switch at south slave 3 through the shim mux, whose "
      "field for south 3 selects PL (0, the reset value), not DMA (1)");
  // A register the model does not know (a write32 moved to 0x1E000 of the core tile).
  EXPECT_EQ(message([](Built &b) {
              uint32_t at = fieldAt(b, 0, reg(0, 2, 0x1F000)) - 8;  // the write32's address field
              put32(b, at, uint32_t(reg(0, 2, 0x1E000)));
            }),
            "invocation 0 op 0 (WRITE) at byte 0x10: register 0x1e000 of compute tile (0,2) is not in the NPU5 "
            "register model");
  // A channel started at a BD nobody wrote (the S2MM 0 task queue names BD 15).
  EXPECT_EQ(message([](Built &b) { put32(b, fieldAt(b, 0, reg(0, 2, 0x1DE04)), 15u); }),
            "(0,2) S2MM 0 BD 15: the BD is not valid (valid_bd, bit 25 of its last word, is clear)");
  // The shim demux left at PL: the output stream cannot reach S2MM 0.
  EXPECT_EQ(
      message([](Built &b) { put32(b, fieldAt(b, 0, reg(0, 0, 0x1F004)), 0u); }),
      "the stream from (0,2) MM2S 0 ((0,2) MM2S 0 -> (0,2) dma0 -> south0 -> (0,1) north0 -> south0 -> (0,0) north0 -> "
      "south2) leaves the array at south master 2 of (0,0), which the shim demux does not hand to a DMA channel (S2MM "
      "0/1 take south 2/3 when their demux field is DMA (1))");
  // A slave port left disabled on the memory tile.
  EXPECT_EQ(
      message([](Built &b) { put32(b, fieldAt(b, 0, reg(0, 1, 0xB011C)), 0u); }),
      "the stream from (0,0) MM2S 0 ((0,0) MM2S 0 -> (0,0) south3 -> north0 -> (0,1) south0) is not accepted: slave "
      "south0 of (0,1) is not enabled");
  // A shim BD one word short: the last record never completes, and the wait says who waits.
  std::string shimShort = message([](Built &b) {
    uint32_t at = fieldAt(b, 1, reg(0, 0, 0x1D000));
    put32(b, at, get32(b, at) - 1);
  });
  EXPECT_NE(shimShort.find("deadlock: waiting for the task-completion token of (0,0) S2MM 0"), std::string::npos)
      << shimShort;
  EXPECT_NE(shimShort.find("(0,2) S2MM 0: BD 1 waits for stream data (1023 of 1024 words)"), std::string::npos)
      << shimShort;
  // An invalid BD (valid bit cleared).
  EXPECT_EQ(message([](Built &b) {
              uint32_t at = fieldAt(b, 0, reg(0, 2, 0x1D014));
              put32(b, at, get32(b, at) & ~(1u << 25));
            }),
            "(0,2) S2MM 0 BD 0: the BD is not valid (valid_bd, bit 25 of its last word, is clear)");
}

}  // namespace
