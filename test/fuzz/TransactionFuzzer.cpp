// The transaction reader (hrx/format/Transaction.h) and the array model executing what it
// accepts (hrx/array/ArrayModel.h): every command is rejected, executed or reported as a
// deadlock/livelock, never a crash or a hang (waits are bounded by a round limit).
#include "hrx/array/ArrayModel.h"
#include "hrx/format/Transaction.h"
#include "hrx/format/TransactionPrinter.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto t = hrx::format::txn::decodeTransaction({data, size});
  if (!t.isOk()) return 0;
  (void)hrx::format::txn::printTransaction(*t);
  (void)hrx::format::txn::registerWrites(*t);
  uint32_t columns = t->columns >= 1 && t->columns <= 8 ? t->columns : 1;
  hrx::array::ArrayModel model(columns);
  model.setRoundLimit(10000);
  (void)model.execute(*t, "fuzz");
  (void)model.finishInvocation("fuzz");
  return 0;
}
