/* compile.c - the in-process compile API (softgen/compile.h): the stages
 * template -> constraints -> plan -> LLVM module -> O3 -> .ll/.ptx/.cubin/.hsaco
 * chained in one place, with the on-disk cache of driver/cache.c in front. The
 * only caller of the pipeline.
 * Needs: template, plan, codegen, backend, base/io. Produces: sg_compilation and
 * sg_compile (the CLI and the Python binding use them), sgd_compilation_create_parsed
 * (driver/driver.h: the MLIR front end), sg_compile_jit (host kernels in
 * process, for the Python binding), sg_template_find, sg_cache_dir. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "softgen/compile.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "driver/cache.h"
#include "driver/driver.h"
#include "plan/plan.h"
#include "base/io.h"
#include "backend/tool.h"
#include "backend/backend.h"

#ifndef SOFTGEN_VERSION
#define SOFTGEN_VERSION "unknown"
#endif
#ifndef SOFTGEN_LLVM_VERSION
#define SOFTGEN_LLVM_VERSION "unknown"
#endif
#ifndef SOFTGEN_TEMPLATES_DIR
#define SOFTGEN_TEMPLATES_DIR "kernels-templates"
#endif
/* The installed templates, relative to the directory of the executable
 * (<bindir> -> <datadir>/softgen/kernels-templates; set by tools/cmake/install.cmake). */
#ifndef SOFTGEN_TEMPLATES_RELDIR
#define SOFTGEN_TEMPLATES_RELDIR "../share/softgen/kernels-templates"
#endif

enum { CONSTRAINTS_LIMIT = 64 };

struct sg_compilation {
  const sg_template *t;    /* own_t, or the caller's (sgd_compilation_create_parsed) */
  const sg_constraints *c; /* own_c, or the caller's */
  sg_template *own_t;
  sg_constraints *own_c;
  sg_plan *plan;
  unsigned outputs, optional;
  char ptxas[PATH_MAX], lld[PATH_MAX];
  sg_emit_options tools;
  int cache_on;
  sgb_sha256 key; /* every input but the output kind and the tool */
  sg_compile_stats stats;
};

const char *sg_version(void) { return SOFTGEN_VERSION; }

const char *sg_arch_for_device(const char *target, const char *device_arch) {
  const sgh_target *t = target ? sgh_target_lookup(target) : NULL;
  if (!t || !device_arch)
    return NULL;
  if (sgh_has_arch(t, device_arch))
    return device_arch;
  return t->arch_for_device ? t->arch_for_device(device_arch) : NULL;
}
const char *sg_llvm_version(void) { return SOFTGEN_LLVM_VERSION; }

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void sg_compile_options_init(sg_compile_options *o) {
  memset(o, 0, sizeof *o);
  o->template_src.name = "softmax";
  o->problem.dtype = SG_DTYPE_F16;
  o->outputs = SG_OUTPUT_BIT(SG_OUTPUT_OBJECT);
}

/* ---- where things are ---- */

static int is_dir(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* The templates directory when none is given (see sg_template_find). */
static const char *default_templates_dir(char *buf, size_t cap) {
  const char *env = getenv("SOFTGEN_TEMPLATES");
  if (env && *env)
    return env;
  char dir[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
  char *slash = n > 0 ? (dir[n] = '\0', strrchr(dir, '/')) : NULL;
  if (slash) {
    *slash = '\0'; /* the executable's directory; "../" steps up lexically */
    const char *rel = SOFTGEN_TEMPLATES_RELDIR;
    while (strncmp(rel, "../", 3) == 0 && (slash = strrchr(dir, '/')) != NULL) {
      *slash = '\0';
      rel += 3;
    }
    int len = snprintf(buf, cap, "%s/%s", dir, rel);
    if (len > 0 && (size_t)len < cap && is_dir(buf))
      return buf;
  }
  return SOFTGEN_TEMPLATES_DIR;
}

sg_status sg_template_find(const char *name, const char *templates_dir, char *out, size_t cap,
                           sg_diag *diag) {
  struct stat sb;
  if (!name || !*name || !out || cap == 0)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_template_find: no template name");
  int len;
  if (strchr(name, '/') || stat(name, &sb) == 0) {
    len = snprintf(out, cap, "%s", name);
  } else {
    char buf[PATH_MAX];
    const char *dir = templates_dir ? templates_dir : default_templates_dir(buf, sizeof buf);
    len = snprintf(out, cap, "%s/%s%s", dir, name, strstr(name, ".sgt") ? "" : ".sgt");
  }
  if (len < 0 || (size_t)len >= cap)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "%s: template path too long", name);
  return SG_OK;
}

sg_status sg_cache_dir(const char *override_dir, int no_cache, char *out, size_t cap,
                       sg_diag *diag) {
  const char *off = getenv("SOFTGEN_CACHE");
  if (no_cache || (off && strcmp(off, "0") == 0))
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "the compile cache is off");
  const char *d = override_dir && *override_dir ? override_dir : getenv("SOFTGEN_CACHE_DIR");
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int len;
  if (d && *d)
    len = snprintf(out, cap, "%s", d);
  else if (xdg && *xdg == '/') /* XDG: a relative value is invalid and ignored */
    len = snprintf(out, cap, "%s/softgen", xdg);
  else if (home && *home)
    len = snprintf(out, cap, "%s/.cache/softgen", home);
  else
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "no cache directory: set SOFTGEN_CACHE_DIR, "
                       "XDG_CACHE_HOME or HOME");
  if (len <= 0 || (size_t)len >= cap)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "cache directory path too long");
  return SG_OK;
}

/* ---- the key ---- */

/* The binary holding this code (executable or shared library), by path, size
 * and modification time: a rebuilt softgen gets fresh cache entries. */
static void key_binary(sgb_sha256 *key) {
  static const char anchor = 0;
  Dl_info info;
  char id[PATH_MAX + 64] = "unknown";
  struct stat sb;
  if (dladdr(&anchor, &info) && info.dli_fname && stat(info.dli_fname, &sb) == 0)
    snprintf(id, sizeof id, "%s %lld %lld.%09ld", info.dli_fname, (long long)sb.st_size,
             (long long)sb.st_mtim.tv_sec, (long)sb.st_mtim.tv_nsec);
  sgd_key_field(key, "binary", id, strlen(id));
}

static void key_plan(sgb_sha256 *key, const sg_plan *plan) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (f) {
    sg_plan_print(plan, f);
    fclose(f);
  }
  sgd_key_field(key, "plan", text ? text : "?", text ? len : 1);
  free(text);
}

/* The key of one output; 0 when it cannot be made (the tool is missing: the
 * output is then built uncached and fails or is skipped as usual). */
static int output_key(const sg_compilation *c, int kind, unsigned char key[SGD_KEY_BYTES]) {
  if (kind == SG_OUTPUT_SHARED)
    return 0; /* the linker (ld.lld or cc) is not part of the key: always linked afresh */
  sgb_sha256 s = c->key;
  char k[8];
  snprintf(k, sizeof k, "%d", kind);
  sgd_key_field(&s, "output", k, strlen(k));
  if (kind == SG_OUTPUT_OBJECT) {
    char path[PATH_MAX], version[2048];
    const sge_backend *be = sge_backend_for(c->plan->target);
    if (!be->find_tool || be->find_tool(&c->tools, path, sizeof path, NULL) ||
        sge_tool_version(path, version, sizeof version, NULL))
      return 0;
    sgd_key_field(&s, "tool", path, strlen(path));
    sgd_key_field(&s, "tool-version", version, strlen(version));
  }
  sgb_sha256_final(&s, key);
  return 1;
}

/* ---- create: parse and resolve ---- */

/* Reads a source's text: src->text, or the file src->name (what: "a template", ...;
 * a regular file of at most SGB_LIMIT_TEXT). *owned is what to free. */
static sg_status source_text(const sg_source *src, const char *what, const char **text,
                             size_t *len, char **owned, sg_diag *diag) {
  *owned = NULL;
  if (src->text) {
    *text = src->text;
    *len = src->len;
    return SG_OK;
  }
  if (!src->name)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "a source has neither text nor a name");
  sg_status st = sgb_read_input(src->name, what, SGB_LIMIT_TEXT, owned, len, diag);
  *text = *owned;
  return st;
}

static sg_status parse_inputs(sg_compilation *c, const sg_compile_options *o, sg_diag *diag) {
  sg_source tsrc = o->template_src;
  char tpath[PATH_MAX];
  if (!tsrc.text) {
    sg_status st = sg_template_find(tsrc.name ? tsrc.name : "softmax", o->templates_dir, tpath,
                                    sizeof tpath, diag);
    if (st)
      return st;
    tsrc.name = tpath;
  }
  const char *text;
  size_t len;
  char *owned;
  sg_status st = source_text(&tsrc, "a template", &text, &len, &owned, diag);
  if (!st) {
    sgd_key_field(&c->key, "template", text, len);
    st = sg_template_parse(tsrc.name ? tsrc.name : "<template>", text, len, &c->own_t, diag);
  }
  free(owned);
  if (!st)
    st = sg_constraints_create(&c->own_c, diag);
  for (int i = 0; !st && i < o->nconstraints; i++) {
    st = source_text(&o->constraints[i], "a constraints file", &text, &len, &owned, diag);
    if (!st) {
      sgd_key_field(&c->key, "constraints", text, len);
      st = sg_constraints_parse(c->own_c, o->constraints[i].name ? o->constraints[i].name : "<constraints>",
                                text, len, diag);
    }
    free(owned);
  }
  c->t = c->own_t;
  c->c = c->own_c;
  return st;
}

static sg_status copy_path(char *dst, size_t cap, const char *src, const char **field,
                           sg_diag *diag) {
  if (!src)
    return SG_OK;
  if ((size_t)snprintf(dst, cap, "%s", src) >= cap)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "%s: path too long", src);
  *field = dst;
  return SG_OK;
}

/* A compilation of o's outputs, problem, tools and cache (no inputs yet). */
static sg_status alloc_compilation(const sg_compile_options *o, const char *who,
                                   sg_compilation **out, sg_diag *diag) {
  if (o->outputs >> SG_OUTPUT_COUNT)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "%s: unknown output kinds in mask 0x%x",
                       who, o->outputs);
  sg_compilation *c = calloc(1, sizeof *c);
  if (!c)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
  c->outputs = o->outputs ? o->outputs : SG_OUTPUT_BIT(SG_OUTPUT_OBJECT);
  c->optional = o->optional_outputs;
  c->stats.ms_ir = c->stats.ms_optimise = c->stats.ms_emit = c->stats.ms_assemble = -1;
  c->stats.ms_cache = -1;
  sg_status st = copy_path(c->ptxas, sizeof c->ptxas, o->tools.ptxas, &c->tools.ptxas, diag);
  if (!st)
    st = copy_path(c->lld, sizeof c->lld, o->tools.lld, &c->tools.lld, diag);
  if (st) {
    free(c);
    return st;
  }
  c->cache_on = sg_cache_dir(o->cache_dir, o->no_cache, c->stats.cache_dir,
                             sizeof c->stats.cache_dir, NULL) == SG_OK;
  if (!c->cache_on)
    c->stats.cache_dir[0] = '\0';
  sgb_sha256_init(&c->key);
  sgd_key_field(&c->key, "softgen-cache", "1", 1);
  sgd_key_field(&c->key, "softgen", SOFTGEN_VERSION, strlen(SOFTGEN_VERSION));
  sgd_key_field(&c->key, "llvm", SOFTGEN_LLVM_VERSION, strlen(SOFTGEN_LLVM_VERSION));
  key_binary(&c->key);
  *out = c;
  return SG_OK;
}

/* Resolves the plan of c's inputs (st: how getting them went); destroys c on failure. */
static sg_status resolve(sg_compilation *c, sg_status st, const sg_problem *p,
                         sg_compilation **out, sg_diag *diag) {
  double t = now_ms();
  if (!st)
    st = sg_plan_resolve(c->t, c->c, p, &c->plan, diag);
  c->stats.ms_resolve = now_ms() - t;
  if (st) {
    sg_compilation_destroy(c);
    return st;
  }
  key_plan(&c->key, c->plan);
  *out = c;
  return SG_OK;
}

sg_status sg_compilation_create(const sg_compile_options *o, sg_compilation **out, sg_diag *diag) {
  if (!o || !out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_compilation_create: null argument");
  *out = NULL;
  if (o->nconstraints < 0 || o->nconstraints > CONSTRAINTS_LIMIT || (o->nconstraints && !o->constraints))
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_compilation_create: %d constraint "
                       "sources (0 to %d, with a non-NULL array)", o->nconstraints, CONSTRAINTS_LIMIT);
  sg_compilation *c;
  sg_status st = alloc_compilation(o, "sg_compilation_create", &c, diag);
  if (st)
    return st;
  double t = now_ms();
  st = parse_inputs(c, o, diag);
  c->stats.ms_parse = now_ms() - t;
  return resolve(c, st, &o->problem, out, diag);
}

sg_status sgd_compilation_create_parsed(const sg_template *t, const sg_constraints *cons,
                                        const sg_compile_options *o, sg_compilation **out,
                                        sg_diag *diag) {
  if (!t || !o || !out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT,
                       "sgd_compilation_create_parsed: null argument");
  *out = NULL;
  sg_compilation *c;
  sg_status st = alloc_compilation(o, "sgd_compilation_create_parsed", &c, diag);
  if (st)
    return st;
  /* parsed objects carry no text to key them by: no cache */
  c->cache_on = 0;
  c->stats.cache_dir[0] = '\0';
  c->stats.ms_parse = -1;
  c->t = t;
  c->c = cons;
  if (!cons) {
    st = sg_constraints_create(&c->own_c, diag);
    c->c = c->own_c;
  }
  return resolve(c, st, &o->problem, out, diag);
}

const sg_plan *sg_compilation_plan(const sg_compilation *c) { return c ? c->plan : NULL; }
const sg_compile_stats *sg_compilation_stats(const sg_compilation *c) { return c ? &c->stats : NULL; }

void sg_compilation_destroy(sg_compilation *c) {
  if (!c)
    return;
  sg_plan_destroy(c->plan);
  sg_constraints_destroy(c->own_c);
  sg_template_destroy(c->own_t);
  free(c);
}

/* ---- emit: cache, then codegen for what it lacks ---- */

static void add_ms(double *field, double ms) { *field = (*field < 0 ? 0 : *field) + ms; }

/* Runs codegen, O3 and the backend for the outputs in `need` into out. */
static sg_status build(sg_compilation *c, unsigned need, sg_buffer *out, sg_diag *diag) {
  sg_module *m = NULL;
  double t = now_ms();
  sg_status st = sg_codegen(c->t, c->plan, &m, diag);
  c->stats.ms_ir = now_ms() - t;
  if (!st && (need & SG_OUTPUT_BIT(SG_OUTPUT_LLVM)))
    st = sg_module_emit(m, SG_EMIT_LLVM, NULL, &out[SG_OUTPUT_LLVM], diag);
  if (!st && (need & ~SG_OUTPUT_BIT(SG_OUTPUT_LLVM))) {
    t = now_ms();
    st = sg_module_optimize(m, diag);
    c->stats.ms_optimise = now_ms() - t;
  }
  if (!st && (need & SG_OUTPUT_BIT(SG_OUTPUT_LLVM_OPT)))
    st = sg_module_emit(m, SG_EMIT_LLVM, NULL, &out[SG_OUTPUT_LLVM_OPT], diag);
  if (!st && (need & SG_OUTPUT_BIT(SG_OUTPUT_ASM))) {
    t = now_ms();
    st = sg_module_emit(m, SG_EMIT_ASM, NULL, &out[SG_OUTPUT_ASM], diag);
    c->stats.ms_emit = now_ms() - t;
  }
  if (!st && (need & SG_OUTPUT_BIT(SG_OUTPUT_OBJECT))) {
    t = now_ms();
    st = sg_module_emit(m, SG_EMIT_OBJECT, &c->tools, &out[SG_OUTPUT_OBJECT], diag);
    if (st == SG_ERR_TOOL && (c->optional & SG_OUTPUT_BIT(SG_OUTPUT_OBJECT))) {
      c->stats.skipped |= SG_OUTPUT_BIT(SG_OUTPUT_OBJECT);
      snprintf(c->stats.warning, sizeof c->stats.warning, "%s", diag ? diag->message : "");
      sg_diag_clear(diag);
      st = SG_OK;
    } else if (!st) {
      c->stats.ms_assemble = now_ms() - t;
    }
  }
  if (!st && (need & SG_OUTPUT_BIT(SG_OUTPUT_SHARED))) {
    t = now_ms();
    st = sg_module_emit(m, SG_EMIT_SHARED, &c->tools, &out[SG_OUTPUT_SHARED], diag);
    if (!st)
      add_ms(&c->stats.ms_assemble, now_ms() - t);
  }
  sg_module_destroy(m);
  return st;
}

sg_status sg_compilation_emit(sg_compilation *c, sg_buffer out[SG_OUTPUT_COUNT], sg_diag *diag) {
  if (!c || !out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_compilation_emit: null argument");
  memset(out, 0, SG_OUTPUT_COUNT * sizeof out[0]);
  unsigned char keys[SG_OUTPUT_COUNT][SGD_KEY_BYTES];
  unsigned keyed = 0, need = 0;
  double t = now_ms();
  for (int k = 0; k < SG_OUTPUT_COUNT; k++) {
    if (!(c->outputs & SG_OUTPUT_BIT(k)))
      continue;
    if (c->cache_on && output_key(c, k, keys[k])) {
      keyed |= SG_OUTPUT_BIT(k);
      sgd_cache_lookup r = sgd_cache_read(c->stats.cache_dir, keys[k], &out[k]);
      if (r == SGD_CACHE_HIT) {
        c->stats.cache_hits++;
        continue;
      }
      if (r == SGD_CACHE_CORRUPT)
        c->stats.cache_rejected++;
    }
    need |= SG_OUTPUT_BIT(k);
  }
  if (c->cache_on)
    add_ms(&c->stats.ms_cache, now_ms() - t);
  if (!need)
    return SG_OK;
  sg_status st = build(c, need, out, diag);
  if (st) {
    for (int k = 0; k < SG_OUTPUT_COUNT; k++)
      sg_buffer_free(&out[k]);
    return st;
  }
  t = now_ms();
  for (int k = 0; k < SG_OUTPUT_COUNT; k++) {
    if (!(need & keyed & SG_OUTPUT_BIT(k)) || !out[k].data)
      continue;
    sg_diag w;
    if (sgd_cache_write(c->stats.cache_dir, keys[k], out[k].data, out[k].size, &w) == SG_OK)
      c->stats.cache_stores++;
    else if (!c->stats.warning[0])
      snprintf(c->stats.warning, sizeof c->stats.warning, "%s", w.message);
  }
  if (c->cache_on)
    add_ms(&c->stats.ms_cache, now_ms() - t);
  return SG_OK;
}

sg_status sg_compile(const sg_compile_options *o, sg_buffer *out, sg_compile_stats *stats,
                     sg_diag *diag) {
  if (!o || !out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_compile: null argument");
  out->data = NULL;
  out->size = 0;
  unsigned mask = o->outputs ? o->outputs : SG_OUTPUT_BIT(SG_OUTPUT_OBJECT);
  int kind = 0;
  while (kind < SG_OUTPUT_COUNT && !(mask & SG_OUTPUT_BIT(kind)))
    kind++;
  sg_compile_options one = *o;
  one.outputs = mask >> SG_OUTPUT_COUNT ? mask : SG_OUTPUT_BIT(kind); /* create rejects a bad mask */
  one.optional_outputs = 0;
  sg_compilation *c;
  sg_status st = sg_compilation_create(&one, &c, diag);
  if (st)
    return st;
  sg_buffer bufs[SG_OUTPUT_COUNT];
  st = sg_compilation_emit(c, bufs, diag);
  if (!st)
    *out = bufs[kind];
  if (stats)
    *stats = c->stats;
  sg_compilation_destroy(c);
  return st;
}

sg_status sg_compile_jit(const sg_compile_options *o, sg_jit **out, sg_compile_stats *stats,
                         sg_diag *diag) {
  if (!o || !out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_compile_jit: null argument");
  *out = NULL;
  if (!o->problem.target || strcmp(o->problem.target, "host") != 0)
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "sg_compile_jit: the JIT runs host-target "
                       "kernels only, not %s", o->problem.target ? o->problem.target : "nvptx");
  sg_compile_options one = *o;
  one.outputs = SG_OUTPUT_BIT(SG_OUTPUT_OBJECT); /* create checks the mask; nothing is emitted */
  one.optional_outputs = 0;
  one.no_cache = 1;
  sg_compilation *c;
  sg_status st = sg_compilation_create(&one, &c, diag);
  if (st)
    return st;
  sg_module *m = NULL;
  double t = now_ms();
  st = sg_codegen(c->t, c->plan, &m, diag);
  c->stats.ms_ir = now_ms() - t;
  if (!st) {
    t = now_ms();
    st = sg_module_optimize(m, diag);
    c->stats.ms_optimise = now_ms() - t;
  }
  if (!st) {
    t = now_ms();
    st = sg_jit_create(m, out, diag);
    c->stats.ms_emit = now_ms() - t;
  }
  sg_module_destroy(m);
  if (stats)
    *stats = c->stats;
  sg_compilation_destroy(c);
  return st;
}
