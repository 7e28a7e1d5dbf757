// Internal: read-only views of real directories inside the importer's in-memory file system.
#pragma once

#include "ImportSession.h"

#include <llvm/Support/VirtualFileSystem.h>

#include <string>
#include <vector>

namespace hrx::cxx {

// A file served from a mount: its real path and where the unit saw it.
struct MountedFile {
  std::string realPath;
  std::string vfsPath;
};

struct Mount {
  std::string virtualRoot;   // "/hrx/mount/0"
  std::string realDir;       // as the user spelled it (what diagnostics and depfiles print)
  std::string canonicalDir;  // realpath of realDir (symlinks may not leave it)
};

// Serves paths under each mount's virtual root from its real directory. A file is copied into
// `memory` the first time Clang looks at it and recorded in `filesRead`; every other path is
// answered by `memory` alone. Paths with ".." components never resolve.
class MountedFileSystem : public llvm::vfs::ProxyFileSystem {
public:
  MountedFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> memory, std::vector<Mount> mounts,
                    llvm::StringMap<FileIdentity> &identities, std::vector<MountedFile> &filesRead);

  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine &path) override;
  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine &path) override;

private:
  // Resolves a mounted path: the mount and the relative part, or nullptr.
  const Mount *resolve(llvm::StringRef path, std::string &relative) const;

  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> memory_;
  std::vector<Mount> mounts_;
  llvm::StringMap<FileIdentity> &identities_;
  std::vector<MountedFile> &filesRead_;
};

}  // namespace hrx::cxx
