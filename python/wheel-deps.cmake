# The wheel's libraries, part 1 (before find_package(LLVM); part 2 is wheel.cmake):
# LLVM's static libraries name zlib and zstd in their link interface (Debian's LLVM
# is built with both); here those names mean the static libraries, so that the
# wheel's libsoftgen.so needs neither libz.so nor libzstd.so on the user's machine.
# Needs: zlib1g-dev and libzstd-dev (tools/dev.sh installs them).
enable_language(CXX) # LLVM's static libraries are C++: link with the C++ driver
find_library(SOFTGEN_ZLIB_STATIC NAMES libz.a)
find_library(SOFTGEN_ZSTD_STATIC NAMES libzstd.a)
find_path(SOFTGEN_ZSTD_INCLUDE NAMES zstd.h)
if(NOT SOFTGEN_ZLIB_STATIC OR NOT SOFTGEN_ZSTD_STATIC)
  message(FATAL_ERROR "the wheel links zlib and zstd statically: libz.a and libzstd.a are "
    "needed (Debian: zlib1g-dev libzstd-dev; tools/dev.sh installs them)")
endif()
set(ZLIB_LIBRARY ${SOFTGEN_ZLIB_STATIC} CACHE FILEPATH "zlib, static for the wheel" FORCE)
add_library(zstd::libzstd_shared STATIC IMPORTED) # the name LLVMSupport links
set_target_properties(zstd::libzstd_shared PROPERTIES IMPORTED_LOCATION ${SOFTGEN_ZSTD_STATIC}
  INTERFACE_INCLUDE_DIRECTORIES ${SOFTGEN_ZSTD_INCLUDE})
