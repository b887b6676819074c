/* jit.c - in-process compilation of a host-target module with LLVM ORC's
 * LLJIT through the LLVM-C API (softgen/codegen.h: sg_jit_*).
 *
 * Needs: a module built for target host (codegen/module.h). Produces: the
 * kernel's entry point and its softgen_meta text in this process's memory.
 * The module is copied through bitcode into a context ORC owns, so the
 * sg_module stays usable (and is disposed by its own owner). The JIT's
 * target machine is the running machine's (LLJIT detects it); the kernel's
 * own target-cpu / target-features attributes select the plan's --arch. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>

#include "codegen/module.h"
#include "backend/backend.h"

struct sg_jit {
  LLVMOrcLLJITRef jit;
  void *kernel;
  const char *meta;
  size_t meta_len;
};

static sg_status llvm_error(LLVMErrorRef err, const char *what, sg_diag *diag) {
  char *msg = LLVMGetErrorMessage(err);
  sg_status st = sg_diag_set(diag, SG_ERR_CODEGEN, "LLVM JIT: %s: %s", what, msg ? msg : "");
  LLVMDisposeErrorMessage(msg);
  return st;
}

/* A copy of m's module in a fresh context, as ORC's thread-safe module. */
static sg_status copy_module(const sg_module *m, LLVMOrcThreadSafeModuleRef *out, sg_diag *diag) {
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m->mod);
  if (!bc)
    return sg_diag_set(diag, SG_ERR_CODEGEN, "LLVM JIT: cannot write the module's bitcode");
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef copy = NULL;
  int bad = LLVMParseBitcodeInContext2(ctx, bc, &copy);
  LLVMDisposeMemoryBuffer(bc);
  if (bad) {
    LLVMContextDispose(ctx);
    return sg_diag_set(diag, SG_ERR_CODEGEN, "LLVM JIT: cannot read back the module's bitcode");
  }
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContextFromLLVMContext(ctx);
  *out = LLVMOrcCreateNewThreadSafeModule(copy, tsc);
  LLVMOrcDisposeThreadSafeContext(tsc); /* the module keeps the context alive */
  return SG_OK;
}

sg_status sg_jit_create(sg_module *m, sg_jit **out, sg_diag *diag) {
  if (!m || !out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_jit_create: null argument");
  *out = NULL;
  if (m->plan.target != &sgh_host)
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "the JIT runs host-target kernels only, not %s "
                       "(generate with --target host)", m->plan.target->name);
  sg_jit *j = calloc(1, sizeof *j);
  if (!j)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
  sge_backend_for(m->plan.target); /* LLVM's native target, once */
  LLVMErrorRef err = LLVMOrcCreateLLJIT(&j->jit, NULL); /* NULL: the default builder */
  if (err) {
    free(j);
    return llvm_error(err, "cannot create an LLJIT", diag);
  }
  LLVMOrcThreadSafeModuleRef tsm = NULL;
  sg_status st = copy_module(m, &tsm, diag);
  if (st) {
    sg_jit_destroy(j);
    return st;
  }
  LLVMOrcJITDylibRef lib = LLVMOrcLLJITGetMainJITDylib(j->jit);
  if ((err = LLVMOrcLLJITAddLLVMIRModule(j->jit, lib, tsm))) {
    LLVMOrcDisposeThreadSafeModule(tsm);
    sg_jit_destroy(j);
    return llvm_error(err, "cannot add the module", diag);
  }
  LLVMOrcExecutorAddress kernel = 0, meta = 0;
  if ((err = LLVMOrcLLJITLookup(j->jit, &kernel, m->plan.kernel_name)) ||
      (err = LLVMOrcLLJITLookup(j->jit, &meta, SG_META_SYMBOL))) {
    sg_jit_destroy(j);
    return llvm_error(err, "cannot compile or find the kernel", diag);
  }
  j->kernel = (void *)(uintptr_t)kernel;
  j->meta = (const char *)(uintptr_t)meta;
  j->meta_len = strlen(j->meta);
  *out = j;
  return SG_OK;
}

void *sg_jit_kernel(const sg_jit *j) { return j ? j->kernel : NULL; }

const char *sg_jit_meta(const sg_jit *j, size_t *len) {
  if (len)
    *len = j ? j->meta_len : 0;
  return j ? j->meta : NULL;
}

void sg_jit_destroy(sg_jit *j) {
  if (!j)
    return;
  if (j->jit) {
    LLVMErrorRef err = LLVMOrcDisposeLLJIT(j->jit);
    if (err)
      LLVMConsumeError(err);
  }
  free(j);
}
