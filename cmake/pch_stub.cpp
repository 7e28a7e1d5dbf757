// Anchor translation unit for the LLVM/Clang precompiled header.
