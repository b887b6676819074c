/* softgen-mlir-api: the in-process MLIR entry point, as a compiler embedding
 * MLIR would call it: its own context and module, sg_mlir_compile_module in
 * place, the report read back. Prints "ok - ..." / "not ok - ..." lines, then
 * the rewritten module; test/MLIR/api.test checks both. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/IR.h"
#include "mlir-c/RegisterEverything.h"
#include "softgen/mlir.h"

static int failures, passes;

static void check(int ok, const char *what) {
  printf("%s - %s\n", ok ? "ok" : "not ok", what);
  if (ok)
    passes++;
  else
    failures++;
}

static void put(MlirStringRef s, void *user) { fwrite(s.data, 1, s.length, (FILE *)user); }

static const char *const src =
    "func.func @f(%x: memref<64x256xf32>, %y: memref<64x256xf32>, %t: tensor<8x32xf16>, "
    "%u: tensor<4x?x2xf16>) -> (tensor<8x32xf16>, tensor<4x?x2xf16>) {\n"
    "  linalg.softmax dimension(1) ins(%x : memref<64x256xf32>) outs(%y : memref<64x256xf32>)\n"
    "  %e = tensor.empty() : tensor<8x32xf16>\n"
    "  %r = linalg.softmax dimension(1) ins(%t : tensor<8x32xf16>) outs(%e : tensor<8x32xf16>) "
    "-> tensor<8x32xf16>\n"
    "  %s = linalg.softmax dimension(1) ins(%u : tensor<4x?x2xf16>) outs(%u : tensor<4x?x2xf16>) "
    "-> tensor<4x?x2xf16>\n"
    "  return %r, %s : tensor<8x32xf16>, tensor<4x?x2xf16>\n"
    "}\n";

/* Counts the ops named name in the module. */
typedef struct counter {
  const char *name;
  int n;
} counter;
static MlirWalkResult count_op(MlirOperation op, void *user) {
  counter *c = user;
  if (mlirStringRefEqual(mlirIdentifierStr(mlirOperationGetName(op)),
                         mlirStringRefCreateFromCString(c->name)))
    c->n++;
  return MlirWalkResultAdvance;
}
static int count(MlirModule m, const char *name) {
  counter c = {name, 0};
  mlirOperationWalk(mlirModuleGetOperation(m), count_op, &c, MlirWalkPreOrder);
  return c.n;
}

int main(int argc, char **argv) {
  MlirDialectRegistry reg = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(reg);
  MlirContext ctx = mlirContextCreateWithRegistry(reg, false);
  mlirDialectRegistryDestroy(reg);
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(src));
  check(!mlirModuleIsNull(m), "the module parses");
  sg_mlir_report r;
  sg_diag d;

  sg_mlir_options o = {.target = "nvptx", .arch = "sm_90", .format = SG_MLIR_FORMAT_ASSEMBLY};
  o.analyze_only = 1;
  check(sg_mlir_compile_module(m, &o, &r, &d) == SG_OK, "analyze_only succeeds");
  check(r.nops == 3 && r.ncompiled == 0 && r.nkernels == 0, "analyze_only: 3 ops, none compiled");
  check(r.nops == 3 && r.ops[0].status == SG_OK && r.ops[0].m == 64 && r.ops[0].n == 256 &&
            r.ops[0].dtype == SG_DTYPE_F32,
        "analyze_only: the memref op is 64 x 256 f32 and compilable");
  check(r.nops == 3 && r.ops[1].tensor_form && r.ops[1].status == SG_OK && r.ops[1].m == 8 &&
            r.ops[1].n == 32 && r.ops[1].dtype == SG_DTYPE_F16,
        "analyze_only: the tensor op is 8 x 32 f16 and compilable");
  check(r.nops == 3 && r.ops[2].status == SG_ERR_UNSUPPORTED &&
            strstr(r.ops[2].message, "not the innermost") != NULL,
        "analyze_only: the dynamic op is reported with why it is left");
  check(count(m, "linalg.softmax") == 3, "analyze_only leaves the module untouched");
  sg_mlir_report_free(&r);

  o.analyze_only = 0;
  o.arch = "sm_12345";
  check(sg_mlir_compile_module(m, &o, &r, &d) != SG_OK && d.message[0],
        "an unknown arch is an error with a message");
  check(count(m, "linalg.softmax") == 3 && count(m, "gpu.binary") == 0,
        "after the error the module is unchanged");
  sg_mlir_report_free(&r);

  o.arch = "sm_90";
  sg_status st = sg_mlir_compile_module(m, &o, &r, &d);
  check(st == SG_OK, "compiles for sm_90");
  if (st)
    printf("# %s\n", d.message);
  check(r.nops == 3 && r.ncompiled == 2 && r.nkernels == 2, "two ops compiled, two kernels");
  check(r.nkernels == 2 && strcmp(r.kernels[0].name, "softgen_softmax_f32_n256") == 0 &&
            r.kernels[0].assembly && strcmp(r.kernels[0].ext, ".ptx") == 0 &&
            r.kernels[0].object.size > 0,
        "the kernel is softgen_softmax_f32_n256, embedded as PTX");
  check(r.nops == 3 && r.ops[0].compiled && r.ops[0].kernel == 0 && r.ops[0].block > 0 &&
            r.ops[0].grid > 0 && r.ops[1].compiled && r.ops[1].kernel == 1 && !r.ops[2].compiled,
        "the compiled ops have a kernel and a launch geometry");
  check(count(m, "linalg.softmax") == 1 && count(m, "gpu.binary") == 2 &&
            count(m, "gpu.launch_func") == 2 && count(m, "bufferization.to_tensor") == 1 &&
            count(m, "tensor.empty") == 0,
        "the module holds 2 gpu.binary, 2 launches, the dynamic softmax; no tensor.empty");
  check(mlirOperationVerify(mlirModuleGetOperation(m)), "the module verifies");
  sg_mlir_report_free(&r);

  MlirModule empty = {NULL};
  check(sg_mlir_compile_module(empty, &o, &r, &d) == SG_ERR_INVALID_ARGUMENT,
        "a null module is an invalid argument");
  sg_mlir_report_free(&r);

  /* text that is not NUL-terminated (exactly len bytes on the heap) ending in
   * an op name: MLIR's lexer would read past it (found by fuzz_mlir) */
  static const char cut[] = "func.func @f() {\n  return\n}\nlinalg.do";
  char *heap = malloc(sizeof cut - 1);
  if (heap) {
    memcpy(heap, cut, sizeof cut - 1);
    sg_buffer out;
    st = sg_mlir_compile_text("cut.mlir", heap, sizeof cut - 1, &o, &out, &r, &d);
    check(st == SG_ERR_PARSE && strncmp(d.message, "cut.mlir:4:1: ", 14) == 0 && !out.data,
          "text without a NUL: a parse error at cut.mlir:4:1, no output");
    if (st != SG_ERR_PARSE)
      printf("# %s\n", d.message);
    sg_mlir_report_free(&r);
    free(heap);
  }

  /* nesting: a module 300 ops deep, built through the API (not parsed), is
   * refused before anything walks it; beside a softmax (in the implicit top
   * module, level 0), modules nested 256 deep with a sibling at every level
   * (the walk goes down, across and all the way back up to the softmax after
   * them) are fine */
  MlirLocation loc = mlirLocationUnknownGet(ctx);
  MlirModule deep = mlirModuleCreateEmpty(loc);
  MlirBlock body = mlirModuleGetBody(deep);
  for (int i = 1; i < 300; i++) {
    MlirModule inner = mlirModuleCreateEmpty(loc);
    mlirBlockAppendOwnedOperation(body, mlirModuleGetOperation(inner));
    body = mlirModuleGetBody(inner);
  }
  st = sg_mlir_compile_module(deep, &o, &r, &d);
  check(st == SG_ERR_UNSUPPORTED && strstr(d.message, "ops nested more than 256 deep") != NULL,
        "a module 300 ops deep is refused before it is walked");
  if (st != SG_ERR_UNSUPPORTED)
    printf("# %s\n", d.message);
  sg_mlir_report_free(&r);
  mlirModuleDestroy(deep);
  size_t cap = 1 << 16, len = 0;
  char *text = malloc(cap);
  if (text) {
    for (int i = 0; i < 255; i++) /* levels 1 to 255; the sibling of the last, 256 */
      len += (size_t)snprintf(text + len, cap - len, "module {\nmodule {}\n");
    for (int i = 0; i < 255; i++)
      len += (size_t)snprintf(text + len, cap - len, "}\n");
    len += (size_t)snprintf(text + len, cap - len, "%s", src);
    MlirModule wide = mlirModuleCreateParse(ctx, mlirStringRefCreate(text, len));
    st = mlirModuleIsNull(wide) ? SG_ERR_PARSE : sg_mlir_compile_module(wide, &o, &r, &d);
    check(st == SG_OK && r.nops == 3 && r.ncompiled == 2,
          "modules nested 256 deep beside a softmax: walked, the softmax compiled");
    if (st)
      printf("# %s\n", d.message);
    sg_mlir_report_free(&r);
    if (!mlirModuleIsNull(wide))
      mlirModuleDestroy(wide);
    free(text);
  }

  /* the driver's cache (argv[1]: a directory to use): the built-in template's
   * kernel is stored, then found; a caller's parsed template is compiled
   * afresh (nothing keys it), and is the one used */
  if (argc > 1) {
    setenv("SOFTGEN_CACHE", "1", 1); /* lit turns it off */
    sg_mlir_options co = {.format = SG_MLIR_FORMAT_ASSEMBLY, .cache_dir = argv[1]};
    unsigned stores = 0, hits = 0;
    for (int i = 0; i < 2; i++) {
      st = sg_mlir_compile_text("cache.mlir", src, strlen(src), &co, NULL, &r, &d);
      if (st == SG_OK && r.nkernels == 2) {
        stores += r.kernels[0].stats.cache_stores;
        hits += r.kernels[0].stats.cache_hits;
      }
      sg_mlir_report_free(&r);
    }
    check(stores == 1 && hits == 1, "the cache: stored once, then found");
    static const char mine[] = "kernel mysoftmax(x: in[M, N] T, y: out[M, N] T)\n"
                               "  a = read(x)\n  m = max(a, dim=N)\n  b = broadcast(m, [M, N])\n"
                               "  d = sub(a, b)\n  e = exp(d)\n  s = sum(e, dim=N)\n"
                               "  sb = broadcast(s, [M, N])\n  r = div(e, sb)\n  write(r, y)\n";
    sg_template *t = NULL;
    st = sg_template_parse("mine.sgt", mine, sizeof mine - 1, &t, &d);
    co.softmax = t;
    if (!st)
      st = sg_mlir_compile_text("cache.mlir", src, strlen(src), &co, NULL, &r, &d);
    check(st == SG_OK && r.nkernels == 2 &&
              strcmp(r.kernels[0].name, "softgen_mysoftmax_f32_n256") == 0 &&
              r.kernels[0].stats.cache_dir[0] == '\0' && r.kernels[0].stats.ms_parse < 0,
          "a parsed template: its kernel, uncached");
    if (st)
      printf("# %s\n", d.message);
    sg_mlir_report_free(&r);
    sg_template_destroy(t);
  }

  /* the pass through the C API: in a pass manager, on a fresh copy of src;
   * its options are copied (the caller's arch buffer changes after); a
   * failing compile fails the run and leaves the module as it was */
  {
    char arch[16] = "sm_90";
    sg_mlir_options po = {.arch = arch, .format = SG_MLIR_FORMAT_ASSEMBLY};
    MlirPass pass = sg_mlir_create_pass(&po);
    strcpy(arch, "sm_12345");
    MlirPass bad = sg_mlir_create_pass(&po);
    check(pass.ptr && bad.ptr, "sg_mlir_create_pass makes passes");
    MlirModule pm_mod = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(src));
    MlirPassManager pm = mlirPassManagerCreate(ctx);
    mlirPassManagerAddOwnedPass(pm, pass);
    MlirLogicalResult res = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(pm_mod));
    check(mlirLogicalResultIsSuccess(res) && count(pm_mod, "gpu.launch_func") == 2 &&
              count(pm_mod, "linalg.softmax") == 1 && count(pm_mod, "gpu.binary") == 2,
          "the pass in a pass manager: 2 launches, the dynamic softmax left");
    mlirPassManagerDestroy(pm);
    mlirModuleDestroy(pm_mod);
    pm_mod = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(src));
    pm = mlirPassManagerCreate(ctx);
    mlirPassManagerAddOwnedPass(pm, bad);
    res = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(pm_mod));
    check(mlirLogicalResultIsFailure(res) && count(pm_mod, "linalg.softmax") == 3 &&
              count(pm_mod, "gpu.binary") == 0,
          "a failing compile fails the pass; the module is unchanged");
    mlirPassManagerDestroy(pm);
    mlirModuleDestroy(pm_mod);
  }

  printf("%d passed, %d failed\n", passes, failures);
  mlirOperationPrint(mlirModuleGetOperation(m), put, stdout);
  printf("\n");
  mlirModuleDestroy(m);
  mlirContextDestroy(ctx);
  return failures != 0;
}
