/* target/target.h - one table of hooks per target (internal), as QBE's
 * struct Target: codegen never tests which target it builds for, it asks the
 * table. Produced by target/nvptx.c, target/amdgpu.c and target/host.c; looked up by name in
 * target/target.c; read by constraints/resolve.c (limits) and codegen. */
#ifndef SG_INTERNAL_TARGET_H
#define SG_INTERNAL_TARGET_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "softgen/codegen.h"
#include "softgen/diag.h"

struct sg_plan;
struct sgc_ctx; /* codegen/codegen.h */

typedef struct sg_target_info {
  const char *name;         /* "nvptx" */
  const char *triple;       /* "nvptx64-nvidia-cuda" */
  const char *default_arch; /* "sm_90" */
  const char *const *archs; /* NULL-terminated list of accepted --arch values */
  const char *asm_ext;      /* ".ptx" */
  const char *object_ext;   /* ".cubin" */

  /* Limits, checked by the resolver. */
  unsigned max_block_threads;
  unsigned max_static_smem;  /* bytes of static shared memory a block may use */
  unsigned max_elems_per_thread; /* f32 row values a thread may hold in registers */
  /* Widest vector access in bytes for arch (NULL: 16). */
  unsigned (*max_vector_bytes)(const char *arch);
  /* 1: a row longer than the register budget is processed in tiles, one pass
   * over memory per reduction plus one for the writes (plan->row_tiles > 1);
   * 0: such rows need clusters or are rejected. */
  int stream_long_rows;
  /* Called once by sg_target_lookup before the table is used (NULL: nothing
   * to do); the host target fills its triple and CPU here. */
  void (*probe)(void);
  /* 1 if arch supports waves of `size` threads. */
  int (*wave_ok)(const char *arch, unsigned size);
  /* A sentence naming the wave sizes arch allows, for rejections. */
  const char *(*wave_sizes)(const char *arch);

  /* LLVM target set-up. */
  void (*initialize)(void);
  const char *(*cpu)(const char *arch);      /* LLVM CPU name */
  const char *(*features)(const char *arch, unsigned wave); /* "" or "+wavefrontsize64" */
  LLVMCallConv kernel_cc;
  unsigned global_as, shared_as;
  /* Adds launch-bound attributes (max threads, occupancy) to the kernel. */
  void (*kernel_attributes)(struct sgc_ctx *cx, LLVMValueRef fn);
  /* i32 parameters appended to the kernel's ABI after the strides (the host's
   * block id and block count, which its id hooks read; 0 on GPUs). */
  unsigned id_params;
  /* Called once the kernel is built (NULL: nothing): the host wraps it in the
   * runtime's uniform entry point void kernel(void **params, i32 block, i32 blocks). */
  void (*finish_kernel)(struct sgc_ctx *cx);

  /* IR hooks: ids (i32), wave reduction step, barrier, fast exp2. */
  LLVMValueRef (*thread_id)(struct sgc_ctx *cx);
  LLVMValueRef (*block_id)(struct sgc_ctx *cx);
  LLVMValueRef (*grid_blocks)(struct sgc_ctx *cx);
  /* value from the lane whose index is lane ^ mask (f32), within groups of
   * `width` lanes (a power of two <= the wave size). */
  LLVMValueRef (*shuffle_xor)(struct sgc_ctx *cx, LLVMValueRef v, unsigned mask, unsigned width);
  void (*barrier)(struct sgc_ctx *cx);
  LLVMValueRef (*exp2)(struct sgc_ctx *cx, LLVMValueRef v);
  LLVMValueRef (*log2)(struct sgc_ctx *cx, LLVMValueRef v); /* f32 scalar or vector */
  /* Conversions of loaded and stored elements (NULL: fpext / fptrunc, which the
   * GPU backends lower to instructions): to_f32 widens v (half or bfloat, scalar
   * or vector) to f32 of the same shape; from_f32 rounds v (f32) to the type t
   * (half or bfloat of v's shape) to nearest even. The host builds them in IR
   * where the CPU has no instruction, so that its code calls no library function. */
  LLVMValueRef (*to_f32)(struct sgc_ctx *cx, LLVMValueRef v);
  LLVMValueRef (*from_f32)(struct sgc_ctx *cx, LLVMValueRef v, LLVMTypeRef t);

  /* 1: assemble() receives the backend's object file instead of its assembly. */
  int assemble_from_object;
  /* Thread-block clusters (NULL hooks: the target has none). max_cluster is
   * the largest cluster the target launches portably; cluster_ok says whether
   * arch has clusters at all. */
  unsigned max_cluster;
  unsigned max_cluster_staged; /* larger, non-portable clusters staged rows may be given
                                  (16 on sm_90: the runtime opts the kernel in); never
                                  chosen automatically */
  int (*cluster_ok)(const char *arch);
  LLVMValueRef (*cluster_rank)(struct sgc_ctx *cx);  /* rank of this block in its cluster */
  LLVMValueRef (*cluster_id)(struct sgc_ctx *cx);    /* index of the cluster in the grid */
  LLVMValueRef (*cluster_count)(struct sgc_ctx *cx); /* clusters in the grid */
  /* A cluster barrier in two halves: arrive (release, or relaxed: no memory
   * ordering), then wait (acquire) for every thread of the cluster to arrive. */
  void (*cluster_arrive)(struct sgc_ctx *cx, int relaxed);
  void (*cluster_wait)(struct sgc_ctx *cx);
  /* Stores v at `local` (a shared-memory address) in the block of rank `rank`. */
  void (*cluster_store)(struct sgc_ctx *cx, LLVMValueRef local, LLVMValueRef rank, LLVMValueRef v);

  /* Staging rows in shared memory (NULL hooks: the target cannot). stage_copy
   * starts an asynchronous copy of `bytes` (4, 8 or 16) from global `src` to
   * shared `dst`; stage_commit closes this thread's copies since the last one
   * into a group; stage_wait waits until at most `pending` of its latest groups
   * are in flight, every earlier group landed (visible to this thread).
   * stage_smem is the dynamic shared memory a block of arch may use. */
  void (*stage_copy)(struct sgc_ctx *cx, LLVMValueRef dst, LLVMValueRef src, unsigned bytes);
  void (*stage_commit)(struct sgc_ctx *cx);
  void (*stage_wait)(struct sgc_ctx *cx, unsigned pending);
  unsigned (*stage_smem)(const char *arch);

  /* Turns the target's assembly (asm_ext) into a code object (object_ext).
   * SG_ERR_TOOL with a clear reason when the tool is missing or fails. */
  sg_status (*assemble)(const struct sg_plan *plan, const sg_buffer *assembly,
                        const sg_emit_options *opts, sg_buffer *object, sg_diag *diag);
  /* Links the code object into a shared library (SG_EMIT_SHARED; NULL: the
   * target has none). SG_ERR_TOOL when no linker is found or it fails. */
  sg_status (*link_shared)(const struct sg_plan *plan, const sg_buffer *object,
                           const sg_emit_options *opts, sg_buffer *shared, sg_diag *diag);
  const char *shared_ext; /* ".so" */
  /* Finds the tool assemble() runs (its path into out), as assemble() would:
   * the compile cache keys code objects on that tool's version. NULL: none. */
  sg_status (*find_tool)(const sg_emit_options *opts, char *out, size_t cap, sg_diag *diag);
} sg_target_info;

/* The table for a target name ("nvptx", "amdgpu", "host"), or NULL. */
const sg_target_info *sg_target_lookup(const char *name);

/* Initializes t's LLVM backend, once per process (thread-safe); codegen and
 * the JIT call it before they use the target. */
void sg_target_initialize(const sg_target_info *t);

/* Creates a target machine for the module's plan and sets its data layout. */
sg_status sg_target_set_data_layout(struct sg_module *m, sg_diag *diag);

/* 1 if arch is in the target's list. */
int sg_target_has_arch(const sg_target_info *t, const char *arch);

extern const sg_target_info sg_target_nvptx;
extern const sg_target_info sg_target_amdgpu;
extern const sg_target_info sg_target_host;

#endif
