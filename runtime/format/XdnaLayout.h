// The ELF32 layout of an .xdna image (docs/formats/xdna.md §1.1), shared by its reader
// (runtime/format/Xdna.cpp) and its writer (utils/format-write/XdnaWriter.cpp). Internal to the
// format libraries.
#pragma once

#include <elf.h>

#include <cstdint>

namespace hrx::format::xdna::layout {

inline constexpr uint32_t kElfHeaderBytes = sizeof(Elf32_Ehdr);
inline constexpr uint32_t kProgramHeaderBytes = sizeof(Elf32_Phdr);
inline constexpr uint32_t kSectionHeaderBytes = sizeof(Elf32_Shdr);
inline constexpr uint32_t kPtLoad = PT_LOAD;
inline constexpr uint32_t kFlagR = PF_R, kFlagW = PF_W, kFlagX = PF_X;
inline constexpr uint32_t kShtProgbits = SHT_PROGBITS, kShtStrtab = SHT_STRTAB, kShtNobits = SHT_NOBITS;
inline constexpr uint32_t kLoadAlign = 4;  // loads start 4-byte aligned in the file

}  // namespace hrx::format::xdna::layout
