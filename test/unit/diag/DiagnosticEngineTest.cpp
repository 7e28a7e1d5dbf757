#include "hrx/diag/Diagnostic.h"
#include "hrx/diag/TextDiagnosticPrinter.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

using namespace hrx::diag;

namespace {
struct Collect : DiagnosticConsumer {
  std::vector<Diagnostic> seen;
  void handle(const Diagnostic &d, const SourceManager &) override { seen.push_back(d); }
};
}  // namespace

TEST(DiagnosticRegistry, CodesAreUniqueAndWellFormed) {
  std::set<std::string_view> codes;
  for (const DiagInfo *d : allDiagnostics()) {
    EXPECT_TRUE(codes.insert(d->code).second) << "duplicate code " << d->code;
    EXPECT_NE(d->code.find('/'), std::string_view::npos) << d->code;
    EXPECT_FALSE(d->doc.empty()) << d->code << " has no documentation";
  }
  ASSERT_NE(findByCode("PARSE/001"), nullptr);
  EXPECT_EQ(findByCode("PARSE/001")->id, DiagId::ParseUndefinedValue);
}

TEST(DiagnosticEngine, FormatsParametersAndRendersCaret) {
  SourceManager sm;
  uint32_t f = sm.addBuffer("t.loom", "%r = test.addi %x, %y : i32\n");
  DiagnosticEngine engine(sm);
  std::ostringstream os;
  TextDiagnosticPrinter printer(os);
  engine.addConsumer(&printer);
  engine.report(DiagId::ParseUndefinedValue, SourceRange({f, 19}, {f, 21})).arg("name", "%y");
  EXPECT_EQ(engine.errorCount(), 1u);
  EXPECT_EQ(os.str(),
            "t.loom:1:20: error: undefined SSA value '%y' [PARSE/001]\n"
            "%r = test.addi %x, %y : i32\n"
            "                   ^~\n");
}

TEST(DiagnosticEngine, ErrorLimitStops) {
  SourceManager sm;
  uint32_t f = sm.addBuffer("t.loom", "x\n");
  DiagnosticEngine engine(sm);
  DiagnosticOptions options;
  options.errorLimit = 2;
  engine.setOptions(options);
  Collect c;
  engine.addConsumer(&c);
  for (int i = 0; i < 5; ++i) engine.report(DiagId::ParseUnknownOp, SourceLocation{f, 0}).arg("name", "x");
  EXPECT_TRUE(engine.stopped());
  ASSERT_EQ(c.seen.size(), 3u);
  EXPECT_EQ(c.seen.back().severity, Severity::Fatal);
}

TEST(DiagnosticEngine, WarningFlagsMapSeverity) {
  SourceManager sm;
  DiagnosticEngine engine(sm);
  Collect c;
  engine.addConsumer(&c);
  DiagnosticOptions options;
  options.disabledGroups = {"unused-variable"};
  engine.setOptions(options);
  engine.reportExternal(Severity::Warning, {}, "unused variable 'x'", "-Wunused-variable");
  EXPECT_TRUE(c.seen.empty());
  options = {};
  options.warningsAsErrors = true;
  engine.setOptions(options);
  engine.reportExternal(Severity::Warning, {}, "unused variable 'x'", "-Wunused-variable");
  ASSERT_EQ(c.seen.size(), 1u);
  EXPECT_EQ(c.seen[0].severity, Severity::Error);
}
