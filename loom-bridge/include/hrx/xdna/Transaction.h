// Encodes an array plan as the two AIE2P transaction-0.1 commands of an .xdna entry
// (hrx-product §1.3 invocations 0 -> 1 -> 1, §1.5 header):
//   establish: lock initial values, compute-tile BDs, stream-switch routes, and the start of
//              every compute-tile DMA ring;
//   repeat:    shim BDs (whose binding addresses are patched by dynamic SHIM_ADDRESS
//              relocations), shim channel starts, and a completion sync per output channel.
// Only the 16-byte header is specified by our reference. The operation records and register
// values follow aie-rt's transaction ops and the npu5-hardware §2 register map as far as it
// goes; bit positions inside BD words and stream-switch port ids are our approximation
// (docs/xdna.md, "Transaction encoding"). No firmware has executed these commands.
#pragma once

#include "hrx/format/ArrayPlan.h"

#include <cstdint>
#include <vector>

namespace hrx::xdna {

// Operation codes (aie-rt's XAIE_IO_WRITE, XAIE_IO_BLOCKWRITE and the task-completion sync).
enum class TransactionOp : uint8_t { Write32 = 0, BlockWrite = 1, Sync = 0x80 };

// A shim BD whose address words (low, high) need the binding's device address.
struct AddressPatch {
  uint32_t byteOffset = 0;  // of the low word, inside the command
  uint32_t bindingOrdinal = 0;
  uint64_t addend = 0;      // the transfer's byte offset into the binding
};

struct Command {
  std::vector<uint8_t> bytes;  // header + operations
  uint32_t operations = 0;
  std::vector<AddressPatch> patches;
};

struct EncodedPlan {
  Command establish;
  Command repeat;
};

EncodedPlan encodeTransactions(const format::ArrayPlan &plan);

}  // namespace hrx::xdna
