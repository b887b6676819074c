/* inner.c - the shape of a plan in the inner layout (plan/plan.h,
 * sgp_resolve_inner; called by plan/resolve.c for SG_LAYOUT_INNER).
 *
 * The kernel sees every tensor as [outer, N, inner] with a contiguous inner
 * dim: row m = o * inner + i. For coalescing, adjacent threads take adjacent
 * rows (adjacent i), so each thread owns one row: threads_per_row = 1 and the
 * vector is one element along N (N's elements are nstride apart). Reductions
 * are then thread-local (no shuffles, no shared memory). A row of at most the
 * target's register budget is held in registers; a longer one is read in tiles
 * of that budget, one pass over memory per reduction (max and sum fused into
 * one online pass where the template allows) plus one for the writes
 * (plan->row_tiles, the tiled rows of codegen), on every target.
 * Given constraints are honoured where they mean something here and rejected
 * with the reason where they ask for what the layout cannot do (a row split
 * over threads, vectors along N, staging); the block, when not given, is the
 * policy's (plan/policy.c). */
#include "plan/policy.h"
#include "target/target.h"

#define REJECT_AT(loc, ...) \
  sg_diag_at(diag, SG_ERR_CONSTRAINT, (loc).file, (loc).line, (loc).col, __VA_ARGS__)

sg_status sgp_resolve_inner(const sgp_input *in, sg_plan *pl, sg_diag *diag) {
  const sgh_target *tg = pl->target;
  const sg_template *t = in->t;
  const sg_constraints *c = in->c;
  int64_t n = in->p->n;
  const char *M = t->dims[t->tensors[0].shape.dims[0]], *N = t->dims[t->tensors[0].shape.dims[1]];
  sg_status st = sgp_resolve_wave(c, pl, diag);
  if (st)
    return st;
  for (int i = 0; i < c->nvec; i++)
    if (c->vec[i].tile != 1)
      return REJECT_AT(c->vec[i].loc, "vector_shapes: %s must be 1 in the inner layout (a thread "
                       "owns one row; its elements along %s are nstride apart)", c->vec[i].dim, N);
  const sgp_tile *wg_m = sgp_find_tile(c->workgroup, c->nworkgroup, M);
  const sgp_tile *wg_n = sgp_find_tile(c->workgroup, c->nworkgroup, N);
  const sgp_tile *wv_m = sgp_find_tile(c->wave, c->nwave, M);
  const sgp_tile *wv_n = sgp_find_tile(c->wave, c->nwave, N);
  if (wg_n && wg_n->tile != SGP_FULL && wg_n->tile != n)
    return REJECT_AT(wg_n->loc, "WorkgroupConstraint(%s, %lld): the inner layout keeps a row in "
                     "one thread, so a workgroup holds whole rows (%s = %lld)", N,
                     (long long)wg_n->tile, N, (long long)n);
  if (wv_n && wv_n->tile != SGP_FULL && wv_n->tile != n)
    return REJECT_AT(wv_n->loc, "WaveConstraint(%s, %lld): the inner layout keeps a row in one "
                     "thread, not split over waves", N, (long long)wv_n->tile);
  if (wv_m && wv_m->tile == SGP_FULL)
    return REJECT_AT(wv_m->loc, "WaveConstraint(%s, %s): %s is the run-time row count", M, M, M);
  if (wv_m && wv_m->tile != pl->wave)
    return REJECT_AT(wv_m->loc, "WaveConstraint(%s, %lld): in the inner layout a wave holds %u "
                     "rows (one a thread)", M, (long long)wv_m->tile, pl->wave);
  if (c->staging == 2)
    return REJECT_AT(c->pipeline_loc, "PipelineConstraint(staging=1): the inner layout does not "
                     "stage rows (a row is one thread's; long rows are read in tiles)");
  if ((st = sgp_check_rows_tile(wg_m, M, diag)))
    return st;

  /* block = rows per block: one thread a row */
  unsigned waves, block;
  if ((st = sgp_given_waves(c, pl, &waves, diag)))
    return st;
  block = waves * pl->wave;
  if (wg_m) {
    int64_t rows = wg_m->tile;
    if (block && rows != block)
      return REJECT_AT(wg_m->loc, "WorkgroupConstraint(%s, %lld): in the inner layout a block "
                       "holds one row a thread, %u (from HardwareConstraint)", M, (long long)rows,
                       block);
    if (rows > tg->max_block_threads || rows % pl->wave)
      return REJECT_AT(wg_m->loc, "WorkgroupConstraint(%s, %lld): in the inner layout rows per "
                       "workgroup are the block's threads: a multiple of the wave (%u) up to %u",
                       M, (long long)rows, pl->wave, tg->max_block_threads);
    block = (unsigned)rows;
  }
  pl->chosen.rows = !wg_m;
  if (!block) {
    block = sgp_policy_inner_block(pl);
    pl->chosen.waves = 1;
  }
  pl->block_threads = block;
  pl->waves_per_block = block / pl->wave;
  pl->rows_per_block = block;
  pl->threads_per_row = 1;
  pl->rows_per_wave = pl->wave;
  pl->waves_per_row = 1;
  pl->shuffle_steps = 0;
  pl->cluster = 1;
  pl->chosen.cluster = 1;
  pl->tile_n = n;
  pl->vec = 1;
  pl->vec_bytes = in->widest_elem;
  pl->chosen.vec = !c->nvec;
  pl->stage = 0;
  pl->chosen.stage = !c->staging;
  pl->masked = 0;
  /* the row in registers, or in tiles of the register budget */
  unsigned budget = tg->max_elems_per_thread;
  pl->chunks = (uint64_t)n <= budget ? (unsigned)n : budget;
  pl->row_tiles = (unsigned)(((uint64_t)n + pl->chunks - 1) / pl->chunks);
  pl->elems_per_thread = pl->chunks;
  return SG_OK;
}
