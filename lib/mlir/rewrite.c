/* rewrite.c - replaces each compiled linalg.softmax with a launch of its kernel
 * (stage 4 of lib/mlir: mlir_impl.h).
 *
 * Needs: report->kernels and the ops' kernel indices and geometry (kernels.c).
 * Produces, in the module: one `gpu.binary @K [#gpu.object<TARGET, bin|assembly
 * = "...">]` per kernel at the start of the body, `gpu.container_module` on the
 * module, and before each compiled op
 *
 *   %p = memref.extract_aligned_pointer_as_index %x ; arith.index_cast -> i64
 *   [arith.addi offset bytes] ; llvm.inttoptr -> !llvm.ptr      (per tensor)
 *   gpu.launch_func @K::@K [clusters in (C,1,1)] blocks in (G,1,1) ... [dynamic_shared_memory_size S]
 *       threads in (B,1,1) args(<one value per "arg" line of the kernel's metadata>)
 *
 * (@K::@K_few..., one of the object's few-rows variants, where the geometry chose it),
 * after which the op is erased. Every attribute and type is built before the
 * first change, so a failure leaves the module untouched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir/mlir_impl.h"
#include "softgen/runtime.h" /* SGRT_MAX_GRID: the runtime's grid rule */

/* gpu::CompilationTarget (GPU dialect): the format of a #gpu.object. */
enum { SGM_GPU_ASSEMBLY = 2, SGM_GPU_BINARY = 3 };

typedef struct builder {
  MlirContext ctx;
  MlirBlock block;
  MlirOperation before; /* insertion point */
  MlirLocation loc;
  MlirType index, i64, ptr, token; /* token: !gpu.async.token */
} builder;

static MlirNamedAttribute named(MlirContext ctx, const char *name, MlirAttribute a) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, sgm_str(name)), a);
}

/* Creates op `name` with nres results before b->before. */
static MlirOperation emit_op(builder *b, const char *name, intptr_t nops, const MlirValue *ops,
                             intptr_t nres, const MlirType *res, intptr_t nattrs,
                             const MlirNamedAttribute *attrs) {
  MlirOperationState st = mlirOperationStateGet(sgm_str(name), b->loc);
  if (nops)
    mlirOperationStateAddOperands(&st, nops, ops);
  if (nres)
    mlirOperationStateAddResults(&st, nres, res);
  if (nattrs)
    mlirOperationStateAddAttributes(&st, nattrs, attrs);
  MlirOperation op = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(b->block, b->before, op);
  return op;
}

/* emit_op with one result (or none: result NULL); returns it. */
static MlirValue emit(builder *b, const char *name, intptr_t nops, const MlirValue *ops,
                      const MlirType *result, intptr_t nattrs, const MlirNamedAttribute *attrs) {
  MlirOperation op = emit_op(b, name, nops, ops, result ? 1 : 0, result, nattrs, attrs);
  return result ? mlirOperationGetResult(op, 0) : (MlirValue){NULL};
}

static MlirValue constant(builder *b, MlirType t, int64_t v) {
  MlirNamedAttribute a = named(b->ctx, "value", mlirIntegerAttrGet(t, v));
  return emit(b, "arith.constant", 0, NULL, &t, 1, &a);
}

/* arith.cmpi of x and y (the predicate's number: 0 eq, 7 ule, 8 ugt): an i1. */
static MlirValue compare(builder *b, int64_t predicate, MlirValue x, MlirValue y) {
  MlirType i1 = mlirIntegerTypeGet(b->ctx, 1);
  MlirValue ops[2] = {x, y};
  MlirNamedAttribute pred = named(b->ctx, "predicate", mlirIntegerAttrGet(b->i64, predicate));
  return emit(b, "arith.cmpi", 2, ops, &i1, 1, &pred);
}

/* cf.assert of ok (i1) with message msg. */
static void check(builder *b, MlirValue ok, const char *msg) {
  MlirNamedAttribute m = named(b->ctx, "msg", mlirStringAttrGet(b->ctx, sgm_str(msg)));
  emit(b, "cf.assert", 1, &ok, NULL, 1, &m);
}

/* cf.assert that pointer p (i64) is a multiple of `align` bytes, naming the op. */
static void check_alignment(builder *b, MlirValue p, unsigned align, const char *what,
                            const char *where) {
  MlirValue ops[2] = {p, constant(b, b->i64, align)};
  MlirValue rem = emit(b, "arith.remui", 2, ops, &b->i64, 0, NULL);
  MlirValue ok = compare(b, 0, rem, constant(b, b->i64, 0));
  char msg[700];
  snprintf(msg, sizeof msg, "softgen: the %s of the softmax at %s is not %u-byte aligned, as its "
           "kernel needs", what, where, align);
  check(b, ok, msg);
}

/* Is memref v's base known to be aligned to `align` bytes (a memref.alloc
 * with that alignment or more, a gpu.alloc)? */
static int known_aligned(MlirValue v, unsigned align) {
  MlirOperation p = mlirValueIsAOpResult(v) ? mlirOpResultGetOwner(v) : (MlirOperation){NULL};
  if (mlirOperationIsNull(p))
    return 0;
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(p));
  if (mlirStringRefEqual(n, sgm_str("gpu.alloc")))
    return 1; /* the drivers' allocations: 256 bytes */
  MlirAttribute a = mlirOperationGetAttributeByName(p, sgm_str("alignment"));
  return mlirStringRefEqual(n, sgm_str("memref.alloc")) && !mlirAttributeIsNull(a) &&
         mlirAttributeIsAInteger(a) && mlirIntegerAttrGetValueInt(a) >= (int64_t)align &&
         mlirIntegerAttrGetValueInt(a) % align == 0;
}

/* The tensor's address as an i64: aligned pointer + static offset. */
static MlirValue address(builder *b, MlirValue memref, int64_t offset_bytes) {
  MlirValue v = emit(b, "memref.extract_aligned_pointer_as_index", 1, &memref, &b->index, 0, NULL);
  v = emit(b, "arith.index_cast", 1, &v, &b->i64, 0, NULL);
  if (offset_bytes) {
    MlirValue add[2] = {v, constant(b, b->i64, offset_bytes)};
    v = emit(b, "arith.addi", 2, add, &b->i64, 0, NULL);
  }
  return v;
}

/* Erases op, and then every op of the site's chain left without uses (tensor
 * form), or the chain's ops and the buffers only they used (buffers). */
static int unused(MlirOperation op) {
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); i++)
    if (!mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, i))))
      return 0;
  return 1;
}
/* An op without effects on tensors, that may go once unused: tensor.empty,
 * reshapes, tensor.dim, constants and linalg ops whose operands are all tensors or
 * scalars. */
static int pure(MlirOperation op) {
  MlirStringRef nm = mlirIdentifierStr(mlirOperationGetName(op));
  if (mlirStringRefEqual(nm, sgm_str("tensor.empty")) ||
      mlirStringRefEqual(nm, sgm_str("tensor.expand_shape")) ||
      mlirStringRefEqual(nm, sgm_str("tensor.collapse_shape")) ||
      mlirStringRefEqual(nm, sgm_str("tensor.dim")) ||
      mlirStringRefEqual(nm, sgm_str("arith.constant")))
    return 1;
  if (nm.length < 7 || memcmp(nm.data, "linalg.", 7) != 0 || mlirOperationGetNumResults(op) == 0)
    return 0;
  for (intptr_t q = 0; q < mlirOperationGetNumOperands(op); q++)
    if (mlirTypeIsAMemRef(mlirValueGetType(mlirOperationGetOperand(op, q))))
      return 0;
  return 1;
}
static void erase_dead(MlirOperation *ops, int n) {
  for (int changed = 1; changed;) {
    changed = 0;
    for (int k = 0; k < n; k++)
      if (!mlirOperationIsNull(ops[k]) && unused(ops[k])) {
        mlirOperationDestroy(ops[k]);
        ops[k] = (MlirOperation){NULL};
        changed = 1;
      }
  }
}

/* The buffers a chain on buffers wrote (its ops' outs, but y), with their
 * allocs, views, fills and deallocs, once the chain's ops are gone. */
static void erase_buffers(MlirValue *roots, int n) {
  for (int i = 0; i < n; i++) {
    MlirValue v = roots[i];
    MlirOperation alloc = mlirValueIsAOpResult(v) ? mlirOpResultGetOwner(v) : (MlirOperation){NULL};
    if (mlirOperationIsNull(alloc) ||
        !mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(alloc)), sgm_str("memref.alloc")))
      continue;
    MlirOperation dead[16];
    int nd = 0, other = 0;
    for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u);
         u = mlirOpOperandGetNextUse(u)) {
      MlirOperation o = mlirOpOperandGetOwner(u);
      MlirStringRef nm = mlirIdentifierStr(mlirOperationGetName(o));
      int view = mlirStringRefEqual(nm, sgm_str("memref.expand_shape")) ||
                 mlirStringRefEqual(nm, sgm_str("memref.collapse_shape"));
      if ((view && unused(o)) || mlirStringRefEqual(nm, sgm_str("memref.dealloc")) ||
          mlirStringRefEqual(nm, sgm_str("linalg.fill"))) {
        if (nd < 16)
          dead[nd++] = o;
        else
          other = 1;
      } else {
        other = 1;
      }
    }
    if (other)
      continue;
    for (int k = 0; k < nd; k++)
      mlirOperationDestroy(dead[k]);
    mlirOperationDestroy(alloc);
  }
}

/* memref.dim of memref v along each of its dynamic dims, into sizes; their
 * count. */
static int dynamic_sizes(builder *b, MlirValue v, MlirValue *sizes) {
  MlirType t = mlirValueGetType(v);
  int n = 0;
  for (intptr_t i = 0; i < mlirShapedTypeGetRank(t) && n < 64; i++)
    if (mlirShapedTypeIsDynamicDim(t, i)) {
      MlirValue ops[2] = {v, constant(b, b->index, i)};
      sizes[n++] = emit(b, "memref.dim", 2, ops, &b->index, 0, NULL);
    }
  return n;
}

static MlirValue binary(builder *b, const char *name, MlirValue x, MlirValue y) {
  MlirValue ops[2] = {x, y};
  return emit(b, name, 2, ops, &b->index, 0, NULL);
}

/* M of memref v (index): the product of its dims before dim, times inner. */
static MlirValue run_time_rows(builder *b, MlirValue v, int dim, int64_t inner) {
  MlirType t = mlirValueGetType(v);
  MlirValue rows = constant(b, b->index, inner);
  for (int i = 0; i < dim; i++) {
    MlirValue ops[2] = {v, constant(b, b->index, i)};
    MlirValue d = mlirShapedTypeIsDynamicDim(t, i)
                      ? emit(b, "memref.dim", 2, ops, &b->index, 0, NULL)
                      : constant(b, b->index, mlirShapedTypeGetDimSize(t, i));
    rows = binary(b, "arith.muli", rows, d);
  }
  return rows;
}

/* sgrt_launch_geometry's grid for the kernel itself at M rows (index): a
 * cluster per row block, at most SGRT_MAX_GRID in whole clusters, and at
 * least one cluster (M = 0: its blocks find no rows). */
static MlirValue run_time_grid(builder *b, MlirValue rows, uint64_t rows_per_block,
                               unsigned cluster) {
  uint64_t c = cluster ? cluster : 1, rpb = rows_per_block ? rows_per_block : 1;
  MlirValue blocks = binary(b, "arith.ceildivui", rows, constant(b, b->index, (int64_t)rpb));
  MlirValue grid = binary(b, "arith.muli", blocks, constant(b, b->index, (int64_t)c));
  grid = binary(b, "arith.minui", grid,
                constant(b, b->index, (int64_t)(SGRT_MAX_GRID - SGRT_MAX_GRID % c)));
  return binary(b, "arith.maxui", grid, constant(b, b->index, (int64_t)c));
}

/* The gpu.launch_func of kernel `ref` with the values of its "arg" lines
 * (args): `grid` blocks of `block` threads (index values; one: 1), in
 * clusters of `cluster` (cluster_n > 1) with dsmem bytes of dynamic shared
 * memory; after token tok (asynchronous: its token returned) or, tok null,
 * synchronous (null returned). */
static MlirValue launch_func(builder *b, MlirAttribute ref, MlirValue one, MlirValue grid,
                             MlirValue block, MlirValue cluster, unsigned cluster_n,
                             unsigned dsmem, const MlirValue *args, int nargs, MlirValue tok) {
  /* operands: async deps, grid xyz, block xyz, cluster xyz?, dynamic smem?,
   * kernel operands, async object? (gpu.launch_func's operandSegmentSizes) */
  MlirValue ops[10 + SG_META_MAX_ARGS];
  int n = 0, nc = cluster_n > 1 ? 3 : 0, async = !mlirValueIsNull(tok);
  if (async)
    ops[n++] = tok;
  ops[n++] = grid, ops[n++] = one, ops[n++] = one;
  ops[n++] = block, ops[n++] = one, ops[n++] = one;
  if (nc)
    ops[n++] = cluster, ops[n++] = one, ops[n++] = one;
  if (dsmem) /* rows staged in shared memory: the launch provides it */
    ops[n++] = constant(b, mlirIntegerTypeGet(b->ctx, 32), dsmem);
  for (int a = 0; a < nargs; a++)
    ops[n++] = args[a];
  int32_t seg[13] = {async, 1, 1, 1, 1, 1, 1, nc / 3, nc / 3, nc / 3, dsmem ? 1 : 0, nargs, 0};
  MlirNamedAttribute attrs[2] = {
      named(b->ctx, "kernel", ref),
      named(b->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(b->ctx, 13, seg)),
  };
  return emit(b, "gpu.launch_func", n, ops, async ? &b->token : NULL, 2, attrs);
}

/* The argument values of kernel m (its "arg" lines) for op r: the pointers
 * of dev (the operands in device memory; checked against the kernel's
 * alignment where nothing says they are aligned), M (rows; null: the static
 * r->m), the row strides (constants, or N where they are SGM_RUN_TIME_N),
 * N (cols: a run-time N). */
static void kernel_args(builder *b, const sg_mlir_op *r, const sgm_op *o, const sg_meta *m,
                        const MlirValue dev[2], MlirValue rows, MlirValue cols, MlirValue *args) {
  for (int a = 0; a < m->nargs; a++) {
    int tn = m->args[a].tensor, w = tn >= 0 && m->tensors[tn].is_output ? 1 : 0;
    unsigned es = sg_dtype_size(w ? r->out_dtype : r->dtype);
    if (m->args[a].kind == SG_ARG_TENSOR) {
      MlirValue p = address(b, dev[w], o->offset[w] * (int64_t)es);
      if (m->vector_bytes > es && !known_aligned(dev[w], m->vector_bytes)) /* whole vectors */
        check_alignment(b, p, m->vector_bytes, w ? "output" : "input", r->location);
      args[a] = emit(b, "llvm.inttoptr", 1, &p, &b->ptr, 0, NULL);
    } else if (m->args[a].kind == SG_ARG_STRIDE) {
      args[a] = o->stride[w] == SGM_RUN_TIME_N ? cols : constant(b, b->i64, o->stride[w]);
    } else if (m->args[a].kind == SG_ARG_INNER) {
      args[a] = constant(b, b->i64, r->inner);
    } else if (m->args[a].kind == SG_ARG_NSTRIDE) {
      args[a] = constant(b, b->i64, o->nstride[w]);
    } else if (m->args[a].kind == SG_ARG_COLS) {
      args[a] = cols;
    } else {
      args[a] = mlirValueIsNull(rows) ? constant(b, b->i64, r->m) : rows;
    }
  }
}

/* After the launch's token tok, with copies in device memory (dev) of op
 * o's operands (mem): the result back, the copies freed, the stream waited
 * for. */
static void staged_tail(builder *b, const sgm_op *o, const MlirValue mem[2], const MlirValue dev[2],
                        MlirValue tok) {
  if (o->staged[1]) {
    MlirValue cp[3] = {tok, mem[1], dev[1]};
    tok = emit(b, "gpu.memcpy", 3, cp, &b->token, 0, NULL);
  }
  for (int w = 0; w < 2; w++)
    if (o->staged[w]) {
      MlirValue fr[2] = {tok, dev[w]};
      tok = emit(b, "gpu.dealloc", 2, fr, &b->token, 0, NULL);
    }
  emit(b, "gpu.wait", 1, &tok, NULL, 0, NULL);
}

/* The count of the n ascending bounds that x (index) is over, or at_zero
 * where x is 0: which case of an index_switch takes x. */
static MlirValue count_over(builder *b, MlirValue x, const int64_t *bounds, int n,
                            int64_t at_zero) {
  MlirValue zero = constant(b, b->index, 0), one = constant(b, b->index, 1), which = zero;
  for (int q = 0; q < n; q++) {
    MlirValue pick[3] = {compare(b, 8, x, constant(b, b->index, bounds[q])), one, zero}; /* ugt */
    which = binary(b, "arith.addi", which, emit(b, "arith.select", 3, pick, &b->index, 0, NULL));
  }
  MlirValue sel[3] = {compare(b, 0, x, zero), constant(b, b->index, at_zero), which}; /* eq */
  return emit(b, "arith.select", 3, sel, &b->index, 0, NULL);
}

/* An scf.index_switch on which, at b's insertion point, with cases 0 .. n - 1
 * (n <= SG_N_RANGES_MAX) and the default: each region one empty block; the
 * default's is region 0, case q's region q + 1. */
static MlirOperation index_switch(builder *b, MlirValue which, int n) {
  int64_t cases[SG_N_RANGES_MAX];
  MlirRegion regions[SG_N_RANGES_MAX + 1];
  for (int q = 0; q <= n; q++) {
    regions[q] = mlirRegionCreate();
    mlirRegionAppendOwnedBlock(regions[q], mlirBlockCreate(0, NULL, NULL));
    if (q < n)
      cases[q] = q;
  }
  MlirOperationState st = mlirOperationStateGet(sgm_str("scf.index_switch"), b->loc);
  mlirOperationStateAddOperands(&st, 1, &which);
  MlirNamedAttribute ca = named(b->ctx, "cases", mlirDenseI64ArrayGet(b->ctx, n, cases));
  mlirOperationStateAddAttributes(&st, 1, &ca);
  mlirOperationStateAddOwnedRegions(&st, n + 1, regions);
  MlirOperation sw = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(b->block, b->before, sw);
  return sw;
}

/* A run-time N: its range's kernel, by an scf.index_switch on the range
 * (the count of ranges below N; N = 0, nothing to compute, the default:
 * no launch). N over 2^31-1, the ranges' end, fails a cf.assert. With
 * copies in device memory (tok: the stream's token), each case ends the
 * stream (staged_tail), so that no token leaves a region (scf-to-cf would
 * make it a block argument, which no upstream conversion of cf takes). */
static void launch_ranges(builder *b, sgm_state *s, int i, const MlirAttribute *refs,
                          MlirValue rows, MlirValue m_index, MlirValue n_index,
                          const MlirValue mem[2], const MlirValue dev[2], MlirValue tok) {
  const sg_mlir_op *r = &s->report->ops[i];
  MlirValue cols = emit(b, "arith.index_cast", 1, &n_index, &b->i64, 0, NULL);
  const sg_meta *top = &s->report->kernels[r->range_kernels[r->nranges - 1]].meta;
  char msg[700];
  snprintf(msg, sizeof msg, "softgen: the reduced dim of the softmax at %s is over %lld, the "
           "longest row its kernels take", r->location, (long long)top->n);
  check(b, compare(b, 7, cols, constant(b, b->i64, top->n)), msg); /* ule */
  int64_t below[SG_N_RANGES_MAX]; /* the ranges below N; N = 0: the default, no launch */
  for (int q = 0; q + 1 < r->nranges; q++)
    below[q] = s->report->kernels[r->range_kernels[q]].meta.n;
  MlirValue which = count_over(b, n_index, below, r->nranges - 1, r->nranges);
  int async = !mlirValueIsNull(tok);
  MlirOperation sw = index_switch(b, which, r->nranges);
  builder in = *b;
  in.before = (MlirOperation){NULL}; /* append */
  for (int q = -1; q < r->nranges; q++) {
    in.block = mlirRegionGetFirstBlock(mlirOperationGetRegion(sw, q + 1));
    MlirValue done = tok;
    if (q >= 0) {
      const sg_meta *m = &s->report->kernels[r->range_kernels[q]].meta;
      MlirValue args[SG_META_MAX_ARGS], one = constant(&in, b->index, 1);
      MlirValue grid = run_time_grid(&in, m_index, m->rows_per_block, m->cluster);
      MlirValue block = constant(&in, b->index, m->block);
      MlirValue cluster = m->cluster > 1 ? constant(&in, b->index, m->cluster) : one;
      kernel_args(&in, r, &s->ops[i], m, dev, rows, cols, args);
      done = launch_func(&in, refs[q], one, grid, block, cluster, m->cluster, m->dsmem, args,
                         m->nargs, tok);
    }
    if (async)
      staged_tail(&in, &s->ops[i], mem, dev, done);
    emit(&in, "scf.yield", 0, NULL, NULL, 0, NULL);
  }
}

/* A run-time M and a kernel with few-rows variants (few_refs: the variants'
 * references, in the metadata's order): the entry sgrt_launch_geometry picks
 * where the device's resident blocks are not known (kernels.c, place), by an
 * scf.index_switch on the count of the variants below M: the first "variant
 * few" whose max_rows M (1 or more) is within, the kernel otherwise (M = 0
 * too). Grid splits never (no workspace here). Each case launches its entry
 * with its own grid rule, block, cluster and shared memory, and with copies
 * in device memory (tok) ends the stream, as launch_ranges does. Returns 0
 * (nothing emitted) where the kernel has no such variant. */
static int launch_rows_switch(builder *b, sgm_state *s, int i, MlirAttribute ref,
                              const MlirAttribute *few_refs, MlirValue m_index, MlirValue rows,
                              const MlirValue mem[2], const MlirValue dev[2], MlirValue tok) {
  const sg_mlir_op *r = &s->report->ops[i];
  const sg_meta *m = &s->report->kernels[r->kernel].meta;
  int few[SG_META_MAX_VARIANTS], nf = 0;
  int64_t most[SG_META_MAX_VARIANTS]; /* their max_rows, ascending */
  for (int v = 0; v < m->nvariants; v++)
    if (!m->variants[v].split)
      most[nf] = m->variants[v].max_rows, few[nf++] = v;
  if (!few_refs || !nf)
    return 0;
  MlirValue which = count_over(b, m_index, most, nf, nf); /* M = 0: the kernel */
  int async = !mlirValueIsNull(tok);
  MlirOperation sw = index_switch(b, which, nf);
  builder in = *b;
  in.before = (MlirOperation){NULL}; /* append */
  MlirValue args[SG_META_MAX_ARGS];
  for (int q = -1; q < nf; q++) {
    in.block = mlirRegionGetFirstBlock(mlirOperationGetRegion(sw, q + 1));
    const sg_meta_variant *v = q >= 0 ? &m->variants[few[q]] : NULL;
    unsigned rpb = v ? v->rows_per_block : m->rows_per_block, cl = v ? v->cluster : m->cluster;
    unsigned block = v ? v->block : m->block, dsmem = v ? v->dsmem : m->dsmem;
    cl = cl ? cl : 1;
    MlirValue c1 = constant(&in, b->index, 1);
    MlirValue grid = run_time_grid(&in, m_index, rpb, cl);
    MlirValue cluster = cl > 1 ? constant(&in, b->index, cl) : c1;
    kernel_args(&in, r, &s->ops[i], m, dev, rows, (MlirValue){NULL}, args); /* one signature */
    MlirValue done = launch_func(&in, v ? few_refs[few[q]] : ref, c1, grid,
                                 constant(&in, b->index, block), cluster, cl, dsmem, args,
                                 m->nargs, tok);
    if (async)
      staged_tail(&in, &s->ops[i], mem, dev, done);
    emit(&in, "scf.yield", 0, NULL, NULL, 0, NULL);
  }
  return 1;
}

/* Emits the launch of op i's kernel (refs[0]; a run-time N: refs[q] that of
 * range q; a run-time M: the entry launch_rows_switch picks among the kernel
 * (refs[0]) and its few-rows variants (few_refs)) in place of its site. */
#define MAX_GONE (4 * (SGM_MAX_CHAIN_OPS + 1))
static void launch(builder *b, sgm_state *s, int i, const MlirAttribute *refs,
                   const MlirAttribute *few_refs) {
  const sg_mlir_op *r = &s->report->ops[i];
  const sgm_op *o = &s->ops[i];
  const sgm_site *t = o->site;
  const sg_meta *m = &s->report->kernels[r->kernel].meta;
  b->block = mlirOperationGetBlock(o->op);
  b->before = o->op;
  b->loc = mlirOperationGetLocation(o->op);
  MlirValue mem[2] = {o->value[0], o->value[1]}, result = {NULL};
  if (r->tensor_form) { /* in: to_buffer; out: a buffer of the module, back as the result */
    MlirType tin = mlirValueGetType(o->value[0]), tout = mlirValueGetType(o->value[1]);
    MlirType min = sgm_memref_of(tin), mout = sgm_memref_of(tout);
    mem[0] = emit(b, "bufferization.to_buffer", 1, &o->value[0], &min, 0, NULL);
    MlirValue sizes[64];
    int32_t seg[2] = {dynamic_sizes(b, mem[0], sizes), 0};
    MlirNamedAttribute a[2] = {
        named(b->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(b->ctx, 2, seg)),
        named(b->ctx, "alignment", mlirIntegerAttrGet(b->i64, 64))};
    mem[1] = emit(b, "memref.alloc", seg[0], sizes, &mout, 2, a);
  }
  /* operands that may be host memory: copies in device memory, on one stream
   * (an async chain: gpu-to-llvm lowers gpu.alloc and gpu.memcpy only so) */
  MlirValue dev[2] = {mem[0], mem[1]}, tok = {NULL};
  int staged = o->staged[0] || o->staged[1];
  if (staged)
    tok = emit(b, "gpu.wait", 0, NULL, &b->token, 0, NULL);
  for (int w = 0; w < 2; w++) {
    if (!o->staged[w])
      continue;
    MlirValue ops[65] = {tok};
    int32_t seg[3] = {1, dynamic_sizes(b, mem[w], ops + 1), 0};
    MlirNamedAttribute a = named(b->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(b->ctx, 3, seg));
    MlirType res[2] = {mlirValueGetType(mem[w]), b->token};
    MlirOperation alloc = emit_op(b, "gpu.alloc", 1 + seg[1], ops, 2, res, 1, &a);
    dev[w] = mlirOperationGetResult(alloc, 0);
    tok = mlirOperationGetResult(alloc, 1);
    if (w == 0) {
      MlirValue cp[3] = {tok, dev[0], mem[0]};
      tok = emit(b, "gpu.memcpy", 3, cp, &b->token, 0, NULL);
    }
  }
  if (r->nranges) { /* N at run time: the kernel of its range */
    MlirValue m_index, rows = {NULL}; /* M (index; i64, null: static) */
    if (r->m >= 0) {
      m_index = constant(b, b->index, r->m);
    } else {
      m_index = run_time_rows(b, mem[0], r->dim, r->inner);
      rows = emit(b, "arith.index_cast", 1, &m_index, &b->i64, 0, NULL);
    }
    MlirValue d[2] = {mem[0], constant(b, b->index, r->dim)};
    MlirValue n_index = emit(b, "memref.dim", 2, d, &b->index, 0, NULL);
    launch_ranges(b, s, i, refs, rows, m_index, n_index, mem, dev,
                  staged ? tok : (MlirValue){NULL}); /* each case ends a stream */
  } else {
    MlirValue one = constant(b, b->index, 1), grid, rows = {NULL}; /* rows: a run-time M as i64 */
    if (r->m >= 0) {
      grid = constant(b, b->index, (int64_t)r->grid);
    } else { /* M at run time, and the grid by the runtime's rule (sgrt_launch_geometry) */
      MlirValue m_index = run_time_rows(b, mem[0], r->dim, r->inner);
      rows = emit(b, "arith.index_cast", 1, &m_index, &b->i64, 0, NULL);
      if (launch_rows_switch(b, s, i, refs[0], few_refs, m_index, rows, mem, dev,
                             staged ? tok : (MlirValue){NULL}))
        goto launched; /* each case ends a stream */
      grid = run_time_grid(b, m_index, m->rows_per_block, r->cluster);
    }
    MlirValue block = constant(b, b->index, r->block);
    MlirValue cluster = r->cluster > 1 ? constant(b, b->index, r->cluster) : one;
    MlirValue args[SG_META_MAX_ARGS];
    kernel_args(b, r, o, m, dev, rows, (MlirValue){NULL}, args);
    MlirValue done = launch_func(b, refs[0], one, grid, block, cluster, r->cluster, r->dsmem,
                                 args, m->nargs, staged ? tok : (MlirValue){NULL});
    if (staged)
      staged_tail(b, o, mem, dev, done);
  }
launched:
  if (r->tensor_form) {
    MlirType tout = mlirValueGetType(o->value[1]);
    MlirNamedAttribute a[2] = {named(b->ctx, "restrict", mlirUnitAttrGet(b->ctx)),
                               named(b->ctx, "writable", mlirUnitAttrGet(b->ctx))};
    result = emit(b, "bufferization.to_tensor", 1, &mem[1], &tout, 2, a);
    mlirValueReplaceAllUsesOfWith(o->value[1], result);
  }
  /* the site's ops go: the op itself, or the chain (on tensors, what is left
   * without uses; on buffers, all of it and the buffers only it used) */
  MlirOperation gone[MAX_GONE];
  int ng = 0;
  gone[ng++] = o->op;
  for (int k = 0; t->raised && k < t->nops; k++)
    gone[ng++] = t->ops[k];
  if (r->tensor_form) { /* with the pure producers they leave unused (inits, fills, constants) */
    for (int k = 0; k < ng; k++)
      for (intptr_t q = 0; q < mlirOperationGetNumOperands(gone[k]) && ng < MAX_GONE; q++) {
        MlirValue v = mlirOperationGetOperand(gone[k], q);
        MlirOperation p = mlirValueIsAOpResult(v) ? mlirOpResultGetOwner(v) : (MlirOperation){NULL};
        int seen = mlirOperationIsNull(p) || !pure(p);
        for (int z = 0; z < ng && !seen; z++)
          seen = mlirOperationEqual(gone[z], p);
        if (!seen)
          gone[ng++] = p;
      }
    erase_dead(gone, ng);
    return;
  }
  MlirValue roots[4 * (SGM_MAX_CHAIN_OPS + 1)];
  int nr = 0;
  for (int k = 0; k < ng; k++) { /* what the ops wrote, before they go */
    MlirOperation op = gone[k];
    MlirStringRef nm = mlirIdentifierStr(mlirOperationGetName(op));
    if (nm.length < 7 || memcmp(nm.data, "linalg.", 7) != 0)
      continue;
    for (intptr_t q = 0; q < mlirOperationGetNumOperands(op) && nr < 4 * (SGM_MAX_CHAIN_OPS + 1); q++) {
      MlirValue v = mlirOperationGetOperand(op, q);
      MlirOperation p = mlirValueIsAOpResult(v) ? mlirOpResultGetOwner(v) : (MlirOperation){NULL};
      while (!mlirOperationIsNull(p) &&
             (mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(p)), sgm_str("memref.expand_shape")) ||
              mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(p)), sgm_str("memref.collapse_shape")))) {
        v = mlirOperationGetOperand(p, 0);
        p = mlirValueIsAOpResult(v) ? mlirOpResultGetOwner(v) : (MlirOperation){NULL};
      }
      int seen = mlirValueEqual(v, o->value[1]) || mlirValueEqual(v, o->value[0]);
      for (int q2 = 0; q2 < nr && !seen; q2++)
        seen = mlirValueEqual(roots[q2], v);
      if (mlirTypeIsAMemRef(mlirValueGetType(v)) && !seen)
        roots[nr++] = v;
    }
  }
  for (int k = 0; k < ng; k++) /* users (later ops) before producers */
    for (int q = k + 1; q < ng; q++)
      if (mlirOperationIsBeforeInBlock(gone[k], gone[q])) {
        MlirOperation x = gone[k];
        gone[k] = gone[q];
        gone[q] = x;
      }
  for (int k = 0; k < ng; k++)
    if (unused(gone[k]))
      mlirOperationDestroy(gone[k]);
  erase_buffers(roots, nr);
}

/* #nvvm.target<chip = "sm_90"> or #rocdl.target<chip = "gfx942">. */
static MlirAttribute target_attr(MlirContext ctx, const sg_meta *m) {
  char text[128];
  snprintf(text, sizeof text, "#%s.target<chip = \"%s\">",
           strcmp(m->target, "amdgpu") == 0 ? "rocdl" : "nvvm", m->arch);
  return mlirAttributeParseGet(ctx, sgm_str(text));
}

/* The closest builtin.module around op. */
static MlirOperation module_of(MlirOperation op) {
  for (MlirOperation p = mlirOperationGetParentOperation(op); !mlirOperationIsNull(p);
       p = mlirOperationGetParentOperation(p))
    if (mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(p)), sgm_str("builtin.module")))
      return p;
  return (MlirOperation){NULL};
}

/* One kernel's gpu.binary in one module, and the references to it. */
typedef struct placed {
  int kernel;
  MlirOperation module, binary;
  MlirAttribute ref, few_refs[SG_META_MAX_VARIANTS];
} placed;

/* The index of kernel k's placement in module mod among pl's n (n: none). */
static int find_placed(const placed *pl, int n, int k, MlirOperation mod) {
  int j = 0;
  while (j < n && !(pl[j].kernel == k && mlirOperationEqual(pl[j].module, mod)))
    j++;
  return j;
}

/* Creates kernel k's gpu.binary in module mod (after `after`, else at the
 * start of its body, under a name no symbol there has) and fills p's
 * references; returns the binary. */
static MlirOperation place_binary(MlirContext ctx, const sg_mlir_kernel *kr, MlirAttribute object,
                                  MlirAttribute handler, MlirOperation mod, MlirOperation after,
                                  placed *p) {
  MlirSymbolTable symbols = mlirSymbolTableCreate(mod);
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(mod, 0));
  MlirOperation first = mlirBlockGetFirstOperation(body);
  char name[160];
  snprintf(name, sizeof name, "%s", kr->name);
  for (int n = 1; !mlirOperationIsNull(mlirSymbolTableLookup(symbols, sgm_str(name))); n++)
    snprintf(name, sizeof name, "%s_%d", kr->name, n); /* a symbol of the module has it */
  MlirAttribute leaf = mlirFlatSymbolRefAttrGet(ctx, sgm_str(kr->name));
  p->ref = mlirSymbolRefAttrGet(ctx, sgm_str(name), 1, &leaf);
  for (int i = 0; i < kr->meta.nvariants; i++) {
    MlirAttribute few = mlirFlatSymbolRefAttrGet(ctx, sgm_str(kr->meta.variants[i].kernel));
    p->few_refs[i] = mlirSymbolRefAttrGet(ctx, sgm_str(name), 1, &few);
  }
  MlirNamedAttribute attrs[3] = {
      named(ctx, "sym_name", mlirStringAttrGet(ctx, sgm_str(name))),
      named(ctx, "objects", mlirArrayAttrGet(ctx, 1, &object)),
      named(ctx, "offloadingHandler", handler), /* the op's default; its printer needs it */
  };
  MlirOperationState st = mlirOperationStateGet(sgm_str("gpu.binary"), mlirOperationGetLocation(mod));
  mlirOperationStateAddAttributes(&st, 3, attrs);
  MlirOperation op = mlirOperationCreate(&st);
  if (!mlirOperationIsNull(after))
    mlirBlockInsertOwnedOperationAfter(body, after, op);
  else if (mlirOperationIsNull(first))
    mlirBlockAppendOwnedOperation(body, op);
  else
    mlirBlockInsertOwnedOperationBefore(body, first, op);
  mlirSymbolTableInsert(symbols, op);
  mlirSymbolTableDestroy(symbols);
  mlirOperationSetAttributeByName(mod, sgm_str("gpu.container_module"), mlirUnitAttrGet(ctx));
  return op;
}

sg_status sgm_rewrite(sgm_state *s, sg_diag *diag) {
  sg_mlir_report *rep = s->report;
  MlirContext ctx = s->ctx;
  builder b = {.ctx = ctx};
  b.index = mlirIndexTypeGet(ctx);
  b.i64 = mlirIntegerTypeGet(ctx, 64);
  b.ptr = mlirTypeParseGet(ctx, sgm_str("!llvm.ptr"));
  b.token = mlirTypeParseGet(ctx, sgm_str("!gpu.async.token"));
  if (mlirTypeIsNull(b.ptr) || mlirTypeIsNull(b.token))
    return sg_diag_set(diag, SG_ERR_CODEGEN, "the LLVM or GPU dialect is not loaded in this context");
  if (rep->nkernels == 0)
    return SG_OK;
  MlirAttribute *objects = calloc((size_t)rep->nkernels, sizeof *objects);
  placed *pl = calloc((size_t)rep->nops * SG_N_RANGES_MAX, sizeof *pl);
  if (!objects || !pl) {
    free(objects);
    free(pl);
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
  }
  MlirAttribute handler = mlirAttributeParseGet(ctx, sgm_str("#gpu.select_object"));
  for (int k = 0; k < rep->nkernels; k++) {
    const sg_mlir_kernel *kr = &rep->kernels[k];
    MlirAttribute target = target_attr(ctx, &kr->meta);
    if (mlirAttributeIsNull(target) || mlirAttributeIsNull(handler)) {
      free(objects);
      free(pl);
      return sg_diag_set(diag, SG_ERR_CODEGEN, "cannot build the gpu target attribute of %s",
                         kr->name);
    }
    MlirStringRef bytes = {kr->object.data, kr->object.size};
    objects[k] = mlirGPUObjectAttrGet(ctx, target, kr->assembly ? SGM_GPU_ASSEMBLY : SGM_GPU_BINARY,
                                      bytes, (MlirAttribute){NULL});
  }
  /* the changes: each kernel's binary in each module that launches it (the
   * closest around the op: a nested module is its own symbol table), in
   * kernel order at the start of the module, then the launches */
  int npl = 0;
  for (int i = 0; i < rep->nops; i++) {
    const sg_mlir_op *r = &rep->ops[i];
    if (r->status != SG_OK || r->kernel < 0)
      continue;
    MlirOperation mod = module_of(s->ops[i].op);
    for (int q = 0; q < (r->nranges ? r->nranges : 1); q++) { /* its kernel, or its ranges' */
      int k = r->nranges ? r->range_kernels[q] : r->kernel;
      if (find_placed(pl, npl, k, mod) == npl)
        pl[npl++] = (placed){.kernel = k, .module = mod};
    }
  }
  for (int k = 0; k < rep->nkernels; k++)
    for (int j = 0; j < npl; j++) {
      if (pl[j].kernel != k)
        continue;
      MlirOperation last = {NULL}; /* the module's binaries placed before this one */
      for (int q = 0; q < npl; q++)
        if (q != j && pl[q].kernel < k && mlirOperationEqual(pl[q].module, pl[j].module) &&
            !mlirOperationIsNull(pl[q].binary) &&
            (mlirOperationIsNull(last) || mlirOperationIsBeforeInBlock(last, pl[q].binary)))
          last = pl[q].binary;
      pl[j].binary = place_binary(ctx, &rep->kernels[k], objects[k], handler, pl[j].module, last,
                                  &pl[j]);
    }
  for (int i = 0; i < rep->nops; i++) {
    const sg_mlir_op *r = &rep->ops[i];
    if (r->status != SG_OK || r->kernel < 0)
      continue;
    MlirOperation mod = module_of(s->ops[i].op);
    MlirAttribute refs[SG_N_RANGES_MAX];
    const placed *p = NULL;
    for (int q = 0; q < (r->nranges ? r->nranges : 1); q++) {
      p = &pl[find_placed(pl, npl, r->nranges ? r->range_kernels[q] : r->kernel, mod)];
      refs[q] = r->few ? p->few_refs[r->few - 1] : p->ref; /* few: its variant few - 1 */
    }
    /* a run-time M: the kernel and its variants, picked in the module */
    launch(&b, s, i, refs, r->m < 0 && !r->nranges && !r->few ? p->few_refs : NULL);
    rep->ops[i].compiled = 1;
    rep->ncompiled++;
  }
  free(objects);
  free(pl);
  return SG_OK;
}
