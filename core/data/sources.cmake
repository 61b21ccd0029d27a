list(APPEND CORE_PLAIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/IdxReader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/SafetensorsFile.cpp)
list(APPEND CORE_TORCH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/BatchIterator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Dataset.cpp
  ${CMAKE_CURRENT_LIST_DIR}/MnistFiles.cpp
  ${CMAKE_CURRENT_LIST_DIR}/PixelConversion.cpp
  ${CMAKE_CURRENT_LIST_DIR}/SafetensorsReader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/SampleSplits.cpp
  ${CMAKE_CURRENT_LIST_DIR}/SyntheticData.cpp
  ${CMAKE_CURRENT_LIST_DIR}/TensorsDataset.cpp)
