/* kernel.c - template op list + plan -> one LLVM kernel (codegen/module.h:
 * sgc_build): the kernel's skeleton, which picks the row strategy and drives it.
 *
 * The skeleton: the kernel's parameters and launch metadata (codegen/abi.c),
 * the reduction buffers, the entry block (the tensors' addresses, the
 * thread's row in its block and lane in its row), then a loop over row
 * blocks that the grid strides over (a cluster's blocks share each one), in
 * which the walk lowers the template's ops (codegen/walk.c). Where the
 * walk's chunks come from is the row strategy's (codegen/rows.h):
 *   registers  the row loaded once and held in registers (rows_registers.c)
 *   staged     the row copied to shared memory and re-read (rows_staged.c)
 *   tiled      the row in tiles, one pass over it per reduction (rows_tiled.c)
 *   flat       short rows, a row block copied in and out in 16-byte pieces
 *              through shared memory (rows_flat.c)
 * With prefetch (rows_in_flight 2, a persistent grid) the loop starts on the
 * first row block before it and on the next one in each trip.
 * Target-independent: ids, shuffles, barriers and exp2 come from the
 * target's hook table (codegen/hooks.h).
 *
 * A plan with few-rows variants (plan->few) gets a function for each, the
 * variant's kernel, in the same module; one metadata global describes all.
 *
 * Needs: a module set up for the plan's target, the template, the hooks.
 * Produces: the verified kernel(s) in m->mod. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>

#include "codegen/module.h"
#include "codegen/rows.h"

static const sgc_rows *row_strategy(const sg_plan *pl) {
  if (pl->flat)
    return &sgc_rows_flat;
  if (pl->stage)
    return &sgc_rows_staged;
  if (pl->row_tiles > 1)
    return &sgc_rows_tiled;
  return &sgc_rows_registers;
}

void sgc_thread_row(sgc_walk *w, unsigned j) {
  sgc_ctx *cx = w->cx;
  const sg_plan *pl = cx->plan;
  LLVMBuilderRef b = cx->b;
  unsigned apart = pl->block_threads / pl->threads_per_row; /* a block's threads' rows */
  cx->row_in_block = j ? LLVMBuildAdd(b, cx->first_row_in_block,
                                      LLVMConstInt(cx->i32, (uint64_t)j * apart, 0), "row.in.block")
                       : cx->first_row_in_block;
  LLVMValueRef m1 = LLVMBuildSub(b, w->a.rows, LLVMConstInt(cx->i64, 1, 0), "");
  LLVMValueRef in = LLVMBuildZExt(b, cx->row_in_block, cx->i64, "");
  sgc_addr_set_row(cx, &w->a, sgc_block_row(cx, &w->a, cx->row_block, in), m1);
}

/* The loop over row blocks, from the entry block on. */
static void build_rows(sgc_walk *w, LLVMValueRef *store, int *segs) {
  sgc_ctx *cx = w->cx;
  const sg_plan *pl = cx->plan;
  const sg_template *t = cx->t;
  const sgc_rows *rows = w->rows;
  LLVMBuilderRef b = cx->b;
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "entry");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "rows");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "exit");
  LLVMPositionBuilderAtEnd(b, entry);

  sgc_addr_init(cx, &w->a);
  cx->tid = cx->hooks->thread_id(cx);
  unsigned tshift = (unsigned)__builtin_ctz(pl->threads_per_row);
  unsigned pshift = (unsigned)__builtin_ctz(pl->pack);
  cx->row_in_block = /* packed rows: a thread's first row (threads_per_row is 1) */
      pl->pack > 1 ? LLVMBuildShl(b, cx->tid, LLVMConstInt(cx->i32, pshift, 0), "row.in.block")
                   : LLVMBuildLShr(b, cx->tid, LLVMConstInt(cx->i32, tshift, 0), "row.in.block");
  if (pl->flat && pl->row_step > 1) /* rows a pass apart on the image's banks (plan->row_step) */
    cx->row_in_block = LLVMBuildAnd(
        b, LLVMBuildMul(b, cx->row_in_block, LLVMConstInt(cx->i32, pl->row_step, 0), ""),
        LLVMConstInt(cx->i32, pl->block_threads / pl->threads_per_row - 1, 0), "row.in.block");
  cx->first_row_in_block = cx->row_in_block;
  cx->lane_in_row =
      LLVMBuildAnd(b, cx->tid, LLVMConstInt(cx->i32, pl->threads_per_row - 1, 0), "lane");
  if (rows->entry)
    rows->entry(w);
  LLVMValueRef R = LLVMConstInt(cx->i64, pl->rows_per_block, 0);
  LLVMValueRef nblocks = LLVMBuildUDiv(
      b, LLVMBuildAdd(b, w->a.rows, LLVMConstInt(cx->i64, pl->rows_per_block - 1, 0), ""), R,
      "row.blocks");
  /* the grid strides over row blocks; a cluster's blocks share each row block,
   * and so do a grid split's `cluster` consecutive blocks */
  unsigned hw = sgp_hw_cluster(pl);
  LLVMValueRef first, step;
  if (hw > 1) {
    first = LLVMBuildZExt(b, cx->hooks->cluster_id(cx), cx->i64, "");
    step = LLVMBuildZExt(b, cx->hooks->cluster_count(cx), cx->i64, "");
  } else if (pl->grid_split) {
    LLVMValueRef split = LLVMConstInt(cx->i32, pl->cluster, 0);
    first = LLVMBuildZExt(b, LLVMBuildUDiv(b, cx->hooks->block_id(cx), split, ""), cx->i64, "");
    step = LLVMBuildZExt(b, LLVMBuildUDiv(b, cx->hooks->grid_blocks(cx), split, ""), cx->i64, "");
  } else {
    first = LLVMBuildZExt(b, cx->hooks->block_id(cx), cx->i64, "");
    step = LLVMBuildZExt(b, cx->hooks->grid_blocks(cx), cx->i64, "");
  }
  cx->first_block = first;
  cx->block_step = step;
  if (hw > 1) { /* waited on before the first remote store (codegen/reduce.c) */
    if (pl->cluster_bars)
      sgc_exchange_init(cx);
    cx->hooks->cluster_arrive(cx, 1);
  }
  LLVMValueRef m1 = LLVMBuildSub(b, w->a.rows, LLVMConstInt(cx->i64, 1, 0), "");
  LLVMBasicBlockRef pre = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "prefetch.first");
  LLVMBasicBlockRef idle = exit;
  if (hw > 1) { /* no row block for this cluster: still wait on the arrive */
    idle = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "cluster.idle");
    LLVMBasicBlockRef here = LLVMGetInsertBlock(b);
    LLVMPositionBuilderAtEnd(b, idle);
    cx->hooks->cluster_wait(cx);
    LLVMBuildBr(b, exit);
    LLVMPositionBuilderAtEnd(b, here);
  }
  entry = LLVMGetInsertBlock(b); /* the exchange's set-up may have branched */
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, first, nblocks, ""), pl->prefetch ? pre : body,
                  idle);

  /* with prefetch, row block rb+step is fetched while rb computes */
  LLVMValueRef row_in = NULL;
  if (pl->prefetch) {
    LLVMPositionBuilderAtEnd(b, pre);
    row_in = LLVMBuildZExt(b, cx->row_in_block, cx->i64, "");
    LLVMValueRef row = sgc_block_row(cx, &w->a, first, row_in);
    LLVMValueRef rc = sgc_clamp_row(cx, &w->a, row, m1);
    if (rows->ahead)
      rows->ahead(w, rc);
    pre = LLVMGetInsertBlock(b); /* block_row may have branched */
    LLVMBuildBr(b, body);
  } else {
    LLVMDeleteBasicBlock(pre);
  }

  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef rb = LLVMBuildPhi(b, cx->i64, "row.block");
  cx->row_block = rb;
  cx->iteration = LLVMBuildPhi(b, cx->i32, "iteration");
  cx->cluster_started = 0;
  if (rows->phis)
    rows->phis(w);
  cx->parity = LLVMBuildAnd(b, cx->iteration, LLVMConstInt(cx->i32, 1, 0), "parity");
  row_in = LLVMBuildZExt(b, cx->row_in_block, cx->i64, "");
  sgc_addr_set_row(cx, &w->a, sgc_block_row(cx, &w->a, rb, row_in), m1);
  if (pl->grid_split)
    cx->grid_tag = sgc_grid_tag(cx);
  LLVMValueRef next = LLVMBuildAdd(b, rb, step, "next.block");
  /* a grid split computes one row block a `cluster` blocks: it is launched
   * with exactly that many (softgen/meta.h, "variant grid") */
  LLVMValueRef more = pl->grid_split ? LLVMConstInt(cx->i1, 0, 0)
                                     : LLVMBuildICmp(b, LLVMIntSLT, next, nblocks, "more");
  LLVMValueRef next_row = NULL;
  if (pl->prefetch) { /* the next row block (this one again on the last trip) */
    LLVMValueRef nb = LLVMBuildSelect(b, more, next, rb, "");
    next_row = sgc_clamp_row(cx, &w->a, sgc_block_row(cx, &w->a, nb, row_in), m1);
  }
  if (rows->begin)
    rows->begin(w, next_row, next_row ? more : NULL);

  cx->next_slot = 0;
  sgc_addr own_row = w->a; /* the thread's first row, its own again after the walks */
  for (unsigned j = 0; j < pl->thread_rows; j++) { /* a thread's rows (flat rows: several) */
    if (j)
      sgc_thread_row(w, j);
    memset(w->done, 0, sizeof w->done);
    w->seg = 0;
    for (int i = 0; i < t->nops; i++) {
      w->vals[i] =
          (sgc_val){.chunks = store + (size_t)i * pl->chunks, .seg = segs + (size_t)i * pl->chunks};
      for (unsigned c = 0; c < pl->chunks; c++)
        w->vals[i].seg[c] = -1;
    }
    rows->walk(w);
  }
  w->a = own_row;
  cx->row_in_block = cx->first_row_in_block;
  if (rows->finish)
    rows->finish(w);
  LLVMValueRef next_iteration = LLVMBuildAdd(b, cx->iteration, LLVMConstInt(cx->i32, 1, 0), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
  LLVMBuildCondBr(b, more, body, exit);
  LLVMValueRef in_vals[2] = {first, next};
  LLVMBasicBlockRef in_bbs[2] = {pl->prefetch ? pre : entry, latch};
  LLVMAddIncoming(rb, in_vals, in_bbs, 2);
  LLVMValueRef it_vals[2] = {LLVMConstInt(cx->i32, 0, 0), next_iteration};
  LLVMAddIncoming(cx->iteration, it_vals, in_bbs, 2);
  if (rows->end)
    rows->end(w, in_bbs);
  LLVMPositionBuilderAtEnd(b, exit);
  /* no exit barrier: a block of a cluster leaves only once all that was sent
   * to it has landed, after the last cluster barrier or transaction barrier
   * it waited on (codegen/reduce.c) */
  LLVMBuildRetVoid(b);
}

static sg_status build_kernel(sgc_ctx *cx, sg_diag *diag) {
  const sg_plan *pl = cx->plan;
  const sg_template *t = cx->t;
  sgc_declare_kernel(cx);
  if (pl->smem_bytes) {
    LLVMTypeRef at = LLVMArrayType2(cx->f32, pl->smem_bytes / 4);
    cx->smem = LLVMAddGlobalInAddressSpace(cx->mod, at, "softgen_reduce", cx->hooks->shared_as);
    LLVMSetInitializer(cx->smem, LLVMGetPoison(at));
    LLVMSetLinkage(cx->smem, LLVMInternalLinkage);
    LLVMSetAlignment(cx->smem, 16);
  }
  sgc_walk *w = calloc(1, sizeof *w);
  const sgc_rows *rows = row_strategy(pl);
  void *own = calloc(1, rows->own_size);
  LLVMValueRef *store = calloc((size_t)t->nops * pl->chunks + 1, sizeof *store);
  int *segs = calloc((size_t)t->nops * pl->chunks + 1, sizeof *segs);
  sg_status st = SG_OK;
  if (!w || !own || !store || !segs) {
    st = sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
  } else {
    w->cx = cx;
    w->rows = rows;
    w->own = own;
    w->skip_op = -1;
    for (int i = 0; i < t->nops; i++)
      if (t->ops[i].code == SGT_READ)
        w->read_ops[w->nreads++] = i;
    if (!rows->declare || !(st = rows->declare(w, diag)))
      build_rows(w, store, segs);
  }
  free(w);
  free(own);
  free(store);
  free(segs);
  if (st)
    return st;
  if (cx->hooks->finish_kernel)
    cx->hooks->finish_kernel(cx);
  return SG_OK;
}

/* Builds plan pl's kernel into m->mod with cx (set up here; its builder is
 * the caller's to dispose). */
static sg_status build_one(sg_module *m, const sg_template *t, const sgc_hooks *hooks,
                           const sg_plan *pl, sgc_ctx *cx, sg_diag *diag) {
  memset(cx, 0, sizeof *cx);
  cx->ctx = m->ctx;
  cx->mod = m->mod;
  cx->b = LLVMCreateBuilderInContext(m->ctx);
  cx->plan = pl;
  cx->t = t;
  cx->hooks = hooks;
  cx->i1 = LLVMInt1TypeInContext(m->ctx);
  cx->i32 = LLVMInt32TypeInContext(m->ctx);
  cx->i64 = LLVMInt64TypeInContext(m->ctx);
  cx->f32 = LLVMFloatTypeInContext(m->ctx);
  cx->gptr = LLVMPointerTypeInContext(m->ctx, hooks->global_as);
  return build_kernel(cx, diag);
}

/* The module's workspace for its grid splits: SGC_WORKSPACE_SLOTS slices of
 * `slice` bytes (the largest a grid split asks; each a multiple of 128), zero
 * as loaded, that the runtime hands to the streams it launches them on, one
 * slice a stream (softgen/meta.h, SG_META_WORKSPACE_SYMBOL). */
#define SGC_WORKSPACE_SLOTS 16
static void add_workspace(sg_module *m, const sgc_hooks *hooks, unsigned slice) {
  LLVMTypeRef at = LLVMArrayType2(LLVMInt8TypeInContext(m->ctx),
                                  (uint64_t)SGC_WORKSPACE_SLOTS * slice);
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(m->mod, at, SG_META_WORKSPACE_SYMBOL,
                                               hooks->global_as);
  LLVMSetInitializer(g, LLVMConstNull(at));
  LLVMSetAlignment(g, 128);
}

/* The plan's kernel and its few-rows variants (more functions of the same
 * module, same parameters), then the one launch metadata global that
 * describes them all. */
sg_status sgc_build(sg_module *m, const sg_template *t, const sgc_hooks *hooks, sg_diag *diag) {
  sgc_ctx cx, few;
  sg_status st = build_one(m, t, hooks, &m->plan, &cx, diag);
  for (unsigned i = 0; !st && i < m->plan.nfew; i++) {
    st = build_one(m, t, hooks, m->plan.few[i], &few, diag);
    LLVMDisposeBuilder(few.b);
  }
  unsigned slice = 0; /* the grid splits share the slices: the largest's bytes */
  for (unsigned i = 0; i < m->plan.nfew; i++)
    if (m->plan.few[i]->grid_split && m->plan.few[i]->workspace_bytes > slice)
      slice = m->plan.few[i]->workspace_bytes;
  if (!st && slice)
    add_workspace(m, hooks, slice);
  if (!st)
    st = sgc_add_meta(&cx, diag);
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
