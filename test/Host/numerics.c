/* numerics.c - the numerics of every template and dtype on the host target
 * against a float64 reference (softgen-host-check; run by test/Host/numerics-*.test).
 * No GPU: the kernels are generated for --target host by the same template,
 * plan and codegen as the GPU kernels and run through the runtime's public API
 * on its host backend, so a numerical regression in the shared codegen fails
 * here.
 *
 *   softgen-host-check TEMPLATES_DIR [--via-so] [--quick] [--inner] [-C TEXT] [--arch ARCH]
 *     default:   each kernel compiled in-process (sg_jit_create) and registered
 *                with sgrt_kernel_load_host
 *     --via-so:  each kernel linked into a shared library (SG_EMIT_SHARED) and
 *                loaded from its bytes with sgrt_kernel_load_data (dlopen)
 *     --quick:   fewer row lengths
 *     --inner:   kernels of the inner layout (--layout inner: softmax over dim
 *                N of [outer, N, inner] tensors), N = 1, 7, 1000, 5000, and the
 *                launches of inner_cases below instead of those that follow
 *     -C TEXT:   constraints every kernel is resolved with (e.g.
 *                'PipelineConstraint(online=1)': tiled rows reduce max and sum
 *                in one online pass)
 *     --arch:    the host arch kernels are built for (default native; e.g.
 *                x86-64: no F16C, no SSE4.1), which this CPU must run
 *
 * Kernels: softmax, log_softmax, softmax_backward, log_softmax_backward x f32,
 * f16, bf16 x N (1, 2 and 4: packed rows; odd, short, tiled long rows, vector widths
 * down to 1).
 * Launches per kernel, the cases of test/gpu/suite.py:
 *   rows     M = 37, the row kinds of suite.py in turn: normal, large, equal,
 *            all -inf, one +inf, one NaN, half -inf, one finite, near max, tiny,
 *            subnormal (one 0, the rest where exp(x) is a subnormal of the dtype)
 *            (backward templates: y = the forward of those rows, dy normal)
 *   strided  M = 23, rows 3 vectors further apart than N; input padding NaN
 *   large M  M = 3001 (N <= 1027), on 3 CPU threads
 *   shift    softmax, log_softmax: y(x + 100) against the reference of x and
 *            against y(x) (x + 100 exact in the dtype)
 * Inner layout (--inner), per kernel: [outer, N, inner] = [5, N, 1], [3, N, 3],
 * [2, N, 64], [1, N, 1000] (rows m = o * inner + i of the kinds above),
 * contiguous; [3, N, 3] with n_stride = inner + 2 and the outer stride 7
 * past the slice (gaps NaN in the inputs, guarded in the output); the shift
 * case on [2, N, 64]; on 1 to 3 CPU threads.
 * Checks per launch (suite.py's): outputs NaN exactly where the reference is
 * (PyTorch: rows of all -inf, a +inf or a NaN are NaN rows); outputs poisoned
 * (NaN bits) before launch, so an unwritten element fails; +-inf exactly where
 * the reference rounded to the dtype is, nowhere else; per row
 * ||y - ref|| / ||ref|| (absolute when ||ref|| = 0) within
 * max(TOL, 2 x the dtype's rounding floor + a bound of the f32 arithmetic),
 * TOL f32 1e-5, f16 1e-3, bf16 1e-2; softmax row sums within 1e-3 (16-bit: of
 * the rounded reference's sum, plus an ulp at 0.5); 4 KiB guards around the
 * output and the gaps between strided rows unchanged; inputs unchanged; where
 * the reference rounded to the dtype is a subnormal, the output is within one
 * subnormal step plus the element's arithmetic bound, and (forward templates)
 * nonzero where the reference is at least the smallest subnormal (no flush to
 * 0; a backward output y (dy - s) may cancel to 0 within its bound).
 * --range: kernels for a range of N (N a run-time argument: 1:16, 500:1027,
 * 3000:12345, 30000:40000), each run at both ends, next to them and at an odd
 * N between.
 * Prints "ok - ..." / "not ok - ..." per kernel and "N passed, N failed" last;
 * exits 1 when a kernel failed. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softgen/runtime.h"
#include "softgen/softgen.h"
#include "../../tools/common/host_elems.h"

#define GUARD 4096
#define KINDS 11
#define EPS32 (1.0 / 16777216.0)
#define APPROX (1.0 / 2097152.0) /* exp2 / log2 polynomials, with margin */

static const char *const kind_names[KINDS] = {"normal", "large", "equal", "all_-inf", "one_+inf",
                                              "one_nan", "half_-inf", "one_finite", "near_max",
                                              "tiny", "subnormal"};

typedef struct kernel {
  const char *tpl;
  int backward, logf; /* dy, y -> dx; log_softmax family */
  sg_dtype dt;
  int64_t n;
  sgrt_kernel *k;
  sg_jit *jit;
  unsigned vb, tiles;
  sg_layout layout;
  int64_t lo, hi; /* a kernel for the range of N [lo, hi] (hi 0: exactly n) */
} kernel;

typedef struct verdict {
  double worst; /* largest rel / tol */
  char first[512];
  int failures;
} verdict;

static sgrt_runtime *rt;
static const char *constraints; /* -C TEXT, or NULL */
static const char *arch;        /* --arch ARCH, or NULL (native) */
static sg_rng rng = {0x9e3779b97f4a7c15ull};

__attribute__((format(printf, 2, 3))) static void fail(verdict *v, const char *fmt, ...) {
  if (v->failures++)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->first, sizeof v->first, fmt, ap);
  va_end(ap);
}

static double round_to(double x, sg_dtype dt) {
  unsigned char b[4];
  sg_host_put(b, 0, dt, (float)x);
  return sg_host_get(b, 0, dt);
}
static double dtype_min_normal(sg_dtype dt) { return dt == SG_DTYPE_F16 ? 0x1p-14 : 0x1p-126; }
static double dtype_max(sg_dtype dt) {
  return dt == SG_DTYPE_F32 ? 3.4028234663852886e38 : dt == SG_DTYPE_F16 ? 65504.0 : 3.3895313892515355e38;
}

/* One row of kind k (suite.py's make_rows), rounded to dt. */
static void make_row(double *x, int64_t n, int k, int64_t r, sg_dtype dt) {
  double fmax = dtype_max(dt);
  static const double equal[4] = {0, -3.5, 7.25, -1};
  for (int64_t c = 0; c < n; c++) {
    double v = sg_rng_normal(&rng);
    switch (k) {
    case 1:
      v = dt == SG_DTYPE_F32 ? v * 1e30 : (v < 0 ? -1 : 1) * (0.5 + 0.4 * sg_rng_uniform(&rng)) * fmax;
      break;
    case 2:
      v = equal[r % 4] < 0 ? 0.9 * fmax : equal[r % 4];
      break;
    case 3:
      v = -INFINITY;
      break;
    case 6:
      v = c % 2 == 0 ? -INFINITY : v;
      break;
    case 7:
      v = c == (r * 29) % n ? v : -INFINITY;
      break;
    case 8:
      v = (0.85 + 0.05 * sg_rng_uniform(&rng)) * fmax;
      break;
    case 9:
      v *= 1e-4;
      break;
    case 10: /* exp(x - max) spans the dtype's subnormals (f32, bf16: 2^-149 to
              * 2^-126, x in [-103.3, -87.3]; f16: 2^-24 to 2^-14, x in [-16.6, -9.7]) */
      v = c == r % n ? 0 : dt == SG_DTYPE_F16 ? -9 - 8 * sg_rng_uniform(&rng)
                                              : -86 - 19 * sg_rng_uniform(&rng);
      break;
    }
    x[c] = round_to(v, dt);
  }
  if (k == 4)
    x[(r * 37) % n] = INFINITY;
  if (k == 5)
    x[(r * 53) % n] = NAN;
}

/* The float64 reference of one row; in1 is y for the backward templates. */
static void reference(const kernel *K, const double *in0, const double *in1, int64_t n, double *out) {
  double s = 0;
  if (!K->backward) {
    double mx = -INFINITY;
    int nan = 0;
    for (int64_t c = 0; c < n; c++) {
      nan |= isnan(in0[c]);
      mx = fmax(mx, in0[c]);
    }
    if (nan)
      mx = NAN;
    for (int64_t c = 0; c < n; c++)
      s += exp(in0[c] - mx);
    for (int64_t c = 0; c < n; c++)
      out[c] = K->logf ? in0[c] - mx - log(s) : exp(in0[c] - mx) / s;
    return;
  }
  for (int64_t c = 0; c < n; c++)
    s += K->logf ? in0[c] : in0[c] * in1[c];
  for (int64_t c = 0; c < n; c++)
    out[c] = K->logf ? in0[c] - exp(in1[c]) * s : in1[c] * (in0[c] - s);
}

/* A bound of the f32 arithmetic's error for element c (suite.py's
 * arith_bound, for serial sums over the row's tiles plus a tree). row[] holds
 * the row's max (forward) or its sum and sum of magnitudes (backward). */
static void row_terms(const kernel *K, const double *in0, const double *in1, int64_t n, double row[2]) {
  row[0] = K->backward ? 0 : -INFINITY;
  row[1] = 0;
  for (int64_t j = 0; j < n; j++) {
    if (!K->backward) {
      row[0] = fmax(row[0], in0[j]);
      continue;
    }
    double t = K->logf ? in0[j] : in0[j] * in1[j];
    row[0] += t;
    row[1] += fabs(t);
  }
}
static double allowance(const kernel *K, const double *in0, const double *in1, const double *ref,
                        int64_t c, const double row[2], double gamma) {
  if (!K->backward && !K->logf)
    return fabs(ref[c]) * (gamma + 2 * APPROX);
  if (!K->backward) {
    double ls = fabs(in0[c] - row[0] - ref[c]);
    return 2 * EPS32 * (fabs(in0[c]) + fabs(row[0]) + ls) + gamma + APPROX * (1 + ls);
  }
  double s = row[0], sa = row[1];
  if (K->logf)
    return exp(in1[c]) * (gamma * sa + 2 * APPROX * fabs(s)) +
           2 * EPS32 * (fabs(in0[c]) + exp(in1[c]) * fabs(s));
  return fabs(in1[c]) * (gamma * sa + 2 * EPS32 * (fabs(in0[c]) + fabs(s))) + EPS32 * fabs(ref[c]);
}

typedef struct launch {
  int64_t m, stride;             /* rows layout: M rows, stride apart */
  int64_t inner, nstride, outer; /* inner layout (inner > 0): stride is the outer stride */
  double *in[2]; /* M x N values of the inputs (rounded) */
  double *ref;   /* M x N */
  unsigned char *alloc[3];
  void *data[3];
  size_t bytes[3];
} launch;

static unsigned esize(const kernel *K) { return sg_dtype_size(K->dt); }

/* Element index of (row r, column c) in a tensor of the launch. */
static size_t at(const launch *L, int64_t r, int64_t c) {
  if (!L->inner)
    return (size_t)(r * L->stride + c);
  return (size_t)(r / L->inner * L->stride + c * L->nstride + r % L->inner);
}
/* Elements a tensor of the launch spans. */
static size_t span(const launch *L, int64_t n) {
  return L->inner ? (size_t)(L->outer * L->stride) : (size_t)(L->m * L->stride);
  (void)n;
}
/* 1 where element e of a tensor is (row, column) of the view, else 0. */
static unsigned char *view_mask(const launch *L, int64_t n) {
  unsigned char *mask = calloc(span(L, n) + 1, 1);
  for (int64_t r = 0; mask && r < L->m; r++)
    for (int64_t c = 0; c < n; c++)
      mask[at(L, r, c)] = 1;
  return mask;
}

/* Allocates and fills tensors (inputs with NaN padding, output poisoned with
 * NaN bits, 0x5a guards and gaps), launches, returns the status. */
static sg_status run(kernel *K, launch *L, sg_diag *d) {
  int nin = K->backward ? 2 : 1;
  sgrt_tensor t[3];
  unsigned es = esize(K);
  for (int i = 0; i <= nin; i++) {
    L->bytes[i] = span(L, K->n) * es;
    sg_status st = sgrt_mem_alloc(rt, L->bytes[i] + 2 * GUARD, (void **)&L->alloc[i], d);
    if (st)
      return st;
    L->data[i] = L->alloc[i] + GUARD;
    memset(L->alloc[i], 0x5a, L->bytes[i] + 2 * GUARD);
    for (size_t e = 0; i < nin && e < span(L, K->n); e++) /* padding */
      sg_host_put(L->data[i], e, K->dt, NAN);
    for (int64_t r = 0; r < L->m; r++)
      for (int64_t c = 0; c < K->n; c++) {
        if (i == nin)
          memset((unsigned char *)L->data[i] + at(L, r, c) * es, 0xff, es); /* poison */
        else
          sg_host_put(L->data[i], at(L, r, c), K->dt, (float)L->in[i][r * K->n + c]);
      }
    t[i] = (sgrt_tensor){L->data[i], L->m, K->n, L->stride, K->dt, L->inner, L->nstride};
  }
  return sgrt_kernel_launch(K->k, t, nin + 1, NULL, d);
}

static void check(kernel *K, launch *L, verdict *v) {
  int nin = K->backward ? 2 : 1;
  unsigned es = esize(K);
  int64_t n = K->n;
  double tol0 = K->dt == SG_DTYPE_F32 ? 1e-5 : K->dt == SG_DTYPE_F16 ? 1e-3 : 1e-2;
  double gamma = ((double)(n + 63) / 64 + 8) * EPS32;
  for (int i = 0; i <= nin; i++) { /* guards, gaps, inputs */
    const unsigned char *a = L->alloc[i];
    for (size_t b = 0; b < GUARD; b++)
      if (a[b] != 0x5a || a[GUARD + L->bytes[i] + b] != 0x5a) {
        fail(v, "guard: a byte around the %s changed", i == nin ? "output" : "input");
        break;
      }
    unsigned char *mask = i == nin ? view_mask(L, n) : NULL;
    for (size_t e = 0; mask && e < span(L, n); e++)
      if (!mask[e] && memcmp(a + GUARD + e * es, "\x5a\x5a\x5a\x5a", es) != 0) {
        fail(v, "guard: output element %zu, in a gap between rows, was written", e);
        break;
      }
    free(mask);
    for (int64_t r = 0; r < L->m && i < nin; r++)
      for (int64_t c = 0; c < n; c++) {
        double x = sg_host_get(L->data[i], at(L, r, c), K->dt), w = L->in[i][r * n + c];
        if (!(x == w || (isnan(x) && isnan(w)))) {
          fail(v, "input: row %lld changed (%g, was %g)", (long long)r, x, w);
          break;
        }
      }
  }
  for (int64_t r = 0; r < L->m; r++) {
    const double *ref = L->ref + r * n, *in0 = L->in[0] + r * n, *in1 = K->backward ? L->in[1] + r * n : NULL;
    double num = 0, den = 0, floor2 = 0, allow2 = 0, sum = 0, rsum = 0, terms[2];
    int finite = 0;
    row_terms(K, in0, in1, n, terms);
    for (int64_t c = 0; c < n; c++) {
      double y = sg_host_get(L->data[nin], at(L, r, c), K->dt);
      double rr = round_to(ref[c], K->dt);
      if (isnan(y) != isnan(ref[c])) {
        fail(v, "nan: %s row %lld col %lld: output %g, reference %g (NaN: unwritten or wrong)",
             kind_names[r % KINDS], (long long)r, (long long)c, y, ref[c]);
        continue;
      }
      if (isnan(y))
        continue;
      if (isinf(rr) ? y != rr : isinf(y)) {
        fail(v, "inf: %s row %lld col %lld: output %g, reference %g", kind_names[r % KINDS],
             (long long)r, (long long)c, y, ref[c]);
        continue;
      }
      if (isinf(rr))
        continue;
      if (rr != 0 && fabs(rr) < dtype_min_normal(K->dt)) { /* the dtype's subnormals: kept */
        double q = dtype_min_normal(K->dt) * (K->dt == SG_DTYPE_F32   ? 0x1p-23
                                              : K->dt == SG_DTYPE_F16 ? 0x1p-10
                                                                      : 0x1p-7);
        double a = q + 2 * allowance(K, in0, in1, ref, c, terms, gamma) + tol0 * fabs(ref[c]);
        /* below q (the smallest subnormal), 0 may be the right rounding; a
         * backward output y (dy - s) may also cancel to 0 within its bound */
        if ((y == 0 && fabs(ref[c]) >= q && !K->backward) || !(fabs(y - ref[c]) <= a))
          fail(v, "subnormal: %s row %lld col %lld: output %g, reference %g (within %g)",
               kind_names[r % KINDS], (long long)r, (long long)c, y, ref[c], a);
      }
      finite = 1;
      num += (y - ref[c]) * (y - ref[c]);
      den += ref[c] * ref[c];
      floor2 += (rr - ref[c]) * (rr - ref[c]);
      double a = allowance(K, in0, in1, ref, c, terms, gamma);
      allow2 += a * a;
      sum += y;
      rsum += rr;
    }
    if (!finite)
      continue;
    double norm = den > 0 ? sqrt(den) : 1;
    double rel = sqrt(num) / norm, tol = fmax(tol0, 2 * sqrt(floor2) / norm + sqrt(allow2) / norm);
    if (rel / tol > v->worst)
      v->worst = rel / tol;
    if (!(rel <= tol))
      fail(v, "rel: %s row %lld: ||y - ref|| / ||ref|| = %.3e over its tolerance %.1e",
           kind_names[r % KINDS], (long long)r, rel, tol);
    if (!K->backward && !K->logf) {
      double stol = K->dt == SG_DTYPE_F32 ? 1e-3 : 1e-3 + (K->dt == SG_DTYPE_BF16 ? 1.0 / 256 : 1.0 / 2048);
      double serr = K->dt == SG_DTYPE_F32 ? fabs(sum - 1) : fabs(sum - rsum);
      if (!(serr <= stol))
        fail(v, "sum: %s row %lld: |sum(y) - 1| = %.3e over %.1e", kind_names[r % KINDS],
             (long long)r, serr, stol);
    }
  }
}

/* Fills the launch's inputs and reference: rows by kind (backward: y the
 * forward of the rows, dy normal); shift: the rows of `base` plus 100. */
static int prepare(kernel *K, launch *L, const launch *base) {
  int64_t n = K->n, mn = L->m * n;
  L->in[0] = malloc((size_t)mn * sizeof(double));
  L->in[1] = K->backward ? malloc((size_t)mn * sizeof(double)) : NULL;
  L->ref = malloc((size_t)mn * sizeof(double));
  if (!L->in[0] || !L->ref || (K->backward && !L->in[1]))
    return 1;
  kernel fwd = *K;
  fwd.backward = 0;
  for (int64_t r = 0; r < L->m; r++) {
    double *x = L->in[0] + r * n;
    if (base)
      for (int64_t c = 0; c < n; c++)
        x[c] = base->in[0][r * n + c] + 100;
    else
      make_row(x, n, (int)(r % KINDS), r, K->dt);
    if (K->backward) { /* in[0] = dy, in[1] = y = forward(rows) */
      double *y = L->in[1] + r * n;
      reference(&fwd, x, NULL, n, y);
      for (int64_t c = 0; c < n; c++) {
        y[c] = round_to(y[c], K->dt);
        x[c] = round_to(sg_rng_normal(&rng), K->dt);
      }
    }
    reference(K, x, K->backward ? L->in[1] + r * n : NULL, n, L->ref + r * n);
  }
  return 0;
}

static void release(launch *L) {
  for (int i = 0; i < 3; i++)
    sgrt_mem_free(rt, L->alloc[i]);
  free(L->in[0]);
  free(L->in[1]);
  free(L->ref);
  memset(L, 0, sizeof *L);
}

/* Shift inputs: x exact with x + 100 in the dtype (multiples of 1/2 bf16,
 * 1/16 f16, 2^-16 f32 in [-30, 27]). */
static void shift_base(kernel *K, launch *L) {
  double q = K->dt == SG_DTYPE_BF16 ? 2 : K->dt == SG_DTYPE_F16 ? 16 : 65536;
  for (int64_t i = 0; i < L->m * K->n; i++) {
    double x = fmin(fmax(3 * sg_rng_normal(&rng), -30), 27);
    L->in[0][i] = round(x * q) / q;
  }
  for (int64_t r = 0; r < L->m; r++)
    reference(K, L->in[0] + r * K->n, NULL, K->n, L->ref + r * K->n);
}

static sg_status build(kernel *K, const char *dir, int via_so, sg_diag *d) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.sgt", dir, K->tpl);
  sg_template *t = NULL;
  sg_plan *plan = NULL;
  sg_module *m = NULL;
  sg_buffer so = {0};
  sg_problem p = {.n = K->hi ? K->hi : K->n, .dtype = K->dt, .target = "host", .arch = arch,
                  .layout = K->layout, .n_min = K->lo};
  sg_constraints *c = NULL;
  sg_status st = sg_template_load(path, &t, d);
  if (!st && constraints && !(st = sg_constraints_create(&c, d)))
    st = sg_constraints_parse(c, "-C", constraints, strlen(constraints), d);
  if (!st)
    st = sg_plan_resolve(t, c, &p, &plan, d);
  sg_constraints_destroy(c);
  if (!st)
    st = sg_codegen(t, plan, &m, d);
  if (!st)
    st = sg_module_optimize(m, d);
  if (!st && via_so) {
    st = sg_module_emit(m, SG_EMIT_SHARED, NULL, &so, d);
    if (!st)
      st = sgrt_kernel_load_data(rt, so.data, so.size, &K->k, d);
  } else if (!st) {
    st = sg_jit_create(m, &K->jit, d);
    size_t len;
    const char *meta = st ? NULL : sg_jit_meta(K->jit, &len);
    if (!st)
      st = sgrt_kernel_load_host(rt, sg_jit_kernel(K->jit), meta, len, &K->k, d);
  }
  if (!st) {
    K->vb = sgrt_kernel_meta(K->k)->vector_bytes;
    FILE *f = tmpfile(); /* the plan's tiles, from its printout */
    if (f) {
      char line[256];
      sg_plan_print(plan, f);
      rewind(f);
      K->tiles = 1;
      while (fgets(line, sizeof line, f))
        if (sscanf(line, " row_tiles %u", &K->tiles) == 1)
          break;
      fclose(f);
    }
  }
  sg_buffer_free(&so);
  sg_module_destroy(m);
  sg_plan_destroy(plan);
  sg_template_destroy(t);
  return st;
}

/* The launches of built kernel K at its N (K->n); prints one line. */
static int test_launches(kernel *K) {
  sg_diag d;
  sg_diag_clear(&d);
  verdict v = {0, "", 0};
  int launches = 0;
  sg_status st = SG_OK;
  int64_t per = K->vb / esize(K) ? K->vb / esize(K) : 1;
  typedef struct lcase {
    int64_t m, pad; /* rows; rows layout: stride - N; inner layout: outer */
    unsigned threads;
    int shift;
    int64_t inner, npad, opad; /* inner layout: inner, nstride - inner, stride - slice */
  } lcase;
  static const lcase inner_cases[] = {{5, 0, 1, 0, 1, 0, 0},  {3, 0, 2, 0, 3, 0, 0},
                                      {2, 0, 3, 0, 64, 0, 0}, {1, 0, 2, 0, 1000, 0, 0},
                                      {3, 0, 3, 0, 3, 2, 7},  {2, 0, 2, 1, 64, 0, 0}};
  lcase rows_cases[] = {{37, 0, 1, 0, 0, 0, 0}, {23, 3 * per, 2, 0, 0, 0, 0},
                        {3001, 0, 3, 0, 0, 0, 0}, {37, 0, 2, 1, 0, 0, 0}};
  int inner = K->layout == SG_LAYOUT_INNER, ncases = inner ? 6 : 4;
  const lcase *plan = inner ? inner_cases : rows_cases;
  launch base = {0};
  for (int i = 0; i < ncases && !st; i++) {
    if ((!inner && i == 2 && K->n > 1027) || (plan[i].shift && K->backward))
      continue;
    launch L = {0};
    L.m = plan[i].m;
    L.stride = K->n + plan[i].pad;
    if (inner) { /* [outer, N, inner] */
      L.outer = plan[i].m;
      L.inner = plan[i].inner;
      L.m = L.outer * L.inner;
      L.nstride = L.inner + plan[i].npad;
      L.stride = (K->n - 1) * L.nstride + L.inner + plan[i].opad;
    }
    if (sgrt_host_set_threads(rt, plan[i].threads, &d) || prepare(K, &L, NULL)) {
      fail(&v, "setup: %s", d.message);
      release(&L);
      break;
    }
    if (plan[i].shift) { /* base: shiftable rows; L: base + 100 */
      base = L;
      memset(&L, 0, sizeof L);
      shift_base(K, &base);
      L.m = base.m;
      L.stride = base.stride;
      L.inner = base.inner;
      L.nstride = base.nstride;
      L.outer = base.outer;
      if (prepare(K, &L, &base))
        break;
      for (int64_t j = 0; j < L.m * K->n; j++) /* the reference of x, not of x + 100 */
        L.ref[j] = base.ref[j];
      if ((st = run(K, &base, &d)))
        break;
      check(K, &base, &v);
    }
    st = run(K, &L, &d);
    if (!st) {
      check(K, &L, &v);
      launches += 1 + plan[i].shift;
    }
    if (!st && plan[i].shift) { /* y(x + 100) against y(x) as the reference */
      for (int64_t r = 0; r < L.m; r++)
        for (int64_t c = 0; c < K->n; c++)
          L.ref[r * K->n + c] = sg_host_get(base.data[1], at(&base, r, c), K->dt);
      check(K, &L, &v);
    }
    release(&L);
    release(&base);
  }
  if (st)
    fail(&v, "launch: %s", d.message);
  char range[64] = "";
  if (K->hi)
    snprintf(range, sizeof range, " of %lld:%lld", (long long)K->lo, (long long)K->hi);
  printf("%s - %s %s N=%lld%s%s (vector %u B, %u tile%s): %d launches, worst rel/tol %.3f%s%s\n",
         v.failures ? "not ok" : "ok", K->tpl, sg_dtype_name(K->dt), (long long)K->n, range,
         inner ? " inner" : "", K->vb, K->tiles,
         K->tiles == 1 ? "" : "s", launches, v.worst, v.failures ? ": " : "", v.first);
  return v.failures != 0;
}

/* Builds K and runs its launches: at its N, or for a range (K->hi) at the
 * range's ends, next to them and at an odd N between. Returns the failures. */
static int test_kernel(kernel *K, const char *dir, int via_so) {
  sg_diag d;
  sg_diag_clear(&d);
  sg_status st = build(K, dir, via_so, &d);
  if (st) {
    printf("not ok - %s %s N=%lld: build: %s: %s\n", K->tpl, sg_dtype_name(K->dt),
           (long long)(K->hi ? K->hi : K->n), sg_status_name(st), d.message);
    return 1;
  }
  int failed = 0;
  if (!K->hi) {
    failed = test_launches(K);
  } else {
    int64_t ns[5] = {K->lo, K->lo + 1, (K->lo + K->hi) / 2 | 1, K->hi - 1, K->hi};
    for (int i = 0; i < 5; i++)
      if (ns[i] >= K->lo && ns[i] <= K->hi && (i == 0 || ns[i] != ns[i - 1])) {
        K->n = ns[i];
        failed += test_launches(K);
        fflush(stdout);
      }
  }
  sgrt_kernel_destroy(K->k);
  sg_jit_destroy(K->jit);
  return failed;
}

int main(int argc, char **argv) {
  const char *dir = NULL;
  int via_so = 0, quick = 0, inner = 0, ranges = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--via-so") == 0)
      via_so = 1;
    else if (strcmp(argv[i], "--quick") == 0)
      quick = 1;
    else if (strcmp(argv[i], "--inner") == 0)
      inner = 1;
    else if (strcmp(argv[i], "--range") == 0)
      ranges = 1;
    else if (strcmp(argv[i], "-C") == 0 && i + 1 < argc)
      constraints = argv[++i];
    else if (strcmp(argv[i], "--arch") == 0 && i + 1 < argc)
      arch = argv[++i];
    else
      dir = argv[i];
  }
  if (!dir) {
    fprintf(stderr, "usage: softgen-host-check TEMPLATES_DIR [--via-so] [--quick] [--inner] "
            "[--range] [-C TEXT] [--arch ARCH]\n");
    return 2;
  }
  sg_diag d;
  if (sgrt_open(SGRT_BACKEND_HOST, 0, &rt, &d)) {
    printf("not ok - open the host backend: %s\n", d.message);
    return 1;
  }
  printf("# device: %s (%s, %s)\n", sgrt_device_name(rt), sgrt_device_arch(rt), sgrt_backend_name(rt));
  static const char *const tpls[] = {"softmax", "log_softmax", "softmax_backward", "log_softmax_backward"};
  static const int64_t full[] = {1, 2, 4, 7, 64, 1000, 1027, 4096, 12345, 40000};
  static const int64_t brief[] = {1, 2, 7, 1000, 12345};
  static const int64_t inner_ns[] = {1, 7, 1000, 5000}, inner_brief[] = {7, 1000};
  const int64_t *ns = inner ? (quick ? inner_brief : inner_ns) : quick ? brief : full;
  /* --range: kernels for a range of N (N at run time), in registers and tiled */
  static const int64_t range_lo[] = {1, 500, 3000, 30000}, range_hi[] = {16, 1027, 12345, 40000};
#define COUNT(a) (int)(sizeof(a) / sizeof *(a))
  int nn = ranges  ? COUNT(range_lo)
           : inner ? (quick ? COUNT(inner_brief) : COUNT(inner_ns))
                   : (quick ? COUNT(brief) : COUNT(full)),
      passed = 0, failed = 0;
#undef COUNT
  for (int ti = 0; ti < 4; ti++)
    for (int dt = 0; dt < SG_DTYPE_COUNT; dt++)
      for (int i = 0; i < nn; i++) {
        kernel K = {tpls[ti], ti >= 2, ti % 2 == 1, (sg_dtype)dt, ns[i], NULL, NULL, 0, 1,
                    inner ? SG_LAYOUT_INNER : SG_LAYOUT_ROWS, 0, 0};
        if (ranges)
          K.lo = range_lo[i], K.hi = range_hi[i];
        int f = test_kernel(&K, dir, via_so);
        failed += f != 0;
        passed += f == 0;
        fflush(stdout);
      }
  sgrt_close(rt);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
