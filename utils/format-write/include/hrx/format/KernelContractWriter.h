// Writing kernel contracts and the `.hrx.contract` table (hrx/format/KernelContract.h reads
// them). Compiler and tools only: not part of libhrx-runtime.
#pragma once

#include "hrx/format/KernelContract.h"

#include <string>

namespace hrx::format {

// The §3.1 JSON object {"bindings":[...],"constants":[...]}.
std::string writeKernelContract(const KernelContract &contract);
// The .hrx.contract payload: {"version":1,"contracts":{"<entry>":KernelContract,...}}.
std::string writeContractTable(const ContractTable &table);

}  // namespace hrx::format
