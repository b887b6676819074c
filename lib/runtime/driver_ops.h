/* driver.h - the interface between the backend-independent runtime
 * (runtime.c) and its driver back ends (cuda.c, hip.c, host.c). Internal to
 * libsoftgen_rt; hidden visibility.
 *
 * Needs: softgen/diag.h. Produces: rt_driver_ops, one table per back end.
 * A back end opens its driver library with dlopen (RTLD_NOLOAD first), resolves
 * every symbol of its X-macro list into a struct it owns, and makes each
 * operation current on the device (context push/pop or set/restore device)
 * for its duration only, so that other users of the device in the process
 * (PyTorch, CuPy) are not disturbed. Every failure fills diag with the driver
 * function's name and the driver's error name. */
#ifndef SOFTGEN_RUNTIME_DRIVER_H
#define SOFTGEN_RUNTIME_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "softgen/diag.h"

typedef struct rt_driver rt_driver; /* one opened library + device, back-end defined */

/* Kind of a code object's bytes, decided by runtime.c from its header. */
typedef enum rt_image_kind { RT_IMAGE_ELF, RT_IMAGE_FATBIN, RT_IMAGE_TEXT } rt_image_kind;

typedef struct rt_launch {
  void *function;
  unsigned grid;    /* blocks along x, already a multiple of cluster */
  unsigned block;   /* threads along x */
  unsigned cluster; /* blocks per cluster along x; 1 = plain launch */
  unsigned smem;    /* dynamic shared memory bytes per block */
  void *stream;
  void **params; /* one pointer per kernel parameter */
  int cooperative; /* 1: every block resident at once (a grid-split variant's blocks wait
                      for each other); never with cluster > 1 for now */
  /* the other dims (lib/mgpu's launches of any kernel); 0 means 1 */
  unsigned grid_y, grid_z, block_y, block_z, cluster_y, cluster_z;
} rt_launch;

/* A launch dim: 0 means 1. */
static inline unsigned rt_dim(unsigned v) { return v ? v : 1; }

typedef struct rt_driver_ops {
  const char *name;   /* "cuda", "hip" */
  const char *target; /* metadata target it runs: "nvptx", "amdgpu" */
  /* Opens the library (env var or default names) and the device; fills the
   * device's name and arch ("sm_90", "gfx942"; "" when unknown). */
  sg_status (*open)(int device, rt_driver **out, char *name, size_t name_cap, char *arch,
                    size_t arch_cap, sg_diag *diag);
  void (*close)(rt_driver *d);
  /* Nonzero when the device can launch thread-block clusters. */
  int (*supports_cluster)(rt_driver *d);
  /* Loads image (for RT_IMAGE_TEXT already NUL-terminated) and looks up kernel
   * (kernel NULL: none; *function is left as it is). */
  sg_status (*module_load)(rt_driver *d, const void *image, rt_image_kind kind,
                           const char *kernel, void **module, void **function, sg_diag *diag);
  /* Looks up another kernel of a loaded module (a few-rows variant's). */
  sg_status (*module_function)(rt_driver *d, void *module, const char *kernel, void **function,
                               sg_diag *diag);
  void (*module_unload)(rt_driver *d, void *module);
  /* The device address and size of global `name` of a loaded module (a grid-split
   * variant's workspace, SG_META_WORKSPACE_SYMBOL). NULL on a back end without module
   * globals (the host). */
  sg_status (*module_global)(rt_driver *d, void *module, const char *name, void **dptr,
                             size_t *bytes, sg_diag *diag);
  /* Nonzero when launch can take cooperative = 1 (the driver has the entry point and the
   * device the feature). NULL: never. */
  int (*supports_cooperative)(rt_driver *d);
  /* Whether stream is being captured into a graph: 0 no, 1 yes (*id: the capture
   * sequence's id, unique in the process), -1 unknown (no entry point, or the driver
   * refuses to say: the caller then takes no grid split). NULL: unknown, always (the
   * host). */
  int (*capture_id)(rt_driver *d, void *stream, uint64_t *id);
  /* Opts function in to what its launches need beyond the defaults: `smem`
   * bytes of dynamic shared memory (any: 48 KB bound static + dynamic), clusters of `cluster` blocks
   * (over the portable 8). NULL when the back end cannot. */
  sg_status (*allow_launch)(rt_driver *d, void *function, unsigned smem, unsigned cluster,
                            sg_diag *diag);
  sg_status (*launch)(rt_driver *d, const rt_launch *l, sg_diag *diag);
  /* Blocks of `block` threads (`smem` dynamic shared memory bytes) of function, launched in
   * clusters of `cluster`, that the whole device keeps resident at once (occupancy per
   * multiprocessor x multiprocessors, or clusters that fit at once x cluster); 0 when
   * unknown. */
  unsigned (*resident_blocks)(rt_driver *d, void *function, unsigned block, unsigned smem,
                              unsigned cluster);
  sg_status (*mem_alloc)(rt_driver *d, size_t bytes, void **dptr, sg_diag *diag);
  void (*mem_free)(rt_driver *d, void *dptr);
  sg_status (*htod)(rt_driver *d, void *dst, const void *src, size_t bytes, sg_diag *diag);
  sg_status (*dtoh)(rt_driver *d, void *dst, const void *src, size_t bytes, sg_diag *diag);
  sg_status (*dtod)(rt_driver *d, void *dst, const void *src, size_t bytes, void *stream,
                    sg_diag *diag);
  sg_status (*memset_d8)(rt_driver *d, void *dst, unsigned char v, size_t bytes, sg_diag *diag);
  sg_status (*synchronize)(rt_driver *d, sg_diag *diag);
  sg_status (*event_create)(rt_driver *d, void **ev, sg_diag *diag);
  sg_status (*event_record)(rt_driver *d, void *ev, void *stream, sg_diag *diag);
  sg_status (*event_elapsed)(rt_driver *d, void *start, void *end, float *ms, sg_diag *diag);
  void (*event_destroy)(rt_driver *d, void *ev);
  /* CPU threads a launch may use (host only; NULL elsewhere). */
  sg_status (*set_threads)(rt_driver *d, unsigned threads, sg_diag *diag);
  /* For lowered MLIR modules (lib/mgpu); NULL on the host. A driver library
   * without the entry point gives SG_ERR_UNSUPPORTED naming it. */
  sg_status (*stream_create)(rt_driver *d, void **stream, sg_diag *diag);
  sg_status (*stream_sync)(rt_driver *d, void *stream, sg_diag *diag);
  void (*stream_destroy)(rt_driver *d, void *stream);
  sg_status (*stream_wait_event)(rt_driver *d, void *stream, void *ev, sg_diag *diag);
  sg_status (*event_sync)(rt_driver *d, void *ev, sg_diag *diag);
  /* bytes between any two addresses of the unified address space (host or
   * device memory), ordered on stream */
  sg_status (*memcpy_async)(rt_driver *d, void *dst, const void *src, size_t bytes, void *stream,
                            sg_diag *diag);
  /* count elements of elem (2 or 4) bytes set to value, ordered on stream */
  sg_status (*memset_async)(rt_driver *d, void *dst, unsigned value, unsigned elem, size_t count,
                            void *stream, sg_diag *diag);
  /* memory the host and the device both address (managed / unified) */
  sg_status (*mem_alloc_managed)(rt_driver *d, size_t bytes, void **ptr, sg_diag *diag);
} rt_driver_ops;

extern const rt_driver_ops rt_cuda_ops;
extern const rt_driver_ops rt_hip_ops;
extern const rt_driver_ops rt_host_ops; /* host.c: the CPU, no driver library */

/* Opens a driver library: the path in env_var when set, else the first of
 * names (NULL-terminated) that opens. Tries RTLD_NOLOAD first for each so an
 * already-loaded driver is reused. Copies the name that opened into used.
 * NULL and SG_ERR_NO_DRIVER naming what was tried when none opens. */
void *rt_dlopen(const char *env_var, const char *const *names, char *used, size_t used_cap,
                sg_diag *diag);

/* Resolves sym in lib; NULL and SG_ERR_NO_DRIVER naming sym and libname when
 * missing. Callers copy the result into a function pointer with memcpy. */
void *rt_dlsym(void *lib, const char *libname, const char *sym, sg_diag *diag);

/* st, with diag's message (a driver failure) followed by " (kernel 'KERNEL')":
 * the back ends' function lookups name the kernel they looked for. */
static inline sg_status rt_name_kernel(sg_status st, const char *kernel, sg_diag *diag) {
  if (diag) {
    char msg[sizeof diag->message];
    snprintf(msg, sizeof msg, "%s", diag->message);
    sg_diag_set(diag, st, "%s (kernel '%s')", msg, kernel);
  }
  return st;
}

#endif
