list(APPEND CORE_PLAIN_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/MetricStream.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RunRecords.cpp
  ${CMAKE_CURRENT_LIST_DIR}/RunAccounting.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Watchpoints.cpp
  ${CMAKE_CURRENT_LIST_DIR}/SystemInfo.cpp)
list(APPEND CORE_TORCH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/Trainer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/MultiTensorOptimizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/StepTrace.cpp
  ${CMAKE_CURRENT_LIST_DIR}/FaultInjector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Engine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Versions.cpp)
list(APPEND CORE_TORCH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/ProbeSession.cpp
  ${CMAKE_CURRENT_LIST_DIR}/StepReplay.cpp
  ${CMAKE_CURRENT_LIST_DIR}/PrecisionMapRun.cpp
  ${CMAKE_CURRENT_LIST_DIR}/SensitivityPass.cpp
  ${CMAKE_CURRENT_LIST_DIR}/SensitivityScan.cpp)
list(APPEND CORE_TORCH_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/DeviceMemory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/CpuBlockCache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ShadowRun.cpp
  ${CMAKE_CURRENT_LIST_DIR}/LockstepRun.cpp)
# A CUDA LibTorch brings the c10_cuda target: read its allocator's peak.
if(TARGET c10_cuda)
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/DeviceMemory.cpp
    PROPERTIES COMPILE_DEFINITIONS AMPSCOPE_HAVE_C10_CUDA)
endif()
