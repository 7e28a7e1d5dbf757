// LLVM code generation shared by the target backends: target machines, the optimization
// pipeline, object/assembly emission and in-process lld links.
#pragma once

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

namespace hrx::bridge {

// Registers every LLVM target once per process. Call it before any thread may use the target
// registry: the C/C++ importer (Clang's backend) looks targets up too, and registering while
// another thread looks up is a data race.
void initializeTargets();

// A target machine for `triple`; the error text names an unknown triple or CPU.
std::expected<std::unique_ptr<llvm::TargetMachine>, std::string>
createTargetMachine(const std::string &triple, const std::string &cpu, const std::string &features, unsigned optLevel);

// Runs the new-PM default pipeline (O0..O3) with the target's analyses.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine, unsigned optLevel);

// Assembles `text` for `triple`/`cpu` with LLVM's MC assembler, output discarded: the assembler's
// first error message, or nothing when it accepts the text. Checks inline assembly up front,
// since an error there during code generation would end the process.
std::optional<std::string> assemblyError(const std::string &triple, const std::string &cpu, std::string_view text);

enum class EmitFile { Object, Assembly };
std::expected<std::vector<uint8_t>, std::string> emitModule(llvm::Module &module, llvm::TargetMachine &machine,
                                                            EmitFile kind);

// Links `objects` with lld's ELF driver in process: `arguments` are the linker options
// (e.g. {"-shared"}); the objects are written to a private temporary directory because lld
// reads only files. Serialized: lld keeps global state. Returns the output file's bytes.
std::expected<std::vector<uint8_t>, std::string> linkElf(const std::vector<std::string> &arguments,
                                                         const std::vector<std::vector<uint8_t>> &objects);

}  // namespace hrx::bridge
