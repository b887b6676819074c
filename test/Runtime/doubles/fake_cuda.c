/* fake_cuda.c - a test double of libcuda for the runtime's lit tests
 * (libfake_cuda.so; built with -DFAKE_NO_LAUNCH as libfake_cuda_nosym.so,
 * which lacks cuLaunchKernel).
 *
 * Needs: lib/meta, fake_common.h. Produces: every CUDA driver symbol that
 * lib/runtime/cuda.c resolves, backed by host memory (device pointers are host
 * pointers), one or more fake devices "softgen fake CUDA device" of arch
 * FAKE_CUDA_ARCH (default sm_90), a log line per call (FAKE_CUDA_LOG) and
 * error injection (FAKE_CUDA_FAIL=fn:code); see fake_common.h. Function handles
 * name the kernel they are (a module's kernel or its few-rows variant), and
 * launches log that name (fn=...); FAKE_CUDA_CLUSTERS=n makes
 * cuOccupancyMaxActiveClusters answer n (unset: it fails), FAKE_CUDA_CLUSTERS16=n
 * that for the non-portable clusters (over 8) alone. Calls that need
 * a context fail with CUDA_ERROR_INVALID_CONTEXT unless one is pushed, which
 * checks the runtime's push/pop discipline.
 *
 * Grid-split variants ("variant grid"): FAKE_CUDA_BLOCKS_PER_SM=n (default 2)
 * blocks of any kernel stay resident per multiprocessor (4 of them);
 * FAKE_CUDA_COOPERATIVE=0 makes the device lack cooperative launch. A PTX
 * text's ".global .align A .b8 softgen_workspace[BYTES]" becomes a zeroed
 * buffer of the module (cuModuleGetGlobal_v2; CUDA_ERROR_NOT_FOUND without
 * it). A launch of a grid-split variant must be cooperative (cuLaunchKernelEx
 * with attribute 2), of at most the resident blocks
 * (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE), and its last parameter a W-byte
 * slice of the workspace, 128-byte aligned and all zero (zero as loaded:
 * this driver's kernels never write it; a real kernel keeps its tagged
 * partials there): the launch logs it as ws=+OFFSET in the global, and fails with
 * CUDA_ERROR_INVALID_VALUE, logging why, otherwise. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_common.h"

#define PFX "FAKE_CUDA"

typedef int CUresult;
typedef struct fake_module fake_module;
/* A function handle: the module's kernel (meta.kernel) or one of its few-rows
 * variants (meta.variants[i].kernel); launches log the name of the one launched. */
typedef struct fake_function {
  fake_module *module;
  const char *name;
  const sg_meta_variant *variant; /* NULL: the kernel */
} fake_function;
struct fake_module {
  sg_meta meta;
  char *image; /* a copy, to resolve kernel names as the driver would */
  size_t size;
  fake_function fns[1 + SG_META_MAX_VARIANTS]; /* [0] the kernel, [1 + i] variant i */
  unsigned char *workspace; /* softgen_workspace, zeroed (NULL: the image has none) */
  size_t workspace_bytes;
};

static int ctx_depth;
static int initialized;
static int primary_refs;
static char primary_ctx; /* its address is the context handle */

#define INJECT(fn)                                                                           \
  do {                                                                                       \
    int e_ = fake_fail(PFX, #fn);                                                            \
    if (e_) {                                                                                \
      fake_log(PFX, #fn " -> injected error %d", e_);                                        \
      return e_;                                                                             \
    }                                                                                        \
  } while (0)

#define NEED_CTX(fn)                                                                         \
  do {                                                                                       \
    if (ctx_depth <= 0) {                                                                    \
      fake_log(PFX, #fn " -> no current context");                                           \
      return 201;                                                                            \
    }                                                                                        \
  } while (0)

static int device_count(void) {
  const char *s = fake_env(PFX, "DEVICES");
  return s ? atoi(s) : 1;
}

static void arch_cc(int *major, int *minor) {
  const char *a = fake_env(PFX, "ARCH");
  int v = a && strncmp(a, "sm_", 3) == 0 ? atoi(a + 3) : 90;
  *major = v / 10;
  *minor = v % 10;
}

/* Test hook, not a driver symbol: contexts currently pushed. */
FAKE_API int fake_cuda_ctx_depth(void) { return ctx_depth; }

FAKE_API CUresult cuInit(unsigned flags) {
  INJECT(cuInit);
  fake_log(PFX, "cuInit flags=%u", flags);
  initialized = 1;
  return 0;
}

FAKE_API CUresult cuDeviceGetCount(int *count) {
  INJECT(cuDeviceGetCount);
  *count = initialized ? device_count() : 0;
  return initialized ? 0 : 3;
}

FAKE_API CUresult cuDeviceGet(int *dev, int ordinal) {
  INJECT(cuDeviceGet);
  if (ordinal < 0 || ordinal >= device_count())
    return 101;
  *dev = ordinal;
  return 0;
}

FAKE_API CUresult cuDeviceGetName(char *name, int len, int dev) {
  INJECT(cuDeviceGetName);
  snprintf(name, (size_t)len, "softgen fake CUDA device %d", dev);
  return 0;
}

FAKE_API CUresult cuDeviceGetAttribute(int *value, int attrib, int dev) {
  int major, minor;
  (void)dev;
  INJECT(cuDeviceGetAttribute);
  arch_cc(&major, &minor);
  if (attrib == 75)
    *value = major;
  else if (attrib == 76)
    *value = minor;
  else if (attrib == 120)
    *value = major >= 9;
  else if (attrib == 16) /* multiprocessors */
    *value = 4;
  else if (attrib == 95) { /* cooperative launch */
    const char *c = fake_env(PFX, "COOPERATIVE");
    *value = !c || atoi(c) != 0;
  }
  else
    return 1;
  return 0;
}

/* Blocks of any size resident per multiprocessor: FAKE_CUDA_BLOCKS_PER_SM, or 2 (8 on
 * the device). */
static int blocks_per_sm(void) {
  const char *n = fake_env(PFX, "BLOCKS_PER_SM");
  return n ? atoi(n) : 2;
}

FAKE_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void *fn, int block,
                                                              size_t smem) {
  (void)smem;
  INJECT(cuOccupancyMaxActiveBlocksPerMultiprocessor);
  NEED_CTX(cuOccupancyMaxActiveBlocksPerMultiprocessor);
  fake_log(PFX, "cuOccupancyMaxActiveBlocksPerMultiprocessor block=%d fn=%s -> %d", block,
           ((fake_function *)fn)->name, blocks_per_sm());
  *blocks = blocks_per_sm();
  return 0;
}

/* CUlaunchConfig / CUlaunchAttribute, as lib/runtime/cuda.c declares them. */
typedef struct fake_attr {
  int id;
  char pad[4];
  unsigned value[16];
} fake_attr;
typedef struct fake_config {
  unsigned gx, gy, gz, bx, by, bz, smem;
  void *stream;
  fake_attr *attrs;
  unsigned nattrs;
} fake_config;

/* FAKE_CUDA_CLUSTERS=n clusters of any size stay resident at once (of over 8
 * blocks FAKE_CUDA_CLUSTERS16=n, where set); unset, the call fails (the
 * runtime then knows no count, as with a driver without it). */
FAKE_API CUresult cuOccupancyMaxActiveClusters(int *clusters, void *fn, const fake_config *c) {
  INJECT(cuOccupancyMaxActiveClusters);
  NEED_CTX(cuOccupancyMaxActiveClusters);
  const char *n = fake_env(PFX, "CLUSTERS");
  unsigned cluster = c->nattrs && c->attrs[0].id == 4 ? c->attrs[0].value[0] : 1;
  if (cluster > 8 && fake_env(PFX, "CLUSTERS16"))
    n = fake_env(PFX, "CLUSTERS16");
  fake_log(PFX, "cuOccupancyMaxActiveClusters fn=%s cluster=%u block=%u smem=%u -> %s",
           ((fake_function *)fn)->name, cluster, c->bx, c->smem, n ? n : "unsupported");
  if (!n)
    return 801; /* CUDA_ERROR_NOT_SUPPORTED */
  *clusters = atoi(n);
  return 0;
}

FAKE_API CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) {
  INJECT(cuDevicePrimaryCtxRetain);
  fake_log(PFX, "cuDevicePrimaryCtxRetain dev=%d", dev);
  primary_refs++;
  *ctx = &primary_ctx;
  return 0;
}

FAKE_API CUresult cuDevicePrimaryCtxRelease_v2(int dev) {
  fake_log(PFX, "cuDevicePrimaryCtxRelease_v2 dev=%d refs=%d", dev, primary_refs - 1);
  primary_refs--;
  return 0;
}

FAKE_API CUresult cuCtxPushCurrent_v2(void *ctx) {
  INJECT(cuCtxPushCurrent_v2);
  if (ctx != &primary_ctx)
    return 201;
  ctx_depth++;
  return 0;
}

FAKE_API CUresult cuCtxPopCurrent_v2(void **ctx) {
  if (ctx_depth <= 0)
    return 201;
  ctx_depth--;
  if (ctx)
    *ctx = &primary_ctx;
  return 0;
}

FAKE_API CUresult cuCtxSynchronize(void) {
  INJECT(cuCtxSynchronize);
  NEED_CTX(cuCtxSynchronize);
  fake_log(PFX, "cuCtxSynchronize");
  return 0;
}

FAKE_API CUresult cuModuleLoadData(void **mod, const void *image) {
  INJECT(cuModuleLoadData);
  NEED_CTX(cuModuleLoadData);
  const char *kind;
  size_t size = fake_image_size(image, &kind);
  fake_module *m = calloc(1, sizeof *m);
  sg_diag diag;
  if (!m)
    return 2;
  if (strcmp(kind, "text") == 0 && !fake_ptx_plausible(image, size)) {
    fake_log(PFX, "cuModuleLoadData kind=text bytes=%zu -> invalid PTX", size);
    free(m);
    return 218;
  }
  if (sg_meta_find(image, size, &m->meta, &diag) != SG_OK) {
    fake_log(PFX, "cuModuleLoadData kind=%s bytes=%zu -> invalid image: %s", kind, size,
             diag.message);
    free(m);
    return 200;
  }
  fake_log(PFX, "cuModuleLoadData kind=%s bytes=%zu kernel=%s", kind, size, m->meta.kernel);
  m->image = malloc(size ? size : 1);
  if (!m->image) {
    free(m);
    return 2;
  }
  memcpy(m->image, image, size);
  m->size = size;
  size_t ws = fake_workspace_size(m->image, m->size);
  if (ws) { /* the loader zero-initialises globals */
    m->workspace = aligned_alloc(256, (ws + 255) / 256 * 256);
    if (!m->workspace) {
      free(m->image);
      free(m);
      return 2;
    }
    memset(m->workspace, 0, ws);
    m->workspace_bytes = ws;
  }
  *mod = m;
  return 0;
}

FAKE_API CUresult cuModuleGetFunction(void **fn, void *mod, const char *name) {
  INJECT(cuModuleGetFunction);
  NEED_CTX(cuModuleGetFunction);
  fake_module *m = mod;
  fake_log(PFX, "cuModuleGetFunction name=%s", name);
  int few = 0; /* 1 + the variant's index, or 0 for the kernel */
  for (int i = 0; i < m->meta.nvariants && !few; i++)
    if (strcmp(m->meta.variants[i].kernel, name) == 0)
      few = 1 + i;
  if ((!few && strcmp(m->meta.kernel, name) != 0) || !fake_has_entry(m->image, m->size, name))
    return 500;
  m->fns[few] = (fake_function){m, few ? m->meta.variants[few - 1].kernel : m->meta.kernel,
                                 few ? &m->meta.variants[few - 1] : NULL};
  *fn = &m->fns[few];
  return 0;
}

FAKE_API CUresult cuModuleUnload(void *mod) {
  NEED_CTX(cuModuleUnload);
  fake_log(PFX, "cuModuleUnload");
  free(((fake_module *)mod)->image);
  free(((fake_module *)mod)->workspace);
  free(mod);
  return 0;
}

/* Capture status: FAKE_CUDA_CAPTURE unset, not capturing; a number, capturing
 * in the capture of that id (status ACTIVE); "refuse", an error (the driver
 * will not say: CUDA_ERROR_STREAM_CAPTURE_IMPLICIT). */
FAKE_API CUresult cuStreamGetCaptureInfo_v2(void *stream, int *status, uint64_t *id,
                                            void **graph, const void **deps, size_t *ndeps) {
  INJECT(cuStreamGetCaptureInfo_v2);
  NEED_CTX(cuStreamGetCaptureInfo_v2);
  (void)graph, (void)deps, (void)ndeps;
  const char *e = getenv("FAKE_CUDA_CAPTURE");
  if (e && strcmp(e, "refuse") == 0) {
    fake_log(PFX, "cuStreamGetCaptureInfo_v2 stream=%p -> refused", stream);
    return 906; /* CUDA_ERROR_STREAM_CAPTURE_IMPLICIT */
  }
  *status = e ? 1 : 0;
  *id = e ? strtoull(e, NULL, 10) : 0;
  if (e) /* logged only while capturing: the other logs stay as they were */
    fake_log(PFX, "cuStreamGetCaptureInfo_v2 stream=%p -> capturing, id %s", stream, e);
  return 0;
}

FAKE_API CUresult cuModuleGetGlobal_v2(unsigned long long *dptr, size_t *bytes, void *mod,
                                       const char *name) {
  INJECT(cuModuleGetGlobal_v2);
  NEED_CTX(cuModuleGetGlobal_v2);
  fake_module *m = mod;
  int found = strcmp(name, SG_META_WORKSPACE_SYMBOL) == 0 && m->workspace;
  fake_log(PFX, "cuModuleGetGlobal_v2 name=%s -> %s%zu", name, found ? "bytes=" : "not found ",
           found ? m->workspace_bytes : (size_t)0);
  if (!found)
    return 500; /* CUDA_ERROR_NOT_FOUND */
  if (dptr)
    *dptr = (unsigned long long)(uintptr_t)m->workspace;
  if (bytes)
    *bytes = m->workspace_bytes;
  return 0;
}

/* A grid-split variant's launch (fn->variant->split): cooperative, of at most
 * the resident blocks, its last parameter (params[nargs]) a zeroed W-byte
 * slice of the module's workspace, 128-byte aligned. Appends " ws=+OFFSET" to
 * line; returns 0, or the error (logged with line) when one does not hold. */
static CUresult check_grid_launch(const fake_function *fn, int cooperative, unsigned blocks,
                                  void **params, char *line, size_t cap) {
  const fake_module *m = fn->module;
  const sg_meta_variant *v = fn->variant;
  const char *why = NULL;
  CUresult err = 1; /* CUDA_ERROR_INVALID_VALUE */
  size_t at = strlen(line);
  uintptr_t ws = 0, base = (uintptr_t)m->workspace;
  if (!cooperative)
    why = "a grid-split variant launched without the cooperative attribute";
  else if (blocks > (unsigned)blocks_per_sm() * 4) {
    why = "more blocks than stay resident";
    err = 720; /* CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE */
  } else {
    memcpy(&ws, params[m->meta.nargs], sizeof ws);
    if (!base || ws < base || ws - base > m->workspace_bytes ||
        m->workspace_bytes - (ws - base) < v->workspace)
      why = "the workspace slice is not in softgen_workspace";
    else if (ws % 128)
      why = "the workspace slice is not 128-byte aligned";
    else
      for (uint64_t i = 0; i < v->workspace && !why; i++)
        if (((const unsigned char *)ws)[i])
          why = "the workspace slice is not zero";
  }
  if (!why) {
    snprintf(line + at, cap - at, " ws=+%llu", (unsigned long long)(ws - base));
    return 0;
  }
  fake_log(PFX, "%s -> %s", line, why);
  return err;
}

FAKE_API CUresult cuFuncSetAttribute(void *fn, int attrib, int value) {
  INJECT(cuFuncSetAttribute);
  NEED_CTX(cuFuncSetAttribute);
  fake_log(PFX, "cuFuncSetAttribute fn=%s attrib=%d value=%d", ((fake_function *)fn)->name,
           attrib, value);
  return 0;
}

#ifndef FAKE_NO_LAUNCH
FAKE_API CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                 unsigned by, unsigned bz, unsigned smem, void *stream,
                                 void **params, void **extra) {
  INJECT(cuLaunchKernel);
  NEED_CTX(cuLaunchKernel);
  const sg_meta *m = &((fake_function *)fn)->module->meta;
  char line[2048];
  snprintf(line, sizeof line,
           "cuLaunchKernel fn=%s grid=%u,%u,%u block=%u,%u,%u smem=%u stream=0x%llx "
           "extra=0x%llx",
           ((fake_function *)fn)->name, gx, gy, gz, bx, by, bz, smem, (unsigned long long)(uintptr_t)stream,
           (unsigned long long)(uintptr_t)extra);
  const fake_function *f = fn;
  CUresult err = f->variant && f->variant->split
                     ? check_grid_launch(f, 0, gx * gy * gz, params, line, sizeof line)
                     : 0;
  if (err)
    return err;
  fake_run(PFX, m, params, line, sizeof line);
  return 0;
}
#endif

FAKE_API CUresult cuLaunchKernelEx(const fake_config *c, void *fn, void **params, void **extra) {
  INJECT(cuLaunchKernelEx);
  NEED_CTX(cuLaunchKernelEx);
  const sg_meta *m = &((fake_function *)fn)->module->meta;
  char line[2048];
  int at = snprintf(line, sizeof line,
                    "cuLaunchKernelEx fn=%s grid=%u,%u,%u block=%u,%u,%u smem=%u "
                    "stream=0x%llx extra=0x%llx nattrs=%u",
                    ((fake_function *)fn)->name, c->gx, c->gy, c->gz, c->bx, c->by, c->bz, c->smem,
                    (unsigned long long)(uintptr_t)c->stream,
                    (unsigned long long)(uintptr_t)extra, c->nattrs);
  int cooperative = 0;
  for (unsigned i = 0; i < c->nattrs && at > 0 && (size_t)at < sizeof line; i++) {
    if (c->attrs[i].id == 2) { /* cooperative: an int */
      int on;
      memcpy(&on, c->attrs[i].value, sizeof on);
      cooperative |= on != 0;
      at += snprintf(line + at, sizeof line - (size_t)at, " attr%u=2:%d", i, on);
    } else
      at += snprintf(line + at, sizeof line - (size_t)at, " attr%u=%d:%u,%u,%u", i,
                     c->attrs[i].id, c->attrs[i].value[0], c->attrs[i].value[1],
                     c->attrs[i].value[2]);
  }
  for (unsigned i = 0; i < c->nattrs; i++)
    if (c->attrs[i].id == 4 && c->attrs[i].value[0] && c->gx % c->attrs[i].value[0]) {
      fake_log(PFX, "%s -> grid not a multiple of the cluster", line);
      return 1;
    }
  const fake_function *f = fn;
  CUresult err = f->variant && f->variant->split
                     ? check_grid_launch(f, cooperative, c->gx * c->gy * c->gz, params, line,
                                         sizeof line)
                     : 0;
  if (err)
    return err;
  fake_run(PFX, m, params, line, sizeof line);
  return 0;
}

FAKE_API CUresult cuMemAlloc_v2(unsigned long long *dptr, size_t bytes) {
  INJECT(cuMemAlloc_v2);
  NEED_CTX(cuMemAlloc_v2);
  void *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p)
    return 2;
  fake_log(PFX, "cuMemAlloc_v2 bytes=%zu", bytes);
  *dptr = (unsigned long long)(uintptr_t)p;
  return 0;
}

FAKE_API CUresult cuMemFree_v2(unsigned long long dptr) {
  NEED_CTX(cuMemFree_v2);
  fake_log(PFX, "cuMemFree_v2");
  free((void *)(uintptr_t)dptr);
  return 0;
}

FAKE_API CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t n) {
  INJECT(cuMemcpyHtoD_v2);
  NEED_CTX(cuMemcpyHtoD_v2);
  fake_log(PFX, "cuMemcpyHtoD_v2 bytes=%zu", n);
  memcpy((void *)(uintptr_t)dst, src, n);
  return 0;
}

FAKE_API CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t n) {
  INJECT(cuMemcpyDtoH_v2);
  NEED_CTX(cuMemcpyDtoH_v2);
  fake_log(PFX, "cuMemcpyDtoH_v2 bytes=%zu", n);
  memcpy(dst, (const void *)(uintptr_t)src, n);
  return 0;
}

FAKE_API CUresult cuMemcpyDtoDAsync_v2(unsigned long long dst, unsigned long long src, size_t n,
                                       void *stream) {
  INJECT(cuMemcpyDtoDAsync_v2);
  NEED_CTX(cuMemcpyDtoDAsync_v2);
  fake_log(PFX, "cuMemcpyDtoDAsync_v2 bytes=%zu stream=0x%llx", n,
           (unsigned long long)(uintptr_t)stream);
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  return 0;
}

FAKE_API CUresult cuMemsetD8_v2(unsigned long long dst, unsigned char v, size_t n) {
  INJECT(cuMemsetD8_v2);
  NEED_CTX(cuMemsetD8_v2);
  fake_log(PFX, "cuMemsetD8_v2 value=%u bytes=%zu", v, n);
  memset((void *)(uintptr_t)dst, v, n);
  return 0;
}

/* ---- streams, any-direction copies, managed memory (lib/mgpu) ---- */
static char stream_ids[64];
static int nstreams;

FAKE_API CUresult cuStreamCreate(void **s, unsigned flags) {
  INJECT(cuStreamCreate);
  NEED_CTX(cuStreamCreate);
  *s = &stream_ids[nstreams++ % 64];
  fake_log(PFX, "cuStreamCreate flags=%u", flags);
  return 0;
}

FAKE_API CUresult cuStreamSynchronize(void *s) {
  INJECT(cuStreamSynchronize);
  NEED_CTX(cuStreamSynchronize);
  (void)s;
  fake_log(PFX, "cuStreamSynchronize");
  return 0;
}

FAKE_API CUresult cuStreamDestroy_v2(void *s) {
  NEED_CTX(cuStreamDestroy_v2);
  (void)s;
  fake_log(PFX, "cuStreamDestroy_v2");
  return 0;
}

FAKE_API CUresult cuStreamWaitEvent(void *s, int *ev, unsigned flags) {
  NEED_CTX(cuStreamWaitEvent);
  (void)s, (void)ev, (void)flags;
  return 0;
}

FAKE_API CUresult cuMemcpyAsync(unsigned long long dst, unsigned long long src, size_t n,
                                void *stream) {
  INJECT(cuMemcpyAsync);
  NEED_CTX(cuMemcpyAsync);
  (void)stream;
  fake_log(PFX, "cuMemcpyAsync bytes=%zu", n);
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  return 0;
}

FAKE_API CUresult cuMemsetD32Async(unsigned long long dst, unsigned v, size_t n, void *stream) {
  NEED_CTX(cuMemsetD32Async);
  (void)stream;
  for (size_t i = 0; i < n; i++)
    memcpy((char *)(uintptr_t)dst + 4 * i, &v, 4);
  return 0;
}

FAKE_API CUresult cuMemsetD16Async(unsigned long long dst, unsigned short v, size_t n,
                                   void *stream) {
  NEED_CTX(cuMemsetD16Async);
  (void)stream;
  for (size_t i = 0; i < n; i++)
    memcpy((char *)(uintptr_t)dst + 2 * i, &v, 2);
  return 0;
}

FAKE_API CUresult cuMemAllocManaged(unsigned long long *dptr, size_t bytes, unsigned flags) {
  INJECT(cuMemAllocManaged);
  NEED_CTX(cuMemAllocManaged);
  void *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p)
    return 2;
  fake_log(PFX, "cuMemAllocManaged bytes=%zu flags=%u", bytes, flags);
  *dptr = (unsigned long long)(uintptr_t)p;
  return 0;
}

static int event_clock;

FAKE_API CUresult cuEventCreate(int **ev, unsigned flags) {
  INJECT(cuEventCreate);
  NEED_CTX(cuEventCreate);
  (void)flags;
  *ev = calloc(1, sizeof **ev);
  return *ev ? 0 : 2;
}

FAKE_API CUresult cuEventRecord(int *ev, void *stream) {
  INJECT(cuEventRecord);
  NEED_CTX(cuEventRecord);
  fake_log(PFX, "cuEventRecord stream=0x%llx", (unsigned long long)(uintptr_t)stream);
  *ev = ++event_clock;
  return 0;
}

FAKE_API CUresult cuEventSynchronize(int *ev) {
  (void)ev;
  NEED_CTX(cuEventSynchronize);
  return 0;
}

FAKE_API CUresult cuEventElapsedTime(float *ms, int *start, int *end) {
  INJECT(cuEventElapsedTime);
  NEED_CTX(cuEventElapsedTime);
  if (!*start || !*end)
    return 400;
  *ms = 0.25f * (float)(*end - *start);
  return 0;
}

FAKE_API CUresult cuEventDestroy_v2(int *ev) {
  NEED_CTX(cuEventDestroy_v2);
  free(ev);
  return 0;
}

FAKE_API CUresult cuGetErrorName(CUresult err, const char **name) {
  static const struct {
    int code;
    const char *name;
  } names[] = {{0, "CUDA_SUCCESS"},
               {1, "CUDA_ERROR_INVALID_VALUE"},
               {2, "CUDA_ERROR_OUT_OF_MEMORY"},
               {3, "CUDA_ERROR_NOT_INITIALIZED"},
               {100, "CUDA_ERROR_NO_DEVICE"},
               {101, "CUDA_ERROR_INVALID_DEVICE"},
               {200, "CUDA_ERROR_INVALID_IMAGE"},
               {201, "CUDA_ERROR_INVALID_CONTEXT"},
               {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
               {218, "CUDA_ERROR_INVALID_PTX"},
               {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
               {400, "CUDA_ERROR_INVALID_HANDLE"},
               {500, "CUDA_ERROR_NOT_FOUND"},
               {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
               {801, "CUDA_ERROR_NOT_SUPPORTED"},
               {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
               {719, "CUDA_ERROR_LAUNCH_FAILED"},
               {720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"},
               {999, "CUDA_ERROR_UNKNOWN"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].code == err) {
      *name = names[i].name;
      return 0;
    }
  *name = NULL;
  return 1;
}
