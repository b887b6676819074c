/* An outside compiler: parses a module with MLIR's C API, runs softgen's pass
 * (sg_mlir_create_pass) in its own pass manager, and prints what it became. */
#include <stdio.h>

#include "mlir-c/RegisterEverything.h"
#include "softgen/mlir.h"

static const char *const src =
    "func.func @f(%x: memref<64x256xf32>, %y: memref<64x256xf32>) {\n"
    "  linalg.softmax dimension(1) ins(%x : memref<64x256xf32>) outs(%y : memref<64x256xf32>)\n"
    "  return\n"
    "}\n";

static MlirWalkResult count(MlirOperation op, void *user) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (mlirStringRefEqual(name, mlirStringRefCreateFromCString("gpu.launch_func")))
    ++*(int *)user;
  return MlirWalkResultAdvance;
}

int main(void) {
  MlirDialectRegistry reg = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(reg);
  MlirContext ctx = mlirContextCreateWithRegistry(reg, false);
  mlirDialectRegistryDestroy(reg);
  MlirModule m = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(src));
  if (mlirModuleIsNull(m))
    return 1;
  sg_mlir_options o = {.format = SG_MLIR_FORMAT_ASSEMBLY, .no_cache = 1};
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  mlirPassManagerAddOwnedPass(pm, sg_mlir_create_pass(&o));
  MlirLogicalResult r = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(m));
  int launches = 0;
  mlirOperationWalk(mlirModuleGetOperation(m), count, &launches, MlirWalkPreOrder);
  printf("pass %s, %d launch\n", mlirLogicalResultIsSuccess(r) ? "ok" : "failed", launches);
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(m);
  mlirContextDestroy(ctx);
  return mlirLogicalResultIsSuccess(r) && launches == 1 ? 0 : 1;
}
