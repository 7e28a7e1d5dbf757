# External dependencies, all from Debian 12 packages (scripts/setup.sh installs them).
find_package(LLVM 22.1 REQUIRED CONFIG HINTS /usr/lib/llvm-22/lib/cmake/llvm)
find_package(Clang REQUIRED CONFIG HINTS "${LLVM_LIBRARY_DIR}/cmake/clang" NO_DEFAULT_PATH)
find_package(LLD REQUIRED CONFIG HINTS "${LLVM_LIBRARY_DIR}/cmake/lld" NO_DEFAULT_PATH)
find_package(CLI11 2.1 REQUIRED CONFIG)
find_package(nlohmann_json 3.11 REQUIRED CONFIG)
find_package(zstd 1.5 REQUIRED CONFIG)
find_package(Threads REQUIRED)

# hrx_llvm: the one interface every LLVM/Clang-using library links (never the runtime).
separate_arguments(HRX_LLVM_DEFS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
add_library(hrx_llvm INTERFACE)
target_include_directories(hrx_llvm SYSTEM INTERFACE
  ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS} ${LLD_INCLUDE_DIRS})
target_compile_definitions(hrx_llvm INTERFACE ${HRX_LLVM_DEFS})
target_link_libraries(hrx_llvm INTERFACE LLVM clang-cpp lldELF lldCommon)

# Precompiled LLVM/Clang headers, built once and reused by every LLVM-using target.
add_library(hrx_llvm_pch OBJECT "${CMAKE_CURRENT_LIST_DIR}/pch_stub.cpp")
target_link_libraries(hrx_llvm_pch PUBLIC hrx_llvm hrx_warnings)
target_precompile_headers(hrx_llvm_pch PRIVATE
  <llvm/ADT/StringRef.h> <llvm/ADT/SmallVector.h> <llvm/IR/IRBuilder.h> <llvm/IR/LLVMContext.h>
  <llvm/IR/Module.h> <llvm/IR/Verifier.h> <llvm/Passes/PassBuilder.h>
  <llvm/Target/TargetMachine.h> <llvm/MC/TargetRegistry.h> <llvm/Support/raw_ostream.h>
  <clang/Frontend/CompilerInstance.h> <clang/CodeGen/CodeGenAction.h> <clang/Basic/Diagnostic.h>)
# Fuzzing builds skip the PCH: clang refuses to reuse it in a target compiled with
# -fsanitize=fuzzer-no-link, which the importer's fuzzer needs for coverage feedback.
function(hrx_use_llvm target)
  target_link_libraries(${target} PRIVATE hrx_llvm)
  if(NOT HRX_FUZZ)
    target_precompile_headers(${target} REUSE_FROM hrx_llvm_pch)
  endif()
endfunction()

set(HRX_LLVM_BIN /usr/lib/llvm-22/bin)
find_program(HRX_LIT NAMES lit HINTS ${HRX_LLVM_BIN} NO_DEFAULT_PATH REQUIRED)
find_program(HRX_FILECHECK NAMES FileCheck HINTS ${HRX_LLVM_BIN} NO_DEFAULT_PATH REQUIRED)
