/* codegen/hooks.h - what codegen asks of a target while it builds IR (internal):
 * one table of IR hooks per target, as QBE's struct Target. Codegen never tests
 * which target it builds for; it calls these. The backends (backend/nvptx.c,
 * backend/amdgpu.c, backend/host.c) fill them; the device limits that shaped the
 * plan are the target's data (target/target.h, plan->target). */
#ifndef SG_CODEGEN_HOOKS_H
#define SG_CODEGEN_HOOKS_H

#include <llvm-c/Core.h>

struct sgc_ctx;

typedef struct sgc_hooks {
  LLVMCallConv kernel_cc;
  unsigned global_as, shared_as; /* address spaces of global and shared memory */
  /* Adds launch-bound attributes (max threads, occupancy, clusters) to the kernel. */
  void (*kernel_attributes)(struct sgc_ctx *cx, LLVMValueRef fn);
  /* i32 parameters appended to the kernel's ABI after the strides (the host's
   * block id and block count, which its id hooks read; 0 on GPUs). */
  unsigned id_params;
  /* Called once the kernel is built (NULL: nothing): the host wraps it in the
   * runtime's uniform entry point void kernel(void **params, i32 block, i32 blocks). */
  void (*finish_kernel)(struct sgc_ctx *cx);

  /* Ids (i32), the wave reduction step, the block barrier, exp2 and log2 of f32
   * scalars or vectors. shuffle_xor: the value of the lane whose index is
   * lane ^ mask, within groups of `width` lanes (a power of two <= the wave). */
  LLVMValueRef (*thread_id)(struct sgc_ctx *cx);
  LLVMValueRef (*block_id)(struct sgc_ctx *cx);
  LLVMValueRef (*grid_blocks)(struct sgc_ctx *cx);
  LLVMValueRef (*shuffle_xor)(struct sgc_ctx *cx, LLVMValueRef v, unsigned mask, unsigned width);
  void (*barrier)(struct sgc_ctx *cx);
  /* exp2; flush: how far results below 2^-126 may be 0 (codegen.h, the
   * SGC_EXP_ levels; where no output can tell: codegen/walk.c, exp_flushes),
   * which NVIDIA's ex2 does in one instruction instead of four */
  LLVMValueRef (*exp2)(struct sgc_ctx *cx, LLVMValueRef v, int flush);
  LLVMValueRef (*log2)(struct sgc_ctx *cx, LLVMValueRef v);
  /* f16 / bf16 vectors to f32 and back, where the target must convert in IR
   * (the host without the instructions); NULL: fpext / fptrunc. */
  LLVMValueRef (*to_f32)(struct sgc_ctx *cx, LLVMValueRef v);
  LLVMValueRef (*from_f32)(struct sgc_ctx *cx, LLVMValueRef v, LLVMTypeRef to);

  /* Thread-block clusters (NULL where the target has none): this block's rank
   * in its cluster, the cluster's index and count; a cluster barrier in two
   * halves, arrive (release, or relaxed: no memory ordering) then wait
   * (acquire); a store of v at `local` (a shared-memory address) in the block
   * of rank `rank`. The exchange of partials between the blocks of a cluster
   * (codegen/reduce.c) goes through that store and the cluster barrier, or
   * through transaction barriers in shared memory (plan->cluster_bars; `bar`:
   * the address of one, 8 bytes): exchange_init makes `count` of them
   * from `bars` on (one thread; before the kernel's relaxed arrive, whose wait
   * publishes them to the cluster) and arms each, as exchange_arm does one:
   * its next phase completes once `bytes` have landed in this block;
   * exchange_send stores the floats v0, v1 at `local` (8-byte aligned) in the
   * block of rank `rank`, counted on that block's barrier at `bar`;
   * exchange_wait returns once the barrier's phase of parity `parity` (i32, 0
   * or 1) has completed, with what landed visible to the thread. */
  LLVMValueRef (*cluster_rank)(struct sgc_ctx *cx);
  LLVMValueRef (*cluster_id)(struct sgc_ctx *cx);
  LLVMValueRef (*cluster_count)(struct sgc_ctx *cx);
  void (*cluster_arrive)(struct sgc_ctx *cx, int relaxed);
  void (*cluster_wait)(struct sgc_ctx *cx);
  void (*cluster_store)(struct sgc_ctx *cx, LLVMValueRef local, LLVMValueRef rank, LLVMValueRef v);
  void (*exchange_init)(struct sgc_ctx *cx, LLVMValueRef bars, unsigned count, unsigned bytes);
  void (*exchange_arm)(struct sgc_ctx *cx, LLVMValueRef bar, unsigned bytes);
  void (*exchange_send)(struct sgc_ctx *cx, LLVMValueRef local, LLVMValueRef bar, LLVMValueRef rank,
                        LLVMValueRef v0, LLVMValueRef v1);
  void (*exchange_wait)(struct sgc_ctx *cx, LLVMValueRef bar, LLVMValueRef parity);

  /* The LLVM sync scope of the whole device ("device", "agent"): a grid
   * split's barrier in global memory orders its atomics at it (NULL where the
   * target has no grid split). */
  const char *device_scope;

  /* Staging rows in shared memory (NULL where the target cannot): stage_copy
   * starts an asynchronous copy of `bytes` (4, 8 or 16) from global `src` to
   * shared `dst`; stage_commit closes this thread's copies since the last one
   * into a group; stage_wait waits until at most `pending` of its latest groups
   * are in flight (every earlier group landed and visible to this thread). */
  void (*stage_copy)(struct sgc_ctx *cx, LLVMValueRef dst, LLVMValueRef src, unsigned bytes);
  void (*stage_commit)(struct sgc_ctx *cx);
  void (*stage_wait)(struct sgc_ctx *cx, unsigned pending);
} sgc_hooks;

#endif
