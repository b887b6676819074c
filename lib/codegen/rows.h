/* codegen/rows.h - lowering row blocks (internal to codegen): where their
 * elements are (codegen/address.c), the op walk (codegen/walk.c) and the row
 * strategies it asks for its chunks (sgc_rows: codegen/rows_registers.c,
 * rows_staged.c, rows_tiled.c), which codegen/kernel.c drives.
 * Needs: codegen/codegen.h (sgc_ctx). */
#ifndef SG_CODEGEN_ROWS_H
#define SG_CODEGEN_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "codegen/codegen.h"

#define SGC_MAX_CHUNKS 64 /* vectors a thread holds of a row (of a tile, for tiled rows) */

/* Where the elements of the current row block are. */
typedef struct sgc_addr {
  LLVMValueRef rows;                       /* M (i64) */
  LLVMValueRef ptr[SGT_MAX_TENSORS];       /* per tensor: its pointer (clusters: its tile) */
  LLVMValueRef stride[SGT_MAX_TENSORS];    /* row stride (inner layout: the stride of o) */
  LLVMValueRef repeat[SGT_MAX_TENSORS];    /* inputs whose rows repeat: R (i64), else NULL */
  LLVMValueRef nstride[SGT_MAX_TENSORS], inner; /* inner layout: strides along N, inner */
  LLVMValueRef col_base;                   /* clusters: the block's first column (i64), else NULL */
  LLVMValueRef col_end;                    /* an uneven split: the block's columns (i64; the
                                              last block's fewer than tile_n), else NULL */
  LLVMValueRef row, row_valid;             /* this thread's row (i64), row < M (i1) */
  LLVMValueRef row_clamped;                /* i64, always < M */
  LLVMValueRef row_base[2][SGT_MAX_TENSORS]; /* inner layout: o * stride + i of row, row_clamped */
  unsigned nchunks;                        /* chunks of the row (of the tile, for tiled rows) */
  LLVMValueRef col[SGC_MAX_CHUNKS];        /* per chunk: its first column (i64) */
  LLVMValueRef col_valid[SGC_MAX_CHUNKS];  /* per chunk: col < N (i1), NULL when always;
                                              peeled rows: per lane (<vec x i1>) */
  /* Peeled rows (plan->peel): columns shifted by the row's h (sgc_addr_set_row). */
  LLVMValueRef peel_h;                     /* the row's shift (i64, < vec); NULL before a row */
  LLVMValueRef aligned[SGT_MAX_TENSORS];   /* the tensor's row has the same shift (i1); NULL
                                              when always (the first read tensor) */
  LLVMValueRef lane_col[SGC_MAX_CHUNKS];   /* per chunk: its first column before the shift */
  int check[SGC_MAX_CHUNKS];               /* per chunk: it may hold columns outside [0, N) */
  LLVMValueRef own[SGC_MAX_CHUNKS];        /* per chunk: lane_col < tile_n, its columns this
                                              workgroup's (i1); NULL when always */
  LLVMValueRef col_full[SGC_MAX_CHUNKS];   /* checked chunks: every lane in [0, N) (i1) */
  LLVMValueRef col_any[SGC_MAX_CHUNKS];    /* checked chunks: some lane in [0, N) (i1) */
  LLVMValueRef span_lo[SGT_MAX_TENSORS];   /* the tensor's first and last byte + 1 (i64 */
  LLVMValueRef span_hi[SGT_MAX_TENSORS];   /* addresses, rows layout), else NULL */
  /* Packed rows (plan->pack): the tensor's rows are one span (stride N) that
   * starts at a whole vector (i1), set once in the entry block. */
  LLVMValueRef pack_span[SGT_MAX_TENSORS];
} sgc_addr;

/* The launch's dynamic shared memory (softgen_stage, an i8 array aligned to
 * 16 bytes), declared once a module: the staged and flat strategies' rows. */
LLVMValueRef sgc_stage_memory(sgc_ctx *cx);

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

/* Peeled rows: stores chunk c (x, in the tensor's type) of write tensor ti in
 * this thread's row: one vector store where the chunk lies wholly in the row
 * and the tensor shares the row's shift, else element by element (lanes
 * outside [0, N) not stored). The caller skips chunks with no lane in the row. */
void sgc_peel_store(sgc_ctx *cx, sgc_addr *a, int ti, unsigned c, LLVMValueRef x);

/* Peeled rows: an i1, 1 where chunk c of tensor ti is one aligned vector of
 * the row (wholly in it, the tensor sharing the row's shift); NULL when
 * always. */
LLVMValueRef sgc_peel_fast(sgc_ctx *cx, sgc_addr *a, int ti, unsigned c);

/* Peeled rows: chunk c of tensor ti loaded element by element where some
 * lane is in the row (lanes outside it read the row's column 0, masked
 * later), else zeros: where sgc_peel_fast is 0. */
LLVMValueRef sgc_peel_elements(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef row, unsigned c);

/* Packed rows (plan->pack): the vector of tensor ti that holds rows row to
 * row + pack - 1 (row a multiple of pack): one vector access where they are
 * all below M and the tensor's rows are one aligned span (a->pack_span),
 * else element by element (rows past M read row M - 1; their stores are
 * skipped). */
LLVMValueRef sgc_pack_load(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef row);
void sgc_pack_store(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef x);

/* Column of chunk c, in bounds: a chunk past N reads column 0 instead. */
LLVMValueRef sgc_clamped_col(sgc_ctx *cx, sgc_addr *a, unsigned c);

/* Loads the a->nchunks chunks of read op `op` for row `row` (clamped: always
 * in bounds) into raw[], in the tensor's own type. */
void sgc_load_row(sgc_ctx *cx, sgc_addr *a, const sgt_op *op, LLVMValueRef row, LLVMValueRef *raw);

/* A value of the walk: per-row (one float every thread of the row holds) or
 * a row value (chunks of <vec x float>, built on request). */
typedef struct sgc_val {
  int is_row;                /* 1: chunks[] hold the row's vectors; 0: scalar */
  LLVMValueRef scalar;       /* per-row value */
  LLVMValueRef recip;        /* a / broadcast(s): 1 / s, splat (per-row) */
  LLVMValueRef recip_scalar; /* the same 1 / s, one float */
  LLVMValueRef neg_log2;     /* div(exp(d), broadcast(s)) written to 16-bit tensors only
                                (walk.c, exp_div_fuses): -log2(s), splat; else NULL */
  LLVMValueRef *chunks;      /* plan->chunks of them */
  int *seg;                  /* per chunk: the segment it was built in, -1 not yet */
} sgc_val;

typedef struct sgc_rows sgc_rows;

/* The lowering of one kernel's row blocks (codegen/kernel.c sets it up). */
typedef struct sgc_walk {
  sgc_ctx *cx;
  const sgc_rows *rows;           /* the row strategy */
  void *own;                      /* its own state: rows->own_size bytes, zeroed */
  sgc_addr a;                     /* where the row block's elements are */
  sgc_val vals[SGT_MAX_OPS];      /* per op of the template */
  int done[SGT_MAX_OPS];          /* ops already lowered by an online chain */
  signed char exp_flush[SGT_MAX_OPS]; /* walk.c's exp_flushes + 1, once known (0: not yet) */
  int seg;                        /* segment: reductions lowered so far in this row block */
  int read_ops[SGT_MAX_OPS];      /* the template's read ops, in order */
  unsigned nreads;
  int skip_op;                    /* the causal op whose wholly masked chunks the strategy
                                     skips (rows->live), else -1 */
  LLVMValueRef causal_first;      /* skip_op's sgc_causal_first32 when the strategy computed
                                     it before the walk, else NULL */
} sgc_walk;

/* When the walk builds the chunks of a row value. */
typedef enum sgc_build_at {
  SGC_BUILD_AT_OP,   /* every chunk where its op stands, kept (the row in registers) */
  SGC_BUILD_ON_USE,  /* a chunk where it is first used, kept (tiled: within its tile) */
  SGC_BUILD_PER_PASS /* a chunk where it is first used after each reduction: no row value
                        is held across one (staged: rebuilt from shared memory) */
} sgc_build_at;

/* A row strategy: where the chunks of a row block come from. codegen/kernel.c
 * calls declare, then in the entry block entry; with prefetch (a persistent
 * grid, rows_in_flight 2) ahead before the loop; then in each trip of the
 * loop over row blocks phis, begin, walk, finish, and at the latch end. The
 * walk calls read, live, write and stored. walk and read are required (live too, where
 * the strategy sets w->skip_op); any other hook may be NULL: nothing. */
struct sgc_rows {
  size_t own_size; /* bytes of the strategy's own state (w->own) */
  sgc_build_at build;
  /* Before any code: module globals and choices (w->skip_op); may reject the plan. */
  sg_status (*declare)(sgc_walk *w, sg_diag *diag);
  /* The entry block, once the thread's ids are known (the chunks' columns). */
  void (*entry)(sgc_walk *w);
  /* Prefetch: fetches the first row block; row is this thread's, clamped. */
  void (*ahead)(sgc_walk *w, LLVMValueRef row);
  /* The top of the loop body, after the loop's own phis. */
  void (*phis)(sgc_walk *w);
  /* Once the row block's rows are known (w->a): fetches it, or with prefetch
   * (next != NULL: the next row block's row, clamped; more: there is one)
   * starts on the next. */
  void (*begin)(sgc_walk *w, LLVMValueRef next, LLVMValueRef more);
  /* Lowers the template's ops for the row block (sgc_walk_ops, or its own order). */
  void (*walk)(sgc_walk *w);
  /* The latch; from: the loop's predecessors (before the loop, the latch). */
  void (*end)(sgc_walk *w, LLVMBasicBlockRef from[2]);
  /* Chunk c of read op `op`, a vector of the tensor's own type. */
  LLVMValueRef (*read)(sgc_walk *w, const sgt_op *op, unsigned c);
  /* An i1: 0 where w->skip_op masks chunk c wholly (its work is skipped). */
  LLVMValueRef (*live)(sgc_walk *w, unsigned c);
  /* The template's last op (a write) has stored chunk c. */
  void (*stored)(sgc_walk *w, unsigned c);
  /* Stores chunk c of write op `op` (x, in the tensor's type; where the
   * column and row are valid) in place of the store to memory. */
  void (*write)(sgc_walk *w, const sgt_op *op, unsigned c, LLVMValueRef x);
  /* After the walk, in the same trip. */
  void (*finish)(sgc_walk *w);
  /* 1: write stores rows past M too (into an image of the row block's rows
   * that finish copies back below M), so the walk guards only columns. */
  int image_rows;
};

/* Makes row j (< plan->thread_rows) of this thread's rows in the row block
 * of this trip its current one: cx->row_in_block and w->a's row, its
 * validity and its clamp (codegen/kernel.c). */
void sgc_thread_row(sgc_walk *w, unsigned j);

/* The strategies (plan->flat: flat; plan->stage: staged; plan->row_tiles > 1:
 * tiled; else registers). */
extern const sgc_rows sgc_rows_registers, sgc_rows_staged, sgc_rows_tiled, sgc_rows_flat;

/* The walk (codegen/walk.c). */

/* Lowers every op of the template, in order. */
void sgc_walk_ops(sgc_walk *w);

/* Lowers op i at its place in the op list: a per-row value, a reduction, a
 * write, or a row value, whose chunks are built when rows->build says; a /
 * broadcast(s) becomes a * (1 / s): one division per row. */
void sgc_walk_op(sgc_walk *w, int i);

/* Stores the w->a.nchunks chunks of write op `op` (each past N or M skipped). */
void sgc_walk_write(sgc_walk *w, const sgt_op *op);

/* Chunk c of row value i with `fill` (a splat) past N: a reduction's input. */
LLVMValueRef sgc_walk_masked(sgc_walk *w, int i, LLVMValueRef fill, unsigned c);

/* Reduction op i's value v, reduced from its operand's chunks by a strategy:
 * v, or the sum of an exp built 2^8 too large (codegen.h, SGC_EXP_SCALED_BF16)
 * brought back, 2^-8 v. */
LLVMValueRef sgc_walk_reduced(sgc_walk *w, int i, LLVMValueRef v);

/* The causal op's limit for this thread's row, once a row: q + offset - col,
 * the lanes j <= limit of chunk 0 kept (q = row mod L, or row when L <= 0;
 * col: the thread's first column, a cluster's block starting at col_base),
 * clamped to [-1, span] (span: past the thread's last column) and truncated
 * to i32, so that chunk c's limit is that less sgc_chunk_offset32(c): no
 * clamp a chunk and no column live across the passes (staged plans spilled
 * them). */
LLVMValueRef sgc_causal_first32(sgc_walk *w, LLVMValueRef L, LLVMValueRef off);

/* A vector of plan->vec copies of scalar (a constant vector for a constant). */
LLVMValueRef sgc_splat(sgc_ctx *cx, LLVMValueRef scalar);

#endif
