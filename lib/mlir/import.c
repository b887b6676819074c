/* import.c - classifies the sites recognize.c found (stage 2 of lib/mlir:
 * mlir_impl.h).
 *
 * Needs: s->sites; locations and printer text from diag.c. Produces:
 * report->ops (sg_mlir_op, with the site's location, template, shape as outer
 * x N x inner, dtypes, and SG_OK or the reason softgen cannot take it) and the
 * parallel sgm_op records the rewrite uses (input and output values, row
 * strides, offsets; a tensor's as the identity-layout memref it becomes). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/AffineMap.h"
#include "mlir/mlir_impl.h"

static int op_skip(sg_mlir_op *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int op_skip(sg_mlir_op *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  r->status = SG_ERR_UNSUPPORTED;
  vsnprintf(r->message, sizeof r->message, fmt, ap);
  va_end(ap);
  return 0;
}

/* Is op inside device code (a gpu.func, gpu.launch or gpu.module)? */
static int in_device_code(MlirOperation op) {
  for (MlirOperation p = mlirOperationGetParentOperation(op); !mlirOperationIsNull(p);
       p = mlirOperationGetParentOperation(p)) {
    MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(p));
    if (mlirStringRefEqual(n, sgm_str("gpu.func")) || mlirStringRefEqual(n, sgm_str("gpu.launch")) ||
        mlirStringRefEqual(n, sgm_str("gpu.module")))
      return 1;
  }
  return 0;
}

static int dtype_of(MlirType t, sg_dtype *out) {
  if (mlirTypeIsAF16(t))
    *out = SG_DTYPE_F16;
  else if (mlirTypeIsABF16(t))
    *out = SG_DTYPE_BF16;
  else if (mlirTypeIsAF32(t))
    *out = SG_DTYPE_F32;
  else
    return 0;
  return 1;
}

/* MLIR's text of a type, for messages. */
static void type_text(MlirType t, char *buf, size_t cap) {
  sgm_text b = {buf, cap, 0};
  buf[0] = '\0';
  mlirTypePrint(t, sgm_text_put, &b);
}

/* Products of the dims before, at and after dim; -1 where a dim is dynamic,
 * -2 where a product passes 2^62. */
static void split_shape(MlirType t, int rank, int dim, int64_t *outer, int64_t *n, int64_t *inner) {
  *outer = 1;
  *inner = 1;
  *n = 1;
  for (int i = 0; i < rank; i++) {
    int64_t *p = i < dim ? outer : i == dim ? n : inner;
    int64_t d = mlirShapedTypeGetDimSize(t, i);
    if (*p == -1 || mlirShapedTypeIsDynamicDim(t, i))
      *p = -1;
    else if (*p == -2 || (d > 0 && *p > ((int64_t)1 << 62) / d))
      *p = -2;
    else
      *p *= d;
  }
}

/* Strides, offsets and the elements they span stay below 2^48 (so that byte
 * counts and products of them cannot overflow). */
#define SGM_MAX_EXTENT ((int64_t)1 << 48)

/* Strides and offset of a strided memref in the default or global memory
 * space, with a static offset in range. Returns 1, or 0 with the reason in r. */
static int memref_strides(sg_mlir_op *r, MlirType t, const char *which, const char *tt,
                          int64_t *strides, int64_t *offset) {
  MlirAttribute space = mlirMemRefTypeGetMemorySpace(t);
  if (!mlirAttributeIsNull(space) &&
      !(mlirAttributeIsAInteger(space) && mlirIntegerAttrGetValueInt(space) <= 1) &&
      !mlirAttributeEqual(space, mlirAttributeParseGet(mlirAttributeGetContext(space),
                                                       sgm_str("#gpu.address_space<global>"))))
    return op_skip(r, "the %s (%s) is not in the default or global memory space", which, tt);
  if (mlirLogicalResultIsFailure(mlirMemRefTypeGetStridesAndOffset(t, strides, offset)))
    return op_skip(r, "the %s (%s) has a layout that is not strided", which, tt);
  if (mlirShapedTypeIsDynamicStrideOrOffset(*offset))
    return op_skip(r, "the %s (%s) has a dynamic offset", which, tt);
  if (*offset < 0 || *offset > SGM_MAX_EXTENT)
    return op_skip(r, "the %s (%s) has an offset out of range", which, tt);
  return 1;
}

/* The dims before r->dim (sizes > 1) collapse into one index of stride
 * *stride (unchanged when there are none). Returns 1, or 0 with the reason. */
static int outer_stride(sg_mlir_op *r, MlirType t, const char *which, const char *tt,
                        const int64_t *strides, int64_t *stride) {
  int64_t span = -1; /* elements the inner row dims span, from the innermost out */
  for (int i = r->dim - 1; i >= 0; i--) {
    int64_t size = mlirShapedTypeGetDimSize(t, i);
    if (size == 1)
      continue;
    if (mlirShapedTypeIsDynamicStrideOrOffset(strides[i]))
      return op_skip(r, "the %s (%s) has a dynamic stride in dim %d", which, tt, i);
    if (strides[i] < 0 || strides[i] > SGM_MAX_EXTENT || size > SGM_MAX_EXTENT / (strides[i] + 1))
      return op_skip(r, "the %s (%s) has a stride out of range in dim %d", which, tt, i);
    if (span < 0)
      *stride = strides[i];
    else if (strides[i] != span)
      return op_skip(r, "the %s (%s): its row dims do not collapse into rows of one stride", which,
                     tt);
    span = strides[i] * size;
  }
  return 1;
}

/* The inner layout (r->inner > 1): the dims after r->dim contiguous, the
 * stride along N (*nstride) at least inner, the dims before it collapsing
 * into one outer stride (*stride) past a whole [N, inner] slice. Returns 1
 * and fills *stride, *offset, *nstride, or 0 with the reason in r. */
static int memref_inner(sg_mlir_op *r, MlirType t, const char *which, int64_t *stride,
                        int64_t *offset, int64_t *nstride) {
  int64_t strides[64], span = 1;
  char tt[256];
  type_text(t, tt, sizeof tt);
  if (!memref_strides(r, t, which, tt, strides, offset))
    return 0;
  for (int i = r->rank - 1; i > r->dim; i--) {
    int64_t size = mlirShapedTypeGetDimSize(t, i);
    if (size > 1 && strides[i] != span)
      return op_skip(r, "the %s (%s) is not contiguous in the dims after the reduced dim %d "
                     "(the inner layout reads them as one)", which, tt, r->dim);
    span *= size;
  }
  *nstride = r->n > 1 ? strides[r->dim] : r->inner;
  if (mlirShapedTypeIsDynamicStrideOrOffset(*nstride) || *nstride < r->inner ||
      *nstride > SGM_MAX_EXTENT / r->n)
    return op_skip(r, "the %s (%s) has a stride along the reduced dim %d that is dynamic, out "
                   "of range or under the %lld elements of the dims after it", which, tt, r->dim,
                   (long long)r->inner);
  *stride = (r->n - 1) * *nstride + r->inner;
  if (!outer_stride(r, t, which, tt, strides, stride))
    return 0;
  if (r->outer > 1 && *stride < (r->n - 1) * *nstride + r->inner)
    return op_skip(r, "the %s (%s) has overlapping outer indices (stride %lld)", which, tt,
                   (long long)*stride);
  return 1;
}

/* Row stride of a memref whose rows are the dims before dim (all static).
 * Returns 1 and fills *stride, *offset, or 0 with the reason in r. */
static int memref_rows(sg_mlir_op *r, MlirType t, const char *which, int64_t *stride,
                       int64_t *offset) {
  int64_t strides[64];
  char tt[256];
  type_text(t, tt, sizeof tt);
  if (!memref_strides(r, t, which, tt, strides, offset))
    return 0;
  if (r->n > 1 && mlirShapedTypeIsDynamicStrideOrOffset(strides[r->dim]))
    return op_skip(r, "the %s (%s) has a dynamic stride in the reduced dim %d", which, tt, r->dim);
  if (r->n > 1 && strides[r->dim] != 1)
    return op_skip(r, "the %s (%s) is not contiguous along the reduced dim %d (stride %lld)", which,
                   tt, r->dim, (long long)strides[r->dim]);
  /* the row dims (size > 1) must collapse into one index of stride *stride */
  *stride = r->n;
  if (!outer_stride(r, t, which, tt, strides, stride))
    return 0;
  if (r->m > 1 && *stride < r->n)
    return op_skip(r, "the %s (%s) has overlapping rows (row stride %lld < N = %lld)", which, tt,
                   (long long)*stride, (long long)r->n);
  return 1;
}

/* The memref a tensor of type t becomes (an identity layout): its strides
 * here, its buffer in rewrite.c. */
MlirType sgm_memref_of(MlirType t) {
  int64_t shape[64];
  intptr_t rank = mlirShapedTypeGetRank(t);
  for (intptr_t i = 0; i < rank && i < 64; i++)
    shape[i] = mlirShapedTypeGetDimSize(t, i);
  return mlirMemRefTypeContiguousGet(mlirShapedTypeGetElementType(t), rank, shape,
                                     mlirAttributeGetNull());
}

/* Is memref v known to be device memory: in the global address space, or
 * (through views) a gpu.alloc's; a tensor: bufferization.to_tensor of one? */
static int on_device(MlirValue v) {
  for (int hops = 0; hops < 64; hops++) {
    MlirType t = mlirValueGetType(v);
    if (mlirTypeIsAMemRef(t)) {
      MlirAttribute space = mlirMemRefTypeGetMemorySpace(t);
      if (!mlirAttributeIsNull(space) &&
          ((mlirAttributeIsAInteger(space) && mlirIntegerAttrGetValueInt(space) == 1) ||
           mlirAttributeEqual(space, mlirAttributeParseGet(mlirAttributeGetContext(space),
                                                           sgm_str("#gpu.address_space<global>")))))
        return 1;
    }
    if (!mlirValueIsAOpResult(v))
      return 0;
    MlirOperation p = mlirOpResultGetOwner(v);
    MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(p));
    if (mlirStringRefEqual(n, sgm_str("gpu.alloc")))
      return 1;
    static const char *const views[] = {"memref.cast", "memref.expand_shape",
                                         "memref.collapse_shape", "memref.subview",
                                         "memref.reinterpret_cast", "bufferization.to_tensor"};
    int view = 0;
    for (size_t i = 0; i < sizeof views / sizeof views[0] && !view; i++)
      view = mlirStringRefEqual(n, sgm_str(views[i]));
    if (!view || mlirOperationGetNumOperands(p) < 1)
      return 0;
    v = mlirOperationGetOperand(p, 0);
  }
  return 0;
}

/* Does memref type t have the identity layout, as gpu.memcpy's lowering
 * needs? */
static int identity_layout(MlirType t) {
  MlirAttribute l = mlirMemRefTypeGetLayout(t);
  return mlirAttributeIsAAffineMap(l) && mlirAffineMapIsIdentity(mlirAffineMapAttrGetValue(l));
}

/* Fills r (and o) for one site. Returns nothing: the status says. */
static void classify(sgm_state *s, const sgm_site *t, sg_mlir_op *r, sgm_op *o) {
  char tt[256];
  MlirOperation op = t->anchor;
  r->status = SG_OK;
  r->kernel = -1;
  r->dim = -1;
  r->outer = r->n = r->inner = r->m = -1;
  r->raised = t->raised;
  snprintf(r->template_name, sizeof r->template_name, "%s", t->log ? "log_softmax" : "softmax");
  sgm_location_format(mlirOperationGetLocation(op), s->file, r->location, sizeof r->location);
  r->loc = mlirOperationGetLocation(op);
  o->op = op;
  o->site = t;
  int64_t d;
  if (t->softmax_op) {
    if (mlirOperationGetNumOperands(op) != 2) {
      op_skip(r, "expected 2 operands (input, output), found %d",
              (int)mlirOperationGetNumOperands(op));
      return;
    }
    o->value[0] = mlirOperationGetOperand(op, 0);
    o->value[1] = mlirOperationGetNumResults(op) == 1 ? mlirOperationGetResult(op, 0)
                                                       : mlirOperationGetOperand(op, 1);
    MlirAttribute dim = mlirOperationGetAttributeByName(op, sgm_str("dimension"));
    if (mlirAttributeIsNull(dim) || !mlirAttributeIsAInteger(dim)) {
      op_skip(r, "no integer 'dimension' attribute");
      return;
    }
    d = mlirIntegerAttrGetValueInt(dim);
  } else {
    o->value[0] = t->x;
    o->value[1] = t->y;
    d = t->dim;
  }
  MlirType tin = mlirValueGetType(o->value[0]), tout = mlirValueGetType(o->value[1]);
  r->tensor_form = mlirTypeIsATensor(tin);
  if (!(mlirTypeIsAMemRef(tin) || mlirTypeIsARankedTensor(tin)) ||
      !(mlirTypeIsAMemRef(tout) || mlirTypeIsARankedTensor(tout)) ||
      mlirTypeIsATensor(tout) != r->tensor_form) {
    type_text(tin, tt, sizeof tt);
    op_skip(r, "operands of type %s: softgen needs ranked memrefs or tensors", tt);
    return;
  }
  r->rank = (int)mlirShapedTypeGetRank(tin);
  if (d < 0 || d >= r->rank || r->rank > 64) {
    op_skip(r, "dimension %lld is out of range for rank %d", (long long)d, r->rank);
    return;
  }
  r->dim = (int)d;
  MlirType et = mlirShapedTypeGetElementType(tin), ot = mlirShapedTypeGetElementType(tout);
  r->has_dtype = dtype_of(et, &r->dtype);
  r->has_out_dtype = dtype_of(ot, &r->out_dtype);
  split_shape(tin, r->rank, r->dim, &r->outer, &r->n, &r->inner);
  if (r->outer >= 0 && r->inner >= 0)
    r->m = r->outer > 0 && r->inner > ((int64_t)1 << 62) / r->outer ? -2 : r->outer * r->inner;
  type_text(tin, tt, sizeof tt);
  if (in_device_code(op)) {
    op_skip(r, "inside device code (a gpu.func, gpu.launch or gpu.module): softgen launches "
               "kernels from host code");
  } else if (!r->has_dtype) {
    type_text(et, tt, sizeof tt);
    op_skip(r, "element type %s is not supported (softgen takes f16, bf16, f32)", tt);
  } else if (!r->has_out_dtype) {
    type_text(ot, tt, sizeof tt);
    op_skip(r, "result element type %s is not supported (softgen writes f16, bf16, f32)", tt);
  } else if (t->softmax_op && r->out_dtype != r->dtype) {
    op_skip(r, "input and output element types differ");
  } else if (r->n == -1 && r->inner != 1) {
    op_skip(r, "the reduced dim %d of %s is dynamic and not the innermost: a run-time N takes "
            "rows (the dims after the reduced dim of size 1)", r->dim, tt);
  } else if (r->inner == -1) {
    op_skip(r, "%s has dynamic dims after the reduced dim %d: the MLIR front end takes those "
            "static (the dims before it may be dynamic)", tt, r->dim);
  } else if (r->outer == -2 || r->inner < 0 || r->n < -1 || r->m == -2 ||
             (r->outer == -1 && r->inner > 0 && r->n > SGM_MAX_EXTENT / r->inner)) {
    op_skip(r, "%s is too large", tt);
  } else if (r->n > 2147483647) {
    op_skip(r, "the reduced dim has %lld elements; softgen's N is at most 2^31-1",
            (long long)r->n);
  } else if (r->n == 0 || r->m == 0 || r->inner == 0) {
    op_skip(r, "%s is empty (nothing to compute)", tt);
  } else {
    /* a tensor becomes a memref of an identity layout (rewrite.c) */
    MlirType min = r->tensor_form ? sgm_memref_of(tin) : tin;
    MlirType mout = r->tensor_form ? sgm_memref_of(tout) : tout;
    r->layout = r->inner > 1 ? SG_LAYOUT_INNER : SG_LAYOUT_ROWS;
    if (r->n == -1) { /* N at run time: dense rows, their stride N (SGM_RUN_TIME_N) */
      if (!identity_layout(min) || !identity_layout(mout)) {
        op_skip(r, "%s has a dynamic reduced dim: softgen takes it (kernels for ranges of N "
                "chosen at run time) on identity layouts only", tt);
      } else {
        o->stride[0] = o->stride[1] = SGM_RUN_TIME_N; /* offsets 0 */
      }
    } else if (r->outer == -1) { /* dynamic dims before dim: M at run time, dense rows */
      if (!identity_layout(min) || !identity_layout(mout)) {
        op_skip(r, "%s has dynamic dims: softgen takes them (before the reduced dim, a run-time "
                "M) on identity layouts only", tt);
      } else {
        for (int w = 0; w < 2; w++) {
          o->stride[w] = r->n * r->inner;
          o->nstride[w] = r->inner;
          o->offset[w] = 0;
        }
      }
    } else if (r->inner > 1) { /* a non-innermost dim: the inner layout */
      if (memref_inner(r, min, "input", &o->stride[0], &o->offset[0], &o->nstride[0]))
        memref_inner(r, mout, "output", &o->stride[1], &o->offset[1], &o->nstride[1]);
    } else if (memref_rows(r, min, "input", &o->stride[0], &o->offset[0])) {
      memref_rows(r, mout, "output", &o->stride[1], &o->offset[1]);
    }
    for (int w = 0; w < 2 && r->status == SG_OK && !s->opts->device_memory; w++)
      if ((r->tensor_form && w == 1) || !on_device(o->value[w])) {
        MlirType mt = w ? mout : min;
        type_text(mt, tt, sizeof tt);
        if (!identity_layout(mt))
          op_skip(r, "the %s (%s) may be host memory (nothing says it is device memory), and a "
                  "copy to the device needs an identity layout; with device memory (--mlir-memory "
                  "device, memory=device) the kernel reads it in place", w ? "output" : "input", tt);
        o->staged[w] = 1;
        r->copies |= 1 << w;
      }
  }
}

sg_status sgm_import(sgm_state *s, sg_diag *diag) {
  sg_mlir_report *rep = s->report;
  if (s->nsites == 0)
    return SG_OK;
  rep->ops = calloc((size_t)s->nsites, sizeof *rep->ops);
  s->ops = calloc((size_t)s->nsites, sizeof *s->ops);
  if (!rep->ops || !s->ops)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory listing the softmax ops");
  for (int i = 0; i < s->nsites; i++)
    classify(s, &s->sites[i], &rep->ops[i], &s->ops[i]);
  rep->nops = s->nsites;
  return SG_OK;
}
