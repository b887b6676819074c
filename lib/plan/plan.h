/* plan/plan.h - parsed constraints and the resolved plan (internal).
 * Produced by plan/constraints.c (the parser) and plan/resolve.c (the entry:
 * sg_plan_resolve), which lays out a row with plan/rows.c or plan/inner.c;
 * both take what is given from plan/given.c and what is not from
 * plan/policy.c. The plan is read by codegen and the backends. */
#ifndef SG_INTERNAL_CONSTRAINTS_H
#define SG_INTERNAL_CONSTRAINTS_H

#include "softgen/constraints.h"
#include "template/template.h"

struct sgh_target;

/* Where a constraint came from, for "file:line:col" in rejections. */
typedef struct sgp_loc {
  char file[128];
  int line, col;
} sgp_loc;

#define SGP_FULL (-1) /* a tile written as the dim's own name: the whole extent */
#define SGP_MAX_DIMS 4
#define SGP_MAX_THREAD_ROWS 8 /* PipelineConstraint(thread_rows) at most */
#define SGP_MAX_FEW 4 /* few-rows variants a plan carries (SG_META_MAX_VARIANTS) */
#define SGP_MAX_GRID_SPLIT 1024 /* blocks a grid split shares a row over (softgen/meta.h) */

typedef struct sgp_tile {
  char dim[SGT_NAME_MAX];
  int64_t tile; /* > 0, or SGP_FULL */
  int grid_axis; /* WorkgroupConstraint only */
  sgp_loc loc;
} sgp_tile;

struct sg_constraints {
  int has_hw;
  sgp_loc hw_loc;
  unsigned threads_per_wave;      /* 0: not given */
  unsigned waves_per_block[3];    /* 0: not given */
  int nvec;
  sgp_tile vec[SGP_MAX_DIMS];     /* vector_shapes entries (tile = elements) */
  int nworkgroup;
  sgp_tile workgroup[SGP_MAX_DIMS];
  int nwave;
  sgp_tile wave[SGP_MAX_DIMS];
  unsigned rows_in_flight; /* PipelineConstraint: 0 not given, 1 or 2 */
  int online;              /* PipelineConstraint: 0 not given, 1 off, 2 on */
  int staging;             /* PipelineConstraint: 0 not given, 1 registers, 2 shared memory */
  int hold;                /* PipelineConstraint: 0 not given, 1 off, 2 on; 3 on where a
                              few-rows variant can (plan/resolve.c) */
  unsigned thread_rows;    /* PipelineConstraint: 0 not given, else rows a thread of flat rows
                              computes in each row block (1 to SGP_MAX_THREAD_ROWS) */
  unsigned blocks_per_sm;  /* PipelineConstraint: 0 not given, else the blocks a
                              multiprocessor the register allocator is asked to fit */
  sgp_loc pipeline_loc;
  /* Not a constraint of the text: the few-rows variant's workgroups per row
   * (plan/resolve.c), a split that need not be even (0: none), over a
   * cluster, or with split_grid over separate blocks of the grid. */
  unsigned split;
  int split_grid;
};

/* The resolved plan: every number the kernel is built from. Fields marked
 * in `chosen` were picked by the policy (plan/policy.c), the rest were given. */
struct sg_plan {
  const struct sgh_target *target; /* the target's limits (target/target.h) */
  char arch[32];
  sg_dtype dtype;
  sg_dtype out_dtype; /* "U": the output dtype (dtype unless given) */
  int64_t n;                /* N, or the largest N of a range (n_min < n) */
  int64_t n_min;            /* the smallest N the kernel takes (n: exactly N); below n
                               the kernel reads N from its "cols" argument */
  char template_name[SGT_NAME_MAX];
  char kernel_name[128];

  unsigned wave;            /* threads per wave */
  unsigned waves_per_block; /* x*y*z of HardwareConstraint */
  unsigned block_threads;
  unsigned rows_per_block;  /* WorkgroupConstraint(M, tile) */
  unsigned threads_per_row; /* block_threads / rows_per_block */
  unsigned rows_per_wave;   /* > 1 for short rows: sub-wave reductions */
  unsigned waves_per_row;   /* > 1: a block-level (shared memory) reduction */
  unsigned cluster;         /* workgroups sharing one row (WorkgroupConstraint(N, N / cluster)) */
  int64_t tile_n;           /* columns of the row each workgroup holds: ceil(vectors /
                               cluster) vectors; the last workgroup holds the rest
                               (n - (cluster - 1) tile_n, masked past it) */
  unsigned vec;             /* elements per vector access (vector_shapes N) */
  unsigned vec_bytes;
  unsigned pack;            /* rows a vector (1: none; set in every plan): rows shorter
                               than a vector (N dividing it) packed `pack` consecutive
                               rows a thread's vector (vec = pack x N), reduced segment by
                               segment within it; one 16-byte access where the rows are
                               one span (codegen/address.c, sgc_pack_load) */
  unsigned chunks;          /* vector accesses per thread per row (per tile when row_tiles > 1) */
  unsigned row_tiles;       /* 1: the row is held in registers; > 1: processed in tiles of
                               chunks vectors per thread, re-read once per pass (long rows) */
  unsigned elems_per_thread;
  int masked;               /* the last chunk may cross N: columns past N are masked */
  int peel;                 /* rows of any alignment in full vectors: each row's columns
                               shifted by h = (its first element's address / element size)
                               mod vec, so that every access is aligned; the row's partial
                               head and tail vectors element by element (codegen/address.c).
                               tile_n covers (n + 2 vec - 2) / vec vectors */
  unsigned nreductions;     /* reductions in the template */
  unsigned smem_slots;      /* reduction buffers (>= 2 so iterations need no extra barrier) */
  unsigned smem_bytes;
  unsigned cluster_bytes;   /* shared memory for the cluster-level partials */
  unsigned smem_parity_floats;    /* floats of block-level buffers per iteration parity */
  unsigned cluster_parity_floats; /* floats of cluster-level buffers per iteration parity */
  unsigned cluster_bars;          /* transaction barriers of the cluster exchange: one a pass
                                     and iteration parity, after the buffers; 0: the cluster
                                     barrier (sgp_policy_exchange_bars, codegen/reduce.c) */
  int online;               /* max and sum of exp(x - max) reduced as one online pair */
  int hold;                 /* staged rows with online pairs keep pass one's exps in
                               registers (PipelineConstraint(hold=1), sgp_policy_hold):
                               the writes neither re-read the row nor recompute them
                               (codegen/reduce.c) */
  unsigned passes;          /* reductions through the tree: nreductions less fused chains */
  unsigned shuffle_steps;   /* xor-shuffle steps per wave reduction */
  int prefetch;             /* 1: load row block i+1 while computing i (persistent grid) */
  int stage;                /* 1: rows copied to shared memory once, re-read by each pass */
  int flat;                 /* 1: short rows whose vector is under 16 bytes: a row block's
                               rows (one contiguous span when the strides are N) copied
                               to shared memory and written back in 16-byte pieces
                               (codegen/rows_flat.c); stage_bytes holds the images */
  unsigned thread_rows;     /* flat rows: rows a thread computes in each row block (1 in
                               every other plan), rows tid / T + j x block_threads / T of
                               the block for j < thread_rows; rows_per_block counts them */
  unsigned row_step;        /* flat rows: the thread group g of a pass (g = tid / T) takes
                               row (g x row_step) mod (block_threads / T), so that a wave's
                               rows fall on different shared-memory banks (odd; 1: g) */
  unsigned stage_pitch;     /* elements a staged row occupies: chunks x threads_per_row x vec */
  unsigned stage_bytes;     /* dynamic shared memory of the staged rows (0 when not staged) */
  unsigned blocks_per_sm;   /* staged: blocks the shared memory lets a multiprocessor hold,
                               asked of the register allocator (0: no request) */
  unsigned stage_groups;    /* staged: a thread's chunks land in this many groups, each
                               waited for before its first read */
  uint64_t head_order_bytes; /* an input whose rows repeat, larger than this: row blocks
                                taken head by head (codegen's sgc_block_row) */
  struct {
    int wave, waves, rows, vec, cluster, prefetch, online, stage, pack, thread_rows, hold,
        blocks_per_sm;
  } chosen;                 /* 1 where auto-configuration chose the value */
  sg_layout layout;         /* SG_LAYOUT_INNER: tensors are [outer, N, inner], a thread
                               per row (threads_per_row = vec = 1), strided along N */
  /* The few-rows variants (plan/resolve.c, sgp_policy_few_rows): the same kernel
   * planned with each row split over more blocks, more entry points of the
   * code object that the launch takes for small M (softgen/meta.h "variant
   * few", "variant grid"), in increasing max_rows (a grid split before a
   * cluster of the same): the largest split, for the fewest rows, first. */
  struct sg_plan *few[SGP_MAX_FEW]; /* the variants of this plan (owned) */
  unsigned nfew;
  unsigned max_rows;        /* in a variant: launched for M up to this (0: not a variant) */
  unsigned alone_smem;      /* > 0: each block is launched with this much dynamic shared
                               memory (more than stage_bytes, over half a multiprocessor's)
                               so that it is alone on its multiprocessor */
  int grid_split;           /* in a variant: the `cluster` workgroups of a row are separate
                               blocks of the grid, not a hardware cluster; they combine their
                               partials through a workspace in global memory and wait for
                               each other there (codegen/reduce.c, the grid stage), so the
                               launch is cooperative and takes the workspace as one more
                               argument (softgen/meta.h "variant grid") */
  unsigned workspace_bytes;  /* grid_split: a stream's slice of the workspace, shared by all
                                the plan's grid splits (plan/resolve.c, resolve_few) */
  unsigned workspace_offset; /* grid_split: where this variant's area of the slice starts:
                                each grid split has its own, so that every word of a row
                                block's area only ever holds this variant's tags */
};

/* The workgroups of a hardware cluster (1: none; a grid split's are not one). */
static inline unsigned sgp_hw_cluster(const sg_plan *pl) {
  return pl->grid_split ? 1 : pl->cluster;
}

/* A grid split's workspace, per row block (max_rows of them): for each pass,
 * each workgroup's partial as two 8-byte words, (max, sum) or the one value,
 * each a float (low half) tagged with the launch's number (high half); a row
 * block's area rounded to 128 bytes (codegen/reduce.c, the grid stage). */
static inline unsigned sgp_grid_row_bytes(const sg_plan *pl) {
  return (pl->passes * pl->cluster * 16 + 127) / 128 * 128;
}

/* The alignment a tensor's base and row stride need (as bytes of the widest
 * tensor's elements): a vector's, or an element's for peeled rows (each row
 * aligns itself), or a row's for packed rows (a span not 16-byte aligned is
 * read element by element). */
static inline unsigned sgp_row_align(const sg_plan *pl) {
  return pl->peel ? pl->vec_bytes / pl->vec : pl->vec_bytes / pl->pack;
}

/* The kernel takes N at run time (a range of N, sg_problem.n_min). */
static inline int sgp_dynamic_n(const sg_plan *pl) { return pl->n_min < pl->n; }

/* Integer helpers of the plan's arithmetic. */
static inline int sgp_is_pow2(uint64_t x) { return x && !(x & (x - 1)); }
static inline unsigned sgp_max_u(unsigned a, unsigned b) { return a > b ? a : b; }
static inline unsigned sgp_min_u(unsigned a, unsigned b) { return a < b ? a : b; }
/* The largest power of two <= x (at least 1, at most 2^30). */
static inline unsigned sgp_pow2_floor(uint64_t x) {
  unsigned p = 1;
  while ((uint64_t)p * 2 <= x && p < (1u << 30))
    p *= 2;
  return p;
}

/* What resolving one plan reads: the template, the given constraints and the
 * problem, and the facts of the template both layouts and the policy use
 * (plan/resolve.c fills it). */
typedef struct sgp_input {
  const sg_template *t;
  const sg_constraints *c;
  const sg_problem *p;
  int row_dim, col_dim;       /* template dim indices of M (rows) and N (the reduced dim) */
  unsigned widest_elem;       /* the widest tensor's element: it limits the vector */
  unsigned read_bytes;        /* input bytes an element of the row costs (one per read) */
  unsigned narrowest_read, widest_read; /* the narrowest and widest read element */
  unsigned moved_bytes;       /* bytes read and written per element of the row */
  int causal;                 /* the template has a causal op */
  int online_chains;          /* its (max, exp, sum) chains */
  int exps_reused;            /* an op after a chain's sum uses its exps (softmax's div) */
  int ends_in_write;          /* its last op is a write */
} sgp_input;

/* The given constraints (plan/given.c), shared by both layouts. */
const sgp_tile *sgp_find_tile(const sgp_tile *list, int n, const char *dim);
/* WorkgroupConstraint(M, rows, axis) (wg_m, may be NULL) names a number of
 * rows and grid axis 0; else SG_ERR_CONSTRAINT at the constraint. */
sg_status sgp_check_rows_tile(const sgp_tile *wg_m, const char *M, sg_diag *diag);
/* pl->wave: HardwareConstraint(threads_per_wave) or the policy's, checked
 * against the target. */
sg_status sgp_resolve_wave(const sg_constraints *c, sg_plan *pl, sg_diag *diag);
/* *waves: the waves of HardwareConstraint(waves_per_block) (0 when not given),
 * checked against the target's block limit. */
sg_status sgp_given_waves(const sg_constraints *c, const sg_plan *pl, unsigned *waves,
                          sg_diag *diag);

/* The shape of a plan in each layout: wave, vector, cluster, threads per row,
 * block, chunks and row tiles; given constraints honoured or rejected, the
 * rest from the policy. pl->target, arch, dtypes, n and layout are set.
 * Rows layout: plan/rows.c; inner layout: plan/inner.c. */
sg_status sgp_resolve_rows(const sgp_input *in, sg_plan *pl, sg_diag *diag);
sg_status sgp_resolve_inner(const sgp_input *in, sg_plan *pl, sg_diag *diag);

#endif
