/* resolve.c - constraints + template + problem -> plan (plan/plan.h,
 * sg_plan_resolve), the entry of the plan module.
 *
 * Checks the problem and the template, gathers the template's facts
 * (sgp_input), lays the row out with plan/rows.c or plan/inner.c, then
 * resolves the pipeline (rows in flight, online pairs, staged copies ahead)
 * and sizes the shared memory. Given constraints are honoured or rejected
 * with the rule they break; what is not given comes from plan/policy.c, the
 * one place that holds softgen's automatic choices. Every number of the plan
 * is printable with sg_plan_print (plan/print.c; softgen --print-config). */
#include <stdlib.h>
#include <string.h>

#include "plan/policy.h"
#include "target/target.h"

/* The template must be row-wise: 2-D tensors [M, N] (M, N: the dims of the
 * first output) and reductions over N; an input may be [R, N] (its rows
 * repeat: row m reads row m mod R). */
static sg_status check_template(sgp_input *r, sg_diag *diag) {
  const sg_template *t = r->t;
  int first = 0;
  while (first < t->ntensors && !t->tensors[first].is_output)
    first++;
  if (first == t->ntensors) /* the parser rejects such templates; no dim to index by */
    return sg_diag_set(diag, SG_ERR_CONSTRAINT, "%s: kernel '%s' has no output tensor: "
                       "softgen generates kernels that write [ROWS, COLS] outputs", t->file,
                       t->name);
  r->row_dim = t->tensors[first].shape.ndims == 2 ? t->tensors[first].shape.dims[0] : -1;
  r->col_dim = t->tensors[first].shape.ndims == 2 ? t->tensors[first].shape.dims[1] : -1;
  for (int i = 0; i < t->ntensors; i++) {
    const sgt_shape *s = &t->tensors[i].shape;
    int rows_ok = s->ndims == 2 && (s->dims[0] == r->row_dim ||
                                    (t->tensors[i].repeat && s->dims[0] != r->col_dim));
    if (!rows_ok || s->dims[1] != r->col_dim)
      return sg_diag_at(diag, SG_ERR_CONSTRAINT, t->file, t->tensors[i].line,
                        t->tensors[i].col,
                        "tensor '%s' must have shape [ROWS, COLS] like the first output (an "
                        "input may have other ROWS, which repeat): softgen generates row-wise "
                        "kernels",
                        t->tensors[i].name);
  }
  for (int i = 0; i < t->nops; i++) {
    const sgt_op *op = &t->ops[i];
    if (sgt_opcode_is_reduction(op->code) && op->dim != r->col_dim)
      return sg_diag_at(diag, SG_ERR_CONSTRAINT, t->file, op->line, op->col,
                        "%s over %s: softgen reduces along the last dim (%s) only",
                        sgt_opcode_name(op->code), t->dims[op->dim], t->dims[r->col_dim]);
    if (op->shape.ndims == 1 && op->shape.dims[0] == r->col_dim)
      return sg_diag_at(diag, SG_ERR_CONSTRAINT, t->file, op->line, op->col,
                        "value '%s' has shape [%s]: per-column values are not supported",
                        op->name, t->dims[op->shape.dims[0]]);
  }
  return SG_OK;
}

static sg_status check_dims_known(const sgp_input *r, const sgp_tile *list, int n,
                                  const char *what, sg_diag *diag) {
  for (int i = 0; i < n; i++) {
    int known = 0;
    for (int d = 0; d < r->t->ndims; d++)
      known |= strcmp(r->t->dims[d], list[i].dim) == 0;
    if (!known)
      return sg_diag_at(diag, SG_ERR_CONSTRAINT, list[i].loc.file, list[i].loc.line,
                        list[i].loc.col, "%s names dim '%s', which template '%s' does not have",
                       what, list[i].dim, r->t->name);
  }
  return SG_OK;
}

/* The template's facts the layouts and the policy use. */
static sg_dtype tensor_dtype(const sgp_input *in, int i) {
  const sg_problem *p = in->p;
  return sgt_tensor_dtype(in->t, i, p->dtype, p->out_dtype_set ? p->out_dtype : p->dtype);
}
static void gather_facts(sgp_input *in) {
  const sg_template *t = in->t;
  for (int i = 0; i < t->ntensors; i++) { /* the vector is limited by the widest tensor */
    unsigned s = sg_dtype_size(tensor_dtype(in, i));
    in->widest_elem = s > in->widest_elem ? s : in->widest_elem;
  }
  for (int i = 0; i < t->nops; i++) {
    int e, sum;
    unsigned s = t->ops[i].code == SGT_READ || t->ops[i].code == SGT_WRITE
                     ? sg_dtype_size(tensor_dtype(in, t->ops[i].tensor))
                     : 0;
    if (t->ops[i].code == SGT_READ) {
      in->read_bytes += s;
      in->narrowest_read = !in->narrowest_read || s < in->narrowest_read ? s : in->narrowest_read;
      in->widest_read = s > in->widest_read ? s : in->widest_read;
    }
    in->moved_bytes += s;
    in->causal |= t->ops[i].code == SGT_CAUSAL;
    if (sgt_online_chain(t, i, &e, &sum)) {
      in->online_chains++;
      for (int j = sum + 1; j < t->nops; j++) /* an op after the sum uses the exps */
        for (int k = 0; k < SGT_MAX_OPERANDS; k++)
          in->exps_reused |= t->ops[j].operands[k] == e;
    }
  }
  in->ends_in_write = t->nops > 0 && t->ops[t->nops - 1].code == SGT_WRITE;
}

/* Rows in flight: PipelineConstraint(rows_in_flight) or the policy's. Tiled
 * rows load in each pass (nothing to prefetch); staged rows are copied ahead
 * into the slots the template's last op (a write) frees (codegen's staged
 * rows), by default as the policy says once the reductions are resolved. */
static sg_status resolve_pipeline(const sgp_input *in, sg_plan *pl, sg_diag *diag) {
  const sg_constraints *c = in->c;
  if (pl->row_tiles > 1) {
    pl->prefetch = 0;
    pl->chosen.prefetch = !c->rows_in_flight;
    return SG_OK;
  }
  if (c->rows_in_flight) {
    pl->prefetch = c->rows_in_flight == 2;
    if (pl->prefetch && pl->stage && !in->ends_in_write)
      return sg_diag_at(diag, SG_ERR_CONSTRAINT, c->pipeline_loc.file, c->pipeline_loc.line,
                        c->pipeline_loc.col, "PipelineConstraint(rows_in_flight=2): staged rows "
                        "are copied ahead after the template's last op, which must be a write "
                        "(template '%s' ends in another op)", sg_template_name(in->t));
    return SG_OK;
  }
  /* staged: below, once online; peeled rows shift per row, which prefetching does not */
  pl->prefetch = pl->stage || pl->peel ? 0 : sgp_policy_prefetch(in, pl);
  pl->chosen.prefetch = 1;
  return SG_OK;
}

/* Static shared memory of the reductions (codegen/reduce.c): the block's
 * buffers, the cluster's and its transaction barriers (8 bytes each), and a
 * grid split's result (a pair a pass, last). */
static unsigned reduction_smem(const sg_plan *pl, unsigned passes) {
  return 2 * pl->smem_parity_floats * 4 + pl->cluster_bytes + 8 * pl->cluster_bars +
         (pl->grid_split ? passes * 8 : 0);
}

/* One plan of t for c and p (sg_plan_resolve less the few-rows variant); *in
 * receives the template's facts. */
static sg_status resolve_plan(const sg_template *t, const sg_constraints *c, const sg_problem *p,
                              sg_plan **out, sgp_input *in_out, sg_diag *diag) {
  static const sg_constraints none;
  *out = NULL;
  sgp_input in = {.t = t, .c = c ? c : &none, .p = p, .row_dim = -1, .col_dim = -1};
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
  if (p->n_min < 0 || p->n_min > p->n)
    return sg_diag_set(diag, SG_ERR_CONSTRAINT, "a range of N from %lld to %lld is empty: the "
                       "smallest N must be 1 to %lld", (long long)p->n_min, (long long)p->n,
                       (long long)p->n);
  if (p->n_min && p->n_min < p->n && p->layout == SG_LAYOUT_INNER)
    return sg_diag_set(diag, SG_ERR_CONSTRAINT, "a range of N (%lld to %lld) needs the rows "
                       "layout: the inner layout takes one N", (long long)p->n_min,
                       (long long)p->n);
  if ((unsigned)p->dtype >= SG_DTYPE_COUNT ||
      (p->out_dtype_set && (unsigned)p->out_dtype >= SG_DTYPE_COUNT))
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "invalid dtype");
  if ((unsigned)p->layout >= SG_LAYOUT_COUNT)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "invalid layout %d", (int)p->layout);
  sg_status st = check_template(&in, diag);
  if (st)
    return st;
  c = in.c;
  if ((st = check_dims_known(&in, c->vec, c->nvec, "HardwareConstraint's vector_shapes", diag)) ||
      (st = check_dims_known(&in, c->workgroup, c->nworkgroup, "WorkgroupConstraint", diag)) ||
      (st = check_dims_known(&in, c->wave, c->nwave, "WaveConstraint", diag)))
    return st;
  gather_facts(&in);
  sg_plan *pl = calloc(1, sizeof *pl);
  if (!pl)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
  pl->target = tg;
  pl->pack = 1;
  pl->thread_rows = 1;
  snprintf(pl->arch, sizeof pl->arch, "%s", arch);
  pl->dtype = p->dtype;
  pl->out_dtype = p->out_dtype_set ? p->out_dtype : p->dtype;
  pl->n = p->n;
  pl->n_min = p->n_min ? p->n_min : p->n;
  snprintf(pl->template_name, sizeof pl->template_name, "%s", t->name);
  char out_part[16] = ""; /* "_f32" when the output dtype differs */
  if (pl->out_dtype != pl->dtype)
    snprintf(out_part, sizeof out_part, "_%s", sg_dtype_name(pl->out_dtype));
  char n_part[48]; /* "n8192", or "n1025to2048" for a range */
  if (sgp_dynamic_n(pl))
    snprintf(n_part, sizeof n_part, "n%lldto%lld", (long long)pl->n_min, (long long)pl->n);
  else
    snprintf(n_part, sizeof n_part, "n%lld", (long long)pl->n);
  snprintf(pl->kernel_name, sizeof pl->kernel_name, "softgen_%s_%s%s_%s%s", t->name,
           sg_dtype_name(p->dtype), out_part, n_part,
           p->layout == SG_LAYOUT_INNER ? "_inner" : "");
  pl->layout = p->layout;
  for (int i = 0; p->layout == SG_LAYOUT_INNER && i < t->ntensors; i++)
    if (t->tensors[i].repeat) {
      free(pl);
      return sg_diag_at(diag, SG_ERR_CONSTRAINT, t->file, t->tensors[i].line, t->tensors[i].col,
                        "tensor '%s' repeats its rows: the inner layout takes tensors of the "
                        "output's rows only (use the rows layout)", t->tensors[i].name);
    }
  st = p->layout == SG_LAYOUT_INNER ? sgp_resolve_inner(&in, pl, diag)
                                    : sgp_resolve_rows(&in, pl, diag);
  if (st) {
    free(pl);
    return st;
  }
  for (int i = 0; i < t->nops; i++)
    pl->nreductions += (unsigned)sgt_opcode_is_reduction(t->ops[i].code);
  if ((st = resolve_pipeline(&in, pl, diag))) {
    free(pl);
    return st;
  }
  /* reductions through shared memory: an online (max, sum) chain is one; each
   * buffer holds 2 floats a partial and there is one set per iteration parity */
  unsigned passes = pl->nreductions;
  pl->online = c->online ? c->online == 2 : sgp_policy_online(pl);
  pl->chosen.online = !c->online;
  if (!in.online_chains) /* no (max, exp, sum) chain to fuse */
    pl->online = 0;
  if (pl->online)
    passes -= (unsigned)in.online_chains;
  /* hold: 2 asked (an error where it cannot), 3 asked of a few-rows variant
   * (held where it can be, else not), 1 refused, 0 the policy's */
  int can_hold = pl->stage && pl->online && !in.causal && sgp_policy_hold_fits(pl);
  pl->hold = c->hold ? c->hold >= 2 && can_hold : can_hold && sgp_policy_hold(&in, pl);
  pl->chosen.hold = !c->hold;
  if (c->hold == 2 && !can_hold) {
    sg_status rej = sg_diag_at(diag, SG_ERR_CONSTRAINT, c->pipeline_loc.file,
                               c->pipeline_loc.line, c->pipeline_loc.col,
                               "PipelineConstraint(hold=1): only staged rows with online pairs, "
                               "no causal op and at most %u values a thread for %u threads hold "
                               "their exps (this plan: %s, %s%s, %u values a thread)",
                               sgp_policy_hold_values(pl), pl->block_threads,
                               pl->stage ? "staged" : "not staged",
                               pl->online ? "online pairs" : "no online pairs",
                               in.causal ? ", a causal op" : "", pl->elems_per_thread);
    free(pl);
    return rej;
  }
  if (pl->stage && pl->chosen.prefetch)
    pl->prefetch = sgp_policy_stage_ahead(&in, pl);
  pl->passes = passes;
  /* one partial a wave of the row: in the block's buffers, or with a cluster
   * in every block's, one per wave of the cluster (codegen/reduce.c) */
  unsigned hw = sgp_hw_cluster(pl); /* a grid split's blocks combine in global memory */
  if (hw > 1 && pl->threads_per_row < hw) { /* lane r of a row sends to block r */
    unsigned t_row = pl->threads_per_row;
    free(pl);
    return sg_diag_set(diag, SG_ERR_CONSTRAINT,
                       "a row split over a cluster of %u workgroups "
                       "needs at least %u threads a row to exchange its partials (this plan: "
                       "%u; give fewer columns a thread or a larger tile)",
                       hw, hw, t_row);
  }
  pl->smem_slots = pl->waves_per_row > 1 && hw == 1 ? passes : 0;
  pl->smem_parity_floats = pl->smem_slots * pl->rows_per_block * pl->waves_per_row * 2;
  pl->cluster_parity_floats =
      hw > 1 ? passes * pl->rows_per_block * hw * pl->waves_per_row * 2 : 0;
  pl->cluster_bytes = 2 * pl->cluster_parity_floats * 4;
  pl->cluster_bars = hw > 1 && sgp_policy_exchange_bars(pl) ? 2 * passes : 0;
  pl->smem_bytes = reduction_smem(pl, passes);
  if (pl->smem_bytes > tg->max_static_smem) {
    unsigned need = pl->smem_bytes;
    free(pl);
    return sg_diag_set(diag, SG_ERR_CONSTRAINT, "the reductions need %u bytes of shared "
                       "memory, over the %u bytes %s allows", need, tg->max_static_smem, tname);
  }
  pl->stage_groups = sgp_policy_stage_groups(pl);
  pl->blocks_per_sm = sgp_policy_registers_blocks_per_sm(&in, pl); /* staged: below */
  pl->head_order_bytes = sgp_policy_head_order_bytes(pl);
  if (pl->stage) {
    uint64_t pitch = (uint64_t)pl->chunks * pl->threads_per_row * pl->vec;
    uint64_t bytes = sgp_staged_bytes(&in, pl);
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
    pl->blocks_per_sm = sgp_policy_blocks_per_sm(pl);
    if (pl->hold)
      pl->blocks_per_sm = sgp_policy_hold_blocks_per_sm(pl);
  }
  if (pl->flat) { /* rows of at most 512 bytes, an image at most 16 KB */
    pl->stage_pitch = (unsigned)pl->n;
    uint64_t bytes = sgp_flat_bytes(t, pl);
    unsigned limit = tg->stage_smem(pl->arch);
    if (bytes + pl->smem_bytes > limit) { /* a template of many tensors; prefetch's second set */
      sg_status rej = sg_diag_set(diag, SG_ERR_CONSTRAINT, "flat rows: the images of %u rows "
                                  "of %lld columns%s need %llu bytes of shared memory, over the "
                                  "%u bytes a block of %s %s may use: %s", pl->rows_per_block,
                                  (long long)pl->n, pl->prefetch ? " (two sets of the read ones)"
                                                                 : "",
                                  (unsigned long long)bytes + pl->smem_bytes, limit, tname,
                                  pl->arch, pl->prefetch ? "keep one set (PipelineConstraint("
                                                           "rows_in_flight=1))"
                                                         : "keep the rows in registers "
                                                           "(PipelineConstraint(staging=0))");
      free(pl);
      return rej;
    }
    pl->stage_bytes = (unsigned)bytes;
    pl->blocks_per_sm = sgp_policy_flat_blocks_per_sm(&in, pl);
    pl->row_step = sgp_policy_flat_row_step(&in, pl);
  }
  /* PipelineConstraint(blocks_per_sm=K): K blocks asked of the register
   * allocator in place of the policy's request (the kernel's own plan; its
   * few-rows variants keep theirs), where the target can ask, the threads fit
   * a multiprocessor and, staged, the shared memory holds K blocks */
  pl->chosen.blocks_per_sm = !c->blocks_per_sm;
  if (c->blocks_per_sm) {
    unsigned k = c->blocks_per_sm;
    unsigned fit = sgp_min_u(tg->max_blocks_per_sm, tg->max_threads_per_sm / pl->block_threads);
    unsigned smem = pl->stage || pl->flat ? sgp_smem_blocks_per_sm(pl) : k;
    char why[160] = "";
    if (!tg->max_blocks_per_sm)
      snprintf(why, sizeof why,
               "the target's backend cannot ask its register allocator for "
               "resident blocks");
    else if (k > fit)
      snprintf(why, sizeof why, "at most %u blocks of %u threads fit a multiprocessor of %s %s",
               fit, pl->block_threads, tname, pl->arch);
    else if (k > smem)
      snprintf(why, sizeof why,
               "the plan's shared memory (%u bytes a block) lets %u blocks "
               "share a multiprocessor",
               pl->stage_bytes + pl->smem_bytes, smem);
    if (why[0]) {
      sg_status rej =
          sg_diag_at(diag, SG_ERR_CONSTRAINT, c->pipeline_loc.file, c->pipeline_loc.line,
                     c->pipeline_loc.col, "PipelineConstraint(blocks_per_sm=%u): %s", k, why);
      free(pl);
      return rej;
    }
    pl->blocks_per_sm = k;
  }
  *in_out = in;
  *out = pl;
  return SG_OK;
}

/* Adds WorkgroupConstraint(dim, tile, 0) (or a vector_shapes entry) to c, as if it
 * were given. */
static void add_tile(sgp_tile *tiles, int *ntiles, const char *dim, int64_t tile) {
  sgp_tile *w = &tiles[(*ntiles)++];
  memset(w, 0, sizeof *w);
  snprintf(w->dim, sizeof w->dim, "%s", dim);
  w->tile = tile;
  snprintf(w->loc.file, sizeof w->loc.file, "<few-rows variant>");
}

/* The few-rows variants of pl (plan/plan.h: pl->few), where the policy asks
 * for them: the same template and problem resolved again with the policy's
 * split fixed as given constraints would fix it (c.split: a split that need
 * not be even, which no constraint's text says; WorkgroupConstraint(M, 1), its
 * waves a block unless given, rows_in_flight 1, staging where the split needs
 * it), so that the one resolver plans them all. A variant that does not
 * resolve, or would need other vectors than pl's (the launch checks alignment
 * against pl's), is left out: pl alone computes every M. The variant for the
 * most rows is named <kernel>_few, the others <kernel>_few<max_rows>, a grid
 * split (c.split_grid: the row's workgroups separate blocks of the grid)
 * <kernel>_grid<max_rows>. */
static sg_plan *resolve_variant(const sgp_input *in, const sg_plan *pl, const sgp_few *f) {
  sg_constraints c = *in->c;
  c.rows_in_flight = 1;
  c.blocks_per_sm = 0;        /* a given request is the kernel's own: a variant asks the policy's */
  c.thread_rows = f->one_row; /* the variants are not flat, but one */
  if (f->one_row) {
    /* the plan's own constraints: flat again, one row a thread */
  } else if (f->plain) {
    c.staging = 1; /* rows in registers: not flat */
  } else {
    c.split = f->cluster;
    c.split_grid = f->grid;
    add_tile(c.workgroup, &c.nworkgroup, in->t->dims[in->row_dim], f->rows ? f->rows : 1);
    if (f->elements) /* one element a piece: vector_shapes={N: 1} */
      add_tile(c.vec, &c.nvec, in->t->dims[in->col_dim], 1);
    if (!c.waves_per_block[0]) /* given waves are honoured as in pl */
      c.waves_per_block[0] = f->threads / pl->wave, c.waves_per_block[1] = c.waves_per_block[2] = 1;
  }
  if (!c.staging && !f->one_row) /* the policy's choice; a given one is honoured */
    c.staging = f->staged ? 2 : 1;
  if (c.hold == 2) /* PipelineConstraint(hold=1): held where the variant can hold */
    c.hold = 3;
  sg_plan *v;
  sgp_input vin;
  sg_diag ignored;
  if (resolve_plan(in->t, &c, in->p, &v, &vin, &ignored))
    return NULL;
  if (sgp_row_align(v) > sgp_row_align(pl) || v->cluster != f->cluster ||
      v->grid_split != f->grid ||
      (v->rows_per_block != (f->rows ? f->rows : 1) && !f->plain && !f->one_row) || v->prefetch ||
      v->flat != f->one_row) {
    free(v);
    return NULL;
  }
  /* what the few-rows policy fixed is its choice, not a constraint's */
  v->chosen.cluster = v->chosen.rows = v->chosen.prefetch = 1;
  v->chosen.vec |= f->elements;
  v->chosen.waves |= !in->c->waves_per_block[0];
  v->chosen.stage |= !in->c->staging;
  v->chosen.online |= !in->c->online;
  v->max_rows = f->max_rows;
  if (f->alone && (v->alone_smem = sgp_policy_alone_smem(v)) != 0)
    v->blocks_per_sm = 0; /* one block a multiprocessor: no register cap to ask for */
  if (v->cluster_bars && !sgp_policy_exchange_bars(v)) { /* now that its launch is known */
    v->cluster_bars = 0;
    v->smem_bytes = reduction_smem(v, v->passes);
    if (v->stage && !v->hold)
      v->blocks_per_sm = sgp_policy_blocks_per_sm(v);
  }
  return v;
}

/* The grid splits' workspace (codegen/reduce.c, the grid stage): one slice a
 * stream, in which each grid split has an area of its own, a row block's
 * tagged partials for each of its max_rows. Own areas: a variant's blocks
 * derive the launch's tag from their own words, so the words of one row
 * block must only ever be written together, by launches of one variant (two
 * variants of other splits, launched in turn on one stream, would otherwise
 * leave a row block's words with two tags, and its blocks waiting for each
 * other's). */
static void place_workspace(sg_plan *pl) {
  unsigned total = 0;
  for (unsigned i = 0; i < pl->nfew; i++)
    if (pl->few[i]->grid_split) {
      pl->few[i]->workspace_offset = total;
      total += pl->few[i]->max_rows * sgp_grid_row_bytes(pl->few[i]);
    }
  for (unsigned i = 0; i < pl->nfew; i++)
    if (pl->few[i]->grid_split)
      pl->few[i]->workspace_bytes = total;
}

static void resolve_few(const sgp_input *in, sg_plan *pl) {
  sgp_few f[SGP_MAX_FEW];
  unsigned n = sgp_policy_few_rows(in, pl, f);
  if (in->c->nworkgroup + 1 > SGP_MAX_DIMS)
    return;
  for (unsigned i = 0; i < n; i++) {
    sg_plan *v = resolve_variant(in, pl, &f[i]);
    if (v)
      pl->few[pl->nfew++] = v;
  }
  place_workspace(pl);
  for (unsigned i = 0; i < pl->nfew; i++) {
    sg_plan *v = pl->few[i];
    int len = v->grid_split
                  ? snprintf(v->kernel_name, sizeof v->kernel_name, "%s_grid%u", pl->kernel_name,
                             v->max_rows)
              : i + 1 == pl->nfew
                  ? snprintf(v->kernel_name, sizeof v->kernel_name, "%s_few", pl->kernel_name)
                  : snprintf(v->kernel_name, sizeof v->kernel_name, "%s_few%u", pl->kernel_name,
                             v->max_rows);
    if (len < 0 || (size_t)len >= sizeof v->kernel_name) { /* none: the kernel runs every M */
      for (unsigned j = 0; j < pl->nfew; j++)
        free(pl->few[j]);
      pl->nfew = 0;
    }
  }
}

sg_status sg_plan_resolve(const sg_template *t, const sg_constraints *c, const sg_problem *p,
                          sg_plan **out, sg_diag *diag) {
  if (!t || !p || !out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_plan_resolve: null argument");
  sgp_input in;
  sg_status st = resolve_plan(t, c, p, out, &in, diag);
  if (!st && !sgp_dynamic_n(*out)) /* a range of N: no few-rows variants */
    resolve_few(&in, *out);
  return st;
}

void sg_plan_destroy(sg_plan *plan) {
  for (unsigned i = 0; plan && i < plan->nfew; i++)
    free(plan->few[i]);
  free(plan);
}

const char *sg_plan_kernel_name(const sg_plan *plan) { return plan ? plan->kernel_name : ""; }
const char *sg_plan_asm_ext(const sg_plan *plan) { return plan->target->asm_ext; }
const char *sg_plan_object_ext(const sg_plan *plan) { return plan->target->object_ext; }
const char *sg_plan_shared_ext(const sg_plan *plan) { return plan->target->shared_ext; }

