#include "hrx/diag/SourceManager.h"

#include <gtest/gtest.h>

using namespace hrx::diag;

TEST(SourceManager, MapsOffsetsToLinesAndColumns) {
  SourceManager sm;
  uint32_t f = sm.addBuffer("a.loom", "first\nsecond line\n\nlast");
  EXPECT_EQ(sm.name(f), "a.loom");
  LineColumn lc = sm.lineColumn({f, 0});
  EXPECT_EQ(lc.line, 1u);
  EXPECT_EQ(lc.column, 1u);
  lc = sm.lineColumn({f, 13});  // "second line": offset 6 is 's', 13 is 'l'
  EXPECT_EQ(lc.line, 2u);
  EXPECT_EQ(lc.column, 8u);
  EXPECT_EQ(sm.lineText({f, 13}), "second line");
  EXPECT_EQ(sm.lineText({f, 18}), "");
  EXPECT_EQ(sm.lineText({f, 20}), "last");
  EXPECT_EQ(sm.lineStart(f, 4).offset, 19u);
}

TEST(SourceManager, InvalidLocationHasNoLine) {
  SourceManager sm;
  EXPECT_EQ(sm.lineColumn({}).line, 0u);
  EXPECT_EQ(sm.lineText({}), "");
}
