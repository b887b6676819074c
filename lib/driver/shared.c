/* shared.c - libsoftgen.so has no code of its own: it is libsoftgen.a linked
 * whole (see CMakeLists.txt), for ctypes (python/softgen); CMake needs one
 * source file per library. */
#include "softgen/compile.h"
