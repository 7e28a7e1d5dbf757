// The assembler's located errors, labels and the ELF object wrapper.
#include "hrx/aie2p/Asm.h"

#include <gtest/gtest.h>

using namespace hrx::aie2p;

namespace {

AsmDiagnostic firstError(const char *text) {
  AsmProgram program;
  std::vector<AsmDiagnostic> diags;
  EXPECT_FALSE(assemble(text, program, diags)) << text;
  return diags.empty() ? AsmDiagnostic{} : diags[0];
}

}  // namespace

TEST(Aie2pAsm, LocatedErrors) {
  auto d = firstError("nop\n  add r0, r1, #100\n");
  EXPECT_EQ(d.code, "MC/004");
  EXPECT_EQ(d.line, 2u);
  EXPECT_EQ(d.column, 16u);
  EXPECT_NE(d.message.find("-64..63"), std::string::npos) << d.message;

  d = firstError("lda r1, [r3, #4]\n");
  EXPECT_EQ(d.code, "MC/003");
  EXPECT_EQ(d.column, 10u);
  EXPECT_NE(d.message.find("p0..p7"), std::string::npos) << d.message;

  d = firstError("padda [p1], #4\n");
  EXPECT_EQ(d.code, "MC/004");
  EXPECT_NE(d.message.find("multiple of 64"), std::string::npos) << d.message;

  d = firstError("frob r1\n");
  EXPECT_EQ(d.code, "MC/001");

  d = firstError("add r0, r0, r1; sub r1, r1, r2\n");
  EXPECT_EQ(d.code, "MC/005");
  EXPECT_EQ(d.column, 17u);

  d = firstError("movxm r0, #1; add r0, r0, r1\n");
  EXPECT_EQ(d.code, "MC/006");

  d = firstError("j #nowhere\n");
  EXPECT_EQ(d.code, "MC/007");

  d = firstError("a:\na:\nnop\n");
  EXPECT_EQ(d.code, "MC/008");
}

TEST(Aie2pAsm, LabelsResolveToBundleOffsets) {
  AsmProgram program;
  std::vector<AsmDiagnostic> diags;
  ASSERT_TRUE(assemble("start:\n  nop\nnext: movxm r0, #next\n  j #start\n", program, diags)) << diags[0].message;
  ASSERT_EQ(program.labels.size(), 2u);
  EXPECT_EQ(program.labels[1].name, "next");
  EXPECT_EQ(program.labels[1].offset, 2u);
  std::vector<DisasmLine> lines;
  AsmDiagnostic error;
  ASSERT_TRUE(disassemble(program.bytes, lines, error));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1].text, "movxm r0, #2");
  EXPECT_EQ(lines[2].text, "j #0");
}

TEST(Aie2pAsm, ObjectWrapsTheText) {
  AsmProgram program;
  std::vector<AsmDiagnostic> diags;
  ASSERT_TRUE(assemble("l: add r1, r2, r3\ndone\n", program, diags));
  auto object = writeObject(program);
  ASSERT_TRUE(looksLikeElf(object));
  EXPECT_EQ(object[18] | (object[19] << 8), 264);  // EM_AIE
  std::vector<uint8_t> text;
  std::string error;
  ASSERT_TRUE(readObjectText(object, text, error)) << error;
  EXPECT_EQ(text, program.bytes);
  // Every truncation of the object is rejected with a reason, never read past its end.
  for (size_t n = 0; n < object.size(); ++n) {
    std::vector<uint8_t> cut(object.begin(), object.begin() + n), t;
    std::string why;
    if (readObjectText(cut, t, why)) EXPECT_LE(t.size(), n);
  }
}

TEST(Aie2pAsm, TiedOperandsMustMatch) {
  // mac d0, a0, s0, s1 reads and writes d0 (llvm-aie: Constraints "$a0 = $d0").
  auto d = firstError("mac r1, r2, r3, r4\n");
  EXPECT_EQ(d.code, "MC/003");
  EXPECT_EQ(d.column, 9u);
  EXPECT_NE(d.message.find("must be the same register as r1"), std::string::npos) << d.message;
  AsmProgram program;
  std::vector<AsmDiagnostic> diags;
  EXPECT_TRUE(assemble("mac r1, r1, r3, r4\n", program, diags));
}
