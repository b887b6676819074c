/* abi.c - a kernel's ABI and its launch metadata (codegen/codegen.h): the
 * parameters every target's kernel takes, in the order the metadata's "arg"
 * lines list them (softgen/meta.h), and the metadata global itself.
 *
 *   tensors (pointers), M, each tensor's row stride; the inner layout then
 *   inner and each tensor's stride along N; the row count of each input whose
 *   rows repeat; the scalars; N for a range of N; on the host target, block
 *   id and block count; a grid split's workspace (no "arg" line: its
 *   "variant grid" line says it).
 *
 * Needs: the template and the plan (sgc_ctx). Produces: sgc_declare_kernel,
 * sgc_add_meta, used by codegen/kernel.c. */
#include <stdio.h>
#include <string.h>

#include "codegen/codegen.h"

/* Fills the launch metadata of the plan's kernel (softgen/meta.h). */
static void plan_meta(const sg_template *t, const sg_plan *pl, sg_meta *m) {
  memset(m, 0, sizeof *m);
  m->version = 1;
  snprintf(m->kernel, sizeof m->kernel, "%s", pl->kernel_name);
  snprintf(m->template_name, sizeof m->template_name, "%s", t->name);
  snprintf(m->target, sizeof m->target, "%s", pl->target->name);
  snprintf(m->arch, sizeof m->arch, "%s", pl->arch);
  m->n = pl->n;
  m->n_min = pl->n_min;
  m->block = pl->block_threads;
  m->rows_per_block = pl->rows_per_block;
  m->smem = pl->smem_bytes;
  m->cluster = pl->cluster;
  m->vector_bytes = sgp_row_align(pl); /* a tensor's base and row stride */
  m->persistent = (unsigned)pl->prefetch;
  m->dsmem = pl->stage_bytes;
  m->ntensors = t->ntensors;
  for (int i = 0; i < t->ntensors; i++) {
    snprintf(m->tensors[i].name, sizeof m->tensors[i].name, "%s", t->tensors[i].name);
    m->tensors[i].is_output = t->tensors[i].is_output;
    m->tensors[i].dtype = sgt_tensor_dtype(t, i, pl->dtype, pl->out_dtype);
  }
  /* kernel ABI (declare_kernel): tensors, M, each tensor's row stride; the
   * inner layout then inner and each tensor's stride along N; then the row
   * count of each input whose rows repeat, then the scalars */
  for (int i = 0; i < t->ntensors; i++)
    m->args[m->nargs++] = (sg_meta_arg){SG_ARG_TENSOR, i};
  m->args[m->nargs++] = (sg_meta_arg){SG_ARG_ROWS, -1};
  for (int i = 0; i < t->ntensors; i++)
    m->args[m->nargs++] = (sg_meta_arg){SG_ARG_STRIDE, i};
  m->layout = pl->layout;
  if (pl->layout == SG_LAYOUT_INNER) {
    m->args[m->nargs++] = (sg_meta_arg){SG_ARG_INNER, -1};
    for (int i = 0; i < t->ntensors; i++)
      m->args[m->nargs++] = (sg_meta_arg){SG_ARG_NSTRIDE, i};
  }
  for (int i = 0; i < t->ntensors; i++)
    if (t->tensors[i].repeat)
      m->args[m->nargs++] = (sg_meta_arg){SG_ARG_ROWS, i};
  m->nscalars = t->nscalars;
  for (int i = 0; i < t->nscalars; i++) {
    snprintf(m->scalars[i].name, sizeof m->scalars[i].name, "%s", t->scalars[i].name);
    m->scalars[i].is_i64 = t->scalars[i].is_i64;
    m->args[m->nargs++] = (sg_meta_arg){SG_ARG_SCALAR, i};
  }
  if (sgp_dynamic_n(pl)) /* a range of N: N itself */
    m->args[m->nargs++] = (sg_meta_arg){SG_ARG_COLS, -1};
  /* vector_bytes is per the widest tensor; every tensor's base must allow it */
  for (unsigned i = 0; i < pl->nfew; i++) { /* the few-rows variants: their own launch numbers */
    const sg_plan *v = pl->few[i];
    sg_meta_variant *f = &m->variants[m->nvariants++];
    snprintf(f->kernel, sizeof f->kernel, "%s", v->kernel_name);
    f->block = v->block_threads;
    f->rows_per_block = v->rows_per_block;
    f->smem = v->smem_bytes;
    f->cluster = sgp_hw_cluster(v);
    f->split = v->grid_split ? v->cluster : 0; /* a "variant grid" line */
    f->workspace = v->grid_split ? v->workspace_bytes : 0;
    f->dsmem = v->alone_smem > v->stage_bytes ? v->alone_smem : v->stage_bytes;
    f->max_rows = v->max_rows;
  }
}

sg_status sgc_add_meta(sgc_ctx *cx, sg_diag *diag) {
  sg_meta m;
  char text[4096];
  size_t len;
  plan_meta(cx->t, cx->plan, &m);
  /* the checksum line holds the placeholder: the compile driver seals the
   * finished object (sg_meta_seal) */
  sg_status st = sg_meta_format_unsealed(&m, text, sizeof text, &len, diag);
  if (st)
    return st;
  LLVMValueRef init = LLVMConstStringInContext2(cx->ctx, text, len, 0); /* NUL included */
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(cx->mod, LLVMTypeOf(init), SG_META_SYMBOL,
                                               cx->hooks->global_as);
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetAlignment(g, 1);
  return SG_OK;
}

/* Declares the kernel with its ABI (plan_meta's order): tensors, M, each
 * tensor's stride; the inner layout then inner and each tensor's stride along
 * N; the row count of each input whose rows repeat; the scalars. */
void sgc_declare_kernel(sgc_ctx *cx) {
  const sg_template *t = cx->t;
  int inner = cx->plan->layout == SG_LAYOUT_INNER;
  LLVMTypeRef params[SG_META_MAX_ARGS + 3];
  unsigned np = 0;
  for (int i = 0; i < t->ntensors; i++)
    params[np++] = cx->gptr;
  params[np++] = cx->i64;
  for (int i = 0; i < (inner ? 2 * t->ntensors + 1 : t->ntensors); i++)
    params[np++] = cx->i64;
  unsigned extra = np;
  for (int i = 0; i < t->ntensors; i++)
    if (t->tensors[i].repeat)
      params[np++] = cx->i64;
  for (int i = 0; i < t->nscalars; i++)
    params[np++] = t->scalars[i].is_i64 ? cx->i64 : cx->f32;
  if (sgp_dynamic_n(cx->plan))
    params[np++] = cx->i64;
  for (unsigned i = 0; i < cx->hooks->id_params && i < 2; i++) /* host: block id, block count */
    params[np++] = cx->i32;
  if (cx->plan->grid_split) /* a grid split's workspace: past the metadata's "arg" lines */
    params[np++] = cx->gptr;
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(cx->ctx), params, np, 0);
  cx->fn = LLVMAddFunction(cx->mod, cx->plan->kernel_name, fty);
  LLVMSetFunctionCallConv(cx->fn, cx->hooks->kernel_cc);
  unsigned kind_noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  unsigned kind_ro = LLVMGetEnumAttributeKindForName("readonly", 8);
  unsigned kind_wo = LLVMGetEnumAttributeKindForName("writeonly", 9);
  for (int i = 0; i < t->ntensors; i++) {
    LLVMValueRef p = LLVMGetParam(cx->fn, (unsigned)i);
    LLVMSetValueName2(p, t->tensors[i].name, strlen(t->tensors[i].name));
    LLVMAddAttributeAtIndex(cx->fn, (unsigned)i + 1, LLVMCreateEnumAttribute(cx->ctx, kind_noalias, 0));
    LLVMAddAttributeAtIndex(cx->fn, (unsigned)i + 1,
                            LLVMCreateEnumAttribute(cx->ctx, t->tensors[i].is_output ? kind_wo : kind_ro, 0));
  }
  LLVMSetValueName2(LLVMGetParam(cx->fn, (unsigned)t->ntensors), "M", 1);
  for (unsigned i = 0; i < cx->hooks->id_params && i < 2; i++)
    LLVMSetValueName2(LLVMGetParam(cx->fn, np - cx->hooks->id_params + i), i ? "blocks" : "block", i ? 6 : 5);
  for (int i = 0; i < t->ntensors; i++) {
    char name[SGT_NAME_MAX + 8];
    snprintf(name, sizeof name, "stride_%s", t->tensors[i].name);
    LLVMSetValueName2(LLVMGetParam(cx->fn, (unsigned)(t->ntensors + 1 + i)), name, strlen(name));
    if (!inner)
      continue;
    snprintf(name, sizeof name, "nstride_%s", t->tensors[i].name);
    LLVMSetValueName2(LLVMGetParam(cx->fn, (unsigned)(2 * t->ntensors + 2 + i)), name, strlen(name));
  }
  for (int i = 0; i < t->ntensors; i++)
    if (t->tensors[i].repeat) {
      char name[SGT_NAME_MAX + 8];
      snprintf(name, sizeof name, "rows_%s", t->tensors[i].name);
      cx->repeat_rows[i] = LLVMGetParam(cx->fn, extra++);
      LLVMSetValueName2(cx->repeat_rows[i], name, strlen(name));
    }
  for (int i = 0; i < t->nscalars; i++) {
    cx->scalar_args[i] = LLVMGetParam(cx->fn, extra++);
    LLVMSetValueName2(cx->scalar_args[i], t->scalars[i].name, strlen(t->scalars[i].name));
  }
  if (inner)
    LLVMSetValueName2(LLVMGetParam(cx->fn, (unsigned)(2 * t->ntensors + 1)), "inner", 5);
  if (sgp_dynamic_n(cx->plan)) {
    cx->cols = LLVMGetParam(cx->fn, extra++);
    LLVMSetValueName2(cx->cols, "N", 1);
  } else {
    cx->cols = LLVMConstInt(cx->i64, (unsigned long long)cx->plan->n, 0);
  }
  if (cx->plan->grid_split) {
    cx->workspace = LLVMGetParam(cx->fn, np - 1);
    LLVMSetValueName2(cx->workspace, "workspace", 9);
  }
  cx->hooks->kernel_attributes(cx, cx->fn);
}
