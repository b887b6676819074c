/* softgen/meta.h - the launch metadata every softgen code object carries.
 *
 * A code object (.ptx, .cubin, .hsaco, host object) holds one constant global
 * named SG_META_SYMBOL: a NUL-terminated text of "key value" lines that begins
 * with "softgen-meta 1" and ends with "end". It says everything needed to launch
 * the kernel, so a code object alone is enough. Example:
 *
 *   softgen-meta 1
 *   checksum 5B0E...94C1 (64 hex digits: see "The checksum" below)
 *   kernel softgen_softmax_f16_n8192
 *   template softmax
 *   target nvptx
 *   arch sm_90
 *   n 8192
 *   block 256
 *   rows_per_block 1
 *   smem 64
 *   cluster 1
 *   vector_bytes 16
 *   variant grid kernel softgen_softmax_f16_n8192_grid block 256 rows_per_block 1 smem 64 split 4 dsmem 0 max_rows 8 workspace 256
 *   tensor x in f16
 *   tensor y out f16
 *   arg tensor x
 *   arg tensor y
 *   arg rows
 *   arg stride x
 *   arg stride y
 *   end
 *
 * (the "variant" line is optional: "More entry points" below). The kernel's
 * parameters are the "arg" lines in order: "tensor T" is the base
 * pointer of tensor T, "rows" is M (i64), "stride T" is T's row stride in
 * elements (i64), "rows T" the row count R of an input whose rows repeat (row
 * m of the kernel reads row m mod R of T; i64), "scalar S" the value of scalar
 * S, declared by a line "scalar S f32" (a float) or "scalar S i64". The grid is 1-D, in clusters of `cluster` blocks that share
 * each row block; the kernel strides over row blocks, so any multiple of
 * `cluster` from `cluster` to ceil(M / rows_per_block) * cluster computes every
 * row. "persistent 1" (optional) asks for no more blocks than stay resident:
 * such a kernel prefetches its next row block while computing the current.
 * "dsmem B" (optional, default 0) is the dynamic shared memory each block is
 * launched with (rows staged in shared memory); over 48 KB the runtime raises
 * the kernel's limit first.
 *
 * More entry points (optional, up to SG_META_MAX_VARIANTS lines of both
 * kinds together): each line
 *
 *   variant few kernel NAME block B rows_per_block R smem S cluster C dsmem D max_rows K
 *
 * (the words in this order, on one line) says the object holds another
 * kernel, NAME, that computes the same rows with the same arguments but is
 * planned for few rows: each row split over more blocks (a larger cluster).
 * It is launched like the first with its own block, rows_per_block, smem,
 * cluster and dsmem (never persistent), for M from 1 to at most K, the rows up
 * to which a split that large pays. A line
 *
 *   variant grid kernel NAME block B rows_per_block 1 smem S split G dsmem D max_rows K workspace W
 *
 * (a grid-split variant) says the same of NAME, whose rows are each split
 * over G ordinary blocks of the grid (G a power of two from 2 to 1024; no
 * cluster, rows_per_block 1): ceil(M / rows_per_block) x G blocks. The blocks
 * of a row exchange partial results through a global-memory workspace and
 * wait for each other at a barrier in it, so:
 *   - NAME takes the kernel's parameters (the "arg" lines) and one more, last:
 *     a pointer to this launch's workspace slice, W bytes (1 to 2^31; softgen's
 *     grid lines of one object all give the same W: their kernels share a slice,
 *     each using an area of its own), aligned
 *     to 128 bytes, zero when first used; between launches it holds NAME's
 *     own state (the last launch's tagged partials), which the launcher
 *     keeps as it is: no clearing, no sharing between streams. NAME computes
 *     one row block with each G blocks: it is launched with exactly
 *     ceil(M / rows_per_block) x G;
 *   - every block of the launch must be resident at once: the launch is
 *     cooperative (cuLaunchKernelEx with the cooperative attribute,
 *     hipModuleLaunchCooperativeKernel), of at most the blocks the device
 *     keeps resident (unknown: the variant is not launched);
 *   - two launches that may run at the same time must not share a slice: the
 *     launcher gives each stream its own. The object holds the slices: a
 *     global SG_META_WORKSPACE_SYMBOL of S x W bytes (S slots; the launcher
 *     derives S from the global's size), 128-byte aligned, zero-initialised
 *     by the loader. Slot i starts at i x W', W' the largest W of the
 *     object's grid variants rounded up to 128 bytes (W itself when every W
 *     is that multiple of 128); an object whose global is missing, or
 *     smaller than NAME's W rounded up to 128 bytes, cannot launch NAME (the
 *     launcher drops the line).
 * The lines of a kind come in increasing K (the largest split first), the
 * two kinds in any order (softgen writes all in increasing K, a grid line
 * before a few line of the same K; its objects before session 35 wrote the
 * grid lines first); the launcher (sgrt_launch_geometry,
 * softgen/runtime.h) takes the first line whose K is at least M and whose
 * blocks all stay resident at once on the device (a grid line also needs a
 * workspace slice: a launcher that has none takes the next). The first kernel computes every M: a launcher that ignores
 * the lines (or any of them) is still correct. Objects without them load as
 * before.
 *
 * A range of N (optional): "n_min K" (1 <= K < n) says the kernel computes rows
 * of any length N from K to n, and takes N as one more argument, "arg cols"
 * (i64, exactly once; not without "n_min"):
 *
 *   n 2048
 *   n_min 1025
 *   ...
 *   arg stride y
 *   arg cols
 *
 * Such rows may start at any element (vector_bytes is an element). Without
 * the line, n_min is n and the kernel takes rows of exactly n.
 *
 * "layout inner" (optional; default "layout rows") says the kernel views each
 * tensor as [outer, N, inner] with a contiguous inner dim: row m = o * inner + i
 * (M = outer * inner rows) holds the elements at o * stride + n * nstride + i.
 * Such a kernel takes two more kinds of argument: "arg inner" (inner, i64,
 * once) and "arg nstride T" (T's stride along N in elements, i64, one per
 * tensor); its "stride T" is the outer stride. Rows-layout kernels take
 * neither. The generator appends them after the strides:
 *
 *   layout inner
 *   ...
 *   arg stride y
 *   arg inner
 *   arg nstride x
 *   arg nstride y
 *
 * The checksum. A code object softgen writes (.ptx, .cubin, .hsaco, host .o
 * and .so) has a second line "checksum HEX": HEX is 64 uppercase hex digits,
 * the SHA-256 of the object's bytes as they are with those 64 digits put back
 * to '0' (the placeholder codegen writes, sg_meta_format_unsealed). The
 * compiler seals each object once it is complete (sg_meta_seal); the runtime
 * verifies it before it reads anything else of the object (sg_meta_verify), so
 * a damaged or edited object (another "n", a flipped byte of code) is refused
 * instead of launched with metadata that does not describe its code. In PTX
 * the digits are entries of the byte list (48-57, 65-70: two decimal digits
 * each, so sealing keeps the text's length). The checksum detects damage and
 * edits, not malice: anyone can compute it again. Fatbins are not verified
 * (the driver picks one of their entries, possibly compressed): the runtime
 * refuses them; load the .cubin or .ptx.
 *
 * This header and lib/meta need only libc: the runtime uses them without LLVM. */
#ifndef SOFTGEN_META_H
#define SOFTGEN_META_H

#include "softgen/api.h"

#include <stddef.h>
#include <stdint.h>

#include "softgen/diag.h"
#include "softgen/types.h" /* sg_dtype, sg_layout */

#ifdef __cplusplus
extern "C" {
#endif

#define SG_META_SYMBOL "softgen_meta"
/* The global of a code object with grid-split variants ("variant grid"
 * lines): S slots of workspace, each W bytes (the lines' "workspace"), zero
 * as loaded; the launcher gives each stream one slot (see above). */
#define SG_META_WORKSPACE_SYMBOL "softgen_workspace"
#define SG_META_MAGIC "softgen-meta 1\n"
#define SG_META_MAX_TENSORS 8
#define SG_META_MAX_ARGS 40
#define SG_META_MAX_SCALARS 8
#define SG_META_MAX_VARIANTS 4
#define SG_META_NAME_MAX 64
#define SG_META_CHECKSUM_DIGITS 64 /* "checksum " and this many hex digits: line 2 */

/* SG_ARG_INNER: inner (i64); SG_ARG_NSTRIDE: a tensor's stride along N (i64);
 * both only in inner-layout kernels. SG_ARG_SCALAR: a scalar parameter. */
typedef enum sg_arg_kind {
  SG_ARG_TENSOR,
  SG_ARG_ROWS,
  SG_ARG_STRIDE,
  SG_ARG_INNER,
  SG_ARG_NSTRIDE,
  SG_ARG_SCALAR, /* a scalar parameter (index into scalars[]) */
  SG_ARG_COLS    /* N (i64), in kernels for a range of N ("n_min") */
} sg_arg_kind;

typedef struct sg_meta_tensor {
  char name[SG_META_NAME_MAX];
  int is_output;
  sg_dtype dtype;
} sg_meta_tensor;

typedef struct sg_meta_arg {
  sg_arg_kind kind;
  /* index into tensors[] for SG_ARG_TENSOR, SG_ARG_STRIDE, SG_ARG_NSTRIDE and
   * SG_ARG_ROWS of a tensor whose rows repeat (-1: M); into scalars[] for
   * SG_ARG_SCALAR; else -1 */
  int tensor;
} sg_meta_arg;

typedef struct sg_meta_scalar {
  char name[SG_META_NAME_MAX];
  int is_i64; /* 0: f32 */
} sg_meta_scalar;

/* A few-rows entry point of a code object: a "variant few" line (split 0) or
 * a "variant grid" line (split >= 2). New fields go at the end, so that
 * positional initialisers of the first ones stay a few variant. */
typedef struct sg_meta_variant {
  char kernel[128];
  /* as sg_meta's; a grid variant's rows_per_block and cluster are 1 */
  unsigned block, rows_per_block, smem, cluster, dsmem;
  int64_t max_rows; /* launched for M from 1 to this, at most */
  unsigned split;   /* grid variant: blocks of the grid that share each row block, a power
                       of two from 2 to 1024; 0: a few variant (a cluster shares it) */
  uint64_t workspace; /* grid variant: bytes of workspace each stream needs (its slice of
                         SG_META_WORKSPACE_SYMBOL), 1 to 2^31; 0 for a few variant */
} sg_meta_variant;

typedef struct sg_meta {
  int version;
  char kernel[128];
  char template_name[SG_META_NAME_MAX];
  char target[16]; /* "nvptx", "amdgpu", "host" */
  char arch[32];   /* "sm_90", "gfx942", ... */
  int64_t n;       /* row length the kernel was generated for (the largest of a range) */
  unsigned block;  /* threads per block */
  unsigned rows_per_block; /* 1 to 65536 (packed rows: up to 64 a thread) */
  unsigned smem;         /* static shared memory bytes */
  unsigned cluster;      /* blocks per cluster along x (1 = no cluster) */
  unsigned vector_bytes; /* alignment each tensor base and row stride needs: the
                           kernel's vector, or an element for peeled rows (N no
                           16-byte vector divides: each row aligns itself), or
                           a row for packed rows (a vector of several rows,
                           each row's vector where they are not one aligned span) */
  unsigned persistent;   /* 1: launch at most as many blocks as stay resident */
  unsigned dsmem;        /* dynamic shared memory bytes each block is launched with */
  int ntensors;
  sg_meta_tensor tensors[SG_META_MAX_TENSORS];
  int nargs;
  sg_meta_arg args[SG_META_MAX_ARGS];
  int nscalars;
  sg_meta_scalar scalars[SG_META_MAX_SCALARS];
  sg_layout layout; /* SG_LAYOUT_ROWS unless "layout inner" */
  int nvariants;    /* "variant few" and "variant grid" lines, in variants[] in their
                       order (each kind in increasing max_rows) */
  sg_meta_variant variants[SG_META_MAX_VARIANTS]; /* the few-rows entry points */
  int64_t n_min; /* the smallest row length it takes: n unless "n_min" says less (a
                    range of N: the kernel takes N as "arg cols") */
} sg_meta;

/* Writes meta as text into buf (capacity cap, NUL included). *len (optional)
 * receives the text length without the NUL. SG_ERR_INVALID_ARGUMENT if it does
 * not fit. */
SG_API sg_status sg_meta_format(const sg_meta *meta, char *buf, size_t cap, size_t *len, sg_diag *diag);

/* As sg_meta_format, with the checksum placeholder as the second line
 * ("checksum " and SG_META_CHECKSUM_DIGITS '0'): the text a code object
 * carries until sg_meta_seal fills the checksum in. */
SG_API sg_status sg_meta_format_unsealed(const sg_meta *meta, char *buf, size_t cap, size_t *len,
                                         sg_diag *diag);

/* Parses metadata text (len bytes, need not be NUL-terminated; parsing stops at
 * "end"). Checks every field and cross-reference; SG_ERR_PARSE with the line
 * number on any malformed input. A "checksum" line (optional here) must be the
 * second and hold 64 hex digits; its value is sg_meta_verify's to check. */
SG_API sg_status sg_meta_parse(const char *text, size_t len, sg_meta *out, sg_diag *diag);

/* Finds and parses the metadata inside a code object's bytes: the raw text
 * (ELF .cubin, .hsaco, host objects store the initializer verbatim) or, in PTX
 * text, the byte-list initializer of the global SG_META_SYMBOL. */
SG_API sg_status sg_meta_find(const void *object, size_t size, sg_meta *out, sg_diag *diag);

/* Writes the checksum of a code object into its metadata's checksum line, in
 * place (the object must be complete: every byte but those digits is
 * covered). Sealing again gives the same bytes. SG_ERR_PARSE when the object
 * has no metadata or no checksum line, SG_ERR_UNSUPPORTED for a fatbin. */
SG_API sg_status sg_meta_seal(void *object, size_t size, sg_diag *diag);

/* Checks a code object's checksum against its bytes. SG_OK when they match;
 * SG_ERR_PARSE when there is no metadata, no checksum line, a malformed or a
 * wrong checksum (the message says the object is damaged or was edited and
 * must be regenerated); SG_ERR_UNSUPPORTED for a fatbin. Reads nothing but the
 * size bytes given; parses no more than the checksum line. */
SG_API sg_status sg_meta_verify(const void *object, size_t size, sg_diag *diag);

/* Bytes a code object's own header says it spans, for loaders that take no
 * size (cuModuleLoadData): an ELF64 file up to its last section or program
 * header (at least 64), a fatbin its header plus payload; 0 for anything else
 * (text). The caller guarantees 64 (ELF) or 16 (fatbin) readable bytes.
 * Saturates at UINT64_MAX when the header's fields overflow. */
SG_API uint64_t sg_object_extent(const void *object);

/* Index of the tensor named name, or -1. */
SG_API int sg_meta_tensor_index(const sg_meta *meta, const char *name);
/* Bytes tensor i's base and row stride must be a multiple of: one vector of
 * its own elements (vector_bytes is a vector of the widest tensor's). */
SG_API unsigned sg_meta_tensor_align(const sg_meta *meta, int i);
/* Index of the scalar named name, or -1. */
SG_API int sg_meta_scalar_index(const sg_meta *meta, const char *name);

#ifdef __cplusplus
}
#endif
#endif
