/* rows_flat.c - the flat row strategy (codegen/rows.h; plan->flat): short rows
 * whose vector is under 16 bytes, read and written a row block at a time in
 * 16-byte pieces.
 *
 * A block's rows_per_block rows of a tensor whose stride is N (and whose rows
 * do not repeat) are one contiguous span of global memory. Each read tensor's
 * span is copied into the block's image of it in shared memory: the 16-byte
 * aligned body with asynchronous 16-byte copies spread over the block's
 * threads, the unaligned head and tail element by element. The image starts
 * at the span's offset within 16 bytes (pad), so that the body's copies are
 * aligned at both ends; element (r, n) of the block sits at pad + (r N + n) x
 * size. After a barrier, each thread reads its chunks from the image (a
 * masked chunk reads column 0), as the registers strategy would from memory,
 * and the writes go to the write tensors' images; after a second barrier the
 * images are written back to memory the same way, body in 16-byte stores.
 * Tensors whose rows are not contiguous (a stride other than N, repeated
 * rows) take the per-thread path instead, chosen at run time: a thread loads
 * its own chunks into the image (pad 0) and stores its outputs straight to
 * memory. A barrier at the top of each row block keeps the images of the
 * previous one until every thread is done with them.
 *
 * Needs: the target's stage_copy, stage_commit, stage_wait and barrier hooks;
 * the launch's dynamic shared memory (plan->stage_bytes, meta dsmem; plan/
 * policy.c sgp_flat_bytes). Produces: sgc_rows_flat. */
#include "codegen/rows.h"

#include "plan/policy.h"

typedef struct flat {
  LLVMValueRef stage;                 /* the dynamic shared memory (i8 array) */
  unsigned base[SGT_MAX_TENSORS];     /* byte offset of each tensor's image */
  int used[SGT_MAX_TENSORS];          /* 1: read, 2: written (a tensor is one or the other) */
  LLVMValueRef pad[SGT_MAX_TENSORS];  /* this row block: where the image starts (i64 < 16) */
  LLVMValueRef dense[SGT_MAX_TENSORS]; /* this row block: its rows are one span (i1) */
  LLVMValueRef row0, rows_here;       /* the block's first row, its rows below M (i64) */
} flat;

static LLVMValueRef i64c(sgc_ctx *cx, uint64_t v) { return LLVMConstInt(cx->i64, v, 0); }

/* The image of tensor ti, at byte `off` (i64) past its start. */
static LLVMValueRef image_at(sgc_walk *w, int ti, LLVMValueRef off) {
  sgc_ctx *cx = w->cx;
  flat *s = w->own;
  off = LLVMBuildAdd(cx->b, LLVMBuildAdd(cx->b, i64c(cx, s->base[ti]), s->pad[ti], ""), off,
                     "image.off");
  return LLVMBuildGEP2(cx->b, LLVMInt8TypeInContext(cx->ctx), s->stage, &off, 1, "image.at");
}

/* This thread's chunk c in tensor ti's image (column 0 for a masked chunk). */
static LLVMValueRef chunk_at(sgc_walk *w, int ti, unsigned c) {
  sgc_ctx *cx = w->cx;
  LLVMValueRef r = LLVMBuildZExt(cx->b, cx->row_in_block, cx->i64, "");
  LLVMValueRef el = LLVMBuildAdd(cx->b, LLVMBuildMul(cx->b, r, i64c(cx, (uint64_t)cx->plan->n), ""),
                                 sgc_clamped_col(cx, &w->a, c), "");
  return image_at(w, ti, LLVMBuildMul(cx->b, el, i64c(cx, sgc_elem_bytes(cx, ti)), ""));
}

/* Byte `off` (i64) of the row block's span of tensor ti in memory. */
static LLVMValueRef span_at(sgc_walk *w, int ti, LLVMValueRef off) {
  sgc_ctx *cx = w->cx;
  flat *s = w->own;
  LLVMValueRef row = sgc_element_ptr(cx, &w->a, ti, s->row0, i64c(cx, 0));
  return LLVMBuildGEP2(cx->b, LLVMInt8TypeInContext(cx->ctx), row, &off, 1, "span.at");
}

/* Copies one element or one 16-byte piece at byte `off` of tensor ti's span,
 * into its image (in) or back to memory (out). */
static void copy_piece(sgc_walk *w, int ti, LLVMValueRef off, unsigned bytes, int out) {
  sgc_ctx *cx = w->cx;
  LLVMValueRef from = out ? image_at(w, ti, off) : span_at(w, ti, off);
  LLVMValueRef to = out ? span_at(w, ti, off) : image_at(w, ti, off);
  if (bytes == 16 && !out) {
    cx->hooks->stage_copy(cx, to, from, 16);
    return;
  }
  LLVMTypeRef ty = bytes == 16 ? LLVMVectorType(cx->i32, 4) : sgc_elem_type(cx, ti);
  LLVMValueRef v = LLVMBuildLoad2(cx->b, ty, from, "piece");
  LLVMSetAlignment(v, bytes);
  LLVMSetAlignment(LLVMBuildStore(cx->b, v, to), bytes);
}

/* The row block's span of tensor ti between memory and its image: the
 * elements before the first 16-byte boundary (head), the 16-byte pieces, the
 * elements after the last boundary (tail); thread tid takes head and tail
 * element tid and pieces tid, tid + B, ... */
static void span_copy(sgc_walk *w, int ti, int out) {
  sgc_ctx *cx = w->cx;
  const sg_plan *pl = cx->plan;
  flat *s = w->own;
  LLVMBuilderRef b = cx->b;
  unsigned es = sgc_elem_bytes(cx, ti), B = pl->block_threads;
  LLVMValueRef len = LLVMBuildMul(b, s->rows_here, i64c(cx, (uint64_t)pl->n * es), "span.len");
  /* head: up to the first boundary, within the span */
  LLVMValueRef head = LLVMBuildAnd(b, LLVMBuildSub(b, i64c(cx, 16), s->pad[ti], ""), i64c(cx, 15), "");
  head = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, head, len, ""), head, len, "span.head");
  LLVMValueRef pieces = LLVMBuildUDiv(b, LLVMBuildSub(b, len, head, ""), i64c(cx, 16), "span.pieces");
  LLVMValueRef tail = LLVMBuildAdd(b, head, LLVMBuildMul(b, pieces, i64c(cx, 16), ""), "span.tail");
  LLVMValueRef tid = LLVMBuildZExt(b, cx->tid, cx->i64, "");
  LLVMValueRef at = LLVMBuildMul(b, tid, i64c(cx, es), "");
  /* head and tail elements: fewer than 16 / es each (a block has more threads) */
  LLVMBasicBlockRef j = sgc_open_if(cx, LLVMBuildICmp(b, LLVMIntULT, at, head, ""), "span.head");
  copy_piece(w, ti, at, es, out);
  sgc_close_if(cx, j);
  LLVMValueRef tat = LLVMBuildAdd(b, tail, at, "");
  j = sgc_open_if(cx, LLVMBuildICmp(b, LLVMIntULT, tat, len, ""), "span.tail");
  copy_piece(w, ti, tat, es, out);
  sgc_close_if(cx, j);
  /* the pieces: at most ceil(rows x N x es / 16 / B) for each thread */
  uint64_t most = ((uint64_t)pl->rows_per_block * (uint64_t)pl->n * es / 16 + B - 1) / B;
  for (uint64_t k = 0; k < most; k++) {
    LLVMValueRef p = LLVMBuildAdd(b, tid, i64c(cx, k * B), "piece");
    j = sgc_open_if(cx, LLVMBuildICmp(b, LLVMIntULT, p, pieces, ""), "span.piece");
    copy_piece(w, ti, LLVMBuildAdd(b, head, LLVMBuildMul(b, p, i64c(cx, 16), ""), ""), 16, out);
    sgc_close_if(cx, j);
  }
}

/* Per-thread path for tensor ti (rows not one span): this thread's chunks of
 * its row into the image (pad 0), masked ones skipped. */
static void own_copy(sgc_walk *w, int ti) {
  sgc_ctx *cx = w->cx;
  const sg_plan *pl = cx->plan;
  unsigned bytes = pl->vec * sgc_elem_bytes(cx, ti);
  LLVMTypeRef vt = LLVMVectorType(sgc_elem_type(cx, ti), pl->vec);
  for (unsigned c = 0; c < w->a.nchunks; c++) {
    LLVMBasicBlockRef j = w->a.col_valid[c] ? sgc_open_if(cx, w->a.col_valid[c], "own.copy") : NULL;
    LLVMValueRef v = LLVMBuildLoad2(
        cx->b, vt, sgc_element_ptr(cx, &w->a, ti, w->a.row_clamped, w->a.col[c]), "own");
    LLVMSetAlignment(v, bytes);
    LLVMSetAlignment(LLVMBuildStore(cx->b, v, chunk_at(w, ti, c)), bytes);
    if (j)
      sgc_close_if(cx, j);
  }
}

/* The images and the tensors they hold. */
static sg_status declare(sgc_walk *w, sg_diag *diag) {
  sgc_ctx *cx = w->cx;
  const sg_template *t = cx->t;
  flat *s = w->own;
  (void)diag;
  s->stage = sgc_stage_memory(cx);
  for (int i = 0; i < t->nops; i++)
    if (t->ops[i].code == SGT_READ || t->ops[i].code == SGT_WRITE)
      s->used[t->ops[i].tensor] = t->ops[i].code == SGT_READ ? 1 : 2;
  unsigned base = 0; /* in tensor order, as sgp_flat_bytes counts them */
  for (int i = 0; i < t->ntensors; i++)
    if (s->used[i]) {
      s->base[i] = base;
      base += (unsigned)sgp_flat_image_bytes(cx->plan, sgc_elem_bytes(cx, i));
    }
  return SG_OK;
}

static void entry(sgc_walk *w) {
  sgc_chunk_columns(w->cx, &w->a, NULL, w->cx->plan->chunks, (uint64_t)w->cx->plan->tile_n);
}

/* The row block's spans: whether each is one, where its image starts; the
 * read tensors copied in, then a barrier. */
static void begin(sgc_walk *w, LLVMValueRef next, LLVMValueRef more) {
  sgc_ctx *cx = w->cx;
  const sg_plan *pl = cx->plan;
  const sg_template *t = cx->t;
  flat *s = w->own;
  LLVMBuilderRef b = cx->b;
  (void)next, (void)more; /* no prefetch */
  cx->hooks->barrier(cx); /* the previous row block's images are done with */
  s->row0 = LLVMBuildSub(b, w->a.row, LLVMBuildZExt(b, cx->row_in_block, cx->i64, ""), "row0");
  LLVMValueRef left = LLVMBuildSub(b, w->a.rows, s->row0, "");
  LLVMValueRef R = i64c(cx, pl->rows_per_block);
  s->rows_here = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, left, R, ""), left, R, "rows.here");
  for (int ti = 0; ti < t->ntensors; ti++) {
    if (!s->used[ti])
      continue;
    s->dense[ti] = w->a.repeat[ti] ? LLVMConstInt(cx->i1, 0, 0)
                                   : LLVMBuildICmp(b, LLVMIntEQ, w->a.stride[ti],
                                                   i64c(cx, (uint64_t)pl->n), "dense");
    LLVMValueRef start = LLVMBuildPtrToInt(b, span_at(w, ti, i64c(cx, 0)), cx->i64, "");
    s->pad[ti] = LLVMBuildSelect(b, s->dense[ti], LLVMBuildAnd(b, start, i64c(cx, 15), ""),
                                 i64c(cx, 0), "pad");
    if (s->used[ti] != 1)
      continue;
    LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "span.in");
    LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "own.in");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "in.done");
    LLVMBuildCondBr(b, s->dense[ti], yes, no);
    LLVMPositionBuilderAtEnd(b, yes);
    span_copy(w, ti, 0);
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, no);
    own_copy(w, ti);
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, join);
  }
  cx->hooks->stage_commit(cx);
  cx->hooks->stage_wait(cx, 0);
  cx->hooks->barrier(cx);
}

static LLVMValueRef read_image(sgc_walk *w, const sgt_op *op, unsigned c) {
  sgc_ctx *cx = w->cx;
  LLVMValueRef v = LLVMBuildLoad2(cx->b, LLVMVectorType(sgc_elem_type(cx, op->tensor), cx->plan->vec),
                                  chunk_at(w, op->tensor, c), "x.image");
  LLVMSetAlignment(v, cx->plan->vec * sgc_elem_bytes(cx, op->tensor));
  return v;
}

/* Chunk c of write op `op` (x, the tensor's type; its column and row valid):
 * into the image where the rows are one span, else straight to memory. */
static void write_chunk(sgc_walk *w, const sgt_op *op, unsigned c, LLVMValueRef x) {
  sgc_ctx *cx = w->cx;
  flat *s = w->own;
  unsigned align = cx->plan->vec * sgc_elem_bytes(cx, op->tensor);
  LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "image.store");
  LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "own.store");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "store.done");
  LLVMBuildCondBr(cx->b, s->dense[op->tensor], yes, no);
  LLVMPositionBuilderAtEnd(cx->b, yes);
  LLVMSetAlignment(LLVMBuildStore(cx->b, x, chunk_at(w, op->tensor, c)), align);
  LLVMBuildBr(cx->b, join);
  LLVMPositionBuilderAtEnd(cx->b, no);
  LLVMValueRef at = sgc_element_ptr(cx, &w->a, op->tensor, w->a.row, w->a.col[c]);
  LLVMSetAlignment(LLVMBuildStore(cx->b, x, at), align);
  LLVMBuildBr(cx->b, join);
  LLVMPositionBuilderAtEnd(cx->b, join);
}

/* After the walk: the write tensors' images back to memory (one span each). */
static void finish(sgc_walk *w) {
  sgc_ctx *cx = w->cx;
  flat *s = w->own;
  cx->hooks->barrier(cx);
  for (int ti = 0; ti < cx->t->ntensors; ti++)
    if (s->used[ti] == 2) {
      LLVMBasicBlockRef j = sgc_open_if(cx, s->dense[ti], "span.out");
      span_copy(w, ti, 1);
      sgc_close_if(cx, j);
    }
}

const sgc_rows sgc_rows_flat = {
    .own_size = sizeof(flat),
    .build = SGC_BUILD_AT_OP,
    .declare = declare,
    .entry = entry,
    .begin = begin,
    .walk = sgc_walk_ops,
    .finish = finish,
    .read = read_image,
    .write = write_chunk,
};
