/* codegen/module.h - what an sg_module holds (internal): the LLVM context and
 * module that backend/machine.c sets up for the plan's target, codegen fills
 * (sgc_build) and backend/machine.c optimises and emits. */
#ifndef SG_INTERNAL_MODULE_H
#define SG_INTERNAL_MODULE_H

#include <llvm-c/Core.h>

#include "codegen/hooks.h"
#include "softgen/codegen.h"
#include "plan/plan.h"

struct sg_module {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  sg_plan plan; /* a copy: the module outlives nothing it needs */
  sg_plan few[SGP_MAX_FEW]; /* copies of the few-rows variants (plan.few[i] = &few[i]) */
};

/* Builds the kernel of m->plan for template t into m->mod (whose triple and data
 * layout are set) with the target's IR hooks, and its few-rows variants
 * (m->plan.few), and verifies the module. */
sg_status sgc_build(struct sg_module *m, const sg_template *t, const struct sgc_hooks *hooks,
                    sg_diag *diag);

#endif
