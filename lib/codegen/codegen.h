/* codegen/codegen.h - the state of one kernel's IR construction (internal).
 * Built by codegen/kernel.c, whose walk (codegen/walk.c, codegen/rows.h)
 * lowers the op list; codegen/reduce.c builds the reduction tree; the
 * backends' IR hooks (codegen/hooks.h) receive it.
 * Needs: plan (the plan and its target's limits), template, LLVM-C. */
#ifndef SG_INTERNAL_CODEGEN_H
#define SG_INTERNAL_CODEGEN_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h> /* type sizes from the module's data layout */

#include "codegen/hooks.h"
#include "plan/plan.h"
#include "target/target.h"
#include "template/template.h"

#define SGC_MAX_VEC 64 /* elements of one vector access (64 bytes of i8 at most) */

typedef struct sgc_ctx {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  LLVMValueRef fn;
  const sg_plan *plan;
  const sg_template *t;
  const sgc_hooks *hooks; /* the target's IR hooks (codegen/hooks.h) */
  LLVMTypeRef i1, i32, i64, f32, gptr;
  LLVMValueRef smem;        /* reduction buffers (NULL when no block-level reduction) */
  LLVMValueRef tid;         /* thread index in the block (i32) */
  LLVMValueRef row_in_block, lane_in_row; /* i32 (row_in_block: the thread's current row,
                                             sgc_thread_row) */
  LLVMValueRef first_row_in_block;        /* i32: the thread's first row in its block */
  LLVMValueRef cluster_rank; /* i32, when plan->cluster > 1 */
  LLVMValueRef iteration;   /* i32: trips of the row loop so far (0 on the first) */
  LLVMValueRef parity;      /* i32: iteration & 1, selects the reduction buffers */
  int cluster_started;      /* the entry arrive has been waited on */
  unsigned next_slot;       /* next reduction buffer of this iteration */
  LLVMValueRef repeat_rows[SGT_MAX_TENSORS]; /* i64 R of inputs whose rows repeat, else NULL */
  LLVMValueRef scalar_args[SGT_MAX_SCALARS]; /* the kernel's scalar parameters */
  LLVMValueRef cols; /* i64 N: the "cols" parameter for a range of N, else the constant */
  LLVMValueRef workspace; /* a grid split's workspace (its last parameter), else NULL */
  LLVMValueRef row_block; /* i64: the row block of this trip of the row loop */
  LLVMValueRef first_block, block_step; /* i64: the loop's first row block and its stride */
  LLVMValueRef grid_tag;  /* a grid split: this launch's tag (i32; sgc_grid_tag) */
} sgc_ctx;

typedef enum sgc_reduce_kind {
  SGC_REDUCE_MAX,
  SGC_REDUCE_SUM,
  SGC_REDUCE_ONLINE /* the pair (max, sum of exp(x - max)), combined with rescaling */
} sgc_reduce_kind;

/* The kernel's ABI (codegen/abi.c): declares cx->fn with its parameters
 * (tensors, M, strides, ...; names them, fills cx->repeat_rows and
 * cx->scalar_args), and adds the launch metadata global of softgen/meta.h. */
void sgc_declare_kernel(sgc_ctx *cx);
sg_status sgc_add_meta(sgc_ctx *cx, sg_diag *diag);

/* Combines two f32 values (scalars or equal-length vectors) by kind. */
LLVMValueRef sgc_combine(sgc_ctx *cx, sgc_reduce_kind kind, LLVMValueRef a, LLVMValueRef b);

/* The identity of kind (-inf for max, 0 for sum), as a scalar. */
LLVMValueRef sgc_identity(sgc_ctx *cx, sgc_reduce_kind kind);

/* A row value as plan->chunks vectors of plan->vec f32 (masked elements
 * already replaced by the reduction's identity), built on request: get(env, c)
 * emits (or returns) chunk c. Registers plans request every chunk first and
 * reduce them as a tree; staged plans request each chunk just before folding
 * it in, so that one chunk at a time is live. */
typedef struct sgc_chunks {
  LLVMValueRef (*get)(void *env, unsigned c);
  void *env;
  /* staged plans: an i1 that is 0 where chunk c holds nothing but the
   * identity (its update is then skipped), or NULL (every chunk counts);
   * called where the update would start, before get; may be NULL itself */
  LLVMValueRef (*live)(void *env, unsigned c);
} sgc_chunks;

/* At the kernel's entry of a cluster plan, before its relaxed arrive: thread 0
 * makes and arms the cluster exchange's transaction barriers (codegen/reduce.c). */
void sgc_exchange_init(sgc_ctx *cx);

/* `if (guard) { ... }`: branches to a new block and leaves the builder there;
 * sgc_close_if branches to the returned join block and continues there. */
LLVMBasicBlockRef sgc_open_if(sgc_ctx *cx, LLVMValueRef guard, const char *name);
void sgc_close_if(sgc_ctx *cx, LLVMBasicBlockRef join);

/* Reduces a row value to the row's scalar, which every thread of the row
 * receives: thread -> wave (xor shuffles) -> block (shared memory and one
 * barrier) -> cluster. */
LLVMValueRef sgc_reduce_row(sgc_ctx *cx, sgc_reduce_kind kind, const sgc_chunks *x);

/* The online softmax of a row value x (masked elements -inf): one reduction
 * of (max, sum of exp) pairs over the whole tree. Returns the row's max and
 * sum and, when e is not NULL, e = exp(x - max) (chunks: registers plans, and
 * staged ones that hold their exps, plan->hold), flushed as e_flush says
 * (sgc_exp; SGC_EXP_SCALED_BF16: e 2^8 too large, the sum not). The exps
 * that only enter the sum are flushed always: the row's max contributes 1 to
 * it. */
void sgc_reduce_row_online(sgc_ctx *cx, const sgc_chunks *x, LLVMValueRef *e, int e_flush,
                           LLVMValueRef *max, LLVMValueRef *sum);

/* One tile of a running online (max, sum) pair (tiled rows): m and s are
 * vectors of plan->vec lanes (initially -inf and 0), x the tile's n chunks
 * (masked elements -inf); m becomes max(m, the tile's max) and s the sum of
 * exp(x - m) over everything so far, rescaled to the new m. One exp an element. */
void sgc_online_tile(sgc_ctx *cx, LLVMValueRef *m, LLVMValueRef *s, const LLVMValueRef *x,
                     unsigned n);

/* The row's (max, sum of exp(x - max)) from a thread's running pairs (m, s),
 * over its vector lanes and then the threads of the row; every thread of the
 * row receives them. */
void sgc_reduce_pairs(sgc_ctx *cx, LLVMValueRef m, LLVMValueRef s, LLVMValueRef *max,
                      LLVMValueRef *sum);

/* A grid split: this launch's tag, one more than the block's own first
 * word in the workspace holds (codegen/reduce.c, the grid stage); loaded as
 * the row block starts, so that the load overlaps the row's. */
LLVMValueRef sgc_grid_tag(sgc_ctx *cx);

/* How far an exp's small results may be flushed to 0 (sgc_exp, the exp2
 * hook): SGC_EXP_EXACT keeps every subnormal result; SGC_EXP_FLUSH lets
 * results below 2^-126 be 0 (where they reach no output: a sum that holds
 * a 1, an f16 output, whose smallest subnormal is 2^-24); SGC_EXP_FLUSH_BF16
 * lets results below 2^-134 be 0 but keeps those from there to 2^-126 (a
 * bf16 output: its smallest subnormal is 2^-133, and under 2^-134 a value
 * rounds to 0); SGC_EXP_SCALED_BF16 the same results 2^SGC_EXP_SCALE_LOG2
 * times too large (2^8 exp(x): exp2(x log2(e) + 8) with the target's flush,
 * no multiply back), for an exp whose every value is divided by the row's
 * sum, whose reciprocal takes the 2^-8 once a row (walk.c, exp_level). */
enum { SGC_EXP_EXACT = 0, SGC_EXP_FLUSH = 1, SGC_EXP_FLUSH_BF16 = 2, SGC_EXP_SCALED_BF16 = 3 };
/* The 8 of both bf16 levels: added to the exponent, taken back as 2^-8. */
#define SGC_EXP_SCALE_LOG2 8

/* v (f32, scalar or vector) times 2^-SGC_EXP_SCALE_LOG2: exact, a subnormal
 * product kept. */
LLVMValueRef sgc_exp_unscale(sgc_ctx *cx, LLVMValueRef v, const char *name);

/* exp(x) as exp2(x * log2(e)) (target hook), for scalars or vectors; flush:
 * one of the SGC_EXP_ levels. */
LLVMValueRef sgc_exp(sgc_ctx *cx, LLVMValueRef x, int flush);

/* An f32 constant of v's type: c, or c in every lane of a vector. */
LLVMValueRef sgc_const_like(sgc_ctx *cx, LLVMValueRef v, double c);

/* exp(m - M), and exactly 1 when m == M (-inf - -inf would be NaN). */
LLVMValueRef sgc_rescale(sgc_ctx *cx, LLVMValueRef m, LLVMValueRef M, int flush);

/* Applies a one-argument f32 intrinsic to a scalar, or to each element of a
 * vector (intrinsics overloaded on f32 get the f32 overload). */
LLVMValueRef sgc_map_scalar(sgc_ctx *cx, const char *intrinsic, LLVMValueRef v);

/* Calls an overloaded LLVM intrinsic by name with one overload type. */
LLVMValueRef sgc_intrinsic(sgc_ctx *cx, const char *name, LLVMTypeRef overload,
                           LLVMValueRef *args, unsigned nargs);

#endif
