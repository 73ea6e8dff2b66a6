# cmake --install: headers, libraries, the CLI (tools/), a CMake package
# (find_package(lrelu) -> lrelu::lrelu) and a pkg-config file.
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/lrelu
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS lrelu_shared lrelu_static EXPORT lreluTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# liblrelu_contract (include/lrelu/kernel.hpp): lrelu::lrelu_contract and
# lrelu::lrelu_contract_static in the same package, and lrelu_contract.pc.
if(TARGET lrelu_contract_shared)
  install(TARGETS lrelu_contract_shared lrelu_contract_static
          EXPORT lreluTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/lrelu_contract.pc.in
                 ${PROJECT_BINARY_DIR}/lrelu_contract.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/lrelu_contract.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
install(EXPORT lreluTargets NAMESPACE lrelu::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lrelu)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/lreluConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lreluConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lrelu)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/lreluConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lreluConfig.cmake
              ${PROJECT_BINARY_DIR}/lreluConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/lrelu)
configure_file(${PROJECT_SOURCE_DIR}/cmake/lrelu.pc.in
               ${PROJECT_BINARY_DIR}/lrelu.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/lrelu.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
