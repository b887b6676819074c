# The wheel's libraries, part 2 (included by the top-level CMakeLists.txt when
# SOFTGEN_WHEEL is ON, as scikit-build-core builds python/pyproject.toml).
#
# Needs: the targets softgen_shared (libsoftgen.so: the compiler, here with LLVM's
# static libraries for only the components it uses) and softgen_rt (the runtime).
# Produces, installed into the wheel's platlib:
#   softgen/_lib/libsoftgen.so      the compiler; exports only sg_*; LLVM, zlib, zstd
#                                   (python/wheel-deps.cmake), libstdc++ and libgcc
#                                   inside and hidden, so it needs glibc 2.28 alone
#   softgen/_lib/libsoftgen_rt.so   the runtime (glibc 2.28; the drivers dlopen'd)
#   softgen/templates/*.sgt         the kernel templates
# The .py files come from python/softgen through pyproject.toml's wheel.packages.
# The host backend's other triples ($SOFTGEN_HOST_TRIPLE) need LLVM's every target;
# the wheel holds this CPU's (native) only.
target_compile_definitions(softgen_backend PRIVATE SOFTGEN_NATIVE_TARGET_ONLY=1)
set(_sg_map ${PROJECT_SOURCE_DIR}/python/libsoftgen.map)
target_link_options(softgen_shared PRIVATE
  -Wl,--version-script=${_sg_map} # sg_* only: nothing of LLVM or libstdc++ re-exported
  -Wl,--gc-sections -Wl,--as-needed -Wl,-z,defs
  -static-libstdc++ -static-libgcc)
# manylinux_2_28 (x86-64): libsoftgen.so and libsoftgen_rt.so need no symbol version
# above GLIBC_2.28, though they (and the static libraries in libsoftgen.so) were
# compiled against Debian 12's glibc 2.36:
# python/glibc-compat.c holds the replacements, and each symbol its FORWARD and WRAP
# lines name is linked with -Wl,--wrap=SYMBOL; the old pthread_* and dl* live in
# libpthread.so.0 and libdl.so.2 before glibc 2.34, so those are needed by name
# (and libm, for the old exp & co.).
# python/check-glibc.sh checks the result.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$")
  set(_sg_compat ${PROJECT_SOURCE_DIR}/python/glibc-compat.c)
  file(READ ${_sg_compat} _sg_text)
  string(REGEX MATCHALL "\n(FORWARD|WRAP)\\([^,(]*, *[A-Za-z0-9_]+," _sg_wraps "${_sg_text}")
  list(TRANSFORM _sg_wraps REPLACE ".*, *([A-Za-z0-9_]+),$" "-Wl,--wrap=\\1")
  foreach(_sg_t softgen_shared softgen_rt)
    target_sources(${_sg_t} PRIVATE ${_sg_compat})
    target_link_options(${_sg_t} PRIVATE ${_sg_wraps}
      -Wl,--push-state,--no-as-needed -l:libpthread.so.0 -l:libdl.so.2 -Wl,--pop-state)
    target_link_libraries(${_sg_t} PRIVATE m) # after the objects, or ld skips exp@GLIBC_2.2.5
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_sg_compat})
endif()
set_target_properties(softgen_shared PROPERTIES LINK_DEPENDS ${_sg_map} LINKER_LANGUAGE CXX)

# softgen/_launch.abi3.so: the hot path's launch without ctypes (python/softgen/_launch.c),
# CPython's limited API (3.9 on), so one build serves every CPython 3 (the wheel's tag:
# cp39-abi3); it links nothing (not libpython: the interpreter provides it).
find_package(Python 3.9 REQUIRED COMPONENTS Interpreter Development.Module)
add_library(softgen_launch MODULE ${PROJECT_SOURCE_DIR}/python/softgen/_launch.c)
target_include_directories(softgen_launch PRIVATE ${Python_INCLUDE_DIRS})
set_target_properties(softgen_launch PROPERTIES OUTPUT_NAME _launch PREFIX "" SUFFIX ".abi3.so"
  C_VISIBILITY_PRESET hidden)
target_link_options(softgen_launch PRIVATE -Wl,--as-needed)

install(TARGETS softgen_shared softgen_rt LIBRARY DESTINATION softgen/_lib)
install(TARGETS softgen_launch LIBRARY DESTINATION softgen)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels-templates/ DESTINATION softgen/templates
  FILES_MATCHING PATTERN "*.sgt")
