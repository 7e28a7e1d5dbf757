#include "OutputFile.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hrx::driver {
namespace {

bool writeAll(int fd, std::span<const uint8_t> bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes = bytes.subspan(static_cast<size_t>(n));
  }
  return true;
}

// mkstemp creates 0600; outputs get the usual 0666 minus the umask, as open(2) would give.
mode_t defaultFileMode() {
  mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

// An existing destination that is neither a regular file nor a directory: a device, a FIFO, a
// socket. Renaming over it or unlinking it would destroy it (as root, /dev/null itself).
bool isSpecialFile(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

bool writeInPlace(const std::string &path, std::span<const uint8_t> bytes, std::string &error) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  bool ok = writeAll(fd, bytes);
  int savedErrno = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    savedErrno = errno;
  }
  if (!ok) error = std::strerror(savedErrno);
  return ok;
}

}  // namespace

OutputSet::~OutputSet() {
  if (!done_)
    for (const Staged &s : staged_)
      if (!s.tempPath.empty()) ::unlink(s.tempPath.c_str());
}

void OutputSet::expect(const std::string &path) {
  if (path != "-" && std::find(expected_.begin(), expected_.end(), path) == expected_.end()) expected_.push_back(path);
}

bool OutputSet::stage(const std::string &path, std::span<const uint8_t> bytes, std::string &error) {
  if (path == "-") {
    stdoutBytes_.insert(stdoutBytes_.end(), bytes.begin(), bytes.end());
    return true;
  }
  expect(path);
  if (isSpecialFile(path)) {
    staged_.push_back({path, "", {bytes.begin(), bytes.end()}});
    return true;
  }
  std::filesystem::path dest(path);
  std::filesystem::path dir = dest.parent_path();
  std::string tempPath = (dir / ("." + dest.filename().string() + ".tmp-XXXXXX")).string();
  int fd = ::mkstemp(tempPath.data());
  if (fd < 0) {
    error = std::strerror(errno);
    return false;
  }
  bool ok = writeAll(fd, bytes) && ::fchmod(fd, defaultFileMode()) == 0;
  int savedErrno = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    savedErrno = errno;
  }
  if (!ok) {
    ::unlink(tempPath.c_str());
    error = std::strerror(savedErrno);
    return false;
  }
  staged_.push_back({path, std::move(tempPath), {}});
  return true;
}

bool OutputSet::commit(std::string &failedPath, std::string &error) {
  for (const Staged &s : staged_) {
    bool ok = s.tempPath.empty() ? writeInPlace(s.path, s.bytes, error)
                                 : std::rename(s.tempPath.c_str(), s.path.c_str()) == 0;
    if (!ok) {
      failedPath = s.path;
      if (!s.tempPath.empty()) error = std::strerror(errno);
      discard();
      return false;
    }
  }
  done_ = true;
  if (!stdoutBytes_.empty()) {
    std::fwrite(stdoutBytes_.data(), 1, stdoutBytes_.size(), stdout);
    std::fflush(stdout);
  }
  return true;
}

void OutputSet::discard() {
  for (const Staged &s : staged_)
    if (!s.tempPath.empty()) ::unlink(s.tempPath.c_str());
  for (const std::string &path : expected_)
    if (!isSpecialFile(path)) ::unlink(path.c_str());
  staged_.clear();
  done_ = true;
}

}  // namespace hrx::driver
