#include "hrx/format/TransactionPrinter.h"

#include "hrx/support/Text.h"

#include <sstream>

namespace hrx::format::txn {
using text::hex;  // hrx/support/Text.h

std::string printTransaction(const Transaction &t) {
  std::ostringstream os;
  os << "transaction " << int(t.major) << "." << int(t.minor) << " generation " << int(t.deviceGeneration) << " rows "
     << int(t.rows) << " columns " << int(t.columns) << " memtile-rows " << int(t.memTileRows) << " ops "
     << t.operationCount << " bytes " << t.totalBytes << "\n";
  auto tile = [](uint64_t address) {
    return "(" + std::to_string((address >> 25) & 0x7F) + "," + std::to_string((address >> 20) & 0x1F) + ")+" +
           hex(address & 0xFFFFF);
  };
  for (const Operation &op : t.operations) {
    switch (op.opcode) {
    case Opcode::Write: os << "write32 " << tile(op.address) << " = " << hex(op.value) << "\n"; break;
    case Opcode::MaskWrite:
      os << "maskwrite32 " << tile(op.address) << " = " << hex(op.value) << " mask " << hex(op.mask) << "\n";
      break;
    case Opcode::MaskPoll:
      os << "maskpoll32 " << tile(op.address) << " == " << hex(op.value) << " mask " << hex(op.mask) << "\n";
      break;
    case Opcode::BlockWrite:
      os << "blockwrite " << tile(op.address);
      for (uint32_t w : op.words) os << " " << hex(w);
      os << "\n";
      break;
    case Opcode::Tct:
      os << "sync " << (op.sync.direction ? "mm2s" : "s2mm") << " (" << int(op.sync.column) << "," << int(op.sync.row)
         << ") channel " << int(op.sync.channel) << " columns " << int(op.sync.columnCount) << " rows "
         << int(op.sync.rowCount) << "\n";
      break;
    case Opcode::DdrPatch: os << "ddr_patch " << tile(op.address) << " argument " << op.value << "\n"; break;
    case Opcode::LoadPdi:
      os << "load_pdi id " << op.value << " size " << op.mask << " address " << hex(op.address) << "\n";
      break;
    default: os << opcodeName(uint8_t(op.opcode)) << "\n"; break;
    }
  }
  return os.str();
}

}  // namespace hrx::format::txn
