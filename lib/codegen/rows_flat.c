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
 * its own chunks into the image (pad 0) and, after the second barrier, stores
 * its own outputs from the image to memory. Every write goes to the image
 * (rows past M too: they are not copied back), so that no store branches on
 * the strides or the row. A barrier at the top of each row block keeps the
 * images of the previous one until every thread is done with them.
 * With prefetch (rows_in_flight 2, a persistent grid: sgp_policy_prefetch, or
 * a constraint) the read images are two sets: while a row block computes from one,
 * the next row block's spans are copied into the other (their copies issued
 * after the top barrier, one commit group a row block, waited for one trip
 * later), so a block keeps its next span in flight beside this one's passes.
 * Tensors whose rows are not one span are still copied per thread in the
 * trip that reads them.
 *
 * Needs: the target's stage_copy, stage_commit, stage_wait and barrier hooks;
 * the launch's dynamic shared memory (plan->stage_bytes, meta dsmem; plan/
 * policy.c sgp_flat_bytes). Produces: sgc_rows_flat. */
#include "codegen/rows.h"

#include "plan/policy.h"

/* One row block's spans: its first row, its rows below M, and where each
 * tensor's image starts within 16 bytes. */
typedef struct span {
  LLVMValueRef row0, rows_here;       /* i64 */
  LLVMValueRef pad[SGT_MAX_TENSORS];  /* i64 < 16 */
} span;

typedef struct flat {
  LLVMValueRef stage;                 /* the dynamic shared memory (i8 array) */
  unsigned base[SGT_MAX_TENSORS];     /* byte offset of each tensor's image (read ones: set 0) */
  unsigned base1[SGT_MAX_TENSORS];    /* prefetch: a read tensor's image in set 1 */
  int used[SGT_MAX_TENSORS];          /* 1: read, 2: written (a tensor is one or the other) */
  LLVMValueRef dense[SGT_MAX_TENSORS]; /* its rows are one span (i1; a launch's strides) */
  span cur;                           /* this row block's */
  LLVMValueRef set;                   /* i1: this trip reads set 1 (prefetch: odd trips) */
} flat;

static LLVMValueRef i64c(sgc_ctx *cx, uint64_t v) { return LLVMConstInt(cx->i64, v, 0); }

/* Tensor ti's image (a read one's in set 1 where `set`, an i1, is 1) of row
 * block sp, at byte `off` (i64) past its start. */
static LLVMValueRef image_at(sgc_walk *w, int ti, const span *sp, LLVMValueRef set,
                             LLVMValueRef off) {
  sgc_ctx *cx = w->cx;
  flat *s = w->own;
  LLVMValueRef base = i64c(cx, s->base[ti]);
  if (s->used[ti] == 1 && cx->plan->prefetch)
    base = LLVMBuildSelect(cx->b, set, i64c(cx, s->base1[ti]), base, "image.set");
  off = LLVMBuildAdd(cx->b, LLVMBuildAdd(cx->b, base, sp->pad[ti], ""), off, "image.off");
  return LLVMBuildGEP2(cx->b, LLVMInt8TypeInContext(cx->ctx), s->stage, &off, 1, "image.at");
}

/* This thread's chunk c in tensor ti's image (column 0 for a masked chunk). */
static LLVMValueRef chunk_at(sgc_walk *w, int ti, unsigned c) {
  sgc_ctx *cx = w->cx;
  flat *s = w->own;
  LLVMValueRef r = LLVMBuildZExt(cx->b, cx->row_in_block, cx->i64, "");
  LLVMValueRef el = LLVMBuildAdd(cx->b, LLVMBuildMul(cx->b, r, i64c(cx, (uint64_t)cx->plan->n), ""),
                                 sgc_clamped_col(cx, &w->a, c), "");
  return image_at(w, ti, &s->cur, s->set,
                  LLVMBuildMul(cx->b, el, i64c(cx, sgc_elem_bytes(cx, ti)), ""));
}

/* Byte `off` (i64) of row block sp's span of tensor ti in memory. */
static LLVMValueRef span_at(sgc_walk *w, int ti, const span *sp, LLVMValueRef off) {
  sgc_ctx *cx = w->cx;
  LLVMValueRef row = sgc_element_ptr(cx, &w->a, ti, sp->row0, i64c(cx, 0));
  return LLVMBuildGEP2(cx->b, LLVMInt8TypeInContext(cx->ctx), row, &off, 1, "span.at");
}

/* Copies one element or one 16-byte piece at byte `off` of tensor ti's span,
 * into its image (in) or back to memory (out). */
static void copy_piece(sgc_walk *w, int ti, const span *sp, LLVMValueRef set, LLVMValueRef off,
                       unsigned bytes, int out) {
  sgc_ctx *cx = w->cx;
  LLVMValueRef from = out ? image_at(w, ti, sp, set, off) : span_at(w, ti, sp, off);
  LLVMValueRef to = out ? span_at(w, ti, sp, off) : image_at(w, ti, sp, set, off);
  if (bytes == 16 && !out) {
    cx->hooks->stage_copy(cx, to, from, 16);
    return;
  }
  LLVMTypeRef ty = bytes == 16 ? LLVMVectorType(cx->i32, 4) : sgc_elem_type(cx, ti);
  LLVMValueRef v = LLVMBuildLoad2(cx->b, ty, from, "piece");
  LLVMSetAlignment(v, bytes);
  LLVMSetAlignment(LLVMBuildStore(cx->b, v, to), bytes);
}

/* Row block sp's span of tensor ti between memory and its image (read set
 * 1 where `set`): the elements before the first 16-byte boundary (head), the 16-byte
 * pieces, the elements after the last boundary (tail); thread tid takes head
 * and tail element tid and pieces tid, tid + B, ... */
static void span_copy(sgc_walk *w, int ti, const span *sp, LLVMValueRef set, int out) {
  sgc_ctx *cx = w->cx;
  const sg_plan *pl = cx->plan;
  LLVMBuilderRef b = cx->b;
  unsigned es = sgc_elem_bytes(cx, ti), B = pl->block_threads;
  LLVMValueRef len = LLVMBuildMul(b, sp->rows_here, i64c(cx, (uint64_t)pl->n * es), "span.len");
  /* head: up to the first boundary, within the span */
  LLVMValueRef head = LLVMBuildAnd(b, LLVMBuildSub(b, i64c(cx, 16), sp->pad[ti], ""), i64c(cx, 15), "");
  head = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, head, len, ""), head, len, "span.head");
  LLVMValueRef pieces = LLVMBuildUDiv(b, LLVMBuildSub(b, len, head, ""), i64c(cx, 16), "span.pieces");
  LLVMValueRef tail = LLVMBuildAdd(b, head, LLVMBuildMul(b, pieces, i64c(cx, 16), ""), "span.tail");
  LLVMValueRef tid = LLVMBuildZExt(b, cx->tid, cx->i64, "");
  LLVMValueRef at = LLVMBuildMul(b, tid, i64c(cx, es), "");
  /* head and tail elements: fewer than 16 / es each (a block has more threads) */
  LLVMBasicBlockRef j = sgc_open_if(cx, LLVMBuildICmp(b, LLVMIntULT, at, head, ""), "span.head");
  copy_piece(w, ti, sp, set, at, es, out);
  sgc_close_if(cx, j);
  LLVMValueRef tat = LLVMBuildAdd(b, tail, at, "");
  j = sgc_open_if(cx, LLVMBuildICmp(b, LLVMIntULT, tat, len, ""), "span.tail");
  copy_piece(w, ti, sp, set, tat, es, out);
  sgc_close_if(cx, j);
  /* the pieces: at most ceil(rows x N x es / 16 / B) for each thread */
  uint64_t most = ((uint64_t)pl->rows_per_block * (uint64_t)pl->n * es / 16 + B - 1) / B;
  for (uint64_t k = 0; k < most; k++) {
    LLVMValueRef p = LLVMBuildAdd(b, tid, i64c(cx, k * B), "piece");
    j = sgc_open_if(cx, LLVMBuildICmp(b, LLVMIntULT, p, pieces, ""), "span.piece");
    copy_piece(w, ti, sp, set, LLVMBuildAdd(b, head, LLVMBuildMul(b, p, i64c(cx, 16), ""), ""), 16,
               out);
    sgc_close_if(cx, j);
  }
}

/* The spans of the row block whose first row is row0 (< M): its rows below M,
 * each tensor's offset within 16 bytes (0 where its rows are not one span). */
static void span_set(sgc_walk *w, span *sp, LLVMValueRef row0) {
  sgc_ctx *cx = w->cx;
  flat *s = w->own;
  LLVMBuilderRef b = cx->b;
  LLVMValueRef left = LLVMBuildSub(b, w->a.rows, row0, "");
  LLVMValueRef R = i64c(cx, cx->plan->rows_per_block);
  sp->row0 = row0;
  sp->rows_here = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, left, R, ""), left, R, "rows.here");
  for (int ti = 0; ti < cx->t->ntensors; ti++)
    if (s->used[ti]) {
      LLVMValueRef start = LLVMBuildPtrToInt(b, span_at(w, ti, sp, i64c(cx, 0)), cx->i64, "");
      sp->pad[ti] = LLVMBuildSelect(b, s->dense[ti], LLVMBuildAnd(b, start, i64c(cx, 15), ""),
                                    i64c(cx, 0), "pad");
    }
}

/* Per-thread path for tensor ti (rows not one span): this thread's chunks of
 * its rows between memory and the image (pad 0): a read tensor's into it
 * (rows clamped), a written one's back out (rows below M); masked chunks
 * skipped. */
static void own_copy(sgc_walk *w, int ti, int out) {
  sgc_ctx *cx = w->cx;
  const sg_plan *pl = cx->plan;
  unsigned bytes = pl->vec * sgc_elem_bytes(cx, ti);
  LLVMTypeRef vt = LLVMVectorType(sgc_elem_type(cx, ti), pl->vec);
  sgc_addr here = w->a; /* the thread's first row, as set where this branch started */
  LLVMValueRef here_in = cx->row_in_block;
  for (unsigned r = 0; r < pl->thread_rows; r++) {
    if (pl->thread_rows > 1)
      sgc_thread_row(w, r);
    LLVMBasicBlockRef rj = out ? sgc_open_if(cx, w->a.row_valid, "own.row") : NULL;
    for (unsigned c = 0; c < w->a.nchunks; c++) {
      LLVMBasicBlockRef j =
          w->a.col_valid[c] ? sgc_open_if(cx, w->a.col_valid[c], "own.copy") : NULL;
      LLVMValueRef mem =
          sgc_element_ptr(cx, &w->a, ti, out ? w->a.row : w->a.row_clamped, w->a.col[c]);
      LLVMValueRef v =
          LLVMBuildLoad2(cx->b, vt, out ? chunk_at(w, ti, c) : mem, out ? "own.out" : "own");
      LLVMSetAlignment(v, bytes);
      LLVMSetAlignment(LLVMBuildStore(cx->b, v, out ? mem : chunk_at(w, ti, c)), bytes);
      if (j)
        sgc_close_if(cx, j);
    }
    if (rj)
      sgc_close_if(cx, rj);
  }
  w->a = here;
  cx->row_in_block = here_in;
}

/* Tensor ti of row block sp between memory and its image, chosen at run time:
 * its span in 16-byte pieces where its rows are one span, else each thread
 * its own chunks (own_copy); into the image, or back out where `out`. */
static void span_or_own(sgc_walk *w, int ti, const span *sp, LLVMValueRef set, int out) {
  sgc_ctx *cx = w->cx;
  flat *s = w->own;
  LLVMBuilderRef b = cx->b;
  LLVMBasicBlockRef yes =
      LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, out ? "span.out" : "span.in");
  LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, out ? "own.out" : "own.in");
  LLVMBasicBlockRef join =
      LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, out ? "out.done" : "in.done");
  LLVMBuildCondBr(b, s->dense[ti], yes, no);
  LLVMPositionBuilderAtEnd(b, yes);
  span_copy(w, ti, sp, set, out);
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, no);
  own_copy(w, ti, out);
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
}

/* The read tensors of row block sp into read set `set` (i1): each whose rows are
 * one span by 16-byte copies; with `own` (this trip's row block) each other
 * one per thread. Not committed. */
static void spans_in(sgc_walk *w, const span *sp, LLVMValueRef set, int own) {
  sgc_ctx *cx = w->cx;
  flat *s = w->own;
  for (int ti = 0; ti < cx->t->ntensors; ti++) {
    if (s->used[ti] != 1)
      continue;
    if (!own) {
      LLVMBasicBlockRef j = sgc_open_if(cx, s->dense[ti], "span.ahead");
      span_copy(w, ti, sp, set, 0);
      sgc_close_if(cx, j);
      continue;
    }
    span_or_own(w, ti, sp, set, 0);
  }
}

/* The images and the tensors they hold; with prefetch, two sets of the read
 * ones (set 1 after the written images). */
static sg_status declare(sgc_walk *w, sg_diag *diag) {
  sgc_ctx *cx = w->cx;
  const sg_template *t = cx->t;
  flat *s = w->own;
  s->stage = sgc_stage_memory(cx);
  for (int i = 0; i < t->nops; i++)
    if (t->ops[i].code == SGT_READ || t->ops[i].code == SGT_WRITE)
      s->used[t->ops[i].tensor] = t->ops[i].code == SGT_READ ? 1 : 2;
  unsigned base = 0; /* in tensor order, as sgp_flat_bytes counts them; set 1 after */
  for (int set = 0; set < (cx->plan->prefetch ? 2 : 1); set++)
    for (int i = 0; i < t->ntensors; i++)
      if (s->used[i] == 1 || (s->used[i] && !set)) {
        *(set ? &s->base1[i] : &s->base[i]) = base;
        base += (unsigned)sgp_flat_image_bytes(cx->plan, sgc_elem_bytes(cx, i));
      }
  if (base != cx->plan->stage_bytes) /* the launch's dynamic shared memory (sgp_flat_bytes) */
    return sg_diag_set(diag, SG_ERR_CODEGEN, "internal error: flat images of %u bytes, but the "
                       "plan gives the launch %u", base, cx->plan->stage_bytes);
  return SG_OK;
}

/* The chunks' columns; whether each tensor's rows are one span (its stride
 * is N and its rows do not repeat: the same for every row block). */
static void entry(sgc_walk *w) {
  sgc_ctx *cx = w->cx;
  flat *s = w->own;
  sgc_chunk_columns(cx, &w->a, NULL, cx->plan->chunks, (uint64_t)cx->plan->tile_n);
  for (int ti = 0; ti < cx->t->ntensors; ti++)
    if (s->used[ti])
      s->dense[ti] = w->a.repeat[ti] ? LLVMConstInt(cx->i1, 0, 0)
                                     : LLVMBuildICmp(cx->b, LLVMIntEQ, w->a.stride[ti],
                                                     i64c(cx, (uint64_t)cx->plan->n), "dense");
}

/* Prefetch: the first row block's spans into read set 0, one commit group. */
static void ahead(sgc_walk *w, LLVMValueRef row) {
  sgc_ctx *cx = w->cx;
  span first;
  (void)row;
  span_set(w, &first, sgc_block_row(cx, &w->a, cx->first_block, i64c(cx, 0)));
  spans_in(w, &first, LLVMConstInt(cx->i1, 0, 0), 0);
  cx->hooks->stage_commit(cx);
}

/* The row block's spans, after a barrier (the previous row block's images are
 * done with). Without prefetch its reads are copied in; with it the next row
 * block's (when there is one) go into the other read set, and this one's,
 * copied a trip earlier, are waited for. Then a barrier. */
static void begin(sgc_walk *w, LLVMValueRef next, LLVMValueRef more) {
  sgc_ctx *cx = w->cx;
  flat *s = w->own;
  LLVMBuilderRef b = cx->b;
  (void)next; /* the next row block's first row is computed here, unclamped */
  cx->hooks->barrier(cx);
  span_set(
      w, &s->cur,
      LLVMBuildSub(b, w->a.row, LLVMBuildZExt(b, cx->first_row_in_block, cx->i64, ""), "row0"));
  if (!cx->plan->prefetch) {
    s->set = LLVMConstInt(cx->i1, 0, 0);
    spans_in(w, &s->cur, s->set, 1);
    cx->hooks->stage_commit(cx);
    cx->hooks->stage_wait(cx, 0);
    cx->hooks->barrier(cx);
    return;
  }
  s->set = LLVMBuildICmp(b, LLVMIntNE, cx->parity, LLVMConstInt(cx->i32, 0, 0), "read.set1");
  LLVMValueRef other = LLVMBuildNot(b, s->set, "next.set1");
  LLVMBasicBlockRef j = sgc_open_if(cx, more, "span.next");
  span nxt;
  span_set(w, &nxt, sgc_block_row(cx, &w->a, LLVMBuildAdd(b, cx->row_block, cx->block_step, ""),
                                  i64c(cx, 0)));
  spans_in(w, &nxt, other, 0);
  sgc_close_if(cx, j);
  cx->hooks->stage_commit(cx); /* one group a trip, empty on the last */
  cx->hooks->stage_wait(cx, 1); /* this row block's, committed a trip earlier */
  for (int ti = 0; ti < cx->t->ntensors; ti++) /* rows that are not one span: per thread */
    if (s->used[ti] == 1) {
      LLVMBasicBlockRef o = sgc_open_if(cx, LLVMBuildNot(b, s->dense[ti], ""), "own.in");
      own_copy(w, ti, 0);
      sgc_close_if(cx, o);
    }
  cx->hooks->barrier(cx);
}

static LLVMValueRef read_image(sgc_walk *w, const sgt_op *op, unsigned c) {
  sgc_ctx *cx = w->cx;
  LLVMValueRef v = LLVMBuildLoad2(cx->b, LLVMVectorType(sgc_elem_type(cx, op->tensor), cx->plan->vec),
                                  chunk_at(w, op->tensor, c), "x.image");
  LLVMSetAlignment(v, cx->plan->vec * sgc_elem_bytes(cx, op->tensor));
  return v;
}

/* Chunk c of write op `op` (x, the tensor's type; its column valid, its row
 * perhaps past M: the image has the row block's rows): into the image,
 * whatever the strides (finish writes it back), so that no store branches on
 * them. */
static void write_chunk(sgc_walk *w, const sgt_op *op, unsigned c, LLVMValueRef x) {
  sgc_ctx *cx = w->cx;
  unsigned align = cx->plan->vec * sgc_elem_bytes(cx, op->tensor);
  LLVMSetAlignment(LLVMBuildStore(cx->b, x, chunk_at(w, op->tensor, c)), align);
}

/* After the walk: the write tensors' images back to memory: one span each
 * in 16-byte pieces where the rows are one span, else each thread its own
 * chunks (own_copy). */
static void finish(sgc_walk *w) {
  sgc_ctx *cx = w->cx;
  flat *s = w->own;
  cx->hooks->barrier(cx);
  for (int ti = 0; ti < cx->t->ntensors; ti++)
    if (s->used[ti] == 2)
      span_or_own(w, ti, &s->cur, s->set, 1);
}

const sgc_rows sgc_rows_flat = {
    .own_size = sizeof(flat),
    .build = SGC_BUILD_AT_OP,
    .declare = declare,
    .entry = entry,
    .ahead = ahead,
    .begin = begin,
    .walk = sgc_walk_ops,
    .finish = finish,
    .read = read_image,
    .write = write_chunk,
    .image_rows = 1,
};
