#include "hrx/format/CompileReport.h"

#include "JsonFields.h"

#include <map>
#include <regex>
#include <sstream>

namespace hrx::format {
using namespace detail;

namespace {

constexpr ReportField kFields[] = {
    {"code_bytes", "/code_byte_count"},
    {"scalar_registers", "/target_resources/scalar/final/register_count"},
    {"vector_registers", "/target_resources/vector/final/register_count"},
    {"local_bytes", "/local_memory_bytes"},
    {"private_bytes", "/private_memory_bytes"},
    {"spills", "/allocation_spill_count"},
    {"occupancy_percent", "/target_resources/occupancy_percent"},
    {"wave_size", "/target_resources/wave_size"},
    {"bank_modeled_packets", "/source_low_memory/bank_service/modeled_packet_count"},
    {"bank_unmodeled_packets", "/source_low_memory/bank_service/unmodeled_packet_count"},
    {"bank_conflicted_packets", "/source_low_memory/bank_service/structural/conflicted_packet_count"},
    {"bank_extra_rounds", "/source_low_memory/bank_service/structural/extra_round_count"},
    {"columns", "/array/columns"},
    {"workers", "/array/worker_count"},
    {"channels", "/array/channel_count"},
    {"max_tile_slot_bytes", "/array/max_tile_slot_bytes"},
    {"locks_used", "/array/locks/used"},
    {"buffer_descriptors_used", "/array/buffer_descriptors/used"},
    {"dma_channels_used", "/array/dma_channels/used"},
    {"bindings", "/array/binding_count"},
    {"program_bytes_estimate", "/array/program_bytes_estimate"},
    {"program_bytes", "/array/program_bytes"},
    {"native_cores", "/array/native_cores"},
};

constexpr std::string_view kWaitFields[] = {"action_count",       "explicit_action_count", "planned_action_count",
                                            "full_drain_count",   "partial_wait_count",    "drained_count",
                                            "max_drained_count",  "max_outstanding_before", "max_full_drain_outstanding_before"};

const char *kUnsupported = "compile report schema or compiler identity is unsupported; regenerate the report";

bool validTargetKey(const std::string &key) {
  static const std::regex gfx("gfx[0-9a-f]{3,4}|gfx11-generic|amd\\.xdna\\.[a-z0-9_]+\\.[0-9a-f]{4}_[0-9a-f]{2}|x86_64");
  return std::regex_match(key, gfx);
}

// A {count, rows} section: rows may be omitted only when count is 0.
void checkSection(JsonValue section, const std::string &path) {
  JsonObject o(section, path);
  uint64_t count = o.u64("count");
  auto rows = o.optional("rows");
  if (!rows) {
    if (count != 0) failAt(o.pathOf("rows"), "rows may be omitted only when count is 0 (count is " + std::to_string(count) + ")");
    return;
  }
  const auto &array = asArray(*rows, o.pathOf("rows"));
  if (array.size() != count)
    failAt(o.pathOf("count"), std::to_string(count) + " but the section has " + std::to_string(array.size()) + " rows");
  for (size_t i = 0; i < array.size(); ++i)
    if (!array[i].isObject()) failAt(o.pathOf("rows") + "[" + std::to_string(i) + "]", "every row must be an object");
}

std::string stringAt(const Json &doc, std::string_view key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Json fieldValue(const Json &row, std::string_view pointer) {
  Json::json_pointer p{std::string(pointer)};
  if (!row.contains(p)) return nullptr;
  const Json &v = row.at(p);
  return v.is_number() ? v : Json(nullptr);
}

Json entryResources(const Json &row) {
  Json out{{"function", row.at("function")}};
  for (const ReportField &f : kFields) out[std::string(f.name)] = fieldValue(row, f.pointer);
  return out;
}

Json delta(const Json &before, const Json &after) {
  if (!before.is_number() || !after.is_number()) return nullptr;
  if (before.is_number_integer() && after.is_number_integer()) return after.get<int64_t>() - before.get<int64_t>();
  return after.get<double>() - before.get<double>();
}

const Json::array_t kNoRows;

}  // namespace

std::span<const ReportField> reportFields() { return kFields; }

std::string CompileReport::backend() const { return stringAt(document, "backend"); }
std::string CompileReport::targetKey() const { return stringAt(document, "target_key"); }
std::string CompileReport::mode() const { return stringAt(document, "mode"); }

const Json::array_t &CompileReport::entryRows() const {
  auto entries = document.find("entries");
  if (entries == document.end()) return kNoRows;
  auto rows = entries->find("rows");
  return rows == entries->end() ? kNoRows : rows->get_ref<const Json::array_t &>();
}

std::optional<Json::array_t> CompileReport::waitReasonRows() const {
  auto section = document.find("wait_reason_summary_rows");
  if (section == document.end()) return std::nullopt;
  auto rows = section->find("rows");
  return rows == section->end() ? Json::array_t{} : rows->get<Json::array_t>();
}

StatusOr<CompileReport> readCompileReport(std::string_view json) {
  return guarded("compile report: ", [&]() -> StatusOr<CompileReport> {
    JsonDocument document = parseJson(json, "the report");
    JsonObject top(document.root(), "");
    CompileReport report;
    report.compiler = top.string("compiler");
    report.target = top.string("target");
    report.processorMode = top.string("processor_mode");
    JsonValue d = top.required("document");
    top.finish();
    if (report.compiler.empty() || !validTargetKey(report.target))
      return Status(StatusCode::InvalidArgument, std::string(kUnsupported) + " (compiler \"" + report.compiler + "\", target \"" + report.target + "\")");
    if (report.processorMode != "Default" && report.processorMode != "ComputeUnit" && report.processorMode != "WorkgroupProcessor")
      failAt("processor_mode", "expected Default, ComputeUnit or WorkgroupProcessor, found \"" + report.processorMode + "\"");
    if (!d.isObject()) failAt("document", "expected an object");
    auto isString = [](std::optional<JsonValue> v, std::string_view text) { return v && v->isString() && v->string() == text; };
    auto kind = d.find("kind");
    auto schema = d.find("schema_version");
    if (!isString(kind, "loom.compile_report") || !schema || !schema->isUnsigned() || schema->unsignedValue() != 0)
      return Status(StatusCode::InvalidArgument, std::string(kUnsupported) + " (document kind/schema_version must be \"loom.compile_report\"/0)");
    if (auto mode = d.find("mode"); mode && !isString(mode, "summary") && !isString(mode, "details"))
      failAt("document.mode", "expected \"summary\" or \"details\"");
    if (auto entries = d.find("entries")) {
      checkSection(*entries, "document.entries");
      if (auto rows = entries->find("rows"))
        for (size_t i = 0; i < rows->size(); ++i) {
          auto f = (*rows)[i].find("function");
          if (!f || !f->isString() || f->string().empty())
            failAt("document.entries.rows[" + std::to_string(i) + "].function", "every entry row needs a function name");
        }
    }
    if (auto waits = d.find("wait_reason_summary_rows")) checkSection(*waits, "document.wait_reason_summary_rows");
    // The report keeps the document as a DOM for its comparisons; it is valid JSON by now.
    report.document = ReportJson::parse(d.source());
    return report;
  });
}

std::string writeCompileReport(const CompileReport &report) {
  Json j{{"compiler", report.compiler}, {"target", report.target}, {"processor_mode", report.processorMode}, {"document", report.document}};
  return j.dump(2) + "\n";
}

ReportJson showReport(const CompileReport &report) {
  Json entries = Json::array();
  for (const Json &row : report.entryRows()) entries.push_back(entryResources(row));
  Json waits = nullptr;
  if (auto rows = report.waitReasonRows()) waits = *rows;
  return {{"compiler", report.compiler}, {"target", report.target}, {"processor_mode", report.processorMode},
          {"entries", std::move(entries)}, {"wait_reasons", std::move(waits)}};
}

std::string formatReport(const CompileReport &report) {
  std::ostringstream out;
  out << "compiler:       " << report.compiler << "\n"
      << "target:         " << report.target << "\n"
      << "processor mode: " << report.processorMode << "\n"
      << "backend:        " << (report.backend().empty() ? "unknown" : report.backend()) << "\n"
      << "mode:           " << (report.mode().empty() ? "unknown" : report.mode()) << "\n"
      << "entries:        " << report.entryRows().size() << "\n";
  for (const Json &row : report.entryRows()) {
    out << "\n  " << row.at("function").get<std::string>() << "\n";
    Json resources = entryResources(row);
    for (const ReportField &f : kFields) {
      const Json &v = resources[std::string(f.name)];
      if (!v.is_null()) out << "    " << f.name << ": " << v.dump() << "\n";
    }
  }
  auto waits = report.waitReasonRows();
  out << "\nwait reasons:   " << (waits ? std::to_string(waits->size()) : std::string("not collected")) << "\n";
  return out.str();
}

StatusOr<ReportJson> diffReports(const CompileReport &before, const CompileReport &after) {
  // Each identity field that differs (or is unknown), named with both values.
  struct IdentityField {
    const char *name;
    std::string before, after;
    bool mustBeKnown;  // the document fields: an empty value is incomparable even when equal
  };
  const IdentityField identity[] = {
      {"compiler digest (compiler)", before.compiler, after.compiler, false},
      {"target", before.target, after.target, false},
      {"backend (document.backend)", before.backend(), after.backend(), true},
      {"target key (document.target_key)", before.targetKey(), after.targetKey(), true},
      {"processor policy (processor_mode)", before.processorMode, after.processorMode, false},
      {"detail mode (document.mode)", before.mode(), after.mode(), true},
  };
  std::string differences;
  for (const IdentityField &f : identity) {
    if (f.before == f.after && !(f.mustBeKnown && f.before.empty())) continue;
    auto shown = [](const std::string &v) { return v.empty() ? std::string("(missing)") : "'" + v + "'"; };
    differences += (differences.empty() ? "" : "; ") + std::string(f.name) + ": before " + shown(f.before) + ", after " +
                   shown(f.after);
  }
  if (!differences.empty())
    return Status(StatusCode::InvalidArgument,
                  "reports must use the same compiler, target, backend, processor policy, and detail mode; " + differences);
  auto index = [](const CompileReport &r, const char *which) -> StatusOr<std::map<std::string, Json>> {
    std::map<std::string, Json> rows;
    for (const Json &row : r.entryRows()) {
      std::string name = row.at("function").get<std::string>();
      if (!rows.emplace(name, entryResources(row)).second)
        return Status(StatusCode::InvalidArgument, std::string(which) + " report has two rows for function '" + name + "'");
    }
    return rows;
  };
  auto b = index(before, "before");
  if (!b.isOk()) return b.status();
  auto a = index(after, "after");
  if (!a.isOk()) return a.status();
  std::map<std::string, std::pair<Json, Json>> paired;
  for (auto &[name, row] : b.value()) paired[name].first = row;
  for (auto &[name, row] : a.value()) paired[name].second = row;
  Json changes = Json::array();
  for (auto &[name, sides] : paired) {
    Json deltas = Json::object();
    for (const ReportField &f : kFields) {
      std::string field(f.name);
      deltas[field] = sides.first.is_null() || sides.second.is_null() ? Json(nullptr) : delta(sides.first[field], sides.second[field]);
    }
    changes.push_back({{"function", name}, {"before", sides.first}, {"after", sides.second}, {"delta", std::move(deltas)}});
  }
  Json waitChanges = nullptr;
  auto wb = before.waitReasonRows(), wa = after.waitReasonRows();
  if (wb && wa) {
    using Key = std::tuple<std::string, std::string, std::string>;
    auto key = [](const Json &row) -> std::optional<Key> {
      for (const char *k : {"function", "counter", "reason"})
        if (!row.contains(k) || !row[k].is_string()) return std::nullopt;
      return Key{row["function"], row["counter"], row["reason"]};
    };
    std::map<Key, std::pair<Json, Json>> waits;
    for (auto [rows, first, which] : {std::tuple{&*wb, true, "before"}, std::tuple{&*wa, false, "after"}})
      for (const Json &row : *rows) {
        auto k = key(row);
        if (!k) return Status(StatusCode::InvalidArgument, std::string(which) + " report has a wait-reason row without function, counter and reason");
        Json &slot = first ? waits[*k].first : waits[*k].second;
        if (!slot.is_null())
          return Status(StatusCode::InvalidArgument, std::string(which) + " report has two wait-reason rows for (" + std::get<0>(*k) + ", " +
                                                         std::get<1>(*k) + ", " + std::get<2>(*k) + ")");
        slot = row.contains("summary") ? row["summary"] : Json::object();
      }
    waitChanges = Json::array();
    for (auto &[k, sides] : waits) {
      Json deltas = Json::object();
      for (std::string_view f : kWaitFields) {
        std::string field(f);
        deltas[field] = sides.first.is_null() || sides.second.is_null() ? Json(nullptr)
                                                                          : delta(sides.first.value(field, Json()), sides.second.value(field, Json()));
      }
      waitChanges.push_back({{"function", std::get<0>(k)}, {"counter", std::get<1>(k)}, {"reason", std::get<2>(k)},
                             {"before", sides.first}, {"after", sides.second}, {"delta", std::move(deltas)}});
    }
  }
  return Json{{"compiler", before.compiler}, {"changes", std::move(changes)}, {"wait_reason_changes", std::move(waitChanges)}};
}

}  // namespace hrx::format
