/* support/io.h - whole-file reads and all-or-nothing writes (internal).
 * Writes go to "PATH.tmp.<pid>" and are renamed into place only when complete,
 * so a failed run never leaves a partial output file. */
#ifndef SG_INTERNAL_IO_H
#define SG_INTERNAL_IO_H

#include <stddef.h>

#include "softgen/diag.h"

/* Reads path (at most max bytes) into a malloc'd, NUL-terminated buffer. */
sg_status sg_read_file(const char *path, size_t max, char **out, size_t *len, sg_diag *diag);

/* Writes data to path atomically (temporary file + rename). */
sg_status sg_write_file(const char *path, const void *data, size_t len, sg_diag *diag);

#endif
