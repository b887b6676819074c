/* io.c - whole-file reads and atomic writes (support/io.h). libc + POSIX. */
#define _POSIX_C_SOURCE 200809L
#include "support/io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

sg_status sg_read_file(const char *path, size_t max, char **out, size_t *len, sg_diag *diag) {
  struct stat sb;
  FILE *f = fopen(path, "rb");
  if (!f)
    return sg_diag_set(diag, SG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
    fclose(f);
    return sg_diag_set(diag, SG_ERR_IO, "%s: not a regular file", path);
  }
  if ((size_t)sb.st_size > max) {
    fclose(f);
    return sg_diag_set(diag, SG_ERR_IO, "%s: file is %lld bytes, the limit is %zu", path,
                       (long long)sb.st_size, max);
  }
  char *buf = malloc((size_t)sb.st_size + 1);
  if (!buf) {
    fclose(f);
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "%s: out of memory", path);
  }
  size_t n = fread(buf, 1, (size_t)sb.st_size, f);
  int err = ferror(f);
  fclose(f);
  if (err) {
    free(buf);
    return sg_diag_set(diag, SG_ERR_IO, "%s: read error", path);
  }
  buf[n] = '\0';
  *out = buf;
  *len = n;
  return SG_OK;
}

sg_status sg_write_file(const char *path, const void *data, size_t len, sg_diag *diag) {
  size_t plen = strlen(path);
  char *tmp = malloc(plen + 32);
  if (!tmp)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
  snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    sg_diag_set(diag, SG_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    free(tmp);
    return SG_ERR_IO;
  }
  int ok = fwrite(data, 1, len, f) == len;
  ok &= fclose(f) == 0;
  if (!ok || rename(tmp, path) != 0) {
    sg_diag_set(diag, SG_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    remove(tmp);
    free(tmp);
    return SG_ERR_IO;
  }
  free(tmp);
  return SG_OK;
}
