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
 * tile of tile_n columns; where the split is uneven the last block's columns
 * end at N, before its tile's end (col_end).
 * Peeled rows (plan->peel: an odd N read in full vectors) shift each row's
 * columns by its own misalignment h, so that the vectors are aligned; the
 * head chunk and the chunks that can leave the row or the tile check each
 * lane, and a partial chunk loads and stores element by element (the
 * "peeled rows" section below).
 * Packed rows (plan->pack: several rows a vector, N dividing it) load and
 * store a thread's pack rows as one vector where they are one aligned span
 * below M, else element by element (the "packed rows" section below).
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

LLVMValueRef sgc_stage_memory(sgc_ctx *cx) {
  /* one declaration for every kernel of the module (a few-rows variant's too):
   * each launch's dynamic shared memory starts there */
  LLVMValueRef g = LLVMGetNamedGlobal(cx->mod, "softgen_stage");
  if (!g) {
    LLVMTypeRef at = LLVMArrayType2(LLVMInt8TypeInContext(cx->ctx), 0);
    g = LLVMAddGlobalInAddressSpace(cx->mod, at, "softgen_stage", cx->hooks->shared_as);
    LLVMSetLinkage(g, LLVMExternalLinkage);
    LLVMSetAlignment(g, 16);
  }
  return g;
}

/* A cluster whose last workgroup holds fewer columns than tile_n (not peeled
 * rows: their checks bound every lane by N), and how many it holds. */
static int uneven_split(const sg_plan *pl) {
  return !pl->peel && (uint64_t)pl->tile_n * pl->cluster != (uint64_t)pl->n;
}
static uint64_t last_columns(const sg_plan *pl) {
  return (uint64_t)pl->n - (uint64_t)(pl->cluster - 1) * (uint64_t)pl->tile_n;
}

static LLVMValueRef i64c(sgc_ctx *cx, int64_t v) {
  return LLVMConstInt(cx->i64, (unsigned long long)v, 1);
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
  a->rows = LLVMGetParam(cx->fn, (unsigned)t->ntensors);
  for (int i = 0; pl->peel && pl->layout == SG_LAYOUT_ROWS && i < t->ntensors; i++) {
    /* the bytes of its rows: row r's N elements from (r x stride) on, r < M (or R) */
    LLVMBuilderRef b = cx->b;
    LLVMValueRef rows = a->repeat[i] ? a->repeat[i] : a->rows;
    LLVMValueRef last = LLVMBuildSub(b, rows, i64c(cx, 1), "");
    LLVMValueRef elems = LLVMBuildAdd(b, LLVMBuildMul(b, last, a->stride[i], ""), cx->cols, "");
    a->span_lo[i] = LLVMBuildPtrToInt(b, a->ptr[i], cx->i64, "span.lo");
    a->span_hi[i] = LLVMBuildAdd(
        b, a->span_lo[i], LLVMBuildMul(b, elems, i64c(cx, sgc_elem_bytes(cx, i)), ""), "span.hi");
  }
  if (pl->layout == SG_LAYOUT_INNER)
    a->inner = LLVMGetParam(cx->fn, (unsigned)(2 * t->ntensors + 1));
  for (int i = 0; pl->pack > 1 && i < t->ntensors; i++) { /* packed rows: one aligned span? */
    LLVMBuilderRef b = cx->b;
    unsigned long long bytes = (unsigned long long)pl->vec * sgc_elem_bytes(cx, i);
    LLVMValueRef at = LLVMBuildPtrToInt(b, a->ptr[i], cx->i64, "");
    LLVMValueRef aligned =
        LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, at, LLVMConstInt(cx->i64, bytes - 1, 0), ""),
                      LLVMConstInt(cx->i64, 0, 0), "");
    LLVMValueRef dense = LLVMBuildICmp(b, LLVMIntEQ, a->stride[i],
                                       LLVMConstInt(cx->i64, (unsigned long long)pl->n, 0), "");
    a->pack_span[i] = LLVMBuildAnd(b, aligned, dense, "pack.span");
  }
  if (pl->cluster > 1) { /* this block's columns start at rank * tile_n */
    LLVMBuilderRef b = cx->b;
    cx->cluster_rank = pl->grid_split /* a grid split's: consecutive blocks share a row */
                           ? LLVMBuildURem(b, cx->hooks->block_id(cx),
                                           LLVMConstInt(cx->i32, pl->cluster, 0), "grid.rank")
                           : cx->hooks->cluster_rank(cx);
    LLVMValueRef tile = LLVMConstInt(cx->i64, (unsigned long long)pl->tile_n, 0);
    LLVMValueRef off = LLVMBuildMul(b, LLVMBuildZExt(b, cx->cluster_rank, cx->i64, ""), tile,
                                    "tile.start");
    for (int i = 0; i < t->ntensors; i++)
      a->ptr[i] = LLVMBuildGEP2(b, sgc_elem_type(cx, i), a->ptr[i], &off, 1, "");
    a->col_base = off;
    /* an uneven split: the last workgroup's columns end at N, before its tile's end */
    if (uneven_split(pl)) {
      LLVMValueRef last = LLVMBuildICmp(b, LLVMIntEQ, cx->cluster_rank,
                                        LLVMConstInt(LLVMTypeOf(cx->cluster_rank),
                                                     pl->cluster - 1, 0), "rank.last");
      a->col_end = LLVMBuildSelect(b, last, LLVMConstInt(cx->i64, last_columns(pl), 0), tile,
                                   "col.end");
    }
  }
}

/* Inner layout: the offset of row `row`'s element 0 in tensor ti, o * stride + i
 * with o = row / inner, i = row % inner. */
static LLVMValueRef inner_row_base(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef row) {
  LLVMValueRef o = LLVMBuildUDiv(cx->b, row, a->inner, "outer");
  LLVMValueRef i = LLVMBuildSub(cx->b, row, LLVMBuildMul(cx->b, o, a->inner, ""), "inner.i");
  return LLVMBuildAdd(cx->b, LLVMBuildMul(cx->b, o, a->stride[ti], ""), i, "row.base");
}

/* ---- peeled rows (plan->peel) ----
 * A row's element 0 of tensor t sits at element e = address / size + row *
 * stride; its shift h = e mod vec. Chunk c's columns become lane_col - h, so
 * that every vector access of the first read tensor (and of any tensor whose
 * row has the same h) is aligned. Columns outside [0, N), only in the head
 * chunk and the chunks that can cross N (a->check), are masked per lane. */

/* The tensor whose shift is the row's: the first read. */
static int peel_anchor(sgc_ctx *cx) {
  for (int i = 0; i < cx->t->nops; i++)
    if (cx->t->ops[i].code == SGT_READ)
      return cx->t->ops[i].tensor;
  return 0;
}

/* h of tensor ti's row `row` (i64). */
static LLVMValueRef row_shift(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef row) {
  LLVMBuilderRef b = cx->b;
  unsigned es = sgc_elem_bytes(cx, ti), log2es = 0;
  while ((1u << log2es) < es)
    log2es++;
  if (a->repeat[ti])
    row = LLVMBuildURem(b, row, a->repeat[ti], "row.repeat");
  LLVMValueRef e = LLVMBuildLShr(b, LLVMBuildPtrToInt(b, a->ptr[ti], cx->i64, ""),
                                 i64c(cx, log2es), "");
  e = LLVMBuildAdd(b, e, LLVMBuildMul(b, row, a->stride[ti], ""), "");
  return LLVMBuildAnd(b, e, i64c(cx, cx->plan->vec - 1), "peel.h");
}

static LLVMValueRef clamp64(sgc_ctx *cx, LLVMValueRef v, int64_t lo, int64_t hi) {
  LLVMBuilderRef b = cx->b;
  v = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, v, i64c(cx, lo), ""), i64c(cx, lo), v, "");
  return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, v, i64c(cx, hi), ""), i64c(cx, hi), v, "");
}

/* The chunks' shifted columns and, for checked chunks, which lanes are in [0, N). */
static void peel_columns(sgc_ctx *cx, sgc_addr *a) {
  LLVMBuilderRef b = cx->b;
  int64_t vec = cx->plan->vec;
  LLVMValueRef n = cx->cols, n_less_vec = LLVMBuildSub(b, n, i64c(cx, vec), "");
  LLVMValueRef lanes[SGC_MAX_VEC];
  for (unsigned j = 0; j < (unsigned)vec; j++)
    lanes[j] = LLVMConstInt(cx->i32, j, 0);
  LLVMValueRef J = LLVMConstVector(lanes, (unsigned)vec);
  for (unsigned c = 0; c < a->nchunks; c++) {
    a->col[c] = LLVMBuildSub(b, a->lane_col[c], a->peel_h, "col");
    a->col_valid[c] = a->col_full[c] = a->col_any[c] = NULL;
    if (!a->check[c])
      continue;
    LLVMValueRef g = a->col_base ? LLVMBuildAdd(b, a->col_base, a->col[c], "") : a->col[c];
    LLVMValueRef full = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGE, g, i64c(cx, 0), ""),
                                     LLVMBuildICmp(b, LLVMIntSLE, g, n_less_vec, ""), "");
    LLVMValueRef any = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSLT, g, n, ""),
                                    LLVMBuildICmp(b, LLVMIntSGT, g, i64c(cx, -vec), ""), "");
    if (a->own[c]) {
      full = LLVMBuildAnd(b, full, a->own[c], "");
      any = LLVMBuildAnd(b, any, a->own[c], "");
    }
    LLVMSetValueName2(full, "col.full", 8);
    LLVMSetValueName2(any, "col.any", 7);
    a->col_full[c] = full;
    a->col_any[c] = any;
    /* lane j is in the row when lo <= j < hi: lo = -g, hi = N - g, clamped to [0, vec] */
    LLVMValueRef lo = clamp64(cx, LLVMBuildNeg(b, g, ""), 0, vec);
    LLVMValueRef hi = clamp64(cx, LLVMBuildSub(b, n, g, ""), 0, vec);
    lo = sgc_splat(cx, LLVMBuildTrunc(b, lo, cx->i32, ""));
    hi = sgc_splat(cx, LLVMBuildTrunc(b, hi, cx->i32, ""));
    LLVMValueRef ok = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGE, J, lo, ""),
                                   LLVMBuildICmp(b, LLVMIntSLT, J, hi, ""), "");
    if (a->own[c])
      ok = LLVMBuildAnd(b, ok, sgc_splat(cx, a->own[c]), "");
    LLVMSetValueName2(ok, "col.ok", 6);
    a->col_valid[c] = ok;
  }
}

/* The row's shift (from the row loaded: row_clamped), which tensors share
 * it, and the chunks' columns when they are known. */
static void peel_row(sgc_ctx *cx, sgc_addr *a) {
  int anchor = peel_anchor(cx);
  a->peel_h = row_shift(cx, a, anchor, a->row_clamped);
  for (int ti = 0; ti < cx->t->ntensors; ti++)
    a->aligned[ti] = ti == anchor ? NULL
                                  : LLVMBuildICmp(cx->b, LLVMIntEQ,
                                                  row_shift(cx, a, ti, a->row_clamped), a->peel_h,
                                                  "peel.same");
  if (a->nchunks)
    peel_columns(cx, a);
}

/* a and b (i1, either NULL: true). */
static LLVMValueRef and_opt(sgc_ctx *cx, LLVMValueRef a, LLVMValueRef b) {
  return !a ? b : !b ? a : LLVMBuildAnd(cx->b, a, b, "");
}

/* Tensor ti's element col + j of `row`, column clamped into the row where
 * lane j is outside it (checked chunks). */
static LLVMValueRef peel_element_ptr(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef row,
                                     unsigned c, unsigned j) {
  LLVMValueRef col = LLVMBuildAdd(cx->b, a->col[c], i64c(cx, j), "");
  if (a->col_valid[c]) { /* the row's column 0: -col_base in a cluster's tile */
    LLVMValueRef ok = LLVMBuildExtractElement(cx->b, a->col_valid[c], LLVMConstInt(cx->i32, j, 0), "");
    LLVMValueRef zero = a->col_base ? LLVMBuildNeg(cx->b, a->col_base, "") : i64c(cx, 0);
    col = LLVMBuildSelect(cx->b, ok, col, zero, "");
  }
  return sgc_element_ptr(cx, a, ti, row, col);
}

static LLVMValueRef vector_load(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef row,
                                LLVMValueRef col) {
  LLVMTypeRef vt = LLVMVectorType(sgc_elem_type(cx, ti), cx->plan->vec);
  LLVMValueRef v = LLVMBuildLoad2(cx->b, vt, sgc_element_ptr(cx, a, ti, row, col), "x");
  LLVMSetAlignment(v, cx->plan->vec * sgc_elem_bytes(cx, ti));
  return v;
}

/* The vt-vector of tensor ti's elements col + j of chunk c (out-of-row lanes
 * read the row's column 0). */
/* Elements move as integers of their size: a scalar bf16 (or f16) value is
 * no legal type on some targets (x86-64 without AVX512-BF16), whose backends
 * would round-trip it through f32 with a compiler-rt call. */
static LLVMTypeRef bits_of(sgc_ctx *cx, int ti) {
  return LLVMIntTypeInContext(cx->ctx, 8 * sgc_elem_bytes(cx, ti));
}

static LLVMValueRef peel_elements_of(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef row,
                                     unsigned c, LLVMTypeRef vt) {
  LLVMTypeRef it = bits_of(cx, ti);
  LLVMValueRef v = LLVMGetPoison(LLVMVectorType(it, cx->plan->vec));
  for (unsigned j = 0; j < cx->plan->vec; j++) {
    LLVMValueRef e = LLVMBuildLoad2(cx->b, it, peel_element_ptr(cx, a, ti, row, c, j), "x.elem");
    LLVMSetAlignment(e, sgc_elem_bytes(cx, ti));
    v = LLVMBuildInsertElement(cx->b, v, e, LLVMConstInt(cx->i32, j, 0), "");
  }
  return LLVMBuildBitCast(cx->b, v, vt, "");
}

LLVMValueRef sgc_peel_fast(sgc_ctx *cx, sgc_addr *a, int ti, unsigned c) {
  return and_opt(cx, a->col_full[c], a->aligned[ti]);
}

/* Chunk c of tensor ti element by element where some lane is in the row (the
 * others load the row's column 0, masked later), else 0. */
LLVMValueRef sgc_peel_elements(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef row, unsigned c) {
  LLVMBuilderRef b = cx->b;
  LLVMTypeRef et = sgc_elem_type(cx, ti), vt = LLVMVectorType(et, cx->plan->vec);
  if (!a->col_any[c]) /* a tensor with another shift, in a chunk wholly in the row */
    return peel_elements_of(cx, a, ti, row, c, vt);
  LLVMBasicBlockRef none = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef elems = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "peel.some");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "peel.some.join");
  LLVMBuildCondBr(b, a->col_any[c], elems, join);
  LLVMPositionBuilderAtEnd(b, elems);
  LLVMValueRef v = peel_elements_of(cx, a, ti, row, c, vt);
  LLVMBasicBlockRef elems_end = LLVMGetInsertBlock(b);
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
  LLVMValueRef phi = LLVMBuildPhi(b, vt, "x.elems");
  LLVMValueRef vals[2] = {v, LLVMConstNull(vt)};
  LLVMBasicBlockRef bbs[2] = {elems_end, none};
  LLVMAddIncoming(phi, vals, bbs, 2);
  return phi;
}

/* i1: chunk c's vector of tensor ti at `row` lies within the tensor's rows
 * (span_lo, span_hi), so that it may be read whole though some of its lanes
 * are outside the row (the row before's tail, the row after's head, masked
 * later); NULL where unknown (the inner layout). */
static LLVMValueRef peel_in_span(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef row, unsigned c) {
  LLVMBuilderRef b = cx->b;
  if (!a->span_hi[ti])
    return NULL;
  LLVMValueRef at =
      LLVMBuildPtrToInt(b, sgc_element_ptr(cx, a, ti, row, a->col[c]), cx->i64, "vec.at");
  LLVMValueRef end = LLVMBuildAdd(b, at, i64c(cx, cx->plan->vec * sgc_elem_bytes(cx, ti)), "");
  return LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntUGE, at, a->span_lo[ti], ""),
                      LLVMBuildICmp(b, LLVMIntULE, end, a->span_hi[ti], ""), "vec.in.span");
}

/* Chunk c of tensor ti: one vector load where the tensor shares the row's
 * shift and the vector lies in the row or, past its ends, within the
 * tensor's rows; else sgc_peel_elements. */
static LLVMValueRef peel_load(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef row, unsigned c) {
  LLVMBuilderRef b = cx->b;
  LLVMValueRef fast = sgc_peel_fast(cx, a, ti, c);
  if (!fast)
    return vector_load(cx, a, ti, row, a->col[c]);
  LLVMValueRef in_span = a->col_full[c] ? peel_in_span(cx, a, ti, row, c) : NULL;
  if (in_span)
    fast = and_opt(cx, LLVMBuildOr(b, a->col_full[c], in_span, "peel.whole"), a->aligned[ti]);
  LLVMTypeRef vt = LLVMVectorType(sgc_elem_type(cx, ti), cx->plan->vec);
  LLVMBasicBlockRef whole = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "peel.vector");
  LLVMBasicBlockRef parts = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "peel.elements");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "peel.join");
  LLVMBuildCondBr(b, fast, whole, parts);
  LLVMPositionBuilderAtEnd(b, whole);
  LLVMValueRef v1 = vector_load(cx, a, ti, row, a->col[c]);
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, parts);
  LLVMValueRef v2 = sgc_peel_elements(cx, a, ti, row, c);
  LLVMBasicBlockRef parts_end = LLVMGetInsertBlock(b);
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
  LLVMValueRef phi = LLVMBuildPhi(b, vt, "x.peel");
  LLVMValueRef vals[2] = {v1, v2};
  LLVMBasicBlockRef bbs[2] = {whole, parts_end};
  LLVMAddIncoming(phi, vals, bbs, 2);
  return phi;
}

void sgc_peel_store(sgc_ctx *cx, sgc_addr *a, int ti, unsigned c, LLVMValueRef x) {
  LLVMBuilderRef b = cx->b;
  unsigned es = sgc_elem_bytes(cx, ti);
  LLVMValueRef fast = and_opt(cx, a->col_full[c], a->aligned[ti]);
  LLVMBasicBlockRef join = NULL, parts = NULL;
  if (fast) {
    LLVMBasicBlockRef whole = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "peel.vector");
    parts = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "peel.elements");
    join = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "peel.join");
    LLVMBuildCondBr(b, fast, whole, parts);
    LLVMPositionBuilderAtEnd(b, whole);
  }
  LLVMValueRef s = LLVMBuildStore(b, x, sgc_element_ptr(cx, a, ti, a->row, a->col[c]));
  LLVMSetAlignment(s, cx->plan->vec * es);
  if (!fast)
    return;
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, parts);
  LLVMValueRef bits = LLVMBuildBitCast(b, x, LLVMVectorType(bits_of(cx, ti), cx->plan->vec), "");
  for (unsigned j = 0; j < cx->plan->vec; j++) {
    LLVMValueRef lane = LLVMConstInt(cx->i32, j, 0);
    LLVMBasicBlockRef into = NULL;
    if (a->col_valid[c])
      into = sgc_open_if(cx, LLVMBuildExtractElement(b, a->col_valid[c], lane, ""), "peel.lane");
    LLVMValueRef e = LLVMBuildExtractElement(b, bits, lane, "");
    LLVMValueRef at = sgc_element_ptr(cx, a, ti, a->row,
                                      LLVMBuildAdd(b, a->col[c], i64c(cx, j), ""));
    LLVMSetAlignment(LLVMBuildStore(b, e, at), es);
    if (into)
      sgc_close_if(cx, into);
  }
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
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
  if (cx->plan->peel)
    peel_row(cx, a);
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

/* ---- packed rows (plan->pack) ----
 * A thread's vector holds rows row .. row + pack - 1 (row a multiple of
 * pack), N elements each: one vector access where the tensor's rows are one
 * span that starts at a whole vector (pack_span; then so does every pack of
 * rows) and all pack rows are below M, else element by element. */

/* i1: the vector of tensor ti at `row` is one access. */
static LLVMValueRef pack_fast(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef row) {
  LLVMValueRef end = LLVMBuildAdd(cx->b, row, LLVMConstInt(cx->i64, cx->plan->pack, 0), "");
  LLVMValueRef whole = LLVMBuildICmp(cx->b, LLVMIntULE, end, a->rows, "pack.whole");
  return LLVMBuildAnd(cx->b, whole, a->pack_span[ti], "pack.fast");
}

/* Packed vectors move as integers of the element's width: on a CPU without
 * 16-bit float arithmetic, inserting or extracting an f16 or bf16 lane would
 * convert it through f32 (a libcall the host's code objects cannot link). */
static LLVMTypeRef pack_int(sgc_ctx *cx, int ti) {
  return LLVMIntTypeInContext(cx->ctx, 8 * sgc_elem_bytes(cx, ti));
}

/* Branches on pack_fast(row): returns the join block and leaves the builder
 * in *one (the one-access way); *each is the element-by-element way. */
static LLVMBasicBlockRef pack_branch(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef row,
                                     LLVMBasicBlockRef *one, LLVMBasicBlockRef *each) {
  LLVMValueRef fast = pack_fast(cx, a, ti, row);
  *one = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "pack.vector");
  *each = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "pack.elements");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "pack.join");
  LLVMBuildCondBr(cx->b, fast, *one, *each);
  LLVMPositionBuilderAtEnd(cx->b, *one);
  return join;
}

LLVMValueRef sgc_pack_load(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef row) {
  const sg_plan *pl = cx->plan;
  LLVMBuilderRef b = cx->b;
  LLVMTypeRef it = pack_int(cx, ti), vt = LLVMVectorType(it, pl->vec);
  LLVMBasicBlockRef one, each, join = pack_branch(cx, a, ti, row, &one, &each);
  LLVMValueRef v =
      LLVMBuildLoad2(b, vt, sgc_element_ptr(cx, a, ti, row, LLVMConstInt(cx->i64, 0, 0)), "x");
  LLVMSetAlignment(v, pl->vec * sgc_elem_bytes(cx, ti));
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, each);
  LLVMValueRef last = LLVMBuildSub(b, a->rows, LLVMConstInt(cx->i64, 1, 0), "");
  LLVMValueRef e = LLVMGetPoison(vt);
  for (unsigned j = 0; j < pl->vec; j++) {
    unsigned long long r = j / pl->n, col = j % pl->n;
    LLVMValueRef rj = LLVMBuildAdd(b, row, LLVMConstInt(cx->i64, r, 0), "");
    rj = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, rj, a->rows, ""), rj, last, "");
    LLVMValueRef x =
        LLVMBuildLoad2(b, it, sgc_element_ptr(cx, a, ti, rj, LLVMConstInt(cx->i64, col, 0)), "");
    LLVMSetAlignment(x, sgc_elem_bytes(cx, ti));
    e = LLVMBuildInsertElement(b, e, x, LLVMConstInt(cx->i32, j, 0), "");
  }
  LLVMBuildBr(b, join);
  LLVMBasicBlockRef each_end = LLVMGetInsertBlock(b);
  LLVMPositionBuilderAtEnd(b, join);
  LLVMValueRef phi = LLVMBuildPhi(b, vt, "x.pack");
  LLVMValueRef vals[2] = {v, e};
  LLVMBasicBlockRef bbs[2] = {one, each_end};
  LLVMAddIncoming(phi, vals, bbs, 2);
  return LLVMBuildBitCast(b, phi, LLVMVectorType(sgc_elem_type(cx, ti), pl->vec), "");
}

/* Stores x, the vector of tensor ti at the thread's row (a->row, below M). */
void sgc_pack_store(sgc_ctx *cx, sgc_addr *a, int ti, LLVMValueRef x) {
  const sg_plan *pl = cx->plan;
  LLVMBuilderRef b = cx->b;
  x = LLVMBuildBitCast(b, x, LLVMVectorType(pack_int(cx, ti), pl->vec), "");
  LLVMBasicBlockRef one, each, join = pack_branch(cx, a, ti, a->row, &one, &each);
  LLVMValueRef s =
      LLVMBuildStore(b, x, sgc_element_ptr(cx, a, ti, a->row, LLVMConstInt(cx->i64, 0, 0)));
  LLVMSetAlignment(s, pl->vec * sgc_elem_bytes(cx, ti));
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, each);
  for (unsigned r = 0; r < pl->pack; r++) {
    LLVMValueRef rr = LLVMBuildAdd(b, a->row, LLVMConstInt(cx->i64, r, 0), "");
    LLVMBasicBlockRef done =
        r ? sgc_open_if(cx, LLVMBuildICmp(b, LLVMIntULT, rr, a->rows, ""), "pack.row")
          : NULL; /* the first row is below M (the caller's guard) */
    for (unsigned k = 0; k < pl->n; k++) {
      LLVMValueRef e = LLVMBuildExtractElement(b, x, LLVMConstInt(cx->i32, r * pl->n + k, 0), "");
      LLVMValueRef st =
          LLVMBuildStore(b, e, sgc_element_ptr(cx, a, ti, rr, LLVMConstInt(cx->i64, k, 0)));
      LLVMSetAlignment(st, sgc_elem_bytes(cx, ti));
    }
    if (done)
      sgc_close_if(cx, done);
  }
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
}

void sgc_load_row(sgc_ctx *cx, sgc_addr *a, const sgt_op *op, LLVMValueRef row, LLVMValueRef *raw) {
  LLVMTypeRef et = sgc_elem_type(cx, op->tensor);
  if (cx->plan->pack > 1) {
    raw[0] = sgc_pack_load(cx, a, op->tensor, row);
    return;
  }
  for (unsigned c = 0; cx->plan->peel && c < a->nchunks; c++)
    raw[c] = peel_load(cx, a, op->tensor, row, c);
  for (unsigned c = 0; !cx->plan->peel && c < a->nchunks; c++) {
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
    if (pl->peel) { /* checked: the head chunk, chunks that can cross N in the last
                       workgroup of a cluster, every chunk of a tile at a run-time base */
      int known = !base || LLVMIsAConstantInt(base);
      uint64_t at = base && known ? LLVMConstIntGetZExtValue(base) : 0;
      a->lane_col[c] = a->col[c];
      /* past the workgroup's tile (unshifted: whole chunks) the columns are the
       * next workgroup's in a cluster, past the row's end otherwise; a range
       * of N checks every chunk that can pass its smallest N */
      a->own[c] = end > limit ? LLVMBuildICmp(cx->b, LLVMIntULT, a->col[c],
                                              LLVMConstInt(cx->i64, (unsigned long long)pl->tile_n, 0),
                                              "col.own")
                              : NULL;
      a->check[c] = !known || (at == 0 && c == 0) || a->own[c] ||
                    (uint64_t)(pl->cluster - 1) * (uint64_t)pl->tile_n + at + end >
                        (uint64_t)pl->n_min;
      continue;
    }
    /* the columns this workgroup holds end at tile_n; in an uneven split at
     * col_end, which may fall in any tile of a tiled row (a run-time base) */
    LLVMValueRef n = a->col_end ? a->col_end
                                : LLVMConstInt(cx->i64, (unsigned long long)pl->tile_n, 0);
    int check = end > limit || (a->col_end && (base || end > last_columns(pl)));
    a->col_valid[c] = check ? LLVMBuildICmp(cx->b, LLVMIntULT, a->col[c], n, "col.ok") : NULL;
  }
  if (pl->peel && a->peel_h)
    peel_columns(cx, a);
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
