/* host.c - the host backend (backend/backend.h) of the CPU softgen runs on
 * (target/host.c: x86-64 or AArch64, LLVM's default triple; this machine's CPU
 * name and features; SOFTGEN_HOST_TRIPLE names another machine to generate
 * for, with a generic CPU and no JIT), lowered by LLVM's own backend to a
 * relocatable object (.o), a shared library (.so, linked by ld.lld or cc) or,
 * through backend/jit.c, machine code in this process. Same template, plan and codegen as the GPUs;
 * what the GPU words mean here:
 *
 *  - thread: one CPU thread of execution; threads_per_wave = 1 and a block
 *    is one thread (max_block_threads = 1). The wave stage of the reduction
 *    tree has no xor-shuffle steps, no block holds two threads, so there is
 *    no shared memory and the barrier hook emits nothing.
 *  - SIMD: the plan's vector is the SIMD register: vector_bytes = 64 with
 *    AVX-512F, 32 with AVX, else 16 (SSE2, NEON). A thread's chunks are its
 *    registers; reductions are trees over them and end in one horizontal step
 *    over the lanes (codegen/reduce.c, unchanged).
 *  - rows: a block is one row (rows_per_block = 1) and the kernel's
 *    grid-stride loop over row blocks is the loop over rows. The block id and
 *    the block count are the kernel's two trailing i32 parameters
 *    (id_params): a launch on P CPU threads calls the entry P times with
 *    (params, p, P), and thread p takes rows p, p + P, ... (runtime/host.c).
 *  - long rows: a row longer than the register budget (max_elems_per_thread
 *    f32 values) is cut into tiles (plan->row_tiles); codegen loops over the
 *    tiles once per reduction and once for the writes, re-reading the row
 *    (stream_long_rows), where a GPU would need a cluster.
 *  - exp2 and log2 are polynomials in IR (Cephes' exp2f on [-1/2, 1/2]; an
 *    atanh series for log), vectorised like the rest, and f16 / bf16 are
 *    converted in IR where the arch has no instruction (to_f32, from_f32):
 *    the code object calls no library function (no libm, no compiler-rt)
 *    and has no undefined symbols on any --arch (test/Host/no-undefined.test).
 *  - entry point, one ABI for every template (finish_kernel):
 *        void kernel(void **params, uint32_t block, uint32_t blocks)
 *    params[i] points at the 8-byte value of the metadata's i-th "arg" line,
 *    as cuLaunchKernel's kernelParams; the SPMD body is an internal function
 *    inlined into it.
 *
 * --arch: "native" (default: the CPU and features of the machine softgen
 * runs on) or a CPU name from the list for the triple's architecture; the
 * code object runs on CPUs with at least those features. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "backend/backend.h"
#include "backend/tool.h"
#include "codegen/codegen.h"

/* This CPU's LLVM name and features (native), filled once by initialize(). */
static char host_cpu[64] = "generic";
static char host_features[4096] = "";

static void initialize(void) {
  const char *env = getenv("SOFTGEN_HOST_TRIPLE");
  if (env && *env) { /* another machine (target/host.c): its backend, a generic CPU, no JIT */
#ifdef SOFTGEN_NATIVE_TARGET_ONLY /* the wheel links this CPU's backend only: LLVM then
                                     says which triple it has no target for */
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
    return;
#endif
    LLVMInitializeAllTargetInfos();
    LLVMInitializeAllTargets();
    LLVMInitializeAllTargetMCs();
    LLVMInitializeAllAsmPrinters();
    return;
  }
  char *c = LLVMGetHostCPUName();
  snprintf(host_cpu, sizeof host_cpu, "%s", c && *c ? c : "generic");
  LLVMDisposeMessage(c);
  char *f = LLVMGetHostCPUFeatures();
  snprintf(host_features, sizeof host_features, "%s", f ? f : "");
  LLVMDisposeMessage(f);
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
}
static int native(const char *arch) { return strcmp(arch, "native") == 0; }
static const char *cpu(const char *arch) { return native(arch) ? host_cpu : arch; }
static const char *features(const char *arch, unsigned wave) {
  (void)wave;
  return native(arch) ? host_features : "";
}
static int has_feature(const char *name) { /* "+avx512f" in the comma list */
  size_t n = strlen(name);
  for (const char *p = host_features; (p = strstr(p, name)) != NULL; p += n)
    if ((p == host_features || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
      return 1;
  return 0;
}

static LLVMValueRef thread_id(sgc_ctx *cx) { return LLVMConstInt(cx->i32, 0, 0); }
static LLVMValueRef id_param(sgc_ctx *cx, unsigned from_end) {
  return LLVMGetParam(cx->fn, LLVMCountParams(cx->fn) - from_end);
}
static LLVMValueRef block_id(sgc_ctx *cx) { return id_param(cx, 2); }
static LLVMValueRef grid_blocks(sgc_ctx *cx) { return id_param(cx, 1); }
static LLVMValueRef shuffle_xor(sgc_ctx *cx, LLVMValueRef v, unsigned mask, unsigned width) {
  (void)cx, (void)mask, (void)width; /* a wave of 1: never asked for a lane of another */
  return v;
}
static void barrier(sgc_ctx *cx) { (void)cx; }

/* A constant of v's type (f32 or <n x f32>), or of the i32 type of that shape. */
static LLVMValueRef like(sgc_ctx *cx, LLVMValueRef v, int integer, double value) {
  LLVMTypeRef t = LLVMTypeOf(v);
  LLVMValueRef s = integer ? LLVMConstInt(cx->i32, (unsigned long long)(long long)value, 1)
                           : LLVMConstReal(cx->f32, value);
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
    return s;
  LLVMValueRef e[64];
  unsigned n = LLVMGetVectorSize(t);
  for (unsigned i = 0; i < n; i++)
    e[i] = s;
  return LLVMConstVector(e, n);
}
static LLVMTypeRef int_like(sgc_ctx *cx, LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMVectorType(cx->i32, LLVMGetVectorSize(t))
                                                   : cx->i32;
}
static LLVMValueRef pick(sgc_ctx *cx, LLVMRealPredicate p, LLVMValueRef a, LLVMValueRef b,
                         LLVMValueRef then, LLVMValueRef other) {
  return LLVMBuildSelect(cx->b, LLVMBuildFCmp(cx->b, p, a, b, ""), then, other, "");
}
static LLVMValueRef fma_(sgc_ctx *cx, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c) {
  LLVMValueRef args[3] = {a, b, c};
  return sgc_intrinsic(cx, "llvm.fmuladd", LLVMTypeOf(a), args, 3);
}

/* 2^x: n = floor(x) (x clamped to [-151, 128], NaN kept; floor as the
 * truncation fptosi makes, minus 1 where that is above x: llvm.floor would be
 * a call of libm's floorf on CPUs without SSE4.1), 2^(x - n) = sqrt(2) * 2^f
 * with f = x - n - 1/2 by Cephes' exp2f polynomial (relative error about
 * 2e-7), times 2^n as two factors 2^(n >> 1) and 2^(n - (n >> 1)), each a
 * normal float built in the exponent bits: the last product rounds once, to a
 * subnormal for x in [-149, -126) as IEEE arithmetic does (2^n alone would
 * stop at 2^-126), to 0 below 2^-150, to inf at 128. */
static LLVMValueRef exp2_poly(sgc_ctx *cx, LLVMValueRef x, int flush) {
  (void)flush; /* subnormal results cost nothing here */
  static const double P[] = {1.535336188319500e-4, 1.339887440266574e-3, 9.618437357674640e-3,
                             5.550332471162809e-2, 2.402264791363012e-1, 6.931472028550421e-1};
  LLVMBuilderRef b = cx->b;
  LLVMTypeRef ft = LLVMTypeOf(x), it = int_like(cx, x);
  LLVMValueRef lo = like(cx, x, 0, -151.0), hi = like(cx, x, 0, 128.0);
  LLVMValueRef xc = pick(cx, LLVMRealOGT, x, lo, x, lo); /* NaN -> lo: no poison below */
  xc = pick(cx, LLVMRealOLT, xc, hi, xc, hi);
  LLVMValueRef t = LLVMBuildFPToSI(b, xc, it, "");
  LLVMValueRef above = LLVMBuildFCmp(b, LLVMRealOGT, LLVMBuildSIToFP(b, t, ft, ""), xc, "");
  LLVMValueRef ni = LLVMBuildSub(b, t, LLVMBuildZExt(b, above, it, ""), "floor");
  LLVMValueRef n = LLVMBuildSIToFP(b, ni, ft, "");
  LLVMValueRef f = LLVMBuildFSub(b, LLVMBuildFSub(b, xc, n, ""), like(cx, x, 0, 0.5), "");
  LLVMValueRef p = like(cx, x, 0, P[0]);
  for (int i = 1; i < 6; i++)
    p = fma_(cx, p, f, like(cx, x, 0, P[i]));
  LLVMValueRef r = fma_(cx, f, p, like(cx, x, 0, 1.0));
  r = LLVMBuildFMul(b, r, like(cx, x, 0, 1.4142135623730951), "");
  LLVMValueRef half = LLVMBuildAShr(b, ni, like(cx, x, 1, 1), "");
  LLVMValueRef k[2] = {half, LLVMBuildSub(b, ni, half, "")};
  for (int i = 0; i < 2; i++) {
    LLVMValueRef bits = LLVMBuildShl(b, LLVMBuildAdd(b, k[i], like(cx, x, 1, 127), ""),
                                     like(cx, x, 1, 23), "");
    r = LLVMBuildFMul(b, r, LLVMBuildBitCast(b, bits, ft, ""), i ? "exp2" : "");
  }
  return pick(cx, LLVMRealUNO, x, x, x, r);
}

/* log2(x) = e + log2(m), m in [sqrt(1/2), sqrt(2)): ln m = 2 atanh(s),
 * s = (m - 1) / (m + 1), |s| < 0.172, by its series to s^11 (error < 1e-11);
 * subnormals scaled by 2^23 first; 0 -> -inf, +inf -> +inf, x < 0 or NaN -> NaN. */
static LLVMValueRef log2_poly(sgc_ctx *cx, LLVMValueRef x) {
  LLVMBuilderRef b = cx->b;
  LLVMTypeRef it = int_like(cx, x);
  LLVMValueRef sub = LLVMBuildFCmp(b, LLVMRealOLT, x, like(cx, x, 0, 1.1754943508222875e-38), "");
  LLVMValueRef xs = LLVMBuildSelect(b, sub, LLVMBuildFMul(b, x, like(cx, x, 0, 8388608.0), ""), x, "");
  LLVMValueRef adj = LLVMBuildSelect(b, sub, like(cx, x, 0, -23.0), like(cx, x, 0, 0.0), "");
  LLVMValueRef bits = LLVMBuildBitCast(b, xs, it, "");
  LLVMValueRef e = LLVMBuildSub(b, LLVMBuildLShr(b, LLVMBuildAnd(b, bits, like(cx, x, 1, 0x7fffffff), ""),
                                                 like(cx, x, 1, 23), ""),
                                like(cx, x, 1, 127), "");
  LLVMValueRef mb = LLVMBuildOr(b, LLVMBuildAnd(b, bits, like(cx, x, 1, 0x007fffff), ""),
                                like(cx, x, 1, 0x3f800000), "");
  LLVMValueRef m = LLVMBuildBitCast(b, mb, LLVMTypeOf(x), "");
  LLVMValueRef big = LLVMBuildFCmp(b, LLVMRealOGT, m, like(cx, x, 0, 1.4142135623730951), "");
  m = LLVMBuildSelect(b, big, LLVMBuildFMul(b, m, like(cx, x, 0, 0.5), ""), m, "");
  LLVMValueRef ef = LLVMBuildFAdd(b, LLVMBuildSIToFP(b, e, LLVMTypeOf(x), ""), adj, "");
  ef = LLVMBuildFAdd(b, ef, LLVMBuildSelect(b, big, like(cx, x, 0, 1.0), like(cx, x, 0, 0.0), ""), "");
  LLVMValueRef s = LLVMBuildFDiv(b, LLVMBuildFSub(b, m, like(cx, x, 0, 1.0), ""),
                                 LLVMBuildFAdd(b, m, like(cx, x, 0, 1.0), ""), "");
  LLVMValueRef s2 = LLVMBuildFMul(b, s, s, "");
  LLVMValueRef p = like(cx, x, 0, 1.0 / 11);
  for (int k = 9; k >= 1; k -= 2)
    p = fma_(cx, p, s2, like(cx, x, 0, 1.0 / k));
  /* log2(m) = 2 s p / ln 2 */
  LLVMValueRef l = LLVMBuildFMul(b, LLVMBuildFMul(b, s, p, ""), like(cx, x, 0, 2.8853900817779268), "");
  LLVMValueRef r = LLVMBuildFAdd(b, ef, l, "log2");
  r = pick(cx, LLVMRealOEQ, x, like(cx, x, 0, INFINITY), x, r);
  r = pick(cx, LLVMRealULT, x, like(cx, x, 0, 0.0), like(cx, x, 0, NAN), r); /* x < 0, NaN */
  return pick(cx, LLVMRealOEQ, x, like(cx, x, 0, 0.0), like(cx, x, 0, -INFINITY), r);
}

/* f32 <-> f16 / bf16 for loads and stores (to_f32, from_f32). fpext and
 * fptrunc are instructions where the CPU has them (F16C on x86-64, from
 * x86-64-v3; FCVT on AArch64) and calls of compiler-rt's __extendhfsf2,
 * __truncsfhf2 and __truncsfbf2 elsewhere, which a code object that links
 * with --no-undefined and an in-process JIT cannot resolve: those are built
 * here from integer operations, vectorised like the rest. bf16 narrowing is
 * always built here: AVX512-BF16's VCVTNEPS2BF16 flushes subnormals to 0, and
 * the rounding is four integer operations on the bits (widening bf16 is a
 * shift). */
static int is_arm(void) { return strncmp(sgh_host.triple, "aarch64", 7) == 0; }
static int f16_instructions(const char *arch) {
  if (is_arm())
    return 1;
  if (strncmp(sgh_host.triple, "x86_64", 6) != 0)
    return 0;
  return native(arch) ? has_feature("+f16c")
                      : strcmp(arch, "x86-64-v3") == 0 || strcmp(arch, "x86-64-v4") == 0;
}
/* The type elem shaped like t (a scalar, or a vector of t's lanes). */
static LLVMTypeRef shaped(LLVMTypeRef t, LLVMTypeRef elem) {
  return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMVectorType(elem, LLVMGetVectorSize(t))
                                                   : elem;
}
/* An integer constant of type t (iN or <n x iN>). */
static LLVMValueRef iconst(LLVMTypeRef t, unsigned long long value) {
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
    return LLVMConstInt(t, value, 0);
  LLVMValueRef e[64], s = LLVMConstInt(LLVMGetElementType(t), value, 0);
  unsigned n = LLVMGetVectorSize(t);
  for (unsigned i = 0; i < n; i++)
    e[i] = s;
  return LLVMConstVector(e, n);
}
static LLVMValueRef isel(sgc_ctx *cx, LLVMIntPredicate p, LLVMValueRef a, LLVMValueRef b,
                         LLVMValueRef then, LLVMValueRef other) {
  return LLVMBuildSelect(cx->b, LLVMBuildICmp(cx->b, p, a, b, ""), then, other, "");
}

/* half bits -> f32 bits, exactly: normals rebias the exponent; subnormals
 * (and zero) as (2^-14 + m 2^-24) - 2^-14, both terms normal f32; infinities
 * and NaNs keep an all-ones exponent (and the payload). */
static LLVMValueRef half_to_f32(sgc_ctx *cx, LLVMValueRef v) {
  LLVMBuilderRef b = cx->b;
  LLVMTypeRef it = shaped(LLVMTypeOf(v), cx->i32), ft = shaped(LLVMTypeOf(v), cx->f32);
  LLVMTypeRef ht = shaped(LLVMTypeOf(v), LLVMInt16TypeInContext(cx->ctx));
  LLVMValueRef h = LLVMBuildZExt(b, LLVMBuildBitCast(b, v, ht, ""), it, "");
  LLVMValueRef o = LLVMBuildShl(b, LLVMBuildAnd(b, h, iconst(it, 0x7fff), ""), iconst(it, 13), "");
  LLVMValueRef e = LLVMBuildAnd(b, o, iconst(it, 0x0f800000), "");
  LLVMValueRef normal = LLVMBuildAdd(b, o, iconst(it, 0x38000000), ""); /* (127 - 15) << 23 */
  LLVMValueRef special = LLVMBuildAdd(b, o, iconst(it, 0x70000000), "");
  LLVMValueRef magic = LLVMBuildBitCast(b, iconst(it, 0x38800000), ft, ""); /* 2^-14 */
  LLVMValueRef sub = LLVMBuildFSub(
      b, LLVMBuildBitCast(b, LLVMBuildAdd(b, o, iconst(it, 0x38800000), ""), ft, ""), magic, "");
  LLVMValueRef r = isel(cx, LLVMIntEQ, e, iconst(it, 0), LLVMBuildBitCast(b, sub, it, ""),
                        isel(cx, LLVMIntEQ, e, iconst(it, 0x0f800000), special, normal));
  LLVMValueRef sign =
      LLVMBuildShl(b, LLVMBuildAnd(b, h, iconst(it, 0x8000), ""), iconst(it, 16), "");
  return LLVMBuildBitCast(b, LLVMBuildOr(b, r, sign, ""), ft, "x.f32");
}

/* f32 -> half bits, to nearest even: |x| >= 2^16 (rounds past 65504) gives
 * inf, a NaN the quiet NaN 0x7e00; |x| < 2^-14 (subnormal halves) is rounded
 * by adding 1/2, whose ulp is the half's smallest subnormal; normals round
 * their 13 dropped bits, a carry moving into the exponent (up to inf). The
 * sign is copied. */
static LLVMValueRef f32_to_half(sgc_ctx *cx, LLVMValueRef v, LLVMTypeRef t) {
  LLVMBuilderRef b = cx->b;
  LLVMTypeRef it = shaped(t, cx->i32), ft = shaped(t, cx->f32);
  LLVMValueRef bits = LLVMBuildBitCast(b, v, it, "");
  LLVMValueRef sign = LLVMBuildAnd(b, bits, iconst(it, 0x80000000u), "");
  LLVMValueRef a = LLVMBuildXor(b, bits, sign, "");
  LLVMValueRef big = isel(cx, LLVMIntUGT, a, iconst(it, 0x7f800000), iconst(it, 0x7e00),
                          iconst(it, 0x7c00));
  LLVMValueRef half = LLVMBuildBitCast(b, iconst(it, 0x3f000000), ft, "");
  LLVMValueRef small = LLVMBuildSub(
      b, LLVMBuildBitCast(b, LLVMBuildFAdd(b, LLVMBuildBitCast(b, a, ft, ""), half, ""), it, ""),
      iconst(it, 0x3f000000), "");
  LLVMValueRef odd = LLVMBuildAnd(b, LLVMBuildLShr(b, a, iconst(it, 13), ""), iconst(it, 1), "");
  LLVMValueRef normal = LLVMBuildAdd(b, LLVMBuildAdd(b, a, iconst(it, 0xc8000fffu), ""), odd, "");
  normal = LLVMBuildLShr(b, normal, iconst(it, 13), ""); /* (15 - 127) << 23, + 0xfff + odd */
  LLVMValueRef r = isel(cx, LLVMIntUGE, a, iconst(it, 0x47800000), big,
                        isel(cx, LLVMIntULT, a, iconst(it, 0x38800000), small, normal));
  r = LLVMBuildOr(b, r, LLVMBuildLShr(b, sign, iconst(it, 16), ""), "");
  LLVMValueRef h = LLVMBuildTrunc(b, r, shaped(t, LLVMInt16TypeInContext(cx->ctx)), "");
  return LLVMBuildBitCast(b, h, t, "");
}

/* bf16 bits -> f32: the bits are the f32's upper half. */
static LLVMValueRef bf16_to_f32(sgc_ctx *cx, LLVMValueRef v) {
  LLVMBuilderRef b = cx->b;
  LLVMTypeRef it = shaped(LLVMTypeOf(v), cx->i32);
  LLVMTypeRef ht = shaped(LLVMTypeOf(v), LLVMInt16TypeInContext(cx->ctx));
  LLVMValueRef h = LLVMBuildBitCast(b, v, ht, "");
  LLVMValueRef w = LLVMBuildShl(b, LLVMBuildZExt(b, h, it, ""), iconst(it, 16), "");
  return LLVMBuildBitCast(b, w, shaped(LLVMTypeOf(v), cx->f32), "x.f32");
}

/* f32 -> bf16, to nearest even on the bits (subnormals kept, a carry moves
 * into the exponent, up to inf); a NaN stays a NaN, made quiet. */
static LLVMValueRef f32_to_bf16(sgc_ctx *cx, LLVMValueRef v, LLVMTypeRef t) {
  LLVMBuilderRef b = cx->b;
  LLVMTypeRef it = shaped(t, cx->i32);
  LLVMValueRef bits = LLVMBuildBitCast(b, v, it, "");
  LLVMValueRef odd = LLVMBuildAnd(b, LLVMBuildLShr(b, bits, iconst(it, 16), ""), iconst(it, 1), "");
  LLVMValueRef r = LLVMBuildAdd(b, LLVMBuildAdd(b, bits, iconst(it, 0x7fff), ""), odd, "");
  r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, v, v, ""),
                      LLVMBuildOr(b, bits, iconst(it, 0x00400000), ""), r, "");
  LLVMValueRef h = LLVMBuildTrunc(b, LLVMBuildLShr(b, r, iconst(it, 16), ""),
                                  shaped(t, LLVMInt16TypeInContext(cx->ctx)), "");
  return LLVMBuildBitCast(b, h, t, "");
}

static LLVMValueRef to_f32(sgc_ctx *cx, LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  LLVMTypeRef e = LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
  if (LLVMGetTypeKind(e) == LLVMBFloatTypeKind)
    return bf16_to_f32(cx, v);
  if (f16_instructions(cx->plan->arch))
    return LLVMBuildFPExt(cx->b, v, shaped(t, cx->f32), "");
  return half_to_f32(cx, v);
}
static LLVMValueRef from_f32(sgc_ctx *cx, LLVMValueRef v, LLVMTypeRef t) {
  LLVMTypeRef e = LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
  if (LLVMGetTypeKind(e) == LLVMBFloatTypeKind)
    return f32_to_bf16(cx, v, t);
  if (f16_instructions(cx->plan->arch))
    return LLVMBuildFPTrunc(cx->b, v, t, "");
  return f32_to_half(cx, v, t);
}

static void cpu_attributes(sgc_ctx *cx, LLVMValueRef fn) {
  const char *c = cpu(cx->plan->arch), *f = features(cx->plan->arch, 1);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(cx->ctx, "target-cpu", 10, c, (unsigned)strlen(c)));
  if (*f)
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(cx->ctx, "target-features", 15, f,
                                                      (unsigned)strlen(f)));
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(cx->ctx, nounwind, 0));
}
static void kernel_attributes(sgc_ctx *cx, LLVMValueRef fn) { cpu_attributes(cx, fn); }

/* Renames the SPMD body <kernel>.spmd (internal, always inlined) and adds the
 * entry <kernel>(void **params, i32 block, i32 blocks) that loads each
 * parameter through its pointer and calls it. */
static void finish_kernel(sgc_ctx *cx) {
  LLVMValueRef body = cx->fn;
  char name[160];
  snprintf(name, sizeof name, "%s.spmd", cx->plan->kernel_name);
  LLVMSetValueName2(body, name, strlen(name));
  LLVMSetLinkage(body, LLVMInternalLinkage);
  unsigned inl = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  LLVMAddAttributeAtIndex(body, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(cx->ctx, inl, 0));
  LLVMTypeRef ptr = LLVMPointerTypeInContext(cx->ctx, 0);
  LLVMTypeRef params[3] = {ptr, cx->i32, cx->i32};
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(cx->ctx), params, 3, 0);
  LLVMValueRef entry = LLVMAddFunction(cx->mod, cx->plan->kernel_name, fty);
  cpu_attributes(cx, entry);
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(cx->ctx, entry, "entry");
  LLVMBuilderRef b = cx->b;
  LLVMPositionBuilderAtEnd(b, bb);
  unsigned n = LLVMCountParams(body), nargs = n - 2;
  LLVMValueRef args[SG_META_MAX_ARGS + 2];
  LLVMValueRef p = LLVMGetParam(entry, 0);
  for (unsigned i = 0; i < nargs; i++) {
    LLVMValueRef idx = LLVMConstInt(cx->i64, i, 0);
    LLVMValueRef slot = LLVMBuildLoad2(b, ptr, LLVMBuildGEP2(b, ptr, p, &idx, 1, ""), "");
    args[i] = LLVMBuildLoad2(b, LLVMTypeOf(LLVMGetParam(body, i)), slot, "");
  }
  args[nargs] = LLVMGetParam(entry, 1);
  args[nargs + 1] = LLVMGetParam(entry, 2);
  LLVMBuildCall2(b, LLVMGlobalGetValueType(body), body, args, n, "");
  LLVMBuildRetVoid(b);
}

/* The backend's object is the .o. */
static sg_status assemble(const sg_plan *plan, const sg_buffer *obj, const sg_emit_options *opts,
                          sg_buffer *object, sg_diag *diag) {
  (void)plan, (void)opts;
  object->data = malloc(obj->size + 1);
  if (!object->data)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
  memcpy(object->data, obj->data, obj->size);
  object->data[obj->size] = '\0';
  object->size = obj->size;
  return SG_OK;
}

/* .o -> .so: ld.lld (--lld, LLVM's tools directory, PATH), else cc on PATH. */
static sg_status link_shared(const sg_plan *plan, const sg_buffer *obj, const sg_emit_options *opts,
                             sg_buffer *shared, sg_diag *diag) {
  (void)plan;
  char tool[4096];
#ifdef SOFTGEN_LLVM_TOOLS_DIR
  const char *extra = SOFTGEN_LLVM_TOOLS_DIR;
#else
  const char *extra = NULL;
#endif
  sg_diag why;
  sg_diag_clear(&why);
  if (!sge_tool_find("ld.lld", opts ? opts->lld : NULL, NULL, extra, tool, sizeof tool, &why)) {
    const char *argv[] = {tool, "-shared", "--no-undefined", "-o", "@OUT@", "@IN@", NULL};
    return sge_tool_run(argv, obj, ".o", ".so", shared, diag);
  }
  if (opts && opts->lld) /* an explicit --lld that is not there: say so */
    return sg_diag_set(diag, SG_ERR_TOOL, "cannot make a .so: %s", why.message);
  sg_diag why_cc;
  sg_diag_clear(&why_cc);
  if (!sge_tool_find("cc", NULL, NULL, NULL, tool, sizeof tool, &why_cc)) {
    const char *argv[] = {tool, "-shared", "-nostdlib", "-o", "@OUT@", "@IN@", NULL};
    return sge_tool_run(argv, obj, ".o", ".so", shared, diag);
  }
  return sg_diag_set(diag, SG_ERR_TOOL, "cannot make a .so: %.300s; %.200s (install lld-22 or a C "
                     "compiler, or pass --lld PATH; the .o from --emit obj is still usable)",
                     why.message, why_cc.message);
}

static const sgc_hooks hooks = {
    .kernel_cc = LLVMCCallConv,
    .global_as = 0,
    .shared_as = 0,
    .kernel_attributes = kernel_attributes,
    .id_params = 2,
    .finish_kernel = finish_kernel,
    .thread_id = thread_id,
    .block_id = block_id,
    .grid_blocks = grid_blocks,
    .shuffle_xor = shuffle_xor,
    .barrier = barrier,
    .exp2 = exp2_poly,
    .log2 = log2_poly,
    .to_f32 = to_f32,
    .from_f32 = from_f32,
};

const sge_backend sge_host = {
    .target = &sgh_host,
    .ir = &hooks,
    .initialize = initialize,
    .cpu = cpu,
    .features = features,
    .assemble_from_object = 1,
    .assemble = assemble,
    .link_shared = link_shared,
};
