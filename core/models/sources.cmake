list(APPEND CORE_TORCH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/LayeredModel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/BasicLayers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/TransformerLayers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/LessonLayers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ModelFactory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/TrainableModel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ScriptRunContext.cpp
  ${CMAKE_CURRENT_LIST_DIR}/TorchScriptGraphPass.cpp
  ${CMAKE_CURRENT_LIST_DIR}/TorchScriptModel.cpp)
list(APPEND CORE_PLAIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/ModelFileIdentity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ScriptErrorText.cpp)
