// The readable listing of an AIE2P transaction (hrx/format/Transaction.h decodes it), for
// `hrx inspect --transactions` and the tests. Compiler and tools only: not part of libhrx-runtime.
#pragma once

#include "hrx/format/Transaction.h"

#include <string>

namespace hrx::format::txn {

// One op a line ("write32 (0,2)+0x1f000 = 0x2", "sync s2mm (0,0) ch 0").
std::string printTransaction(const Transaction &transaction);

}  // namespace hrx::format::txn
