/* hip.c - the HIP (ROCm) driver back end of libsoftgen_rt (driver.h: rt_hip_ops).
 *
 * Needs: libamdhip64.so at run time (or the library named by SOFTGEN_HIP_LIBRARY),
 * opened with dlopen; no HIP headers: the types used are declared here with the
 * HIP module API's ABI. Produces: rt_hip_ops.
 *
 * Every entry point is listed once in HIP_SYMBOLS (required) or HIP_OPTIONAL;
 * the lists expand into struct hip_api, held by the back end's object. HIP has
 * no context stack: each operation saves the thread's current device, sets
 * ours, and restores it, so it composes with PyTorch/CuPy in one process.
 *
 * Arch: hipDeviceProp_t's layout changes between ROCm releases, so the device's
 * gcnArchName ("gfx942:sramecc+:xnack-") is found by scanning the property
 * struct (filled into an oversized zeroed buffer) for the only char array
 * after the 256-byte name that begins with "gfx". If none is found the arch is
 * "" and runtime.c skips the arch pre-check (the driver still rejects a wrong
 * code object at hipModuleLoadData). HIP has no cluster launch; cooperative
 * launches (the grid-split variants') go through hipModuleLaunchCooperativeKernel,
 * optional: without it those variants are dropped at load. Resident blocks come
 * from hipModuleOccupancyMaxActiveBlocksPerMultiprocessor times the device's
 * compute units (hipDeviceGetAttribute, hipDeviceAttributeMultiprocessorCount:
 * 63 in hip_runtime_api.h from ROCm 5.0 to 6.2 and since); a capture's id from
 * hipStreamGetCaptureInfo. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dlfcn.h>

#include "runtime/driver_ops.h"

typedef int hipError_t; /* hipSuccess == 0 */
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef void *hipDeviceptr_t;

#define HIP_SYMBOLS(X)                                                                       \
  X(hipError_t, hipInit, (unsigned flags))                                                   \
  X(hipError_t, hipGetDeviceCount, (int *count))                                             \
  X(hipError_t, hipGetDevice, (int *dev))                                                    \
  X(hipError_t, hipSetDevice, (int dev))                                                     \
  X(hipError_t, hipDeviceGetName, (char *name, int len, int dev))                            \
  X(hipError_t, hipModuleLoadData, (hipModule_t * mod, const void *image))                   \
  X(hipError_t, hipModuleGetFunction, (hipFunction_t * fn, hipModule_t mod, const char *name)) \
  X(hipError_t, hipModuleUnload, (hipModule_t mod))                                          \
  X(hipError_t, hipModuleLaunchKernel,                                                       \
    (hipFunction_t fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,      \
     unsigned bz, unsigned smem, hipStream_t stream, void **params, void **extra))           \
  X(hipError_t, hipMalloc, (void **ptr, size_t bytes))                                       \
  X(hipError_t, hipFree, (void *ptr))                                                        \
  X(hipError_t, hipMemcpyHtoD, (hipDeviceptr_t dst, const void *src, size_t bytes))          \
  X(hipError_t, hipMemcpyDtoH, (void *dst, hipDeviceptr_t src, size_t bytes))                \
  X(hipError_t, hipMemcpyDtoDAsync,                                                          \
    (hipDeviceptr_t dst, hipDeviceptr_t src, size_t bytes, hipStream_t s))                   \
  X(hipError_t, hipMemsetD8, (hipDeviceptr_t dst, unsigned char v, size_t n))                \
  X(hipError_t, hipDeviceSynchronize, (void))                                                \
  X(hipError_t, hipEventCreate, (hipEvent_t * ev))                                           \
  X(hipError_t, hipEventRecord, (hipEvent_t ev, hipStream_t s))                              \
  X(hipError_t, hipEventSynchronize, (hipEvent_t ev))                                        \
  X(hipError_t, hipEventElapsedTime, (float *ms, hipEvent_t start, hipEvent_t end))          \
  X(hipError_t, hipEventDestroy, (hipEvent_t ev))                                            \
  X(const char *, hipGetErrorName, (hipError_t err))

#define HIP_OPTIONAL(X)                                                                      \
  X(hipError_t, hipGetDevicePropertiesR0600, (void *props, int dev))                         \
  X(hipError_t, hipGetDeviceProperties, (void *props, int dev))                              \
  X(hipError_t, hipStreamCreateWithFlags, (hipStream_t * s, unsigned flags))                 \
  X(hipError_t, hipStreamSynchronize, (hipStream_t s))                                       \
  X(hipError_t, hipStreamDestroy, (hipStream_t s))                                           \
  X(hipError_t, hipStreamWaitEvent, (hipStream_t s, hipEvent_t ev, unsigned flags))          \
  X(hipError_t, hipMemcpyAsync, (void *dst, const void *src, size_t bytes, int kind,         \
                                 hipStream_t s))                                             \
  X(hipError_t, hipMemsetD32Async, (hipDeviceptr_t dst, int v, size_t n, hipStream_t s))     \
  X(hipError_t, hipMemsetD16Async, (hipDeviceptr_t dst, unsigned short v, size_t n,          \
                                    hipStream_t s))                                          \
  X(hipError_t, hipMallocManaged, (void **ptr, size_t bytes, unsigned flags))                \
  X(hipError_t, hipModuleGetGlobal,                                                          \
    (hipDeviceptr_t * dptr, size_t * bytes, hipModule_t mod, const char *name))              \
  X(hipError_t, hipModuleLaunchCooperativeKernel,                                            \
    (hipFunction_t fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,      \
     unsigned bz, unsigned smem, hipStream_t stream, void **params))                         \
  X(hipError_t, hipDeviceGetAttribute, (int *value, int attr, int dev))                      \
  X(hipError_t, hipModuleOccupancyMaxActiveBlocksPerMultiprocessor,                          \
    (int *blocks, hipFunction_t fn, int block, size_t smem))                                 \
  X(hipError_t, hipStreamGetCaptureInfo,                                                     \
    (hipStream_t s, int *status, unsigned long long *id))

typedef struct hip_api {
#define HIP_FIELD(ret, name, params) ret(*name) params;
  HIP_SYMBOLS(HIP_FIELD)
  HIP_OPTIONAL(HIP_FIELD)
#undef HIP_FIELD
} hip_api;

struct rt_driver {
  void *lib;
  char libname[512];
  hip_api api;
  int dev;
};

/* Fills diag with "FN failed: hipErrorName (code)" and returns SG_ERR_DRIVER. */
static sg_status fail(rt_driver *d, const char *fn, hipError_t r, sg_diag *diag) {
  const char *name = d->api.hipGetErrorName ? d->api.hipGetErrorName(r) : NULL;
  return sg_diag_set(diag, SG_ERR_DRIVER, "%s failed: %s (%d)", fn, name ? name : "hipErrorUnknown",
                     r);
}

#define HIP_CALL(d, fn, args)                                                                \
  do {                                                                                       \
    hipError_t r_ = (d)->api.fn args;                                                        \
    if (r_ != 0)                                                                             \
      return fail((d), #fn, r_, diag);                                                       \
  } while (0)

/* Makes our device current; *old receives the caller's, for leave(). */
static sg_status enter(rt_driver *d, int *old, sg_diag *diag) {
  *old = -1;
  HIP_CALL(d, hipGetDevice, (old));
  if (*old != d->dev)
    HIP_CALL(d, hipSetDevice, (d->dev));
  return SG_OK;
}

static void leave(rt_driver *d, int old) {
  if (old >= 0 && old != d->dev)
    d->api.hipSetDevice(old);
}

#define HIP_ON_DEVICE(d, fn, args)                                                           \
  do {                                                                                       \
    int old_;                                                                                \
    sg_status s_ = enter((d), &old_, diag);                                                  \
    if (s_)                                                                                  \
      return s_;                                                                             \
    hipError_t r_ = (d)->api.fn args;                                                        \
    leave((d), old_);                                                                        \
    if (r_ != 0)                                                                             \
      return fail((d), #fn, r_, diag);                                                       \
    return SG_OK;                                                                            \
  } while (0)

static sg_status load_api(rt_driver *d, sg_diag *diag) {
  static const char *const names[] = {"libamdhip64.so", "libamdhip64.so.7", "libamdhip64.so.6",
                                      NULL};
  d->lib = rt_dlopen("SOFTGEN_HIP_LIBRARY", names, d->libname, sizeof d->libname, diag);
  if (!d->lib)
    return SG_ERR_NO_DRIVER;
  void *p;
#define HIP_LOAD(ret, name, params)                                                          \
  if (!(p = rt_dlsym(d->lib, d->libname, #name, diag)))                                      \
    return SG_ERR_NO_DRIVER;                                                                 \
  memcpy(&d->api.name, &p, sizeof p);
  HIP_SYMBOLS(HIP_LOAD)
#undef HIP_LOAD
#define HIP_LOAD_OPT(ret, name, params)                                                      \
  if ((p = dlsym(d->lib, #name)) != NULL)                                                    \
    memcpy(&d->api.name, &p, sizeof p);
  HIP_OPTIONAL(HIP_LOAD_OPT)
#undef HIP_LOAD_OPT
  return SG_OK;
}

static void hip_close(rt_driver *d) {
  if (!d)
    return;
  if (d->lib)
    dlclose(d->lib);
  free(d);
}

/* Finds gcnArchName in the device properties (see the file comment). */
static void find_arch(rt_driver *d, char *arch, size_t cap) {
  enum { PROPS_BYTES = 16384, NAME_BYTES = 256 };
  hipError_t (*get)(void *, int) = d->api.hipGetDevicePropertiesR0600;
  if (!get)
    get = d->api.hipGetDeviceProperties;
  arch[0] = '\0';
  unsigned char *props = get ? calloc(1, PROPS_BYTES) : NULL;
  if (!props)
    return;
  if (get(props, d->dev) == 0)
    for (size_t i = NAME_BYTES; i + 4 < PROPS_BYTES; i++)
      if (props[i - 1] == 0 && memcmp(props + i, "gfx", 3) == 0) {
        const unsigned char *nul = memchr(props + i, 0, PROPS_BYTES - i);
        size_t n = nul ? (size_t)(nul - (props + i)) : cap;
        if (n < cap) {
          memcpy(arch, props + i, n + 1);
          break;
        }
      }
  free(props);
}

static sg_status open_device(rt_driver *d, int device, char *name, size_t name_cap, char *arch,
                             size_t arch_cap, sg_diag *diag) {
  int count = 0;
  HIP_CALL(d, hipInit, (0));
  HIP_CALL(d, hipGetDeviceCount, (&count));
  if (device >= count)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "HIP device %d does not exist (%d found)",
                       device, count);
  d->dev = device;
  char buf[256] = "";
  HIP_CALL(d, hipDeviceGetName, (buf, (int)sizeof buf - 1, device));
  snprintf(name, name_cap, "%s", buf);
  find_arch(d, arch, arch_cap);
  return SG_OK;
}

static sg_status hip_open(int device, rt_driver **out, char *name, size_t name_cap, char *arch,
                          size_t arch_cap, sg_diag *diag) {
  rt_driver *d = calloc(1, sizeof *d);
  if (!d)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of host memory");
  sg_status st = load_api(d, diag);
  if (!st)
    st = open_device(d, device, name, name_cap, arch, arch_cap, diag);
  if (st) {
    hip_close(d);
    return st;
  }
  *out = d;
  return SG_OK;
}

static int hip_supports_cluster(rt_driver *d) {
  (void)d;
  return 0;
}

static sg_status hip_module_load(rt_driver *d, const void *image, rt_image_kind kind,
                                 const char *kernel, void **module, void **function,
                                 sg_diag *diag) {
  (void)kind;
  hipModule_t mod = NULL;
  hipFunction_t fn = NULL;
  int old;
  sg_status st = enter(d, &old, diag);
  if (st)
    return st;
  hipError_t r = d->api.hipModuleLoadData(&mod, image);
  if (r != 0) {
    leave(d, old);
    return fail(d, "hipModuleLoadData", r, diag);
  }
  r = kernel ? d->api.hipModuleGetFunction(&fn, mod, kernel) : 0;
  if (r != 0) {
    d->api.hipModuleUnload(mod);
    leave(d, old);
    return rt_name_kernel(fail(d, "hipModuleGetFunction", r, diag), kernel, diag);
  }
  leave(d, old);
  *module = mod;
  if (kernel)
    *function = fn;
  return SG_OK;
}

static sg_status hip_module_function(rt_driver *d, void *module, const char *kernel,
                                     void **function, sg_diag *diag) {
  hipFunction_t fn = NULL;
  int old;
  sg_status st = enter(d, &old, diag);
  if (st)
    return st;
  hipError_t r = d->api.hipModuleGetFunction(&fn, module, kernel);
  leave(d, old);
  if (r != 0) {
    return rt_name_kernel(fail(d, "hipModuleGetFunction", r, diag), kernel, diag);
  }
  *function = fn;
  return SG_OK;
}

static void hip_module_unload(rt_driver *d, void *module) {
  sg_diag ignored;
  int old;
  if (enter(d, &old, &ignored) == SG_OK) {
    d->api.hipModuleUnload(module);
    leave(d, old);
  }
}

/* An optional entry point on the device, or SG_ERR_UNSUPPORTED. */
#define HIP_OPT_ON_DEVICE(d, fn, args)                                                       \
  do {                                                                                       \
    if (!(d)->api.fn)                                                                        \
      return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "%s lacks " #fn, (d)->libname);           \
    HIP_ON_DEVICE(d, fn, args);                                                              \
  } while (0)

static int hip_supports_cooperative(rt_driver *d) {
  return d->api.hipModuleLaunchCooperativeKernel != NULL;
}

static sg_status hip_module_global(rt_driver *d, void *module, const char *name, void **dptr,
                                   size_t *bytes, sg_diag *diag) {
  hipDeviceptr_t p = NULL;
  size_t n = 0;
  if (!d->api.hipModuleGetGlobal)
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "%s lacks hipModuleGetGlobal", d->libname);
  int old;
  sg_status st = enter(d, &old, diag);
  if (st)
    return st;
  hipError_t r = d->api.hipModuleGetGlobal(&p, &n, module, name);
  leave(d, old);
  if (r != 0)
    return fail(d, "hipModuleGetGlobal", r, diag);
  *dptr = p;
  *bytes = n;
  return SG_OK;
}

/* hipDeviceAttribute_t's hipDeviceAttributeMultiprocessorCount (see the file comment). */
#define HIP_ATTR_MULTIPROCESSOR_COUNT 63

/* Blocks of function the device keeps resident at once: occupancy a compute unit
 * times compute units; 0 when unknown (an entry point missing or failing) and for
 * clusters, which HIP has not. */
static unsigned hip_resident_blocks(rt_driver *d, void *function, unsigned block, unsigned smem,
                                    unsigned cluster) {
  int per_cu = 0, cus = 0, old;
  sg_diag ignored;
  if (cluster > 1 || !d->api.hipModuleOccupancyMaxActiveBlocksPerMultiprocessor ||
      !d->api.hipDeviceGetAttribute || enter(d, &old, &ignored) != SG_OK)
    return 0;
  if (d->api.hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, function, (int)block,
                                                                smem) != 0 ||
      d->api.hipDeviceGetAttribute(&cus, HIP_ATTR_MULTIPROCESSOR_COUNT, d->dev) != 0)
    per_cu = cus = 0;
  leave(d, old);
  return per_cu > 0 && cus > 0 ? (unsigned)per_cu * (unsigned)cus : 0;
}

/* hipStreamCaptureStatus: None 0, Active 1, Invalidated 2 (still a capture, as CUDA's). */
static int hip_capture_id(rt_driver *d, void *stream, uint64_t *id) {
  int status = 0, old;
  unsigned long long cid = 0;
  sg_diag ignored;
  *id = 0;
  if (!d->api.hipStreamGetCaptureInfo || enter(d, &old, &ignored) != SG_OK)
    return -1;
  hipError_t r = d->api.hipStreamGetCaptureInfo(stream, &status, &cid);
  leave(d, old);
  *id = cid;
  return r != 0 ? -1 : status != 0;
}

static sg_status hip_launch(rt_driver *d, const rt_launch *l, sg_diag *diag) {
  if (l->cluster > 1)
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "HIP cannot launch clusters of %u blocks",
                       l->cluster);
  if (rt_dim(l->cluster_y) * rt_dim(l->cluster_z) > 1)
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "HIP cannot launch clusters of %u x %u x %u "
                       "blocks", rt_dim(l->cluster), rt_dim(l->cluster_y), rt_dim(l->cluster_z));
  if (l->cooperative)
    HIP_OPT_ON_DEVICE(d, hipModuleLaunchCooperativeKernel,
                      (l->function, l->grid, rt_dim(l->grid_y), rt_dim(l->grid_z), l->block,
                       rt_dim(l->block_y), rt_dim(l->block_z), l->smem, l->stream, l->params));
  HIP_ON_DEVICE(d, hipModuleLaunchKernel,
                (l->function, l->grid, rt_dim(l->grid_y), rt_dim(l->grid_z), l->block,
                 rt_dim(l->block_y), rt_dim(l->block_z), l->smem, l->stream, l->params, NULL));
}

static sg_status hip_mem_alloc(rt_driver *d, size_t bytes, void **dptr, sg_diag *diag) {
  HIP_ON_DEVICE(d, hipMalloc, (dptr, bytes));
}

static void hip_mem_free(rt_driver *d, void *dptr) {
  sg_diag ignored;
  int old;
  if (enter(d, &old, &ignored) == SG_OK) {
    d->api.hipFree(dptr);
    leave(d, old);
  }
}

static sg_status hip_htod(rt_driver *d, void *dst, const void *src, size_t n, sg_diag *diag) {
  HIP_ON_DEVICE(d, hipMemcpyHtoD, (dst, src, n));
}

static sg_status hip_dtoh(rt_driver *d, void *dst, const void *src, size_t n, sg_diag *diag) {
  HIP_ON_DEVICE(d, hipMemcpyDtoH, (dst, (void *)(uintptr_t)src, n));
}

static sg_status hip_dtod(rt_driver *d, void *dst, const void *src, size_t n, void *stream,
                          sg_diag *diag) {
  HIP_ON_DEVICE(d, hipMemcpyDtoDAsync, (dst, (void *)(uintptr_t)src, n, stream));
}

static sg_status hip_memset(rt_driver *d, void *dst, unsigned char v, size_t n, sg_diag *diag) {
  HIP_ON_DEVICE(d, hipMemsetD8, (dst, v, n));
}

static sg_status hip_sync(rt_driver *d, sg_diag *diag) {
  HIP_ON_DEVICE(d, hipDeviceSynchronize, ());
}

static sg_status hip_event_create(rt_driver *d, void **ev, sg_diag *diag) {
  HIP_ON_DEVICE(d, hipEventCreate, ((hipEvent_t *)ev));
}

static sg_status hip_event_record(rt_driver *d, void *ev, void *stream, sg_diag *diag) {
  HIP_ON_DEVICE(d, hipEventRecord, (ev, stream));
}

static sg_status hip_event_elapsed(rt_driver *d, void *start, void *end, float *ms,
                                   sg_diag *diag) {
  HIP_CALL(d, hipEventSynchronize, (end));
  HIP_CALL(d, hipEventElapsedTime, (ms, start, end));
  return SG_OK;
}

static void hip_event_destroy(rt_driver *d, void *ev) { d->api.hipEventDestroy(ev); }

static sg_status hip_stream_create(rt_driver *d, void **s, sg_diag *diag) {
  HIP_OPT_ON_DEVICE(d, hipStreamCreateWithFlags, ((hipStream_t *)s, 1)); /* hipStreamNonBlocking */
}

static sg_status hip_stream_sync(rt_driver *d, void *s, sg_diag *diag) {
  HIP_OPT_ON_DEVICE(d, hipStreamSynchronize, (s));
}

static void hip_stream_destroy(rt_driver *d, void *s) {
  if (d->api.hipStreamDestroy)
    d->api.hipStreamDestroy(s);
}

static sg_status hip_stream_wait_event(rt_driver *d, void *s, void *ev, sg_diag *diag) {
  HIP_OPT_ON_DEVICE(d, hipStreamWaitEvent, (s, ev, 0));
}

static sg_status hip_event_sync(rt_driver *d, void *ev, sg_diag *diag) {
  HIP_ON_DEVICE(d, hipEventSynchronize, (ev));
}

static sg_status hip_memcpy_async(rt_driver *d, void *dst, const void *src, size_t n, void *s,
                                  sg_diag *diag) {
  HIP_OPT_ON_DEVICE(d, hipMemcpyAsync, (dst, src, n, 4 /* hipMemcpyDefault */, s));
}

static sg_status hip_memset_async(rt_driver *d, void *dst, unsigned v, unsigned elem, size_t n,
                                  void *s, sg_diag *diag) {
  if (elem == 2)
    HIP_OPT_ON_DEVICE(d, hipMemsetD16Async, (dst, (unsigned short)v, n, s));
  HIP_OPT_ON_DEVICE(d, hipMemsetD32Async, (dst, (int)v, n, s));
}

static sg_status hip_mem_alloc_managed(rt_driver *d, size_t bytes, void **ptr, sg_diag *diag) {
  HIP_OPT_ON_DEVICE(d, hipMallocManaged, (ptr, bytes, 1 /* hipMemAttachGlobal */));
}

const rt_driver_ops rt_hip_ops = {
    .name = "hip",
    .target = "amdgpu",
    .open = hip_open,
    .close = hip_close,
    .supports_cluster = hip_supports_cluster,
    .module_load = hip_module_load,
    .module_function = hip_module_function,
    .module_unload = hip_module_unload,
    .module_global = hip_module_global,
    .supports_cooperative = hip_supports_cooperative,
    .capture_id = hip_capture_id,
    .launch = hip_launch,
    .resident_blocks = hip_resident_blocks,
    .mem_alloc = hip_mem_alloc,
    .mem_free = hip_mem_free,
    .htod = hip_htod,
    .dtoh = hip_dtoh,
    .dtod = hip_dtod,
    .memset_d8 = hip_memset,
    .synchronize = hip_sync,
    .event_create = hip_event_create,
    .event_record = hip_event_record,
    .event_elapsed = hip_event_elapsed,
    .event_destroy = hip_event_destroy,
    .stream_create = hip_stream_create,
    .stream_sync = hip_stream_sync,
    .stream_destroy = hip_stream_destroy,
    .stream_wait_event = hip_stream_wait_event,
    .event_sync = hip_event_sync,
    .memcpy_async = hip_memcpy_async,
    .memset_async = hip_memset_async,
    .mem_alloc_managed = hip_mem_alloc_managed,
};
