/* softgen-run - load a softgen code object and launch it; the runtime's C
 * example and the GPU-feature probe used by lit.
 *
 * Needs: libsoftgen_rt (softgen/runtime.h), libm, tools/common/options.h (its options). Produces:
 *   softgen-run --probe [--backend B] [--device D]
 *       exit 0 iff the driver opens and the device answers; prints its name and arch.
 *   softgen-run [--rows M] [--cols N] [--inner I] [--backend B] [--device D] [--seed S]
 *               [--check] KERNEL
 *       prints the kernel's metadata, fills its input tensors with normal random
 *       values (deterministic seed), poisons its outputs (NaN bytes), launches,
 *       copies back and, with --check and template "softmax", compares every row
 *       against a float64 CPU softmax of the same (rounded) inputs: reports the
 *       largest per-row relative error ||y - ref|| / ||ref|| and max |rowsum - 1|
 *       and exits 1 when either is over the dtype's tolerance or a value is NaN.
 *       An inner-layout kernel ("layout inner") gets contiguous [M / I, N, I]
 *       tensors (--inner I, default 1; I must divide M), checked the same way.
 *       A kernel for a range of N ("n_min") runs rows of --cols N (default: n).
 * Exit status: 0 success, 1 check failed, 2 usage error, 3 runtime or I/O error (a
 * code object that cannot be read, a write error on stdout). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "softgen/runtime.h"
#include "base/io.h"
#include "../common/host_elems.h"
#include "../common/options.h"

enum { O_BACKEND = 1, O_DEVICE, O_PROBE, O_ROWS, O_COLS, O_INNER, O_CHECK, O_SEED, O_SCALAR, O_HELP };

static const opt cli[] = { /* tools/common/options.h */
    {O_BACKEND, "--backend", "cuda|hip|host|auto", 0,
     "auto (default): host for a host-target kernel (.so),\n"
     "else CUDA, then HIP"},
    {O_DEVICE, "--device", "D", 0, "the device's ordinal (default 0)"},
    {O_PROBE, "--probe", NULL, 0, "open the driver and device, print them, exit 0 if they answer"},
    {O_ROWS, "--rows", "M", 0, "rows to run (default 1000)"},
    {O_COLS, "--cols", "N", 0, "row length, for kernels of a range of N (default: the\n"
                              "largest the kernel takes)"},
    {O_INNER, "--inner", "I", 0, "inner-layout kernels: tensors [M / I, N, I] (default 1)"},
    {O_CHECK, "--check", NULL, 0, "compare against a float64 CPU softmax (template softmax only)"},
    {O_SEED, "--seed", "S", 0, "random seed for the inputs (default 1)"},
    {O_SCALAR, "--scalar", "NAME=VALUE", 0,
     "a scalar parameter of the kernel (metadata 'scalar' lines,\n"
     "e.g. --scalar scale=0.125 --scalar L=128 --scalar offset=0)"},
    {O_HELP, "-h, --help", NULL, 0, "this help"},
    {0},
};

static void usage(FILE *f) {
  fputs("usage: softgen-run --probe [--backend cuda|hip|host|auto] [--device D]\n"
        "       softgen-run [--rows M] [--cols N] [--inner I] [--backend cuda|hip|host|auto]\n"
        "                   [--device D]\n"
        "                   [--seed S] [--scalar NAME=VALUE]... [--check]\n"
        "                   KERNEL.{cubin,ptx,hsaco,so}\n",
        f);
  opt_help(f, cli);
  fputs("environment: SOFTGEN_CUDA_LIBRARY / SOFTGEN_HIP_LIBRARY name another driver\n", f);
}

static sg_rng rng = {0x9e3779b97f4a7c15ull};

static int fail_rt(const char *what, sg_status st, const sg_diag *d) {
  fprintf(stderr, "softgen-run: %s: %s: %s\n", what, sg_status_name(st), d->message);
  return 3;
}

static int probe(sgrt_backend backend, int device) {
  sgrt_runtime *rt;
  sg_diag d;
  sg_diag_clear(&d);
  sg_status st = sgrt_open(backend, device, &rt, &d);
  if (st)
    return fail_rt("probe", st, &d);
  printf("backend: %s\ndevice %d: %s\narch: %s\n", sgrt_backend_name(rt), device,
         sgrt_device_name(rt), sgrt_device_arch(rt));
  sgrt_close(rt);
  return 0;
}

/* float64 reference check of one in -> one out softmax; returns 0 if it passes.
 * The relative tolerance is the dtype's, or twice the error of the reference
 * itself rounded to the output dtype where that is larger (16-bit rows of
 * 2^17 and more, whose outputs are subnormals), as test/gpu/suite.py holds. */
/* Element index of (row r, column c) of tensor t. */
static size_t at(const sgrt_tensor *t, int64_t r, int64_t c) {
  if (!t->inner)
    return (size_t)(r * t->row_stride + c);
  return (size_t)(r / t->inner * t->row_stride + c * t->inner + r % t->inner);
}

static int check_softmax(const sgrt_tensor *t, void *const host[], int in,
                         int out) {
  int64_t rows = t[in].rows, n = t[in].cols;
  sg_dtype di = t[in].dtype, dout = t[out].dtype;
  double worst_rel = 0, worst_sum = 0, worst_floor = 0;
  int64_t worst_row = 0, nans = 0;
  double *ref = malloc((size_t)n * sizeof *ref);
  if (!ref)
    return 1;
  for (int64_t r = 0; r < rows; r++) {
    double mx = -INFINITY, s = 0, num = 0, den = 0, sum = 0, fnum = 0;
    for (int64_t c = 0; c < n; c++)
      mx = fmax(mx, sg_host_get(host[in], at(&t[in], r, c), di));
    for (int64_t c = 0; c < n; c++)
      s += ref[c] = exp(sg_host_get(host[in], at(&t[in], r, c), di) - mx);
    for (int64_t c = 0; c < n; c++) {
      double y = sg_host_get(host[out], at(&t[out], r, c), dout), e = ref[c] / s;
      nans += isnan(y);
      num += (y - e) * (y - e);
      den += e * e;
      unsigned char rounded[8];
      sg_host_put(rounded, 0, dout, (float)e);
      double er = sg_host_get(rounded, 0, dout) - e;
      fnum += er * er;
      sum += y;
    }
    double rel = sqrt(num) / sqrt(den), se = fabs(sum - 1), floor_rel = sqrt(fnum) / sqrt(den);
    if (floor_rel > worst_floor)
      worst_floor = floor_rel;
    if (!(rel <= worst_rel)) {
      worst_rel = rel;
      worst_row = r;
    }
    if (!(se <= worst_sum))
      worst_sum = se;
  }
  free(ref);
  double tol_rel = dout == SG_DTYPE_F32 ? 1e-5 : dout == SG_DTYPE_F16 ? 2e-3 : 1e-2;
  if (2 * worst_floor > tol_rel)
    tol_rel = 2 * worst_floor;
  double tol_sum = dout == SG_DTYPE_F32 ? 1e-4 : dout == SG_DTYPE_F16 ? 5e-3 : 2e-2;
  int ok = nans == 0 && worst_rel <= tol_rel && worst_sum <= tol_sum;
  printf("check: rows=%lld max_rel_err=%.3e (row %lld, tol %.1e) max_rowsum_err=%.3e (tol %.0e) "
         "nan=%lld %s\n",
         (long long)rows, worst_rel, (long long)worst_row, tol_rel, worst_sum, tol_sum,
         (long long)nans, ok ? "PASS" : "FAIL");
  return !ok;
}

/* AUTO for a host-target code object is the host backend: the CPU runs it. The
 * file is read as every input is (base/io.h): a regular file of at most
 * SGB_LIMIT_OBJECT, opened without blocking, so a FIFO or /dev/zero is refused. */
static sg_status backend_for(sgrt_backend backend, const char *path, sgrt_backend *out,
                             sg_diag *d) {
  *out = backend;
  struct stat sb;
  if (backend != SGRT_BACKEND_AUTO || stat(path, &sb) != 0)
    return SG_OK; /* a missing file: the runtime's load says so */
  char *buf;
  size_t len;
  sg_status st = sgb_read_input(path, "a code object", SGB_LIMIT_OBJECT, &buf, &len, d);
  if (st)
    return st;
  sg_meta m;
  sg_diag ignored;
  if (sg_meta_find(buf, len, &m, &ignored) == SG_OK && strcmp(m.target, "host") == 0)
    *out = SGRT_BACKEND_HOST;
  free(buf);
  return SG_OK;
}

#define MAX_SCALARS 8
static const char *scalar_names[MAX_SCALARS];
static double scalar_values[MAX_SCALARS];
static int nscalars_given;

static int run(sgrt_backend backend, int device, const char *path, int64_t rows, int64_t cols,
               int64_t inner, int check, uint64_t seed) {
  sgrt_runtime *rt = NULL;
  sgrt_kernel *k = NULL;
  sg_diag d;
  sg_diag_clear(&d);
  sg_status st = backend_for(backend, path, &backend, &d);
  if (st)
    return fail_rt("load", st, &d);
  st = sgrt_open(backend, device, &rt, &d);
  if (st)
    return fail_rt("open", st, &d);
  printf("device %d: %s (%s, %s)\n", device, sgrt_device_name(rt), sgrt_device_arch(rt),
         sgrt_backend_name(rt));
  st = sgrt_kernel_load_file(rt, path, &k, &d);
  if (st) {
    sgrt_close(rt);
    return fail_rt("load", st, &d);
  }
  const sg_meta *m = sgrt_kernel_meta(k);
  int64_t n = cols ? cols : m->n; /* the runtime checks it against the kernel's N */
  char text[4096];
  if (sg_meta_format(m, text, sizeof text, NULL, &d) == SG_OK)
    printf("%s", text);

  sgrt_tensor t[SG_META_MAX_TENSORS];
  memset(t, 0, sizeof t); /* the clean-up frees every t[i].data, allocated or not */
  void *host[SG_META_MAX_TENSORS] = {0};
  size_t bytes[SG_META_MAX_TENSORS] = {0};
  int rc = 0, in = -1, out = -1, nin = 0, nout = 0;
  rng.state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (int i = 0; i < m->ntensors; i++) {
    sg_dtype dt = m->tensors[i].dtype;
    unsigned es = sg_dtype_size(dt), vb = m->vector_bytes ? m->vector_bytes : 1;
    int64_t per = vb > es ? vb / es : 1;
    t[i] = (sgrt_tensor){NULL, rows, n, (n + per - 1) / per * per, dt, 0, 0};
    if (m->layout == SG_LAYOUT_INNER) /* [rows / inner, N, inner], contiguous */
      t[i] = (sgrt_tensor){NULL, rows, n, n * inner, dt, inner, inner};
    bytes[i] = (size_t)(rows * t[i].row_stride) * es;
    if (m->layout == SG_LAYOUT_INNER)
      bytes[i] = (size_t)((rows + inner - 1) / inner * t[i].row_stride) * es;
    host[i] = malloc(bytes[i] ? bytes[i] : 1);
    if (!host[i]) {
      rc = fail_rt("alloc", sg_diag_set(&d, SG_ERR_NO_MEMORY, "host memory"), &d);
      goto done;
    }
    if (m->tensors[i].is_output) {
      memset(host[i], 0xff, bytes[i]); /* NaN poison: unwritten elements fail --check */
      out = i, nout++;
    } else {
      for (size_t j = 0; j < bytes[i] / es; j++)
        sg_host_put(host[i], j, dt, (float)(2.0 * sg_rng_normal(&rng)));
      in = i, nin++;
    }
    if ((st = sgrt_mem_alloc(rt, bytes[i], &t[i].data, &d)) ||
        (st = sgrt_memcpy_htod(rt, t[i].data, host[i], bytes[i], &d))) {
      rc = fail_rt("device memory", st, &d);
      goto done;
    }
  }
  double scalars[SG_META_MAX_SCALARS];
  for (int i = 0; i < m->nscalars; i++) {
    int j = 0;
    while (j < nscalars_given && strcmp(scalar_names[j], m->scalars[i].name) != 0)
      j++;
    if (j == nscalars_given) {
      fprintf(stderr, "softgen-run: the kernel takes scalar '%s' (%s): pass --scalar %s=VALUE\n",
              m->scalars[i].name, m->scalars[i].is_i64 ? "i64" : "f32", m->scalars[i].name);
      rc = 2;
      goto done;
    }
    scalars[i] = scalar_values[j];
  }
  for (int j = 0; j < nscalars_given; j++)
    if (sg_meta_scalar_index(m, scalar_names[j]) < 0) {
      fprintf(stderr, "softgen-run: the kernel has no scalar '%s'\n", scalar_names[j]);
      rc = 2;
      goto done;
    }
  if ((st = sgrt_kernel_launch_ex(k, t, m->ntensors, scalars, m->nscalars, NULL, &d))) {
    rc = fail_rt("launch", st, &d);
    goto done;
  }
  if ((st = sgrt_synchronize(rt, &d))) {
    rc = fail_rt("synchronize", st, &d);
    goto done;
  }
  for (int i = 0; i < m->ntensors; i++)
    if (m->tensors[i].is_output && (st = sgrt_memcpy_dtoh(rt, host[i], t[i].data, bytes[i], &d))) {
      rc = fail_rt("copy back", st, &d);
      goto done;
    }
  if (m->layout == SG_LAYOUT_INNER)
    printf("launched: rows=%lld inner=%lld", (long long)rows, (long long)inner);
  else
    printf("launched: rows=%lld", (long long)rows);
  sgrt_geometry g;
  if (sgrt_kernel_geometry(k, rows, &g, &d) == SG_OK && g.few) { /* which entry ran */
    const sg_meta_variant *v = &m->variants[g.few - 1];
    if (v->split) /* the default stream's workspace slot is free: the one stream here */
      printf(" (grid-split variant %s: grid %llu, block %u, split %u, workspace %llu)", v->kernel,
             (unsigned long long)g.grid, g.block, v->split, (unsigned long long)g.workspace);
    else
      printf(" (few-rows variant %s: grid %llu, block %u, cluster %u)", v->kernel,
             (unsigned long long)g.grid, g.block, g.cluster);
  }
  printf("\n");
  if (check) {
    if (strcmp(m->template_name, "softmax") != 0 || nin != 1 || nout != 1)
      printf("check: no reference for template '%s'\n", m->template_name);
    else
      rc = check_softmax(t, host, in, out);
  }
done:
  for (int i = 0; i < m->ntensors; i++) {
    sgrt_mem_free(rt, i < m->ntensors ? t[i].data : NULL);
    free(host[i]);
  }
  sgrt_kernel_destroy(k);
  sgrt_close(rt);
  return rc;
}

static int run_args(int argc, char **argv) {
  sgrt_backend backend = SGRT_BACKEND_AUTO;
  int device = 0, do_probe = 0, check = 0;
  int64_t rows = 1000, cols = 0, inner = 1;
  uint64_t seed = 1;
  const char *path = NULL;
  opt_parser p = {.argc = argc, .argv = argv, .i = 1};
  for (int id; (id = opt_next(&p, cli)) != OPT_END;) {
    const char *v = p.val;
    char *end = NULL;
    switch (id) {
    case OPT_ARG: /* "-" (this program reads no stdin) is an unknown option, as before */
      if (strcmp(v, "-") != 0) {
        if (path) {
          fprintf(stderr, "softgen-run: more than one kernel given ('%s')\n", v);
          return 2;
        }
        path = v;
        break;
      }
      /* fall through */
    case OPT_UNKNOWN:
    case OPT_NO_VALUE:
    case OPT_EXTRA_VALUE:
      fprintf(stderr, "softgen-run: unknown or incomplete option '%s'\n", p.name);
      usage(stderr);
      return 2;
    case O_HELP:
      usage(stdout);
      return 0;
    case O_PROBE:
      do_probe = 1;
      break;
    case O_CHECK:
      check = 1;
      break;
    case O_SCALAR: {
      const char *eq = strchr(v, '=');
      double x = eq ? strtod(eq + 1, &end) : 0;
      if (!eq || eq == v || !eq[1] || *end || nscalars_given == MAX_SCALARS) {
        fprintf(stderr, "softgen-run: --scalar needs NAME=NUMBER (at most %d), got '%s'\n",
                MAX_SCALARS, v);
        return 2;
      }
      static char names[MAX_SCALARS][64];
      snprintf(names[nscalars_given], sizeof names[0], "%.*s", (int)(eq - v), v);
      scalar_names[nscalars_given] = names[nscalars_given];
      scalar_values[nscalars_given++] = x;
      break;
    }
    case O_BACKEND:
      if (strcmp(v, "cuda") == 0)
        backend = SGRT_BACKEND_CUDA;
      else if (strcmp(v, "hip") == 0)
        backend = SGRT_BACKEND_HIP;
      else if (strcmp(v, "host") == 0)
        backend = SGRT_BACKEND_HOST;
      else if (strcmp(v, "auto") != 0) {
        fprintf(stderr, "softgen-run: unknown backend '%s'\n", v);
        return 2;
      }
      break;
    default: { /* --rows, --cols, --inner, --device, --seed: integers */
      long long n = strtoll(v, &end, 10);
      if (*end || n < 0 || (id == O_DEVICE && n > 1 << 20)) {
        fprintf(stderr, "softgen-run: %s needs a non-negative integer, got '%s'\n", p.name, v);
        return 2;
      }
      if (id == O_ROWS)
        rows = n;
      else if (id == O_COLS)
        cols = n;
      else if (id == O_INNER)
        inner = n ? n : 1;
      else if (id == O_DEVICE)
        device = (int)n;
      else
        seed = (uint64_t)n;
    }
    }
  }
  if (do_probe)
    return probe(backend, device);
  if (!path) {
    usage(stderr);
    return 2;
  }
  return run(backend, device, path, rows, cols, inner, check, seed);
}

/* run_args(), then stdout: a write error on it is an error (exit 3). */
int main(int argc, char **argv) {
  int rc = run_args(argc, argv);
  sg_diag d;
  if (sgb_stdout_flush(&d)) {
    fprintf(stderr, "softgen-run: error: %s\n", d.message);
    if (rc == 0 || rc == 1)
      rc = 3;
  }
  return rc;
}
