// Test helper: loads a host shared object (bytes) with dlopen and looks up its entry points.
#pragma once

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace hrx::bridge::test {

class HostLibrary {
public:
  explicit HostLibrary(const std::vector<uint8_t> &bytes) {
    char path[] = "/tmp/hrx-bridge-test-XXXXXX.so";
    int fd = mkstemps(path, 3);
    if (fd < 0) return;
    bool written = write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    close(fd);
    if (written) handle_ = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle_) error_ = dlerror() ? dlerror() : "write failed";
    unlink(path);
  }
  ~HostLibrary() {
    if (handle_) dlclose(handle_);
  }
  HostLibrary(const HostLibrary &) = delete;
  HostLibrary &operator=(const HostLibrary &) = delete;

  bool loaded() const { return handle_ != nullptr; }
  const std::string &error() const { return error_; }

  template <typename Fn> Fn lookup(const std::string &name) const {
    return handle_ ? reinterpret_cast<Fn>(dlsym(handle_, name.c_str())) : nullptr;
  }

private:
  void *handle_ = nullptr;
  std::string error_;
};

}  // namespace hrx::bridge::test
