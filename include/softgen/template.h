/* softgen/template.h - kernel templates (.sgt files in kernels-templates/).
 *
 * A template names typed memory arguments over symbolic dims and the op
 * sequence that runs on every row, in the spirit of Wave's kernel body:
 *
 *   kernel softmax(x: in[M, N] T, y: out[M, N] T)
 *     a  = read(x)
 *     m  = max(a, dim=N)
 *     ...
 *     write(r, y)
 *
 * Parsing builds a typed op list and checks it (undefined values, unknown ops
 * and dims, shape mismatches, reductions over a dim the value lacks); errors
 * come back as "file:line:col: message". See kernels-templates/README.md. */
#ifndef SOFTGEN_TEMPLATE_H
#define SOFTGEN_TEMPLATE_H

#include <stdio.h>

#include "softgen/api.h"
#include "softgen/diag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sg_template sg_template;

/* Parses template text (len bytes); file names the source in diagnostics.
 * On success *out owns the template; the caller calls sg_template_destroy. */
SG_API sg_status sg_template_parse(const char *file, const char *text, size_t len,
                                   sg_template **out, sg_diag *diag);

/* Reads and parses a template file. */
SG_API sg_status sg_template_load(const char *path, sg_template **out, sg_diag *diag);

SG_API void sg_template_destroy(sg_template *t);

/* The kernel's name as the template declares it, e.g. "softmax". */
SG_API const char *sg_template_name(const sg_template *t);

/* Prints the typed op list, one op a line ("%3 = exp %2 : [M, N] f32"). */
SG_API void sg_template_print(const sg_template *t, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
