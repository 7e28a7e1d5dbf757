// The AIE2P bundle decoder, the disassembler, the object reader and the simulator on arbitrary
// bytes: every input is rejected or accepted, never a crash. Whatever decodes must re-encode to
// the same canonical bundle, and whatever the assembler accepts from the disassembly must give
// the bytes back when the input had no don't-care bits set.
#include "hrx/aie2p/Asm.h"
#include "hrx/aie2p/Simulator.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace hrx::aie2p;
  std::span<const uint8_t> bytes(data, size);
  std::vector<DisasmLine> lines;
  AsmDiagnostic error;
  (void)disassemble(bytes, lines, error);
  for (const auto &line : lines) {
    std::vector<uint8_t> again;
    std::string why;
    if (!encodeBundle(line.bundle, again, why)) std::abort();  // a decoded bundle always re-encodes
    AsmProgram program;
    std::vector<AsmDiagnostic> diags;
    if (!assemble(line.text, program, diags) || program.bytes != again) std::abort();
  }
  std::vector<uint8_t> text;
  std::string why;
  (void)readObjectText(bytes, text, why);
  TileMemory own;
  Core core(std::vector<uint8_t>(bytes.begin(), bytes.end()), CoreMemoryMap{&own}, 2000);
  core.run();
  return 0;
}
