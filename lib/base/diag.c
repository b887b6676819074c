/* diag.c - status names and diagnostic formatting (include/softgen/diag.h).
 * Needs only libc; linked into both the compiler and the runtime library. */
#include "softgen/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *sg_status_name(sg_status status) {
  switch (status) {
#define SG_NAME(s) \
  case s:          \
    return #s;
    SG_NAME(SG_OK)
    SG_NAME(SG_ERR_INVALID_ARGUMENT)
    SG_NAME(SG_ERR_PARSE)
    SG_NAME(SG_ERR_CONSTRAINT)
    SG_NAME(SG_ERR_CODEGEN)
    SG_NAME(SG_ERR_IO)
    SG_NAME(SG_ERR_TOOL)
    SG_NAME(SG_ERR_NO_MEMORY)
    SG_NAME(SG_ERR_UNSUPPORTED)
    SG_NAME(SG_ERR_NO_DRIVER)
    SG_NAME(SG_ERR_DRIVER)
    SG_NAME(SG_ERR_MISMATCH)
#undef SG_NAME
  }
  return "SG_ERR_UNKNOWN";
}

void sg_diag_clear(sg_diag *diag) {
  if (diag) {
    diag->status = SG_OK;
    diag->message[0] = '\0';
  }
}

static void vformat(sg_diag *diag, size_t at, const char *fmt, va_list ap) {
  if (at < sizeof diag->message)
    vsnprintf(diag->message + at, sizeof diag->message - at, fmt, ap);
}

sg_status sg_diag_set(sg_diag *diag, sg_status status, const char *fmt, ...) {
  if (diag) {
    va_list ap;
    va_start(ap, fmt);
    diag->status = status;
    vformat(diag, 0, fmt, ap);
    va_end(ap);
  }
  return status;
}

sg_status sg_diag_at(sg_diag *diag, sg_status status, const char *file, int line, int col,
                     const char *fmt, ...) {
  if (diag) {
    int n;
    va_list ap;
    if (line > 0 && col > 0)
      n = snprintf(diag->message, sizeof diag->message, "%s:%d:%d: ", file, line, col);
    else if (line > 0)
      n = snprintf(diag->message, sizeof diag->message, "%s:%d: ", file, line);
    else
      n = snprintf(diag->message, sizeof diag->message, "%s: ", file);
    va_start(ap, fmt);
    diag->status = status;
    vformat(diag, n < 0 ? 0 : (size_t)n, fmt, ap);
    va_end(ap);
  }
  return status;
}
