/* libFuzzer target: the MLIR front end's import (lib/mlir) on arbitrary bytes.
 * The input is parsed as an MLIR module (MLIR's own parser, in one context
 * with every dialect registered, renewed every 256 inputs so that uniqued
 * types do not pile up); a module that parses and verifies goes through
 * sg_mlir_compile_module with analyze_only: every linalg.softmax found and
 * classified, its location formatted, nothing generated (LLVM's O3 and ptxas
 * per input would make the target a few executions a second). A parse error
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 16384)
    return 0;
  if (mlirContextIsNull(ctx) || ++uses > 256)
    renew_context();
  MlirModule m = mlirModuleCreateParse(ctx, (MlirStringRef){(const char *)data, size});
  if (mlirModuleIsNull(m))
    return 0;
  sg_mlir_options o = {.analyze_only = 1};
  sg_mlir_report r;
  sg_diag d;
  sg_status st = sg_mlir_compile_module(m, &o, &r, &d);
  if (st == SG_OK) {
    for (int i = 0; i < r.nops; i++) {
      const sg_mlir_op *op = &r.ops[i];
      if (op->status == SG_OK && (op->n < 1 || op->m < 1 || op->message[0] || !op->has_dtype)) {
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
  sg_mlir_report_free(&r);
  mlirModuleDestroy(m);
  return 0;
}
