// Packaging: the image of a planned pipeline passes the format's reader/validator, its bytes
// are deterministic, and its tables, relocations and transactions say what the plan says.
#include "ArrayFixtures.h"
#include "Graphs.h"

#include "hrx/format/CompileReport.h"
#include "hrx/format/Identity.h"
#include "hrx/format/KernelContract.h"
#include "hrx/format/ArrayPlanWriter.h"
#include "hrx/format/XdnaWriter.h"
#include "hrx/xdna/Npu5Model.h"
#include "hrx/xdna/Planner.h"
#include "hrx/xdna/Transaction.h"
#include "hrx/xdna/XdnaImage.h"

#include <gtest/gtest.h>

using namespace hrx;
using namespace hrx::xdna;
using namespace hrx::xdna::testing;
namespace fx = hrx::format::xdna;

namespace {

std::vector<uint8_t> imageBytes(const PipelineGraph &g, unsigned columns, Collector &c,
                                std::optional<std::string> referenceOnlyReason = std::nullopt) {
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  diags.addConsumer(&c);
  auto plan = planArray(g, {columns}, diags);
  if (!plan) return {};
  ImageSections sections;
  sections.hostCode = {0x7f, 'E', 'L', 'F'};  // opaque to the image
  sections.identity.compilerName = "hrxcc";
  sections.identity.compilerVersion = "test";
  sections.identity.target = std::string(Npu5Model::kProfileName);
  if (referenceOnlyReason) sections.referenceOnlyReason = *referenceOnlyReason;
  sections.reportJson = buildReport({{*plan, contractOf(g), {}}}, "hrxcc test", "summary");
  auto image = buildImage({{*plan, contractOf(g), {}}}, columns, std::move(sections), diags);
  if (!image) return {};
  auto bytes = fx::writeImage(*image);
  EXPECT_TRUE(bytes.isOk()) << bytes.status().message();
  return bytes.isOk() ? *bytes : std::vector<uint8_t>{};
}

}  // namespace

TEST(XdnaImage, AnImageWithoutAReferenceOnlyReasonSaysItsCoreCodeIsNative) {
  Collector c;
  std::vector<uint8_t> bytes = imageBytes(copyGraph(4), 1, c, "");
  ASSERT_FALSE(bytes.empty()) << c.messages();
  auto read = fx::readImage(bytes);
  ASSERT_TRUE(read.isOk()) << read.status().message();
  const fx::Section *section = read->section(fx::kIdentitySection);
  ASSERT_NE(section, nullptr);
  auto identity = format::readIdentity(std::string(section->bytes.begin(), section->bytes.end()));
  ASSERT_TRUE(identity.isOk()) << identity.status().message();
  EXPECT_FALSE(identity->referenceOnly);
  EXPECT_EQ(identity->nativeCode, kNativeCoreCode);
  EXPECT_NE(identity->nativeCode.find("not yet run on hardware"), std::string::npos);
}

TEST(XdnaImage, CopyImagePassesTheValidatorAndCarriesThePlan) {
  Collector c;
  std::vector<uint8_t> bytes = imageBytes(copyGraph(4), 1, c);
  ASSERT_FALSE(bytes.empty()) << c.messages();
  // The image reader checks every rule of hrx-product §1 (the host code here is a stand-in, so
  // the artifact-level check of .hrx.host does not apply).
  auto read = fx::readImage(bytes);
  ASSERT_TRUE(read.isOk()) << read.status().message();
  const fx::Image &image = *read;
  EXPECT_EQ(image.header.columns, 1u);
  EXPECT_EQ(image.header.profileId, Npu5Model::kDeviceProfileId);
  ASSERT_EQ(image.entries.size(), 1u);
  EXPECT_EQ(image.entries[0].name, "copy");
  // Invocations 0 -> 1 -> 1 inside one COMMAND allocation.
  ASSERT_EQ(image.invocations.size(), 2u);
  EXPECT_EQ(image.invocations[0].nextInvocation, 1u);
  EXPECT_EQ(image.invocations[1].nextInvocation, 1u);
  EXPECT_EQ(image.allocations[0].domain, fx::Domain::Command);
  // Binding rows are the contract.
  ASSERT_EQ(image.bindings.size(), 2u);
  EXPECT_EQ(image.bindings[0].access, fx::kAccessRead);
  EXPECT_EQ(image.bindings[1].access, fx::kAccessWrite);
  EXPECT_EQ(image.bindings[0].minimumByteLength, 4u * 4096);
  // One dynamic SHIM_ADDRESS relocation per shim BD (input and output), in the repeat range.
  ASSERT_EQ(image.relocations.size(), 2u);
  EXPECT_EQ(image.entries[0].dynamicRelocationCount, 2u);
  EXPECT_GE(image.relocations[0].byteOffset, image.invocations[1].byteOffset);
  std::set<uint32_t> sources{image.relocations[0].sourceOrdinal, image.relocations[1].sourceOrdinal};
  EXPECT_EQ(sources, (std::set<uint32_t>{0, 1}));
  // Our sections.
  auto text = [&](std::string_view name) {
    const fx::Section *section = image.section(name);
    return section ? std::string(section->bytes.begin(), section->bytes.end()) : std::string();
  };
  auto identity = format::readIdentity(text(fx::kIdentitySection));
  ASSERT_TRUE(identity.isOk()) << identity.status().message();
  EXPECT_TRUE(identity->referenceOnly);
  EXPECT_EQ(identity->referenceOnlyReason, kReferenceOnlyReason);
  auto plans = format::readArrayPlans(text(fx::kPlanSection));
  ASSERT_TRUE(plans.isOk()) << plans.status().message();
  ASSERT_EQ(plans->size(), 1u);
  EXPECT_EQ(format::printArrayPlan(plans->at(0)).substr(0, 10), "array @cop");
  EXPECT_EQ(image.section(fx::kHostSection)->bytes.size(), 4u);
  auto contracts = format::readContractTable(text(fx::kContractSection));
  ASSERT_TRUE(contracts.isOk()) << contracts.status().message();
  EXPECT_TRUE(
      format::checkContractAgainstBindings("copy", contracts->at("copy"), image.bindingsOf(image.entries[0])).isOk());
  auto report = format::readCompileReport(text(fx::kReportSection));
  ASSERT_TRUE(report.isOk()) << report.status().message();
  EXPECT_EQ(report->entryRows().size(), 1u);
}

TEST(XdnaImage, BytesAreDeterministic) {
  Collector c;
  for (const PipelineGraph &g : {copyGraph(3), batchedGemmGraph(1024), splitKGraph()})
    EXPECT_EQ(imageBytes(g, 3, c), imageBytes(g, 3, c)) << g.name;
}

TEST(XdnaImage, ShimBdAddressWordsArePatchable) {
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  auto plan = planArray(batchedGemmGraph(8), {1}, diags);
  ASSERT_TRUE(plan);
  EncodedPlan encoded = encodeTransactions(*plan);
  // Header: version 0.1, generation 4, 6 rows, 1 column, 1 memtile row, counts.
  const auto &repeat = encoded.repeat.bytes;
  ASSERT_GE(repeat.size(), 16u);
  EXPECT_EQ(repeat[0], 0);
  EXPECT_EQ(repeat[1], 1);
  EXPECT_EQ(repeat[2], 4);
  EXPECT_EQ(repeat[3], 6);
  EXPECT_EQ(repeat[4], 1);
  EXPECT_EQ(repeat[5], 1);
  uint32_t total = repeat[12] | repeat[13] << 8 | repeat[14] << 16 | uint32_t(repeat[15]) << 24;
  EXPECT_EQ(total, repeat.size());
  ASSERT_EQ(encoded.repeat.patches.size(), 3u);  // lhs, rhs, out
  for (const AddressPatch &p : encoded.repeat.patches) {
    fx::Relocation r;
    std::array<uint8_t, 8> field;
    std::copy_n(repeat.begin() + p.byteOffset, 8, field.begin());
    ASSERT_TRUE(fx::applyShimAddress(std::span<uint8_t, 8>(field), 0x1234500000ull, r).isOk());
    EXPECT_EQ(field[4] | field[5] << 8, 0x12);  // high word: address bits 47:32
  }
  // The establish command initialises every lock of the plan.
  EXPECT_GE(encoded.establish.operations, plan->locks.size());
}

TEST(XdnaImage, OversizedCommandIsReported) {
  // No plan the planner accepts comes near 32 KiB, so pad a copy plan with 1400 extra lock
  // initialisations (24 bytes each) to exercise the check.
  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  Collector c;
  diags.addConsumer(&c);
  auto plan = planArray(copyGraph(1), {1}, diags);
  ASSERT_TRUE(plan);
  size_t before = encodeTransactions(*plan).establish.bytes.size();
  for (uint32_t i = 0; i < 1400; ++i) plan->locks.push_back(plan->locks[0]);
  size_t after = before + 1400 * 24;
  EXPECT_FALSE(buildImage({{*plan, contractOf(copyGraph(1)), {}}}, 1, {}, diags));
  const diag::Diagnostic *d = nullptr;
  for (const auto &seen : c.seen)
    if (seen.code == "XDNA/009") d = &seen;
  ASSERT_TRUE(d) << c.messages();
  EXPECT_EQ(d->message, "the command of pipeline @copy needs " + std::to_string(after) +
                            " bytes; an NPU5 command holds at most 32768");
}

TEST(XdnaImage, HeaderBytes) {
  Collector c;
  std::vector<uint8_t> b = imageBytes(copyGraph(2), 2, c);
  ASSERT_GE(b.size(), 52u + 32u + 64u) << c.messages();
  auto u16 = [&](size_t o) { return uint32_t(b[o] | b[o + 1] << 8); };
  auto u32 = [&](size_t o) { return u16(o) | u16(o + 2) << 16; };
  auto u64 = [&](size_t o) { return uint64_t(u32(o)) | uint64_t(u32(o + 4)) << 32; };
  // ELF32 LE executable for EM_AIE, AIE2P flags, program headers right after the ELF header.
  EXPECT_EQ(u32(0), 0x464C457Fu);
  EXPECT_EQ(b[4], 1);
  EXPECT_EQ(b[5], 1);
  EXPECT_EQ(u16(16), 2u);
  EXPECT_EQ(u16(18), 264u);
  EXPECT_EQ(u32(28), 52u);
  EXPECT_EQ(u32(36), 3u);
  // Program header 0: the METADATA segment.
  EXPECT_EQ(u32(52), 0x6C584408u);
  size_t md = u32(52 + 4);
  EXPECT_EQ(u32(52 + 24), 4u);  // R only
  // Metadata header row.
  EXPECT_EQ(u32(md), 0x414E4458u);
  EXPECT_EQ(u16(md + 4), 2u);   // version
  EXPECT_EQ(u16(md + 6), 1u);   // transaction 0.1
  EXPECT_EQ(u32(md + 8), 3u);   // AIE2P
  EXPECT_EQ(u32(md + 12), 1u);  // profile revision
  EXPECT_EQ(u64(md + 16), 0x535848414C4F0001ull);
  EXPECT_EQ(u64(md + 24), 0x4E5055320006000Cull);
  EXPECT_EQ(u16(md + 32), 2u);  // columns
  EXPECT_EQ(u16(md + 34), 6u);  // rows
  EXPECT_EQ(u32(md + 36), 1u);  // allocations
  EXPECT_EQ(u32(md + 44), 1u);  // entries
  EXPECT_EQ(u32(md + 48), 2u);  // bindings
  EXPECT_EQ(u32(md + 52), 2u);  // relocations
  EXPECT_EQ(u32(md + 56), 2u);  // invocations
  // Allocation row: COMMAND, not immutable, aligned to the instruction alignment.
  EXPECT_EQ(u32(md + 64), 1u);
  EXPECT_EQ(u32(md + 68), 0u);
  // Binding row 0: BUFFER, GLOBAL, READ, DEVICE_VISIBLE|COHERENT, 2 records of 4 KiB.
  size_t binding = md + 64 + 32 + 4 + 48;
  EXPECT_EQ(u16(binding), 1u);
  EXPECT_EQ(u16(binding + 2), 1u);
  EXPECT_EQ(u16(binding + 4), 1u);
  EXPECT_EQ(u16(binding + 6), 5u);
  EXPECT_EQ(u64(binding + 8), 2u * 4096);
  // Relocation row 0: SHIM_ADDRESS from binding 0 with addend 0.
  size_t relocation = binding + 2 * 40;
  EXPECT_EQ(u32(relocation + 12), 1u);
  EXPECT_EQ(u64(relocation + 16), 0u);
  EXPECT_EQ(u64(relocation + 32), (uint64_t(1) << 48) - 1);
}
