#include "hrx/bridge/ArtifactIdentity.h"

#include <gtest/gtest.h>

namespace hrx::bridge {
namespace {

TEST(ArtifactIdentity, CompilerDigestIsOneSha256PerProcess) {
  const std::string &digest = compilerDigest();
  ASSERT_EQ(digest.size(), 64u);
  EXPECT_EQ(digest.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(&digest, &compilerDigest());  // computed once per process
}

TEST(ArtifactIdentity, CanonicalOptionsCoverEveryByteChangingOption) {
  CompilerOptions base;
  std::string canonical = canonicalOptions(base);
  EXPECT_EQ(canonical, "columns=1;debug-info=0;host-cpu=x86-64-v2;opt-level=2;processor-mode=Default");
  CompilerOptions workers = base;
  workers.workers = 8;
  EXPECT_EQ(canonicalOptions(workers), canonical);
  CompilerOptions changed[5] = {base, base, base, base, base};
  changed[0].columns = 4;
  changed[1].debugInfo = true;
  changed[2].hostCpu = "znver5";
  changed[3].optLevel = 0;
  changed[4].processorMode = ProcessorMode::Cu;
  for (const CompilerOptions &options : changed) EXPECT_NE(canonicalOptions(options), canonical);
}

TEST(ArtifactIdentity, ModeNamesMatchTheIdentityFormat) {
  EXPECT_EQ(reportModeName(ReportMode::None), "none");
  EXPECT_EQ(reportModeName(ReportMode::Details), "details");
  EXPECT_EQ(processorModeName(ProcessorMode::Wgp), "WorkgroupProcessor");
}

}  // namespace
}  // namespace hrx::bridge
