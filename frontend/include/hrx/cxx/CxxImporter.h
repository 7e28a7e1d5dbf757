// C23/C++26 importer on in-process Clang 22.
//
// A translation unit is compiled over a private in-memory file system holding only the unit,
// the caller's virtual headers, the real directories the caller mounts, and hrx's shipped
// freestanding headers; the host's include directories are searched only when the unit opts in
// (CxxUnit::hostHeaders), each mounted read-only. Diagnostics (Clang's
// own and hrx's target restrictions, codes CXX/NNN) go to an hrx DiagnosticEngine with the
// unit's and headers' names, lines and columns. The result is an llvm::Module in the caller's
// LLVMContext plus the signature table of what the unit exports.
#pragma once

#include "hrx/diag/Diagnostic.h"

#include <array>
#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace hrx::cxx {

// The Clang version the importer is built on, e.g. "22.1.8".
std::string clangVersion();

// Auto: ".c" → C23, ".hip" → HIP (C++20 in Clang's HIP device mode), anything else → C++26.
enum class Language { Auto, C, Cxx, Hip };

// A function definition's body written in the unit's own text: from its '{' to past its '}'.
// The host twin replaces the body of a function the host cannot compile (docs/host-twin.md).
struct FunctionBody {
  std::string name;
  diag::SourceRange range;
};

// One translation unit; mirrors hrx::CxxSource.
struct CxxUnit {
  std::string name;  // what diagnostics print; its extension selects the language under Auto
  std::string text;
  Language language = Language::Auto;
  std::string standard;  // "-std=" value; empty → c23 / c++26 / c++20 (HIP); C23, C++26, HIP C++17 or newer
  std::vector<std::pair<std::string, std::string>> headers;  // virtual path → contents
  std::vector<std::string> includeDirs;                      // real directories, searched in order after `headers`
  std::vector<std::string> defines;                          // "N", "N=4"; "-UN" undefines N
  // The real directory of the unit's file: `#include "x.h"` finds its siblings there first, as
  // in Clang (the directory is mounted read-only; its files read are inputs). Empty: none.
  std::string directory = {};
  // Files included before the unit's first line (-include), resolved like `#include "file"`
  // from the working directory, then through the search path.
  std::vector<std::string> preincludes = {};
  // The host's C/C++ headers (libstdc++, glibc, Clang's resource headers), in the order Clang's
  // driver searches them, mounted read-only after hrx's own; opt-in (hrxcc --host-headers).
  bool hostHeaders = false;
  // -ffast-math: Clang's fast-math flags, and ROCm's finite-only and unsafe-math device libraries.
  bool fastMath = false;
  // Filled with the bodies of the functions defined in the unit's text (not its headers), also
  // when the import fails; null: not collected.
  std::vector<FunctionBody> *functionBodies = nullptr;
};

// The system include directories Clang's driver would search for a HIP or C++ unit on this host
// (real paths, in search order); empty when Clang finds none.
const std::vector<std::string> &hostIncludeDirs();

// What the importer compiles for. The importer holds no list of targets: each target's backend
// (loom-bridge/<target>/, TargetBackend::cxxImportTarget) describes itself with this record.
struct ImportTarget {
  std::string name;    // in diagnostics ("... is not supported on xdna-worker") and the unit identity
  std::string triple;  // Clang's --target for C/C++ units and the host twin of HIP units
  std::string cpu;     // -mcpu for C/C++ units; empty: -march=ImportOptions::hostCpu
  // A GPU: HIP units are Clang's device-only compile for it (--offload-arch), hosted, with
  // Clang's resource headers and ROCm's device libraries; C/C++ units link no GPU library.
  // Empty: HIP units compile as the host twin (Clang's HIP device mode with the host as device).
  std::string offloadArch;
  std::vector<std::string> defines;  // the target's macros: "__HRX_TARGET_HOST__=1"
  // The code runs in the host process: calls to the bridge's host work-item functions
  // (__hrx_host_*) are left for the host target to define, a HIP unit may call the host's libm
  // and printf, and over --host-headers hrx's headers read the C library's own first.
  bool hostProcess = false;
  bool warnFloatAtomicMax = false;  // CXX/011: a native float atomic max does not update coherent memory
  // The NPU worker restrictions: no recursion (CXX/006), virtual calls (CXX/007), calls through
  // function pointers (CXX/008) or kernels (CXX/016).
  bool npuWorker = false;
  friend auto operator<=>(const ImportTarget &, const ImportTarget &) = default;
};

// Host libm functions and printf: what the host twin of a HIP unit may leave to the host process.
bool isHostLibraryFunction(std::string_view name);

struct ImportOptions {
  unsigned optLevel = 2;  // Clang codegen level; LLVM passes are the bridge's (not run here)
  bool debugInfo = false;
  std::string hostCpu = "x86-64-v2";  // targets without their own ImportTarget::cpu
  // Calls to functions the unit does not define are CXX/009 at import. A caller linking several
  // units turns this off, resolves ImportedUnit::externalCalls against the whole program, and
  // reports CXX/009 itself for what stays unresolved.
  bool requireDefinedCalls = true;
  // Clang's warnings. A second import of the same units for another target (the host twin)
  // turns them off: the first import printed them already.
  bool clangWarnings = true;
  // ImportedUnit::identity. It hashes every file the unit read (the ROCm device libraries too, a
  // twentieth of a one-kernel HIP compile); a caller that never reads it turns it off.
  bool computeIdentity = true;
  // HIP units for amdgcn: Clang's code generation links the ROCm device libraries itself, merging
  // its attributes into every library function (the importer's own link merges them into what it
  // links only, the same module in less time). For tests that compare the two.
  bool clangLinksDeviceLibraries = false;
};

enum class ScalarKind : uint8_t { Void, Bool, SignedInt, UnsignedInt, Float, BFloat };

// An element type: "i32", "u8", "f32", "bf16", "bool", "void".
struct ElementType {
  ScalarKind kind = ScalarKind::Void;
  unsigned bits = 0;
  std::string name() const;
  friend bool operator==(const ElementType &, const ElementType &) = default;
};

struct ValueType {
  enum class Kind : uint8_t { Void, Scalar, Vector, Pointer, Record };
  Kind kind = Kind::Void;
  uint64_t bytes = 0;         // size of the value itself (a pointer: 8)
  ElementType element;        // scalar; vector lane; pointer: the pointee's scalar or lane type
  unsigned lanes = 0;         // vector lanes; pointer to a vector: its lanes; else 0
  uint64_t pointeeBytes = 0;  // pointer only; 0 for void or opaque pointees
  bool pointeeConst = false;  // pointer only: the callee promises not to write
  unsigned addressSpace = 0;  // pointer only (target address space)
  std::string spelling;       // the C/C++ type as written ("const float *")
};

struct Parameter {
  std::string name;
  ValueType type;
};

// One exported function or kernel.
struct Signature {
  std::string name;    // source name ("affine")
  std::string symbol;  // symbol in the module (differs from `name` for C++ linkage)
  bool isKernel = false;
  ValueType result;
  std::vector<Parameter> params;
  std::optional<std::array<uint32_t, 3>> workgroupSize;   // [[loom::workgroup_size]]
  std::optional<std::array<uint32_t, 3>> workgroupCount;  // [[loom::workgroup_count]]
  std::optional<uint32_t> maxWorkgroupSize;               // __launch_bounds__(max, ...)
  diag::SourceRange location;
};

// A call to a function the unit declares but does not define.
struct ExternalCall {
  std::string symbol;  // as the module references it
  std::string name;    // as the source names it ("ns::f")
  diag::SourceRange location;
};

struct ImportedUnit {
  std::unique_ptr<llvm::Module> module;
  std::vector<Signature> signatures;   // in declaration order
  std::vector<std::string> filesRead;  // real files read through includeDirs (for depfiles)
  // Work-item functions (__hrx_host_*) the module calls, left for the bridge's host target to
  // define; empty on amdgcn.
  std::vector<std::string> hostBuiltins;
  std::vector<ExternalCall> externalCalls;  // every call site, in source order
  // SHA-256 (hex) of everything the module depends on: Clang version, target, options, language
  // and standard, the unit, its virtual headers, defines, and the mounted files it read; empty
  // when ImportOptions::computeIdentity is off.
  std::string identity;
};

// The importer. Compiler setups (per target, language, standard and options) are built on first
// use and shared by every importer in the process, so an importer is cheap to create; use one
// per thread.
class CxxImporter {
public:
  explicit CxxImporter(ImportOptions options = {});
  ~CxxImporter();
  CxxImporter(const CxxImporter &) = delete;
  CxxImporter &operator=(const CxxImporter &) = delete;

  // Compiles `unit` for `target` into a module owned by `context`. Returns nullopt after an
  // error; every error has been reported to `diags` first. Not thread-safe per instance.
  std::optional<ImportedUnit> import(const CxxUnit &unit, const ImportTarget &target, llvm::LLVMContext &context,
                                     diag::DiagnosticEngine &diags);

  // Clang's -E: `unit` preprocessed as `import` would see it for `target` (with hrx's and the
  // mounted headers; line markers name files as diagnostics do). Nullopt after an error;
  // `filesRead` receives the real files read (for depfiles).
  std::optional<std::string> preprocess(const CxxUnit &unit, const ImportTarget &target, diag::DiagnosticEngine &diags,
                                        std::vector<std::string> *filesRead = nullptr);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hrx::cxx
