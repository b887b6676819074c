/* resolve.c - constraints + template + problem -> plan (constraints/constraints.h).
 *
 * Given constraints are honoured or rejected with the rule they break; what is
 * not given is chosen by choose_defaults below, the one place that holds
 * softgen's auto-configuration. Every number of the plan is printable with
 * sg_plan_print (softgen --print-config). */
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "target/target.h"

typedef struct resolver {
  const sg_template *t;
  const sg_constraints *c;
  const sg_problem *p;
  sg_plan *plan;
  sg_diag *diag;
  int row_dim, col_dim; /* template dim indices of M (rows) and N (the reduced dim) */
  sg_status diag_status; /* set by helpers that report through the resolver */
} resolver;

#define REJECT(...) sg_diag_set(r->diag, SG_ERR_CONSTRAINT, __VA_ARGS__)
#define REJECT_AT(loc, ...) \
  sg_diag_at(r->diag, SG_ERR_CONSTRAINT, (loc).file, (loc).line, (loc).col, __VA_ARGS__)

static int is_pow2(uint64_t x) { return x && !(x & (x - 1)); }
static unsigned max_u(unsigned a, unsigned b) { return a > b ? a : b; }
static unsigned pow2_floor(uint64_t x) {
  unsigned p = 1;
  while ((uint64_t)p * 2 <= x && p < (1u << 30))
    p *= 2;
  return p;
}
static unsigned log2u(unsigned x) {
  unsigned n = 0;
  while (x > 1) {
    x >>= 1;
    n++;
  }
  return n;
}

static sg_dtype tensor_dtype(const resolver *r, int i) {
  return sgt_tensor_dtype(r->t, i, r->p->dtype, r->p->out_dtype_set ? r->p->out_dtype : r->p->dtype);
}

/* The element size the vector width is limited by: the widest tensor. */
static unsigned widest_elem(const resolver *r) {
  unsigned w = 0;
  for (int i = 0; i < r->t->ntensors; i++) {
    unsigned s = sg_dtype_size(tensor_dtype(r, i));
    w = s > w ? s : w;
  }
  return w;
}

/* The template's online (max, exp, sum) chains. */
static int online_chains(const sg_template *t) {
  int k = 0;
  for (int i = 0; i < t->nops; i++) {
    int e, s;
    k += sgt_online_chain(t, i, &e, &s);
  }
  return k;
}

/* The template must be row-wise: 2-D tensors [M, N] (M, N: the dims of the
 * first output) and reductions over N; an input may be [R, N] (its rows
 * repeat: row m reads row m mod R). */
static sg_status check_template(resolver *r) {
  const sg_template *t = r->t;
  int first = 0;
  while (first < t->ntensors && !t->tensors[first].is_output)
    first++;
  if (first == t->ntensors) /* the parser rejects such templates; no dim to index by */
    return sg_diag_set(r->diag, SG_ERR_CONSTRAINT, "%s: kernel '%s' has no output tensor: "
                       "softgen generates kernels that write [ROWS, COLS] outputs", t->file,
                       t->name);
  r->row_dim = t->tensors[first].shape.ndims == 2 ? t->tensors[first].shape.dims[0] : -1;
  r->col_dim = t->tensors[first].shape.ndims == 2 ? t->tensors[first].shape.dims[1] : -1;
  for (int i = 0; i < t->ntensors; i++) {
    const sgt_shape *s = &t->tensors[i].shape;
    int rows_ok = s->ndims == 2 && (s->dims[0] == r->row_dim ||
                                    (t->tensors[i].repeat && s->dims[0] != r->col_dim));
    if (!rows_ok || s->dims[1] != r->col_dim)
      return sg_diag_at(r->diag, SG_ERR_CONSTRAINT, t->file, t->tensors[i].line,
                        t->tensors[i].col,
                        "tensor '%s' must have shape [ROWS, COLS] like the first output (an "
                        "input may have other ROWS, which repeat): softgen generates row-wise "
                        "kernels",
                        t->tensors[i].name);
  }
  for (int i = 0; i < t->nops; i++) {
    const sgt_op *op = &t->ops[i];
    if (sgt_opcode_is_reduction(op->code) && op->dim != r->col_dim)
      return sg_diag_at(r->diag, SG_ERR_CONSTRAINT, t->file, op->line, op->col,
                        "%s over %s: softgen reduces along the last dim (%s) only",
                        sgt_opcode_name(op->code), t->dims[op->dim], t->dims[r->col_dim]);
    if (op->shape.ndims == 1 && op->shape.dims[0] == r->col_dim)
      return sg_diag_at(r->diag, SG_ERR_CONSTRAINT, t->file, op->line, op->col,
                        "value '%s' has shape [%s]: per-column values are not supported",
                        op->name, t->dims[op->shape.dims[0]]);
  }
  return SG_OK;
}

static const sgp_tile *find_tile(const sgp_tile *list, int n, const char *dim) {
  for (int i = 0; i < n; i++)
    if (strcmp(list[i].dim, dim) == 0)
      return &list[i];
  return NULL;
}

static sg_status check_dims_known(resolver *r, const sgp_tile *list, int n, const char *what) {
  for (int i = 0; i < n; i++) {
    int known = 0;
    for (int d = 0; d < r->t->ndims; d++)
      known |= strcmp(r->t->dims[d], list[i].dim) == 0;
    if (!known)
      return REJECT_AT(list[i].loc, "%s names dim '%s', which template '%s' does not have",
                       what, list[i].dim, r->t->name);
  }
  return SG_OK;
}

static int has_op(const sg_template *t, sgt_opcode code) {
  for (int i = 0; i < t->nops; i++)
    if (t->ops[i].code == code)
      return 1;
  return 0;
}

/* softgen's auto-configuration: the threads per row a row of `vectors`
 * vector accesses of `vec_bytes` gets when no constraint fixes it (measured on
 * an H200, tools/bench/README.md):
 *  - short rows (at most 512 bytes): one access per thread, so that a wave
 *    holds several rows and every thread has its 16 bytes in flight; two
 *    (SHORT_ROW_CAUSAL_ACCESSES) for templates with a causal mask and 8
 *    elements an access (16-bit): their per-row remainder and limit, spread
 *    over twice the elements, measured on an H100 0.86-0.88 -> 0.96-0.97 of copy
 *    (attention, safe_attention) and 0.94 -> 0.97-0.99 (causal) at N = 64-256,
 *    where the templates without one measured within 1.5 % (to_f32 3 % slower)
 *    and f32 causal rows 0.98-1.00 either way;
 *  - otherwise 4 accesses per thread (enough loads in flight, few registers),
 *    a power of two; a row that would need a 1024-thread block takes 512
 *    threads of 8 accesses instead when that stays within AUTO_ELEMS_PER_THREAD
 *    (one 1024-thread block a multiprocessor overlaps its phases poorly). */
#define AUTO_ELEMS_PER_THREAD 32
#define SHORT_ROW_CAUSAL_ACCESSES 2
static unsigned choose_threads_per_row(uint64_t vectors, unsigned vec, unsigned vec_bytes,
                                       unsigned max_threads, int causal) {
  unsigned t;
  if (vectors * vec_bytes <= 512) {
    unsigned per = causal && vec >= 8 ? SHORT_ROW_CAUSAL_ACCESSES : 1;
    t = pow2_floor(vectors / per ? vectors / per : 1);
  } else {
    t = pow2_floor(vectors / 4 ? vectors / 4 : 1);
    if (t >= 1024 && vectors / 512 * vec <= AUTO_ELEMS_PER_THREAD)
      t = 512;
  }
  return t > max_threads ? max_threads : t;
}
/* ... and the block size: at least 256 threads (8 waves of 32) so that short
 * rows share a block, otherwise one row per block. */
static unsigned choose_block_threads(unsigned threads_per_row, unsigned wave) {
  unsigned b = threads_per_row > 256 ? threads_per_row : 256;
  return b < wave ? wave : b;
}

/* Bytes of input an element of the row costs (one element of each read);
 * also the narrowest and widest read element. */
static unsigned read_sizes(const resolver *r, unsigned *narrowest, unsigned *widest) {
  unsigned b = 0, lo = 0, hi = 0;
  for (int i = 0; i < r->t->nops; i++)
    if (r->t->ops[i].code == SGT_READ) {
      unsigned s = sg_dtype_size(tensor_dtype(r, r->t->ops[i].tensor));
      b += s;
      lo = !lo || s < lo ? s : lo;
      hi = s > hi ? s : hi;
    }
  if (narrowest)
    *narrowest = lo;
  if (widest)
    *widest = hi;
  return b;
}
static unsigned read_bytes(const resolver *r) { return read_sizes(r, NULL, NULL); }

/* Staging (PipelineConstraint(staging)): the row block is copied to shared
 * memory with asynchronous copies and each pass re-reads it there, so that no
 * row value lives in registers across a reduction and several row blocks stay
 * resident per multiprocessor, their loads overlapping each other's
 * reductions. Auto-configuration stages rows longer than AUTO_STAGE_ELEMS
 * (what 512 threads of AUTO_ELEMS_PER_THREAD registers hold: beyond it the
 * registers plan needs 1024-thread blocks, one resident per multiprocessor,
 * measured 0.85-0.87 of copy on an H100 against 0.97-0.99 staged) where the
 * target can and a workgroup's share fits its shared memory; a staged workgroup holds at most
 * STAGE_BLOCK_BYTES of its rows (longer rows are split over a cluster), with
 * STAGE_ACCESSES vector copies per thread; a pass unrolls at most
 * STAGE_MAX_CHUNKS vectors per thread. */
#define AUTO_STAGE_ELEMS (512 * AUTO_ELEMS_PER_THREAD)
#define STAGE_BLOCK_BYTES (64 * 1024)
#define STAGE_ACCESSES 8
#define STAGE_MAX_CHUNKS 64
/* shared memory a staged block leaves for its reduction buffers */
#define STAGE_RESERVE 8192
/* A staged share fits a workgroup; in a non-portable cluster (over the
 * target's max_cluster) only when the block is alone on its multiprocessor:
 * synccheck flagged clusters of 16 with several blocks a multiprocessor and
 * passed those of one (test/gpu/cluster16.sh, "Issue 10" in test/gpu/RESULTS.md).
 * (choose_staging also keeps online chains without a causal op off them.) */
static int stage_share_fits(const sgh_target *tg, const char *arch, uint64_t share,
                            unsigned cluster) {
  uint64_t limit = tg->stage_smem(arch);
  return share + STAGE_RESERVE <= limit && (cluster <= tg->max_cluster || 2 * share > limit);
}
static sg_status choose_staging(resolver *r, int64_t n) {
  sg_plan *pl = r->plan;
  const sgh_target *tg = pl->target;
  unsigned narrowest;
  read_sizes(r, &narrowest, NULL);
  /* each read's vector is one 4, 8 or 16-byte copy */
  int can = sgh_can_stage(tg), narrow = pl->vec * narrowest < 4;
  if (r->c->staging) {
    pl->stage = r->c->staging == 2;
    if (pl->stage && !can)
      return REJECT_AT(r->c->pipeline_loc, "PipelineConstraint(staging=1): %s has no "
                       "asynchronous copies to shared memory to stage rows with", tg->name);
    if (pl->stage && narrow)
      return REJECT_AT(r->c->pipeline_loc, "PipelineConstraint(staging=1): vectors of %u "
                       "elements are under the 4 bytes an asynchronous copy moves (N = %lld "
                       "allows no wider vector)", pl->vec, (long long)n);
    return SG_OK;
  }
  /* the most a workgroup would hold: the row over the largest portable
   * cluster, else over the largest staged one */
  uint64_t row = (uint64_t)n * read_bytes(r);
  int clusters = sgh_has_clusters(tg, pl->arch);
  int fits = can && stage_share_fits(tg, pl->arch, clusters ? row / tg->max_cluster : row, 1);
  /* over non-portable clusters, measured on an H100 at f32 N = 262144 against
   * the registers plan (1024 threads): the backward passes 0.54 -> 0.92 of
   * their floor, causal 0.81 -> 1.37, attention 0.95 -> 1.25, but masked (an
   * online chain, nothing skipped: an exp per element in both passes of a
   * block alone on its multiprocessor) 0.91 -> 0.84, so not for those */
  if (can && !fits && clusters && tg->max_cluster_staged > tg->max_cluster &&
      (!online_chains(r->t) || has_op(r->t, SGT_CAUSAL)))
    fits = stage_share_fits(tg, pl->arch, row / tg->max_cluster_staged, tg->max_cluster_staged);
  pl->stage = can && !narrow && n > AUTO_STAGE_ELEMS && fits;
  pl->chosen.stage = 1;
  return SG_OK;
}
/* Threads of a staged row: STAGE_ACCESSES vectors each, at most
 * STAGE_MAX_THREADS while a thread's share stays within STAGE_MAX_CHUNKS (a
 * 1024-thread block that asks for 2 a multiprocessor leaves 32 registers a
 * thread: f16 in, f32 out spilled 512 bytes there; 512 threads with 16
 * accesses each did not, ptxas -v on the bench kernels). */
#define STAGE_MAX_THREADS 512
static unsigned choose_staged_threads(uint64_t vectors, unsigned max_threads) {
  unsigned t = pow2_floor(vectors / STAGE_ACCESSES ? vectors / STAGE_ACCESSES : 1);
  if (max_threads > STAGE_MAX_THREADS && vectors <= (uint64_t)STAGE_MAX_THREADS * STAGE_MAX_CHUNKS)
    max_threads = STAGE_MAX_THREADS;
  return t > max_threads ? max_threads : t;
}

/* Workgroups per row (a thread-block cluster): WorkgroupConstraint(N, tile)
 * with tile < N asks for N / tile; otherwise auto-configuration takes the
 * fewest that keep a thread's share of the row within AUTO_ELEMS_PER_THREAD
 * (rows longer than one block's registers). Sets pl->cluster and pl->tile_n. */
static resolver *resolve_cluster(resolver *r, const sgp_tile *wg_n, const sgp_tile *wg_m,
                                 int64_t n, uint64_t vectors) {
  sg_plan *pl = r->plan;
  const sgh_target *tg = pl->target;
  const char *N = r->t->dims[r->col_dim];
  int can = sgh_has_clusters(tg, pl->arch);
  pl->cluster = 1;
  if (wg_n && wg_n->tile != SGP_FULL && wg_n->tile != n) {
    int64_t tile = wg_n->tile, count = n / tile;
    if (tile > n || n % tile)
      r->diag_status = REJECT_AT(wg_n->loc, "WorkgroupConstraint(%s, %lld): the tile does not "
                                 "divide the row (%s = %lld)", N, (long long)tile, N, (long long)n);
    else if (!can)
      r->diag_status = REJECT_AT(wg_n->loc, "WorkgroupConstraint(%s, %lld): splitting a row over "
                                 "%lld workgroups needs thread-block clusters, which %s %s lacks "
                                 "(NVIDIA sm_90 and later have them)", N, (long long)tile,
                                 (long long)count, tg->name, pl->arch);
    else if (!is_pow2((uint64_t)count) ||
             (uint64_t)count > (pl->stage ? max_u(tg->max_cluster, tg->max_cluster_staged)
                                          : tg->max_cluster))
      r->diag_status = REJECT_AT(wg_n->loc, "WorkgroupConstraint(%s, %lld): %lld workgroups per "
                                 "row; a cluster must be a power of two up to %u (%u with rows "
                                 "staged in shared memory)", N, (long long)tile, (long long)count,
                                 tg->max_cluster, max_u(tg->max_cluster, tg->max_cluster_staged));
    else if (tile % pl->vec)
      r->diag_status = REJECT_AT(wg_n->loc, "WorkgroupConstraint(%s, %lld): a vector of %u "
                                 "elements does not divide the tile", N, (long long)tile, pl->vec);
    pl->cluster = count > 0 ? (unsigned)count : 1; /* tile > N (rejected above): no 0 */
  } else if (!wg_n && can) {
    const sg_constraints *c = r->c;
    uint64_t threads = tg->max_block_threads, rows = wg_m ? (uint64_t)wg_m->tile : 1;
    if (c->waves_per_block[0])
      threads = (uint64_t)c->waves_per_block[0] * c->waves_per_block[1] *
                c->waves_per_block[2] * (c->threads_per_wave ? c->threads_per_wave : 32);
    threads = pow2_floor(threads / rows ? threads / rows : 1);
    /* a row too long for one block: split it until a block of 256 threads
     * (or the most the largest cluster allows) holds its share, as measured
     * fastest; smaller blocks keep several resident per multiprocessor */
    uint64_t fit = (threads < 256 ? threads : 256) * AUTO_ELEMS_PER_THREAD;
    /* staged: a workgroup's share of the rows within STAGE_BLOCK_BYTES, in
     * portable clusters; beyond them (up to max_cluster_staged) only while
     * the share does not fit at all (stage_share_fits) */
    if (pl->stage)
      for (uint64_t share; (vectors / pl->cluster) % 2 == 0; pl->cluster *= 2) {
        share = vectors / pl->cluster * pl->vec * rows * read_bytes(r);
        if (!(pl->cluster < tg->max_cluster && share > STAGE_BLOCK_BYTES) &&
            !(pl->cluster < max_u(tg->max_cluster, tg->max_cluster_staged) &&
              !stage_share_fits(tg, pl->arch, share, pl->cluster)))
          break;
      }
    else if (vectors * pl->vec > threads * AUTO_ELEMS_PER_THREAD)
      while (pl->cluster < tg->max_cluster && vectors / pl->cluster * pl->vec > fit &&
             (vectors / pl->cluster) % 2 == 0)
        pl->cluster *= 2;
    pl->chosen.cluster = 1;
  }
  pl->tile_n = n / pl->cluster;
  return r;
}

sg_status sgp_check_rows_tile(const sgp_tile *wg_m, const char *M, sg_diag *diag) {
  if (wg_m && wg_m->tile == SGP_FULL)
    return sg_diag_at(diag, SG_ERR_CONSTRAINT, wg_m->loc.file, wg_m->loc.line, wg_m->loc.col,
                      "WorkgroupConstraint(%s, %s): %s is the run-time row count; give rows per "
                      "workgroup as an integer", M, M, M);
  if (wg_m && wg_m->grid_axis != 0)
    return sg_diag_at(diag, SG_ERR_CONSTRAINT, wg_m->loc.file, wg_m->loc.line, wg_m->loc.col,
                      "WorkgroupConstraint(%s, ..., %d): softgen launches a 1-D grid over row "
                      "blocks, so %s's grid_axis must be 0", M, wg_m->grid_axis, M);
  return SG_OK;
}

static sg_status resolve_shape(resolver *r) {
  const sg_constraints *c = r->c;
  const sgh_target *tg = r->plan->target;
  sg_plan *pl = r->plan;
  const char *M = r->t->dims[r->row_dim], *N = r->t->dims[r->col_dim];
  int64_t n = r->p->n;

  /* threads per wave */
  pl->wave = c->threads_per_wave;
  if (!pl->wave) {
    pl->wave = tg->wave_ok(pl->arch, 32) ? 32 : tg->wave_ok(pl->arch, 64) ? 64 : 1; /* host: 1 */
    pl->chosen.wave = 1;
  }
  if (!tg->wave_ok(pl->arch, pl->wave))
    return REJECT_AT(c->hw_loc, "HardwareConstraint: threads_per_wave=%u is not a wave size of %s %s (%s)",
                     pl->wave, tg->name, pl->arch, tg->wave_sizes(pl->arch));

  /* vector width along N */
  unsigned esize = widest_elem(r);
  unsigned vlimit = tg->max_vector_bytes ? tg->max_vector_bytes(pl->arch) : 16;
  const sgp_tile *vm = find_tile(c->vec, c->nvec, M), *vn = find_tile(c->vec, c->nvec, N);
  if (vm && vm->tile != 1)
    return REJECT_AT(vm->loc, "vector_shapes: %s must be 1 (a vector lies within one row)", M);
  if (vn) {
    int64_t v = vn->tile == SGP_FULL ? n : vn->tile;
    if ((uint64_t)v * esize > vlimit)
      return REJECT_AT(vn->loc,
                       "vector_shapes: %s: %lld elements of %u bytes is %lld bytes, wider than "
                       "the %u-byte limit of a vector access",
                       N, (long long)v, esize, (long long)v * esize, vlimit);
    if (!is_pow2((uint64_t)v))
      return REJECT_AT(vn->loc, "vector_shapes: %s: %lld elements is not a power of two", N,
                       (long long)v);
    if (n % v)
      return REJECT_AT(vn->loc, "vector_shapes: %s: a vector of %lld elements does not divide "
                       "the row (%s = %lld)", N, (long long)v, N, (long long)n);
    pl->vec = (unsigned)v;
  } else {
    pl->vec = vlimit / esize;
    while (n % pl->vec)
      pl->vec /= 2;
    pl->chosen.vec = 1;
  }
  pl->vec_bytes = pl->vec * esize;
  uint64_t vectors = (uint64_t)n / pl->vec;

  /* workgroup tiles: rows per block; a row stays in one workgroup */
  const sgp_tile *wg_m = find_tile(c->workgroup, c->nworkgroup, M);
  const sgp_tile *wg_n = find_tile(c->workgroup, c->nworkgroup, N);
  const sgp_tile *wv_m = find_tile(c->wave, c->nwave, M);
  const sgp_tile *wv_n = find_tile(c->wave, c->nwave, N);
  sg_status st = sgp_check_rows_tile(wg_m, M, r->diag);
  if (st || (st = choose_staging(r, n)))
    return st;
  if ((r = resolve_cluster(r, wg_n, wg_m, n, vectors))->diag_status)
    return r->diag_status;
  n = pl->tile_n; /* from here on: the columns one workgroup holds */
  vectors = (uint64_t)n / pl->vec;

  /* threads per row T, from whichever constraints fix it */
  unsigned waves = 0, rows = wg_m ? (unsigned)wg_m->tile : 0, T = 0;
  const char *t_from = NULL;
  if (c->waves_per_block[0]) {
    uint64_t w = (uint64_t)c->waves_per_block[0] * c->waves_per_block[1] * c->waves_per_block[2];
    if (w * pl->wave > tg->max_block_threads)
      return REJECT_AT(c->hw_loc, "HardwareConstraint: %llu waves of %u threads is %llu threads "
                       "per block, more than the %u %s allows",
                       (unsigned long long)w, pl->wave, (unsigned long long)w * pl->wave,
                       tg->max_block_threads, tg->name);
    waves = (unsigned)w;
  }
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
  if (!T) { /* auto: prefer choose_threads_per_row, within what is given */
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
    T = pl->stage ? choose_staged_threads(vectors, pow2_floor(cap))
                  : choose_threads_per_row(vectors, pl->vec, pl->vec_bytes, pow2_floor(cap),
                                           has_op(r->t, SGT_CAUSAL));
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
  if (!is_pow2(T))
    return REJECT("threads per row (%u, from %s) must be a power of two", T, t_from);

  /* block and rows per block */
  if (!waves) {
    unsigned b = rows ? rows * T : choose_block_threads(T, pl->wave);
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
    return REJECT_AT(c->hw_loc, "threads per row (%u, from %s) do not divide the block's %u "
                     "threads (%u waves, from HardwareConstraint)", T,
                     t_from ? t_from : "auto-configuration", pl->block_threads, waves);
  if (pl->block_threads % T)
    return REJECT("threads per row (%u, from %s) do not divide the block's %u threads", T,
                  t_from ? t_from : "auto-configuration", pl->block_threads);
  if (rows && rows * T != pl->block_threads)
    return REJECT_AT(wg_m->loc, "WorkgroupConstraint(%s, %u): %u rows of %u threads do not "
                     "fill the block's %u threads", M, rows, rows, T, pl->block_threads);
  pl->rows_per_block = pl->block_threads / T;
  pl->threads_per_row = T;
  pl->rows_per_wave = T < pl->wave ? pl->wave / T : 1;
  pl->waves_per_row = T > pl->wave ? T / pl->wave : 1;
  pl->shuffle_steps = log2u(T < pl->wave ? T : pl->wave);
  uint64_t per_pass = (uint64_t)T * pl->vec;
  pl->chunks = (unsigned)(((uint64_t)n + per_pass - 1) / per_pass);
  pl->elems_per_thread = pl->chunks * pl->vec;
  pl->masked = (uint64_t)n % per_pass != 0;
  pl->row_tiles = 1;
  if (pl->stage && pl->chunks > STAGE_MAX_CHUNKS)
    return REJECT("a staged row of %lld columns per workgroup needs %u vector accesses per "
                  "thread with %u threads per row (from %s), over the %u a pass unrolls: "
                  "allow more threads per row or split the row over a cluster", (long long)n,
                  pl->chunks, T, t_from ? t_from : "auto-configuration", STAGE_MAX_CHUNKS);
  if (!pl->stage && pl->elems_per_thread > tg->max_elems_per_thread && tg->stream_long_rows) {
    /* tiles of the register budget; one pass over the row per reduction */
    unsigned per_tile = tg->max_elems_per_thread / pl->vec ? tg->max_elems_per_thread / pl->vec : 1;
    pl->row_tiles = (pl->chunks + per_tile - 1) / per_tile;
    pl->chunks = per_tile;
    pl->elems_per_thread = per_tile * pl->vec;
  }
  if (!pl->stage && pl->elems_per_thread > tg->max_elems_per_thread) {
    char row[128]; /* n is the columns of one workgroup here, not the row */
    if (pl->cluster > 1)
      snprintf(row, sizeof row, "a row of %lld split over %u workgroups (%lld columns each)",
               (long long)r->p->n, pl->cluster, (long long)n);
    else
      snprintf(row, sizeof row, "a row of %lld", (long long)n);
    int can = sgh_has_clusters(tg, pl->arch);
    if (T < tg->max_block_threads)
      return REJECT("%s needs %u values per thread with %u threads per row (from %s), over the "
                    "register budget of %u on %s: allow more threads per row (up to %u a block)",
                    row, pl->elems_per_thread, T, t_from ? t_from : "auto-configuration",
                    tg->max_elems_per_thread, tg->name, tg->max_block_threads);
    if (!can)
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
  return SG_OK;
}

/* PipelineConstraint(rows_in_flight) when given; otherwise, when AUTO_PREFETCH
 * is on, prefetch the next row block (a persistent grid) when the loaded copy
 * fits beside the row's f32 values in PREFETCH_REGISTERS per thread and blocks
 * stay at most 512 threads (1024-thread blocks are capped at 64 registers).
 * Staged rows are prefetched into the slots the template's last op (a write)
 * frees (codegen/lower.c stage_next); by default as stage_ahead_by_default
 * says, once the reductions are chosen. */
#define PREFETCH_REGISTERS 64
/* Off: on an H200 the persistent, prefetching kernels measured 3 to 20% slower
 * than one block per row block at every shape tried (tools/bench/README.md). */
#define AUTO_PREFETCH 0
static int ends_in_write(const sg_template *t) {
  return t->nops > 0 && t->ops[t->nops - 1].code == SGT_WRITE;
}
static sg_status choose_pipeline(resolver *r) {
  sg_plan *pl = r->plan;
  const sg_template *t = r->t;
  if (pl->row_tiles > 1) { /* tiled rows load in each pass: nothing to prefetch */
    pl->prefetch = 0;
    pl->chosen.prefetch = !r->c->rows_in_flight;
    return SG_OK;
  }
  if (r->c->rows_in_flight) {
    pl->prefetch = r->c->rows_in_flight == 2;
    if (pl->prefetch && pl->stage && !ends_in_write(t))
      return REJECT_AT(r->c->pipeline_loc, "PipelineConstraint(rows_in_flight=2): staged rows "
                       "are copied ahead after the template's last op, which must be a write "
                       "(template '%s' ends in another op)", sg_template_name(t));
    return SG_OK;
  }
  if (pl->stage) { /* stage_ahead_by_default, once pl->online is known */
    pl->prefetch = 0;
    pl->chosen.prefetch = 1;
    return SG_OK;
  }
  unsigned raw_bytes = read_bytes(r);
  unsigned regs = pl->elems_per_thread * raw_bytes / 4 + pl->elems_per_thread;
  pl->prefetch = AUTO_PREFETCH && pl->block_threads <= 512 && regs <= PREFETCH_REGISTERS;
  pl->chosen.prefetch = 1;
  return SG_OK;
}

/* Bytes of shared memory a staged workgroup's rows take. */
static uint64_t staged_bytes(const resolver *r) {
  const sg_plan *pl = r->plan;
  return (uint64_t)pl->chunks * pl->threads_per_row * pl->vec * pl->rows_per_block * read_bytes(r);
}

/* A staged block alone on its multiprocessor (its rows over half the shared memory). */
static int staged_alone(const resolver *r) {
  return 2 * staged_bytes(r) > r->plan->target->stage_smem(r->plan->arch);
}

/* Online (max, sum) pairs by default (measured on an H100 and an H200,
 * tools/bench/README.md): they save a pass, worth it where that pass is a
 * cluster barrier, and for staged rows (a pass over shared memory) of 16-bit
 * inputs or of blocks alone on a multiprocessor (f32 N = 262144: 0.88 -> 0.97
 * of copy); staged f32 rows of smaller blocks measured faster apart (the
 * pairs' registers spill under the cap of 3 blocks a multiprocessor); without
 * clusters or staging, apart. */
static int online_by_default(const resolver *r) {
  if (r->plan->stage) {
    unsigned widest;
    read_sizes(r, NULL, &widest);
    return widest < 4 || staged_alone(r);
  }
  if (r->plan->layout == SG_LAYOUT_INNER) /* tiled rows: a pass over memory fewer */
    return r->plan->row_tiles > 1;
  /* not in 1024-thread blocks (64 registers a thread): f32 N = 262144 with a
   * mask spilled 200 bytes as pairs, 40 apart; on an H100 attention measured
   * 0.67 of copy as pairs, safe_attention 0.94 apart */
  return r->plan->cluster > 1 && r->plan->block_threads < 1024;
}

/* Staged rows copied ahead by default (measured on an H100, A/B in one run,
 * tools/bench/README.md experiment 12): only where a block is alone on its
 * multiprocessor (nothing else overlaps its loads with its passes), the row's
 * max and sum are online pairs (an exp per element in both passes) and an
 * element moves at most STAGE_AHEAD_BYTES of reads and writes, so that the
 * exps are many for the bytes: masked 16-bit 1024 x 262144 0.89-0.92 -> 0.94.
 * Elsewhere the persistent grid cost 3-10 % (f32 masked 4096 x 131072, alone
 * and online with 12 bytes an element: 1.00 -> 0.95; scaled f32 1024 x 262144,
 * 8 bytes: 1.13 -> 1.09; the backward passes, no exp in a pass: 1.00 -> 0.97;
 * 3 blocks a multiprocessor: 0.95-1.00 -> 0.87-0.97). Never with a causal op:
 * its rows copy only the chunks they keep, which a row copied ahead cannot. */
#define STAGE_AHEAD_BYTES 6
static int stage_ahead_by_default(const resolver *r) {
  const sg_plan *pl = r->plan;
  const sg_template *t = r->t;
  unsigned moved = read_bytes(r);
  for (int i = 0; i < t->nops; i++)
    if (t->ops[i].code == SGT_WRITE)
      moved += sg_dtype_size(tensor_dtype(r, t->ops[i].tensor));
  return ends_in_write(t) && !has_op(t, SGT_CAUSAL) && pl->online &&
         moved <= STAGE_AHEAD_BYTES && staged_alone(r);
}

sg_status sg_plan_resolve(const sg_template *t, const sg_constraints *c, const sg_problem *p,
                          sg_plan **out, sg_diag *diag) {
  static const sg_constraints none;
  if (!t || !p || !out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_plan_resolve: null argument");
  *out = NULL;
  resolver rs = {t, c ? c : &none, p, NULL, diag, -1, -1, SG_OK}, *r = &rs;
  const char *tname = p->target ? p->target : "nvptx";
  const sgh_target *tg = sgh_target_lookup(tname);
  if (!tg)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT,
                       "unknown target '%s' (expected nvptx, amdgpu or host)", tname);
  const char *arch = p->arch ? p->arch : tg->default_arch;
  if (!sgh_has_arch(tg, arch)) {
    char list[256] = "";
    for (const char *const *a = tg->archs; *a; a++)
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", a == tg->archs ? "" : ", ", *a);
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "unknown arch '%s' for target %s "
                       "(expected one of %s)", arch, tg->name, list);
  }
  if (p->n < 1 || p->n > (1ll << 31) - 1)
    return sg_diag_set(diag, SG_ERR_CONSTRAINT, "N = %lld is out of range: N must be 1 to "
                       "2^31-1", (long long)p->n);
  if ((unsigned)p->dtype >= SG_DTYPE_COUNT ||
      (p->out_dtype_set && (unsigned)p->out_dtype >= SG_DTYPE_COUNT))
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "invalid dtype");
  if ((unsigned)p->layout >= SG_LAYOUT_COUNT)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "invalid layout %d", (int)p->layout);
  sg_status st = check_template(r);
  if (st)
    return st;
  if ((st = check_dims_known(r, rs.c->vec, rs.c->nvec, "HardwareConstraint's vector_shapes")) ||
      (st = check_dims_known(r, rs.c->workgroup, rs.c->nworkgroup, "WorkgroupConstraint")) ||
      (st = check_dims_known(r, rs.c->wave, rs.c->nwave, "WaveConstraint")))
    return st;
  sg_plan *pl = calloc(1, sizeof *pl);
  if (!pl)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
  pl->target = tg;
  snprintf(pl->arch, sizeof pl->arch, "%s", arch);
  pl->dtype = p->dtype;
  pl->out_dtype = p->out_dtype_set ? p->out_dtype : p->dtype;
  pl->n = p->n;
  snprintf(pl->template_name, sizeof pl->template_name, "%s", t->name);
  char out_part[16] = ""; /* "_f32" when the output dtype differs */
  if (pl->out_dtype != pl->dtype)
    snprintf(out_part, sizeof out_part, "_%s", sg_dtype_name(pl->out_dtype));
  snprintf(pl->kernel_name, sizeof pl->kernel_name, "softgen_%s_%s%s_n%lld%s", t->name,
           sg_dtype_name(p->dtype), out_part, (long long)p->n,
           p->layout == SG_LAYOUT_INNER ? "_inner" : "");
  pl->layout = p->layout;
  rs.plan = pl;
  for (int i = 0; p->layout == SG_LAYOUT_INNER && i < t->ntensors; i++)
    if (t->tensors[i].repeat) {
      free(pl);
      return sg_diag_at(diag, SG_ERR_CONSTRAINT, t->file, t->tensors[i].line, t->tensors[i].col,
                        "tensor '%s' repeats its rows: the inner layout takes tensors of the "
                        "output's rows only (use the rows layout)", t->tensors[i].name);
    }
  st = p->layout == SG_LAYOUT_INNER
           ? sgp_resolve_inner(t, rs.c, p->n, widest_elem(r), pl, diag)
           : resolve_shape(r);
  if (st) {
    free(pl);
    return st;
  }
  for (int i = 0; i < t->nops; i++)
    pl->nreductions += (unsigned)sgt_opcode_is_reduction(t->ops[i].code);
  if ((st = choose_pipeline(r))) {
    free(pl);
    return st;
  }
  /* reductions through shared memory: an online (max, sum) chain is one; each
   * buffer holds 2 floats a partial and there is one set per iteration parity */
  /* online pairs save a pass; by default only where that pass is a cluster
   * barrier: without clusters they measured slower on an H200 (more registers
   * and an exp per shuffle step), with clusters faster */
  unsigned passes = pl->nreductions;
  int chains = online_chains(t);
  pl->online = rs.c->online ? rs.c->online == 2 : online_by_default(r);
  pl->chosen.online = !rs.c->online;
  if (!chains) /* tiled rows: one online pass over the tiles (codegen/lower.c) */
    pl->online = 0;
  if (pl->online)
    passes -= (unsigned)chains;
  if (pl->stage && pl->chosen.prefetch)
    pl->prefetch = stage_ahead_by_default(r);
  pl->passes = passes;
  pl->smem_slots = pl->waves_per_row > 1 ? passes : 0;
  pl->smem_parity_floats = pl->smem_slots * pl->rows_per_block * pl->waves_per_row * 2;
  pl->cluster_parity_floats = pl->cluster > 1 ? passes * pl->rows_per_block * pl->cluster * 2 : 0;
  pl->cluster_bytes = 2 * pl->cluster_parity_floats * 4;
  pl->smem_bytes = 2 * pl->smem_parity_floats * 4 + pl->cluster_bytes;
  if (pl->smem_bytes > tg->max_static_smem) {
    unsigned need = pl->smem_bytes;
    free(pl);
    return sg_diag_set(diag, SG_ERR_CONSTRAINT, "the reductions need %u bytes of shared "
                       "memory, over the %u bytes %s allows", need, tg->max_static_smem, tname);
  }
  if (pl->stage) {
    uint64_t pitch = (uint64_t)pl->chunks * pl->threads_per_row * pl->vec;
    uint64_t bytes = staged_bytes(r);
    unsigned limit = tg->stage_smem(pl->arch);
    if (bytes + pl->smem_bytes > limit) {
      sg_status rej = sg_diag_set(diag, SG_ERR_CONSTRAINT, "staging %u row%s of %lld columns "
                                  "needs %llu bytes of shared memory (and %u for the reductions), "
                                  "over the %u bytes a block of %s %s may use: %sstage no rows "
                                  "(PipelineConstraint(staging=0))", pl->rows_per_block,
                                  pl->rows_per_block == 1 ? "" : "s", (long long)pl->tile_n,
                                  (unsigned long long)bytes, pl->smem_bytes, limit, tname, pl->arch,
                                  sgh_has_clusters(tg, pl->arch)
                                      ? "split the row over a cluster (WorkgroupConstraint(N, "
                                        "tile)) or "
                                      : "");
      free(pl);
      return rej;
    }
    pl->stage_pitch = (unsigned)pitch;
    pl->stage_bytes = (unsigned)bytes;
    /* a multiprocessor has about a block's limit + 1 KB; each block reserves 1 KB */
    unsigned per_sm = (limit + 1024) / (pl->stage_bytes + pl->smem_bytes + 1024);
    unsigned by_threads = tg->max_threads_per_sm / pl->block_threads;
    per_sm = per_sm < by_threads ? per_sm : by_threads;
    pl->blocks_per_sm = per_sm > 1 ? per_sm : 0;
  }
  *out = pl;
  return SG_OK;
}

void sg_plan_destroy(sg_plan *plan) { free(plan); }

const char *sg_plan_kernel_name(const sg_plan *plan) { return plan ? plan->kernel_name : ""; }
const char *sg_plan_asm_ext(const sg_plan *plan) { return plan->target->asm_ext; }
const char *sg_plan_object_ext(const sg_plan *plan) { return plan->target->object_ext; }
const char *sg_plan_shared_ext(const sg_plan *plan) { return plan->target->shared_ext; }

void sg_plan_print(const sg_plan *pl, FILE *f) {
  const char *a[2] = {"", "  (auto)"};
  fprintf(f, "plan %s\n", pl->kernel_name);
  fprintf(f, "  template          %s\n", pl->template_name);
  fprintf(f, "  target            %s %s (%s)\n", pl->target->name, pl->arch, pl->target->triple);
  fprintf(f, "  dtype             %s", sg_dtype_name(pl->dtype));
  if (pl->out_dtype != pl->dtype)
    fprintf(f, " in, %s out (U)", sg_dtype_name(pl->out_dtype));
  fprintf(f, ", accumulate f32\n");
  fprintf(f, "  N                 %lld   (M is a run-time argument)\n", (long long)pl->n);
  if (pl->layout == SG_LAYOUT_INNER)
    fprintf(f, "  layout            inner: tensors [outer, N, inner], row m = o x inner + i at "
            "o x stride + n x nstride + i (inner, strides: run-time); a thread a row, adjacent "
            "threads adjacent i\n");
  fprintf(f, "  cluster           %u workgroups per row, %lld columns each%s\n", pl->cluster,
          (long long)pl->tile_n, a[pl->chosen.cluster]);
  fprintf(f, "  threads_per_wave  %u%s\n", pl->wave, a[pl->chosen.wave]);
  fprintf(f, "  waves_per_block   %u%s\n", pl->waves_per_block, a[pl->chosen.waves]);
  fprintf(f, "  block_threads     %u\n", pl->block_threads);
  fprintf(f, "  rows_per_block    %u%s\n", pl->rows_per_block, a[pl->chosen.rows]);
  fprintf(f, "  threads_per_row   %u\n", pl->threads_per_row);
  fprintf(f, "  rows_per_wave     %u\n", pl->rows_per_wave);
  fprintf(f, "  waves_per_row     %u\n", pl->waves_per_row);
  fprintf(f, "  vector            %u elements = %u bytes%s\n", pl->vec, pl->vec_bytes,
          a[pl->chosen.vec]);
  fprintf(f, "  chunks_per_thread %u\n", pl->chunks);
  if (pl->row_tiles > 1)
    fprintf(f, "  row_tiles         %u (the row in tiles of %u chunks: one pass over memory per "
            "reduction, one for the writes)\n", pl->row_tiles, pl->chunks);
  fprintf(f, "  elems_per_thread  %u (f32 registers per row value)\n", pl->elems_per_thread);
  fprintf(f, "  masked_tail       %s\n", pl->masked ? "yes (columns past N read as -inf)" : "no");
  fprintf(f, "  rows_in_flight    %s%s\n",
          !pl->prefetch ? "1"
          : pl->stage   ? "2 (the next row block's copies start as this one's last op frees "
                          "each chunk's slots; persistent grid)"
                        : "2 (the next row block loads while this one computes; persistent grid)",
          a[pl->chosen.prefetch]);
  if (pl->stage)
    fprintf(f, "  staging           shared memory: %u bytes, %u row%s x %u elements per read "
            "(asynchronous copies; each pass re-reads them)%s; %u blocks a multiprocessor\n",
            pl->stage_bytes, pl->rows_per_block, pl->rows_per_block == 1 ? "" : "s",
            pl->stage_pitch, a[pl->chosen.stage], pl->blocks_per_sm ? pl->blocks_per_sm : 1);
  else
    fprintf(f, "  staging           registers (each thread holds its values across the "
            "passes)%s\n", a[pl->chosen.stage]);
  unsigned passes = pl->passes;
  fprintf(f, "  reductions        %u%s in %u pass%s%s: thread (%u values)", pl->nreductions,
          pl->online ? " (max and sum fused: online softmax pairs)" : "", passes,
          passes == 1 ? "" : "es", a[pl->chosen.online && pl->online], pl->elems_per_thread);
  fprintf(f, " -> wave (%u xor-shuffle steps over %u lanes)", pl->shuffle_steps,
          pl->threads_per_row < pl->wave ? pl->threads_per_row : pl->wave);
  if (pl->waves_per_row > 1)
    fprintf(f, " -> block (%u partials in shared memory, 1 barrier a pass)", pl->waves_per_row);
  if (pl->cluster > 1)
    fprintf(f, " -> cluster (%u partials in distributed shared memory, 1 cluster barrier a pass)",
            pl->cluster);
  fprintf(f, "\n  shared_memory     %u bytes (2 iterations x %u buffer%s x %u rows x %u partials x 2 "
          "floats", pl->smem_bytes, pl->smem_slots, pl->smem_slots == 1 ? "" : "s",
          pl->rows_per_block, pl->waves_per_row);
  if (pl->cluster > 1)
    fprintf(f, " + 2 x %u x %u rows x %u cluster partials x 2 floats", passes, pl->rows_per_block,
            pl->cluster);
  fprintf(f, ")\n");
  if (pl->cluster > 1)
    fprintf(f, "  grid              x = %u x ceil(M / %u) blocks in clusters of %u, grid-stride "
            "loop over clusters\n", pl->cluster, pl->rows_per_block, pl->cluster);
  else
    fprintf(f, "  grid              x = ceil(M / %u) blocks (capped at 2^31-1), grid-stride loop\n",
            pl->rows_per_block);
}
