# Install, packages and the man page (issue 9, parts 3 and 4). Included at the
# end of the top-level CMakeLists.txt, and before its return() when
# SOFTGEN_RUNTIME_ONLY is ON (then only the runtime parts apply).
#
#   cmake --install build --prefix PREFIX     installs (layout: GNUInstallDirs)
#     bin/softgen softgen-run softgen-bench
#     lib/libsoftgen.a  lib/libsoftgen_rt.so  lib/softgen/libsoftgen.so (for Python)
#     lib/libsoftgen_mgpu.so (the mgpu* entry points lowered MLIR modules call)
#     lib/libsoftgen_mlir.so  lib/softgen/softgen-mlir-plugin.so (with MLIR: the front
#                          end, and the pass plugin mlir-opt --load-pass-plugin loads)
#     include/softgen/*.h
#     lib/cmake/softgen/   softgenConfig.cmake, ...ConfigVersion.cmake, ...Targets.cmake
#                          find_package(softgen) -> softgen::softgen, softgen::softgen_rt,
#                          softgen::softgen_mlir (with MLIR), SOFTGEN_MLIR_PLUGIN
#     lib/pkgconfig/       softgen.pc (compiler + runtime), softgen-rt.pc (runtime only),
#                          softgen-mlir.pc (the MLIR front end)
#     share/softgen/kernels-templates/*.sgt
#     share/softgen/python/softgen/        (PYTHONPATH=PREFIX/share/softgen/python)
#     share/man/man1/softgen.1
#   cd build && cpack -G DEB                  a .deb for /usr, dependencies declared
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(SOFTGEN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/softgen)
set(SOFTGEN_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/softgen)

# softgen_rt has no SONAME of its own yet, so the installed tools find it next
# to them through an RPATH relative to the executable (relocatable: --prefix,
# dpkg -x into any root).
file(RELATIVE_PATH _sg_bin_to_lib ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR})
set_target_properties(softgen-run softgen-bench PROPERTIES
  INSTALL_RPATH "$ORIGIN/${_sg_bin_to_lib}")

# ---- the runtime: library, tools, headers ----
install(TARGETS softgen_rt EXPORT softgenTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS softgen-run softgen-bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS softgen_mgpu_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}) # lowered MLIR modules
set(_sg_mlir_h_rule)
if(NOT TARGET softgen_mlir_shared)
  set(_sg_mlir_h_rule PATTERN "mlir.h" EXCLUDE) # no MLIR front end in this build
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/softgen
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h" ${_sg_mlir_h_rule})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/softgen
  DESTINATION ${SOFTGEN_INSTALL_DATADIR}/python
  PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)

# The directory of an imported shared library's real file (for an RPATH), or
# "" when the target is missing or static or the file is in the linker's
# default directories.
function(_sg_rpath_dir target out)
  set(dir "")
  if(TARGET ${target})
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "SHARED_LIBRARY")
      get_target_property(cfgs ${target} IMPORTED_CONFIGURATIONS)
      list(GET cfgs 0 cfg)
      get_target_property(lib ${target} IMPORTED_LOCATION_${cfg})
      get_filename_component(lib "${lib}" REALPATH)
      get_filename_component(dir "${lib}" DIRECTORY)
      if(dir IN_LIST CMAKE_C_IMPLICIT_LINK_DIRECTORIES)
        set(dir "")
      endif()
    endif()
  endif()
  set(${out} "${dir}" PARENT_SCOPE)
endfunction()

# ---- the compiler: library, CLI, templates, man page ----
if(TARGET softgen)
  set(SOFTGEN_HAS_COMPILER ON)
  install(TARGETS softgen EXPORT softgenTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(TARGETS softgen-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # libsoftgen.so, for Python's ctypes: private, so that -lsoftgen stays libsoftgen.a
  install(TARGETS softgen_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/softgen)
  # The installed CLI keeps an RPATH to LLVM's shared library only where that
  # library's real file is outside the linker's default directories (Debian's
  # is in /usr/lib/<multiarch>: no RPATH, and dpkg-shlibdeps sees libllvm22);
  # likewise libMLIR.so for the MLIR front end (Debian keeps its real file in
  # LLVM's own lib directory).
  _sg_rpath_dir(LLVM _sg_llvm_libdir)
  if(_sg_llvm_libdir)
    set_target_properties(softgen-cli PROPERTIES INSTALL_RPATH "${_sg_llvm_libdir}")
    set(SOFTGEN_PC_LLVM_RPATH " -Wl,-rpath,${_sg_llvm_libdir}") # for softgen.pc
  endif()
  if(TARGET softgen_mlir)
    _sg_rpath_dir(MLIR _sg_mlir_libdir)
    if(_sg_mlir_libdir)
      set_property(TARGET softgen-cli APPEND PROPERTY INSTALL_RPATH "${_sg_mlir_libdir}")
      set(SOFTGEN_PC_MLIR_RPATH " -Wl,-rpath,${_sg_mlir_libdir}") # for softgen-mlir.pc
    endif()
    # The MLIR front end: libsoftgen_mlir.so (finds libMLIR.so and libLLVM.so
    # as the CLI does) and the plugin beside the private libsoftgen.so (finds
    # libsoftgen_mlir.so one directory up).
    set(SOFTGEN_HAS_MLIR ON)
    set_target_properties(softgen_mlir_shared PROPERTIES
      INSTALL_RPATH "${_sg_mlir_libdir};${_sg_llvm_libdir}")
    set_target_properties(softgen_mlir_plugin PROPERTIES INSTALL_RPATH "$ORIGIN/..")
    install(TARGETS softgen_mlir_shared EXPORT softgenTargets
      LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
      INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
    install(TARGETS softgen_mlir_plugin LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/softgen)
  else()
    set(SOFTGEN_HAS_MLIR OFF)
  endif()
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels-templates/
    DESTINATION ${SOFTGEN_INSTALL_DATADIR}/kernels-templates FILES_MATCHING PATTERN "*.sgt")

  # The CLI looks for its templates relative to its own directory first (see
  # sg_template_find in lib/driver/compile.c), so the installed or unpacked CLI
  # finds the installed templates; the build tree falls back to the sources.
  file(RELATIVE_PATH _sg_bin_to_templates ${CMAKE_INSTALL_FULL_BINDIR}
    ${CMAKE_INSTALL_FULL_DATADIR}/softgen/kernels-templates)
  target_compile_definitions(softgen_driver PRIVATE
    SOFTGEN_TEMPLATES_RELDIR="${_sg_bin_to_templates}")

  # Man page: printed by `softgen --help-man` from the CLI's option table (the one
  # --help prints), to a temporary file renamed into place: whole or not at all.
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/softgen.1
    COMMAND sh -c "\"$0\" --help-man >\"$1.tmp\" && mv -f \"$1.tmp\" \"$1\" \
|| { rm -f \"$1.tmp\"; exit 1; }"
            $<TARGET_FILE:softgen-cli> ${PROJECT_BINARY_DIR}/softgen.1
    DEPENDS softgen-cli
    COMMENT "Generating softgen.1 (softgen --help-man)" VERBATIM)
  add_custom_target(softgen-man ALL DEPENDS ${PROJECT_BINARY_DIR}/softgen.1)
  install(FILES ${PROJECT_BINARY_DIR}/softgen.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  set(SOFTGEN_HAS_COMPILER OFF)
endif()

# ---- CMake package: find_package(softgen) ----
install(EXPORT softgenTargets NAMESPACE softgen::
  FILE softgenTargets.cmake DESTINATION ${SOFTGEN_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/tools/cmake/softgenConfig.cmake.in
  ${PROJECT_BINARY_DIR}/softgenConfig.cmake
  INSTALL_DESTINATION ${SOFTGEN_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR SOFTGEN_INSTALL_DATADIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/softgenConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/softgenConfig.cmake
  ${PROJECT_BINARY_DIR}/softgenConfigVersion.cmake DESTINATION ${SOFTGEN_INSTALL_CMAKEDIR})

# ---- pkg-config: prefix relative to the .pc file, so --prefix and DESTDIR work ----
set(_sg_pcdir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH _sg_pc_to_prefix ${CMAKE_INSTALL_PREFIX}/${_sg_pcdir} ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" _sg_pc_to_prefix "${_sg_pc_to_prefix}")
set(SOFTGEN_PC_PREFIX "\${pcfiledir}/${_sg_pc_to_prefix}")
foreach(_sg_dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${_sg_dir}}")
    set(SOFTGEN_PC_${_sg_dir} "${CMAKE_INSTALL_${_sg_dir}}")
  else()
    set(SOFTGEN_PC_${_sg_dir} "\${prefix}/${CMAKE_INSTALL_${_sg_dir}}")
  endif()
endforeach()
configure_file(${PROJECT_SOURCE_DIR}/tools/cmake/softgen-rt.pc.in ${PROJECT_BINARY_DIR}/softgen-rt.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/softgen-rt.pc DESTINATION ${_sg_pcdir})
if(SOFTGEN_HAS_COMPILER)
  # libsoftgen.a needs LLVM 22's shared library (Debian: libLLVM.so in llvm-22-dev).
  configure_file(${PROJECT_SOURCE_DIR}/tools/cmake/softgen.pc.in ${PROJECT_BINARY_DIR}/softgen.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/softgen.pc DESTINATION ${_sg_pcdir})
endif()
if(SOFTGEN_HAS_MLIR)
  # libsoftgen_mlir.so's header includes MLIR's C API headers (libmlir-22-dev).
  string(REPLACE ";" " -I" SOFTGEN_PC_MLIR_CFLAGS "-I${MLIR_INCLUDE_DIRS}")
  configure_file(${PROJECT_SOURCE_DIR}/tools/cmake/softgen-mlir.pc.in ${PROJECT_BINARY_DIR}/softgen-mlir.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/softgen-mlir.pc DESTINATION ${_sg_pcdir})
endif()

# ---- Debian package: cd build && cpack -G DEB ----
set(CPACK_PACKAGE_NAME softgen)
set(CPACK_PACKAGE_VENDOR softgen)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "softgen maintainers <softgen@invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "softmax kernel compiler (templates + Wave-style constraints to PTX/cubin/hsaco) and runtime")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# dpkg-shlibdeps derives Depends from the ELF files (libc6, libllvm22); the
# package's own libsoftgen_rt.so is resolved inside the package.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS
  ${CMAKE_INSTALL_LIBDIR} ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR})
# ld.lld makes .hsaco (AMDGPU); llvm-22-dev holds what linking libsoftgen.a or
# find_package(softgen) needs (libLLVM.so, LLVM's CMake package); ptxas comes
# from a CUDA toolkit (not a Debian dependency).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "lld-22")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "llvm-22-dev, python3")
include(CPack)
