/* lower.c - template op list + plan -> one LLVM kernel (softgen/codegen.h).
 *
 * The kernel's parameters and launch metadata: codegen/abi.c.
 * Target-independent: ids, shuffles, barriers and exp2 come from the target's
 * hook table. The layout of the work, the addresses and the loads:
 * codegen/address.c.
 * Staged plans (plan->stage) copy each read's vectors to shared memory first
 * (the target's asynchronous copy; a thread copies exactly the vectors it reads
 * later, so waiting on its own copies suffices; they land in up to STAGE_GROUPS
 * groups in chunk order, each waited for before its first read) and do not keep row values
 * across a reduction: a row value used after one is recomputed from shared
 * memory (segments below), so registers hold no row between passes. With
 * one causal op in the template, a staged thread skips the chunks it masks
 * wholly (chunk_live): no copy for the reads only it needs, no reduction
 * update, one per-row value stored (causal_skip); a causal row reads only
 * the columns it keeps. Staged plans with prefetch (rows_in_flight 2, a
 * persistent grid) copy the next row block into a thread's slots as the
 * template's last op (a write) frees them, chunk by chunk (stage_next), so
 * the next row's copies overlap this row's stores; they copy rows whole.
 * Tiled plans (plan->row_tiles > 1, targets with stream_long_rows, and the
 * inner layout) hold a tile of `chunks` vectors at a time: each reduction is a
 * loop over the tiles that re-reads the row (lower_tiled below); an online
 * (max, sum) chain is one such loop. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>

#include "codegen/module.h"
#include "codegen/rows.h"

typedef struct lval {
  int is_row;          /* 1: chunks[] hold the row's vectors; 0: scalar */
  LLVMValueRef scalar; /* per-row value */
  LLVMValueRef recip;  /* a / broadcast(s): 1 / s, splat (per-row) */
  LLVMValueRef recip_scalar; /* the same 1 / s, one float */
  LLVMValueRef *chunks;
  int *seg;            /* per chunk: segment it was built in, -1 not yet */
} lval;

typedef struct row_state {
  sgc_addr a;                     /* where the row block's elements are */
  LLVMValueRef *raw[SGT_MAX_OPS]; /* read ops: the loaded vectors of this row block */
  int done[SGT_MAX_OPS];          /* ops already lowered by an online chain */
  LLVMValueRef stage;             /* staged plans: the shared-memory rows (i8 array) */
  unsigned stage_base[SGT_MAX_OPS]; /* read ops: byte offset of their rows in `stage` */
  unsigned stage_landed;          /* staged: groups of chunks waited for so far */
  int causal_op;                  /* staged: the template's one causal op, whose wholly
                                     masked chunks are skipped (causal_skip); else -1 */
  LLVMValueRef causal_first;      /* its first masked column less this thread's, clamped (i32) */
  unsigned char only_causal[SGT_MAX_OPS]; /* read ops needed only where causal_op keeps */
  int read_ops[SGT_MAX_OPS];      /* the template's read ops, in order */
  unsigned nreads;
  LLVMValueRef next_row, more;    /* staged prefetch: the next row block's row (clamped,
                                     i64; NULL: no prefetch) and whether there is one (i1) */
  int cur_seg;                    /* segment: reductions lowered so far */
} row_state;

static LLVMValueRef splat(sgc_ctx *cx, LLVMValueRef scalar) {
  unsigned n = cx->plan->vec;
  LLVMValueRef elems[SGC_MAX_VEC];
  if (LLVMIsConstant(scalar)) {
    for (unsigned i = 0; i < n; i++)
      elems[i] = scalar;
    return LLVMConstVector(elems, n);
  }
  LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(scalar), n); /* f32, or i32 (causal's limit) */
  LLVMValueRef v = LLVMBuildInsertElement(cx->b, LLVMGetPoison(vt), scalar,
                                          LLVMConstInt(cx->i32, 0, 0), "");
  LLVMValueRef zeros[SGC_MAX_VEC];
  for (unsigned i = 0; i < n; i++)
    zeros[i] = LLVMConstInt(cx->i32, 0, 0);
  return LLVMBuildShuffleVector(cx->b, v, LLVMGetPoison(vt), LLVMConstVector(zeros, n), "");
}

/* Shared-memory address of chunk c of this thread's row for read op `op`:
 * rows of plan->stage_pitch elements; chunk c at its column (a chunk past N
 * keeps its own slot, holding a copy of column 0). */
static LLVMValueRef stage_ptr(sgc_ctx *cx, row_state *rs, const sgt_op *op, unsigned c) {
  LLVMTypeRef et = sgc_elem_type(cx, op->tensor);
  unsigned long long esize = LLVMABISizeOfType(LLVMGetModuleDataLayout(cx->mod), et);
  LLVMValueRef row = LLVMBuildMul(cx->b, LLVMBuildZExt(cx->b, cx->row_in_block, cx->i64, ""),
                                  LLVMConstInt(cx->i64, cx->plan->stage_pitch, 0), "");
  LLVMValueRef el = LLVMBuildAdd(cx->b, row, rs->a.col[c], "");
  LLVMValueRef off = LLVMBuildAdd(cx->b, LLVMConstInt(cx->i64, rs->stage_base[op - cx->t->ops], 0),
                                  LLVMBuildMul(cx->b, el, LLVMConstInt(cx->i64, esize, 0), ""),
                                  "stage.off");
  return LLVMBuildGEP2(cx->b, LLVMInt8TypeInContext(cx->ctx), rs->stage, &off, 1, "stage.at");
}

/* Staged plans: this thread's chunks land in STAGE_GROUPS groups (or one
 * each, when fewer), in chunk order; the first read of a chunk waits for its
 * group only, so the first pass starts on chunk 0 while the rest are in flight
 * (with one block a multiprocessor nothing else would overlap the copies). A
 * row block's reads are built in straight-line code (stores branch only after
 * their value is built), so the wait before a group's first read dominates
 * every later read of that group. */
#define STAGE_GROUPS 8
static unsigned stage_groups(const row_state *rs) {
  return rs->a.nchunks < STAGE_GROUPS ? rs->a.nchunks : STAGE_GROUPS;
}
static unsigned stage_group(const row_state *rs, unsigned c) {
  return c * stage_groups(rs) / rs->a.nchunks;
}

/* Staged plans with a causal op (rs->causal_op): 1 where chunk c keeps at
 * least its first lane (the limit falls with c, so the chunks kept are a
 * prefix); a chunk it masks wholly is neither copied (for the reads it
 * alone needs), nor reduced, nor computed: its output is one per-row value
 * (causal_skip). NULL when nothing is skipped. */
static LLVMValueRef chunk_live(sgc_ctx *cx, const row_state *rs, unsigned c) {
  if (rs->causal_op < 0)
    return NULL;
  return LLVMBuildICmp(cx->b, LLVMIntSGE, rs->causal_first, sgc_chunk_offset32(cx, c), "chunk.live");
}

/* Waits for chunk c's group, the first time one of its chunks is needed. */
static void stage_wait_for(sgc_ctx *cx, row_state *rs, unsigned c) {
  unsigned g = stage_group(rs, c);
  if (g >= rs->stage_landed) {
    cx->hooks->stage_wait(cx, stage_groups(rs) - 1 - g);
    rs->stage_landed = g + 1;
  }
}

/* Copies this thread's chunk c of the read ops for row `row` (clamped like
 * load_raw) into shared memory, committing a group after each group's last
 * chunk. */
static void stage_chunk(sgc_ctx *cx, row_state *rs, LLVMValueRef row, unsigned c) {
  const int *read_ops = rs->read_ops;
  const sg_plan *pl = cx->plan;
  for (int only_causal = 0; only_causal < 2; only_causal++) { /* those copied always, then */
    LLVMBasicBlockRef join = NULL;
    for (unsigned r = 0; r < rs->nreads; r++) {
      const sgt_op *op = &cx->t->ops[read_ops[r]];
      if ((rs->causal_op >= 0 && rs->only_causal[read_ops[r]]) != only_causal)
        continue;
      if (only_causal && !join) /* the chunk's first such read opens the branch */
        join = sgc_open_if(cx, chunk_live(cx, rs, c), "stage.live");
      unsigned bytes = pl->vec * (unsigned)LLVMABISizeOfType(LLVMGetModuleDataLayout(cx->mod),
                                                             sgc_elem_type(cx, op->tensor));
      cx->hooks->stage_copy(cx, stage_ptr(cx, rs, op, c),
                         sgc_element_ptr(cx, &rs->a, op->tensor, row, sgc_clamped_col(cx, &rs->a, c)), bytes);
    }
    if (join)
      sgc_close_if(cx, join);
  }
  if (c + 1 == rs->a.nchunks || stage_group(rs, c + 1) != stage_group(rs, c))
    cx->hooks->stage_commit(cx);
}

/* Copies this thread's vectors of the read ops for row `row`, chunk by chunk. */
static void stage_rows(sgc_ctx *cx, row_state *rs, LLVMValueRef row) {
  for (unsigned c = 0; c < rs->a.nchunks; c++)
    stage_chunk(cx, rs, row, c);
  rs->stage_landed = 0;
}

/* Staged plans with prefetch (rs->next_row): once the template's last op has
 * stored chunk c, this thread is done with chunk c's slots, so the next row
 * block's copies into them start there (when there is one), overlapping the
 * rest of this row's stores. A slot is only ever read by the thread that
 * copies into it, and the copy is issued after the store that consumed the
 * slot's last read: no barrier. */
static void stage_next(sgc_ctx *cx, row_state *rs, unsigned c) {
  LLVMBasicBlockRef join = sgc_open_if(cx, rs->more, "stage.next");
  stage_chunk(cx, rs, rs->next_row, c);
  sgc_close_if(cx, join);
}

/* Chunk c of the read's value: the raw vector widened to f32, -inf past N
 * and past M. Staged plans re-read it from shared memory. */
static LLVMValueRef read_chunk(sgc_ctx *cx, row_state *rs, const sgt_op *op, unsigned c) {
  const sg_plan *pl = cx->plan;
  LLVMTypeRef et = sgc_elem_type(cx, op->tensor);
  LLVMValueRef ninf = splat(cx, LLVMConstReal(cx->f32, -INFINITY));
  LLVMValueRef v;
  if (pl->stage) {
    stage_wait_for(cx, rs, c);
    unsigned align = pl->vec * (unsigned)LLVMABISizeOfType(LLVMGetModuleDataLayout(cx->mod), et);
    v = LLVMBuildLoad2(cx->b, LLVMVectorType(et, pl->vec), stage_ptr(cx, rs, op, c), "x.staged");
    LLVMSetAlignment(v, align);
  } else {
    v = rs->raw[op - cx->t->ops][c];
  }
  if (et != cx->f32)
    v = cx->hooks->to_f32 ? cx->hooks->to_f32(cx, v)
                       : LLVMBuildFPExt(cx->b, v, LLVMVectorType(cx->f32, pl->vec), "");
  if (rs->a.col_valid[c])
    v = LLVMBuildSelect(cx->b, rs->a.col_valid[c], v, ninf, "x.masked");
  if (pl->rows_per_block > 1) /* rows past M read row M-1: mask them as well */
    v = LLVMBuildSelect(cx->b, rs->a.row_valid, v, ninf, "");
  return v;
}

/* The f32 constant value shaped like v: a scalar, or a splat of the plan's vector. */
static LLVMValueRef const_like(sgc_ctx *cx, LLVMValueRef v, double value) {
  LLVMValueRef c = LLVMConstReal(cx->f32, value);
  return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind ? splat(cx, c) : c;
}

static LLVMValueRef elementwise(sgc_ctx *cx, sgt_opcode code, LLVMValueRef a, LLVMValueRef b) {
  LLVMBuilderRef bd = cx->b;
  switch (code) {
  case SGT_ADD:
    return LLVMBuildFAdd(bd, a, b, "");
  case SGT_SUB:
    return LLVMBuildFSub(bd, a, b, "");
  case SGT_MUL:
    return LLVMBuildFMul(bd, a, b, "");
  case SGT_DIV:
    return LLVMBuildFDiv(bd, a, b, "");
  case SGT_NEG:
    return LLVMBuildFNeg(bd, a, "");
  case SGT_NINF_TO_ZERO:
    return LLVMBuildSelect(bd, LLVMBuildFCmp(bd, LLVMRealOEQ, a, const_like(cx, a, -INFINITY), ""),
                           const_like(cx, a, 0.0), a, "");
  case SGT_SAFE_DIV:
    return LLVMBuildSelect(bd, LLVMBuildFCmp(bd, LLVMRealOEQ, b, const_like(cx, b, 0.0), ""),
                           const_like(cx, a, 0.0), LLVMBuildFDiv(bd, a, b, ""), "");
  case SGT_EXP:
    return cx->hooks->exp2(cx, LLVMBuildFMul(bd, a, const_like(cx, a, M_LOG2E), ""));
  case SGT_LOG:
    return LLVMBuildFMul(bd, cx->hooks->log2(cx, a), const_like(cx, a, M_LN2), "");
  default:
    return NULL;
  }
}

/* The ops being lowered, for building row chunks on request. */
typedef struct lowering {
  sgc_ctx *cx;
  row_state *rs;
  const sgt_op *ops;
  lval *vals;
} lowering;

static LLVMValueRef row_chunk(const lowering *lw, int i, unsigned c);

/* Chunk c of operand k of op (a scalar operand, e.g. a parameter, splat). */
static LLVMValueRef operand_chunk(const lowering *lw, const sgt_op *op, int k, unsigned c) {
  const lval *v = &lw->vals[op->operands[k]];
  return v->is_row ? row_chunk(lw, op->operands[k], c) : splat(lw->cx, v->scalar);
}

/* The causal op's limit for this thread's row, once a row: q + offset - col,
 * the lanes j <= limit of chunk 0 kept (q = row mod L, or row when L <= 0;
 * col: the thread's first column, a cluster's block starting at col_base),
 * clamped to [-1, span] (span: past the thread's last column) and truncated
 * to i32, so that chunk c's limit is that less a constant: no clamp a chunk
 * and no column live across the passes (staged plans spilled them). */
static LLVMValueRef causal_first32(sgc_ctx *cx, row_state *rs, LLVMValueRef L, LLVMValueRef off) {
  LLVMBuilderRef b = cx->b;
  LLVMValueRef zero = LLVMConstInt(cx->i64, 0, 0);
  LLVMValueRef period = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, L, zero, ""), L,
                                        LLVMConstInt(cx->i64, INT64_MAX, 0), "causal.rows");
  LLVMValueRef q = LLVMBuildURem(b, rs->a.row, period, "causal.q");
  LLVMValueRef col = rs->a.col[0];
  if (rs->a.col_base)
    col = LLVMBuildAdd(b, col, rs->a.col_base, "causal.col");
  LLVMValueRef first = LLVMBuildSub(b, LLVMBuildAdd(b, q, off, ""), col, "causal.first");
  unsigned long long step = (unsigned long long)cx->plan->threads_per_row * cx->plan->vec;
  LLVMValueRef lo = LLVMConstInt(cx->i64, (unsigned long long)-1, 1),
               hi = LLVMConstInt(cx->i64, step * cx->plan->chunks + cx->plan->vec, 0);
  first = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, first, lo, ""), lo, first, "");
  first = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, first, hi, ""), hi, first, "");
  return LLVMBuildTrunc(b, first, cx->i32, "causal.first32");
}

/* causal(v, L, offset), chunk c: lane j of the vector at column col + j
 * keeps v when col + j <= row mod L + offset, else -inf (L <= 0: row). */
static LLVMValueRef causal_chunk(const lowering *lw, const sgt_op *op, unsigned c) {
  sgc_ctx *cx = lw->cx;
  LLVMBuilderRef b = cx->b;
  unsigned vec = cx->plan->vec;
  LLVMValueRef first = lw->rs->causal_first
                           ? lw->rs->causal_first
                           : causal_first32(cx, lw->rs, lw->vals[op->operands[1]].scalar,
                                            lw->vals[op->operands[2]].scalar);
  LLVMValueRef limit = LLVMBuildSub(b, first, sgc_chunk_offset32(cx, c), "causal.limit");
  LLVMValueRef lanes[SGC_MAX_VEC];
  for (unsigned j = 0; j < vec; j++)
    lanes[j] = LLVMConstInt(cx->i32, j, 0);
  LLVMValueRef lim = splat(cx, limit);
  LLVMValueRef keep = LLVMBuildICmp(b, LLVMIntSLE, LLVMConstVector(lanes, vec), lim, "causal.keep");
  return LLVMBuildSelect(b, keep, row_chunk(lw, op->operands[0], c),
                         splat(cx, LLVMConstReal(cx->f32, -INFINITY)), "causal");
}

/* Chunk c of row value i. Built once (registers plans) or once per segment
 * (staged plans: a chunk built before the latest reduction is rebuilt from
 * shared memory rather than kept in registers across it). (exp(a - s) stays
 * exp2((a - s) * log2e): folding it into fma(a, log2e, -s * log2e) overflows
 * when s * log2e exceeds the f32 range.) */
static LLVMValueRef row_chunk(const lowering *lw, int i, unsigned c) {
  sgc_ctx *cx = lw->cx;
  lval *v = &lw->vals[i];
  if (v->seg[c] >= 0 && (v->seg[c] == lw->rs->cur_seg || !cx->plan->stage))
    return v->chunks[c];
  const sgt_op *op = &lw->ops[i];
  const lval *a = op->operands[0] >= 0 ? &lw->vals[op->operands[0]] : NULL;
  LLVMValueRef r;
  if (op->code == SGT_READ)
    r = read_chunk(cx, lw->rs, op, c);
  else if (op->code == SGT_BROADCAST)
    r = a->is_row ? row_chunk(lw, op->operands[0], c) : splat(cx, a->scalar);
  else if (op->code == SGT_CAUSAL)
    r = causal_chunk(lw, op, c);
  else if (v->recip)
    r = LLVMBuildFMul(cx->b, operand_chunk(lw, op, 0, c), v->recip, "");
  else
    r = elementwise(cx, op->code, operand_chunk(lw, op, 0, c),
                    op->operands[1] >= 0 ? operand_chunk(lw, op, 1, c) : NULL);
  v->chunks[c] = r;
  v->seg[c] = lw->rs->cur_seg;
  return r;
}

/* The value row op i takes in a chunk that rs->causal_op masks wholly (-inf
 * in every lane there), as one per-row float; NULL when it depends on
 * anything else of the chunk (a read, another causal op). */
static LLVMValueRef dead_value(const lowering *lw, int i) {
  const sgt_op *op = &lw->ops[i];
  const lval *v = &lw->vals[i];
  if (!v->is_row)
    return v->scalar;
  if (i == lw->rs->causal_op)
    return LLVMConstReal(lw->cx->f32, -INFINITY);
  if (op->code == SGT_READ || op->code == SGT_CAUSAL || op->operands[0] < 0)
    return NULL;
  LLVMValueRef a = dead_value(lw, op->operands[0]), bv = NULL;
  if (!a || op->code == SGT_BROADCAST)
    return a;
  if (v->recip)
    return LLVMBuildFMul(lw->cx->b, a, v->recip_scalar, "");
  if (op->operands[1] >= 0 && !(bv = dead_value(lw, op->operands[1])))
    return NULL;
  return elementwise(lw->cx, op->code, a, bv);
}

/* 1 when op i's value in a wholly masked chunk is the constant `identity`. */
static int dead_is(const lowering *lw, int i, double identity) {
  if (lw->rs->causal_op < 0)
    return 0;
  LLVMValueRef d = dead_value(lw, i);
  LLVMBool lossy;
  return d && LLVMIsAConstantFP(d) && LLVMConstRealGetDouble(d, &lossy) == identity;
}

/* A reduction's input: chunk c of a row value, masked with `fill` past N. */
typedef struct masked_src {
  const lowering *lw;
  int op;
  LLVMValueRef fill; /* splat identity */
} masked_src;

static LLVMValueRef masked_chunk(void *env, unsigned c) {
  const masked_src *m = env;
  LLVMValueRef v = row_chunk(m->lw, m->op, c), ok = m->lw->rs->a.col_valid[c];
  return ok ? LLVMBuildSelect(m->lw->cx->b, ok, v, m->fill, "") : v;
}

/* The reduction's chunk c is skipped where causal masks it wholly (only
 * used when the input is the identity there: masked_reduction). */
static LLVMValueRef masked_live(void *env, unsigned c) {
  const masked_src *m = env;
  stage_wait_for(m->lw->cx, m->lw->rs, c); /* not first inside the skipped branch */
  return chunk_live(m->lw->cx, m->lw->rs, c);
}

/* The reduction input of row value `op` (identity: the reduction's), for sgc_reduce_*. */
static sgc_chunks masked_reduction(masked_src *src, double identity) {
  sgc_chunks x = {masked_chunk, src, NULL};
  if (dead_is(src->lw, src->op, identity))
    x.live = masked_live;
  return x;
}

/* Chunk c of row value i where chunk_live holds, else `dead` (its value in
 * a wholly masked chunk): a branch, so that skipped chunks cost no work. The
 * chunk values built on the live side are forgotten after it (they do not
 * dominate what follows). */
static LLVMValueRef causal_skip(const lowering *lw, int i, unsigned c, LLVMValueRef dead) {
  sgc_ctx *cx = lw->cx;
  int seg[SGT_MAX_OPS];
  for (int k = 0; k < cx->t->nops; k++)
    seg[k] = lw->vals[k].seg[c];
  stage_wait_for(cx, lw->rs, c);
  LLVMBasicBlockRef from = LLVMGetInsertBlock(cx->b);
  LLVMBasicBlockRef join = sgc_open_if(cx, chunk_live(cx, lw->rs, c), "chunk.live");
  LLVMValueRef x = row_chunk(lw, i, c);
  LLVMBasicBlockRef done = LLVMGetInsertBlock(cx->b);
  sgc_close_if(cx, join);
  LLVMValueRef phi = LLVMBuildPhi(cx->b, LLVMTypeOf(x), "chunk");
  LLVMValueRef v[2] = {x, dead};
  LLVMBasicBlockRef bb[2] = {done, from};
  LLVMAddIncoming(phi, v, bb, 2);
  for (int k = 0; k < cx->t->nops; k++)
    lw->vals[k].seg[c] = seg[k];
  return phi;
}

static void lower_write(const lowering *lw, const sgt_op *op) {
  sgc_ctx *cx = lw->cx;
  row_state *rs = lw->rs;
  const sg_plan *pl = cx->plan;
  const lval *v = &lw->vals[op->operands[0]];
  LLVMTypeRef et = sgc_elem_type(cx, op->tensor);
  unsigned align = pl->vec * (unsigned)LLVMABISizeOfType(LLVMGetModuleDataLayout(cx->mod), et);
  LLVMValueRef dead = v->is_row && rs->causal_op >= 0 ? dead_value(lw, op->operands[0]) : NULL;
  if (dead)
    dead = splat(cx, dead);
  for (unsigned c = 0; c < rs->a.nchunks; c++) {
    LLVMValueRef guard = rs->a.col_valid[c];
    if (pl->rows_per_block > 1)
      guard = guard ? LLVMBuildAnd(cx->b, guard, rs->a.row_valid, "") : rs->a.row_valid;
    LLVMValueRef x = v->is_row ? NULL : splat(cx, v->scalar);
    if (v->is_row && dead) /* a wholly masked chunk stores the dead value (causal_skip) */
      x = causal_skip(lw, op->operands[0], c, dead);
    else if (v->is_row)
      x = row_chunk(lw, op->operands[0], c);
    if (et != cx->f32)
      x = cx->hooks->from_f32 ? cx->hooks->from_f32(cx, x, LLVMVectorType(et, pl->vec))
                           : LLVMBuildFPTrunc(cx->b, x, LLVMVectorType(et, pl->vec), "");
    LLVMBasicBlockRef join = NULL;
    if (guard) {
      LLVMBasicBlockRef st = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "store");
      join = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "store.join");
      LLVMBuildCondBr(cx->b, guard, st, join);
      LLVMPositionBuilderAtEnd(cx->b, st);
    }
    LLVMValueRef s = LLVMBuildStore(cx->b, x, sgc_element_ptr(cx, &rs->a, op->tensor, rs->a.row, rs->a.col[c]));
    LLVMSetAlignment(s, align);
    if (guard) {
      LLVMBuildBr(cx->b, join);
      LLVMPositionBuilderAtEnd(cx->b, join);
    }
    if (rs->next_row && op == &cx->t->ops[cx->t->nops - 1]) /* the row's last use of chunk c */
      stage_next(cx, rs, c);
  }
}

/* The scalar s when op i is broadcast(s) or a scalar itself, else NULL. */
static LLVMValueRef ops_broadcast_scalar(const lowering *lw, int i) {
  if (!lw->vals[i].is_row)
    return lw->vals[i].scalar;
  const lval *src = &lw->vals[lw->ops[i].operands[0]];
  return lw->ops[i].code == SGT_BROADCAST && !src->is_row ? src->scalar : NULL;
}

/* Lowers op i at its place in the op list. Row values are built here for
 * registers plans and on first use for staged ones (row_chunk); a /
 * broadcast(s) becomes a * (1 / s): one division per row. */
static void lower_op(const lowering *lw, int i) {
  sgc_ctx *cx = lw->cx;
  row_state *rs = lw->rs;
  const sg_plan *pl = cx->plan;
  const sgt_op *op = &lw->ops[i];
  lval *out = &lw->vals[i], *vals = lw->vals;
  const lval *a = op->operands[0] >= 0 ? &vals[op->operands[0]] : NULL;
  const lval *bv = op->operands[1] >= 0 ? &vals[op->operands[1]] : NULL;
  out->is_row = op->shape.ndims == 2;
  if (rs->done[i])
    return;
  int exp_op, sum_op;
  if (pl->online && sgt_online_chain(cx->t, i, &exp_op, &sum_op)) {
    /* max, exp(a - max) and sum in one online reduction; staged plans
     * rebuild exp(a - max) where it is used next */
    masked_src src = {lw, op->operands[0], splat(cx, LLVMConstReal(cx->f32, -INFINITY))};
    sgc_chunks x = masked_reduction(&src, -INFINITY);
    sgc_reduce_row_online(cx, &x, pl->stage ? NULL : vals[exp_op].chunks, &out->scalar,
                          &vals[sum_op].scalar);
    vals[sum_op].is_row = 0;
    rs->done[sum_op] = 1;
    if (!pl->stage) {
      vals[exp_op].is_row = 1;
      for (unsigned c = 0; c < pl->chunks; c++)
        vals[exp_op].seg[c] = rs->cur_seg + 1;
      rs->done[exp_op] = 1;
    }
    rs->cur_seg++;
    return;
  }
  switch (op->code) {
  case SGT_WRITE:
    lower_write(lw, op);
    return;
  case SGT_PARAM:
    out->scalar = cx->scalar_args[op->tensor];
    return;
  case SGT_MAX:
  case SGT_SUM: {
    sgc_reduce_kind kind = op->code == SGT_MAX ? SGC_REDUCE_MAX : SGC_REDUCE_SUM;
    masked_src src = {lw, op->operands[0], splat(cx, sgc_identity(cx, kind))};
    sgc_chunks x = masked_reduction(&src, kind == SGC_REDUCE_MAX ? -INFINITY : 0.0);
    out->scalar = sgc_reduce_row(cx, kind, &x);
    rs->cur_seg++;
    return;
  }
  default:
    break;
  }
  if (!out->is_row) { /* per-row scalar arithmetic */
    out->scalar = elementwise(cx, op->code, a->scalar, bv ? bv->scalar : NULL);
    return;
  }
  LLVMValueRef den = (op->code == SGT_DIV || op->code == SGT_SAFE_DIV)
                         ? ops_broadcast_scalar(lw, op->operands[1]) : NULL;
  if (den) { /* safe_div: 1 / 0 -> 0, so a / 0 -> 0 */
    LLVMValueRef one = LLVMConstReal(cx->f32, 1.0), zero = LLVMConstReal(cx->f32, 0.0);
    LLVMValueRef rc = LLVMBuildFDiv(cx->b, one, den, "recip");
    if (op->code == SGT_SAFE_DIV)
      rc = LLVMBuildSelect(cx->b, LLVMBuildFCmp(cx->b, LLVMRealOEQ, den, zero, ""), zero, rc, "");
    out->recip = splat(cx, rc);
    out->recip_scalar = rc;
  }
  if (!pl->stage && pl->row_tiles <= 1) /* tiled rows build chunks in each tile's pass */
    for (unsigned c = 0; c < pl->chunks; c++)
      row_chunk(lw, i, c);
}

/* Rows in tiles (plan->row_tiles > 1: longer than the register budget). A
 * tile is pl->chunks vectors per thread. Each reduction is one pass over the
 * row: a loop over the full tiles, then the partial tail tile, each loading
 * the row afresh and building the row values it needs (row_chunk, its memo
 * cleared per tile), and accumulating per-chunk partials that sgc_reduce_row
 * then reduces over chunks and threads. The writes are one last pass of the
 * same kind. */
typedef struct tile_pass {
  int target;           /* the reduction op (an online chain's max), or -1: the writes */
  sgc_reduce_kind kind;
  LLVMValueRef acc[64]; /* per-chunk partials; SGC_REDUCE_ONLINE: the running (max, sum) */
} tile_pass;

/* Accumulators a pass carries from tile to tile. */
static unsigned tile_accs(const sg_plan *pl, const tile_pass *tp) {
  return tp->target < 0 ? 0 : tp->kind == SGC_REDUCE_ONLINE ? 2 : pl->chunks;
}

static void lower_tile(const lowering *lw, LLVMValueRef base, unsigned nchunks, uint64_t limit,
                       tile_pass *tp) {
  sgc_ctx *cx = lw->cx;
  row_state *rs = lw->rs;
  const sg_template *t = cx->t;
  sgc_chunk_columns(cx, &rs->a, base, nchunks, limit);
  for (int i = 0; i < t->nops; i++) {
    for (unsigned c = 0; c < cx->plan->chunks; c++) /* values of another tile: not these */
      lw->vals[i].seg[c] = -1;
    if (t->ops[i].code == SGT_READ) /* loads no chunk uses are dead code */
      sgc_load_row(cx, &rs->a, &t->ops[i], rs->a.row_clamped, rs->raw[i]);
  }
  if (tp->target < 0) {
    for (int i = 0; i < t->nops; i++)
      if (t->ops[i].code == SGT_WRITE)
        lower_write(lw, &t->ops[i]);
    return;
  }
  int online = tp->kind == SGC_REDUCE_ONLINE;
  masked_src src = {lw, t->ops[tp->target].operands[0],
                    splat(cx, online ? LLVMConstReal(cx->f32, -INFINITY) : sgc_identity(cx, tp->kind))};
  LLVMValueRef x[64];
  for (unsigned c = 0; c < nchunks; c++) {
    x[c] = masked_chunk(&src, c);
    if (!online)
      tp->acc[c] = sgc_combine(cx, tp->kind, tp->acc[c], x[c]);
  }
  if (online)
    sgc_online_tile(cx, &tp->acc[0], &tp->acc[1], x, nchunks);
}

static void tile_pass_emit(const lowering *lw, tile_pass *tp) {
  sgc_ctx *cx = lw->cx;
  const sg_plan *pl = cx->plan;
  LLVMBuilderRef b = cx->b;
  uint64_t per_chunk = (uint64_t)pl->threads_per_row * pl->vec;
  uint64_t tile_cols = per_chunk * pl->chunks;
  uint64_t full = (uint64_t)pl->tile_n / tile_cols, rest = (uint64_t)pl->tile_n % tile_cols;
  unsigned nacc = tile_accs(pl, tp);
  LLVMValueRef init[64];
  for (unsigned c = 0; c < nacc; c++)
    tp->acc[c] = init[c] = splat(cx, tp->kind != SGC_REDUCE_ONLINE ? sgc_identity(cx, tp->kind)
                                     : LLVMConstReal(cx->f32, c ? 0.0 : -INFINITY));
  if (full) {
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "tile");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "tile.done");
    LLVMBuildBr(b, loop);
    LLVMPositionBuilderAtEnd(b, loop);
    LLVMValueRef ti = LLVMBuildPhi(b, cx->i64, "tile.index"), phis[64];
    for (unsigned c = 0; c < nacc; c++)
      tp->acc[c] = phis[c] = LLVMBuildPhi(b, LLVMTypeOf(init[c]), "tile.acc");
    LLVMValueRef base = LLVMBuildMul(b, ti, LLVMConstInt(cx->i64, tile_cols, 0), "tile.start");
    lower_tile(lw, base, pl->chunks, tile_cols, tp);
    LLVMValueRef next = LLVMBuildAdd(b, ti, LLVMConstInt(cx->i64, 1, 0), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, next, LLVMConstInt(cx->i64, full, 0), ""),
                    loop, done);
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
    lower_tile(lw, LLVMConstInt(cx->i64, full * tile_cols, 0),
               (unsigned)((rest + per_chunk - 1) / per_chunk), rest, tp);
}

/* Chunk c of a pass's accumulated partials (every chunk of a tile). */
static LLVMValueRef tile_acc_chunk(void *env, unsigned c) { return ((tile_pass *)env)->acc[c]; }

/* The ops of a tiled row in op order: a reduction is a pass over the row (an
 * online chain's max and sum one pass), a per-row value or a row value's
 * reciprocal is computed once, row values are built in each tile where they
 * are used; then the pass of the writes. */
static void lower_tiled(const lowering *lw) {
  sgc_ctx *cx = lw->cx;
  const sg_template *t = cx->t;
  for (int i = 0; i < t->nops; i++) {
    const sgt_op *op = &t->ops[i];
    int e, sum;
    if (lw->rs->done[i])
      continue;
    if (sgt_opcode_is_reduction(op->code)) {
      int online = cx->plan->online && sgt_online_chain(t, i, &e, &sum);
      tile_pass tp = {i, online ? SGC_REDUCE_ONLINE : op->code == SGT_MAX ? SGC_REDUCE_MAX
                                                                            : SGC_REDUCE_SUM, {0}};
      tile_pass_emit(lw, &tp);
      lw->rs->a.nchunks = cx->plan->chunks;
      sgc_chunks x = {tile_acc_chunk, &tp, NULL};
      lw->vals[i].is_row = 0;
      if (online) {
        sgc_reduce_pairs(cx, tp.acc[0], tp.acc[1], &lw->vals[i].scalar, &lw->vals[sum].scalar);
        lw->vals[sum].is_row = 0;
        lw->rs->done[sum] = 1;
      } else {
        lw->vals[i].scalar = sgc_reduce_row(cx, tp.kind, &x);
      }
      lw->rs->cur_seg++;
    } else if (op->code != SGT_WRITE) {
      lower_op(lw, i); /* builds no chunk for tiled rows */
    }
  }
  tile_pass tp = {-1, SGC_REDUCE_SUM, {0}};
  tile_pass_emit(lw, &tp);
}

/* The causal op whose wholly masked chunks staged plans skip: the template's
 * only one, its row count and offset kernel parameters; -1 when none. */
static int causal_skip_op(const sg_template *t) {
  int found = -1;
  for (int i = 0; i < t->nops; i++) {
    const sgt_op *o = &t->ops[i];
    if (o->code != SGT_CAUSAL)
      continue;
    if (found >= 0 || t->ops[o->operands[1]].code != SGT_PARAM ||
        t->ops[o->operands[2]].code != SGT_PARAM)
      return -1;
    found = i;
  }
  return found;
}

static sg_status build_kernel(sgc_ctx *cx, sg_diag *diag) {
  const sg_plan *pl = cx->plan;
  const sg_template *t = cx->t;
  LLVMBuilderRef b = cx->b;
  sgc_declare_kernel(cx);
  if (pl->smem_bytes) {
    LLVMTypeRef at = LLVMArrayType2(cx->f32, pl->smem_bytes / 4);
    cx->smem = LLVMAddGlobalInAddressSpace(cx->mod, at, "softgen_reduce", cx->hooks->shared_as);
    LLVMSetInitializer(cx->smem, LLVMGetPoison(at));
    LLVMSetLinkage(cx->smem, LLVMInternalLinkage);
    LLVMSetAlignment(cx->smem, 16);
  }
  if (pl->stage && pl->prefetch && (t->nops == 0 || t->ops[t->nops - 1].code != SGT_WRITE))
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "codegen: staged rows are copied ahead "
                       "after the template's last op, which must be a write");
  row_state rs;
  memset(&rs, 0, sizeof rs);
  /* staged rows copied ahead (prefetch) are copied whole: no chunk skipping */
  rs.causal_op = pl->stage && !pl->prefetch ? causal_skip_op(t) : -1;
  for (int i = 0; rs.causal_op >= 0 && i < t->nops; i++)
    rs.only_causal[i] = t->ops[i].code == SGT_READ && sgt_only_through_causal(t, i, rs.causal_op);
  if (pl->stage) { /* dynamic shared memory: its size is the launch's (meta dsmem) */
    LLVMTypeRef at = LLVMArrayType2(LLVMInt8TypeInContext(cx->ctx), 0);
    rs.stage = LLVMAddGlobalInAddressSpace(cx->mod, at, "softgen_stage", cx->hooks->shared_as);
    LLVMSetLinkage(rs.stage, LLVMExternalLinkage);
    LLVMSetAlignment(rs.stage, 16);
    unsigned base = 0;
    for (int i = 0; i < t->nops; i++)
      if (t->ops[i].code == SGT_READ) {
        rs.stage_base[i] = base;
        base += pl->rows_per_block * pl->stage_pitch *
                sgc_elem_bytes(cx, t->ops[i].tensor);
      }
  }
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "entry");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "rows");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "exit");
  LLVMPositionBuilderAtEnd(b, entry);

  sgc_addr_init(cx, &rs.a);

  cx->tid = cx->hooks->thread_id(cx);
  unsigned tshift = (unsigned)__builtin_ctz(pl->threads_per_row);
  cx->row_in_block = LLVMBuildLShr(b, cx->tid, LLVMConstInt(cx->i32, tshift, 0), "row.in.block");
  cx->lane_in_row = LLVMBuildAnd(b, cx->tid, LLVMConstInt(cx->i32, pl->threads_per_row - 1, 0), "lane");
  if (pl->row_tiles <= 1) /* tiled rows: per tile (lower_tile) */
    sgc_chunk_columns(cx, &rs.a, NULL, pl->chunks, (uint64_t)pl->tile_n);
  LLVMValueRef R = LLVMConstInt(cx->i64, pl->rows_per_block, 0);
  LLVMValueRef nblocks = LLVMBuildUDiv(
      b, LLVMBuildAdd(b, rs.a.rows, LLVMConstInt(cx->i64, pl->rows_per_block - 1, 0), ""), R,
      "row.blocks");
  /* the grid strides over row blocks; a cluster's blocks share each row block */
  LLVMValueRef first = LLVMBuildZExt(
      b, pl->cluster > 1 ? cx->hooks->cluster_id(cx) : cx->hooks->block_id(cx), cx->i64, "");
  LLVMValueRef step = LLVMBuildZExt(
      b, pl->cluster > 1 ? cx->hooks->cluster_count(cx) : cx->hooks->grid_blocks(cx), cx->i64, "");
  if (pl->cluster > 1) /* waited on before the first remote store (codegen/reduce.c) */
    cx->hooks->cluster_arrive(cx, 1);
  LLVMValueRef m1 = LLVMBuildSub(b, rs.a.rows, LLVMConstInt(cx->i64, 1, 0), "");
  LLVMBasicBlockRef pre = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "prefetch.first");
  LLVMBasicBlockRef idle = exit;
  if (pl->cluster > 1) { /* no row block for this cluster: still wait on the arrive */
    idle = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "cluster.idle");
    LLVMBasicBlockRef here = LLVMGetInsertBlock(b);
    LLVMPositionBuilderAtEnd(b, idle);
    cx->hooks->cluster_wait(cx);
    LLVMBuildBr(b, exit);
    LLVMPositionBuilderAtEnd(b, here);
  }
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, first, nblocks, ""), pl->prefetch ? pre : body, idle);

  /* with prefetch, row block rb+step is loaded (registers) or copied
   * (staged: stage_next) while rb computes */
  for (int i = 0; i < t->nops; i++)
    if (t->ops[i].code == SGT_READ)
      rs.read_ops[rs.nreads++] = i;
  const int *read_ops = rs.read_ops;
  unsigned nreads = rs.nreads, loaded_ahead = pl->prefetch && !pl->stage;
  LLVMValueRef *raw_store = calloc((size_t)3 * t->nops * pl->chunks + 1, sizeof *raw_store);
  LLVMValueRef *store = calloc((size_t)t->nops * pl->chunks + 1, sizeof *store);
  int *segs = calloc((size_t)t->nops * pl->chunks + 1, sizeof *segs);
  if (!raw_store || !store || !segs) {
    free(raw_store);
    free(store);
    free(segs);
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
  }
  LLVMValueRef *raw_first = raw_store, *raw_next = raw_store + (size_t)t->nops * pl->chunks;
  LLVMValueRef *raw_cur = raw_store + (size_t)2 * t->nops * pl->chunks;
  LLVMValueRef row_in = NULL;
  if (pl->prefetch) {
    LLVMPositionBuilderAtEnd(b, pre);
    row_in = LLVMBuildZExt(b, cx->row_in_block, cx->i64, "");
    LLVMValueRef row = sgc_block_row(cx, &rs.a, first, row_in);
    LLVMValueRef rc = sgc_clamp_row(cx, &rs.a, row, m1);
    if (pl->stage)
      stage_rows(cx, &rs, rc);
    for (unsigned r = 0; loaded_ahead && r < nreads; r++)
      sgc_load_row(cx, &rs.a, &t->ops[read_ops[r]], rc, raw_first + r * pl->chunks);
    pre = LLVMGetInsertBlock(b); /* block_row may have branched */
    LLVMBuildBr(b, body);
  } else {
    LLVMDeleteBasicBlock(pre);
  }

  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef rb = LLVMBuildPhi(b, cx->i64, "row.block");
  cx->iteration = LLVMBuildPhi(b, cx->i32, "iteration");
  cx->cluster_started = 0;
  for (unsigned r = 0; loaded_ahead && r < nreads; r++)
    for (unsigned c = 0; c < pl->chunks; c++)
      raw_cur[r * pl->chunks + c] = LLVMBuildPhi(b, LLVMTypeOf(raw_first[r * pl->chunks + c]), "x.cur");
  cx->parity = LLVMBuildAnd(b, cx->iteration, LLVMConstInt(cx->i32, 1, 0), "parity");
  row_in = LLVMBuildZExt(b, cx->row_in_block, cx->i64, "");
  sgc_addr_set_row(cx, &rs.a, sgc_block_row(cx, &rs.a, rb, row_in), m1);
  LLVMValueRef next = LLVMBuildAdd(b, rb, step, "next.block");
  LLVMValueRef more = LLVMBuildICmp(b, LLVMIntSLT, next, nblocks, "more");
  if (pl->prefetch) { /* the next row block (this one again on the last trip) */
    LLVMValueRef nb = LLVMBuildSelect(b, more, next, rb, "");
    LLVMValueRef row = sgc_block_row(cx, &rs.a, nb, row_in);
    LLVMValueRef rc = sgc_clamp_row(cx, &rs.a, row, m1);
    for (unsigned r = 0; loaded_ahead && r < nreads; r++)
      sgc_load_row(cx, &rs.a, &t->ops[read_ops[r]], rc, raw_next + r * pl->chunks);
    if (pl->stage) { /* this row's copies were issued before the loop or by the last trip */
      rs.next_row = rc;
      rs.more = more;
      rs.stage_landed = 0;
    }
  } else if (pl->stage) { /* waited for chunk by chunk (read_chunk) */
    if (rs.causal_op >= 0) { /* before the copies: stage_rows skips masked ones */
      const sgt_op *co = &t->ops[rs.causal_op];
      rs.causal_first = causal_first32(cx, &rs, cx->scalar_args[t->ops[co->operands[1]].tensor],
                                       cx->scalar_args[t->ops[co->operands[2]].tensor]);
    }
    stage_rows(cx, &rs, rs.a.row_clamped);
  } else if (pl->row_tiles <= 1) { /* tiled rows load in each pass */
    for (unsigned r = 0; r < nreads; r++)
      sgc_load_row(cx, &rs.a, &t->ops[read_ops[r]], rs.a.row_clamped, raw_cur + r * pl->chunks);
  }
  for (unsigned r = 0; r < nreads && !pl->stage; r++)
    rs.raw[read_ops[r]] = raw_cur + r * pl->chunks;

  lval vals[SGT_MAX_OPS];
  cx->next_slot = 0;
  memset(rs.done, 0, sizeof rs.done);
  rs.cur_seg = 0;
  for (int i = 0; i < t->nops; i++) {
    vals[i] = (lval){.chunks = store + (size_t)i * pl->chunks, .seg = segs + (size_t)i * pl->chunks};
    for (unsigned c = 0; c < pl->chunks; c++)
      vals[i].seg[c] = -1;
  }
  lowering lw = {cx, &rs, t->ops, vals};
  if (pl->row_tiles > 1)
    lower_tiled(&lw);
  else
    for (int i = 0; i < t->nops; i++)
      lower_op(&lw, i);
  free(store);
  free(segs);
  LLVMValueRef next_iteration = LLVMBuildAdd(b, cx->iteration, LLVMConstInt(cx->i32, 1, 0), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
  LLVMBuildCondBr(b, more, body, exit);
  LLVMValueRef in_vals[2] = {first, next};
  LLVMBasicBlockRef in_bbs[2] = {pl->prefetch ? pre : entry, latch};
  LLVMAddIncoming(rb, in_vals, in_bbs, 2);
  LLVMValueRef it_vals[2] = {LLVMConstInt(cx->i32, 0, 0), next_iteration};
  LLVMAddIncoming(cx->iteration, it_vals, in_bbs, 2);
  for (unsigned k = 0; loaded_ahead && k < nreads * pl->chunks; k++) {
    LLVMValueRef v[2] = {raw_first[k], raw_next[k]};
    LLVMAddIncoming(raw_cur[k], v, in_bbs, 2);
  }
  free(raw_store);
  LLVMPositionBuilderAtEnd(b, exit);
  /* no exit barrier: every remote store precedes a cluster barrier that all
   * blocks of the cluster pass before any of them leaves */
  LLVMBuildRetVoid(b);
  if (cx->hooks->finish_kernel)
    cx->hooks->finish_kernel(cx);
  return sgc_add_meta(cx, diag);
}

sg_status sgc_build(sg_module *m, const sg_template *t, const sgc_hooks *hooks, sg_diag *diag) {
  sgc_ctx cx;
  memset(&cx, 0, sizeof cx);
  cx.ctx = m->ctx;
  cx.mod = m->mod;
  cx.b = LLVMCreateBuilderInContext(m->ctx);
  cx.plan = &m->plan;
  cx.t = t;
  cx.hooks = hooks;
  cx.i1 = LLVMInt1TypeInContext(m->ctx);
  cx.i32 = LLVMInt32TypeInContext(m->ctx);
  cx.i64 = LLVMInt64TypeInContext(m->ctx);
  cx.f32 = LLVMFloatTypeInContext(m->ctx);
  cx.gptr = LLVMPointerTypeInContext(m->ctx, hooks->global_as);
  sg_status st = build_kernel(&cx, diag);
  LLVMDisposeBuilder(cx.b);
  if (!st) {
    char *msg = NULL;
    if (LLVMVerifyModule(m->mod, LLVMReturnStatusAction, &msg)) {
      st = sg_diag_set(diag, SG_ERR_CODEGEN, "internal error: generated IR does not verify: %s",
                       msg ? msg : "");
    }
    LLVMDisposeMessage(msg);
  }
  return st;
}
