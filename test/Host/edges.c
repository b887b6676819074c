/* edges.c - special values through host-target kernels built for one arch
 * (softgen-host-edges; run by test/Host/edges.test). No GPU: each kernel is
 * generated for --target host --arch ARCH, linked into a shared library and
 * loaded from its bytes (dlopen), so that it runs the code `--emit so` ships.
 *
 *   softgen-host-edges INPUTS_DIR TEMPLATES_DIR [--arch ARCH]
 *
 * conversions (INPUTS_DIR/copy.sgt, y = x from dtype T to U): the host builds
 * f32 <-> f16 / bf16 in integer operations where the CPU has no instruction
 * (f16 before F16C, bf16 everywhere), fpext / fptrunc elsewhere.
 *   f16 -> f32, bf16 -> f32, f16 -> f16, bf16 -> bf16: all 65536 bit patterns,
 *     exact (a NaN gives a NaN);
 *   f32 -> f16, f32 -> bf16: every sign and exponent with mantissas at and
 *     around each rounding boundary (ties either way, one ulp beside them,
 *     carries into the exponent and to inf), plus 2^20 random bit patterns:
 *     the bits of a reference rounded to nearest even in double arithmetic
 *     (subnormals kept, overflow to inf; a NaN gives a quiet NaN).
 * row max (INPUTS_DIR/rowmax.sgt, the row's max written over its row) and
 * softmax (TEMPLATES_DIR), f32 / f16 / bf16 at N = 1, 7, 1000, 12345 (tiled
 * rows): rows holding a NaN (first, middle, last column; beside +inf; among
 * -inf; all NaN) give NaN in every element, as torch.amax and torch.softmax;
 * other rows their exact max (all -inf: -inf; one +inf: +inf); softmax rows
 * NaN exactly where PyTorch's are (also rows of all -inf or with a +inf).
 * Outputs are poisoned (0x42 bytes) before launch.
 * Prints "ok - ..." / "not ok - ..." per check and "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softgen/runtime.h"
#include "softgen/softgen.h"
#include "../../tools/common/host_elems.h"

static sgrt_runtime *rt;
static const char *arch = "native";
static sg_rng rng = {0x6a09e667f3bcc909ull};
static int passed, failed;

static void report(int ok, const char *what, const char *why) {
  printf("%s - %s%s%s\n", ok ? "ok" : "not ok", what, ok ? "" : ": ", ok ? "" : why);
  ok ? passed++ : failed++;
  fflush(stdout);
}

/* The kernel of template `path` for N, T -> U, linked into a .so for arch. */
static sg_status build(const char *path, int64_t n, sg_dtype T, sg_dtype U, sgrt_kernel **k,
                       sg_diag *d) {
  sg_template *t = NULL;
  sg_plan *plan = NULL;
  sg_module *m = NULL;
  sg_buffer so = {0};
  sg_problem p = {.n = n, .dtype = T, .target = "host", .arch = arch, .out_dtype_set = 1,
                  .out_dtype = U};
  sg_status st = sg_template_load(path, &t, d);
  if (!st)
    st = sg_plan_resolve(t, NULL, &p, &plan, d);
  if (!st)
    st = sg_codegen(t, plan, &m, d);
  if (!st)
    st = sg_module_optimize(m, d);
  if (!st)
    st = sg_module_emit(m, SG_EMIT_SHARED, NULL, &so, d);
  if (!st)
    st = sgrt_kernel_load_data(rt, so.data, so.size, k, d);
  sg_buffer_free(&so);
  sg_module_destroy(m);
  sg_plan_destroy(plan);
  sg_template_destroy(t);
  return st;
}

/* Runs kernel k on `count` elements of x (dtype T) laid out as rows of n,
 * into y (dtype U), poisoned first. */
static sg_status launch(sgrt_kernel *k, const void *x, sg_dtype T, void *y, sg_dtype U,
                        int64_t rows, int64_t n, sg_diag *d) {
  void *dx = NULL, *dy = NULL;
  size_t xb = (size_t)(rows * n) * sg_dtype_size(T), yb = (size_t)(rows * n) * sg_dtype_size(U);
  sg_status st = sgrt_mem_alloc(rt, xb, &dx, d);
  if (!st)
    st = sgrt_mem_alloc(rt, yb, &dy, d);
  if (!st) {
    memcpy(dx, x, xb);
    memset(dy, 0x42, yb);
    sgrt_tensor t[2] = {{dx, rows, n, n, T, 0, 0}, {dy, rows, n, n, U, 0, 0}};
    st = sgrt_kernel_launch(k, t, 2, NULL, d);
  }
  if (!st)
    memcpy(y, dy, yb);
  sgrt_mem_free(rt, dx);
  sgrt_mem_free(rt, dy);
  return st;
}

/* f rounded to nearest even into f16 or bf16 (finite or infinite f), as its
 * bits, computed in double: a multiple of the binade's quantum, subnormals
 * below the smallest normal, inf from 2^(emax + 1) up. */
static uint16_t ref_narrow(float f, sg_dtype dt) {
  int mant = dt == SG_DTYPE_F16 ? 10 : 7, emin = dt == SG_DTYPE_F16 ? -14 : -126;
  int emax = dt == SG_DTYPE_F16 ? 15 : 127, bias = emax;
  uint16_t sign = signbit(f) ? 0x8000 : 0, inf = (uint16_t)(((2 * emax + 1) << mant));
  double a = fabs((double)f);
  if (isinf(a))
    return sign | inf;
  int e = a == 0 ? emin : ilogb(a) < emin ? emin : ilogb(a);
  double q = ldexp(1, e - mant), v = nearbyint(a / q) * q;
  if (v >= ldexp(1, emax + 1))
    return sign | inf;
  if (v < ldexp(1, emin))
    return sign | (uint16_t)(v / ldexp(1, emin - mant));
  int ev = ilogb(v);
  return sign | (uint16_t)((ev + bias) << mant) | (uint16_t)(v / ldexp(1, ev - mant) - (1 << mant));
}

static int is_nan16(uint16_t h, sg_dtype dt) {
  return dt == SG_DTYPE_F16 ? (h & 0x7c00) == 0x7c00 && (h & 0x3ff)
                            : (h & 0x7f80) == 0x7f80 && (h & 0x7f);
}
static int quiet16(uint16_t h, sg_dtype dt) { return h & (dt == SG_DTYPE_F16 ? 0x200 : 0x40); }

static float from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint32_t to_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* All 65536 patterns of dt, widened to f32 and copied as dt. */
static void check_patterns(const char *inputs, sg_dtype dt) {
  char path[4096], what[128], why[256] = "";
  snprintf(path, sizeof path, "%s/copy.sgt", inputs);
  uint16_t *x = malloc(65536 * 2), *same = malloc(65536 * 2);
  float *wide = malloc(65536 * 4);
  for (unsigned i = 0; i < 65536; i++)
    x[i] = (uint16_t)i;
  for (int to_f32 = 1; to_f32 >= 0; to_f32--) {
    sg_dtype U = to_f32 ? SG_DTYPE_F32 : dt;
    snprintf(what, sizeof what, "convert %s -> %s, all 65536 patterns, %s", sg_dtype_name(dt),
             sg_dtype_name(U), arch);
    sgrt_kernel *k = NULL;
    sg_diag d;
    sg_status st = build(path, 1024, dt, U, &k, &d);
    if (!st)
      st = launch(k, x, dt, to_f32 ? (void *)wide : (void *)same, U, 64, 1024, &d);
    sgrt_kernel_destroy(k);
    if (st) {
      report(0, what, d.message);
      continue;
    }
    why[0] = '\0';
    for (unsigned i = 0; i < 65536 && !why[0]; i++) {
      uint16_t h = (uint16_t)i;
      float ref = dt == SG_DTYPE_F16 ? sg_half_to_float(h) : sg_bf16_to_float(h);
      if (to_f32 && (isnan(ref) ? !isnan(wide[i]) : to_bits(wide[i]) != to_bits(ref)))
        snprintf(why, sizeof why, "0x%04x gave %a (0x%08x), not %a", i, wide[i],
                 to_bits(wide[i]), ref);
      if (!to_f32 && (is_nan16((uint16_t)i, dt) ? !is_nan16(same[i], dt) : same[i] != i))
        snprintf(why, sizeof why, "0x%04x gave 0x%04x", i, same[i]);
    }
    report(!why[0], what, why);
  }
  free(x);
  free(same);
  free(wide);
}

/* f32 values around every rounding boundary of dt, and random bit patterns. */
static void check_narrowing(const char *inputs, sg_dtype dt) {
  enum { RANDOM = 1 << 20 };
  char path[4096], what[128], why[256] = "";
  snprintf(path, sizeof path, "%s/copy.sgt", inputs);
  size_t cap = RANDOM + 2 * 256 * 256, count = 0;
  uint32_t *x = malloc(cap * 4);
  uint16_t *y = malloc(cap * 2);
  for (uint32_t s = 0; s < 2; s++)
    for (uint32_t e = 0; e < 256; e++) {
      uint32_t ms[256];
      int nm = 0;
      ms[nm++] = 0;
      ms[nm++] = 0x7fffff;
      ms[nm++] = 0x7ffffe;
      for (uint32_t j = 1; j <= 3; j++)
        for (int b = 0; b < 23; b++)
          for (int dlt = -1; dlt <= 1; dlt++) {
            int64_t m = ((int64_t)j << b) + dlt;
            if (m >= 0 && m < (1 << 23))
              ms[nm++] = (uint32_t)m;
          }
      for (int i = 0; i < nm; i++)
        x[count++] = s << 31 | e << 23 | ms[i];
    }
  for (int i = 0; i < RANDOM; i++)
    x[count++] = (uint32_t)(sg_rng_uniform(&rng) * 4294967296.0);
  int64_t rows = (int64_t)((count + 1023) / 1024);
  for (size_t i = count; i < (size_t)rows * 1024; i++)
    x[i] = 0;
  snprintf(what, sizeof what, "convert f32 -> %s, %zu values at rounding boundaries and random, %s",
           sg_dtype_name(dt), count, arch);
  sgrt_kernel *k = NULL;
  sg_diag d;
  sg_status st = build(path, 1024, SG_DTYPE_F32, dt, &k, &d);
  if (!st)
    st = launch(k, x, SG_DTYPE_F32, y, dt, rows, 1024, &d);
  sgrt_kernel_destroy(k);
  if (st) {
    report(0, what, d.message);
  } else {
    for (size_t i = 0; i < count && !why[0]; i++) {
      float f = from_bits(x[i]);
      if (isnan(f) ? !(is_nan16(y[i], dt) && quiet16(y[i], dt)) : y[i] != ref_narrow(f, dt))
        snprintf(why, sizeof why, "%a (0x%08x) gave 0x%04x, not 0x%04x", f, x[i], y[i],
                 isnan(f) ? 0 : ref_narrow(f, dt));
    }
    report(!why[0], what, why);
  }
  free(x);
  free(y);
}

/* Rows of special values for the max and softmax checks. */
enum { ROWS = 10 };
static const char *const row_names[ROWS] = {"normal", "nan_first", "nan_last", "nan_middle",
                                            "nan_and_+inf", "nan_among_-inf", "all_nan",
                                            "all_-inf", "one_+inf", "max_last"};
static void make_rows(double *x, int64_t n) {
  for (int r = 0; r < ROWS; r++) {
    double *v = x + r * n;
    for (int64_t c = 0; c < n; c++)
      v[c] = r == 5 || r == 7 ? -INFINITY : r == 6 ? NAN : sg_rng_normal(&rng);
    if (r == 1 || r == 5)
      v[0] = NAN;
    if (r == 2)
      v[n - 1] = NAN;
    if (r == 3 || r == 4)
      v[n / 2] = NAN;
    if (r == 4)
      v[(n - 1) / 3] = INFINITY;
    if (r == 8)
      v[n / 3] = INFINITY;
    if (r == 9)
      v[n - 1] = 10;
  }
}

static void check_rows(const char *path, const char *name, int softmax, sg_dtype dt, int64_t n) {
  char what[160], why[256] = "";
  snprintf(what, sizeof what, "%s %s N=%lld, %s", name, sg_dtype_name(dt), (long long)n, arch);
  size_t es = sg_dtype_size(dt);
  double *x = malloc(sizeof(double) * ROWS * n);
  unsigned char *xb = malloc(es * ROWS * n), *yb = malloc(es * ROWS * n);
  make_rows(x, n);
  for (int64_t i = 0; i < ROWS * n; i++) {
    sg_host_put(xb, (size_t)i, dt, (float)x[i]);
    x[i] = sg_host_get(xb, (size_t)i, dt);
  }
  sgrt_kernel *k = NULL;
  sg_diag d;
  sg_status st = build(path, n, dt, dt, &k, &d);
  if (!st)
    st = launch(k, xb, dt, yb, dt, ROWS, n, &d);
  sgrt_kernel_destroy(k);
  for (int r = 0; r < ROWS && !st && !why[0]; r++) {
    double mx = -INFINITY;
    int nan = 0;
    for (int64_t c = 0; c < n; c++) {
      nan |= isnan(x[r * n + c]);
      mx = fmax(mx, x[r * n + c]);
    }
    for (int64_t c = 0; c < n && !why[0]; c++) {
      double y = sg_host_get(yb, (size_t)(r * n + c), dt);
      int want_nan = nan || (softmax && isinf(mx)); /* softmax: inf - inf */
      if (want_nan ? !isnan(y) : softmax ? isnan(y) : y != mx)
        snprintf(why, sizeof why, "row %s col %lld: %g, expected %s", row_names[r], (long long)c,
                 y, want_nan ? "NaN" : softmax ? "a number" : "the row's max");
    }
  }
  report(!st && !why[0], what, st ? d.message : why);
  free(x);
  free(xb);
  free(yb);
}

int main(int argc, char **argv) {
  const char *inputs = NULL, *templates = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--arch") == 0 && i + 1 < argc)
      arch = argv[++i];
    else if (!inputs)
      inputs = argv[i];
    else
      templates = argv[i];
  }
  if (!inputs || !templates) {
    fprintf(stderr, "usage: softgen-host-edges INPUTS_DIR TEMPLATES_DIR [--arch ARCH]\n");
    return 2;
  }
  sg_diag d;
  if (sgrt_open(SGRT_BACKEND_HOST, 0, &rt, &d)) {
    printf("not ok - open the host backend: %s\n", d.message);
    return 1;
  }
  check_patterns(inputs, SG_DTYPE_F16);
  check_patterns(inputs, SG_DTYPE_BF16);
  check_narrowing(inputs, SG_DTYPE_F16);
  check_narrowing(inputs, SG_DTYPE_BF16);
  char rowmax[4096], softmax[4096];
  snprintf(rowmax, sizeof rowmax, "%s/rowmax.sgt", inputs);
  snprintf(softmax, sizeof softmax, "%s/softmax.sgt", templates);
  static const int64_t ns[] = {1, 7, 1000, 12345};
  for (int dt = 0; dt < SG_DTYPE_COUNT; dt++)
    for (int i = 0; i < 4; i++) {
      check_rows(rowmax, "rowmax", 0, (sg_dtype)dt, ns[i]);
      check_rows(softmax, "softmax", 1, (sg_dtype)dt, ns[i]);
    }
  sgrt_close(rt);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
