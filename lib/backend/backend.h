/* backend/backend.h - what it takes to turn a target's IR into its code objects
 * (internal): one table per target (backend/nvptx.c, backend/amdgpu.c,
 * backend/host.c) holding its IR hooks for codegen (codegen/hooks.h), LLVM's
 * set-up for it, and the tools that assemble and link its objects.
 *
 * Needs: codegen (the hooks it fills and the module it builds), target (the
 * limits of the same targets), base. Produces: sge_backend, looked up for a
 * target; backend/machine.c (target machines, O3, emission, sealing, and the
 * public sg_codegen / sg_module_* of softgen/codegen.h), backend/jit.c (the
 * host target in process), backend/tool.c (running ptxas, ld.lld, cc).
 * Prefix: sge_ (emit). */
#ifndef SG_BACKEND_BACKEND_H
#define SG_BACKEND_BACKEND_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "codegen/hooks.h"
#include "softgen/codegen.h"
#include "softgen/diag.h"
#include "target/target.h"

struct sg_plan;

typedef struct sge_backend {
  const sgh_target *target; /* the target's limits and names (target/target.h) */
  const sgc_hooks *ir;      /* its IR hooks for codegen */
  /* LLVM set-up, once per process (sge_backend_for): registers the LLVM
   * backend; the host also reads this CPU's name and features. */
  void (*initialize)(void);
  const char *(*cpu)(const char *arch);                     /* LLVM CPU name */
  const char *(*features)(const char *arch, unsigned wave); /* "" or "+wavefrontsize64" */
  /* 1: assemble() receives the backend's object file instead of its assembly. */
  int assemble_from_object;
  /* Turns the target's assembly (asm_ext) into a code object (object_ext).
   * SG_ERR_TOOL with a clear reason when the tool is missing or fails. */
  sg_status (*assemble)(const struct sg_plan *plan, const sg_buffer *assembly,
                        const sg_emit_options *opts, sg_buffer *object, sg_diag *diag);
  /* Links the code object into a shared library (SG_EMIT_SHARED; NULL: the
   * target has none). SG_ERR_TOOL when no linker is found or it fails. */
  sg_status (*link_shared)(const struct sg_plan *plan, const sg_buffer *object,
                           const sg_emit_options *opts, sg_buffer *shared, sg_diag *diag);
  /* Finds the tool assemble() runs (its path into out), as assemble() would:
   * the compile cache keys code objects on that tool's version. NULL: none. */
  sg_status (*find_tool)(const sg_emit_options *opts, char *out, size_t cap, sg_diag *diag);
} sge_backend;

/* The backend of target t, its LLVM set-up done once per process (thread-safe);
 * never NULL for a table of target/target.h. */
const sge_backend *sge_backend_for(const sgh_target *t);

extern const sge_backend sge_nvptx;
extern const sge_backend sge_amdgpu;
extern const sge_backend sge_host;

#endif
