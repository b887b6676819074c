/* recognize.c - finds the softmax-family computations of a module (stage 1 of
 * lib/mlir: mlir_impl.h): every linalg.softmax, and softmax and log-softmax
 * as frontends emit them, decomposed into linalg ops on tensors or on
 * buffers. Reads the module; changes nothing (rewrite.c does).
 *
 * Needs: a module. Produces: s->sites, one a computation found (its input,
 * its result or output buffer, the reduced dim, the template, the ops it
 * replaces).
 *
 * How a chain is found: every linalg op that yields a float value of a ranked
 * shape is a candidate end of a chain. From it the value is rebuilt as an
 * expression (a hash-consed DAG of nodes: leaves, constants, casts, + - * /,
 * neg, exp, log, elementwise max, and max / sum reductions along one dim),
 * pulling operands through:
 *   - linalg.generic bodies of those arith / math ops (any operand order,
 *     several results: the index result of torch-mlir's max with its argmax is
 *     ignored), their indexing maps (broadcasts, keep-dim maps (d0, 0),
 *     permutations) and reductions whose body combines the accumulator with
 *     addf, maximumf or maxnumf, the accumulator's initial value a linalg.fill;
 *   - the named linalg.reduce, linalg.broadcast, linalg.transpose, linalg.fill
 *     and the elementwise linalg.exp, log, add, sub, mul, div, reciprocal;
 *   - tensor / memref expand_shape and collapse_shape that add or drop unit
 *     dims only (keepdim);
 *   - on buffers, the last write of the buffer before the read (in the same
 *     block), through those views.
 * A value is tracked by the dims of the chain's end it varies along (its
 * "frame": its non-unit dims, in order, as dims of the end value), so that a
 * reduction, a broadcast and a keepdim reshape agree on which dim they mean,
 * and a transposed read is a different leaf. Anything else (other ops, other
 * bodies) is a leaf. Dynamic dims are dims a value varies along, as any other
 * dim but a unit one.
 *
 * The end is then matched against (extf / truncf around any step; the max may
 * start from -inf or the type's lowest finite value, from NaN with maxnumf
 * only; an elementwise max with -inf after it is the same max):
 *   softmax      y = e / sum_d(e),  or e * (1 / sum_d(e)),  e = exp(x - max_d(x))
 *   log_softmax  y = (x - max_d(x)) - log(sum_d(exp(x - max_d(x))))
 * where x is one value (a leaf, or a value of the module: its producer stays).
 * Near misses (a max or sum along another dim, no exp, another body, a max
 * from another initial value, x transposed in one place) are no match.
 * Intermediate roundings to a 16-bit type inside the chain (JAX's bf16 chain
 * rounds the max, the exps and the sum) are not reproduced: the kernel
 * accumulates in f32 and rounds once. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir/mlir_impl.h"

#define MAX_RANK 8   /* dims of a value in a chain */
#define MAX_NODES 512
#define MAX_MEMO 512
#define MAX_OPS 128  /* ops of one chain */

enum { K_LEAF, K_CONST, K_CAST, K_ADD, K_SUB, K_MUL, K_DIV, K_NEG, K_EXP, K_LOG, K_MAX, K_RMAX,
       K_RSUM };

/* The non-unit dims of a value, in order, as dims of the chain's end. */
typedef struct frame {
  int n;
  signed char rd[MAX_RANK];
} frame;

typedef struct node {
  int kind;
  int a, b;            /* operands (-1: none); reductions: a the input, b the initial value */
  int dim;             /* K_RMAX, K_RSUM: the end's dim reduced */
  int nan_skip;        /* K_MAX, K_RMAX: maxnumf */
  double c;            /* K_CONST */
  MlirType t;          /* the element type of the node's values */
  MlirValue v;         /* K_LEAF: the value (a buffer's root on memrefs) */
  MlirOperation ver;   /* K_LEAF on a buffer: its last write before the read (null: none) */
  frame f;             /* K_LEAF: the dims it is read along */
} node;

/* A value (tensor) or a buffer read at an op, with its frame, and its node. */
typedef struct memo {
  MlirValue v;
  MlirOperation at;    /* buffers: where it is read (null for tensors) */
  frame f;
  int node;
  MlirOperation op;    /* the op that made it (its producer, or the buffer's writer), or null */
  int kids[6], nkids;  /* the memo entries of that op's operands */
} memo;

typedef struct rctx {
  node nodes[MAX_NODES];
  int nn;
  memo memo[MAX_MEMO];
  int nm;
  int rank;                 /* the end value's rank */
  int64_t size[MAX_RANK];   /* and its dims */
  int memref;               /* a chain over buffers */
  int over;                 /* a table filled up: give up */
} rctx;

static int named(MlirOperation op, const char *name) {
  return !mlirOperationIsNull(op) &&
         mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)), sgm_str(name));
}
static int name_starts(MlirOperation op, const char *prefix) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  size_t len = strlen(prefix);
  return n.length >= len && memcmp(n.data, prefix, len) == 0;
}
static MlirOperation producer(MlirValue v) {
  return mlirValueIsAOpResult(v) ? mlirOpResultGetOwner(v) : (MlirOperation){NULL};
}
static MlirAttribute attr(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op, sgm_str(name));
}

/* ---- nodes ---- */

static int node_eq(const node *x, const node *y) {
  if (x->kind != y->kind || x->a != y->a || x->b != y->b || x->dim != y->dim ||
      x->nan_skip != y->nan_skip || !mlirTypeEqual(x->t, y->t))
    return 0;
  if (x->kind == K_CONST)
    return memcmp(&x->c, &y->c, sizeof x->c) == 0;
  if (x->kind == K_LEAF)
    return mlirValueEqual(x->v, y->v) && mlirOperationEqual(x->ver, y->ver) && x->f.n == y->f.n &&
           memcmp(x->f.rd, y->f.rd, (size_t)x->f.n) == 0;
  return 1;
}

static int intern(rctx *c, node n) {
  for (int i = 0; i < c->nn; i++)
    if (node_eq(&c->nodes[i], &n))
      return i;
  if (c->nn == MAX_NODES) {
    c->over = 1;
    return -1;
  }
  c->nodes[c->nn] = n;
  return c->nn++;
}

static int mk(rctx *c, int kind, MlirType t, int a, int b) {
  node n = {.kind = kind, .a = a, .b = b, .dim = -1, .t = t};
  return a < 0 || (kind >= K_ADD && kind <= K_DIV && b < 0) || (kind == K_MAX && b < 0)
             ? -1
             : intern(c, n);
}
static int mk_const(rctx *c, MlirType t, double v) {
  node n = {.kind = K_CONST, .a = -1, .b = -1, .dim = -1, .c = v, .t = t};
  return intern(c, n);
}
static int mk_leaf(rctx *c, MlirValue v, MlirOperation ver, frame f, MlirType t) {
  node n = {.kind = K_LEAF, .a = -1, .b = -1, .dim = -1, .t = t, .v = v, .ver = ver, .f = f};
  return intern(c, n);
}

/* ---- shapes and frames ---- */

/* The dims of a ranked tensor or memref (a dynamic one: ShapedType's
 * kDynamic, not 1: frames take it as a dim a value varies along). */
static int ranked_shape(MlirType t, int64_t *size, int *rank) {
  if (!(mlirTypeIsARankedTensor(t) || mlirTypeIsAMemRef(t)))
    return 0;
  *rank = (int)mlirShapedTypeGetRank(t);
  if (*rank > MAX_RANK)
    return 0;
  for (int i = 0; i < *rank; i++)
    size[i] = mlirShapedTypeGetDimSize(t, i);
  return 1;
}

static MlirType elem(MlirValue v) { return mlirShapedTypeGetElementType(mlirValueGetType(v)); }

/* The end's non-unit dims not in f (those a value of frame f is constant along). */
static int absent(const rctx *c, const frame *f, int *dims) {
  int n = 0;
  for (int r = 0; r < c->rank; r++) {
    int in = c->size[r] == 1;
    for (int k = 0; k < f->n && !in; k++)
      in = f->rd[k] == r;
    if (!in)
      dims[n++] = r;
  }
  return n;
}

/* Dim position of affine expression e, or -1 (a constant gives -2). */
static int expr_dim(MlirAffineExpr e) {
  if (mlirAffineExprIsADim(e))
    return (int)mlirAffineDimExprGetPosition(e);
  if (mlirAffineExprIsAConstant(e) && mlirAffineConstantExprGetValue(e) == 0)
    return -2;
  return -1;
}

/* ---- reading values ---- */

static int value_node(rctx *c, MlirValue v, frame f, int *entry);
static int buffer_node(rctx *c, MlirValue buf, MlirOperation at, frame f, int *entry);

/* The node of operand `i` of op, read with frame f (a tensor, or a buffer read at op). */
static int operand_node(rctx *c, MlirOperation op, intptr_t i, frame f, int *entry) {
  MlirValue v = mlirOperationGetOperand(op, i);
  return mlirTypeIsAMemRef(mlirValueGetType(v)) ? buffer_node(c, v, op, f, entry)
                                                : value_node(c, v, f, entry);
}

/* Float value of an arith.constant (a scalar or a splat), 1 if there is one. */
static int const_value(MlirValue v, double *out) {
  MlirOperation p = producer(v);
  if (!named(p, "arith.constant"))
    return 0;
  MlirAttribute a = attr(p, "value");
  if (mlirAttributeIsAFloat(a)) {
    *out = mlirFloatAttrGetValueDouble(a);
    return 1;
  }
  if (mlirAttributeIsADenseFPElements(a) && mlirDenseElementsAttrIsSplat(a)) {
    MlirAttribute e = mlirDenseElementsAttrGetSplatValue(a);
    if (mlirAttributeIsAFloat(e)) {
      *out = mlirFloatAttrGetValueDouble(e);
      return 1;
    }
  }
  return 0;
}

/* The frame of the input of a reshape whose result has frame f, when the
 * reshape adds or drops unit dims only (its non-unit dims keep their order and
 * sizes); else 0. */
static int reshape_frame(MlirType from, MlirType to) {
  int64_t a[MAX_RANK], b[MAX_RANK];
  int ra, rb, na = 0, nb = 0;
  if (!ranked_shape(from, a, &ra) || !ranked_shape(to, b, &rb))
    return 0;
  int64_t ka[MAX_RANK], kb[MAX_RANK];
  for (int i = 0; i < ra; i++)
    if (a[i] != 1)
      ka[na++] = a[i];
  for (int i = 0; i < rb; i++)
    if (b[i] != 1)
      kb[nb++] = b[i];
  return na == nb && memcmp(ka, kb, (size_t)na * sizeof ka[0]) == 0;
}

/* ---- the expression of a linalg op's result ---- */

typedef struct body_env {
  rctx *c;
  MlirBlock block;
  int nins, acc_arg; /* block args: ins, then outs; acc_arg: the result's accumulator */
  int in_node[8];
  int uses_acc;
} body_env;

#define ACC (-100) /* the accumulator, in a reduction's body */

static int body_expr(body_env *e, MlirValue v, int depth) {
  rctx *c = e->c;
  if (depth > 32)
    return -1;
  if (mlirValueIsABlockArgument(v)) {
    if (!mlirBlockEqual(mlirBlockArgumentGetOwner(v), e->block))
      return -1;
    int i = (int)mlirBlockArgumentGetArgNumber(v);
    if (i < e->nins)
      return e->in_node[i];
    if (i == e->acc_arg) {
      e->uses_acc = 1;
      return ACC;
    }
    return -1;
  }
  MlirOperation op = producer(v);
  MlirType t = mlirValueGetType(v);
  double k;
  if (const_value(v, &k)) /* defined in the body or above it */
    return mk_const(c, t, k);
  if (mlirOperationIsNull(op) || !mlirBlockEqual(mlirOperationGetBlock(op), e->block))
    return -1;
  static const struct { const char *name; int kind, nan_skip; } bin[] = {
      {"arith.addf", K_ADD, 0}, {"arith.subf", K_SUB, 0}, {"arith.mulf", K_MUL, 0},
      {"arith.divf", K_DIV, 0}, {"arith.maximumf", K_MAX, 0}, {"arith.maxnumf", K_MAX, 1}};
  for (size_t i = 0; i < sizeof bin / sizeof bin[0]; i++)
    if (named(op, bin[i].name) && mlirOperationGetNumOperands(op) == 2) {
      int a = body_expr(e, mlirOperationGetOperand(op, 0), depth + 1);
      int b = body_expr(e, mlirOperationGetOperand(op, 1), depth + 1);
      if (a == ACC || b == ACC) /* only a reduction's combine sees it: reduce_body */
        return -1;
      node n = {.kind = bin[i].kind, .a = a, .b = b, .dim = -1, .nan_skip = bin[i].nan_skip, .t = t};
      return a < 0 || b < 0 ? -1 : intern(c, n);
    }
  static const struct { const char *name; int kind; } un[] = {
      {"arith.negf", K_NEG}, {"math.exp", K_EXP}, {"math.log", K_LOG},
      {"arith.extf", K_CAST}, {"arith.truncf", K_CAST}};
  for (size_t i = 0; i < sizeof un / sizeof un[0]; i++)
    if (named(op, un[i].name) && mlirOperationGetNumOperands(op) == 1) {
      int a = body_expr(e, mlirOperationGetOperand(op, 0), depth + 1);
      return a == ACC ? -1 : mk(c, un[i].kind, t, a, -1);
    }
  return -1;
}

/* A reduction's body value: combine(acc, f) in either order, combine addf,
 * maximumf or maxnumf; its kind and f's node, or -1. */
static int reduce_body(body_env *e, MlirValue v, int *kind, int *nan_skip) {
  MlirOperation op = producer(v);
  if (mlirOperationIsNull(op) || mlirOperationGetNumOperands(op) != 2)
    return -1;
  *nan_skip = named(op, "arith.maxnumf");
  if (named(op, "arith.addf"))
    *kind = K_RSUM;
  else if (named(op, "arith.maximumf") || *nan_skip)
    *kind = K_RMAX;
  else
    return -1;
  MlirValue x = mlirOperationGetOperand(op, 0), y = mlirOperationGetOperand(op, 1);
  for (int swap = 0; swap < 2; swap++) {
    MlirValue acc = swap ? y : x, in = swap ? x : y;
    if (mlirValueIsABlockArgument(acc) && mlirBlockEqual(mlirBlockArgumentGetOwner(acc), e->block) &&
        (int)mlirBlockArgumentGetArgNumber(acc) == e->acc_arg) {
      e->uses_acc = 0;
      int f = body_expr(e, in, 0);
      return e->uses_acc ? -1 : f;
    }
  }
  return -1;
}

/* The yield's operand ri of op's body. */
static int yield_operand(MlirOperation op, int ri, MlirBlock *block, MlirValue *out) {
  if (mlirOperationGetNumRegions(op) != 1)
    return 0;
  *block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  if (mlirBlockIsNull(*block))
    return 0;
  MlirOperation y = mlirBlockGetTerminator(*block);
  if (!named(y, "linalg.yield") || mlirOperationGetNumOperands(y) <= ri)
    return 0;
  *out = mlirOperationGetOperand(y, ri);
  return 1;
}

/* Number of ins operands of a destination-style linalg op (from its
 * operandSegmentSizes). */
static int num_ins(MlirOperation op) {
  int n = (int)mlirOperationGetNumOperands(op);
  if (named(op, "linalg.reduce")) /* as many inputs as inits */
    return n % 2 ? -1 : n / 2;
  if (named(op, "linalg.broadcast") || named(op, "linalg.transpose"))
    return n == 2 ? 1 : -1;
  MlirAttribute seg = attr(op, "operandSegmentSizes");
  if (mlirAttributeIsNull(seg) || !mlirAttributeIsADenseI32Array(seg) ||
      mlirDenseArrayGetNumElements(seg) < 2)
    return -1;
  return mlirDenseI32ArrayGetElement(seg, 0);
}

/* linalg.generic: result (or outs) ri read with frame fo. */
static int generic_node(rctx *c, MlirOperation op, int ri, frame fo, memo *m) {
  int nins = num_ins(op), nops = (int)mlirOperationGetNumOperands(op);
  MlirAttribute maps = attr(op, "indexing_maps"), iters = attr(op, "iterator_types");
  if (nins < 0 || nins > 8 || mlirAttributeIsNull(maps) || mlirAttributeIsNull(iters) ||
      mlirArrayAttrGetNumElements(maps) != nops || nins + ri >= nops)
    return -1;
  int nloops = (int)mlirArrayAttrGetNumElements(iters);
  if (nloops > MAX_RANK)
    return -1;
  /* each loop's extent, from an operand dim it indexes */
  int64_t extent[MAX_RANK];
  int it[MAX_RANK], reduction[MAX_RANK];
  for (int j = 0; j < nloops; j++) {
    extent[j] = -1;
    it[j] = -1;
    char text[64] = "";
    sgm_text b = {text, sizeof text, 0};
    mlirAttributePrint(mlirArrayAttrGetElement(iters, j), sgm_text_put, &b);
    reduction[j] = strstr(text, "reduction") != NULL;
  }
  for (int i = 0; i < nops; i++) {
    MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
    int64_t size[MAX_RANK];
    int rank;
    if (!ranked_shape(mlirValueGetType(mlirOperationGetOperand(op, i)), size, &rank) ||
        mlirAffineMapGetNumResults(map) != rank)
      return -1;
    for (int k = 0; k < rank; k++) {
      int j = expr_dim(mlirAffineMapGetResult(map, k));
      if (j >= 0 && j < nloops)
        extent[j] = size[k];
    }
  }
  /* loops from the result's frame; the reduction loop is its absent dim */
  MlirAffineMap mo = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, nins + ri));
  int64_t osize[MAX_RANK];
  int orank, k2 = 0;
  if (!ranked_shape(mlirValueGetType(mlirOperationGetOperand(op, nins + ri)), osize, &orank))
    return -1;
  for (int k = 0; k < orank; k++) {
    int j = expr_dim(mlirAffineMapGetResult(mo, k));
    if (osize[k] == 1)
      continue;
    if (j < 0 || k2 >= fo.n || reduction[j])
      return -1;
    it[j] = fo.rd[k2++];
  }
  if (k2 != fo.n)
    return -1;
  int abs[MAX_RANK], nabs = absent(c, &fo, abs), red = -1;
  for (int j = 0; j < nloops; j++) {
    if (extent[j] == 1 || it[j] >= 0)
      continue;
    if (!reduction[j] || red >= 0 || nabs != 1)
      return -1;
    it[j] = abs[0];
    red = j;
  }
  /* the ins operands' nodes */
  body_env e = {.c = c, .nins = nins, .acc_arg = nins + ri};
  for (int i = 0; i < nins; i++) {
    MlirAffineMap map = mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, i));
    int64_t size[MAX_RANK];
    int rank;
    frame f = {0};
    ranked_shape(mlirValueGetType(mlirOperationGetOperand(op, i)), size, &rank);
    for (int k = 0; k < rank; k++) {
      if (size[k] == 1)
        continue;
      int j = expr_dim(mlirAffineMapGetResult(map, k));
      if (j < 0 || it[j] < 0)
        return -1;
      f.rd[f.n++] = (signed char)it[j];
    }
    e.in_node[i] = operand_node(c, op, i, f, &m->kids[m->nkids]);
    if (e.in_node[i] < 0)
      return -1;
    m->nkids++;
  }
  MlirValue yv;
  if (!yield_operand(op, ri, &e.block, &yv))
    return -1;
  if (red < 0) {
    int n = body_expr(&e, yv, 0);
    return e.uses_acc ? -1 : n;
  }
  int kind, nan_skip, f = reduce_body(&e, yv, &kind, &nan_skip);
  int init = operand_node(c, op, nins + ri, fo, &m->kids[m->nkids]);
  if (f < 0 || init < 0 || c->nodes[init].kind != K_CONST)
    return -1;
  m->nkids++;
  node n = {.kind = kind, .a = f, .b = init, .dim = it[red], .nan_skip = nan_skip,
            .t = c->nodes[init].t};
  return intern(c, n);
}

/* linalg.reduce: dimensions = the input's dims reduced; its result ri. */
static int reduce_node(rctx *c, MlirOperation op, int ri, frame fo, memo *m) {
  int nins = num_ins(op);
  MlirAttribute dims = attr(op, "dimensions");
  if (nins != 1 || mlirAttributeIsNull(dims) || !mlirAttributeIsADenseI64Array(dims) ||
      mlirDenseArrayGetNumElements(dims) != 1)
    return -1;
  int64_t isize[MAX_RANK];
  int irank, rdim = (int)mlirDenseI64ArrayGetElement(dims, 0);
  if (!ranked_shape(mlirValueGetType(mlirOperationGetOperand(op, 0)), isize, &irank) ||
      rdim < 0 || rdim >= irank)
    return -1;
  int abs[MAX_RANK], nabs = absent(c, &fo, abs);
  frame fi = {0};
  int k2 = 0;
  for (int k = 0; k < irank; k++) {
    if (isize[k] == 1)
      continue;
    if (k == rdim) {
      if (nabs != 1)
        return -1;
      fi.rd[fi.n++] = (signed char)abs[0];
    } else {
      if (k2 >= fo.n)
        return -1;
      fi.rd[fi.n++] = fo.rd[k2++];
    }
  }
  if (isize[rdim] == 1 || k2 != fo.n)
    return -1;
  body_env e = {.c = c, .nins = 1, .acc_arg = 1 + ri};
  e.in_node[0] = operand_node(c, op, 0, fi, &m->kids[m->nkids]);
  if (e.in_node[0] < 0)
    return -1;
  m->nkids++;
  MlirValue yv;
  int kind, nan_skip;
  if (!yield_operand(op, ri, &e.block, &yv))
    return -1;
  int f = reduce_body(&e, yv, &kind, &nan_skip);
  int init = operand_node(c, op, 1 + ri, fo, &m->kids[m->nkids]);
  if (f < 0 || init < 0 || c->nodes[init].kind != K_CONST)
    return -1;
  m->nkids++;
  node n = {.kind = kind, .a = f, .b = init, .dim = abs[0], .nan_skip = nan_skip,
            .t = c->nodes[init].t};
  return intern(c, n);
}

/* linalg.broadcast (dimensions: the output's added dims) and linalg.transpose
 * (permutation: output dim i is input dim perm[i]): the input read with the
 * frame they imply. */
static int reshuffle_node(rctx *c, MlirOperation op, frame fo, memo *m, int transpose) {
  MlirAttribute a = attr(op, transpose ? "permutation" : "dimensions");
  int64_t isize[MAX_RANK], osize[MAX_RANK];
  int irank, orank;
  if (num_ins(op) != 1 || mlirAttributeIsNull(a) || !mlirAttributeIsADenseI64Array(a) ||
      !ranked_shape(mlirValueGetType(mlirOperationGetOperand(op, 0)), isize, &irank) ||
      !ranked_shape(mlirValueGetType(mlirOperationGetOperand(op, 1)), osize, &orank))
    return -1;
  int od[MAX_RANK]; /* the end's dim of each output dim (-1: unit) */
  for (int k = 0, k2 = 0; k < orank; k++)
    od[k] = osize[k] == 1 ? -1 : k2 < fo.n ? fo.rd[k2++] : -1;
  frame fi = {0};
  intptr_t na = mlirDenseArrayGetNumElements(a);
  if (transpose) {
    if (na != orank || irank != orank)
      return -1;
    for (int k = 0; k < irank; k++) /* input dim k is output dim i with perm[i] == k */
      for (int i = 0; i < orank; i++)
        if (mlirDenseI64ArrayGetElement(a, i) == k && isize[k] != 1)
          fi.rd[fi.n++] = (signed char)od[i];
  } else {
    for (int i = 0; i < orank; i++) {
      int added = 0;
      for (intptr_t q = 0; q < na; q++)
        added |= mlirDenseI64ArrayGetElement(a, q) == i;
      if (!added && osize[i] != 1)
        fi.rd[fi.n++] = (signed char)od[i];
    }
  }
  for (int k = 0; k < fi.n; k++)
    if (fi.rd[k] < 0)
      return -1;
  int n = operand_node(c, op, 0, fi, &m->kids[m->nkids]);
  if (n >= 0)
    m->nkids++;
  return n;
}

/* The named elementwise ops (identity maps, shapes equal to the output's). */
static int elementwise_node(rctx *c, MlirOperation op, frame fo, memo *m) {
  static const struct { const char *name; int kind, nin; } ew[] = {
      {"linalg.exp", K_EXP, 1}, {"linalg.log", K_LOG, 1}, {"linalg.negf", K_NEG, 1},
      {"linalg.add", K_ADD, 2}, {"linalg.sub", K_SUB, 2}, {"linalg.mul", K_MUL, 2},
      {"linalg.div", K_DIV, 2}, {"linalg.reciprocal", K_DIV, 1}};
  for (size_t i = 0; i < sizeof ew / sizeof ew[0]; i++) {
    if (!named(op, ew[i].name))
      continue;
    if (num_ins(op) != ew[i].nin)
      return -1;
    int x[2];
    for (int k = 0; k < ew[i].nin; k++) {
      x[k] = operand_node(c, op, k, fo, &m->kids[m->nkids]);
      if (x[k] < 0)
        return -1;
      m->nkids++;
    }
    MlirType t = elem(mlirOperationGetOperand(op, ew[i].nin));
    if (ew[i].kind == K_DIV && ew[i].nin == 1) /* reciprocal: 1 / x */
      return mk(c, K_DIV, t, mk_const(c, t, 1.0), x[0]);
    return mk(c, ew[i].kind, t, x[0], ew[i].nin == 2 ? x[1] : -1);
  }
  return -1;
}

/* The node of what op writes as its result (or outs) ri, read with frame f;
 * -1 when op is none of the ops a chain is made of. */
static int op_node(rctx *c, MlirOperation op, int ri, frame f, memo *m) {
  if (named(op, "linalg.generic"))
    return generic_node(c, op, ri, f, m);
  if (named(op, "linalg.reduce"))
    return reduce_node(c, op, ri, f, m);
  if (named(op, "linalg.broadcast"))
    return reshuffle_node(c, op, f, m, 0);
  if (named(op, "linalg.transpose"))
    return reshuffle_node(c, op, f, m, 1);
  if (named(op, "linalg.fill")) {
    double k;
    MlirValue v = mlirOperationGetOperand(op, 0);
    return const_value(v, &k) ? mk_const(c, mlirValueGetType(v), k) : -1;
  }
  if (name_starts(op, "linalg."))
    return elementwise_node(c, op, f, m);
  return -1;
}

static memo *memo_new(rctx *c, MlirValue v, MlirOperation at, frame f) {
  if (c->nm == MAX_MEMO) {
    c->over = 1;
    return NULL;
  }
  memo *m = &c->memo[c->nm++];
  memset(m, 0, sizeof *m);
  m->v = v;
  m->at = at;
  m->f = f;
  m->node = -1;
  return m;
}
static int memo_find(const rctx *c, MlirValue v, MlirOperation at, frame f) {
  for (int i = 0; i < c->nm; i++) {
    const memo *m = &c->memo[i];
    if (mlirValueEqual(m->v, v) && mlirOperationEqual(m->at, at) && m->f.n == f.n &&
        memcmp(m->f.rd, f.rd, (size_t)f.n) == 0)
      return i;
  }
  return -1;
}

/* A tensor value read with frame f. */
static int value_node(rctx *c, MlirValue v, frame f, int *entry) {
  int i = memo_find(c, v, (MlirOperation){NULL}, f);
  if (i >= 0) {
    *entry = i;
    return c->memo[i].node;
  }
  memo *m = memo_new(c, v, (MlirOperation){NULL}, f);
  if (!m)
    return -1;
  *entry = (int)(m - c->memo);
  MlirOperation op = producer(v);
  int n = -1;
  double k;
  if (!mlirTypeIsARankedTensor(mlirValueGetType(v)))
    return -1;
  if (const_value(v, &k)) {
    n = mk_const(c, elem(v), k);
  } else if (named(op, "tensor.expand_shape") || named(op, "tensor.collapse_shape")) {
    MlirValue src = mlirOperationGetOperand(op, 0);
    if (reshape_frame(mlirValueGetType(src), mlirValueGetType(v))) {
      n = value_node(c, src, f, &m->kids[0]);
      m->nkids = n >= 0;
    }
  } else if (!mlirOperationIsNull(op)) {
    n = op_node(c, op, (int)mlirOpResultGetResultNumber(v), f, m);
  }
  if (n >= 0 && !mlirOperationIsNull(op) && c->nodes[n].kind != K_LEAF)
    m->op = op;
  else
    m->nkids = 0;
  if (n < 0) /* anything else: the value itself */
    n = mk_leaf(c, v, (MlirOperation){NULL}, f, elem(v));
  m = &c->memo[*entry];
  m->node = n;
  return n;
}

/* A buffer's root (through expand_shape / collapse_shape of unit dims). */
static MlirValue buffer_root(MlirValue b) {
  for (int i = 0; i < 16; i++) {
    MlirOperation p = producer(b);
    if (!(named(p, "memref.expand_shape") || named(p, "memref.collapse_shape")))
      break;
    MlirValue src = mlirOperationGetOperand(p, 0);
    if (!reshape_frame(mlirValueGetType(src), mlirValueGetType(b)))
      break;
    b = src;
  }
  return b;
}

/* The outs operand of op whose root is `root`: its index among the outs, or -1. */
static int writes(MlirOperation op, MlirValue root) {
  int nins = name_starts(op, "linalg.") ? num_ins(op) : -1;
  if (nins < 0)
    return -1;
  for (int i = nins; i < (int)mlirOperationGetNumOperands(op); i++) {
    MlirValue v = mlirOperationGetOperand(op, i);
    if (mlirTypeIsAMemRef(mlirValueGetType(v)) && mlirValueEqual(buffer_root(v), root))
      return i - nins;
  }
  return -1;
}

/* Does op use root's memory other than as a linalg op's operand or a view?
 * (memref.dim reads a size, never the memory: dynamic shapes are full of it.) */
static int touches(MlirOperation op, MlirValue root) {
  if (name_starts(op, "linalg.") || named(op, "memref.expand_shape") ||
      named(op, "memref.collapse_shape") || named(op, "memref.dim"))
    return 0;
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); i++)
    if (mlirValueEqual(buffer_root(mlirOperationGetOperand(op, i)), root))
      return 1;
  return mlirOperationGetNumRegions(op) > 0; /* it may, inside */
}

/* The last op before `at` (in its block) that writes root, or null; *opaque
 * when the last one that may is no linalg op. (The C API walks a block
 * forward only.) */
static int of_site(const sgm_site *t, MlirOperation op);
static MlirOperation last_write(MlirValue root, MlirOperation at, const sgm_site *skip, int *ri,
                                int *opaque) {
  MlirOperation last = {NULL};
  *opaque = 0;
  for (MlirOperation p = mlirBlockGetFirstOperation(mlirOperationGetBlock(at));
       !mlirOperationIsNull(p) && !mlirOperationEqual(p, at); p = mlirOperationGetNextInBlock(p)) {
    if (skip && of_site(skip, p)) /* the chain's own writes (in place) */
      continue;
    int w = writes(p, root);
    if (w >= 0) {
      last = p;
      *ri = w;
      *opaque = 0;
    } else if (touches(p, root)) {
      last = p;
      *opaque = 1;
    }
  }
  return last;
}

/* A buffer read at op `at` with frame f: the node of its last write before. */
static int buffer_node(rctx *c, MlirValue buf, MlirOperation at, frame f, int *entry) {
  MlirValue root = buffer_root(buf);
  if (!reshape_frame(mlirValueGetType(root), mlirValueGetType(buf)))
    return -1;
  int ri, opaque;
  MlirOperation w = last_write(root, at, NULL, &ri, &opaque);
  int i = memo_find(c, root, w, f);
  if (i >= 0) {
    *entry = i;
    return c->memo[i].node;
  }
  memo *m = memo_new(c, root, w, f);
  if (!m)
    return -1;
  *entry = (int)(m - c->memo);
  int n = !mlirOperationIsNull(w) && !opaque ? op_node(c, w, ri, f, m) : -1;
  m = &c->memo[*entry];
  if (n >= 0 && c->nodes[n].kind != K_LEAF) {
    m->op = w;
  } else {
    m->nkids = 0;
    n = mk_leaf(c, root, w, f, elem(root));
  }
  m->node = n;
  return n;
}

/* ---- matching ---- */

static int strip(const rctx *c, int n) {
  while (n >= 0 && c->nodes[n].kind == K_CAST)
    n = c->nodes[n].a;
  return n;
}
static int is_const(const rctx *c, int n, double v) {
  return n >= 0 && c->nodes[n].kind == K_CONST &&
         (isnan(v) ? isnan(c->nodes[n].c) : c->nodes[n].c == v);
}

/* A max's initial value softmax allows: -inf or the lowest finite value of
 * its type (a row of -inf reduces to it: exp(-inf - lowest) = 0 gives the same
 * NaN row); NaN with maxnumf only (which skips it). */
static int max_init(const rctx *c, const node *mx) {
  const node *i = &c->nodes[mx->b];
  MlirType t = i->t;
  double lowest = mlirTypeIsAF16(t) ? -65504.0 : mlirTypeIsABF16(t) ? -0x1.fep127
                  : mlirTypeIsAF32(t) ? -0x1.fffffep127 : mlirTypeIsAF64(t) ? -DBL_MAX : -INFINITY;
  return isnan(i->c) ? mx->nan_skip : i->c == -INFINITY || i->c == lowest;
}

/* m as the row max of x along d: max_d(x) (through casts), also after an
 * elementwise max with -inf (JAX). Returns x's node (casts stripped) or -1. */
static int row_max(const rctx *c, int m, int d) {
  m = strip(c, m);
  if (m >= 0 && c->nodes[m].kind == K_MAX && !c->nodes[m].nan_skip) {
    if (is_const(c, c->nodes[m].a, -INFINITY))
      m = strip(c, c->nodes[m].b);
    else if (is_const(c, c->nodes[m].b, -INFINITY))
      m = strip(c, c->nodes[m].a);
  }
  if (m < 0 || c->nodes[m].kind != K_RMAX || c->nodes[m].dim != d || !max_init(c, &c->nodes[m]))
    return -1;
  return strip(c, c->nodes[m].a);
}

/* sh = x - max_d(x), x as given (casts stripped), or -1. */
static int shifted(const rctx *c, int sh, int d) {
  sh = strip(c, sh);
  if (sh < 0 || c->nodes[sh].kind != K_SUB)
    return -1;
  int x = strip(c, c->nodes[sh].a);
  return row_max(c, c->nodes[sh].b, d) == x ? x : -1;
}

/* s = sum_d(exp(x - max_d(x))) (through casts): *e the exp's node, *d the dim;
 * returns x or -1. */
static int exp_sum(const rctx *c, int s, int *e, int *d) {
  s = strip(c, s);
  if (s < 0 || c->nodes[s].kind != K_RSUM || !is_const(c, c->nodes[s].b, 0.0))
    return -1;
  *d = c->nodes[s].dim;
  *e = strip(c, c->nodes[s].a);
  if (*e < 0 || c->nodes[*e].kind != K_EXP)
    return -1;
  return shifted(c, c->nodes[*e].a, *d);
}

typedef struct match {
  int x, dim, log;
} match;

static int match_chain(const rctx *c, int y, match *out) {
  y = strip(c, y);
  if (y < 0)
    return 0;
  const node *n = &c->nodes[y];
  int e, d, x = -1;
  if (n->kind == K_DIV) { /* e / s */
    x = exp_sum(c, n->b, &e, &d);
    if (strip(c, n->a) != e)
      x = -1;
  } else if (n->kind == K_MUL) { /* e * (1 / s), either order */
    for (int swap = 0; swap < 2 && x < 0; swap++) {
      int a = swap ? n->b : n->a, r = strip(c, swap ? n->a : n->b);
      if (r >= 0 && c->nodes[r].kind == K_DIV && is_const(c, c->nodes[r].a, 1.0)) {
        x = exp_sum(c, c->nodes[r].b, &e, &d);
        if (strip(c, a) != e)
          x = -1;
      }
    }
  } else if (n->kind == K_SUB) { /* (x - max) - log(s) */
    int l = strip(c, n->b);
    if (l >= 0 && c->nodes[l].kind == K_LOG) {
      x = exp_sum(c, c->nodes[l].a, &e, &d);
      if (x >= 0 && shifted(c, n->a, d) != x)
        x = -1;
      out->log = 1;
    }
  }
  if (x < 0)
    return 0;
  out->x = x;
  out->dim = d;
  return 1;
}

/* ---- sites ---- */

static sgm_site *site_new(sgm_state *s) {
  if (s->nsites == s->cap_sites) {
    int cap = s->cap_sites ? 2 * s->cap_sites : 8;
    sgm_site *p = realloc(s->sites, (size_t)cap * sizeof *p);
    if (!p)
      return NULL;
    s->sites = p;
    s->cap_sites = cap;
  }
  sgm_site *t = &s->sites[s->nsites];
  memset(t, 0, sizeof *t);
  return t;
}

/* Collects the ops of memo entry i's expression that lie outside x's (the
 * entries whose node is x). */
static void collect(const rctx *c, int i, int x, sgm_site *t) {
  const memo *m = &c->memo[i];
  if (m->node == x || mlirOperationIsNull(m->op))
    return;
  for (int k = 0; k < t->nops; k++)
    if (mlirOperationEqual(t->ops[k], m->op))
      goto kids;
  if (t->nops == SGM_MAX_CHAIN_OPS)
    return;
  t->ops[t->nops++] = m->op;
kids:
  for (int k = 0; k < m->nkids; k++)
    collect(c, m->kids[k], x, t);
}

/* The memo entry holding x's node in full (the end's frame, in a value or
 * buffer of the end's shape and element type elem_type), or -1. */
static int full_entry(const rctx *c, int x, MlirType elem_type) {
  for (int i = 0; i < c->nm; i++) {
    const memo *m = &c->memo[i];
    int64_t size[MAX_RANK];
    int rank;
    if (m->node != x || !ranked_shape(mlirValueGetType(m->v), size, &rank) ||
        !mlirTypeEqual(elem(m->v), elem_type) || rank != c->rank ||
        memcmp(size, c->size, (size_t)rank * sizeof size[0]) != 0)
      continue;
    int ok = 1, k = 0; /* the identity frame: the end's non-unit dims in order */
    for (int r = 0; r < c->rank; r++)
      if (c->size[r] != 1)
        ok &= k < m->f.n && m->f.rd[k++] == r;
    if (ok && k == m->f.n)
      return i;
  }
  return -1;
}

/* Is op one of t's ops or its anchor? */
static int of_site(const sgm_site *t, MlirOperation op) {
  if (mlirOperationEqual(op, t->anchor))
    return 1;
  for (int k = 0; k < t->nops; k++)
    if (mlirOperationEqual(t->ops[k], op))
      return 1;
  return 0;
}

/* Are all uses of buffer root (and of its views, recursively) t's ops, views,
 * fills (writes nothing reads then: the index output of a max with its
 * argmax), its dealloc, or ops after the anchor (after == 1 allows those)? */
static int uses_inside(const sgm_site *t, MlirValue v, int after, MlirOperation until,
                       int depth) {
  if (depth > 8)
    return 0;
  MlirBlock b = mlirOperationGetBlock(t->anchor);
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation o = mlirOpOperandGetOwner(u);
    if (of_site(t, o) || named(o, "memref.dealloc") || (!after && named(o, "linalg.fill")))
      continue;
    if ((named(o, "memref.expand_shape") || named(o, "memref.collapse_shape")) &&
        uses_inside(t, mlirOperationGetResult(o, 0), after, until, depth + 1))
      continue;
    if (after && mlirBlockEqual(mlirOperationGetBlock(o), b) &&
        mlirOperationIsBeforeInBlock(t->anchor, o))
      continue;
    if (!mlirOperationIsNull(until) && mlirBlockEqual(mlirOperationGetBlock(o), b) &&
        (mlirOperationEqual(o, until) || mlirOperationIsBeforeInBlock(o, until)))
      continue; /* in place: x's own history, up to the write that made it */
    return 0;
  }
  return 1;
}

/* On buffers, may the chain's ops give way to one launch at the anchor? Its
 * ops share the anchor's block; what they write, but the output, nothing else
 * uses; nothing else uses the output before the anchor; x keeps the version
 * the chain read up to the anchor. */
static int buffers_safe(const sgm_site *t) {
  MlirBlock b = mlirOperationGetBlock(t->anchor);
  for (int k = 0; k < t->nops; k++) {
    MlirOperation op = t->ops[k];
    if (!mlirBlockEqual(mlirOperationGetBlock(op), b))
      return 0;
    int nins = name_starts(op, "linalg.") ? num_ins(op) : -1;
    for (int i = nins < 0 ? 0 : nins; nins >= 0 && i < (int)mlirOperationGetNumOperands(op); i++) {
      MlirValue r = buffer_root(mlirOperationGetOperand(op, i));
      if (!mlirValueEqual(r, t->y) && !uses_inside(t, r, 0, (MlirOperation){NULL}, 0))
        return 0;
    }
  }
  /* in place (one-shot bufferization writes a dead x's buffer): the chain
   * reads x from the buffer it then overwrites, and the kernel may too (every
   * plan reads each element of a row before it writes it); other ops may use
   * the buffer only up to x's write, or after the anchor */
  int in_place = mlirValueEqual(buffer_root(t->x), t->y);
  if (in_place && mlirOperationIsNull(t->x_ver))
    return 0;
  if (!uses_inside(t, t->y, 1, in_place ? t->x_ver : (MlirOperation){NULL}, 0))
    return 0;
  int ri, opaque;
  MlirOperation w = last_write(t->x, t->anchor, in_place ? t : NULL, &ri, &opaque);
  return mlirOperationEqual(w, t->x_ver) && !opaque;
}

/* On tensors, do the chain's values serve the chain alone? (A max or a sum
 * used elsewhere keeps the chain: the kernel would not spare its passes.) */
static int tensors_private(const sgm_site *t) {
  for (int k = 0; k < t->nops; k++)
    for (intptr_t i = 0; i < mlirOperationGetNumResults(t->ops[k]); i++)
      for (MlirOpOperand u = mlirValueGetFirstUse(mlirOperationGetResult(t->ops[k], i));
           !mlirOpOperandIsNull(u); u = mlirOpOperandGetNextUse(u))
        if (!of_site(t, mlirOpOperandGetOwner(u)))
          return 0;
  return 1;
}

/* Tries op's result (or, on buffers, its first outs) as the end of a chain. */
static int try_chain(sgm_state *s, MlirOperation op, sg_diag *diag) {
  static rctx c; /* large: not on the stack; one call at a time (the walk) */
  int nins = num_ins(op);
  if (nins < 0 || mlirOperationGetNumOperands(op) != nins + 1)
    return 0;
  MlirValue out = mlirOperationGetNumResults(op) == 1 ? mlirOperationGetResult(op, 0)
                                                       : mlirOperationGetOperand(op, nins);
  if (mlirOperationGetNumResults(op) > 1)
    return 0;
  memset(&c, 0, sizeof c);
  c.memref = mlirTypeIsAMemRef(mlirValueGetType(out));
  MlirType ot = mlirValueGetType(out);
  if (!ranked_shape(ot, c.size, &c.rank) || !mlirTypeIsAFloat(mlirShapedTypeGetElementType(ot)))
    return 0;
  frame f = {0};
  for (int r = 0; r < c.rank; r++)
    if (c.size[r] != 1)
      f.rd[f.n++] = (signed char)r;
  memo *m = memo_new(&c, out, c.memref ? op : (MlirOperation){NULL}, f);
  int y = op_node(&c, op, 0, f, m);
  match mt = {0};
  if (y < 0 || c.over || !match_chain(&c, y, &mt))
    return 0;
  m->node = y;
  m->op = op;
  /* x: a value (or buffer) in full, of the end's shape and x's element type */
  int xe = full_entry(&c, mt.x, c.nodes[mt.x].t);
  if (xe < 0)
    return 0;
  sgm_site *t = site_new(s);
  if (!t)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory"), -1;
  t->anchor = op;
  t->x = c.memo[xe].v;
  t->x_ver = c.memo[xe].at;
  t->y = c.memref ? buffer_root(out) : out;
  t->dim = mt.dim;
  t->log = mt.log;
  t->raised = 1;
  collect(&c, 0, mt.x, t);
  for (int k = 0; k < t->nops; k++) /* the anchor is apart */
    if (mlirOperationEqual(t->ops[k], op))
      t->ops[k--] = t->ops[--t->nops];
  if (t->nops == SGM_MAX_CHAIN_OPS || (c.memref ? !buffers_safe(t) : !tensors_private(t)))
    return 0; /* not counted: the next site overwrites it */
  s->nsites++;
  return 1;
}

typedef struct walk_ctx {
  sgm_state *s;
  sg_diag *diag;
  MlirOperation *cands;
  int n, cap, failed;
} walk_ctx;

static MlirWalkResult visit(MlirOperation op, void *user) {
  walk_ctx *w = user;
  if (!name_starts(op, "linalg.") || named(op, "linalg.yield") || named(op, "linalg.index"))
    return MlirWalkResultAdvance;
  if (named(op, "linalg.softmax")) {
    sgm_site *t = site_new(w->s);
    if (!t) {
      w->failed = 1;
      return MlirWalkResultInterrupt;
    }
    t->anchor = op;
    t->softmax_op = 1;
    t->order = w->n;
    w->s->nsites++;
  }
  if (w->n == w->cap) {
    int cap = w->cap ? 2 * w->cap : 32;
    MlirOperation *p = realloc(w->cands, (size_t)cap * sizeof *p);
    if (!p) {
      w->failed = 1;
      return MlirWalkResultInterrupt;
    }
    w->cands = p;
    w->cap = cap;
  }
  w->cands[w->n++] = op;
  return MlirWalkResultAdvance;
}

/* Is op one of the ops of a site found already (not the end of its own)? */
static int in_site(const sgm_state *s, MlirOperation op) {
  for (int i = 0; i < s->nsites; i++)
    for (int k = 0; k < s->sites[i].nops; k++)
      if (mlirOperationEqual(s->sites[i].ops[k], op))
        return 1;
  return 0;
}

static int by_order(const void *a, const void *b) {
  return ((const sgm_site *)a)->order - ((const sgm_site *)b)->order;
}

sg_status sgm_recognize(sgm_state *s, sg_diag *diag) {
  walk_ctx w = {s, diag, NULL, 0, 0, 0};
  mlirOperationWalk(mlirModuleGetOperation(s->module), visit, &w, MlirWalkPostOrder);
  sg_status st = w.failed ? sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory") : SG_OK;
  /* the last candidates first: a chain's end comes after its other ops, whose
   * own chains (a shorter one inside, if any) are then not looked for */
  for (int i = w.n - 1; i >= 0 && !st && !s->opts->keep_decomposed; i--) {
    if (named(w.cands[i], "linalg.softmax") || in_site(s, w.cands[i]))
      continue;
    int found = try_chain(s, w.cands[i], diag);
    if (found < 0)
      st = SG_ERR_NO_MEMORY;
    else if (found)
      s->sites[s->nsites - 1].order = i;
  }
  free(w.cands);
  /* in the module's order (the walk's, by each site's last op) */
  if (!st && s->nsites > 1)
    qsort(s->sites, (size_t)s->nsites, sizeof *s->sites, by_order);
  return st;
}
