// .hrx.manifest and .hrx.launch: the exact JSON hrxcc writes, and every malformed case naming
// section, export and field.
#include "hrx/format/AmdgpuManifest.h"

#include "Samples.h"

#include "hrx/format/Artifact.h"
#include "hrx/format/Elf64Writer.h"
#include "hrx/format/IdentityWriter.h"

#include <gtest/gtest.h>

#include <string>

using namespace hrx::format;
using hrx::StatusOr;

namespace {

// The add_delta export: launch(%n: index, %delta: f32, %y: buffer).
std::string manifest(const std::string &arguments = R"([{"offset":0,"size":8,"kind":"value"},)"
                                                    R"({"offset":8,"size":4,"kind":"value"},)"
                                                    R"({"offset":16,"size":8,"kind":"buffer"}])",
                     const std::string &counts = R"("binding_count":1,"constant_bytes":12)",
                     const std::string &extra = "") {
  return R"({"schema_version":1,"target":"gfx1151","code_object_version":5,"processor_mode":"wgp","exports":[)"
         R"({"name":"add_delta","kernarg_bytes":24,"arguments":)" +
         arguments + "," + counts +
         R"(,"lds_bytes":0,"private_bytes":0,"wavefront_size":32,"max_flat_workgroup_size":128,)"
         R"("resources":{"code_bytes":256,"vgpr_count":4,"sgpr_count":12,"vgpr_spill_count":0,)"
         R"("sgpr_spill_count":0,"occupancy_waves_per_simd":16,"workgroup_processor_mode":null})" +
         extra + "}]}";
}

std::string launches(const std::string &evaluator = "hrx.launch.add_delta", const std::string &bits = "[64]") {
  return R"({"schema_version":1,"exports":[{"name":"add_delta","symbol":"add_delta","workload_bits":)" + bits +
         R"(,"evaluator":")" + evaluator + R"("}]})";
}

std::string error(const std::string &json) { return readAmdgpuManifest(json).status().message(); }

TEST(AmdgpuManifest, ReadsEveryField) {
  auto m = readAmdgpuManifest(manifest());
  ASSERT_TRUE(m.isOk()) << m.status().message();
  ASSERT_EQ(m->exports.size(), 1u);
  const AmdgpuExport &e = m->exports[0];
  EXPECT_EQ(e.name, "add_delta");
  EXPECT_EQ(e.kernargBytes, 24u);
  ASSERT_EQ(e.arguments.size(), 3u);
  EXPECT_EQ(e.arguments[1], (LaunchArgument{8, 4, LaunchArgumentKind::Value}));
  EXPECT_EQ(e.arguments[2], (LaunchArgument{16, 8, LaunchArgumentKind::Buffer}));
  EXPECT_EQ(e.bindingCount, 1u);
  EXPECT_EQ(e.constantBytes, 12u);
  EXPECT_EQ(e.maxFlatWorkgroupSize, 128u);
  EXPECT_EQ(e.resources.occupancyWavesPerSimd, 16u);
  EXPECT_FALSE(e.resources.workgroupProcessorMode.has_value());
  EXPECT_EQ(m->find("add_delta"), &e);
  EXPECT_EQ(m->find("other"), nullptr);

  auto l = readAmdgpuLaunches(launches());
  ASSERT_TRUE(l.isOk()) << l.status().message();
  EXPECT_EQ(l->at(0), (AmdgpuLaunch{"add_delta", "add_delta", {64}, "hrx.launch.add_delta"}));
  EXPECT_TRUE(checkManifestAgainstLaunches(*m, *l).isOk());
}

TEST(AmdgpuManifest, RejectsMalformedManifests) {
  EXPECT_EQ(error("{"), ".hrx.manifest: the manifest is not valid JSON (byte 2)");
  EXPECT_EQ(error(R"({"schema_version":2})"),
            ".hrx.manifest: schema_version: unsupported version 2 (this reader knows 1)");
  EXPECT_EQ(error(manifest(R"([{"offset":0,"size":8,"kind":"scalar"}])")),
            ".hrx.manifest: export 'add_delta': exports[0].arguments[0].kind: expected one of \"buffer\", \"value\", "
            "found \"scalar\"");
  EXPECT_EQ(error(manifest(R"([{"offset":0,"size":4,"kind":"buffer"}])")),
            ".hrx.manifest: export 'add_delta': exports[0].arguments[0].size: a buffer argument is a 64-bit pointer "
            "(8 bytes), found 4");
  EXPECT_EQ(error(manifest(R"([{"offset":0,"size":0,"kind":"value"}])")),
            ".hrx.manifest: export 'add_delta': exports[0].arguments[0].size: an argument has at least one byte");
  EXPECT_EQ(error(manifest(R"([{"offset":0,"size":8,"kind":"value"},{"offset":4,"size":4,"kind":"value"}])")),
            ".hrx.manifest: export 'add_delta': exports[0].arguments[1].offset: offset 4 overlaps the previous "
            "argument (ending at 8)");
  EXPECT_EQ(error(manifest(R"([{"offset":20,"size":8,"kind":"buffer"}])")),
            ".hrx.manifest: export 'add_delta': exports[0].arguments[0].offset: argument ends at byte 28, past "
            "kernarg_bytes 24");
  EXPECT_EQ(error(manifest(R"([{"offset":0,"size":8,"kind":"value","label":"n"}])")),
            ".hrx.manifest: export 'add_delta': exports[0].arguments[0].label: unknown field");
  EXPECT_EQ(error(manifest(R"([{"offset":16,"size":8,"kind":"buffer"}])")),
            ".hrx.manifest: export 'add_delta': exports[0].constant_bytes: 12 does not match the value arguments' "
            "total size 0");
  EXPECT_EQ(error(manifest(R"([{"offset":0,"size":8,"kind":"value"}])", R"("binding_count":1,"constant_bytes":8)")),
            ".hrx.manifest: export 'add_delta': exports[0].binding_count: 1 does not match the 0 buffer argument(s)");
  EXPECT_EQ(error(manifest(R"([{"offset":0,"size":"8","kind":"value"}])")),
            ".hrx.manifest: export 'add_delta': exports[0].arguments[0].size: expected a non-negative integer, found "
            "string");
  EXPECT_EQ(error(manifest(R"([])", R"("binding_count":0)")),
            ".hrx.manifest: export 'add_delta': exports[0].constant_bytes: required field is missing");
  EXPECT_EQ(error(manifest(R"([])", R"("binding_count":0,"constant_bytes":0)", R"(,"color":1)")),
            ".hrx.manifest: export 'add_delta': exports[0].color: unknown field");
  std::string twice = manifest();
  twice.insert(twice.rfind(']'),
               "," + twice.substr(twice.find("{\"name\""), twice.rfind(']') - twice.find("{\"name\"")));
  EXPECT_EQ(error(twice), ".hrx.manifest: exports[1].name: export 'add_delta' appears twice");
  std::string wave = manifest();
  wave.replace(wave.find("\"wavefront_size\":32"), 19, "\"wavefront_size\":16");
  EXPECT_EQ(error(wave), ".hrx.manifest: export 'add_delta': exports[0].wavefront_size: expected 32 or 64, found 16");
  std::string flat = manifest();
  flat.replace(flat.find("\"max_flat_workgroup_size\":128"), 29, "\"max_flat_workgroup_size\":0");
  EXPECT_EQ(error(flat),
            ".hrx.manifest: export 'add_delta': exports[0].max_flat_workgroup_size: expected 1..1024, found 0");
}

// Names and types are optional (artifacts before they were recorded have none) and checked.
TEST(AmdgpuManifest, ScalarArgumentTypes) {
  auto m = readAmdgpuManifest(manifest(R"([{"offset":0,"size":8,"kind":"value","name":"n","type":"i64"},)"
                                       R"({"offset":8,"size":4,"kind":"value","name":"delta","type":"f32"},)"
                                       R"({"offset":16,"size":8,"kind":"buffer","name":"y","type":"pointer"}])"));
  ASSERT_TRUE(m.isOk()) << m.status().message();
  const auto &arguments = m->exports[0].arguments;
  EXPECT_EQ(arguments[0].name, "n");
  EXPECT_EQ(arguments[0].type, ScalarType::I64);
  EXPECT_EQ(arguments[1].type, ScalarType::F32);
  EXPECT_EQ(arguments[2].type, ScalarType::Pointer);
  EXPECT_EQ(describeLaunchArgument(arguments, 1), "argument 1 (%delta)");
  EXPECT_EQ(describeLaunchArgument(readAmdgpuManifest(manifest())->exports[0].arguments, 1), "argument 1");

  for (ScalarType t : {ScalarType::Bool, ScalarType::I8, ScalarType::U16, ScalarType::U32, ScalarType::F16,
                       ScalarType::BF16, ScalarType::F64, ScalarType::Pointer})
    EXPECT_EQ(parseScalarType(scalarTypeName(t)), t);
  EXPECT_FALSE(parseScalarType("ui32").has_value());

  EXPECT_EQ(error(manifest(R"([{"offset":0,"size":4,"kind":"value","type":"f33"}])",
                           R"("binding_count":0,"constant_bytes":4)")),
            ".hrx.manifest: export 'add_delta': exports[0].arguments[0].type: expected one of \"bool\", \"i8\", "
            "\"i16\", \"i32\", \"i64\", \"u8\", \"u16\", \"u32\", \"u64\", \"f16\", \"bf16\", \"f32\", "
            "\"f64\", \"pointer\", found \"f33\"");
  EXPECT_EQ(
      error(manifest(R"([{"offset":0,"size":4,"kind":"value","type":"i64"}])",
                     R"("binding_count":0,"constant_bytes":4)")),
      ".hrx.manifest: export 'add_delta': exports[0].arguments[0].type: type \"i64\" has 8 bytes, the argument 4");
  EXPECT_EQ(error(manifest(R"([{"offset":0,"size":8,"kind":"buffer","type":"u64"}])",
                           R"("binding_count":1,"constant_bytes":0)")),
            ".hrx.manifest: export 'add_delta': exports[0].arguments[0].type: a buffer argument has type \"pointer\", "
            "found \"u64\"");
  EXPECT_EQ(
      error(manifest(R"([{"offset":0,"size":8,"kind":"value","name":""}])", R"("binding_count":0,"constant_bytes":8)")),
      ".hrx.manifest: export 'add_delta': exports[0].arguments[0].name: an argument name is not empty");
  EXPECT_NE(
      error(manifest(R"([{"offset":0,"size":8,"kind":"value","type":7}])", R"("binding_count":0,"constant_bytes":8)"))
          .find("exports[0].arguments[0].type: expected a string"),
      std::string::npos);
}

TEST(AmdgpuManifest, RejectsMalformedLaunchTables) {
  EXPECT_EQ(readAmdgpuLaunches(launches("hrx.launch.other")).status().message(),
            ".hrx.launch: export 'add_delta': exports[0].evaluator: expected \"hrx.launch.add_delta\", found "
            "\"hrx.launch.other\"");
  EXPECT_EQ(readAmdgpuLaunches(launches("hrx.launch.add_delta", "[12]")).status().message(),
            ".hrx.launch: export 'add_delta': exports[0].workload_bits[0]: expected 8, 16, 32 or 64, found 12");
  EXPECT_EQ(readAmdgpuLaunches(R"({"schema_version":1,"exports":[{"name":"k"}]})").status().message(),
            ".hrx.launch: export 'k': exports[0].symbol: required field is missing");
  EXPECT_EQ(readAmdgpuLaunches(R"({"schema_version":1,"exports":{}})").status().message(),
            ".hrx.launch: exports: expected an array, found object");

  auto m = readAmdgpuManifest(manifest());
  ASSERT_TRUE(m.isOk());
  std::vector<AmdgpuLaunch> other{{"other", "other", {}, "hrx.launch.other"}};
  EXPECT_EQ(checkManifestAgainstLaunches(*m, other).message(), ".hrx.launch: export 'other' is not in .hrx.manifest");
  EXPECT_EQ(checkManifestAgainstLaunches(*m, {}).message(),
            ".hrx.manifest: export 'add_delta' has no .hrx.launch entry");
}

std::vector<uint8_t> bytesOf(const std::string &text) { return {text.begin(), text.end()}; }

// An HSACO with `sections` plus the identity and host code hrxcc writes beside a manifest.
StatusOr<Artifact> artifactWith(std::vector<SectionPayload> sections, bool withIdentityAndHost = true) {
  if (withIdentityAndHost) {
    ArtifactIdentity identity = samples::xdnaIdentity();
    identity.target = "gfx1151";
    identity.referenceOnly = false;
    identity.referenceOnlyReason.clear();
    sections.push_back({".hrx.identity", bytesOf(writeIdentity(identity)), false});
    sections.push_back({".hrx.host", samples::hostObject(), false});
  }
  auto elf = appendElf64Sections(samples::elf64Object(kMachineAmdgpu, 0x4a, 16), sections);
  if (!elf.isOk()) return elf.status();
  return readArtifact(*elf);
}

TEST(AmdgpuManifest, ArtifactsAgreeWithTheirContracts) {
  std::string oneBinding = R"({"version":1,"contracts":{"add_delta":{"bindings":[{"bytes":4,"alignment":4,)"
                           R"("access":"ReadWrite","layout":""}],"constants":[]}}})";
  auto good = artifactWith({{".hrx.manifest", bytesOf(manifest()), false},
                            {".hrx.launch", bytesOf(launches()), false},
                            {".hrx.contract", bytesOf(oneBinding), false}});
  ASSERT_TRUE(good.isOk()) << good.status().message();
  ASSERT_TRUE(good->manifest.has_value());
  EXPECT_EQ(good->manifest->exports[0].constantBytes, 12u);
  EXPECT_EQ(good->launches.at(0).symbol, "add_delta");

  EXPECT_EQ(artifactWith({{".hrx.manifest", bytesOf(manifest()), false}}).status().message(),
            ".hrx.launch: section is missing (.hrx.manifest is present; the two come together)");
  std::string noBindings = R"({"version":1,"contracts":{"add_delta":{"bindings":[],"constants":[]}}})";
  EXPECT_EQ(artifactWith({{".hrx.manifest", bytesOf(manifest()), false},
                          {".hrx.launch", bytesOf(launches()), false},
                          {".hrx.contract", bytesOf(noBindings), false}})
                .status()
                .message(),
            ".hrx.contract: contract for 'add_delta' has 0 binding(s), .hrx.manifest says binding_count 1");
  // A manifest comes with the identity and host code: renamed away they would read as absent.
  EXPECT_EQ(artifactWith({{".hrx.manifest", bytesOf(manifest()), false},
                          {".hrx.launch", bytesOf(launches()), false},
                          {".hrx.contract", bytesOf(oneBinding), false}},
                         /*withIdentityAndHost=*/false)
                .status()
                .message(),
            ".hrx.identity: section is missing (an AMDGPU artifact with .hrx.manifest carries it)");
  // The manifest's code object version must be the ELF header's (EI_ABIVERSION 3 is v5).
  std::string v6 = manifest();
  v6.replace(v6.find("\"code_object_version\":5"), 23, "\"code_object_version\":6");
  EXPECT_EQ(artifactWith({{".hrx.manifest", bytesOf(v6), false},
                          {".hrx.launch", bytesOf(launches()), false},
                          {".hrx.contract", bytesOf(oneBinding), false}})
                .status()
                .message(),
            ".hrx.manifest: code_object_version is 6, but the ELF header's EI_ABIVERSION 3 means v5");
}

TEST(AmdgpuManifest, CodeObjectHeaderIsChecked) {
  std::vector<uint8_t> object = samples::elf64Object(kMachineAmdgpu, 0x4a, 16);
  auto withByte = [&](size_t at, uint8_t value) {
    std::vector<uint8_t> b = object;
    b[at] = value;
    auto artifact = readArtifact(b);
    return artifact.isOk() ? std::string("loaded") : artifact.status().message();
  };
  EXPECT_EQ(withByte(0, 0x7F), "loaded");
  EXPECT_EQ(withByte(7, 0), "ELF64: e_ident[EI_OSABI] is 0, expected 64 (ELFOSABI_AMDGPU_HSA)");
  EXPECT_EQ(withByte(8, 2), "ELF64: e_ident[EI_ABIVERSION] is 2, expected 3 or 4 (code object v5 or v6)");
  EXPECT_EQ(withByte(16, 2), "ELF64: e_type is 2, expected 3 (ET_DYN)");
  EXPECT_EQ(withByte(51, 0x80), "ELF64: e_flags 0x8000004a has reserved bits set or a generic version that does not "
                                "match gfx1151");
  EXPECT_EQ(withByte(49, 0x10), "ELF64: e_flags 0x0000104a has reserved bits set or a generic version that does not "
                                "match gfx1151");
}

}  // namespace

namespace {
// The manifest with a top-level "globals" array.
std::string withGlobals(const std::string &globals) {
  std::string m = manifest();
  return m.substr(0, m.size() - 1) + R"(,"globals":)" + globals + "}";
}
}  // namespace

TEST(AmdgpuManifest, ReadsDeviceGlobals) {
  auto m = readAmdgpuManifest(
      withGlobals(R"([{"name":"table","symbol":"table","element":"i32","count":8,"bytes":32},)"
                  R"({"name":"params::offset","symbol":"_ZN6params6offsetE","element":"i64","count":1,"bytes":8},)"
                  R"({"name":"pair","symbol":"pair","count":1,"bytes":8}])"));
  ASSERT_TRUE(m.isOk()) << m.status().message();
  ASSERT_EQ(m->globals.size(), 3u);
  EXPECT_EQ(m->globals[0], (DeviceGlobal{"table", "table", ScalarType::I32, 8, 32}));
  EXPECT_EQ(m->globals[2].element, std::nullopt);
  EXPECT_EQ(m->findGlobal("params::offset"), &m->globals[1]);
  EXPECT_EQ(m->findGlobal("_ZN6params6offsetE"), &m->globals[1]);
  EXPECT_EQ(m->findGlobal("nothing"), nullptr);
  EXPECT_TRUE(readAmdgpuManifest(manifest())->globals.empty());
}

TEST(AmdgpuManifest, RejectsMalformedDeviceGlobals) {
  EXPECT_EQ(error(withGlobals(R"({"name":"g"})")), ".hrx.manifest: globals: expected an array");
  EXPECT_EQ(error(withGlobals(R"([{"name":"g","symbol":"g","element":"f32","count":2,"bytes":4}])")),
            ".hrx.manifest: globals[0].bytes: 4 bytes is not 2 x f32");
  EXPECT_EQ(error(withGlobals(R"([{"name":"g","symbol":"g","count":0,"bytes":4}])")),
            ".hrx.manifest: globals[0].count: a global has at least one element");
  EXPECT_EQ(error(withGlobals(R"([{"name":"g","symbol":"g","element":"pointer","count":1,"bytes":8}])")),
            ".hrx.manifest: globals[0].element: a global's element is a scalar type");
  EXPECT_EQ(error(withGlobals(R"([{"name":"g","symbol":"g","count":1,"bytes":4},)"
                              R"({"name":"h","symbol":"g","count":1,"bytes":4}])")),
            ".hrx.manifest: globals[1].symbol: global 'g' appears twice");
  EXPECT_EQ(error(withGlobals(R"([{"name":"","symbol":"g","count":1,"bytes":4}])")),
            ".hrx.manifest: globals[0].name: empty name");
  EXPECT_NE(error(withGlobals(R"([{"name":"g","symbol":"g","count":1,"bytes":4,"extra":1}])")), "");
}
