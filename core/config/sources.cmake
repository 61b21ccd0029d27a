# The config layer: plain C++ (nlohmann_json only), no torch, no Qt.
list(APPEND CORE_PLAIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/ConfigText.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ConfigJson.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ConfigFile.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ConfigOverride.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ConfigFieldRules.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ConfigValidation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ActivationEstimate.cpp)
