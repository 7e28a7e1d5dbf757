// KernelContract, identity, ELF64 sections, fat containers, compile reports and whole-artifact
// loading.
#include "Samples.h"

#include "hrx/format/Artifact.h"
#include "hrx/format/Elf64Writer.h"
#include "hrx/format/FatWriter.h"
#include "hrx/format/ReportRender.h"
#include "hrx/ReportFields.h"
#include "hrx/format/IdentityWriter.h"
#include "hrx/format/XdnaWriter.h"
#include "hrx/format/KernelContractWriter.h"

#include <gtest/gtest.h>

using namespace hrx::format;

namespace {

TEST(KernelContract, JsonRoundTripAndDenyUnknownFields) {
  KernelContract c{{{1048576, 4, ContractAccess::Read, "u32 passthrough"}, {64, 64, ContractAccess::ReadWrite, "tile"}},
                   {1, 2}};
  std::string json = writeKernelContract(c);
  EXPECT_EQ(json, R"({"bindings":[{"bytes":1048576,"alignment":4,"access":"Read","layout":"u32 passthrough"},)"
                  R"({"bytes":64,"alignment":64,"access":"ReadWrite","layout":"tile"}],"constants":[1,2]})"
                  "\n");
  auto back = readKernelContract(json);
  ASSERT_TRUE(back.isOk()) << back.status().message();
  EXPECT_EQ(back.value(), c);
  EXPECT_EQ(readKernelContract(R"({"bindings":[],"constants":[],"extra":1})").status().message(),
            "kernel contract: extra: unknown field");
  EXPECT_EQ(
      readKernelContract(R"({"bindings":[{"bytes":4,"alignment":4,"access":"Modify","layout":""}],"constants":[]})")
          .status()
          .message(),
      "kernel contract: bindings[0].access: expected one of \"Read\", \"Write\", \"ReadWrite\", found \"Modify\"");
  EXPECT_EQ(readKernelContract(R"({"bindings":[],"constants":[256]})").status().message(),
            "kernel contract: constants[0]: value 256 exceeds the maximum 255");
  EXPECT_EQ(
      readKernelContract(R"({"bindings":[{"bytes":0,"alignment":4,"access":"Read","layout":""}],"constants":[]})")
          .status()
          .message(),
      "kernel contract: (top level): invalid kernel binding extent or alignment: binding 0 has 0 bytes aligned to 4");
  EXPECT_EQ((KernelContract{{{16, 3, ContractAccess::Read, ""}}, {}}).validate().message(),
            "invalid kernel binding extent or alignment: binding 0 has 16 bytes aligned to 3");
}

TEST(KernelContract, AgreesWithBindingRows) {
  auto image = xdna::readImage(samples::copyImageBytes());
  ASSERT_TRUE(image.isOk());
  auto rows = image->bindingsOf(image->entries[0]);
  KernelContract c{{{1024, 4, ContractAccess::Read, ""}, {1024, 4, ContractAccess::Write, ""}}, {}};
  EXPECT_TRUE(checkContractAgainstBindings("copy", c, rows).isOk());
  c.bindings[1].access = ContractAccess::ReadWrite;
  EXPECT_EQ(
      checkContractAgainstBindings("copy", c, rows).message(),
      "contract of entry 'copy' disagrees with its binding rows: binding 1: access bits 2, contract access ReadWrite");
  c.bindings.pop_back();
  EXPECT_EQ(checkContractAgainstBindings("copy", c, rows).message(),
            "contract of entry 'copy' disagrees with its binding rows: the contract has 1 bindings, the entry 2");
}

TEST(Identity, RoundTripAndReferenceOnlyNeedsAReason) {
  ArtifactIdentity id = samples::xdnaIdentity();
  auto back = readIdentity(writeIdentity(id));
  ASSERT_TRUE(back.isOk()) << back.status().message();
  EXPECT_EQ(back.value(), id);
  std::string json = writeIdentity(id);
  json.replace(json.find("\"reference_only_reason\""), 23, "\"why\"");
  EXPECT_EQ(readIdentity(json).status().message(), ".hrx.identity: reference_only_reason: required field is missing");
}

TEST(Identity, CoreCodeDescribesANativeImageOnly) {
  ArtifactIdentity id = samples::xdnaIdentity();
  EXPECT_EQ(writeIdentity(id).find("native_code"), std::string::npos);  // absent unless recorded
  id.referenceOnly = false;
  id.referenceOnlyReason.clear();
  id.nativeCode = "native AIE2P core code, not yet run on hardware";
  auto back = readIdentity(writeIdentity(id));
  ASSERT_TRUE(back.isOk()) << back.status().message();
  EXPECT_EQ(back.value(), id);
  std::string json = writeIdentity(id);
  const std::string notReference = "\"reference_only\": false";
  ASSERT_NE(json.find(notReference), std::string::npos) << json;
  json.replace(json.find(notReference), notReference.size(),
               "\"reference_only\": true, \"reference_only_reason\": \"x\"");
  EXPECT_EQ(readIdentity(json).status().message(),
            ".hrx.identity: native_code: a reference-only artifact has no native core code to describe");
}

TEST(Identity, HostDigestIsOptionalAndChecked) {
  ArtifactIdentity id = samples::xdnaIdentity();
  EXPECT_EQ(writeIdentity(id).find("host_sha256"), std::string::npos);  // absent unless recorded
  id.hostSha256 = std::string(64, 'c');
  auto back = readIdentity(writeIdentity(id));
  ASSERT_TRUE(back.isOk()) << back.status().message();
  EXPECT_EQ(back->hostSha256, id.hostSha256);
  id.hostSha256 = "C0FFEE";
  EXPECT_EQ(readIdentity(writeIdentity(id)).status().message(),
            ".hrx.identity: host_sha256: expected 64 lowercase hex digits (SHA-256), found \"C0FFEE\"");
}

TEST(Elf64Sections, AppendAndReadBack) {
  std::vector<uint8_t> hsaco = samples::hsacoBytes();
  auto elf = readElf64Sections(hsaco);
  ASSERT_TRUE(elf.isOk()) << elf.status().message();
  EXPECT_EQ(elf->machine, kMachineAmdgpu);
  EXPECT_EQ(amdgpuProcessorName(elf->flags), "gfx1151");
  ASSERT_EQ(elf->sections.size(), 9u);
  EXPECT_EQ(elf->sections[1].name, ".text");
  EXPECT_EQ(elf->sections[3].name, ".hrx.manifest");
  ASSERT_NE(elf->section(".hrx.host"), nullptr);
  EXPECT_EQ(elf->section(".hrx.host")->bytes, samples::hostObject());
  // The original bytes are untouched (only e_shoff and e_shnum change in the header).
  std::vector<SectionPayload> again = {{".hrx.manifest", {1}, false}};
  EXPECT_EQ(appendElf64Sections(hsaco, again).status().message(),
            "ELF64: cannot add section .hrx.manifest: the file already has one");
}

TEST(Elf64Sections, RejectsMalformedHeaders) {
  std::vector<uint8_t> b = samples::hsacoBytes();
  auto corrupt = [&](size_t at, uint64_t v, unsigned width) {
    std::vector<uint8_t> copy = b;
    for (unsigned i = 0; i < width; ++i) copy[at + i] = uint8_t(v >> (8 * i));
    auto r = readElf64Sections(copy);
    return r.isOk() ? std::string("OK") : r.status().message();
  };
  EXPECT_EQ(corrupt(4, 1, 1), "ELF64: e_ident[EI_CLASS] is 1, expected 2 (ELFCLASS64)");
  EXPECT_EQ(corrupt(58, 40, 2), "ELF64: e_shentsize is 40, expected 64");
  EXPECT_EQ(corrupt(62, 99, 2), "ELF64: e_shstrndx is 99, expected below e_shnum 9");
  EXPECT_EQ(corrupt(40, b.size(), 8).substr(0, 35), "ELF64: the section-header table (0x");
  uint64_t shoff = 0;
  for (int i = 0; i < 8; ++i) shoff |= uint64_t(b[40 + i]) << (8 * i);
  EXPECT_EQ(corrupt(shoff + 64 + 32, 1u << 30, 8).substr(0, 43), "ELF64: section header 1: data 0x40+10737418");
  EXPECT_EQ(corrupt(shoff + 64, 1u << 20, 4),
            "ELF64: section header 1: sh_name 1048576 lies outside the section-name table");
  // Fuzzer finding: a name table that is not SHT_STRTAB (here NOBITS) is refused, so an
  // appended file can always be read back.
  EXPECT_EQ(corrupt(shoff + 2 * 64 + 4, 8, 4),
            "ELF64: e_shstrndx 2 does not name a section-name table (SHT_STRTAB), found type 8");
  for (size_t size = 0; size < b.size(); size += 8)
    EXPECT_FALSE(readElf64Sections(std::span(b.data(), size)).isOk() && size < shoff) << size;
}

TEST(Fat, RoundTripAndValidation) {
  std::vector<uint8_t> fat = samples::fatBytes();
  auto entries = readFat(fat);
  ASSERT_TRUE(entries.isOk()) << entries.status().message();
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].string("arch"), "amd.xdna.strix_halo.17f0_11");
  EXPECT_EQ((*entries)[1].string("triple"), "amdgcn-amd-amdhsa");
  EXPECT_EQ((*entries)[1].image, samples::hsacoBytes());
  EXPECT_EQ(writeFat(entries.value()), fat);
  std::vector<uint8_t> bad = fat;
  bad[4] = 2;
  EXPECT_EQ(readFat(bad).status().message(), "fat container: offload binary 0 (at byte 0): version 2, expected 1");
  bad = fat;
  bad[8] = 0xFF, bad[9] = 0xFF, bad[10] = 0xFF;
  EXPECT_EQ(readFat(bad).status().message().substr(0, 56), "fat container: offload binary 0 (at byte 0): size 167772");
  bad = fat;
  bad[32] = 9;
  EXPECT_EQ(readFat(bad).status().message(), "fat container: offload binary 0 (at byte 0): image kind 9 is unknown");
  for (size_t size = 1; size < fat.size(); size += 8) EXPECT_FALSE(readFat(std::span(fat.data(), size)).isOk()) << size;
}

TEST(CompileReport, ValidatesShowsAndDiffs) {
  auto before = readCompileReport(samples::amdgpuReportJson(256, 8));
  auto after = readCompileReport(samples::amdgpuReportJson(300, -1));
  ASSERT_TRUE(before.isOk()) << before.status().message();
  ASSERT_TRUE(after.isOk());
  auto diff = diffReports(before.value(), after.value(), hrx::reportFieldsFor(before->backend()));
  ASSERT_TRUE(diff.isOk()) << diff.status().message();
  const auto &change = (*diff)["changes"][0];
  EXPECT_EQ(change["function"], "fill");
  EXPECT_EQ(change["delta"]["code_bytes"], 44);
  EXPECT_TRUE(change["delta"]["vector_registers"].is_null());  // unknown after: null, never 0
  EXPECT_TRUE(change["after"]["vector_registers"].is_null());
  EXPECT_TRUE((*diff)["wait_reason_changes"].is_array());
  auto other = readCompileReport(samples::amdgpuReportJson(300, 8, "ffff"));
  // Each differing identity field is named with both values (issue #27).
  EXPECT_EQ(diffReports(before.value(), other.value(), hrx::reportFieldsFor(before->backend())).status().message(),
            "reports must use the same compiler, target, backend, processor policy, and detail mode; "
            "compiler digest (compiler): before '0123abcd', after 'ffff'");
  auto summary = readCompileReport(samples::xdnaReportJson("summary"));
  auto details = readCompileReport(samples::xdnaReportJson("details"));
  ASSERT_TRUE(summary.isOk()) << summary.status().message();
  EXPECT_EQ(diffReports(summary.value(), details.value(), hrx::reportFieldsFor(summary->backend())).status().message(),
            "reports must use the same compiler, target, backend, processor policy, and detail mode; "
            "detail mode (document.mode): before 'summary', after 'details'");
  const auto fields = hrx::reportFieldsFor(summary->backend());
  EXPECT_TRUE(showReport(summary.value(), fields)["wait_reasons"].is_null());  // not collected
  EXPECT_EQ(showReport(summary.value(), fields)["entries"][0]["program_bytes_estimate"], 512);
}

TEST(CompileReport, Rejections) {
  std::string deep = R"({"compiler":"x","target":"gfx1151","processor_mode":"Default","document":)" +
                     std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_EQ(readCompileReport(deep).status().message(), "compile report: the report nests deeper than 64 levels");
  EXPECT_EQ(readCompileReport(R"({"compiler":"","target":"gfx1151","processor_mode":"Default","document":{}})")
                .status()
                .message(),
            "compile report schema or compiler identity is unsupported; regenerate the report (compiler \"\", target "
            "\"gfx1151\")");
  EXPECT_EQ(
      readCompileReport(
          R"({"compiler":"x","target":"gfx1151","processor_mode":"Default","document":{"kind":"loom.compile_report","schema_version":1}})")
          .status()
          .message(),
      "compile report schema or compiler identity is unsupported; regenerate the report (document kind/schema_version "
      "must be \"loom.compile_report\"/0)");
  EXPECT_EQ(
      readCompileReport(
          R"({"compiler":"x","target":"gfx1151","processor_mode":"Default","document":{"kind":"loom.compile_report","schema_version":0,"entries":{"count":2,"rows":[{"function":"a"}]}}})")
          .status()
          .message(),
      "compile report: document.entries.count: 2 but the section has 1 rows");
  EXPECT_EQ(
      readCompileReport(
          R"({"compiler":"x","target":"gfx1151","processor_mode":"Default","document":{"kind":"loom.compile_report","schema_version":0,"entries":{"count":1}}})")
          .status()
          .message(),
      "compile report: document.entries.rows: rows may be omitted only when count is 0 (count is 1)");
  EXPECT_EQ(
      readCompileReport(
          R"({"compiler":"x","target":"gfx1151","processor_mode":"Default","document":{"kind":"loom.compile_report","schema_version":0,"entries":{"count":1,"rows":[{"name":"a"}]}}})")
          .status()
          .message(),
      "compile report: document.entries.rows[0].function: every entry row needs a function name");
}

TEST(Artifact, LoadsEveryKind) {
  auto xdnaArtifact = readArtifact(samples::copyImageBytes());
  ASSERT_TRUE(xdnaArtifact.isOk()) << xdnaArtifact.status().message();
  EXPECT_EQ(xdnaArtifact->kind, ArtifactKind::Xdna);
  EXPECT_TRUE(xdnaArtifact->referenceOnly());
  ASSERT_EQ(xdnaArtifact->plans.size(), 1u);
  ASSERT_TRUE(xdnaArtifact->contracts.has_value());
  EXPECT_EQ(xdnaArtifact->contracts->at("copy").bindings.size(), 2u);
  auto gpu = readArtifact(samples::hsacoBytes());
  ASSERT_TRUE(gpu.isOk()) << gpu.status().message();
  EXPECT_EQ(gpu->target, "gfx1151");
  EXPECT_FALSE(gpu->referenceOnly());
  auto fat = readArtifact(samples::fatBytes());
  ASSERT_TRUE(fat.isOk()) << fat.status().message();
  ASSERT_EQ(fat->members.size(), 2u);
}

TEST(Artifact, HostCodeMustBeAnX86SharedObject) {
  xdna::Image image = samples::copyImage();
  image.sections[2].bytes = samples::elf64Object(kMachineAmdgpu, 0x4a, 16);
  EXPECT_EQ(readArtifact(xdna::writeImage(image).value()).status().message(),
            ".hrx.host: expected an x86-64 shared object (e_machine 62, e_type 3), found e_machine 224, e_type 3");
  image.sections[2].bytes.resize(40);
  EXPECT_EQ(readArtifact(xdna::writeImage(image).value()).status().message(),
            ".hrx.host: ELF64: file is 40 bytes, shorter than the 64-byte ELF64 header");
}

TEST(Artifact, PlanAndContractMustAgreeWithTheImage) {
  xdna::Image image = samples::copyImage();
  image.bindings[1].minimumByteLength = 512;
  // The contract section still says 1024 bytes.
  auto bytes = xdna::writeImage(image);
  ASSERT_TRUE(bytes.isOk());
  EXPECT_EQ(readArtifact(bytes.value()).status().message(),
            ".hrx.contract: contract of entry 'copy' disagrees with its binding rows: binding 1: minimum_byte_length "
            "512, contract bytes 1024");
  image = samples::copyImage();
  image.sections.erase(image.sections.begin());  // no contract
  image.bindings[1].minimumByteLength = 512;
  EXPECT_EQ(readArtifact(xdna::writeImage(image).value()).status().message(),
            ".hrx.plan: plan 'copy' binding 1 touches 1024 bytes, the binding row guarantees only 512");
}

}  // namespace
