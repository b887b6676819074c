// plugin.cpp - softgen-lower-softmax, softgen's pass as an MLIR pass plugin:
//
//   mlir-opt --load-pass-plugin=PREFIX/lib/softgen/softgen-mlir-plugin.so
//            --pass-pipeline='builtin.module(softgen-lower-softmax{target=nvptx arch=sm_90 emit=asm})'
//
// Upstream's plugin ABI (mlirGetPassPluginInfo, PassWrapper) is C++; this
// file is only that: it parses the options, declares the dialects the rewrite
// creates, and calls sg_mlir_compile_module (include/softgen/mlir.h, C). Ops
// left as they are become warnings at their locations; an error fails the
// pass. C and Python pass managers use sg_mlir_create_pass (pass.c) instead.
#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "softgen/mlir.h"

namespace {

struct LowerSoftmax : public mlir::PassWrapper<LowerSoftmax, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerSoftmax)

  LowerSoftmax() = default;
  LowerSoftmax(const LowerSoftmax &other) : PassWrapper(other) {}

  llvm::StringRef getArgument() const final { return "softgen-lower-softmax"; }
  llvm::StringRef getDescription() const final {
    return "Replace softmax (linalg.softmax and the softmax / log-softmax chains of linalg ops "
           "that frontends emit) by gpu.launch_func of softgen's kernels";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const final {
    registry.insert<mlir::arith::ArithDialect, mlir::bufferization::BufferizationDialect,
                    mlir::cf::ControlFlowDialect, mlir::gpu::GPUDialect, mlir::LLVM::LLVMDialect,
                    mlir::memref::MemRefDialect, mlir::NVVM::NVVMDialect,
                    mlir::ROCDL::ROCDLDialect, mlir::scf::SCFDialect>();
  }

  Option<std::string> target{*this, "target", llvm::cl::desc("nvptx or amdgpu"),
                             llvm::cl::init("nvptx")};
  Option<std::string> arch{*this, "arch",
                           llvm::cl::desc("e.g. sm_90 or gfx942 (default: the target's)"),
                           llvm::cl::init("")};
  Option<std::string> emit{*this, "emit",
                           llvm::cl::desc("what each gpu.object holds: auto (the code object; "
                                          "PTX where ptxas is missing), object, asm (PTX)"),
                           llvm::cl::init("auto")};

  Option<std::string> memory{*this, "memory",
                             llvm::cl::desc("where the module's buffers and tensors live: host "
                                            "(copies to the device and back around each launch "
                                            "for what is not known to be device memory) or "
                                            "device (read and written in place)"),
                             llvm::cl::init("host")};

  Option<long long> maxN{*this, "max-n",
                         llvm::cl::desc("the longest row of a dynamic reduced dim: kernels for "
                                        "the ranges of N up to it only (0: 2^31-1)"),
                         llvm::cl::init(0)};

  void runOnOperation() final {
    sg_mlir_options o = {};
    o.max_n = maxN; /* checked by the front end */
    if (memory != "host" && memory != "device") {
      getOperation().emitError() << "softgen-lower-softmax: memory=" << memory
                                 << " is not one of host, device";
      return signalPassFailure();
    }
    o.device_memory = memory == "device";
    o.target = target.c_str();
    o.arch = arch.empty() ? nullptr : arch.c_str();
    if (emit == "auto") {
      o.format = SG_MLIR_FORMAT_AUTO;
    } else if (emit == "object") {
      o.format = SG_MLIR_FORMAT_OBJECT;
    } else if (emit == "asm") {
      o.format = SG_MLIR_FORMAT_ASSEMBLY;
    } else {
      getOperation().emitError() << "softgen-lower-softmax: emit=" << emit
                                 << " is not one of auto, object, asm";
      return signalPassFailure();
    }
    sg_mlir_report r;
    sg_diag d;
    sg_status st = sg_mlir_compile_module(wrap(getOperation()), &o, &r, &d);
    for (int i = 0; !st && i < r.nops; i++)
      if (!r.ops[i].compiled)
        mlir::emitWarning(unwrap(r.ops[i].loc))
            << "softgen: "
            << (r.ops[i].raised ? std::string(r.ops[i].template_name) + " (a chain of linalg ops)"
                                : std::string("linalg.softmax"))
            << " left as it is: " << r.ops[i].message;
    if (!st && r.warning[0])
      getOperation().emitWarning() << "softgen: " << r.warning;
    if (st) {
      getOperation().emitError() << "softgen: " << d.message;
      signalPassFailure();
    }
    sg_mlir_report_free(&r);
  }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK __attribute__((visibility("default"))) mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "softgen", SOFTGEN_VERSION,
          [] { mlir::PassRegistration<LowerSoftmax>(); }};
}
