/* pass.c - softgen as an MLIR pass through the C API (sg_mlir_create_pass,
 * include/softgen/mlir.h): mlirCreateExternalPass with callbacks that run
 * sg_mlir_compile_module on the module the pass manager gives.
 *
 * Needs: mlir.c's entry point. Produces: an MlirPass owning a copy of the
 * caller's options. The C++ plugin (plugin.cpp) is the same pass for
 * mlir-opt, with options parsed from the pipeline text. */
#include <stdlib.h>
#include <string.h>

#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Bufferization.h"
#include "mlir-c/Dialect/ControlFlow.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/Dialect/MemRef.h"
#include "mlir-c/Dialect/NVVM.h"
#include "mlir-c/Dialect/ROCDL.h"
#include "mlir-c/Dialect/SCF.h"
#include "mlir/mlir_impl.h"

/* The pass's state: the options, with the strings they point to. */
typedef struct pass_state {
  sg_mlir_options o;
  char *strings[5]; /* target, arch, cache_dir, tools.ptxas, tools.lld */
} pass_state;

static void state_free(void *user) {
  pass_state *p = user;
  if (!p)
    return;
  for (int i = 0; i < 5; i++)
    free(p->strings[i]);
  free(p);
}

/* A copy of o whose strings the copy owns; NULL when out of memory. */
static pass_state *state_new(const sg_mlir_options *o) {
  static const sg_mlir_options defaults;
  pass_state *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->o = o ? *o : defaults;
  const char **fields[5] = {&p->o.target, &p->o.arch, &p->o.cache_dir, &p->o.tools.ptxas,
                            &p->o.tools.lld};
  for (int i = 0; i < 5; i++) {
    if (!*fields[i])
      continue;
    size_t n = strlen(*fields[i]) + 1;
    p->strings[i] = malloc(n);
    if (!p->strings[i]) {
      state_free(p);
      return NULL;
    }
    memcpy(p->strings[i], *fields[i], n);
    *fields[i] = p->strings[i];
  }
  return p;
}

static void construct(void *user) { (void)user; }
static void *clone(void *user) { return state_new(&((pass_state *)user)->o); }

static void run(MlirOperation op, MlirExternalPass pass, void *user) {
  pass_state *p = user;
  sg_mlir_report r;
  sg_diag d;
  sg_status st = sg_mlir_compile_module(mlirModuleFromOperation(op), &p->o, &r, &d);
  if (st) {
    char msg[sizeof d.message + 16];
    snprintf(msg, sizeof msg, "softgen: %s", d.message);
    mlirEmitError(mlirOperationGetLocation(op), msg);
    mlirExternalPassSignalFailure(pass);
  }
  sg_mlir_report_free(&r);
}

MlirPass sg_mlir_create_pass(const sg_mlir_options *opts) {
  static _Alignas(8) const char id; /* the pass's TypeID: this address */
  pass_state *p = state_new(opts);
  if (!p)
    return (MlirPass){NULL};
  MlirDialectHandle dialects[] = {
      mlirGetDialectHandle__arith__(),  mlirGetDialectHandle__bufferization__(),
      mlirGetDialectHandle__cf__(),     mlirGetDialectHandle__gpu__(),
      mlirGetDialectHandle__llvm__(),   mlirGetDialectHandle__memref__(),
      mlirGetDialectHandle__nvvm__(),   mlirGetDialectHandle__rocdl__(),
      mlirGetDialectHandle__scf__(),
  };
  MlirExternalPassCallbacks cb = {construct, state_free, NULL, clone, run};
  return mlirCreateExternalPass(mlirTypeIDCreate(&id), sgm_str("SoftgenLowerSoftmax"),
                                sgm_str("softgen-lower-softmax"),
                                sgm_str("replaces softmax (linalg.softmax and the chains "
                                        "frontends emit) by launches of softgen's kernels"),
                                sgm_str("builtin.module"),
                                (intptr_t)(sizeof dialects / sizeof dialects[0]), dialects, cb, p);
}
