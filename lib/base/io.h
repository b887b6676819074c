/* base/io.h - bounded whole-file reads and careful output writes (internal).
 *
 * Reads (sgb_read_input): the file is opened without blocking (O_NONBLOCK, so a FIFO
 * is refused at once instead of waited on), must be a regular file no larger than the
 * caller's limit (each kind of input has one, below), and is read whole, bounded by
 * its size. Errors name the path, what is wrong and the limit.
 *
 * Writes (sgb_outset), in two phases, as a careful compiler writes its outputs:
 *   sgb_outset_add     writes one output to a new temporary file in the destination's
 *                     directory (DIR/.softgen-XXXXXX: created with O_CREAT|O_EXCL, so a
 *                     planted file or symlink of that name is never written through;
 *                     mode 0666 less the umask; fsync'd);
 *   sgb_outset_commit  once every output is staged: writes the special files in place,
 *                     then renames each temporary over its destination;
 *   sgb_outset_discard removes every temporary still there (always call it).
 * A destination that is a symlink is written through (the temporary goes beside the
 * link's target, which is replaced; the link stays); a device node, FIFO or socket is
 * written in place (opened without creating or truncating it: -o /dev/null stays
 * /dev/null); a directory is refused and left alone. Any failure before the renames
 * (a full disk, a file size limit, a bad path) leaves every destination as it was. */
#ifndef SG_INTERNAL_IO_H
#define SG_INTERNAL_IO_H

#include <stddef.h>

#include "softgen/diag.h"

/* The largest input of each kind read whole (docs: README "Files softgen reads"). */
#define SGB_LIMIT_TEXT ((size_t)1 << 20)     /* a template or a constraints file: 1 MiB */
#define SGB_LIMIT_OBJECT ((size_t)256 << 20) /* a code object (--inspect, tools' outputs) */
#define SGB_LIMIT_MLIR ((size_t)1 << 30)     /* an MLIR module: 1 GiB */

/* Reads path into a malloc'd, NUL-terminated buffer (*len excludes the NUL). The file
 * must be a regular file of at most max bytes; what names the kind of input in errors
 * ("a template"). */
sg_status sgb_read_input(const char *path, const char *what, size_t max, char **out, size_t *len,
                        sg_diag *diag);

/* sgb_read_input with what = "the file". */
sg_status sgb_read_file(const char *path, size_t max, char **out, size_t *len, sg_diag *diag);

typedef struct sg_outfile {
  char *path;       /* the destination as given (messages) */
  char *dest;       /* the destination with its symlinks followed */
  char *tmp;        /* the staged temporary; NULL when written in place */
  const void *data; /* in place only: the bytes, written by commit */
  size_t len;
} sg_outfile;

typedef struct sgb_outset {
  sg_outfile *files;
  int n, cap;
} sgb_outset; /* zero-initialise */

/* Stages data for path: a temporary beside a regular or missing destination, or
 * (special files) a note to write data in place at commit; data must then stay
 * valid until commit. */
sg_status sgb_outset_add(sgb_outset *s, const char *path, const void *data, size_t len,
                        sg_diag *diag);

/* Writes the staged special files in place, then renames every temporary over its
 * destination. On a failure the temporaries not yet renamed stay for discard. */
sg_status sgb_outset_commit(sgb_outset *s, sg_diag *diag);

/* Removes the temporaries not renamed and frees s (then zeroed, reusable). */
void sgb_outset_discard(sgb_outset *s);

/* One output: add, commit, discard. */
sg_status sgb_write_file(const char *path, const void *data, size_t len, sg_diag *diag);

/* Writes data to stdout and flushes it; an error ("-o - > /dev/full") is a failure
 * naming stdout and the reason. */
sg_status sgb_stdout_write(const void *data, size_t len, sg_diag *diag);

/* Flushes stdout: an error now or in an earlier write to it is a failure. Call it
 * before exiting after printing to stdout. */
sg_status sgb_stdout_flush(sg_diag *diag);

#endif
