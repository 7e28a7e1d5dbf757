// Encodes an array plan as the two AIE2P transaction-0.1 commands of an .xdna entry
// (hrx-product §1.3 invocations 0 -> 1 -> 1, §1.5 header):
//   establish: lock initial values, compute-tile BDs, stream-switch routes, and the start of
//              every compute-tile DMA ring;
//   repeat:    shim BDs (whose binding addresses are patched by dynamic SHIM_ADDRESS
//              relocations), shim channel starts, and a completion sync per output channel.
// The op layouts are aie-rt's legacy (0.1) transaction ops and mlir-aie's appendSync; every
// register offset, bit field and port number comes from aie-rt's AIE2P register database
// (docs/formats/transaction.md cites each). No firmware has executed these commands.
#pragma once

#include "hrx/format/ArrayPlan.h"

#include <cstdint>
#include <vector>

namespace hrx::xdna {

// Operation codes (aie-rt XAie_TxnOpcode: XAIE_IO_WRITE, XAIE_IO_BLOCKWRITE,
// XAIE_IO_MASKWRITE and the custom task-completion-token sync XAIE_IO_CUSTOM_OP_TCT).
enum class TransactionOp : uint8_t { Write32 = 0, BlockWrite = 1, MaskWrite32 = 3, Sync = 0x80 };

// A shim BD whose address words (low, high) need the binding's device address.
struct AddressPatch {
  uint32_t byteOffset = 0;  // of the low word, inside the command
  uint32_t bindingOrdinal = 0;
  uint64_t addend = 0;  // the transfer's byte offset into the binding
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

// Native core code per compute tile (entry, worker and the core main program, Aie2pMain.h):
// written by the establish command into the tile's program memory (offset 0, host offset
// 0x20000) before anything else, with the main program's device state zeroed. The cores are not
// enabled by the commands: the host reference device starts each worker tile's core at every
// invocation (docs/aie2p.md "The core main program").
struct TileCode {
  format::TileCoord tile;
  std::vector<uint8_t> bytes;
  uint32_t stateOffset = 0, stateBytes = 0;  // the core main program's device state, zeroed at establish
  std::string assembly;                      // for --emit=asm
};

EncodedPlan encodeTransactions(const format::ArrayPlan &plan, const std::vector<TileCode> &code = {});

}  // namespace hrx::xdna
