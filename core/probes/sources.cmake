# The probes: plain result structs and their JSON records (no torch), and the
# torch computations that fill them.
list(APPEND CORE_PLAIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/ExponentDistance.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ExponentHistogram.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Fp16Classes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/TensorStats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/UpdateRatio.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ProbeRecords.cpp
  ${CMAKE_CURRENT_LIST_DIR}/FormatQuantRecord.cpp
  ${CMAKE_CURRENT_LIST_DIR}/FormatSweepRecord.cpp
  ${CMAKE_CURRENT_LIST_DIR}/NonFiniteText.cpp
  ${CMAKE_CURRENT_LIST_DIR}/PrecisionMapRecord.cpp
  ${CMAKE_CURRENT_LIST_DIR}/PrecisionMapText.cpp
  ${CMAKE_CURRENT_LIST_DIR}/SensitivityRecord.cpp
  ${CMAKE_CURRENT_LIST_DIR}/SensitivityText.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Prescription.cpp)
list(APPEND CORE_TORCH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/HistogramProbe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Fp16Classifier.cpp
  ${CMAKE_CURRENT_LIST_DIR}/GradientProbe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/TensorStatsProbe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ProbeReadout.cpp
  ${CMAKE_CURRENT_LIST_DIR}/NonFiniteLocator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/FirstNonFiniteOp.cpp
  ${CMAKE_CURRENT_LIST_DIR}/UpdateRatioProbe.cpp)
list(APPEND CORE_PLAIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/ComparisonRecords.cpp
  ${CMAKE_CURRENT_LIST_DIR}/StepAuditRecords.cpp)
list(APPEND CORE_TORCH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/GradientComparisonProbe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/OpCapture.cpp
  ${CMAKE_CURRENT_LIST_DIR}/PrecisionMapCompare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/PrecisionMapStream.cpp
  ${CMAKE_CURRENT_LIST_DIR}/PrecisionMapCpuPass.cpp
  ${CMAKE_CURRENT_LIST_DIR}/OpDtypeAudit.cpp)
