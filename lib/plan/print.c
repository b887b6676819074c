/* print.c - a plan as text (softgen --print-config, -v): every number of the
 * plan, with "(auto)" where the policy chose it (plan/policy.c), then its
 * few-rows variant's, when it has one. Needs:
 * plan/plan.h. Produces: text on f. */
#include <stdio.h>

#include "plan/plan.h"
#include "target/target.h"

void sg_plan_print(const sg_plan *pl, FILE *f) {
  const char *a[2] = {"", "  (auto)"};
  fprintf(f, "plan %s\n", pl->kernel_name);
  fprintf(f, "  template          %s\n", pl->template_name);
  fprintf(f, "  target            %s %s (%s)\n", pl->target->name, pl->arch, pl->target->triple);
  fprintf(f, "  dtype             %s", sg_dtype_name(pl->dtype));
  if (pl->out_dtype != pl->dtype)
    fprintf(f, " in, %s out (U)", sg_dtype_name(pl->out_dtype));
  fprintf(f, ", accumulate f32\n");
  if (sgp_dynamic_n(pl))
    fprintf(f, "  N                 %lld to %lld   (N and M are run-time arguments)\n",
            (long long)pl->n_min, (long long)pl->n);
  else
    fprintf(f, "  N                 %lld   (M is a run-time argument)\n", (long long)pl->n);
  if (pl->layout == SG_LAYOUT_INNER)
    fprintf(f, "  layout            inner: tensors [outer, N, inner], row m = o x inner + i at "
            "o x stride + n x nstride + i (inner, strides: run-time); a thread a row, adjacent "
            "threads adjacent i\n");
  if (pl->grid_split)
    fprintf(f, "  cluster           none: a grid split, %u blocks of the grid per row, %lld "
            "columns each", pl->cluster, (long long)pl->tile_n);
  else
    fprintf(f, "  cluster           %u workgroups per row, %lld columns each", pl->cluster,
            (long long)pl->tile_n);
  if (!pl->peel && pl->cluster > 1 && pl->tile_n * pl->cluster != pl->n)
    fprintf(f, ", the last %lld", (long long)(pl->n - (pl->cluster - 1) * pl->tile_n));
  fprintf(f, "%s\n", a[pl->chosen.cluster]);
  fprintf(f, "  threads_per_wave  %u%s\n", pl->wave, a[pl->chosen.wave]);
  fprintf(f, "  waves_per_block   %u%s\n", pl->waves_per_block, a[pl->chosen.waves]);
  fprintf(f, "  block_threads     %u\n", pl->block_threads);
  fprintf(f, "  rows_per_block    %u%s\n", pl->rows_per_block, a[pl->chosen.rows]);
  fprintf(f, "  threads_per_row   %u\n", pl->threads_per_row);
  fprintf(f, "  rows_per_wave     %u\n", pl->rows_per_wave);
  fprintf(f, "  waves_per_row     %u\n", pl->waves_per_row);
  fprintf(f, "  vector            %u elements = %u bytes%s\n", pl->vec, pl->vec_bytes,
          a[pl->chosen.vec]);
  if (pl->pack > 1)
    fprintf(f,
            "  packed_rows       %u rows a vector of %u elements (one access where the "
            "tensor's rows are one aligned span and all %u below M, else element by element)"
            "%s\n",
            pl->pack, pl->vec, pl->pack, a[pl->chosen.pack]);
  if (pl->peel)
    fprintf(f,
            "  peeled_rows       yes (rows of any alignment: each row's columns shifted to "
            "its own vector boundary; its partial head and tail vectors read whole within the "
            "tensor's rows, else element by element, and written element by element)"
            "%s\n",
            a[1]);
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
    fprintf(f,
            "  staging           shared memory: %u bytes, %u row%s x %u elements per read "
            "(asynchronous copies in up to %u groups; %s%s)%s; %u blocks a "
            "multiprocessor\n",
            pl->stage_bytes, pl->rows_per_block, pl->rows_per_block == 1 ? "" : "s",
            pl->stage_pitch, pl->stage_groups,
            pl->hold ? "pass one's exps held in registers for the writes"
                     : "each pass re-reads them",
            !pl->hold         ? ""
            : pl->chosen.hold ? " (auto)"
                              : " (given)",
            a[pl->chosen.stage], pl->blocks_per_sm ? pl->blocks_per_sm : 1);
  else if (pl->flat) {
    fprintf(f,
            "  staging           flat: %u rows a block (one span where the strides are N) "
            "copied to shared memory and written back in 16-byte pieces, %u bytes; %u row%s a "
            "thread%s\n",
            pl->rows_per_block, pl->stage_bytes, pl->thread_rows, pl->thread_rows == 1 ? "" : "s",
            a[pl->chosen.thread_rows]);
    if (pl->row_step > 1)
      fprintf(f,
              "  row_step          %u (thread group g = tid / %u of a pass takes row g x %u mod "
              "%u: a wave's rows on different shared-memory banks)  (auto)\n",
              pl->row_step, pl->threads_per_row, pl->row_step,
              pl->block_threads / pl->threads_per_row);
  } else
    fprintf(f, "  staging           registers (each thread holds its values across the "
            "passes)%s\n", a[pl->chosen.stage]);
  if (pl->blocks_per_sm && (!pl->stage || !pl->chosen.blocks_per_sm)) /* registers capped */
    fprintf(f,
            "  resident          %u blocks a multiprocessor asked of the register "
            "allocator  %s\n",
            pl->blocks_per_sm, pl->chosen.blocks_per_sm ? "(auto)" : "(given)");
  unsigned passes = pl->passes;
  fprintf(f, "  reductions        %u%s in %u pass%s%s: thread (%u values)", pl->nreductions,
          pl->online ? " (max and sum fused: online softmax pairs)" : "", passes,
          passes == 1 ? "" : "es", a[pl->chosen.online && pl->online], pl->elems_per_thread);
  if (pl->pack > 1)
    fprintf(f, " in %u segments of %u lanes (%u xor steps each)", pl->pack, pl->vec / pl->pack,
            (unsigned)__builtin_ctz(pl->vec / pl->pack));
  fprintf(f, " -> wave (%u xor-shuffle steps over %u lanes)", pl->shuffle_steps,
          pl->threads_per_row < pl->wave ? pl->threads_per_row : pl->wave);
  unsigned hw = sgp_hw_cluster(pl);
  if (hw > 1)
    fprintf(f,
            " -> cluster (%u x %u wave partials in distributed shared memory, %s a pass, "
            "read by each wave's lanes in parallel)",
            pl->cluster, pl->waves_per_row,
            pl->cluster_bars ? "sent with st.async, 1 transaction barrier" : "1 cluster barrier");
  else if (pl->waves_per_row > 1)
    fprintf(f, " -> block (%u wave partials in shared memory, 1 barrier a pass, read by each "
            "wave's lanes in parallel)", pl->waves_per_row);
  if (pl->grid_split)
    fprintf(f, " -> grid (%u block partials in the workspace, 1 barrier in global memory a "
            "pass, read by each wave's lanes in parallel)", pl->cluster);
  if (hw > 1)
    fprintf(f,
            "\n  shared_memory     %u bytes (2 iterations x %u buffer%s x %u rows x %u x %u "
            "cluster partials x 2 floats%s)\n",
            pl->smem_bytes, passes, passes == 1 ? "" : "s", pl->rows_per_block, pl->cluster,
            pl->waves_per_row,
            pl->cluster_bars ? ", and their transaction barriers, 8 bytes each" : "");
  else
    fprintf(f, "\n  shared_memory     %u bytes (2 iterations x %u buffer%s x %u rows x %u partials "
            "x 2 floats)\n", pl->smem_bytes, pl->smem_slots, pl->smem_slots == 1 ? "" : "s",
            pl->rows_per_block, pl->waves_per_row);
  if (pl->grid_split)
    fprintf(f, "  grid              x = %u x ceil(M / %u) blocks, all resident (a cooperative "
            "launch), one row block each\n", pl->cluster, pl->rows_per_block);
  else if (pl->cluster > 1)
    fprintf(f, "  grid              x = %u x ceil(M / %u) blocks in clusters of %u, grid-stride "
            "loop over clusters\n", pl->cluster, pl->rows_per_block, pl->cluster);
  else
    fprintf(f, "  grid              x = ceil(M / %u) blocks (capped at 2^31-1), grid-stride loop\n",
            pl->rows_per_block);
  if (pl->max_rows)
    fprintf(f, "  launched          for M = 1 to %u, when its ceil(M / %u) x %u blocks stay "
            "resident at once (sgrt_launch_geometry)\n", pl->max_rows, pl->rows_per_block,
            pl->cluster);
  if (pl->grid_split)
    fprintf(f, "  workspace         a stream's slice of %u bytes (the last argument), from "
            "byte %u: %u row blocks x %u pass%s x %u partials, each float beside the launch's "
            "tag\n", pl->workspace_bytes, pl->workspace_offset, pl->max_rows, pl->passes,
            pl->passes == 1 ? "" : "es", pl->cluster);
  if (pl->alone_smem)
    fprintf(f, "  alone             each block launched with %u bytes of dynamic shared memory "
            "(over half a multiprocessor's): one block a multiprocessor\n", pl->alone_smem);
  for (unsigned i = 0; i < pl->nfew; i++) {
    const sg_plan *v = pl->few[i];
    if (v->flat) /* the flat plan one row a thread (sgp_policy_few_rows) */
      fprintf(f,
              "  few_rows          %s: flat, %u rows a block of %u threads, a row a thread, "
              "for M up to %u%s\n",
              v->kernel_name, v->rows_per_block, v->block_threads, v->max_rows, a[1]);
    else if (v->cluster == 1) /* not flat, or rows spread over more blocks (sgp_policy_few_rows) */
      fprintf(f,
              "  few_rows          %s: %s%u row%s a block of %u threads, %u %s%s a thread, "
              "for M up to %u%s\n",
              v->kernel_name, pl->flat ? "not flat, " : "", v->rows_per_block,
              v->rows_per_block == 1 ? "" : "s", v->block_threads, v->chunks,
              v->vec == 1 ? "element" : "vector", v->chunks == 1 ? "" : "s", v->max_rows, a[1]);
    else
      fprintf(f, "  few_rows          %s: %u %s per row for M up to %u%s\n",
              v->kernel_name, v->cluster, v->grid_split ? "blocks of the grid" : "workgroups",
              v->max_rows, a[1]);
  }
  for (unsigned i = 0; i < pl->nfew; i++)
    sg_plan_print(pl->few[i], f);
}
