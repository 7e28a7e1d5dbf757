#include "hrx/diag/Renderers.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

namespace hrx::diag {
namespace {

using Json = nlohmann::ordered_json;

void writeJson(std::ostream &os, const Json &doc) {
  // Messages may quote source bytes that are not UTF-8; replace them instead of failing.
  os << doc.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
  os.flush();
}

std::string_view jsonSeverity(Severity s) { return s == Severity::Fatal ? std::string_view("fatal") : severityName(s); }

// End of a half-open range, or its start when the range is a point or spans files.
SourceLocation rangeEnd(SourceRange r) {
  return r.end.file == r.begin.file && r.end.offset > r.begin.offset ? r.end : r.begin;
}

void addLocation(Json &obj, SourceRange range, const SourceManager &sm) {
  if (!range.isValid()) {
    for (const char *key : {"file", "line", "column", "end_line", "end_column"}) obj[key] = nullptr;
    return;
  }
  LineColumn b = sm.lineColumn(range.begin), e = sm.lineColumn(rangeEnd(range));
  obj["file"] = sm.name(range.begin.file);
  obj["line"] = b.line;
  obj["column"] = b.column;
  obj["end_line"] = e.line;
  obj["end_column"] = e.column;
}

class JsonPrinter final : public DiagnosticConsumer {
public:
  explicit JsonPrinter(std::ostream &os) : os_(os) {}

  void handle(const Diagnostic &d, const SourceManager &sm) override {
    Json obj = Json::object();
    obj["code"] = d.code;
    obj["severity"] = jsonSeverity(d.severity);
    obj["message"] = d.message;
    obj["flag"] = d.flag;
    addLocation(obj, d.range, sm);
    Json params = Json::object();
    for (const auto &[name, value] : d.params) params[name] = value;
    obj["params"] = std::move(params);
    Json notes = Json::array();
    for (const RelatedNote &n : d.notes) {
      Json note = {{"message", n.message}};
      addLocation(note, n.range, sm);
      notes.push_back(std::move(note));
    }
    obj["notes"] = std::move(notes);
    Json fixits = Json::array();
    for (const FixIt &f : d.fixits) {
      Json fix = Json::object();
      addLocation(fix, f.range, sm);
      fix["replacement"] = f.replacement;
      fixits.push_back(std::move(fix));
    }
    obj["fixits"] = std::move(fixits);
    diagnostics_.push_back(std::move(obj));
  }

  void finish(const SourceManager &) override { writeJson(os_, diagnostics_); }

private:
  std::ostream &os_;
  Json diagnostics_ = Json::array();
};

// SARIF wants URIs: absolute paths become file:// URIs, relative ones relative references.
std::string toUri(std::string_view path) {
  std::string out = path.starts_with('/') ? "file://" : "";
  for (char ch : path) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      out += ch;
    } else {
      char buffer[4];
      std::snprintf(buffer, sizeof buffer, "%%%02X", c);
      out += buffer;
    }
  }
  return out;
}

// SARIF column (Unicode code points, 1-based) of a location.
uint32_t codePointColumn(SourceLocation loc, const SourceManager &sm) {
  std::string_view line = sm.lineText(loc);
  uint32_t bytes = sm.lineColumn(loc).column - 1;
  uint32_t column = 1;
  for (uint32_t i = 0; i < bytes && i < line.size(); ++i)
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++column;
  return column + (bytes > line.size() ? bytes - static_cast<uint32_t>(line.size()) : 0);
}

// A SARIF region; `widenPoint` makes a point cover one character so that viewers highlight it.
Json sarifRegion(SourceRange range, const SourceManager &sm, bool widenPoint) {
  SourceLocation end = rangeEnd(range);
  uint32_t startColumn = codePointColumn(range.begin, sm);
  uint32_t endColumn = codePointColumn(end, sm);
  if (widenPoint && end == range.begin) ++endColumn;
  return {{"startLine", sm.lineColumn(range.begin).line},
          {"startColumn", startColumn},
          {"endLine", sm.lineColumn(end).line},
          {"endColumn", endColumn}};
}

Json sarifPhysicalLocation(SourceRange range, const SourceManager &sm) {
  return {{"artifactLocation", {{"uri", toUri(sm.name(range.begin.file))}}}, {"region", sarifRegion(range, sm, true)}};
}

std::string_view sarifLevel(Severity s) {
  switch (s) {
  case Severity::Warning: return "warning";
  case Severity::Error:
  case Severity::Fatal: return "error";
  default: return "note";
  }
}

class SarifPrinter final : public DiagnosticConsumer {
public:
  SarifPrinter(std::ostream &os, std::string version) : os_(os), version_(std::move(version)) {}

  void handle(const Diagnostic &d, const SourceManager &sm) override {
    Json result = Json::object();
    std::string ruleId = !d.code.empty() ? d.code : d.flag;
    if (!ruleId.empty()) {
      result["ruleId"] = ruleId;
      result["ruleIndex"] = ruleIndex(ruleId, d);
    }
    result["level"] = sarifLevel(d.severity);
    result["message"] = {{"text", d.message}};
    Json locations = Json::array();
    if (d.range.isValid()) locations.push_back({{"physicalLocation", sarifPhysicalLocation(d.range, sm)}});
    result["locations"] = std::move(locations);
    if (!d.notes.empty()) {
      Json related = Json::array();
      for (size_t i = 0; i < d.notes.size(); ++i) {
        Json loc = {{"id", i}, {"message", {{"text", d.notes[i].message}}}};
        if (d.notes[i].range.isValid()) loc["physicalLocation"] = sarifPhysicalLocation(d.notes[i].range, sm);
        related.push_back(std::move(loc));
      }
      result["relatedLocations"] = std::move(related);
    }
    Json fixes = Json::array();
    for (const FixIt &f : d.fixits) {
      if (!f.range.isValid()) continue;
      Json replacement = {{"deletedRegion", sarifRegion(f.range, sm, false)},
                          {"insertedContent", {{"text", f.replacement}}}};
      fixes.push_back(
          {{"artifactChanges", Json::array({{{"artifactLocation", {{"uri", toUri(sm.name(f.range.begin.file))}}},
                                             {"replacements", Json::array({replacement})}}})}});
    }
    if (!fixes.empty()) result["fixes"] = std::move(fixes);
    if (!d.params.empty()) {
      Json params = Json::object();
      for (const auto &[name, value] : d.params) params[name] = value;
      result["properties"] = {{"parameters", std::move(params)}};
    }
    if (d.severity >= Severity::Error) failed_ = true;
    results_.push_back(std::move(result));
  }

  void finish(const SourceManager &) override {
    Json driver = {{"name", "hrxcc"}, {"version", version_}, {"rules", rules_}};
    Json run = {{"tool", {{"driver", std::move(driver)}}},
                {"invocations", Json::array({{{"executionSuccessful", !failed_}}})},
                {"columnKind", "unicodeCodePoints"},
                {"results", results_}};
    Json log = {
        {"$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"},
        {"version", "2.1.0"},
        {"runs", Json::array({std::move(run)})}};
    writeJson(os_, log);
  }

private:
  // Index of the rule for `id` in rules_, adding it on first use.
  size_t ruleIndex(const std::string &id, const Diagnostic &d) {
    auto [it, inserted] = ruleIndices_.try_emplace(id, rules_.size());
    if (!inserted) return it->second;
    Json rule = {{"id", id}};
    if (d.id != DiagId::External) {
      const DiagInfo &i = info(d.id);
      rule["name"] = i.name;
      rule["shortDescription"] = {{"text", i.message}};
      rule["fullDescription"] = {{"text", i.doc}};
      Severity level = i.severity == Severity::Ignored ? Severity::Warning : i.severity;
      rule["defaultConfiguration"] = {{"enabled", i.severity != Severity::Ignored && i.severity != Severity::Remark},
                                      {"level", sarifLevel(level)}};
      if (!i.group.empty()) rule["properties"] = {{"group", i.group}};
    } else {
      rule["shortDescription"] = {{"text", "Clang diagnostic " + id}};
    }
    rules_.push_back(std::move(rule));
    return it->second;
  }

  std::ostream &os_;
  std::string version_;
  Json rules_ = Json::array();
  std::map<std::string, size_t> ruleIndices_;
  Json results_ = Json::array();
  bool failed_ = false;
};

}  // namespace

std::unique_ptr<DiagnosticConsumer> createJsonPrinter(std::ostream &os) { return std::make_unique<JsonPrinter>(os); }

std::unique_ptr<DiagnosticConsumer> createSarifPrinter(std::ostream &os, std::string toolVersion) {
  return std::make_unique<SarifPrinter>(os, std::move(toolVersion));
}

std::optional<std::string> explain(std::string_view code) {
  std::string upper(code);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  const DiagInfo *d = findByCode(upper);
  if (!d) return std::nullopt;
  std::string out = std::string(d->code) + ": " + std::string(d->message) + "\n";
  std::string severity(severityName(d->severity == Severity::Ignored ? Severity::Warning : d->severity));
  std::string group = "(none)";
  if (!d->group.empty()) {
    bool remark = d->severity == Severity::Remark;
    std::string flag = (remark ? "-R" : "-W") + std::string(d->group);
    if (remark)
      group = flag + " (remarks are off unless -R" + std::string(d->group) + " is given)";
    else if (d->severity == Severity::Ignored)
      group = flag + " (off by default; enable with " + flag + ")";
    else if (d->severity == Severity::Error)
      group = flag + " (downgrade with -Wno-error=" + std::string(d->group) + ")";
    else
      group = flag + " (disable with -Wno-" + std::string(d->group) +
              ", make it an error with -Werror=" + std::string(d->group) + ")";
  }
  std::string params;
  for (std::string_view p : templateParameters(d->message)) params += (params.empty() ? "" : ", ") + std::string(p);
  out += "  severity:   " + severity + "\n";
  out += "  group:      " + group + "\n";
  out += "  parameters: " + (params.empty() ? std::string("(none)") : params) + "\n";
  out += "  identifier: " + std::string(d->name) + "\n\n";
  out += std::string(d->doc) + "\n";
  return out;
}

}  // namespace hrx::diag
