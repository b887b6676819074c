/* runtime.c - the backend-independent half of libsoftgen_rt
 * (include/softgen/runtime.h).
 *
 * Needs: lib/meta (sg_meta_verify, sg_meta_find), a driver back end (driver.h: cuda.c,
 * hip.c, host.c), libdl. Produces: the public sgrt_* API: open a driver and device,
 * load a code object after verifying its checksum (meta.h) and checking its
 * metadata, target and arch against the device (and its few-rows variants'
 * functions, and the grid-split variants' workspace global), validate launch
 * tensors against the metadata, pack the kernel's parameters in "arg" order,
 * take the entry point and the 1-D grid (and cluster rounding) from
 * sgrt_launch_geometry and launch (a grid-split variant cooperatively, with
 * its stream's workspace slice as one more parameter).
 *
 * Threads: a loaded kernel is read-only at launch but for its workspace slots
 * (grid-split variants), which streams claim with one compare-and-swap each
 * and never give back, so any thread may launch any kernel at any time.
 *
 * Arch compatibility (CUDA; checked before the driver sees the object):
 *   sm_XYa / sm_XYf objects need a device of exactly / the same major and at least
 *     the minor of compute capability X.Y (arch-specific features);
 *   cubin (ELF) sm_XY needs the same major and device minor >= Y (the driver's
 *     own binary-compatibility rule);
 *   PTX text sm_XY needs a device of compute capability >= X.Y (JIT); fatbins are
 *   refused (sg_meta_verify: the entry the driver would run cannot be checked).
 * HIP: an amdgpu object's arch must equal the device's gcnArchName up to its
 *   first ':' (code objects are built for one gfx target); skipped when the
 *   driver did not report an arch. */
#define _POSIX_C_SOURCE 200809L /* open flags, fstat */
#include "softgen/runtime.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/driver_ops.h"
#include "runtime/overlap.h"

struct sgrt_runtime {
  const rt_driver_ops *ops;
  rt_driver *drv;
  int device;
  char name[256];
  char arch[64];
};

/* One workspace slot of a kernel with grid-split variants: free, or owned by
 * one stream (its handle; NULL is a stream too, the legacy default one, so
 * ownership is the state, not the handle). A stream claims the first free
 * slot at its first grid-split launch (FREE -> CLAIMING by compare-and-swap,
 * the handle written, -> OWNED with release: a reader that sees OWNED with
 * acquire sees the handle) and keeps it while the kernel is loaded. */
enum { SLOT_FREE, SLOT_CLAIMING, SLOT_OWNED };
typedef struct rt_slot {
  atomic_int state;
  void *stream;     /* the owner, once OWNED: a stream, */
  uint64_t capture; /* and the graph capture it was claimed in (0: none) */
} rt_slot;

/* At most this many slots a kernel: the scan at each grid-split launch stays
 * short, and more concurrent streams than this take the next entry. */
#define RT_MAX_SLOTS 1024u

struct sgrt_kernel {
  sgrt_runtime *rt;
  sg_meta meta;
  void *module;
  void *function;
  void *few_function[SG_META_MAX_VARIANTS];    /* the few-rows variants' (meta.variants) */
  uint64_t few_resident[SG_META_MAX_VARIANTS]; /* their blocks the device keeps resident at
                                                  once (0: unknown) */
  /* the grid-split variants' workspace (SG_META_WORKSPACE_SYMBOL): slot i is
   * workspace + i x slot_bytes; nslots 0 and slots NULL when no grid-split
   * variant was kept */
  char *workspace;
  uint64_t slot_bytes; /* the largest kept variant's W rounded up to 128 */
  unsigned nslots;
  rt_slot *slots;
};

struct sgrt_event {
  sgrt_runtime *rt;
  void *ev;
};

/* ---- driver library helpers (driver.h) ---- */

static void *open_one(const char *name) {
  void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  return lib ? lib : dlopen(name, RTLD_NOW | RTLD_LOCAL);
}

void *rt_dlopen(const char *env_var, const char *const *names, char *used, size_t used_cap,
                sg_diag *diag) {
  const char *env = getenv(env_var);
  if (env && *env) {
    void *lib = open_one(env);
    if (!lib) {
      const char *why = dlerror();
      sg_diag_set(diag, SG_ERR_NO_DRIVER, "cannot open %s='%s': %s", env_var, env,
                  why ? why : "unknown error");
      return NULL;
    }
    snprintf(used, used_cap, "%s", env);
    return lib;
  }
  char tried[512] = "";
  size_t at = 0;
  for (size_t i = 0; names[i]; i++) {
    void *lib = open_one(names[i]);
    if (lib) {
      snprintf(used, used_cap, "%s", names[i]);
      return lib;
    }
    int n = snprintf(tried + at, sizeof tried - at, "%s%s", i ? ", " : "", names[i]);
    if (n > 0 && (size_t)n < sizeof tried - at)
      at += (size_t)n;
  }
  sg_diag_set(diag, SG_ERR_NO_DRIVER, "no driver library found (tried %s; set %s to override)",
              tried, env_var);
  return NULL;
}

void *rt_dlsym(void *lib, const char *libname, const char *sym, sg_diag *diag) {
  void *p = dlsym(lib, sym);
  if (!p)
    sg_diag_set(diag, SG_ERR_NO_DRIVER, "driver library %s lacks symbol %s", libname, sym);
  return p;
}

/* ---- runtime ---- */

static const rt_driver_ops *backend_ops(sgrt_backend b) {
  return b == SGRT_BACKEND_HIP ? &rt_hip_ops : b == SGRT_BACKEND_HOST ? &rt_host_ops : &rt_cuda_ops;
}

static sg_status open_backend(sgrt_backend backend, int device, sgrt_runtime **out,
                              sg_diag *diag) {
  sgrt_runtime *rt = calloc(1, sizeof *rt);
  if (!rt)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of host memory");
  rt->ops = backend_ops(backend);
  rt->device = device;
  sg_status st =
      rt->ops->open(device, &rt->drv, rt->name, sizeof rt->name, rt->arch, sizeof rt->arch, diag);
  if (st) {
    free(rt);
    return st;
  }
  *out = rt;
  return SG_OK;
}

sg_status sgrt_open(sgrt_backend backend, int device, sgrt_runtime **out, sg_diag *diag) {
  if (!out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_open: null output pointer");
  *out = NULL;
  if (device < 0)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_open: device %d is negative",
                       device);
  if (backend != SGRT_BACKEND_AUTO && backend != SGRT_BACKEND_CUDA &&
      backend != SGRT_BACKEND_HIP && backend != SGRT_BACKEND_HOST)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_open: unknown backend %d",
                       (int)backend);
  if (backend != SGRT_BACKEND_AUTO)
    return open_backend(backend, device, out, diag);
  sg_diag first;
  sg_diag_clear(&first);
  sg_status st = open_backend(SGRT_BACKEND_CUDA, device, out, &first);
  if (st == SG_OK)
    return SG_OK;
  sg_diag second;
  sg_diag_clear(&second);
  sg_status st2 = open_backend(SGRT_BACKEND_HIP, device, out, &second);
  if (st2 == SG_OK)
    return SG_OK;
  /* Report the backend that got further: a driver error beats a missing library. */
  if (st == SG_ERR_NO_DRIVER && st2 != SG_ERR_NO_DRIVER)
    return sg_diag_set(diag, st2, "hip: %s", second.message);
  if (st != SG_ERR_NO_DRIVER)
    return sg_diag_set(diag, st, "cuda: %s", first.message);
  return sg_diag_set(diag, SG_ERR_NO_DRIVER, "no GPU driver: cuda: %s; hip: %s", first.message,
                     second.message);
}

void sgrt_close(sgrt_runtime *rt) {
  if (!rt)
    return;
  rt->ops->close(rt->drv);
  free(rt);
}

const char *sgrt_backend_name(const sgrt_runtime *rt) { return rt ? rt->ops->name : "none"; }
const char *sgrt_device_arch(const sgrt_runtime *rt) { return rt ? rt->arch : ""; }
const char *sgrt_device_name(const sgrt_runtime *rt) { return rt ? rt->name : ""; }

/* ---- loading ---- */

static rt_image_kind image_kind(const unsigned char *p, size_t size) {
  if (size >= 4 && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F')
    return RT_IMAGE_ELF;
  if (size >= 4 && p[0] == 0x50 && p[1] == 0xed && p[2] == 0x55 && p[3] == 0xba)
    return RT_IMAGE_FATBIN;
  return RT_IMAGE_TEXT;
}

/* Parses "sm_XY[a|f]" into X*10+Y and the suffix; -1 when malformed. */
static int parse_sm(const char *arch, char *suffix) {
  if (strncmp(arch, "sm_", 3) != 0)
    return -1;
  char *end;
  long v = strtol(arch + 3, &end, 10);
  if (end == arch + 3 || v <= 0 || v > 10000)
    return -1;
  *suffix = *end;
  if (*end && ((*end != 'a' && *end != 'f') || end[1]))
    return -1;
  return (int)v;
}

/* The driver's loader takes no size (cuModuleLoadData, hipModuleLoadData): it
 * trusts the extent an ELF or fatbin header declares. A truncated or damaged
 * header would make it read past the caller's buffer, so that extent must fit
 * in the bytes given. */
static sg_status check_extent(const unsigned char *p, size_t size, rt_image_kind kind,
                              sg_diag *diag) {
  if (kind == RT_IMAGE_ELF && (size < 64 || p[4] != 2 /* ELFCLASS64 */))
    return sg_diag_set(diag, SG_ERR_PARSE, "code object is not a complete ELF64 file");
  if (kind == RT_IMAGE_FATBIN && size < 16)
    return sg_diag_set(diag, SG_ERR_PARSE, "code object is not a complete fatbin");
  if (kind == RT_IMAGE_TEXT)
    return SG_OK;
  uint64_t end = sg_object_extent(p);
  if (end > size)
    return sg_diag_set(diag, SG_ERR_PARSE,
                       "code object is truncated or damaged: its %s header describes %llu "
                       "bytes, got %zu",
                       kind == RT_IMAGE_ELF ? "ELF" : "fatbin", (unsigned long long)end, size);
  return SG_OK;
}

static sg_status check_target(const sgrt_runtime *rt, const sg_meta *m, rt_image_kind kind,
                              sg_diag *diag) {
  if (strcmp(m->target, rt->ops->target) != 0)
    return sg_diag_set(diag, SG_ERR_MISMATCH,
                       "code object targets '%s' but the %s backend runs '%s' code objects",
                       m->target, rt->ops->name, rt->ops->target);
  if (rt->ops == &rt_host_ops) /* the CPU features: the object's --arch, by its builder */
    return SG_OK;
  if (rt->ops == &rt_hip_ops) {
    size_t len = strcspn(rt->arch, ":");
    if (rt->arch[0] && (strlen(m->arch) != len || strncmp(m->arch, rt->arch, len) != 0))
      return sg_diag_set(diag, SG_ERR_MISMATCH,
                         "code object is for %s but device %d is %.*s", m->arch, rt->device,
                         (int)len, rt->arch);
    return SG_OK;
  }
  char os = 0, ds = 0;
  int obj = parse_sm(m->arch, &os), dev = parse_sm(rt->arch, &ds);
  if (obj < 0)
    return sg_diag_set(diag, SG_ERR_MISMATCH, "code object arch '%s' is not an sm_XY name",
                       m->arch);
  if (dev < 0)
    return SG_OK; /* driver gave no usable arch: let it decide */
  int ok;
  const char *rule;
  if (os == 'a') {
    ok = obj == dev;
    rule = "arch-specific objects need exactly that compute capability";
  } else if (os == 'f' || kind == RT_IMAGE_ELF) {
    ok = obj / 10 == dev / 10 && obj % 10 <= dev % 10;
    rule = "cubins need the same major and at least the minor compute capability";
  } else {
    ok = obj <= dev;
    rule = "PTX needs at least that compute capability";
  }
  if (!ok)
    return sg_diag_set(diag, SG_ERR_MISMATCH, "code object is for %s but device %d is %s (%s)",
                       m->arch, rt->device, rt->arch, rule);
  return SG_OK;
}

/* Opts function (kernel `name`) in to what its launches need beyond the
 * defaults: the default 48 KB bounds static + dynamic shared memory together,
 * so any dynamic size is granted explicitly; clusters over the portable 8. */
static sg_status allow(sgrt_runtime *rt, void *function, const char *name, unsigned dsmem,
                       unsigned cluster, sg_diag *diag) {
  if (dsmem == 0 && cluster <= 8)
    return SG_OK;
  if (!rt->ops->allow_launch)
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "kernel '%s' needs %u bytes of dynamic shared "
                       "memory and clusters of %u, which the %s back end cannot grant", name,
                       dsmem, cluster, rt->ops->name);
  return rt->ops->allow_launch(rt->drv, function, dsmem, cluster, diag);
}

/* W rounded up to the 128 bytes a workspace slice is aligned to; 0 past 2^40
 * (never: the metadata bounds W by 2^31). */
static uint64_t slice_bytes(uint64_t w) {
  return w > ((uint64_t)1 << 40) ? 0 : (w + 127) / 128 * 128;
}

/* Whether grid-split variant v can be launched from k's module: the back end
 * launches cooperatively and finds globals, and the module's workspace global
 * (looked up once, into *ws and *ws_bytes; *looked: 1 found, -1 not) is
 * 128-byte aligned and holds at least one slice of v. The lookup's failure
 * only drops the variants (the kernel computes every M): its message is not
 * the load's. */
static int grid_ok(sgrt_runtime *rt, sgrt_kernel *k, const sg_meta_variant *v, char **ws,
                   size_t *ws_bytes, int *looked) {
  if (!rt->ops->module_global || !rt->ops->supports_cooperative ||
      !rt->ops->supports_cooperative(rt->drv))
    return 0;
  if (!*looked) {
    sg_diag ignored;
    void *p = NULL;
    size_t n = 0;
    sg_status st =
        rt->ops->module_global(rt->drv, k->module, SG_META_WORKSPACE_SYMBOL, &p, &n, &ignored);
    *looked = st == SG_OK && p && (uintptr_t)p % 128 == 0 ? 1 : -1;
    *ws = p;
    *ws_bytes = n;
  }
  uint64_t slice = slice_bytes(v->workspace);
  return *looked > 0 && slice > 0 && *ws_bytes / slice >= 1;
}

/* The few-rows variants (meta "variant few" and "variant grid"): each one's
 * function, opted in to its launches like the kernel's, and how many of its
 * blocks the device keeps resident (sgrt_launch_geometry's few_resident; a
 * grid-split variant's as plain blocks, cluster 1). All are dropped, the
 * kernel then launched for every M, when $SOFTGEN_FEW_ROWS is 0; one whose
 * clusters the device does not launch is dropped alone, and so is a
 * grid-split one that grid_ok refuses. The variants kept move to the front of
 * meta.variants, with their functions and counts at the same indices (the
 * geometry's out.few indexes all three). With a grid-split variant kept, the
 * workspace's slots: as many slices of the largest kept W (rounded up to 128)
 * as the global holds, up to RT_MAX_SLOTS. */
static sg_status load_few(sgrt_runtime *rt, sgrt_kernel *k, sg_diag *diag) {
  const char *env = getenv("SOFTGEN_FEW_ROWS");
  int kept = 0, looked = 0;
  char *ws = NULL;
  size_t ws_bytes = 0;
  uint64_t slot_bytes = 0;
  sg_status st = SG_OK;
  for (int i = 0; !st && i < k->meta.nvariants; i++) {
    sg_meta_variant *v = &k->meta.variants[i];
    unsigned cluster = v->split ? 1 : (v->cluster ? v->cluster : 1);
    if ((env && strcmp(env, "0") == 0) || !rt->ops->module_function ||
        (cluster > 1 && !rt->ops->supports_cluster(rt->drv)) ||
        (v->split && !grid_ok(rt, k, v, &ws, &ws_bytes, &looked)))
      continue;
    void *fn = NULL;
    st = rt->ops->module_function(rt->drv, k->module, v->kernel, &fn, diag);
    if (!st)
      st = allow(rt, fn, v->kernel, v->dsmem, cluster, diag);
    if (st)
      break;
    k->few_function[kept] = fn;
    k->few_resident[kept] = rt->ops->resident_blocks
                                ? rt->ops->resident_blocks(rt->drv, fn, v->block, v->dsmem, cluster)
                                : 0;
    if (v->split && slice_bytes(v->workspace) > slot_bytes)
      slot_bytes = slice_bytes(v->workspace);
    k->meta.variants[kept++] = *v;
  }
  for (int i = kept; i < k->meta.nvariants; i++)
    memset(&k->meta.variants[i], 0, sizeof k->meta.variants[i]);
  k->meta.nvariants = kept;
  if (!st && slot_bytes) {
    uint64_t n = ws_bytes / slot_bytes; /* >= 1: grid_ok */
    k->nslots = n > RT_MAX_SLOTS ? RT_MAX_SLOTS : (unsigned)n;
    k->slots = calloc(k->nslots, sizeof *k->slots);
    if (!k->slots)
      return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of host memory");
    for (unsigned i = 0; i < k->nslots; i++)
      atomic_init(&k->slots[i].state, SLOT_FREE);
    k->workspace = ws;
    k->slot_bytes = slot_bytes;
  }
  return st;
}

sg_status sgrt_kernel_load_data(sgrt_runtime *rt, const void *data, size_t size,
                                sgrt_kernel **out, sg_diag *diag) {
  if (!out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_kernel_load: null output pointer");
  *out = NULL;
  if (!rt || !data)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_kernel_load: null %s",
                       rt ? "data" : "runtime");
  if (size == 0)
    return sg_diag_set(diag, SG_ERR_PARSE, "code object is empty");
  sgrt_kernel *k = calloc(1, sizeof *k);
  if (!k)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of host memory");
  k->rt = rt;
  rt_image_kind kind = image_kind(data, size);
  /* the checksum first: nothing else of a damaged or edited object is trusted */
  sg_status st = sg_meta_verify(data, size, diag);
  if (!st)
    st = sg_meta_find(data, size, &k->meta, diag);
  if (!st)
    st = check_extent(data, size, kind, diag);
  if (!st)
    st = check_target(rt, &k->meta, kind, diag);
  if (!st && k->meta.cluster > 1 && !rt->ops->supports_cluster(rt->drv))
    st = sg_diag_set(diag, SG_ERR_UNSUPPORTED,
                     "kernel '%s' needs clusters of %u blocks; device %d (%s) cannot launch "
                     "clusters",
                     k->meta.kernel, k->meta.cluster, rt->device, rt->arch);
  if (st) {
    free(k);
    return st;
  }
  const void *image = data;
  char *text = NULL;
  if (kind == RT_IMAGE_TEXT) { /* PTX must reach the driver NUL-terminated */
    text = malloc(size + 1);
    if (!text) {
      free(k);
      return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of host memory");
    }
    memcpy(text, data, size);
    text[size] = '\0';
    image = text;
  }
  st = rt->ops->module_load(rt->drv, image, kind, k->meta.kernel, &k->module, &k->function,
                            diag);
  free(text);
  if (st) {
    free(k);
    return st;
  }
  st = allow(rt, k->function, k->meta.kernel, k->meta.dsmem, k->meta.cluster, diag);
  if (!st && k->meta.nvariants)
    st = load_few(rt, k, diag);
  if (st) {
    rt->ops->module_unload(rt->drv, k->module);
    free(k->slots);
    free(k);
    return st;
  }
  *out = k;
  return SG_OK;
}

/* Reads the code object at path into *out (malloc'd, *len bytes): a regular
 * file of at most SGRT_OBJECT_MAX_BYTES, read up to the size fstat gave. Opened
 * with O_NONBLOCK so that a FIFO cannot block the open; anything but a regular
 * file (FIFO, device, socket, directory) is refused before a byte is read. */
static sg_status read_object(const char *path, char **out, size_t *len, sg_diag *diag) {
  *out = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return sg_diag_set(diag, SG_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
  struct stat sb;
  sg_status st = SG_OK;
  if (fstat(fd, &sb) != 0)
    st = sg_diag_set(diag, SG_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
  else if (S_ISDIR(sb.st_mode))
    st = sg_diag_set(diag, SG_ERR_IO, "cannot read '%s': %s", path, strerror(EISDIR));
  else if (!S_ISREG(sb.st_mode))
    st = sg_diag_set(diag, SG_ERR_IO, "cannot read '%s': not a regular file (a FIFO, device or "
                     "socket); a code object must be a file", path);
  else if ((uintmax_t)sb.st_size > SGRT_OBJECT_MAX_BYTES)
    st = sg_diag_set(diag, SG_ERR_IO, "cannot read '%s': %jd bytes, more than a code object may "
                     "have (%u MiB, SGRT_OBJECT_MAX_BYTES)", path, (intmax_t)sb.st_size,
                     (unsigned)(SGRT_OBJECT_MAX_BYTES >> 20));
  size_t size = st ? 0 : (size_t)sb.st_size, got = 0;
  char *buf = st ? NULL : malloc(size ? size : 1);
  if (!st && !buf)
    st = sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of host memory reading '%s' (%zu bytes)", path,
                     size);
  while (!st && got < size) { /* a file that shrank meanwhile ends early; one that grew is cut */
    ssize_t n = read(fd, buf + got, size - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      st = sg_diag_set(diag, SG_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  close(fd);
  if (st) {
    free(buf);
    return st;
  }
  *out = buf;
  *len = got;
  return SG_OK;
}

sg_status sgrt_kernel_load_file(sgrt_runtime *rt, const char *path, sgrt_kernel **out,
                                sg_diag *diag) {
  if (out)
    *out = NULL;
  if (!rt || !path || !out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_kernel_load_file: null argument");
  char *buf;
  size_t len;
  sg_status st = read_object(path, &buf, &len, diag);
  if (st)
    return st;
  st = sgrt_kernel_load_data(rt, buf, len, out, diag);
  if (st && diag && st != SG_ERR_INVALID_ARGUMENT) { /* say which file */
    char msg[sizeof diag->message];
    snprintf(msg, sizeof msg, "%s", diag->message);
    sg_diag_set(diag, st, "%s: %s", path, msg);
  }
  free(buf);
  return st;
}

sg_status sgrt_kernel_load_host(sgrt_runtime *rt, void *entry, const char *meta_text,
                                size_t meta_len, sgrt_kernel **out, sg_diag *diag) {
  if (!out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_kernel_load_host: null output pointer");
  *out = NULL;
  if (!rt || !entry || !meta_text)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_kernel_load_host: null %s",
                       !rt ? "runtime" : !entry ? "entry point" : "metadata");
  if (rt->ops != &rt_host_ops)
    return sg_diag_set(diag, SG_ERR_MISMATCH, "sgrt_kernel_load_host needs the host backend, "
                       "not %s", rt->ops->name);
  sgrt_kernel *k = calloc(1, sizeof *k);
  if (!k)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of host memory");
  sg_status st = sg_meta_parse(meta_text, meta_len, &k->meta, diag);
  if (!st)
    st = check_target(rt, &k->meta, RT_IMAGE_ELF, diag);
  if (st) {
    free(k);
    return st;
  }
  k->meta.nvariants = 0; /* one entry point given: the kernel runs every M */
  memset(k->meta.variants, 0, sizeof k->meta.variants);
  k->rt = rt;
  k->function = entry; /* module NULL: nothing to unload */
  *out = k;
  return SG_OK;
}

sg_status sgrt_host_set_threads(sgrt_runtime *rt, unsigned threads, sg_diag *diag) {
  if (!rt)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_host_set_threads: null runtime");
  if (!rt->ops->set_threads)
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "the %s backend runs no CPU threads",
                       rt->ops->name);
  return rt->ops->set_threads(rt->drv, threads, diag);
}

const sg_meta *sgrt_kernel_meta(const sgrt_kernel *k) { return k ? &k->meta : NULL; }

void sgrt_kernel_destroy(sgrt_kernel *k) {
  if (!k)
    return;
  k->rt->ops->module_unload(k->rt->drv, k->module);
  free(k->slots);
  free(k);
}

/* ---- launching ---- */

/* 1 when tensor i of m is an input whose rows repeat ("arg rows NAME"). */
static int repeats(const sg_meta *m, int i) {
  for (int a = 0; a < m->nargs; a++)
    if (m->args[a].kind == SG_ARG_ROWS && m->args[a].tensor == i)
      return 1;
  return 0;
}

/* M: the rows of the first tensor whose rows do not repeat. */
static int row_tensor(const sg_meta *m) {
  for (int i = 0; i < m->ntensors; i++)
    if (!repeats(m, i))
      return i;
  return 0;
}

/* The inner layout's view of tensor x (runtime.h): inner >= 1 dividing rows,
 * the same for every tensor; n_stride (0: inner) >= inner; the outer stride
 * (row_stride) past a whole [cols, inner] slice when there are two outer
 * indices or more; every stride aligned to the tensor's own vector; nothing
 * overflows. A rows-layout kernel takes inner and n_stride 0 or 1 only. */
static sg_status check_inner(const sg_meta *m, const sgrt_tensor *t, int i, int align,
                             sg_diag *diag) {
  const sg_meta_tensor *mt = &m->tensors[i];
  const sgrt_tensor *x = &t[i];
  int64_t inner = x->inner ? x->inner : 1, ns = x->n_stride ? x->n_stride : inner;
#define BAD(st, ...) sg_diag_set(diag, st, "tensor '%s' (#%d): " __VA_ARGS__)
  if (m->layout != SG_LAYOUT_INNER) {
    if (x->inner > 1 || x->n_stride > 1 || x->inner < 0 || x->n_stride < 0)
      return BAD(SG_ERR_MISMATCH, "inner %lld, n_stride %lld: kernel '%s' has the rows layout "
                 "(generate one with --layout inner)", mt->name, i, (long long)x->inner,
                 (long long)x->n_stride, m->kernel);
    return SG_OK;
  }
  if (inner < 0 || ns < 0)
    return BAD(SG_ERR_INVALID_ARGUMENT, "wrong inner: inner %lld and n_stride %lld must not be "
               "negative", mt->name, i, (long long)x->inner, (long long)x->n_stride);
  int64_t inner0 = t[0].inner ? t[0].inner : 1;
  if (i > 0 && inner != inner0)
    return BAD(SG_ERR_INVALID_ARGUMENT, "wrong inner: %lld but tensor '%s' has %lld", mt->name, i,
               (long long)inner, m->tensors[0].name, (long long)inner0);
  if (x->rows % inner)
    return BAD(SG_ERR_INVALID_ARGUMENT, "wrong inner: rows %lld (outer x inner) is not a "
               "multiple of inner %lld", mt->name, i, (long long)x->rows, (long long)inner);
  int64_t outer = x->rows / inner;
  if (ns < inner)
    return BAD(SG_ERR_INVALID_ARGUMENT, "n_stride %lld is too small: less than inner %lld",
               mt->name, i, (long long)ns, (long long)inner);
  if (ns > INT64_MAX / 4 / (x->cols > 0 ? x->cols : 1) ||
      x->row_stride > INT64_MAX / 4 / (outer > 0 ? outer : 1))
    return BAD(SG_ERR_INVALID_ARGUMENT, "outer %lld x row_stride %lld, cols %lld x n_stride %lld "
               "overflow", mt->name, i, (long long)outer, (long long)x->row_stride,
               (long long)x->cols, (long long)ns);
  int64_t slice = (x->cols - 1) * ns + inner;
  if (outer > 1 && x->row_stride < slice)
    return BAD(SG_ERR_INVALID_ARGUMENT, "row_stride %lld is too small: an outer index spans "
               "(cols - 1) x n_stride + inner = %lld elements", mt->name, i,
               (long long)x->row_stride, (long long)slice);
  /* this tensor's own vector (sg_meta_tensor_align): an f16 input of an f16 -> f32
   * kernel needs half the f32 output's bytes */
  int64_t es = (int64_t)sg_dtype_size(x->dtype), vb = sg_meta_tensor_align(m, i);
  if (align && ((outer > 1 && x->row_stride * es % vb) || (x->cols > 1 && ns * es % vb) ||
                (inner > 1 && inner * es % vb)))
    return BAD(SG_ERR_MISMATCH, "misaligned: row_stride %lld, n_stride %lld and inner %lld must "
               "be multiples of %lld bytes (a vector of its elements: the kernel's vector_bytes "
               "%u scaled to its dtype)", mt->name, i, (long long)x->row_stride, (long long)ns,
               (long long)inner, (long long)vb, m->vector_bytes);
#undef BAD
  return SG_OK;
}

/* align 0: everything but alignment (sgrt_kernel_check_views). */
static sg_status check_tensors(const sg_meta *m, const sgrt_tensor *t, int nt, int align,
                               sg_diag *diag) {
  if (nt != m->ntensors) {
    char names[SG_META_MAX_TENSORS * (SG_META_NAME_MAX + 2)] = "";
    for (int i = 0; i < m->ntensors; i++) {
      if (i)
        strcat(names, ", ");
      strcat(names, m->tensors[i].name);
    }
    return sg_diag_set(diag, SG_ERR_MISMATCH, "kernel '%s' takes %d tensors (%s), got %d",
                       m->kernel, m->ntensors, names, nt);
  }
  for (int i = 0; i < nt; i++) {
    const sg_meta_tensor *mt = &m->tensors[i];
    const sgrt_tensor *x = &t[i];
#define BAD(st, ...) sg_diag_set(diag, st, "tensor '%s' (#%d): " __VA_ARGS__)
    if ((unsigned)x->dtype >= SG_DTYPE_COUNT)
      return BAD(SG_ERR_INVALID_ARGUMENT, "invalid dtype %d", mt->name, i, (int)x->dtype);
    if (x->dtype != mt->dtype)
      return BAD(SG_ERR_MISMATCH, "dtype %s but the kernel takes %s", mt->name, i,
                 sg_dtype_name(x->dtype), sg_dtype_name(mt->dtype));
    int64_t n_min = m->n_min ? m->n_min : m->n; /* a meta not parsed: 0 */
    if (n_min == m->n && x->cols != m->n)
      return BAD(SG_ERR_MISMATCH, "cols %lld but the kernel was generated for n = %lld",
                 mt->name, i, (long long)x->cols, (long long)m->n);
    if (x->cols < n_min || x->cols > m->n)
      return BAD(SG_ERR_MISMATCH, "cols %lld but the kernel was generated for n from %lld "
                 "to %lld", mt->name, i, (long long)x->cols, (long long)n_min,
                 (long long)m->n);
    if (x->cols != t[0].cols)
      return BAD(SG_ERR_MISMATCH, "cols %lld but tensor '%s' has %lld", mt->name, i,
                 (long long)x->cols, m->tensors[0].name, (long long)t[0].cols);
    if (x->rows < 0)
      return BAD(SG_ERR_INVALID_ARGUMENT, "rows %lld is negative", mt->name, i,
                 (long long)x->rows);
    int r0 = row_tensor(m);
    if (repeats(m, i) && t[r0].rows > 0 && (x->rows < 1 || t[r0].rows % x->rows))
      return BAD(SG_ERR_INVALID_ARGUMENT, "rows %lld: its rows repeat over the %lld rows of "
                 "'%s', so they must be 1 or more and divide %lld",
                 mt->name, i, (long long)x->rows, (long long)t[r0].rows, m->tensors[r0].name,
                 (long long)t[r0].rows);
    if (!repeats(m, i) && x->rows != t[r0].rows)
      return BAD(SG_ERR_INVALID_ARGUMENT, "rows %lld but tensor '%s' has %lld", mt->name, i,
                 (long long)x->rows, m->tensors[r0].name, (long long)t[r0].rows);
    sg_status st = check_inner(m, t, i, align, diag);
    if (st)
      return st;
    int inner = m->layout == SG_LAYOUT_INNER; /* its strides: check_inner */
    if (!inner && x->row_stride < x->cols)
      return BAD(SG_ERR_INVALID_ARGUMENT, "row_stride %lld is less than cols %lld", mt->name,
                 i, (long long)x->row_stride, (long long)x->cols);
    if (!inner && x->row_stride > INT64_MAX / 4 / (x->rows > 0 ? x->rows : 1))
      return BAD(SG_ERR_INVALID_ARGUMENT, "rows %lld x row_stride %lld overflows", mt->name, i,
                 (long long)x->rows, (long long)x->row_stride);
    if (x->rows == 0)
      continue;
    if (!x->data)
      return BAD(SG_ERR_INVALID_ARGUMENT, "data is NULL with %lld rows", mt->name, i,
                 (long long)x->rows);
    unsigned vb = sg_meta_tensor_align(m, i);
    if (align && (uintptr_t)x->data % vb)
      return BAD(SG_ERR_MISMATCH, "data %p is not aligned to the kernel's vector_bytes %u",
                 mt->name, i, x->data, vb);
    /* bytes only where the stride is bounded (rows x row_stride; the inner layout
     * ignores row_stride for one outer index: check_inner) */
    int64_t sb = inner ? 0 : x->row_stride * (int64_t)sg_dtype_size(x->dtype);
    if (align && !inner && x->rows > 1 && sb % vb)
      return BAD(SG_ERR_MISMATCH,
                 "row_stride %lld (%lld bytes) is not a multiple of the kernel's vector_bytes "
                 "%u",
                 mt->name, i, (long long)x->row_stride, (long long)sb, vb);
#undef BAD
  }
  return rt_check_overlap(m, t, diag);
}

static sg_status check_scalars(const sg_meta *m, const double *s, int ns, sg_diag *diag) {
  if (ns != m->nscalars || (!s && ns)) {
    char names[SG_META_MAX_SCALARS * (SG_META_NAME_MAX + 8)] = "";
    for (int i = 0; i < m->nscalars; i++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s %s", i ? ", " : "",
               m->scalars[i].name, m->scalars[i].is_i64 ? "i64" : "f32");
    return sg_diag_set(diag, SG_ERR_MISMATCH, "kernel '%s' takes %d scalar%s%s%s%s, got %d",
                       m->kernel, m->nscalars, m->nscalars == 1 ? "" : "s",
                       m->nscalars ? " (" : "", names, m->nscalars ? ")" : "", ns);
  }
  for (int i = 0; i < ns; i++) {
    double v = s[i]; /* the range first: converting a double out of int64's range is UB */
    if (m->scalars[i].is_i64 && !(v >= -9007199254740992.0 && v <= 9007199254740992.0 &&
                                  v == (double)(int64_t)v))
      return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "scalar '%s' (#%d) is i64: %g is not a "
                         "whole number within +-2^53", m->scalars[i].name, i, v);
    /* a finite f32 scalar that would round to +-inf (2^128 - 2^103 and above) */
    if (!m->scalars[i].is_i64 && v - v == 0 && (v >= 0x1.ffffffp+127 || v <= -0x1.ffffffp+127))
      return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "scalar '%s' (#%d) is f32: %g is out "
                         "of its range", m->scalars[i].name, i, v);
  }
  return SG_OK;
}

sg_status sgrt_kernel_check_views(const sgrt_kernel *k, const sgrt_tensor *tensors, int ntensors,
                                  sg_diag *diag) {
  if (!k)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_kernel_check_views: null kernel");
  if (!tensors && ntensors != 0)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_kernel_check_views: null tensors");
  return check_tensors(&k->meta, tensors, ntensors, 0, diag);
}

/* sgrt_launch_geometry of k over `rows` rows with the variants' resident
 * counts few_resident (k's own, or a copy with some entries 0: those
 * variants skipped). */
static sg_status kernel_geometry(const sgrt_kernel *k, int64_t rows, const uint64_t *few_resident,
                                 sgrt_geometry *out, sg_diag *diag) {
  /* a persistent kernel is capped at the blocks the device keeps resident,
   * which only the driver knows (the variant's count was asked at load) */
  const sg_meta *m = &k->meta;
  uint64_t resident = 0;
  if (m->persistent && rows > 0 && k->rt->ops->resident_blocks)
    resident = k->rt->ops->resident_blocks(k->rt->drv, k->function, m->block, m->dsmem,
                                           m->cluster ? m->cluster : 1);
  return sgrt_launch_geometry(m, rows, resident, few_resident, out, diag);
}

sg_status sgrt_kernel_geometry(const sgrt_kernel *k, int64_t rows, sgrt_geometry *out,
                               sg_diag *diag) {
  if (!k)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_kernel_geometry: null kernel");
  return kernel_geometry(k, rows, k->few_resident, out, diag);
}

/* CUDA's CU_STREAM_PER_THREAD and HIP's hipStreamPerThread: one handle value
 * that is a different stream in each thread, so it cannot own a slot. */
#define PER_THREAD_STREAM ((void *)(uintptr_t)2)

/* The workspace slot of `stream` in graph capture `capture` (0: launched, not
 * captured; runtime.h: grid-split variants): the one they own, else the first
 * free one, claimed; -1 when every slot is another's (or is being claimed by
 * another thread), or for the per-thread default stream. A captured launch
 * gets a slot of its capture's own: the graph's replays may run beside later
 * launches on the stream it was captured on (a stream they do not wait for),
 * and replays of one graph never overlap each other. Slots are claimed in
 * order and never freed, so a free slot means that no later one is owned: the
 * scan can claim the first it meets. Two threads that claim for one stream at
 * once may each get a slot, which is harmless (one stream's launches never
 * overlap); two streams, or captures, never share one. */
static int stream_slot(sgrt_kernel *k, void *stream, uint64_t capture) {
  if (stream == PER_THREAD_STREAM)
    return -1;
  for (unsigned i = 0; i < k->nslots; i++) {
    rt_slot *sl = &k->slots[i];
    int state = atomic_load_explicit(&sl->state, memory_order_acquire);
    if (state == SLOT_OWNED && sl->stream == stream && sl->capture == capture)
      return (int)i;
    if (state != SLOT_FREE)
      continue;
    int expected = SLOT_FREE;
    if (atomic_compare_exchange_strong_explicit(&sl->state, &expected, SLOT_CLAIMING,
                                                memory_order_acquire, memory_order_acquire)) {
      sl->stream = stream;
      sl->capture = capture;
      atomic_store_explicit(&sl->state, SLOT_OWNED, memory_order_release);
      return (int)i;
    }
    /* another thread claimed it meanwhile: for its stream, which may be ours
     * (then the slot is in CLAIMING still, or OWNED) */
    if (expected == SLOT_OWNED && sl->stream == stream && sl->capture == capture)
      return (int)i;
  }
  return -1;
}

sg_status sgrt_kernel_launch(sgrt_kernel *k, const sgrt_tensor *tensors, int ntensors,
                             void *stream, sg_diag *diag) {
  return sgrt_kernel_launch_ex(k, tensors, ntensors, NULL, 0, stream, diag);
}

sg_status sgrt_kernel_launch_dense(sgrt_kernel *k, int64_t rows, void *stream,
                                   sg_diag *diag, void *t0, void *t1, void *t2) {
  if (!k)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_kernel_launch_dense: null kernel");
  const sg_meta *m = &k->meta;
  if (m->ntensors < 2 || m->ntensors > 3 || m->layout != SG_LAYOUT_ROWS)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT,
                       "sgrt_kernel_launch_dense: %s has %d tensors in the %s layout (2 or 3 "
                       "in the rows layout only)",
                       m->kernel, m->ntensors, m->layout == SG_LAYOUT_ROWS ? "rows" : "inner");
  void *data[3] = {t0, t1, t2};
  sgrt_tensor t[3];
  for (int i = 0; i < m->ntensors; i++)
    t[i] = (sgrt_tensor){.data = data[i], .rows = rows, .cols = m->n, .row_stride = m->n,
                         .dtype = m->tensors[i].dtype};
  return sgrt_kernel_launch_ex(k, t, m->ntensors, NULL, 0, stream, diag);
}

sg_status sgrt_kernel_launch_ex(sgrt_kernel *k, const sgrt_tensor *tensors, int ntensors,
                                const double *scalars, int nscalars, void *stream,
                                sg_diag *diag) {
  if (!k)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_kernel_launch: null kernel");
  if (!tensors && ntensors != 0)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_kernel_launch: null tensors");
  const sg_meta *m = &k->meta;
  sg_status st = check_tensors(m, tensors, ntensors, 1, diag);
  if (!st)
    st = check_scalars(m, scalars, nscalars, diag);
  if (st)
    return st;
  int64_t rows = tensors[row_tensor(m)].rows;
  if (rows == 0)
    return SG_OK;
  /* Parameters in "arg" order; every one is 8 bytes (pointer or i64) but f32
   * scalars, whose 4 bytes start their slot; a grid-split variant takes one
   * more, last: its workspace slice. */
  int64_t values[SG_META_MAX_ARGS];
  void *params[SG_META_MAX_ARGS + 1];
  for (int i = 0; i < m->nargs; i++) {
    const sg_meta_arg *a = &m->args[i];
    if (a->kind == SG_ARG_TENSOR)
      values[i] = (int64_t)(uintptr_t)tensors[a->tensor].data;
    else if (a->kind == SG_ARG_STRIDE)
      values[i] = tensors[a->tensor].row_stride;
    else if (a->kind == SG_ARG_ROWS && a->tensor >= 0)
      values[i] = tensors[a->tensor].rows;
    else if (a->kind == SG_ARG_SCALAR && m->scalars[a->tensor].is_i64)
      values[i] = (int64_t)scalars[a->tensor];
    else if (a->kind == SG_ARG_SCALAR) {
      float f = (float)scalars[a->tensor];
      values[i] = 0;
      memcpy(&values[i], &f, sizeof f);
    } else if (a->kind == SG_ARG_INNER)
      values[i] = tensors[0].inner ? tensors[0].inner : 1;
    else if (a->kind == SG_ARG_COLS)
      values[i] = tensors[0].cols;
    else if (a->kind == SG_ARG_NSTRIDE)
      values[i] = tensors[a->tensor].n_stride ? tensors[a->tensor].n_stride
                  : tensors[a->tensor].inner  ? tensors[a->tensor].inner
                                              : 1;
    else
      values[i] = rows;
    params[i] = &values[i];
  }
  sgrt_geometry g;
  if ((st = kernel_geometry(k, rows, k->few_resident, &g, diag)))
    return st;
  int slot = -1;
  uint64_t capture = 0;
  int grid = g.few && m->variants[g.few - 1].split;
  /* whether the launch is captured into a graph (-1: the back end cannot say) */
  int captured = !grid                  ? 0
                 : k->rt->ops->capture_id ? k->rt->ops->capture_id(k->rt->drv, stream, &capture)
                                          : -1;
  if (grid && (captured < 0 || (slot = stream_slot(k, stream, captured ? capture : 0)) < 0)) {
    /* no workspace for this stream (or capture), or no telling whether it
     * captures: the entry the geometry gives without the grid-split variants
     * (they share the slots, so none has one) */
    uint64_t resident[SG_META_MAX_VARIANTS];
    for (int i = 0; i < SG_META_MAX_VARIANTS; i++)
      resident[i] = i < m->nvariants && m->variants[i].split ? 0 : k->few_resident[i];
    if ((st = kernel_geometry(k, rows, resident, &g, diag)))
      return st;
  }
  void *slice = NULL; /* the value of the last parameter: the stream's workspace slice */
  if (slot >= 0) {
    slice = k->workspace + (uint64_t)slot * k->slot_bytes;
    params[m->nargs] = &slice;
  }
  rt_launch l = {.function = g.few ? k->few_function[g.few - 1] : k->function,
                 .grid = (unsigned)g.grid, .block = g.block, .cluster = g.cluster,
                 .smem = g.dsmem, .stream = stream, .params = params, .cooperative = slot >= 0};
  return k->rt->ops->launch(k->rt->drv, &l, diag);
}

/* ---- memory, synchronisation, events ---- */

#define NEED_RT(rt, what)                                                              \
  do {                                                                                 \
    if (!(rt))                                                                         \
      return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "%s: null runtime", what);     \
  } while (0)

sg_status sgrt_mem_alloc(sgrt_runtime *rt, size_t bytes, void **dptr, sg_diag *diag) {
  NEED_RT(rt, "sgrt_mem_alloc");
  if (!dptr)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_mem_alloc: null output pointer");
  *dptr = NULL;
  return rt->ops->mem_alloc(rt->drv, bytes ? bytes : 1, dptr, diag);
}

void sgrt_mem_free(sgrt_runtime *rt, void *dptr) {
  if (rt && dptr)
    rt->ops->mem_free(rt->drv, dptr);
}

sg_status sgrt_memcpy_htod(sgrt_runtime *rt, void *dst, const void *src, size_t bytes,
                           sg_diag *diag) {
  NEED_RT(rt, "sgrt_memcpy_htod");
  if (bytes == 0)
    return SG_OK;
  if (!dst || !src)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_memcpy_htod: null pointer");
  return rt->ops->htod(rt->drv, dst, src, bytes, diag);
}

sg_status sgrt_memcpy_dtoh(sgrt_runtime *rt, void *dst, const void *src, size_t bytes,
                           sg_diag *diag) {
  NEED_RT(rt, "sgrt_memcpy_dtoh");
  if (bytes == 0)
    return SG_OK;
  if (!dst || !src)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_memcpy_dtoh: null pointer");
  return rt->ops->dtoh(rt->drv, dst, src, bytes, diag);
}

sg_status sgrt_memcpy_dtod(sgrt_runtime *rt, void *dst, const void *src, size_t bytes,
                           void *stream, sg_diag *diag) {
  NEED_RT(rt, "sgrt_memcpy_dtod");
  if (bytes == 0)
    return SG_OK;
  if (!dst || !src)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_memcpy_dtod: null pointer");
  return rt->ops->dtod(rt->drv, dst, src, bytes, stream, diag);
}

sg_status sgrt_memset_d8(sgrt_runtime *rt, void *dst, unsigned char value, size_t bytes,
                         sg_diag *diag) {
  NEED_RT(rt, "sgrt_memset_d8");
  if (bytes == 0)
    return SG_OK;
  if (!dst)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_memset_d8: null pointer");
  return rt->ops->memset_d8(rt->drv, dst, value, bytes, diag);
}

sg_status sgrt_synchronize(sgrt_runtime *rt, sg_diag *diag) {
  NEED_RT(rt, "sgrt_synchronize");
  return rt->ops->synchronize(rt->drv, diag);
}

sg_status sgrt_event_create(sgrt_runtime *rt, sgrt_event **out, sg_diag *diag) {
  NEED_RT(rt, "sgrt_event_create");
  if (!out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_event_create: null output pointer");
  *out = NULL;
  sgrt_event *e = calloc(1, sizeof *e);
  if (!e)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of host memory");
  e->rt = rt;
  sg_status st = rt->ops->event_create(rt->drv, &e->ev, diag);
  if (st) {
    free(e);
    return st;
  }
  *out = e;
  return SG_OK;
}

sg_status sgrt_event_record(sgrt_event *ev, void *stream, sg_diag *diag) {
  if (!ev)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_event_record: null event");
  return ev->rt->ops->event_record(ev->rt->drv, ev->ev, stream, diag);
}

sg_status sgrt_event_elapsed(sgrt_event *start, sgrt_event *end, float *ms, sg_diag *diag) {
  if (!start || !end || !ms)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sgrt_event_elapsed: null argument");
  if (start->rt != end->rt)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT,
                       "sgrt_event_elapsed: events of different runtimes");
  return start->rt->ops->event_elapsed(start->rt->drv, start->ev, end->ev, ms, diag);
}

void sgrt_event_destroy(sgrt_event *ev) {
  if (!ev)
    return;
  ev->rt->ops->event_destroy(ev->rt->drv, ev->ev);
  free(ev);
}
