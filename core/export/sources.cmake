# Exporting runs: CSV tables and TensorBoard event files. Plain C++ (no torch, no Qt).
# The tfevents encoding uses libprotobuf-lite with messages generated from
# tensorboard_event.proto; without protobuf the codec says so at run time instead.
list(APPEND CORE_PLAIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/CsvWriter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RunCsvExport.cpp
  ${CMAKE_CURRENT_LIST_DIR}/PrecisionMapCsv.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Crc32c.cpp
  ${CMAKE_CURRENT_LIST_DIR}/TfRecordFile.cpp
  ${CMAKE_CURRENT_LIST_DIR}/TfEventCodec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/TfEventsExport.cpp)

# AMPSCOPE_TFEVENTS=OFF builds without it even where protobuf is installed (how the
# GPU build, which has none, is checked here: Debian's LibTorch itself needs protobuf,
# so CMAKE_DISABLE_FIND_PACKAGE_Protobuf cannot be used with it).
option(AMPSCOPE_TFEVENTS "TensorBoard export (export-tfevents; needs libprotobuf-lite and protoc)" ON)
if(AMPSCOPE_TFEVENTS)
  find_package(Protobuf QUIET)
endif()
if(AMPSCOPE_TFEVENTS AND Protobuf_FOUND AND Protobuf_PROTOC_EXECUTABLE)
  protobuf_generate_cpp(AMPSCOPE_TB_PROTO_SOURCES AMPSCOPE_TB_PROTO_HEADERS
    ${CMAKE_CURRENT_LIST_DIR}/tensorboard_event.proto)
  list(APPEND CORE_PLAIN_SOURCES ${AMPSCOPE_TB_PROTO_SOURCES})
  set(AMPSCOPE_HAVE_PROTOBUF ON)
else()
  message(STATUS "TensorBoard export off (protobuf not found or AMPSCOPE_TFEVENTS=OFF): "
                 "ampscope-cli export-tfevents will say this build has none "
                 "(install libprotobuf-dev protobuf-compiler)")
  set(AMPSCOPE_HAVE_PROTOBUF OFF)
endif()
