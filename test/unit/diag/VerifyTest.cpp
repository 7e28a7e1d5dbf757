#include "hrx/diag/Verify.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace hrx::diag;

namespace {

struct Collect : DiagnosticConsumer {
  std::vector<Diagnostic> seen;
  void handle(const Diagnostic &d, const SourceManager &) override { seen.push_back(d); }
};

// One -verify run over an annotated a.loom; diagnostics are reported by hand, as a parser would.
struct VerifyRun {
  SourceManager sm;
  DiagnosticEngine engine{sm};
  VerifyDiagnosticConsumer verify;
  Collect collected;  // everything the engine emitted, including VERIFY/NNN errors
  uint32_t file;

  explicit VerifyRun(std::string text, std::vector<std::string> prefixes = {}) : verify(std::move(prefixes)) {
    file = sm.addBuffer("a.loom", std::move(text));
    engine.addConsumer(&verify);
    engine.addConsumer(&collected);
    verify.addAnnotatedFile(sm, file, engine);
  }
  SourceLocation line(uint32_t n, uint32_t column = 1) const {
    return {file, sm.lineStart(file, n).offset + column - 1};
  }
  void error(uint32_t n, std::string_view name = "bogus.op") {
    engine.report(DiagId::ParseUnknownOp, line(n)).arg("name", std::string(name));
  }
  // Runs check(); returns its output, with "ok" or "FAILED" first.
  std::string check() {
    std::ostringstream os;
    bool ok = verify.check(sm, os);
    return std::string(ok ? "ok\n" : "FAILED\n") + os.str();
  }
  std::vector<std::string> verifyErrors() const {
    std::vector<std::string> out;
    for (const Diagnostic &d : collected.seen)
      if (d.code.starts_with("VERIFY/"))
        out.push_back(d.code + " " + std::to_string(sm.lineColumn(d.range.begin).line) + ":" +
                      std::to_string(sm.lineColumn(d.range.begin).column) + " " + d.message);
    return out;
  }
};

}  // namespace

TEST(VerifyClang, LineAnchorsMatch) {
  VerifyRun run("// expected-error@+1 {{unknown op 'a'}}\n"
                "x\n"
                "y // expected-error {{op 'b'}}\n"
                "z\n"
                "// expected-error@-1 {{'c'}}\n"
                "// expected-error@7 {{'d'}}\n"
                "w\n");
  run.error(2, "a");
  run.error(3, "b");
  run.error(4, "c");
  run.error(7, "d");
  EXPECT_EQ(run.check(), "ok\n");
}

TEST(VerifyClang, WrongExpectationFailsLikeClang) {
  VerifyRun run("x\n"
                "// expected-error@+1 {{unknown op 'nope'}}\n"
                "y\n"
                "z\n"
                "w\n");
  run.error(3, "bogus");
  run.error(5, "other");
  EXPECT_EQ(run.check(), "FAILED\n"
                         "error: 'expected-error' diagnostics expected but not seen:\n"
                         "  File a.loom Line 3 (directive at a.loom:2): unknown op 'nope'\n"
                         "error: 'expected-error' diagnostics seen but not expected:\n"
                         "  File a.loom Line 3: unknown op 'bogus'\n"
                         "  File a.loom Line 5: unknown op 'other'\n");
  EXPECT_EQ(run.verify.failureCount(), 2u);
}

TEST(VerifyClang, KindsMustMatchAndNotesMatchSeparately) {
  VerifyRun run("a // expected-warning {{w}} expected-remark {{r}}\n"
                "b // expected-error {{e}}\n"
                "c // expected-note {{attached}}\n");
  DiagnosticOptions options;
  options.enableAllRemarks = true;
  run.engine.setOptions(options);
  run.engine.reportExternal(Severity::Warning, run.line(1), "w", "-Wx");
  run.engine.reportExternal(Severity::Remark, run.line(1), "r", "-Rx");
  run.engine.reportExternal(Severity::Error, run.line(2), "e", "", {{run.line(3), "attached here"}});
  EXPECT_EQ(run.check(), "ok\n");

  VerifyRun wrongKind("a // expected-warning {{w}}\n");
  wrongKind.engine.reportExternal(Severity::Error, wrongKind.line(1), "w");
  EXPECT_EQ(wrongKind.check(), "FAILED\n"
                               "error: 'expected-error' diagnostics seen but not expected:\n"
                               "  File a.loom Line 1: w\n"
                               "error: 'expected-warning' diagnostics expected but not seen:\n"
                               "  File a.loom Line 1: w\n");
}

TEST(VerifyClang, FatalErrorsAndPromotedWarningsAreErrors) {
  VerifyRun run("a // expected-error 2 {{x}}\n");
  DiagnosticOptions options;
  options.warningsAsErrors = true;
  run.engine.setOptions(options);
  run.engine.reportExternal(Severity::Warning, run.line(1), "x", "-Wx");
  run.engine.reportExternal(Severity::Fatal, run.line(1), "x");
  EXPECT_EQ(run.check(), "ok\n");
}

TEST(VerifyClang, Counts) {
  VerifyRun run("a // expected-error 2 {{two}}\n"
                "b // expected-error 0-1 {{maybe}} expected-error 1+ {{many}} expected-error + {{plus}}\n"
                "c // expected-error 3 {{three}}\n"
                "d // expected-error 0 {{never}}\n");
  for (int i = 0; i < 2; ++i) run.error(1, "two");
  for (int i = 0; i < 4; ++i) run.error(2, "many");
  run.error(2, "plus");
  for (int i = 0; i < 2; ++i) run.error(3, "three");
  EXPECT_EQ(run.check(), "FAILED\n"
                         "error: 'expected-error' diagnostics expected but not seen:\n"
                         "  File a.loom Line 3: three\n");

  VerifyRun tooMany("a // expected-error 1 {{x}}\n");
  tooMany.error(1, "x");
  tooMany.error(1, "x");
  EXPECT_EQ(tooMany.check(), "FAILED\n"
                             "error: 'expected-error' diagnostics seen but not expected:\n"
                             "  File a.loom Line 1: unknown op 'x'\n");
}

TEST(VerifyClang, RegexDirectives) {
  VerifyRun run("a // expected-error-re {{unknown op '{{[a-z]+}}'}}\n"
                "b // expected-error-re {{{{^}}unknown op 'b.c'{{$}}}}\n"
                "c // expected-error-re {{op '(x)'{{.*}}}}\n"
                "d // expected-error-re {{^unknown{{.*}}}}\n");
  run.error(1, "abc");
  run.error(2, "b.c");
  run.error(3, "(x)");
  run.error(4, "d");  // '^' outside {{...}} is literal, so this must not match
  EXPECT_EQ(run.check(), "FAILED\n"
                         "error: 'expected-error' diagnostics expected but not seen:\n"
                         "  File a.loom Line 4: ^unknown{{.*}}\n"
                         "error: 'expected-error' diagnostics seen but not expected:\n"
                         "  File a.loom Line 4: unknown op 'd'\n");

  VerifyRun dotIsLiteral("a // expected-error-re {{op 'b.c{{.}}'}}\n");
  dotIsLiteral.error(1, "bxcd");
  EXPECT_NE(dotIsLiteral.check().find("FAILED"), std::string::npos);
}

TEST(VerifyClang, BracesNewlinesBlockCommentsAndLiterals) {
  VerifyRun run("a // expected-error {{{{unknown op '{{b}}'}}}}\n"
                "/* expected-error@+1 {{line\\ntwo}}\n"
                "   expected-warning@+1 {{w}} */\n"
                "c\n"
                "\"// expected-error {{inside a string}}\" 'x' R\"(// expected-error {{raw}})\"\n");
  run.error(1, "{{b}}");
  run.engine.reportExternal(Severity::Error, run.line(3), "line\ntwo");
  run.engine.reportExternal(Severity::Warning, run.line(4), "w", "-Wx");
  EXPECT_EQ(run.check(), "ok\n");
}

TEST(VerifyClang, AnyLocationMatchesDiagnosticsWithoutOne) {
  VerifyRun run("// expected-error@* {{no location}}\n"
                "// expected-warning@* {{somewhere}}\n");
  run.engine.reportExternal(Severity::Error, {}, "no location here");
  run.engine.reportExternal(Severity::Warning, run.line(2), "somewhere", "-Wx");
  run.engine.reportExternal(Severity::Error, {}, "driver trouble");
  EXPECT_EQ(run.check(), "FAILED\n"
                         "error: 'expected-error' diagnostics seen but not expected:\n"
                         "  (frontend): driver trouble\n");

  VerifyRun missing("// expected-error@* {{gone}}\n");
  EXPECT_EQ(missing.check(), "FAILED\n"
                             "error: 'expected-error' diagnostics expected but not seen:\n"
                             "  File * Line * (directive at a.loom:1): gone\n");
}

TEST(VerifyClang, LineDirectivesDoNotLoseToAnyLocation) {
  VerifyRun run("// expected-error@* {{op}}\n"
                "x // expected-error {{op 'x'}}\n");
  run.error(2, "x");
  run.error(2, "y");
  EXPECT_EQ(run.check(), "ok\n");
}

TEST(VerifyClang, NoDiagnostics) {
  VerifyRun quiet("// expected-no-diagnostics\nx\n");
  EXPECT_EQ(quiet.check(), "ok\n");

  VerifyRun noisy("// expected-no-diagnostics\nx\n");
  noisy.error(2);
  EXPECT_EQ(noisy.check(), "FAILED\n"
                           "error: 'expected-error' diagnostics seen but not expected:\n"
                           "  File a.loom Line 2: unknown op 'bogus.op'\n");

  VerifyRun none("x\n");
  EXPECT_EQ(none.check(), "FAILED\n"
                          "error: no expected directives found: consider use of 'expected-no-diagnostics'\n");
}

TEST(VerifyClang, CustomPrefixes) {
  VerifyRun one("a // foo-error {{x}} expected-error {{ignored}}\n"
                "// ERROR@+1: PARSE/006\n"
                "b\n",
                {"foo"});
  one.error(1, "x");
  EXPECT_EQ(one.check(), "ok\n");  // neither expected-* nor Loom annotations count under -verify=foo

  VerifyRun two("a // foo-error {{zzz}} bar-error {{yyy}} expected-error {{qqq}}\n"
                "// bar-warning@+1 {{www}}\n"
                "b\n",
                {"foo", "bar"});
  two.error(1, "a");
  EXPECT_EQ(two.check(), "FAILED\n"
                         "error: diagnostics with 'error' severity expected but not seen:\n"
                         "  File a.loom Line 1 'foo-error': zzz\n"
                         "  File a.loom Line 1 'bar-error': yyy\n"
                         "error: diagnostics with 'error' severity seen but not expected:\n"
                         "  File a.loom Line 1: unknown op 'a'\n"
                         "error: diagnostics with 'warning' severity expected but not seen:\n"
                         "  File a.loom Line 3 (directive at a.loom:2) 'bar-warning': www\n");

  VerifyRun unused("x\n", {"zeta", "alpha"});
  EXPECT_EQ(unused.check(), "FAILED\nerror: no expected directives found: consider use of 'alpha-no-diagnostics'\n");
}

TEST(VerifyLoom, AnnotationForms) {
  VerifyRun run("// ERROR@+1: PARSE/006 \"bogus\" \"op\"\n"
                "a\n"
                "// ERROR@+1: PARSE\n"
                "b\n"
                "// ERROR@+1:\n"
                "c\n"
                "d // ERROR: PARSE/001 {name=\"%x\"}\n"
                "e\n"
                "// WARNING@-1: {flag=\"-Wq\", suggestion=\"\"}\n"
                "// NOTE: remember this is prose, not an annotation\n");
  run.error(2, "bogus");
  run.error(4, "anything");
  run.engine.reportExternal(Severity::Error, run.line(6), "whatever");
  run.engine.report(DiagId::ParseUndefinedValue, run.line(7)).arg("name", "%x");
  run.engine.report(DiagId::DiagUnknownWarningOption, run.line(8)).arg("flag", "-Wq").arg("suggestion", "");
  EXPECT_EQ(run.check(), "ok\n");
  EXPECT_TRUE(run.verifyErrors().empty());
}

TEST(VerifyLoom, LoomAnnotationsCoverAttachedNotes) {
  VerifyRun covered("// ERROR@+1: PARSE/001\n"
                    "a\n");
  covered.engine.report(DiagId::ParseUndefinedValue, covered.line(2)).arg("name", "%a").note(covered.line(1), "here");
  EXPECT_EQ(covered.check(), "ok\n");

  VerifyRun claimed("// ERROR@+1: PARSE/001\n"
                    "a // NOTE: \"elsewhere\"\n");
  claimed.engine.report(DiagId::ParseUndefinedValue, claimed.line(2)).arg("name", "%a").note(claimed.line(2), "here");
  EXPECT_EQ(claimed.check(), "FAILED\n"
                             "error: 'NOTE' diagnostics expected but not seen:\n"
                             "  File a.loom Line 2: \"elsewhere\"\n");

  VerifyRun clangStyle("a // expected-error {{undefined}}\n");
  clangStyle.engine.report(DiagId::ParseUndefinedValue, clangStyle.line(1)).arg("name", "%a").note({}, "here");
  EXPECT_EQ(clangStyle.check(), "FAILED\n"
                                "error: 'expected-note' diagnostics seen but not expected:\n"
                                "  (frontend): here\n");
}

TEST(VerifyLoom, MismatchesAreReportedWithLoomLabels) {
  VerifyRun run("// ERROR@+1: PARSE/006 \"bogus\" {name=\"other\"}\n"
                "a\n"
                "// ERROR@+1: TYPE\n"
                "b\n"
                "// REMARK@+1:\n"
                "c\n");
  run.error(2, "bogus");
  run.error(4, "x");
  EXPECT_EQ(run.check(), "FAILED\n"
                         "error: 'ERROR' diagnostics expected but not seen:\n"
                         "  File a.loom Line 2 (directive at a.loom:1): PARSE/006 \"bogus\" {name=\"other\"}\n"
                         "  File a.loom Line 4 (directive at a.loom:3): TYPE\n"
                         "error: 'ERROR' diagnostics seen but not expected:\n"
                         "  File a.loom Line 2: unknown op 'bogus'\n"
                         "  File a.loom Line 4: unknown op 'x'\n"
                         "error: 'REMARK' diagnostics expected but not seen:\n"
                         "  File a.loom Line 6 (directive at a.loom:5): (any remark)\n");
}

TEST(VerifyLoom, MixedStylesUseSeverityHeadersAndLabels) {
  VerifyRun run("// ERROR@+1: PARSE/001\n"
                "a // expected-error {{never}}\n");
  EXPECT_EQ(run.check(), "FAILED\n"
                         "error: diagnostics with 'error' severity expected but not seen:\n"
                         "  File a.loom Line 2 (directive at a.loom:1) 'ERROR': PARSE/001\n"
                         "  File a.loom Line 2 'expected-error': never\n");
}

TEST(VerifyLoom, DomainMustMatchAWholeDomain) {
  VerifyRun run("// ERROR@+1: PARS\n"
                "a\n");
  run.error(2);
  EXPECT_NE(run.check().find("FAILED"), std::string::npos);
}

TEST(VerifyErrors, ClangDirectiveErrors) {
  VerifyRun run("// expected-error undeclared\n"
                "// expected-error@ {{x}}\n"
                "// expected-error@+99 {{x}}\n"
                "// expected-error 2-1 {{x}}\n"
                "// expected-error-re {{abc}} expected-error {{skipped after a missing regex}}\n"
                "// expected-error-re {{{{[}}}}\n"
                "// expected-error {{abc\n"
                "// expected-note {{fine}} expected-no-diagnostics\n"
                "x\n");
  EXPECT_EQ(run.verifyErrors(),
            (std::vector<std::string>{
                "VERIFY/001 1:19 cannot find start ('{{') of expected string",
                "VERIFY/003 2:19 missing or invalid line number following '@' in expected string",
                "VERIFY/003 3:22 missing or invalid line number following '@' in expected string",
                "VERIFY/004 4:22 invalid range following '-' in expected string",
                "VERIFY/005 5:24 cannot find start of regex ('{{') in abc",
                "VERIFY/006 6:24 invalid expected regex: " + run.collected.seen[5].message.substr(24),
                "VERIFY/002 7:19 cannot find end ('}}') of expected string",
                "VERIFY/007 8:27 'expected-no-diagnostics' directive cannot follow other expected directives",
            }));
  EXPECT_GT(run.collected.seen[5].message.size(), 24u);
}

TEST(VerifyErrors, DirectiveAfterNoDiagnostics) {
  VerifyRun run("// expected-no-diagnostics\n"
                "// expected-error {{x}}\n"
                "// ERROR: PARSE/001\n");
  EXPECT_EQ(run.verifyErrors(),
            (std::vector<std::string>{
                "VERIFY/008 2:4 'expected-error' directive cannot follow 'expected-no-diagnostics' directive",
                "VERIFY/008 3:4 'ERROR' directive cannot follow 'expected-no-diagnostics' directive"}));
  // Rejected annotations do not make the run "mixed": the header keeps the single-prefix form.
  EXPECT_EQ(run.check(),
            "FAILED\n"
            "error: 'expected-error' diagnostics seen but not expected:\n"
            "  File a.loom Line 2: 'expected-error' directive cannot follow 'expected-no-diagnostics' directive\n"
            "  File a.loom Line 3: 'ERROR' directive cannot follow 'expected-no-diagnostics' directive\n");
}

TEST(VerifyErrors, LoomAnnotationErrors) {
  VerifyRun run("// ERROR@x: PARSE\n"
                "// ERROR@-5: PARSE\n"
                "// ERROR@+1 PARSE\n"
                "// ERROR: PARSE/0x1\n"
                "// ERROR: parse/001\n"
                "// ERROR: PARSE/001 \"open\n"
                "// ERROR: PARSE/001 {name}\n"
                "// ERROR: PARSE/001 {name=\"a\" b=\"c\"}\n"
                "// ERROR: PARSE/001 {name=x}\n"
                "// ERROR: PARSE/001 {=\"x\"}\n"
                "// WARNING: PARSE/001 stray words\n"
                "// ERROR: PARSE/001 {a=\"b\"} \"after params\"\n"
                "x\n");
  EXPECT_EQ(run.verifyErrors(),
            (std::vector<std::string>{
                "VERIFY/010 1:10 invalid line offset in 'ERROR' annotation; expected '@+N' or '@-N' naming a line of "
                "the file",
                "VERIFY/010 2:12 invalid line offset in 'ERROR' annotation; expected '@+N' or '@-N' naming a line of "
                "the file",
                "VERIFY/015 3:12 expected ':' after 'ERROR' annotation",
                "VERIFY/011 4:11 malformed diagnostic code 'PARSE/0x1' in 'ERROR' annotation; expected DOMAIN or "
                "DOMAIN/NNN",
                "VERIFY/011 5:11 malformed diagnostic code 'parse/001' in 'ERROR' annotation; expected DOMAIN or "
                "DOMAIN/NNN",
                "VERIFY/012 6:26 unterminated string in 'ERROR' annotation",
                "VERIFY/013 7:26 malformed parameter list in 'ERROR' annotation: expected '=' after 'name'",
                "VERIFY/013 8:31 malformed parameter list in 'ERROR' annotation: expected ',' or '}'",
                "VERIFY/013 9:27 malformed parameter list in 'ERROR' annotation: expected a quoted value for 'name'",
                "VERIFY/013 10:22 malformed parameter list in 'ERROR' annotation: expected a parameter name",
                "VERIFY/014 11:23 unexpected 'stray' in 'WARNING' annotation; expected a quoted substring or a "
                "parameter list",
                "VERIFY/014 12:29 unexpected '\"after' in 'ERROR' annotation; expected a quoted substring or a "
                "parameter list",
            }));
}

TEST(VerifyErrors, MalformedAnnotationsAreUnexpectedUnlessExpected) {
  // As in clang, a VERIFY error is itself a diagnostic that -verify checks; this file expects
  // the one its broken directive causes, using three braces around text containing '{{'.
  VerifyRun run("// expected-error@+1 {{{cannot find start ('{{') of expected string}}}\n"
                "// expected-error oops\n"
                "// expected-error@+1 {{invalid line offset}}\n"
                "// ERROR@+9: PARSE\n");
  EXPECT_EQ(run.check(), "ok\n");

  VerifyRun unexpected("// expected-error oops\n");
  EXPECT_EQ(unexpected.check(), "FAILED\n"
                                "error: 'expected-error' diagnostics seen but not expected:\n"
                                "  File a.loom Line 1: cannot find start ('{{') of expected string\n");
}

TEST(VerifyErrors, HostileRegexesAreRejectedNotRun) {
  std::string nested = "// expected-error-re {{{{" + std::string(40, '(') + "x" + std::string(40, ')') + "}}}}\n";
  VerifyRun run(nested + "// expected-error-re {{{{" + std::string(2000, 'a') + "}}}}\n");
  std::vector<std::string> errors = run.verifyErrors();
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("too long or too deeply nested"), std::string::npos);
  EXPECT_NE(errors[1].find("too long or too deeply nested"), std::string::npos);
}

TEST(VerifyFiles, DirectivesCanNameAnotherFile) {
  SourceManager sm;
  DiagnosticEngine engine(sm);
  VerifyDiagnosticConsumer verify;
  Collect collected;
  engine.addConsumer(&verify);
  engine.addConsumer(&collected);
  uint32_t header = sm.addBuffer("virtual/include/w.h", "a\nb\n");
  uint32_t main = sm.addBuffer("a.loom", "// expected-error@w.h:2 {{in the header}}\n"
                                         "// expected-warning@include/w.h:* 2 {{anywhere in it}}\n"
                                         "// expected-error@virtual/include/w.h:1 {{never}}\n"
                                         "// expected-error@x.h:1 {{x}}\n"
                                         "// expected-error@w.h:9 {{x}}\n"
                                         "// expected-error@clude/w.h:1 {{x}}\n");
  verify.addAnnotatedFile(sm, main, engine);
  engine.reportExternal(Severity::Error, SourceLocation{header, 2}, "in the header");
  engine.reportExternal(Severity::Warning, SourceLocation{header, 0}, "anywhere in it", "-Wx");
  engine.reportExternal(Severity::Warning, SourceLocation{header, 2}, "anywhere in it", "-Wx");
  std::vector<std::string> errors;
  for (const Diagnostic &d : collected.seen)
    if (d.code.starts_with("VERIFY/")) errors.push_back(d.code + " " + d.message);
  EXPECT_EQ(errors,
            (std::vector<std::string>{"VERIFY/009 file 'x.h' could not be located in expected string",
                                      "VERIFY/003 missing or invalid line number following '@' in expected string",
                                      "VERIFY/009 file 'clude/w.h' could not be located in expected string"}));
  std::ostringstream os;
  EXPECT_FALSE(verify.check(sm, os));
  EXPECT_EQ(os.str(), "error: 'expected-error' diagnostics expected but not seen:\n"
                      "  File virtual/include/w.h Line 1 (directive at a.loom:3): never\n"
                      "error: 'expected-error' diagnostics seen but not expected:\n"
                      "  File a.loom Line 4: file 'x.h' could not be located in expected string\n"
                      "  File a.loom Line 5: missing or invalid line number following '@' in expected string\n"
                      "  File a.loom Line 6: file 'clude/w.h' could not be located in expected string\n");
}

TEST(VerifyFiles, EachFileIsReadOnceAndDiagnosticsKeepTheirFile) {
  SourceManager sm;
  DiagnosticEngine engine(sm);
  VerifyDiagnosticConsumer verify;
  engine.addConsumer(&verify);
  uint32_t a = sm.addBuffer("a.loom", "x // expected-error {{in a}}\n");
  uint32_t b = sm.addBuffer("b.h", "y\n");
  verify.addAnnotatedFile(sm, a, engine);
  verify.addAnnotatedFile(sm, a, engine);
  verify.addAnnotatedFile(sm, b, engine);
  engine.reportExternal(Severity::Error, SourceLocation{b, 0}, "in a");  // right line, wrong file
  std::ostringstream os;
  EXPECT_FALSE(verify.check(sm, os));
  EXPECT_EQ(os.str(), "error: 'expected-error' diagnostics expected but not seen:\n"
                      "  File a.loom Line 1: in a\n"
                      "error: 'expected-error' diagnostics seen but not expected:\n"
                      "  File b.h Line 1: in a\n");
}
