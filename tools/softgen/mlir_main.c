/* mlir_main.c - `softgen model.mlir --target nvptx [--arch sm_90] [--out-dir D]`.
 *
 * Needs: the options main.c parsed (sg_cli_mlir_job). Produces, all or nothing:
 * D/<kernel>.cubin|.ptx|.hsaco for every distinct kernel and D/<stem>.gpu.mlir,
 * the module with each compiled linalg.softmax replaced by a launch of its
 * kernel (lib/mlir); with -o FILE only the module, to FILE ('-': stdout).
 * Ops left as they are get a warning with their location; they are not errors. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mlir_main.h"
#include "softgen/mlir.h"
#include "base/io.h"

typedef struct file_out {
  char path[4096];
  const void *data;
  size_t size;
} file_out;

/* D/<input's name without directory and .mlir>.gpu.mlir */
static void module_path(const sg_cli_mlir_job *j, char *out, size_t cap) {
  const char *base = strrchr(j->input, '/');
  base = base ? base + 1 : j->input;
  size_t n = strlen(base);
  if (sg_cli_is_mlir(base))
    n -= 5;
  snprintf(out, cap, "%s/%.*s.gpu.mlir", j->out_dir, (int)n, base);
}

/* What the report calls op: "linalg.softmax", or "log_softmax (a chain of linalg ops)". */
static void op_name(const sg_mlir_op *op, char *buf, size_t cap) {
  if (op->raised)
    snprintf(buf, cap, "%s (a chain of linalg ops)", op->template_name);
  else
    snprintf(buf, cap, "linalg.softmax");
}

static void print_ops(const sg_cli_mlir_job *j, const sg_mlir_report *r) {
  char name[80];
  for (int i = 0; i < r->nops; i++) {
    const sg_mlir_op *op = &r->ops[i];
    op_name(op, name, sizeof name);
    if (!op->compiled)
      fprintf(stderr, "softgen: warning: %s: %s left as it is: %s\n", op->location, name,
              op->message);
    else if (j->verbose) {
      char m[32], grid[32]; /* a run-time M: "?", its grid computed in the module */
      snprintf(m, sizeof m, op->m < 0 ? "?" : "%lld", (long long)op->m);
      snprintf(grid, sizeof grid, op->m < 0 ? "grid from M" : "grid %llu",
               (unsigned long long)op->grid);
      static const char *const copies[] = {"", "; input copied to the device",
                                           "; output copied back",
                                           "; input and output copied through the device"};
      if (op->nranges) { /* a run-time N: a kernel per range, picked in the module */
        const sg_meta *lo = &r->kernels[op->range_kernels[0]].meta;
        const sg_meta *hi = &r->kernels[op->range_kernels[op->nranges - 1]].meta;
        fprintf(stderr, "softgen: %s: %s %sx? %s -> %d kernels for N from %lld to %lld, chosen "
                "by N (%s .. %s; grids from M%s)\n", op->location, name, m,
                sg_dtype_name(op->dtype), op->nranges, (long long)lo->n_min, (long long)hi->n,
                lo->kernel, hi->kernel, copies[op->copies & 3]);
        continue;
      }
      const sg_meta *km = &r->kernels[op->kernel].meta;
      char few[96] = ""; /* a run-time M: the module picks among the few-rows variants too */
      int nf = 0;
      unsigned most = 0;
      for (int v = 0; op->m < 0 && v < km->nvariants; v++)
        if (!km->variants[v].split)
          nf++, most = km->variants[v].max_rows;
      if (nf == 1)
        snprintf(few, sizeof few, "; for M up to %u its few-rows variant", most);
      else if (nf)
        snprintf(few, sizeof few, "; for M up to %u one of its %d few-rows variants", most, nf);
      fprintf(stderr, "softgen: %s: %s %sx%lld %s -> %s (%s, block %u, cluster %u%s%s)\n",
              op->location, name, m, (long long)op->n, sg_dtype_name(op->dtype),
              op->few ? km->variants[op->few - 1].kernel : r->kernels[op->kernel].name, grid,
              op->block, op->cluster, few, copies[op->copies & 3]);
    }
  }
  if (r->nops == 0)
    fprintf(stderr, "softgen: warning: %s: no softmax in the module (no linalg.softmax, no "
            "softmax or log-softmax chain of linalg ops)\n", j->input);
  for (int k = 0; k < r->nkernels && j->verbose; k++) { /* the driver's cache, when on */
    const sg_compile_stats *st = &r->kernels[k].stats;
    if (st->cache_dir[0])
      fprintf(stderr, "softgen: %s: cache (%u hit, %u stored, %u rejected as corrupt; %s)\n",
              r->kernels[k].name, st->cache_hits, st->cache_stores, st->cache_rejected,
              st->cache_dir);
  }
}

int sg_cli_mlir(const sg_cli_mlir_job *j) {
  if (j->emit_other || (j->emit_asm && j->emit_obj)) {
    fprintf(stderr, "softgen: with an MLIR input, --emit takes asm (embed PTX) or obj (embed "
                    "the code object)\n(see softgen --help)\n");
    return 2;
  }
  if (!j->input) {
    fprintf(stderr, "softgen: --mlir needs an input file\n(see softgen --help)\n");
    return 2;
  }
  sg_diag d;
  sg_diag_clear(&d);
  char *text = NULL;
  size_t len = 0;
  sg_buffer module = {0};
  sg_mlir_report rep;
  memset(&rep, 0, sizeof rep);
  file_out *outs = NULL;
  int nouts = 0, status = 1, made_dir = 0;
  sg_mlir_options o = {.target = j->target, .arch = j->arch, .constraints = j->constraints,
                       .cache_dir = j->cache_dir, .no_cache = j->no_cache,
                       .device_memory = j->device_memory, .max_n = j->max_n};
  if (j->tools)
    o.tools = *j->tools;
  o.format = j->emit_asm ? SG_MLIR_FORMAT_ASSEMBLY
             : j->emit_obj ? SG_MLIR_FORMAT_OBJECT
                           : SG_MLIR_FORMAT_AUTO;
  if (sgb_read_input(j->input, "an MLIR module", SGB_LIMIT_MLIR, &text, &len, &d))
    goto done;
  if (sg_mlir_compile_text(j->input, text, len, &o, &module, &rep, &d))
    goto done;
  if (rep.warning[0])
    fprintf(stderr, "softgen: warning: %s\n", rep.warning);
  print_ops(j, &rep);
  /* everything is in memory: write it */
  outs = calloc((size_t)rep.nkernels + 1, sizeof *outs);
  if (!outs) {
    sg_diag_set(&d, SG_ERR_NO_MEMORY, "out of memory");
    goto done;
  }
  if (j->out_file) {
    snprintf(outs[0].path, sizeof outs[0].path, "%s", j->out_file);
  } else {
    if (mkdir(j->out_dir, 0777) == 0) {
      made_dir = 1;
    } else if (errno != EEXIST) {
      sg_diag_set(&d, SG_ERR_IO, "%s: cannot create directory: %s", j->out_dir, strerror(errno));
      goto done;
    }
    module_path(j, outs[0].path, sizeof outs[0].path);
    for (int k = 0; k < rep.nkernels; k++) {
      file_out *f = &outs[1 + k];
      snprintf(f->path, sizeof f->path, "%s/%s%s", j->out_dir, rep.kernels[k].name,
               rep.kernels[k].ext);
      f->data = rep.kernels[k].object.data;
      f->size = rep.kernels[k].object.size;
    }
    nouts = rep.nkernels;
  }
  outs[0].data = module.data;
  outs[0].size = module.size;
  nouts++;
  if (j->out_file && strcmp(j->out_file, "-") == 0) {
    if (sgb_stdout_write(module.data, module.size, &d) == SG_OK)
      status = 0;
    goto done;
  }
  /* all or nothing: every temporary written before the first rename (base/io.h) */
  sgb_outset set = {0};
  sg_status st = SG_OK;
  for (int i = 0; i < nouts && !st; i++)
    st = sgb_outset_add(&set, outs[i].path, outs[i].data, outs[i].size, &d);
  if (!st)
    st = sgb_outset_commit(&set, &d);
  sgb_outset_discard(&set);
  if (st) {
    if (made_dir)
      rmdir(j->out_dir); /* only when empty: nothing was renamed into it */
    goto done;
  }
  if (!j->out_file || j->verbose)
    for (int i = 0; i < nouts; i++)
      printf("softgen: wrote %s (%zu bytes)\n", outs[i].path, outs[i].size);
  status = 0;
done:
  if (status && d.message[0])
    fprintf(stderr, "softgen: error: %s\n", d.message);
  free(outs);
  sg_buffer_free(&module);
  sg_mlir_report_free(&rep);
  free(text);
  return status;
}
