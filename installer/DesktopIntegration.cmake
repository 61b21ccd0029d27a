# What a desktop needs to show AmpScope in its menus and software centre: the .desktop entry,
# the icon (SVG + PNG sizes rendered from it at build time), the AppStream metainfo, and the
# man pages (gzip-compressed, as Debian installs them). Included by installer/Packaging.cmake.
#
# The files themselves live in resources/; this file only builds and installs them.

# The application's id (AppStream component id = .desktop file name, reverse-DNS); the icon
# keeps the program's name so that `Icon=ampscope` and the window icon agree.
set(AMPSCOPE_APP_ID "org.ampscope.AmpScope")
set(AMPSCOPE_ICON_NAME "ampscope")
# hicolor raster sizes: menus (16-48), docks and launchers (64-256).
set(AMPSCOPE_ICON_SIZES 16 22 24 32 48 64 128 256)

set(_resources ${CMAKE_SOURCE_DIR}/resources)

# --- man pages -----------------------------------------------------------------------------
# Debian installs man pages gzip-compressed; -n keeps the name and time out of the header,
# so the package is reproducible.
find_program(AMPSCOPE_GZIP gzip REQUIRED)
set(_man_outputs "")
foreach(page ampscope-cli.1 ampscope.1)
  set(_gz ${CMAKE_BINARY_DIR}/man/${page}.gz)
  add_custom_command(
    OUTPUT ${_gz}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
    COMMAND ${CMAKE_COMMAND} -E copy ${_resources}/man/${page} ${CMAKE_BINARY_DIR}/man/${page}
    COMMAND ${AMPSCOPE_GZIP} -9nf ${CMAKE_BINARY_DIR}/man/${page}
    DEPENDS ${_resources}/man/${page}
    COMMENT "Compressing man page ${page}"
    VERBATIM)
  list(APPEND _man_outputs ${_gz})
endforeach()
add_custom_target(ampscope_man_pages ALL DEPENDS ${_man_outputs})
install(FILES ${_man_outputs} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# --- desktop entry, icons, metainfo (only with the window) ---------------------------------
if(NOT TARGET ampscope_ui)
  return()
endif()

# Imported Qt targets are local to the directory that found them (ui/): find them here too.
find_package(Qt6 REQUIRED COMPONENTS Gui Svg)
add_executable(ampscope_render_icon ${CMAKE_CURRENT_LIST_DIR}/IconRenderer.cpp)
set_target_properties(ampscope_render_icon PROPERTIES OUTPUT_NAME ampscope-render-icon)
target_link_libraries(ampscope_render_icon PRIVATE Qt6::Gui Qt6::Svg)
target_compile_definitions(ampscope_render_icon PRIVATE QT_NO_KEYWORDS)

set(_icon_dir ${CMAKE_BINARY_DIR}/icons/hicolor)
set(_png_outputs "")
foreach(size ${AMPSCOPE_ICON_SIZES})
  list(APPEND _png_outputs ${_icon_dir}/${size}x${size}/apps/${AMPSCOPE_ICON_NAME}.png)
endforeach()
add_custom_command(
  OUTPUT ${_png_outputs}
  COMMAND ampscope_render_icon ${_resources}/icons/ampscope.svg ${_icon_dir} ${AMPSCOPE_ICON_NAME}
          ${AMPSCOPE_ICON_SIZES}
  DEPENDS ampscope_render_icon ${_resources}/icons/ampscope.svg
  COMMENT "Rendering the app icon to PNG (${AMPSCOPE_ICON_SIZES})"
  VERBATIM)
add_custom_target(ampscope_icons ALL DEPENDS ${_png_outputs})

install(DIRECTORY ${_icon_dir}/ DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor
        FILES_MATCHING PATTERN "*.png")
install(FILES ${_resources}/icons/ampscope.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps
        RENAME ${AMPSCOPE_ICON_NAME}.svg)
install(FILES ${_resources}/desktop/${AMPSCOPE_APP_ID}.desktop
        DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${_resources}/desktop/${AMPSCOPE_APP_ID}.metainfo.xml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
