# Helpers shared by the module CMakeLists.

# infergrid_proto_library(NAME PROTOS a.proto b.proto [DEPS lib...])
# A static library of the generated code of PROTOS (paths relative to the calling folder).
# protoc runs from the repository root, so that a file's import path ("base/dtype.proto"),
# its descriptor name and its generated header ("models/model_spec.pb.h", under the build
# root) are the same path whichever folder declares it. Generated code is compiled without our
# warning set.
function(infergrid_proto_library name)
  cmake_parse_arguments(ARG "" "" "PROTOS;DEPS" ${ARGN})
  set(generated "")
  foreach(proto IN LISTS ARG_PROTOS)
    get_filename_component(abs "${proto}" ABSOLUTE)
    file(RELATIVE_PATH rel "${PROJECT_SOURCE_DIR}" "${abs}")
    string(REGEX REPLACE "\\.proto$" "" stem "${rel}")
    set(outputs "${PROJECT_BINARY_DIR}/${stem}.pb.h" "${PROJECT_BINARY_DIR}/${stem}.pb.cc")
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND protobuf::protoc --cpp_out=${PROJECT_BINARY_DIR} -I ${PROJECT_SOURCE_DIR} ${rel}
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
      DEPENDS "${abs}" protobuf::protoc
      COMMENT "protoc ${rel}"
      VERBATIM)
    list(APPEND generated ${outputs})
  endforeach()
  add_library(${name} STATIC ${generated})
  # protoc's files each define the same file-local tables (schemas, file_default_instances):
  # never compiled as one unit under CMAKE_UNITY_BUILD.
  set_target_properties(${name} PROPERTIES UNITY_BUILD OFF)
  target_include_directories(${name} PUBLIC ${PROJECT_BINARY_DIR})
  target_link_libraries(${name} PUBLIC protobuf::libprotobuf ${ARG_DEPS})
endfunction()

# infergrid_library(NAME SOURCES a.cc ... [DEPS lib...])
# One folder's library: its sources with our warnings, headers included by their path from the
# repository root ("models/model_catalog.h").
function(infergrid_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  infergrid_warnings(${name})
endfunction()

# infergrid_embed_files(OUT_VAR NAMESPACE ns FILES a.textproto ...)
# Generates a .cc defining `const EmbeddedFile* ns::EmbeddedFiles(size_t* count)` holding the
# files' text, so that catalogs ship inside the binary and the command needs no install path.
function(infergrid_embed_files out_var)
  cmake_parse_arguments(ARG "" "NAMESPACE" "FILES" ${ARGN})
  string(REPLACE "::" "_" stem "${ARG_NAMESPACE}")
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${stem}_embedded.cc")
  string(REPLACE ";" "|" files_arg "${ARG_FILES}")  # a list cannot cross the command line
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNAMESPACE=${ARG_NAMESPACE}
            -DROOT=${PROJECT_SOURCE_DIR} "-DFILES=${files_arg}"
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedFiles.cmake
    DEPENDS ${ARG_FILES} ${PROJECT_SOURCE_DIR}/cmake/EmbedFiles.cmake
    COMMENT "Embedding ${ARG_NAMESPACE} files"
    VERBATIM)
  set(${out_var} ${out} PARENT_SCOPE)
endfunction()

# infergrid_warnings(target): our warning set on our own code.
function(infergrid_warnings target)
  target_compile_options(${target} PRIVATE ${INFERGRID_WARNINGS})
endfunction()
