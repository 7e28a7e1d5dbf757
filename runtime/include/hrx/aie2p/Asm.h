// AIE2P assembly text <-> bytes, in llvm-aie's syntax: one bundle per line, its instructions
// separated by ';', "label:" lines, "//" comments. Every error is located (line, column) and has
// a stable code MC/NNN (docs/aie2p.md lists them).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hrx/aie2p/Isa.h"

namespace hrx::aie2p {

struct AsmDiagnostic {
  unsigned line = 0, column = 0;  // 1-based; 0 when not tied to a place
  std::string code;               // "MC/003"
  std::string message;
};

struct AsmProgram {
  std::vector<uint8_t> bytes;
  struct Label {
    std::string name;
    uint32_t offset;
  };
  std::vector<Label> labels;
  struct BundleSpan {
    uint32_t offset, size;
    unsigned line;
  };
  std::vector<BundleSpan> bundles;
};

// Assembles the whole text; on failure returns false with every error found (up to a limit).
bool assemble(std::string_view source, AsmProgram &program, std::vector<AsmDiagnostic> &diagnostics);

struct DisasmLine {
  uint32_t offset = 0;
  unsigned size = 0;
  Bundle bundle;
  std::string text;
};

// Disassembles a byte stream of bundles. An error (unknown bits, a truncated last bundle) stops
// it with the offset in the diagnostic (line 0, column = byte offset + 1).
bool disassemble(std::span<const uint8_t> bytes, std::vector<DisasmLine> &lines, AsmDiagnostic &error);

// ELF32 EM_AIE relocatable object around assembled code: .text, a symbol per label.
std::vector<uint8_t> writeObject(const AsmProgram &program);
// The .text bytes of an EM_AIE ELF32 object or executable; a located reason when it is not one.
bool readObjectText(std::span<const uint8_t> file, std::vector<uint8_t> &text, std::string &error);
bool looksLikeElf(std::span<const uint8_t> file);

inline constexpr uint16_t kElfMachineAie = 264;  // EM_AIE
inline constexpr uint32_t kElfFlagsAie2p = 3;    // e_flags of AIE2P objects (shared/reference/npu5-hardware.md)

}  // namespace hrx::aie2p
