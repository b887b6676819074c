/* address.c - where a row block's elements are (codegen/rows.h): the tensors'
 * pointers and strides from the kernel's parameters, the rows and columns a
 * thread reads, element addresses in both layouts, and the plain loads.
 *
 * Layout of the work (all numbers from the plan): a block is rows_per_block
 * rows x threads_per_row threads, and the grid strides over row blocks. A
 * thread holds `chunks` vectors of `vec` elements of its row: chunk c covers
 * columns (c * threads_per_row + lane) * vec + [0, vec) (sgc_chunk_columns).
 * Row values ([M, N]) are arrays of <vec x float>; per-row values ([M]) are
 * one float that every thread of the row holds. Loads are never predicated:
 * rows past M and columns past N read a clamped, in-bounds address and the
 * result is replaced by -inf (codegen/walk.c); stores past M or N are skipped.
 * A cluster's blocks share a row: each block's pointers start at its rank's
 * tile of tile_n columns.
 * The inner layout (plan->layout): tensors are [outer, N, inner] with row
 * m = o * inner + i and element (m, n) at o * stride + n * nstride + i
 * (sgc_element_ptr); a thread owns a row (threads_per_row = vec = 1), so
 * adjacent threads read adjacent addresses.
 *
 * Needs: the kernel's parameters (codegen/abi.c), the plan. Produces: sgc_addr
 * set-up, element addresses and loads for the walk and the row strategies. */
#include "codegen/rows.h"

LLVMTypeRef sgc_elem_type(sgc_ctx *cx, int tensor) {
  switch (sgt_tensor_dtype(cx->t, tensor, cx->plan->dtype, cx->plan->out_dtype)) {
  case SG_DTYPE_F16:
    return LLVMHalfTypeInContext(cx->ctx);
  case SG_DTYPE_BF16:
    return LLVMBFloatTypeInContext(cx->ctx);
  default:
    return cx->f32;
  }
}

unsigned sgc_elem_bytes(sgc_ctx *cx, int tensor) {
  return (unsigned)LLVMABISizeOfType(LLVMGetModuleDataLayout(cx->mod), sgc_elem_type(cx, tensor));
}

void sgc_addr_init(sgc_ctx *cx, sgc_addr *a) {
  const sg_plan *pl = cx->plan;
  const sg_template *t = cx->t;
  for (int i = 0; i < t->ntensors; i++) {
    a->ptr[i] = LLVMGetParam(cx->fn, (unsigned)i);
    a->stride[i] = LLVMGetParam(cx->fn, (unsigned)(t->ntensors + 1 + i));
    a->repeat[i] = cx->repeat_rows[i];
    if (pl->layout == SG_LAYOUT_INNER)
      a->nstride[i] = LLVMGetParam(cx->fn, (unsigned)(2 * t->ntensors + 2 + i));
  }
  if (pl->layout == SG_LAYOUT_INNER)
    a->inner = LLVMGetParam(cx->fn, (unsigned)(2 * t->ntensors + 1));
  a->rows = LLVMGetParam(cx->fn, (unsigned)t->ntensors);
  if (pl->cluster > 1) { /* this block's columns start at rank * tile_n */
    LLVMBuilderRef b = cx->b;
    cx->cluster_rank = cx->hooks->cluster_rank(cx);
    LLVMValueRef tile = LLVMConstInt(cx->i64, (unsigned long long)pl->tile_n, 0);
    LLVMValueRef off = LLVMBuildMul(b, LLVMBuildZExt(b, cx->cluster_rank, cx->i64, ""), tile,
                                    "tile.start");
    for (int i = 0; i < t->ntensors; i++)
      a->ptr[i] = LLVMBuildGEP2(b, sgc_elem_type(cx, i), a->ptr[i], &off, 1, "");
    a->col_base = off;
  }
}

/* Inner layout: the offset of row `row`'s element 0 in tensor ti, o * stride + i
 * with o = row / inner, i = row % inner. */
static LLVMValueRef inner_row_base(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef row) {
  LLVMValueRef o = LLVMBuildUDiv(cx->b, row, a->inner, "outer");
  LLVMValueRef i = LLVMBuildSub(cx->b, row, LLVMBuildMul(cx->b, o, a->inner, ""), "inner.i");
  return LLVMBuildAdd(cx->b, LLVMBuildMul(cx->b, o, a->stride[ti], ""), i, "row.base");
}

void sgc_addr_set_row(sgc_ctx *cx, sgc_addr *a, LLVMValueRef row, LLVMValueRef last) {
  LLVMBuilderRef b = cx->b;
  a->row = row;
  a->row_valid = LLVMBuildICmp(b, LLVMIntSLT, row, a->rows, "row.ok");
  a->row_clamped =
      cx->plan->rows_per_block > 1 ? LLVMBuildSelect(b, a->row_valid, row, last, "") : row;
  /* inner layout: the row bases of row and row_clamped, computed once where
   * they are defined (every later use is dominated by them) */
  for (int ti = 0; cx->plan->layout == SG_LAYOUT_INNER && ti < cx->t->ntensors; ti++) {
    a->row_base[0][ti] = inner_row_base(cx, a, ti, a->row);
    a->row_base[1][ti] = a->row_clamped == a->row ? a->row_base[0][ti]
                                                  : inner_row_base(cx, a, ti, a->row_clamped);
  }
}

LLVMValueRef sgc_element_ptr(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef row, LLVMValueRef col) {
  LLVMValueRef off;
  if (cx->plan->layout == SG_LAYOUT_INNER) {
    LLVMValueRef base = row == a->row           ? a->row_base[0][ti]
                        : row == a->row_clamped ? a->row_base[1][ti]
                                                : inner_row_base(cx, a, ti, row);
    off = LLVMBuildAdd(cx->b, base, LLVMBuildMul(cx->b, col, a->nstride[ti], ""), "");
  } else {
    if (a->repeat[ti])
      row = LLVMBuildURem(cx->b, row, a->repeat[ti], "row.repeat");
    off = LLVMBuildAdd(cx->b, LLVMBuildMul(cx->b, row, a->stride[ti], ""), col, "");
  }
  return LLVMBuildGEP2(cx->b, sgc_elem_type(cx, ti), a->ptr[ti], &off, 1, "");
}

LLVMValueRef sgc_clamped_col(sgc_ctx *cx, sgc_addr *a, unsigned c) {
  if (!a->col_valid[c])
    return a->col[c];
  return LLVMBuildSelect(cx->b, a->col_valid[c], a->col[c], LLVMConstInt(cx->i64, 0, 0),
                         "col.clamped");
}

void sgc_load_row(sgc_ctx *cx, sgc_addr *a, const sgt_op *op, LLVMValueRef row, LLVMValueRef *raw) {
  LLVMTypeRef et = sgc_elem_type(cx, op->tensor);
  for (unsigned c = 0; c < a->nchunks; c++) {
    unsigned align = cx->plan->vec * sgc_elem_bytes(cx, op->tensor);
    LLVMValueRef at = sgc_element_ptr(cx, a, op->tensor, row, sgc_clamped_col(cx, a, c));
    LLVMValueRef v = LLVMBuildLoad2(cx->b, LLVMVectorType(et, cx->plan->vec), at, "x");
    LLVMSetAlignment(v, align);
    raw[c] = v;
  }
}

void sgc_chunk_columns(sgc_ctx *cx, sgc_addr *a, LLVMValueRef base, unsigned nchunks,
                       uint64_t limit) {
  const sg_plan *pl = cx->plan;
  LLVMValueRef lane = LLVMBuildZExt(cx->b, cx->lane_in_row, cx->i64, "");
  a->nchunks = nchunks;
  for (unsigned c = 0; c < nchunks; c++) {
    uint64_t first = (uint64_t)c * pl->threads_per_row;
    LLVMValueRef v = LLVMBuildAdd(cx->b, LLVMConstInt(cx->i64, first, 0), lane, "");
    a->col[c] = LLVMBuildMul(cx->b, v, LLVMConstInt(cx->i64, pl->vec, 0), "col");
    if (base)
      a->col[c] = LLVMBuildAdd(cx->b, base, a->col[c], "col");
    uint64_t end = (first + pl->threads_per_row) * pl->vec;
    LLVMValueRef n = LLVMConstInt(cx->i64, (unsigned long long)pl->tile_n, 0);
    a->col_valid[c] = end > limit ? LLVMBuildICmp(cx->b, LLVMIntULT, a->col[c], n, "col.ok") : NULL;
  }
}

LLVMValueRef sgc_chunk_offset32(sgc_ctx *cx, unsigned c) {
  unsigned long long step = (unsigned long long)cx->plan->threads_per_row * cx->plan->vec;
  return LLVMConstInt(cx->i32, c * step, 0);
}

/* Row blocks in head order. With an input whose R rows repeat (mask[R, N]
 * under [H, R, N] scores) and more than plan->head_order_bytes of it (the
 * policy's threshold), row blocks are taken in an order that puts the H rows
 * sharing a mask row next to each other: block rb is row block (rb mod H) *
 * (R / rows_per_block) + rb / H, so a mask row is read from DRAM once and from
 * L2 by the other H - 1 (in plain order they are R rows apart, evicted once
 * the mask and the rows read between outgrow the L2). Also the plain order
 * where rows_per_block does not divide R. */
LLVMValueRef sgc_block_row(sgc_ctx *cx, const sgc_addr *a, LLVMValueRef rb, LLVMValueRef row_in) {
  LLVMBuilderRef b = cx->b;
  LLVMValueRef k = LLVMConstInt(cx->i64, cx->plan->rows_per_block, 0);
  int ti = 0; /* the first input whose rows repeat, if any */
  while (ti < cx->t->ntensors && !a->repeat[ti])
    ti++;
  if (ti < cx->t->ntensors) {
    LLVMValueRef rep = a->repeat[ti];
    unsigned long long row_bytes = (unsigned long long)cx->plan->n * sgc_elem_bytes(cx, ti);
    LLVMValueRef zero = LLVMConstInt(cx->i64, 0, 0);
    LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGT, rep,
                                     LLVMConstInt(cx->i64, cx->plan->head_order_bytes / row_bytes, 0), "");
    LLVMValueRef shared = LLVMBuildICmp(b, LLVMIntULT, rep, a->rows, "");
    LLVMValueRef even = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildURem(b, rep, k, ""), zero, "");
    LLVMValueRef use = LLVMBuildAnd(b, LLVMBuildAnd(b, big, shared, ""), even, "order.by.head");
    LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "order.head");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "order.join");
    LLVMBuildCondBr(b, use, head, join);
    LLVMPositionBuilderAtEnd(b, head);
    LLVMValueRef heads = LLVMBuildUDiv(b, a->rows, rep, "heads");
    LLVMValueRef per_head = LLVMBuildUDiv(b, rep, k, "blocks.per.head");
    LLVMValueRef at =
        LLVMBuildAdd(b, LLVMBuildMul(b, LLVMBuildURem(b, rb, heads, ""), per_head, ""),
                     LLVMBuildUDiv(b, rb, heads, ""), "row.block.by.head");
    LLVMBuildBr(b, join);
    LLVMPositionBuilderAtEnd(b, join);
    LLVMValueRef phi = LLVMBuildPhi(b, cx->i64, "row.block.ordered");
    LLVMValueRef vals[2] = {rb, at};
    LLVMBasicBlockRef bbs[2] = {from, head};
    LLVMAddIncoming(phi, vals, bbs, 2);
    rb = phi;
  }
  return LLVMBuildAdd(b, LLVMBuildMul(b, rb, k, ""), row_in, "row");
}

LLVMValueRef sgc_clamp_row(sgc_ctx *cx, const sgc_addr *a, LLVMValueRef row, LLVMValueRef last) {
  return LLVMBuildSelect(cx->b, LLVMBuildICmp(cx->b, LLVMIntSLT, row, a->rows, ""), row, last, "");
}
