// The kernel-contract readers (hrx/format/KernelContract.h), one contract and the .hrx.contract
// table: every accepted contract validates, agrees with the binding rows it describes, and
// written back (KernelContractWriter) reads back equal. Any disagreement aborts: a finding.
#include "hrx/format/KernelContract.h"
#include "hrx/format/KernelContractWriter.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace {

using namespace hrx::format;

// The binding rows an image writes for `contract`.
std::vector<xdna::Binding> rowsFor(const KernelContract &contract) {
  std::vector<xdna::Binding> rows;
  for (const BindingContract &b : contract.bindings) {
    uint16_t access = b.access == ContractAccess::Read    ? xdna::kAccessRead
                      : b.access == ContractAccess::Write ? xdna::kAccessWrite
                                                          : uint16_t(xdna::kAccessRead | xdna::kAccessWrite);
    rows.push_back(xdna::Binding::buffer(access, b.bytes, b.alignment));
  }
  return rows;
}

void checkAccepted(std::string_view entry, const KernelContract &contract) {
  if (!contract.validate().isOk()) std::abort();
  if (!checkContractAgainstBindings(entry, contract, rowsFor(contract)).isOk()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  auto contract = readKernelContract(text);
  if (contract.isOk()) {
    checkAccepted("fuzz", contract.value());
    auto again = readKernelContract(writeKernelContract(contract.value()));
    if (!again.isOk() || again.value() != contract.value()) std::abort();
  }
  auto table = readContractTable(text);
  if (table.isOk()) {
    for (const auto &[entry, c] : table.value()) checkAccepted(entry, c);
    auto again = readContractTable(writeContractTable(table.value()));
    if (!again.isOk() || again.value() != table.value()) std::abort();
  }
  return 0;
}
