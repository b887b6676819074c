/* rows_tiled.c - the tiled row strategy (codegen/rows.h; plan->row_tiles > 1:
 * rows longer than the register budget on targets with stream_long_rows, and
 * the inner layout): a thread holds a tile of plan->chunks vectors of its row
 * at a time. Each reduction is one pass over the row: a loop over the full
 * tiles, then the partial tail tile, each loading the row afresh and building
 * the row values it needs (the walk's memo cleared per tile), and
 * accumulating per-chunk partials that sgc_reduce_row then reduces over
 * chunks and threads; an online (max, sum) chain is one such pass, carrying
 * the running pairs (sgc_online_tile). The writes are one last pass of the
 * same kind. Nothing is prefetched: every pass loads.
 *
 * Needs: the walk's ops (sgc_walk_op, sgc_walk_write, sgc_walk_masked), the
 * reduction tree. Produces: sgc_rows_tiled. */
#include <math.h>

#include "codegen/rows.h"

typedef struct tiled {
  LLVMValueRef raw[SGT_MAX_OPS][SGC_MAX_CHUNKS]; /* read ops: the current tile's loads */
} tiled;

/* One pass over the row's tiles. */
typedef struct tile_pass {
  int target;           /* the reduction op (an online chain's max), or -1: the writes */
  sgc_reduce_kind kind;
  LLVMValueRef acc[SGC_MAX_CHUNKS]; /* per-chunk partials; online: the running (max, sum) */
} tile_pass;

/* Accumulators a pass carries from tile to tile. */
static unsigned tile_accs(const sg_plan *pl, const tile_pass *tp) {
  return tp->target < 0 ? 0 : tp->kind == SGC_REDUCE_ONLINE ? 2 : pl->chunks;
}

/* The tile that starts at column `base` (i64), of `nchunks` chunks and `limit`
 * columns: its loads, then its part of the pass. */
static void lower_tile(sgc_walk *w, LLVMValueRef base, unsigned nchunks, uint64_t limit,
                       tile_pass *tp) {
  sgc_ctx *cx = w->cx;
  tiled *s = w->own;
  const sg_template *t = cx->t;
  sgc_chunk_columns(cx, &w->a, base, nchunks, limit);
  for (int i = 0; i < t->nops; i++) {
    for (unsigned c = 0; c < cx->plan->chunks; c++) /* values of another tile: not these */
      w->vals[i].seg[c] = -1;
    if (t->ops[i].code == SGT_READ) /* loads no chunk uses are dead code */
      sgc_load_row(cx, &w->a, &t->ops[i], w->a.row_clamped, s->raw[i]);
  }
  if (tp->target < 0) {
    for (int i = 0; i < t->nops; i++)
      if (t->ops[i].code == SGT_WRITE)
        sgc_walk_write(w, &t->ops[i]);
    return;
  }
  int online = tp->kind == SGC_REDUCE_ONLINE;
  int in = t->ops[tp->target].operands[0];
  LLVMValueRef fill =
      sgc_splat(cx, online ? LLVMConstReal(cx->f32, -INFINITY) : sgc_identity(cx, tp->kind));
  LLVMValueRef x[SGC_MAX_CHUNKS];
  for (unsigned c = 0; c < nchunks; c++) {
    x[c] = sgc_walk_masked(w, in, fill, c);
    if (!online)
      tp->acc[c] = sgc_combine(cx, tp->kind, tp->acc[c], x[c]);
  }
  if (online)
    sgc_online_tile(cx, &tp->acc[0], &tp->acc[1], x, nchunks);
}

/* A pass: the loop over the full tiles, carrying the accumulators, then the tail. */
static void tile_pass_emit(sgc_walk *w, tile_pass *tp) {
  sgc_ctx *cx = w->cx;
  const sg_plan *pl = cx->plan;
  LLVMBuilderRef b = cx->b;
  uint64_t per_chunk = (uint64_t)pl->threads_per_row * pl->vec;
  uint64_t tile_cols = per_chunk * pl->chunks;
  uint64_t full = (uint64_t)pl->tile_n / tile_cols, rest = (uint64_t)pl->tile_n % tile_cols;
  LLVMValueRef trips = LLVMConstInt(cx->i64, full, 0);
  if (sgp_dynamic_n(pl)) { /* a range of N: the tiles that reach the run-time N's
                              (n + 2 vec - 2) / vec peeled vectors, each chunk checked */
    LLVMValueRef cols = LLVMBuildAdd(b, cx->cols, LLVMConstInt(cx->i64, 2 * pl->vec - 2 + tile_cols - 1, 0), "");
    trips = LLVMBuildUDiv(b, cols, LLVMConstInt(cx->i64, tile_cols, 0), "tiles");
    full = 1; /* at least one: N >= 1 */
    rest = 0;
  }
  unsigned nacc = tile_accs(pl, tp);
  LLVMValueRef init[SGC_MAX_CHUNKS];
  for (unsigned c = 0; c < nacc; c++)
    tp->acc[c] = init[c] = sgc_splat(cx, tp->kind != SGC_REDUCE_ONLINE
                                             ? sgc_identity(cx, tp->kind)
                                             : LLVMConstReal(cx->f32, c ? 0.0 : -INFINITY));
  if (full) {
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "tile");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "tile.done");
    LLVMBuildBr(b, loop);
    LLVMPositionBuilderAtEnd(b, loop);
    LLVMValueRef ti = LLVMBuildPhi(b, cx->i64, "tile.index"), phis[SGC_MAX_CHUNKS];
    for (unsigned c = 0; c < nacc; c++)
      tp->acc[c] = phis[c] = LLVMBuildPhi(b, LLVMTypeOf(init[c]), "tile.acc");
    LLVMValueRef base = LLVMBuildMul(b, ti, LLVMConstInt(cx->i64, tile_cols, 0), "tile.start");
    lower_tile(w, base, pl->chunks, tile_cols, tp);
    LLVMValueRef next = LLVMBuildAdd(b, ti, LLVMConstInt(cx->i64, 1, 0), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, next, trips, ""), loop, done);
    LLVMBasicBlockRef from[2] = {pre, latch};
    LLVMValueRef iv[2] = {LLVMConstInt(cx->i64, 0, 0), next};
    LLVMAddIncoming(ti, iv, from, 2);
    for (unsigned c = 0; c < nacc; c++) {
      LLVMValueRef av[2] = {init[c], tp->acc[c]};
      LLVMAddIncoming(phis[c], av, from, 2);
    }
    LLVMPositionBuilderAtEnd(b, done);
  }
  if (rest)
    lower_tile(w, LLVMConstInt(cx->i64, full * tile_cols, 0),
               (unsigned)((rest + per_chunk - 1) / per_chunk), rest, tp);
}

/* Chunk c of a pass's accumulated partials (every chunk of a tile). */
static LLVMValueRef tile_acc_chunk(void *env, unsigned c) { return ((tile_pass *)env)->acc[c]; }

/* The ops of a tiled row in op order: a reduction is a pass over the row (an
 * online chain's max and sum one pass), a per-row value or a row value's
 * reciprocal is computed once, row values are built in each tile where they
 * are used; then the pass of the writes. */
static void walk_tiles(sgc_walk *w) {
  sgc_ctx *cx = w->cx;
  const sg_template *t = cx->t;
  for (int i = 0; i < t->nops; i++) {
    const sgt_op *op = &t->ops[i];
    int e, sum;
    if (w->done[i])
      continue;
    if (sgt_opcode_is_reduction(op->code)) {
      int online = cx->plan->online && sgt_online_chain(t, i, &e, &sum);
      tile_pass tp = {i, online ? SGC_REDUCE_ONLINE : op->code == SGT_MAX ? SGC_REDUCE_MAX
                                                                            : SGC_REDUCE_SUM, {0}};
      tile_pass_emit(w, &tp);
      w->a.nchunks = cx->plan->chunks;
      sgc_chunks x = {tile_acc_chunk, &tp, NULL};
      w->vals[i].is_row = 0;
      if (online) {
        sgc_reduce_pairs(cx, tp.acc[0], tp.acc[1], &w->vals[i].scalar, &w->vals[sum].scalar);
        w->vals[sum].is_row = 0;
        w->done[sum] = 1;
      } else {
        w->vals[i].scalar = sgc_walk_reduced(w, i, sgc_reduce_row(cx, tp.kind, &x));
      }
      w->seg++;
    } else if (op->code != SGT_WRITE) {
      sgc_walk_op(w, i); /* builds no chunk: SGC_BUILD_ON_USE */
    }
  }
  tile_pass tp = {-1, SGC_REDUCE_SUM, {0}};
  tile_pass_emit(w, &tp);
}

static LLVMValueRef read_raw(sgc_walk *w, const sgt_op *op, unsigned c) {
  return ((tiled *)w->own)->raw[op - w->cx->t->ops][c];
}

const sgc_rows sgc_rows_tiled = {
    .own_size = sizeof(tiled),
    .build = SGC_BUILD_ON_USE,
    .walk = walk_tiles,
    .read = read_raw,
};
