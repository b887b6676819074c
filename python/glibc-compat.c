/* The wheel's libraries on glibc 2.28 (manylinux_2_28, x86-64): compiled into
   softgen_shared and softgen_rt by python/wheel.cmake only, which links both with
   -Wl,--wrap=SYM for
   every SYM named by a FORWARD or WRAP line below (it reads them from this file).
   They, and the static LLVM, libstdc++ and libgcc in libsoftgen.so, were compiled
   against Debian 12's glibc 2.36 and so reference symbol versions newer than 2.28;
   LLVM cannot be rebuilt. --wrap sends each of those references to __wrap_SYM
   here, which calls an implementation that glibc 2.28 has: the symbol's old
   version (SYM@GLIBC_2.2.5, still in every later glibc as a compat symbol) or an
   equivalent. python/check-glibc.sh checks the result (no version above 2.28).

   Why each symbol is here (the glibc that gave it a new version):
     stat fstat lstat stat64 fstat64 lstat64 mknod   2.33: real functions; before,
         header inlines calling __xstat & co. with a version argument
     exp log pow exp2 log2                           2.29: new versions without the
         SVID error handling; the old ones compute the same values
     pthread_sigmask                                 2.32: moved into libc
     pthread_once pthread_create pthread_detach pthread_join
     pthread_rwlock_{rd,wr,un}lock
     __pthread_key_create (libstdc++'s "threads in use?" test)
                                                     2.34: libpthread merged into libc
     dlopen dlsym dlerror dlclose dladdr             2.34: libdl merged into libc
     mallinfo2 (LLVM's malloc statistics)            2.33: new; mallinfo is the old one
     arc4random (libstdc++'s std::random_device)     2.36: new; getrandom (2.25) instead
     _dl_find_object (libgcc's unwinder, to find     2.35: new; dl_iterate_phdr
         a PC's .eh_frame_hdr)                           instead, as libgcc did before
   and __libc_single_threaded (2.32, a variable libstdc++ reads) is defined here.
   The 2.2.5 versions of pthread_* and dl* live in libpthread.so.0 and libdl.so.2
   before 2.34 (in libc.so.6 after), so the libraries also need those two (linked
   by name, python/wheel.cmake): a versioned reference binds to whichever loaded
   library defines the symbol with that version. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* OLD(ret, name, params): sg_old_name is name@GLIBC_2.2.5, the symbol's first version. */
#define OLD(ret, name, params)                                                            \
  ret sg_old_##name params;                                                               \
  __asm__(".symver sg_old_" #name ", " #name "@GLIBC_2.2.5");
/* WRAP(ret, name, params) { body }: __wrap_name, which the references to name reach. */
#define WRAP(ret, name, params)                                                           \
  __attribute__((visibility("hidden"))) ret __wrap_##name params;                         \
  ret __wrap_##name params
/* FORWARD(ret, name, params, args): __wrap_name calls name@GLIBC_2.2.5 with args. */
#define FORWARD(ret, name, params, args)                                                  \
  OLD(ret, name, params)                                                                  \
  WRAP(ret, name, params) { return sg_old_##name args; }

/* 2.34: libpthread and libdl merged into libc (new versions of the same functions). */
FORWARD(int, pthread_sigmask, (int how, const sigset_t *set, sigset_t *old), (how, set, old))
FORWARD(int, pthread_once, (pthread_once_t *once, void (*fn)(void)), (once, fn))
FORWARD(int, pthread_create, (pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg),
        (t, a, fn, arg))
FORWARD(int, pthread_detach, (pthread_t t), (t))
FORWARD(int, pthread_join, (pthread_t t, void **result), (t, result))
FORWARD(int, pthread_rwlock_rdlock, (pthread_rwlock_t *l), (l))
FORWARD(int, pthread_rwlock_wrlock, (pthread_rwlock_t *l), (l))
FORWARD(int, pthread_rwlock_unlock, (pthread_rwlock_t *l), (l))
FORWARD(int, __pthread_key_create, (pthread_key_t *k, void (*dtor)(void *)), (k, dtor))
FORWARD(void *, dlopen, (const char *file, int mode), (file, mode))
FORWARD(void *, dlsym, (void *handle, const char *name), (handle, name))
FORWARD(char *, dlerror, (void), ())
FORWARD(int, dlclose, (void *handle), (handle))
FORWARD(int, dladdr, (const void *addr, Dl_info *info), (addr, info))

/* 2.29: libm's exp/log/pow/exp2/log2 without the SVID (_LIB_VERSION) wrappers. */
FORWARD(double, exp, (double x), (x))
FORWARD(double, log, (double x), (x))
FORWARD(double, pow, (double x, double y), (x, y))
FORWARD(double, exp2, (double x), (x))
FORWARD(double, log2, (double x), (x))

/* 2.33: stat & co. became functions; before, they were __xstat & co. with the
   struct's version (_STAT_VER_LINUX, 1 on x86-64; _MKNOD_VER_LINUX, 0). */
enum { SG_STAT_VER = 1, SG_MKNOD_VER = 0 };
OLD(int, __xstat, (int ver, const char *path, struct stat *buf))
OLD(int, __fxstat, (int ver, int fd, struct stat *buf))
OLD(int, __lxstat, (int ver, const char *path, struct stat *buf))
OLD(int, __xstat64, (int ver, const char *path, struct stat64 *buf))
OLD(int, __fxstat64, (int ver, int fd, struct stat64 *buf))
OLD(int, __lxstat64, (int ver, const char *path, struct stat64 *buf))
OLD(int, __xmknod, (int ver, const char *path, mode_t mode, dev_t *dev))
WRAP(int, stat, (const char *path, struct stat *buf)) { return sg_old___xstat(SG_STAT_VER, path, buf); }
WRAP(int, fstat, (int fd, struct stat *buf)) { return sg_old___fxstat(SG_STAT_VER, fd, buf); }
WRAP(int, lstat, (const char *path, struct stat *buf)) { return sg_old___lxstat(SG_STAT_VER, path, buf); }
WRAP(int, stat64, (const char *path, struct stat64 *buf)) { return sg_old___xstat64(SG_STAT_VER, path, buf); }
WRAP(int, fstat64, (int fd, struct stat64 *buf)) { return sg_old___fxstat64(SG_STAT_VER, fd, buf); }
WRAP(int, lstat64, (const char *path, struct stat64 *buf)) { return sg_old___lxstat64(SG_STAT_VER, path, buf); }
WRAP(int, mknod, (const char *path, mode_t mode, dev_t dev)) {
  return sg_old___xmknod(SG_MKNOD_VER, path, mode, &dev);
}

/* 2.33: mallinfo2, mallinfo with size_t fields (mallinfo's ints wrap above 2 GiB;
   read as unsigned they are right up to 4 GiB). Statistics only. */
OLD(struct mallinfo, mallinfo, (void))
WRAP(struct mallinfo2, mallinfo2, (void)) {
  struct mallinfo m = sg_old_mallinfo();
  struct mallinfo2 r = {
    .arena = (unsigned)m.arena, .ordblks = (unsigned)m.ordblks, .smblks = (unsigned)m.smblks,
    .hblks = (unsigned)m.hblks, .hblkhd = (unsigned)m.hblkhd, .usmblks = (unsigned)m.usmblks,
    .fsmblks = (unsigned)m.fsmblks, .uordblks = (unsigned)m.uordblks,
    .fordblks = (unsigned)m.fordblks, .keepcost = (unsigned)m.keepcost};
  return r;
}

/* 2.36: arc4random. The kernel's getrandom (glibc 2.25; Linux 3.17), else
   /dev/urandom; like glibc's, it never fails (it aborts without entropy). */
WRAP(uint32_t, arc4random, (void)) {
  uint32_t v;
  unsigned char *p = (unsigned char *)&v;
  size_t left = sizeof v;
  int saved = errno;
  while (left) {
    ssize_t n = getrandom(p, left, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    p += n, left -= (size_t)n;
  }
  if (left) {
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    while (fd >= 0 && left) {
      ssize_t n = read(fd, p, left);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      p += n, left -= (size_t)n;
    }
    if (fd >= 0)
      close(fd);
    if (left)
      abort();
  }
  errno = saved;
  return v;
}

/* 2.35: _dl_find_object, which GCC 12's static unwinder (libgcc_eh) calls to find
   the .eh_frame_hdr (PT_GNU_EH_FRAME) of the object holding a PC; with no fallback
   of its own, so here the walk over the loaded objects it did before. Fills what
   libgcc reads (dlfo_eh_frame) and the mapping; dlfo_link_map stays NULL. */
#ifdef DLFO_STRUCT_HAS_EH_DBASE /* <dlfcn.h> of glibc 2.35 or later */
struct sg_find { uintptr_t pc; struct dl_find_object *out; };
static int sg_find_object(struct dl_phdr_info *info, size_t size, void *data) {
  struct sg_find *f = data;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  void *eh = NULL;
  int hit = 0;
  (void)size;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD) {
      hit |= f->pc >= start && f->pc < start + ph->p_memsz;
      lo = start < lo ? start : lo;
      hi = start + ph->p_memsz > hi ? start + ph->p_memsz : hi;
    } else if (ph->p_type == PT_GNU_EH_FRAME) {
      eh = (void *)start;
    }
  }
  if (!hit)
    return 0;
  memset(f->out, 0, sizeof *f->out);
  f->out->dlfo_map_start = (void *)lo;
  f->out->dlfo_map_end = (void *)hi;
  f->out->dlfo_eh_frame = eh;
  return 1;
}
WRAP(int, _dl_find_object, (void *pc, struct dl_find_object *out)) {
  struct sg_find f = {(uintptr_t)pc, out};
  return dl_iterate_phdr(sg_find_object, &f) ? 0 : -1;
}
#endif

/* 2.32: __libc_single_threaded, which libstdc++ reads to skip atomic operations
   (reference counts) while the process has one thread. Ours, local to the library,
   is always 0, "not known to be single-threaded": always the atomic path, which is
   correct at any thread count. */
__attribute__((visibility("hidden"))) char __libc_single_threaded = 0;
