/* given.c - what the given constraints say, where both layouts read it the
 * same way (plan/plan.h): tile lookups, the rows tile, the wave and the
 * block's waves, checked against the target. Needs: plan/policy.c for the
 * wave when none is given. Produces: plan fields or a rejection at the
 * constraint's file:line:col. */
#include <string.h>

#include "plan/policy.h"
#include "target/target.h"

#define REJECT_AT(loc, ...) \
  sg_diag_at(diag, SG_ERR_CONSTRAINT, (loc).file, (loc).line, (loc).col, __VA_ARGS__)

const sgp_tile *sgp_find_tile(const sgp_tile *list, int n, const char *dim) {
  for (int i = 0; i < n; i++)
    if (strcmp(list[i].dim, dim) == 0)
      return &list[i];
  return NULL;
}

sg_status sgp_check_rows_tile(const sgp_tile *wg_m, const char *M, sg_diag *diag) {
  if (wg_m && wg_m->tile == SGP_FULL)
    return REJECT_AT(wg_m->loc, "WorkgroupConstraint(%s, %s): %s is the run-time row count; give "
                     "rows per workgroup as an integer", M, M, M);
  if (wg_m && wg_m->grid_axis != 0)
    return REJECT_AT(wg_m->loc, "WorkgroupConstraint(%s, ..., %d): softgen launches a 1-D grid "
                     "over row blocks, so %s's grid_axis must be 0", M, wg_m->grid_axis, M);
  return SG_OK;
}

sg_status sgp_resolve_wave(const sg_constraints *c, sg_plan *pl, sg_diag *diag) {
  const sgh_target *tg = pl->target;
  pl->wave = c->threads_per_wave;
  if (!pl->wave) {
    pl->wave = sgp_policy_wave(pl);
    pl->chosen.wave = 1;
  }
  if (!tg->wave_ok(pl->arch, pl->wave))
    return REJECT_AT(c->hw_loc, "HardwareConstraint: threads_per_wave=%u is not a wave size of "
                     "%s %s (%s)", pl->wave, tg->name, pl->arch, tg->wave_sizes(pl->arch));
  return SG_OK;
}

sg_status sgp_given_waves(const sg_constraints *c, const sg_plan *pl, unsigned *waves,
                          sg_diag *diag) {
  const sgh_target *tg = pl->target;
  *waves = 0;
  if (!c->waves_per_block[0])
    return SG_OK;
  uint64_t w = (uint64_t)c->waves_per_block[0] * c->waves_per_block[1] * c->waves_per_block[2];
  if (w * pl->wave > tg->max_block_threads)
    return REJECT_AT(c->hw_loc, "HardwareConstraint: %llu waves of %u threads is %llu threads "
                     "per block, more than the %u %s allows", (unsigned long long)w, pl->wave,
                     (unsigned long long)w * pl->wave, tg->max_block_threads, tg->name);
  *waves = (unsigned)w;
  return SG_OK;
}
