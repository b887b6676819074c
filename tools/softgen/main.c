/* softgen - the command-line compiler: template + constraints -> kernel files.
 *
 *   softgen [options] [TEMPLATE]     `softgen --help`; the man page: `softgen --help-man`
 *
 * Every option is declared once, in the table cli[] (tools/common/options.h): it
 * parses argv, prints --help and the man page's OPTIONS. The stages run in the
 * library (softgen/compile.h: sg_compilation_*, with its on-disk cache); this
 * file parses arguments, prints and writes. Everything is built in memory first,
 * for every N asked for; files are written only when every requested stage of
 * every kernel succeeded: all to temporaries first, then renamed (base/io.h),
 * so a failure leaves no partial output and every old file as it was. A write
 * error on stdout is an error (exit 1). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../common/options.h"
#include "mlir_main.h" /* MLIR mode: softgen model.mlir */
#include "softgen/softgen.h"
#include "base/io.h"

enum { /* the options: ids for the table's rows */
  O_N = 1, O_DTYPE, O_OUT_DTYPE, O_TARGET, O_ARCH, O_LAYOUT, O_CONSTRAINTS, O_C, O_EMIT,
  O_OUT_DIR, O_O, O_PRINT_CONFIG, O_PRINT_TEMPLATE, O_PRINT_N_RANGES, O_INSPECT, O_MLIR, O_MLIR_MEMORY, O_MLIR_MAX_N,
  O_CACHE_DIR, O_NO_CACHE,
  O_PTXAS, O_LLD, O_VERBOSE, O_HELP, O_VERSION, O_HELP_MAN
};

/* Every option, once: parse_args reads argv through it, --help and the man page print it. */
static const opt cli[] = {
    OPT_SECTION("Problem", NULL),
    {O_N, "-D", "N=<int>", 0,
     "row length (required); M, the row count, is a run-time argument.\n"
     "Several values (-D N=1024,4096 or -D repeated) make one\n"
     "kernel each (progress on stderr when it is a terminal).\n"
     "A range MIN:MAX (-D N=1025:2048) makes one kernel that\n"
     "takes any N from MIN to MAX at run time"},
    {O_DTYPE, "--dtype", "f16|bf16|f32", 0,
     "element type of the template's T tensors (default f16)"},
    {O_OUT_DTYPE, "--out-dtype", "f16|bf16|f32", 0,
     "element type of the template's U tensors (the outputs;\n"
     "default: --dtype), e.g. f16 in, f32 out"},
    {O_TARGET, "--target", "nvptx|amdgpu|host", 0,
     "backend (default nvptx; host: this machine's CPU)"},
    {O_ARCH, "--arch", "ARCH", OPT_LINES,
     "nvptx: sm_80 sm_89 sm_90 sm_90a sm_100 (default sm_90)\n"
     "amdgpu: gfx90a gfx942 gfx950 gfx1100 gfx1201 (default gfx942)\n"
     "host: native (default), x86-64[-v2|-v3|-v4] or generic, neoverse-*"},
    {O_LAYOUT, "--layout", "rows|inner", 0,
     "rows (default): reduce along the last, contiguous dim;\n"
     "inner: reduce dim N of tensors viewed as [outer, N, inner]\n"
     "(softmax over a non-last dim without a copy; inner and the\n"
     "strides are run-time arguments; kernel name ..._inner)"},
    OPT_SECTION("Constraints", "Wave's vocabulary; anything not given is chosen automatically"),
    {O_CONSTRAINTS, "--constraints", "FILE", 0,
     "read constraints from FILE (repeatable; a regular file of\n"
     "at most 1 MiB)"},
    {O_C, "-C", "TEXT", OPT_LINES,
     "a constraint on the command line, e.g.\n"
     "-C 'HardwareConstraint(threads_per_wave=32, waves_per_block=(4,1,1))'"},
    OPT_SECTION("Output", NULL),
    {O_EMIT, "--emit", "KINDS", 0,
     "comma-separated: llvm (IR as built), llvm-opt (after O3),\n"
     "asm (.ptx / .s), obj (.cubin / .hsaco / host .o), all,\n"
     "so (host only: a shared library for the runtime)\n"
     "(default: llvm,llvm-opt,asm,obj; obj is skipped with a\n"
     "warning when ptxas is missing)"},
    {O_OUT_DIR, "--out-dir", "DIR", 0, "directory for output files (default: out)"},
    {O_O, "-o", "FILE", 0,
     "write the single --emit kind to FILE ('-' for stdout).\n"
     "Every output (-o or --out-dir) goes to a temporary file\n"
     "beside it, renamed into place once all are complete: a\n"
     "failure leaves the old files as they were. A device node\n"
     "or FIFO is written in place, a symlink through (its\n"
     "target is replaced), a directory is refused"},
    {O_PRINT_CONFIG, "--print-config", NULL, 0, "print the resolved plan and exit"},
    {O_PRINT_TEMPLATE, "--print-template", NULL, 0,
     "print the template's typed op list and exit (no N needed)"},
    {O_PRINT_N_RANGES, "--print-n-ranges", NULL, 0,
     "print the ranges of N a run-time N is served by, one\n"
     "MIN:MAX a line (the kernels of a dynamic reduced dim;\n"
     "up to --mlir-max-n when given), and exit (no N needed)"},
    {O_INSPECT, "--inspect", "FILE", 0,
     "print the launch metadata of a code object and exit\n"
     "(a regular file of at most 256 MiB)"},
    OPT_SECTION("MLIR", "input MODEL.mlir, or --mlir"),
    {O_MLIR, "--mlir", NULL, 0,
     "read the input as an MLIR module (a regular file of at\n"
     "most 1 GiB): every linalg.softmax becomes a\n"
     "gpu.launch_func of a kernel in a gpu.binary;\n"
     "writes DIR/<kernel>.<ext> and DIR/MODEL.gpu.mlir (-o: the\n"
     "module only); --emit asm|obj picks what gpu.objects hold"},
    {O_MLIR_MEMORY, "--mlir-memory", "host|device", 0,
     "where the module's buffers and tensors live. host\n"
     "(default): what is not known to be device memory is\n"
     "copied to the device and back around each launch;\n"
     "device: kernels read and write it in place"},
    {O_MLIR_MAX_N, "--mlir-max-n", "N", 0,
     "the longest row of a dynamic reduced dim (default\n"
     "2^31-1): kernels for the ranges of N up to it only"},
    OPT_SECTION("Cache", "compiled outputs are reused when nothing that changes them changed"),
    {O_CACHE_DIR, "--cache-dir", "DIR", 0,
     "cache directory (default: $SOFTGEN_CACHE_DIR, else\n"
     "$XDG_CACHE_HOME/softgen, else ~/.cache/softgen)"},
    {O_NO_CACHE, "--no-cache", NULL, 0, "neither read nor write the cache (also: SOFTGEN_CACHE=0)"},
    OPT_SECTION("Tools", NULL),
    {O_PTXAS, "--ptxas", "PATH", 0, "ptxas to use (default: $CUDA_HOME/bin, then PATH)"},
    {O_LLD, "--lld", "PATH", 0, "ld.lld to use (default: LLVM 22's tools directory, then PATH)"},
    OPT_SECTION("Other", NULL),
    {O_VERBOSE, "-v, --verbose", NULL, 0,
     "print the plan, the time of each stage and the cache's\n"
     "use to stderr"},
    {O_HELP, "-h, --help", NULL, 0, "this help"},
    {O_VERSION, "--version", NULL, 0, "version of softgen and of LLVM"},
    {O_HELP_MAN, "--help-man", NULL, OPT_HIDDEN, "the man page (roff), made from this table"},
    {0},
};

static const char *const synopsis[] = {"[options] [TEMPLATE]", "[options] MODEL.mlir", NULL};
static const char template_note[] =
    "TEMPLATE is a .sgt file or the name of one in the templates directory\n"
    "(default: softmax; directory: $SOFTGEN_TEMPLATES, else the installed one,\n"
    "<bindir>/../share/softgen/kernels-templates, else the one softgen was built with);\n"
    "a regular file of at most 1 MiB.";
static const char exit_status[] =
    "0 on success, 1 on any error (nothing is written then), 2 on bad usage.";

static void usage(FILE *f) {
  for (int i = 0; synopsis[i]; i++)
    fprintf(f, "%s softgen %s\n", i ? "      " : "usage:", synopsis[i]);
  fprintf(f, "\nGenerates a softmax-family GPU kernel from a template (.sgt) and Wave-style\n"
             "constraints, through LLVM's NVPTX or AMDGPU backend.\n%s\n\n", template_note);
  opt_help(f, cli);
  fprintf(f, "\nExit status: %s\n", exit_status);
}

/* The man page: the table's options between prose that --help has no room for. */
static void man_page(FILE *f) {
  static const char *const env[][2] = {
      {"SOFTGEN_TEMPLATES", "the templates directory, searched for a TEMPLATE given by name."},
      {"SOFTGEN_CACHE_DIR, XDG_CACHE_HOME, HOME",
       "the compile cache directory: $SOFTGEN_CACHE_DIR, else $XDG_CACHE_HOME/softgen (when it\n"
       "is an absolute path), else $HOME/.cache/softgen; --cache-dir overrides them."},
      {"SOFTGEN_CACHE", "0 turns the compile cache off (as --no-cache)."},
      {"SOFTGEN_PROGRESS", "1 or 0: show or hide the progress line of a run that makes several\n"
       "kernels (default: shown when stderr is a terminal and -v is not given)."},
      {"SOFTGEN_HOST_TRIPLE", "--target host: generate for this LLVM target triple (e.g.\n"
       "aarch64-unknown-linux-gnu) and a generic CPU instead of for this machine."},
      {"CUDA_HOME", "ptxas is looked for in $CUDA_HOME/bin first, unless --ptxas is given."},
      {"PATH", "where ptxas, ld.lld (after LLVM 22's tools directory) and cc (a host .so when\n"
       "ld.lld is missing) are looked for."},
      {"TMPDIR", "where the files that ptxas, ld.lld and cc read and write are kept while they\n"
       "run (default /tmp)."},
      {"SOFTGEN_CUDA_LIBRARY, SOFTGEN_HIP_LIBRARY, SOFTGEN_HOST_THREADS",
       "read by the runtime (libsoftgen_rt: softgen-run, softgen-bench, the Python package), not\n"
       "by softgen: the CUDA or HIP driver library to open instead of libcuda.so.1 or\n"
       "libamdhip64.so, and the number of CPU threads that run a host kernel (default: one per\n"
       "CPU, at most 256)."},
      {"SOFTGEN_LIBRARY, SOFTGEN_RT_LIBRARY, SOFTGEN_LIB_DIR, SOFTGEN_KERNEL_PATH",
       "read by the Python package only: where it finds libsoftgen.so and libsoftgen_rt.so, and\n"
       "the directories of code objects it preloads."},
  };
  fprintf(f, ".\\\" Generated by `softgen --help-man` from tools/softgen/main.c's table.\n"
             ".TH SOFTGEN 1 \"\" \"softgen %s (LLVM %s)\" \"User Commands\"\n.nh\n.ad l\n",
          sg_version(), sg_llvm_version());
  fputs(".SH NAME\nsoftgen \\- a softmax kernel compiler (templates and Wave-style constraints to "
        "PTX, cubin or hsaco)\n.SH SYNOPSIS\n", f);
  for (int i = 0; synopsis[i]; i++) {
    fputs(i ? ".br\n.B softgen\n" : ".B softgen\n", f);
    opt_man_text(f, synopsis[i], 0);
  }
  fputs(".SH DESCRIPTION\n", f);
  opt_man_text(f,
      "softgen compiles a kernel of the softmax family (softmax, log-softmax, their backward\n"
      "passes, scaled, masked, causal and attention softmax, or any template written in its .sgt\n"
      "language) for each row length N it is given. It resolves the Wave-style constraints\n"
      "(threads per wave, waves per block, tiles, vector shapes; whatever is not given is chosen\n"
      "automatically) for N, the element types and the target into a plan (--print-config),\n"
      "builds LLVM IR from the plan and lowers it with LLVM's own NVPTX, AMDGPU or host backend\n"
      "to assembly (.ptx, .s) and code objects (.cubin through ptxas, .hsaco through ld.lld, or\n"
      "a host .o or .so). Every code object carries its launch metadata (--inspect prints it),\n"
      "so the softgen runtime (libsoftgen_rt, softgen-run) loads and launches it with no side\n"
      "file. Outputs are reused from an on-disk cache when nothing that changes them changed,\n"
      "and written all or none. Given an MLIR module instead, softgen replaces each\n"
      "linalg.softmax in it with the launch of a kernel that it compiles.", 0);
  fputs(".PP\n", f);
  opt_man_text(f, template_note, 0);
  fputs(".SH OPTIONS\n", f);
  opt_man(f, cli);
  fputs(".SH EXIT STATUS\n", f);
  opt_man_text(f, exit_status, 0);
  fputs(".SH ENVIRONMENT\n", f);
  for (size_t i = 0; i < sizeof env / sizeof env[0]; i++)
    opt_man_item(f, env[i][0], env[i][1], 0);
  fputs(".SH FILES\n", f);
  opt_man_item(f, "<prefix>/share/softgen/kernels-templates/*.sgt",
               "the installed kernel templates (see TEMPLATE above).", 0);
  opt_man_item(f, "~/.cache/softgen/*.sgc",
               "the compile cache's entries, one per compiled output (see ENVIRONMENT for where\n"
               "the directory is); any of them may be deleted at any time.", 0);
  fputs(".SH SEE ALSO\n", f);
  opt_man_text(f, "softgen-run --help, softgen-bench --help; README.md and docs/ in softgen's "
               "source.", 0);
}

/* --emit kinds: the SG_OUTPUT_BIT mask of softgen/compile.h */
enum {
  EMIT_LLVM = SG_OUTPUT_BIT(SG_OUTPUT_LLVM),
  EMIT_LLVM_OPT = SG_OUTPUT_BIT(SG_OUTPUT_LLVM_OPT),
  EMIT_ASM = SG_OUTPUT_BIT(SG_OUTPUT_ASM),
  EMIT_OBJ = SG_OUTPUT_BIT(SG_OUTPUT_OBJECT),
  EMIT_ALL = EMIT_LLVM | EMIT_LLVM_OPT | EMIT_ASM | EMIT_OBJ,
  EMIT_SO = SG_OUTPUT_BIT(SG_OUTPUT_SHARED), /* not in "all": host only */
  MAX_NS = 1024 /* kernels one invocation makes */
};

typedef struct options {
  const char *template_arg;
  const char *out_dir, *out_file;
  const char *constraint_files[16];
  int nconstraint_files;
  const char *constraint_texts[16];
  int nconstraint_texts;
  sg_problem problem;
  int64_t ns[MAX_NS];     /* the -D N= values, in order (a range's largest) */
  int64_t ns_min[MAX_NS]; /* a range's smallest, else 0 */
  int nns;
  unsigned emit;
  int emit_given, print_config, print_template, print_n_ranges, verbose, no_cache, mlir, mlir_device_memory;
  int64_t mlir_max_n; /* --mlir-max-n (0: none) */
  const char *inspect, *cache_dir;
  sg_emit_options tools;
} options;

static int bad_usage(const char *fmt, const char *arg) {
  fprintf(stderr, "softgen: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(see softgen --help)\n");
  return 2;
}

static int parse_emit(options *o, const char *list) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", list);
  o->emit = 0;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    if (strcmp(tok, "llvm") == 0 || strcmp(tok, "ll") == 0)
      o->emit |= EMIT_LLVM;
    else if (strcmp(tok, "llvm-opt") == 0)
      o->emit |= EMIT_LLVM_OPT;
    else if (strcmp(tok, "asm") == 0 || strcmp(tok, "ptx") == 0)
      o->emit |= EMIT_ASM;
    else if (strcmp(tok, "obj") == 0 || strcmp(tok, "cubin") == 0 || strcmp(tok, "hsaco") == 0)
      o->emit |= EMIT_OBJ;
    else if (strcmp(tok, "all") == 0)
      o->emit |= EMIT_ALL;
    else if (strcmp(tok, "so") == 0)
      o->emit |= EMIT_SO;
    else
      return bad_usage("unknown --emit kind '%s' (expected llvm, llvm-opt, asm, obj, so or all)", tok);
  }
  if (!o->emit)
    return bad_usage("--emit needs at least one kind%s", "");
  o->emit_given = 1;
  return 0;
}

/* -D N=<int>[,<int>...], each value N or a range MIN:MAX: appends each to o->ns
 * (and o->ns_min). */
static int parse_n(options *o, const char *def) {
  if (strncmp(def, "N=", 2) != 0)
    return bad_usage("-D takes N=<int>, not '%s'", def);
  const char *p = def + 2;
  do { /* p: the next value; a trailing ',' leaves an empty one: rejected */
    char *end;
    errno = 0;
    long long lo = 0, n = strtoll(p, &end, 10);
    if (end != p && *end == ':' && !errno && n >= 1) { /* a range: MIN:MAX */
      const char *q = end + 1;
      lo = n;
      n = strtoll(q, &end, 10);
      if (end == q || *q == '-' || *q == '+' || errno || n < lo)
        return bad_usage("-D N=%s: a range MIN:MAX needs 1 <= MIN <= MAX <= 2^31-1", def + 2);
    }
    if (end == p || (*end && *end != ',') || errno || n < 1 || n > 2147483647LL)
      return bad_usage("-D N=%s: N must be an integer from 1 to 2^31-1, or a range MIN:MAX "
                       "(or a comma-separated list)", def + 2);
    if (o->nns == MAX_NS)
      return bad_usage("-D N=%s: at most 1024 values of N in one invocation", def + 2);
    o->ns_min[o->nns] = lo;
    o->ns[o->nns++] = n;
    p = end + 1;
    if (!*end)
      return 0;
  } while (1);
}

/* Parses argv into o through the table; returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, options *o) {
  opt_parser p = {.argc = argc, .argv = argv, .i = 1};
  for (int id, r = 0; (id = opt_next(&p, cli)) != OPT_END; r = 0) {
    const char *v = p.val;
    switch (id) {
    case OPT_UNKNOWN: return bad_usage("unknown option '%s'", p.name);
    case OPT_NO_VALUE: return bad_usage("option %s needs a value", p.name);
    case OPT_EXTRA_VALUE: return bad_usage("option %s takes no value", p.name);
    case OPT_ARG:
      if (o->template_arg)
        return bad_usage("more than one template given ('%s')", v);
      o->template_arg = v;
      break;
    case O_HELP: usage(stdout); return 0;
    case O_HELP_MAN: man_page(stdout); return 0;
    case O_VERSION: printf("softgen %s (LLVM %s)\n", sg_version(), sg_llvm_version()); return 0;
    case O_N: r = parse_n(o, v); break;
    case O_DTYPE:
      if (sg_dtype_parse(v, &o->problem.dtype))
        return bad_usage("unknown --dtype '%s' (expected f16, bf16 or f32)", v);
      break;
    case O_OUT_DTYPE:
      if (sg_dtype_parse(v, &o->problem.out_dtype))
        return bad_usage("unknown --out-dtype '%s' (expected f16, bf16 or f32)", v);
      o->problem.out_dtype_set = 1;
      break;
    case O_LAYOUT:
      if (sg_layout_parse(v, &o->problem.layout))
        return bad_usage("unknown --layout '%s' (expected rows or inner)", v);
      break;
    case O_CONSTRAINTS:
      if (o->nconstraint_files == 16)
        return bad_usage("at most 16 --constraints files%s", "");
      o->constraint_files[o->nconstraint_files++] = v;
      break;
    case O_C:
      if (o->nconstraint_texts == 16)
        return bad_usage("at most 16 -C constraints%s", "");
      o->constraint_texts[o->nconstraint_texts++] = v;
      break;
    case O_EMIT: r = parse_emit(o, v); break;
    case O_TARGET: o->problem.target = v; break;
    case O_ARCH: o->problem.arch = v; break;
    case O_OUT_DIR: o->out_dir = v; break;
    case O_O: o->out_file = v; break;
    case O_INSPECT: o->inspect = v; break;
    case O_CACHE_DIR: o->cache_dir = v; break;
    case O_PTXAS: o->tools.ptxas = v; break;
    case O_LLD: o->tools.lld = v; break;
    case O_PRINT_CONFIG: o->print_config = 1; break;
    case O_PRINT_TEMPLATE: o->print_template = 1; break;
    case O_PRINT_N_RANGES: o->print_n_ranges = 1; break;
    case O_MLIR: o->mlir = 1; break;
    case O_MLIR_MEMORY:
      if (strcmp(v, "host") != 0 && strcmp(v, "device") != 0)
        return bad_usage("unknown --mlir-memory '%s' (expected host or device)", v);
      o->mlir_device_memory = strcmp(v, "device") == 0;
      break;
    case O_MLIR_MAX_N: {
      char *end;
      errno = 0;
      long long n = strtoll(v, &end, 10);
      if (end == v || *end || errno || n < 1 || n > 2147483647LL)
        return bad_usage("--mlir-max-n %s: N must be an integer from 1 to 2^31-1", v);
      o->mlir_max_n = n;
      break;
    }
    case O_NO_CACHE: o->no_cache = 1; break;
    case O_VERBOSE: o->verbose = 1; break;
    }
    if (r)
      return r;
  }
  return -1;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int fail(const sg_diag *d) {
  fprintf(stderr, "softgen: error: %s\n", d->message);
  return 1;
}

static int inspect(const char *path) {
  sg_diag d;
  char *data;
  size_t len;
  sg_meta m;
  if (sgb_read_input(path, "a code object", SGB_LIMIT_OBJECT, &data, &len, &d))
    return fail(&d);
  sg_status st = sg_meta_verify(data, len, &d); /* a damaged or edited object is an error */
  if (!st)
    st = sg_meta_find(data, len, &m, &d);
  free(data);
  if (st) {
    fprintf(stderr, "softgen: error: %s: %s\n", path, d.message);
    return 1;
  }
  char text[4096];
  if (sg_meta_format(&m, text, sizeof text, NULL, &d))
    return fail(&d);
  fputs(text, stdout);
  return 0;
}


/* One kernel's outputs, kept in memory until every kernel is built. */
typedef struct kernel_out {
  sg_buffer buf[SG_OUTPUT_COUNT];
  char name[128];
  const char *asm_ext, *obj_ext, *so_ext;
} kernel_out;

/* Progress on stderr while several kernels are made: on a terminal (and not
 * with -v, which prints its own lines); SOFTGEN_PROGRESS=1 or 0 forces it. */
static int progress_wanted(const options *o) {
  const char *env = getenv("SOFTGEN_PROGRESS");
  if (env && *env)
    return strcmp(env, "0") != 0;
  return o->nns > 1 && !o->verbose && isatty(2);
}

static void progress(int on, int i, int n, const char *what) {
  if (!on)
    return;
  if (i < n)
    fprintf(stderr, "\rsoftgen: [%d/%d] %s\033[K", i + 1, n, what);
  else
    fprintf(stderr, "\rsoftgen: %d kernels\033[K\n", n);
  fflush(stderr);
}

static void print_stage(const char *name, double ms) {
  if (ms >= 0)
    fprintf(stderr, "softgen: %-9s %8.2f ms\n", name, ms);
}

/* -v after emission: the code generation stages that ran, then the cache. */
static void print_emit_stats(const sg_compile_stats *st) {
  print_stage("ir", st->ms_ir);
  print_stage("optimise", st->ms_optimise);
  print_stage("emit", st->ms_emit);
  print_stage("assemble", st->ms_assemble);
  if (st->cache_dir[0])
    fprintf(stderr, "softgen: cache     %8.2f ms (%u hit, %u stored, %u rejected as corrupt; %s)\n",
            st->ms_cache < 0 ? 0.0 : st->ms_cache, st->cache_hits, st->cache_stores,
            st->cache_rejected, st->cache_dir);
}

/* Builds kernel i (its N is o->ns[i]) into k, or prints its plan (--print-config). */
static sg_status make_kernel(const options *o, sg_compile_options *co, int i, kernel_out *k,
                             sg_diag *d) {
  sg_compilation *c;
  co->problem.n = o->ns[i];
  co->problem.n_min = o->ns_min[i];
  sg_status st = sg_compilation_create(co, &c, d);
  if (st)
    return st;
  const sg_compile_stats *stats = sg_compilation_stats(c);
  const sg_plan *plan = sg_compilation_plan(c);
  if (o->verbose) {
    print_stage("parse", stats->ms_parse);
    print_stage("resolve", stats->ms_resolve);
  }
  if (o->print_config || o->verbose)
    sg_plan_print(plan, o->print_config ? stdout : stderr);
  if (!o->print_config) {
    snprintf(k->name, sizeof k->name, "%s", sg_plan_kernel_name(plan));
    k->asm_ext = sg_plan_asm_ext(plan);
    k->obj_ext = sg_plan_object_ext(plan);
    k->so_ext = sg_plan_shared_ext(plan);
    st = sg_compilation_emit(c, k->buf, d);
    if (!st && stats->warning[0] && (stats->skipped || o->verbose))
      fprintf(stderr, "softgen: warning: %s\n", stats->warning);
    if (!st && o->verbose)
      print_emit_stats(stats);
  }
  sg_compilation_destroy(c);
  return st;
}

/* The path of kernel k's output of kind (in --out-dir, or -o). */
static int output_path(const options *o, const kernel_out *k, int kind, char *out, size_t cap) {
  static const char *const ll_ext[] = {".ll", ".opt.ll"};
  const char *ext = kind < SG_OUTPUT_ASM ? ll_ext[kind] : kind == SG_OUTPUT_ASM ? k->asm_ext
                    : kind == SG_OUTPUT_SHARED ? k->so_ext : k->obj_ext;
  int n = o->out_file ? snprintf(out, cap, "%s", o->out_file)
                      : snprintf(out, cap, "%s/%s%s", o->out_dir, k->name, ext);
  return n >= 0 && (size_t)n < cap;
}

/* Writes every output of every kernel, or none: each goes to a temporary file beside
 * its destination, and the temporaries are renamed into place only once all of them
 * are complete (base/io.h); a failure removes only the temporaries, and an out
 * dir made here if it is still empty. */
static sg_status write_outputs(const options *o, kernel_out *ks, int nk, sg_diag *d) {
  if (o->out_file && strcmp(o->out_file, "-") == 0) {
    for (int i = 0; i < nk * SG_OUTPUT_COUNT; i++) {
      const sg_buffer *b = &ks[i / SG_OUTPUT_COUNT].buf[i % SG_OUTPUT_COUNT];
      if (b->data && sgb_stdout_write(b->data, b->size, d))
        return SG_ERR_IO;
    }
    return SG_OK;
  }
  int made_dir = 0;
  if (!o->out_file) {
    if (mkdir(o->out_dir, 0777) == 0)
      made_dir = 1;
    else if (errno != EEXIST)
      return sg_diag_set(d, SG_ERR_IO, "%s: cannot create directory: %s", o->out_dir,
                         strerror(errno));
  }
  sgb_outset set = {0};
  sg_status st = SG_OK;
  char path[4096];
  for (int i = 0; i < nk * SG_OUTPUT_COUNT && !st; i++) {
    const kernel_out *k = &ks[i / SG_OUTPUT_COUNT];
    int kind = i % SG_OUTPUT_COUNT;
    if (!k->buf[kind].data)
      continue;
    if (!output_path(o, k, kind, path, sizeof path))
      st = sg_diag_set(d, SG_ERR_IO, "%s: output path too long (limit %zu bytes)",
                       o->out_file ? o->out_file : o->out_dir, sizeof path - 1);
    else
      st = sgb_outset_add(&set, path, k->buf[kind].data, k->buf[kind].size, d);
  }
  if (!st)
    st = sgb_outset_commit(&set, d);
  sgb_outset_discard(&set);
  if (st && made_dir)
    rmdir(o->out_dir); /* only when empty: nothing was renamed into it */
  for (int i = 0; i < nk * SG_OUTPUT_COUNT && !st; i++) {
    const kernel_out *k = &ks[i / SG_OUTPUT_COUNT];
    int kind = i % SG_OUTPUT_COUNT;
    if (k->buf[kind].data && (!o->out_file || o->verbose) && /* -o is quiet, as compilers are */
        output_path(o, k, kind, path, sizeof path))
      printf("softgen: wrote %s (%zu bytes)\n", path, k->buf[kind].size);
  }
  return st;
}

/* Builds the constraints of -C and --constraints into *c. */
static sg_status load_constraints(const options *o, sg_constraints **c, sg_diag *d) {
  sg_status st = sg_constraints_create(c, d);
  for (int i = 0; i < o->nconstraint_files && !st; i++)
    st = sg_constraints_load(*c, o->constraint_files[i], d);
  for (int i = 0; i < o->nconstraint_texts && !st; i++) {
    char name[32];
    snprintf(name, sizeof name, "<-C %d>", i + 1);
    st = sg_constraints_parse(*c, name, o->constraint_texts[i], strlen(o->constraint_texts[i]), d);
  }
  return st;
}

/* softgen MODEL.mlir (tools/softgen/mlir_main.c). Without -C or --constraints
 * no constraints object: the MLIR front end then compiles the built-in
 * template's text, which the cache can key. */
static int mlir_mode(const options *o) {
  sg_constraints *c = NULL;
  sg_diag d;
  int rc = 1;
  if (!(o->nconstraint_files + o->nconstraint_texts) || load_constraints(o, &c, &d) == SG_OK) {
    sg_cli_mlir_job j = {o->template_arg, o->out_dir, o->out_file, o->problem.target,
                         o->problem.arch, c, &o->tools, 0, 0, 0, o->verbose,
                         o->cache_dir, o->no_cache, o->mlir_device_memory, o->mlir_max_n};
    if (o->emit_given) {
      j.emit_asm = (o->emit & EMIT_ASM) != 0;
      j.emit_obj = (o->emit & EMIT_OBJ) != 0;
      j.emit_other = (o->emit & (EMIT_LLVM | EMIT_LLVM_OPT)) != 0;
    }
    rc = sg_cli_mlir(&j);
  } else {
    fail(&d);
  }
  sg_constraints_destroy(c);
  return rc;
}

/* --print-template: the typed op list of the named or given template. */
static int print_template(const options *o) {
  sg_diag d;
  char path[4096];
  sg_template *t = NULL;
  const char *name = o->template_arg ? o->template_arg : "softmax";
  if (sg_template_find(name, NULL, path, sizeof path, &d) || sg_template_load(path, &t, &d)) {
    fail(&d);
    return 1;
  }
  sg_template_print(t, stdout);
  sg_template_destroy(t);
  return 0;
}

/* --print-n-ranges: the policy's ranges of N (sg_plan_n_ranges), MIN:MAX a line. */
static int print_n_ranges(const options *o) {
  int64_t ranges[SG_N_RANGES_MAX][2];
  int n = sg_plan_n_ranges(o->mlir_max_n, ranges, SG_N_RANGES_MAX);
  for (int i = 0; i < n; i++)
    printf("%lld:%lld\n", (long long)ranges[i][0], (long long)ranges[i][1]);
  return 0; /* main() reports a write error on stdout */
}

static int run(int argc, char **argv) {
  options o;
  memset(&o, 0, sizeof o);
  o.problem.dtype = SG_DTYPE_F16;
  o.emit = EMIT_ALL;
  o.out_dir = "out";
  int r = parse_args(argc, argv, &o);
  if (r >= 0)
    return r;
  if (o.inspect)
    return inspect(o.inspect);
  if (o.mlir || sg_cli_is_mlir(o.template_arg))
    return mlir_mode(&o);
  if (o.print_template)
    return print_template(&o);
  if (o.print_n_ranges)
    return print_n_ranges(&o);
  if (!o.nns)
    return bad_usage("the row length is not set: pass -D N=<int>%s", "");
  if (o.out_file && (o.emit & (o.emit - 1)))
    return bad_usage("-o writes one file: choose one kind with --emit (got '%s')",
                     o.emit_given ? "several" : "the default, several");
  if (o.out_file && o.nns > 1 && !o.print_config)
    return bad_usage("-o writes one file: give one N (got %s), or use --out-dir", "several");

  sg_diag d;
  sg_diag_clear(&d);
  double start = now_ms();
  sg_source cons[32];
  int ncons = 0;
  for (int i = 0; i < o.nconstraint_files; i++)
    cons[ncons++] = (sg_source){o.constraint_files[i], NULL, 0};
  char cnames[16][32];
  for (int i = 0; i < o.nconstraint_texts; i++) {
    snprintf(cnames[i], sizeof cnames[i], "<-C %d>", i + 1);
    cons[ncons++] = (sg_source){cnames[i], o.constraint_texts[i], strlen(o.constraint_texts[i])};
  }
  sg_compile_options co;
  sg_compile_options_init(&co);
  co.template_src.name = o.template_arg ? o.template_arg : "softmax";
  co.constraints = cons;
  co.nconstraints = ncons;
  co.problem = o.problem;
  co.outputs = o.emit;
  co.optional_outputs = o.emit_given ? 0 : EMIT_OBJ; /* the default emission skips a missing ptxas */
  co.tools = o.tools;
  co.cache_dir = o.cache_dir;
  co.no_cache = o.no_cache;

  int status = 1, show = progress_wanted(&o);
  kernel_out *ks = calloc((size_t)o.nns, sizeof *ks);
  if (!ks) {
    sg_diag_set(&d, SG_ERR_NO_MEMORY, "out of memory");
    goto done;
  }
  for (int i = 0; i < o.nns; i++) {
    char what[64];
    if (o.ns_min[i])
      snprintf(what, sizeof what, "N=%lld:%lld", (long long)o.ns_min[i], (long long)o.ns[i]);
    else
      snprintf(what, sizeof what, "N=%lld", (long long)o.ns[i]);
    progress(show, i, o.nns, what);
    if (make_kernel(&o, &co, i, &ks[i], &d)) {
      if (show)
        fputc('\n', stderr);
      goto done;
    }
  }
  progress(show, o.nns, o.nns, NULL);
  if (!o.print_config && write_outputs(&o, ks, o.nns, &d))
    goto done;
  if (o.verbose && !o.print_config)
    fprintf(stderr, "softgen: total     %8.2f ms\n", now_ms() - start);
  status = 0;
done:
  if (status && d.message[0])
    fail(&d);
  for (int i = 0; ks && i < o.nns; i++)
    for (int k = 0; k < SG_OUTPUT_COUNT; k++)
      sg_buffer_free(&ks[i].buf[k]);
  free(ks);
  return status;
}

/* run(), then stdout's fate: after a success, a write error on it (a full disk, a
 * closed pipe's EPIPE where SIGPIPE is ignored) is an error, exit 1. */
int main(int argc, char **argv) {
  int status = run(argc, argv);
  sg_diag d;
  if (status == 0 && sgb_stdout_flush(&d)) {
    fprintf(stderr, "softgen: error: %s\n", d.message);
    status = 1;
  }
  return status;
}
