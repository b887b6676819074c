/* parse.c - template text -> typed op list (template/template.h).
 *
 * Grammar (newlines are plain whitespace, '#' starts a comment; at least one
 * parameter is an 'out' tensor, each written):
 *   template := 'kernel' NAME '(' param { ',' param } ')' { stmt }
 *   param    := NAME ':' ('in' | 'out') '[' DIM { ',' DIM } ']' ELEM
 *             | NAME ':' ('f32' | 'i64')             a scalar passed at launch
 *   ELEM     := 'T' | 'U' | 'f16' | 'bf16' | 'f32'
 *   stmt     := NAME '=' call | call
 *   call     := OP '(' arg { ',' arg } ')'
 *   arg      := NAME | 'dim' '=' DIM | '[' DIM { ',' DIM } ']'
 * Every check reports "file:line:col: message" through sg_diag. */
#include <stdlib.h>
#include <string.h>

#include "base/io.h"
#include "template/lexer.h"
#include "template/template.h"

static const struct {
  const char *name;
  int arity;
} op_info[SGT_OPCODE_COUNT] = {
    [SGT_READ] = {"read", 0},      [SGT_WRITE] = {"write", 1}, [SGT_MAX] = {"max", 1},
    [SGT_SUM] = {"sum", 1},        [SGT_BROADCAST] = {"broadcast", 1},
    [SGT_ADD] = {"add", 2},        [SGT_SUB] = {"sub", 2},     [SGT_MUL] = {"mul", 2},
    [SGT_DIV] = {"div", 2},        [SGT_EXP] = {"exp", 1},     [SGT_LOG] = {"log", 1},
    [SGT_NEG] = {"neg", 1},        [SGT_PARAM] = {"param", 0}, [SGT_CAUSAL] = {"causal", 3},
    [SGT_NINF_TO_ZERO] = {"ninf_to_zero", 1},                  [SGT_SAFE_DIV] = {"safe_div", 2},
};

const char *sgt_opcode_name(sgt_opcode code) { return op_info[code].name; }
int sgt_opcode_arity(sgt_opcode code) { return op_info[code].arity; }
int sgt_opcode_is_reduction(sgt_opcode code) { return code == SGT_MAX || code == SGT_SUM; }

sg_dtype sgt_tensor_dtype(const sg_template *t, int i, sg_dtype T, sg_dtype U) {
  const sgt_elem *e = &t->tensors[i].elem;
  return e->generic == SGT_ELEM_T ? T : e->generic == SGT_ELEM_U ? U : e->fixed;
}

int sgt_online_chain(const sg_template *t, int i, int *exp_op, int *sum_op) {
  const sgt_op *o = t->ops;
  if (o[i].code != SGT_MAX)
    return 0;
  int a = o[i].operands[0];
  for (int j = i + 1; j < t->nops; j++) {
    int m = o[j].operands[0]; /* m, or ninf_to_zero(m) */
    if (o[j].code != SGT_BROADCAST ||
        (m != i && (m < 0 || o[m].code != SGT_NINF_TO_ZERO || o[m].operands[0] != i)))
      continue;
    for (int k = j + 1; k < t->nops; k++) {
      if (o[k].code != SGT_SUB || o[k].operands[0] != a || o[k].operands[1] != j)
        continue;
      for (int l = k + 1; l < t->nops; l++) {
        if (o[l].code != SGT_EXP || o[l].operands[0] != k)
          continue;
        for (int p = l + 1; p < t->nops; p++)
          if (o[p].code == SGT_SUM && o[p].operands[0] == l && o[p].dim == o[i].dim) {
            *exp_op = l;
            *sum_op = p;
            return 1;
          }
      }
    }
  }
  return 0;
}

int sgt_only_through_causal(const sg_template *t, int i, int causal) {
  for (int u = i + 1; u < t->nops; u++) {
    const sgt_op *o = &t->ops[u];
    for (int k = 0; k < SGT_MAX_OPERANDS; k++) {
      if (o->operands[k] != i || (u == causal && k == 0))
        continue;
      if (o->code == SGT_WRITE || o->code == SGT_CAUSAL || sgt_opcode_is_reduction(o->code) ||
          !sgt_only_through_causal(t, u, causal))
        return 0;
    }
  }
  return 1;
}

typedef struct parser {
  sgl_lexer lx;
  sg_template *t;
  sg_diag *diag;
} parser;

#define ERR_AT(ps, ln, cl, ...) \
  sg_diag_at((ps)->diag, SG_ERR_PARSE, (ps)->t->file, (ln), (cl), __VA_ARGS__)
#define ERR(ps, ...) ERR_AT(ps, (ps)->lx.tok.line, (ps)->lx.tok.col, __VA_ARGS__)


static sg_status expect_name(parser *ps, const char *what, char *dst) {
  if (ps->lx.tok.kind != SGL_IDENT)
    return sgl_unexpected(&ps->lx, what);
  if (sgl_text(&ps->lx, dst, SGT_NAME_MAX))
    return ERR(ps, "%s is longer than %d characters", what, SGT_NAME_MAX - 1);
  sgl_next(&ps->lx);
  return SG_OK;
}

static int find_dim(const sg_template *t, const char *name) {
  for (int i = 0; i < t->ndims; i++)
    if (strcmp(t->dims[i], name) == 0)
      return i;
  return -1;
}

static int find_tensor(const sg_template *t, const char *name) {
  for (int i = 0; i < t->ntensors; i++)
    if (strcmp(t->tensors[i].name, name) == 0)
      return i;
  return -1;
}

static int find_value(const sg_template *t, const char *name) {
  for (int i = 0; i < t->nops; i++)
    if (t->ops[i].name[0] && strcmp(t->ops[i].name, name) == 0)
      return i;
  return -1;
}

/* Formats a shape as "[M, N]" into buf. */
static const char *shape_str(const sg_template *t, const sgt_shape *s, char *buf, size_t cap) {
  size_t n = 0;
  buf[n++] = '[';
  for (int i = 0; i < s->ndims && n + SGT_NAME_MAX + 3 < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", t->dims[s->dims[i]]);
  snprintf(buf + n, cap - n, "]");
  return buf;
}

static int shape_eq(const sgt_shape *a, const sgt_shape *b) {
  if (a->ndims != b->ndims)
    return 0;
  for (int i = 0; i < a->ndims; i++)
    if (a->dims[i] != b->dims[i])
      return 0;
  return 1;
}

/* dims := '[' DIM { ',' DIM } ']'; declare: unknown dims become new dims. */
static sg_status parse_dims(parser *ps, sgt_shape *s, int declare) {
  sg_status st = sgl_expect(&ps->lx, '[');
  s->ndims = 0;
  while (!st) {
    char name[SGT_NAME_MAX];
    int line = ps->lx.tok.line, col = ps->lx.tok.col;
    if ((st = expect_name(ps, "a dim name", name)))
      return st;
    int d = find_dim(ps->t, name);
    if (d < 0 && declare) {
      if (find_value(ps->t, name) >= 0)
        return ERR_AT(ps, line, col, "dim '%s' has the name of a scalar parameter", name);
      if (ps->t->ndims == SGT_MAX_DIMS)
        return ERR_AT(ps, line, col, "more than %d dims", SGT_MAX_DIMS);
      d = ps->t->ndims++;
      strcpy(ps->t->dims[d], name);
    }
    if (d < 0)
      return ERR_AT(ps, line, col, "unknown dim '%s'", name);
    for (int i = 0; i < s->ndims; i++)
      if (s->dims[i] == d)
        return ERR_AT(ps, line, col, "dim '%s' appears twice in one shape", name);
    if (s->ndims == SGT_MAX_DIMS)
      return ERR_AT(ps, line, col, "shape has more than %d dims", SGT_MAX_DIMS);
    s->dims[s->ndims++] = d;
    if (sgl_is_punct(&ps->lx, ']'))
      break;
    st = sgl_expect_comma(&ps->lx, ']');
  }
  return st ? st : sgl_expect(&ps->lx, ']');
}

/* NAME ':' ('f32' | 'i64'), the name read already: a scalar parameter, and
 * the op (SGT_PARAM) that makes it a value of shape []. */
static sg_status parse_scalar(parser *ps, const char *name, int line, int col) {
  sg_template *t = ps->t;
  if (t->nscalars == SGT_MAX_SCALARS)
    return ERR_AT(ps, line, col, "more than %d scalar parameters", SGT_MAX_SCALARS);
  if (t->nops == SGT_MAX_OPS)
    return ERR_AT(ps, line, col, "more than %d ops", SGT_MAX_OPS);
  int is_i64 = sgl_is_ident(&ps->lx, "i64");
  sgl_next(&ps->lx);
  sgt_scalar *sc = &t->scalars[t->nscalars];
  snprintf(sc->name, sizeof sc->name, "%s", name);
  sc->is_i64 = is_i64;
  sc->line = line;
  sc->col = col;
  sgt_op *op = &t->ops[t->nops++];
  memset(op, 0, sizeof *op);
  op->code = SGT_PARAM;
  snprintf(op->name, sizeof op->name, "%s", name);
  for (int k = 0; k < SGT_MAX_OPERANDS; k++)
    op->operands[k] = -1;
  op->tensor = t->nscalars++;
  op->dim = -1;
  op->is_i64 = is_i64;
  op->line = line;
  op->col = col;
  return SG_OK;
}

static sg_status parse_param(parser *ps) {
  sg_template *t = ps->t;
  char name[SGT_NAME_MAX];
  int line = ps->lx.tok.line, pcol = ps->lx.tok.col;
  sg_status st = expect_name(ps, "a parameter name", name);
  if (st)
    return st;
  if (find_tensor(t, name) >= 0 || find_value(t, name) >= 0)
    return ERR_AT(ps, line, pcol, "%s '%s' is declared twice",
                  find_tensor(t, name) >= 0 ? "tensor" : "parameter", name);
  if (find_dim(t, name) >= 0 || strcmp(name, "dim") == 0)
    return ERR_AT(ps, line, pcol, "parameter '%s' has the name of a dim", name);
  if ((st = sgl_expect(&ps->lx, ':')))
    return st;
  if (sgl_is_ident(&ps->lx, "f32") || sgl_is_ident(&ps->lx, "i64"))
    return parse_scalar(ps, name, line, pcol);
  if (t->ntensors == SGT_MAX_TENSORS)
    return ERR_AT(ps, line, pcol, "more than %d tensor arguments", SGT_MAX_TENSORS);
  sgt_tensor *tn = &t->tensors[t->ntensors];
  tn->line = line;
  tn->col = pcol;
  snprintf(tn->name, sizeof tn->name, "%s", name);
  if (sgl_is_ident(&ps->lx, "in") || sgl_is_ident(&ps->lx, "out"))
    tn->is_output = sgl_is_ident(&ps->lx, "out");
  else
    return sgl_unexpected(&ps->lx, "'in', 'out' or a scalar type (f32, i64)");
  sgl_next(&ps->lx);
  if ((st = parse_dims(ps, &tn->shape, 1)))
    return st;
  char elem[SGT_NAME_MAX];
  int eline = ps->lx.tok.line, ecol = ps->lx.tok.col;
  if ((st = expect_name(ps, "an element type (T, U, f16, bf16, f32)", elem)))
    return st;
  if (strcmp(elem, "T") == 0)
    tn->elem.generic = SGT_ELEM_T;
  else if (strcmp(elem, "U") == 0)
    tn->elem.generic = SGT_ELEM_U;
  else if (sg_dtype_parse(elem, &tn->elem.fixed))
    return ERR_AT(ps, eline, ecol, "unknown element type '%s' (expected T, U, f16, bf16 or f32)",
                  elem);
  t->ntensors++;
  return SG_OK;
}

static sg_status parse_opcode(parser *ps, const char *name, int line, int col,
                              sgt_opcode *out) {
  for (int i = 0; i < SGT_OPCODE_COUNT; i++)
    if (i != SGT_PARAM && strcmp(op_info[i].name, name) == 0) {
      *out = (sgt_opcode)i;
      return SG_OK;
    }
  return ERR_AT(ps, line, col,
                "unknown op '%s' (expected read, write, max, sum, broadcast, add, sub, mul, "
                "div, exp, log, neg, causal, ninf_to_zero or safe_div)",
                name);
}

/* Types op (its operands already resolved) and checks it. */
static sg_status check_op(parser *ps, sgt_op *op, int nargs, const sgt_shape *bshape) {
  sg_template *t = ps->t;
  char b1[128], b2[128];
  const char *opn = sgt_opcode_name(op->code);
  int arity = sgt_opcode_arity(op->code);
  int want = arity + (op->code == SGT_READ || op->code == SGT_WRITE) +
             (sgt_opcode_is_reduction(op->code) || op->code == SGT_BROADCAST);
  if (nargs != want)
    return ERR_AT(ps, op->line, op->col, "'%s' takes %d argument%s, got %d", opn, want,
                  want == 1 ? "" : "s", nargs);
  const sgt_shape *a = op->operands[0] >= 0 ? &t->ops[op->operands[0]].shape : NULL;
  for (int k = 0; k < SGT_MAX_OPERANDS; k++) {
    int v = op->operands[k];
    int want_i64 = op->code == SGT_CAUSAL && k > 0;
    if (v >= 0 && t->ops[v].is_i64 != want_i64)
      return ERR_AT(ps, op->line, op->col,
                    want_i64 ? "%s: '%s' must be an i64 parameter (causal(VALUE, ROWS, OFFSET))"
                             : "%s: '%s' is an i64 parameter: only causal's row count and offset "
                               "take one",
                    opn, t->ops[v].name);
  }
  switch (op->code) {
  case SGT_READ:
    if (t->tensors[op->tensor].is_output)
      return ERR_AT(ps, op->line, op->col, "read: '%s' is an output tensor",
                    t->tensors[op->tensor].name);
    op->shape = t->tensors[op->tensor].shape;
    break;
  case SGT_WRITE: {
    const sgt_tensor *tn = &t->tensors[op->tensor];
    if (!tn->is_output)
      return ERR_AT(ps, op->line, op->col, "write: '%s' is an input tensor", tn->name);
    if (!shape_eq(a, &tn->shape))
      return ERR_AT(ps, op->line, op->col,
                    "write: shape mismatch: value has shape %s, tensor '%s' has shape %s",
                    shape_str(t, a, b1, sizeof b1), tn->name,
                    shape_str(t, &tn->shape, b2, sizeof b2));
    for (int i = 0; i < t->nops; i++)
      if (&t->ops[i] != op && t->ops[i].code == SGT_WRITE && t->ops[i].tensor == op->tensor)
        return ERR_AT(ps, op->line, op->col, "write: '%s' is written twice", tn->name);
    op->shape.ndims = 0;
    break;
  }
  case SGT_MAX:
  case SGT_SUM: {
    int pos = -1;
    for (int i = 0; i < a->ndims; i++)
      if (a->dims[i] == op->dim)
        pos = i;
    if (pos < 0)
      return ERR_AT(ps, op->line, op->col, "%s over %s: value '%s' of shape %s has no dim %s",
                    opn, t->dims[op->dim], t->ops[op->operands[0]].name,
                    shape_str(t, a, b1, sizeof b1), t->dims[op->dim]);
    op->shape = *a;
    memmove(&op->shape.dims[pos], &op->shape.dims[pos + 1],
            sizeof(int) * (size_t)(a->ndims - pos - 1));
    op->shape.ndims--;
    break;
  }
  case SGT_BROADCAST: {
    int j = 0; /* the value's dims must appear in the target, in order */
    for (int i = 0; i < bshape->ndims && j < a->ndims; i++)
      if (bshape->dims[i] == a->dims[j])
        j++;
    int repeat = a->ndims == bshape->ndims && a->ndims > 0; /* [R, N] -> [M, N]: rows repeat */
    for (int i = 1; i < a->ndims && repeat; i++)
      repeat = a->dims[i] == bshape->dims[i];
    if (j != a->ndims && !repeat)
      return ERR_AT(ps, op->line, op->col, "broadcast: cannot broadcast shape %s to %s",
                    shape_str(t, a, b1, sizeof b1), shape_str(t, bshape, b2, sizeof b2));
    op->shape = *bshape;
    break;
  }
  case SGT_ADD:
  case SGT_SUB:
  case SGT_MUL:
  case SGT_DIV:
  case SGT_SAFE_DIV: { /* equal shapes, or one side a scalar parameter's [] */
    const sgt_shape *b = &t->ops[op->operands[1]].shape;
    if (!shape_eq(a, b) && a->ndims && b->ndims)
      return ERR_AT(ps, op->line, op->col,
                    "%s: shape mismatch: %s and %s (broadcast the smaller first)", opn,
                    shape_str(t, a, b1, sizeof b1), shape_str(t, b, b2, sizeof b2));
    op->shape = a->ndims ? *a : *b;
    break;
  }
  case SGT_CAUSAL:
    if (a->ndims != 2)
      return ERR_AT(ps, op->line, op->col, "causal: value '%s' of shape %s is not a row value",
                    t->ops[op->operands[0]].name, shape_str(t, a, b1, sizeof b1));
    op->shape = *a;
    break;
  default:
    op->shape = *a;
    break;
  }
  return SG_OK;
}

static sg_status parse_stmt(parser *ps) {
  sg_template *t = ps->t;
  if (t->nops == SGT_MAX_OPS)
    return ERR(ps, "more than %d ops", SGT_MAX_OPS);
  sgt_op *op = &t->ops[t->nops];
  memset(op, 0, sizeof *op);
  for (int k = 0; k < SGT_MAX_OPERANDS; k++)
    op->operands[k] = -1;
  op->tensor = op->dim = -1;
  char first[SGT_NAME_MAX], opname[SGT_NAME_MAX];
  int line = ps->lx.tok.line, col = ps->lx.tok.col;
  sg_status st = expect_name(ps, "a statement", first);
  if (st)
    return st;
  if (sgl_is_punct(&ps->lx, '=')) {
    sgl_next(&ps->lx);
    strcpy(op->name, first);
    int prev = find_value(t, first);
    if (prev >= 0)
      return ERR_AT(ps, line, col, "value '%s' is already defined at line %d", first,
                    t->ops[prev].line);
    if (find_tensor(t, first) >= 0 || find_dim(t, first) >= 0)
      return ERR_AT(ps, line, col, "'%s' is already the name of a tensor or dim", first);
    if (strcmp(first, "dim") == 0)
      return ERR_AT(ps, line, col, "'dim' is reserved (the keyword of dim=); name the value "
                    "otherwise");
    op->line = ps->lx.tok.line;
    op->col = ps->lx.tok.col;
    if ((st = expect_name(ps, "an op name", opname)))
      return st;
  } else {
    strcpy(opname, first);
    op->line = line;
    op->col = col;
  }
  if ((st = parse_opcode(ps, opname, op->line, op->col, &op->code)))
    return st;
  if (op->name[0] && op->code == SGT_WRITE)
    return ERR_AT(ps, line, col, "write has no result to assign to '%s'", op->name);
  if (!op->name[0] && op->code != SGT_WRITE)
    return ERR_AT(ps, line, col, "the result of '%s' must be given a name ('v = %s(...)')",
                  opname, opname);
  if ((st = sgl_expect(&ps->lx, '(')))
    return st;
  int nargs = 0, nvalues = 0;
  sgt_shape bshape = {0, {0}};
  int tensor_slot = op->code == SGT_READ ? 0 : op->code == SGT_WRITE ? 1 : -1;
  for (;;) {
    int al = ps->lx.tok.line, ac = ps->lx.tok.col;
    if (sgl_is_punct(&ps->lx, '[')) {
      if (op->code != SGT_BROADCAST)
        return ERR(ps, "'%s' takes no shape argument", opname);
      if ((st = parse_dims(ps, &bshape, 0)))
        return st;
    } else if (sgl_is_ident(&ps->lx, "dim")) {
      char dname[SGT_NAME_MAX];
      sgl_next(&ps->lx);
      if ((st = sgl_expect(&ps->lx, '=')))
        return st;
      int dl = ps->lx.tok.line, dc = ps->lx.tok.col;
      if ((st = expect_name(ps, "a dim name", dname)))
        return st;
      if (!sgt_opcode_is_reduction(op->code))
        return ERR_AT(ps, al, ac, "'%s' takes no dim= argument", opname);
      op->dim = find_dim(t, dname);
      if (op->dim < 0)
        return ERR_AT(ps, dl, dc, "unknown dim '%s'", dname);
    } else {
      char arg[SGT_NAME_MAX];
      if ((st = expect_name(ps, "an argument", arg)))
        return st;
      if (nargs == tensor_slot) {
        op->tensor = find_tensor(t, arg);
        if (op->tensor < 0)
          return ERR_AT(ps, al, ac, "'%s' is not a tensor argument of the kernel", arg);
      } else {
        int v = find_value(t, arg);
        if (v < 0)
          return ERR_AT(ps, al, ac,
                        find_tensor(t, arg) >= 0 ? "'%s' is a tensor: read it into a value first"
                                                 : "undefined value '%s'",
                        arg);
        int most = sgt_opcode_arity(op->code) > 2 ? sgt_opcode_arity(op->code) : 2;
        if (nvalues == most)
          return ERR_AT(ps, al, ac, "too many operands for '%s'", opname);
        op->operands[nvalues++] = v;
      }
    }
    nargs++;
    if (sgl_is_punct(&ps->lx, ')'))
      break;
    if ((st = sgl_expect_comma(&ps->lx, ')')))
      return st;
  }
  sgl_next(&ps->lx);
  if (nvalues != sgt_opcode_arity(op->code) ||
      (tensor_slot >= 0 && op->tensor < 0) ||
      (sgt_opcode_is_reduction(op->code) && op->dim < 0) ||
      (op->code == SGT_BROADCAST && bshape.ndims == 0)) {
    static const char *const usage[SGT_OPCODE_COUNT] = {
        [SGT_READ] = "read(TENSOR)",          [SGT_WRITE] = "write(VALUE, TENSOR)",
        [SGT_MAX] = "max(VALUE, dim=DIM)",    [SGT_SUM] = "sum(VALUE, dim=DIM)",
        [SGT_BROADCAST] = "broadcast(VALUE, [DIMS])", [SGT_ADD] = "add(A, B)",
        [SGT_SUB] = "sub(A, B)",              [SGT_MUL] = "mul(A, B)",
        [SGT_DIV] = "div(A, B)",              [SGT_EXP] = "exp(VALUE)",
        [SGT_LOG] = "log(VALUE)",             [SGT_NEG] = "neg(VALUE)",
        [SGT_CAUSAL] = "causal(VALUE, ROWS, OFFSET)", [SGT_NINF_TO_ZERO] = "ninf_to_zero(VALUE)",
        [SGT_SAFE_DIV] = "safe_div(A, B)"};
    return ERR_AT(ps, op->line, op->col, "wrong arguments to '%s': expected %s", opname,
                  usage[op->code]);
  }
  t->nops++;
  if ((st = check_op(ps, op, nargs, &bshape)))
    t->nops--;
  return st;
}

static sg_status parse_template(parser *ps) {
  sg_template *t = ps->t;
  sg_status st;
  if (!sgl_is_ident(&ps->lx, "kernel"))
    return sgl_unexpected(&ps->lx, "'kernel'");
  sgl_next(&ps->lx);
  int kline = ps->lx.tok.line, kcol = ps->lx.tok.col;
  if ((st = expect_name(ps, "a kernel name", t->name)) || (st = sgl_expect(&ps->lx, '(')))
    return st;
  for (;;) {
    if ((st = parse_param(ps)))
      return st;
    if (sgl_is_punct(&ps->lx, ')'))
      break;
    if ((st = sgl_expect_comma(&ps->lx, ')')))
      return st;
  }
  sgl_next(&ps->lx);
  int out = 0; /* inputs whose first dim is not the (first) output's rows repeat their rows */
  while (out < t->ntensors && !t->tensors[out].is_output)
    out++;
  if (out == t->ntensors) /* the output's [ROWS, COLS] is the kernel's shape (and grid) */
    return ERR_AT(ps, kline, kcol, "kernel '%s' has no output tensor: a kernel writes at least "
                  "one 'out' tensor of shape [ROWS, COLS] (e.g. y: out[M, N] T), whose rows and "
                  "columns it runs over", t->name);
  for (int i = 0; out < t->ntensors && i < t->ntensors; i++)
    t->tensors[i].repeat = !t->tensors[i].is_output && t->tensors[i].shape.ndims > 0 &&
                           t->tensors[out].shape.ndims > 0 &&
                           t->tensors[i].shape.dims[0] != t->tensors[out].shape.dims[0];
  while (ps->lx.tok.kind != SGL_EOF) {
    if (ps->lx.tok.kind == SGL_ERROR)
      return ERR(ps, "unexpected character '%.*s'", (int)ps->lx.tok.len, ps->lx.tok.start);
    if ((st = parse_stmt(ps)))
      return st;
  }
  for (int i = 0; i < t->ntensors; i++) {
    int written = 0;
    for (int j = 0; j < t->nops; j++)
      written |= t->ops[j].code == SGT_WRITE && t->ops[j].tensor == i;
    if (t->tensors[i].is_output && !written)
      return ERR_AT(ps, t->tensors[i].line, t->tensors[i].col, "output '%s' is never written",
                    t->tensors[i].name);
  }
  return SG_OK;
}

sg_status sg_template_parse(const char *file, const char *text, size_t len, sg_template **out,
                            sg_diag *diag) {
  if (!text || !out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_template_parse: null argument");
  *out = NULL;
  parser ps;
  ps.diag = diag;
  ps.t = calloc(1, sizeof *ps.t);
  if (!ps.t)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
  snprintf(ps.t->file, sizeof ps.t->file, "%s", file ? file : "<template>");
  if (memchr(text, '\0', len)) {
    sg_status nul = ERR_AT(&ps, 0, 0, "template contains a NUL byte"); /* names ps.t->file */
    free(ps.t);
    return nul;
  }
  sgl_init(&ps.lx, text, len, ps.t->file, diag);
  sg_status st = parse_template(&ps);
  if (st) {
    free(ps.t);
    return st;
  }
  *out = ps.t;
  return SG_OK;
}

sg_status sg_template_load(const char *path, sg_template **out, sg_diag *diag) {
  char *text;
  size_t len;
  sg_status st = sgb_read_input(path, "a template", SGB_LIMIT_TEXT, &text, &len, diag);
  if (st)
    return st;
  st = sg_template_parse(path, text, len, out, diag);
  free(text);
  return st;
}

void sg_template_destroy(sg_template *t) { free(t); }

const char *sg_template_name(const sg_template *t) { return t ? t->name : ""; }

void sg_template_print(const sg_template *t, FILE *f) {
  char b[128];
  fprintf(f, "kernel %s\n", t->name);
  for (int i = 0; i < t->ntensors; i++)
    fprintf(f, "  tensor %s: %s %s %s%s\n", t->tensors[i].name,
            t->tensors[i].is_output ? "out" : "in", shape_str(t, &t->tensors[i].shape, b, sizeof b),
            t->tensors[i].elem.generic == SGT_ELEM_T   ? "T"
            : t->tensors[i].elem.generic == SGT_ELEM_U ? "U"
                                                       : sg_dtype_name(t->tensors[i].elem.fixed),
            t->tensors[i].repeat ? "   ; rows repeat" : "");
  for (int i = 0; i < t->nscalars; i++)
    fprintf(f, "  scalar %s: %s\n", t->scalars[i].name, t->scalars[i].is_i64 ? "i64" : "f32");
  for (int i = 0; i < t->nops; i++) {
    const sgt_op *op = &t->ops[i];
    if (op->code == SGT_WRITE)
      fprintf(f, "  write %%%d -> %s\n", op->operands[0], t->tensors[op->tensor].name);
    else {
      fprintf(f, "  %%%d = %s", i, sgt_opcode_name(op->code));
      if (op->code == SGT_PARAM) {
        fprintf(f, " %s : [] %s\n", op->name, op->is_i64 ? "i64" : "f32");
        continue;
      }
      if (op->tensor >= 0)
        fprintf(f, " %s", t->tensors[op->tensor].name);
      for (int k = 0; k < SGT_MAX_OPERANDS; k++)
        if (op->operands[k] >= 0)
          fprintf(f, "%s %%%d", k ? "," : "", op->operands[k]);
      if (op->dim >= 0)
        fprintf(f, ", dim=%s", t->dims[op->dim]);
      fprintf(f, " : %s f32   ; %s\n", shape_str(t, &op->shape, b, sizeof b), op->name);
    }
  }
}
