/* template/template.h - the parsed template: a typed op list (internal).
 * Produced by template/parse.c, read by plan/resolve.c and codegen. */
#ifndef SG_INTERNAL_TEMPLATE_H
#define SG_INTERNAL_TEMPLATE_H

#include "softgen/meta.h"
#include "softgen/template.h"

#define SGT_MAX_DIMS 4     /* symbolic dims a template may declare (M, N, ...) */
#define SGT_MAX_TENSORS 8  /* memory arguments */
#define SGT_MAX_OPS 64     /* ops in the body */
#define SGT_NAME_MAX 32
#define SGT_MAX_SCALARS 8  /* scalar (run-time) parameters */
#define SGT_MAX_OPERANDS 3

typedef enum sgt_opcode {
  SGT_READ,      /* value = read(tensor) */
  SGT_WRITE,     /* write(value, tensor) */
  SGT_MAX,       /* reduction over a dim */
  SGT_SUM,       /* reduction over a dim */
  SGT_BROADCAST, /* value over more dims */
  SGT_ADD,
  SGT_SUB,
  SGT_MUL,
  SGT_DIV,
  SGT_EXP,
  SGT_LOG,
  SGT_NEG,
  SGT_PARAM,        /* a scalar parameter of the kernel (made by the signature, not written) */
  SGT_CAUSAL,       /* causal(v, L, offset): -inf where column > row mod L + offset */
  SGT_NINF_TO_ZERO, /* -inf -> 0, anything else unchanged */
  SGT_SAFE_DIV,     /* a / b, 0 where b == 0 */
  SGT_OPCODE_COUNT
} sgt_opcode;

/* Element type of a tensor: a generation-time dtype ("T": the dtype, "U": the
 * output dtype, which defaults to T) or a fixed one. */
typedef enum sgt_elem_kind { SGT_ELEM_FIXED, SGT_ELEM_T, SGT_ELEM_U } sgt_elem_kind;
typedef struct sgt_elem {
  sgt_elem_kind generic;
  sg_dtype fixed;
} sgt_elem;

typedef struct sgt_shape {
  int ndims;
  int dims[SGT_MAX_DIMS]; /* indices into sg_template.dims */
} sgt_shape;

typedef struct sgt_tensor {
  char name[SGT_NAME_MAX];
  int is_output;
  sgt_shape shape;
  sgt_elem elem;
  int repeat; /* input whose rows repeat: [R, N] with R not the output's row dim (row m reads m mod R) */
  int line, col;
} sgt_tensor;

/* A scalar parameter: passed at launch, f32 (usable wherever a value is) or
 * i64 (an index: causal's row count and offset). */
typedef struct sgt_scalar {
  char name[SGT_NAME_MAX];
  int is_i64;
  int line, col;
} sgt_scalar;

/* One op; its result (if any) is value number `id` of the op list (= op index). */
typedef struct sgt_op {
  sgt_opcode code;
  char name[SGT_NAME_MAX]; /* the value's name in the source, "" for write */
  int operands[SGT_MAX_OPERANDS]; /* op indices, -1 when unused */
  int tensor;              /* read/write: tensor index; param: scalar index; else -1 */
  int dim;                 /* max/sum: reduced dim index, else -1 */
  sgt_shape shape;         /* result shape (all values are computed in f32); [] for scalars */
  int is_i64;              /* an i64 scalar parameter */
  int line, col;
} sgt_op;

struct sg_template {
  char name[SGT_NAME_MAX];
  char file[256];
  int ndims;
  char dims[SGT_MAX_DIMS][SGT_NAME_MAX];
  int ntensors;
  sgt_tensor tensors[SGT_MAX_TENSORS];
  int nscalars;
  sgt_scalar scalars[SGT_MAX_SCALARS];
  int nops;
  sgt_op ops[SGT_MAX_OPS];
};

/* The dtype of tensor i given the generation-time T and U. */
sg_dtype sgt_tensor_dtype(const sg_template *t, int i, sg_dtype T, sg_dtype U);

/* Name of an opcode as written in templates ("read", "max", ...). */
const char *sgt_opcode_name(sgt_opcode code);
/* Number of value operands an opcode takes (write: 1, plus its tensor). */
int sgt_opcode_arity(sgt_opcode code);
int sgt_opcode_is_reduction(sgt_opcode code);

/* The online-softmax chain from max op i: m = max(a), b = broadcast(m),
 * d = sub(a, b), e = exp(d), s = sum(e) over the same dim; b may also be
 * broadcast(ninf_to_zero(m)) (the safe softmax: where m is -inf every e is 0
 * either way, elsewhere the two agree). Fills the op indices of e and s and
 * returns 1 when op i starts one, else 0. */
int sgt_online_chain(const sg_template *t, int i, int *exp_op, int *sum_op);

/* 1 when op i's value reaches the kernel's outputs only as operand 0 of
 * causal op `causal`, through element-wise ops (and broadcasts): where that
 * causal op masks an element, op i's element there is never needed. */
int sgt_only_through_causal(const sg_template *t, int i, int causal);

#endif
