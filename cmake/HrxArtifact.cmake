# hrx_add_artifact(<name>
#   SOURCES <a.loom> [<b.cpp> ...]
#   TARGET xdna|gfx1151|gfx11-generic|host
#   [CONFIG key=value ...] [COLUMNS n] [REPORT summary|details]
#   [HEADERS virtual/path=file ...] [OUTPUT file] [EXCLUDE_FROM_ALL])
#
# Compiles the sources with the in-tree hrxcc at build time into one artifact. The command
# writes a depfile (-MD -MF), so edits to the sources or to the files behind HEADERS rebuild the
# artifact. Creates the custom target <name>, part of `all` (a plain `ninja` builds it) unless
# EXCLUDE_FROM_ALL is given, as add_executable does. Executables may depend on it
# (add_dependencies); its ARTIFACT property ($<TARGET_PROPERTY:<name>,ARTIFACT>) and the variable
# <name>_ARTIFACT (in the caller's scope) hold the artifact's absolute path. OUTPUT defaults
# to <name>.<ext> in CMAKE_RUNTIME_OUTPUT_DIRECTORY (else the current binary dir), where ext
# is xdna, hsaco or so.
function(hrx_add_artifact name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "EXCLUDE_FROM_ALL" "TARGET;COLUMNS;REPORT;OUTPUT" "SOURCES;CONFIG;HEADERS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hrx_add_artifact(${name}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "hrx_add_artifact(${name}): SOURCES is required")
  endif()

  if(ARG_TARGET STREQUAL "xdna")
    set(target_flag -target xdna)
    set(extension xdna)
  elseif(ARG_TARGET STREQUAL "gfx1151" OR ARG_TARGET STREQUAL "gfx11-generic")
    set(target_flag --offload-arch=${ARG_TARGET})
    set(extension hsaco)
  elseif(ARG_TARGET STREQUAL "host")
    set(target_flag -target host)
    set(extension so)
  else()
    message(FATAL_ERROR "hrx_add_artifact(${name}): TARGET must be xdna, gfx1151, gfx11-generic or host, got '${ARG_TARGET}'")
  endif()

  if(ARG_REPORT AND NOT ARG_REPORT MATCHES "^(summary|details)$")
    message(FATAL_ERROR "hrx_add_artifact(${name}): REPORT must be summary or details, got '${ARG_REPORT}'")
  endif()

  if(ARG_OUTPUT)
    cmake_path(ABSOLUTE_PATH ARG_OUTPUT BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" OUTPUT_VARIABLE output)
  elseif(CMAKE_RUNTIME_OUTPUT_DIRECTORY)
    set(output "${CMAKE_RUNTIME_OUTPUT_DIRECTORY}/${name}.${extension}")
  else()
    set(output "${CMAKE_CURRENT_BINARY_DIR}/${name}.${extension}")
  endif()
  set(depfile "${CMAKE_CURRENT_BINARY_DIR}/${name}.artifact.d")

  set(sources)
  foreach(source IN LISTS ARG_SOURCES)
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" OUTPUT_VARIABLE absolute)
    list(APPEND sources "${absolute}")
  endforeach()

  set(flags ${target_flag})
  foreach(setting IN LISTS ARG_CONFIG)
    list(APPEND flags "--config=${setting}")
  endforeach()
  if(ARG_COLUMNS)
    list(APPEND flags "--columns=${ARG_COLUMNS}")
  endif()
  if(ARG_REPORT)
    list(APPEND flags "--report=${ARG_REPORT}")
  endif()
  set(header_files)
  foreach(header IN LISTS ARG_HEADERS)
    if(NOT header MATCHES "^([^=]+)=(.+)$")
      message(FATAL_ERROR "hrx_add_artifact(${name}): HEADERS entries are virtual/path=file, got '${header}'")
    endif()
    cmake_path(ABSOLUTE_PATH CMAKE_MATCH_2 BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" OUTPUT_VARIABLE header_file)
    list(APPEND flags "--header=${CMAKE_MATCH_1}=${header_file}")
    list(APPEND header_files "${header_file}")
  endforeach()

  add_custom_command(
    OUTPUT "${output}"
    COMMAND $<TARGET_FILE:hrxcc> ${flags} ${sources} -o "${output}" -MD -MF "${depfile}"
    DEPENDS hrxcc ${sources} ${header_files}
    DEPFILE "${depfile}"
    COMMENT "hrxcc ${ARG_TARGET}: ${name}"
    VERBATIM COMMAND_EXPAND_LISTS)
  if(ARG_EXCLUDE_FROM_ALL)
    add_custom_target(${name} DEPENDS "${output}")
  else()
    add_custom_target(${name} ALL DEPENDS "${output}")
  endif()
  set_property(TARGET ${name} PROPERTY ARTIFACT "${output}")
  set(${name}_ARTIFACT "${output}" PARENT_SCOPE)
endfunction()
