#include "hrx/format/FileIO.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/stat.h>
#include <unistd.h>

namespace hrx::io {
namespace {

Status cannot(const char *verb, const std::string &path, const std::string &reason) {
  return Status(StatusCode::Unavailable, std::string("cannot ") + verb + " '" + path + "': " + reason);
}

Status cannotRead(const std::string &path, const std::string &reason) { return cannot("read", path, reason); }

const char *fileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "it is a directory";
  if (S_ISFIFO(mode)) return "it is a FIFO (named pipe), not a regular file";
  if (S_ISSOCK(mode)) return "it is a socket, not a regular file";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "it is a device, not a regular file";
  return "it is not a regular file";
}

class FileDescriptor {
public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor &) = delete;
  FileDescriptor &operator=(const FileDescriptor &) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // close(2) reports delayed write errors (NFS, quotas), so writers check it.
  int release() {
    int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

private:
  int fd_;
};

bool writeAll(int fd, const uint8_t *data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

StatusOr<std::vector<uint8_t>> readFile(const std::string &path, uint64_t maxBytes) {
  // O_NONBLOCK: opening a FIFO without a writer must not hang; it is refused below.
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) return cannotRead(path, std::strerror(errno));
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return cannotRead(path, std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return cannotRead(path, fileKind(st.st_mode));
  uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > maxBytes)
    return cannotRead(path, "it holds " + std::to_string(size) + " bytes, more than the " + std::to_string(maxBytes) +
                                "-byte limit");
  std::vector<uint8_t> bytes;
  try {
    bytes.resize(size);
  } catch (const std::bad_alloc &) {
    return cannotRead(path, "not enough memory for its " + std::to_string(size) + " bytes");
  }
  uint64_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd.get(), bytes.data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return cannotRead(path, std::strerror(errno));
    if (n == 0)
      return cannotRead(path, "short read: " + std::to_string(done) + " of " + std::to_string(size) +
                                  " bytes (the file shrank while it was read)");
    done += static_cast<uint64_t>(n);
  }
  uint8_t extra;
  ssize_t more;
  do more = ::read(fd.get(), &extra, 1);
  while (more < 0 && errno == EINTR);
  if (more > 0) return cannotRead(path, "the file grew while it was read (it held " + std::to_string(size) + " bytes)");
  return bytes;
}

std::string failureReason(const Status &status, const std::string &path) {
  for (const char *verb : {"read", "write"}) {
    std::string prefix = std::string("cannot ") + verb + " '" + path + "': ";
    if (status.message().starts_with(prefix)) return status.message().substr(prefix.size());
  }
  return status.message();
}

StatusOr<std::string> readTextFile(const std::string &path, uint64_t maxBytes) {
  auto bytes = readFile(path, maxBytes);
  if (!bytes) return bytes.status();
  return std::string(bytes->begin(), bytes->end());
}

Status writeFileAtomically(const std::string &path, std::span<const uint8_t> bytes) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return cannot("write", path, "it is a directory");
    FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
    if (fd.get() < 0) return cannot("write", path, std::strerror(errno));
    if (!writeAll(fd.get(), bytes.data(), bytes.size()) || fd.release() != 0)
      return cannot("write", path, std::strerror(errno));
    return Status::ok();
  }
  size_t slash = path.rfind('/');
  std::string directory = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty()) return cannot("write", path, "the path names a directory");
  std::string temporary = directory + "." + base + ".tmp-XXXXXX";
  int raw = ::mkstemp(temporary.data());
  if (raw < 0)
    return cannot("write", path, std::string(std::strerror(errno)) + " (creating a temporary file beside it)");
  ::fcntl(raw, F_SETFD, FD_CLOEXEC);
  FileDescriptor fd(raw);
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd.get(), 0666 & ~mask);
  bool written = writeAll(fd.get(), bytes.data(), bytes.size());
  int writeError = errno;
  if (!written || fd.release() != 0) {
    if (written) writeError = errno;
    ::unlink(temporary.c_str());
    return cannot("write", path, std::strerror(writeError));
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    int renameError = errno;
    ::unlink(temporary.c_str());
    return cannot("write", path, std::strerror(renameError));
  }
  return Status::ok();
}

Status writeFileAtomically(const std::string &path, std::string_view text) {
  return writeFileAtomically(path, std::span(reinterpret_cast<const uint8_t *>(text.data()), text.size()));
}

}  // namespace hrx::io
