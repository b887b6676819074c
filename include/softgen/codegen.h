/* softgen/codegen.h - plan + template -> LLVM module -> .ll / .ptx / .cubin.
 *
 *   sg_module *m;
 *   sg_codegen(template, plan, &m, &diag);        builds the kernel IR (LLVM-C)
 *   sg_module_emit(m, SG_EMIT_LLVM, ...);          IR as built
 *   sg_module_optimize(m, &diag);                  LLVM's O3 pipeline
 *   sg_module_emit(m, SG_EMIT_ASM / SG_EMIT_OBJECT, ...)
 *   sg_module_destroy(m);
 */
#ifndef SOFTGEN_CODEGEN_H
#define SOFTGEN_CODEGEN_H

#include <stddef.h>

#include "softgen/api.h"
#include "softgen/constraints.h"
#include "softgen/diag.h"
#include "softgen/template.h"
#include "softgen/types.h" /* sg_buffer */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sg_module sg_module;

typedef enum sg_emit_kind {
  SG_EMIT_LLVM,  /* textual LLVM IR of the module as it stands */
  SG_EMIT_ASM,   /* target assembly: PTX for nvptx, AMDGPU assembly for amdgpu */
  SG_EMIT_OBJECT, /* code object: .cubin (ptxas) for nvptx, .hsaco (ld.lld) for amdgpu,
                     a relocatable .o for host */
  SG_EMIT_SHARED  /* host only: a shared library (.so, linked by ld.lld or cc) */
} sg_emit_kind;

typedef struct sg_emit_options {
  const char *ptxas; /* path of ptxas; NULL: $CUDA_HOME/bin, then PATH */
  const char *lld;   /* path of ld.lld; NULL: LLVM's tools dir, then PATH */
} sg_emit_options;

/* Builds the kernel described by plan for template t. */
SG_API sg_status sg_codegen(const sg_template *t, const sg_plan *plan, sg_module **out,
                            sg_diag *diag);

/* Runs LLVM's default<O3> pipeline for the target machine. */
SG_API sg_status sg_module_optimize(sg_module *m, sg_diag *diag);

/* Emits the module in the given form. opts may be NULL. Code objects (and PTX)
 * come out sealed: their metadata's checksum filled in (softgen/meta.h). */
SG_API sg_status sg_module_emit(sg_module *m, sg_emit_kind kind, const sg_emit_options *opts,
                                sg_buffer *out, sg_diag *diag);

SG_API void sg_module_destroy(sg_module *m);

/* File extensions of the plan's target: ".ptx"/".cubin", ".s"/".hsaco" or ".s"/".o";
 * the shared library's (".so"), or NULL when the target makes none. */
SG_API const char *sg_plan_asm_ext(const sg_plan *plan);
SG_API const char *sg_plan_object_ext(const sg_plan *plan);
SG_API const char *sg_plan_shared_ext(const sg_plan *plan);

/* In-process JIT of a host-target module with LLVM ORC (backend/jit.c). The
 * module is compiled as it stands (call sg_module_optimize first) and left
 * unchanged; the sg_jit owns the machine code. SG_ERR_UNSUPPORTED for a GPU
 * target. The kernel's entry point has the host ABI
 *   void kernel(void **params, uint32_t block, uint32_t blocks)
 * and runs on the runtime's host device through sgrt_kernel_load_host
 * (softgen/runtime.h) with the metadata text from sg_jit_meta. */
typedef struct sg_jit sg_jit;
SG_API sg_status sg_jit_create(sg_module *m, sg_jit **out, sg_diag *diag);
SG_API void *sg_jit_kernel(const sg_jit *j);
/* The softgen_meta text (NUL-terminated; *len, when given, without the NUL). */
SG_API const char *sg_jit_meta(const sg_jit *j, size_t *len);
SG_API void sg_jit_destroy(sg_jit *j);

#ifdef __cplusplus
}
#endif
#endif
