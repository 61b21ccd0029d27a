# The Debian package: install rules for everything that is not a target, and the
# CPack DEB configuration. Included once, at the end, by the top-level CMakeLists.txt.
#
#   cmake --build build && (cd build && cpack -G DEB)   ->  build/ampscope_<version>-1_<arch>.deb
#
# cpack first runs the build's `preinstall` target, which builds every target (all test
# suites too) unless the tree was configured with -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON.
#
# The binaries install from app/CMakeLists.txt (install(TARGETS ...) to bin). Nothing the
# programs read at run time lives outside them: the built-in scenarios are compiled into core,
# so the package needs no path into the build or source tree.
include(GNUInstallDirs)
include(${CMAKE_CURRENT_LIST_DIR}/DesktopIntegration.cmake)

# Examples users copy: the configs of examples/ (the whole folder, recursively, so what is
# added there comes along) and, as examples/scenarios/, the built-in scenarios from their
# one source, resources/scenarios/ (the same files core compiles in).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/ampscope/examples
        PATTERN "__pycache__" EXCLUDE)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/resources/scenarios/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/ampscope/examples/scenarios)
# The recorder (python/ampscope: `import ampscope` in a user's training script) as a
# python3 module, where Debian's python3 finds modules of packages. Pure Python; it
# needs torch (python3-torch, or the user's own), so the package suggests it.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/python/ampscope/ DESTINATION lib/python3/dist-packages/ampscope
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
# Debian policy: every package ships /usr/share/doc/<package>/copyright, here in the
# machine-readable format (DEP-5), written from LICENSE so that the two cannot disagree.
file(READ ${CMAKE_SOURCE_DIR}/LICENSE _license)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/LICENSE)
string(REGEX MATCH "Copyright \\(c\\) ([^\n]*)" _ "${_license}")
set(_copyright_holder "${CMAKE_MATCH_1}")
string(FIND "${_license}" "Permission is hereby granted" _start)
if(NOT _copyright_holder OR _start LESS 0)
  message(FATAL_ERROR "installer/Packaging.cmake: LICENSE is no longer the MIT text it expects")
endif()
string(SUBSTRING "${_license}" ${_start} -1 _license_body)
string(STRIP "${_license_body}" _license_body)
# DEP-5: license text lines start with a space; an empty line is written " .".
string(REPLACE "\n\n" "\n.\n" _license_body "${_license_body}")
string(REPLACE "\n" "\n " _license_body "${_license_body}")
file(WRITE ${CMAKE_BINARY_DIR}/doc/copyright
"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: AmpScope

Files: *
Copyright: ${_copyright_holder}
License: Expat

License: Expat
 ${_license_body}
")
install(FILES ${CMAKE_BINARY_DIR}/doc/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/ampscope)

# --- CPack DEB -----------------------------------------------------------------------------
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "ampscope")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "The AmpScope developers")
set(CPACK_PACKAGE_CONTACT "The AmpScope developers <maintainers@ampscope.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "lab for seeing what mixed precision does to training")
# Debian wants extended description lines under 80 columns: wrapped here by hand.
set(CPACK_PACKAGE_DESCRIPTION
    "AmpScope trains a small model with LibTorch in fp32, tf32, fp16 (with or
without a loss scaler), bf16 or pure fp16/bf16 and shows, live, the loss, the
loss-scale history, per-layer gradient histograms against the fp16 range,
underflow and overflow counts, and where the first NaN or Inf appeared. Runs
are recorded as plain JSON lines and compared side by side.

This package holds the Qt window (ampscope), the headless command line
(ampscope-cli) with its built-in scenarios, example configs under
/usr/share/ampscope/examples, and the python3 module ampscope that records a
PyTorch training script of your own into the same run format (it needs
python3-torch). Without the recommended dataset-fashion-mnist package the
synthetic data sets still work.")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME "DEB-DEFAULT")  # ampscope_<version>-<release>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE "1")
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
# Depends: dpkg-shlibdeps reads the libraries the binaries actually link (Qt 6, QCustomPlot,
# LibTorch 1.13, zlib, the C++ runtime) and writes their packages with minimal versions.
# tests/installer/test_package.cpp checks the result against dpkg -S of the binaries' NEEDED entries.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# FashionMNIST is optional: the synthetic sets work without it, and the window says so.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "dataset-fashion-mnist")
# The recorder module imports torch; the window and the CLI do not need it.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-torch")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

include(CPack)
