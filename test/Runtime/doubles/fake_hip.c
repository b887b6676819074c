/* fake_hip.c - a test double of libamdhip64 for the runtime's lit tests
 * (libfake_hip.so).
 *
 * Needs: lib/meta, fake_common.h. Produces: every HIP symbol that
 * lib/runtime/hip.c resolves, backed by host memory, fake devices
 * "softgen fake HIP device" whose gcnArchName is FAKE_HIP_ARCH (default
 * "gfx942:sramecc+:xnack-"), a log line per call (FAKE_HIP_LOG) and error
 * injection (FAKE_HIP_FAIL=fn:code); see fake_common.h. Calls that act on a
 * device fail with hipErrorInvalidDevice (101) unless device 0.. is current,
 * and the current device is logged when it changes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_common.h"

#define PFX "FAKE_HIP"

typedef int hipError_t;
typedef struct fake_module {
  sg_meta meta;
} fake_module;

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
  *mod = m;
  return 0;
}

FAKE_API hipError_t hipModuleGetFunction(void **fn, void *mod, const char *name) {
  INJECT(hipModuleGetFunction);
  fake_module *m = mod;
  fake_log(PFX, "hipModuleGetFunction name=%s", name);
  if (strcmp(m->meta.kernel, name) != 0)
    return 500;
  *fn = m;
  return 0;
}

FAKE_API hipError_t hipModuleUnload(void *mod) {
  fake_log(PFX, "hipModuleUnload");
  free(mod);
  return 0;
}

FAKE_API hipError_t hipModuleLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz,
                                          unsigned bx, unsigned by, unsigned bz, unsigned smem,
                                          void *stream, void **params, void **extra) {
  INJECT(hipModuleLaunchKernel);
  const sg_meta *m = &((fake_module *)fn)->meta;
  char line[2048];
  snprintf(line, sizeof line,
           "hipModuleLaunchKernel device=%d fn=%s grid=%u,%u,%u block=%u,%u,%u smem=%u "
           "stream=0x%llx extra=0x%llx",
           current_device, m->kernel, gx, gy, gz, bx, by, bz, smem,
           (unsigned long long)(uintptr_t)stream, (unsigned long long)(uintptr_t)extra);
  fake_run(PFX, m, params, line, sizeof line);
  return 0;
}

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
