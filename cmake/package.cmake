# Install rules (KILN_INSTALL), with GNUInstallDirs' folders:
#   lib/libkiln.so.X.Y.Z, its SONAME link libkiln.so.X.Y (0.y.z; from 1.0
#     on libkiln.so.X) and libkiln.so, the link a linker looks for;
#   include/kiln/: the public headers (engine/include/kiln, reference/ too)
#     and the generated kiln/version.hpp;
#   lib/cmake/kiln/: kilnConfig.cmake, kilnConfigVersion.cmake and the
#     exported target kiln::kiln, for find_package(kiln);
#   lib/pkgconfig/kiln.pc, for pkg-config;
#   bin/: the CLI `kiln` and the samples (kiln-astronomy...), which find
#     libkiln beside them through a relative RPATH.
# The kernels' SPIR-V is compiled into libkiln.so: no data files.
include(CMakePackageConfigHelpers)
set(kiln_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)

install(TARGETS kiln EXPORT kilnTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/engine/include/kiln DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(FILES ${KILN_GENERATED_INCLUDE}/kiln/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln)

# find_package(kiln): kiln::kiln brings the include folder, C++20 and
# Vulkan::Vulkan (kiln/context.hpp includes vulkan.h), which kilnConfig.cmake
# finds. A 0.y release is compatible with 0.y.z alone (the SONAME's rule);
# from 1.0 on, with the same major version.
install(EXPORT kilnTargets NAMESPACE kiln:: DESTINATION ${kiln_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/kilnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/kilnConfig.cmake INSTALL_DESTINATION ${kiln_cmake_dir})
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(kiln_compatibility SameMinorVersion)
else()
  set(kiln_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake
  COMPATIBILITY ${kiln_compatibility})
install(FILES ${PROJECT_BINARY_DIR}/kilnConfig.cmake ${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake
        DESTINATION ${kiln_cmake_dir})

# kiln.pc: relocatable (paths from ${pcfiledir}), so `cmake --install
# --prefix DIR` works wherever DIR is; absolute where the folders were
# given absolute.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(KILN_PC_PREFIX ${CMAKE_INSTALL_PREFIX})
  set(KILN_PC_LIBDIR ${CMAKE_INSTALL_FULL_LIBDIR})
  set(KILN_PC_INCLUDEDIR ${CMAKE_INSTALL_FULL_INCLUDEDIR})
else()
  file(RELATIVE_PATH up /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
  string(REGEX REPLACE "/$" "" up "${up}")
  set(KILN_PC_PREFIX "\${pcfiledir}/${up}")
  set(KILN_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(KILN_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/kiln.pc.in ${PROJECT_BINARY_DIR}/kiln.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/kiln.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The CLI and the samples, linked to libkiln.so: an RPATH relative to bin/.
set(kiln_programs kiln_cli ${KILN_SAMPLE_TARGETS})
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(kiln_rpath ${CMAKE_INSTALL_LIBDIR})
else()
  file(RELATIVE_PATH to_lib /prefix/${CMAKE_INSTALL_BINDIR} /prefix/${CMAKE_INSTALL_LIBDIR})
  set(kiln_rpath "$ORIGIN/${to_lib}")
endif()
set_target_properties(${kiln_programs} PROPERTIES INSTALL_RPATH "${kiln_rpath}")
install(TARGETS ${kiln_programs} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
