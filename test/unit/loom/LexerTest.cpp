#include "LoomTestSupport.h"
#include "hrx/loom/Lexer.h"

#include <gtest/gtest.h>

namespace hrx::loom::test {
namespace {

struct Lexed {
  std::vector<Token> tokens;
  std::vector<std::string> codes;
};

Lexed lexAll(std::string text) {
  static diag::SourceManager sm;
  diag::DiagnosticEngine engine(sm);
  Collector c;
  engine.addConsumer(&c);
  uint32_t file = sm.addBuffer("lex.loom", std::move(text));
  Lexer lex(sm.contents(file), file, engine);
  Lexed out;
  for (;;) {
    Token t = lex.next();
    if (t.is(Tok::Eof)) break;
    out.tokens.push_back(t);
  }
  for (auto &d : c.diags) out.codes.push_back(d.code);
  return out;
}

TEST(LoomLexer, OpLineTokens) {
  auto l = lexAll("%r = index.add %a, %b : index");
  ASSERT_EQ(l.tokens.size(), 8u);
  EXPECT_EQ(l.tokens[0].kind, Tok::ValueId);
  EXPECT_EQ(l.tokens[0].name(), "r");
  EXPECT_EQ(l.tokens[2].text, "index.add");
  EXPECT_EQ(l.tokens[4].kind, Tok::Comma);
  EXPECT_TRUE(l.tokens[0].lineStart);
  EXPECT_FALSE(l.tokens[1].lineStart);
}

TEST(LoomLexer, DoubleAngleIsTwoTokens) {
  auto l = lexAll("pipeline.flow<tile<64xbf16>>");
  ASSERT_GE(l.tokens.size(), 2u);
  EXPECT_EQ(l.tokens[l.tokens.size() - 1].kind, Tok::Greater);
  EXPECT_EQ(l.tokens[l.tokens.size() - 2].kind, Tok::Greater);
}

TEST(LoomLexer, NamesNumbersAndSigils) {
  auto l = lexAll("gfx9-4-generic -1 0x1F 2.5e-3 1e6 %42 %base$48 @gemm.batch #encoding.operand ^bb0 ->");
  ASSERT_EQ(l.tokens.size(), 11u);
  EXPECT_EQ(l.tokens[0].text, "gfx9-4-generic");
  EXPECT_EQ(l.tokens[1].kind, Tok::Integer);
  EXPECT_EQ(l.tokens[1].text, "-1");
  EXPECT_EQ(l.tokens[2].kind, Tok::Integer);
  EXPECT_EQ(l.tokens[3].kind, Tok::Float);
  EXPECT_EQ(l.tokens[4].kind, Tok::Float);
  EXPECT_EQ(l.tokens[5].name(), "42");
  EXPECT_EQ(l.tokens[6].name(), "base$48");
  EXPECT_EQ(l.tokens[7].name(), "gemm.batch");
  EXPECT_EQ(l.tokens[8].kind, Tok::HashId);
  EXPECT_EQ(l.tokens[9].kind, Tok::BlockLabel);
  EXPECT_EQ(l.tokens[10].kind, Tok::Arrow);
  EXPECT_TRUE(l.codes.empty());
}

TEST(LoomLexer, CommentsAttachToNextToken) {
  auto l = lexAll("// one\n// two\n\n%x");
  ASSERT_EQ(l.tokens.size(), 1u);
  EXPECT_EQ(l.tokens[0].endComment - l.tokens[0].firstComment, 2u);
}

TEST(LoomLexer, StringEscapes) {
  diag::SourceManager sm;
  diag::DiagnosticEngine engine(sm);
  Collector c;
  engine.addConsumer(&c);
  uint32_t file = sm.addBuffer("s.loom", R"("a\"b\\c\/\n\u00e9\ud83d\ude00" "bad\q")");
  Lexer lex(sm.contents(file), file, engine);
  Token good = lex.next();
  EXPECT_EQ(lex.unescape(good), "a\"b\\c/\n\xc3\xa9\xf0\x9f\x98\x80");
  Token bad = lex.next();
  lex.unescape(bad);
  ASSERT_EQ(c.diags.size(), 1u);
  EXPECT_EQ(c.diags[0].code, "PARSE/023");
}

TEST(LoomLexer, Errors) {
  EXPECT_EQ(lexAll("\"open").codes, std::vector<std::string>{"PARSE/005"});
  EXPECT_EQ(lexAll("% x").codes, std::vector<std::string>{"PARSE/024"});
  EXPECT_EQ(lexAll("~").codes, std::vector<std::string>{"PARSE/025"});
  EXPECT_EQ(lexAll("\"\xff\"").codes, std::vector<std::string>{"PARSE/019"});
}

}  // namespace
}  // namespace hrx::loom::test

namespace hrx::loom::test {
namespace {

// A lexical error is reported once; the parser does not add a second error for the same token.
TEST(LoomLexer, LexicalErrorsAreNotDoubled) {
  EXPECT_EQ(parse("kernel.decl export(\"oops) @k() launch()\n").codes(), std::vector<std::string>{"PARSE/005"});
  EXPECT_EQ(parse("func.def @f() {\n  % = index.constant 1 : index\n  func.return\n}\n").codes(),
            std::vector<std::string>{"PARSE/024"});
  EXPECT_EQ(parse("func.def @f() {\n  %a = index.constant ~1 : index\n  func.return\n}\n").codes(),
            std::vector<std::string>{"PARSE/025"});
  EXPECT_EQ(parse("kernel.decl export(\"\xff\") @k() launch()\n").codes(), std::vector<std::string>{"PARSE/019"});
  EXPECT_EQ(parse("kernel.decl export(\"bad\\q\") @k() launch()\n").codes(), std::vector<std::string>{"PARSE/023"});
}

}  // namespace
}  // namespace hrx::loom::test
