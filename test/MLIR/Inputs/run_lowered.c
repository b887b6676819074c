/* run_lowered.c - runs one function of an MLIR module that softgen rewrote and
 * upstream passes lowered to an object (gpu-to-llvm: its launches go through
 * libsoftgen_mgpu.so), with inputs of a fixed pseudo-random pattern:
 * test/MLIR/run-lowered.test (fake CUDA, in CI) and test/gpu (the GPU).
 *
 *   run_lowered FUNC OUTDIR DTYPE:SHAPE... =DTYPE:SHAPE [--check-softmax DIM [log]]
 *                                                     [--check-sum DIM]
 *
 * FUNC is the function's name; the object defines _mlir_ciface_FUNC (the
 * function carries llvm.emit_c_interface), which this program finds with
 * dlsym (link it with -rdynamic). Inputs are memrefs (after bufferization)
 * of the given dtype (f16, bf16, f32) and shape (e.g. 4x1000); the result is
 * the one after '='. OUTDIR ('-': none) gets in0.bin, in1.bin, ... and
 * out.bin, raw little-endian, for a checker with PyTorch (test/gpu/mlir_e2e.py).
 * --check-softmax DIM compares the result with a float64 softmax (or
 * log-softmax) of input 0 along DIM, prints the largest error and fails above
 * the dtype's tolerance; --check-sum DIM, that the result's rows along DIM sum
 * to 1 (a softmax of what the module computed before it). */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANK 8
#define MAX_ARGS 8

typedef struct desc { /* a memref descriptor of rank r: 3 + 2r words */
  int64_t w[3 + 2 * MAX_RANK];
} desc;

typedef struct spec {
  int dtype; /* 0 f16, 1 bf16, 2 f32 */
  int rank;
  int64_t shape[MAX_RANK], count;
} spec;

static float half_to_float(uint16_t h) {
  uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023, f;
  if (e == 0) {
    if (m == 0) {
      f = s;
    } else { /* subnormal */
      e = 113;
      while (!(m & 1024)) {
        m <<= 1;
        e--;
      }
      f = s | (e << 23) | ((m & 1023) << 13);
    }
  } else if (e == 31) {
    f = s | 0x7f800000u | (m << 13);
  } else {
    f = s | ((e + 112) << 23) | (m << 13);
  }
  float out;
  memcpy(&out, &f, 4);
  return out;
}

static uint16_t float_to_half(float v) { /* round to nearest even; no NaN inputs here */
  uint32_t f;
  memcpy(&f, &v, 4);
  uint32_t s = (f >> 16) & 0x8000, e = (f >> 23) & 255, m = f & 0x7fffff;
  if (e >= 143)
    return (uint16_t)(s | 0x7c00); /* overflow: inf */
  if (e < 102)
    return (uint16_t)s;
  if (e < 113) { /* subnormal */
    m |= 0x800000;
    uint32_t shift = 126 - e, h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1)))
      h++;
    return (uint16_t)(s | h);
  }
  uint32_t h = ((e - 112) << 10) | (m >> 13), rem = m & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
    h++;
  return (uint16_t)(s | h);
}

static size_t esize(int dtype) { return dtype == 2 ? 4 : 2; }

static double load(const void *p, int64_t i, int dtype) {
  if (dtype == 2)
    return ((const float *)p)[i];
  uint16_t h = ((const uint16_t *)p)[i];
  if (dtype == 0)
    return half_to_float(h);
  uint32_t f = (uint32_t)h << 16;
  float v;
  memcpy(&v, &f, 4);
  return v;
}

static void store(void *p, int64_t i, int dtype, float v) {
  if (dtype == 2) {
    ((float *)p)[i] = v;
  } else if (dtype == 0) {
    ((uint16_t *)p)[i] = float_to_half(v);
  } else {
    uint32_t f;
    memcpy(&f, &v, 4);
    f += 0x7fff + ((f >> 16) & 1);
    ((uint16_t *)p)[i] = (uint16_t)(f >> 16);
  }
}

static int parse(const char *text, spec *s) {
  static const char *const names[] = {"f16", "bf16", "f32"};
  s->dtype = -1;
  for (int i = 0; i < 3; i++)
    if (strncmp(text, names[i], strlen(names[i])) == 0 && text[strlen(names[i])] == ':')
      s->dtype = i, text += strlen(names[i]) + 1;
  if (s->dtype < 0)
    return 0;
  s->rank = 0;
  s->count = 1;
  for (char *end; *text && s->rank < MAX_RANK; text = *end == 'x' ? end + 1 : end) {
    s->shape[s->rank] = strtoll(text, &end, 10);
    if (end == text || s->shape[s->rank] < 1)
      return 0;
    s->count *= s->shape[s->rank++];
    if (!*end)
      return 1;
    if (*end != 'x')
      return 0;
  }
  return 0;
}

static void describe(desc *d, void *data, const spec *s) {
  memset(d, 0, sizeof *d);
  d->w[0] = d->w[1] = (int64_t)(intptr_t)data;
  int64_t stride = 1;
  for (int i = s->rank - 1; i >= 0; i--) {
    d->w[3 + i] = s->shape[i];
    d->w[3 + s->rank + i] = stride;
    stride *= s->shape[i];
  }
}

static void save(const char *dir, const char *name, const void *p, size_t bytes) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes || fclose(f)) {
    fprintf(stderr, "run_lowered: cannot write %s\n", path);
    exit(2);
  }
}

static int check(const char *func, const char *dir, const spec *in, int nin, void *const *data,
                 const spec *outp, const void *y, const int64_t *w, int check_dim, int check_log,
                 int sum_dim);

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: run_lowered FUNC OUTDIR DTYPE:SHAPE... =DTYPE:SHAPE "
                    "[--check-softmax DIM [log]]\n");
    return 2;
  }
  spec in[MAX_ARGS], out;
  int nin = 0, have_out = 0, check_dim = -1, check_log = 0, sum_dim = -1;
  for (int i = 3; i < argc; i++) {
    if (strcmp(argv[i], "--check-softmax") == 0 && i + 1 < argc) {
      check_dim = atoi(argv[++i]);
      if (i + 1 < argc && strcmp(argv[i + 1], "log") == 0)
        check_log = 1, i++;
    } else if (strcmp(argv[i], "--check-sum") == 0 && i + 1 < argc) {
      sum_dim = atoi(argv[++i]);
    } else if (argv[i][0] == '=') {
      have_out = parse(argv[i] + 1, &out);
    } else if (nin < MAX_ARGS && parse(argv[i], &in[nin])) {
      nin++;
    } else {
      fprintf(stderr, "run_lowered: bad argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (!have_out || nin < 1 || nin > 3 || check_dim >= in[0].rank || sum_dim >= out.rank) {
    fprintf(stderr, "run_lowered: need 1 to 3 inputs, one =DTYPE:SHAPE result and dims in "
                    "range\n");
    return 2;
  }
  char sym[512];
  snprintf(sym, sizeof sym, "_mlir_ciface_%s", argv[1]);
  void *fn = dlsym(RTLD_DEFAULT, sym);
  if (!fn) {
    fprintf(stderr, "run_lowered: %s not found (link the object with -rdynamic)\n", sym);
    return 2;
  }
  void *data[MAX_ARGS];
  desc d[MAX_ARGS], res;
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  for (int a = 0; a < nin; a++) {
    data[a] = malloc((size_t)in[a].count * esize(in[a].dtype));
    if (!data[a])
      return 2;
    for (int64_t i = 0; i < in[a].count; i++) { /* uniform in [-4, 4) */
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      store(data[a], i, in[a].dtype, (float)((double)(seed >> 11) / 9007199254740992.0 * 8 - 4));
    }
    describe(&d[a], data[a], &in[a]);
  }
  memset(&res, 0, sizeof res);
  if (nin == 1)
    ((void (*)(desc *, desc *))fn)(&res, &d[0]);
  else if (nin == 2)
    ((void (*)(desc *, desc *, desc *))fn)(&res, &d[0], &d[1]);
  else
    ((void (*)(desc *, desc *, desc *, desc *))fn)(&res, &d[0], &d[1], &d[2]);
  const void *y = (const char *)(intptr_t)res.w[1] + res.w[2] * (int64_t)esize(out.dtype);
  int status = check(argv[1], argv[2], in, nin, data, &out, y, res.w, check_dim, check_log, sum_dim);
  /* the result's buffer is the caller's (a memref.alloc: malloc), unless it is an input */
  int own = 1;
  for (int a = 0; a < nin; a++) {
    own = own && (void *)(intptr_t)res.w[0] != data[a];
    free(data[a]);
  }
  if (own)
    free((void *)(intptr_t)res.w[0]);
  return status;
}

/* Saves, checks and reports the result y (descriptor words w); the exit status. */
static int check(const char *func, const char *dir, const spec *in, int nin, void *const *data,
                 const spec *outp, const void *y, const int64_t *w, int check_dim, int check_log,
                 int sum_dim) {
  const spec out = *outp;
  for (int i = 0; i < out.rank; i++)
    if (w[3 + i] != out.shape[i]) {
      fprintf(stderr, "run_lowered: result dim %d is %lld, expected %lld\n", i,
              (long long)w[3 + i], (long long)out.shape[i]);
      return 1;
    }
  if (strcmp(dir, "-") != 0) {
    for (int a = 0; a < nin; a++) {
      char name[32];
      snprintf(name, sizeof name, "in%d.bin", a);
      save(dir, name, data[a], (size_t)in[a].count * esize(in[a].dtype));
    }
    save(dir, "out.bin", y, (size_t)out.count * esize(out.dtype));
  }
  printf("run_lowered: %s ran; result %lld elements\n", func, (long long)out.count);
  double tol = out.dtype == 2 ? 1e-5 : out.dtype == 0 ? 1e-3 : 8e-3;
  if (sum_dim >= 0) { /* each row along sum_dim sums to 1 */
    int64_t n = out.shape[sum_dim], inner = 1;
    for (int i = sum_dim + 1; i < out.rank; i++)
      inner *= out.shape[i];
    double worst = 0;
    for (int64_t row = 0; row < out.count / n; row++) {
      int64_t base = row / inner * n * inner + row % inner;
      double sum = 0;
      for (int64_t c = 0; c < n; c++)
        sum += load(y, base + c * inner, out.dtype);
      if (!(fabs(sum - 1) <= worst))
        worst = fabs(sum - 1);
    }
    printf("run_lowered: rows along dim %d sum to 1 within %.3g (tolerance %.3g): %s\n", sum_dim,
           worst, n * tol, worst <= n * tol ? "ok" : "FAILED");
    if (!(worst <= n * tol))
      return 1;
  }
  if (check_dim >= 0) { /* softmax of input 0 along check_dim, in float64 */
    const spec *s = &in[0];
    int64_t n = s->shape[check_dim], inner = 1, worst_at = 0;
    for (int i = check_dim + 1; i < s->rank; i++)
      inner *= s->shape[i];
    double worst = 0;
    for (int64_t row = 0; row < s->count / n; row++) {
      int64_t base = row / inner * n * inner + row % inner;
      double mx = -INFINITY, sum = 0;
      for (int64_t c = 0; c < n; c++)
        mx = fmax(mx, load(data[0], base + c * inner, s->dtype));
      for (int64_t c = 0; c < n; c++)
        sum += exp(load(data[0], base + c * inner, s->dtype) - mx);
      for (int64_t c = 0; c < n; c++) {
        double x = load(data[0], base + c * inner, s->dtype) - mx;
        double ref = check_log ? x - log(sum) : exp(x) / sum;
        double err = fabs(load(y, base + c * inner, out.dtype) - ref) /
                     (check_log ? fmax(1.0, fabs(ref)) : 1.0);
        if (!(err <= worst))
          worst = err, worst_at = base + c * inner;
      }
    }
    printf("run_lowered: %s against float64: max error %.3g at %lld (tolerance %.3g): %s\n",
           check_log ? "log_softmax" : "softmax", worst, (long long)worst_at, tol,
           worst <= tol ? "ok" : "FAILED");
    return worst <= tol ? 0 : 1;
  }
  return 0;
}
