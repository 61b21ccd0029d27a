list(APPEND CORE_PLAIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/EventLines.cpp
  ${CMAKE_CURRENT_LIST_DIR}/JobNonFiniteOrigin.cpp
  ${CMAKE_CURRENT_LIST_DIR}/KnownRecordTypes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/MirrorDirectory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ModelModulesRecord.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RemoteFollowScript.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RemoteRunAddress.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RemoteRunMirror.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RunFiles.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RunFollower.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RunNaming.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RunReader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RunSetFolder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RunWriter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/SshProcess.cpp
  ${CMAKE_CURRENT_LIST_DIR}/StepRecordCodec.cpp)
