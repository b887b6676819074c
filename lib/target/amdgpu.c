/* amdgpu.c - the AMDGPU target table (target/target.h): amdgcn-amd-amdhsa,
 * CDNA (gfx90a, gfx942, gfx950: wave64) and RDNA (gfx1100, gfx1201: wave32 or
 * wave64). Ids from llvm.amdgcn.*, the grid size from the code object v5
 * implicit arguments, xor shuffles with ds_swizzle (within 32 lanes) or
 * ds_bpermute (across halves of a wave64), s_barrier with workgroup fences,
 * v_exp_f32, and ld.lld to link the .hsaco. */
#include <string.h>

#include <llvm-c/Target.h>

#include "codegen/codegen.h"
#include "support/tool.h"

static const char *const archs[] = {"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201", NULL};

static int is_rdna(const char *arch) { return strncmp(arch, "gfx1", 4) == 0 && strlen(arch) >= 7; }

static int wave_ok(const char *arch, unsigned size) {
  return size == 64 || (size == 32 && is_rdna(arch));
}
static const char *wave_sizes(const char *arch) {
  return is_rdna(arch) ? "RDNA runs waves of 32 or 64" : "CDNA runs waves of 64 only";
}
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

static LLVMValueRef shuffle_xor(sgc_ctx *cx, LLVMValueRef v, unsigned mask, unsigned width) {
  (void)width;
  LLVMValueRef bits = LLVMBuildBitCast(cx->b, v, cx->i32, "");
  LLVMValueRef r;
  if (mask < 32) { /* ds_swizzle bitmask mode: and 0x1f, or 0, xor mask */
    LLVMValueRef args[2] = {bits, LLVMConstInt(cx->i32, 0x1f | (mask << 10), 0)};
    r = sgc_intrinsic(cx, "llvm.amdgcn.ds.swizzle", NULL, args, 2);
  } else { /* ds_bpermute: byte address of the source lane */
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

static void barrier(sgc_ctx *cx) {
  LLVMBuildFenceSyncScope(cx->b, LLVMAtomicOrderingRelease, LLVMGetSyncScopeID(cx->ctx, "workgroup", 9), "");
  sgc_intrinsic(cx, "llvm.amdgcn.s.barrier", NULL, NULL, 0);
  LLVMBuildFenceSyncScope(cx->b, LLVMAtomicOrderingAcquire, LLVMGetSyncScopeID(cx->ctx, "workgroup", 9), "");
}

static LLVMValueRef exp2_fast(sgc_ctx *cx, LLVMValueRef v) {
  LLVMValueRef r = sgc_intrinsic(cx, "llvm.exp2", LLVMTypeOf(v), &v, 1);
  LLVMSetFastMathFlags(r, LLVMFastMathApproxFunc); /* v_exp_f32 */
  return r;
}

static void kernel_attributes(sgc_ctx *cx, LLVMValueRef fn) {
  char n[32];
  snprintf(n, sizeof n, "%u,%u", cx->plan->block_threads, cx->plan->block_threads);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(cx->ctx, "amdgpu-flat-work-group-size", 27, n,
                                                    (unsigned)strlen(n)));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(cx->ctx, "uniform-work-group-size", 23, "true", 4));
  LLVMValueRef v5 = LLVMConstInt(cx->i32, 500, 0);
  LLVMAddModuleFlag(cx->mod, LLVMModuleFlagBehaviorError, "amdhsa_code_object_version", 26,
                    LLVMValueAsMetadata(v5));
}

/* object -> .hsaco through ld.lld -shared. */
static sg_status assemble(const sg_plan *plan, const sg_buffer *obj, const sg_emit_options *opts,
                          sg_buffer *object, sg_diag *diag) {
  (void)plan;
  char lld[4096];
#ifdef SOFTGEN_LLVM_TOOLS_DIR
  const char *extra = SOFTGEN_LLVM_TOOLS_DIR;
#else
  const char *extra = NULL;
#endif
  sg_status st = sg_tool_find("ld.lld", opts ? opts->lld : NULL, NULL, extra, lld, sizeof lld, diag);
  if (st) {
    char why[sizeof diag->message];
    snprintf(why, sizeof why, "%.400s", diag ? diag->message : "ld.lld not found");
    return sg_diag_set(diag, SG_ERR_TOOL, "cannot make a .hsaco: %s (install lld-22 or pass "
                       "--lld PATH)", why);
  }
  const char *argv[] = {lld, "-shared", "--no-undefined", "-o", "@OUT@", "@IN@", NULL};
  return sg_tool_run(argv, obj, ".o", ".hsaco", object, diag);
}

const sg_target_info sg_target_amdgpu = {
    .name = "amdgpu",
    .triple = "amdgcn-amd-amdhsa",
    .default_arch = "gfx942",
    .archs = archs,
    .asm_ext = ".s",
    .object_ext = ".hsaco",
    .max_block_threads = 1024,
    .max_static_smem = 64 * 1024,
    .max_elems_per_thread = 64,
    .wave_ok = wave_ok,
    .wave_sizes = wave_sizes,
    .initialize = initialize,
    .cpu = cpu,
    .features = features,
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
    .assemble_from_object = 1,
    .assemble = assemble,
};
