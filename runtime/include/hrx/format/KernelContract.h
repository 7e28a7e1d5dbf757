// KernelContract (hrx-product §3.1): the host-side view of an export's bindings and constants,
// serde-compatible JSON with unknown fields denied. `.hrx.contract` sections hold one per
// entry. Format: docs/formats/xdna.md#hrx-contract.
#pragma once

#include "hrx/format/Xdna.h"
#include "hrx/runtime/Status.h"

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::format {

enum class ContractAccess { Read, Write, ReadWrite };  // Write: old contents are not read

struct BindingContract {
  uint64_t bytes = 0;
  uint64_t alignment = 1;
  ContractAccess access = ContractAccess::Read;
  std::string layout;  // for diagnostics only
  friend bool operator==(const BindingContract &, const BindingContract &) = default;
};

struct KernelContract {
  std::vector<BindingContract> bindings;
  std::vector<uint8_t> constants;  // exact scalar bytes
  // 0 < bytes <= INT64_MAX and a power-of-two alignment for every binding; otherwise
  // "invalid kernel binding extent or alignment" naming the binding.
  Status validate() const;
  friend bool operator==(const KernelContract &, const KernelContract &) = default;
};

std::string_view contractAccessName(ContractAccess access);

// The §3.1 JSON object {"bindings":[...],"constants":[...]} (written by
// hrx/format/KernelContractWriter.h).
StatusOr<KernelContract> readKernelContract(std::string_view json);

// The .hrx.contract payload: {"version":1,"contracts":{"<entry>":KernelContract,...}}.
using ContractTable = std::map<std::string, KernelContract>;
StatusOr<ContractTable> readContractTable(std::string_view json);

// The contract must agree with the entry's binding rows: one BUFFER row per contract binding,
// same minimum length and alignment, and access bits READ/WRITE matching Read/Write/ReadWrite.
Status checkContractAgainstBindings(std::string_view entry, const KernelContract &contract,
                                    std::span<const xdna::Binding> rows);

}  // namespace hrx::format
