#include "hrx/format/Bundle.h"

#include "JsonFields.h"

#include <algorithm>
#include <bit>
#include <cctype>

namespace hrx::format {

using namespace detail;

bool isFlatFileName(std::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

bool isSha256Hex(std::string_view digest) {
  return digest.size() == 64 && std::all_of(digest.begin(), digest.end(),
                                            [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

namespace {

constexpr std::string_view kTargetPrefix = "x86_64-unknown-linux-gnu-";

// "gfx" + major/minor digits + hex stepping ("gfx1151", "gfx90a"), or "gfx<major>-generic".
bool isGfxKey(std::string_view key) {
  if (!key.starts_with("gfx")) return false;
  key.remove_prefix(3);
  auto isDigit = [](char c) { return c >= '0' && c <= '9'; };
  if (size_t dash = key.find('-'); dash != std::string_view::npos)
    return dash > 0 && key.substr(dash) == "-generic" && std::all_of(key.begin(), key.begin() + dash, isDigit);
  return key.size() >= 3 && key.size() <= 4 && std::all_of(key.begin(), key.end() - 1, isDigit) &&
         (isDigit(key.back()) || (key.back() >= 'a' && key.back() <= 'f'));
}

std::string requireDigest(JsonValue value, const std::string &path) {
  std::string digest = asString(value, path);
  if (!isSha256Hex(digest)) failAt(path, "expected 64 lowercase hex digits (SHA-256), found \"" + digest + "\"");
  return digest;
}

}  // namespace

StatusOr<BundleManifest> readBundleManifest(std::string_view json) {
  return guarded("bundle manifest: ", [&]() -> StatusOr<BundleManifest> {
    JsonDocument document = parseJson(json, "the document");
    JsonObject object(document.root(), "");
    BundleManifest manifest;
    uint64_t schema = object.u64("schema");
    if (schema != 1)
      failAt(object.pathOf("schema"), "unsupported schema " + std::to_string(schema) + " (this hrx reads schema 1)");
    manifest.target = object.string("target");
    if (!manifest.target.starts_with(kTargetPrefix) ||
        !isGfxKey(std::string_view(manifest.target).substr(kTargetPrefix.size())))
      failAt(object.pathOf("target"),
             "expected \"" + std::string(kTargetPrefix) + "<gfx key>\", found \"" + manifest.target + "\"");
    manifest.revision = object.string("revision");
    manifest.url = object.string("url");
    manifest.archiveSha256 = requireDigest(object.required("archive_sha256"), object.pathOf("archive_sha256"));
    JsonValue files = object.required("files");
    std::string filesPath = object.pathOf("files");
    if (!files.isObject()) failAt(filesPath, "expected an object of file name to SHA-256");
    if (files.empty()) failAt(filesPath, "declares no files");
    for (const JsonMember &member : files.members()) {
      std::string name(member.key);
      JsonValue digest = files.document().value(member.value);
      std::string path = filesPath + ".\"" + name + "\"";
      if (!isFlatFileName(name)) failAt(path, "file names must be flat ([A-Za-z0-9._-]+, not \".\" or \"..\")");
      manifest.files.emplace(name, requireDigest(digest, path));
    }
    for (std::string_view library : kRequiredBundleLibraries)
      if (!manifest.files.contains(std::string(library)))
        failAt(filesPath, "the required library " + std::string(library) + " is not declared");
    object.finish();
    return manifest;
  });
}

}  // namespace hrx::format
