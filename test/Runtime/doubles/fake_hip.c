/* fake_hip.c - a test double of libamdhip64 for the runtime's lit tests
 * (libfake_hip.so).
 *
 * Needs: lib/meta, fake_common.h. Produces: every HIP symbol that
 * lib/runtime/hip.c resolves, backed by host memory, fake devices
 * "softgen fake HIP device" whose gcnArchName is FAKE_HIP_ARCH (default
 * "gfx942:sramecc+:xnack-"), a log line per call (FAKE_HIP_LOG) and error
 * injection (FAKE_HIP_FAIL=fn:code); see fake_common.h. Calls that act on a
 * device fail with hipErrorInvalidDevice (101) unless device 0.. is current,
 * and the current device is logged when it changes. Function handles name the
 * kernel they are (the module's kernel or a few-rows variant of its
 * metadata). An image's ".global ... .b8 softgen_workspace[BYTES]" line
 * becomes a zeroed buffer of the module (hipModuleGetGlobal; hipErrorNotFound
 * without it); a grid-split variant launches only through
 * hipModuleLaunchCooperativeKernel, its last parameter a zeroed slice of that
 * buffer (logged as ws=+OFFSET; a wrong one fails with hipErrorInvalidValue).
 * Built with -DFAKE_NO_COOPERATIVE (libfake_hip_nocoop.so) it lacks
 * hipModuleLaunchCooperativeKernel. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_common.h"

#define PFX "FAKE_HIP"

typedef int hipError_t;
typedef struct fake_module fake_module;
/* A function handle: the module's kernel or one of its few-rows variants. */
typedef struct fake_function {
  fake_module *module;
  const char *name;
  const sg_meta_variant *variant; /* NULL: the kernel */
} fake_function;
struct fake_module {
  sg_meta meta;
  fake_function fns[1 + SG_META_MAX_VARIANTS]; /* [0] the kernel, [1 + i] variant i */
  unsigned char *workspace; /* softgen_workspace, zeroed (NULL: the image has none) */
  size_t workspace_bytes;
};

static int current_device;
static int initialized;

#define INJECT(fn)                                                                           \
  do {                                                                                       \
    int e_ = fake_fail(PFX, #fn);                                                            \
    if (e_) {                                                                                \
      fake_log(PFX, #fn " -> injected error %d", e_);                                        \
      return e_;                                                                             \
    }                                                                                        \
  } while (0)

static int device_count(void) {
  const char *s = fake_env(PFX, "DEVICES");
  return s ? atoi(s) : 1;
}

FAKE_API hipError_t hipInit(unsigned flags) {
  INJECT(hipInit);
  fake_log(PFX, "hipInit flags=%u", flags);
  initialized = 1;
  return 0;
}

FAKE_API hipError_t hipGetDeviceCount(int *count) {
  INJECT(hipGetDeviceCount);
  *count = device_count();
  return 0;
}

FAKE_API hipError_t hipGetDevice(int *dev) {
  *dev = current_device;
  return 0;
}

FAKE_API hipError_t hipSetDevice(int dev) {
  INJECT(hipSetDevice);
  if (dev < 0 || dev >= device_count())
    return 101;
  fake_log(PFX, "hipSetDevice %d", dev);
  current_device = dev;
  return 0;
}

FAKE_API hipError_t hipDeviceGetName(char *name, int len, int dev) {
  INJECT(hipDeviceGetName);
  snprintf(name, (size_t)len, "softgen fake HIP device %d", dev);
  return 0;
}

/* A property struct whose gcnArchName sits where ROCm 6 puts it, roughly. */
FAKE_API hipError_t hipGetDevicePropertiesR0600(void *props, int dev) {
  INJECT(hipGetDevicePropertiesR0600);
  const char *arch = fake_env(PFX, "ARCH");
  memset(props, 0, 1472);
  snprintf(props, 256, "softgen fake HIP device %d", dev);
  snprintf((char *)props + 1160, 256, "%s", arch ? arch : "gfx942:sramecc+:xnack-");
  return 0;
}

FAKE_API hipError_t hipModuleLoadData(void **mod, const void *image) {
  INJECT(hipModuleLoadData);
  const char *kind;
  size_t size = fake_image_size(image, &kind);
  fake_module *m = calloc(1, sizeof *m);
  sg_diag diag;
  if (!m)
    return 2;
  if (sg_meta_find(image, size, &m->meta, &diag) != SG_OK) {
    fake_log(PFX, "hipModuleLoadData kind=%s bytes=%zu -> invalid image: %s", kind, size,
             diag.message);
    free(m);
    return 200;
  }
  fake_log(PFX, "hipModuleLoadData device=%d kind=%s bytes=%zu kernel=%s", current_device, kind,
           size, m->meta.kernel);
  size_t ws = fake_workspace_size(image, size);
  if (ws) { /* the loader zero-initialises globals */
    m->workspace = aligned_alloc(256, (ws + 255) / 256 * 256);
    if (!m->workspace) {
      free(m);
      return 2;
    }
    memset(m->workspace, 0, ws);
    m->workspace_bytes = ws;
  }
  *mod = m;
  return 0;
}

FAKE_API hipError_t hipModuleGetFunction(void **fn, void *mod, const char *name) {
  INJECT(hipModuleGetFunction);
  fake_module *m = mod;
  fake_log(PFX, "hipModuleGetFunction name=%s", name);
  int few = 0; /* 1 + the variant's index, or 0 for the kernel */
  for (int i = 0; i < m->meta.nvariants && !few; i++)
    if (strcmp(m->meta.variants[i].kernel, name) == 0)
      few = 1 + i;
  if (!few && strcmp(m->meta.kernel, name) != 0)
    return 500;
  m->fns[few] = (fake_function){m, few ? m->meta.variants[few - 1].kernel : m->meta.kernel,
                                 few ? &m->meta.variants[few - 1] : NULL};
  *fn = &m->fns[few];
  return 0;
}

FAKE_API hipError_t hipModuleUnload(void *mod) {
  fake_log(PFX, "hipModuleUnload");
  free(((fake_module *)mod)->workspace);
  free(mod);
  return 0;
}

FAKE_API hipError_t hipModuleGetGlobal(void **dptr, size_t *bytes, void *mod, const char *name) {
  INJECT(hipModuleGetGlobal);
  fake_module *m = mod;
  int found = strcmp(name, SG_META_WORKSPACE_SYMBOL) == 0 && m->workspace;
  fake_log(PFX, "hipModuleGetGlobal name=%s -> %s%zu", name, found ? "bytes=" : "not found ",
           found ? m->workspace_bytes : (size_t)0);
  if (!found)
    return 500; /* hipErrorNotFound */
  if (dptr)
    *dptr = m->workspace;
  if (bytes)
    *bytes = m->workspace_bytes;
  return 0;
}

/* Compute units (hipDeviceAttributeMultiprocessorCount, 63; other attributes
 * fail): FAKE_HIP_CUS, or 4. */
FAKE_API hipError_t hipDeviceGetAttribute(int *value, int attr, int dev) {
  INJECT(hipDeviceGetAttribute);
  if (dev < 0 || dev >= device_count())
    return 101;
  if (attr != 63) {
    fake_log(PFX, "hipDeviceGetAttribute attr=%d device=%d -> not faked", attr, dev);
    return 1; /* hipErrorInvalidValue */
  }
  const char *n = fake_env(PFX, "CUS");
  *value = n ? atoi(n) : 4;
  fake_log(PFX, "hipDeviceGetAttribute attr=63 device=%d -> %d", dev, *value);
  return 0;
}

/* Blocks of any size resident per compute unit: FAKE_HIP_BLOCKS_PER_CU, or 2 (8 on
 * the device, as the fake CUDA driver keeps). */
FAKE_API hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void *fn,
                                                                        int block, size_t smem) {
  (void)smem;
  INJECT(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor);
  const char *n = fake_env(PFX, "BLOCKS_PER_CU");
  *blocks = n ? atoi(n) : 2;
  fake_log(PFX, "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor block=%d fn=%s -> %d", block,
           ((fake_function *)fn)->name, *blocks);
  return 0;
}

/* Capture status: FAKE_HIP_CAPTURE unset, not capturing (nothing logged); a number,
 * capturing in the capture of that id (hipStreamCaptureStatusActive). */
FAKE_API hipError_t hipStreamGetCaptureInfo(void *stream, int *status, unsigned long long *id) {
  INJECT(hipStreamGetCaptureInfo);
  const char *e = fake_env(PFX, "CAPTURE");
  *status = e ? 1 : 0;
  *id = e ? strtoull(e, NULL, 10) : 0;
  if (e)
    fake_log(PFX, "hipStreamGetCaptureInfo stream=%p -> capturing, id %s", stream, e);
  return 0;
}

/* Logs a launch of fn and runs it; a grid-split variant only cooperatively,
 * its last parameter a zeroed slice of the module's workspace, 128-byte
 * aligned (logged as ws=+OFFSET). */
static hipError_t launch(const char *what, int cooperative, void *fn, unsigned gx, unsigned gy,
                         unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem,
                         void *stream, void **params, void **extra) {
  const fake_function *f = fn;
  const fake_module *mod = f->module;
  const sg_meta *m = &mod->meta;
  char line[2048];
  size_t at = (size_t)snprintf(line, sizeof line,
                               "%s device=%d fn=%s grid=%u,%u,%u block=%u,%u,%u smem=%u "
                               "stream=0x%llx extra=0x%llx",
                               what, current_device, f->name, gx, gy, gz, bx, by, bz, smem,
                               (unsigned long long)(uintptr_t)stream,
                               (unsigned long long)(uintptr_t)extra);
  if (f->variant && f->variant->split) {
    const char *why = NULL;
    uintptr_t ws = 0, base = (uintptr_t)mod->workspace;
    if (!cooperative)
      why = "a grid-split variant launched without cooperation";
    else {
      memcpy(&ws, params[m->nargs], sizeof ws);
      if (!base || ws < base || ws - base > mod->workspace_bytes ||
          mod->workspace_bytes - (ws - base) < f->variant->workspace)
        why = "the workspace slice is not in softgen_workspace";
      else if (ws % 128)
        why = "the workspace slice is not 128-byte aligned";
      for (uint64_t i = 0; !why && i < f->variant->workspace; i++)
        if (((const unsigned char *)ws)[i])
          why = "the workspace slice is not zero";
    }
    if (why) {
      fake_log(PFX, "%s -> %s", line, why);
      return 1; /* hipErrorInvalidValue */
    }
    snprintf(line + at, sizeof line - at, " ws=+%llu", (unsigned long long)(ws - base));
  }
  fake_run(PFX, m, params, line, sizeof line);
  return 0;
}

FAKE_API hipError_t hipModuleLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz,
                                          unsigned bx, unsigned by, unsigned bz, unsigned smem,
                                          void *stream, void **params, void **extra) {
  INJECT(hipModuleLaunchKernel);
  return launch("hipModuleLaunchKernel", 0, fn, gx, gy, gz, bx, by, bz, smem, stream, params,
                extra);
}

#ifndef FAKE_NO_COOPERATIVE
FAKE_API hipError_t hipModuleLaunchCooperativeKernel(void *fn, unsigned gx, unsigned gy,
                                                     unsigned gz, unsigned bx, unsigned by,
                                                     unsigned bz, unsigned smem, void *stream,
                                                     void **params) {
  INJECT(hipModuleLaunchCooperativeKernel);
  return launch("hipModuleLaunchCooperativeKernel", 1, fn, gx, gy, gz, bx, by, bz, smem, stream,
                params, NULL);
}
#endif

FAKE_API hipError_t hipMalloc(void **ptr, size_t bytes) {
  INJECT(hipMalloc);
  *ptr = aligned_alloc(256, (bytes + 255) / 256 * 256);
  fake_log(PFX, "hipMalloc bytes=%zu", bytes);
  return *ptr ? 0 : 2;
}

FAKE_API hipError_t hipFree(void *ptr) {
  fake_log(PFX, "hipFree");
  free(ptr);
  return 0;
}

FAKE_API hipError_t hipMemcpyHtoD(void *dst, const void *src, size_t n) {
  INJECT(hipMemcpyHtoD);
  fake_log(PFX, "hipMemcpyHtoD bytes=%zu", n);
  memcpy(dst, src, n);
  return 0;
}

FAKE_API hipError_t hipMemcpyDtoH(void *dst, void *src, size_t n) {
  INJECT(hipMemcpyDtoH);
  fake_log(PFX, "hipMemcpyDtoH bytes=%zu", n);
  memcpy(dst, src, n);
  return 0;
}

FAKE_API hipError_t hipMemcpyDtoDAsync(void *dst, void *src, size_t n, void *stream) {
  INJECT(hipMemcpyDtoDAsync);
  fake_log(PFX, "hipMemcpyDtoDAsync bytes=%zu stream=0x%llx", n,
           (unsigned long long)(uintptr_t)stream);
  memmove(dst, src, n);
  return 0;
}

/* ---- streams, any-direction copies, managed memory (lib/mgpu) ---- */
static char stream_ids[64];
static int nstreams;

FAKE_API hipError_t hipStreamCreateWithFlags(void **s, unsigned flags) {
  INJECT(hipStreamCreateWithFlags);
  *s = &stream_ids[nstreams++ % 64];
  fake_log(PFX, "hipStreamCreateWithFlags flags=%u", flags);
  return 0;
}

FAKE_API hipError_t hipStreamSynchronize(void *s) {
  (void)s;
  fake_log(PFX, "hipStreamSynchronize");
  return 0;
}

FAKE_API hipError_t hipStreamDestroy(void *s) {
  (void)s;
  fake_log(PFX, "hipStreamDestroy");
  return 0;
}

FAKE_API hipError_t hipStreamWaitEvent(void *s, int *ev, unsigned flags) {
  (void)s, (void)ev, (void)flags;
  return 0;
}

FAKE_API hipError_t hipMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *s) {
  INJECT(hipMemcpyAsync);
  (void)s;
  fake_log(PFX, "hipMemcpyAsync bytes=%zu kind=%d", n, kind);
  memmove(dst, src, n);
  return 0;
}

FAKE_API hipError_t hipMemsetD32Async(void *dst, int v, size_t n, void *s) {
  (void)s;
  for (size_t i = 0; i < n; i++)
    memcpy((char *)dst + 4 * i, &v, 4);
  return 0;
}

FAKE_API hipError_t hipMemsetD16Async(void *dst, unsigned short v, size_t n, void *s) {
  (void)s;
  for (size_t i = 0; i < n; i++)
    memcpy((char *)dst + 2 * i, &v, 2);
  return 0;
}

FAKE_API hipError_t hipMallocManaged(void **ptr, size_t bytes, unsigned flags) {
  INJECT(hipMallocManaged);
  *ptr = aligned_alloc(256, (bytes + 255) / 256 * 256);
  fake_log(PFX, "hipMallocManaged bytes=%zu flags=%u", bytes, flags);
  return *ptr ? 0 : 2;
}

FAKE_API hipError_t hipMemsetD8(void *dst, unsigned char v, size_t n) {
  INJECT(hipMemsetD8);
  fake_log(PFX, "hipMemsetD8 value=%u bytes=%zu", v, n);
  memset(dst, v, n);
  return 0;
}

FAKE_API hipError_t hipDeviceSynchronize(void) {
  INJECT(hipDeviceSynchronize);
  fake_log(PFX, "hipDeviceSynchronize device=%d", current_device);
  return 0;
}

static int event_clock;

FAKE_API hipError_t hipEventCreate(int **ev) {
  INJECT(hipEventCreate);
  *ev = calloc(1, sizeof **ev);
  return *ev ? 0 : 2;
}

FAKE_API hipError_t hipEventRecord(int *ev, void *stream) {
  INJECT(hipEventRecord);
  fake_log(PFX, "hipEventRecord stream=0x%llx", (unsigned long long)(uintptr_t)stream);
  *ev = ++event_clock;
  return 0;
}

FAKE_API hipError_t hipEventSynchronize(int *ev) {
  (void)ev;
  return 0;
}

FAKE_API hipError_t hipEventElapsedTime(float *ms, int *start, int *end) {
  INJECT(hipEventElapsedTime);
  if (!*start || !*end)
    return 400;
  *ms = 0.25f * (float)(*end - *start);
  return 0;
}

FAKE_API hipError_t hipEventDestroy(int *ev) {
  free(ev);
  return 0;
}

FAKE_API const char *hipGetErrorName(hipError_t err) {
  static const struct {
    int code;
    const char *name;
  } names[] = {{0, "hipSuccess"},
               {1, "hipErrorInvalidValue"},
               {2, "hipErrorOutOfMemory"},
               {3, "hipErrorNotInitialized"},
               {100, "hipErrorNoDevice"},
               {101, "hipErrorInvalidDevice"},
               {200, "hipErrorInvalidImage"},
               {201, "hipErrorInvalidContext"},
               {209, "hipErrorNoBinaryForGpu"},
               {218, "hipErrorInvalidKernelFile"},
               {400, "hipErrorInvalidHandle"},
               {500, "hipErrorNotFound"},
               {700, "hipErrorIllegalAddress"},
               {719, "hipErrorLaunchFailure"},
               {999, "hipErrorUnknown"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].code == err)
      return names[i].name;
  return "hipErrorUnknown";
}
