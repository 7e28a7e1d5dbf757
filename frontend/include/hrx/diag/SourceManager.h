// Source files (real and virtual) and the mapping from byte offsets to lines and columns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::diag {

// A location is a file id plus a byte offset; file id 0 means "no location".
struct SourceLocation {
  uint32_t file = 0;
  uint32_t offset = 0;
  bool isValid() const { return file != 0; }
  friend bool operator==(const SourceLocation &, const SourceLocation &) = default;
};

// Half-open byte range [begin, end) within one file.
struct SourceRange {
  SourceLocation begin;
  SourceLocation end;
  SourceRange() = default;
  SourceRange(SourceLocation loc) : begin(loc), end(loc) {}
  SourceRange(SourceLocation b, SourceLocation e) : begin(b), end(e) {}
  bool isValid() const { return begin.isValid(); }
};

struct LineColumn {
  uint32_t line = 0;    // 1-based
  uint32_t column = 0;  // 1-based, in bytes
};

class SourceManager {
public:
  // Registers a buffer. `name` is what diagnostics print (the user's spelling, or a
  // virtual path such as "virtual/include/hrx/worker.h").
  uint32_t addBuffer(std::string name, std::string contents, bool isVirtual = false);

  std::string_view name(uint32_t file) const;
  std::string_view contents(uint32_t file) const;
  bool isVirtual(uint32_t file) const;
  size_t fileCount() const { return files_.size(); }

  SourceLocation location(uint32_t file, uint32_t offset) const { return {file, offset}; }
  // Location of the first byte of 1-based `line` (clamped to the file).
  SourceLocation lineStart(uint32_t file, uint32_t line) const;
  // Number of lines; a final line without a newline counts, an empty last line after one does too.
  uint32_t lineCount(uint32_t file) const;
  LineColumn lineColumn(SourceLocation loc) const;
  // The full text of the line containing `loc`, without the newline.
  std::string_view lineText(SourceLocation loc) const;

private:
  struct File {
    std::string name;
    std::string contents;
    bool isVirtual = false;
    std::vector<uint32_t> lineOffsets;  // offset of each line start
  };
  const File &file(uint32_t id) const { return *files_.at(id - 1); }
  std::vector<std::unique_ptr<File>> files_;
};

}  // namespace hrx::diag
