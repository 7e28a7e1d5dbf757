#include "hrx/diag/Renderers.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

using namespace hrx::diag;
using nlohmann::json;

namespace {

// Reports a representative set of diagnostics into `consumer` and returns its parsed output.
json renderAll(std::unique_ptr<DiagnosticConsumer> (*make)(std::ostream &), std::ostringstream &os) {
  SourceManager sm;
  uint32_t f = sm.addBuffer("dir/t.loom", "%a = x\n  %\xc3\xa9 = test.op %b\n");
  uint32_t abs = sm.addBuffer("/abs path/h.loom", "y\n");
  DiagnosticEngine engine(sm);
  std::unique_ptr<DiagnosticConsumer> consumer = make(os);
  engine.addConsumer(consumer.get());
  engine.report(DiagId::ParseUndefinedValue, SourceRange({f, 20}, {f, 22}))
      .arg("name", "%b")
      .note(SourceRange({f, 0}, {f, 2}), "similar name here")
      .fixit(SourceRange({f, 20}, {f, 22}), "%a");
  engine.reportExternal(Severity::Warning, SourceLocation{f, 9}, "clang says so", "-Wunused-variable");
  engine.report(DiagId::DiagUnknownWarningOption, {}).arg("flag", "-Wfoo").arg("suggestion", "");
  engine.reportExternal(Severity::Error, SourceLocation{abs, 0}, "bad \xff byte");
  engine.finish();
  return json::parse(os.str());
}

std::unique_ptr<DiagnosticConsumer> makeJson(std::ostream &os) { return createJsonPrinter(os); }
std::unique_ptr<DiagnosticConsumer> makeSarif(std::ostream &os) { return createSarifPrinter(os, "1.2.3"); }

}  // namespace

TEST(JsonPrinter, OneArrayWithEveryField) {
  std::ostringstream os;
  json doc = renderAll(makeJson, os);
  ASSERT_TRUE(doc.is_array());
  ASSERT_EQ(doc.size(), 4u);
  const json &d = doc[0];
  std::vector<std::string> keys;
  nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(os.str())[0];
  for (auto it = ordered.begin(); it != ordered.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"code", "severity", "message", "flag", "file", "line", "column", "end_line",
                                            "end_column", "params", "notes", "fixits"}));
  EXPECT_EQ(d["code"], "PARSE/001");
  EXPECT_EQ(d["severity"], "error");
  EXPECT_EQ(d["message"], "undefined SSA value '%b'");
  EXPECT_EQ(d["flag"], "");
  EXPECT_EQ(d["file"], "dir/t.loom");
  EXPECT_EQ(d["line"], 2);
  EXPECT_EQ(d["column"], 14);  // bytes: "é" counts two
  EXPECT_EQ(d["end_line"], 2);
  EXPECT_EQ(d["end_column"], 16);
  EXPECT_EQ(d["params"], json({{"name", "%b"}}));
  ASSERT_EQ(d["notes"].size(), 1u);
  EXPECT_EQ(d["notes"][0]["message"], "similar name here");
  EXPECT_EQ(d["notes"][0]["line"], 1);
  EXPECT_EQ(d["notes"][0]["end_column"], 3);
  ASSERT_EQ(d["fixits"].size(), 1u);
  EXPECT_EQ(d["fixits"][0]["replacement"], "%a");
  EXPECT_EQ(d["fixits"][0]["column"], 14);

  EXPECT_EQ(doc[1]["severity"], "warning");
  EXPECT_EQ(doc[1]["flag"], "-Wunused-variable");
  EXPECT_EQ(doc[1]["code"], "");
  EXPECT_EQ(doc[1]["end_column"], doc[1]["column"]);  // a point

  EXPECT_EQ(doc[2]["code"], "DIAG/002");
  EXPECT_TRUE(doc[2]["file"].is_null());
  EXPECT_TRUE(doc[2]["line"].is_null());
  // Bytes that are not UTF-8 are replaced, never a crash or invalid JSON.
  EXPECT_EQ(doc[3]["message"], "bad \xef\xbf\xbd byte");
}

TEST(JsonPrinter, EmptyRunIsAnEmptyArray) {
  SourceManager sm;
  DiagnosticEngine engine(sm);
  std::ostringstream os;
  auto printer = createJsonPrinter(os);
  engine.addConsumer(printer.get());
  engine.finish();
  EXPECT_EQ(json::parse(os.str()), json::array());
}

TEST(SarifPrinter, LogHasVersionToolRulesAndResults) {
  std::ostringstream os;
  json log = renderAll(makeSarif, os);
  EXPECT_EQ(log["version"], "2.1.0");
  EXPECT_NE(log["$schema"].get<std::string>().find("sarif-schema-2.1.0.json"), std::string::npos);
  ASSERT_EQ(log["runs"].size(), 1u);
  const json &run = log["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "hrxcc");
  EXPECT_EQ(run["tool"]["driver"]["version"], "1.2.3");
  EXPECT_EQ(run["columnKind"], "unicodeCodePoints");
  EXPECT_EQ(run["invocations"][0]["executionSuccessful"], false);

  const json &rules = run["tool"]["driver"]["rules"];
  ASSERT_EQ(rules.size(), 3u);  // PARSE/001, -Wunused-variable, DIAG/002: one per code used
  EXPECT_EQ(rules[0]["id"], "PARSE/001");
  EXPECT_EQ(rules[0]["name"], "ParseUndefinedValue");
  EXPECT_EQ(rules[0]["shortDescription"]["text"], "undefined SSA value '{name}'");
  EXPECT_EQ(rules[0]["fullDescription"]["text"], std::string(info(DiagId::ParseUndefinedValue).doc));
  EXPECT_FALSE(rules[0].contains("helpUri"));
  EXPECT_EQ(rules[1]["id"], "-Wunused-variable");
  EXPECT_EQ(rules[2]["properties"]["group"], "unknown-warning-option");

  const json &results = run["results"];
  ASSERT_EQ(results.size(), 4u);
  const json &r = results[0];
  EXPECT_EQ(r["ruleId"], "PARSE/001");
  EXPECT_EQ(r["ruleIndex"], 0);
  EXPECT_EQ(r["level"], "error");
  EXPECT_EQ(r["message"]["text"], "undefined SSA value '%b'");
  const json &loc = r["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"]["uri"], "dir/t.loom");
  // SARIF columns count code points: "é" is one.
  EXPECT_EQ(loc["region"], json({{"startLine", 2}, {"startColumn", 13}, {"endLine", 2}, {"endColumn", 15}}));
  ASSERT_EQ(r["relatedLocations"].size(), 1u);
  EXPECT_EQ(r["relatedLocations"][0]["message"]["text"], "similar name here");
  EXPECT_EQ(r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 1);
  const json &replacement = r["fixes"][0]["artifactChanges"][0]["replacements"][0];
  EXPECT_EQ(replacement["insertedContent"]["text"], "%a");
  EXPECT_EQ(replacement["deletedRegion"]["startColumn"], 13);
  EXPECT_EQ(r["properties"]["parameters"]["name"], "%b");

  EXPECT_EQ(results[1]["level"], "warning");
  EXPECT_EQ(results[1]["ruleIndex"], 1);
  // A point location covers one character.
  EXPECT_EQ(results[1]["locations"][0]["physicalLocation"]["region"]["startColumn"], 3);
  EXPECT_EQ(results[1]["locations"][0]["physicalLocation"]["region"]["endColumn"], 4);
  EXPECT_TRUE(results[2]["locations"].empty());
  EXPECT_FALSE(results[3].contains("ruleId"));
  EXPECT_EQ(results[3]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "file:///abs%20path/h.loom");
}

TEST(SarifPrinter, RemarksAndNotesAreNoteLevel) {
  SourceManager sm;
  DiagnosticEngine engine(sm);
  DiagnosticOptions options;
  options.enableAllRemarks = true;
  engine.setOptions(options);
  std::ostringstream os;
  auto printer = createSarifPrinter(os, "0");
  engine.addConsumer(printer.get());
  engine.reportExternal(Severity::Remark, {}, "r", "-Rpass");
  engine.finish();
  json log = json::parse(os.str());
  EXPECT_EQ(log["runs"][0]["results"][0]["level"], "note");
  EXPECT_EQ(log["runs"][0]["invocations"][0]["executionSuccessful"], true);
}

TEST(Explain, KnownCodeListsEverything) {
  std::optional<std::string> text = explain("parse/001");
  ASSERT_TRUE(text);
  EXPECT_EQ(text->substr(0, text->find('\n')), "PARSE/001: undefined SSA value '{name}'");
  EXPECT_NE(text->find("  severity:   error\n"), std::string::npos);
  EXPECT_NE(text->find("  group:      (none)\n"), std::string::npos);
  EXPECT_NE(text->find("  parameters: name\n"), std::string::npos);
  EXPECT_NE(text->find(std::string(info(DiagId::ParseUndefinedValue).doc)), std::string::npos);

  text = explain("DIAG/002");
  ASSERT_TRUE(text);
  EXPECT_NE(text->find("  severity:   warning\n"), std::string::npos);
  EXPECT_NE(text->find("  group:      -Wunknown-warning-option (disable with -Wno-unknown-warning-option"),
            std::string::npos);
  EXPECT_NE(text->find("  parameters: flag, suggestion\n"), std::string::npos);
}

TEST(Explain, UnknownCodeIsNullopt) {
  EXPECT_FALSE(explain("PARSE/999"));
  EXPECT_FALSE(explain(""));
  EXPECT_FALSE(explain("nonsense"));
}
