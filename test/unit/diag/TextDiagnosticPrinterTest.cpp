#include "hrx/diag/TextDiagnosticPrinter.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace hrx::diag;

namespace {

// Renders what `emit` reports into a string with the given printer options.
template <typename Emit> std::string render(std::string_view source, Emit emit, TextDiagnosticOptions options = {}) {
  SourceManager sm;
  uint32_t f = sm.addBuffer("t.loom", std::string(source));
  DiagnosticEngine engine(sm);
  std::ostringstream os;
  TextDiagnosticPrinter printer(os, options);
  engine.addConsumer(&printer);
  emit(engine, f);
  return os.str();
}

SourceRange range(uint32_t f, uint32_t b, uint32_t e) { return {{f, b}, {f, e}}; }

}  // namespace

TEST(TextDiagnosticPrinter, CaretAndRangeWithLineNumbers) {
  std::string out = render("%r = test.addi %x, %y : i32\n", [](DiagnosticEngine &e, uint32_t f) {
    e.report(DiagId::ParseUndefinedValue, range(f, 19, 21)).arg("name", "%y");
  });
  EXPECT_EQ(out, "t.loom:1:20: error: undefined SSA value '%y' [PARSE/001]\n"
                 "    1 | %r = test.addi %x, %y : i32\n"
                 "      |                    ^~\n");
}

TEST(TextDiagnosticPrinter, PointLocationHasOnlyACaret) {
  std::string out = render(
      "abc\n", [](DiagnosticEngine &e, uint32_t f) { e.reportExternal(Severity::Error, SourceLocation{f, 1}, "bad"); });
  EXPECT_EQ(out, "t.loom:1:2: error: bad\n    1 | abc\n      |  ^\n");
}

TEST(TextDiagnosticPrinter, CaretAtEndOfLine) {
  std::string out = render("x = 1\ny\n", [](DiagnosticEngine &e, uint32_t f) {
    e.reportExternal(Severity::Error, SourceLocation{f, 5}, "expected ';'");
  });
  EXPECT_EQ(out, "t.loom:1:6: error: expected ';'\n    1 | x = 1\n      |      ^\n");
}

TEST(TextDiagnosticPrinter, MultiLineRangeUnderlinesEachLine) {
  std::string out = render("a = f(b,\n      c)\nz\n", [](DiagnosticEngine &e, uint32_t f) {
    e.reportExternal(Severity::Error, range(f, 4, 17), "call spans lines");
  });
  EXPECT_EQ(out, "t.loom:1:5: error: call spans lines\n"
                 "    1 | a = f(b,\n"
                 "      |     ^~~~\n"
                 "    2 |       c)\n"
                 "      |       ~~\n");
}

TEST(TextDiagnosticPrinter, TabsExpandButColumnsCountBytes) {
  std::string out = render("\tx\ty\n", [](DiagnosticEngine &e, uint32_t f) {
    e.reportExternal(Severity::Warning, range(f, 3, 4), "here", "-Wdemo");
  });
  EXPECT_EQ(out, "t.loom:1:4: warning: here [-Wdemo]\n"
                 "    1 |         x       y\n"
                 "      |                 ^\n");
}

TEST(TextDiagnosticPrinter, Utf8ColumnsAreBytesAndCaretFollowsCharacters) {
  // "é" is two bytes: the header says column 6, the caret sits under the fourth character.
  std::string out = render("%\xc3\xa9t = %x\n", [](DiagnosticEngine &e, uint32_t f) {
    e.reportExternal(Severity::Error, range(f, 5, 7), "here");
  });
  EXPECT_EQ(out, "t.loom:1:6: error: here\n"
                 "    1 | %\xc3\xa9t = %x\n"
                 "      |     ^~\n");
}

TEST(TextDiagnosticPrinter, UnprintableAndMalformedBytesAreSpelledOut) {
  std::string out = render(
      std::string("a\x01\xff"
                  "b\n"),
      [](DiagnosticEngine &e, uint32_t f) { e.reportExternal(Severity::Error, SourceLocation{f, 3}, "bad byte"); });
  EXPECT_EQ(out, "t.loom:1:4: error: bad byte\n"
                 "    1 | a<U+0001><FF>b\n"
                 "      |              ^\n");
}

TEST(TextDiagnosticPrinter, WideLineNumbersWidenTheGutter) {
  std::string source;
  for (int i = 0; i < 12345; ++i) source += "x\n";
  std::string out = render(source, [](DiagnosticEngine &e, uint32_t f) {
    e.reportExternal(Severity::Error, SourceLocation{f, 2 * 12344}, "late");
  });
  EXPECT_EQ(out, "t.loom:12345:1: error: late\n 12345 | x\n       | ^\n");
}

TEST(TextDiagnosticPrinter, VeryLongLinesGetNoSnippet) {
  std::string source = "x\n" + std::string(5000, 'a') + "\n";
  std::string out = render(source, [](DiagnosticEngine &e, uint32_t f) {
    e.reportExternal(Severity::Error, SourceRange({f, 0}, {f, 100}), "spans into a long line");
    e.reportExternal(Severity::Error, SourceLocation{f, 4000}, "inside a long line");
  });
  EXPECT_EQ(out, "t.loom:1:1: error: spans into a long line\n"
                 "    1 | x\n"
                 "      | ^\n"
                 "t.loom:2:3999: error: inside a long line\n");
}

TEST(TextDiagnosticPrinter, NotesHaveTheirOwnLocationAndSnippet) {
  std::string out = render("%a = x\n%a = y\n", [](DiagnosticEngine &e, uint32_t f) {
    e.report(DiagId::ParseUndefinedValue, range(f, 7, 9)).arg("name", "%a").note(range(f, 0, 2), "previous here");
    e.reportExternal(Severity::Error, {}, "no location", "", {{{}, "note without location"}});
  });
  EXPECT_EQ(out, "t.loom:2:1: error: undefined SSA value '%a' [PARSE/001]\n"
                 "    2 | %a = y\n"
                 "      | ^~\n"
                 "t.loom:1:1: note: previous here\n"
                 "    1 | %a = x\n"
                 "      | ^~\n"
                 "error: no location\n"
                 "note: note without location\n");
}

TEST(TextDiagnosticPrinter, FixitsShowUnderTheCaretAndParseably) {
  TextDiagnosticOptions options;
  options.parseableFixits = true;
  std::string out = render(
      "if (q = 2) return;\nz\n",
      [](DiagnosticEngine &e, uint32_t f) {
        e.report(DiagId::ParseUndefinedValue, SourceLocation{f, 6})
            .arg("name", "q")
            .fixit(SourceLocation{f, 4}, "(")
            .fixit(SourceLocation{f, 9}, ")")
            .fixit(range(f, 19, 20), "==\t\"");
      },
      options);
  EXPECT_EQ(out, "t.loom:1:7: error: undefined SSA value 'q' [PARSE/001]\n"
                 "    1 | if (q = 2) return;\n"
                 "      |       ^\n"
                 "      |     (    )\n"
                 "fix-it:\"t.loom\":{1:5-1:5}:\"(\"\n"
                 "fix-it:\"t.loom\":{1:10-1:10}:\")\"\n"
                 "fix-it:\"t.loom\":{2:1-2:2}:\"==\\t\\\"\"\n");
}

TEST(TextDiagnosticPrinter, OverlappingFixitsArePushedRight) {
  std::string out = render("abcdef\n", [](DiagnosticEngine &e, uint32_t f) {
    e.report(DiagId::ParseUnknownOp, SourceLocation{f, 0})
        .arg("name", "a")
        .fixit(SourceLocation{f, 0}, "long")
        .fixit(SourceLocation{f, 2}, "x");
  });
  EXPECT_EQ(out, "t.loom:1:1: error: unknown op 'a' [PARSE/006]\n"
                 "    1 | abcdef\n"
                 "      | ^\n"
                 "      | long x\n");
}

TEST(TextDiagnosticPrinter, OptionsTurnOffLineNumbersAndSnippets) {
  TextDiagnosticOptions options;
  options.showLineNumbers = false;
  auto emit = [](DiagnosticEngine &e, uint32_t f) { e.reportExternal(Severity::Error, range(f, 1, 3), "r"); };
  EXPECT_EQ(render("abcd\n", emit, options), "t.loom:1:2: error: r\nabcd\n ^~\n");
  options.showSourceSnippet = false;
  EXPECT_EQ(render("abcd\n", emit, options), "t.loom:1:2: error: r\n");
}

TEST(TextDiagnosticPrinter, PrefixAppliesToDiagnosticsWithoutLocation) {
  TextDiagnosticOptions options;
  options.prefix = "hrxcc";
  std::string out = render(
      "x\n",
      [](DiagnosticEngine &e, uint32_t) {
        e.report(DiagId::DriverUnknownArgument, {}).arg("arg", "-foo").arg("suggestion", "");
      },
      options);
  EXPECT_EQ(out, "hrxcc: error: unknown argument '-foo' [DRIVER/001]\n");
}

TEST(TextDiagnosticPrinter, PromotedWarningsNameWerror) {
  DiagnosticOptions flags;
  flags.warningsAsErrors = true;
  std::string out = render("x\n", [&](DiagnosticEngine &e, uint32_t) {
    e.setOptions(flags);
    e.reportExternal(Severity::Warning, {}, "unused variable 'x'", "-Wunused-variable");
    e.report(DiagId::DiagUnknownWarningOption, {}).arg("flag", "-Wfo").arg("suggestion", "; did you mean '-Wfoo'?");
  });
  EXPECT_EQ(
      out,
      "error: unused variable 'x' [-Werror,-Wunused-variable]\n"
      "error: unknown warning option '-Wfo'; did you mean '-Wfoo'? [DIAG/002, -Werror,-Wunknown-warning-option]\n");
}

TEST(TextDiagnosticPrinter, ColorWrapsLocationSeverityMessageAndCaret) {
  TextDiagnosticOptions options;
  options.color = true;
  std::string out = render(
      "ab\n", [](DiagnosticEngine &e, uint32_t f) { e.reportExternal(Severity::Warning, range(f, 0, 2), "w", "-Wx"); },
      options);
  EXPECT_EQ(out, "\033[1mt.loom:1:1: \033[0m\033[1;35mwarning: \033[0m\033[1mw [-Wx]\033[0m\n"
                 "    1 | ab\n"
                 "      | \033[1;32m^~\033[0m\n");
}

TEST(DiagnosticSummary, MatchesClang) {
  auto summary = [](unsigned w, unsigned e) {
    std::ostringstream os;
    printDiagnosticSummary(os, w, e);
    return os.str();
  };
  EXPECT_EQ(summary(0, 0), "");
  EXPECT_EQ(summary(1, 0), "1 warning generated.\n");
  EXPECT_EQ(summary(0, 1), "1 error generated.\n");
  EXPECT_EQ(summary(2, 3), "2 warnings and 3 errors generated.\n");
  EXPECT_EQ(summary(1, 1), "1 warning and 1 error generated.\n");
}
