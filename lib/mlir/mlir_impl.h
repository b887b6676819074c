/* mlir/mlir_impl.h - what the files of lib/mlir share (internal, prefix sgm_).
 *
 * The calls go one way, down this list; no file calls one above it, and no
 * stage calls another stage:
 *
 *   mlir.c     the public entry points (include/softgen/mlir.h): bounds the
 *              nesting, parses text, captures diagnostics, then runs the
 *              stages in this order on one sgm_state:
 *   recognize.c  1. find every linalg.softmax and every softmax / log-softmax
 *                   chain frontends emit (s->sites); the module is untouched
 *   import.c     2. classify every site (report->ops)
 *   kernels.c    3. one code object per distinct kernel, through the driver
 *                   (driver/driver.h, softgen/compile.h), and each op's launch
 *                   geometry (sgrt_launch_geometry, softgen/runtime.h)
 *   rewrite.c    4. gpu.binary + gpu.launch_func in place of each compiled site
 *   diag.c     used by all of the above: MLIR diagnostics into sg_diag,
 *              locations as file:line:col, printer text into buffers
 *   pass.c     above mlir.c: the entry point as an MLIR pass of the C API
 *              (sg_mlir_create_pass); plugin.cpp, the same for mlir-opt's
 *              plugin interface (C++), built apart as softgen-mlir-plugin.so
 *
 * Each stage reads what the stages before it left in sgm_state (and its
 * report) and returns; only mlir.c sequences them. */
#ifndef SG_INTERNAL_MLIR_IMPL_H
#define SG_INTERNAL_MLIR_IMPL_H

#include <stdint.h>

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "softgen/mlir.h"

/* ---- diag.c ---- */

/* Text from MLIR's printers into a fixed buffer (truncated, NUL-terminated). */
typedef struct sgm_text {
  char *buf;
  size_t cap, len;
} sgm_text;
void sgm_text_put(MlirStringRef s, void *text);

/* Captures MLIR's diagnostics of a context into an sg_diag (first error
 * wins; later errors are counted), silencing MLIR's default printing. */
typedef struct sgm_capture {
  MlirContext ctx;
  MlirDiagnosticHandlerID id;
  sg_diag *diag;
  const char *file; /* name for locations without one */
  int errors;
} sgm_capture;

void sgm_capture_begin(sgm_capture *c, MlirContext ctx, sg_diag *diag, const char *file);
void sgm_capture_end(sgm_capture *c);

/* Formats loc as "file:line:col" (unwrapping name, call-site and fused
 * locations), else MLIR's own text of it. file (may be NULL) replaces the
 * name of a buffer parsed from memory ("-" or empty). */
void sgm_location_format(MlirLocation loc, const char *file, char *buf, size_t cap);

/* ---- the state the stages share ---- */

/* A softmax-family computation of the module (recognize.c). */
#define SGM_MAX_CHAIN_OPS 64
typedef struct sgm_site {
  MlirOperation anchor;  /* the linalg.softmax, or a chain's last op (the launch goes there) */
  int softmax_op;        /* 1: a linalg.softmax (x and y are its operands) */
  int raised;            /* 1: a chain */
  int log;               /* 1: log_softmax */
  MlirValue x, y;        /* chains: the input and the result, tensors or buffers' roots */
  MlirOperation x_ver;   /* chains on buffers: x's last write before the chain (null: none) */
  int dim;               /* chains: the reduced dim */
  int order;             /* the anchor's place in the module (a post-order walk of linalg ops) */
  MlirOperation ops[SGM_MAX_CHAIN_OPS]; /* chains: their ops but the anchor, x's excluded */
  int nops;
} sgm_site;

/* A row stride that is the run-time N (dense rows of a dynamic reduced dim). */
#define SGM_RUN_TIME_N (-1)

/* What the rewrite needs of one op beyond its sg_mlir_op (same index). */
typedef struct sgm_op {
  MlirOperation op;          /* the anchor */
  const sgm_site *site;
  MlirValue value[2];       /* the input and output (memrefs, or tensors: x and the result) */
  int64_t stride[2];        /* their row strides, in elements (SGM_RUN_TIME_N: N, at run time) */
  int64_t offset[2];        /* their static offsets, in elements */
  int64_t nstride[2];       /* inner layout (inner > 1): their strides along N */
  int staged[2];            /* read / written through a copy in device memory */
} sgm_op;

/* One compilation of one module. */
typedef struct sgm_state {
  MlirContext ctx;
  MlirModule module;
  const sg_mlir_options *opts;
  sg_mlir_report *report;
  sgm_op *ops; /* report->nops of them */
  int cap;
  const char *file; /* name for locations without a file name (parsed text) */
  sgm_site *sites;  /* recognize.c's */
  int nsites, cap_sites;
} sgm_state;

/* ---- the stages, in the order mlir.c runs them ---- */

/* 1. recognize.c: fills s->sites with every linalg.softmax and every softmax
 * or log-softmax chain of linalg ops (on tensors or buffers) of the module
 * (unless opts->keep_decomposed); changes nothing. */
sg_status sgm_recognize(sgm_state *s, sg_diag *diag);

/* 2. import.c: fills report->ops / s->ops with every site, classified:
 * status SG_OK when softgen can compile it, else the reason. */
sg_status sgm_import(sgm_state *s, sg_diag *diag);
/* The identity-layout memref a tensor of type t becomes (import.c). */
MlirType sgm_memref_of(MlirType t);

/* 3. kernels.c: generates the kernels of every SG_OK op (report->kernels)
 * and fills its launch geometry; an op whose problem the plan rejects, or
 * whose strides the kernel cannot take, gets that status and stays. Hard
 * errors (tools, LLVM) are returned. */
sg_status sgm_kernels(sgm_state *s, sg_diag *diag);

/* 4. rewrite.c: rewrites the module: gpu.binary per kernel, launch per
 * compiled op. */
sg_status sgm_rewrite(sgm_state *s, sg_diag *diag);

/* The built-in softmax and log_softmax templates (kernels-templates/ .sgt files,
 * embedded at build time by lib/mlir/CMakeLists.txt). */
extern const char sgm_softmax_sgt[];
extern const char sgm_log_softmax_sgt[];

static inline MlirStringRef sgm_str(const char *s) { return mlirStringRefCreateFromCString(s); }

#endif
