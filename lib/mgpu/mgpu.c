/* mgpu.c - libsoftgen_mgpu.so: the entry points (mgpu*) that MLIR's
 * gpu-to-llvm lowering calls, so that a module rewritten by softgen (or any
 * module of gpu.binary and gpu.launch_func) runs after
 *
 *   mlir-opt ... gpu-to-llvm ... | mlir-translate --mlir-to-llvmir | llc
 *   cc main.c model.o -lsoftgen_mgpu
 *
 * on a machine with only a GPU driver: no CUDA toolkit, no ROCm, no MLIR
 * execution engine. It runs on softgen's runtime drivers (lib/runtime:
 * libcuda or libamdhip64 through dlopen, the device's context pushed around
 * each call), opened on first use: CUDA, else HIP (SOFTGEN_MGPU_BACKEND=cuda
 * or hip: that one only); device 0 unless mgpuSetDefaultDevice said
 * otherwise first.
 *
 * Needs: runtime/driver_ops.h. Produces: the mgpu* symbols, with the
 * signatures the lowering declares (LLVM 22). The lowered code has no way to
 * see an error, so a failing driver call prints "softgen-mgpu: ..." with the
 * driver's message and aborts, rather than compute on. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/driver_ops.h"

#define MGPU_API __attribute__((visibility("default")))

static const rt_driver_ops *ops;
static rt_driver *drv;
static int device;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static _Noreturn void die(const char *what, const sg_diag *d) {
  fprintf(stderr, "softgen-mgpu: %s: %s\n", what, d ? d->message : "failed");
  abort();
}

static void open_driver(void) {
  static const rt_driver_ops *const backends[] = {&rt_cuda_ops, &rt_hip_ops};
  char name[256], arch[64], tried[2][sizeof ((sg_diag *)0)->message] = {"not tried", "not tried"};
  const char *only = getenv("SOFTGEN_MGPU_BACKEND"); /* cuda or hip: that one alone */
  if (only && strcmp(only, "cuda") != 0 && strcmp(only, "hip") != 0) {
    fprintf(stderr, "softgen-mgpu: SOFTGEN_MGPU_BACKEND=%s is not cuda or hip\n", only);
    abort();
  }
  for (int i = 0; i < 2; i++) {
    if (only && strcmp(only, backends[i]->name) != 0)
      continue;
    sg_diag d;
    if (backends[i]->open(device, &drv, name, sizeof name, arch, sizeof arch, &d) == SG_OK) {
      ops = backends[i];
      return;
    }
    snprintf(tried[i], sizeof tried[i], "%s", d.message);
  }
  fprintf(stderr, "softgen-mgpu: no GPU driver opened (CUDA: %s; HIP: %s)\n", tried[0], tried[1]);
  abort();
}

/* The driver, opened on first use. */
static rt_driver *D(void) {
  pthread_once(&once, open_driver);
  return drv;
}

/* Runs a driver operation that returns an sg_status; dies naming `what` on failure. */
#define MGPU_DO(what, call)                                                                  \
  do {                                                                                       \
    sg_diag d_;                                                                              \
    if ((call) != SG_OK)                                                                     \
      die(what, &d_);                                                                        \
  } while (0)
#define DIAG (&d_)

/* A driver entry point the back end may lack (NULL in its table). */
#define NEED(op)                                                                             \
  do {                                                                                       \
    if (!ops->op)                                                                            \
      die(#op, NULL);                                                                        \
  } while (0)

MGPU_API void mgpuSetDefaultDevice(int32_t dev) { device = dev; }

/* ---- modules and kernels ---- */

MGPU_API void *mgpuModuleLoad(void *data, size_t size) {
  rt_driver *d = D();
  const unsigned char *p = data;
  int elf = size >= 4 && memcmp(p, "\x7f" "ELF", 4) == 0;
  int fatbin = size >= 4 && p[0] == 0x50 && p[1] == 0xed && p[2] == 0x55 && p[3] == 0xba;
  void *module = NULL, *copy = NULL;
  if (!elf && !fatbin) { /* text (PTX): the driver reads up to a NUL */
    copy = malloc(size + 1);
    if (!copy)
      die("mgpuModuleLoad", NULL);
    memcpy(copy, data, size);
    ((char *)copy)[size] = '\0';
  }
  MGPU_DO("mgpuModuleLoad", ops->module_load(d, copy ? copy : data,
                                             elf ? RT_IMAGE_ELF : fatbin ? RT_IMAGE_FATBIN
                                                                         : RT_IMAGE_TEXT,
                                             NULL, &module, NULL, DIAG));
  free(copy);
  return module;
}

/* PTX text, NUL-terminated (gpu.binary's `assembly`): the driver compiles it. */
MGPU_API void *mgpuModuleLoadJIT(void *data, int32_t opt_level) {
  (void)opt_level;
  rt_driver *d = D();
  void *module = NULL;
  MGPU_DO("mgpuModuleLoadJIT", ops->module_load(d, data, RT_IMAGE_TEXT, NULL, &module, NULL, DIAG));
  return module;
}

MGPU_API void mgpuModuleUnload(void *module) { ops->module_unload(D(), module); }

MGPU_API void *mgpuModuleGetFunction(void *module, const char *name) {
  void *fn = NULL;
  MGPU_DO("mgpuModuleGetFunction", ops->module_function(D(), module, name, &fn, DIAG));
  return fn;
}

/* Dims of a launch: each positive and within 32 bits. */
static unsigned dim(intptr_t v, const char *what) {
  if (v < 1 || v > (intptr_t)UINT32_MAX) {
    fprintf(stderr, "softgen-mgpu: %s of %lld is not a launch dim\n", what, (long long)v);
    abort();
  }
  return (unsigned)v;
}

static void launch(void *fn, const intptr_t c[3], intptr_t gx, intptr_t gy, intptr_t gz,
                   intptr_t bx, intptr_t by, intptr_t bz, int32_t smem, void *stream,
                   void **params, const char *what) {
  rt_driver *d = D();
  rt_launch l = {.function = fn,
                 .grid = dim(gx, "grid x"), .grid_y = dim(gy, "grid y"), .grid_z = dim(gz, "grid z"),
                 .block = dim(bx, "block x"), .block_y = dim(by, "block y"),
                 .block_z = dim(bz, "block z"),
                 .cluster = dim(c[0], "cluster x"), .cluster_y = dim(c[1], "cluster y"),
                 .cluster_z = dim(c[2], "cluster z"),
                 .smem = smem > 0 ? (unsigned)smem : 0, .stream = stream, .params = params};
  unsigned cluster = l.cluster * l.cluster_y * l.cluster_z;
  if ((l.smem > 48 * 1024 || cluster > 8) && ops->allow_launch)
    MGPU_DO(what, ops->allow_launch(d, fn, l.smem > 48 * 1024 ? l.smem : 0, cluster, DIAG));
  MGPU_DO(what, ops->launch(d, &l, DIAG));
}

MGPU_API void mgpuLaunchKernel(void *fn, intptr_t gx, intptr_t gy, intptr_t gz, intptr_t bx,
                               intptr_t by, intptr_t bz, int32_t smem, void *stream,
                               void **params, void **extra, size_t nparams) {
  (void)extra, (void)nparams;
  static const intptr_t one[3] = {1, 1, 1};
  launch(fn, one, gx, gy, gz, bx, by, bz, smem, stream, params, "mgpuLaunchKernel");
}

MGPU_API void mgpuLaunchClusterKernel(void *fn, intptr_t cx, intptr_t cy, intptr_t cz,
                                      intptr_t gx, intptr_t gy, intptr_t gz, intptr_t bx,
                                      intptr_t by, intptr_t bz, int32_t smem, void *stream,
                                      void **params, void **extra) {
  (void)extra;
  const intptr_t c[3] = {cx, cy, cz};
  launch(fn, c, gx, gy, gz, bx, by, bz, smem, stream, params, "mgpuLaunchClusterKernel");
}

/* ---- streams and events ---- */

MGPU_API void *mgpuStreamCreate(void) {
  rt_driver *d = D();
  void *s = NULL;
  NEED(stream_create);
  MGPU_DO("mgpuStreamCreate", ops->stream_create(d, &s, DIAG));
  return s;
}

MGPU_API void mgpuStreamDestroy(void *stream) {
  rt_driver *d = D();
  NEED(stream_destroy);
  ops->stream_destroy(d, stream);
}

MGPU_API void mgpuStreamSynchronize(void *stream) {
  rt_driver *d = D();
  NEED(stream_sync);
  MGPU_DO("mgpuStreamSynchronize", ops->stream_sync(d, stream, DIAG));
}

MGPU_API void mgpuStreamWaitEvent(void *stream, void *event) {
  rt_driver *d = D();
  NEED(stream_wait_event);
  MGPU_DO("mgpuStreamWaitEvent", ops->stream_wait_event(d, stream, event, DIAG));
}

MGPU_API void *mgpuEventCreate(void) {
  void *ev = NULL;
  MGPU_DO("mgpuEventCreate", ops->event_create(D(), &ev, DIAG));
  return ev;
}

MGPU_API void mgpuEventDestroy(void *event) { ops->event_destroy(D(), event); }

MGPU_API void mgpuEventSynchronize(void *event) {
  rt_driver *d = D();
  NEED(event_sync);
  MGPU_DO("mgpuEventSynchronize", ops->event_sync(d, event, DIAG));
}

MGPU_API void mgpuEventRecord(void *event, void *stream) {
  MGPU_DO("mgpuEventRecord", ops->event_record(D(), event, stream, DIAG));
}

/* ---- memory ---- */

/* is_host_shared: memory the host addresses too (gpu.alloc host_shared). */
MGPU_API void *mgpuMemAlloc(uint64_t bytes, void *stream, bool is_host_shared) {
  (void)stream;
  rt_driver *d = D();
  void *p = NULL;
  if (bytes == 0)
    return NULL;
  if (is_host_shared) {
    NEED(mem_alloc_managed);
    MGPU_DO("mgpuMemAlloc (host shared)", ops->mem_alloc_managed(d, bytes, &p, DIAG));
  } else {
    MGPU_DO("mgpuMemAlloc", ops->mem_alloc(d, bytes, &p, DIAG));
  }
  return p;
}

/* The driver's free waits for the device first: work on stream is done. */
MGPU_API void mgpuMemFree(void *ptr, void *stream) {
  (void)stream;
  if (ptr)
    ops->mem_free(D(), ptr);
}

MGPU_API void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream) {
  rt_driver *d = D();
  NEED(memcpy_async);
  if (bytes)
    MGPU_DO("mgpuMemcpy", ops->memcpy_async(d, dst, src, bytes, stream, DIAG));
}

MGPU_API void mgpuMemset32(void *dst, uint32_t value, size_t count, void *stream) {
  rt_driver *d = D();
  NEED(memset_async);
  if (count)
    MGPU_DO("mgpuMemset32", ops->memset_async(d, dst, value, 4, count, stream, DIAG));
}

MGPU_API void mgpuMemset16(void *dst, uint16_t value, size_t count, void *stream) {
  rt_driver *d = D();
  NEED(memset_async);
  if (count)
    MGPU_DO("mgpuMemset16", ops->memset_async(d, dst, value, 2, count, stream, DIAG));
}
