/* rewrite.c - replaces each compiled linalg.softmax with a launch of its kernel
 * (stage 4 of lib/mlir: mlir_impl.h).
 *
 * Needs: report->kernels and the ops' kernel indices and geometry (kernels.c).
 * Produces, in the module: one `gpu.binary @K [#gpu.object<TARGET, bin|assembly
 * = "...">]` per kernel at the start of the body, `gpu.container_module` on the
 * module, and before each compiled op
 *
 *   %p = memref.extract_aligned_pointer_as_index %x ; arith.index_cast -> i64
 *   [arith.addi offset bytes] ; llvm.inttoptr -> !llvm.ptr      (per tensor)
 *   gpu.launch_func @K::@K [clusters in (C,1,1)] blocks in (G,1,1) ... [dynamic_shared_memory_size S]
 *       threads in (B,1,1) args(<one value per "arg" line of the kernel's metadata>)
 *
 * (@K::@K_few..., one of the object's few-rows variants, where the geometry chose it),
 * after which the op is erased. Every attribute and type is built before the
 * first change, so a failure leaves the module untouched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir/mlir_impl.h"

/* gpu::CompilationTarget (GPU dialect): the format of a #gpu.object. */
enum { SGM_GPU_ASSEMBLY = 2, SGM_GPU_BINARY = 3 };

typedef struct builder {
  MlirContext ctx;
  MlirBlock block;
  MlirOperation before; /* insertion point */
  MlirLocation loc;
  MlirType index, i64, ptr;
} builder;

static MlirNamedAttribute named(MlirContext ctx, const char *name, MlirAttribute a) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, sgm_str(name)), a);
}

/* Creates op `name` before b->before; returns its result (or a null value when
 * it has none). */
static MlirValue emit(builder *b, const char *name, intptr_t nops, const MlirValue *ops,
                      const MlirType *result, intptr_t nattrs, const MlirNamedAttribute *attrs) {
  MlirOperationState st = mlirOperationStateGet(sgm_str(name), b->loc);
  if (nops)
    mlirOperationStateAddOperands(&st, nops, ops);
  if (result)
    mlirOperationStateAddResults(&st, 1, result);
  if (nattrs)
    mlirOperationStateAddAttributes(&st, nattrs, attrs);
  MlirOperation op = mlirOperationCreate(&st);
  mlirBlockInsertOwnedOperationBefore(b->block, b->before, op);
  return result ? mlirOperationGetResult(op, 0) : (MlirValue){NULL};
}

static MlirValue constant(builder *b, MlirType t, int64_t v) {
  MlirNamedAttribute a = named(b->ctx, "value", mlirIntegerAttrGet(t, v));
  return emit(b, "arith.constant", 0, NULL, &t, 1, &a);
}

/* The tensor's address as !llvm.ptr: aligned pointer + static offset. */
static MlirValue pointer(builder *b, MlirValue memref, int64_t offset_bytes) {
  MlirValue v = emit(b, "memref.extract_aligned_pointer_as_index", 1, &memref, &b->index, 0, NULL);
  v = emit(b, "arith.index_cast", 1, &v, &b->i64, 0, NULL);
  if (offset_bytes) {
    MlirValue add[2] = {v, constant(b, b->i64, offset_bytes)};
    v = emit(b, "arith.addi", 2, add, &b->i64, 0, NULL);
  }
  return emit(b, "llvm.inttoptr", 1, &v, &b->ptr, 0, NULL);
}

/* Emits the launch of kernel k for op i and erases the op. */
static void launch(builder *b, sgm_state *s, int i, MlirAttribute kernel_ref) {
  const sg_mlir_op *r = &s->report->ops[i];
  const sgm_op *o = &s->ops[i];
  const sg_meta *m = &s->report->kernels[r->kernel].meta;
  b->block = mlirOperationGetBlock(o->op);
  b->before = o->op;
  b->loc = mlirOperationGetLocation(o->op);
  MlirValue one = constant(b, b->index, 1);
  MlirValue grid = constant(b, b->index, (int64_t)r->grid);
  MlirValue block = constant(b, b->index, r->block);
  MlirValue cluster = r->cluster > 1 ? constant(b, b->index, r->cluster) : one;
  MlirValue args[SG_META_MAX_ARGS];
  unsigned es = sg_dtype_size(r->dtype);
  for (int a = 0; a < m->nargs; a++) {
    int t = m->args[a].tensor, w = t >= 0 && m->tensors[t].is_output ? 1 : 0;
    if (m->args[a].kind == SG_ARG_TENSOR)
      args[a] = pointer(b, o->value[w], o->offset[w] * (int64_t)es);
    else if (m->args[a].kind == SG_ARG_STRIDE)
      args[a] = constant(b, b->i64, o->stride[w]);
    else if (m->args[a].kind == SG_ARG_INNER)
      args[a] = constant(b, b->i64, r->inner);
    else if (m->args[a].kind == SG_ARG_NSTRIDE)
      args[a] = constant(b, b->i64, o->nstride[w]);
    else
      args[a] = constant(b, b->i64, r->m);
  }
  /* operands: async deps, grid xyz, block xyz, cluster xyz?, dynamic smem?,
   * kernel operands, async object? (gpu.launch_func's operandSegmentSizes) */
  MlirValue ops[9 + SG_META_MAX_ARGS];
  int n = 0, nc = r->cluster > 1 ? 3 : 0;
  ops[n++] = grid, ops[n++] = one, ops[n++] = one;
  ops[n++] = block, ops[n++] = one, ops[n++] = one;
  if (nc)
    ops[n++] = cluster, ops[n++] = one, ops[n++] = one;
  if (r->dsmem) /* rows staged in shared memory: the launch provides it */
    ops[n++] = constant(b, mlirIntegerTypeGet(b->ctx, 32), r->dsmem);
  for (int a = 0; a < m->nargs; a++)
    ops[n++] = args[a];
  int32_t seg[13] = {0, 1, 1, 1, 1, 1, 1, nc / 3, nc / 3, nc / 3, r->dsmem ? 1 : 0, m->nargs, 0};
  MlirNamedAttribute attrs[2] = {
      named(b->ctx, "kernel", kernel_ref),
      named(b->ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(b->ctx, 13, seg)),
  };
  emit(b, "gpu.launch_func", n, ops, NULL, 2, attrs);
  mlirOperationDestroy(o->op);
}

/* #nvvm.target<chip = "sm_90"> or #rocdl.target<chip = "gfx942">. */
static MlirAttribute target_attr(MlirContext ctx, const sg_meta *m) {
  char text[128];
  snprintf(text, sizeof text, "#%s.target<chip = \"%s\">",
           strcmp(m->target, "amdgpu") == 0 ? "rocdl" : "nvvm", m->arch);
  return mlirAttributeParseGet(ctx, sgm_str(text));
}

sg_status sgm_rewrite(sgm_state *s, sg_diag *diag) {
  sg_mlir_report *rep = s->report;
  MlirContext ctx = s->ctx;
  builder b = {.ctx = ctx};
  b.index = mlirIndexTypeGet(ctx);
  b.i64 = mlirIntegerTypeGet(ctx, 64);
  b.ptr = mlirTypeParseGet(ctx, sgm_str("!llvm.ptr"));
  if (mlirTypeIsNull(b.ptr))
    return sg_diag_set(diag, SG_ERR_CODEGEN, "the LLVM dialect is not loaded in this context");
  if (rep->nkernels == 0)
    return SG_OK;
  MlirAttribute *binaries =
      calloc((size_t)rep->nkernels, (2 + SG_META_MAX_VARIANTS) * sizeof *binaries);
  if (!binaries)
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
  /* @binary::@kernel, and @binary::@variant for the few-rows entry points
   * (few_refs[k * SG_META_MAX_VARIANTS + i] for kernel k's variant i) */
  MlirAttribute *refs = binaries + rep->nkernels, *few_refs = refs + rep->nkernels;
  MlirAttribute handler = mlirAttributeParseGet(ctx, sgm_str("#gpu.select_object"));
  for (int k = 0; k < rep->nkernels; k++) {
    const sg_mlir_kernel *kr = &rep->kernels[k];
    MlirAttribute target = target_attr(ctx, &kr->meta);
    if (mlirAttributeIsNull(target) || mlirAttributeIsNull(handler)) {
      free(binaries);
      return sg_diag_set(diag, SG_ERR_CODEGEN, "cannot build the gpu target attribute of %s",
                         kr->name);
    }
    MlirStringRef bytes = {kr->object.data, kr->object.size};
    binaries[k] = mlirGPUObjectAttrGet(ctx, target, kr->assembly ? SGM_GPU_ASSEMBLY : SGM_GPU_BINARY,
                                       bytes, (MlirAttribute){NULL});
  }
  /* the changes: binaries first (in kernel order), then the launches */
  MlirOperation modop = mlirModuleGetOperation(s->module);
  MlirSymbolTable symbols = mlirSymbolTableCreate(modop);
  MlirBlock body = mlirModuleGetBody(s->module);
  MlirOperation first = mlirBlockGetFirstOperation(body);
  for (int k = 0; k < rep->nkernels; k++) {
    const char *kname = rep->kernels[k].name;
    char name[160];
    snprintf(name, sizeof name, "%s", kname);
    for (int n = 1; !mlirOperationIsNull(mlirSymbolTableLookup(symbols, sgm_str(name))); n++)
      snprintf(name, sizeof name, "%s_%d", kname, n); /* a symbol of the module has it */
    MlirAttribute leaf = mlirFlatSymbolRefAttrGet(ctx, sgm_str(kname));
    refs[k] = mlirSymbolRefAttrGet(ctx, sgm_str(name), 1, &leaf);
    for (int i = 0; i < rep->kernels[k].meta.nvariants; i++) {
      MlirAttribute few =
          mlirFlatSymbolRefAttrGet(ctx, sgm_str(rep->kernels[k].meta.variants[i].kernel));
      few_refs[k * SG_META_MAX_VARIANTS + i] = mlirSymbolRefAttrGet(ctx, sgm_str(name), 1, &few);
    }
    MlirNamedAttribute attrs[3] = {
        named(ctx, "sym_name", mlirStringAttrGet(ctx, sgm_str(name))),
        named(ctx, "objects", mlirArrayAttrGet(ctx, 1, &binaries[k])),
        named(ctx, "offloadingHandler", handler), /* the op's default; its printer needs it */
    };
    MlirOperationState st = mlirOperationStateGet(sgm_str("gpu.binary"), mlirOperationGetLocation(modop));
    mlirOperationStateAddAttributes(&st, 3, attrs);
    MlirOperation op = mlirOperationCreate(&st);
    if (mlirOperationIsNull(first))
      mlirBlockAppendOwnedOperation(body, op);
    else
      mlirBlockInsertOwnedOperationBefore(body, first, op);
    mlirSymbolTableInsert(symbols, op);
  }
  mlirSymbolTableDestroy(symbols);
  mlirOperationSetAttributeByName(modop, sgm_str("gpu.container_module"), mlirUnitAttrGet(ctx));
  for (int i = 0; i < rep->nops; i++) {
    if (rep->ops[i].status != SG_OK || rep->ops[i].kernel < 0)
      continue;
    int k = rep->ops[i].kernel;
    int f = rep->ops[i].few; /* 0: the kernel; v + 1: its variant v */
    launch(&b, s, i, f ? few_refs[k * SG_META_MAX_VARIANTS + f - 1] : refs[k]);
    rep->ops[i].compiled = 1;
    rep->ncompiled++;
  }
  free(binaries);
  return SG_OK;
}
