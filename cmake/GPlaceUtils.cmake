# gplace_add_library(<name> <sources>... [DEPENDS <targets>...]
#                    [LINK_LIBS <libs>...] [MLIR_LIBS <MLIR component libs>...])
#
# A plain static library. Code that uses MLIR lists the MLIR component
# libraries it needs under MLIR_LIBS: a GPLACE_STATIC_TOOLS build links
# those; the development build links Debian's libMLIR.so instead (one copy
# of MLIR's registries per process).
function(gplace_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS;MLIR_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS})
  if(ARG_MLIR_LIBS AND GPLACE_STATIC_TOOLS)
    target_link_libraries(${name} PUBLIC ${ARG_MLIR_LIBS})
  elseif(ARG_MLIR_LIBS)
    target_link_libraries(${name} PUBLIC MLIR LLVM)
  endif()
endfunction()

# gplace_add_sanitizer_defaults(<target>)
#
# In a -DGPLACE_SANITIZE build, gives the executable gplace's
# AddressSanitizer defaults (cmake/SanitizerDefaults.cpp).
function(gplace_add_sanitizer_defaults name)
  if(GPLACE_SANITIZE)
    target_sources(${name} PRIVATE
      ${PROJECT_SOURCE_DIR}/cmake/SanitizerDefaults.cpp)
  endif()
endfunction()

# gplace_link_mlir_tool(<target> <MLIR component libs>...)
#
# Links a tool against MLIR: the component libraries in a static build,
# libMLIR.so otherwise.
#
# The tool also exports the C++ API a placement-policy plugin calls
# (gplace/Support/PlacementPolicy.h and DeviceName.h: PolicyRegistry,
# DeviceSet, DeviceName and the device-name functions), so that a plugin
# compiles against those two headers and links nothing of gplace's
# (docs/placement.md). Only those symbols are exported, not all of the tool's.
function(gplace_link_mlir_tool name)
  gplace_add_sanitizer_defaults(${name})
  target_link_options(${name} PRIVATE
    "LINKER:--export-dynamic-symbol=_ZN6gplace14PolicyRegistry*"
    "LINKER:--export-dynamic-symbol=_ZNK6gplace14PolicyRegistry*"
    "LINKER:--export-dynamic-symbol=_ZN6gplace10DeviceName*"
    "LINKER:--export-dynamic-symbol=_ZNK6gplace10DeviceName*"
    "LINKER:--export-dynamic-symbol=_ZN6gplace9DeviceSet*"
    "LINKER:--export-dynamic-symbol=_ZNK6gplace9DeviceSet*"
    "LINKER:--export-dynamic-symbol=_ZN6gplace14deviceTypeName*"
    "LINKER:--export-dynamic-symbol=_ZN6gplace15parseDeviceType*"
    "LINKER:--export-dynamic-symbol=_ZN6gplace??ERKNS_10DeviceName*")
  if(GPLACE_STATIC_TOOLS)
    target_link_libraries(${name} PRIVATE ${ARGN} LLVM)
    target_link_options(${name} PRIVATE ${GPLACE_STATIC_LINK_OPTIONS})
  else()
    target_link_libraries(${name} PRIVATE MLIR LLVM)
    # Installed (cmake --install), the tool still finds Debian's libMLIR.so.
    set_target_properties(${name} PROPERTIES
      INSTALL_RPATH "\$ORIGIN/../lib;${LLVM_LIBRARY_DIR}")
  endif()
endfunction()

# gplace_link_allocator(<target> [COMPILER])
#
# Links a tool with jemalloc (Debian's libjemalloc-dev), which then serves
# every malloc and operator new of the process, MLIR's and the libraries'
# included. MLIR allocates each operation, attribute list and use list on
# its own, and gplace-opt's passes create, erase and walk hundreds of
# thousands of them: with jemalloc, `gplace-opt --gplace-pipeline` at 100k
# ops takes about 30% less time than with glibc's malloc, and parse+print
# about 10% less (docs/development.md, "Allocator"). Left out in sanitizer,
# fuzzing and self-contained (GPLACE_STATIC_TOOLS) builds, and where
# GPLACE_USE_JEMALLOC is OFF or the library is missing: the top-level
# CMakeLists.txt then leaves GPLACE_JEMALLOC_LIBRARY empty.
#
# COMPILER: also links tools/common/CompilerMallocConf.c, jemalloc's options
# for a short-lived compile of a large graph (transparent huge pages, no
# returning of freed pages to the kernel): at 1M ops the pipeline's page
# faults go from ~540k to ~7k. For gplace-opt and gplace-translate, not for
# gplace-run, which trains for hours beside other processes.
function(gplace_link_allocator name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "COMPILER" "" "")
  if(NOT GPLACE_JEMALLOC_LIBRARY)
    return()
  endif()
  if(ARG_COMPILER)
    target_sources(${name} PRIVATE
      ${PROJECT_SOURCE_DIR}/tools/common/CompilerMallocConf.c)
  endif()
  # --no-as-needed: nothing in the tool calls jemalloc by name; its malloc
  # replaces glibc's because the tool needs it, ahead of libc.
  target_link_options(${name} PRIVATE "LINKER:--no-as-needed")
  target_link_libraries(${name} PRIVATE ${GPLACE_JEMALLOC_LIBRARY})
endfunction()

# gplace_check_not_linked(<target> <forbidden>)
#
# Fails the configuration if <forbidden> is among the libraries <target>
# links, directly or through the libraries it links: the layering
# docs/development.md's table states (the ONNX importer does not link the
# runtime), checked where a change would break it.
function(gplace_check_not_linked target forbidden)
  set(pending ${target})
  set(seen "")
  while(pending)
    list(POP_FRONT pending current)
    if(current IN_LIST seen OR NOT TARGET ${current})
      continue()
    endif()
    list(APPEND seen ${current})
    get_target_property(links ${current} LINK_LIBRARIES)
    if(NOT links)
      continue()
    endif()
    foreach(lib IN LISTS links)
      if(lib STREQUAL forbidden)
        message(FATAL_ERROR "${target} links ${forbidden} (through "
          "${current}), which docs/development.md's layering forbids")
      endif()
      list(APPEND pending ${lib})
    endforeach()
  endwhile()
endfunction()
