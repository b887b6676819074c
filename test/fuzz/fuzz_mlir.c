/* libFuzzer target: the MLIR front end's import (lib/mlir) on arbitrary bytes.
 * The input is parsed as an MLIR module (MLIR's own parser, in one context
 * with every dialect registered, renewed every 256 inputs so that uniqued
 * types do not pile up); a module that parses and verifies goes through
 * sg_mlir_compile_module with analyze_only: every linalg.softmax found and
 * classified, its location formatted, nothing generated (LLVM's O3 and ptxas
 * per input would make the target a few executions a second); where that
 * finds nothing to generate, the full call too (raising decomposed softmax
 * chains, an empty rewrite, verification). A parse error
 * must come back through the diagnostic handler. Inputs over 16 KiB are
 * skipped (MLIR's parser is not the subject). Built by -DSOFTGEN_FUZZ=ON with
 * clang when MLIR is found; run by test/fuzz/run.sh. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/RegisterEverything.h"
#include "softgen/mlir.h"

static MlirContext ctx;
static int uses;

static MlirLogicalResult quiet(MlirDiagnostic d, void *user) {
  (void)d;
  (void)user;
  return mlirLogicalResultSuccess();
}

static void renew_context(void) {
  if (!mlirContextIsNull(ctx))
    mlirContextDestroy(ctx);
  MlirDialectRegistry reg = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(reg);
  ctx = mlirContextCreateWithRegistry(reg, false);
  mlirDialectRegistryDestroy(reg);
  mlirContextAttachDiagnosticHandler(ctx, quiet, NULL, NULL);
  uses = 0;
}

/* A module of one linalg.softmax whose shape, dims, element type, layout and
 * memory space come from the input's bytes (most raw inputs never parse, so
 * this is what reaches the classification). Returns the text's length. */
static size_t synthesize(const uint8_t *data, size_t size, char *out, size_t cap) {
  static const char *const types[] = {"f16", "bf16", "f32", "f64", "i8", "f8E4M3FN"};
  size_t at = 0;
#define BYTE() (at < size ? data[at++] : 0)
  unsigned rank = 1 + BYTE() % 4, dim = BYTE() % (rank + 1) % rank;
  const char *et = types[BYTE() % 6];
  unsigned flags = BYTE(); /* 1: tensor, 2: strided, 4: dynamic offset, 8: space 3 */
  char shape[128] = "", strides[160] = "";
  size_t sl = 0, tl = 0;
  for (unsigned i = 0; i < rank; i++) {
    unsigned b = BYTE(), s = BYTE();
    int64_t d = b == 255 ? -1 : b < 8 ? b : b < 200 ? 8 * (b - 6) : (int64_t)b << (b % 24);
    int64_t st = s == 255 ? -1 : s < 128 ? s : (int64_t)s << (s % 20);
    sl += (size_t)snprintf(shape + sl, sizeof shape - sl, d < 0 ? "?x" : "%lldx", (long long)d);
    tl += (size_t)snprintf(strides + tl, sizeof strides - tl, st < 0 ? "%s?" : "%s%lld",
                           i ? ", " : "", (long long)st);
  }
#undef BYTE
  char type[512];
  if (flags & 1)
    snprintf(type, sizeof type, "tensor<%s%s>", shape, et);
  else
    snprintf(type, sizeof type, "memref<%s%s%s%s%s%s%s>", shape, et,
             flags & 2 ? ", strided<[" : "", flags & 2 ? strides : "",
             flags & 2 ? (flags & 4 ? "], offset: ?>" : "], offset: 4>") : "",
             flags & 8 ? ", 3" : "", "");
  if (flags & 1)
    return (size_t)snprintf(out, cap,
                            "func.func @f(%%x: %s, %%y: %s) -> %s {\n  %%r = linalg.softmax "
                            "dimension(%u) ins(%%x : %s) outs(%%y : %s) -> %s\n  return %%r : "
                            "%s\n}\n",
                            type, type, type, dim, type, type, type, type);
  return (size_t)snprintf(out, cap,
                          "func.func @f(%%x: %s, %%y: %s) {\n  linalg.softmax dimension(%u) "
                          "ins(%%x : %s) outs(%%y : %s)\n  return\n}\n",
                          type, type, dim, type, type);
}

static void run(const char *text, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 16384)
    return 0;
  if (mlirContextIsNull(ctx) || ++uses > 256)
    renew_context();
  char synth[2048];
  size_t n = synthesize(data, size, synth, sizeof synth);
  if (n < sizeof synth)
    run(synth, n);
  /* MLIR's lexer reads up to a NUL, past the length it was given: the bytes
   * go in NUL-terminated (found by this target, as a read past libFuzzer's
   * buffer inside mlir::OperationName; sg_mlir_compile_text copies too) */
  char *text = malloc(size + 1);
  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  run(text, size);
  free(text);
  return 0;
}

/* Parses text (NUL-terminated at size) and classifies its softmax ops. */
static void run(const char *text, size_t size) {
  sg_diag cd; /* what MLIR's parser would not survive, as sg_mlir_compile_text refuses it */
  if (sg_mlir_check_text("fuzz", text, size, &cd) != SG_OK)
    return;
  MlirModule m = mlirModuleCreateParse(ctx, (MlirStringRef){text, size});
  if (mlirModuleIsNull(m))
    return;
  sg_mlir_options o = {.analyze_only = 1};
  sg_mlir_report r;
  sg_diag d;
  sg_status st = sg_mlir_compile_module(m, &o, &r, &d);
  if (st == SG_OK) {
    for (int i = 0; i < r.nops; i++) {
      const sg_mlir_op *op = &r.ops[i];
      /* M: at least 1, or -1 (dynamic dims before the reduced dim: counted at run time);
       * N: at least 1, or -1 (a dynamic innermost reduced dim: kernels for ranges of N) */
      if (op->status == SG_OK &&
          ((op->n < 1 && !(op->n == -1 && op->inner == 1)) ||
           (op->m < 1 && !(op->m == -1 && op->outer == -1)) || op->message[0] ||
           !op->has_dtype)) {
        fprintf(stderr, "fuzz_mlir: op %d at %s is compilable with N %lld, M %lld: %s\n", i,
                op->location, (long long)op->n, (long long)op->m, op->message);
        abort();
      }
      if (op->status != SG_OK && !op->message[0]) {
        fprintf(stderr, "fuzz_mlir: op %d at %s is left without a reason\n", i, op->location);
        abort();
      }
    }
  }
  /* nothing to generate: the whole path (raising decomposed chains, import,
   * an empty rewrite, verification) is cheap, so run it too */
  int compilable = st != SG_OK;
  for (int i = 0; i < r.nops; i++)
    compilable |= r.ops[i].status == SG_OK;
  sg_mlir_report_free(&r);
  if (!compilable) {
    o.analyze_only = 0;
    o.format = SG_MLIR_FORMAT_ASSEMBLY;
    if (sg_mlir_compile_module(m, &o, &r, &d) == SG_OK && r.nkernels) {
      fprintf(stderr, "fuzz_mlir: %d kernels where analysis found nothing to compile\n", r.nkernels);
      abort();
    }
    sg_mlir_report_free(&r);
  }
  mlirModuleDestroy(m);
}
