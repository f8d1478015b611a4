# Helpers shared by the module CMakeLists.

# infergrid_proto_library(NAME PROTOS a.proto b.proto [DEPS lib...])
# A static library of generated protobuf code. Generated headers are included by their path
# from the repository root ("models/model_spec.pb.h").
function(infergrid_proto_library name)
  cmake_parse_arguments(ARG "" "" "PROTOS;DEPS" ${ARGN})
  add_library(${name} STATIC)
  target_sources(${name} PRIVATE ${ARG_PROTOS})
  protobuf_generate(TARGET ${name} LANGUAGE cpp
                    IMPORT_DIRS ${PROJECT_SOURCE_DIR}
                    PROTOC_OUT_DIR ${PROJECT_BINARY_DIR})
  target_include_directories(${name} PUBLIC ${PROJECT_BINARY_DIR})
  target_link_libraries(${name} PUBLIC protobuf::libprotobuf ${ARG_DEPS})
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
