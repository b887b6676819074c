/* softgen/runtime.h - load softgen code objects and launch their kernels.
 *
 * The runtime (libsoftgen_rt) needs no CUDA or ROCm toolkit to build: it opens
 * the driver library at run time (or runs host-target kernels on the CPU) (libcuda.so.1 for CUDA, libamdhip64.so for
 * HIP) with dlopen. The environment variables SOFTGEN_CUDA_LIBRARY and
 * SOFTGEN_HIP_LIBRARY name another library to open instead (test doubles).
 *
 * A kernel is launched from its code object's metadata (softgen/meta.h): the
 * caller passes one sgrt_tensor per "tensor" line, in that order, and the
 * runtime checks them (dtype, N, rows, strides, alignment, null pointers)
 * before packing the kernel's arguments and launching on the given stream.
 *
 * A code object with few-rows variants (meta "variant few" and "variant
 * grid" lines) has more entry points: all are loaded, and each launch takes
 * the one sgrt_launch_geometry picks for its M (a variant for few rows, while
 * all its blocks stay resident). SOFTGEN_FEW_ROWS=0 in the environment at
 * load drops the variants (the kernel then runs every M; for A/B timing), as
 * sgrt_kernel_load_host does (one entry point given); a device that cannot
 * launch a variant's clusters drops that variant, and a grid-split variant
 * is dropped where the back end cannot launch cooperatively (the host; a
 * driver without cuLaunchKernelEx or hipModuleLaunchCooperativeKernel, a
 * device without cooperative launch) or the object's workspace global
 * (SG_META_WORKSPACE_SYMBOL) is missing or too small. The kernel's metadata
 * (sgrt_kernel_meta) lists the variants kept.
 *
 * Grid-split variants and streams: each launch of one takes the workspace
 * slot of its stream, claimed by the first such launch on that stream (any
 * handle value, NULL included, is one stream) and kept while the kernel is
 * loaded; launches on one stream run one after the other, so they share it
 * safely. When every slot is claimed by other streams, or the stream is the
 * per-thread default stream (handle 2: several threads' streams under one
 * value), the launch takes the next entry sgrt_launch_geometry gives without
 * that variant (another variant or the kernel). Any thread may launch.
 * Known limit: a CUDA graph captured on stream s keeps s's slot; replayed on
 * another stream while launches of the same kernel run directly on s, the
 * two would share the slot. */
#ifndef SOFTGEN_RUNTIME_H
#define SOFTGEN_RUNTIME_H

#include "softgen/api.h"

#include <stddef.h>
#include <stdint.h>

#include "softgen/diag.h"
#include "softgen/meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/* HOST: this machine's CPU runs kernels of softgen's host target (no driver;
 * device 0 only; "device memory" is host memory; launches are synchronous).
 * AUTO tries CUDA, then HIP: never the host. */
typedef enum sgrt_backend {
  SGRT_BACKEND_AUTO,
  SGRT_BACKEND_CUDA,
  SGRT_BACKEND_HIP,
  SGRT_BACKEND_HOST
} sgrt_backend;

typedef struct sgrt_runtime sgrt_runtime; /* one driver, one device */
typedef struct sgrt_kernel sgrt_kernel;   /* one loaded code object */
typedef struct sgrt_event sgrt_event;     /* a device event, for timing */

/* A 2-D row-major view: rows x cols elements, row_stride elements apart.
 *
 * For a kernel of the inner layout (meta->layout == SG_LAYOUT_INNER) the same
 * struct describes a 3-D view [outer, cols, inner] with a contiguous inner dim:
 * rows = outer * inner, row_stride = the stride between outer indices, and
 * element (o, n, i) at data + o * row_stride + n * n_stride + i (elements).
 * inner 0 means 1, n_stride 0 means inner (contiguous along N); a contiguous
 * [outer, N, inner] tensor is {data, outer * inner, N, N * inner, dtype,
 * inner, 0}. Rows-layout kernels take inner and n_stride 0 or 1 only. */
typedef struct sgrt_tensor {
  void *data; /* device pointer */
  int64_t rows;
  int64_t cols;
  int64_t row_stride;
  sg_dtype dtype;
  int64_t inner;    /* inner layout: the inner extent (0: 1) */
  int64_t n_stride; /* inner layout: the stride along N in elements (0: inner) */
} sgrt_tensor;

/* Opens the driver for the given backend (AUTO: CUDA, then HIP) and device
 * ordinal, using the device's primary context (so it shares memory and streams
 * with PyTorch or CuPy in the same process). SG_ERR_NO_DRIVER when the library
 * is absent, SG_ERR_DRIVER (with the driver's error name) when it fails. */
SG_API sg_status sgrt_open(sgrt_backend backend, int device, sgrt_runtime **out, sg_diag *diag);

/* Releases the primary context and closes the driver library. NULL is a no-op. */
SG_API void sgrt_close(sgrt_runtime *rt);

/* "cuda" or "hip". */
SG_API const char *sgrt_backend_name(const sgrt_runtime *rt);

/* Device's architecture name, e.g. "sm_90" or "gfx942". */
SG_API const char *sgrt_device_arch(const sgrt_runtime *rt);

/* Device's name as the driver reports it, e.g. "NVIDIA H100 80GB HBM3". */
SG_API const char *sgrt_device_name(const sgrt_runtime *rt);

/* The largest code object sgrt_kernel_load_file reads: 256 MiB (softgen's
 * largest are a few MiB). */
#define SGRT_OBJECT_MAX_BYTES ((size_t)256 << 20)

/* Loads a code object (.cubin, .ptx, .hsaco, host .so) from a file or memory.
 * First verifies its checksum (sg_meta_verify, softgen/meta.h): a missing,
 * malformed or wrong checksum is SG_ERR_PARSE (the object is damaged or was
 * edited: regenerate it), a fatbin SG_ERR_UNSUPPORTED; then reads and checks
 * its metadata (SG_ERR_PARSE when missing or malformed) and its target and
 * arch against the device (SG_ERR_MISMATCH), then loads it through the driver.
 * The kernel keeps its own copy of the bytes it needs.
 * A host .so is native code: loading it (dlopen, from an anonymous memory
 * file; no file is left behind) runs its constructors. The checksum detects
 * damage and edits, not malice: load only objects you trust.
 * _file reads a regular file of at most SGRT_OBJECT_MAX_BYTES, and refuses
 * anything else (a FIFO, a device such as /dev/zero, a directory, a larger
 * file) with SG_ERR_IO before reading it: it never blocks or reads unbounded. */
SG_API sg_status sgrt_kernel_load_file(sgrt_runtime *rt, const char *path, sgrt_kernel **out,
                                sg_diag *diag);
SG_API sg_status sgrt_kernel_load_data(sgrt_runtime *rt, const void *data, size_t size,
                                sgrt_kernel **out, sg_diag *diag);

/* Host backend: wraps a kernel compiled in this process (sg_jit_kernel and
 * sg_jit_meta of softgen/codegen.h, or any function with the host entry ABI
 * void k(void **params, uint32_t block, uint32_t blocks)) and its metadata
 * text, checked as a loaded code object's is (no object, so no checksum). The
 * caller keeps the code alive while the kernel is used; sgrt_kernel_destroy
 * does not free it. */
SG_API sg_status sgrt_kernel_load_host(sgrt_runtime *rt, void *entry, const char *meta_text,
                                       size_t meta_len, sgrt_kernel **out, sg_diag *diag);

/* Host backend: the CPU threads a launch spreads its row blocks over (1 to
 * 256; default $SOFTGEN_HOST_THREADS, else the online CPUs).
 * SG_ERR_UNSUPPORTED on a GPU backend.
 * Threads: any thread may launch on a host runtime, also several at once; the
 * launches that spread over the CPU threads, and this call, run one at a time
 * (each launch is synchronous and waits for the one before it). */
SG_API sg_status sgrt_host_set_threads(sgrt_runtime *rt, unsigned threads, sg_diag *diag);

/* The metadata the kernel was loaded with. */
SG_API const sg_meta *sgrt_kernel_meta(const sgrt_kernel *k);

/* Checks tensors against the metadata and launches on stream (NULL: the
 * default stream). ntensors must equal meta->ntensors. Every tensor must have
 * cols == meta->n (a kernel for a range of N: the same cols, from meta->n_min
 * to meta->n), the same rows M >= 0 (M == 0 launches nothing), row_stride
 * >= cols, data and row_stride * element size aligned to meta->vector_bytes,
 * non-NULL data when M > 0, and the dtype the metadata names.
 * Inner layout: every tensor the same inner >= 1, dividing M ("wrong inner"),
 * n_stride >= inner and, with more than one outer index, row_stride >=
 * (cols - 1) * n_stride + inner ("too small": rows would overlap), strides
 * aligned like row_stride ("misaligned"). A rows-layout kernel rejects inner
 * or n_stride above 1 (it needs the inner layout). Alignment is per tensor:
 * vector_bytes scaled to its dtype (sg_meta_tensor_align: an f16 input of an
 * f16 -> f32 kernel with 16-byte vectors needs 8 bytes).
 * Overlap, as PyTorch's out=: an output may be the same view as an input (in
 * place: same data, dtype, rows, row_stride, inner and n_stride), when the
 * kernel has one output; otherwise it must share no byte with any other
 * tensor, input or output ("overlaps": both tensors named). Rows-layout views
 * with the same row pitch in bytes (or a single row) are compared row by row,
 * so views that interleave (the two halves [M, N] of one [M, 2N] buffer) are
 * accepted; other views (different pitches, the inner layout) overlap when
 * their byte ranges do. An input whose R rows repeat is its own R rows: an
 * output can be the same view only when R = M. In place is safe for every
 * plan softgen generates (rows in registers or staged in shared memory, tiled
 * rows re-read per pass, clusters, persistent prefetch): a thread reads each
 * element of its row before it writes it, and a one-output kernel's writes
 * depend on every read of the row; with more outputs a write need not (and the
 * kernels' pointers are noalias), so those kernels refuse in place.
 * SG_ERR_MISMATCH / SG_ERR_INVALID_ARGUMENT name the offending tensor. */
SG_API sg_status sgrt_kernel_launch(sgrt_kernel *k, const sgrt_tensor *tensors, int ntensors,
                             void *stream, sg_diag *diag);

/* The checks of sgrt_kernel_launch but alignment (of data and strides), overlap
 * included; launches nothing. For a caller that launches on aligned copies of
 * some tensors, which would hide how the originals overlap (the Python
 * package). */
SG_API sg_status sgrt_kernel_check_views(const sgrt_kernel *k, const sgrt_tensor *tensors,
                                         int ntensors, sg_diag *diag);

/* sgrt_kernel_launch for kernels with scalar parameters (metadata "scalar"
 * lines): scalars[i] is the value of the kernel's i-th scalar, rounded to
 * float for an f32 scalar (a finite value that would round to +-inf is
 * refused; inf and NaN pass); an i64 scalar must be a whole number of
 * magnitude at most 2^53. nscalars must equal the kernel's count. An input whose rows
 * repeat ("arg rows NAME") may have R rows, 1 <= R, R dividing M. */
SG_API sg_status sgrt_kernel_launch_ex(sgrt_kernel *k, const sgrt_tensor *tensors, int ntensors,
                                       const double *scalars, int nscalars, void *stream,
                                       sg_diag *diag);

/* sgrt_kernel_launch_ex for the common call, with the least work for a caller
 * such as Python: a rows-layout kernel without scalars whose tensors (its 2 or 3,
 * in the kernel's order: t2 is ignored by a kernel of 2) are dense [rows, N]
 * arrays of their metadata dtypes, row stride N. Checked and launched as
 * sgrt_kernel_launch_ex with those tensors would be. */
SG_API sg_status sgrt_kernel_launch_dense(sgrt_kernel *k, int64_t rows, void *stream,
                                          sg_diag *diag, void *t0, void *t1, void *t2);

/* Unloads the module. NULL is a no-op. */
SG_API void sgrt_kernel_destroy(sgrt_kernel *k);

/* ---- launch geometry ---- */

/* The largest grid (x) the runtime launches: CUDA's and HIP's limit. */
#define SGRT_MAX_GRID 2147483647u

/* How a kernel is launched over M rows (1-D grid and blocks). */
typedef struct sgrt_geometry {
  uint64_t grid;    /* blocks, a multiple of cluster; 0 when M is 0 (nothing to launch) */
  unsigned block;   /* threads per block (meta->block, or the variant's) */
  unsigned cluster; /* blocks per cluster (meta->cluster; 1 without clusters) */
  unsigned dsmem;   /* dynamic shared memory bytes per block (meta->dsmem) */
  int few;          /* 0: launch meta->kernel; i + 1: the few-rows variant meta->variants[i] */
  uint64_t workspace; /* bytes of workspace per stream the entry takes (a grid-split
                         variant's "workspace"; 0 for the kernel and cluster variants) */
} sgrt_geometry;

/* The launch of code object m over `rows` rows (M >= 0): the rule
 * sgrt_kernel_launch follows and the MLIR front end (softgen/mlir.h) writes
 * into its launches.
 * The entry point: the first few-rows variant i (meta->variants, in their
 * order; softgen/meta.h) with 1 <= M <= its max_rows whose
 * blocks are at most few_resident[i], the variant's blocks the device keeps
 * resident at once; else the kernel. A cluster variant ("variant few") has
 * ceil(M / rows_per_block) x cluster blocks, and an unknown count
 * (few_resident NULL, or an entry 0) takes it: max_rows alone decides. A
 * grid-split variant ("variant grid") has ceil(M / rows_per_block) x split
 * blocks, at most SGRT_MAX_GRID, and needs a known count (few_resident[i] >
 * 0): its blocks wait for each other, so it is never taken on a guess (the
 * MLIR path, which passes NULL, never takes one). Its numbers (block,
 * cluster, dsmem, rows_per_block, workspace) are those of the entry chosen
 * (out->few says which); a grid-split variant's cluster is 1 and its
 * workspace its bytes per stream (the launch passes the stream's slice as
 * its last parameter, cooperatively: sgrt_kernel_launch).
 * grid = ceil(M / rows_per_block) x cluster blocks (one cluster per row block;
 * for a grid-split variant x split, one group of split blocks per row block);
 * for a persistent kernel (meta->persistent; never the variant) at most
 * `resident` blocks, the number of its blocks the device keeps resident at
 * once, rounded down to whole clusters (0, or less than one cluster: no cap;
 * the caller that cannot ask the device passes 0); and at most SGRT_MAX_GRID,
 * rounded down likewise. Every grid of whole clusters computes every row (the
 * kernel strides over row blocks: softgen/meta.h); the resident cap only
 * spares a persistent kernel blocks that would wait for a multiprocessor.
 * SG_ERR_INVALID_ARGUMENT for a null m or out, or M < 0. */
SG_API sg_status sgrt_launch_geometry(const sg_meta *m, int64_t rows, uint64_t resident,
                                      const uint64_t *few_resident, sgrt_geometry *out,
                                      sg_diag *diag);

/* The launch sgrt_kernel_launch makes of kernel k over `rows` rows on its
 * device: sgrt_launch_geometry with the device's counts of resident blocks
 * (out->few: which few-rows variant is the entry launched, if one). A
 * grid-split variant is given as chosen: a launch on a stream that finds no
 * free workspace slot takes the next entry instead (see the top of this
 * file). For tools that say what they launch. SG_ERR_INVALID_ARGUMENT for a
 * null k or out, or M < 0. */
SG_API sg_status sgrt_kernel_geometry(const sgrt_kernel *k, int64_t rows, sgrt_geometry *out,
                                      sg_diag *diag);

/* Device memory and synchronisation helpers, for tools and tests. */
SG_API sg_status sgrt_mem_alloc(sgrt_runtime *rt, size_t bytes, void **dptr, sg_diag *diag);
SG_API void sgrt_mem_free(sgrt_runtime *rt, void *dptr);
SG_API sg_status sgrt_memcpy_htod(sgrt_runtime *rt, void *dst, const void *src, size_t bytes,
                           sg_diag *diag);
SG_API sg_status sgrt_memcpy_dtoh(sgrt_runtime *rt, void *dst, const void *src, size_t bytes,
                           sg_diag *diag);
/* Asynchronous device-to-device copy on stream (the bandwidth reference). */
SG_API sg_status sgrt_memcpy_dtod(sgrt_runtime *rt, void *dst, const void *src, size_t bytes,
                           void *stream, sg_diag *diag);
SG_API sg_status sgrt_memset_d8(sgrt_runtime *rt, void *dst, unsigned char value, size_t bytes,
                         sg_diag *diag);
SG_API sg_status sgrt_synchronize(sgrt_runtime *rt, sg_diag *diag);

/* Events for timing on a stream. */
SG_API sg_status sgrt_event_create(sgrt_runtime *rt, sgrt_event **out, sg_diag *diag);
SG_API sg_status sgrt_event_record(sgrt_event *ev, void *stream, sg_diag *diag);
/* Milliseconds between two recorded events; waits for end to complete. */
SG_API sg_status sgrt_event_elapsed(sgrt_event *start, sgrt_event *end, float *ms, sg_diag *diag);
SG_API void sgrt_event_destroy(sgrt_event *ev);

#ifdef __cplusplus
}
#endif
#endif
