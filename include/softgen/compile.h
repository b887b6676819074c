/* softgen/compile.h - in-process compilation with an on-disk cache:
 * template + constraints + problem -> code object (or IR, assembly) in memory.
 *
 *   sg_compile_options o;
 *   sg_compile_options_init(&o);               f16, nvptx, its default arch, object
 *   o.template_src.name = "softmax";           a template name, a path, or text
 *   o.problem.n = 8192;
 *   sg_buffer obj;
 *   sg_compile_stats st;
 *   if (sg_compile(&o, &obj, &st, &diag)) ...  obj: the .cubin; st.cache_hits: 1 on a hit
 *   sgrt_kernel_load_data(rt, obj.data, obj.size, &k, &diag);   (softgen/runtime.h)
 *   sg_buffer_free(&obj);
 *
 * Several outputs of one kernel (the CLI's --emit llvm,asm,obj), with the plan in
 * between (--print-config, -v): sg_compilation_create (parse + resolve), then
 * sg_compilation_plan, then sg_compilation_emit.
 *
 * The cache. Each output is stored under a key, the SHA-256 of everything that
 * changes it: the template text, every constraints text, the resolved plan as
 * sg_plan_print writes it (N, dtype, target, arch and every chosen number), the
 * output kind, softgen's and LLVM's versions, the identity of the binary holding
 * this code (path, size, modification time: a rebuilt softgen never reuses an
 * older one's entries) and, for code objects, the path and `--version` output of
 * the tool that assembles them (ptxas, ld.lld). Directory: options.cache_dir, else
 * $SOFTGEN_CACHE_DIR, else $XDG_CACHE_HOME/softgen, else $HOME/.cache/softgen.
 * $SOFTGEN_CACHE=0 (or options.no_cache) turns it off. An entry is one file
 * <key>.sgc: a 64-byte header (magic, payload length, SHA-256 of the payload, the
 * key's first bytes) and the payload. Entries are written to a temporary file in
 * the same directory, fsync'd and renamed into place, so concurrent compilers of
 * the same kernel each leave a whole entry and readers never see a partial one;
 * an entry whose header, length or hash disagrees is counted in
 * stats.cache_rejected, never used, and replaced by the fresh result. A cache that
 * cannot be read or written never fails a compilation (stats.warning says why).
 * Removing the directory at any time is safe. */
#ifndef SOFTGEN_COMPILE_H
#define SOFTGEN_COMPILE_H

#include <stddef.h>

#include "softgen/api.h"
#include "softgen/codegen.h"
#include "softgen/constraints.h"
#include "softgen/diag.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A text input: `text` (len bytes) named `name` in diagnostics, or, when text is
 * NULL, the file at `name`. For a template, a name without '/' that is not an
 * existing file is looked up as <templates dir>/<name>.sgt (sg_template_find). */
typedef struct sg_source {
  const char *name;
  const char *text;
  size_t len;
} sg_source;

/* What sg_compilation_emit produces: bit (1u << kind) of sg_compile_options.outputs. */
typedef enum sg_output_kind {
  SG_OUTPUT_LLVM,     /* LLVM IR as built (.ll) */
  SG_OUTPUT_LLVM_OPT, /* LLVM IR after O3 (.opt.ll) */
  SG_OUTPUT_ASM,      /* .ptx / AMDGPU .s */
  SG_OUTPUT_OBJECT,   /* .cubin (ptxas) / .hsaco (ld.lld) / host .o */
  SG_OUTPUT_SHARED,   /* host only: a shared library (.so, ld.lld or cc); not cached */
  SG_OUTPUT_COUNT
} sg_output_kind;

#define SG_OUTPUT_BIT(kind) (1u << (kind))

typedef struct sg_compile_options {
  sg_source template_src;
  const char *templates_dir; /* NULL: see sg_template_find */
  const sg_source *constraints; /* nconstraints sources, parsed in order; NULL: automatic */
  int nconstraints;
  sg_problem problem;           /* n (required), dtype, target, arch */
  unsigned outputs;             /* SG_OUTPUT_BIT mask; 0: SG_OUTPUT_OBJECT */
  /* Outputs dropped (stats.skipped, stats.warning) instead of failing when their
   * external tool is missing or fails (SG_ERR_TOOL). */
  unsigned optional_outputs;
  sg_emit_options tools;
  const char *cache_dir; /* NULL: the environment's (see above) */
  int no_cache;          /* 1: neither read nor write the cache */
} sg_compile_options;

/* Per-compilation figures. Stage times are in milliseconds, -1 for a stage that
 * did not run (all code generation stages on a full cache hit). */
typedef struct sg_compile_stats {
  double ms_parse, ms_resolve, ms_ir, ms_optimise, ms_emit, ms_assemble, ms_cache;
  unsigned cache_hits;     /* outputs read from the cache */
  unsigned cache_stores;   /* outputs written to it */
  unsigned cache_rejected; /* entries found corrupt or truncated (then recompiled) */
  unsigned skipped;        /* optional outputs dropped: SG_OUTPUT_BIT mask */
  char cache_dir[1024];    /* the directory used; "" when the cache is off */
  char warning[1024];      /* "" or one line: a skipped output, a cache problem */
} sg_compile_stats;

typedef struct sg_compilation sg_compilation;

/* Zeroes o and sets the defaults: f16, target nvptx (its default arch),
 * outputs SG_OUTPUT_OBJECT, template "softmax". */
SG_API void sg_compile_options_init(sg_compile_options *o);

/* Reads and parses the template and constraints and resolves the plan.
 * o and everything it points to may be freed after this returns. */
SG_API sg_status sg_compilation_create(const sg_compile_options *o, sg_compilation **out,
                                       sg_diag *diag);

/* The resolved plan (owned by c). */
SG_API const sg_plan *sg_compilation_plan(const sg_compilation *c);

/* Produces every output of the options' mask into out[kind] (the others are left
 * empty), from the cache where it holds them, else through codegen, O3 and the
 * backend. The caller frees each buffer. On failure no buffer is left allocated. */
SG_API sg_status sg_compilation_emit(sg_compilation *c, sg_buffer out[SG_OUTPUT_COUNT],
                                     sg_diag *diag);

/* The stats so far (parse and resolve after create; the rest after emit). */
SG_API const sg_compile_stats *sg_compilation_stats(const sg_compilation *c);

SG_API void sg_compilation_destroy(sg_compilation *c);

/* create + emit + destroy for one output: the lowest kind in o->outputs (default:
 * the code object). stats may be NULL. */
SG_API sg_status sg_compile(const sg_compile_options *o, sg_buffer *out, sg_compile_stats *stats,
                            sg_diag *diag);

/* Host target only: create + codegen + O3 + an in-process JIT of the kernel
 * (sg_jit_create, softgen/codegen.h) into *out, which the caller destroys with
 * sg_jit_destroy; run it through sgrt_kernel_load_host (softgen/runtime.h).
 * o->outputs is ignored and the on-disk cache is neither read nor written: it
 * holds no JIT-ed code, and host objects are not cached. SG_ERR_UNSUPPORTED
 * for a GPU target. stats (may be NULL): parse, resolve, ms_ir, ms_optimise,
 * and ms_emit (the JIT's code generation). */
SG_API sg_status sg_compile_jit(const sg_compile_options *o, sg_jit **out, sg_compile_stats *stats,
                                sg_diag *diag);

/* The cache directory the options select (see above) into out; SG_ERR_UNSUPPORTED
 * when the cache is off (no_cache, $SOFTGEN_CACHE=0, no directory known). */
SG_API sg_status sg_cache_dir(const char *override_dir, int no_cache, char *out, size_t cap,
                              sg_diag *diag);

/* Resolves a template argument to a path: `name` itself when it holds '/' or
 * names an existing file; else <dir>/<name>[.sgt], where dir is templates_dir
 * when non-NULL, else $SOFTGEN_TEMPLATES, else the installed templates next to
 * the running executable (<exe dir>/SOFTGEN_TEMPLATES_RELDIR) when present,
 * else the source tree softgen was built from. */
SG_API sg_status sg_template_find(const char *name, const char *templates_dir, char *out,
                                  size_t cap, sg_diag *diag);

/* The arch to compile for a device that reports device_arch (as the runtime's
 * sgrt_device_arch does, e.g. "sm_86"): device_arch itself when the target lists
 * it; else, for NVPTX, the newest listed sm_XY at or below the device's compute
 * capability, whose PTX the device's driver compiles (e.g. sm_130 -> sm_121);
 * NULL when the target is unknown or has none the device can run. */
SG_API const char *sg_arch_for_device(const char *target, const char *device_arch);

/* softgen's version ("0.1.0") and that of the LLVM it was built with. */
SG_API const char *sg_version(void);
SG_API const char *sg_llvm_version(void);

#ifdef __cplusplus
}
#endif
#endif
