# `cmake --install`: the tools, libhrx-runtime with its headers, the docs, the CMake package
# (find_package(hrx CONFIG): hrx::runtime, hrx_add_artifact), hrx-runtime.pc, the lit helper
# for users' test suites and bash completions. hrxcc's virtual headers are embedded in the
# binary, so nothing is installed for them. Layout: docs/install.md.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
find_package(Python3 REQUIRED COMPONENTS Interpreter)

set(HRX_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/hrx")
set(HRX_INSTALL_LITDIR "${CMAKE_INSTALL_DATADIR}/hrx/lit")
set(HRX_COMPLETIONS_DIR "${PROJECT_BINARY_DIR}/share/bash-completion/completions")

# Installed tools find libhrx-runtime beside them and keep the paths of the system libraries
# they linked outside the build tree (LLVM 22's shared libraries for hrxcc).
set(HRX_TOOLS hrxcc hrx-run hrx)
set_target_properties(${HRX_TOOLS} PROPERTIES
  INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}"
  INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS ${HRX_TOOLS} RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(TARGETS hrx_runtime LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
# The runtime's public headers include the format and array-model headers, so those directories ship.
# CompileReport.h is the compiler's and the tools' (it exposes nlohmann_json): not installed.
install(DIRECTORY runtime/include/hrx/runtime runtime/include/hrx/format runtime/include/hrx/array
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/hrx" FILES_MATCHING PATTERN "*.h" PATTERN "CompileReport.h" EXCLUDE)
install(DIRECTORY docs/ DESTINATION "${CMAKE_INSTALL_DOCDIR}")

# CMake package. hrx::runtime is declared by hand in hrxConfig.cmake (not install(EXPORT)):
# the in-tree hrx_runtime carries source-tree include paths and the static hrx_format in its
# interface, neither of which an installed consumer needs; the shared library holds it all.
configure_package_config_file(cmake/package/hrxConfig.cmake.in
  "${PROJECT_BINARY_DIR}/package/hrxConfig.cmake"
  INSTALL_DESTINATION "${HRX_INSTALL_CMAKEDIR}"
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/package/hrxConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/package/hrxConfig.cmake"
  "${PROJECT_BINARY_DIR}/package/hrxConfigVersion.cmake"
  cmake/HrxArtifact.cmake
  DESTINATION "${HRX_INSTALL_CMAKEDIR}")

# pkg-config: relocatable (paths relative to the .pc file), so `--prefix` at install time works.
configure_file(cmake/package/hrx-runtime.pc.in "${PROJECT_BINARY_DIR}/package/hrx-runtime.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/package/hrx-runtime.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

# lit helper for users' lit.cfg.py (docs/testing.md).
configure_file(utils/lit/hrx_lit.py.in "${PROJECT_BINARY_DIR}/package/hrx_lit.py" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/package/hrx_lit.py" DESTINATION "${HRX_INSTALL_LITDIR}")

# Bash completions, generated from each tool's --help option table after the tool is built.
set(completion_files)
foreach(tool IN LISTS HRX_TOOLS)
  set(completion "${HRX_COMPLETIONS_DIR}/${tool}")
  add_custom_command(OUTPUT "${completion}"
    COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/scripts/completions/gen_completion.py"
            ${tool} $<TARGET_FILE:${tool}> "${completion}"
    DEPENDS ${tool} "${PROJECT_SOURCE_DIR}/scripts/completions/gen_completion.py"
    COMMENT "bash completion: ${tool}" VERBATIM)
  list(APPEND completion_files "${completion}")
endforeach()
add_custom_target(hrx-completions ALL DEPENDS ${completion_files})
install(FILES ${completion_files} DESTINATION "${CMAKE_INSTALL_DATADIR}/bash-completion/completions")
if(TARGET check-deps)
  add_dependencies(check-deps hrx-completions)  # test/lit/install uses them
endif()

# Man pages (man hrxcc, man hrx-run, man hrx), generated from each tool's --help option table.
set(HRX_MAN_DIR "${PROJECT_BINARY_DIR}/share/man/man1")
set(man_pages)
foreach(tool IN LISTS HRX_TOOLS)
  set(page "${HRX_MAN_DIR}/${tool}.1")
  add_custom_command(OUTPUT "${page}"
    COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/scripts/man/gen_man.py"
            ${tool} $<TARGET_FILE:${tool}> "${PROJECT_VERSION}" "${page}"
    DEPENDS ${tool} "${PROJECT_SOURCE_DIR}/scripts/man/gen_man.py"
    COMMENT "man page: ${tool}" VERBATIM)
  list(APPEND man_pages "${page}")
endforeach()
add_custom_target(hrx-man-pages ALL DEPENDS ${man_pages})
install(FILES ${man_pages} DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
if(TARGET check-deps)
  add_dependencies(check-deps hrx-man-pages)  # test/lit/install/man.test reads them
endif()
