# moc follows every #include it can find, to the bottom. A suite that includes core's
# headers pulls in LibTorch's, about 5,000 files: moc took 3 s per target on Debian 12
# (LibTorch 1.13, Qt 6.4) and 6 s on Debian 13 (2.6, Qt 6.8), and with CMake's compiler
# predefinitions (moc_predefs.h) 7 s and over a minute. Autogen is not cached by ccache,
# so every clean clone paid that for each of about a hundred targets.
#
# A target without Qt Widgets (core's and the CLI's suites: QtCore and QtTest) gets moc
# with the project's include directories alone (moc-own-headers.sh drops the others):
# its meta-object code depends only on its own Q_OBJECT classes. A widget target keeps
# every directory, because Qt's and QCustomPlot's headers name further includes for the
# generated code (Q_MOC_INCLUDE: <QScreen>, <QtGui/qtextcursor.h>); those targets include
# no LibTorch. No target gets the predefinitions file. The generated code is the same,
# byte for byte, as before (compared over every target of a Debian 12 build).
#
# ampscope_moc_own_headers() is called once, after every target exists.

function(_ampscope_targets_below dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    _ampscope_targets_below("${subdir}" below)
    list(APPEND targets ${below})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(ampscope_moc_own_headers)
  _ampscope_targets_below("${CMAKE_SOURCE_DIR}" targets)
  set(moc_targets "")
  foreach(target IN LISTS targets)
    get_target_property(automoc ${target} AUTOMOC)
    if(automoc)
      list(APPEND moc_targets ${target})
    endif()
  endforeach()
  if(NOT moc_targets)
    return()
  endif()
  # Qt6::moc is imported where Qt was found (a subdirectory): find it here too.
  find_package(Qt6 REQUIRED COMPONENTS Core)
  get_target_property(AMPSCOPE_REAL_MOC Qt6::moc IMPORTED_LOCATION)
  if(NOT AMPSCOPE_REAL_MOC)
    get_target_property(AMPSCOPE_REAL_MOC Qt6::moc IMPORTED_LOCATION_RELEASE)
  endif()
  if(NOT AMPSCOPE_REAL_MOC)
    message(FATAL_ERROR "Qt6::moc has no imported location")
  endif()
  set(wrapper "${CMAKE_BINARY_DIR}/moc-own-headers.sh")
  configure_file("${CMAKE_SOURCE_DIR}/cmake/moc-own-headers.sh.in" "${wrapper}" @ONLY
                 FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                  WORLD_READ WORLD_EXECUTE)
  set_target_properties(${moc_targets} PROPERTIES AUTOMOC_COMPILER_PREDEFINES OFF)
  foreach(target IN LISTS moc_targets)
    get_target_property(links ${target} LINK_LIBRARIES)
    if(NOT links MATCHES "Qt6::Widgets|ampscope_ui")
      set_target_properties(${target} PROPERTIES AUTOMOC_EXECUTABLE "${wrapper}")
    endif()
  endforeach()
endfunction()
