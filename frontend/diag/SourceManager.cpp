#include "hrx/diag/SourceManager.h"

#include <algorithm>

namespace hrx::diag {

uint32_t SourceManager::addBuffer(std::string name, std::string contents, bool isVirtual) {
  auto f = std::make_unique<File>();
  f->name = std::move(name);
  f->contents = std::move(contents);
  f->isVirtual = isVirtual;
  f->lineOffsets.push_back(0);
  for (uint32_t i = 0; i < f->contents.size(); ++i)
    if (f->contents[i] == '\n') f->lineOffsets.push_back(i + 1);
  files_.push_back(std::move(f));
  return static_cast<uint32_t>(files_.size());
}

std::string_view SourceManager::name(uint32_t id) const { return file(id).name; }
std::string_view SourceManager::contents(uint32_t id) const { return file(id).contents; }
bool SourceManager::isVirtual(uint32_t id) const { return file(id).isVirtual; }

SourceLocation SourceManager::lineStart(uint32_t id, uint32_t line) const {
  const File &f = file(id);
  if (line == 0) line = 1;
  uint32_t index = std::min<uint32_t>(line, f.lineOffsets.size()) - 1;
  return {id, f.lineOffsets[index]};
}

uint32_t SourceManager::lineCount(uint32_t id) const { return static_cast<uint32_t>(file(id).lineOffsets.size()); }

LineColumn SourceManager::lineColumn(SourceLocation loc) const {
  if (!loc.isValid()) return {};
  const File &f = file(loc.file);
  auto it = std::upper_bound(f.lineOffsets.begin(), f.lineOffsets.end(), loc.offset);
  uint32_t line = static_cast<uint32_t>(it - f.lineOffsets.begin());
  return {line, loc.offset - f.lineOffsets[line - 1] + 1};
}

std::string_view SourceManager::lineText(SourceLocation loc) const {
  if (!loc.isValid()) return {};
  const File &f = file(loc.file);
  LineColumn lc = lineColumn(loc);
  uint32_t begin = f.lineOffsets[lc.line - 1];
  size_t end = f.contents.find('\n', begin);
  if (end == std::string::npos) end = f.contents.size();
  std::string_view text(f.contents.data() + begin, end - begin);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return text;
}

}  // namespace hrx::diag
