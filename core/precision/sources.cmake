list(APPEND CORE_PLAIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/PrecisionMode.cpp)
list(APPEND CORE_TORCH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/Autocast.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Rounding.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ComputePolicy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/NamedOpScope.cpp
  ${CMAKE_CURRENT_LIST_DIR}/BlockLayout.cpp
  ${CMAKE_CURRENT_LIST_DIR}/FormatQuantizer.cpp)
list(APPEND CORE_PLAIN_SOURCES ${CMAKE_CURRENT_LIST_DIR}/ScaleUpdateRule.cpp)
list(APPEND CORE_TORCH_SOURCES ${CMAKE_CURRENT_LIST_DIR}/GradScaler.cpp)
# formats/: the low-precision number formats (fp8, MX, NVFP4), see docs/low-precision-formats.md.
list(APPEND CORE_PLAIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/formats/FormatTable.cpp
  ${CMAKE_CURRENT_LIST_DIR}/formats/ScalarCodec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/formats/CpuQuantizeLoops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/formats/ScalingRules.cpp
  ${CMAKE_CURRENT_LIST_DIR}/formats/ValueInFormats.cpp)
list(APPEND CORE_TORCH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/formats/TensorQuantizers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/formats/UniformDraws.cpp
  ${CMAKE_CURRENT_LIST_DIR}/formats/FormatSweep.cpp)
# The CPU passes must round exactly as the scalar codec and the torch path do: no
# multiply-add contracted into one rounding (GCC contracts by default where FMA exists).
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/formats/CpuQuantizeLoops.cpp
                            PROPERTIES COMPILE_OPTIONS -ffp-contract=off)
