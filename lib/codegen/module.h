/* codegen/module.h - what an sg_module holds (internal): the LLVM context and
 * module built by codegen/lower.c, optimised and emitted by target/emit.c. */
#ifndef SG_INTERNAL_MODULE_H
#define SG_INTERNAL_MODULE_H

#include <llvm-c/Core.h>

#include "constraints/constraints.h"

struct sg_module {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  sg_plan plan; /* a copy: the module outlives nothing it needs */
};

#endif
