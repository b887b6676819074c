/* softgen/mlir.h - the MLIR front end: compile the softmax ops of an MLIR module.
 *
 * Built only when CMake finds MLIR (libsoftgen_mlir; needs the MLIR C API of
 * LLVM 22). For every `linalg.softmax` of a module, softgen picks its template
 * (softmax), N (the reduced dim), M (rows: the product of the other dims) and
 * dtype, generates one code object per distinct kernel through the driver
 * (softgen/compile.h: the CLI's compilation, with its on-disk cache), and
 * rewrites each memref-form op in place into
 *
 *   gpu.binary @K [#gpu.object<#nvvm.target<chip = "sm_90">, bin = "...">]
 *   gpu.launch_func @K::@K [clusters in (C, 1, 1)] blocks in (G, 1, 1)
 *       threads in (B, 1, 1) args(<the kernel's parameters, in its "arg" order>)
 *
 * where tensors are passed as !llvm.ptr (the memref's aligned pointer plus its
 * static offset), rows and row strides as i64 (and, for a reduced dim that is
 * not the innermost, a kernel of the inner layout with inner and the strides
 * along the reduced dim as i64 too), and G, B, C come from the code
 * object's launch metadata (softgen/meta.h) as the runtime computes them
 * (sgrt_launch_geometry, softgen/runtime.h; no device is known here, so a
 * persistent kernel is not capped at its resident blocks, and the first
 * few-rows variant of a code object whose max_rows the op's M is within is
 * launched, e.g. @K::@K_few; a run-time M picks it in the module, with an
 * scf.index_switch on M). The gpu.binary goes into the closest
 * enclosing module, which gets `gpu.container_module`. Softmax and
 * log-softmax as frontends emit them (chains of linalg ops on tensors or
 * buffers) are found as well (lib/mlir/recognize.c) and replaced the same
 * way, with their ops. Tensor operands become buffers through
 * bufferization.to_buffer, the result a memref.alloc returned through
 * bufferization.to_tensor. Operands that may be host memory are copied to
 * device memory and back around the launch (sg_mlir_options.device_memory).
 * Ops softgen cannot take are left as they are and
 * reported (sg_mlir_report), each with its MLIR location and reason: a
 * dynamic N or dims after it (dims before it may be dynamic: a run-time M,
 * r.ops[i].m -1, on identity layouts), dynamic layouts, element types other than f16 / bf16 /
 * f32, a reduced dim that is not the innermost non-unit one while the dims
 * after it are not contiguous, memory spaces other than global, ops inside
 * device code, and problems the plan rejects.
 *
 *   sg_mlir_options o = {0};                  nvptx, sm_90, built-in template
 *   sg_mlir_report r;
 *   sg_diag d;
 *   if (sg_mlir_compile_module(module, &o, &r, &d)) ... d.message
 *   for (int i = 0; i < r.nops; i++) ... r.ops[i].location, r.ops[i].message
 *   sg_mlir_report_free(&r);
 */
#ifndef SOFTGEN_MLIR_H
#define SOFTGEN_MLIR_H

#include <stdint.h>

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "softgen/api.h"
#include "softgen/codegen.h"
#include "softgen/compile.h"
#include "softgen/constraints.h"
#include "softgen/diag.h"
#include "softgen/meta.h"
#include "softgen/template.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What each gpu.object embeds. */
typedef enum sg_mlir_format {
  SG_MLIR_FORMAT_AUTO,    /* the code object (.cubin, .hsaco); nvptx without ptxas: PTX */
  SG_MLIR_FORMAT_OBJECT,  /* the code object; a missing ptxas / ld.lld is an error */
  SG_MLIR_FORMAT_ASSEMBLY /* PTX text (nvptx only: `assembly = "..."`) */
} sg_mlir_format;

typedef struct sg_mlir_options {
  const char *target;                /* "nvptx" (NULL) or "amdgpu" */
  const char *arch;                  /* NULL: the target's default */
  const sg_template *softmax;        /* NULL: softgen's built-in softmax template */
  const sg_constraints *constraints; /* NULL: everything chosen automatically */
  sg_emit_options tools;             /* ptxas, ld.lld */
  sg_mlir_format format;
  int analyze_only; /* 1: find and classify the ops only; no kernels, module untouched */
  int keep_decomposed; /* 1: take linalg.softmax only, no chains of linalg ops */
  /* Where the module's buffers and tensors live. 0 (the default, as upstream
   * lowers host code for the CPU): memory not known to be on the device (a
   * gpu.alloc, a memref in the global address space) may be host memory, so
   * each launch reads a copy of its input in device memory and its result is
   * copied back (tensors: into a memref.alloc); such operands need an identity
   * layout. 1: every buffer and tensor of the module is device memory (a
   * GPU-resident pipeline): kernels read and write them in place, with their
   * strides; a tensor's result is a memref.alloc. */
  int device_memory;
  /* The on-disk cache of softgen/compile.h, as sg_compile_options has it. It
   * holds kernels of the built-in template with no constraints object: a
   * parsed softmax or constraints object has no text to key it by, and its
   * kernels are always built afresh. */
  const char *cache_dir; /* NULL: the environment's */
  int no_cache;          /* 1: neither read nor write the cache */
  /* A dynamic reduced dim: its longest N (0: 2^31-1). The ranges of
   * sg_plan_n_ranges past it are not compiled and the last one ends there;
   * a longer N fails the module's cf.assert. Fewer kernels where a bound is
   * known (a context length, a vocabulary). */
  int64_t max_n;
} sg_mlir_options;

/* One softmax-family computation of the module: a linalg.softmax, or a
 * softmax / log-softmax chain of linalg ops (lib/mlir/recognize.c), in the
 * order found. */
typedef struct sg_mlir_op {
  char location[512]; /* "file:line:col" of the op (or MLIR's own location text) */
  MlirLocation loc;   /* the op's location itself (owned by the module's context) */
  int compiled;       /* 1: replaced by a gpu.launch_func of kernels[kernel] */
  sg_status status;   /* SG_OK when compiled (or compilable, with analyze_only) */
  char message[512];  /* why it was left alone; empty otherwise */
  int tensor_form;    /* operands are tensors */
  int raised;         /* 1: a chain of linalg ops (max, sub, exp, sum, div or log, ...) */
  char template_name[32]; /* "softmax" or "log_softmax" */
  int has_out_dtype;
  sg_dtype out_dtype; /* the result's element type (chains may round to another) */
  int rank, dim;      /* rank of the operands, the reduced dim */
  int64_t outer, n, inner; /* products of the dims before, at and after dim (-1: dynamic) */
  int64_t m;               /* rows: outer * inner (-1: dynamic, counted at run time) */
  int has_dtype;
  sg_dtype dtype;
  int kernel;                   /* index into sg_mlir_report.kernels, or -1 */
  uint64_t grid;                /* blocks of the launch (compiled ops) */
  unsigned block, cluster;      /* threads per block, blocks per cluster */
  sg_layout layout; /* SG_LAYOUT_INNER where inner > 1: the kernel reads [outer, N, inner] */
  unsigned dsmem;   /* dynamic shared memory bytes of the launch (compiled ops) */
  int few;          /* 0: the launch is of the kernel; i + 1: of its few-rows variant
                       meta.variants[i] */
  int copies;       /* bits: 1 the input, 2 the output go through a copy in device memory
                       (host memory: sg_mlir_options.device_memory 0) */
  /* A dynamic reduced dim (n -1): one kernel per range of N (sg_plan_n_ranges),
   * range_kernels[i] the index into sg_mlir_report.kernels of range i (its
   * meta.n_min to meta.n), the launch picking the range of the run-time N;
   * kernel is range 0's. 0 for a static N. */
  int nranges;
  int range_kernels[SG_N_RANGES_MAX];
} sg_mlir_op;

/* One distinct kernel (template, dtype, N) of the module. */
typedef struct sg_mlir_kernel {
  char name[128];    /* the kernel's symbol, also the gpu.binary's */
  sg_meta meta;      /* its launch metadata, read back from the object */
  int assembly;      /* 1: object is PTX text; 0: a .cubin / .hsaco */
  const char *ext;   /* ".cubin", ".hsaco" or ".ptx" */
  sg_buffer object;  /* the bytes embedded in the gpu.binary */
  sg_compile_stats stats; /* the driver's: stage times, cache hits and stores */
} sg_mlir_kernel;

typedef struct sg_mlir_report {
  int nops, ncompiled;
  sg_mlir_op *ops;
  int nkernels;
  sg_mlir_kernel *kernels;
  char warning[512]; /* non-fatal, e.g. "ptxas not found ...: the gpu.objects hold PTX" */
} sg_mlir_report;

/* Compiles the linalg.softmax ops of module in place (see the top of this
 * file). report (required) is filled even on failure, as far as it got, and is
 * released with sg_mlir_report_free. Ops softgen cannot take are not errors:
 * they are listed in report with SG_ERR_UNSUPPORTED (or the plan's status) and
 * left in the module. Errors (SG_ERR_TOOL, SG_ERR_CODEGEN, ...) leave the module
 * as it was. MLIR's diagnostics during the call are captured into diag. A
 * module whose ops nest more than 256 deep is refused (SG_ERR_UNSUPPORTED)
 * before anything walks it. */
SG_API sg_status sg_mlir_compile_module(MlirModule module, const sg_mlir_options *opts,
                                        sg_mlir_report *report, sg_diag *diag);

/* Parses text (len bytes, need not be NUL-terminated; name gives locations
 * their file name) in a fresh context with every MLIR dialect registered,
 * verifies it, compiles it as sg_mlir_compile_module does, and prints the
 * resulting module into out (caller frees with sg_buffer_free). A parse or verifier error gives
 * SG_ERR_PARSE with MLIR's message at "name:line:col", as does text nested
 * more than 256 levels deep ({, (, [, <; refused before MLIR's recursive
 * parser sees it). out may be NULL. */
SG_API sg_status sg_mlir_compile_text(const char *name, const char *text, size_t len,
                                      const sg_mlir_options *opts, sg_buffer *out,
                                      sg_mlir_report *report, sg_diag *diag);

/* The checks sg_mlir_compile_text makes before MLIR's parser sees text, for
 * a caller that parses text itself: nesting deeper than 256 levels ({, (, [,
 * <: the parser recurses per level), and the malformed `dimensions = [...]` /
 * `permutation = [...]` lists on which MLIR 22's linalg.broadcast, reduce and
 * transpose parsers crash. SG_ERR_PARSE with "name:line:col: ..." or SG_OK. */
SG_API sg_status sg_mlir_check_text(const char *name, const char *text, size_t len,
                                    sg_diag *diag);

/* Releases what a report holds and zeroes it. report may be NULL. */
SG_API void sg_mlir_report_free(sg_mlir_report *report);

/* softgen as an MLIR pass, through the C API (mlirCreateExternalPass), for a
 * pass manager on builtin.module:
 *
 *   MlirPassManager pm = mlirPassManagerCreate(ctx);
 *   mlirPassManagerAddOwnedPass(pm, sg_mlir_create_pass(&o));
 *   mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
 *
 * The pass runs sg_mlir_compile_module on the module with a copy of *opts
 * (its strings copied; the template and constraints objects, if any, must
 * outlive the pass), declares the dialects the rewrite creates, and fails
 * with an error at the module's location (MLIR's diagnostics) when the
 * compile fails. Ops left as they are are not errors. opts may be NULL (the
 * defaults). Returns a null pass when out of memory. mlir-opt takes the same
 * pass from the plugin lib/mlir/plugin.cpp builds: softgen-lower-softmax. */
SG_API MlirPass sg_mlir_create_pass(const sg_mlir_options *opts);

#ifdef __cplusplus
}
#endif
#endif
