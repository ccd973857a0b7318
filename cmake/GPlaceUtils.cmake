# gplace_add_library(<name> <sources>... [DEPENDS <targets>...]
#                    [LINK_LIBS <libs>...] [MLIR_LIBS <MLIR component libs>...])
#
# A plain static library. Code that uses MLIR lists the MLIR component
# libraries it needs under MLIR_LIBS; the development build links them all
# through Debian's libMLIR.so instead (one copy of MLIR's registries per
# process), so the component list only matters for a static build.
function(gplace_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS;MLIR_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS})
  if(ARG_MLIR_LIBS)
    target_link_libraries(${name} PUBLIC MLIR LLVM)
  endif()
endfunction()
