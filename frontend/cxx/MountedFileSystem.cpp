#include "MountedFileSystem.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>

namespace hrx::cxx {

MountedFileSystem::MountedFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> memory,
                                     std::vector<Mount> mounts, llvm::StringMap<FileIdentity> &identities,
                                     std::vector<MountedFile> &filesRead)
    : ProxyFileSystem(memory), memory_(std::move(memory)), mounts_(std::move(mounts)), identities_(identities),
      filesRead_(filesRead) {}

const Mount *MountedFileSystem::resolve(llvm::StringRef path, std::string &relative) const {
  for (const Mount &mount : mounts_) {
    llvm::StringRef rest = path;
    if (!rest.consume_front(mount.virtualRoot) || (!rest.empty() && !rest.starts_with("/"))) continue;
    rest = rest.ltrim('/');
    llvm::SmallString<128> normalized(rest);
    llvm::sys::path::remove_dots(normalized, /*remove_dot_dot=*/false, llvm::sys::path::Style::posix);
    for (llvm::StringRef component :
         llvm::make_range(llvm::sys::path::begin(normalized), llvm::sys::path::end(normalized)))
      if (component == "..") return nullptr;
    relative = normalized.str().str();
    return &mount;
  }
  return nullptr;
}

llvm::ErrorOr<llvm::vfs::Status> MountedFileSystem::status(const llvm::Twine &path) {
  llvm::SmallString<128> storage;
  llvm::StringRef p = path.toStringRef(storage);
  std::string relative;
  const Mount *mount = resolve(p, relative);
  if (!mount) return memory_->status(p);
  if (auto loaded = memory_->status(p); loaded && loaded->isRegularFile()) return loaded;

  std::string real = relative.empty() ? mount->realDir : mount->realDir + "/" + relative;
  auto realStatus = llvm::vfs::getRealFileSystem()->status(real);
  if (!realStatus) return realStatus.getError();
  if (realStatus->isDirectory()) return llvm::vfs::Status::copyWithNewName(*realStatus, p);
  if (!realStatus->isRegularFile()) return std::make_error_code(std::errc::no_such_file_or_directory);

  // Symlinks must not lead out of the mounted directory.
  llvm::SmallString<256> canonical;
  if (llvm::sys::fs::real_path(real, canonical) || !llvm::StringRef(canonical).starts_with(mount->canonicalDir + "/"))
    return std::make_error_code(std::errc::no_such_file_or_directory);
  auto buffer = llvm::MemoryBuffer::getFile(real, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) return buffer.getError();
  memory_->addFile(p, 0, std::move(*buffer));
  identities_[p] = FileIdentity{real, /*isVirtual=*/false};
  filesRead_.push_back({real, p.str()});
  return memory_->status(p);
}

llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> MountedFileSystem::openFileForRead(const llvm::Twine &path) {
  llvm::SmallString<128> storage;
  llvm::StringRef p = path.toStringRef(storage);
  auto st = status(p);
  if (!st) return st.getError();
  return memory_->openFileForRead(p);
}

}  // namespace hrx::cxx
