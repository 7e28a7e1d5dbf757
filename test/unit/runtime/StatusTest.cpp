#include "hrx/runtime/Status.h"

#include <gtest/gtest.h>

TEST(Status, OkAndErrors) {
  hrx::Status ok;
  EXPECT_TRUE(ok.isOk());
  hrx::Status busy(hrx::StatusCode::Busy, "capacity exhausted");
  EXPECT_FALSE(busy.isOk());
  EXPECT_EQ(busy.toString(), "BUSY: capacity exhausted");
  hrx::StatusOr<int> v = 3;
  EXPECT_TRUE(v.isOk());
  EXPECT_EQ(*v, 3);
  hrx::StatusOr<int> e = hrx::Status(hrx::StatusCode::NotFound, "x");
  EXPECT_FALSE(e.isOk());
  EXPECT_EQ(e.status().code(), hrx::StatusCode::NotFound);
}
