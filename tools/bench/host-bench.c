/* host-bench - softgen's host target on this machine's CPU against memcpy of
 * the same bytes and a plain C softmax compiled with -O3 (host-ref.c), in the
 * same run. A benchmark, not a test: figures go to tools/bench/RESULTS.md.
 *
 * Needs: libsoftgen (JIT), libsoftgen_rt (host backend), libm. Produces a
 * table on stdout: per shape, dtype and thread count, the median time of a
 * launch, GB/s counting bytes read + written, and the ratio to memcpy's GB/s
 * over the same bytes (the input copied to the output buffer) on as many
 * threads. The plain C softmax runs f32 only (three passes: max, sum of expf,
 * scale), on one thread and on P threads over row slices.
 *
 *   host-bench TEMPLATES_DIR [--threads P] [--runs R] [--mb MB]
 *
 * Method: inputs standard normal (never zeros); each tensor holds MB MiB of
 * f32 (default 256: far past the caches), fewer bytes for 16-bit dtypes at
 * the same M x N; one warm-up, then the median of R (default 11) timed runs
 * (CLOCK_MONOTONIC around a synchronous launch). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "softgen/runtime.h"
#include "softgen/softgen.h"
#include "../common/host_elems.h"

void host_ref_softmax(const float *x, float *y, int64_t rows, int64_t n); /* host-ref.c */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A job split over P threads: part p of P does rows [p*M/P, (p+1)*M/P). */
typedef struct job {
  int kind; /* 0 memcpy, 1 plain C softmax */
  const char *src;
  char *dst;
  int64_t rows, n;
  size_t row_bytes;
  unsigned part, parts;
} job;

static void *run_part(void *p) {
  job *j = p;
  int64_t a = j->rows * j->part / j->parts, b = j->rows * (j->part + 1) / j->parts;
  if (j->kind == 0)
    memcpy(j->dst + a * j->row_bytes, j->src + a * j->row_bytes, (size_t)(b - a) * j->row_bytes);
  else
    host_ref_softmax((const float *)j->src + a * j->n, (float *)j->dst + a * j->n, b - a, j->n);
  return NULL;
}

static double time_split(int kind, const void *src, void *dst, int64_t rows, int64_t n,
                         size_t row_bytes, unsigned parts, int runs) {
  double t[64];
  for (int r = -1; r < runs; r++) {
    pthread_t th[256];
    job jobs[256];
    double t0 = now();
    for (unsigned p = 0; p < parts; p++) {
      jobs[p] = (job){kind, src, dst, rows, n, row_bytes, p, parts};
      if (p)
        pthread_create(&th[p], NULL, run_part, &jobs[p]);
    }
    run_part(&jobs[0]);
    for (unsigned p = 1; p < parts; p++)
      pthread_join(th[p], NULL);
    if (r >= 0)
      t[r] = now() - t0;
  }
  qsort(t, (size_t)runs, sizeof t[0], cmp);
  return t[runs / 2];
}

static sgrt_runtime *rt;

static int jit_kernel(const char *dir, sg_dtype dt, int64_t n, sg_jit **jit, sgrt_kernel **k) {
  char path[4096];
  snprintf(path, sizeof path, "%s/softmax.sgt", dir);
  sg_diag d;
  sg_template *t = NULL;
  sg_plan *plan = NULL;
  sg_module *m = NULL;
  sg_problem p = {.n = n, .dtype = dt, .target = "host"};
  size_t len = 0;
  int bad = sg_template_load(path, &t, &d) || sg_plan_resolve(t, NULL, &p, &plan, &d) ||
            sg_codegen(t, plan, &m, &d) || sg_module_optimize(m, &d) || sg_jit_create(m, jit, &d);
  if (!bad) {
    const char *meta = sg_jit_meta(*jit, &len);
    bad = sgrt_kernel_load_host(rt, sg_jit_kernel(*jit), meta, len, k, &d) != SG_OK;
  }
  if (bad)
    fprintf(stderr, "host-bench: %s\n", d.message);
  sg_module_destroy(m);
  sg_plan_destroy(plan);
  sg_template_destroy(t);
  return bad;
}

int main(int argc, char **argv) {
  const char *dir = NULL;
  unsigned threads = (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
  int runs = 11;
  double mb = 256;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
      threads = (unsigned)atoi(argv[++i]);
    else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
      runs = atoi(argv[++i]);
    else if (strcmp(argv[i], "--mb") == 0 && i + 1 < argc)
      mb = atof(argv[++i]);
    else
      dir = argv[i];
  }
  if (!dir || runs < 1 || runs > 64 || threads < 1 || threads > 256) {
    fprintf(stderr, "usage: host-bench TEMPLATES_DIR [--threads P] [--runs R(1-64)] [--mb MB]\n");
    return 2;
  }
  sg_diag d;
  if (sgrt_open(SGRT_BACKEND_HOST, 0, &rt, &d)) {
    fprintf(stderr, "host-bench: %s\n", d.message);
    return 3;
  }
  printf("# %s, %u threads; median of %d runs; GB/s = (bytes read + written) / time\n",
         sgrt_device_name(rt), threads, runs);
  printf("%-8s %-6s %-5s %3s %10s %9s %9s %9s\n", "N", "M", "dtype", "thr", "impl", "ms", "GB/s",
         "x memcpy");
  static const int64_t ns[] = {1024, 8192, 32768, 262144};
  int64_t elems = (int64_t)(mb * 1048576 / 4);
  float *x = aligned_alloc(64, (size_t)elems * 4), *y = aligned_alloc(64, (size_t)elems * 4);
  if (!x || !y)
    return 3;
  sg_rng rng = {12345};
  for (int64_t i = 0; i < elems; i++)
    x[i] = (float)(2 * sg_rng_normal(&rng));
  unsigned tc[2] = {1, threads};
  for (int s = 0; s < 4; s++) {
    int64_t n = ns[s], m = elems / n;
    for (int dt = SG_DTYPE_COUNT - 1; dt >= 0; dt--) {
      unsigned es = sg_dtype_size((sg_dtype)dt);
      double bytes = 2.0 * (double)(m * n) * es;
      if (dt != SG_DTYPE_F32) /* 16-bit copies of the same values */
        for (int64_t i = 0; i < m * n; i++)
          sg_host_put(y, (size_t)i, (sg_dtype)dt, x[i]);
      void *in = dt == SG_DTYPE_F32 ? (void *)x : (void *)y;
      void *out = dt == SG_DTYPE_F32 ? (void *)y : (void *)((char *)y + (size_t)(m * n) * es);
      sg_jit *jit = NULL;
      sgrt_kernel *k = NULL;
      if (jit_kernel(dir, (sg_dtype)dt, n, &jit, &k))
        return 1;
      for (int ti = 0; ti < (threads > 1 ? 2 : 1); ti++) {
        unsigned p = tc[ti];
        double tcopy = time_split(0, in, out, m, n, (size_t)n * es, p, runs);
        sgrt_host_set_threads(rt, p, &d);
        sgrt_tensor t[2] = {{in, m, n, n, (sg_dtype)dt, 0, 0}, {out, m, n, n, (sg_dtype)dt, 0, 0}};
        double tk[64];
        for (int r = -1; r < runs; r++) {
          double t0 = now();
          if (sgrt_kernel_launch(k, t, 2, NULL, &d)) {
            fprintf(stderr, "host-bench: %s\n", d.message);
            return 1;
          }
          if (r >= 0)
            tk[r] = now() - t0;
        }
        qsort(tk, (size_t)runs, sizeof tk[0], cmp);
        double tkm = tk[runs / 2];
        const char *dn = sg_dtype_name((sg_dtype)dt);
        printf("%-8lld %-6lld %-5s %3u %10s %9.3f %9.2f %9s\n", (long long)n, (long long)m, dn, p,
               "memcpy", tcopy * 1e3, bytes / tcopy / 1e9, "1.00");
        printf("%-8lld %-6lld %-5s %3u %10s %9.3f %9.2f %9.2f\n", (long long)n, (long long)m, dn, p,
               "softgen", tkm * 1e3, bytes / tkm / 1e9, tcopy / tkm);
        if (dt == SG_DTYPE_F32) {
          double tc3 = time_split(1, x, y, m, n, 0, p, runs);
          printf("%-8lld %-6lld %-5s %3u %10s %9.3f %9.2f %9.2f\n", (long long)n, (long long)m, dn,
                 p, "C -O3", tc3 * 1e3, bytes / tc3 / 1e9, tcopy / tc3);
        }
        fflush(stdout);
      }
      sgrt_kernel_destroy(k);
      sg_jit_destroy(jit);
    }
  }
  free(x);
  free(y);
  sgrt_close(rt);
  return 0;
}
