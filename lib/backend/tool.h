/* backend/tool.h - finding and running external tools (ptxas, ld.lld) on
 * buffers, through a private temporary directory (internal). */
#ifndef SG_INTERNAL_TOOL_H
#define SG_INTERNAL_TOOL_H

#include <stddef.h>

#include "softgen/codegen.h"
#include "softgen/diag.h"

/* Finds tool `name`: `explicit_path` when given (must be executable), else
 * $<home_env>/bin/<name> when home_env is set, else <extra_dir>/<name> (the
 * LLVM this softgen was built with, so its own ld.lld wins over an older one),
 * else the first match on PATH. Writes the path into out. */
sg_status sge_tool_find(const char *name, const char *explicit_path, const char *home_env,
                       const char *extra_dir, char *out, size_t cap, sg_diag *diag);

/* Runs argv (argv[0] a path) with "@IN@" replaced by a file holding `in` and
 * "@OUT@" by a file whose contents become `out`. Names the tool's exit status
 * and the first lines of its stderr on failure. */
sg_status sge_tool_run(const char *const *argv, const sg_buffer *in, const char *in_ext,
                      const char *out_ext, sg_buffer *out, sg_diag *diag);

/* Runs `path --version` and copies its output (stdout and stderr, at most
 * cap - 1 bytes) into out. SG_ERR_TOOL when it cannot run or exits non-zero. */
sg_status sge_tool_version(const char *path, char *out, size_t cap, sg_diag *diag);

#endif
