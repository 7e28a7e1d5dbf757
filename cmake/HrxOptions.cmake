# Project-wide compile options, applied through the interface target hrx_warnings.
set(HRX_SANITIZE "" CACHE STRING "Sanitizers: empty, 'address,undefined' or 'thread'")

# Warnings are errors in CI (.ci/run sets HRX_WERROR=ON); a user's newer or older compiler may
# warn where clang-22 does not, so the default build only warns.
option(HRX_WERROR "Treat compiler warnings as errors (on in CI)" OFF)
add_library(hrx_warnings INTERFACE)
target_compile_options(hrx_warnings INTERFACE -Wall -Wextra -Wno-unused-parameter $<$<BOOL:${HRX_WERROR}>:-Werror>)

if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  # clang-22 picks lld 22 from its own bin directory.
  add_link_options(-fuse-ld=lld)
else()
  add_link_options(-B/usr/lib/llvm-22/bin -fuse-ld=lld)
endif()

# Build IDs name the exact compiler code in artifact identities (loom-bridge/core/ArtifactIdentity.cpp).
add_link_options(LINKER:--build-id=sha1)

if(HRX_SANITIZE)
  add_compile_options(-fsanitize=${HRX_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${HRX_SANITIZE})
endif()
