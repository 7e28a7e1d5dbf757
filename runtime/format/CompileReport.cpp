#include "hrx/format/CompileReport.h"

#include "JsonFields.h"

#include <map>
#include <regex>

namespace hrx::format {
using namespace detail;

namespace {

const char *kUnsupported = "compile report schema or compiler identity is unsupported; regenerate the report";

bool validTargetKey(const std::string &key) {
  static const std::regex gfx(
      "gfx[0-9a-f]{3,4}|gfx11-generic|amd\\.xdna\\.[a-z0-9_]+\\.[0-9a-f]{4}_[0-9a-f]{2}|x86_64");
  return std::regex_match(key, gfx);
}

// A {count, rows} section: rows may be omitted only when count is 0.
void checkSection(JsonValue section, const std::string &path) {
  JsonObject o(section, path);
  uint64_t count = o.u64("count");
  auto rows = o.optional("rows");
  if (!rows) {
    if (count != 0)
      failAt(o.pathOf("rows"), "rows may be omitted only when count is 0 (count is " + std::to_string(count) + ")");
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

const Json::array_t kNoRows;

}  // namespace

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
      return Status(StatusCode::InvalidArgument, std::string(kUnsupported) + " (compiler \"" + report.compiler +
                                                     "\", target \"" + report.target + "\")");
    if (report.processorMode != "Default" && report.processorMode != "ComputeUnit" &&
        report.processorMode != "WorkgroupProcessor")
      failAt("processor_mode",
             "expected Default, ComputeUnit or WorkgroupProcessor, found \"" + report.processorMode + "\"");
    if (!d.isObject()) failAt("document", "expected an object");
    auto isString = [](std::optional<JsonValue> v, std::string_view text) {
      return v && v->isString() && v->string() == text;
    };
    auto kind = d.find("kind");
    auto schema = d.find("schema_version");
    if (!isString(kind, "loom.compile_report") || !schema || !schema->isUnsigned() || schema->unsignedValue() != 0)
      return Status(StatusCode::InvalidArgument,
                    std::string(kUnsupported) + " (document kind/schema_version must be \"loom.compile_report\"/0)");
    if (auto mode = d.find("mode"); mode && !isString(mode, "summary") && !isString(mode, "details"))
      failAt("document.mode", "expected \"summary\" or \"details\"");
    if (auto entries = d.find("entries")) {
      checkSection(*entries, "document.entries");
      if (auto rows = entries->find("rows"))
        for (size_t i = 0; i < rows->size(); ++i) {
          auto f = (*rows)[i].find("function");
          if (!f || !f->isString() || f->string().empty())
            failAt("document.entries.rows[" + std::to_string(i) + "].function",
                   "every entry row needs a function name");
        }
    }
    if (auto waits = d.find("wait_reason_summary_rows")) checkSection(*waits, "document.wait_reason_summary_rows");
    // The report keeps the document as a DOM for its comparisons; it is valid JSON by now.
    report.document = ReportJson::parse(d.source());
    return report;
  });
}

}  // namespace hrx::format
