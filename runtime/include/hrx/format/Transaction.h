// An independent reader of AIE2P transaction 0.1 commands (the COMMAND bytes of an .xdna
// invocation): the 16-byte header and the legacy aie-rt op records, decoded into operations and
// register writes. It shares no code or tables with the compiler's encoder, so an encoder
// mistake shows up as a decode error or a wrong register write instead of agreeing with itself.
// Layouts and sources: docs/formats/transaction.md. No LLVM.
#pragma once

#include "hrx/runtime/Status.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::format::txn {

// aie-rt XAie_TxnOpcode (driver/src/global/xaiegbl.h) and its custom ops from 0x80.
enum class Opcode : uint8_t {
  Write = 0,
  BlockWrite = 1,
  BlockSet = 2,
  MaskWrite = 3,
  MaskPoll = 4,
  Noop = 5,
  Preempt = 6,
  MaskPollBusy = 7,
  LoadPdi = 8,
  ConfigShimDmaBd = 9,
  ConfigShimDmaDmabufBd = 10,
  Tct = 0x80,       // task-completion-token sync (mlir-aie npu.sync)
  DdrPatch = 0x81,  // patch a shim BD address with a kernel argument
  ReadRegs = 0x82,
  RecordTimer = 0x83,
  MergeSync = 0x84,
};
std::string_view opcodeName(uint8_t opcode);

// One operation as found in the command.
struct Operation {
  Opcode opcode = Opcode::Write;
  uint32_t byteOffset = 0;      // of the op inside the command
  uint32_t byteLength = 0;      // the op's size field
  uint8_t column = 0, row = 0;  // header bytes 1-2 or 4-5 (informational; the address is absolute)
  // Write / MaskWrite / MaskPoll / BlockWrite: the absolute register address
  // (column << 25 | row << 20 | offset); MaskWrite and MaskPoll also carry a mask.
  uint64_t address = 0;
  uint32_t value = 0;
  uint32_t mask = 0xFFFFFFFFu;
  std::vector<uint32_t> words;  // BlockWrite payload
  // Tct: which channel's completion token to wait for.
  struct Sync {
    uint8_t direction = 0;  // 0 = S2MM, 1 = MM2S
    uint8_t row = 0, column = 0, rowCount = 0, columnCount = 0, channel = 0;
  } sync;
};

struct Transaction {
  uint8_t major = 0, minor = 1, deviceGeneration = 4, rows = 6, columns = 1, memTileRows = 1;
  uint32_t operationCount = 0;
  uint32_t totalBytes = 0;
  std::vector<Operation> operations;
};

// Decodes `bytes` (exactly one command: the header's total length must equal its size).
// Accepts version 0.1 only (1.0 is aie-rt's "optimized" encoding, which we do not emit) and
// the ops Write, BlockWrite, MaskWrite, MaskPoll, LoadPdi (id in `value`, size in `mask`),
// Tct and DdrPatch; any other op, a size
// field that disagrees with the op's layout, a truncated op or an operation count that
// disagrees with the header is an error naming the op's index and byte offset.
StatusOr<Transaction> decodeTransaction(std::span<const uint8_t> bytes);

// One 32-bit register write in command order (BlockWrite expands to one per word).
struct RegisterWrite {
  uint64_t address = 0;
  uint32_t value = 0;
  uint32_t mask = 0xFFFFFFFFu;  // MaskWrite: only these bits change
  uint32_t operation = 0;       // index into Transaction::operations
};
std::vector<RegisterWrite> registerWrites(const Transaction &transaction);

}  // namespace hrx::format::txn
