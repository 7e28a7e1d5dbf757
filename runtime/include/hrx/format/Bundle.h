// The native bundle manifest (`bundle.json`, schema 1) that pins the native runtime archive
// `hrx prepare` installs, and the SHA-256 its integrity checks use. Format: docs/hrx.md.
#pragma once

#include "hrx/format/Sha256.h"
#include "hrx/runtime/Status.h"

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

namespace hrx::format {

struct BundleManifest {
  std::string target;                        // "x86_64-unknown-linux-gnu-gfx1151"
  std::string revision;                      // free-text provenance
  std::string url;                           // where an online install would fetch the archive from
  std::string archiveSha256;                 // 64 lowercase hex digits
  std::map<std::string, std::string> files;  // flat file name -> SHA-256 (hex)
};

// Libraries every bundle must declare in `files`.
inline constexpr std::array<std::string_view, 3> kRequiredBundleLibraries = {"libamdf.so", "libhrx_fabric.so",
                                                                             "libloomc.so"};

// Strict reader: schema must be 1, unknown fields are errors, digests are 64 lowercase hex
// digits, file names are flat ([A-Za-z0-9._-]+, not "." or ".."), the required libraries are
// declared. Errors name the JSON field ("files.\"a/b\"").
StatusOr<BundleManifest> readBundleManifest(std::string_view json);

// `[A-Za-z0-9._-]+` except "." and "..".
bool isFlatFileName(std::string_view name);
// 64 lowercase hex digits.
bool isSha256Hex(std::string_view digest);

}  // namespace hrx::format
