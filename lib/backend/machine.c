/* machine.c - an sg_module's life (softgen/codegen.h): sg_codegen makes one
 * (an LLVM context and module set up for the plan's target, the kernel built
 * by codegen with the backend's IR hooks, verified); target machines, LLVM's
 * optimisation pipeline and emission of .ll / assembly / code objects. Every
 * loadable output leaves here sealed (softgen/meta.h: the checksum over its
 * bytes written into its metadata), whoever asked for it: the compile driver
 * (CLI, Python, its cache), the MLIR front end, callers of codegen.h. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "backend/backend.h"
#include "codegen/module.h"

static sg_status machine(const sg_module *m, LLVMTargetMachineRef *out, sg_diag *diag) {
  const sgh_target *tg = m->plan.target;
  const sge_backend *be = sge_backend_for(tg);
  LLVMTargetRef target;
  char *err = NULL;
  if (LLVMGetTargetFromTriple(tg->triple, &target, &err)) {
    sg_status st = sg_diag_set(diag, SG_ERR_UNSUPPORTED, "this LLVM has no %s backend: %s",
                               tg->triple, err ? err : "");
    LLVMDisposeMessage(err);
    return st;
  }
  *out = LLVMCreateTargetMachine(target, tg->triple, be->cpu(m->plan.arch),
                                 be->features(m->plan.arch, m->plan.wave), LLVMCodeGenLevelAggressive,
                                 LLVMRelocPIC, LLVMCodeModelDefault);
  if (!*out)
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "LLVM cannot make a target machine for %s %s",
                       tg->triple, m->plan.arch);
  return SG_OK;
}

/* Sets the module's data layout from its target machine (codegen sizes types by it). */
static sg_status set_data_layout(sg_module *m, sg_diag *diag) {
  LLVMTargetMachineRef tm;
  sg_status st = machine(m, &tm, diag);
  if (st)
    return st;
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
  char *dl = LLVMCopyStringRepOfTargetData(td);
  LLVMSetDataLayout(m->mod, dl);
  LLVMDisposeMessage(dl);
  LLVMDisposeTargetData(td);
  LLVMDisposeTargetMachine(tm);
  return SG_OK;
}

sg_status sg_codegen(const sg_template *t, const sg_plan *plan, sg_module **out, sg_diag *diag) {
  if (!t || !plan || !out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_codegen: null argument");
  *out = NULL;
  if (strcmp(t->name, plan->template_name) != 0)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT,
                       "plan was resolved for template '%s', not '%s'", plan->template_name, t->name);
  sg_module *m = calloc(1, sizeof *m);
  if (!m)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
  m->plan = *plan;
  for (unsigned i = 0; i < plan->nfew; i++) { /* the module keeps its own copies of the variants */
    m->few[i] = *plan->few[i];
    m->few[i].nfew = 0;
    m->plan.few[i] = &m->few[i];
  }
  m->ctx = LLVMContextCreate();
  m->mod = LLVMModuleCreateWithNameInContext(plan->kernel_name, m->ctx);
  const sge_backend *be = sge_backend_for(plan->target);
  LLVMSetTarget(m->mod, plan->target->triple);
  sg_status st = set_data_layout(m, diag);
  if (!st)
    st = sgc_build(m, t, be->ir, diag);
  if (st) {
    sg_module_destroy(m);
    return st;
  }
  *out = m;
  return SG_OK;
}

sg_status sg_module_optimize(sg_module *m, sg_diag *diag) {
  if (!m)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_module_optimize: null module");
  LLVMTargetMachineRef tm;
  sg_status st = machine(m, &tm, diag);
  if (st)
    return st;
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPasses(m->mod, "default<O3>", tm, po);
  LLVMDisposePassBuilderOptions(po);
  LLVMDisposeTargetMachine(tm);
  if (err) {
    char *msg = LLVMGetErrorMessage(err);
    st = sg_diag_set(diag, SG_ERR_CODEGEN, "LLVM optimisation failed: %s", msg);
    LLVMDisposeErrorMessage(msg);
  }
  return st;
}

static sg_status copy_text(const char *text, size_t len, sg_buffer *out, sg_diag *diag) {
  out->data = malloc(len + 1);
  if (!out->data)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
  memcpy(out->data, text, len);
  out->data[len] = '\0';
  out->size = len;
  return SG_OK;
}

static sg_status emit_machine(sg_module *m, LLVMCodeGenFileType kind, sg_buffer *out, sg_diag *diag) {
  LLVMTargetMachineRef tm;
  sg_status st = machine(m, &tm, diag);
  if (st)
    return st;
  LLVMMemoryBufferRef mb = NULL;
  char *err = NULL;
  /* the backend may rewrite the module: emit from a clone */
  LLVMModuleRef clone = LLVMCloneModule(m->mod);
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, clone, kind, &err, &mb)) {
    st = sg_diag_set(diag, SG_ERR_CODEGEN, "LLVM %s backend failed: %s", m->plan.target->name,
                     err ? err : "");
    LLVMDisposeMessage(err);
  } else {
    st = copy_text(LLVMGetBufferStart(mb), LLVMGetBufferSize(mb), out, diag);
    LLVMDisposeMemoryBuffer(mb);
  }
  LLVMDisposeModule(clone);
  LLVMDisposeTargetMachine(tm);
  return st;
}

static sg_status emit(sg_module *m, sg_emit_kind kind, const sg_emit_options *opts,
                      sg_buffer *out, sg_diag *diag) {
  if (!m || !out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_module_emit: null argument");
  out->data = NULL;
  out->size = 0;
  if (kind == SG_EMIT_LLVM) {
    char *text = LLVMPrintModuleToString(m->mod);
    sg_status st = copy_text(text, strlen(text), out, diag);
    LLVMDisposeMessage(text);
    return st;
  }
  if (kind == SG_EMIT_ASM)
    return emit_machine(m, LLVMAssemblyFile, out, diag);
  const sge_backend *be = sge_backend_for(m->plan.target);
  if (kind == SG_EMIT_SHARED && !be->link_shared)
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "target %s makes no shared library (only "
                       "--target host does)", m->plan.target->name);
  if (kind != SG_EMIT_OBJECT && kind != SG_EMIT_SHARED)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "unknown emit kind %d", (int)kind);
  sg_buffer asm_text;
  sg_status st = emit_machine(m, be->assemble_from_object ? LLVMObjectFile : LLVMAssemblyFile,
                              &asm_text, diag);
  if (st)
    return st;
  st = be->assemble(&m->plan, &asm_text, opts, out, diag);
  sg_buffer_free(&asm_text);
  if (st || kind != SG_EMIT_SHARED)
    return st;
  sg_buffer obj = *out;
  st = be->link_shared(&m->plan, &obj, opts, out, diag);
  if (st) {
    out->data = NULL;
    out->size = 0;
  }
  sg_buffer_free(&obj);
  return st;
}

/* Seals a loadable output (softgen/meta.h): an object (.cubin, .hsaco, host
 * .o), a shared library, and assembly whose metadata a loader finds (PTX: the
 * driver loads it). AMDGPU and host assembly keep the placeholder: their
 * metadata is an escaped string no loader reads, and an object assembled from
 * them by hand is refused as unsealed. */
static sg_status seal(const sg_module *m, sg_emit_kind kind, sg_buffer *out, sg_diag *diag) {
  sg_meta meta;
  if (kind == SG_EMIT_LLVM ||
      (kind == SG_EMIT_ASM && sg_meta_find(out->data, out->size, &meta, NULL) != SG_OK))
    return SG_OK;
  sg_diag why;
  if (sg_meta_seal(out->data, out->size, &why) == SG_OK)
    return SG_OK;
  sg_buffer_free(out);
  const char *what = kind == SG_EMIT_ASM ? "assembly" : kind == SG_EMIT_OBJECT ? "object"
                                                                             : "library";
  return sg_diag_set(diag, SG_ERR_CODEGEN, "%s: cannot seal the %s: %s", m->plan.kernel_name,
                     what, why.message);
}

sg_status sg_module_emit(sg_module *m, sg_emit_kind kind, const sg_emit_options *opts,
                         sg_buffer *out, sg_diag *diag) {
  sg_status st = emit(m, kind, opts, out, diag);
  return st ? st : seal(m, kind, out, diag);
}

void sg_module_destroy(sg_module *m) {
  if (!m)
    return;
  if (m->mod)
    LLVMDisposeModule(m->mod);
  if (m->ctx)
    LLVMContextDispose(m->ctx);
  free(m);
}

