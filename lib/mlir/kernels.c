/* kernels.c - one code object per distinct kernel of the module's softmax ops.
 *
 * Needs: report->ops classified by import.c. Produces: report->kernels (name,
 * metadata read back from the object, the object's bytes), each op's kernel
 * index and launch geometry (grid, block, cluster as lib/runtime computes
 * them for the op's static M). The pipeline is the CLI's: sg_plan_resolve ->
 * sg_codegen -> sg_module_optimize -> sg_module_emit. An op whose problem the
 * plan rejects, or whose row strides or offsets break the kernel's alignment
 * (vector_bytes), keeps that status and stays in the module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir/mlir_impl.h"

/* The runtime's bound on a 1-D grid (lib/runtime/runtime.c, MAX_GRID). */
#define SGM_MAX_GRID 2147483647u

/* Emits the code object of one plan: the object when the format allows and
 * the tools are there, else (nvptx, AUTO) PTX with a warning. */
static sg_status emit_object(sgm_state *s, sg_module *m, const sg_plan *plan, sg_mlir_kernel *k,
                             sg_diag *diag) {
  const sg_mlir_options *o = s->opts;
  int nvptx = strcmp(sg_plan_asm_ext(plan), ".ptx") == 0;
  if (o->format == SG_MLIR_FORMAT_ASSEMBLY) {
    if (!nvptx)
      return sg_diag_set(diag, SG_ERR_UNSUPPORTED,
                         "assembly gpu.objects are for nvptx only (PTX); amdgpu embeds .hsaco");
  } else {
    sg_status st = sg_module_emit(m, SG_EMIT_OBJECT, &o->tools, &k->object, diag);
    if (st == SG_OK) {
      k->ext = sg_plan_object_ext(plan);
      return SG_OK;
    }
    if (st != SG_ERR_TOOL || o->format != SG_MLIR_FORMAT_AUTO || !nvptx)
      return st;
    snprintf(s->report->warning, sizeof s->report->warning, "%.400s; the gpu.objects hold PTX (assembly) instead",
             diag ? diag->message : "ptxas failed");
    sg_diag_clear(diag);
  }
  k->assembly = 1;
  k->ext = ".ptx";
  return sg_module_emit(m, SG_EMIT_ASM, NULL, &k->object, diag);
}

/* Builds the kernel of plan into k (codegen, O3, emission, metadata). */
static sg_status build_kernel(sgm_state *s, const sg_template *t, const sg_plan *plan,
                              sg_mlir_kernel *k, sg_diag *diag) {
  sg_module *m = NULL;
  snprintf(k->name, sizeof k->name, "%s", sg_plan_kernel_name(plan));
  sg_status st = sg_codegen(t, plan, &m, diag);
  if (!st)
    st = sg_module_optimize(m, diag);
  if (!st)
    st = emit_object(s, m, plan, k, diag);
  sg_module_destroy(m);
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
 * and fills its launch geometry. Returns 0 (status set) when it cannot run. */
static int place(sg_mlir_op *r, const sgm_op *o, const sg_meta *m) {
  unsigned vb = m->vector_bytes ? m->vector_bytes : 1, es = sg_dtype_size(r->dtype);
  for (int i = 0; i < 2; i++) {
    int64_t sb = o->stride[i] * (int64_t)es, ob = o->offset[i] * (int64_t)es;
    int inner = r->layout == SG_LAYOUT_INNER; /* the stride along N and inner too */
    if ((r->m > 1 && sb % vb) || ob % vb ||
        (inner && ((o->nstride[i] * (int64_t)es) % vb || (r->inner * (int64_t)es) % vb))) {
      r->status = SG_ERR_UNSUPPORTED;
      snprintf(r->message, sizeof r->message,
               "the %s's row stride (%lld bytes) or offset (%lld bytes) is not a multiple of "
               "the kernel's vector width (%u bytes)",
               i ? "output" : "input", (long long)sb, (long long)ob, vb);
      return 0;
    }
  }
  uint64_t rpb = m->rows_per_block ? m->rows_per_block : 1;
  unsigned cluster = m->cluster ? m->cluster : 1;
  uint64_t grid = ((uint64_t)r->m + rpb - 1) / rpb * cluster;
  if (grid > SGM_MAX_GRID) /* the kernel strides over row blocks */
    grid = SGM_MAX_GRID - SGM_MAX_GRID % cluster;
  r->grid = grid;
  r->block = m->block;
  r->cluster = cluster;
  return 1;
}

/* Removes kernels that no op ended up using (all theirs failed place()). */
static void drop_unused(sg_mlir_report *rep) {
  int nk = 0;
  for (int k = 0; k < rep->nkernels; k++) {
    int used = 0;
    for (int i = 0; i < rep->nops; i++)
      if (rep->ops[i].kernel == k) {
        rep->ops[i].kernel = nk;
        used = 1;
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
  sg_template *own = NULL;
  sg_constraints *none = NULL;
  const sg_template *t = o->softmax;
  const sg_constraints *c = o->constraints;
  sg_status st = SG_OK;
  if (!t && (st = sg_template_parse("<built-in softmax.sgt>", sgm_softmax_sgt,
                                    strlen(sgm_softmax_sgt), &own, diag)))
    goto done;
  if (!t)
    t = own;
  if (!c && (st = sg_constraints_create(&none, diag)))
    goto done;
  if (!c)
    c = none;
  for (int i = 0; i < rep->nops && !st; i++) {
    sg_mlir_op *r = &rep->ops[i];
    if (r->status != SG_OK)
      continue;
    sg_problem p = {.n = r->n, .dtype = r->dtype, .target = o->target, .arch = o->arch,
                    .layout = r->layout};
    sg_plan *plan = NULL;
    sg_diag pd;
    sg_diag_clear(&pd);
    sg_status ps = sg_plan_resolve(t, c, &p, &plan, &pd);
    if (ps == SG_ERR_CONSTRAINT) { /* this op's problem only: it stays */
      r->status = ps;
      snprintf(r->message, sizeof r->message, "%.500s", pd.message);
      continue;
    }
    if (ps) {
      if (diag)
        *diag = pd;
      st = ps;
      break;
    }
    int k = find_kernel(rep, sg_plan_kernel_name(plan));
    if (k < 0) {
      sg_mlir_kernel *ks = realloc(rep->kernels, (size_t)(rep->nkernels + 1) * sizeof *ks);
      if (!ks) {
        st = sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
      } else {
        rep->kernels = ks;
        k = rep->nkernels++;
        memset(&ks[k], 0, sizeof ks[k]);
        st = build_kernel(s, t, plan, &ks[k], diag);
      }
    }
    sg_plan_destroy(plan);
    if (!st && place(r, &s->ops[i], &rep->kernels[k].meta))
      r->kernel = k;
  }
  drop_unused(rep);
done:
  sg_constraints_destroy(none);
  sg_template_destroy(own);
  return st;
}
