/* softgen/constraints.h - Wave's constraint vocabulary, and the plan that
 * resolving constraints for one problem produces.
 *
 *   HardwareConstraint(threads_per_wave=32, waves_per_block=(8, 1, 1),
 *                      vector_shapes={M: 1, N: 8})
 *   WorkgroupConstraint(M, 1, 0)       # dim, tile (rows per workgroup), grid axis
 *   WorkgroupConstraint(N, N, 1)       # a whole row per workgroup
 *   WaveConstraint(M, 1)               # rows per wave
 *   WaveConstraint(N, 1024)            # columns per wave
 *
 * Constraints come from files and/or the command line (same syntax); anything
 * not given is chosen by softgen's policy (one place: lib/plan/policy.c, each
 * threshold beside its measurement). Given constraints are honoured
 * or rejected with the rule they break; they are never silently changed.
 * docs: kernels-templates/README.md. */
#ifndef SOFTGEN_CONSTRAINTS_H
#define SOFTGEN_CONSTRAINTS_H

#include <stdint.h>
#include <stdio.h>

#include "softgen/api.h"
#include "softgen/diag.h"
#include "softgen/meta.h"
#include "softgen/template.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sg_constraints sg_constraints;
typedef struct sg_plan sg_plan;

/* An empty constraint set (everything chosen automatically). */
SG_API sg_status sg_constraints_create(sg_constraints **out, sg_diag *diag);
SG_API void sg_constraints_destroy(sg_constraints *c);

/* Adds the constraints in text (file names the source for diagnostics). A
 * constraint kind or dim given twice is an error naming both places. */
SG_API sg_status sg_constraints_parse(sg_constraints *c, const char *file, const char *text,
                                      size_t len, sg_diag *diag);
SG_API sg_status sg_constraints_load(sg_constraints *c, const char *path, sg_diag *diag);

/* The problem a plan is resolved for: N and dtype fixed at generation time
 * (M stays a run-time argument), the target and its arch, and the layout:
 * SG_LAYOUT_ROWS (0, the default) reduces contiguous rows; SG_LAYOUT_INNER
 * reduces dim N of tensors viewed as [outer, N, inner] (softmax over a
 * non-last dim without a copy: one thread a row, inner a run-time argument;
 * softgen/meta.h, docs/constraints.md).
 * A range of N: n_min from 1 to n (0: n, the exact N) plans one kernel for
 * every N in [n_min, n], taking N at run time ("n_min" and "arg cols" in
 * softgen/meta.h): planned for n, its rows peeled and every column checked
 * against the run-time N; rows layout only, in registers (over a cluster as
 * N = n would be) or tiled; no staging, no few-rows variants. */
typedef struct sg_problem {
  int64_t n;
  sg_dtype dtype;     /* "T" of the template: the input dtype */
  const char *target; /* "nvptx" (default when NULL), "amdgpu" or "host" */
  const char *arch;   /* NULL: the target's default */
  int out_dtype_set;  /* 0: "U" (the template's output dtype) is dtype */
  sg_dtype out_dtype; /* "U" when out_dtype_set */
  sg_layout layout;
  int64_t n_min; /* 0 (or n): N is n; else the kernel takes any N in [n_min, n] */
} sg_problem;

/* The ranges of N that kernels for a run-time N cover (softgen's policy,
 * plan/policy.c): ranges[i] = {n_min, n} of one sg_problem each, increasing
 * and adjacent, from 1 to 2^31-1, or, with max_n from 1 to 2^31-1, the ranges
 * up to max_n, the last ending there (max_n <= 0: no bound); at most cap of
 * them (SG_N_RANGES_MAX holds all). Returns their count. */
#define SG_N_RANGES_MAX 16
SG_API int sg_plan_n_ranges(int64_t max_n, int64_t ranges[][2], int cap);

/* Resolves constraints for template and problem into a plan, or rejects them
 * with SG_ERR_CONSTRAINT and a message naming the broken rule and limit. */
SG_API sg_status sg_plan_resolve(const sg_template *t, const sg_constraints *c,
                                 const sg_problem *p, sg_plan **out, sg_diag *diag);
SG_API void sg_plan_destroy(sg_plan *plan);

/* Prints every number of the plan, marking which were chosen automatically. */
SG_API void sg_plan_print(const sg_plan *plan, FILE *out);

/* The kernel's symbol, e.g. "softgen_softmax_f16_n8192" ("..._n64_inner" in
 * the inner layout). */
SG_API const char *sg_plan_kernel_name(const sg_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
