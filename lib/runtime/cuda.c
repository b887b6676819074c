/* cuda.c - the CUDA driver back end of libsoftgen_rt (driver.h: rt_cuda_ops).
 *
 * Needs: libcuda.so.1 at run time (or the library named by SOFTGEN_CUDA_LIBRARY),
 * opened with dlopen; no CUDA headers: the few driver types and constants used
 * are declared here with the driver API's ABI. Produces: rt_cuda_ops.
 *
 * Every driver entry point used is listed once in CU_SYMBOLS (required) or
 * CU_OPTIONAL (may be absent: cuLaunchKernelEx, CUDA 12+, only needed for the
 * few-rows variants' cluster and cooperative launches; cuModuleGetGlobal_v2
 * for the grid-split variants' workspace); the lists expand into struct
 * cu_api, held by the back end's object. Every operation runs with the
 * device's primary context pushed and pops it afterwards, so it composes with
 * PyTorch/CuPy in one process; a launch whose thread holds that context
 * already (cuCtxGetCurrent, as in a PyTorch process) skips the push and pop
 * (about 1 us a launch). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dlfcn.h>

#include "runtime/driver_ops.h"

typedef int CUresult; /* CUDA_SUCCESS == 0 */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;

enum {
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH = 120,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95,
  CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2,
  CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
};

/* CUlaunchAttribute / CUlaunchConfig (cuda.h, CUDA 12): 8-byte id slot, 64-byte value. */
typedef struct cu_launch_attribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    struct {
      unsigned x, y, z;
    } cluster_dim;
    int cooperative; /* CU_LAUNCH_ATTRIBUTE_COOPERATIVE: nonzero */
  } value;
} cu_launch_attribute;

typedef struct cu_launch_config {
  unsigned grid_x, grid_y, grid_z;
  unsigned block_x, block_y, block_z;
  unsigned shared_bytes;
  CUstream stream;
  cu_launch_attribute *attrs;
  unsigned nattrs;
} cu_launch_config;

#define CU_SYMBOLS(X)                                                                        \
  X(cuInit, (unsigned flags))                                                                \
  X(cuDeviceGetCount, (int *count))                                                          \
  X(cuDeviceGet, (CUdevice * dev, int ordinal))                                              \
  X(cuDeviceGetName, (char *name, int len, CUdevice dev))                                    \
  X(cuDeviceGetAttribute, (int *value, int attrib, CUdevice dev))                            \
  X(cuDevicePrimaryCtxRetain, (CUcontext * ctx, CUdevice dev))                               \
  X(cuDevicePrimaryCtxRelease_v2, (CUdevice dev))                                            \
  X(cuCtxPushCurrent_v2, (CUcontext ctx))                                                    \
  X(cuCtxPopCurrent_v2, (CUcontext * ctx))                                                   \
  X(cuCtxSynchronize, (void))                                                                \
  X(cuModuleLoadData, (CUmodule * mod, const void *image))                                   \
  X(cuModuleGetFunction, (CUfunction * fn, CUmodule mod, const char *name))                  \
  X(cuModuleUnload, (CUmodule mod))                                                          \
  X(cuLaunchKernel, (CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,      \
                     unsigned by, unsigned bz, unsigned smem, CUstream stream, void **params, \
                     void **extra))                                                          \
  X(cuMemAlloc_v2, (CUdeviceptr * dptr, size_t bytes))                                       \
  X(cuMemFree_v2, (CUdeviceptr dptr))                                                        \
  X(cuMemcpyHtoD_v2, (CUdeviceptr dst, const void *src, size_t bytes))                       \
  X(cuMemcpyDtoH_v2, (void *dst, CUdeviceptr src, size_t bytes))                             \
  X(cuMemcpyDtoDAsync_v2, (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s))      \
  X(cuMemsetD8_v2, (CUdeviceptr dst, unsigned char v, size_t n))                             \
  X(cuEventCreate, (CUevent * ev, unsigned flags))                                           \
  X(cuEventRecord, (CUevent ev, CUstream s))                                                 \
  X(cuEventSynchronize, (CUevent ev))                                                        \
  X(cuEventElapsedTime, (float *ms, CUevent start, CUevent end))                             \
  X(cuEventDestroy_v2, (CUevent ev))                                                         \
  X(cuGetErrorName, (CUresult err, const char **name))

#define CU_OPTIONAL(X)                                                                       \
  X(cuLaunchKernelEx, (const cu_launch_config *cfg, CUfunction fn, void **params, void **extra)) \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor,                                             \
    (int *blocks, CUfunction fn, int block, size_t dynamic_smem))                             \
  X(cuOccupancyMaxActiveClusters, (int *clusters, CUfunction fn, const cu_launch_config *cfg)) \
  X(cuFuncSetAttribute, (CUfunction fn, int attrib, int value))                              \
  X(cuCtxGetCurrent, (CUcontext * ctx))                                                      \
  X(cuStreamCreate, (CUstream * s, unsigned flags))                                          \
  X(cuStreamSynchronize, (CUstream s))                                                       \
  X(cuStreamDestroy_v2, (CUstream s))                                                        \
  X(cuStreamWaitEvent, (CUstream s, CUevent ev, unsigned flags))                             \
  X(cuMemcpyAsync, (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s))             \
  X(cuMemsetD32Async, (CUdeviceptr dst, unsigned v, size_t n, CUstream s))                   \
  X(cuMemsetD16Async, (CUdeviceptr dst, unsigned short v, size_t n, CUstream s))             \
  X(cuMemAllocManaged, (CUdeviceptr * dptr, size_t bytes, unsigned flags))                   \
  X(cuModuleGetGlobal_v2, (CUdeviceptr * dptr, size_t * bytes, CUmodule mod, const char *name)) \
  X(cuStreamGetCaptureInfo_v2, (CUstream s, int *status, uint64_t *id, void **graph,            \
                                const void **deps, size_t *ndeps))

typedef struct cu_api {
#define CU_FIELD(name, params) CUresult(*name) params;
  CU_SYMBOLS(CU_FIELD)
  CU_OPTIONAL(CU_FIELD)
#undef CU_FIELD
} cu_api;

struct rt_driver {
  void *lib;
  char libname[512];
  cu_api api;
  CUdevice dev;
  CUcontext ctx;
  int cluster_launch;
  int cooperative_launch; /* cuLaunchKernelEx and CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH */
};

/* Fills diag with "FN failed: CUDA_ERROR_NAME (code)" and returns SG_ERR_DRIVER. */
static sg_status fail(rt_driver *d, const char *fn, CUresult r, sg_diag *diag) {
  const char *name = NULL;
  if (!d->api.cuGetErrorName || d->api.cuGetErrorName(r, &name) != 0 || !name)
    name = "CUDA_ERROR_UNKNOWN";
  return sg_diag_set(diag, SG_ERR_DRIVER, "%s failed: %s (%d)", fn, name, r);
}

#define CU_CALL(d, fn, args)                                                                 \
  do {                                                                                       \
    CUresult r_ = (d)->api.fn args;                                                          \
    if (r_ != 0)                                                                             \
      return fail((d), #fn, r_, diag);                                                       \
  } while (0)

static sg_status push(rt_driver *d, sg_diag *diag) {
  CU_CALL(d, cuCtxPushCurrent_v2, (d->ctx));
  return SG_OK;
}

static void pop(rt_driver *d) {
  CUcontext ignored;
  d->api.cuCtxPopCurrent_v2(&ignored);
}

/* 1 if the device's context is already the calling thread's (as in a PyTorch
 * process, whose thread holds the primary context): no push and pop needed. */
static int is_current(rt_driver *d) {
  CUcontext cur = NULL;
  return d->api.cuCtxGetCurrent && d->api.cuCtxGetCurrent(&cur) == 0 && cur == d->ctx;
}

/* Runs one driver call in the device's context (pushed and popped around it
 * unless it is current already); returns its sg_status. */
#define CU_IN_CTX(d, fn, args)                                                               \
  do {                                                                                       \
    int pushed_ = !is_current(d);                                                            \
    sg_status s_ = pushed_ ? push((d), diag) : SG_OK;                                        \
    if (s_)                                                                                  \
      return s_;                                                                             \
    CUresult r_ = (d)->api.fn args;                                                          \
    if (pushed_)                                                                             \
      pop(d);                                                                                \
    if (r_ != 0)                                                                             \
      return fail((d), #fn, r_, diag);                                                       \
    return SG_OK;                                                                            \
  } while (0)

static sg_status load_api(rt_driver *d, sg_diag *diag) {
  static const char *const names[] = {"libcuda.so.1", "libcuda.so", NULL};
  d->lib = rt_dlopen("SOFTGEN_CUDA_LIBRARY", names, d->libname, sizeof d->libname, diag);
  if (!d->lib)
    return SG_ERR_NO_DRIVER;
  void *p;
#define CU_LOAD(name, params)                                                                \
  if (!(p = rt_dlsym(d->lib, d->libname, #name, diag)))                                      \
    return SG_ERR_NO_DRIVER;                                                                 \
  memcpy(&d->api.name, &p, sizeof p);
  CU_SYMBOLS(CU_LOAD)
#undef CU_LOAD
#define CU_LOAD_OPT(name, params)                                                            \
  if ((p = dlsym(d->lib, #name)) != NULL)                                                    \
    memcpy(&d->api.name, &p, sizeof p);
  CU_OPTIONAL(CU_LOAD_OPT)
#undef CU_LOAD_OPT
  return SG_OK;
}

static void cu_close(rt_driver *d) {
  if (!d)
    return;
  if (d->ctx)
    d->api.cuDevicePrimaryCtxRelease_v2(d->dev);
  if (d->lib)
    dlclose(d->lib);
  free(d);
}

static sg_status open_device(rt_driver *d, int device, char *name, size_t name_cap, char *arch,
                             size_t arch_cap, sg_diag *diag) {
  int count = 0, major = 0, minor = 0, cl = 0;
  CU_CALL(d, cuInit, (0));
  CU_CALL(d, cuDeviceGetCount, (&count));
  if (device >= count)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "CUDA device %d does not exist (%d found)",
                       device, count);
  CU_CALL(d, cuDeviceGet, (&d->dev, device));
  char buf[256] = "";
  CU_CALL(d, cuDeviceGetName, (buf, (int)sizeof buf - 1, d->dev));
  snprintf(name, name_cap, "%s", buf);
  CU_CALL(d, cuDeviceGetAttribute, (&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->dev));
  CU_CALL(d, cuDeviceGetAttribute, (&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->dev));
  snprintf(arch, arch_cap, "sm_%d", major * 10 + minor);
  if (d->api.cuDeviceGetAttribute(&cl, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, d->dev) == 0)
    d->cluster_launch = cl != 0 && d->api.cuLaunchKernelEx != NULL;
  int coop = 0;
  if (d->api.cuDeviceGetAttribute(&coop, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, d->dev) == 0)
    d->cooperative_launch = coop != 0 && d->api.cuLaunchKernelEx != NULL;
  CU_CALL(d, cuDevicePrimaryCtxRetain, (&d->ctx, d->dev));
  return SG_OK;
}

static sg_status cu_open(int device, rt_driver **out, char *name, size_t name_cap, char *arch,
                         size_t arch_cap, sg_diag *diag) {
  rt_driver *d = calloc(1, sizeof *d);
  if (!d)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of host memory");
  sg_status st = load_api(d, diag);
  if (!st)
    st = open_device(d, device, name, name_cap, arch, arch_cap, diag);
  if (st) {
    cu_close(d);
    return st;
  }
  *out = d;
  return SG_OK;
}

static int cu_supports_cluster(rt_driver *d) { return d->cluster_launch; }
static int cu_supports_cooperative(rt_driver *d) { return d->cooperative_launch; }

/* CUstreamCaptureStatus: NONE 0, ACTIVE 1, INVALIDATED 2 (a capture that failed: still
 * one, the launch into it fails on its own). */
static int cu_capture_id(rt_driver *d, void *stream, uint64_t *id) {
  int status = 0;
  *id = 0;
  if (!d->api.cuStreamGetCaptureInfo_v2)
    return -1;
  int pushed = !is_current(d);
  if (pushed && d->api.cuCtxPushCurrent_v2(d->ctx) != 0)
    return -1;
  CUresult r = d->api.cuStreamGetCaptureInfo_v2(stream, &status, id, NULL, NULL, NULL);
  if (pushed)
    pop(d);
  return r != 0 ? -1 : status != 0;
}

static sg_status cu_module_function(rt_driver *d, void *module, const char *kernel,
                                    void **function, sg_diag *diag) {
  CUfunction fn = NULL;
  sg_status st = push(d, diag);
  if (st)
    return st;
  CUresult r = d->api.cuModuleGetFunction(&fn, module, kernel);
  pop(d);
  if (r != 0) {
    return rt_name_kernel(fail(d, "cuModuleGetFunction", r, diag), kernel, diag);
  }
  *function = fn;
  return SG_OK;
}

static void cu_module_unload(rt_driver *d, void *module) {
  sg_diag ignored;
  if (push(d, &ignored) == SG_OK) {
    d->api.cuModuleUnload(module);
    pop(d);
  }
}

static sg_status cu_module_load(rt_driver *d, const void *image, rt_image_kind kind,
                                const char *kernel, void **module, void **function,
                                sg_diag *diag) {
  (void)kind; /* cuModuleLoadData tells cubin, fatbin and PTX apart itself */
  CUmodule mod = NULL;
  sg_status st = push(d, diag);
  if (st)
    return st;
  CUresult r = d->api.cuModuleLoadData(&mod, image);
  if (r != 0) {
    pop(d);
    return fail(d, "cuModuleLoadData", r, diag);
  }
  pop(d);
  if (kernel && (st = cu_module_function(d, mod, kernel, function, diag))) {
    cu_module_unload(d, mod);
    return st;
  }
  *module = mod;
  return SG_OK;
}

/* A plain launch through cuLaunchKernel; clusters and cooperative launches
 * through cuLaunchKernelEx, one launch attribute each. */
static sg_status cu_launch(rt_driver *d, const rt_launch *l, sg_diag *diag) {
  unsigned gy = rt_dim(l->grid_y), gz = rt_dim(l->grid_z), by = rt_dim(l->block_y),
           bz = rt_dim(l->block_z);
  int cluster = rt_dim(l->cluster) * rt_dim(l->cluster_y) * rt_dim(l->cluster_z) > 1;
  if (!cluster && !l->cooperative)
    CU_IN_CTX(d, cuLaunchKernel,
              (l->function, l->grid, gy, gz, l->block, by, bz, l->smem, l->stream, l->params, NULL));
  if (!d->api.cuLaunchKernelEx)
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED,
                       "%s launch needs cuLaunchKernelEx, which %s lacks",
                       cluster ? "cluster" : "cooperative", d->libname);
  cu_launch_attribute attrs[2];
  unsigned n = 0;
  memset(attrs, 0, sizeof attrs);
  if (cluster) {
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[n].value.cluster_dim.x = rt_dim(l->cluster);
    attrs[n].value.cluster_dim.y = rt_dim(l->cluster_y);
    attrs[n++].value.cluster_dim.z = rt_dim(l->cluster_z);
  }
  if (l->cooperative) {
    attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attrs[n++].value.cooperative = 1;
  }
  cu_launch_config cfg = {l->grid, gy, gz, l->block, by, bz, l->smem, l->stream, attrs, n};
  CU_IN_CTX(d, cuLaunchKernelEx, (&cfg, l->function, l->params, NULL));
}

static sg_status cu_module_global(rt_driver *d, void *module, const char *name, void **dptr,
                                  size_t *bytes, sg_diag *diag) {
  CUdeviceptr p = 0;
  size_t n = 0;
  if (!d->api.cuModuleGetGlobal_v2)
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "%s lacks cuModuleGetGlobal_v2", d->libname);
  sg_status st = push(d, diag);
  if (st)
    return st;
  CUresult r = d->api.cuModuleGetGlobal_v2(&p, &n, module, name);
  pop(d);
  if (r != 0)
    return fail(d, "cuModuleGetGlobal_v2", r, diag);
  *dptr = (void *)(uintptr_t)p;
  *bytes = n;
  return SG_OK;
}

/* CUfunction_attribute: MAX_DYNAMIC_SHARED_SIZE_BYTES, NON_PORTABLE_CLUSTER_SIZE_ALLOWED */
#define CU_FUNC_MAX_DYNAMIC_SMEM 8
#define CU_FUNC_NON_PORTABLE_CLUSTER 14
static sg_status cu_allow_launch(rt_driver *d, void *function, unsigned smem, unsigned cluster,
                                 sg_diag *diag) {
  if (!d->api.cuFuncSetAttribute)
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "the kernel needs %u bytes of dynamic shared "
                       "memory and clusters of %u, which need cuFuncSetAttribute, which %s lacks",
                       smem, cluster, d->libname);
  sg_status st = push(d, diag);
  if (st)
    return st;
  CUresult r = 0;
  const char *what = "cuFuncSetAttribute";
  if (smem > 0)
    r = d->api.cuFuncSetAttribute(function, CU_FUNC_MAX_DYNAMIC_SMEM, (int)smem);
  if (r == 0 && cluster > 8)
    r = d->api.cuFuncSetAttribute(function, CU_FUNC_NON_PORTABLE_CLUSTER, 1);
  pop(d);
  return r ? fail(d, what, r, diag) : SG_OK;
}

/* Clusters: as many as fit at once (a cluster's blocks share one GPC, so
 * blocks a multiprocessor x multiprocessors can count blocks no cluster can use). */
static unsigned cu_resident_blocks(rt_driver *d, void *function, unsigned block, unsigned smem,
                                   unsigned cluster) {
  int per_sm = 0, sms = 0;
  sg_diag ignored;
  if (cluster > 1) {
    if (!d->api.cuOccupancyMaxActiveClusters || push(d, &ignored) != SG_OK)
      return 0;
    cu_launch_attribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.cluster_dim.x = cluster;
    attr.value.cluster_dim.y = attr.value.cluster_dim.z = 1;
    cu_launch_config cfg = {cluster, 1, 1, block, 1, 1, smem, NULL, &attr, 1};
    int clusters = 0;
    if (d->api.cuOccupancyMaxActiveClusters(&clusters, function, &cfg) != 0)
      clusters = 0;
    pop(d);
    return clusters > 0 ? (unsigned)clusters * cluster : 0;
  }
  if (!d->api.cuOccupancyMaxActiveBlocksPerMultiprocessor || push(d, &ignored) != SG_OK)
    return 0;
  if (d->api.cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, function, (int)block, smem) != 0 ||
      d->api.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d->dev) != 0)
    per_sm = sms = 0;
  pop(d);
  return per_sm > 0 && sms > 0 ? (unsigned)per_sm * (unsigned)sms : 0;
}

static CUdeviceptr dp(const void *p) { return (CUdeviceptr)(uintptr_t)p; }

static sg_status cu_mem_alloc(rt_driver *d, size_t bytes, void **dptr, sg_diag *diag) {
  CUdeviceptr p = 0;
  sg_status st = push(d, diag);
  if (st)
    return st;
  CUresult r = d->api.cuMemAlloc_v2(&p, bytes);
  pop(d);
  if (r != 0)
    return fail(d, "cuMemAlloc_v2", r, diag);
  *dptr = (void *)(uintptr_t)p;
  return SG_OK;
}

static void cu_mem_free(rt_driver *d, void *dptr) {
  sg_diag ignored;
  if (push(d, &ignored) == SG_OK) {
    d->api.cuMemFree_v2(dp(dptr));
    pop(d);
  }
}

static sg_status cu_htod(rt_driver *d, void *dst, const void *src, size_t n, sg_diag *diag) {
  CU_IN_CTX(d, cuMemcpyHtoD_v2, (dp(dst), src, n));
}

static sg_status cu_dtoh(rt_driver *d, void *dst, const void *src, size_t n, sg_diag *diag) {
  CU_IN_CTX(d, cuMemcpyDtoH_v2, (dst, dp(src), n));
}

static sg_status cu_dtod(rt_driver *d, void *dst, const void *src, size_t n, void *stream,
                         sg_diag *diag) {
  CU_IN_CTX(d, cuMemcpyDtoDAsync_v2, (dp(dst), dp(src), n, stream));
}

static sg_status cu_memset(rt_driver *d, void *dst, unsigned char v, size_t n, sg_diag *diag) {
  CU_IN_CTX(d, cuMemsetD8_v2, (dp(dst), v, n));
}

static sg_status cu_sync(rt_driver *d, sg_diag *diag) { CU_IN_CTX(d, cuCtxSynchronize, ()); }

static sg_status cu_event_create(rt_driver *d, void **ev, sg_diag *diag) {
  CU_IN_CTX(d, cuEventCreate, ((CUevent *)ev, 0));
}

static sg_status cu_event_record(rt_driver *d, void *ev, void *stream, sg_diag *diag) {
  CU_IN_CTX(d, cuEventRecord, (ev, stream));
}

static sg_status cu_event_elapsed(rt_driver *d, void *start, void *end, float *ms,
                                  sg_diag *diag) {
  sg_status st = push(d, diag);
  if (st)
    return st;
  CUresult r = d->api.cuEventSynchronize(end);
  if (r != 0) {
    pop(d);
    return fail(d, "cuEventSynchronize", r, diag);
  }
  r = d->api.cuEventElapsedTime(ms, start, end);
  pop(d);
  if (r != 0)
    return fail(d, "cuEventElapsedTime", r, diag);
  return SG_OK;
}

static void cu_event_destroy(rt_driver *d, void *ev) {
  sg_diag ignored;
  if (push(d, &ignored) == SG_OK) {
    d->api.cuEventDestroy_v2(ev);
    pop(d);
  }
}

/* An optional entry point in the device's context, or SG_ERR_UNSUPPORTED. */
#define CU_OPT_IN_CTX(d, fn, args)                                                           \
  do {                                                                                       \
    if (!(d)->api.fn)                                                                        \
      return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "%s lacks " #fn, (d)->libname);           \
    CU_IN_CTX(d, fn, args);                                                                  \
  } while (0)

static sg_status cu_stream_create(rt_driver *d, void **s, sg_diag *diag) {
  CU_OPT_IN_CTX(d, cuStreamCreate, ((CUstream *)s, 1)); /* CU_STREAM_NON_BLOCKING */
}

static sg_status cu_stream_sync(rt_driver *d, void *s, sg_diag *diag) {
  CU_OPT_IN_CTX(d, cuStreamSynchronize, (s));
}

static void cu_stream_destroy(rt_driver *d, void *s) {
  sg_diag ignored;
  if (d->api.cuStreamDestroy_v2 && push(d, &ignored) == SG_OK) {
    d->api.cuStreamDestroy_v2(s);
    pop(d);
  }
}

static sg_status cu_stream_wait_event(rt_driver *d, void *s, void *ev, sg_diag *diag) {
  CU_OPT_IN_CTX(d, cuStreamWaitEvent, (s, ev, 0));
}

static sg_status cu_event_sync(rt_driver *d, void *ev, sg_diag *diag) {
  CU_IN_CTX(d, cuEventSynchronize, (ev));
}

static sg_status cu_memcpy_async(rt_driver *d, void *dst, const void *src, size_t n, void *s,
                                 sg_diag *diag) {
  CU_OPT_IN_CTX(d, cuMemcpyAsync, (dp(dst), dp(src), n, s));
}

static sg_status cu_memset_async(rt_driver *d, void *dst, unsigned v, unsigned elem, size_t n,
                                 void *s, sg_diag *diag) {
  if (elem == 2)
    CU_OPT_IN_CTX(d, cuMemsetD16Async, (dp(dst), (unsigned short)v, n, s));
  CU_OPT_IN_CTX(d, cuMemsetD32Async, (dp(dst), v, n, s));
}

static sg_status cu_mem_alloc_managed(rt_driver *d, size_t bytes, void **ptr, sg_diag *diag) {
  CUdeviceptr p = 0;
  if (!d->api.cuMemAllocManaged)
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "%s lacks cuMemAllocManaged", d->libname);
  sg_status st = push(d, diag);
  if (st)
    return st;
  CUresult r = d->api.cuMemAllocManaged(&p, bytes, 1); /* CU_MEM_ATTACH_GLOBAL */
  pop(d);
  if (r != 0)
    return fail(d, "cuMemAllocManaged", r, diag);
  *ptr = (void *)(uintptr_t)p;
  return SG_OK;
}

const rt_driver_ops rt_cuda_ops = {
    .name = "cuda",
    .target = "nvptx",
    .open = cu_open,
    .close = cu_close,
    .supports_cluster = cu_supports_cluster,
    .module_load = cu_module_load,
    .module_function = cu_module_function,
    .module_unload = cu_module_unload,
    .module_global = cu_module_global,
    .supports_cooperative = cu_supports_cooperative,
    .capture_id = cu_capture_id,
    .allow_launch = cu_allow_launch,
    .launch = cu_launch,
    .resident_blocks = cu_resident_blocks,
    .mem_alloc = cu_mem_alloc,
    .mem_free = cu_mem_free,
    .htod = cu_htod,
    .dtoh = cu_dtoh,
    .dtod = cu_dtod,
    .memset_d8 = cu_memset,
    .synchronize = cu_sync,
    .event_create = cu_event_create,
    .event_record = cu_event_record,
    .event_elapsed = cu_event_elapsed,
    .event_destroy = cu_event_destroy,
    .stream_create = cu_stream_create,
    .stream_sync = cu_stream_sync,
    .stream_destroy = cu_stream_destroy,
    .stream_wait_event = cu_stream_wait_event,
    .event_sync = cu_event_sync,
    .memcpy_async = cu_memcpy_async,
    .memset_async = cu_memset_async,
    .mem_alloc_managed = cu_mem_alloc_managed,
};
