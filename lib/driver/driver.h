/* driver/driver.h - the driver's entry for front ends that hold parsed inputs
 * (internal, prefix sgd_; the public entry points are softgen/compile.h).
 * Needs: softgen/compile.h. Produces: sgd_compilation_create_parsed, through
 * which lib/mlir compiles a template or constraints its caller parsed. */
#ifndef SG_INTERNAL_DRIVER_H
#define SG_INTERNAL_DRIVER_H

#include "softgen/compile.h"

/* sg_compilation_create for a template and constraints already parsed: t and
 * cons (NULL: everything automatic) are borrowed and must outlive *out. o gives
 * the problem, outputs, optional outputs and tools; its template_src,
 * templates_dir and constraints are not read. The cache is off for such a
 * compilation (stats.cache_dir ""): a parsed object has no text to key it by,
 * and the plan alone does not key it (give the texts to sg_compilation_create
 * to be cached). Emit, stats and destroy as for sg_compilation_create. */
sg_status sgd_compilation_create_parsed(const sg_template *t, const sg_constraints *cons,
                                        const sg_compile_options *o, sg_compilation **out,
                                        sg_diag *diag);

#endif
