#include "hrx/format/Identity.h"

#include "JsonFields.h"
#include "hrx/format/Bundle.h"

namespace hrx::format {
using namespace detail;

StatusOr<ArtifactIdentity> readIdentity(std::string_view json) {
  return guarded(".hrx.identity: ", [&]() -> StatusOr<ArtifactIdentity> {
    JsonDocument document = parseJson(json, "the identity");
    JsonObject top(document.root(), "");
    if (top.string("format") != "hrx.identity") failAt("format", "expected \"hrx.identity\"");
    if (top.u64("version") != 1) failAt("version", "expected 1");
    ArtifactIdentity id;
    JsonObject compiler(top.required("compiler"), "compiler");
    id.compilerName = compiler.string("name");
    id.compilerVersion = compiler.string("version");
    id.llvmVersion = compiler.string("llvm");
    id.compilerDigest = compiler.string("sha256");
    compiler.finish();
    id.target = top.string("target");
    if (id.target.empty()) failAt("target", "must not be empty");
    JsonObject spec(top.required("specialization"), "specialization");
    id.symbol = spec.string("symbol");
    JsonObject config(spec.required("config"), "specialization.config");
    for (const JsonMember &member : config.value().members()) {
      JsonValue value = *config.optional(member.key);
      id.config[std::string(member.key)] =
          value.isString() ? std::string(value.string()) : asString(value, config.pathOf(member.key));
    }
    config.finish();
    spec.finish();
    id.reportMode = top.string("report_mode");
    if (id.reportMode != "none" && id.reportMode != "summary" && id.reportMode != "details")
      failAt("report_mode", "expected none, summary or details, found \"" + id.reportMode + "\"");
    id.processorMode = top.string("processor_mode");
    id.optionsDigest = top.string("options_digest");
    JsonValue reference = top.required("reference_only");
    if (!reference.isBoolean()) failAt("reference_only", "expected true or false");
    id.referenceOnly = reference.boolean();
    if (id.referenceOnly) {
      id.referenceOnlyReason = top.string("reference_only_reason");
      if (id.referenceOnlyReason.empty()) failAt("reference_only_reason", "a reference-only artifact must say why");
    }
    if (auto core = top.optional("native_code")) {
      id.nativeCode = asString(*core, "native_code");
      if (id.referenceOnly) failAt("native_code", "a reference-only artifact has no native core code to describe");
    }
    if (auto host = top.optional("host_sha256")) {
      id.hostSha256 = asString(*host, "host_sha256");
      if (!isSha256Hex(id.hostSha256))
        failAt("host_sha256", "expected 64 lowercase hex digits (SHA-256), found \"" + id.hostSha256 + "\"");
    }
    top.finish();
    return id;
  });
}

}  // namespace hrx::format
