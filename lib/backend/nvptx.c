/* nvptx.c - the NVPTX backend (backend/backend.h) of NVIDIA GPUs
 * (target/nvptx.c): ids from the PTX special registers, xor shuffles with
 * shfl.sync.bfly, bar.sync, ex2.approx, clusters (barrier.cluster, mapa,
 * st.async and mbarriers),
 * cp.async for staged rows, and ptxas for .cubin. */
#include <string.h>

#include <llvm-c/Target.h>

#include "backend/backend.h"
#include "backend/tool.h"
#include "codegen/codegen.h"

static void initialize(void) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
}
static const char *cpu(const char *arch) { return arch; }
static const char *features(const char *arch, unsigned wave) {
  (void)wave;
  /* sm_100 needs PTX 8.6; on sm_90 the cluster exchange's st.async needs PTX
   * 8.1 (LLVM would pick 7.8); older archs get LLVM's minimum PTX version */
  if (strcmp(arch, "sm_100") == 0)
    return "+ptx86";
  return strncmp(arch, "sm_90", 5) == 0 ? "+ptx81" : "";
}

static LLVMValueRef sreg(sgc_ctx *cx, const char *name) {
  return sgc_intrinsic(cx, name, NULL, NULL, 0);
}
static LLVMValueRef thread_id(sgc_ctx *cx) { return sreg(cx, "llvm.nvvm.read.ptx.sreg.tid.x"); }
static LLVMValueRef block_id(sgc_ctx *cx) { return sreg(cx, "llvm.nvvm.read.ptx.sreg.ctaid.x"); }
static LLVMValueRef grid_blocks(sgc_ctx *cx) {
  return sreg(cx, "llvm.nvvm.read.ptx.sreg.nctaid.x");
}

static LLVMValueRef shuffle_xor(sgc_ctx *cx, LLVMValueRef v, unsigned mask, unsigned width) {
  (void)width; /* xor with mask < width stays inside aligned groups of width lanes */
  LLVMValueRef args[4] = {LLVMConstInt(cx->i32, 0xffffffffu, 0), v,
                          LLVMConstInt(cx->i32, mask, 0), LLVMConstInt(cx->i32, 0x1f, 0)};
  return sgc_intrinsic(cx, "llvm.nvvm.shfl.sync.bfly.f32", NULL, args, 4);
}

static void barrier(sgc_ctx *cx) { sgc_intrinsic(cx, "llvm.nvvm.barrier.cta.sync.aligned.all", NULL,
                                                 (LLVMValueRef[]){LLVMConstInt(cx->i32, 0, 0)}, 1); }

/* v + k, folded into v's own multiply (an fma) or fmuladd where v is one. */
static LLVMValueRef add_folded(sgc_ctx *cx, LLVMValueRef v, LLVMValueRef k) {
  LLVMValueRef callee = LLVMIsACallInst(v) ? LLVMGetCalledValue(v) : NULL;
  size_t len = 0;
  const char *name = callee ? LLVMGetValueName2(callee, &len) : "";
  if (LLVMIsAInstruction(v) && LLVMGetInstructionOpcode(v) == LLVMFMul) {
    LLVMValueRef args[3] = {LLVMGetOperand(v, 0), LLVMGetOperand(v, 1), k};
    return sgc_intrinsic(cx, "llvm.fma", LLVMTypeOf(v), args, 3);
  }
  if (strncmp(name, "llvm.fmuladd.", 13) == 0) {
    LLVMValueRef args[3] = {LLVMGetOperand(v, 0), LLVMGetOperand(v, 1),
                            LLVMBuildFAdd(cx->b, LLVMGetOperand(v, 2), k, "")};
    return sgc_intrinsic(cx, "llvm.fmuladd", LLVMTypeOf(v), args, 3);
  }
  return LLVMBuildFAdd(cx->b, v, k, "");
}

/* exp2 as ex2.approx.f32, which keeps subnormal results: ptxas wraps the
 * MUFU.EX2 in a rescale (a compare and two predicated multiplies, four
 * instructions an exp). Where they cannot reach an output (SGC_EXP_FLUSH), one
 * MUFU.EX2 each: ex2.approx.ftz.f32, element by element; an input below
 * 2^-126 in magnitude gives 1 either way. Where results down to 2^-134 must
 * stay (SGC_EXP_FLUSH_BF16), 2^-8 ex2.approx.ftz(v + 8): the add folds into
 * the multiply that makes v (an fma), and the multiply after keeps a
 * subnormal product (mul.rn.f32 does not flush): two instructions an exp;
 * v + 8 rounds to 2^-21 at most (a few f32 ulps of the result, under a bf16
 * output's rounding: in a model of ex2 as exp2f, 16 of 40M bf16 quotients
 * moved one ulp, none was lost: test/CodeGen/NVPTX/exp2-bf16-model.c). */
static LLVMValueRef exp2_fast(sgc_ctx *cx, LLVMValueRef v, int flush) {
  if (flush == SGC_EXP_FLUSH_BF16) {
    LLVMValueRef x = add_folded(cx, v, sgc_const_like(cx, v, SGC_EXP_SCALE_LOG2));
    return sgc_exp_unscale(cx, sgc_map_scalar(cx, "llvm.nvvm.ex2.approx.ftz", x), "exp2.scaled");
  }
  if (flush)
    return sgc_map_scalar(cx, "llvm.nvvm.ex2.approx.ftz", v);
  LLVMValueRef r = sgc_intrinsic(cx, "llvm.exp2", LLVMTypeOf(v), &v, 1);
  LLVMSetFastMathFlags(r, LLVMFastMathApproxFunc); /* ex2.approx.f32 */
  return r;
}

/* lg2.approx.f32, element by element for vectors (the backend has no libcall
 * for a generic llvm.log2). */
static LLVMValueRef log2_fast(sgc_ctx *cx, LLVMValueRef v) {
  return sgc_map_scalar(cx, "llvm.nvvm.lg2.approx.f", v);
}

static void kernel_attributes(sgc_ctx *cx, LLVMValueRef fn) {
  char n[32];
  snprintf(n, sizeof n, "%u", cx->plan->block_threads);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(cx->ctx, "nvvm.maxntid", 12, n, (unsigned)strlen(n)));
  if (cx->plan->blocks_per_sm) { /* .minnctapersm: caps registers so they fit */
    snprintf(n, sizeof n, "%u", cx->plan->blocks_per_sm);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(cx->ctx, "nvvm.minctasm", 13, n, (unsigned)strlen(n)));
  }
  if (sgp_hw_cluster(cx->plan) > 1) { /* .reqnctapercluster C, 1, 1 */
    snprintf(n, sizeof n, "%u,1,1", cx->plan->cluster);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(cx->ctx, "nvvm.cluster_dim", 16, n, (unsigned)strlen(n)));
  }
}

static LLVMValueRef cluster_rank(sgc_ctx *cx) {
  return sreg(cx, "llvm.nvvm.read.ptx.sreg.cluster.ctarank");
}
static LLVMValueRef cluster_id(sgc_ctx *cx) { return sreg(cx, "llvm.nvvm.read.ptx.sreg.clusterid.x"); }
static LLVMValueRef cluster_count(sgc_ctx *cx) {
  return sreg(cx, "llvm.nvvm.read.ptx.sreg.nclusterid.x");
}
static void cluster_arrive(sgc_ctx *cx, int relaxed) { /* .release unless relaxed */
  sgc_intrinsic(cx, relaxed ? "llvm.nvvm.barrier.cluster.arrive.relaxed.aligned"
                            : "llvm.nvvm.barrier.cluster.arrive.aligned",
                NULL, NULL, 0);
}
static void cluster_wait(sgc_ctx *cx) { /* .acquire */
  sgc_intrinsic(cx, "llvm.nvvm.barrier.cluster.wait.aligned", NULL, NULL, 0);
}
static LLVMValueRef remote(sgc_ctx *cx, LLVMValueRef local, LLVMValueRef rank) {
  LLVMValueRef args[2] = {local, rank};
  return sgc_intrinsic(cx, "llvm.nvvm.mapa.shared.cluster", NULL, args, 2);
}
static void cluster_store(sgc_ctx *cx, LLVMValueRef local, LLVMValueRef rank, LLVMValueRef v) {
  LLVMBuildStore(cx->b, v, remote(cx, local, rank));
}
/* The cluster exchange (codegen/hooks.h): mbarriers of one arrival (thread 0's
 * arrive.expect_tx, which arms the phase) whose phases complete once the armed
 * bytes have landed through st.async (PTX 8.1) from the cluster's blocks. */
static void exchange_arm(sgc_ctx *cx, LLVMValueRef bar, unsigned bytes) {
  LLVMValueRef args[2] = {bar, LLVMConstInt(cx->i32, bytes, 0)};
  sgc_intrinsic(cx, "llvm.nvvm.mbarrier.arrive.expect.tx.scope.cta.space.cta", NULL, args, 2);
}
static LLVMValueRef bar_at(sgc_ctx *cx, LLVMValueRef bars, unsigned i) { /* 8 bytes each */
  LLVMValueRef at = LLVMConstInt(cx->i64, 8 * i, 0);
  return LLVMBuildGEP2(cx->b, LLVMInt8TypeInContext(cx->ctx), bars, &at, 1, "");
}
static void exchange_init(sgc_ctx *cx, LLVMValueRef bars, unsigned count, unsigned bytes) {
  for (unsigned i = 0; i < count; i++) {
    LLVMValueRef args[2] = {bar_at(cx, bars, i), LLVMConstInt(cx->i32, 1, 0)};
    sgc_intrinsic(cx, "llvm.nvvm.mbarrier.init.shared", NULL, args, 2);
  }
  sgc_intrinsic(cx, "llvm.nvvm.fence.mbarrier_init.release.cluster", NULL, NULL, 0);
  for (unsigned i = 0; i < count; i++)
    exchange_arm(cx, bar_at(cx, bars, i), bytes);
}
static LLVMValueRef remote_u64(sgc_ctx *cx, LLVMValueRef local, LLVMValueRef rank) {
  return LLVMBuildPtrToInt(cx->b, remote(cx, local, rank), cx->i64, "");
}
static void exchange_send(sgc_ctx *cx, LLVMValueRef local, LLVMValueRef bar, LLVMValueRef rank,
                          LLVMValueRef v0, LLVMValueRef v1) {
  static const char text[] =
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [$0], {$1, $2}, [$3];";
  static const char constraints[] = "l,r,r,l,~{memory}";
  LLVMTypeRef params[4] = {cx->i64, cx->i32, cx->i32, cx->i64};
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(cx->ctx), params, 4, 0);
  LLVMValueRef fn = LLVMGetInlineAsm(fty, text, sizeof text - 1, constraints,
                                     sizeof constraints - 1, 1, 0, LLVMInlineAsmDialectATT, 0);
  LLVMValueRef args[4] = {remote_u64(cx, local, rank), LLVMBuildBitCast(cx->b, v0, cx->i32, ""),
                          LLVMBuildBitCast(cx->b, v1, cx->i32, ""), remote_u64(cx, bar, rank)};
  LLVMBuildCall2(cx->b, fty, fn, args, 4, "");
}
static void exchange_wait(sgc_ctx *cx, LLVMValueRef bar, LLVMValueRef parity) {
  LLVMBasicBlockRef wait = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "exchange.wait");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cx->ctx, cx->fn, "exchange.done");
  LLVMBuildBr(cx->b, wait);
  LLVMPositionBuilderAtEnd(cx->b, wait);
  LLVMValueRef args[2] = {bar, parity}; /* .acquire.cluster: the remote blocks' stores */
  LLVMValueRef ok = sgc_intrinsic(cx, "llvm.nvvm.mbarrier.try.wait.parity.scope.cluster.space.cta",
                                  NULL, args, 2);
  LLVMBuildCondBr(cx->b, ok, done, wait);
  LLVMPositionBuilderAtEnd(cx->b, done);
}

/* cp.async: .cg (L2 only, the row is read once) for 16 bytes, .ca below. */
static void stage_copy(sgc_ctx *cx, LLVMValueRef dst, LLVMValueRef src, unsigned bytes) {
  char name[48];
  snprintf(name, sizeof name, "llvm.nvvm.cp.async.%s.shared.global.%u", bytes == 16 ? "cg" : "ca",
           bytes);
  LLVMValueRef args[2] = {dst, src};
  sgc_intrinsic(cx, name, NULL, args, 2);
}
static void stage_commit(sgc_ctx *cx) {
  sgc_intrinsic(cx, "llvm.nvvm.cp.async.commit.group", NULL, NULL, 0);
}
static void stage_wait(sgc_ctx *cx, unsigned pending) {
  sgc_intrinsic(cx, "llvm.nvvm.cp.async.wait.group", NULL,
                (LLVMValueRef[]){LLVMConstInt(cx->i32, pending, 0)}, 1);
}
/* The ptxas assemble() runs (also the compile cache's tool identity). */
static sg_status find_ptxas(const sg_emit_options *opts, char *ptxas, size_t cap, sg_diag *diag) {
  sg_status st = sge_tool_find("ptxas", opts ? opts->ptxas : NULL, "CUDA_HOME", NULL, ptxas, cap,
                              diag);
  if (st) {
    char why[sizeof diag->message];
    snprintf(why, sizeof why, "%.400s", diag ? diag->message : "ptxas not found");
    return sg_diag_set(diag, SG_ERR_TOOL, "cannot make a .cubin: %s (install the CUDA toolkit, "
                       "set CUDA_HOME, or pass --ptxas PATH; the .ptx is still usable: the "
                       "driver compiles it at load)", why);
  }
  return SG_OK;
}

/* PTX -> cubin through ptxas. */
static sg_status assemble(const sg_plan *plan, const sg_buffer *ptx, const sg_emit_options *opts,
                          sg_buffer *object, sg_diag *diag) {
  char ptxas[4096];
  sg_status st = find_ptxas(opts, ptxas, sizeof ptxas, diag);
  if (st)
    return st;
  char arch[48];
  snprintf(arch, sizeof arch, "-arch=%s", plan->arch);
  const char *argv[] = {ptxas, arch, "-O3", "-o", "@OUT@", "@IN@", NULL};
  return sge_tool_run(argv, ptx, ".ptx", ".cubin", object, diag);
}

static const sgc_hooks hooks = {
    .kernel_cc = LLVMPTXKernelCallConv,
    .global_as = 1,
    .shared_as = 3,
    .kernel_attributes = kernel_attributes,
    .thread_id = thread_id,
    .block_id = block_id,
    .grid_blocks = grid_blocks,
    .shuffle_xor = shuffle_xor,
    .barrier = barrier,
    .exp2 = exp2_fast,
    .log2 = log2_fast,
    .device_scope = "device",
    .cluster_rank = cluster_rank,
    .cluster_id = cluster_id,
    .cluster_count = cluster_count,
    .cluster_arrive = cluster_arrive,
    .cluster_wait = cluster_wait,
    .cluster_store = cluster_store,
    .exchange_init = exchange_init,
    .exchange_arm = exchange_arm,
    .exchange_send = exchange_send,
    .exchange_wait = exchange_wait,
    .stage_copy = stage_copy,
    .stage_commit = stage_commit,
    .stage_wait = stage_wait,
};

const sge_backend sge_nvptx = {
    .target = &sgh_nvptx,
    .ir = &hooks,
    .initialize = initialize,
    .cpu = cpu,
    .features = features,
    .assemble = assemble,
    .find_tool = find_ptxas,
};
