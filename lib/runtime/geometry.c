/* geometry.c - the launch geometry of a kernel (softgen/runtime.h:
 * sgrt_launch_geometry): which entry point (the kernel or one of its
 * few-rows variants, cluster or grid-split), grid, block, cluster, dynamic
 * shared memory and workspace from the code object's metadata, the rows M
 * and the device facts that matter (the blocks it keeps resident).
 *
 * Needs: softgen/meta.h. Produces: sgrt_launch_geometry, the one grid rule of
 * softgen: sgrt_kernel_launch (runtime.c) launches with it, and the MLIR front
 * end (lib/mlir/kernels.c) writes it into each gpu.launch_func. Pure: no
 * driver, no state; libsoftgen_rt exports it and libsoftgen_mlir carries a
 * copy of this object (the compiler does not load the runtime). */
#include "softgen/runtime.h"

/* Blocks that share each row block in entry v (NULL: the kernel m itself): a
 * grid-split variant's split, else the cluster. */
static uint64_t per_row_block(const sg_meta *m, const sg_meta_variant *v) {
  unsigned n = v ? (v->split ? v->split : v->cluster) : m->cluster;
  return n ? n : 1;
}

/* Row blocks of rpb rows (at least 1) that hold `rows` rows. */
static uint64_t row_blocks(int64_t rows, uint64_t rpb) {
  return (uint64_t)rows / rpb + ((uint64_t)rows % rpb != 0);
}

/* The few-rows variant for `rows` rows: the first of m's (in their order,
 * softgen/meta.h) with M from 1 to its max_rows whose blocks all stay resident at
 * once where the device says how many do (few_resident[i]; 0: unknown). A
 * cluster variant is taken when the count is unknown (max_rows alone
 * decides: a cluster's blocks are co-scheduled by the hardware); a grid-split
 * variant never is, nor past the largest grid: its blocks wait for each other
 * at a barrier, so a block that is not resident would hang the launch. Its
 * index + 1, or 0 for the kernel. */
static int pick_few(const sg_meta *m, int64_t rows, const uint64_t *few_resident) {
  for (int i = 0; rows >= 1 && i < m->nvariants; i++) {
    const sg_meta_variant *v = &m->variants[i];
    if (rows > v->max_rows)
      continue;
    uint64_t rpb = v->rows_per_block ? v->rows_per_block : 1;
    uint64_t blocks = row_blocks(rows, rpb) * per_row_block(m, v); /* rows <= max_rows */
    uint64_t resident = few_resident ? few_resident[i] : 0;
    if (v->split ? resident > 0 && blocks <= resident && blocks <= SGRT_MAX_GRID
                 : resident == 0 || blocks <= resident)
      return i + 1;
  }
  return 0;
}

sg_status sgrt_launch_geometry(const sg_meta *m, int64_t rows, uint64_t resident,
                               const uint64_t *few_resident, sgrt_geometry *out, sg_diag *diag) {
  if (!m || !out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_launch_geometry: null argument");
  if (rows < 0)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT,
                       "sgrt_launch_geometry: %lld rows (M must be >= 0)", (long long)rows);
  int few = pick_few(m, rows, few_resident);
  const sg_meta_variant *v = few ? &m->variants[few - 1] : NULL;
  uint64_t rpb = v ? v->rows_per_block : m->rows_per_block;
  unsigned cluster = v ? (v->split ? 1 : v->cluster) : m->cluster;
  rpb = rpb ? rpb : 1;
  cluster = cluster ? cluster : 1;
  /* a cluster of `cluster` blocks, or a grid-split variant's `split` blocks,
   * shares each row block; past SGRT_MAX_GRID row blocks (M beyond any memory)
   * the product could wrap 64 bits, and the cap below applies anyway */
  uint64_t blocks = row_blocks(rows, rpb);
  uint64_t grid = blocks > SGRT_MAX_GRID ? UINT64_MAX : blocks * per_row_block(m, v);
  /* a persistent kernel gets at most as many blocks as the device keeps
   * resident (it strides over the rest): whole clusters of them; the
   * few-rows variants are never persistent */
  if (m->persistent && !few) {
    resident -= resident % cluster;
    if (resident && grid > resident)
      grid = resident;
  }
  if (grid > SGRT_MAX_GRID) /* the kernel strides over row blocks (never a grid variant's:
                               pick_few) */
    grid = SGRT_MAX_GRID - SGRT_MAX_GRID % cluster;
  out->grid = grid;
  out->block = v ? v->block : m->block;
  out->cluster = cluster;
  out->dsmem = v ? v->dsmem : m->dsmem;
  out->few = few;
  out->workspace = v ? v->workspace : 0;
  return SG_OK;
}
