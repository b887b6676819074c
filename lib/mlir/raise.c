/* raise.c - recognises softmax decomposed into linalg.generic ops and raises
 * it back to one linalg.softmax, which import.c then takes like any other
 * (stage 1 of lib/mlir: mlir_impl.h).
 *
 * Needs: a module. Produces: the module with each chain replaced, and the new
 * ops' handles (s->raised). The chain, on tensors, as frontends and MLIR's own
 * decomposition (transform.structured.decompose_interface) emit it, for a
 * reduced dim d of rank-R values ("red" maps drop d or hold 0 at it):
 *
 *   mx = generic {[id, red], d reduction} ins(x) outs(fill(I)) { maxnumf | maximumf }
 *        (I: -inf or the type's lowest finite value; NaN for maxnumf only)
 *   e  = generic {[id, red, id], parallel} ins(x, mx) { exp(subf(x, mx)) }
 *        (or sub = generic { subf } and e = generic {[id, id]} ins(sub) { exp })
 *   s  = generic {[id, red], d reduction} ins(e) outs(fill(0)) { addf }
 *   y  = generic {[id, red, id], parallel} ins(e, s) outs(init) { divf(e, s) }
 *
 * becomes y = linalg.softmax dimension(d) ins(x) outs(init). Every
 * intermediate value must have no use outside the chain; anything else
 * (casts, other bodies, memref forms) is left as it is. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir/mlir_impl.h"

static int named(MlirOperation op, const char *name) {
  return !mlirOperationIsNull(op) &&
         mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)), sgm_str(name));
}

static MlirOperation producer(MlirValue v) {
  return mlirValueIsAOpResult(v) ? mlirOpResultGetOwner(v) : (MlirOperation){NULL};
}

static int uses(MlirValue v) {
  int n = 0;
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u))
    n++;
  return n;
}

/* Block-argument number of v, or -1. */
static int arg(MlirValue v) {
  return mlirValueIsABlockArgument(v) ? (int)mlirBlockArgumentGetArgNumber(v) : -1;
}

/* The generic's body ops before its yield (at most cap), or -1 when the body
 * is not one block ending in a yield of the last op's result. */
static int body(MlirOperation g, MlirOperation *ops, int cap) {
  if (mlirOperationGetNumRegions(g) != 1)
    return -1;
  MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(g, 0));
  if (mlirBlockIsNull(b))
    return -1;
  int n = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(b); !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (named(op, "linalg.yield")) {
      if (n == 0 || mlirOperationGetNumOperands(op) != 1 ||
          !mlirValueEqual(mlirOperationGetOperand(op, 0), mlirOperationGetResult(ops[n - 1], 0)))
        return -1;
      return mlirOperationIsNull(mlirOperationGetNextInBlock(op)) ? n : -1;
    }
    if (n == cap || mlirOperationGetNumResults(op) != 1)
      return -1;
    ops[n++] = op;
  }
  return -1;
}

/* Is map the identity of rank dims ('i'), or that with dim d dropped or
 * replaced by 0 ('r')? */
static int map_is(MlirAttribute a, char kind, int rank, int d) {
  if (!mlirAttributeIsAAffineMap(a))
    return 0;
  MlirAffineMap m = mlirAffineMapAttrGetValue(a);
  intptr_t nres = mlirAffineMapGetNumResults(m);
  if (mlirAffineMapGetNumDims(m) != rank)
    return 0;
  int drop = kind == 'r' && nres == rank - 1;
  if (nres != rank && !drop)
    return 0;
  for (intptr_t i = 0, want = 0; i < nres; i++, want++) {
    if (drop && want == d)
      want++;
    MlirAffineExpr e = mlirAffineMapGetResult(m, i);
    if (kind == 'r' && !drop && want == d) {
      if (!mlirAffineExprIsAConstant(e) || mlirAffineConstantExprGetValue(e) != 0)
        return 0;
    } else if (!mlirAffineExprIsADim(e) || mlirAffineDimExprGetPosition(e) != want) {
      return 0;
    }
  }
  return 1;
}

/* Is g a linalg.generic with the given maps ("ir", "iri", "ii") and, when
 * reduce, dim d its only reduction (else all parallel)? */
static int generic_is(MlirOperation g, const char *maps, int rank, int d, int reduce) {
  if (!named(g, "linalg.generic") || mlirOperationGetNumResults(g) != 1)
    return 0;
  MlirAttribute im = mlirOperationGetAttributeByName(g, sgm_str("indexing_maps"));
  MlirAttribute it = mlirOperationGetAttributeByName(g, sgm_str("iterator_types"));
  intptr_t n = (intptr_t)strlen(maps);
  if (mlirAttributeIsNull(im) || mlirAttributeIsNull(it) || !mlirAttributeIsAArray(im) ||
      !mlirAttributeIsAArray(it) || mlirArrayAttrGetNumElements(im) != n ||
      mlirArrayAttrGetNumElements(it) != rank || mlirOperationGetNumOperands(g) != n)
    return 0;
  for (intptr_t i = 0; i < n; i++)
    if (!map_is(mlirArrayAttrGetElement(im, i), maps[i], rank, d))
      return 0;
  for (int i = 0; i < rank; i++) {
    char text[64] = "";
    sgm_text b = {text, sizeof text, 0};
    mlirAttributePrint(mlirArrayAttrGetElement(it, i), sgm_text_put, &b);
    if (!strstr(text, reduce && i == d ? "reduction" : "parallel"))
      return 0;
  }
  return 1;
}

/* Is v the result of a linalg.fill of a float constant (its attribute into
 * *a), used once? */
static int filled(MlirValue v, MlirAttribute *a) {
  MlirOperation f = producer(v);
  if (!named(f, "linalg.fill") || uses(v) != 1 || mlirOperationGetNumOperands(f) != 2)
    return 0;
  MlirOperation c = producer(mlirOperationGetOperand(f, 0));
  if (!named(c, "arith.constant"))
    return 0;
  *a = mlirOperationGetAttributeByName(c, sgm_str("value"));
  return !mlirAttributeIsNull(*a) && mlirAttributeIsAFloat(*a);
}
static int zero(MlirAttribute a) { return mlirFloatAttrGetValueDouble(a) == 0.0; }

/* Is a the initial value of a max that softmax may start from: -inf, or the
 * lowest finite value of its type (a row of -inf then reduces to it instead,
 * and exp(-inf - lowest) = 0 gives the same NaN row as -inf - -inf); NaN for
 * maxnumf only, which skips it. maximumf(NaN, x) is NaN: such a chain gives
 * NaN rows whatever x holds and is no softmax. */
static int max_identity(MlirAttribute a, int maxnum) {
  double v = mlirFloatAttrGetValueDouble(a);
  MlirType t = mlirAttributeGetType(a);
  double lowest = mlirTypeIsAF16(t) ? -65504.0 : mlirTypeIsABF16(t) ? -0x1.fep127
                  : mlirTypeIsAF32(t) ? -0x1.fffffep127 : mlirTypeIsAF64(t) ? -DBL_MAX : -INFINITY;
  return isnan(v) ? maxnum : v == -INFINITY || v == lowest;
}

/* One-op body computing name(arg a, arg b) (either order when commutative). */
static int binary_body(MlirOperation g, const char *name, const char *alt, int commutative) {
  MlirOperation ops[2];
  if (body(g, ops, 2) != 1 || !(named(ops[0], name) || (alt && named(ops[0], alt))) ||
      mlirOperationGetNumOperands(ops[0]) != 2)
    return 0;
  int a = arg(mlirOperationGetOperand(ops[0], 0)), b = arg(mlirOperationGetOperand(ops[0], 1));
  return (a == 0 && b == 1) || (commutative && a == 1 && b == 0);
}

typedef struct chain {
  MlirOperation ops[7]; /* div, sum, fill 0, exp (or fused), sub (or null), max, fill -inf */
  MlirValue x, init;
  int dim;
} chain;

/* Matches the chain ending in div (see the top of the file). */
static int match(MlirOperation div, chain *c) {
  memset(c, 0, sizeof *c);
  if (!named(div, "linalg.generic") || mlirOperationGetNumOperands(div) != 3)
    return 0;
  MlirType t = mlirValueGetType(mlirOperationGetResult(div, 0));
  if (!mlirTypeIsARankedTensor(t) || mlirShapedTypeGetRank(t) < 1)
    return 0;
  int rank = (int)mlirShapedTypeGetRank(t);
  MlirValue e = mlirOperationGetOperand(div, 0), s = mlirOperationGetOperand(div, 1);
  MlirAttribute init;
  MlirOperation sum = producer(s), ex = producer(e);
  for (int d = 0; d < rank && !c->dim; d++) {
    if (!generic_is(div, "iri", rank, d, 0) || !binary_body(div, "arith.divf", NULL, 0) ||
        !generic_is(sum, "ir", rank, d, 1) || !binary_body(sum, "arith.addf", NULL, 1) ||
        !mlirValueEqual(mlirOperationGetOperand(sum, 0), e) || uses(s) != 1 || uses(e) != 2 ||
        !filled(mlirOperationGetOperand(sum, 1), &init) || !zero(init))
      continue;
    MlirOperation body_ops[2], sub = {NULL};
    MlirValue x, mx;
    if (generic_is(ex, "iri", rank, d, 0) && body(ex, body_ops, 2) == 2 &&
        named(body_ops[0], "arith.subf") && arg(mlirOperationGetOperand(body_ops[0], 0)) == 0 &&
        arg(mlirOperationGetOperand(body_ops[0], 1)) == 1 && named(body_ops[1], "math.exp") &&
        mlirValueEqual(mlirOperationGetOperand(body_ops[1], 0), mlirOperationGetResult(body_ops[0], 0))) {
      x = mlirOperationGetOperand(ex, 0); /* fused exp(x - mx) */
      mx = mlirOperationGetOperand(ex, 1);
    } else if (generic_is(ex, "ii", rank, d, 0) && body(ex, body_ops, 2) == 1 &&
               named(body_ops[0], "math.exp") &&
               arg(mlirOperationGetOperand(body_ops[0], 0)) == 0 &&
               uses(mlirOperationGetOperand(ex, 0)) == 1 &&
               generic_is(sub = producer(mlirOperationGetOperand(ex, 0)), "iri", rank, d, 0) &&
               binary_body(sub, "arith.subf", NULL, 0)) {
      x = mlirOperationGetOperand(sub, 0); /* sub, then exp */
      mx = mlirOperationGetOperand(sub, 1);
    } else {
      continue;
    }
    MlirOperation max = producer(mx);
    if (uses(mx) != 1 || !generic_is(max, "ir", rank, d, 1) ||
        !binary_body(max, "arith.maxnumf", "arith.maximumf", 1) ||
        !mlirValueEqual(mlirOperationGetOperand(max, 0), x) ||
        !filled(mlirOperationGetOperand(max, 1), &init) ||
        !max_identity(init, binary_body(max, "arith.maxnumf", NULL, 1)) ||
        !mlirTypeEqual(mlirValueGetType(x), t))
      continue;
    MlirOperation chain_ops[7] = {div, sum, producer(mlirOperationGetOperand(sum, 1)), ex, sub, max,
                                  producer(mlirOperationGetOperand(max, 1))};
    memcpy(c->ops, chain_ops, sizeof chain_ops);
    c->x = x;
    c->init = mlirOperationGetOperand(div, 2);
    c->dim = d + 1; /* 1-based while searching */
  }
  if (!c->dim)
    return 0;
  c->dim--;
  return 1;
}

typedef struct raise_walk {
  MlirOperation *divs;
  int n, cap, failed;
} raise_walk;

static MlirWalkResult collect(MlirOperation op, void *user) {
  raise_walk *w = user;
  if (!named(op, "linalg.generic") || mlirOperationGetNumResults(op) != 1)
    return MlirWalkResultAdvance;
  if (w->n == w->cap) {
    int cap = w->cap ? 2 * w->cap : 16;
    MlirOperation *p = realloc(w->divs, (size_t)cap * sizeof *p);
    if (!p) {
      w->failed = 1;
      return MlirWalkResultInterrupt;
    }
    w->divs = p;
    w->cap = cap;
  }
  w->divs[w->n++] = op;
  return MlirWalkResultAdvance;
}

sg_status sgm_raise(sgm_state *s, sg_diag *diag) {
  raise_walk w = {0};
  mlirOperationWalk(mlirModuleGetOperation(s->module), collect, &w, MlirWalkPostOrder);
  sg_status st = w.failed ? sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory") : SG_OK;
  MlirType i64 = mlirIntegerTypeGet(s->ctx, 64);
  /* from the last generic back, so that a chain's div is seen before its
   * producers are erased (an erased op is never looked at again) */
  for (int i = w.n - 1; i >= 0 && !st; i--) {
    chain c;
    if (!match(w.divs[i], &c))
      continue;
    MlirOperation *r = realloc(s->raised, (size_t)(s->nraised + 1) * sizeof *r);
    if (!r) {
      st = sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
      break;
    }
    s->raised = r;
    MlirOperation div = c.ops[0];
    MlirValue operands[2] = {c.x, c.init};
    MlirType result = mlirValueGetType(mlirOperationGetResult(div, 0));
    MlirNamedAttribute dim = mlirNamedAttributeGet(mlirIdentifierGet(s->ctx, sgm_str("dimension")),
                                                   mlirIntegerAttrGet(i64, c.dim));
    MlirOperationState os = mlirOperationStateGet(sgm_str("linalg.softmax"), mlirOperationGetLocation(div));
    mlirOperationStateAddOperands(&os, 2, operands);
    mlirOperationStateAddResults(&os, 1, &result);
    mlirOperationStateAddAttributes(&os, 1, &dim);
    MlirOperation sm = mlirOperationCreate(&os);
    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(div), div, sm);
    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(div, 0), mlirOperationGetResult(sm, 0));
    for (int k = 0; k < 7; k++) /* users before producers: each is unused by now */
      if (!mlirOperationIsNull(c.ops[k]))
        for (int j = 0; j < w.n; j++)
          if (mlirOperationEqual(w.divs[j], c.ops[k]))
            w.divs[j] = (MlirOperation){NULL};
    for (int k = 0; k < 7; k++)
      if (!mlirOperationIsNull(c.ops[k]))
        mlirOperationDestroy(c.ops[k]);
    s->raised[s->nraised++] = sm;
  }
  free(w.divs);
  return st;
}
