/* kernels.c - one code object per distinct kernel of the module's softmax ops
 * (stage 3 of lib/mlir: mlir_impl.h).
 *
 * Needs: report->ops classified by import.c; the driver (driver/driver.h,
 * softgen/compile.h), the only caller of the pipeline; the runtime's launch
 * geometry (sgrt_launch_geometry, softgen/runtime.h). Produces: report->kernels
 * (name, metadata read back from the object, the object's bytes, the driver's
 * stats), each op's kernel index and launch geometry. Each op is one
 * compilation: sg_compilation_create on the built-in template's text (cached
 * as the CLI's kernels are), or sgd_compilation_create_parsed when the caller
 * gave a parsed template or constraints (uncached: nothing keys them). An op
 * whose problem the plan rejects, or whose row strides or offsets break the
 * kernel's alignment (vector_bytes), keeps that status and stays in the module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/driver.h"
#include "mlir/mlir_impl.h"
#include "softgen/runtime.h"

/* The op's compilation (parse and resolve) of outputs `outputs`, for N from
 * n_min to n (a static N: both r->n). */
static sg_status create(const sgm_state *s, const sg_template *parsed, const sg_mlir_op *r,
                        int64_t n_min, int64_t n, unsigned outputs, sg_compilation **out,
                        sg_diag *diag) {
  const sg_mlir_options *o = s->opts;
  sg_compile_options co;
  sg_compile_options_init(&co);
  co.problem = (sg_problem){.n = n, .dtype = r->dtype, .target = o->target, .arch = o->arch,
                            .layout = r->layout, .out_dtype_set = r->out_dtype != r->dtype,
                            .out_dtype = r->out_dtype, .n_min = n_min};
  co.outputs = outputs;
  /* AUTO: a missing or failing ptxas falls back to PTX (emit_object) */
  co.optional_outputs = o->format == SG_MLIR_FORMAT_AUTO ? SG_OUTPUT_BIT(SG_OUTPUT_OBJECT) : 0;
  co.tools = o->tools;
  co.cache_dir = o->cache_dir;
  co.no_cache = o->no_cache;
  if (parsed)
    return sgd_compilation_create_parsed(parsed, o->constraints, &co, out, diag);
  int log = strcmp(r->template_name, "log_softmax") == 0;
  co.template_src = log ? (sg_source){"<built-in log_softmax.sgt>", sgm_log_softmax_sgt,
                                      strlen(sgm_log_softmax_sgt)}
                        : (sg_source){"<built-in softmax.sgt>", sgm_softmax_sgt,
                                      strlen(sgm_softmax_sgt)};
  return sg_compilation_create(&co, out, diag);
}

/* Emits c's one output into k->object (status of the emission). */
static sg_status emit_one(sg_compilation *c, sg_output_kind kind, sg_mlir_kernel *k,
                          sg_diag *diag) {
  sg_buffer out[SG_OUTPUT_COUNT];
  sg_status st = sg_compilation_emit(c, out, diag);
  k->stats = *sg_compilation_stats(c);
  if (!st)
    k->object = out[kind];
  return st;
}

/* Builds the code object of c's kernel into k: the object when the format
 * allows and the tools are there, else (nvptx, AUTO) PTX with a warning; then
 * reads its metadata back. c was created for SG_OUTPUT_ASM when the format is
 * ASSEMBLY, else for SG_OUTPUT_OBJECT (optional under AUTO). */
static sg_status build_kernel(sgm_state *s, const sg_template *parsed, const sg_mlir_op *r,
                              const int64_t range[2], sg_compilation *c, sg_mlir_kernel *k,
                              sg_diag *diag) {
  const sg_mlir_options *o = s->opts;
  const sg_plan *plan = sg_compilation_plan(c);
  int nvptx = strcmp(sg_plan_asm_ext(plan), ".ptx") == 0;
  snprintf(k->name, sizeof k->name, "%s", sg_plan_kernel_name(plan));
  sg_status st = SG_OK;
  if (o->format == SG_MLIR_FORMAT_ASSEMBLY) {
    if (!nvptx)
      return sg_diag_set(diag, SG_ERR_UNSUPPORTED,
                         "assembly gpu.objects are for nvptx only (PTX); amdgpu embeds .hsaco");
    st = emit_one(c, SG_OUTPUT_ASM, k, diag);
    k->assembly = 1;
    k->ext = ".ptx";
  } else {
    st = emit_one(c, SG_OUTPUT_OBJECT, k, diag);
    k->ext = sg_plan_object_ext(plan);
    if (!st && (k->stats.skipped & SG_OUTPUT_BIT(SG_OUTPUT_OBJECT))) { /* AUTO, no object */
      if (!nvptx)
        return sg_diag_set(diag, SG_ERR_TOOL, "%s", k->stats.warning);
      snprintf(s->report->warning, sizeof s->report->warning,
               "%.400s; the gpu.objects hold PTX (assembly) instead", k->stats.warning);
      sg_compilation *a = NULL;
      st = create(s, parsed, r, range[0], range[1], SG_OUTPUT_BIT(SG_OUTPUT_ASM), &a, diag);
      if (!st)
        st = emit_one(a, SG_OUTPUT_ASM, k, diag);
      sg_compilation_destroy(a);
      k->assembly = 1;
      k->ext = ".ptx";
    }
  }
  if (!st)
    st = sg_meta_find(k->object.data, k->object.size, &k->meta, diag);
  if (!st && (k->meta.ntensors != 2 || k->meta.tensors[0].is_output == k->meta.tensors[1].is_output))
    st = sg_diag_set(diag, SG_ERR_UNSUPPORTED,
                     "template '%s' has %d tensors: linalg.softmax needs one input and one output",
                     k->meta.template_name, k->meta.ntensors);
  return st;
}

static int find_kernel(const sg_mlir_report *r, const char *name) {
  for (int i = 0; i < r->nkernels; i++)
    if (strcmp(r->kernels[i].name, name) == 0)
      return i;
  return -1;
}

/* Checks the op's row strides and offsets against the kernel's vector_bytes
 * and fills its launch geometry. Returns 0 (status set) when it cannot run.
 *
 * The geometry is the runtime's (sgrt_launch_geometry) for the op's static M
 * (a run-time M: the kernel's block, cluster and shared memory, the grid 0),
 * with no resident-blocks facts (resident 0, few_resident NULL): the device is
 * not known when the module is compiled (the arch does not tell how many
 * multiprocessors it has, and the blocks a multiprocessor holds depend on the
 * object's registers). So a code object's first few-rows variant whose
 * max_rows (the generator's bound) M is within is launched, as the runtime does when the
 * driver cannot say how many of its blocks stay resident. A
 * persistent kernel launched with one cluster per row block is still correct
 * (any grid of whole clusters is: the kernel strides over row blocks), only
 * without the overlap of one row block's loads with the previous one's work. */
static int place(sg_mlir_op *r, const sgm_op *o, const sg_meta *m) {
  unsigned vb = m->vector_bytes ? m->vector_bytes : 1;
  for (int i = 0; i < 2; i++) {
    unsigned es = sg_dtype_size(i ? r->out_dtype : r->dtype);
    int64_t sb = o->stride[i] * (int64_t)es, ob = o->offset[i] * (int64_t)es;
    int inner = r->layout == SG_LAYOUT_INNER; /* the stride along N and inner too */
    if ((r->m != 1 && sb % vb) || ob % vb ||
        (inner && ((o->nstride[i] * (int64_t)es) % vb || (r->inner * (int64_t)es) % vb))) {
      r->status = SG_ERR_UNSUPPORTED;
      snprintf(r->message, sizeof r->message,
               "the %s's row stride (%lld bytes) or offset (%lld bytes) is not a multiple of "
               "the kernel's vector width (%u bytes)",
               i ? "output" : "input", (long long)sb, (long long)ob, vb);
      return 0;
    }
  }
  sgrt_geometry g;
  sg_diag d;
  /* a run-time M (r->m -1): the kernel's own geometry here; the module picks
   * the kernel or a few-rows variant and its grid from M by the same rule
   * (rewrite.c, launch_rows_switch) */
  if (sgrt_launch_geometry(m, r->m < 0 ? (int64_t)1 << 40 : r->m, 0, NULL, &g, &d)) {
    r->status = SG_ERR_UNSUPPORTED;
    snprintf(r->message, sizeof r->message, "%.500s", d.message);
    return 0;
  }
  r->grid = r->m < 0 || r->n < 0 ? 0 : g.grid; /* a run-time N: per range, in the module */
  r->block = g.block;
  r->cluster = g.cluster;
  r->dsmem = g.dsmem;
  r->few = g.few;
  return 1;
}

/* Removes kernels that no op ended up using (all theirs failed place()). */
static void drop_unused(sg_mlir_report *rep) {
  int nk = 0;
  for (int k = 0; k < rep->nkernels; k++) {
    int used = 0;
    for (int i = 0; i < rep->nops; i++) {
      if (rep->ops[i].kernel == k) {
        rep->ops[i].kernel = nk;
        used = 1;
      }
      for (int j = 0; j < rep->ops[i].nranges; j++)
        if (rep->ops[i].range_kernels[j] == k) {
          rep->ops[i].range_kernels[j] = nk;
          used = 1;
        }
    }
    if (used)
      rep->kernels[nk++] = rep->kernels[k];
    else
      sg_buffer_free(&rep->kernels[k].object);
  }
  rep->nkernels = nk;
}

sg_status sgm_kernels(sgm_state *s, sg_diag *diag) {
  sg_mlir_report *rep = s->report;
  const sg_mlir_options *o = s->opts;
  sg_template *own[2] = {NULL, NULL};
  /* parsed inputs go through sgd_compilation_create_parsed, the built-in
   * templates' text alone through sg_compilation_create; the caller's
   * template serves the softmax ops only */
  const sg_template *parsed[2] = {o->softmax, NULL}; /* softmax, log_softmax */
  sg_status st = SG_OK;
  if (!parsed[0] && o->constraints &&
      !(st = sg_template_parse("<built-in softmax.sgt>", sgm_softmax_sgt, strlen(sgm_softmax_sgt),
                               &own[0], diag)))
    parsed[0] = own[0];
  if (!st && o->constraints &&
      !(st = sg_template_parse("<built-in log_softmax.sgt>", sgm_log_softmax_sgt,
                               strlen(sgm_log_softmax_sgt), &own[1], diag)))
    parsed[1] = own[1];
  unsigned outputs = SG_OUTPUT_BIT(o->format == SG_MLIR_FORMAT_ASSEMBLY ? SG_OUTPUT_ASM
                                                                         : SG_OUTPUT_OBJECT);
  for (int i = 0; i < rep->nops && !st; i++) {
    sg_mlir_op *r = &rep->ops[i];
    if (r->status != SG_OK)
      continue;
    const sg_template *pt = parsed[strcmp(r->template_name, "log_softmax") == 0];
    /* a static N: one kernel; a run-time N: one a range of N (the policy's) */
    int64_t ranges[SG_N_RANGES_MAX][2] = {{r->n, r->n}};
    int nranges = r->n < 0 ? sg_plan_n_ranges(o->max_n, ranges, SG_N_RANGES_MAX) : 1;
    int ok = 1;
    for (int q = 0; q < nranges && ok && !st; q++) {
      sg_compilation *c = NULL;
      sg_diag pd;
      sg_diag_clear(&pd);
      sg_status ps = create(s, pt, r, ranges[q][0], ranges[q][1], outputs, &c, &pd);
      if (ps == SG_ERR_CONSTRAINT) { /* this op's problem only: it stays */
        r->status = ps;
        snprintf(r->message, sizeof r->message, "%.500s", pd.message);
        ok = 0;
        break;
      }
      if (ps) {
        if (diag)
          *diag = pd;
        st = ps;
        break;
      }
      int k = find_kernel(rep, sg_plan_kernel_name(sg_compilation_plan(c)));
      if (k < 0) {
        sg_mlir_kernel *ks = realloc(rep->kernels, (size_t)(rep->nkernels + 1) * sizeof *ks);
        if (!ks) {
          st = sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
        } else {
          rep->kernels = ks;
          k = rep->nkernels++;
          memset(&ks[k], 0, sizeof ks[k]);
          st = build_kernel(s, pt, r, ranges[q], c, &ks[k], diag);
        }
      }
      sg_compilation_destroy(c);
      ok = !st && place(r, &s->ops[i], &rep->kernels[k].meta);
      if (ok && r->n < 0)
        r->range_kernels[r->nranges++] = k;
      else if (ok)
        r->kernel = k;
    }
    if (ok && !st && r->n < 0)
      r->kernel = r->range_kernels[0];
    else if (r->n < 0) /* a range failed: none of them is launched */
      r->nranges = 0;
  }
  drop_unused(rep);
  sg_template_destroy(own[0]);
  sg_template_destroy(own[1]);
  return st;
}
