/* cache.c - the compile cache's entries on disk (compile/cache.h). POSIX.
 * Entry layout (little-endian): "SGCACHE1" | u64 payload length | SHA-256 of
 * the payload (32) | the key's first 16 bytes | payload. */
#define _POSIX_C_SOURCE 200809L
#include "driver/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/io.h"

#define MAGIC "SGCACHE1"
enum { HEADER = 64, KEY_IN_HEADER = 16, MAX_ENTRY = 1 << 30 };

void sgd_key_field(sgb_sha256 *key, const char *label, const void *data, size_t len) {
  char head[96];
  int n = snprintf(head, sizeof head, "%s %zu\n", label, len);
  sgb_sha256_update(key, head, (size_t)n);
  if (len)
    sgb_sha256_update(key, data, len);
}

static void entry_path(const char *dir, const unsigned char key[SGD_KEY_BYTES], char *out,
                       size_t cap) {
  char hex[2 * SGD_KEY_BYTES + 1];
  for (int i = 0; i < SGD_KEY_BYTES; i++)
    snprintf(hex + 2 * i, 3, "%02x", key[i]);
  snprintf(out, cap, "%s/%s.sgc", dir, hex);
}

static void header(unsigned char h[HEADER], const unsigned char key[SGD_KEY_BYTES],
                   const void *data, size_t len) {
  memset(h, 0, HEADER);
  memcpy(h, MAGIC, 8);
  for (int i = 0; i < 8; i++)
    h[8 + i] = (unsigned char)((uint64_t)len >> (8 * i));
  sgb_sha256_of(data, len, h + 16);
  memcpy(h + 48, key, KEY_IN_HEADER);
}

sgd_cache_lookup sgd_cache_read(const char *dir, const unsigned char key[SGD_KEY_BYTES], sg_buffer *out) {
  char path[4096];
  entry_path(dir, key, path, sizeof path);
  out->data = NULL;
  out->size = 0;
  struct stat sb;
  if (stat(path, &sb) != 0)
    return SGD_CACHE_MISS;
  /* a regular file of at most a whole entry, read without blocking on a FIFO */
  char *data;
  size_t size;
  if (sgb_read_input(path, "a cache entry", (size_t)HEADER + MAX_ENTRY, &data, &size, NULL))
    return SGD_CACHE_CORRUPT;
  unsigned char want[HEADER];
  uint64_t len = 0;
  int ok = size >= HEADER && memcmp(data, MAGIC, 8) == 0;
  for (int i = 0; ok && i < 8; i++)
    len |= (uint64_t)(unsigned char)data[8 + i] << (8 * i);
  ok = ok && len <= MAX_ENTRY && size == HEADER + len &&
       memcmp(data + 48, key, KEY_IN_HEADER) == 0;
  if (ok) {
    header(want, key, data + HEADER, (size_t)len);
    ok = memcmp(want, data, HEADER) == 0;
  }
  if (!ok) {
    free(data);
    return SGD_CACHE_CORRUPT;
  }
  memmove(data, data + HEADER, (size_t)len + 1); /* the payload and the NUL after it */
  out->data = data;
  out->size = (size_t)len;
  return SGD_CACHE_HIT;
}

/* mkdir -p with mode 0700 for the directories it creates. */
static int make_dirs(const char *dir) {
  char p[4096];
  int n = snprintf(p, sizeof p, "%s", dir);
  if (n <= 0 || (size_t)n >= sizeof p)
    return -1;
  for (char *s = p + 1; *s; s++) {
    if (*s != '/')
      continue;
    *s = '\0';
    if (mkdir(p, 0700) != 0 && errno != EEXIST)
      return -1;
    *s = '/';
  }
  return mkdir(p, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

static int write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

sg_status sgd_cache_write(const char *dir, const unsigned char key[SGD_KEY_BYTES], const void *data,
                    size_t len, sg_diag *diag) {
  char path[4096], tmp[4096 + 32];
  if (make_dirs(dir) != 0)
    return sg_diag_set(diag, SG_ERR_IO, "cache: cannot create %s: %s", dir, strerror(errno));
  entry_path(dir, key, path, sizeof path);
  snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0)
    return sg_diag_set(diag, SG_ERR_IO, "cache: cannot write in %s: %s", dir, strerror(errno));
  unsigned char h[HEADER];
  header(h, key, data, len);
  int ok = fchmod(fd, 0644) == 0 && write_all(fd, h, HEADER) == 0 &&
           write_all(fd, data, len) == 0 && fsync(fd) == 0;
  ok &= close(fd) == 0;
  if (!ok || rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    return sg_diag_set(diag, SG_ERR_IO, "cache: cannot write %s: %s", path, strerror(e));
  }
  return SG_OK;
}
