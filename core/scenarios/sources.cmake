# The built-in teaching scenarios and teachers' lesson folders: a torch-free catalogue over files compiled in from
# resources/scenarios/ (the CLI has no Qt resources, so CMake embeds them as bytes).
file(GLOB_RECURSE AMPSCOPE_SCENARIO_FILES CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/resources/scenarios/*.json
  ${PROJECT_SOURCE_DIR}/resources/scenarios/*.md)
set(AMPSCOPE_EMBEDDED_SCENARIOS ${CMAKE_CURRENT_BINARY_DIR}/generated/scenarios/EmbeddedScenarioFiles.cpp)
add_custom_command(
  OUTPUT ${AMPSCOPE_EMBEDDED_SCENARIOS}
  COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR}/resources/scenarios
          -DOUTPUT=${AMPSCOPE_EMBEDDED_SCENARIOS} -P ${CMAKE_CURRENT_LIST_DIR}/EmbedScenarioFiles.cmake
  DEPENDS ${AMPSCOPE_SCENARIO_FILES} ${CMAKE_CURRENT_LIST_DIR}/EmbedScenarioFiles.cmake
  COMMENT "Embedding the built-in scenarios"
  VERBATIM)
list(APPEND CORE_PLAIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/ScenarioCatalogue.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ScenarioViews.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ScenarioParser.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ScenarioSeeds.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ScenarioProblems.cpp
  ${CMAKE_CURRENT_LIST_DIR}/JsonLineIndex.cpp
  ${CMAKE_CURRENT_LIST_DIR}/NarrativeLinks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/LessonFolder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/LessonArchive.cpp
  ${CMAKE_CURRENT_LIST_DIR}/LessonWriter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ZipArchive.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ComparisonTable.cpp
  ${AMPSCOPE_EMBEDDED_SCENARIOS})
