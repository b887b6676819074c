/* codegen/rows.h - lowering a row block (internal to codegen): where its
 * elements are (codegen/address.c).
 * Needs: codegen/codegen.h (sgc_ctx). */
#ifndef SG_CODEGEN_ROWS_H
#define SG_CODEGEN_ROWS_H

#include <stdint.h>

#include "codegen/codegen.h"

#define SGC_MAX_CHUNKS 64 /* vectors a thread holds of a row (of a tile, for tiled rows) */

/* Where the elements of the current row block are. */
typedef struct sgc_addr {
  LLVMValueRef rows;                       /* M (i64) */
  LLVMValueRef ptr[SGT_MAX_TENSORS];       /* per tensor: its pointer (a cluster's block: its tile) */
  LLVMValueRef stride[SGT_MAX_TENSORS];    /* row stride (inner layout: the stride of o) */
  LLVMValueRef repeat[SGT_MAX_TENSORS];    /* inputs whose rows repeat: R (i64), else NULL */
  LLVMValueRef nstride[SGT_MAX_TENSORS], inner; /* inner layout: strides along N, inner */
  LLVMValueRef col_base;                   /* clusters: this block's first column (i64), else NULL */
  LLVMValueRef row, row_valid;             /* this thread's row (i64), row < M (i1) */
  LLVMValueRef row_clamped;                /* i64, always < M */
  LLVMValueRef row_base[2][SGT_MAX_TENSORS]; /* inner layout: o * stride + i of row, row_clamped */
  unsigned nchunks;                        /* chunks of the row (of the tile, for tiled rows) */
  LLVMValueRef col[SGC_MAX_CHUNKS];        /* per chunk: its first column (i64) */
  LLVMValueRef col_valid[SGC_MAX_CHUNKS];  /* per chunk: col < N (i1), NULL when always */
} sgc_addr;

/* The element type of tensor `tensor` in memory (f16, bf16, f32) and its size. */
LLVMTypeRef sgc_elem_type(sgc_ctx *cx, int tensor);
unsigned sgc_elem_bytes(sgc_ctx *cx, int tensor);

/* In the entry block: the tensors' pointers and strides, M, and for a
 * cluster's block its rank (cx->cluster_rank) and first column. */
void sgc_addr_init(sgc_ctx *cx, sgc_addr *a);

/* Sets the thread's row (i64), its validity and its clamp (`last`: M - 1). */
void sgc_addr_set_row(sgc_ctx *cx, sgc_addr *a, LLVMValueRef row, LLVMValueRef last);

/* Row `row_in` of row block rb (both i64), in head order where that pays. */
LLVMValueRef sgc_block_row(sgc_ctx *cx, const sgc_addr *a, LLVMValueRef rb, LLVMValueRef row_in);

/* `row`, or `last` (M - 1) when row >= M. */
LLVMValueRef sgc_clamp_row(sgc_ctx *cx, const sgc_addr *a, LLVMValueRef row, LLVMValueRef last);

/* Columns of the first `nchunks` chunks of a tile that starts at column
 * `base` (i64; NULL: 0) and has `limit` columns, and their validity (only
 * where the tile's end can be crossed). */
void sgc_chunk_columns(sgc_ctx *cx, sgc_addr *a, LLVMValueRef base, unsigned nchunks,
                       uint64_t limit);

/* Chunk c's columns past its first: threads_per_row * vec each (i32). */
LLVMValueRef sgc_chunk_offset32(sgc_ctx *cx, unsigned c);

/* Address of element (row, col) of tensor ti (row mod R for a tensor whose
 * R rows repeat; the rows layout only). */
LLVMValueRef sgc_element_ptr(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef row, LLVMValueRef col);

/* Column of chunk c, in bounds: a chunk past N reads column 0 instead. */
LLVMValueRef sgc_clamped_col(sgc_ctx *cx, sgc_addr *a, unsigned c);

/* Loads the a->nchunks chunks of read op `op` for row `row` (clamped: always
 * in bounds) into raw[], in the tensor's own type. */
void sgc_load_row(sgc_ctx *cx, sgc_addr *a, const sgt_op *op, LLVMValueRef row, LLVMValueRef *raw);

#endif
