/* softgen-bench - time softgen kernels against the device-to-device copy of the
 * same bytes, in the same run (issue 5, part 4; protocol in tools/bench/README.md).
 *
 * Needs: libsoftgen_rt (softgen/runtime.h), libm, tools/common/options.h (its options).
 * Produces, for each kernel:
 *   the median time of one launch over --iters timed samples (device events,
 *   after warm-up), the same for sgrt_memcpy_dtod of the same bytes, GB/s
 *   counting read + write, the ratio kernel GB/s / copy GB/s, and a row-sum
 *   check of the kernel's output; a table on stdout and a CSV (--csv).
 *
 *   softgen-bench [options] KERNEL...           (each run with --rows M rows)
 *   softgen-bench [options] --manifest FILE     (lines "file<TAB>M[<TAB>N]", '#' comments;
 *                                                N: the row length of a kernel for a
 *                                                range of N, default its n;
 *                                                relative paths are taken from
 *                                                the manifest's folder)
 *
 * Method (the same in tools/bench/peers.py):
 *   - inputs: standard normal values made on the host once (a pool of 2^20+7
 *     values tiled over the buffer, so rows differ) and copied; never zeros.
 *   - L2: one "set" = every tensor of one launch. When a set is smaller than
 *     4 x L2 (L2 assumed --l2-mb, default 60 MB: the runtime cannot query it;
 *     H100 and H200 have 50 MB), ceil(4 x L2 / set) sets are allocated and
 *     successive launches rotate through them.
 *   - timing: rounds of S samples; a round starts with a queue filler (a
 *     --filler-mb device copy between two scratch buffers, which also evicts
 *     L2) so that the host runs ahead of the device, then records S+1 events
 *     with `batch` launches between consecutive events. One sample = elapsed /
 *     batch. batch is 1 unless one launch is under --batch-us (default 20 us),
 *     then ceil(batch-us / t). Kernel rounds and copy rounds alternate.
 *   - bytes moved = M x N x (sum of element sizes of the tensors); the copy
 *     moves 2 x its bytes (read + write), where its bytes = M x N x in_elem.
 * Exit status: 0 all kernels measured and checked, 1 some kernel failed
 * (load, memory, launch, check) or the results could not be written (stdout,
 * --csv), 2 usage error, 3 the driver did not open. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "softgen/runtime.h"
#include "base/io.h"
#include "../common/host_elems.h"
#include "../common/options.h"

#define MAX_SAMPLES_PER_ROUND 25
#define MAX_SETS 256
#define POOL_LEN ((1u << 20) + 7u)
#define STAGING_BYTES ((size_t)64 << 20)

enum {
  O_ROWS = 1, O_ITERS, O_WARMUP_MS, O_BATCH_US, O_L2_MB, O_FILLER_MB, O_CSV, O_NO_CHECK,
  O_MANIFEST, O_BACKEND, O_DEVICE, O_HELP
};

static const opt cli[] = { /* tools/common/options.h */
    {O_ROWS, "--rows", "M", 0, "rows for kernels given on the command line (default 16384)"},
    {O_ITERS, "--iters", "N", 0, "timed samples per kernel and per copy (default 100)"},
    {O_WARMUP_MS, "--warmup-ms", "T", 0, "warm-up time per kernel, host clock (default 100)"},
    {O_BATCH_US, "--batch-us", "U", 0,
     "time batches of launches when one launch is under U us\n"
     "(default 20; 0: always one launch per sample)"},
    {O_L2_MB, "--l2-mb", "L", 0, "assumed L2 size in MB for input rotation (default 60)"},
    {O_FILLER_MB, "--filler-mb", "F", 0,
     "device copy before each timed round, MB (default 256; 0: none)"},
    {O_CSV, "--csv", "FILE", 0, "also write the results as CSV"},
    {O_NO_CHECK, "--no-check", NULL, 0, "skip the row-sum check of the kernel's output"},
    {O_MANIFEST, "--manifest", "FILE", 0,
     "kernels to run, one a line: file<TAB>M (a file relative to\n"
     "FILE's directory; # starts a comment line)"},
    {O_BACKEND, "--backend", "cuda|hip|auto", 0, "the driver (default auto: CUDA, then HIP)"},
    {O_DEVICE, "--device", "D", 0, "the device's ordinal (default 0)"},
    {O_HELP, "-h, --help", NULL, 0, "this help"},
    {0},
};

static void usage(FILE *f) {
  fputs("usage: softgen-bench [options] KERNEL.{cubin,ptx}...\n"
        "       softgen-bench [options] --manifest FILE   (lines: file<TAB>M[<TAB>N])\n",
        f);
  opt_help(f, cli);
  fputs("environment: SOFTGEN_CUDA_LIBRARY / SOFTGEN_HIP_LIBRARY name another driver\n", f);
}

static sg_rng rng = {0x9e3779b97f4a7c15ull};

/* ---- options, results ---- */

typedef struct options {
  const char *csv, *manifest;
  int iters;
  double warmup_ms, batch_us, l2_mb, filler_mb;
  int64_t rows;
  int check;
  int device;
  sgrt_backend backend;
} options;

typedef struct result {
  char kernel[128], file[512], dtype[16], check[96], error[1100];
  int64_t m, n;
  int sets, batch, copy_batch, iters;
  double bytes, copy_bytes;
  double t_med, t_min, t_p90, c_med, c_min, c_p90;
  int ok;
} result;

typedef struct bench {
  sgrt_runtime *rt;
  sgrt_kernel *k;
  const sg_meta *m;
  int nsets;
  sgrt_tensor (*sets)[SG_META_MAX_TENSORS]; /* nsets x ntensors */
  int in, out;                              /* first input / output tensor */
  size_t copy_bytes;
  int cursor; /* rotation position */
  void *scratch_a, *scratch_b;
  size_t filler_bytes;
  sgrt_event *ev[MAX_SAMPLES_PER_ROUND + 1];
} bench;

enum { OP_KERNEL, OP_COPY };

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* q-quantile (0..1) of sorted v[n], nearest rank. */
static double quantile(const double *v, int n, double q) {
  if (n <= 0)
    return NAN;
  if (q == 0.5)
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  int i = (int)ceil(q * n) - 1;
  return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/* One launch of the kernel or one copy, on the next buffer set. */
static sg_status run_op(bench *b, int op, sg_diag *d) {
  sgrt_tensor *t = b->sets[b->cursor];
  b->cursor = (b->cursor + 1) % b->nsets;
  if (op == OP_KERNEL)
    return sgrt_kernel_launch(b->k, t, b->m->ntensors, NULL, d);
  return sgrt_memcpy_dtod(b->rt, t[b->out].data, t[b->in].data, b->copy_bytes, NULL, d);
}

/* One round: filler, then samples of `batch` ops each; appends us per op. */
static sg_status time_round(bench *b, int op, int batch, int samples, double *out, sg_diag *d) {
  sg_status st;
  if (b->filler_bytes &&
      (st = sgrt_memcpy_dtod(b->rt, b->scratch_b, b->scratch_a, b->filler_bytes, NULL, d)))
    return st;
  if ((st = sgrt_event_record(b->ev[0], NULL, d)))
    return st;
  for (int s = 0; s < samples; s++) {
    for (int q = 0; q < batch; q++)
      if ((st = run_op(b, op, d)))
        return st;
    if ((st = sgrt_event_record(b->ev[s + 1], NULL, d)))
      return st;
  }
  for (int s = 0; s < samples; s++) {
    float ms = 0;
    if ((st = sgrt_event_elapsed(b->ev[s], b->ev[s + 1], &ms, d)))
      return st;
    out[s] = (double)ms * 1e3 / batch;
  }
  return SG_OK;
}

static int batch_for(double t_us, double batch_us) {
  if (!(t_us > 0) || batch_us <= 0 || t_us >= batch_us)
    return 1;
  double k = ceil(batch_us / t_us);
  return k > 1000 ? 1000 : (int)k;
}

/* Fills one input tensor of M x N (row_stride-padded) with pool values. */
static sg_status fill_input(sgrt_runtime *rt, const sgrt_tensor *t, const unsigned char *pool,
                            unsigned char *staging, size_t offset, sg_diag *d) {
  unsigned es = sg_dtype_size(t->dtype);
  size_t total = (size_t)t->rows * (size_t)t->row_stride * es, pool_bytes = (size_t)POOL_LEN * es;
  size_t pos = offset % POOL_LEN * es;
  for (size_t done = 0; done < total;) {
    size_t chunk = total - done < STAGING_BYTES ? total - done : STAGING_BYTES;
    for (size_t w = 0; w < chunk;) {
      size_t n = pool_bytes - pos < chunk - w ? pool_bytes - pos : chunk - w;
      memcpy(staging + w, pool + pos, n);
      w += n;
      pos = (pos + n) % pool_bytes;
    }
    sg_status st = sgrt_memcpy_htod(rt, (unsigned char *)t->data + done, staging, chunk, d);
    if (st)
      return st;
    done += chunk;
  }
  return SG_OK;
}

/* Row sums of rows 0, M/2, M-1 of the first output after a launch on set 0. */
static void check_output(bench *b, result *r, sg_diag *d) {
  const sg_meta *m = b->m;
  int is_log = strcmp(m->template_name, "log_softmax") == 0;
  int nin = 0, nout = 0;
  for (int i = 0; i < m->ntensors; i++)
    m->tensors[i].is_output ? nout++ : nin++;
  if ((!is_log && strcmp(m->template_name, "softmax") != 0) || nin != 1 || nout != 1 ||
      b->sets[0][b->out].rows == 0) {
    snprintf(r->check, sizeof r->check, "-");
    return;
  }
  b->cursor = 0;
  sg_status st;
  if ((st = run_op(b, OP_KERNEL, d)) || (st = sgrt_synchronize(b->rt, d))) {
    snprintf(r->check, sizeof r->check, "error");
    snprintf(r->error, sizeof r->error, "check launch: %s: %s", sg_status_name(st), d->message);
    r->ok = 0;
    return;
  }
  const sgrt_tensor *y = &b->sets[0][b->out];
  unsigned es = sg_dtype_size(y->dtype);
  size_t row_bytes = (size_t)y->cols * es;
  void *host = malloc(row_bytes);
  if (!host) {
    snprintf(r->check, sizeof r->check, "no host memory");
    r->ok = 0;
    return;
  }
  int64_t rows[3] = {0, y->rows / 2, y->rows - 1};
  double worst = 0;
  int nans = 0;
  for (int i = 0; i < 3; i++) {
    const unsigned char *src =
        (const unsigned char *)y->data + (size_t)rows[i] * (size_t)y->row_stride * es;
    if ((st = sgrt_memcpy_dtoh(b->rt, host, src, row_bytes, d))) {
      snprintf(r->check, sizeof r->check, "error");
      snprintf(r->error, sizeof r->error, "check copy: %s: %s", sg_status_name(st), d->message);
      r->ok = 0;
      free(host);
      return;
    }
    double s = 0;
    for (int64_t c = 0; c < y->cols; c++) {
      double v = sg_host_get(host, (size_t)c, y->dtype);
      nans += isnan(v) != 0;
      s += is_log ? exp(v) : v;
    }
    double e = fabs(s - 1.0);
    if (!(e <= worst))
      worst = e;
  }
  free(host);
  double tol = y->dtype == SG_DTYPE_F32 ? 1e-3 : 5e-2;
  int pass = nans == 0 && worst <= tol;
  snprintf(r->check, sizeof r->check, "%s", pass ? "ok" : "BAD");
  if (!pass) {
    snprintf(r->error, sizeof r->error,
             "check: |rowsum-1| = %.3g (tol %.0e), %d NaN in rows 0, M/2, M-1", worst, tol, nans);
    r->ok = 0;
  }
}

static const char *basename_of(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* Measures one kernel at M rows; fills r (r->ok = 0 with r->error on failure). */
static void bench_one(const options *o, sgrt_runtime *rt, void *scratch_a, void *scratch_b,
                      size_t filler_bytes, const unsigned char *const pools[SG_DTYPE_COUNT],
                      unsigned char *staging, const char *path, int64_t rows, int64_t cols,
                      result *r) {
  sg_diag d;
  sg_diag_clear(&d);
  sg_status st = SG_OK;
  bench b;
  memset(&b, 0, sizeof b);
  memset(r, 0, sizeof *r);
  r->ok = 1;
  r->m = rows;
  snprintf(r->file, sizeof r->file, "%s", path);
  snprintf(r->kernel, sizeof r->kernel, "%s", basename_of(path));
  snprintf(r->check, sizeof r->check, "-");
  r->t_med = r->c_med = NAN;
  const char *what = "load";
  double *ks = NULL, *cs = NULL;

  b.rt = rt;
  b.scratch_a = scratch_a;
  b.scratch_b = scratch_b;
  b.filler_bytes = filler_bytes;
  b.in = b.out = -1;
  if ((st = sgrt_kernel_load_file(rt, path, &b.k, &d)))
    goto fail;
  b.m = sgrt_kernel_meta(b.k);
  const sg_meta *m = b.m;
  snprintf(r->kernel, sizeof r->kernel, "%s", m->kernel);
  int64_t n = cols ? cols : m->n; /* a kernel for a range of N: the manifest's N */
  r->n = n;
  double elem_sum = 0;
  size_t set_bytes = 0;
  for (int i = 0; i < m->ntensors; i++) {
    unsigned es = sg_dtype_size(m->tensors[i].dtype);
    unsigned vb = m->vector_bytes ? m->vector_bytes : 1;
    int64_t per = vb > es ? vb / es : 1;
    int64_t stride = (n + per - 1) / per * per;
    set_bytes += (size_t)rows * (size_t)stride * es;
    elem_sum += es;
    if (m->tensors[i].is_output && b.out < 0)
      b.out = i;
    if (!m->tensors[i].is_output && b.in < 0)
      b.in = i;
  }
  what = "metadata";
  if (b.in < 0 || b.out < 0) {
    st = sg_diag_set(&d, SG_ERR_UNSUPPORTED, "kernel needs at least one input and one output");
    goto fail;
  }
  sg_dtype din = m->tensors[b.in].dtype, dout = m->tensors[b.out].dtype;
  if (din == dout)
    snprintf(r->dtype, sizeof r->dtype, "%s", sg_dtype_name(din));
  else
    snprintf(r->dtype, sizeof r->dtype, "%s>%s", sg_dtype_name(din), sg_dtype_name(dout));
  r->bytes = (double)rows * (double)n * elem_sum;
  {
    unsigned ei = sg_dtype_size(din), eo = sg_dtype_size(dout);
    b.copy_bytes = (size_t)rows * (size_t)n * (ei < eo ? ei : eo);
  }
  r->copy_bytes = 2.0 * (double)b.copy_bytes;

  double l2 = o->l2_mb * 1e6;
  b.nsets = 1;
  if (set_bytes > 0 && (double)set_bytes < 4 * l2) {
    double k = ceil(4 * l2 / (double)set_bytes);
    b.nsets = k > MAX_SETS ? MAX_SETS : (int)k;
  }
  r->sets = b.nsets;
  what = "device memory";
  b.sets = calloc((size_t)b.nsets, sizeof *b.sets);
  if (!b.sets) {
    st = sg_diag_set(&d, SG_ERR_NO_MEMORY, "host memory");
    goto fail;
  }
  for (int s = 0; s < b.nsets; s++)
    for (int i = 0; i < m->ntensors; i++) {
      sg_dtype dt = m->tensors[i].dtype;
      unsigned es = sg_dtype_size(dt), vb = m->vector_bytes ? m->vector_bytes : 1;
      int64_t per = vb > es ? vb / es : 1;
      sgrt_tensor *t = &b.sets[s][i];
      *t = (sgrt_tensor){NULL, rows, n, (n + per - 1) / per * per, dt, 0, 0};
      size_t bytes = (size_t)rows * (size_t)t->row_stride * es;
      if (bytes == 0)
        continue;
      if ((st = sgrt_mem_alloc(rt, bytes, &t->data, &d))) {
        snprintf(d.message + strlen(d.message), sizeof d.message - strlen(d.message),
                 " (set %d of %d, %zu bytes each)", s + 1, b.nsets, set_bytes);
        goto fail;
      }
      if (m->tensors[i].is_output)
        st = sgrt_memset_d8(rt, t->data, 0, bytes, &d);
      else
        st = fill_input(rt, t, pools[dt], staging, (size_t)s * 7919u + (size_t)i * 104729u, &d);
      if (st)
        goto fail;
    }
  what = "events";
  for (int i = 0; i <= MAX_SAMPLES_PER_ROUND; i++)
    if ((st = sgrt_event_create(rt, &b.ev[i], &d)))
      goto fail;
  if (rows == 0) {
    st = sg_diag_set(&d, SG_ERR_INVALID_ARGUMENT, "M = 0: nothing to time");
    what = "rows";
    goto fail;
  }

  /* warm-up: every set through kernel and copy, until warmup_ms has passed */
  what = "warm-up";
  double t0 = now_ms();
  for (int it = 0; it < 3 || now_ms() - t0 < o->warmup_ms; it++) {
    for (int s = 0; s < b.nsets; s++)
      if ((st = run_op(&b, OP_KERNEL, &d)) || (st = run_op(&b, OP_COPY, &d)))
        goto fail;
    if ((st = sgrt_synchronize(rt, &d)))
      goto fail;
  }
  /* one launch's time, to choose the batch */
  double probe[MAX_SAMPLES_PER_ROUND];
  int np = 5;
  if ((st = time_round(&b, OP_KERNEL, 1, np, probe, &d)))
    goto fail;
  qsort(probe, (size_t)np, sizeof *probe, cmp_double);
  r->batch = batch_for(quantile(probe, np, 0.5), o->batch_us);
  if ((st = time_round(&b, OP_COPY, 1, np, probe, &d)))
    goto fail;
  qsort(probe, (size_t)np, sizeof *probe, cmp_double);
  r->copy_batch = batch_for(quantile(probe, np, 0.5), o->batch_us);

  /* timed rounds, kernel and copy alternating */
  what = "timing";
  r->iters = o->iters;
  ks = malloc((size_t)o->iters * sizeof *ks);
  cs = malloc((size_t)o->iters * sizeof *cs);
  if (!ks || !cs) {
    st = sg_diag_set(&d, SG_ERR_NO_MEMORY, "host memory");
    goto fail;
  }
  for (int done = 0; done < o->iters;) {
    int n = o->iters - done < MAX_SAMPLES_PER_ROUND ? o->iters - done : MAX_SAMPLES_PER_ROUND;
    if ((st = time_round(&b, OP_KERNEL, r->batch, n, ks + done, &d)) ||
        (st = time_round(&b, OP_COPY, r->copy_batch, n, cs + done, &d)))
      goto fail;
    done += n;
  }
  qsort(ks, (size_t)o->iters, sizeof *ks, cmp_double);
  qsort(cs, (size_t)o->iters, sizeof *cs, cmp_double);
  r->t_med = quantile(ks, o->iters, 0.5);
  r->t_min = ks[0];
  r->t_p90 = quantile(ks, o->iters, 0.9);
  r->c_med = quantile(cs, o->iters, 0.5);
  r->c_min = cs[0];
  r->c_p90 = quantile(cs, o->iters, 0.9);
  if (o->check)
    check_output(&b, r, &d);
  goto cleanup;

fail:
  r->ok = 0;
  snprintf(r->error, sizeof r->error, "%s: %s: %s", what, sg_status_name(st), d.message);
cleanup:
  free(ks);
  free(cs);
  for (int i = 0; i <= MAX_SAMPLES_PER_ROUND; i++)
    sgrt_event_destroy(b.ev[i]);
  if (b.sets)
    for (int s = 0; s < b.nsets; s++)
      for (int i = 0; i < SG_META_MAX_TENSORS; i++)
        if (b.sets[s][i].data)
          sgrt_mem_free(rt, b.sets[s][i].data);
  free(b.sets);
  sgrt_kernel_destroy(b.k);
}

/* ---- output ---- */

static double gbps(double bytes, double us) { return us > 0 ? bytes / (us * 1e3) : NAN; }

static void print_header(void) {
  printf("%-34s %7s %7s %-5s %4s %5s %10s %8s %10s %8s %6s %-5s\n", "kernel", "M", "N",
         "dtype", "sets", "batch", "time_us", "GB/s", "copy_us", "copy", "ratio", "check");
}

static void print_row(const result *r) {
  if (!r->ok && isnan(r->t_med)) {
    printf("%-34s %7lld %7lld %-5s  FAILED: %s\n", r->kernel, (long long)r->m, (long long)r->n,
           r->dtype[0] ? r->dtype : "?", r->error);
    return;
  }
  double g = gbps(r->bytes, r->t_med), c = gbps(r->copy_bytes, r->c_med);
  printf("%-34s %7lld %7lld %-5s %4d %5d %10.2f %8.0f %10.2f %8.0f %6.3f %-5s\n", r->kernel,
         (long long)r->m, (long long)r->n, r->dtype, r->sets, r->batch, r->t_med, g, r->c_med, c,
         g / c, r->check);
  if (!r->ok)
    printf("  ^ %s\n", r->error);
  fflush(stdout);
}

static void csv_field(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s == '\n' ? ' ' : *s, f);
  }
  fputc('"', f);
}

static void write_csv(FILE *f, const result *r, int nr, const char *device, const options *o) {
  fprintf(f, "kernel,file,M,N,dtype,bytes,sets,batch,copy_batch,iters,time_us,min_us,p90_us,"
             "gbps,copy_us,copy_min_us,copy_p90_us,copy_gbps,ratio,check,device,l2_mb,status\n");
  for (int i = 0; i < nr; i++) {
    const result *x = &r[i];
    double g = gbps(x->bytes, x->t_med), c = gbps(x->copy_bytes, x->c_med);
    csv_field(f, x->kernel);
    fputc(',', f);
    csv_field(f, x->file);
    fprintf(f, ",%lld,%lld,%s,%.0f,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.1f,%.3f,%.3f,%.3f,%.1f,%.4f,%s,",
            (long long)x->m, (long long)x->n, x->dtype[0] ? x->dtype : "?", x->bytes, x->sets,
            x->batch, x->copy_batch, x->iters, x->t_med, x->t_min, x->t_p90, g, x->c_med,
            x->c_min, x->c_p90, c, g / c, x->check);
    csv_field(f, device);
    fprintf(f, ",%g,", o->l2_mb);
    csv_field(f, x->ok ? "ok" : x->error);
    fputc('\n', f);
  }
}

/* Per dtype: worst ratio and geometric mean over the measured kernels. */
static void print_summary(const result *r, int nr) {
  const char *seen[64];
  int nseen = 0;
  for (int i = 0; i < nr; i++) {
    int dup = 0;
    for (int j = 0; j < nseen; j++)
      dup |= strcmp(seen[j], r[i].dtype) == 0;
    if (!dup && r[i].dtype[0] && nseen < 64)
      seen[nseen++] = r[i].dtype;
  }
  printf("\nsummary (ratio = kernel GB/s / copy GB/s):\n");
  for (int j = 0; j < nseen; j++) {
    double lsum = 0, worst = INFINITY;
    int n = 0, failed = 0;
    const result *w = NULL;
    for (int i = 0; i < nr; i++) {
      if (strcmp(r[i].dtype, seen[j]) != 0)
        continue;
      double ratio = gbps(r[i].bytes, r[i].t_med) / gbps(r[i].copy_bytes, r[i].c_med);
      if (!(ratio > 0)) {
        failed++;
        continue;
      }
      lsum += log(ratio);
      n++;
      if (ratio < worst) {
        worst = ratio;
        w = &r[i];
      }
    }
    if (n)
      printf("  %-5s %2d kernels: geomean %.3f, worst %.3f (%lldx%lld)%s\n", seen[j], n,
             exp(lsum / n), worst, (long long)w->m, (long long)w->n,
             failed ? ", some failed" : "");
    else
      printf("  %-5s no kernel measured\n", seen[j]);
  }
}

/* ---- inputs ---- */

typedef struct job {
  char *path;
  int64_t rows;
  int64_t cols; /* a kernel for a range of N: the N to run (0: the kernel's n) */
} job;

static int parse_i64(const char *s, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end || v < 0)
    return -1;
  *out = v;
  return 0;
}

static int parse_pos_double(const char *s, double *out) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end || !(v >= 0) || isinf(v))
    return -1;
  *out = v;
  return 0;
}

static int add_job(job **jobs, int *n, int *cap, const char *path, int64_t rows, int64_t cols) {
  if (*n == *cap) {
    int nc = *cap ? *cap * 2 : 64;
    job *j = realloc(*jobs, (size_t)nc * sizeof *j);
    if (!j)
      return -1;
    *jobs = j;
    *cap = nc;
  }
  size_t len = strlen(path);
  char *p = malloc(len + 1);
  if (!p)
    return -1;
  memcpy(p, path, len + 1);
  (*jobs)[*n].path = p;
  (*jobs)[*n].rows = rows;
  (*jobs)[*n].cols = cols;
  (*n)++;
  return 0;
}

static void free_jobs(job *jobs, int n) {
  for (int i = 0; i < n; i++)
    free(jobs[i].path);
  free(jobs);
}

/* Reads "file<TAB>M[<TAB>anything]" lines; returns 0 or prints the error. The
 * manifest is read as every input is (base/io.h): a regular file of at most
 * 1 MiB, opened without blocking (a FIFO is refused, not waited on). */
static int read_manifest(const char *path, job **jobs, int *n, int *cap) {
  char *text, full[8192];
  size_t len;
  sg_diag d;
  if (sgb_read_input(path, "a manifest", SGB_LIMIT_TEXT, &text, &len, &d)) {
    fprintf(stderr, "softgen-bench: %s\n", d.message);
    return -1;
  }
  const char *slash = strrchr(path, '/');
  size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
  int lineno = 0, rc = 0;
  for (char *line = text, *next; line < text + len; line = next) {
    next = line + strcspn(line, "\n"); /* or an embedded NUL: the line ends there too */
    if (next < text + len)
      *next++ = 0;
    lineno++;
    line[strcspn(line, "\r")] = 0;
    char *p = line;
    while (*p == ' ')
      p++;
    if (!*p || *p == '#')
      continue;
    char *tab = strchr(p, '\t');
    int64_t rows;
    if (!tab) {
      fprintf(stderr, "softgen-bench: %s:%d: expected 'file<TAB>M'\n", path, lineno);
      rc = -1;
      break;
    }
    *tab = 0;
    char *mfield = tab + 1, *tab2 = strchr(mfield, '\t');
    int64_t cols = 0; /* an optional third field: N, for a kernel of a range of N */
    if (tab2) {
      *tab2 = 0;
      char *nf = tab2 + 1, *t3 = strchr(nf, '\t');
      if (t3)
        *t3 = 0;
      if (*nf && parse_i64(nf, &cols)) {
        fprintf(stderr, "softgen-bench: %s:%d: bad N '%s'\n", path, lineno, nf);
        rc = -1;
        break;
      }
    }
    if (parse_i64(mfield, &rows)) {
      fprintf(stderr, "softgen-bench: %s:%d: bad row count '%s'\n", path, lineno, mfield);
      rc = -1;
      break;
    }
    if (p[0] == '/' || !dirlen)
      snprintf(full, sizeof full, "%s", p);
    else
      snprintf(full, sizeof full, "%.*s%s", (int)dirlen, path, p);
    if (add_job(jobs, n, cap, full, rows, cols)) {
      fprintf(stderr, "softgen-bench: out of host memory\n");
      rc = -1;
      break;
    }
  }
  free(text);
  return rc;
}

static unsigned char *make_pool(sg_dtype dt) {
  unsigned char *p = malloc((size_t)POOL_LEN * sg_dtype_size(dt));
  if (!p)
    return NULL;
  for (size_t i = 0; i < POOL_LEN; i++)
    sg_host_put(p, i, dt, (float)sg_rng_normal(&rng));
  return p;
}

/* Reads argv into o and kernels[] (the files named on the command line).
 * Returns -1 to go on, else the exit status (0 after --help, 2 on bad usage). */
static int parse_options(int argc, char **argv, options *o, const char **kernels,
                         int *nkernels) {
  opt_parser p = {.argc = argc, .argv = argv, .i = 1};
  for (int id; (id = opt_next(&p, cli)) != OPT_END;) {
    const char *v = p.val;
    int64_t iv;
    double dv;
    switch (id) {
    case OPT_ARG: /* "-" (this program reads no stdin) is an unknown option, as before */
      if (strcmp(v, "-") != 0) {
        kernels[(*nkernels)++] = v;
        break;
      }
      /* fall through */
    case OPT_UNKNOWN:
    case OPT_NO_VALUE:
    case OPT_EXTRA_VALUE:
      fprintf(stderr, "softgen-bench: unknown or incomplete option '%s'\n", p.name);
      usage(stderr);
      return 2;
    case O_HELP:
      usage(stdout);
      return 0;
    case O_NO_CHECK:
      o->check = 0;
      break;
    case O_CSV:
      o->csv = v;
      break;
    case O_MANIFEST:
      o->manifest = v;
      break;
    case O_BACKEND:
      if (strcmp(v, "cuda") == 0)
        o->backend = SGRT_BACKEND_CUDA;
      else if (strcmp(v, "hip") == 0)
        o->backend = SGRT_BACKEND_HIP;
      else if (strcmp(v, "auto") != 0) {
        fprintf(stderr, "softgen-bench: unknown backend '%s'\n", v);
        return 2;
      }
      break;
    case O_ITERS:
    case O_ROWS:
    case O_DEVICE:
      if (parse_i64(v, &iv) || (id == O_ITERS && (iv < 1 || iv > 1000000)) ||
          (id == O_DEVICE && iv > 1024)) {
        fprintf(stderr, "softgen-bench: %s needs a %s integer, got '%s'\n", p.name,
                id == O_ITERS ? "positive" : "non-negative", v);
        return 2;
      }
      if (id == O_ITERS)
        o->iters = (int)iv;
      else if (id == O_ROWS)
        o->rows = iv;
      else
        o->device = (int)iv;
      break;
    default: /* --warmup-ms, --batch-us, --l2-mb, --filler-mb: numbers */
      if (parse_pos_double(v, &dv)) {
        fprintf(stderr, "softgen-bench: %s needs a non-negative number, got '%s'\n", p.name, v);
        return 2;
      }
      if (id == O_WARMUP_MS)
        o->warmup_ms = dv;
      else if (id == O_BATCH_US)
        o->batch_us = dv;
      else if (id == O_L2_MB)
        o->l2_mb = dv;
      else
        o->filler_mb = dv;
    }
  }
  return -1;
}

int main(int argc, char **argv) {
  options o = {NULL, NULL, 100, 100.0, 20.0, 60.0, 256.0, 16384, 1, 0, SGRT_BACKEND_AUTO};
  job *jobs = NULL;
  int njobs = 0, cap = 0, rc = 0;
  const char **kernels = calloc((size_t)argc, sizeof *kernels);
  int nkernels = 0;
  if (!kernels)
    return 3;
  if ((rc = parse_options(argc, argv, &o, kernels, &nkernels)) >= 0) {
    free(kernels);
    return rc;
  }
  rc = 0;
  for (int i = 0; i < nkernels && !rc; i++)
    if (add_job(&jobs, &njobs, &cap, kernels[i], o.rows, 0))
      rc = 3;
  free(kernels);
  if (!rc && o.manifest && read_manifest(o.manifest, &jobs, &njobs, &cap))
    rc = 2;
  if (!rc && !njobs) {
    usage(stderr);
    rc = 2;
  }
  FILE *csv = NULL;
  if (!rc && o.csv && !(csv = fopen(o.csv, "w"))) {
    fprintf(stderr, "softgen-bench: cannot write '%s': %s\n", o.csv, strerror(errno));
    rc = 2;
  }
  if (rc) {
    free_jobs(jobs, njobs);
    return rc;
  }

  sg_diag d;
  sg_diag_clear(&d);
  sgrt_runtime *rt = NULL;
  sg_status st = sgrt_open(o.backend, o.device, &rt, &d);
  if (st) {
    fprintf(stderr, "softgen-bench: open: %s: %s\n", sg_status_name(st), d.message);
    if (csv)
      fclose(csv);
    free_jobs(jobs, njobs);
    return 3;
  }
  const char *device = sgrt_device_name(rt);
  printf("device %d: %s (%s, %s)\n", o.device, device, sgrt_device_arch(rt),
         sgrt_backend_name(rt));
  printf("method: median of %d samples after %.0f ms warm-up; inputs rotated over ceil(4 x L2 / "
         "set) sets, L2 assumed %g MB; batch when a launch < %g us; filler %g MB\n",
         o.iters, o.warmup_ms, o.l2_mb, o.batch_us, o.filler_mb);

  unsigned char *pools[SG_DTYPE_COUNT] = {0};
  unsigned char *staging = malloc(STAGING_BYTES);
  void *sa = NULL, *sb = NULL;
  size_t filler = (size_t)(o.filler_mb * 1e6 / 2) / 256 * 256;
  result *res = calloc((size_t)njobs, sizeof *res);
  for (int t = 0; t < SG_DTYPE_COUNT; t++)
    pools[t] = make_pool((sg_dtype)t);
  if (!staging || !res || !pools[0] || !pools[1] || !pools[2]) {
    fprintf(stderr, "softgen-bench: out of host memory\n");
    rc = 3;
    goto out;
  }
  if (filler && ((st = sgrt_mem_alloc(rt, filler, &sa, &d)) ||
                 (st = sgrt_mem_alloc(rt, filler, &sb, &d)) ||
                 (st = sgrt_memset_d8(rt, sa, 0x3c, filler, &d)))) {
    fprintf(stderr, "softgen-bench: filler buffers: %s: %s\n", sg_status_name(st), d.message);
    rc = 3;
    goto out;
  }
  print_header();
  for (int i = 0; i < njobs; i++) {
    bench_one(&o, rt, sa, sb, filler, (const unsigned char *const *)pools, staging,
              jobs[i].path, jobs[i].rows, jobs[i].cols, &res[i]);
    if (!res[i].ok)
      rc = 1;
    print_row(&res[i]);
  }
  print_summary(res, njobs);
  if (csv) {
    write_csv(csv, res, njobs, device, &o);
    if (fclose(csv) != 0) {
      fprintf(stderr, "softgen-bench: writing '%s' failed\n", o.csv);
      rc = rc ? rc : 1;
    }
    csv = NULL;
    printf("wrote %s\n", o.csv);
  }
out:
  if (csv)
    fclose(csv);
  sgrt_mem_free(rt, sa);
  sgrt_mem_free(rt, sb);
  for (int t = 0; t < SG_DTYPE_COUNT; t++)
    free(pools[t]);
  free(staging);
  free(res);
  free_jobs(jobs, njobs);
  sgrt_close(rt);
  sg_diag wd;
  if (sgb_stdout_flush(&wd)) { /* the table is the result: losing it is a failure */
    fprintf(stderr, "softgen-bench: %s\n", wd.message);
    rc = rc ? rc : 1;
  }
  return rc;
}
