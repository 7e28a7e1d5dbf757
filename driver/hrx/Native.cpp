#include "Native.h"

#include "hrx/format/Bundle.h"
#include "hrx/runtime/Admission.h"
#include "hrx/runtime/GpuDevice.h"

#include <fcntl.h>
#include <gnu/libc-version.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;

namespace hrx::tool {
namespace {

constexpr int kExitError = 1;

int fail(const std::string &message) {
  std::cerr << "hrx: error: " << message << "\n";
  return kExitError;
}

std::string envOr(const char *name, std::string fallback = {}) {
  const char *value = std::getenv(name);
  return value && *value ? std::string(value) : fallback;
}

bool readText(const fs::path &path, std::string &text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return true;
}

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

// SHA-256 of a file; empty with `problem` set when it cannot be read.
std::string fileSha256(const fs::path &path, std::string &problem) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    problem = "cannot read '" + path.string() + "': " + std::strerror(errno);
    return {};
  }
  format::Sha256 hash;
  std::vector<uint8_t> chunk(1 << 16);
  while (in) {
    in.read(reinterpret_cast<char *>(chunk.data()), std::streamsize(chunk.size()));
    hash.update(std::span(chunk.data(), size_t(in.gcount())));
  }
  return hash.finishHex();
}

// Every declared file is a regular file (not a symlink) with its pinned digest. Returns the
// first problem, or "" when the directory verifies.
std::string verifyBundleDirectory(const fs::path &dir, const format::BundleManifest &manifest) {
  std::error_code ec;
  for (const auto &[name, digest] : manifest.files) {
    fs::path file = dir / name;
    if (fs::symlink_status(file, ec).type() != fs::file_type::regular)
      return name + " is missing or not a regular file";
    std::string problem;
    std::string actual = fileSha256(file, problem);
    if (actual.empty()) return problem;
    if (actual != digest)
      return name + " has SHA-256 " + actual + ", but the manifest pins " + digest + " (tampered file)";
  }
  return {};
}

StatusOr<format::BundleManifest> loadManifest(const fs::path &path) {
  std::string text;
  if (!readText(path, text))
    return Status(StatusCode::NotFound, "cannot read bundle manifest '" + path.string() + "': " + std::strerror(errno));
  auto manifest = format::readBundleManifest(text);
  if (!manifest.isOk()) return Status(manifest.status().code(), path.string() + ": " + manifest.status().message());
  return manifest;
}

fs::path defaultManifestPath(const std::string &archive) {
  if (std::string explicitPath = envOr("HRX_BUNDLE_MANIFEST"); !explicitPath.empty()) return explicitPath;
  if (!archive.empty()) return fs::path(archive).parent_path() / "bundle.json";
  return "bundle.json";
}

// An exclusive flock held for the object's lifetime.
class FileLock {
public:
  explicit FileLock(const fs::path &path, bool wait) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      problem_ = "cannot open lock '" + path.string() + "': " + std::strerror(errno);
      return;
    }
    if (::flock(fd_, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0)
      problem_ = "cannot lock '" + path.string() + "': " + std::strerror(errno);
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileLock(const FileLock &) = delete;
  FileLock &operator=(const FileLock &) = delete;
  const std::string &problem() const { return problem_; }

private:
  int fd_ = -1;
  std::string problem_;
};

// Runs argv without a shell; captures stdout. Returns the exit status (-1 if it could not run).
int runProcess(const std::vector<std::string> &argv, std::string &output) {
  int pipeFds[2];
  if (::pipe2(pipeFds, O_CLOEXEC) != 0) return -1;
  pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    ::dup2(pipeFds[1], STDOUT_FILENO);
    std::vector<char *> args;
    for (const std::string &arg : argv) args.push_back(const_cast<char *>(arg.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(pipeFds[1]);
  char chunk[4096];
  for (ssize_t n; (n = ::read(pipeFds[0], chunk, sizeof chunk)) > 0;) output.append(chunk, size_t(n));
  ::close(pipeFds[0]);
  int status = 0;
  if (::waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool fsyncPath(const fs::path &path, int flags) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

// Unpacks `archive` into `staging` (which exists and is empty) and checks every entry.
std::string unpackArchive(const fs::path &archive, const fs::path &staging, const format::BundleManifest &manifest) {
  std::string listing;
  if (runProcess({"tar", "-tzf", archive.string()}, listing) != 0)
    return "'" + archive.string() + "' is not a readable gzip tar archive";
  std::set<std::string> seen;
  std::istringstream lines(listing);
  for (std::string entry; std::getline(lines, entry);) {
    if (!format::isFlatFileName(entry))
      return "archive entry '" + entry + "' is not a flat file name ([A-Za-z0-9._-]+; no '/' or '..')";
    if (!manifest.files.contains(entry)) return "archive entry '" + entry + "' is not declared in the manifest";
    if (!seen.insert(entry).second) return "archive entry '" + entry + "' appears twice";
  }
  std::string ignored;
  if (runProcess({"tar", "-xzf", archive.string(), "-C", staging.string(), "--no-same-owner", "--no-same-permissions"},
                 ignored) != 0)
    return "cannot unpack '" + archive.string() + "'";
  std::error_code ec;
  for (const fs::directory_entry &entry : fs::directory_iterator(staging, ec)) {
    if (!entry.is_regular_file() || entry.is_symlink())
      return "archive entry '" + entry.path().filename().string() + "' is not a regular file";
    fs::permissions(entry.path(), fs::perms(0755), ec);
    if (ec || !fsyncPath(entry.path(), O_RDONLY)) return "cannot write '" + entry.path().string() + "'";
  }
  if (std::string problem = verifyBundleDirectory(staging, manifest); !problem.empty()) return problem;
  return {};
}

std::string megabytes(uintmax_t bytes) {
  std::ostringstream out;
  out.precision(1);
  out << std::fixed << double(bytes) / 1e6 << " MB";
  return out.str();
}

// The newest of the directory's modification time and its files' access and modification times
// (listing a directory updates its own access time, so that one says nothing); 0 when undatable.
time_t newestUse(const fs::path &dir, uintmax_t &bytes) {
  struct stat info;
  if (::stat(dir.c_str(), &info) != 0) return 0;
  time_t newest = info.st_mtime;
  std::error_code ec;
  for (const fs::directory_entry &entry : fs::directory_iterator(dir, ec)) {
    if (::lstat(entry.path().c_str(), &info) != 0) return 0;
    newest = std::max({newest, info.st_atime, info.st_mtime});
    bytes += uintmax_t(info.st_size);
  }
  return ec ? 0 : newest;
}

// Path of a device node: /dev/<relative>, with /dev replaced by $HRX_DEV_ROOT for tests.
std::string devicePath(const std::string &relative) { return envOr("HRX_DEV_ROOT", "/dev") + "/" + relative; }

std::string firstLineOf(const fs::path &path) {
  std::string text;
  if (!readText(path, text)) return {};
  return trimmed(text.substr(0, text.find('\n')));
}

// "fw_version N" from a KFD node's properties; "" when absent.
std::string kfdFirmware(const std::string &root, const std::string &node) {
  std::string text;
  if (!readText(fs::path(root) / "class/kfd/kfd/topology/nodes" / node / "properties", text)) return {};
  std::istringstream lines(text);
  for (std::string key, value; lines >> key >> value;)
    if (key == "fw_version") return value;
  return {};
}

}  // namespace

std::string cacheRoot() {
  if (std::string xdg = envOr("XDG_CACHE_HOME"); fs::path(xdg).is_absolute()) return (fs::path(xdg) / "hrx").string();
  return (fs::path(envOr("HOME", "/")) / ".cache" / "hrx").string();
}

std::vector<InstalledBundle> installedBundles() {
  std::vector<InstalledBundle> bundles;
  std::error_code ec;
  for (const fs::directory_entry &entry : fs::directory_iterator(fs::path(cacheRoot()) / "runtime", ec)) {
    if (!entry.is_directory() || entry.path().filename().string().starts_with(".")) continue;
    auto manifest = loadManifest(entry.path() / "manifest.json");
    std::string problem =
        manifest.isOk() ? verifyBundleDirectory(entry.path(), manifest.value()) : manifest.status().message();
    bundles.push_back({entry.path().string(), problem});
  }
  std::sort(bundles.begin(), bundles.end(),
            [](const InstalledBundle &a, const InstalledBundle &b) { return a.directory < b.directory; });
  return bundles;
}

int doctor() {
  unsigned problems = 0;
  for (const char *relative : {"kfd", "dri/renderD128", "accel/accel0"}) {
    std::string path = devicePath(relative);
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd >= 0) {
      ::close(fd);
      std::cout << path << ": accessible\n";
    } else {
      std::cout << path << ": " << std::strerror(errno) << "\n";
      ++problems;
    }
  }

  std::string root = runtime::sysfsRoot();
  std::vector<runtime::NpuIdentity> npus = runtime::enumerateNpus(root);
  bool qualifiedNpu = false;
  for (const runtime::NpuIdentity &npu : npus) {
    qualifiedNpu |= npu.qualified();
    std::string firmware = firstLineOf(fs::path(root) / "class/accel" / npu.node / "device/fw_version");
    std::cout << "npu " << npu.node << ": " << npu.describe() << "; firmware "
              << (firmware.empty() ? "unknown" : firmware) << "; "
              << (npu.qualified() ? "qualified"
                                  : std::string("not qualified (requires PCI 1022:17f0 revision 0x11 under amdxdna)"))
              << "\n";
  }
  if (npus.empty()) std::cout << "npu: none found under " << root << "/class/accel\n";
  if (!qualifiedNpu) ++problems;

  std::vector<runtime::GpuIdentity> gpus = runtime::enumerateGpus(root);
  bool qualifiedGpu = false;
  for (const runtime::GpuIdentity &gpu : gpus) {
    qualifiedGpu |= gpu.qualified();
    std::string firmware = kfdFirmware(root, gpu.node);
    std::cout << "gpu node " << gpu.node << ": " << gpu.target() << " (gfx_target_version " << gpu.gfxTargetVersion
              << "); firmware " << (firmware.empty() ? "unknown" : firmware) << "; "
              << (gpu.qualified() ? "qualified"
                                  : std::string("not qualified (requires gfx1151, gfx_target_version 110501)"))
              << "\n";
  }
  if (gpus.empty()) std::cout << "gpu: none found under " << root << "/class/kfd/kfd/topology/nodes\n";
  if (!qualifiedGpu) ++problems;
  // What --device=gpu needs (KFD, not the native runtime bundle): counted on its own line.
  unsigned kfdProblems = 0;
  if (qualifiedGpu) {
    for (const runtime::KfdRequirement &r : runtime::checkKfdRequirements()) {
      std::cout << "kfd " << r.name << ": " << r.detail << (r.satisfied ? "" : " (problem)") << "\n";
      kfdProblems += !r.satisfied;
    }
  }

  std::string glibc = gnu_get_libc_version();
  unsigned major = 0, minor = 0;
  std::sscanf(glibc.c_str(), "%u.%u", &major, &minor);
  bool glibcOk = major > 2 || (major == 2 && minor >= 43);
  std::cout << "glibc: " << glibc << (glibcOk ? " (meets 2.43)" : " (native execution requires 2.43 or newer)") << "\n";
  if (!glibcOk) ++problems;

  bool overridden = false;
  for (const char *variable : {"HRX_RUNTIME_DIR", "HRX_AMDF_LIBRARY", "HRX_FABRIC_LIBRARY", "HRX_LOOM_LIBRARY"}) {
    std::string value = envOr(variable);
    if (value.empty()) continue;
    overridden = true;
    std::error_code ec;
    bool exists = fs::exists(value, ec);
    std::cout << "override " << variable << "=" << value << ": " << (exists ? "present" : "missing")
              << " (overrides bypass integrity checks)\n";
    if (!exists) ++problems;
  }
  fs::path runtimes = fs::path(cacheRoot()) / "runtime";
  unsigned verified = 0;
  for (const InstalledBundle &bundle : installedBundles()) {
    std::cout << "runtime " << bundle.directory << ": "
              << (bundle.problem.empty() ? "verified" : "corrupt: " + bundle.problem) << "\n";
    if (bundle.problem.empty())
      ++verified;
    else
      ++problems;
  }
  if (!overridden && verified == 0) {
    std::cout << "native runtime: not prepared under " << runtimes.string()
              << " (doctor does not download; run `hrx prepare`)\n";
    ++problems;
  }
  if (qualifiedGpu) std::cout << "kfd path (--device=gpu): " << kfdProblems << " problem(s)\n";
  std::cout << "doctor: " << problems << " problem(s)\n";
  return 0;
}

int prepare(const std::string &archive, const std::string &manifestPath) {
  fs::path manifestFile = manifestPath.empty() ? defaultManifestPath(archive) : fs::path(manifestPath);
  auto manifest = loadManifest(manifestFile);
  if (!manifest.isOk()) return fail(manifest.status().message());
  fs::path runtimes = fs::path(cacheRoot()) / "runtime";
  std::error_code ec;
  fs::create_directories(runtimes, ec);
  if (ec) return fail("cannot create '" + runtimes.string() + "': " + ec.message());
  const std::string &sha = manifest->archiveSha256;
  FileLock lock(runtimes / (sha + ".lock"), /*wait=*/true);
  if (!lock.problem().empty()) return fail(lock.problem());

  fs::path destination = runtimes / sha;
  if (fs::is_directory(destination) && verifyBundleDirectory(destination, manifest.value()).empty()) {
    std::cout << destination.string() << "\n";
    return 0;
  }
  if (archive.empty())
    return fail(
        "runtime bundle is missing or corrupt in " + destination.string() +
        "; downloading is not available in this build: install offline with `HRX_OFFLINE=1 hrx prepare native.tar.gz` "
        "(bundle.json beside the archive, or --manifest=FILE), or set HRX_RUNTIME_DIR");

  std::string problem;
  std::string archiveSha = fileSha256(archive, problem);
  if (archiveSha.empty()) return fail(problem);
  if (archiveSha != sha)
    return fail("archive '" + archive + "' has SHA-256 " + archiveSha + ", but " + manifestFile.string() + " pins " +
                sha + " (tampered or wrong archive)");

  fs::path staging = runtimes / (".staging-" + sha + "-" + std::to_string(::getpid()));
  fs::remove_all(staging, ec);
  fs::create_directory(staging, ec);
  if (ec) return fail("cannot create '" + staging.string() + "': " + ec.message());
  problem = unpackArchive(archive, staging, manifest.value());
  if (problem.empty()) {
    std::string text;
    bool written =
        readText(manifestFile, text) && (std::ofstream(staging / "manifest.json", std::ios::binary) << text).flush();
    if (!written || !fsyncPath(staging / "manifest.json", O_RDONLY) || !fsyncPath(staging, O_RDONLY | O_DIRECTORY))
      problem = "cannot write '" + (staging / "manifest.json").string() + "'";
  }
  if (problem.empty()) {
    fs::remove_all(destination, ec);
    fs::rename(staging, destination, ec);
    if (ec) problem = "cannot install '" + destination.string() + "': " + ec.message();
    fsyncPath(runtimes, O_RDONLY | O_DIRECTORY);
  }
  if (!problem.empty()) {
    fs::remove_all(staging, ec);
    return fail(archive + ": " + problem + "; nothing was installed");
  }
  std::cout << destination.string() << "\n";
  return 0;
}

int gc(unsigned days, const std::string &manifestPath) {
  std::string pinned;
  if (auto manifest = loadManifest(manifestPath.empty() ? defaultManifestPath("") : fs::path(manifestPath));
      manifest.isOk())
    pinned = manifest->archiveSha256;
  fs::path runtimes = fs::path(cacheRoot()) / "runtime";
  time_t cutoff = std::time(nullptr) - time_t(days) * 86400;
  unsigned removed = 0;
  uintmax_t removedBytes = 0;
  std::error_code ec;
  std::vector<fs::path> bundles;
  for (const fs::directory_entry &entry : fs::directory_iterator(runtimes, ec))
    if (entry.is_directory() && !entry.is_symlink() && !entry.path().filename().string().starts_with("."))
      bundles.push_back(entry.path());
  std::sort(bundles.begin(), bundles.end());
  for (const fs::path &bundle : bundles) {
    std::string name = bundle.filename().string();
    if (name == pinned) {
      std::cout << "kept " << name.substr(0, 8) << " (pinned by bundle.json)\n";
      continue;
    }
    auto unused = [&](uintmax_t &bytes) {
      time_t used = newestUse(bundle, bytes);
      return used != 0 && used < cutoff;
    };
    uintmax_t bytes = 0;
    if (!unused(bytes)) continue;
    FileLock lock(runtimes / (name + ".lock"), /*wait=*/false);
    bytes = 0;
    if (!lock.problem().empty() || !unused(bytes)) continue;  // in use by a concurrent prepare, or used meanwhile
    fs::remove_all(bundle, ec);
    if (ec) return fail("cannot remove '" + bundle.string() + "': " + ec.message());
    fs::remove(runtimes / (name + ".lock"), ec);
    ++removed;
    removedBytes += bytes;
  }
  std::cout << "removed " << removed << " superseded runtime bundle(s) (" << megabytes(removedBytes) << ")\n";
  return 0;
}

}  // namespace hrx::tool
