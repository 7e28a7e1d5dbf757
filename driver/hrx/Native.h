// `hrx doctor`, `hrx prepare` and `hrx gc`: the native setup (devices, the pinned runtime bundle
// and its cache). Exit codes follow hrx.cpp: 0 success, 1 error, 64 usage error.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace hrx::tool {

// $XDG_CACHE_HOME/hrx when XDG_CACHE_HOME is absolute, else $HOME/.cache/hrx.
std::string cacheRoot();

// The bundles under cacheRoot()/runtime, in name order, each verified against its manifest as
// `hrx doctor` does (`hrx info` reports the same ones).
struct InstalledBundle {
  std::string directory;
  std::string problem;  // empty: verified
};
std::vector<InstalledBundle> installedBundles();

int doctor();
// `archive` empty: resolve the pinned bundle from the cache. `manifestPath` empty: the default
// manifest (HRX_BUNDLE_MANIFEST, else bundle.json next to the archive, else ./bundle.json).
int prepare(const std::string &archive, const std::string &manifestPath);
int gc(unsigned days, const std::string &manifestPath);

}  // namespace hrx::tool
