#include "hrx/xdna/XdnaImage.h"

#include "hrx/format/CompileReport.h"
#include "hrx/format/KernelContract.h"
#include "hrx/format/ArrayPlanWriter.h"
#include "hrx/format/IdentityWriter.h"
#include "hrx/format/KernelContractWriter.h"
#include "hrx/format/ReportRender.h"
#include "hrx/xdna/Npu5Model.h"
#include "hrx/xdna/Transaction.h"

#include <algorithm>
#include <map>
#include <set>

namespace hrx::xdna {
namespace {

namespace fx = format::xdna;

uint16_t accessBits(bridge::Access access) { return uint16_t(access) & (fx::kAccessRead | fx::kAccessWrite); }

format::ContractAccess contractAccess(bridge::Access access) {
  switch (access) {
  case bridge::Access::Write: return format::ContractAccess::Write;
  case bridge::Access::ReadWrite: return format::ContractAccess::ReadWrite;
  default: return format::ContractAccess::Read;
  }
}

std::vector<uint8_t> bytesOf(const std::string &text) { return {text.begin(), text.end()}; }

// Every load decompresses what is compressed: about 1.2 µs per KiB (zstd, level 19), far more
// than reading a small payload raw costs. Smaller sections stay raw.
constexpr size_t kCompressAboveBytes = 16384;

uint32_t alignUp(uint32_t value, uint32_t alignment) { return (value + alignment - 1) / alignment * alignment; }

}  // namespace

std::optional<fx::Image> buildImage(const std::vector<PlannedEntry> &entries, unsigned columns, ImageSections sections,
                                    diag::DiagnosticEngine &diags) {
  fx::Image image;
  image.header.columns = uint16_t(columns);
  format::ContractTable contracts;
  std::vector<format::ArrayPlan> plans;
  bool ok = true;
  for (uint32_t k = 0; k < entries.size(); ++k) {
    const PlannedEntry &e = entries[k];
    EncodedPlan encoded = encodeTransactions(e.plan, e.code);
    for (const Command *c : {&encoded.establish, &encoded.repeat})
      if (c->bytes.size() > Npu5Model::kMaxCommandBytes) {
        diags.report(diag::DiagId::XdnaCommandTooLarge, e.loc)
            .arg("name", e.plan.name)
            .arg("needed", (long long)c->bytes.size())
            .arg("available", (long long)Npu5Model::kMaxCommandBytes);
        ok = false;
      }
    if (!ok) continue;
    // Both invocations start on the NPU2 instruction alignment; the gap between them is not
    // initialised (gaps are undefined, hrx-product §1.2), so the file holds only the commands.
    uint32_t repeatOffset = alignUp(uint32_t(encoded.establish.bytes.size()), fx::kNpu2InstructionAlignment);

    fx::Allocation allocation;
    allocation.domain = fx::Domain::Command;
    allocation.flags = 0;  // dynamic relocations patch it at bind time, so not IMMUTABLE
    allocation.byteLength = uint64_t(repeatOffset) + encoded.repeat.bytes.size();
    allocation.alignment = fx::kNpu2InstructionAlignment;
    image.allocations.push_back(allocation);
    image.allocationUses.push_back(k);
    uint64_t establishSize = encoded.establish.bytes.size(), repeatSize = encoded.repeat.bytes.size();
    image.loads.push_back({k, 0, encoded.establish.bytes, establishSize});
    image.loads.push_back({k, repeatOffset, encoded.repeat.bytes, repeatSize});

    fx::Entry entry;
    entry.name = e.plan.name;
    entry.firstAllocationUse = k;
    entry.allocationUseCount = 1;
    entry.firstBinding = uint32_t(image.bindings.size());
    format::KernelContract contract;
    for (const bridge::BindingContract &b : e.contract.bindings) {
      if (!b.used) {
        image.bindings.push_back({});  // NONE: keeps the unused ABI slot, never relocated
        continue;
      }
      image.bindings.push_back(fx::Binding::buffer(accessBits(b.access), b.bytes, std::max<uint64_t>(b.alignment, 1)));
      contract.bindings.push_back({b.bytes, std::max<uint64_t>(b.alignment, 1), contractAccess(b.access), b.layout});
    }
    for (const bridge::ContractConstant &c : e.contract.constants)
      contract.constants.insert(contract.constants.end(), c.bytes.begin(), c.bytes.end());
    entry.bindingCount = uint32_t(image.bindings.size()) - entry.firstBinding;
    entry.firstStaticRelocation = entry.firstDynamicRelocation = uint32_t(image.relocations.size());
    std::vector<fx::Relocation> relocations;
    for (const AddressPatch &p : encoded.repeat.patches) {
      fx::Relocation r;
      r.destinationUse = 0;
      r.sourceOrdinal = p.bindingOrdinal;
      r.byteOffset = repeatOffset + p.byteOffset;
      r.addend = int64_t(p.addend);
      relocations.push_back(r);
    }
    std::sort(relocations.begin(), relocations.end(),
              [](const fx::Relocation &a, const fx::Relocation &b) { return a.byteOffset < b.byteOffset; });
    image.relocations.insert(image.relocations.end(), relocations.begin(), relocations.end());
    entry.dynamicRelocationCount = uint32_t(relocations.size());
    entry.firstInvocation = uint32_t(image.invocations.size());
    entry.invocationCount = 2;
    image.invocations.push_back({0, 0, uint32_t(encoded.establish.bytes.size()), 1});
    image.invocations.push_back({0, repeatOffset, uint32_t(encoded.repeat.bytes.size()), 1});
    image.entries.push_back(std::move(entry));
    contracts[e.plan.name] = std::move(contract);
    plans.push_back(e.plan);
  }
  if (!ok) return std::nullopt;
  // Payloads are zstd-compressed where large.
  auto add = [&](std::string_view name, std::vector<uint8_t> bytes) {
    bool large = bytes.size() > kCompressAboveBytes;
    image.sections.push_back({std::string(name), std::move(bytes), large});
  };
  add(fx::kContractSection, bytesOf(format::writeContractTable(contracts)));
  if (!sections.reportJson.empty()) add(fx::kReportSection, bytesOf(sections.reportJson));
  add(fx::kPlanSection, bytesOf(format::writeArrayPlans(plans, /*indent=*/-1)));
  add(fx::kHostSection, std::move(sections.hostCode));
  sections.identity.referenceOnly = !sections.referenceOnlyReason.empty();
  sections.identity.referenceOnlyReason = sections.referenceOnlyReason;
  sections.identity.nativeCode = sections.identity.referenceOnly ? std::string() : std::string(kNativeCoreCode);
  image.sections.push_back(
      {std::string(fx::kIdentitySection), bytesOf(format::writeIdentity(sections.identity)), false});
  return image;
}

std::string buildReport(const std::vector<PlannedEntry> &entries, std::string_view compiler, std::string_view mode) {
  format::ReportJson rows = format::ReportJson::array();
  for (const PlannedEntry &e : entries) {
    const format::ArrayPlan &p = e.plan;
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> slotBytes;
    for (const format::PlanSlot &s : p.slots) slotBytes[{s.owner.column, s.owner.row}] += s.bytes;
    uint64_t maxSlotBytes = 0;
    for (const auto &[tile, bytes] : slotBytes) maxSlotBytes = std::max(maxSlotBytes, bytes);
    uint64_t bds = 0, program = 0;
    for (const format::PlanDma &d : p.dmas) bds += d.bdCount;
    for (const format::PlanWorker &w : p.workers) program = std::max<uint64_t>(program, w.codeBytes);
    uint64_t measured = 0;  // native code: the largest of any core (0 when no worker has it)
    for (const TileCode &c : e.code) measured = std::max<uint64_t>(measured, c.bytes.size());
    format::ReportJson array{{"columns", p.columns},
                             {"worker_count", p.workers.size()},
                             {"channel_count", p.channels.size()},
                             {"max_tile_slot_bytes", maxSlotBytes},
                             {"locks", {{"used", p.locks.size()}}},
                             {"buffer_descriptors", {{"used", bds}}},
                             {"dma_channels", {{"used", p.dmas.size()}}},
                             {"binding_count", p.bindings.size()},
                             {"program_bytes_estimate", program},
                             {"program_bytes", measured},
                             {"native_cores", e.code.size()}};
    format::ReportJson row{{"function", p.name}, {"array", array}};
    if (mode == "details") row["array_plan"] = format::printArrayPlan(p);
    rows.push_back(row);
  }
  format::CompileReport report;
  report.compiler = std::string(compiler);
  report.target = std::string(Npu5Model::kProfileName);
  report.processorMode = "Default";
  report.document = {{"kind", "loom.compile_report"}, {"schema_version", 0},
                     {"backend", "xdna-array"},       {"target_key", std::string(Npu5Model::kProfileName)},
                     {"mode", std::string(mode)},     {"entries", {{"count", rows.size()}, {"rows", rows}}}};
  return format::writeCompileReport(report);
}

}  // namespace hrx::xdna
