// Atomic outputs: every file of a compilation is first written to a temporary file in its
// destination directory, and all are renamed into place only when everything succeeded. On
// failure the temporaries are deleted and stale destinations are removed, so that nothing a build
// system could take for up to date is left behind. A destination that exists and is not a
// regular file (/dev/null, a FIFO) is written in place at commit and never removed.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hrx::driver {

class OutputSet {
public:
  OutputSet() = default;
  OutputSet(const OutputSet &) = delete;
  OutputSet &operator=(const OutputSet &) = delete;
  ~OutputSet();  // discards anything staged but not committed

  // Plans `path` as an output of this compilation (so that discard() removes a stale copy).
  void expect(const std::string &path);
  // Writes `bytes` to a temporary file beside `path` ("-": buffered for standard output).
  // Returns false and sets `error` when the temporary file cannot be written.
  bool stage(const std::string &path, std::span<const uint8_t> bytes, std::string &error);
  // Renames every staged file into place and writes the standard-output text. On a failed
  // rename, sets `failedPath` and `error`, and discards everything.
  bool commit(std::string &failedPath, std::string &error);
  // Deletes staged temporaries and removes every expected destination.
  void discard();

private:
  struct Staged {
    std::string path;
    std::string tempPath;        // empty: written in place at commit
    std::vector<uint8_t> bytes;  // the bytes for an in-place destination
  };
  std::vector<std::string> expected_;
  std::vector<Staged> staged_;
  std::vector<uint8_t> stdoutBytes_;
  bool done_ = false;
};

}  // namespace hrx::driver
