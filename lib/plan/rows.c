/* rows.c - the shape of a plan in the rows layout (plan/plan.h,
 * sgp_resolve_rows; called by plan/resolve.c for SG_LAYOUT_ROWS).
 *
 * A row of N contiguous elements is read by threads_per_row threads in
 * vectors of vec elements; rows_per_block rows share a block; a row longer
 * than a block's registers is split over a cluster of workgroups, staged in
 * shared memory, or read in tiles (targets that stream long rows). The steps,
 * in order, each honouring or rejecting what is given and taking the rest
 * from the policy (plan/policy.c): wave, vector, staging, cluster, threads per
 * row, block, chunks and the register budget. */
#include <stdio.h>

#include "plan/policy.h"
#include "target/target.h"

#define REJECT(...) sg_diag_set(diag, SG_ERR_CONSTRAINT, __VA_ARGS__)
#define REJECT_AT(loc, ...) \
  sg_diag_at(diag, SG_ERR_CONSTRAINT, (loc).file, (loc).line, (loc).col, __VA_ARGS__)

static unsigned log2u(unsigned x) {
  unsigned n = 0;
  while (x > 1) {
    x >>= 1;
    n++;
  }
  return n;
}

/* The constraints this layout reads, looked up once. */
typedef struct given {
  const char *M, *N;                /* the template's row and reduced dims */
  const sgp_tile *vm, *vn;          /* vector_shapes */
  const sgp_tile *wg_m, *wg_n;      /* WorkgroupConstraint */
  const sgp_tile *wv_m, *wv_n;      /* WaveConstraint */
} given;

/* Vector width along N: vector_shapes(N) or the policy's. */
static sg_status resolve_vector(const sgp_input *in, const given *g, sg_plan *pl,
                                sg_diag *diag) {
  int64_t n = in->p->n;
  unsigned esize = in->widest_elem;
  unsigned vlimit = sgp_vector_limit(pl);
  if (g->vm && g->vm->tile == SGP_FULL)
    return REJECT_AT(g->vm->loc,
                     "vector_shapes: %s: %s is the run-time row count; a vector "
                     "holds 1 row, or a power of two of rows as short as one vector's "
                     "share (packed rows)",
                     g->M, g->M);
  if (sgp_dynamic_n(pl)) { /* a range of N: full vectors, every row peeled */
    const sgp_tile *fixed = g->vn                                                ? g->vn
                            : g->wg_n && g->wg_n->tile != SGP_FULL                ? g->wg_n
                            : g->wv_n && g->wv_n->tile != SGP_FULL                ? g->wv_n
                                                                                  : NULL;
    if (fixed)
      return REJECT_AT(fixed->loc, "a range of N (%lld to %lld) takes no tile or vector of %s: "
                       "the kernel reads full vectors of any N", (long long)pl->n_min,
                       (long long)n, g->N);
    if (in->c->rows_in_flight == 2)
      return REJECT_AT(in->c->pipeline_loc, "PipelineConstraint(rows_in_flight=2): a range of "
                       "N peels each row, which prefetching does not");
    pl->vec = vlimit / esize;
    pl->peel = 1;
    pl->chosen.vec = 1;
  } else if (g->vn) {
    int64_t v = g->vn->tile == SGP_FULL ? n : g->vn->tile;
    if ((uint64_t)v * esize > vlimit)
      return REJECT_AT(g->vn->loc,
                       "vector_shapes: %s: %lld elements of %u bytes is %lld bytes, wider than "
                       "the %u-byte limit of a vector access",
                       g->N, (long long)v, esize, (long long)v * esize, vlimit);
    if (!sgp_is_pow2((uint64_t)v))
      return REJECT_AT(g->vn->loc, "vector_shapes: %s: %lld elements is not a power of two",
                       g->N, (long long)v);
    if (n % v)
      return REJECT_AT(g->vn->loc, "vector_shapes: %s: a vector of %lld elements does not "
                       "divide the row (%s = %lld)", g->N, (long long)v, g->N, (long long)n);
    pl->vec = (unsigned)v;
  } else {
    pl->vec = sgp_policy_vec(vlimit, esize, n);
    pl->chosen.vec = 1;
    /* full vectors for any N (peeled rows), unless the constraints fix how
     * the row splits (a tile of N: so far never for the odd N the policy
     * peels, which no power-of-two split divides) or prefetch it */
    const sg_constraints *c = in->c;
    int n_given = (g->wg_n && g->wg_n->tile != SGP_FULL && g->wg_n->tile != n) ||
                  (g->wv_n && g->wv_n->tile != SGP_FULL && g->wv_n->tile != n);
    if (pl->vec < vlimit / esize && !n_given && c->rows_in_flight != 2 &&
        sgp_policy_peel(in, pl, vlimit / esize, pl->vec)) {
      pl->vec = vlimit / esize;
      pl->peel = 1;
    }
  }
  pl->vec_bytes = pl->vec * esize;
  return SG_OK;
}

/* Staging: PipelineConstraint(staging) or the policy's; short rows flat
 * (plan->flat) where nothing given fixes the shape or the staging. */
static sg_status resolve_staging(const sgp_input *in, sg_plan *pl, sg_diag *diag) {
  const sg_constraints *c = in->c;
  pl->flat = !sgp_dynamic_n(pl) && sgp_policy_flat(in, pl);
  if (sgp_dynamic_n(pl) && c->staging == 2)
    return REJECT_AT(c->pipeline_loc, "PipelineConstraint(staging=1): a range of N keeps rows "
                     "in registers (or tiles them)");
  if (!c->staging) {
    pl->stage = !pl->flat && !sgp_dynamic_n(pl) && sgp_policy_stage(in, pl);
    pl->chosen.stage = 1;
    return SG_OK;
  }
  pl->stage = c->staging == 2;
  if (pl->stage && !sgh_can_stage(pl->target))
    return REJECT_AT(c->pipeline_loc, "PipelineConstraint(staging=1): %s has no "
                     "asynchronous copies to shared memory to stage rows with", pl->target->name);
  /* each read's vector is one 4, 8 or 16-byte copy */
  if (pl->stage && pl->vec * in->narrowest_read < 4)
    return REJECT_AT(c->pipeline_loc, "PipelineConstraint(staging=1): vectors of %u "
                     "elements are under the 4 bytes an asynchronous copy moves (N = %lld "
                     "allows no wider vector)", pl->vec, (long long)in->p->n);
  return SG_OK;
}

/* Workgroups per row (a thread-block cluster): WorkgroupConstraint(N, tile)
 * with tile < N asks for N / tile; the few-rows variant's split (c->split)
 * for that many; otherwise the policy's where the target has clusters. A
 * workgroup holds the given tile, else sgp_split_share's vectors (about
 * vectors / cluster), the last the rest (the policy's splits need not be
 * even). Sets pl->cluster and pl->tile_n. */
static sg_status resolve_cluster(const sgp_input *in, const given *g, sg_plan *pl,
                                 uint64_t vectors, sg_diag *diag) {
  const sgh_target *tg = pl->target;
  const sgp_tile *wg_n = g->wg_n;
  const char *N = g->N;
  int64_t n = in->p->n;
  int can = sgh_has_clusters(tg, pl->arch) &&
            (!sgp_dynamic_n(pl) || sgp_policy_range_cluster(pl)); /* a range: the policy's */
  pl->cluster = 1;
  int64_t given_tile = 0; /* a given tile is the share as given (it divides the row) */
  if (wg_n && wg_n->tile != SGP_FULL && wg_n->tile != n) {
    int64_t tile = wg_n->tile, count = n / tile;
    if (tile > n || n % tile)
      return REJECT_AT(wg_n->loc, "WorkgroupConstraint(%s, %lld): the tile does not divide the "
                       "row (%s = %lld)", N, (long long)tile, N, (long long)n);
    if (!can)
      return REJECT_AT(wg_n->loc, "WorkgroupConstraint(%s, %lld): splitting a row over %lld "
                       "workgroups needs thread-block clusters, which %s %s lacks (NVIDIA "
                       "sm_90 and later have them)", N, (long long)tile, (long long)count,
                       tg->name, pl->arch);
    if (!sgp_is_pow2((uint64_t)count) || (uint64_t)count > sgh_largest_cluster(tg))
      return REJECT_AT(wg_n->loc,
                       "WorkgroupConstraint(%s, %lld): %lld workgroups per row; a "
                       "cluster must be a power of two up to %u",
                       N, (long long)tile, (long long)count, sgh_largest_cluster(tg));
    if (tile % pl->vec)
      return REJECT_AT(wg_n->loc, "WorkgroupConstraint(%s, %lld): a vector of %u elements does "
                       "not divide the tile", N, (long long)tile, pl->vec);
    pl->cluster = (unsigned)count;
    given_tile = tile;
  } else if (in->c->split && !wg_n && (can || in->c->split_grid)) {
    unsigned most = in->c->split_grid ? SGP_MAX_GRID_SPLIT : sgh_largest_cluster(tg);
    if (!sgp_split_ok(vectors, in->c->split) || in->c->split > most)
      return REJECT("a row of %llu vectors does not split over %u workgroups",
                    (unsigned long long)vectors, in->c->split);
    pl->cluster = in->c->split;
    pl->grid_split = in->c->split_grid; /* separate blocks of the grid, not a cluster */
  } else if (!wg_n && can) {
    /* the threads a row may have, as far as the given constraints say */
    const sg_constraints *c = in->c;
    uint64_t threads = tg->max_block_threads, rows = g->wg_m ? (uint64_t)g->wg_m->tile : 1;
    if (c->waves_per_block[0])
      threads = (uint64_t)c->waves_per_block[0] * c->waves_per_block[1] *
                c->waves_per_block[2] * (c->threads_per_wave ? c->threads_per_wave : 32);
    threads = sgp_pow2_floor(threads / rows ? threads / rows : 1);
    /* the policy sees the vectors rounded up to a multiple of every cluster
     * (the extra ones masked), then the split is narrowed to one whose last
     * workgroup holds a vector */
    unsigned most = sgh_largest_cluster(tg);
    uint64_t even = (vectors + most - 1) / most * most;
    pl->cluster = sgp_policy_cluster(in, pl, even, rows, threads);
    while (pl->cluster > 1 && !sgp_split_ok(vectors, pl->cluster))
      pl->cluster /= 2;
    pl->chosen.cluster = 1;
  }
  pl->tile_n =
      given_tile ? given_tile : (int64_t)(sgp_split_share(pl, vectors, pl->cluster) * pl->vec);
  return SG_OK;
}

/* Threads per row T from whichever constraints fix it, else the policy's
 * within what is given; *waves: the block's waves when given (else 0);
 * *t_from: what fixed or limited T (NULL: nothing given did). */
static sg_status resolve_threads(const sgp_input *in, const given *g, sg_plan *pl,
                                 unsigned *T_out, unsigned *waves_out, const char **t_from_out,
                                 sg_diag *diag) {
  const sg_constraints *c = in->c;
  const sgh_target *tg = pl->target;
  const sgp_tile *wg_m = g->wg_m, *wv_m = g->wv_m, *wv_n = g->wv_n;
  const char *M = g->M, *N = g->N;
  int64_t n = pl->tile_n; /* the columns one workgroup holds */
  uint64_t vectors = (uint64_t)n / pl->vec;
  unsigned waves, rows = wg_m ? (unsigned)wg_m->tile : 0, T = 0;
  const char *t_from = NULL;
  sg_status st = sgp_given_waves(c, pl, &waves, diag);
  if (st)
    return st;
  if (rows > tg->max_block_threads)
    return REJECT_AT(wg_m->loc, "WorkgroupConstraint(%s, %u): more rows per workgroup than the "
                     "%u threads a block may have", M, rows, tg->max_block_threads);
  if (waves && rows) {
    if ((waves * pl->wave) % rows)
      return REJECT_AT(wg_m->loc, "WorkgroupConstraint(%s, %u): %u rows do not divide the "
                       "block's %u threads", M, rows, rows, waves * pl->wave);
    T = waves * pl->wave / rows;
    t_from = "HardwareConstraint and WorkgroupConstraint";
  }
  if (wv_m && wv_m->tile == SGP_FULL)
    return REJECT_AT(wv_m->loc, "WaveConstraint(%s, %s): %s is the run-time row count", M, M, M);
  if (wv_m && wv_m->tile > 1) {
    if (wv_m->tile > pl->wave || pl->wave % wv_m->tile)
      return REJECT_AT(wv_m->loc, "WaveConstraint(%s, %lld): rows per wave must divide the wave "
                       "size %u", M, (long long)wv_m->tile, pl->wave);
    unsigned t = pl->wave / (unsigned)wv_m->tile;
    if (T && T != t)
      return REJECT_AT(wv_m->loc, "WaveConstraint(%s, %lld) means %u threads per row, but %s "
                       "give %u", M, (long long)wv_m->tile, t, t_from, T);
    T = t;
    t_from = "WaveConstraint(M)";
  }
  if (wv_n && wv_n->tile != SGP_FULL && wv_n->tile != n) {
    if (n % wv_n->tile)
      return REJECT_AT(wv_n->loc, "WaveConstraint(%s, %lld): the tile does not divide the row "
                       "(%s = %lld)", N, (long long)wv_n->tile, N, (long long)n);
    uint64_t t = (uint64_t)pl->wave * (uint64_t)(n / wv_n->tile);
    if (t > tg->max_block_threads)
      return REJECT_AT(wv_n->loc, "WaveConstraint(%s, %lld): %lld waves per row need %llu "
                       "threads, more than the %u a block may have", N, (long long)wv_n->tile,
                       (long long)(n / wv_n->tile), (unsigned long long)t, tg->max_block_threads);
    if (T && T != t)
      return REJECT_AT(wv_n->loc, "WaveConstraint(%s, %lld) means %llu threads per row, but %s "
                       "give %u", N, (long long)wv_n->tile, (unsigned long long)t, t_from, T);
    T = (unsigned)t;
    t_from = "WaveConstraint(N)";
  }
  if (!T) { /* the policy's, within what is given */
    unsigned cap = tg->max_block_threads;
    if (waves) { /* T must divide the block: its largest power-of-two divisor */
      cap = waves * pl->wave / (rows ? rows : 1);
      cap &= ~cap + 1;
      t_from = rows ? "HardwareConstraint and WorkgroupConstraint" : "HardwareConstraint";
    } else if (rows) {
      cap = tg->max_block_threads / rows;
      t_from = "WorkgroupConstraint(M)";
    }
    if (wv_n && pl->wave < cap) { /* WaveConstraint(N, N): a row within one wave */
      cap = pl->wave;
      t_from = "WaveConstraint(N, N)";
    }
    if (cap >= tg->max_block_threads)
      t_from = NULL; /* nothing given limits the threads per row */
    T = pl->flat ? sgp_policy_flat_threads(in, pl)
                 : sgp_policy_threads_per_row(in, pl, vectors, sgp_pow2_floor(cap));
    if (rows && !waves && rows * T < pl->wave && pl->wave % rows == 0)
      T = pl->wave / rows; /* fill at least one wave with the given rows */
    if (wv_m && wv_m->tile == 1 && T < pl->wave)
      T = pl->wave; /* one row per wave at least a wave wide */
    pl->chosen.rows = !rows;
  }
  if (wv_m && wv_m->tile == 1 && T < pl->wave)
    return REJECT_AT(wv_m->loc, "WaveConstraint(%s, 1) means a wave per row, but %s give %u "
                     "threads per row (a wave has %u)", M, t_from, T, pl->wave);
  if (wv_n && (wv_n->tile == SGP_FULL || wv_n->tile == n) && T > pl->wave)
    return REJECT_AT(wv_n->loc, "WaveConstraint(%s, %s) means a row within one wave, but %s "
                     "give %u threads per row", N, N, t_from, T);
  if (!sgp_is_pow2(T))
    return REJECT("threads per row (%u, from %s) must be a power of two", T, t_from);
  *T_out = T;
  *waves_out = waves;
  *t_from_out = t_from;
  return SG_OK;
}

/* The block (given waves, given rows x T, or the policy's) and rows per block. */
static sg_status resolve_block(const sgp_input *in, const given *g, sg_plan *pl, unsigned T,
                               unsigned waves, const char *t_from, sg_diag *diag) {
  const sgh_target *tg = pl->target;
  unsigned rows = g->wg_m ? (unsigned)g->wg_m->tile : 0;
  if (!waves) {
    unsigned b = rows       ? rows * T
                 : pl->flat ? sgp_policy_flat_block(in, pl, T)
                            : sgp_policy_block_threads(pl, T);
    if (!rows && b > tg->max_block_threads && T <= tg->max_block_threads)
      b = tg->max_block_threads; /* the host: a block is one thread */
    if (b % pl->wave)
      b = (b / pl->wave + 1) * pl->wave;
    if (b > tg->max_block_threads)
      return REJECT("%u rows per workgroup of %u threads is %u threads, more than the %u %s "
                    "allows", rows, T, b, tg->max_block_threads, tg->name);
    waves = b / pl->wave;
    pl->chosen.waves = 1;
  }
  pl->waves_per_block = waves;
  pl->block_threads = waves * pl->wave;
  if (pl->block_threads % T && !pl->chosen.waves)
    return REJECT_AT(in->c->hw_loc, "threads per row (%u, from %s) do not divide the block's %u "
                     "threads (%u waves, from HardwareConstraint)", T,
                     t_from ? t_from : "auto-configuration", pl->block_threads, waves);
  if (pl->block_threads % T)
    return REJECT("threads per row (%u, from %s) do not divide the block's %u threads", T,
                  t_from ? t_from : "auto-configuration", pl->block_threads);
  if (rows && rows * T != pl->block_threads)
    return REJECT_AT(g->wg_m->loc, "WorkgroupConstraint(%s, %u): %u rows of %u threads do not "
                     "fill the block's %u threads", g->M, rows, rows, T, pl->block_threads);
  pl->rows_per_block = pl->block_threads / T * pl->thread_rows;
  pl->threads_per_row = T;
  pl->rows_per_wave = T < pl->wave ? pl->wave / T : 1;
  pl->waves_per_row = T > pl->wave ? T / pl->wave : 1;
  pl->shuffle_steps = log2u(T < pl->wave ? T : pl->wave);
  return SG_OK;
}

/* Chunks per thread, row tiles, and the register budget. */
static sg_status resolve_chunks(const sgp_input *in, sg_plan *pl, const char *t_from,
                                int cluster_given, sg_diag *diag) {
  const sgh_target *tg = pl->target;
  unsigned T = pl->threads_per_row;
  int64_t n = pl->tile_n;
  uint64_t per_pass = (uint64_t)T * pl->vec;
  pl->chunks = (unsigned)(((uint64_t)n + per_pass - 1) / per_pass);
  pl->elems_per_thread = pl->chunks * pl->vec;
  pl->masked = pl->peel || (uint64_t)n % per_pass != 0 || n * pl->cluster != pl->n ||
               sgp_dynamic_n(pl);
  pl->row_tiles = 1;
  if (pl->stage && pl->chunks > SGP_STAGE_MAX_CHUNKS)
    return REJECT("a staged row of %lld columns per workgroup needs %u vector accesses per "
                  "thread with %u threads per row (from %s), over the %u a pass unrolls: "
                  "allow more threads per row or split the row over a cluster", (long long)n,
                  pl->chunks, T, t_from ? t_from : "auto-configuration", SGP_STAGE_MAX_CHUNKS);
  int shape_given = t_from != NULL || cluster_given;
  if (!pl->stage && pl->elems_per_thread > tg->max_elems_per_thread &&
      sgp_policy_tiles(pl, shape_given)) {
    /* tiles of the register budget; one pass over the row per reduction */
    unsigned per_tile = sgp_policy_tile_chunks(pl);
    pl->row_tiles = (pl->chunks + per_tile - 1) / per_tile;
    pl->chunks = per_tile;
    pl->elems_per_thread = per_tile * pl->vec;
  }
  if (pl->stage || pl->elems_per_thread <= tg->max_elems_per_thread)
    return SG_OK;
  char row[128]; /* n is the columns of one workgroup here, not the row */
  if (pl->cluster > 1)
    snprintf(row, sizeof row, "a row of %lld split over %u workgroups (%lld columns each)",
             (long long)in->p->n, pl->cluster, (long long)n);
  else
    snprintf(row, sizeof row, "a row of %lld", (long long)n);
  if (T < tg->max_block_threads)
    return REJECT("%s needs %u values per thread with %u threads per row (from %s), over the "
                  "register budget of %u on %s: allow more threads per row (up to %u a block)",
                  row, pl->elems_per_thread, T, t_from ? t_from : "auto-configuration",
                  tg->max_elems_per_thread, tg->name, tg->max_block_threads);
  if (!sgh_has_clusters(tg, pl->arch))
    return REJECT("%s needs %u values per thread even with %u threads per row (a whole block), "
                  "over the register budget of %u on %s: rows this long need thread-block "
                  "clusters, which %s %s lacks", row, pl->elems_per_thread, T,
                  tg->max_elems_per_thread, tg->name, tg->name, pl->arch);
  return REJECT("%s needs %u values per thread even with %u threads per row (a whole block), "
                "over the register budget of %u on %s: %s (a cluster has at most %u)", row,
                pl->elems_per_thread, T, tg->max_elems_per_thread, tg->name,
                pl->cluster < tg->max_cluster ? "split the row over more workgroups"
                                              : "the row is too long even for the largest cluster",
                tg->max_cluster);
}

/* Packed rows: vector_shapes(M: p) or the policy's pack (1: none), once the
 * rest of the shape is resolved: p consecutive rows of one vector each
 * become one vector of p x N elements (plan->pack), p times the rows a block.
 * A given p needs a row that is one vector of a thread (no split, no
 * staging, no tiles, no peeling), whose p rows fit one vector access. */
static sg_status resolve_pack(const sgp_input *in, const given *g, sg_plan *pl, sg_diag *diag) {
  int64_t n = in->p->n, p = g->vm ? g->vm->tile : (int64_t)sgp_policy_pack(in, pl);
  unsigned vlimit = sgp_vector_limit(pl);
  pl->pack = 1;
  if (g->vm && p < 1)
    return REJECT_AT(g->vm->loc, "vector_shapes: %s: %lld rows a vector; a vector holds 1 row, "
                     "or a power of two of rows (packed rows)", g->M, (long long)p);
  if (p <= 1)
    return SG_OK;
  const char *why = !sgp_is_pow2((uint64_t)p)  ? "is not a power of two"
                    : sgp_dynamic_n(pl)        ? "needs one N, not a range"
                    : in->causal               ? "needs a template without a causal op"
                    : pl->vec != n || pl->peel ? "needs the row to be one vector"
                    : g->wg_m || g->wv_m       ? "sets the rows a workgroup and a wave "
                                                 "itself (no WorkgroupConstraint or "
                                                 "WaveConstraint of M)"
                    : pl->threads_per_row != 1 || pl->cluster != 1 || pl->stage || pl->flat
                        ? "needs a thread a row (no split over threads, workgroups or "
                          "shared memory)"
                    : (uint64_t)p > vlimit || (uint64_t)p * pl->vec_bytes > vlimit
                        ? "is wider than a vector access"
                        : NULL;
  for (int i = 0; !why && i < in->t->ntensors; i++)
    if (in->t->tensors[i].repeat)
      why = "needs tensors whose rows do not repeat";
  if (why && !g->vm) /* not the policy's to ask: rows one a vector */
    return SG_OK;
  if (why)
    return REJECT_AT(g->vm->loc,
                     "vector_shapes: %s: %lld rows a vector (packed rows) %s (N = "
                     "%lld, %u-byte vectors of a row, %u bytes an access at most)",
                     g->M, (long long)p, why, (long long)n, pl->vec_bytes, vlimit);
  if (in->c->online == 2)
    return REJECT_AT(in->c->pipeline_loc,
                     "PipelineConstraint(online=1): packed rows (%lld a "
                     "vector) reduce within the vector, without online pairs",
                     (long long)p);
  pl->pack = (unsigned)p;
  pl->chosen.pack = !g->vm;
  pl->vec *= pl->pack;
  pl->vec_bytes *= pl->pack;
  pl->rows_per_block *= pl->pack;
  pl->rows_per_wave *= pl->pack;
  pl->elems_per_thread = pl->vec;
  return SG_OK;
}

/* Rows a thread of flat rows computes in each row block: PipelineConstraint(
 * thread_rows) or the policy's (sgp_policy_flat_thread_rows); 1 elsewhere. */
static sg_status resolve_thread_rows(const sgp_input *in, sg_plan *pl, unsigned T, sg_diag *diag) {
  const sg_constraints *c = in->c;
  pl->thread_rows = 1;
  if (c->thread_rows > 1 && !pl->flat)
    return REJECT_AT(c->pipeline_loc,
                     "PipelineConstraint(thread_rows=%u): several rows a "
                     "thread are for flat rows (rows of at most %u bytes whose widest vector "
                     "is at most %u bytes, nothing given that fixes the shape or the staging); "
                     "N = %lld is not flat here",
                     c->thread_rows, SGP_FLAT_ROW_BYTES, SGP_FLAT_MAX_VECTOR_BYTES,
                     (long long)in->p->n);
  if (!pl->flat)
    return SG_OK;
  pl->thread_rows = c->thread_rows ? c->thread_rows : sgp_policy_flat_thread_rows(in, pl, T);
  pl->chosen.thread_rows = !c->thread_rows;
  return SG_OK;
}

sg_status sgp_resolve_rows(const sgp_input *in, sg_plan *pl, sg_diag *diag) {
  const sg_constraints *c = in->c;
  given g = {.M = in->t->dims[in->row_dim], .N = in->t->dims[in->col_dim]};
  g.vm = sgp_find_tile(c->vec, c->nvec, g.M);
  g.vn = sgp_find_tile(c->vec, c->nvec, g.N);
  g.wg_m = sgp_find_tile(c->workgroup, c->nworkgroup, g.M);
  g.wg_n = sgp_find_tile(c->workgroup, c->nworkgroup, g.N);
  g.wv_m = sgp_find_tile(c->wave, c->nwave, g.M);
  g.wv_n = sgp_find_tile(c->wave, c->nwave, g.N);
  unsigned T = 0, waves = 0;
  const char *t_from = NULL;
  sg_status st;
  if ((st = sgp_resolve_wave(c, pl, diag)) || (st = resolve_vector(in, &g, pl, diag)) ||
      (st = sgp_check_rows_tile(g.wg_m, g.M, diag)) || (st = resolve_staging(in, pl, diag)) ||
      (st = resolve_cluster(in, &g, pl, sgp_row_vectors(pl), diag)) ||
      (st = resolve_threads(in, &g, pl, &T, &waves, &t_from, diag)) ||
      (st = resolve_thread_rows(in, pl, T, diag)) ||
      (st = resolve_block(in, &g, pl, T, waves, t_from, diag)))
    return st;
  int cluster_given = g.wg_n && g.wg_n->tile != SGP_FULL && g.wg_n->tile != in->p->n;
  if ((st = resolve_chunks(in, pl, t_from, cluster_given, diag)))
    return st;
  return resolve_pack(in, &g, pl, diag);
}
