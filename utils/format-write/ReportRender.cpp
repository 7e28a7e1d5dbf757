#include "hrx/format/ReportRender.h"

#include <map>
#include <sstream>

namespace hrx::format {

namespace {
using Json = ReportJson;

constexpr std::string_view kWaitFields[] = {
    "action_count",      "explicit_action_count",  "planned_action_count",
    "full_drain_count",  "partial_wait_count",     "drained_count",
    "max_drained_count", "max_outstanding_before", "max_full_drain_outstanding_before"};

Json fieldValue(const Json &row, std::string_view pointer) {
  Json::json_pointer p{std::string(pointer)};
  if (!row.contains(p)) return nullptr;
  const Json &v = row.at(p);
  return v.is_number() ? v : Json(nullptr);
}

Json entryResources(const Json &row, std::span<const ReportField> fields) {
  Json out{{"function", row.at("function")}};
  for (const ReportField &f : fields) out[std::string(f.name)] = fieldValue(row, f.pointer);
  return out;
}

Json delta(const Json &before, const Json &after) {
  if (!before.is_number() || !after.is_number()) return nullptr;
  if (before.is_number_integer() && after.is_number_integer()) return after.get<int64_t>() - before.get<int64_t>();
  return after.get<double>() - before.get<double>();
}

}  // namespace

std::string writeCompileReport(const CompileReport &report) {
  Json j{{"compiler", report.compiler},
         {"target", report.target},
         {"processor_mode", report.processorMode},
         {"document", report.document}};
  return j.dump(2) + "\n";
}

ReportJson showReport(const CompileReport &report, std::span<const ReportField> fields) {
  Json entries = Json::array();
  for (const Json &row : report.entryRows()) entries.push_back(entryResources(row, fields));
  Json waits = nullptr;
  if (auto rows = report.waitReasonRows()) waits = *rows;
  return {{"compiler", report.compiler},
          {"target", report.target},
          {"processor_mode", report.processorMode},
          {"entries", std::move(entries)},
          {"wait_reasons", std::move(waits)}};
}

std::string formatReport(const CompileReport &report, std::span<const ReportField> fields) {
  std::ostringstream out;
  out << "compiler:       " << report.compiler << "\n"
      << "target:         " << report.target << "\n"
      << "processor mode: " << report.processorMode << "\n"
      << "backend:        " << (report.backend().empty() ? "unknown" : report.backend()) << "\n"
      << "mode:           " << (report.mode().empty() ? "unknown" : report.mode()) << "\n"
      << "entries:        " << report.entryRows().size() << "\n";
  for (const Json &row : report.entryRows()) {
    out << "\n  " << row.at("function").get<std::string>() << "\n";
    Json resources = entryResources(row, fields);
    for (const ReportField &f : fields) {
      const Json &v = resources[std::string(f.name)];
      if (!v.is_null()) out << "    " << f.name << ": " << v.dump() << "\n";
    }
  }
  auto waits = report.waitReasonRows();
  out << "\nwait reasons:   " << (waits ? std::to_string(waits->size()) : std::string("not collected")) << "\n";
  return out.str();
}

StatusOr<ReportJson> diffReports(const CompileReport &before, const CompileReport &after,
                                 std::span<const ReportField> fields) {
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
    differences += (differences.empty() ? "" : "; ") + std::string(f.name) + ": before " + shown(f.before) +
                   ", after " + shown(f.after);
  }
  if (!differences.empty())
    return Status(StatusCode::InvalidArgument,
                  "reports must use the same compiler, target, backend, processor policy, and detail mode; " +
                      differences);
  auto index = [fields](const CompileReport &r, const char *which) -> StatusOr<std::map<std::string, Json>> {
    std::map<std::string, Json> rows;
    for (const Json &row : r.entryRows()) {
      std::string name = row.at("function").get<std::string>();
      if (!rows.emplace(name, entryResources(row, fields)).second)
        return Status(StatusCode::InvalidArgument,
                      std::string(which) + " report has two rows for function '" + name + "'");
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
    for (const ReportField &f : fields) {
      std::string field(f.name);
      deltas[field] = sides.first.is_null() || sides.second.is_null() ? Json(nullptr)
                                                                      : delta(sides.first[field], sides.second[field]);
    }
    changes.push_back(
        {{"function", name}, {"before", sides.first}, {"after", sides.second}, {"delta", std::move(deltas)}});
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
        if (!k)
          return Status(StatusCode::InvalidArgument,
                        std::string(which) + " report has a wait-reason row without function, counter and reason");
        Json &slot = first ? waits[*k].first : waits[*k].second;
        if (!slot.is_null())
          return Status(StatusCode::InvalidArgument, std::string(which) + " report has two wait-reason rows for (" +
                                                         std::get<0>(*k) + ", " + std::get<1>(*k) + ", " +
                                                         std::get<2>(*k) + ")");
        slot = row.contains("summary") ? row["summary"] : Json::object();
      }
    waitChanges = Json::array();
    for (auto &[k, sides] : waits) {
      Json deltas = Json::object();
      for (std::string_view f : kWaitFields) {
        std::string field(f);
        deltas[field] = sides.first.is_null() || sides.second.is_null()
                            ? Json(nullptr)
                            : delta(sides.first.value(field, Json()), sides.second.value(field, Json()));
      }
      waitChanges.push_back({{"function", std::get<0>(k)},
                             {"counter", std::get<1>(k)},
                             {"reason", std::get<2>(k)},
                             {"before", sides.first},
                             {"after", sides.second},
                             {"delta", std::move(deltas)}});
    }
  }
  return Json{
      {"compiler", before.compiler}, {"changes", std::move(changes)}, {"wait_reason_changes", std::move(waitChanges)}};
}

}  // namespace hrx::format
