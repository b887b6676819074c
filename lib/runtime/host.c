/* host.c - the host back end of libsoftgen_rt (driver.h): kernels of
 * softgen's host target run on this machine's CPU, no driver library needed.
 *
 * Needs: libdl, pthreads. Produces: rt_host_ops. Device memory is host
 * memory (64-byte aligned), copies are memcpy, a launch is synchronous, events
 * read CLOCK_MONOTONIC. A code object is a shared library (softgen --emit so),
 * checked by runtime.c (checksum, metadata) before it gets here: its bytes are
 * written to an anonymous memory file (memfd_create; where that is missing, a
 * private temporary file removed as soon as dlopen returns), dlopen'ed, and
 * the kernel found with dlsym; relocatable objects (.o) are refused with the
 * command that links them. dlopen runs the library's native code: loading a
 * host object trusts it (the checksum catches damage and edits, not malice).
 * Kernels compiled in-process (the JIT, softgen/codegen.h) come through
 * sgrt_kernel_load_host instead.
 *
 * A launch of `grid` row blocks calls the kernel's entry point
 *   void kernel(void **params, uint32_t block, uint32_t blocks)
 * on P = min(grid, threads) CPU threads, as (params, p, P): the kernel's
 * grid-stride loop gives thread p the row blocks p, p + P, ... The threads
 * are a pool started at the first launch that needs them and joined at
 * close; `threads` is SOFTGEN_HOST_THREADS when set, else the online CPUs,
 * and sgrt_host_set_threads changes it. Any thread may launch: launches that
 * use the pool, and changes of `threads`, run one at a time on a runtime
 * (launch_mu), so the pool's state (fn, params, parts, generation,
 * remaining) always describes one launch; a launch on one CPU thread runs
 * at once in its caller. The device's name is the CPU's model name
 * (/proc/cpuinfo), its arch the machine name (uname). */
#define _GNU_SOURCE /* syscall, MFD_CLOEXEC */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "runtime/driver_ops.h"
#include "softgen/meta.h"

#define MAX_THREADS 256

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 1u
#endif
#ifdef MFD_EXEC /* Linux 6.3: where vm.memfd_noexec = 1 a memory file to run must say so */
#define MFD_EXEC_FLAG MFD_EXEC
#else
#define MFD_EXEC_FLAG 0x10u /* linux/memfd.h */
#endif

typedef void (*host_entry)(void **params, uint32_t block, uint32_t blocks);

typedef struct worker_arg {
  struct rt_driver *d;
  unsigned index;
  unsigned long seen; /* the launch generation when the worker was started */
} worker_arg;

struct rt_driver {
  /* Held by a launch that uses the pool from before it reads `threads` until
   * its last worker is done, and by set_threads: one pool launch at a time. */
  pthread_mutex_t launch_mu;
  unsigned threads; /* threads a launch may use */
  /* the pool: workers 1..started-1 (the caller is worker 0) */
  pthread_t pool[MAX_THREADS];
  worker_arg args[MAX_THREADS];
  unsigned started;
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  unsigned long generation; /* bumped per launch */
  unsigned remaining;       /* workers of this launch still running */
  unsigned parts;           /* P of this launch */
  host_entry fn;
  void **params;
  int stop;
};

static void *worker(void *p) {
  rt_driver *d = ((worker_arg *)p)->d;
  unsigned index = ((worker_arg *)p)->index;
  unsigned long seen = ((worker_arg *)p)->seen;
  pthread_mutex_lock(&d->mu);
  for (;;) {
    while (!d->stop && d->generation == seen)
      pthread_cond_wait(&d->go, &d->mu);
    if (d->stop)
      break;
    seen = d->generation;
    if (index >= d->parts)
      continue;
    host_entry fn = d->fn;
    void **params = d->params;
    unsigned parts = d->parts;
    pthread_mutex_unlock(&d->mu);
    fn(params, index, parts);
    pthread_mutex_lock(&d->mu);
    if (--d->remaining == 0)
      pthread_cond_signal(&d->done);
  }
  pthread_mutex_unlock(&d->mu);
  return NULL;
}

static void cpu_name(char *name, size_t cap) {
  snprintf(name, cap, "host CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (colon && strncmp(line, "model name", 10) == 0) {
      colon += strspn(colon + 1, " \t") + 1;
      colon[strcspn(colon, "\n")] = '\0';
      snprintf(name, cap, "%s", colon);
      break;
    }
  }
  fclose(f);
}

static sg_status host_open(int device, rt_driver **out, char *name, size_t name_cap, char *arch,
                           size_t arch_cap, sg_diag *diag) {
  if (device != 0)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "the host backend has one device, 0 (got %d)",
                       device);
  rt_driver *d = calloc(1, sizeof *d);
  if (!d)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of host memory");
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  const char *env = getenv("SOFTGEN_HOST_THREADS");
  long n = env && *env ? strtol(env, NULL, 10) : cpus;
  d->threads = n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (unsigned)n;
  d->started = 1;
  pthread_mutex_init(&d->launch_mu, NULL);
  pthread_mutex_init(&d->mu, NULL);
  pthread_cond_init(&d->go, NULL);
  pthread_cond_init(&d->done, NULL);
  cpu_name(name, name_cap);
  struct utsname u;
  snprintf(arch, arch_cap, "%s", uname(&u) == 0 ? u.machine : "");
  *out = d;
  return SG_OK;
}

static void host_close(rt_driver *d) {
  pthread_mutex_lock(&d->mu);
  d->stop = 1;
  pthread_cond_broadcast(&d->go);
  pthread_mutex_unlock(&d->mu);
  for (unsigned i = 1; i < d->started; i++)
    pthread_join(d->pool[i], NULL);
  pthread_cond_destroy(&d->done);
  pthread_cond_destroy(&d->go);
  pthread_mutex_destroy(&d->mu);
  pthread_mutex_destroy(&d->launch_mu);
  free(d);
}

static int no_clusters(rt_driver *d) {
  (void)d;
  return 0;
}

#if defined(__x86_64__)
#define HOST_EM 62 /* EM_X86_64 */
#elif defined(__aarch64__)
#define HOST_EM 183 /* EM_AARCH64 */
#else
#define HOST_EM 0 /* unknown: let dlopen decide */
#endif

/* Writes all of p (n bytes) to fd; 0 on success. */
static int write_all(int fd, const unsigned char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* A loaded host code object: the library, and the memory file it was loaded
 * from (-1: none), kept open while the library is: dlopen knows a library by
 * its path, and /proc/self/fd/N of a closed descriptor, reused by the next
 * load, would name the library loaded before. */
typedef struct host_module {
  void *lib;
  int fd;
} host_module;

/* dlopen()s the shared library image (n bytes) into m. Through an anonymous
 * memory file (memfd_create, opened as /proc/self/fd/N): nothing on disk, so
 * nothing is left behind whatever dlopen does. Where memfd_create is
 * unavailable or refused, through a private temporary file in $TMPDIR (else
 * /tmp), removed as soon as dlopen returns. */
static sg_status open_image(const unsigned char *p, size_t n, host_module *m, sg_diag *diag) {
  char path[512];
  const char *tmpdir = getenv("TMPDIR");
  int fd = -1, temp = 0;
  m->lib = NULL;
  m->fd = -1;
#ifdef SYS_memfd_create
  fd = (int)syscall(SYS_memfd_create, "softgen-kernel", MFD_CLOEXEC | MFD_EXEC_FLAG);
  if (fd < 0 && errno == EINVAL) /* a kernel before MFD_EXEC (Linux 6.3) */
    fd = (int)syscall(SYS_memfd_create, "softgen-kernel", MFD_CLOEXEC);
#endif
  if (fd >= 0) {
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  } else {
    tmpdir = tmpdir && *tmpdir ? tmpdir : "/tmp";
    snprintf(path, sizeof path, "%s/softgen-kernel-XXXXXX", tmpdir);
    fd = mkstemp(path);
    if (fd < 0)
      return sg_diag_set(diag, SG_ERR_IO, "cannot create a temporary file in %s: %s", tmpdir,
                         strerror(errno));
    temp = 1;
  }
  sg_status st = SG_OK;
  if (write_all(fd, p, n) != 0)
    st = sg_diag_set(diag, SG_ERR_IO, "cannot write the shared library to %s: %s",
                     temp ? path : "a memory file", strerror(errno));
  else if ((m->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
    const char *why = dlerror();
    st = sg_diag_set(diag, SG_ERR_DRIVER, "cannot load the shared library: %s",
                     why ? why : "unknown error");
  }
  if (temp)
    unlink(path);
  if (st || temp)
    close(fd);
  else
    m->fd = fd;
  return st;
}

static void host_module_unload(rt_driver *d, void *module) {
  (void)d;
  host_module *m = module;
  if (!m)
    return;
  if (m->lib)
    dlclose(m->lib);
  if (m->fd >= 0)
    close(m->fd);
  free(m);
}

static sg_status host_module_load(rt_driver *d, const void *image, rt_image_kind kind,
                                  const char *kernel, void **module, void **function,
                                  sg_diag *diag) {
  const unsigned char *p = image;
  if (kind != RT_IMAGE_ELF)
    return sg_diag_set(diag, SG_ERR_MISMATCH, "a host kernel must be a shared library (ELF)");
  unsigned type = (unsigned)(p[16] | p[17] << 8), machine = (unsigned)(p[18] | p[19] << 8);
  if (type == 1) /* ET_REL */
    return sg_diag_set(diag, SG_ERR_MISMATCH, "a relocatable object (.o) cannot be loaded: link "
                       "it into a shared library (softgen --target host --emit so)");
  if (type != 3) /* ET_DYN */
    return sg_diag_set(diag, SG_ERR_MISMATCH, "a host kernel must be a shared library (ELF type %u)",
                       type);
  if (HOST_EM && machine != HOST_EM)
    return sg_diag_set(diag, SG_ERR_MISMATCH, "the shared library is for ELF machine %u, this "
                       "machine runs %u", machine, (unsigned)HOST_EM);
  host_module *m = malloc(sizeof *m);
  if (!m)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of host memory");
  sg_status st = open_image(p, (size_t)sg_object_extent(image), m, diag);
  void *fn = st ? NULL : dlsym(m->lib, kernel);
  if (!st && !fn)
    st = sg_diag_set(diag, SG_ERR_DRIVER, "the shared library has no kernel '%s'", kernel);
  if (st) {
    host_module_unload(d, m);
    return st;
  }
  *module = m;
  *function = fn;
  return SG_OK;
}

static sg_status host_module_function(rt_driver *d, void *module, const char *kernel,
                                      void **function, sg_diag *diag) {
  (void)d;
  void *fn = dlsym(((host_module *)module)->lib, kernel);
  if (!fn)
    return sg_diag_set(diag, SG_ERR_DRIVER, "the shared library has no kernel '%s'", kernel);
  *function = fn;
  return SG_OK;
}

/* Starts pool threads up to `want` workers (the caller counts as one).
 * Called with launch_mu held. */
static void grow_pool(rt_driver *d, unsigned want) {
  while (d->started < want) {
    d->args[d->started] = (worker_arg){d, d->started, d->generation};
    if (pthread_create(&d->pool[d->started], NULL, worker, &d->args[d->started]) != 0)
      break;
    d->started++;
  }
}

static sg_status host_launch(rt_driver *d, const rt_launch *l, sg_diag *diag) {
  if (l->cooperative) /* never asked: no module_global, so no grid-split variant loads */
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "the host backend has no cooperative launch");
  host_entry fn;
  memcpy(&fn, &l->function, sizeof fn);
  pthread_mutex_lock(&d->launch_mu);
  unsigned parts = l->grid < d->threads ? l->grid : d->threads;
  if (parts > 1)
    grow_pool(d, parts);
  if (parts > d->started)
    parts = d->started;
  if (parts <= 1) { /* no pool: nothing shared with other launches */
    pthread_mutex_unlock(&d->launch_mu);
    fn(l->params, 0, 1);
    return SG_OK;
  }
  pthread_mutex_lock(&d->mu);
  d->fn = fn;
  d->params = l->params;
  d->parts = parts;
  d->remaining = parts - 1;
  d->generation++;
  pthread_cond_broadcast(&d->go);
  pthread_mutex_unlock(&d->mu);
  fn(l->params, 0, parts);
  pthread_mutex_lock(&d->mu);
  while (d->remaining)
    pthread_cond_wait(&d->done, &d->mu);
  pthread_mutex_unlock(&d->mu);
  pthread_mutex_unlock(&d->launch_mu);
  return SG_OK;
}

static unsigned host_resident(rt_driver *d, void *function, unsigned block, unsigned smem,
                              unsigned cluster) {
  (void)function, (void)block, (void)smem, (void)cluster;
  pthread_mutex_lock(&d->launch_mu);
  unsigned threads = d->threads;
  pthread_mutex_unlock(&d->launch_mu);
  return threads;
}

static sg_status host_alloc(rt_driver *d, size_t bytes, void **dptr, sg_diag *diag) {
  (void)d;
  size_t rounded = (bytes + 63) / 64 * 64;
  *dptr = rounded >= bytes ? aligned_alloc(64, rounded) : NULL;
  return *dptr ? SG_OK : sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of host memory (%zu bytes)", bytes);
}
static void host_free(rt_driver *d, void *dptr) {
  (void)d;
  free(dptr);
}
static sg_status host_copy(rt_driver *d, void *dst, const void *src, size_t bytes, sg_diag *diag) {
  (void)d, (void)diag;
  memmove(dst, src, bytes);
  return SG_OK;
}
static sg_status host_dtod(rt_driver *d, void *dst, const void *src, size_t bytes, void *stream,
                           sg_diag *diag) {
  (void)stream;
  return host_copy(d, dst, src, bytes, diag);
}
static sg_status host_memset(rt_driver *d, void *dst, unsigned char v, size_t bytes, sg_diag *diag) {
  (void)d, (void)diag;
  memset(dst, v, bytes);
  return SG_OK;
}
static sg_status host_sync(rt_driver *d, sg_diag *diag) {
  (void)d, (void)diag;
  return SG_OK; /* launches and copies are synchronous */
}
static sg_status host_event_create(rt_driver *d, void **ev, sg_diag *diag) {
  (void)d;
  *ev = calloc(1, sizeof(double));
  return *ev ? SG_OK : sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of host memory");
}
static sg_status host_event_record(rt_driver *d, void *ev, void *stream, sg_diag *diag) {
  (void)d, (void)stream, (void)diag;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  *(double *)ev = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
  return SG_OK;
}
static sg_status host_event_elapsed(rt_driver *d, void *start, void *end, float *ms, sg_diag *diag) {
  (void)d, (void)diag;
  *ms = (float)(*(double *)end - *(double *)start);
  return SG_OK;
}
static void host_event_destroy(rt_driver *d, void *ev) {
  (void)d;
  free(ev);
}

static sg_status host_set_threads(rt_driver *d, unsigned threads, sg_diag *diag) {
  if (threads < 1 || threads > MAX_THREADS)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "threads must be 1 to %u, got %u",
                       MAX_THREADS, threads);
  pthread_mutex_lock(&d->launch_mu); /* not while a launch spreads over the pool */
  d->threads = threads;
  pthread_mutex_unlock(&d->launch_mu);
  return SG_OK;
}

const rt_driver_ops rt_host_ops = {
    .name = "host",
    .target = "host",
    .open = host_open,
    .close = host_close,
    .supports_cluster = no_clusters,
    .module_load = host_module_load,
    .module_function = host_module_function,
    .module_unload = host_module_unload,
    .module_global = NULL,        /* no workspace globals: grid-split variants are dropped */
    .supports_cooperative = NULL, /* nor cooperative launches */
    .launch = host_launch,
    .resident_blocks = host_resident,
    .mem_alloc = host_alloc,
    .mem_free = host_free,
    .htod = host_copy,
    .dtoh = host_copy,
    .dtod = host_dtod,
    .memset_d8 = host_memset,
    .synchronize = host_sync,
    .event_create = host_event_create,
    .event_record = host_event_record,
    .event_elapsed = host_event_elapsed,
    .event_destroy = host_event_destroy,
    .set_threads = host_set_threads,
};
