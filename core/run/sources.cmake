list(APPEND CORE_PLAIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/FlatRecordText.cpp
  ${CMAKE_CURRENT_LIST_DIR}/KnownRecordTypes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ModelModulesRecord.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ParsedRunReader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RunFiles.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RunNaming.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RunReader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RunSetFolder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RunWriter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/StepRecordCodec.cpp)
