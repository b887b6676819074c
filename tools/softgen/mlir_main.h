/* mlir_main.h - `softgen model.mlir`: the CLI's MLIR mode (tools/softgen/mlir_main.c).
 * main.c parses the options as usual and hands them over here when the input
 * ends in .mlir or --mlir is given. Without MLIR in the build, the mode says so. */
#ifndef SOFTGEN_CLI_MLIR_MAIN_H
#define SOFTGEN_CLI_MLIR_MAIN_H

#include <stdio.h>
#include <string.h>

#include "softgen/softgen.h"

typedef struct sg_cli_mlir_job {
  const char *input;                 /* the .mlir file */
  const char *out_dir;               /* kernels and the rewritten module go here */
  const char *out_file;              /* -o: the rewritten module only ('-': stdout) */
  const char *target, *arch;
  const sg_constraints *constraints; /* -C / --constraints, applied to every kernel */
  const sg_emit_options *tools;
  int emit_asm, emit_obj, emit_other; /* --emit kinds given (0, 0, 0: the default) */
  int verbose;
  const char *cache_dir; /* --cache-dir (NULL: the environment's) */
  int no_cache;          /* --no-cache */
  int device_memory;     /* --mlir-memory device */
  int64_t max_n;         /* --mlir-max-n (0: none) */
} sg_cli_mlir_job;

/* 1 when path names an MLIR file (ends in .mlir). */
static inline int sg_cli_is_mlir(const char *path) {
  size_t n = path ? strlen(path) : 0;
  return n > 5 && strcmp(path + n - 5, ".mlir") == 0;
}

#ifdef SOFTGEN_HAVE_MLIR
/* Runs the job; returns the exit status (0 ok, 1 error, 2 bad usage). */
int sg_cli_mlir(const sg_cli_mlir_job *job);
#else
static inline int sg_cli_mlir(const sg_cli_mlir_job *job) {
  fprintf(stderr, "softgen: error: %s: this softgen was built without MLIR (libmlir-22-dev)\n",
          job->input ? job->input : "--mlir");
  return 1;
}
#endif

#endif
