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

DiagnosticOptions parseFlags(std::initializer_list<std::string_view> args) {
  DiagnosticOptions o;
  for (std::string_view a : args) EXPECT_TRUE(parseDiagnosticFlag(a, o)) << a;
  return o;
}

// Severity an external diagnostic declared `declared` with `flag` gets under `args`.
Severity mapped(std::initializer_list<std::string_view> args, Severity declared, std::string flag) {
  SourceManager sm;
  DiagnosticEngine engine(sm);
  engine.setOptions(parseFlags(args));
  Collect c;
  engine.addConsumer(&c);
  engine.reportExternal(declared, {}, "m", std::move(flag));
  return c.seen.empty() ? Severity::Ignored : c.seen[0].severity;
}
}  // namespace

TEST(DiagnosticRegistry, CodesAreUniqueAndWellFormed) {
  std::set<std::string_view> codes;
  for (const DiagInfo *d : allDiagnostics()) {
    EXPECT_TRUE(codes.insert(d->code).second) << "duplicate code " << d->code;
    size_t slash = d->code.find('/');
    ASSERT_NE(slash, std::string_view::npos) << d->code;
    EXPECT_TRUE(std::all_of(d->code.begin(), d->code.begin() + slash, [](char c) { return std::isupper(c); }))
        << d->code;
    EXPECT_EQ(d->code.size() - slash - 1, 3u) << d->code << " needs a three-digit number";
    EXPECT_FALSE(d->doc.empty()) << d->code << " has no documentation";
    EXPECT_FALSE(d->name.empty());
    EXPECT_EQ(&info(d->id), d);
    bool warningLike = d->severity == Severity::Warning || d->severity == Severity::Ignored;
    if (warningLike || d->severity == Severity::Remark)
      EXPECT_FALSE(d->group.empty()) << d->code << ": warnings and remarks need a -W/-R group";
  }
  ASSERT_NE(findByCode("PARSE/001"), nullptr);
  EXPECT_EQ(findByCode("PARSE/001")->id, DiagId::ParseUndefinedValue);
  EXPECT_EQ(findByCode("PARSE/999"), nullptr);
}

TEST(DiagnosticRegistry, TemplateParametersIgnoreLiteralBraces) {
  EXPECT_EQ(templateParameters("cannot find start ('{{') of expected {kind}"), std::vector<std::string_view>{"kind"});
  EXPECT_EQ(templateParameters("{a} {b} {a} {not a param} {}"), (std::vector<std::string_view>{"a", "b"}));
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
  EXPECT_EQ(os.str(), "t.loom:1:20: error: undefined SSA value '%y' [PARSE/001]\n"
                      "    1 | %r = test.addi %x, %y : i32\n"
                      "      |                    ^~\n");
}

TEST(DiagnosticEngine, LiteralBracesInTemplatesSurviveFormatting) {
  SourceManager sm;
  DiagnosticEngine engine(sm);
  Collect c;
  engine.addConsumer(&c);
  engine.report(DiagId::VerifyMissingEnd, {}).arg("kind", "string").arg("close", "}}}");
  ASSERT_EQ(c.seen.size(), 1u);
  EXPECT_EQ(c.seen[0].message, "cannot find end ('}}}') of expected string");
  EXPECT_EQ(c.seen[0].params.size(), 2u);
}

TEST(DiagnosticEngine, ErrorLimitEmitsExactlyOneFatal) {
  SourceManager sm;
  uint32_t f = sm.addBuffer("t.loom", "x\n");
  DiagnosticEngine engine(sm);
  DiagnosticOptions options;
  options.errorLimit = 2;
  engine.setOptions(options);
  std::ostringstream os;
  TextDiagnosticPrinter printer(os);
  Collect c;
  engine.addConsumer(&c);
  engine.addConsumer(&printer);
  for (int i = 0; i < 5; ++i)
    engine.report(DiagId::ParseUnknownOp, SourceLocation{f, 0}).arg("name", "x").note({}, "a note");
  engine.reportExternal(Severity::Warning, {}, "late warning", "-Wx");
  EXPECT_TRUE(engine.stopped());
  ASSERT_EQ(c.seen.size(), 3u);
  EXPECT_EQ(c.seen.back().severity, Severity::Fatal);
  EXPECT_EQ(c.seen.back().code, "DIAG/001");
  EXPECT_EQ(engine.errorCount(), 3u);  // clang counts the fatal error too
  std::string text = os.str();
  EXPECT_NE(text.find("fatal error: too many errors emitted, stopping now [DIAG/001, -ferror-limit=]\n"),
            std::string::npos);
  EXPECT_EQ(text.find("too many"), text.rfind("too many"));
  std::ostringstream summary;
  printDiagnosticSummary(summary, engine);
  EXPECT_EQ(summary.str(), "3 errors generated.\n");
}

TEST(DiagnosticEngine, ZeroErrorLimitIsUnlimited) {
  SourceManager sm;
  DiagnosticEngine engine(sm);
  DiagnosticOptions options;
  options.errorLimit = 0;
  engine.setOptions(options);
  for (int i = 0; i < 50; ++i) engine.reportExternal(Severity::Error, {}, "e");
  EXPECT_EQ(engine.errorCount(), 50u);
  EXPECT_FALSE(engine.stopped());
}

TEST(DiagnosticEngine, FatalErrorStopsEverything) {
  SourceManager sm;
  DiagnosticEngine engine(sm);
  Collect c;
  engine.addConsumer(&c);
  engine.reportExternal(Severity::Fatal, {}, "fatal");
  engine.reportExternal(Severity::Error, {}, "after");
  EXPECT_TRUE(engine.stopped());
  EXPECT_EQ(c.seen.size(), 1u);
}

TEST(DiagnosticEngine, CascadeScopeDropsFollowOns) {
  SourceManager sm;
  DiagnosticEngine engine(sm);
  Collect c;
  engine.addConsumer(&c);
  {
    DiagnosticEngine::CascadeScope statement(engine);
    engine.reportExternal(Severity::Warning, {}, "warning before the error", "-Wa");
    EXPECT_FALSE(statement.hadError());
    engine.report(DiagId::ParseUnknownOp, {}).arg("name", "first");
    EXPECT_TRUE(statement.hadError());
    engine.report(DiagId::ParseUndefinedValue, {}).arg("name", "%follow").note({}, "attached note");
    engine.reportExternal(Severity::Note, {}, "standalone note after a follow-on");
    engine.reportExternal(Severity::Warning, {}, "follow-on warning", "-Wa");
    {
      DiagnosticEngine::CascadeScope nested(engine);  // a fresh scope starts clean
      engine.reportExternal(Severity::Error, {}, "nested error");
    }
  }
  engine.reportExternal(Severity::Error, {}, "next statement");
  engine.reportExternal(Severity::Note, {}, "note after a shown error");
  std::vector<std::string> messages;
  for (const Diagnostic &d : c.seen) messages.push_back(d.message);
  EXPECT_EQ(messages, (std::vector<std::string>{"warning before the error", "unknown op 'first'", "nested error",
                                                "next statement", "note after a shown error"}));
  EXPECT_EQ(engine.suppressedCount(), 2u);
  EXPECT_EQ(engine.errorCount(), 3u);
  std::ostringstream summary;
  printDiagnosticSummary(summary, engine);
  EXPECT_EQ(summary.str(), "1 warning and 3 errors generated (2 follow-on diagnostics suppressed).\n");
}

TEST(DiagnosticEngine, NotesAfterAnIgnoredDiagnosticAreDropped) {
  SourceManager sm;
  DiagnosticEngine engine(sm);
  engine.setOptions(parseFlags({"-Wno-unused"}));
  Collect c;
  engine.addConsumer(&c);
  engine.reportExternal(Severity::Warning, {}, "unused", "-Wunused");
  engine.reportExternal(Severity::Note, {}, "declared here");
  EXPECT_TRUE(c.seen.empty());
}

TEST(DiagnosticEngine, IgnoredBuildersAreInert) {
  SourceManager sm;
  DiagnosticEngine engine(sm);
  engine.setOptions(parseFlags({"-Wno-unknown-warning-option"}));
  Collect c;
  engine.addConsumer(&c);
  engine.report(DiagId::DiagUnknownWarningOption, {}).arg("flag", "-Wx").arg("suggestion", "").note({}, "n");
  EXPECT_TRUE(c.seen.empty());
  EXPECT_EQ(engine.warningCount(), 0u);
}

TEST(DiagnosticFlags, ParseRecognizesDiagnosticFlagsOnly) {
  DiagnosticOptions o;
  for (std::string_view notOurs : {"-Wl,--gc-sections", "-Wa,-g", "-Wp,-DX", "-W", "-R", "-Rpass=inline", "-O2", "-w1"})
    EXPECT_FALSE(parseDiagnosticFlag(notOurs, o)) << notOurs;
  EXPECT_TRUE(parseDiagnosticFlag("-w", o));
  EXPECT_TRUE(o.ignoreAllWarnings);
  EXPECT_TRUE(o.groupFlags.empty());
}

TEST(DiagnosticFlags, LaterFlagsOverrideEarlierOnes) {
  DiagnosticOptions o = parseFlags({"-Wfoo", "-Wno-foo", "-Werror=bar", "-Wno-error=bar", "-Wno-baz", "-Wbaz"});
  EXPECT_EQ(o.disabledGroups, std::vector<std::string>{"foo"});
  EXPECT_TRUE(o.errorGroups.empty());
  EXPECT_EQ(o.noErrorGroups, std::vector<std::string>{"bar"});
  EXPECT_EQ(o.enabledGroups, std::vector<std::string>{"baz"});
  EXPECT_EQ(o.groupFlags.size(), 6u);
  o = parseFlags({"-Rfoo", "-Rbar", "-Rno-foo", "-Werror", "-Wno-error", "-Wfatal-errors"});
  EXPECT_EQ(o.enabledRemarks, std::vector<std::string>{"bar"});
  EXPECT_FALSE(o.warningsAsErrors);
  EXPECT_TRUE(o.fatalErrors);
}

TEST(DiagnosticFlags, WarningMapping) {
  EXPECT_EQ(mapped({}, Severity::Warning, "-Wx"), Severity::Warning);
  EXPECT_EQ(mapped({"-Wno-x"}, Severity::Warning, "-Wx"), Severity::Ignored);
  EXPECT_EQ(mapped({"-w"}, Severity::Warning, "-Wx"), Severity::Ignored);
  EXPECT_EQ(mapped({"-Werror"}, Severity::Warning, "-Wx"), Severity::Error);
  EXPECT_EQ(mapped({"-Werror"}, Severity::Warning, ""), Severity::Error);
  EXPECT_EQ(mapped({"-Werror", "-Wno-error=x"}, Severity::Warning, "-Wx"), Severity::Warning);
  EXPECT_EQ(mapped({"-Werror=x"}, Severity::Warning, "-Wx"), Severity::Error);
  EXPECT_EQ(mapped({"-Werror=y"}, Severity::Warning, "-Wx"), Severity::Warning);
  EXPECT_EQ(mapped({"-Werror=x", "-Wno-x"}, Severity::Warning, "-Wx"), Severity::Ignored);
  EXPECT_EQ(mapped({"-Werror", "-Wfatal-errors"}, Severity::Warning, "-Wx"), Severity::Fatal);
  EXPECT_EQ(mapped({"-Wfatal-errors"}, Severity::Error, ""), Severity::Fatal);
}

TEST(DiagnosticFlags, OffByDefaultWarningsNeedTheirGroup) {
  EXPECT_EQ(mapped({}, Severity::Ignored, "-Wpedantic-loom"), Severity::Ignored);
  EXPECT_EQ(mapped({"-Wpedantic-loom"}, Severity::Ignored, "-Wpedantic-loom"), Severity::Warning);
  EXPECT_EQ(mapped({"-Weverything"}, Severity::Ignored, "-Wpedantic-loom"), Severity::Warning);
  EXPECT_EQ(mapped({"-Werror=pedantic-loom"}, Severity::Ignored, "-Wpedantic-loom"), Severity::Error);
  EXPECT_EQ(mapped({"-Wpedantic-loom", "-Wno-pedantic-loom"}, Severity::Ignored, "-Wpedantic-loom"), Severity::Ignored);
  EXPECT_EQ(mapped({"-Weverything", "-w"}, Severity::Ignored, "-Wpedantic-loom"), Severity::Ignored);
}

TEST(DiagnosticFlags, ErrorsWithAGroupCanBeDowngraded) {
  EXPECT_EQ(mapped({}, Severity::Error, "-Wx"), Severity::Error);
  EXPECT_EQ(mapped({"-Wno-error=x"}, Severity::Error, "-Wx"), Severity::Warning);
  EXPECT_EQ(mapped({"-Wno-x"}, Severity::Error, "-Wx"), Severity::Ignored);
  EXPECT_EQ(mapped({"-Wno-error=x", "-w"}, Severity::Error, "-Wx"), Severity::Ignored);
  EXPECT_EQ(mapped({"-w"}, Severity::Error, ""), Severity::Error);
}

TEST(DiagnosticFlags, RemarksNeedTheirGroup) {
  EXPECT_EQ(mapped({}, Severity::Remark, "-Rplan"), Severity::Ignored);
  EXPECT_EQ(mapped({"-Rplan"}, Severity::Remark, "-Rplan"), Severity::Remark);
  EXPECT_EQ(mapped({"-Reverything"}, Severity::Remark, "-Rplan"), Severity::Remark);
  EXPECT_EQ(mapped({"-Rplan", "-Rno-plan"}, Severity::Remark, "-Rplan"), Severity::Ignored);
  EXPECT_EQ(mapped({"-Werror"}, Severity::Remark, ""), Severity::Remark);
}

TEST(DiagnosticFlags, UnknownGroupsAreReportedWithSuggestions) {
  SourceManager sm;
  DiagnosticEngine engine(sm);
  engine.setOptions(parseFlags({"-Wunknown-warning-optio", "-Wno-unknown-warning-option", "-Werror=unused-vraiable",
                                "-Wno-error=zzzzzz", "-Rfoo", "-Wunused-variable"}));
  Collect c;
  engine.addConsumer(&c);
  std::string_view clangGroups[] = {"unused-variable", "unused-value"};
  // -Wno-unknown-warning-option silences the warnings about unknown groups themselves.
  reportUnknownDiagnosticFlags(engine, clangGroups);
  EXPECT_TRUE(c.seen.empty());
  engine.setOptions(parseFlags({"-Wunknown-warning-optio", "-Werror=unused-vraiable", "-Wno-error=zzzzzz", "-Rfoo",
                                "-Wunused-variable", "-Rno-unknown-warning-optio"}));
  reportUnknownDiagnosticFlags(engine, clangGroups);
  std::vector<std::string> messages;
  for (const Diagnostic &d : c.seen) messages.push_back(d.message + " [" + d.code + "]");
  EXPECT_EQ(messages,
            (std::vector<std::string>{
                "unknown warning option '-Wunknown-warning-optio'; did you mean '-Wunknown-warning-option'? [DIAG/002]",
                "unknown warning option '-Werror=unused-vraiable'; did you mean '-Werror=unused-variable'? [DIAG/002]",
                "unknown warning option '-Wno-error=zzzzzz' [DIAG/002]", "unknown remark option '-Rfoo' [DIAG/003]",
                "unknown remark option '-Rno-unknown-warning-optio'; did you mean '-Rno-unknown-warning-option'? "
                "[DIAG/003]"}));
}
