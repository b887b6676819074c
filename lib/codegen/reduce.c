/* reduce.c - the row reduction tree (codegen/codegen.h): thread-local tree
 * over the thread's values, xor-shuffle butterfly over the row's lanes of a
 * wave (target hook), then, when a row spans several waves, one partial per
 * wave through shared memory and a barrier (target hook). */
#include <math.h>
#include <string.h>

#include "codegen/codegen.h"

LLVMValueRef sgc_intrinsic(sgc_ctx *cx, const char *name, LLVMTypeRef overload,
                           LLVMValueRef *args, unsigned nargs) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMTypeRef ov[1] = {overload};
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(cx->mod, id, ov, overload ? 1 : 0);
  LLVMTypeRef fty = LLVMIntrinsicGetType(cx->ctx, id, ov, overload ? 1 : 0);
  return LLVMBuildCall2(cx->b, fty, fn, args, nargs, "");
}

LLVMValueRef sgc_identity(sgc_ctx *cx, sgc_reduce_kind kind) {
  return LLVMConstReal(cx->f32, kind == SGC_REDUCE_MAX ? -INFINITY : 0.0);
}

LLVMValueRef sgc_combine(sgc_ctx *cx, sgc_reduce_kind kind, LLVMValueRef a, LLVMValueRef b) {
  if (kind == SGC_REDUCE_SUM)
    return LLVMBuildFAdd(cx->b, a, b, "");
  LLVMValueRef args[2] = {a, b};
  return sgc_intrinsic(cx, "llvm.maxnum", LLVMTypeOf(a), args, 2);
}

/* Pairwise tree over n values (n >= 1); keeps rounding error at log2(n). */
static LLVMValueRef tree(sgc_ctx *cx, sgc_reduce_kind kind, LLVMValueRef *v, unsigned n) {
  while (n > 1) {
    unsigned half = (n + 1) / 2;
    for (unsigned i = 0; i + half < n; i++)
      v[i] = sgc_combine(cx, kind, v[i], v[i + half]);
    n = half;
  }
  return v[0];
}

static LLVMValueRef block_stage(sgc_ctx *cx, sgc_reduce_kind kind, LLVMValueRef acc);
static LLVMValueRef cluster_stage(sgc_ctx *cx, sgc_reduce_kind kind, LLVMValueRef acc);

LLVMValueRef sgc_reduce_row(sgc_ctx *cx, sgc_reduce_kind kind, LLVMValueRef *chunks) {
  const sg_plan *pl = cx->plan;
  LLVMBuilderRef b = cx->b;
  LLVMValueRef vals[64];
  unsigned n = pl->chunks;

  /* thread: chunks -> one vector -> one scalar */
  for (unsigned i = 0; i < n; i++)
    vals[i] = chunks[i];
  LLVMValueRef v = tree(cx, kind, vals, n);
  for (unsigned i = 0; i < pl->vec; i++)
    vals[i] = LLVMBuildExtractElement(b, v, LLVMConstInt(cx->i32, i, 0), "");
  LLVMValueRef acc = tree(cx, kind, vals, pl->vec);

  /* wave: butterfly over the row's lanes within the wave */
  unsigned width = pl->threads_per_row < pl->wave ? pl->threads_per_row : pl->wave;
  for (unsigned m = width / 2; m >= 1; m /= 2)
    acc = sgc_combine(cx, kind, acc, cx->tg->shuffle_xor(cx, acc, m, width));
  if (pl->waves_per_row > 1)
    acc = block_stage(cx, kind, acc);
  if (pl->cluster > 1)
    acc = cluster_stage(cx, kind, acc);
  cx->next_slot++;
  return acc;
}

/* Block level: lane 0 of each wave stores its partial; a barrier; every
 * thread of the row reads all of them. */
static LLVMValueRef block_stage(sgc_ctx *cx, sgc_reduce_kind kind, LLVMValueRef acc) {
  const sg_plan *pl = cx->plan;
  LLVMBuilderRef b = cx->b;
  LLVMValueRef vals[64];

  unsigned P = pl->waves_per_row;
  LLVMValueRef lane_in_wave = LLVMBuildAnd(b, cx->tid, LLVMConstInt(cx->i32, pl->wave - 1, 0), "");
  LLVMValueRef wave_in_row =
      LLVMBuildLShr(b, cx->lane_in_row, LLVMConstInt(cx->i32, __builtin_ctz(pl->wave), 0), "");
  unsigned slot = cx->next_slot % pl->smem_slots;
  LLVMValueRef base = LLVMBuildAdd(
      b, LLVMConstInt(cx->i32, (unsigned long long)slot * pl->rows_per_block * P, 0),
      LLVMBuildMul(b, cx->row_in_block, LLVMConstInt(cx->i32, P, 0), ""), "red.base");
  LLVMValueRef is_lane0 = LLVMBuildICmp(b, LLVMIntEQ, lane_in_wave, LLVMConstInt(cx->i32, 0, 0), "");
  LLVMBasicBlockRef st_bb = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "red.store");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "red.join");
  LLVMBuildCondBr(b, is_lane0, st_bb, join);
  LLVMPositionBuilderAtEnd(b, st_bb);
  LLVMValueRef idx = LLVMBuildZExt(b, LLVMBuildAdd(b, base, wave_in_row, ""), cx->i64, "");
  LLVMValueRef p = LLVMBuildGEP2(b, cx->f32, cx->smem, &idx, 1, "");
  LLVMBuildStore(b, acc, p);
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
  cx->tg->barrier(cx);
  for (unsigned i = 0; i < P; i++) {
    LLVMValueRef j = LLVMBuildZExt(b, LLVMBuildAdd(b, base, LLVMConstInt(cx->i32, i, 0), ""),
                                   cx->i64, "");
    LLVMValueRef q = LLVMBuildGEP2(b, cx->f32, cx->smem, &j, 1, "");
    vals[i] = LLVMBuildLoad2(b, cx->f32, q, "");
  }
  return tree(cx, kind, vals, P);
}

/* Cluster level: the row's lane 0 stores the block's partial into slot
 * [rank] of every block of the cluster (distributed shared memory); a cluster
 * barrier; every thread reads the cluster's partials from its own block. */
static LLVMValueRef cluster_stage(sgc_ctx *cx, sgc_reduce_kind kind, LLVMValueRef acc) {
  const sg_plan *pl = cx->plan;
  LLVMBuilderRef b = cx->b;
  LLVMValueRef vals[64];
  unsigned C = pl->cluster, first = (pl->smem_bytes - pl->cluster_bytes) / 4;
  unsigned slot = cx->next_slot % pl->nreductions;
  LLVMValueRef base = LLVMBuildAdd(
      b, LLVMConstInt(cx->i32, first + slot * pl->rows_per_block * C, 0),
      LLVMBuildMul(b, cx->row_in_block, LLVMConstInt(cx->i32, C, 0), ""), "cluster.base");
  LLVMValueRef is_lane0 = LLVMBuildICmp(b, LLVMIntEQ, cx->lane_in_row, LLVMConstInt(cx->i32, 0, 0), "");
  LLVMBasicBlockRef st_bb = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "cluster.store");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "cluster.join");
  LLVMBuildCondBr(b, is_lane0, st_bb, join);
  LLVMPositionBuilderAtEnd(b, st_bb);
  LLVMValueRef idx = LLVMBuildZExt(b, LLVMBuildAdd(b, base, cx->cluster_rank, ""), cx->i64, "");
  LLVMValueRef p = LLVMBuildGEP2(b, cx->f32, cx->smem, &idx, 1, "");
  for (unsigned r = 0; r < C; r++)
    cx->tg->cluster_store(cx, p, LLVMConstInt(cx->i32, r, 0), acc);
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
  cx->tg->cluster_barrier(cx);
  for (unsigned i = 0; i < C; i++) {
    LLVMValueRef j = LLVMBuildZExt(b, LLVMBuildAdd(b, base, LLVMConstInt(cx->i32, i, 0), ""),
                                   cx->i64, "");
    vals[i] = LLVMBuildLoad2(b, cx->f32, LLVMBuildGEP2(b, cx->f32, cx->smem, &j, 1, ""), "");
  }
  return tree(cx, kind, vals, C);
}
