/* walk.c - the op walk (codegen/rows.h): the template's ops, in order, as IR
 * over the chunks of one row block: reads, elementwise arithmetic, causal
 * masks, broadcasts, reductions (through codegen/reduce.c) and writes.
 *
 * Row values ([M, N]) are chunks of <vec x float>, built on request
 * (row_chunk) and memoised per chunk; per-row values ([M]) are one float,
 * or for packed rows (plan->pack: a vector holds pack rows) a <vec x float>
 * whose lanes hold the value of their own row, so that the arithmetic on
 * them is the same IR on vectors (sgc_splat passes them through).
 * The walk knows nothing of where a read's chunk comes from: it asks the row
 * strategy (w->rows: registers, shared memory, a tile), and the strategy says
 * when row values are built (sgc_build_at): where the op stands and kept, on
 * first use, or again after each reduction (segments: w->seg counts the
 * reductions lowered so far). Masking lives here: a read's chunk past N is
 * -inf, a reduction's input past N its identity, a store past N or M is
 * skipped. A strategy that skips the chunks a causal op masks wholly
 * (w->skip_op) gets their values from dead_value: no load, no update, one
 * per-row value stored.
 *
 * Needs: sgc_walk set up by codegen/kernel.c, a row strategy, the reduction
 * tree. Produces: sgc_walk_ops, sgc_walk_op, sgc_walk_write, sgc_walk_masked,
 * sgc_causal_first32, sgc_splat. */
#include <math.h>

#include "codegen/rows.h"

LLVMValueRef sgc_splat(sgc_ctx *cx, LLVMValueRef scalar) {
  unsigned n = cx->plan->vec;
  if (LLVMGetTypeKind(LLVMTypeOf(scalar)) == LLVMVectorTypeKind)
    return scalar; /* packed rows' per-row values: a vector already (walk.c's top) */
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

/* Chunk c of the read's value: the strategy's vector widened to f32, -inf
 * past N. (Rows past M are not masked: they read row M - 1, or an image's
 * stale rows, and reduce among their own lanes; their stores are skipped.) */
static LLVMValueRef read_chunk(sgc_walk *w, const sgt_op *op, unsigned c) {
  sgc_ctx *cx = w->cx;
  const sg_plan *pl = cx->plan;
  LLVMTypeRef et = sgc_elem_type(cx, op->tensor);
  LLVMValueRef ninf = sgc_splat(cx, LLVMConstReal(cx->f32, -INFINITY));
  LLVMValueRef v = w->rows->read(w, op, c);
  if (et != cx->f32)
    v = cx->hooks->to_f32 ? cx->hooks->to_f32(cx, v)
                       : LLVMBuildFPExt(cx->b, v, LLVMVectorType(cx->f32, pl->vec), "");
  if (w->a.col_valid[c])
    v = LLVMBuildSelect(cx->b, w->a.col_valid[c], v, ninf, "x.masked");
  return v;
}

/* How many writes op u's value goes to when every use of it is a write to an
 * f16 tensor (or bf16 too, where `bf16`); -1 when some use is anything else. */
static int written_only_to(sgc_ctx *cx, int u, int bf16) {
  const sg_template *t = cx->t;
  const sgt_op *o = t->ops;
  int writes = 0;
  for (int k = u + 1; k < t->nops; k++)
    if (o[k].operands[0] == u || o[k].operands[1] == u) {
      LLVMTypeRef et = o[k].code == SGT_WRITE ? sgc_elem_type(cx, o[k].tensor) : NULL;
      if (et != LLVMHalfTypeInContext(cx->ctx) && !(bf16 && et == LLVMBFloatTypeInContext(cx->ctx)))
        return -1;
      writes++;
    }
  return writes;
}

/* How far exp op i's small results may be flushed (sgc_exp, the SGC_EXP_
 * levels): SGC_EXP_FLUSH where those below 2^-126 reach no output as
 * anything but 0: the exp of an online chain (exp(a - max(a)): at most 1,
 * the row's max contributing 1 to its sum) used only by its sum (log_softmax)
 * and by its division (div, or safe_div: 0 for a sum of 0) by that sum, each
 * quotient (at most the exp) written only to f16 tensors, whose smallest
 * subnormal is 2^-24; SGC_EXP_FLUSH_BF16 where such quotients are written to
 * bf16 tensors too (their smallest subnormal is 2^-133); else SGC_EXP_EXACT.
 * codegen/reduce.c flushes the exps that it builds for a chain's sum alone
 * (online pairs, rescales). */
static int exp_flushes(sgc_walk *w, int i) {
  sgc_ctx *cx = w->cx;
  const sg_template *t = cx->t;
  const sgt_op *o = t->ops;
  if (o[i].code != SGT_EXP)
    return 0;
  if (w->exp_flush[i])
    return w->exp_flush[i] - 1;
  int chain = 0, e, s = -1, level = SGC_EXP_FLUSH;
  for (int j = 0; j < t->nops && !chain; j++)
    chain = sgt_online_chain(t, j, &e, &s) && e == i;
  for (int u = i + 1; chain && level != SGC_EXP_EXACT && u < t->nops; u++) {
    if ((o[u].operands[0] != i && o[u].operands[1] != i) || u == s)
      continue;
    int b = o[u].operands[1];
    if (!((o[u].code == SGT_DIV || o[u].code == SGT_SAFE_DIV) && o[u].operands[0] == i && b >= 0 &&
          o[b].code == SGT_BROADCAST && o[b].operands[0] == s))
      level = SGC_EXP_EXACT;
    else if (written_only_to(cx, u, 0) < 0)
      level = written_only_to(cx, u, 1) < 0 ? SGC_EXP_EXACT : SGC_EXP_FLUSH_BF16;
  }
  level = chain ? level : SGC_EXP_EXACT;
  w->exp_flush[i] = (signed char)(level + 1);
  return level;
}

/* How op i's exps are built (sgc_exp): exp_flushes's level, but where that is
 * SGC_EXP_FLUSH_BF16, SGC_EXP_SCALED_BF16: every value of the exp 2^8 too
 * large (no multiply back: its only uses, the chain's sum and divisions by
 * that sum, take the 2^-8 once a row: the sum unscaled, the division's 1 / s
 * made 2^-8 / s). Chunks built anywhere (at the op, rebuilt per pass, a
 * masked chunk's value, the online reduction's kept exps) are built so; an
 * online reduction that rebuilds them sums its own exps, unscaled; the fused
 * exp and division (exp_div_chunk) builds the quotient itself. 0 for ops
 * that are no exp. */
static int exp_level(sgc_walk *w, int i) {
  int level = exp_flushes(w, i);
  return level == SGC_EXP_FLUSH_BF16 ? SGC_EXP_SCALED_BF16 : level;
}

LLVMValueRef sgc_walk_reduced(sgc_walk *w, int i, LLVMValueRef v) {
  const sgt_op *op = &w->cx->t->ops[i];
  if (op->code != SGT_SUM || exp_level(w, op->operands[0]) != SGC_EXP_SCALED_BF16)
    return v;
  return sgc_exp_unscale(w->cx, v, "sum.unscaled");
}

/* 1 when div op i, exp(d) / broadcast(s), may be built as exp2(d log2(e) -
 * log2(s)) where its exp is not at hand (a strategy that rebuilds row values
 * per pass: staged rows' pass two), one fma in place of two multiplies: the
 * exp's only other use is a sum, and the quotient is written only to f16 or
 * bf16 tensors. (lg2.approx and the fma's rounding of the larger argument
 * cost up to a few f32 ulps, under a 16-bit output's rounding; f32 outputs
 * keep the multiply by 1 / s.) */
static int exp_div_fuses(const sgc_walk *w, int i) {
  const sgt_op *o = w->cx->t->ops;
  if (o[i].code != SGT_DIV || o[i].operands[0] < 0 || o[o[i].operands[0]].code != SGT_EXP)
    return 0;
  int e = o[i].operands[0];
  for (int u = e + 1; u < w->cx->t->nops; u++)
    if (u != i && (o[u].operands[0] == e || o[u].operands[1] == e) && o[u].code != SGT_SUM)
      return 0;
  return written_only_to(w->cx, i, 1) > 0;
}

static LLVMValueRef elementwise(sgc_ctx *cx, sgt_opcode code, LLVMValueRef a, LLVMValueRef b,
                                int flush) {
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
    return LLVMBuildSelect(bd,
                           LLVMBuildFCmp(bd, LLVMRealOEQ, a, sgc_const_like(cx, a, -INFINITY), ""),
                           sgc_const_like(cx, a, 0.0), a, "");
  case SGT_SAFE_DIV:
    return LLVMBuildSelect(bd, LLVMBuildFCmp(bd, LLVMRealOEQ, b, sgc_const_like(cx, b, 0.0), ""),
                           sgc_const_like(cx, a, 0.0), LLVMBuildFDiv(bd, a, b, ""), "");
  case SGT_EXP:
    return sgc_exp(cx, a, flush);
  case SGT_LOG:
    return LLVMBuildFMul(bd, cx->hooks->log2(cx, a), sgc_const_like(cx, a, M_LN2), "");
  default:
    return NULL;
  }
}

static LLVMValueRef row_chunk(sgc_walk *w, int i, unsigned c);

/* Chunk c of operand k of op (a scalar operand, e.g. a parameter, splat). */
static LLVMValueRef operand_chunk(sgc_walk *w, const sgt_op *op, int k, unsigned c) {
  const sgc_val *v = &w->vals[op->operands[k]];
  return v->is_row ? row_chunk(w, op->operands[k], c) : sgc_splat(w->cx, v->scalar);
}

LLVMValueRef sgc_causal_first32(sgc_walk *w, LLVMValueRef L, LLVMValueRef off) {
  sgc_ctx *cx = w->cx;
  LLVMBuilderRef b = cx->b;
  LLVMValueRef zero = LLVMConstInt(cx->i64, 0, 0);
  LLVMValueRef period = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, L, zero, ""), L,
                                        LLVMConstInt(cx->i64, INT64_MAX, 0), "causal.rows");
  LLVMValueRef q = LLVMBuildURem(b, w->a.row, period, "causal.q");
  LLVMValueRef col = w->a.col[0];
  if (w->a.col_base)
    col = LLVMBuildAdd(b, col, w->a.col_base, "causal.col");
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
static LLVMValueRef causal_chunk(sgc_walk *w, const sgt_op *op, unsigned c) {
  sgc_ctx *cx = w->cx;
  LLVMBuilderRef b = cx->b;
  unsigned vec = cx->plan->vec;
  LLVMValueRef first = w->causal_first ? w->causal_first
                                       : sgc_causal_first32(w, w->vals[op->operands[1]].scalar,
                                                            w->vals[op->operands[2]].scalar);
  LLVMValueRef limit = LLVMBuildSub(b, first, sgc_chunk_offset32(cx, c), "causal.limit");
  LLVMValueRef lanes[SGC_MAX_VEC];
  for (unsigned j = 0; j < vec; j++)
    lanes[j] = LLVMConstInt(cx->i32, j, 0);
  LLVMValueRef lim = sgc_splat(cx, limit);
  LLVMValueRef keep = LLVMBuildICmp(b, LLVMIntSLE, LLVMConstVector(lanes, vec), lim, "causal.keep");
  return LLVMBuildSelect(b, keep, row_chunk(w, op->operands[0], c),
                         sgc_splat(cx, LLVMConstReal(cx->f32, -INFINITY)), "causal");
}

/* 1 when chunk c of row value i is built and may be used here (row_chunk). */
static int chunk_at_hand(const sgc_walk *w, int i, unsigned c) {
  const sgc_val *v = &w->vals[i];
  return v->seg[c] >= 0 && (v->seg[c] == w->seg || w->rows->build != SGC_BUILD_PER_PASS);
}

/* Chunk c of div op `op` = exp(d) / broadcast(s) as exp2(fma(d, log2(e),
 * -log2(s))) (exp_div_fuses), the exp left unbuilt: fmuladd, one fma where
 * the target has it (not generic x86-64: a multiply and an add there). */
static LLVMValueRef exp_div_chunk(sgc_walk *w, const sgt_op *op, unsigned c) {
  sgc_ctx *cx = w->cx;
  const sgt_op *e = &cx->t->ops[op->operands[0]];
  LLVMValueRef d = operand_chunk(w, e, 0, c);
  LLVMValueRef args[3] = {d, sgc_const_like(cx, d, M_LOG2E), w->vals[op - cx->t->ops].neg_log2};
  LLVMValueRef x = sgc_intrinsic(cx, "llvm.fmuladd", LLVMTypeOf(d), args, 3);
  return cx->hooks->exp2(cx, x, exp_flushes(w, op->operands[0]));
}

/* Chunk c of row value i, built on its first use (in this segment, where the
 * strategy builds per pass: a chunk built before the latest reduction is
 * rebuilt rather than kept in registers across it). (exp(a - s) stays
 * exp2((a - s) * log2e): folding it into fma(a, log2e, -s * log2e) overflows
 * when s * log2e exceeds the f32 range.) */
static LLVMValueRef row_chunk(sgc_walk *w, int i, unsigned c) {
  sgc_ctx *cx = w->cx;
  sgc_val *v = &w->vals[i];
  if (chunk_at_hand(w, i, c))
    return v->chunks[c];
  const sgt_op *op = &cx->t->ops[i];
  const sgc_val *a = op->operands[0] >= 0 ? &w->vals[op->operands[0]] : NULL;
  LLVMValueRef r;
  if (op->code == SGT_READ)
    r = read_chunk(w, op, c);
  else if (op->code == SGT_BROADCAST)
    r = a->is_row ? row_chunk(w, op->operands[0], c) : sgc_splat(cx, a->scalar);
  else if (op->code == SGT_CAUSAL)
    r = causal_chunk(w, op, c);
  else if (v->neg_log2 && !chunk_at_hand(w, op->operands[0], c))
    r = exp_div_chunk(w, op, c);
  else if (v->recip)
    r = LLVMBuildFMul(cx->b, operand_chunk(w, op, 0, c), v->recip, "");
  else
    r = elementwise(cx, op->code, operand_chunk(w, op, 0, c),
                    op->operands[1] >= 0 ? operand_chunk(w, op, 1, c) : NULL, exp_level(w, i));
  v->chunks[c] = r;
  v->seg[c] = w->seg;
  return r;
}

/* The value row op i takes in a chunk that w->skip_op masks wholly (-inf in
 * every lane there), as one per-row float; NULL when it depends on anything
 * else of the chunk (a read, another causal op). */
static LLVMValueRef dead_value(sgc_walk *w, int i) {
  const sgt_op *op = &w->cx->t->ops[i];
  const sgc_val *v = &w->vals[i];
  if (!v->is_row)
    return v->scalar;
  if (i == w->skip_op)
    return LLVMConstReal(w->cx->f32, -INFINITY);
  if (op->code == SGT_READ || op->code == SGT_CAUSAL || op->operands[0] < 0)
    return NULL;
  LLVMValueRef a = dead_value(w, op->operands[0]), bv = NULL;
  if (!a || op->code == SGT_BROADCAST)
    return a;
  if (v->recip)
    return LLVMBuildFMul(w->cx->b, a, v->recip_scalar, "");
  if (op->operands[1] >= 0 && !(bv = dead_value(w, op->operands[1])))
    return NULL;
  return elementwise(w->cx, op->code, a, bv, exp_level(w, i));
}

/* 1 when op i's value in a wholly masked chunk is the constant `identity`. */
static int dead_is(sgc_walk *w, int i, double identity) {
  if (w->skip_op < 0)
    return 0;
  LLVMValueRef d = dead_value(w, i);
  LLVMBool lossy;
  return d && LLVMIsAConstantFP(d) && LLVMConstRealGetDouble(d, &lossy) == identity;
}

LLVMValueRef sgc_walk_masked(sgc_walk *w, int i, LLVMValueRef fill, unsigned c) {
  LLVMValueRef v = row_chunk(w, i, c), ok = w->a.col_valid[c];
  return ok ? LLVMBuildSelect(w->cx->b, ok, v, fill, "") : v;
}

/* A reduction's input: chunk c of a row value, masked with `fill` past N. */
typedef struct masked_src {
  sgc_walk *w;
  int op;
  LLVMValueRef fill; /* splat identity */
} masked_src;

static LLVMValueRef masked_chunk(void *env, unsigned c) {
  const masked_src *m = env;
  return sgc_walk_masked(m->w, m->op, m->fill, c);
}

/* The reduction's chunk c is skipped where the strategy skips it (only when
 * the input is the identity there: masked_reduction). */
static LLVMValueRef masked_live(void *env, unsigned c) {
  const masked_src *m = env;
  return m->w->rows->live(m->w, c);
}

/* The reduction input of row value `op` (identity: the reduction's), for sgc_reduce_*. */
static sgc_chunks masked_reduction(masked_src *src, double identity) {
  sgc_chunks x = {masked_chunk, src, NULL};
  if (dead_is(src->w, src->op, identity))
    x.live = masked_live;
  return x;
}

/* Chunk c of row value i where the strategy says chunk c is live, else
 * `dead` (its value in a wholly masked chunk): a branch, so that skipped
 * chunks cost no work. The chunk values built on the live side are forgotten
 * after it (they do not dominate what follows). */
static LLVMValueRef causal_skip(sgc_walk *w, int i, unsigned c, LLVMValueRef dead) {
  sgc_ctx *cx = w->cx;
  int seg[SGT_MAX_OPS];
  for (int k = 0; k < cx->t->nops; k++)
    seg[k] = w->vals[k].seg[c];
  LLVMValueRef live = w->rows->live(w, c);
  LLVMBasicBlockRef from = LLVMGetInsertBlock(cx->b);
  LLVMBasicBlockRef join = sgc_open_if(cx, live, "chunk.live");
  LLVMValueRef x = row_chunk(w, i, c);
  LLVMBasicBlockRef done = LLVMGetInsertBlock(cx->b);
  sgc_close_if(cx, join);
  LLVMValueRef phi = LLVMBuildPhi(cx->b, LLVMTypeOf(x), "chunk");
  LLVMValueRef v[2] = {x, dead};
  LLVMBasicBlockRef bb[2] = {done, from};
  LLVMAddIncoming(phi, v, bb, 2);
  for (int k = 0; k < cx->t->nops; k++)
    w->vals[k].seg[c] = seg[k];
  return phi;
}

void sgc_walk_write(sgc_walk *w, const sgt_op *op) {
  sgc_ctx *cx = w->cx;
  sgc_addr *a = &w->a;
  const sg_plan *pl = cx->plan;
  const sgc_val *v = &w->vals[op->operands[0]];
  LLVMTypeRef et = sgc_elem_type(cx, op->tensor);
  unsigned align = pl->vec * sgc_elem_bytes(cx, op->tensor);
  LLVMValueRef dead = v->is_row && w->skip_op >= 0 ? dead_value(w, op->operands[0]) : NULL;
  if (dead)
    dead = sgc_splat(cx, dead);
  for (unsigned c = 0; c < a->nchunks; c++) {
    LLVMValueRef guard = pl->peel ? a->col_any[c] : a->col_valid[c];
    if (pl->rows_per_block > 1 && !w->rows->image_rows)
      guard = guard ? LLVMBuildAnd(cx->b, guard, a->row_valid, "") : a->row_valid;
    LLVMValueRef x = v->is_row ? NULL : sgc_splat(cx, v->scalar);
    if (v->is_row && dead) /* a wholly masked chunk stores the dead value (causal_skip) */
      x = causal_skip(w, op->operands[0], c, dead);
    else if (v->is_row)
      x = row_chunk(w, op->operands[0], c);
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
    if (pl->peel) {
      sgc_peel_store(cx, a, op->tensor, c, x);
    } else if (pl->pack > 1) {
      sgc_pack_store(cx, a, op->tensor, x);
    } else if (w->rows->write) {
      w->rows->write(w, op, c, x);
    } else {
      LLVMValueRef at = sgc_element_ptr(cx, a, op->tensor, a->row, a->col[c]);
      LLVMValueRef s = LLVMBuildStore(cx->b, x, at);
      LLVMSetAlignment(s, align);
    }
    if (guard) {
      LLVMBuildBr(cx->b, join);
      LLVMPositionBuilderAtEnd(cx->b, join);
    }
    if (w->rows->stored && op == &cx->t->ops[cx->t->nops - 1]) /* the row's last use of chunk c */
      w->rows->stored(w, c);
  }
}

/* The scalar s when op i is broadcast(s) or a scalar itself, else NULL. */
static LLVMValueRef ops_broadcast_scalar(sgc_walk *w, int i) {
  const sgt_op *ops = w->cx->t->ops;
  if (!w->vals[i].is_row)
    return w->vals[i].scalar;
  const sgc_val *src = &w->vals[ops[i].operands[0]];
  return ops[i].code == SGT_BROADCAST && !src->is_row ? src->scalar : NULL;
}

void sgc_walk_op(sgc_walk *w, int i) {
  sgc_ctx *cx = w->cx;
  const sg_plan *pl = cx->plan;
  const sgt_op *op = &cx->t->ops[i];
  sgc_val *out = &w->vals[i], *vals = w->vals;
  const sgc_val *a = op->operands[0] >= 0 ? &vals[op->operands[0]] : NULL;
  const sgc_val *bv = op->operands[1] >= 0 ? &vals[op->operands[1]] : NULL;
  int per_pass = w->rows->build == SGC_BUILD_PER_PASS;
  out->is_row = op->shape.ndims == 2;
  if (w->done[i])
    return;
  int exp_op, sum_op;
  if (pl->online && sgt_online_chain(cx->t, i, &exp_op, &sum_op)) {
    /* max, exp(a - max) and sum in one online reduction; a strategy that
     * builds per pass rebuilds exp(a - max) where it is used next, unless the
     * plan holds the exps (plan->hold: staged rows keep pass one's) */
    int rebuild = per_pass && !pl->hold;
    masked_src src = {w, op->operands[0], sgc_splat(cx, LLVMConstReal(cx->f32, -INFINITY))};
    sgc_chunks x = masked_reduction(&src, -INFINITY);
    sgc_reduce_row_online(cx, &x, rebuild ? NULL : vals[exp_op].chunks, exp_level(w, exp_op),
                          &out->scalar, &vals[sum_op].scalar);
    vals[sum_op].is_row = 0;
    w->done[sum_op] = 1;
    if (!rebuild) {
      vals[exp_op].is_row = 1;
      for (unsigned c = 0; c < pl->chunks; c++)
        vals[exp_op].seg[c] = w->seg + 1;
      w->done[exp_op] = 1;
    }
    w->seg++;
    return;
  }
  switch (op->code) {
  case SGT_WRITE:
    sgc_walk_write(w, op);
    return;
  case SGT_PARAM:
    out->scalar = cx->scalar_args[op->tensor];
    return;
  case SGT_MAX:
  case SGT_SUM: {
    sgc_reduce_kind kind = op->code == SGT_MAX ? SGC_REDUCE_MAX : SGC_REDUCE_SUM;
    masked_src src = {w, op->operands[0], sgc_splat(cx, sgc_identity(cx, kind))};
    sgc_chunks x = masked_reduction(&src, kind == SGC_REDUCE_MAX ? -INFINITY : 0.0);
    out->scalar = sgc_walk_reduced(w, i, sgc_reduce_row(cx, kind, &x));
    w->seg++;
    return;
  }
  default:
    break;
  }
  if (!out->is_row) { /* per-row scalar arithmetic (packed rows: vectors, a parameter splat) */
    LLVMValueRef x = a->scalar, y = bv ? bv->scalar : NULL;
    if (pl->pack > 1)
      x = sgc_splat(cx, x), y = y ? sgc_splat(cx, y) : NULL;
    out->scalar = elementwise(cx, op->code, x, y, exp_flushes(w, i));
    return;
  }
  LLVMValueRef den = (op->code == SGT_DIV || op->code == SGT_SAFE_DIV)
                         ? ops_broadcast_scalar(w, op->operands[1]) : NULL;
  if (den) { /* safe_div: 1 / 0 -> 0, so a / 0 -> 0; a scaled exp: 2^-8 / s */
    LLVMValueRef one = sgc_const_like(cx, den, 1.0), zero = sgc_const_like(cx, den, 0.0);
    LLVMValueRef rc = LLVMBuildFDiv(cx->b, one, den, "recip");
    if (exp_level(w, op->operands[0]) == SGC_EXP_SCALED_BF16) /* a reciprocal, then exact */
      rc = sgc_exp_unscale(cx, rc, "recip.scaled");
    if (op->code == SGT_SAFE_DIV)
      rc = LLVMBuildSelect(cx->b, LLVMBuildFCmp(cx->b, LLVMRealOEQ, den, zero, ""), zero, rc, "");
    out->recip = sgc_splat(cx, rc);
    out->recip_scalar = rc;
    if (exp_div_fuses(w, i))
      out->neg_log2 = sgc_splat(cx, LLVMBuildFNeg(cx->b, cx->hooks->log2(cx, den), "neg.log2"));
  }
  if (w->rows->build == SGC_BUILD_AT_OP)
    for (unsigned c = 0; c < pl->chunks; c++)
      row_chunk(w, i, c);
}

void sgc_walk_ops(sgc_walk *w) {
  for (int i = 0; i < w->cx->t->nops; i++)
    sgc_walk_op(w, i);
}
