#include "hrx/format/KernelContractWriter.h"

#include "JsonFields.h"

namespace hrx::format {
using namespace detail;

namespace {

Json contractJson(const KernelContract &contract) {
  Json bindings = Json::array();
  for (const BindingContract &b : contract.bindings)
    bindings.push_back({{"bytes", b.bytes},
                        {"alignment", b.alignment},
                        {"access", contractAccessName(b.access)},
                        {"layout", b.layout}});
  return {{"bindings", std::move(bindings)}, {"constants", contract.constants}};
}

}  // namespace

std::string writeKernelContract(const KernelContract &contract) { return contractJson(contract).dump() + "\n"; }

std::string writeContractTable(const ContractTable &table) {
  Json contracts = Json::object();
  for (const auto &[name, contract] : table) contracts[name] = contractJson(contract);
  return Json{{"version", 1}, {"contracts", std::move(contracts)}}.dump(1) + "\n";
}

}  // namespace hrx::format
