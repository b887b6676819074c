/* softgen - the command-line compiler: template + constraints -> kernel files.
 *
 *   softgen [options] [TEMPLATE]     see usage() or `softgen --help`
 *
 * Everything is built in memory first; files are written only when every
 * requested stage succeeded, each through a temporary file and a rename, so a
 * failure leaves no partial output. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mlir_main.h" /* MLIR mode: softgen model.mlir */
#include "softgen/softgen.h"
#include "support/io.h"

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
 * (<bindir> -> <datadir>/softgen/kernels-templates; set by cmake/install.cmake). */
#ifndef SOFTGEN_TEMPLATES_RELDIR
#define SOFTGEN_TEMPLATES_RELDIR "../share/softgen/kernels-templates"
#endif

static void usage(FILE *f) {
  fputs(
      "usage: softgen [options] [TEMPLATE]\n"
      "       softgen [options] MODEL.mlir\n"
      "\n"
      "Generates a softmax-family GPU kernel from a template (.sgt) and Wave-style\n"
      "constraints, through LLVM's NVPTX or AMDGPU backend.\n"
      "TEMPLATE is a .sgt file or the name of one in the templates directory\n"
      "(default: softmax; directory: $SOFTGEN_TEMPLATES, else the installed one,\n"
      "<bindir>/" SOFTGEN_TEMPLATES_RELDIR ", else the one softgen was built with).\n"
      "\n"
      "Problem:\n"
      "  -D N=<int>              row length (required); M, the row count, is a run-time argument\n"
      "  --dtype f16|bf16|f32    element type of the template's T tensors (default f16)\n"
      "  --target nvptx|amdgpu   backend (default nvptx)\n"
      "  --arch ARCH             nvptx: sm_80 sm_89 sm_90 sm_90a sm_100 (default sm_90)\n"
      "                          amdgpu: gfx90a gfx942 gfx950 gfx1100 gfx1201 (default gfx942)\n"
      "Constraints (Wave's vocabulary; anything not given is chosen automatically):\n"
      "  --constraints FILE      read constraints from FILE (repeatable)\n"
      "  -C TEXT                 a constraint on the command line, e.g.\n"
      "                          -C 'HardwareConstraint(threads_per_wave=32, waves_per_block=(4,1,1))'\n"
      "Output:\n"
      "  --emit KINDS            comma-separated: llvm (IR as built), llvm-opt (after O3),\n"
      "                          asm (.ptx / .s), obj (.cubin / .hsaco), all\n"
      "                          (default: llvm,llvm-opt,asm,obj; obj is skipped with a\n"
      "                          warning when ptxas is missing)\n"
      "  --out-dir DIR           directory for output files (default: out)\n"
      "  -o FILE                 write the single --emit kind to FILE ('-' for stdout)\n"
      "  --print-config          print the resolved plan and exit\n"
      "  --inspect FILE          print the launch metadata of a code object and exit\n"
      "MLIR (input MODEL.mlir, or --mlir):\n"
      "  --mlir                  read the input as an MLIR module: every linalg.softmax\n"
      "                          becomes a gpu.launch_func of a kernel in a gpu.binary;\n"
      "                          writes DIR/<kernel>.<ext> and DIR/MODEL.gpu.mlir (-o: the\n"
      "                          module only); --emit asm|obj picks what gpu.objects hold\n"
      "Tools:\n"
      "  --ptxas PATH            ptxas to use (default: $CUDA_HOME/bin, then PATH)\n"
      "  --lld PATH              ld.lld to use (default: LLVM 22's tools directory, then PATH)\n"
      "Other:\n"
      "  -v, --verbose           print the plan and the time of each stage to stderr\n"
      "  -h, --help              this help\n"
      "  --version               version of softgen and of LLVM\n"
      "\n"
      "Exit status: 0 on success, 1 on any error (nothing is written then), 2 on bad usage.\n",
      f);
}

enum { EMIT_LLVM = 1, EMIT_LLVM_OPT = 2, EMIT_ASM = 4, EMIT_OBJ = 8, EMIT_ALL = 15 };

typedef struct options {
  const char *template_arg;
  const char *out_dir, *out_file;
  const char *constraint_files[16];
  int nconstraint_files;
  const char *constraint_texts[16];
  int nconstraint_texts;
  sg_problem problem;
  int have_n;
  unsigned emit;
  int emit_given, print_config, verbose, mlir;
  const char *inspect;
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
    else
      return bad_usage("unknown --emit kind '%s' (expected llvm, llvm-opt, asm, obj or all)", tok);
  }
  if (!o->emit)
    return bad_usage("--emit needs at least one kind%s", "");
  o->emit_given = 1;
  return 0;
}

static int parse_n(options *o, const char *def) {
  if (strncmp(def, "N=", 2) != 0)
    return bad_usage("-D takes N=<int>, not '%s'", def);
  char *end;
  errno = 0;
  long long n = strtoll(def + 2, &end, 10);
  if (def[2] == '\0' || *end || errno || n < 1 || n > 2147483647LL)
    return bad_usage("-D N=%s: N must be an integer from 1 to 2^31-1", def + 2);
  o->problem.n = n;
  o->have_n = 1;
  return 0;
}

/* Parses argv into o; returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, options *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = NULL;
    char key[64];
    /* --key=value */
    const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
    if (eq && (size_t)(eq - a) < sizeof key) {
      memcpy(key, a, (size_t)(eq - a));
      key[eq - a] = '\0';
      val = eq + 1;
      a = key;
    }
#define VALUE()                                                     \
  do {                                                              \
    if (!val) {                                                     \
      if (i + 1 >= argc)                                            \
        return bad_usage("option %s needs a value", a);             \
      val = argv[++i];                                              \
    }                                                               \
  } while (0)
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "--version") == 0) {
      printf("softgen %s (LLVM %s)\n", SOFTGEN_VERSION, SOFTGEN_LLVM_VERSION);
      return 0;
    } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
      o->verbose = 1;
    } else if (strcmp(a, "--mlir") == 0) {
      o->mlir = 1;
    } else if (strcmp(a, "--print-config") == 0) {
      o->print_config = 1;
    } else if (strncmp(a, "-D", 2) == 0 && !eq) {
      if (a[2])
        val = a + 2;
      else
        VALUE();
      int r = parse_n(o, val);
      if (r)
        return r;
    } else if (strcmp(a, "--dtype") == 0) {
      VALUE();
      if (sg_dtype_parse(val, &o->problem.dtype))
        return bad_usage("unknown --dtype '%s' (expected f16, bf16 or f32)", val);
    } else if (strcmp(a, "--target") == 0) {
      VALUE();
      o->problem.target = val;
    } else if (strcmp(a, "--arch") == 0) {
      VALUE();
      o->problem.arch = val;
    } else if (strcmp(a, "--constraints") == 0) {
      VALUE();
      if (o->nconstraint_files == 16)
        return bad_usage("at most 16 --constraints files%s", "");
      o->constraint_files[o->nconstraint_files++] = val;
    } else if (strcmp(a, "-C") == 0) {
      VALUE();
      if (o->nconstraint_texts == 16)
        return bad_usage("at most 16 -C constraints%s", "");
      o->constraint_texts[o->nconstraint_texts++] = val;
    } else if (strcmp(a, "--emit") == 0) {
      VALUE();
      int r = parse_emit(o, val);
      if (r)
        return r;
    } else if (strcmp(a, "--out-dir") == 0) {
      VALUE();
      o->out_dir = val;
    } else if (strcmp(a, "-o") == 0) {
      VALUE();
      o->out_file = val;
    } else if (strcmp(a, "--inspect") == 0) {
      VALUE();
      o->inspect = val;
    } else if (strcmp(a, "--ptxas") == 0) {
      VALUE();
      o->tools.ptxas = val;
    } else if (strcmp(a, "--lld") == 0) {
      VALUE();
      o->tools.lld = val;
    } else if (a[0] == '-' && a[1]) {
      return bad_usage("unknown option '%s'", a);
    } else if (o->template_arg) {
      return bad_usage("more than one template given ('%s')", a);
    } else {
      o->template_arg = a;
    }
#undef VALUE
  }
  return -1;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void stage(const options *o, const char *name, double *t0) {
  double t = now_ms();
  if (o->verbose)
    fprintf(stderr, "softgen: %-9s %8.2f ms\n", name, t - *t0);
  *t0 = t;
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
  if (sg_read_file(path, (size_t)1 << 30, &data, &len, &d))
    return fail(&d);
  sg_status st = sg_meta_find(data, len, &m, &d);
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

/* The templates directory: $SOFTGEN_TEMPLATES when set; else the installed one
 * next to the executable (<bindir>/SOFTGEN_TEMPLATES_RELDIR) when it exists, so
 * an installed or unpacked (relocated) softgen finds its own templates; else
 * the directory softgen was built with (the source tree). */
static const char *templates_dir(void) {
  const char *env = getenv("SOFTGEN_TEMPLATES");
  if (env && *env)
    return env;
  static char found[PATH_MAX];
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
    struct stat sb;
    int len = snprintf(found, sizeof found, "%s/%s", dir, rel);
    if (len > 0 && (size_t)len < sizeof found && stat(found, &sb) == 0 && S_ISDIR(sb.st_mode))
      return found;
  }
  return SOFTGEN_TEMPLATES_DIR;
}

/* Resolves TEMPLATE: a path as given, else <templates dir>/<name>.sgt. */
static void template_path(const char *arg, char *out, size_t cap) {
  struct stat sb;
  if (strchr(arg, '/') || stat(arg, &sb) == 0) {
    snprintf(out, cap, "%s", arg);
    return;
  }
  if (snprintf(out, cap, "%s/%s%s", templates_dir(), arg, strstr(arg, ".sgt") ? "" : ".sgt") < 0)
    out[0] = '\0';
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

/* softgen MODEL.mlir (tools/softgen/mlir_main.c). */
static int mlir_mode(const options *o) {
  sg_constraints *c = NULL;
  sg_diag d;
  int rc = 1;
  if (load_constraints(o, &c, &d) == SG_OK) {
    sg_cli_mlir_job j = {o->template_arg, o->out_dir, o->out_file, o->problem.target,
                         o->problem.arch, c, &o->tools, 0, 0, 0, o->verbose};
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

typedef struct output {
  unsigned kind;
  sg_buffer buf;
  char path[4096];
} output;

int main(int argc, char **argv) {
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
  if (!o.have_n)
    return bad_usage("the row length is not set: pass -D N=<int>%s", "");
  if (o.out_file && (o.emit & (o.emit - 1)))
    return bad_usage("-o writes one file: choose one kind with --emit (got '%s')",
                     o.emit_given ? "several" : "the default, several");

  sg_diag d;
  sg_diag_clear(&d);
  double t0 = now_ms(), start = t0;
  char tpath[4096];
  template_path(o.template_arg ? o.template_arg : "softmax", tpath, sizeof tpath);
  sg_template *t = NULL;
  sg_constraints *c = NULL;
  sg_plan *plan = NULL;
  sg_module *m = NULL;
  output outs[4];
  int nouts = 0, status = 1;
  memset(outs, 0, sizeof outs);
  if (sg_template_load(tpath, &t, &d))
    goto done;
  if (load_constraints(&o, &c, &d))
    goto done;
  stage(&o, "parse", &t0);
  if (sg_plan_resolve(t, c, &o.problem, &plan, &d))
    goto done;
  stage(&o, "resolve", &t0);
  if (o.print_config) {
    sg_plan_print(plan, stdout);
    status = 0;
    goto done;
  }
  if (o.verbose)
    sg_plan_print(plan, stderr);
  if (sg_codegen(t, plan, &m, &d))
    goto done;
  stage(&o, "ir", &t0);
  if (o.emit & EMIT_LLVM) {
    if (sg_module_emit(m, SG_EMIT_LLVM, NULL, &outs[nouts].buf, &d))
      goto done;
    outs[nouts++].kind = EMIT_LLVM;
  }
  if (sg_module_optimize(m, &d))
    goto done;
  stage(&o, "optimise", &t0);
  if (o.emit & EMIT_LLVM_OPT) {
    if (sg_module_emit(m, SG_EMIT_LLVM, NULL, &outs[nouts].buf, &d))
      goto done;
    outs[nouts++].kind = EMIT_LLVM_OPT;
  }
  if (o.emit & EMIT_ASM) {
    if (sg_module_emit(m, SG_EMIT_ASM, NULL, &outs[nouts].buf, &d))
      goto done;
    outs[nouts++].kind = EMIT_ASM;
    stage(&o, "emit", &t0);
  }
  if (o.emit & EMIT_OBJ) {
    sg_status st = sg_module_emit(m, SG_EMIT_OBJECT, &o.tools, &outs[nouts].buf, &d);
    if (st == SG_ERR_TOOL && !o.emit_given) {
      fprintf(stderr, "softgen: warning: %s\n", d.message);
      sg_diag_clear(&d);
    } else if (st) {
      goto done;
    } else {
      outs[nouts++].kind = EMIT_OBJ;
      stage(&o, "assemble", &t0);
    }
  }
  /* everything is in memory: write it */
  if (!o.out_file && mkdir(o.out_dir, 0777) != 0 && errno != EEXIST) {
    sg_diag_set(&d, SG_ERR_IO, "%s: cannot create directory: %s", o.out_dir, strerror(errno));
    goto done;
  }
  for (int i = 0; i < nouts; i++) {
    const char *ext = outs[i].kind == EMIT_LLVM ? ".ll" : outs[i].kind == EMIT_LLVM_OPT ? ".opt.ll"
                      : outs[i].kind == EMIT_ASM ? sg_plan_asm_ext(plan) : sg_plan_object_ext(plan);
    if (o.out_file)
      snprintf(outs[i].path, sizeof outs[i].path, "%s", o.out_file);
    else
      snprintf(outs[i].path, sizeof outs[i].path, "%s/%s%s", o.out_dir, sg_plan_kernel_name(plan), ext);
  }
  for (int i = 0; i < nouts; i++) {
    if (o.out_file && strcmp(o.out_file, "-") == 0) {
      fwrite(outs[i].buf.data, 1, outs[i].buf.size, stdout);
      continue;
    }
    if (sg_write_file(outs[i].path, outs[i].buf.data, outs[i].buf.size, &d)) {
      for (int j = 0; j < i; j++)
        remove(outs[j].path); /* all or nothing */
      goto done;
    }
  }
  if (!o.out_file || o.verbose) /* -o is quiet, as compilers are */
    for (int i = 0; i < nouts && !(o.out_file && strcmp(o.out_file, "-") == 0); i++)
      printf("softgen: wrote %s (%zu bytes)\n", outs[i].path, outs[i].buf.size);
  if (o.verbose)
    fprintf(stderr, "softgen: total     %8.2f ms\n", now_ms() - start);
  status = 0;
done:
  if (status && d.message[0])
    fail(&d);
  for (int i = 0; i < 4; i++)
    sg_buffer_free(&outs[i].buf);
  sg_module_destroy(m);
  sg_plan_destroy(plan);
  sg_constraints_destroy(c);
  sg_template_destroy(t);
  return status;
}
