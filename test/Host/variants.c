/* variants.c - the softmax variants on the host target against a float64
 * reference (softgen-host-variants; run by test/Host/variants.test). No GPU:
 * the kernels are generated for --target host by the shared codegen,
 * compiled in-process (ORC JIT) and launched through the runtime's public API
 * (sgrt_kernel_launch_ex: scalars, masks whose rows repeat).
 *
 *   softgen-host-variants TEMPLATES_DIR
 *
 * Kernels: scaled_softmax, masked_softmax, causal_softmax, safe_softmax,
 * attention_softmax, safe_attention_softmax in f16 / bf16 / f32, and mixed dtypes (T in, U out)
 * for softmax, log_softmax and softmax_backward, at N = 1, 7, 1000, 4096,
 * 40000, and masked / safe_attention f32 at N = 70000 (a mask of 16 rows over 4 MB:
 * the head-by-head row order). Launches per kernel: M = 48 rows = 3 matrices of L = 16 queries;
 * mask (in the output dtype U, as the templates declare it) of R = 1 and R = 16
 * rows (-inf entries, one fully -inf row); causal
 * offsets 0, N - L and -3 (rows with no key left); scale 0.125 and 1.7; row 3
 * of x all -inf. Reference: PyTorch's semantics in float64 from the rounded
 * inputs (a row of all -inf, a +inf or a NaN gives NaN; the safe templates
 * give zeros for a row with no finite score). Checks: NaN exactly where the
 * reference is NaN, per row ||y - ref|| / ||ref|| within the output dtype's
 * tolerance (f32 2e-5, f16 2e-3, bf16 1.6e-2), the output poisoned before the
 * launch. Prints "ok - ..." / "not ok - ..." and "N passed, N failed" last. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softgen/runtime.h"
#include "softgen/softgen.h"
#include "../../tools/common/host_elems.h"

#define M 48
#define L 16

enum { SCALED, MASKED, CAUSAL, SAFE, ATTENTION, SAFE_ATTENTION, PLAIN, LOGSM, BACKWARD };
static const char *const names[] = {"scaled_softmax", "masked_softmax", "causal_softmax",
                                    "safe_softmax", "attention_softmax", "safe_attention_softmax",
                                    "softmax", "log_softmax", "softmax_backward"};

typedef struct launch_case {
  double scale;
  int64_t rows_mask, offset;
} launch_case;

static sgrt_runtime *rt;
static sg_rng rng = {0x243f6a8885a308d3ull};

/* The float64 reference of row r: y[n] from x (and mask / dy, y). */
static void reference(int kind, const double *x, const double *mask, const double *aux, int64_t n,
                      int64_t r, const launch_case *lc, double *y) {
  if (kind == BACKWARD) { /* x = dy, aux = y */
    double s = 0;
    for (int64_t i = 0; i < n; i++)
      s += x[i] * aux[i];
    for (int64_t i = 0; i < n; i++)
      y[i] = aux[i] * (x[i] - s);
    return;
  }
  int attention = kind == ATTENTION || kind == SAFE_ATTENTION;
  int scaled = kind <= CAUSAL || attention, masked = kind == MASKED || attention;
  int causal = kind == CAUSAL || attention, safe = kind == SAFE || kind == SAFE_ATTENTION;
  double mx = -INFINITY;
  int nan = 0;
  for (int64_t i = 0; i < n; i++) {
    double v = x[i] * (scaled ? lc->scale : 1.0);
    if (masked)
      v += mask[(r % lc->rows_mask) * n + i];
    if (causal && i > r % L + lc->offset)
      v = -INFINITY;
    y[i] = v;
    nan |= isnan(v) || v == INFINITY;
    mx = v > mx ? v : mx;
  }
  if (nan || (mx == -INFINITY && !safe)) {
    for (int64_t i = 0; i < n; i++)
      y[i] = NAN;
    return;
  }
  if (mx == -INFINITY) {
    for (int64_t i = 0; i < n; i++)
      y[i] = 0;
    return;
  }
  double s = 0;
  for (int64_t i = 0; i < n; i++)
    s += exp(y[i] - mx);
  for (int64_t i = 0; i < n; i++)
    y[i] = kind == LOGSM ? y[i] - mx - log(s) : exp(y[i] - mx) / s;
}

typedef struct kernel {
  int kind;
  sg_dtype in, out;
  int64_t n;
  sgrt_kernel *k;
  sg_jit *jit;
} kernel;

static sg_status build(kernel *K, const char *dir, sg_diag *d) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.sgt", dir, names[K->kind]);
  sg_template *t = NULL;
  sg_plan *plan = NULL;
  sg_module *m = NULL;
  sg_problem p = {.n = K->n, .dtype = K->in, .target = "host", .out_dtype_set = 1,
                  .out_dtype = K->out};
  sg_status st = sg_template_load(path, &t, d);
  if (!st)
    st = sg_plan_resolve(t, NULL, &p, &plan, d);
  if (!st)
    st = sg_codegen(t, plan, &m, d);
  if (!st)
    st = sg_module_optimize(m, d);
  if (!st)
    st = sg_jit_create(m, &K->jit, d);
  size_t len;
  const char *meta = st ? NULL : sg_jit_meta(K->jit, &len);
  if (!st)
    st = sgrt_kernel_load_host(rt, sg_jit_kernel(K->jit), meta, len, &K->k, d);
  sg_module_destroy(m);
  sg_plan_destroy(plan);
  sg_template_destroy(t);
  return st;
}

/* Fills a tensor of rows x n in dtype dt from v (rounded values written back). */
static void *upload(double *v, int64_t rows, int64_t n, sg_dtype dt, sg_diag *d) {
  void *p = NULL;
  if (sgrt_mem_alloc(rt, (size_t)(rows * n) * sg_dtype_size(dt), &p, d))
    return NULL;
  for (int64_t i = 0; i < rows * n; i++) {
    sg_host_put(p, (size_t)i, dt, (float)v[i]);
    v[i] = sg_host_get(p, (size_t)i, dt);
  }
  return p;
}

/* One launch; returns the worst row error over its tolerance, or -1 on a
 * mismatch it reports in why. */
static double run_case(const kernel *K, const launch_case *lc, char *why, size_t cap) {
  int64_t n = K->n, R = lc->rows_mask;
  double *x = malloc(sizeof(double) * M * n), *aux = malloc(sizeof(double) * M * n);
  double *mask = malloc(sizeof(double) * R * n), *ref = malloc(sizeof(double) * n);
  double worst = -1;
  void *dx = NULL, *daux = NULL, *dmask = NULL, *dy = NULL;
  sg_diag d;
  for (int64_t i = 0; i < M * n; i++) {
    x[i] = 3.0 * sg_rng_normal(&rng);
    aux[i] = sg_rng_uniform(&rng) / (double)n;
  }
  for (int64_t i = 0; i < n; i++) /* row 3: all -inf */
    x[3 * n + i] = -INFINITY;
  for (int64_t i = 0; i < R * n; i++)
    mask[i] = sg_rng_uniform(&rng) < 0.1 ? -INFINITY : sg_rng_normal(&rng);
  if (R > 5)
    for (int64_t i = 0; i < n; i++) /* mask row 5: fully masked */
      mask[5 * n + i] = -INFINITY;
  int nin = K->kind == BACKWARD ? 2 : 1;
  int masked = K->kind == MASKED || K->kind == ATTENTION || K->kind == SAFE_ATTENTION;
  dx = upload(x, M, n, K->in, &d);
  daux = nin == 2 ? upload(aux, M, n, K->in, &d) : NULL;
  dmask = masked ? upload(mask, R, n, K->out, &d) : NULL; /* the mask is in U */
  size_t obytes = (size_t)(M * n) * sg_dtype_size(K->out);
  if (!dx || (nin == 2 && !daux) || (masked && !dmask) ||
      sgrt_mem_alloc(rt, obytes, &dy, &d)) {
    snprintf(why, cap, "allocation: %.200s", d.message);
    goto out;
  }
  memset(dy, 0xff, obytes); /* NaN bits: an unwritten element fails */
  const sg_meta *mt = sgrt_kernel_meta(K->k);
  sgrt_tensor t[3];
  for (int i = 0; i < mt->ntensors; i++) {
    const char *nm = mt->tensors[i].name;
    int is_mask = strcmp(nm, "mask") == 0;
    void *data = mt->tensors[i].is_output ? dy : is_mask ? dmask
                 : (strcmp(nm, "y") == 0 && nin == 2) ? daux : dx;
    t[i] = (sgrt_tensor){.data = data, .rows = is_mask ? R : M, .cols = n, .row_stride = n,
                         .dtype = mt->tensors[i].dtype};
  }
  double scalars[3];
  for (int i = 0; i < mt->nscalars; i++)
    scalars[i] = strcmp(mt->scalars[i].name, "scale") == 0 ? lc->scale
                 : strcmp(mt->scalars[i].name, "L") == 0    ? (double)L
                                                            : (double)lc->offset;
  if (sgrt_kernel_launch_ex(K->k, t, mt->ntensors, scalars, mt->nscalars, NULL, &d)) {
    snprintf(why, cap, "launch: %.200s", d.message);
    goto out;
  }
  double tol = K->out == SG_DTYPE_F32 ? 2e-5 : K->out == SG_DTYPE_F16 ? 2e-3 : 1.6e-2;
  worst = 0;
  for (int64_t r = 0; r < M && worst >= 0; r++) {
    reference(K->kind, x + r * n, mask, aux + r * n, n, r, lc, ref);
    double e2 = 0, r2 = 0;
    for (int64_t i = 0; i < n; i++) {
      double y = sg_host_get(dy, (size_t)(r * n + i), K->out);
      if (isnan(ref[i]) != isnan(y)) {
        snprintf(why, cap, "row %lld col %lld: %g, reference %g", (long long)r, (long long)i, y,
                 ref[i]);
        worst = -1;
        break;
      }
      if (!isnan(y)) {
        e2 += (y - ref[i]) * (y - ref[i]);
        r2 += ref[i] * ref[i];
      }
    }
    double rel = r2 > 0 ? sqrt(e2 / r2) : sqrt(e2);
    if (worst >= 0 && rel / tol > worst)
      worst = rel / tol;
    if (worst > 1) {
      snprintf(why, cap, "row %lld: relative error %.3e over the tolerance %.1e", (long long)r,
               rel, tol);
      worst = -1;
    }
  }
out:
  sgrt_mem_free(rt, dx);
  sgrt_mem_free(rt, daux);
  sgrt_mem_free(rt, dmask);
  sgrt_mem_free(rt, dy);
  free(x);
  free(aux);
  free(mask);
  free(ref);
  return worst;
}

static int test_kernel(kernel *K, const char *dir) {
  sg_diag d;
  char label[128], why[256] = "";
  snprintf(label, sizeof label, "%s %s->%s N=%lld", names[K->kind], sg_dtype_name(K->in),
           sg_dtype_name(K->out), (long long)K->n);
  if (build(K, dir, &d)) {
    printf("not ok - %s: %s\n", label, d.message);
    return 1;
  }
  launch_case cases[] = {{0.125, 1, 0}, {1.7, L, K->n - L}, {1.0, L, -3}, {0.125, L, 1000000}};
  double worst = 0;
  int failed = 0;
  for (unsigned c = 0; c < sizeof cases / sizeof cases[0] && !failed; c++) {
    double w = run_case(K, &cases[c], why, sizeof why);
    if (w < 0) {
      printf("not ok - %s (scale %g, R %lld, offset %lld): %s\n", label, cases[c].scale,
             (long long)cases[c].rows_mask, (long long)cases[c].offset, why);
      failed = 1;
    }
    worst = w > worst ? w : worst;
  }
  if (!failed)
    printf("ok - %s (worst row error %.2f of tolerance)\n", label, worst);
  sgrt_kernel_destroy(K->k);
  sg_jit_destroy(K->jit);
  return failed;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: softgen-host-variants TEMPLATES_DIR\n");
    return 2;
  }
  sg_diag d;
  if (sgrt_open(SGRT_BACKEND_HOST, 0, &rt, &d)) {
    printf("not ok - open the host backend: %s\n", d.message);
    return 1;
  }
  static const int64_t ns[] = {1, 7, 1000, 4096, 40000};
  int passed = 0, failed = 0;
  for (int kind = SCALED; kind <= SAFE_ATTENTION; kind++)
    for (int dt = 0; dt < SG_DTYPE_COUNT; dt++)
      for (unsigned i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        kernel K = {kind, (sg_dtype)dt, (sg_dtype)dt, ns[i], NULL, NULL};
        test_kernel(&K, argv[1]) ? failed++ : passed++;
      }
  static const struct {
    int kind;
    sg_dtype in, out;
  } mixed[] = {{PLAIN, SG_DTYPE_F16, SG_DTYPE_F32},     {PLAIN, SG_DTYPE_BF16, SG_DTYPE_F32},
               {PLAIN, SG_DTYPE_F32, SG_DTYPE_F16},     {LOGSM, SG_DTYPE_F16, SG_DTYPE_F32},
               {BACKWARD, SG_DTYPE_F32, SG_DTYPE_F16},  {MASKED, SG_DTYPE_BF16, SG_DTYPE_F32},
               {SAFE_ATTENTION, SG_DTYPE_F16, SG_DTYPE_F32}};
  for (unsigned j = 0; j < sizeof mixed / sizeof mixed[0]; j++)
    for (unsigned i = 0; i < sizeof ns / sizeof ns[0]; i++) {
      kernel K = {mixed[j].kind, mixed[j].in, mixed[j].out, ns[i], NULL, NULL};
      test_kernel(&K, argv[1]) ? failed++ : passed++;
    }
  /* a mask of over 4 MB (16 rows x 70000 f32) under 3 heads: row blocks go
   * head by head (codegen/address.c, sgc_block_row) */
  for (int kind = MASKED; kind <= SAFE_ATTENTION; kind += SAFE_ATTENTION - MASKED) {
    kernel K = {kind, SG_DTYPE_F32, SG_DTYPE_F32, 70000, NULL, NULL};
    test_kernel(&K, argv[1]) ? failed++ : passed++;
  }
  sgrt_close(rt);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
