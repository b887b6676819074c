/* softgen/diag.h - status codes and diagnostics shared by every stage.
 *
 * Every fallible function of softgen returns an sg_status and, when given a
 * non-NULL sg_diag, fills it with one human-readable line, in the form
 * "file:line:col: message" when the error has a source location. */
#ifndef SOFTGEN_DIAG_H
#define SOFTGEN_DIAG_H

#include "softgen/api.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sg_status {
  SG_OK = 0,
  SG_ERR_INVALID_ARGUMENT, /* a caller passed something unusable */
  SG_ERR_PARSE,            /* a template, constraints file or code object is malformed */
  SG_ERR_CONSTRAINT,       /* constraints cannot be satisfied for this problem */
  SG_ERR_CODEGEN,          /* LLVM rejected the module or could not emit it */
  SG_ERR_IO,               /* a file could not be read or written */
  SG_ERR_TOOL,             /* an external tool (ptxas, ld.lld) is missing or failed */
  SG_ERR_NO_MEMORY,        /* host allocation failed */
  SG_ERR_UNSUPPORTED,      /* valid request that this build or target cannot do */
  SG_ERR_NO_DRIVER,        /* the GPU driver library could not be opened */
  SG_ERR_DRIVER,           /* the GPU driver returned an error */
  SG_ERR_MISMATCH          /* launch arguments disagree with the code object */
} sg_status;

/* One diagnostic line, owned by the caller (usually on the stack). */
typedef struct sg_diag {
  sg_status status;
  char message[1024];
} sg_diag;

/* Name of a status, e.g. "SG_ERR_PARSE". Never NULL. */
SG_API const char *sg_status_name(sg_status status);

/* Clears a diagnostic so that message is the empty string. diag may be NULL. */
SG_API void sg_diag_clear(sg_diag *diag);

/* Fills diag (when non-NULL) with a printf-style message and returns status. */
SG_API sg_status sg_diag_set(sg_diag *diag, sg_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* As sg_diag_set, prefixed with "file:line:col: " (line/col omitted when 0). */
SG_API sg_status sg_diag_at(sg_diag *diag, sg_status status, const char *file, int line, int col,
                     const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
