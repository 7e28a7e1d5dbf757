#include "hrx/format/Transaction.h"

#include "hrx/support/Text.h"

#include "Bytes.h"

#include <cstdio>

namespace hrx::format::txn {
namespace {

using detail::le32;
using detail::le64;

constexpr uint32_t kHeaderBytes = 16;
// Legacy (0.1) op layouts, naturally aligned as aie-rt's XAie_*Hdr structs and as mlir-aie's
// AIETargetNPU writes them (docs/formats/transaction.md):
constexpr uint32_t kWriteBytes = 24;        // op col row pad[5] | u64 address | value | size
constexpr uint32_t kMaskWriteBytes = 28;    // ... | value | mask | size
constexpr uint32_t kBlockHeaderBytes = 16;  // op col row pad[5] | u32 address | u32 size | words
constexpr uint32_t kTctBytes = 16;          // op pad[3] | size | dir row col 0 | 0 rows cols channel
constexpr uint32_t kDdrPatchBytes = 48;     // op pad[3] | size | ... | address @24 | arg @32 | plus @40
constexpr uint32_t kLoadPdiBytes = 16;      // op pad | u16 id | u32 size | u64 address

// Bytes 1-2 and 4-5 of a register op's 8-byte header may name the column and row (aie-rt's
// XAie_OpHdr; mlir-aie writes them at 4-5 for BLOCKWRITE); bytes 3, 6 and 7 are padding.
Status headerPadding(std::span<const uint8_t> b, uint32_t at, const std::string &where) {
  for (uint32_t i : {3u, 6u, 7u})
    if (b[at + i])
      return Status(StatusCode::InvalidArgument, "transaction: " + where + ": header byte " + std::to_string(i) +
                                                     " is " + std::to_string(b[at + i]) + ", expected 0");
  return Status::ok();
}

using text::hex;  // hrx/support/Text.h

}  // namespace

std::string_view opcodeName(uint8_t opcode) {
  switch (opcode) {
  case 0: return "WRITE";
  case 1: return "BLOCKWRITE";
  case 2: return "BLOCKSET";
  case 3: return "MASKWRITE";
  case 4: return "MASKPOLL";
  case 5: return "NOOP";
  case 6: return "PREEMPT";
  case 7: return "MASKPOLL_BUSY";
  case 8: return "LOADPDI";
  case 9: return "CONFIG_SHIMDMA_BD";
  case 10: return "CONFIG_SHIMDMA_DMABUF_BD";
  case 0x80: return "CUSTOM_OP_TCT";
  case 0x81: return "CUSTOM_OP_DDR_PATCH";
  case 0x82: return "CUSTOM_OP_READ_REGS";
  case 0x83: return "CUSTOM_OP_RECORD_TIMER";
  case 0x84: return "CUSTOM_OP_MERGE_SYNC";
  default: return "unknown";
  }
}

StatusOr<Transaction> decodeTransaction(std::span<const uint8_t> b) {
  auto bad = [](const std::string &what) { return Status(StatusCode::InvalidArgument, "transaction: " + what); };
  if (b.size() < kHeaderBytes)
    return bad("command is " + std::to_string(b.size()) + " bytes, shorter than the 16-byte header");
  Transaction t;
  t.major = b[0], t.minor = b[1], t.deviceGeneration = b[2], t.rows = b[3], t.columns = b[4], t.memTileRows = b[5];
  t.operationCount = le32(b, 8);
  t.totalBytes = le32(b, 12);
  if (t.major != 0 || t.minor != 1)
    return bad("header: version " + std::to_string(t.major) + "." + std::to_string(t.minor) +
               ", expected 0.1 (the legacy op encoding; 1.0 is aie-rt's optimized encoding)");
  if (t.totalBytes != b.size())
    return bad("header: total length " + std::to_string(t.totalBytes) + " bytes, the command holds " +
               std::to_string(b.size()));
  uint32_t at = kHeaderBytes;
  for (uint32_t index = 0; at < b.size(); ++index) {
    uint8_t code = b[at];
    std::string where = "op " + std::to_string(index) + " (" + std::string(opcodeName(code)) + ") at byte " + hex(at);
    uint32_t left = uint32_t(b.size()) - at;
    auto need = [&](uint32_t bytes) -> Status {
      if (left < bytes)
        return bad(where + ": needs " + std::to_string(bytes) + " bytes, " + std::to_string(left) +
                   " remain in the command");
      return Status::ok();
    };
    Operation op;
    op.opcode = Opcode(code);
    op.byteOffset = at;
    switch (Opcode(code)) {
    case Opcode::Write:
    case Opcode::MaskWrite:
    case Opcode::MaskPoll: {
      uint32_t fixed = code == 0 ? kWriteBytes : kMaskWriteBytes;
      if (Status s = need(fixed); !s) return s;
      if (Status s = headerPadding(b, at, where); !s) return s;
      op.column = b[at + 1] | b[at + 4], op.row = b[at + 2] | b[at + 5];
      op.address = le64(b, at + 8);
      op.value = le32(b, at + 16);
      op.mask = code == 0 ? 0xFFFFFFFFu : le32(b, at + 20);
      op.byteLength = le32(b, at + fixed - 4);
      if (op.byteLength != fixed)
        return bad(where + ": size field " + std::to_string(op.byteLength) + ", expected " + std::to_string(fixed));
      if (op.address >> 32) return bad(where + ": register address " + hex(op.address) + " does not fit 32 bits");
      break;
    }
    case Opcode::BlockWrite: {
      if (Status s = need(kBlockHeaderBytes); !s) return s;
      if (Status s = headerPadding(b, at, where); !s) return s;
      op.column = b[at + 1] | b[at + 4], op.row = b[at + 2] | b[at + 5];
      op.address = le32(b, at + 8);
      op.byteLength = le32(b, at + 12);
      if (op.byteLength < kBlockHeaderBytes + 4 || (op.byteLength - kBlockHeaderBytes) % 4)
        return bad(where + ": size field " + std::to_string(op.byteLength) +
                   ", expected the 16-byte header plus a nonzero number of 4-byte words");
      if (op.byteLength > left)
        return bad(where + ": size field " + std::to_string(op.byteLength) + " runs past the end of the command (" +
                   std::to_string(left) + " bytes remain)");
      for (uint32_t w = kBlockHeaderBytes; w < op.byteLength; w += 4) op.words.push_back(le32(b, at + w));
      break;
    }
    case Opcode::Tct: {
      if (Status s = need(kTctBytes); !s) return s;
      op.byteLength = le32(b, at + 4);
      if (op.byteLength != kTctBytes)
        return bad(where + ": size field " + std::to_string(op.byteLength) + ", expected " + std::to_string(kTctBytes));
      uint32_t w2 = le32(b, at + 8), w3 = le32(b, at + 12);
      if ((w2 >> 24) || (w3 & 0xFF))
        return bad(where + ": reserved bytes are nonzero (word 2 " + hex(w2) + ", word 3 " + hex(w3) + ")");
      op.sync.direction = uint8_t(w2), op.sync.row = uint8_t(w2 >> 8), op.sync.column = uint8_t(w2 >> 16);
      op.sync.rowCount = uint8_t(w3 >> 8), op.sync.columnCount = uint8_t(w3 >> 16), op.sync.channel = uint8_t(w3 >> 24);
      if (op.sync.direction > 1)
        return bad(where + ": direction " + std::to_string(op.sync.direction) + ", expected 0 (S2MM) or 1 (MM2S)");
      break;
    }
    case Opcode::DdrPatch: {
      if (Status s = need(kDdrPatchBytes); !s) return s;
      op.byteLength = le32(b, at + 4);
      if (op.byteLength != kDdrPatchBytes)
        return bad(where + ": size field " + std::to_string(op.byteLength) + ", expected " +
                   std::to_string(kDdrPatchBytes));
      op.address = le32(b, at + 24);
      op.value = le32(b, at + 32);                      // argument index
      op.words = {le32(b, at + 40), le32(b, at + 44)};  // argument offset (u64)
      break;
    }
    case Opcode::LoadPdi: {
      // op, pad, u16 PDI id | u32 size | u64 address (mlir-aie npu.load_pdi); decoded, not executed.
      if (Status s = need(kLoadPdiBytes); !s) return s;
      op.byteLength = kLoadPdiBytes;
      op.value = le32(b, at) >> 16;  // PDI id
      op.mask = le32(b, at + 4);     // PDI size
      op.address = le64(b, at + 8);
      break;
    }
    default:
      return bad(where + ": opcode " + hex(code) +
                 " is not supported by this reader (docs/formats/transaction.md lists the ops it decodes)");
    }
    t.operations.push_back(std::move(op));
    at += t.operations.back().byteLength;
  }
  if (t.operations.size() != t.operationCount)
    return bad("header: operation count " + std::to_string(t.operationCount) + ", the command holds " +
               std::to_string(t.operations.size()) + " operations");
  return t;
}

std::vector<RegisterWrite> registerWrites(const Transaction &t) {
  std::vector<RegisterWrite> out;
  for (uint32_t i = 0; i < t.operations.size(); ++i) {
    const Operation &op = t.operations[i];
    if (op.opcode == Opcode::Write || op.opcode == Opcode::MaskWrite)
      out.push_back({op.address, op.value, op.mask, i});
    else if (op.opcode == Opcode::BlockWrite)
      for (uint32_t w = 0; w < op.words.size(); ++w) out.push_back({op.address + 4 * w, op.words[w], 0xFFFFFFFFu, i});
  }
  return out;
}

}  // namespace hrx::format::txn
