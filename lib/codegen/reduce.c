/* reduce.c - the row reduction tree (codegen/codegen.h): a thread-local tree
 * over the thread's values, an xor-shuffle butterfly over the row's lanes of a
 * wave (target hook), then, when a row spans several waves, one partial per
 * wave through shared memory and a barrier, and, when it spans a cluster, one
 * partial per block through distributed shared memory and a cluster barrier.
 *
 * A partial is one float (max, sum) or the pair (max, sum of exp(x - max)) of
 * the online softmax, which reduces both in one pass over the tree. Shared
 * memory buffers alternate between even and odd iterations of the row loop,
 * so a buffer is never rewritten before every thread has read it. */
#include <assert.h>
#include <math.h>
#include <string.h>

#include "codegen/codegen.h"
#include "plan/policy.h" /* SGP_STAGE_MAX_CHUNKS */

LLVMValueRef sgc_intrinsic(sgc_ctx *cx, const char *name, LLVMTypeRef overload,
                           LLVMValueRef *args, unsigned nargs) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMTypeRef ov[1] = {overload};
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(cx->mod, id, ov, overload ? 1 : 0);
  LLVMTypeRef fty = LLVMIntrinsicGetType(cx->ctx, id, ov, overload ? 1 : 0);
  return LLVMBuildCall2(cx->b, fty, fn, args, nargs, "");
}

LLVMValueRef sgc_map_scalar(sgc_ctx *cx, const char *intrinsic, LLVMValueRef v) {
  unsigned id = LLVMLookupIntrinsicID(intrinsic, strlen(intrinsic));
  LLVMTypeRef overload = LLVMIntrinsicIsOverloaded(id) ? cx->f32 : NULL;
  if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMVectorTypeKind)
    return sgc_intrinsic(cx, intrinsic, overload, &v, 1);
  LLVMValueRef r = LLVMGetPoison(LLVMTypeOf(v));
  for (unsigned i = 0; i < LLVMGetVectorSize(LLVMTypeOf(v)); i++) {
    LLVMValueRef idx = LLVMConstInt(cx->i32, i, 0);
    LLVMValueRef e = LLVMBuildExtractElement(cx->b, v, idx, "");
    r = LLVMBuildInsertElement(cx->b, r, sgc_intrinsic(cx, intrinsic, overload, &e, 1), idx, "");
  }
  return r;
}

LLVMValueRef sgc_identity(sgc_ctx *cx, sgc_reduce_kind kind) {
  return LLVMConstReal(cx->f32, kind == SGC_REDUCE_SUM ? 0.0 : -INFINITY);
}

/* max(a, b), NaN if either is NaN, as torch.max / torch.amax (llvm.maximum:
 * max.NaN.f32 in PTX; maxnum, which drops a NaN, would make a row holding a
 * NaN reduce to the max of its other values). Every stage of every reduction
 * (lanes, chunks, shuffles, shared memory, clusters, the online pairs and
 * tiles) combines through here. nsz: max(-0, +0) may be either zero (they
 * compare equal; x - max is the same), which spares the x86 lowering two
 * blends a step. */
static LLVMValueRef vmax(sgc_ctx *cx, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef args[2] = {a, b};
  LLVMValueRef r = sgc_intrinsic(cx, "llvm.maximum", LLVMTypeOf(a), args, 2);
  LLVMSetFastMathFlags(r, LLVMFastMathNoSignedZeros);
  return r;
}

LLVMValueRef sgc_combine(sgc_ctx *cx, sgc_reduce_kind kind, LLVMValueRef a, LLVMValueRef b) {
  return kind == SGC_REDUCE_SUM ? LLVMBuildFAdd(cx->b, a, b, "") : vmax(cx, a, b);
}

LLVMValueRef sgc_exp_unscale(sgc_ctx *cx, LLVMValueRef v, const char *name) {
  return LLVMBuildFMul(cx->b, v, sgc_const_like(cx, v, 1.0 / (1 << SGC_EXP_SCALE_LOG2)), name);
}

LLVMValueRef sgc_exp(sgc_ctx *cx, LLVMValueRef x, int flush) {
  LLVMValueRef log2e = sgc_const_like(cx, x, M_LOG2E);
  if (flush == SGC_EXP_SCALED_BF16) { /* 2^8 exp(x): results from 2^-134 up are normal */
    LLVMValueRef args[3] = {x, log2e, sgc_const_like(cx, x, SGC_EXP_SCALE_LOG2)};
    return cx->hooks->exp2(cx, sgc_intrinsic(cx, "llvm.fmuladd", LLVMTypeOf(x), args, 3),
                           SGC_EXP_FLUSH);
  }
  return cx->hooks->exp2(cx, LLVMBuildFMul(cx->b, x, log2e, ""), flush);
}

/* exp(m - M), exactly 1 when m == M (so that -inf - -inf is not NaN). */
LLVMValueRef sgc_rescale(sgc_ctx *cx, LLVMValueRef m, LLVMValueRef M, int flush) {
  LLVMValueRef same = LLVMBuildFCmp(cx->b, LLVMRealOEQ, m, M, "");
  return LLVMBuildSelect(cx->b, same, LLVMConstReal(cx->f32, 1.0),
                         sgc_exp(cx, LLVMBuildFSub(cx->b, m, M, ""), flush), "rescale");
}

/* Partials a lane combines before the butterfly of a gather stage: the
 * row's waves x cluster blocks over the wave (at most 1024 / 32 x 16 / 32). */
#define SGC_MAX_GATHER 16

/* A partial: v[0] alone, or the online pair (v[0] max, v[1] sum). */
typedef struct partial {
  LLVMValueRef v[2];
} partial;

static unsigned width_of(sgc_reduce_kind kind) { return kind == SGC_REDUCE_ONLINE ? 2 : 1; }

static partial combine(sgc_ctx *cx, sgc_reduce_kind kind, partial a, partial b) {
  partial r;
  if (kind != SGC_REDUCE_ONLINE) {
    r.v[0] = sgc_combine(cx, kind, a.v[0], b.v[0]);
    return r;
  }
  r.v[0] = vmax(cx, a.v[0], b.v[0]);
  r.v[1] =
      LLVMBuildFAdd(cx->b, LLVMBuildFMul(cx->b, a.v[1], sgc_rescale(cx, a.v[0], r.v[0], 1), ""),
                    LLVMBuildFMul(cx->b, b.v[1], sgc_rescale(cx, b.v[0], r.v[0], 1), ""), "");
  return r;
}

/* Pairwise tree over n partials (n >= 1); keeps rounding error at log2(n). */
static partial tree(sgc_ctx *cx, sgc_reduce_kind kind, partial *v, unsigned n) {
  while (n > 1) {
    unsigned half = (n + 1) / 2;
    for (unsigned i = 0; i + half < n; i++)
      v[i] = combine(cx, kind, v[i], v[i + half]);
    n = half;
  }
  return v[0];
}

static LLVMValueRef tree1(sgc_ctx *cx, sgc_reduce_kind kind, LLVMValueRef *v, unsigned n) {
  partial p[64];
  for (unsigned i = 0; i < n; i++)
    p[i].v[0] = v[i];
  return tree(cx, kind, p, n).v[0];
}

/* One float of shared memory: index idx (i32) of the reduction buffers. */
static LLVMValueRef smem_at(sgc_ctx *cx, LLVMValueRef idx) {
  LLVMValueRef i64 = LLVMBuildZExt(cx->b, idx, cx->i64, "");
  return LLVMBuildGEP2(cx->b, cx->f32, cx->smem, &i64, 1, "");
}

/* Index of float k of partial `which` of this row in buffer area `area`
 * (first float of the area, floats per iteration parity), `count` partials. */
static LLVMValueRef slot_index(sgc_ctx *cx, unsigned area, unsigned per_parity, unsigned slot,
                               unsigned count, unsigned width, LLVMValueRef which, unsigned k) {
  LLVMBuilderRef b = cx->b;
  unsigned slot_floats = cx->plan->rows_per_block * count * width;
  LLVMValueRef base = LLVMBuildAdd(
      b, LLVMConstInt(cx->i32, area + slot * slot_floats, 0),
      LLVMBuildMul(b, cx->parity, LLVMConstInt(cx->i32, per_parity, 0), ""), "");
  LLVMValueRef row = LLVMBuildMul(b, cx->row_in_block, LLVMConstInt(cx->i32, count * width, 0), "");
  LLVMValueRef at = LLVMBuildAdd(b, LLVMBuildMul(b, which, LLVMConstInt(cx->i32, width, 0), ""),
                                 LLVMConstInt(cx->i32, k, 0), "");
  return LLVMBuildAdd(b, LLVMBuildAdd(b, base, row, ""), at, "");
}

LLVMBasicBlockRef sgc_open_if(sgc_ctx *cx, LLVMValueRef guard, const char *name) {
  LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, name);
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "join");
  LLVMBuildCondBr(cx->b, guard, then, join);
  LLVMPositionBuilderAtEnd(cx->b, then);
  return join;
}
void sgc_close_if(sgc_ctx *cx, LLVMBasicBlockRef join) {
  LLVMBuildBr(cx->b, join);
  LLVMPositionBuilderAtEnd(cx->b, join);
}

/* Wave level: an xor butterfly over groups of `width` lanes, after which
 * every lane of a group holds the group's value. Online pairs take the max
 * first, then each lane's sum rescaled to it, then the sums: one exp a lane
 * (pairs combined at each step would cost two a step). */
static partial butterfly(sgc_ctx *cx, sgc_reduce_kind kind, partial acc, unsigned width) {
  if (width <= 1)
    return acc;
  sgc_reduce_kind first = kind == SGC_REDUCE_ONLINE ? SGC_REDUCE_MAX : kind;
  LLVMValueRef v = acc.v[0];
  for (unsigned m = width / 2; m >= 1; m /= 2)
    v = sgc_combine(cx, first, v, cx->hooks->shuffle_xor(cx, v, m, width));
  if (kind != SGC_REDUCE_ONLINE)
    return (partial){{v, NULL}};
  LLVMValueRef s = LLVMBuildFMul(cx->b, acc.v[1], sgc_rescale(cx, acc.v[0], v, 1), "");
  for (unsigned m = width / 2; m >= 1; m /= 2)
    s = LLVMBuildFAdd(cx->b, s, cx->hooks->shuffle_xor(cx, s, m, width), "");
  return (partial){{v, s}};
}

/* The reduction buffers in shared memory (plan/resolve.c), in floats: the
 * block's (both parities), then the cluster's, then the cluster exchange's
 * transaction barriers (plan->cluster_bars: one a pass (slot) and iteration
 * parity). */
static unsigned cluster_area(const sg_plan *pl) { return 2 * pl->smem_parity_floats; }
static LLVMValueRef exchange_bar_at(sgc_ctx *cx, LLVMValueRef index) {
  const sg_plan *pl = cx->plan;
  unsigned first = cluster_area(pl) + 2 * pl->cluster_parity_floats;
  LLVMValueRef f = LLVMBuildAdd(cx->b, LLVMConstInt(cx->i32, first, 0),
                                LLVMBuildMul(cx->b, index, LLVMConstInt(cx->i32, 2, 0), ""), "");
  return smem_at(cx, f);
}
static LLVMValueRef exchange_bar(sgc_ctx *cx, unsigned slot) {
  LLVMValueRef i = LLVMBuildAdd(cx->b, LLVMConstInt(cx->i32, 2 * slot, 0), cx->parity, "");
  return exchange_bar_at(cx, i);
}
/* What lands in each block a pass: from each block of the cluster, one pair a
 * wave of each of the block's rows. */
static unsigned exchange_bytes(const sg_plan *pl) {
  return pl->rows_per_block * pl->waves_per_row * sgp_hw_cluster(pl) * 8;
}

void sgc_exchange_init(sgc_ctx *cx) {
  const sg_plan *pl = cx->plan;
  LLVMBasicBlockRef join = sgc_open_if(
      cx, LLVMBuildICmp(cx->b, LLVMIntEQ, cx->tid, LLVMConstInt(cx->i32, 0, 0), ""), "bars.init");
  LLVMSetValueName2(LLVMBasicBlockAsValue(join), "bars.ready", 10);
  cx->hooks->exchange_init(cx, exchange_bar_at(cx, LLVMConstInt(cx->i32, 0, 0)), pl->cluster_bars,
                           exchange_bytes(pl));
  sgc_close_if(cx, join);
}

/* Across waves and cluster blocks: the row's n = waves x blocks partials,
 * one per wave, meet in one buffer (lane 0 of each wave stores its own, then
 * the block's barrier; in a cluster, lane r of the wave (of the row, for rows
 * under a wave) stores it into block r's buffer, then the cluster's barrier,
 * or, with transaction barriers (plan->cluster_bars), sends it, counted on
 * block r's barrier of this pass and parity, and each thread waits until all
 * of its block's buffer has landed), then every wave reads them with its
 * lanes in parallel (lane l the partials l, l + wave, ...; with n under the
 * wave, l mod n, so that each group of n lanes holds all of them once) and
 * reduces them with the butterfly. Each thread combines n / wave of them at
 * most, rather than all n in turn. The first cluster stage of the kernel
 * first waits on the arrive the kernel made at entry: every block of the
 * cluster then runs, its barriers made, so remote stores are safe; the wait
 * comes this late so that the loads overlap it.
 *
 * With transaction barriers a block waits only for the data it needs, not for
 * every thread of the cluster (0.2-0.5 us less a one-row launch in a CUDA
 * graph on an H200; which plans take them: sgp_policy_exchange_bars). A
 * buffer of parity p is sent to again two iterations on, which no block can
 * start before every block's warps have sent this iteration's partials, that
 * is, read the buffer's last contents; thread 0 arms the barrier for that next
 * use as soon as it has waited. Either way no exit barrier is needed: a block
 * leaves only after all that was sent to it has landed. */
static partial gather_stage(sgc_ctx *cx, sgc_reduce_kind kind, partial acc) {
  const sg_plan *pl = cx->plan;
  LLVMBuilderRef b = cx->b;
  unsigned W = pl->waves_per_row, C = sgp_hw_cluster(pl), n = W * C, w = width_of(kind);
  unsigned slot = cx->next_slot, wave = pl->wave;
  unsigned area = C > 1 ? cluster_area(pl) : 0;
  unsigned per_parity = C > 1 ? pl->cluster_parity_floats : pl->smem_parity_floats;
  LLVMValueRef lane = LLVMBuildAnd(b, cx->tid, LLVMConstInt(cx->i32, wave - 1, 0), "");
  /* the thread's lane in its wave, or in its row where rows are under a wave:
   * its first C send (plan/resolve.c keeps C within a row's threads) */
  LLVMValueRef sender = pl->threads_per_row < wave ? cx->lane_in_row : lane;
  LLVMValueRef mine =
      LLVMBuildLShr(b, cx->lane_in_row, LLVMConstInt(cx->i32, __builtin_ctz(wave), 0), "");
  if (C > 1) {
    mine = LLVMBuildAdd(b, mine, LLVMBuildMul(b, cx->cluster_rank, LLVMConstInt(cx->i32, W, 0), ""),
                        "");
    if (!cx->cluster_started) {
      LLVMBasicBlockRef join = sgc_open_if(
          cx, LLVMBuildICmp(b, LLVMIntEQ, cx->iteration, LLVMConstInt(cx->i32, 0, 0), ""),
          "cluster.started");
      cx->hooks->cluster_wait(cx);
      sgc_close_if(cx, join);
      cx->cluster_started = 1;
    }
  }
  int bars = C > 1 && pl->cluster_bars;
  LLVMValueRef bar = bars ? exchange_bar(cx, slot) : NULL;
  LLVMBasicBlockRef join = sgc_open_if(
      cx, LLVMBuildICmp(b, LLVMIntULT, sender, LLVMConstInt(cx->i32, C, 0), ""), "partial.store");
  if (bars) /* the pair's second float is 0 where the partial is one */
    cx->hooks->exchange_send(cx, smem_at(cx, slot_index(cx, area, per_parity, slot, n, 2, mine, 0)),
                             bar, sender, acc.v[0], w > 1 ? acc.v[1] : LLVMConstReal(cx->f32, 0));
  else
    for (unsigned k = 0; k < w; k++) {
      LLVMValueRef p = smem_at(cx, slot_index(cx, area, per_parity, slot, n, 2, mine, k));
      if (C > 1)
        cx->hooks->cluster_store(cx, p, sender, acc.v[k]);
      else
        LLVMBuildStore(b, acc.v[k], p);
    }
  sgc_close_if(cx, join);
  if (bars) { /* the barrier's use of this iteration is its phase iteration / 2 */
    LLVMValueRef phase =
        LLVMBuildAnd(b, LLVMBuildLShr(b, cx->iteration, LLVMConstInt(cx->i32, 1, 0), ""),
                     LLVMConstInt(cx->i32, 1, 0), "phase");
    cx->hooks->exchange_wait(cx, bar, phase);
    LLVMBasicBlockRef armed = sgc_open_if(
        cx, LLVMBuildICmp(b, LLVMIntEQ, cx->tid, LLVMConstInt(cx->i32, 0, 0), ""), "rearm");
    cx->hooks->exchange_arm(cx, bar, exchange_bytes(pl));
    sgc_close_if(cx, armed);
  } else if (C > 1) {
    cx->hooks->cluster_arrive(cx, 0);
    cx->hooks->cluster_wait(cx);
  } else {
    cx->hooks->barrier(cx);
  }
  unsigned per = n > wave ? n / wave : 1;
  assert(per <= SGC_MAX_GATHER && (n & (n - 1)) == 0);
  partial parts[SGC_MAX_GATHER];
  for (unsigned j = 0; j < per; j++) {
    LLVMValueRef i = n > wave ? LLVMBuildAdd(b, lane, LLVMConstInt(cx->i32, j * wave, 0), "")
                              : LLVMBuildAnd(b, lane, LLVMConstInt(cx->i32, n - 1, 0), "");
    for (unsigned k = 0; k < w; k++)
      parts[j].v[k] = LLVMBuildLoad2(
          b, cx->f32, smem_at(cx, slot_index(cx, area, per_parity, slot, n, 2, i, k)), "");
  }
  return butterfly(cx, kind, tree(cx, kind, parts, per), n < wave ? n : wave);
}

/* An 8-byte word of the workspace, loaded or stored whole (single-copy
 * atomic, relaxed, at the device's scope): a float and its tag never tear. */
static LLVMValueRef ws_atomic(sgc_ctx *cx, LLVMValueRef access) {
  const char *scope = cx->hooks->device_scope;
  LLVMSetOrdering(access, LLVMAtomicOrderingMonotonic);
  LLVMSetAtomicSyncScopeID(access, LLVMGetSyncScopeID(cx->ctx, scope, strlen(scope)));
  LLVMSetAlignment(access, 8);
  return access;
}
static LLVMValueRef ws_load(sgc_ctx *cx, LLVMValueRef p) {
  return ws_atomic(cx, LLVMBuildLoad2(cx->b, cx->i64, p, ""));
}
static void ws_store(sgc_ctx *cx, LLVMValueRef v, LLVMValueRef p) {
  ws_atomic(cx, LLVMBuildStore(cx->b, v, p));
}

/* Word k of workgroup `rank`'s partial (i64) of pass `pass` in the row block's area. */
static LLVMValueRef ws_word(sgc_ctx *cx, unsigned pass, LLVMValueRef rank, unsigned k) {
  LLVMBuilderRef b = cx->b;
  const sg_plan *pl = cx->plan;
  LLVMValueRef slot = LLVMBuildURem(b, cx->row_block, LLVMConstInt(cx->i64, pl->max_rows, 0), "");
  LLVMValueRef off = LLVMBuildAdd(
      b, LLVMBuildMul(b, slot, LLVMConstInt(cx->i64, sgp_grid_row_bytes(pl), 0), ""),
      LLVMConstInt(cx->i64,
                   pl->workspace_offset + (uint64_t)pass * pl->cluster * 16 + 8 * k, 0), "");
  off = LLVMBuildAdd(b, off, LLVMBuildMul(b, rank, LLVMConstInt(cx->i64, 16, 0), ""), "grid.word");
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(cx->ctx), cx->workspace, &off, 1, "");
}

LLVMValueRef sgc_grid_tag(sgc_ctx *cx) {
  LLVMValueRef rank = LLVMBuildZExt(cx->b, cx->cluster_rank, cx->i64, "");
  LLVMValueRef last = ws_load(cx, ws_word(cx, 0, rank, 0)); /* written by this block alone */
  LLVMValueRef tag = LLVMBuildTrunc(cx->b, LLVMBuildLShr(cx->b, last, LLVMConstInt(cx->i64, 32, 0), ""),
                                    cx->i32, "");
  return LLVMBuildAdd(cx->b, tag, LLVMConstInt(cx->i32, 1, 0), "grid.tag");
}

/* A grid split (plan->grid_split): the row's `cluster` blocks are blocks of
 * the grid, so their partials meet in global memory, in the workspace
 * (plan/plan.h, sgp_grid_row_bytes) the runtime gives each stream, in this
 * variant's own area of it (plan->workspace_offset). A launch has a number,
 * its tag: the tag the block's own words hold, plus one (every launch of the
 * variant on the stream writes every word of its row blocks once, and no
 * other kernel writes them, so at rest the words of a row block all hold the
 * same tag; cx->grid_tag, loaded as the row block starts, sgc_grid_tag:
 * thread 0's counts). Thread 0 of each block stores the block's
 * partial, each float in one 8-byte word beside the tag; the first wave then
 * loads every block's words (lane l those of blocks l, l + wave, ...) until
 * all carry this launch's tag, reduces them with the butterfly, and lane 0
 * hands the row's partial to the block through shared memory and a barrier.
 * Words are loaded and stored whole, so a float is read with its own tag: no
 * counter, no fence, no reset; the workspace needs only to be zero when
 * loaded and its own to one stream at a time. The runtime launches every
 * block at once (cooperatively): no block waits for one that cannot start. */
static partial grid_stage(sgc_ctx *cx, sgc_reduce_kind kind, partial acc) {
  const sg_plan *pl = cx->plan;
  LLVMBuilderRef b = cx->b;
  unsigned G = pl->cluster, w = width_of(kind), wave = pl->wave, pass = cx->next_slot;
  unsigned per = G > wave ? G / wave : 1;
  assert(per <= SGC_MAX_GATHER * 4 && (G & (G - 1)) == 0 && pass < pl->passes);
  LLVMValueRef hi = LLVMConstInt(cx->i64, 32, 0);
  LLVMValueRef tid0 = LLVMBuildICmp(b, LLVMIntEQ, cx->tid, LLVMConstInt(cx->i32, 0, 0), "");
  LLVMValueRef tag64 = LLVMBuildShl(b, LLVMBuildZExt(b, cx->grid_tag, cx->i64, ""), hi, "");
  LLVMBasicBlockRef join = sgc_open_if(cx, tid0, "grid.store");
  LLVMValueRef rank = LLVMBuildZExt(b, cx->cluster_rank, cx->i64, "");
  for (unsigned k = 0; k < w; k++) {
    LLVMValueRef bits = LLVMBuildZExt(b, LLVMBuildBitCast(b, acc.v[k], cx->i32, ""), cx->i64, "");
    ws_store(cx, LLVMBuildOr(b, bits, tag64, ""), ws_word(cx, pass, rank, k));
  }
  sgc_close_if(cx, join);
  /* the first wave: thread 0's tag to every lane (an or over the wave: the
   * others contribute 0), then the loads until every word carries it */
  LLVMValueRef lane = LLVMBuildAnd(b, cx->tid, LLVMConstInt(cx->i32, wave - 1, 0), "");
  LLVMValueRef first = LLVMBuildICmp(b, LLVMIntULT, cx->tid, LLVMConstInt(cx->i32, wave, 0), "");
  join = sgc_open_if(cx, first, "grid.gather");
  LLVMValueRef t = LLVMBuildSelect(b, tid0, cx->grid_tag, LLVMConstInt(cx->i32, 0, 0), "");
  for (unsigned m = wave / 2; m >= 1; m /= 2) {
    LLVMValueRef f = LLVMBuildBitCast(b, t, cx->f32, "");
    t = LLVMBuildOr(b, t, LLVMBuildBitCast(b, cx->hooks->shuffle_xor(cx, f, m, wave), cx->i32, ""), "");
  }
  LLVMBasicBlockRef poll = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "grid.poll");
  LLVMBasicBlockRef got = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "grid.got");
  LLVMBuildBr(b, poll);
  LLVMPositionBuilderAtEnd(b, poll);
  LLVMValueRef words[SGC_MAX_GATHER * 4][2], ready = LLVMConstInt(cx->i1, 1, 0);
  for (unsigned j = 0; j < per; j++) {
    LLVMValueRef i = G > wave ? LLVMBuildAdd(b, lane, LLVMConstInt(cx->i32, j * wave, 0), "")
                              : LLVMBuildAnd(b, lane, LLVMConstInt(cx->i32, G - 1, 0), "");
    LLVMValueRef r = LLVMBuildZExt(b, i, cx->i64, "");
    for (unsigned k = 0; k < w; k++) {
      words[j][k] = ws_load(cx, ws_word(cx, pass, r, k));
      LLVMValueRef wt = LLVMBuildTrunc(b, LLVMBuildLShr(b, words[j][k], hi, ""), cx->i32, "");
      ready = LLVMBuildAnd(b, ready, LLVMBuildICmp(b, LLVMIntEQ, wt, t, ""), "");
    }
  }
  LLVMBuildCondBr(b, ready, got, poll);
  LLVMPositionBuilderAtEnd(b, got);
  partial parts[SGC_MAX_GATHER * 4];
  for (unsigned j = 0; j < per; j++)
    for (unsigned k = 0; k < w; k++)
      parts[j].v[k] = LLVMBuildBitCast(b, LLVMBuildTrunc(b, words[j][k], cx->i32, ""), cx->f32, "");
  partial row = butterfly(cx, kind, tree(cx, kind, parts, per), G < wave ? G : wave);
  unsigned area = pl->smem_bytes / 4 - 2 * pl->passes + 2 * pass; /* the grid stage's result */
  LLVMBasicBlockRef gathered = sgc_open_if(
      cx, LLVMBuildICmp(b, LLVMIntEQ, lane, LLVMConstInt(cx->i32, 0, 0), ""), "grid.result");
  for (unsigned k = 0; k < w; k++)
    LLVMBuildStore(b, row.v[k], smem_at(cx, LLVMConstInt(cx->i32, area + k, 0)));
  sgc_close_if(cx, gathered);
  sgc_close_if(cx, join);
  cx->hooks->barrier(cx);
  partial out = {{NULL, NULL}};
  for (unsigned k = 0; k < w; k++)
    out.v[k] = LLVMBuildLoad2(b, cx->f32, smem_at(cx, LLVMConstInt(cx->i32, area + k, 0)), "");
  return out;
}

/* Wave, block, cluster and grid levels of a partial every thread of the row holds. */
static partial across_threads(sgc_ctx *cx, sgc_reduce_kind kind, partial acc) {
  const sg_plan *pl = cx->plan;
  acc = butterfly(cx, kind, acc, pl->threads_per_row < pl->wave ? pl->threads_per_row : pl->wave);
  if (pl->waves_per_row > 1 || sgp_hw_cluster(pl) > 1)
    acc = gather_stage(cx, kind, acc);
  if (pl->grid_split)
    acc = grid_stage(cx, kind, acc);
  cx->next_slot++;
  return acc;
}

/* Horizontal reduction of one vector to a scalar (tree over its elements). */
static LLVMValueRef across_vector(sgc_ctx *cx, sgc_reduce_kind kind, LLVMValueRef v) {
  LLVMValueRef vals[SGC_MAX_VEC];
  for (unsigned i = 0; i < cx->plan->vec; i++)
    vals[i] = LLVMBuildExtractElement(cx->b, v, LLVMConstInt(cx->i32, i, 0), "");
  return tree1(cx, kind, vals, cx->plan->vec);
}

static LLVMValueRef splat_f32(sgc_ctx *cx, LLVMValueRef scalar) {
  LLVMValueRef zeros[SGC_MAX_VEC];
  for (unsigned i = 0; i < cx->plan->vec; i++)
    zeros[i] = LLVMConstInt(cx->i32, 0, 0);
  LLVMTypeRef vt = LLVMVectorType(cx->f32, cx->plan->vec);
  return LLVMBuildShuffleVector(
      cx->b, LLVMBuildInsertElement(cx->b, LLVMGetPoison(vt), scalar, LLVMConstInt(cx->i32, 0, 0), ""),
      LLVMGetPoison(vt), LLVMConstVector(zeros, cx->plan->vec), "");
}

/* Staged rows: chunk c's update of the thread's accumulators runs only where
 * x->live holds (a chunk of identities changes nothing); chunk_close joins
 * the two ways with phis (acc: after the update, before: the values it
 * started from). No join (NULL) when every chunk counts. */
static LLVMBasicBlockRef chunk_open(sgc_ctx *cx, const sgc_chunks *x, unsigned c,
                                    LLVMBasicBlockRef *from) {
  LLVMValueRef live = x->live ? x->live(x->env, c) : NULL;
  *from = LLVMGetInsertBlock(cx->b);
  return live ? sgc_open_if(cx, live, "chunk.live") : NULL;
}
static void chunk_close(sgc_ctx *cx, LLVMBasicBlockRef join, LLVMBasicBlockRef from,
                        LLVMValueRef *acc, const LLVMValueRef *before, unsigned n) {
  if (!join)
    return;
  LLVMBasicBlockRef done = LLVMGetInsertBlock(cx->b);
  sgc_close_if(cx, join);
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef phi = LLVMBuildPhi(cx->b, LLVMTypeOf(acc[k]), "acc");
    LLVMValueRef v[2] = {acc[k], before[k]};
    LLVMBasicBlockRef bb[2] = {done, from};
    LLVMAddIncoming(phi, v, bb, 2);
    acc[k] = phi;
  }
}

/* The thread's partial of a row value: every chunk, then a tree (registers),
 * or each chunk folded in as it is built (staged). */
static LLVMValueRef thread_partial(sgc_ctx *cx, sgc_reduce_kind kind, const sgc_chunks *x) {
  const sg_plan *pl = cx->plan;
  if (pl->stage) {
    LLVMValueRef acc = x->live ? splat_f32(cx, sgc_identity(cx, kind)) : NULL;
    for (unsigned c = 0; c < pl->chunks; c++) {
      LLVMBasicBlockRef from, join = chunk_open(cx, x, c, &from);
      LLVMValueRef before = acc, v = x->get(x->env, c);
      acc = acc ? sgc_combine(cx, kind, acc, v) : v;
      chunk_close(cx, join, from, &acc, &before, 1);
    }
    return across_vector(cx, kind, acc);
  }
  LLVMValueRef vals[64];
  for (unsigned c = 0; c < pl->chunks; c++)
    vals[c] = x->get(x->env, c);
  return across_vector(cx, kind, tree1(cx, kind, vals, pl->chunks)); /* chunks -> one vector */
}

/* Packed rows (plan->pack): the one vector's segments of N lanes, each
 * reduced within itself by log2 N xor steps over its lanes; every lane holds
 * its segment's (its row's) value. */
static LLVMValueRef segments(sgc_ctx *cx, sgc_reduce_kind kind, LLVMValueRef v) {
  const sg_plan *pl = cx->plan;
  LLVMValueRef lanes[SGC_MAX_VEC];
  for (unsigned step = 1; step < pl->n; step *= 2) {
    for (unsigned j = 0; j < pl->vec; j++)
      lanes[j] = LLVMConstInt(cx->i32, j ^ step, 0);
    LLVMValueRef swapped = LLVMBuildShuffleVector(cx->b, v, LLVMGetPoison(LLVMTypeOf(v)),
                                                  LLVMConstVector(lanes, pl->vec), "segment");
    v = sgc_combine(cx, kind, v, swapped);
  }
  return v;
}

LLVMValueRef sgc_reduce_row(sgc_ctx *cx, sgc_reduce_kind kind, const sgc_chunks *x) {
  if (cx->plan->pack > 1)
    return segments(cx, kind, x->get(x->env, 0));
  partial acc = {{thread_partial(cx, kind, x), NULL}};
  return across_threads(cx, kind, acc).v[0];
}

/* What a thread subtracts before exp: its max, or 0 when that is -inf (all
 * its values masked: the exps are then 0). */
static LLVMValueRef exp_shift(sgc_ctx *cx, LLVMValueRef m) {
  LLVMValueRef ninf = LLVMConstReal(cx->f32, -INFINITY);
  return LLVMBuildSelect(cx->b, LLVMBuildFCmp(cx->b, LLVMRealOEQ, m, ninf, ""),
                         LLVMConstReal(cx->f32, 0.0), m, "");
}

void sgc_reduce_row_online(sgc_ctx *cx, const sgc_chunks *x, LLVMValueRef *e, int e_flush,
                           LLVMValueRef *max, LLVMValueRef *sum) {
  const sg_plan *pl = cx->plan;
  LLVMBuilderRef b = cx->b;
  LLVMValueRef mt, st, mc[SGP_STAGE_MAX_CHUNKS]; /* held exps: each chunk's running max */
  /* exps kept 2^8 too large are rescaled by true ratios, and the sum unscaled */
  int r_flush = e_flush == SGC_EXP_SCALED_BF16 ? SGC_EXP_FLUSH_BF16 : e_flush;
  if (pl->stage) { /* a running (max, sum) pair, one chunk at a time */
    mt = LLVMConstReal(cx->f32, -INFINITY);
    st = LLVMConstReal(cx->f32, 0.0);
    for (unsigned c = 0; c < pl->chunks; c++) {
      LLVMBasicBlockRef from, join = chunk_open(cx, x, c, &from);
      LLVMValueRef before[2] = {mt, st}, v = x->get(x->env, c);
      LLVMValueRef mn = vmax(cx, mt, across_vector(cx, SGC_REDUCE_MAX, v));
      LLVMValueRef ec = sgc_exp(cx, LLVMBuildFSub(b, v, splat_f32(cx, exp_shift(cx, mn)), ""),
                                e ? e_flush : 1);
      if (e) { /* held (plan->hold: no chunk is skipped, so no join): rescaled below */
        e[c] = ec;
        mc[c] = mn;
      }
      LLVMValueRef se = across_vector(cx, SGC_REDUCE_SUM, ec);
      st = c == 0 ? se /* st is still 0 */
                  : LLVMBuildFAdd(b, LLVMBuildFMul(b, st, sgc_rescale(cx, mt, mn, 1), ""), se, "");
      mt = mn;
      LLVMValueRef acc[2] = {mt, st};
      chunk_close(cx, join, from, acc, before, 2);
      mt = acc[0];
      st = acc[1];
    }
  } else {
    LLVMValueRef xs[64], vals[64];
    for (unsigned c = 0; c < pl->chunks; c++)
      xs[c] = x->get(x->env, c);
    for (unsigned c = 0; c < pl->chunks; c++)
      vals[c] = xs[c];
    mt = across_vector(cx, SGC_REDUCE_MAX, tree1(cx, SGC_REDUCE_MAX, vals, pl->chunks));
    LLVMValueRef sv = splat_f32(cx, exp_shift(cx, mt));
    for (unsigned c = 0; c < pl->chunks; c++) {
      e[c] = sgc_exp(cx, LLVMBuildFSub(b, xs[c], sv, ""), e_flush);
      vals[c] = e[c];
    }
    st = across_vector(cx, SGC_REDUCE_SUM, tree1(cx, SGC_REDUCE_SUM, vals, pl->chunks));
  }
  partial acc = {{mt, st}};
  acc = across_threads(cx, SGC_REDUCE_ONLINE, acc);
  *max = acc.v[0];
  *sum = e && e_flush == SGC_EXP_SCALED_BF16 ? sgc_exp_unscale(cx, acc.v[1], "sum.unscaled")
                                             : acc.v[1];
  if (!e)
    return;
  if (pl->stage) { /* held exps: chunk c's were relative to the running max after it */
    for (unsigned c = 0; c < pl->chunks; c++)
      e[c] = LLVMBuildFMul(b, e[c], splat_f32(cx, sgc_rescale(cx, mc[c], acc.v[0], r_flush)), "");
    return;
  }
  /* the thread's exps were relative to its own max: rescale to the row's */
  LLVMValueRef rv = splat_f32(cx, sgc_rescale(cx, mt, acc.v[0], r_flush)); /* 0: all -inf */
  for (unsigned c = 0; c < pl->chunks; c++)
    e[c] = LLVMBuildFMul(b, e[c], rv, "");
}

LLVMValueRef sgc_const_like(sgc_ctx *cx, LLVMValueRef v, double c) {
  LLVMValueRef k = LLVMConstReal(cx->f32, c), e[SGC_MAX_VEC];
  if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMVectorTypeKind)
    return k;
  unsigned n = LLVMGetVectorSize(LLVMTypeOf(v));
  for (unsigned i = 0; i < n; i++)
    e[i] = k;
  return LLVMConstVector(e, n);
}

void sgc_online_tile(sgc_ctx *cx, LLVMValueRef *m, LLVMValueRef *s, const LLVMValueRef *x,
                     unsigned n) {
  LLVMBuilderRef b = cx->b;
  LLVMValueRef v[64];
  for (unsigned c = 0; c < n; c++)
    v[c] = x[c];
  LLVMValueRef mn = vmax(cx, *m, tree1(cx, SGC_REDUCE_MAX, v, n));
  /* subtract 0 where the max is -inf (every value so far masked: exps 0) */
  LLVMValueRef ninf = sgc_const_like(cx, mn, -INFINITY);
  LLVMValueRef shift = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, mn, ninf, ""),
                                       sgc_const_like(cx, mn, 0.0), mn, "");
  for (unsigned c = 0; c < n; c++)
    v[c] = sgc_exp(cx, LLVMBuildFSub(b, x[c], shift, ""), 1);
  LLVMValueRef same = LLVMBuildFCmp(b, LLVMRealOEQ, *m, mn, "");
  LLVMValueRef rescale = LLVMBuildSelect(b, same, sgc_const_like(cx, mn, 1.0),
                                         sgc_exp(cx, LLVMBuildFSub(b, *m, mn, ""), 1), "rescale");
  *s = LLVMBuildFAdd(b, LLVMBuildFMul(b, *s, rescale, ""), tree1(cx, SGC_REDUCE_SUM, v, n), "");
  *m = mn;
}

void sgc_reduce_pairs(sgc_ctx *cx, LLVMValueRef m, LLVMValueRef s, LLVMValueRef *max,
                      LLVMValueRef *sum) {
  partial lanes[SGC_MAX_VEC];
  for (unsigned i = 0; i < cx->plan->vec; i++) {
    LLVMValueRef idx = LLVMConstInt(cx->i32, i, 0);
    lanes[i].v[0] = LLVMBuildExtractElement(cx->b, m, idx, "");
    lanes[i].v[1] = LLVMBuildExtractElement(cx->b, s, idx, "");
  }
  partial acc = across_threads(cx, SGC_REDUCE_ONLINE, tree(cx, SGC_REDUCE_ONLINE, lanes, cx->plan->vec));
  *max = acc.v[0];
  *sum = acc.v[1];
}
