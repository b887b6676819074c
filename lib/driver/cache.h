/* compile/cache.h - the on-disk cache of compiled outputs (internal; the
 * policy is described in include/softgen/compile.h).
 * Needs: a directory (sg_cache_dir). Produces: entries <dir>/<key hex>.sgc. */
#ifndef SG_INTERNAL_CACHE_H
#define SG_INTERNAL_CACHE_H

#include <stddef.h>

#include "softgen/codegen.h"
#include "softgen/diag.h"
#include "base/sha256.h"

enum { SGD_KEY_BYTES = 32 };

/* Result of a lookup. */
typedef enum sgd_cache_lookup { SGD_CACHE_MISS, SGD_CACHE_HIT, SGD_CACHE_CORRUPT } sgd_cache_lookup;

/* Feeds a labelled field into a key: "label <len>\n" then the bytes, so that
 * no two different field lists hash the same byte string. */
void sgd_key_field(sgb_sha256 *key, const char *label, const void *data, size_t len);

/* Reads the entry for key from dir into out (malloc'd, NUL-terminated).
 * SGD_CACHE_CORRUPT: something is there but it is not a regular file (a FIFO is not
 * waited on), is over 1 GiB, or its header, length, key or hash is wrong (it is
 * not used). */
sgd_cache_lookup sgd_cache_read(const char *dir, const unsigned char key[SGD_KEY_BYTES], sg_buffer *out);

/* Writes data as the entry for key: creates dir (and its parents, mode 0700)
 * when missing, writes a temporary file in dir, fsyncs it and renames it into
 * place. On failure nothing is left behind and diag says why. */
sg_status sgd_cache_write(const char *dir, const unsigned char key[SGD_KEY_BYTES], const void *data,
                    size_t len, sg_diag *diag);

#endif
