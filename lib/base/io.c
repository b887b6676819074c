/* io.c - bounded whole-file reads and careful output writes (base/io.h). libc + POSIX. */
#define _POSIX_C_SOURCE 200809L
#include "base/io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* ---- reads ---- */

static const char *kind_of(mode_t m) {
  return S_ISDIR(m)    ? "a directory"
         : S_ISFIFO(m) ? "a FIFO"
         : S_ISCHR(m)  ? "a character device"
         : S_ISBLK(m)  ? "a block device"
         : S_ISSOCK(m) ? "a socket"
         : S_ISLNK(m)  ? "a symbolic link"
                       : "not a regular file";
}

/* "1 MiB", "256 MiB", "1 GiB", else bytes. */
static void size_text(size_t n, char *buf, size_t cap) {
  if (n && n % ((size_t)1 << 30) == 0)
    snprintf(buf, cap, "%zu GiB", n >> 30);
  else if (n && n % ((size_t)1 << 20) == 0)
    snprintf(buf, cap, "%zu MiB", n >> 20);
  else if (n && n % ((size_t)1 << 10) == 0)
    snprintf(buf, cap, "%zu KiB", n >> 10);
  else
    snprintf(buf, cap, "%zu bytes", n);
}

sg_status sgb_read_input(const char *path, const char *what, size_t max, char **out, size_t *len,
                        sg_diag *diag) {
  *out = NULL;
  *len = 0;
  /* O_NONBLOCK: opening a FIFO with no writer returns at once (then refused below). */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return sg_diag_set(diag, SG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  struct stat sb;
  char limit[32];
  size_text(max, limit, sizeof limit);
  sg_status st = SG_OK;
  int flags;
  if (fstat(fd, &sb) != 0)
    st = sg_diag_set(diag, SG_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
  else if (!S_ISREG(sb.st_mode))
    st = sg_diag_set(diag, SG_ERR_IO, "%s: %s must be a regular file, not %s", path, what,
                     kind_of(sb.st_mode));
  else if (sb.st_size < 0 || (uintmax_t)sb.st_size > max)
    st = sg_diag_set(diag, SG_ERR_IO, "%s: %lld bytes is over the %s limit for %s", path,
                     (long long)sb.st_size, limit, what);
  else if ((flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
    st = sg_diag_set(diag, SG_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
  if (st) {
    close(fd);
    return st;
  }
  size_t size = (size_t)sb.st_size, n = 0;
  char *buf = malloc(size + 1);
  if (!buf) {
    close(fd);
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "%s: out of memory for %zu bytes", path, size);
  }
  while (n < size) { /* bounded by the size fstat gave: a growing file is cut there */
    ssize_t r = read(fd, buf + n, size - n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      int e = errno;
      close(fd);
      free(buf);
      return sg_diag_set(diag, SG_ERR_IO, "%s: read error: %s", path, strerror(e));
    }
    if (r == 0)
      break;
    n += (size_t)r;
  }
  close(fd);
  buf[n] = '\0';
  *out = buf;
  *len = n;
  return SG_OK;
}

sg_status sgb_read_file(const char *path, size_t max, char **out, size_t *len, sg_diag *diag) {
  return sgb_read_input(path, "the file", max, out, len, diag);
}

/* ---- writes ---- */

static int write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w < 0)
      return -1;
    if (w == 0) {
      errno = EIO;
      return -1;
    }
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

static char *str_dup(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (p) {
    memcpy(p, s, n);
    p[n] = '\0';
  }
  return p;
}

/* Follows path's symbolic links to the file that is written: *dest (malloc'd), its
 * lstat in *sb, *exists 0 when nothing is there yet. */
static sg_status resolve(const char *path, char **dest, struct stat *sb, int *exists,
                         sg_diag *diag) {
  char *cur = str_dup(path, strlen(path)), *link = malloc(PATH_MAX);
  sg_status st = SG_OK;
  *dest = NULL;
  for (int hops = 0; cur && link; hops++) {
    if (lstat(cur, sb) != 0) {
      if (errno != ENOENT)
        break;
      *exists = 0;
      free(link);
      *dest = cur;
      return SG_OK;
    }
    if (!S_ISLNK(sb->st_mode)) {
      *exists = 1;
      free(link);
      *dest = cur;
      return SG_OK;
    }
    if (hops == 40) {
      errno = ELOOP;
      break;
    }
    ssize_t n = readlink(cur, link, PATH_MAX);
    if (n < 0)
      break;
    if (n >= PATH_MAX) {
      errno = ENAMETOOLONG;
      break;
    }
    link[n] = '\0';
    const char *slash = strrchr(cur, '/');
    size_t dlen = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
    char *next = malloc(dlen + (size_t)n + 1);
    if (next) {
      memcpy(next, cur, dlen);
      memcpy(next + dlen, link, (size_t)n + 1);
    }
    free(cur);
    cur = next;
  }
  if (!cur || !link)
    st = sg_diag_set(diag, SG_ERR_NO_MEMORY, "%s: out of memory", path);
  else
    st = sg_diag_set(diag, SG_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
  free(cur);
  free(link);
  return st;
}

/* Six characters of [0-9A-Za-z] mixed from the clock, the pid and a stack address:
 * no fixed pattern to plant a file at. The O_EXCL open, not the name, is what keeps
 * a planted file or symlink from being written through. */
static void random_suffix(char *p, unsigned attempt) {
  static const char abc[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t z = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16) ^
               (uint64_t)(uintptr_t)&ts ^ ((uint64_t)attempt << 48);
  z += 0x9e3779b97f4a7c15ull; /* splitmix64 */
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  for (int i = 0; i < 6; i++, z /= 62)
    p[i] = abc[z % 62];
}

/* Writes data to a new temporary beside dest: DIR/.softgen-XXXXXX, mode 0666 less the
 * umask, fsync'd. *tmp: its malloc'd name. */
static sg_status stage(const char *path, const char *dest, const void *data, size_t len,
                       char **tmp, sg_diag *diag) {
  const char *slash = strrchr(dest, '/');
  size_t dlen = slash ? (size_t)(slash - dest) + 1 : 0; /* the directory with its '/' */
  if (!dest[dlen])
    return sg_diag_set(diag, SG_ERR_IO, "%s: names a directory, not a file", path);
  static const char stem[] = ".softgen-XXXXXX";
  char *t = malloc(dlen + sizeof stem);
  if (!t)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "%s: out of memory", path);
  memcpy(t, dest, dlen);
  memcpy(t + dlen, stem, sizeof stem);
  int fd = -1;
  for (unsigned attempt = 0; attempt < 100 && fd < 0; attempt++) {
    random_suffix(t + dlen + sizeof stem - 7, attempt);
    fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      break;
  }
  if (fd < 0) {
    int e = errno; /* the directory: "." when dest has none, "/" for the root */
    sg_diag_set(diag, SG_ERR_IO, "%s: cannot create a temporary file in %.*s: %s", path,
                dlen > 1 ? (int)dlen - 1 : 1, dlen ? dest : ".", strerror(e));
    free(t);
    return SG_ERR_IO;
  }
  int ok = write_all(fd, data, len) == 0;
  ok = ok && (fsync(fd) == 0 || errno == EINVAL); /* EINVAL: a file system without sync */
  int e = errno;
  if (close(fd) != 0 && ok) {
    ok = 0;
    e = errno;
  }
  if (!ok) {
    unlink(t);
    free(t);
    return sg_diag_set(diag, SG_ERR_IO, "%s: cannot write: %s", path, strerror(e));
  }
  *tmp = t;
  return SG_OK;
}

sg_status sgb_outset_add(sgb_outset *s, const char *path, const void *data, size_t len,
                        sg_diag *diag) {
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 8;
    sg_outfile *f = realloc(s->files, (size_t)cap * sizeof *f);
    if (!f)
      return sg_diag_set(diag, SG_ERR_NO_MEMORY, "%s: out of memory", path);
    s->files = f;
    s->cap = cap;
  }
  sg_outfile f = {0};
  struct stat sb;
  int exists = 0;
  sg_status st = resolve(path, &f.dest, &sb, &exists, diag);
  if (st)
    return st;
  if (exists && S_ISDIR(sb.st_mode))
    st = sg_diag_set(diag, SG_ERR_IO, "%s: is a directory; not replaced", path);
  else if (exists && S_ISSOCK(sb.st_mode))
    st = sg_diag_set(diag, SG_ERR_IO, "%s: is a socket; not written", path);
  else if (!exists || S_ISREG(sb.st_mode))
    st = stage(path, f.dest, data, len, &f.tmp, diag);
  else { /* a device node or a FIFO: written in place by commit */
    f.data = data;
    f.len = len;
  }
  if (!st && !(f.path = str_dup(path, strlen(path)))) {
    st = sg_diag_set(diag, SG_ERR_NO_MEMORY, "%s: out of memory", path);
    if (f.tmp)
      unlink(f.tmp);
  }
  if (st) {
    free(f.tmp);
    free(f.dest);
    return st;
  }
  s->files[s->n++] = f;
  return SG_OK;
}

/* Writes f's bytes into its special file, opened as it is (no create, no truncate). */
static sg_status write_in_place(const sg_outfile *f, sg_diag *diag) {
  int fd = open(f->dest, O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return sg_diag_set(diag, SG_ERR_IO, "%s: cannot open: %s", f->path, strerror(errno));
  struct stat sb;
  int ok = fstat(fd, &sb) == 0;
  if (ok && (S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode))) { /* replaced since add */
    close(fd);
    return sg_diag_set(diag, SG_ERR_IO, "%s: changed while softgen ran; not written", f->path);
  }
  ok = ok && write_all(fd, f->data, f->len) == 0;
  int e = errno;
  if (close(fd) != 0 && ok) {
    ok = 0;
    e = errno;
  }
  return ok ? SG_OK : sg_diag_set(diag, SG_ERR_IO, "%s: cannot write: %s", f->path, strerror(e));
}

sg_status sgb_outset_commit(sgb_outset *s, sg_diag *diag) {
  for (int i = 0; i < s->n; i++) /* first what cannot be undone by removing a temporary */
    if (!s->files[i].tmp) {
      sg_status st = write_in_place(&s->files[i], diag);
      if (st)
        return st;
    }
  for (int i = 0; i < s->n; i++) {
    sg_outfile *f = &s->files[i];
    if (!f->tmp)
      continue;
    if (rename(f->tmp, f->dest) != 0)
      return sg_diag_set(diag, SG_ERR_IO, "%s: cannot replace: %s", f->path, strerror(errno));
    free(f->tmp);
    f->tmp = NULL;
  }
  return SG_OK;
}

void sgb_outset_discard(sgb_outset *s) {
  for (int i = 0; i < s->n; i++) {
    if (s->files[i].tmp)
      unlink(s->files[i].tmp);
    free(s->files[i].tmp);
    free(s->files[i].dest);
    free(s->files[i].path);
  }
  free(s->files);
  memset(s, 0, sizeof *s);
}

sg_status sgb_write_file(const char *path, const void *data, size_t len, sg_diag *diag) {
  sgb_outset s = {0};
  sg_status st = sgb_outset_add(&s, path, data, len, diag);
  if (!st)
    st = sgb_outset_commit(&s, diag);
  sgb_outset_discard(&s);
  return st;
}

static sg_status stdout_error(int e, sg_diag *diag) {
  return sg_diag_set(diag, SG_ERR_IO, "stdout: write error%s%s", e ? ": " : "",
                     e ? strerror(e) : "");
}

sg_status sgb_stdout_write(const void *data, size_t len, sg_diag *diag) {
  errno = 0;
  if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
    return stdout_error(errno, diag);
  return SG_OK;
}

sg_status sgb_stdout_flush(sg_diag *diag) {
  errno = 0;
  if (fflush(stdout) != 0)
    return stdout_error(errno, diag);
  return ferror(stdout) ? stdout_error(0, diag) : SG_OK; /* an earlier write failed */
}
