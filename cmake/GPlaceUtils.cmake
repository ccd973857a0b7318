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

# gplace_link_mlir_tool(<target> <MLIR component libs>...)
#
# Links a tool against MLIR: the component libraries in a static build,
# libMLIR.so otherwise.
function(gplace_link_mlir_tool name)
  if(GPLACE_STATIC_TOOLS)
    target_link_libraries(${name} PRIVATE ${ARGN} LLVM)
    target_link_options(${name} PRIVATE ${GPLACE_STATIC_LINK_OPTIONS})
  else()
    target_link_libraries(${name} PRIVATE MLIR LLVM)
  endif()
endfunction()
