/* softgen/softgen.h - the umbrella header of softgen's public C API.
 *   template.h     parse kernel templates (.sgt)
 *   constraints.h  Wave-style constraints -> plan
 *   codegen.h      plan + template -> LLVM module -> .ll / .ptx / .cubin / .hsaco
 *   compile.h      all of the above in one call, with an on-disk cache
 *   meta.h         the launch metadata inside every code object
 *   runtime.h      load code objects and launch kernels (libsoftgen_rt)
 *   types.h        element types, layouts, byte buffers (used by all of them)
 *   diag.h         status codes and diagnostics (used by all of them) */
#ifndef SOFTGEN_SOFTGEN_H
#define SOFTGEN_SOFTGEN_H
#include "softgen/codegen.h"
#include "softgen/compile.h"
#include "softgen/constraints.h"
#include "softgen/diag.h"
#include "softgen/meta.h"
#include "softgen/template.h"
#include "softgen/types.h"
#endif
