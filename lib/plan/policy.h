/* plan/policy.h - every automatic choice of a plan, in one place (plan/policy.c).
 *
 * A plan's numbers are given by constraints or chosen here; the layouts
 * (plan/rows.c, plan/inner.c) and plan/resolve.c validate what is given and
 * ask the policy for the rest, in this order: wave, vector, staging, cluster,
 * threads per row, block, then (once the shape is known) rows in flight,
 * online pairs, staged rows copied ahead and blocks a multiprocessor. Each
 * function's comment in policy.c cites the measurement behind its numbers
 * (tools/bench/RESULTS.md holds the runs). */
#ifndef SG_INTERNAL_PLAN_POLICY_H
#define SG_INTERNAL_PLAN_POLICY_H

#include "plan/plan.h"

/* The most vector accesses a staged pass unrolls per thread: a limit of
 * codegen that the policy chooses within and plan/rows.c enforces on given
 * constraints. */
#define SGP_STAGE_MAX_CHUNKS 64

/* Flat rows (sgp_policy_flat, where these are measured): rows of at most
 * SGP_FLAT_ROW_BYTES whose widest dividing vector is at most
 * SGP_FLAT_MAX_VECTOR_BYTES; here for plan/rows.c's message on given
 * constraints. */
#define SGP_FLAT_ROW_BYTES 512
#define SGP_FLAT_MAX_VECTOR_BYTES 8

/* Does a row of `vectors` vector accesses split over `cluster` workgroups of
 * ceil(vectors / cluster) vectors each, the last holding the rest (at least
 * one)? sgp_split_share: the vectors each workgroup of pl's split holds (for
 * rows not peeled rounded up to the row start's 128-byte alignment where the
 * last still holds one: policy.c); where sgp_split_ok holds, the last
 * workgroup of that share holds a vector too. */
int sgp_split_ok(uint64_t vectors, unsigned cluster);
uint64_t sgp_split_share(const sg_plan *pl, uint64_t vectors, unsigned cluster);

/* The vector accesses that cover a row: N / vec, or for peeled rows enough
 * for any shift h < vec of the row's columns, or 1 for packed rows. */
uint64_t sgp_row_vectors(const sg_plan *pl);

/* Threads per wave on pl's target and arch. */
unsigned sgp_policy_wave(const sg_plan *pl);

/* The widest vector access of pl's target and arch, in bytes (16 unless the
 * target says). */
unsigned sgp_vector_limit(const sg_plan *pl);

/* Elements per vector access: the widest vector of at most vlimit bytes of
 * esize-byte elements that divides n. */
unsigned sgp_policy_vec(unsigned vlimit, unsigned esize, int64_t n);

/* Full vectors of `full` elements for a row they do not divide (plan->peel),
 * rather than the `narrow` elements (the widest vector dividing N)? pl: target
 * and arch set. */
int sgp_policy_peel(const sgp_input *in, const sg_plan *pl, unsigned full, unsigned narrow);

/* Short rows read and written as contiguous row blocks (plan->flat)? Not
 * where a constraint fixes the shape or the staging. pl: vec and peel set. */
int sgp_policy_flat(const sgp_input *in, const sg_plan *pl);
/* A flat plan's threads per row, rows a thread (plan->thread_rows) and its
 * block's threads (pl->thread_rows set). */
unsigned sgp_policy_flat_threads(const sgp_input *in, const sg_plan *pl);
unsigned sgp_policy_flat_thread_rows(const sgp_input *in, const sg_plan *pl,
                                     unsigned threads_per_row);
unsigned sgp_policy_flat_block(const sgp_input *in, const sg_plan *pl, unsigned threads_per_row);
/* Blocks a multiprocessor asked of the register allocator for a flat plan
 * whose threads hold more than the usual share of a row, or very little of
 * one 16-bit read (0: none asked). */
unsigned sgp_policy_flat_blocks_per_sm(const sgp_input *in, const sg_plan *pl);
/* The flat plan's row_step (plan/plan.h): the odd K whose reads take the
 * fewest shared-memory wavefronts in the policy's bank model, 1 for none. */
unsigned sgp_policy_flat_row_step(const sgp_input *in, const sg_plan *pl);
/* Bytes of a flat block's image of a tensor of esize-byte elements, and of
 * all its images (the launch's dynamic shared memory). */
uint64_t sgp_flat_image_bytes(const sg_plan *pl, unsigned esize);
uint64_t sgp_flat_bytes(const sg_template *t, const sg_plan *pl);
/* Rows a vector (packed rows, plan->pack; 1: none) for a plan whose shape is
 * resolved; plan/rows.c checks that the plan can pack them. */
unsigned sgp_policy_pack(const sgp_input *in, const sg_plan *pl);
/* Stage rows in shared memory? pl: target, arch, vec and peel set. */
int sgp_policy_stage(const sgp_input *in, const sg_plan *pl);

/* Workgroups per row (a cluster) for a row of `vectors` vector accesses, with
 * `rows` rows a workgroup (1 unless given) and at most `threads` threads a row
 * (what the given constraints allow, a power of two); pl: target, arch, vec and
 * stage set, the target has clusters. */
unsigned sgp_policy_cluster(const sgp_input *in, const sg_plan *pl, uint64_t vectors,
                            uint64_t rows, uint64_t threads);

/* Threads per row for a workgroup's `vectors` vector accesses, at most cap
 * (a power of two); pl: wave, vec, vec_bytes and stage set. */
unsigned sgp_policy_threads_per_row(const sgp_input *in, const sg_plan *pl, uint64_t vectors,
                                    unsigned cap);

/* Read a row longer than the register budget in tiles (one pass over memory
 * per reduction) rather than reject it? shape_given: constraints fixed the
 * threads per row or the cluster. pl: the shape resolved. */
int sgp_policy_tiles(const sg_plan *pl, int shape_given);
/* Chunks a thread holds per tile of a tiled row. */
unsigned sgp_policy_tile_chunks(const sg_plan *pl);

/* Threads a block has for rows of threads_per_row threads (no rows given;
 * pl: the row's share, vector and staging resolved; not flat). */
unsigned sgp_policy_block_threads(const sg_plan *pl, unsigned threads_per_row);

/* Rows in flight 2 (prefetch the next row block, a persistent grid) for a
 * registers plan with its shape resolved? */
int sgp_policy_prefetch(const sgp_input *in, const sg_plan *pl);

/* (max, sum) chains as online pairs? The shape and staging are resolved. */
int sgp_policy_online(const sg_plan *pl);

/* Staged rows copied ahead (rows in flight 2)? pl->online is resolved. */
int sgp_policy_stage_ahead(const sgp_input *in, const sg_plan *pl);
/* 1: a cluster plan exchanges its partials through transaction barriers,
 * 0: through the cluster barrier (codegen/reduce.c); a few-rows variant's
 * answer holds once its max_rows and alone_smem are set. */
int sgp_policy_exchange_bars(const sg_plan *pl);

/* Blocks a multiprocessor asked of the register allocator for a staged plan
 * whose shared memory is resolved (0: no request). */
unsigned sgp_policy_blocks_per_sm(const sg_plan *pl);
/* Staged or flat: the blocks whose shared memory fits a multiprocessor (at least 1). */
unsigned sgp_smem_blocks_per_sm(const sg_plan *pl);
/* Staged rows that hold their exps: at most the blocks whose threads' held
 * values fit the registers (0: no request). */
unsigned sgp_policy_hold_blocks_per_sm(const sg_plan *pl);
/* The most values a thread of pl's blocks may hold (hold=1), and whether pl's fit. */
unsigned sgp_policy_hold_values(const sg_plan *pl);
int sgp_policy_hold_fits(const sg_plan *pl);
/* Whether staged rows that can hold their exps (sgp_policy_hold_fits) hold them
 * unasked: peeled 16-bit rows one a block, not over a cluster, of few values a
 * thread, in templates whose writes use the exps (policy.c, as measured). */
int sgp_policy_hold(const sgp_input *in, const sg_plan *pl);
/* Peeled rows in registers: blocks a multiprocessor to ask for (0: none). */
unsigned sgp_policy_peeled_blocks_per_sm(const sg_plan *pl);
/* Rows in registers, peeled or over a cluster at more than 32 values a
 * thread (cluster_registers): blocks a multiprocessor to ask for (0: none). */
unsigned sgp_policy_registers_blocks_per_sm(const sgp_input *in, const sg_plan *pl);
/* A range of N (pl->n its largest): may its rows split over a cluster? */
int sgp_policy_range_cluster(const sg_plan *pl);

/* Groups a staged thread's chunks land in (each waited for before its first read). */
unsigned sgp_policy_stage_groups(const sg_plan *pl);

/* Bytes of an input whose rows repeat above which row blocks go head by head. */
uint64_t sgp_policy_head_order_bytes(const sg_plan *pl);

/* The inner layout's block (one thread a row), no constraint given. */
unsigned sgp_policy_inner_block(const sg_plan *pl);

/* A few-rows variant's split (sgp_policy_few_rows). */
typedef struct sgp_few {
  unsigned cluster;  /* workgroups per row */
  unsigned threads;  /* a block's threads (a whole number of waves) */
  unsigned max_rows; /* the variant is launched for M up to this */
  unsigned rows;     /* rows a block (0: one) */
  int staged;        /* its rows staged in shared memory */
  int alone;         /* each block alone on its multiprocessor (sgp_policy_alone_smem) */
  int plain;         /* the plan in registers: a flat plan's, or a staged peeled plan's
                        (the rest unused) */
  int grid;          /* the row's workgroups are blocks of the grid, not a cluster
                        (plan->grid_split) */
  int elements;      /* a row's elements read one a piece: no vectors, no peeling */
  int one_row;       /* the flat plan with one row a thread (plan->thread_rows 1), not
                        prefetching (the rest unused) */
} sgp_few;

/* The few-rows variants pl (resolved) should get (plan/plan.h: few), in
 * increasing max_rows: their count (0 to SGP_MAX_FEW) and splits in out[]. */
unsigned sgp_policy_few_rows(const sgp_input *in, const sg_plan *pl, sgp_few out[SGP_MAX_FEW]);

/* Dynamic shared memory to launch a block of staged plan pl with so that it
 * is alone on its multiprocessor (0: it is already). */
unsigned sgp_policy_alone_smem(const sg_plan *pl);

/* Bytes of shared memory a staged workgroup's rows take. */
uint64_t sgp_staged_bytes(const sgp_input *in, const sg_plan *pl);

#endif
