/* libFuzzer target: the runtime's launch path (sgrt_kernel_launch_ex and
 * sgrt_kernel_check_views: tensor and scalar checks, the overlap rule, argument
 * packing, grid and cluster arithmetic) on hostile sgrt_tensor descriptors and
 * scalars, as the Python package's arguments reach it. Kernels are loaded through
 * the fake CUDA driver (test/Runtime/doubles, FAKE_CUDA_NOEXEC=1: it logs a launch
 * and touches no memory, so descriptors may point anywhere). Built by
 * -DSOFTGEN_FUZZ=ON with clang; run by test/fuzz/run.sh.
 *
 * Kernels: every .ptx in $SOFTGEN_FUZZ_LAUNCH_DIR (run.sh generates them with
 * softgen: rows, inner layout, repeating mask rows with scalars, two inputs, mixed
 * dtypes, clusters, persistent grids), else the metadata texts below.
 *
 * Input: byte 0 picks the kernel, byte 1 the tensor count (mostly the kernel's),
 * then per tensor a mode byte and its fields: 0 plausible (passes the checks but
 * for what the next bytes shift), 1 every field raw, 2 a view into another
 * tensor's memory (in place, shifted, interleaved), 3 plausible with one field
 * raw; then the scalars (count, raw doubles or small integers) and the stream.
 * Beyond not crashing, a launch that succeeds must obey the overlap rule, checked
 * by brute force over the rows of small views: no output shares a byte with
 * another tensor unless it is the same view. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softgen/runtime.h"

#define MAX_KERNELS 16
#define MAX_T (SG_META_MAX_TENSORS + 2)

static sgrt_runtime *rt;
static sgrt_kernel *kernels[MAX_KERNELS];
static int nkernels;

/* Used when no generated objects are given (fake-driver metadata texts; a
 * runtime that requires sealed code objects refuses these: give the folder). */
static const char *const builtin[] = {
    "softgen-meta 1\nkernel k_rows\ntemplate softmax\ntarget nvptx\narch sm_90\nn 1000\n"
    "block 256\nrows_per_block 4\nsmem 64\ncluster 1\nvector_bytes 16\ntensor x in f16\n"
    "tensor y out f16\narg tensor x\narg tensor y\narg rows\narg stride x\narg stride y\nend\n",
    "softgen-meta 1\nkernel k_masked\ntemplate masked_softmax\ntarget nvptx\narch sm_90\nn 64\n"
    "block 256\nrows_per_block 16\nsmem 0\ncluster 1\nvector_bytes 16\ntensor x in f16\n"
    "tensor mask in f32\ntensor y out f32\nscalar scale f32\nscalar L i64\narg tensor x\n"
    "arg tensor mask\narg tensor y\narg rows\narg stride x\narg stride mask\narg stride y\n"
    "arg rows mask\narg scalar scale\narg scalar L\nend\n",
    "softgen-meta 1\nkernel k_persistent\ntemplate softmax\ntarget nvptx\narch sm_90\nn 8192\n"
    "block 256\nrows_per_block 2\nsmem 128\ncluster 1\nvector_bytes 16\npersistent 1\n"
    "dsmem 32768\ntensor x in f16\ntensor y out f16\narg tensor x\narg tensor y\narg rows\n"
    "arg stride x\narg stride y\nend\n",
    "softgen-meta 1\nkernel k_cluster\ntemplate softmax\ntarget nvptx\narch sm_90\nn 262144\n"
    "block 1024\nrows_per_block 1\nsmem 384\ncluster 8\nvector_bytes 16\ntensor x in bf16\n"
    "tensor y out f32\narg tensor x\narg tensor y\narg rows\narg stride x\narg stride y\nend\n",
    "softgen-meta 1\nkernel k_inner\ntemplate softmax\ntarget nvptx\narch sm_90\nn 7\n"
    "block 256\nrows_per_block 256\nsmem 0\ncluster 1\nvector_bytes 4\nlayout inner\n"
    "tensor x in f16\ntensor y out f32\narg tensor x\narg tensor y\narg rows\narg stride x\n"
    "arg stride y\narg inner\narg nstride x\narg nstride y\nend\n",
};

static void load_one(const void *data, size_t size, const char *what) {
  sg_diag d;
  if (nkernels < MAX_KERNELS && sgrt_kernel_load_data(rt, data, size, &kernels[nkernels], &d) == SG_OK)
    nkernels++;
  else if (nkernels < MAX_KERNELS)
    fprintf(stderr, "fuzz_launch: %s not loaded: %s\n", what, d.message);
}

static void load_dir(const char *dir) {
  DIR *dp = opendir(dir);
  struct dirent *e;
  while (dp && (e = readdir(dp))) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".ptx") != 0)
      continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "rb");
    static char buf[1 << 22];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
      fclose(f);
    if (n)
      load_one(buf, n, path);
  }
  if (dp)
    closedir(dp);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  setenv("SOFTGEN_CUDA_LIBRARY", SOFTGEN_FAKE_CUDA, 0);
  setenv("FAKE_CUDA_NOEXEC", "1", 1);
  setenv("FAKE_CUDA_LOG", "/dev/null", 0);
  sg_diag d;
  if (sgrt_open(SGRT_BACKEND_CUDA, 0, &rt, &d)) {
    fprintf(stderr, "fuzz_launch: cannot open the fake CUDA driver: %s\n", d.message);
    exit(2);
  }
  const char *dir = getenv("SOFTGEN_FUZZ_LAUNCH_DIR");
  if (dir && *dir)
    load_dir(dir);
  if (nkernels == 0)
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
      load_one(builtin[i], strlen(builtin[i]), "a built-in metadata text");
  if (nkernels == 0) {
    fprintf(stderr, "fuzz_launch: no kernel loaded\n");
    exit(2);
  }
  fprintf(stderr, "fuzz_launch: %d kernels\n", nkernels);
  return 0;
}

typedef struct reader {
  const uint8_t *p;
  size_t n;
} reader;

static uint64_t take(reader *r, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes && r->n; i++, r->p++, r->n--)
    v |= (uint64_t)*r->p << (8 * i);
  return v;
}

/* A small signed value: -8..119 from one byte, mostly small and positive. */
static int64_t small(reader *r) { return (int64_t)take(r, 1) - 8; }

/* The brute-force overlap oracle for rows-layout views of at most 64 rows: whether
 * any row of a shares a byte with any row of b. -1 when too large to enumerate. */
static int rows_share(const sgrt_tensor *a, const sgrt_tensor *b) {
  if (a->rows > 64 || b->rows > 64)
    return -1;
  uint64_t wa = (uint64_t)a->cols * sg_dtype_size(a->dtype);
  uint64_t wb = (uint64_t)b->cols * sg_dtype_size(b->dtype);
  for (int64_t i = 0; i < a->rows; i++)
    for (int64_t j = 0; j < b->rows; j++) {
      uint64_t lo_a = (uint64_t)(uintptr_t)a->data +
                      (uint64_t)(i * a->row_stride) * sg_dtype_size(a->dtype);
      uint64_t lo_b = (uint64_t)(uintptr_t)b->data +
                      (uint64_t)(j * b->row_stride) * sg_dtype_size(b->dtype);
      if (lo_a + wa < lo_a || lo_b + wb < lo_b || lo_a < (uintptr_t)a->data ||
          lo_b < (uintptr_t)b->data)
        return -1; /* past the end of the address space */
      if (lo_a < lo_b + wb && lo_b < lo_a + wa)
        return 1;
    }
  return 0;
}

static int same_view(const sgrt_tensor *a, const sgrt_tensor *b) {
  return a->data == b->data && a->dtype == b->dtype && a->rows == b->rows &&
         (a->rows <= 1 || a->row_stride == b->row_stride);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  reader r = {data, size};
  sgrt_kernel *k = kernels[take(&r, 1) % (unsigned)nkernels];
  const sg_meta *m = sgrt_kernel_meta(k);
  unsigned cnt = (unsigned)take(&r, 1);
  int nt = cnt < 240 ? m->ntensors : (int)(cnt % MAX_T);
  int inner = m->layout == SG_LAYOUT_INNER;
  /* plausible shape: M rows, a per-tensor pad, 1 << 40-apart base addresses */
  int64_t M = (int64_t)(take(&r, 1) % 64) + 1, in = inner ? (int64_t)(take(&r, 1) % 9) + 1 : 0;
  if (inner)
    M *= in;
  sgrt_tensor t[MAX_T];
  memset(t, 0, sizeof t);
  for (int i = 0; i < nt; i++) {
    int mi = i < m->ntensors ? i : 0;
    sg_dtype dt = m->tensors[mi].dtype;
    unsigned mode = (unsigned)take(&r, 1) % 4;
    int64_t pad = (int64_t)(take(&r, 1) % 5) * 16;
    t[i] = (sgrt_tensor){(void *)(uintptr_t)((uint64_t)(i + 1) << 40), M, m->n, m->n + pad, dt,
                         in, 0};
    if (inner)
      t[i].row_stride = m->n * in + pad;
    for (int a = 0; a < m->nargs; a++) /* an input whose rows repeat: R dividing M */
      if (m->args[a].kind == SG_ARG_ROWS && m->args[a].tensor == i) {
        int64_t dv = (int64_t)(take(&r, 1) % 4) + 1;
        t[i].rows = M % dv == 0 ? M / dv : 1;
      }
    if (mode == 1) {
      t[i].data = (void *)(uintptr_t)take(&r, 8);
      t[i].rows = (int64_t)take(&r, 8);
      t[i].cols = (int64_t)take(&r, 8);
      t[i].row_stride = (int64_t)take(&r, 8);
      t[i].dtype = (sg_dtype)(int)take(&r, 4);
      t[i].inner = (int64_t)take(&r, 8);
      t[i].n_stride = (int64_t)take(&r, 8);
    } else if (mode == 2 && i > 0) { /* into an earlier tensor's memory */
      const sgrt_tensor *o = &t[take(&r, 1) % (unsigned)i];
      int64_t shift = small(&r) * 16 * (int64_t)(take(&r, 1) % 3);
      t[i].data = (void *)((uintptr_t)o->data + (uintptr_t)shift);
      t[i].row_stride = take(&r, 1) & 1 ? o->row_stride : t[i].row_stride;
    } else if (mode == 3) {
      unsigned field = (unsigned)take(&r, 1) % 7;
      uint64_t v = take(&r, 8);
      if (field == 0)
        t[i].data = (void *)(uintptr_t)v;
      else if (field == 1)
        t[i].rows = (int64_t)v;
      else if (field == 2)
        t[i].cols = (int64_t)v;
      else if (field == 3)
        t[i].row_stride = (int64_t)v;
      else if (field == 4)
        t[i].dtype = (sg_dtype)(int)v;
      else if (field == 5)
        t[i].inner = (int64_t)v;
      else
        t[i].n_stride = (int64_t)v;
    }
  }
  double scalars[SG_META_MAX_SCALARS + 2];
  unsigned sc = (unsigned)take(&r, 1);
  int ns = sc < 240 ? m->nscalars : (int)(sc % (SG_META_MAX_SCALARS + 2));
  for (int i = 0; i < ns; i++) {
    uint64_t raw = take(&r, 8);
    if (raw & 1) {
      memcpy(&scalars[i], &raw, sizeof raw); /* NaN, inf, huge, subnormal */
    } else {
      scalars[i] = (double)(int64_t)(raw >> 1) / (double)(1 + (raw >> 60));
    }
  }
  void *stream = (void *)(uintptr_t)take(&r, 8);
  sg_diag d;
  sg_status views = sgrt_kernel_check_views(k, t, nt, &d);
  sg_status st = sgrt_kernel_launch_ex(k, t, nt, ns ? scalars : NULL, ns, stream, &d);
  if (st == SG_OK && views != SG_OK) {
    fprintf(stderr, "fuzz_launch: launched what check_views refused\n");
    abort();
  }
  if (inner)
    return 0;
  if (st == SG_ERR_INVALID_ARGUMENT && strstr(d.message, ") overlaps ")) {
    /* refused for an overlap: rows-layout views of one pitch (or one row) are
     * judged exactly, so some pair must share a byte (or be judged by range) */
    int legit = 0;
    for (int i = 0; i < nt && !legit; i++)
      for (int j = 0; j < nt && !legit; j++) {
        if (i == j || !m->tensors[i].is_output || t[i].rows == 0 || t[j].rows == 0)
          continue;
        if (same_view(&t[i], &t[j]) && !m->tensors[j].is_output)
          continue;
        int64_t pi = t[i].row_stride * (int64_t)sg_dtype_size(t[i].dtype);
        int64_t pj = t[j].row_stride * (int64_t)sg_dtype_size(t[j].dtype);
        int exact = t[i].rows <= 1 || t[j].rows <= 1 || pi == pj;
        legit = rows_share(&t[i], &t[j]) != 0 || !exact;
      }
    if (!legit) {
      fprintf(stderr, "fuzz_launch: refused views that share no byte: %s\n", d.message);
      abort();
    }
    return 0;
  }
  if (st != SG_OK)
    return 0;
  /* the launch was accepted: no output may share a byte with another tensor
   * (but for being the same view as an input of a one-output kernel) */
  for (int i = 0; i < nt; i++)
    for (int j = 0; j < nt; j++) {
      if (i == j || !m->tensors[i].is_output || t[i].rows == 0 || t[j].rows == 0)
        continue;
      if (same_view(&t[i], &t[j]) && !m->tensors[j].is_output)
        continue;
      if (rows_share(&t[i], &t[j]) == 1) {
        fprintf(stderr, "fuzz_launch: launched with tensor %d overlapping tensor %d\n", i, j);
        abort();
      }
    }
  return 0;
}
