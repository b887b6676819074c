/* geometry.c - the launch geometry of a kernel (softgen/runtime.h:
 * sgrt_launch_geometry): grid, block, cluster and dynamic shared memory from
 * the kernel's metadata, the rows M and the one device fact that matters.
 *
 * Needs: softgen/meta.h. Produces: sgrt_launch_geometry, the one grid rule of
 * softgen: sgrt_kernel_launch (runtime.c) launches with it, and the MLIR front
 * end (lib/mlir/kernels.c) writes it into each gpu.launch_func. Pure: no
 * driver, no state; libsoftgen_rt exports it and libsoftgen_mlir carries a
 * copy of this object (the compiler does not load the runtime). */
#include "softgen/runtime.h"

sg_status sgrt_launch_geometry(const sg_meta *m, int64_t rows, uint64_t resident,
                               sgrt_geometry *out, sg_diag *diag) {
  if (!m || !out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_launch_geometry: null argument");
  if (rows < 0)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT,
                       "sgrt_launch_geometry: %lld rows (M must be >= 0)", (long long)rows);
  uint64_t rpb = m->rows_per_block ? m->rows_per_block : 1;
  unsigned cluster = m->cluster ? m->cluster : 1;
  /* a cluster of `cluster` blocks shares each row block */
  uint64_t grid = ((uint64_t)rows / rpb + ((uint64_t)rows % rpb != 0)) * cluster;
  /* a persistent kernel gets at most as many blocks as the device keeps
   * resident (it strides over the rest): whole clusters of them */
  if (m->persistent) {
    resident -= resident % cluster;
    if (resident && grid > resident)
      grid = resident;
  }
  if (grid > SGRT_MAX_GRID) /* the kernel strides over row blocks */
    grid = SGRT_MAX_GRID - SGRT_MAX_GRID % cluster;
  out->grid = grid;
  out->block = m->block;
  out->cluster = cluster;
  out->dsmem = m->dsmem;
  return SG_OK;
}
