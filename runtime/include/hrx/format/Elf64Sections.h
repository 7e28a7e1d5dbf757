// Our non-loaded sections in an AMDGPU code object (HSACO, ELF64), read without LLVM: a small
// bounds-checked ELF64 section reader, and the appender the bridge uses to add .hrx.*
// sections to the object lld produced (the program headers and loaded bytes stay untouched).
// Format: docs/formats/amdgpu.md.
#pragma once

#include "hrx/runtime/Status.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::format {

// One row of a section-header table, as listed by `hrx inspect`.
struct SectionInfo {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t offset = 0;
  uint64_t size = 0;  // bytes in the file
};

// A section payload to add, or one read back (uncompressed).
struct SectionPayload {
  std::string name;
  std::vector<uint8_t> bytes;
  bool compress = false;  // SHF_COMPRESSED + ELFCOMPRESS_ZSTD
};

struct Elf64File {
  uint16_t type = 0;  // e_type
  uint16_t machine = 0;
  uint8_t osAbi = 0;
  uint8_t abiVersion = 0;
  uint32_t flags = 0;
  std::vector<SectionInfo> sections;
  std::vector<SectionPayload> hrxSections;  // every ".hrx.*" section, decompressed
  const SectionPayload *section(std::string_view name) const;
};

inline constexpr uint16_t kMachineAmdgpu = 224;
inline constexpr uint16_t kMachineX86_64 = 62;
inline constexpr uint16_t kElfTypeShared = 3;
// e_flags & EF_AMDGPU_MACH → processor name ("gfx1151", "gfx11-generic"); "" when unknown.
std::string_view amdgpuProcessorName(uint32_t eflags);

// Parses an ELF64 little-endian file's section headers with every offset, size, name and
// compression header bounds-checked; errors name the header and field.
StatusOr<Elf64File> readElf64Sections(std::span<const uint8_t> bytes);

// AMDGPU artifact section names (in addition to .hrx.contract/.hrx.report/.hrx.host/.hrx.identity).
inline constexpr std::string_view kManifestSection = ".hrx.manifest";
inline constexpr std::string_view kLaunchSection = ".hrx.launch";

}  // namespace hrx::format
