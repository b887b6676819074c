/* amdgpu.c - the AMDGPU backend (backend/backend.h) of AMD GPUs
 * (target/amdgpu.c: CDNA gfx90a, gfx942, gfx950, wave64; RDNA gfx1100, gfx1201,
 * wave32 or wave64). Ids from llvm.amdgcn.*, the grid size from the code object v5
 * implicit arguments, xor shuffles with DPP, v_permlanex16 / v_permlane64
 * (RDNA) or DPP, ds_swizzle and ds_bpermute (CDNA), s_barrier with workgroup
 * fences, bare v_exp_f32, and ld.lld to link the .hsaco. */
#include <string.h>

#include <llvm-c/Target.h>

#include "backend/backend.h"
#include "backend/tool.h"
#include "codegen/codegen.h"

static int is_rdna(const char *arch) { return strncmp(arch, "gfx1", 4) == 0 && strlen(arch) >= 7; }
static void initialize(void) {
  LLVMInitializeAMDGPUTargetInfo();
  LLVMInitializeAMDGPUTarget();
  LLVMInitializeAMDGPUTargetMC();
  LLVMInitializeAMDGPUAsmPrinter();
}
static const char *cpu(const char *arch) { return arch; }
static const char *features(const char *arch, unsigned wave) {
  if (!is_rdna(arch))
    return "";
  return wave == 64 ? "+wavefrontsize64" : "+wavefrontsize32";
}

static LLVMValueRef thread_id(sgc_ctx *cx) {
  return sgc_intrinsic(cx, "llvm.amdgcn.workitem.id.x", NULL, NULL, 0);
}
static LLVMValueRef block_id(sgc_ctx *cx) {
  return sgc_intrinsic(cx, "llvm.amdgcn.workgroup.id.x", NULL, NULL, 0);
}
/* hidden_block_count_x: the first u32 of the code object v5 implicit arguments */
static LLVMValueRef grid_blocks(sgc_ctx *cx) {
  LLVMValueRef p = sgc_intrinsic(cx, "llvm.amdgcn.implicitarg.ptr", NULL, NULL, 0);
  LLVMValueRef n = LLVMBuildLoad2(cx->b, cx->i32, p, "blocks.x");
  LLVMSetAlignment(n, 4);
  LLVMSetMetadata(n, LLVMGetMDKindIDInContext(cx->ctx, "invariant.load", 14),
                  LLVMMetadataAsValue(cx->ctx, LLVMMDNodeInContext2(cx->ctx, NULL, 0)));
  return n;
}

/* gfx10 and later (RDNA): DPP row_xmask, v_permlanex16, v_permlane64. */
static int is_gfx10_plus(const char *arch) { return is_rdna(arch); }

static LLVMValueRef dpp(sgc_ctx *cx, LLVMValueRef v, unsigned ctrl) {
  /* llvm.amdgcn.update.dpp(old, src, dpp_ctrl, row_mask, bank_mask,
   * bound_ctrl): every pattern used here reads a lane of the same row, so
   * no lane is out of bounds and old is never selected */
  LLVMValueRef args[6] = {LLVMGetPoison(cx->f32), v, LLVMConstInt(cx->i32, ctrl, 0),
                          LLVMConstInt(cx->i32, 0xf, 0), LLVMConstInt(cx->i32, 0xf, 0),
                          LLVMConstInt(cx->i1, 1, 0)};
  return sgc_intrinsic(cx, "llvm.amdgcn.update.dpp", cx->f32, args, 6);
}

/* DPP controls (LLVM's SIDefines.h, DPP::DppCtrl; AMD ISA manuals):
 * quad_perm 0x000-0x0ff (2 bits per lane of a quad), row_ror:n 0x120+n,
 * row_half_mirror 0x141 (lane 7-i of 8 = i ^ 7), row_xmask:n 0x160+n
 * (gfx10+: lane i ^ n of the 16-lane row). */
enum { DPP_QUAD_XOR1 = 0xb1 /* [1,0,3,2] */, DPP_QUAD_XOR2 = 0x4e /* [2,3,0,1] */,
       DPP_QUAD_XOR3 = 0x1b /* [3,2,1,0] */, DPP_ROW_ROR8 = 0x128 /* i ^ 8 in 16 */,
       DPP_ROW_HALF_MIRROR = 0x141, DPP_ROW_XMASK0 = 0x160 };

/* Value of lane ^ mask; every step is an exact xor permutation:
 *   RDNA (gfx10+): 1..8 DPP row_xmask, 16 v_permlanex16 with identity lane
 *     selects (lane i of the other row of the 32-lane half), 32 v_permlane64
 *     (swaps the halves of a wave64; gfx11+, which both RDNA archs are).
 *   CDNA (gfx9): 1, 2 DPP quad_perm; 4 row_half_mirror (i ^ 7) then
 *     quad_perm [3,2,1,0] (i ^ 3); 8 row_ror:8; 16 ds_swizzle in bitmask mode
 *     (offset = and 0x1f | or 0 << 5 | xor 16 << 10, bit 15 clear: the lane's
 *     32-lane half is kept); 32 ds_bpermute (byte address of lane ^ 32).
 * width is not needed: mask < width <= the wave size, so a wave32 never sees
 * mask 32 (reduce.c caps width at the wave). */
static LLVMValueRef shuffle_xor(sgc_ctx *cx, LLVMValueRef v, unsigned mask, unsigned width) {
  (void)width;
  const char *arch = cx->plan->arch;
  if (is_gfx10_plus(arch)) {
    if (mask < 16)
      return dpp(cx, v, DPP_ROW_XMASK0 | mask);
    if (mask == 16) {
      LLVMValueRef args[6] = {LLVMGetPoison(cx->f32), v, LLVMConstInt(cx->i32, 0x76543210u, 0),
                              LLVMConstInt(cx->i32, 0xfedcba98u, 0), LLVMConstInt(cx->i1, 0, 0),
                              LLVMConstInt(cx->i1, 0, 0)};
      return sgc_intrinsic(cx, "llvm.amdgcn.permlanex16", cx->f32, args, 6);
    }
    return sgc_intrinsic(cx, "llvm.amdgcn.permlane64", cx->f32, &v, 1);
  }
  switch (mask) {
  case 1:
    return dpp(cx, v, DPP_QUAD_XOR1);
  case 2:
    return dpp(cx, v, DPP_QUAD_XOR2);
  case 4:
    return dpp(cx, dpp(cx, v, DPP_ROW_HALF_MIRROR), DPP_QUAD_XOR3);
  case 8:
    return dpp(cx, v, DPP_ROW_ROR8);
  default:
    break;
  }
  LLVMValueRef bits = LLVMBuildBitCast(cx->b, v, cx->i32, "");
  LLVMValueRef r;
  if (mask < 32) {
    LLVMValueRef args[2] = {bits, LLVMConstInt(cx->i32, 0x1f | (mask << 10), 0)};
    r = sgc_intrinsic(cx, "llvm.amdgcn.ds.swizzle", NULL, args, 2);
  } else {
    LLVMValueRef ones = LLVMConstInt(cx->i32, 0xffffffffu, 0);
    LLVMValueRef lo_args[2] = {ones, LLVMConstInt(cx->i32, 0, 0)};
    LLVMValueRef lane = sgc_intrinsic(cx, "llvm.amdgcn.mbcnt.lo", NULL, lo_args, 2);
    LLVMValueRef hi_args[2] = {ones, lane};
    lane = sgc_intrinsic(cx, "llvm.amdgcn.mbcnt.hi", NULL, hi_args, 2);
    LLVMValueRef src = LLVMBuildXor(cx->b, lane, LLVMConstInt(cx->i32, mask, 0), "");
    LLVMValueRef args[2] = {LLVMBuildShl(cx->b, src, LLVMConstInt(cx->i32, 2, 0), ""), bits};
    r = sgc_intrinsic(cx, "llvm.amdgcn.ds.bpermute", NULL, args, 2);
  }
  return LLVMBuildBitCast(cx->b, r, cx->f32, "");
}

/* s_barrier between a release and an acquire fence at workgroup scope. The
 * fences carry the memory model relaxation annotation !{"amdgpu-synchronize-as",
 * "local"} (AMDGPUUsage, "Memory Model Relaxation Annotations"): only LDS
 * partials cross the barrier, so the backend need not wait for outstanding
 * global stores nor invalidate the L0 / global caches (buffer_gl0_inv on
 * gfx10/11, global_inv on gfx12). */
static void fence(sgc_ctx *cx, LLVMAtomicOrdering ord) {
  LLVMValueRef f = LLVMBuildFenceSyncScope(cx->b, ord, LLVMGetSyncScopeID(cx->ctx, "workgroup", 9), "");
  LLVMMetadataRef tag[2] = {LLVMMDStringInContext2(cx->ctx, "amdgpu-synchronize-as", 21),
                            LLVMMDStringInContext2(cx->ctx, "local", 5)};
  LLVMSetMetadata(f, LLVMGetMDKindIDInContext(cx->ctx, "mmra", 4),
                  LLVMMetadataAsValue(cx->ctx, LLVMMDNodeInContext2(cx->ctx, tag, 2)));
}
static void barrier(sgc_ctx *cx) {
  fence(cx, LLVMAtomicOrderingRelease);
  sgc_intrinsic(cx, "llvm.amdgcn.s.barrier", NULL, NULL, 0);
  fence(cx, LLVMAtomicOrderingAcquire);
}

/* exp2 as a bare v_exp_f32 per element (llvm.amdgcn.exp2). llvm.exp2 with
 * afn lowers to v_exp_f32 wrapped in a denormal-result rescale (compare,
 * select, add, ldexp) unless the kernel flushes f32 denormals. The one
 * difference: results below 2^-126 are flushed to 0. In softmax the exp2
 * arguments are <= 0 and the row maximum contributes 1 to the sum, so such
 * terms are below any output's resolution; overflow, infinities and NaNs
 * behave as llvm.exp2. */
static LLVMValueRef exp2_fast(sgc_ctx *cx, LLVMValueRef v, int flush) {
  (void)flush; /* flushed always */
  return sgc_map_scalar(cx, "llvm.amdgcn.exp2", v);
}

/* v_log_f32, element by element for vectors. */
static LLVMValueRef log2_fast(sgc_ctx *cx, LLVMValueRef v) {
  return sgc_map_scalar(cx, "llvm.amdgcn.log", v);
}

static void kernel_attributes(sgc_ctx *cx, LLVMValueRef fn) {
  char n[32];
  snprintf(n, sizeof n, "%u,%u", cx->plan->block_threads, cx->plan->block_threads);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(cx->ctx, "amdgpu-flat-work-group-size", 27, n,
                                                    (unsigned)strlen(n)));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(cx->ctx, "uniform-work-group-size", 23, "true", 4));
  /* IEEE mode off (gfx9 to gfx11; gfx12 has no such mode bit): v_max_f32
   * then needs no quieting v_max_f32 x, x of its operands. The max is
   * llvm.maximum (NaN-propagating, codegen/reduce.c): before gfx950 that is
   * v_max_f32 with v_cmp_o_f32 selecting a NaN, whose result does not depend
   * on the mode. */
  if (strncmp(cx->plan->arch, "gfx12", 5) != 0)
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(cx->ctx, "amdgpu-ieee", 11, "false", 5));
  LLVMValueRef v5 = LLVMConstInt(cx->i32, 500, 0);
  if (!LLVMGetModuleFlag(cx->mod, "amdhsa_code_object_version", 26)) /* once: variants share it */
    LLVMAddModuleFlag(cx->mod, LLVMModuleFlagBehaviorError, "amdhsa_code_object_version", 26,
                      LLVMValueAsMetadata(v5));
}

/* The ld.lld assemble() runs (also the compile cache's tool identity). */
static sg_status find_lld(const sg_emit_options *opts, char *lld, size_t cap, sg_diag *diag) {
#ifdef SOFTGEN_LLVM_TOOLS_DIR
  const char *extra = SOFTGEN_LLVM_TOOLS_DIR;
#else
  const char *extra = NULL;
#endif
  sg_status st = sge_tool_find("ld.lld", opts ? opts->lld : NULL, NULL, extra, lld, cap, diag);
  if (st) {
    char why[sizeof diag->message];
    snprintf(why, sizeof why, "%.400s", diag ? diag->message : "ld.lld not found");
    return sg_diag_set(diag, SG_ERR_TOOL, "cannot make a .hsaco: %s (install lld-22 or pass "
                       "--lld PATH)", why);
  }
  return SG_OK;
}

/* object -> .hsaco through ld.lld -shared. */
static sg_status assemble(const sg_plan *plan, const sg_buffer *obj, const sg_emit_options *opts,
                          sg_buffer *object, sg_diag *diag) {
  (void)plan;
  char lld[4096];
  sg_status st = find_lld(opts, lld, sizeof lld, diag);
  if (st)
    return st;
  const char *argv[] = {lld, "-shared", "--no-undefined", "-o", "@OUT@", "@IN@", NULL};
  return sge_tool_run(argv, obj, ".o", ".hsaco", object, diag);
}

static const sgc_hooks hooks = {
    .kernel_cc = LLVMAMDGPUKERNELCallConv,
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
    .device_scope = "agent",
};

const sge_backend sge_amdgpu = {
    .target = &sgh_amdgpu,
    .ir = &hooks,
    .initialize = initialize,
    .cpu = cpu,
    .features = features,
    .assemble_from_object = 1,
    .assemble = assemble,
    .find_tool = find_lld,
};
