#include "hrx/format/KernelContract.h"

#include "JsonFields.h"

namespace hrx::format {
using namespace detail;

namespace {

constexpr std::pair<std::string_view, ContractAccess> kAccessNames[] = {
    {"Read", ContractAccess::Read}, {"Write", ContractAccess::Write}, {"ReadWrite", ContractAccess::ReadWrite}};

// Paths are spelled on errors only (JsonObject keeps its parent).
KernelContract readContract(JsonObject &o) {
  KernelContract contract;
  const auto &bindings = o.array("bindings");
  for (size_t i = 0; i < bindings.size(); ++i) {
    JsonObject b(bindings[i], o, "bindings", i);
    BindingContract binding;
    binding.bytes = b.u64("bytes");
    binding.alignment = b.u64("alignment");
    binding.access = enumField<ContractAccess>(kAccessNames, b, "access", b.required("access"));
    binding.layout = b.string("layout");
    b.finish();
    contract.bindings.push_back(std::move(binding));
  }
  const auto &constants = o.array("constants");
  for (size_t i = 0; i < constants.size(); ++i)
    contract.constants.push_back(
        uint8_t(constants[i].isUnsigned() && constants[i].unsignedValue() <= 255
                    ? constants[i].unsignedValue()
                    : asU64(constants[i], o.pathOf("constants") + "[" + std::to_string(i) + "]", 255)));
  o.finish();
  Status valid = contract.validate();
  if (!valid.isOk()) failAt(o.path(), valid.message());
  return contract;
}

KernelContract readContract(JsonValue value, const std::string &path) {
  JsonObject o(value, path);
  return readContract(o);
}

uint16_t accessBits(ContractAccess access) {
  switch (access) {
  case ContractAccess::Read: return xdna::kAccessRead;
  case ContractAccess::Write: return xdna::kAccessWrite;
  case ContractAccess::ReadWrite: return xdna::kAccessRead | xdna::kAccessWrite;
  }
  return 0;
}

}  // namespace

std::string_view contractAccessName(ContractAccess access) { return enumName<ContractAccess>(kAccessNames, access); }

Status KernelContract::validate() const {
  for (size_t i = 0; i < bindings.size(); ++i) {
    const BindingContract &b = bindings[i];
    bool alignmentOk = b.alignment != 0 && (b.alignment & (b.alignment - 1)) == 0;
    if (b.bytes == 0 || b.bytes > uint64_t(INT64_MAX) || !alignmentOk)
      return Status(StatusCode::InvalidArgument, "invalid kernel binding extent or alignment: binding " +
                                                     std::to_string(i) + " has " + std::to_string(b.bytes) +
                                                     " bytes aligned to " + std::to_string(b.alignment));
  }
  return Status::ok();
}

StatusOr<KernelContract> readKernelContract(std::string_view json) {
  return guarded("kernel contract: ", [&]() -> StatusOr<KernelContract> {
    JsonDocument document = parseJson(json, "the contract");
    return readContract(document.root(), "");
  });
}

StatusOr<ContractTable> readContractTable(std::string_view json) {
  return guarded(".hrx.contract: ", [&]() -> StatusOr<ContractTable> {
    JsonDocument document = parseJson(json, "the contract table");
    JsonObject top(document.root(), "");
    if (top.u64("version") != 1) failAt("version", "expected 1");
    JsonObject contracts(top.required("contracts"), "contracts");
    ContractTable table;
    for (const JsonMember &member : contracts.value().members()) {
      JsonObject contract(*contracts.optional(member.key), contracts, member.key);
      table[std::string(member.key)] = readContract(contract);
    }
    contracts.finish();
    top.finish();
    return table;
  });
}

Status checkContractAgainstBindings(std::string_view entry, const KernelContract &contract,
                                    std::span<const xdna::Binding> rows) {
  auto mismatch = [&](const std::string &what) {
    return Status(StatusCode::InvalidArgument,
                  "contract of entry '" + std::string(entry) + "' disagrees with its binding rows: " + what);
  };
  if (contract.bindings.size() != rows.size())
    return mismatch("the contract has " + std::to_string(contract.bindings.size()) + " bindings, the entry " +
                    std::to_string(rows.size()));
  for (size_t i = 0; i < rows.size(); ++i) {
    const BindingContract &c = contract.bindings[i];
    const xdna::Binding &r = rows[i];
    std::string where = "binding " + std::to_string(i) + ": ";
    if (r.kind != xdna::BindingKind::Buffer)
      return mismatch(where + "the row is NONE (unused) but the contract describes a buffer");
    if (r.minimumByteLength != c.bytes)
      return mismatch(where + "minimum_byte_length " + std::to_string(r.minimumByteLength) + ", contract bytes " +
                      std::to_string(c.bytes));
    if (r.minimumAlignment != c.alignment)
      return mismatch(where + "minimum_alignment " + std::to_string(r.minimumAlignment) + ", contract alignment " +
                      std::to_string(c.alignment));
    if (r.access != accessBits(c.access))
      return mismatch(where + "access bits " + std::to_string(r.access) + ", contract access " +
                      std::string(contractAccessName(c.access)));
  }
  return Status::ok();
}

}  // namespace hrx::format
