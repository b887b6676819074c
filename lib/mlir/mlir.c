/* mlir.c - softgen's MLIR front end: the entry points of include/softgen/mlir.h.
 *
 * Needs: an MLIR module (or its text) and sg_mlir_options; the stages and
 * diag.c of mlir_impl.h, which it runs in order (nothing calls back into this
 * file). Produces: the module rewritten in place, an sg_mlir_report, and (for
 * text) the printed module.
 *
 * Design choices:
 * - The MLIR *C* API only (libMLIRCAPI*.a over libMLIR.so of LLVM 22), so the
 *   project stays C11; ops are built generically with mlirOperationCreate and
 *   attributes parsed with mlirAttributeParseGet where that is simplest.
 * - One op = one kernel launch. Kernels are keyed by their name (template,
 *   dtype, N: sg_plan_kernel_name), so ops of the same row length and dtype
 *   share one code object; M is a run-time argument, passed as an i64
 *   constant (shapes are static).
 * - Kernels come from the driver (softgen/compile.h), the pipeline's one
 *   caller, with its cache and stats; the MLIR front end never runs a stage
 *   of the pipeline itself.
 * - The launch follows the code object's own metadata (softgen/meta.h), read
 *   back with sg_meta_find exactly as the runtime does: arguments in "arg"
 *   order, and grid, block, cluster from the runtime's own rule
 *   (sgrt_launch_geometry). Persistent kernels get the uncapped grid (correct,
 *   as every grid of whole clusters is; MLIR cannot ask the device for its
 *   resident block count at this point).
 * - Tensors are passed as !llvm.ptr built from
 *   memref.extract_aligned_pointer_as_index (+ the static offset), not as
 *   memrefs, so the result does not depend on gpu-to-llvm's
 *   use-bare-pointers-for-kernels option: the kernel sees exactly its
 *   parameters. The caller guarantees the base alignment (vector_bytes, at
 *   most 16 bytes); static strides and offsets are checked here.
 * - What softgen cannot take stays in the module, reported with its location
 *   and reason (never dropped): dynamic shapes, other dtypes, a reduced dim
 *   with non-unit dims inside it that are not contiguous, layouts whose rows
 *   do not collapse to one stride, ops in device code, problems the plan
 *   rejects.
 * - All or nothing on errors: the kernels are generated and every attribute
 *   built before the module is touched; a hard error (ptxas failing, LLVM)
 *   leaves the module unchanged. The rewritten module is verified.
 * - MLIR's diagnostics are captured (first error into sg_diag with its
 *   file:line:col) for the duration of each call.
 * - Nesting is bounded (SGM_MAX_DEPTH levels): MLIR's parser recurses once per
 *   level of regions, types and attributes, its walks, verifier and printer
 *   once per level of ops, so a deep enough input overflows the stack (a
 *   module nested 20,000 deep did, as it does in mlir-opt). Text is measured
 *   before it is parsed, a module given by the caller before it is walked. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/RegisterEverything.h"
#include "mlir/mlir_impl.h"

void sg_mlir_report_free(sg_mlir_report *r) {
  if (!r)
    return;
  for (int k = 0; k < r->nkernels; k++)
    sg_buffer_free(&r->kernels[k].object);
  free(r->kernels);
  free(r->ops);
  memset(r, 0, sizeof *r);
}

/* Deepest nesting softgen accepts: regions of ops in a module, brackets in
 * its text. Real modules nest a few dozen levels; MLIR's recursion takes a few
 * KiB of stack a level. */
#define SGM_MAX_DEPTH 256

/* Line and column (1-based) of byte off of p. */
static void position(const char *p, size_t off, unsigned *line, unsigned *col) {
  *line = *col = 1;
  for (size_t i = 0; i < off; i++)
    if (p[i] == '\n')
      ++*line, *col = 1;
    else
      ++*col;
}

static int ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '$';
}

/* Whitespace as MLIR's lexer sees it: a NUL before the text's end separates
 * tokens as a space does (found by fuzz_mlir: `permutation` and `= [1,` apart
 * by NULs crashed the parser past this check). */
static int lexer_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0';
}

/* A // comment ends at a line feed or a carriage return, as in MLIR's lexer
 * (found by CI's fuzz_mlir: a comment taken to run on past a '\r' to the line's
 * end hid the malformed list that followed it). */
static int comment_end(char c) { return c == '\n' || c == '\r'; }

/* The offset of the first byte from j on that is neither whitespace nor in a
 * // comment (the lexer skips both between tokens; found by CI's fuzz_mlir: a
 * comment between `outs(...)` and `permutation` hid a malformed list). */
static size_t skip_space(const char *p, size_t len, size_t j) {
  for (;;) {
    while (j < len && lexer_space(p[j]))
      j++;
    if (j + 1 < len && p[j] == '/' && p[j + 1] == '/') {
      while (j < len && !comment_end(p[j]))
        j++;
      continue;
    }
    return j;
  }
}

/* MLIR 22's parsers of linalg.broadcast, reduce and transpose crash (a null
 * attribute stored) on anything but a well-formed list after `dimensions =`
 * or `permutation =` in their custom syntax (after `outs(...)`): mlir-opt
 * does too. Where the word at p[i] is one of those and the token before it
 * (prev: its last byte, comments and whitespace skipped) is a `)`, the offset
 * of the first byte that breaks `= [ int (, int)* ]` or `= [ ]`, its ints of at
 * most 18 decimal or 15 hexadecimal digits (0x1f: MLIR's lexer takes both; len:
 * the text ends first); SIZE_MAX when it is well formed or not such a list. */
static size_t bad_int_list(const char *p, size_t len, size_t i, char prev) {
  static const char *const words[] = {"dimensions", "permutation"};
  size_t j = i;
  while (j < len && ident_char(p[j]))
    j++;
  int match = 0;
  for (size_t w = 0; w < 2 && !match; w++)
    match = j - i == strlen(words[w]) && memcmp(p + i, words[w], j - i) == 0;
  if (!match || prev != ')')
    return SIZE_MAX;
  j = skip_space(p, len, j);
  if (j >= len || p[j] != '=')
    return SIZE_MAX;
  j = skip_space(p, len, j + 1);
  if (j >= len || p[j] != '[')
    return j;
  j = skip_space(p, len, j + 1);
  if (j < len && p[j] == ']')
    return SIZE_MAX;
  for (;;) {
    if (j < len && p[j] == '-')
      j++;
    size_t digits = j;
    /* hexadecimal as the lexer takes it: 0x and a hex digit (0x alone is 0, then x) */
    int hex = j + 2 < len && p[j] == '0' && p[j + 1] == 'x' && isxdigit((unsigned char)p[j + 2]);
    if (hex)
      j += 2;
    size_t first = j;
    while (j < len && (hex ? isxdigit((unsigned char)p[j]) : p[j] >= '0' && p[j] <= '9'))
      j++;
    if (j == first || j - first > (hex ? 15u : 18u)) /* none, or one that may not fit in 64 bits */
      return digits;
    j = skip_space(p, len, j);
    if (j < len && p[j] == ']')
      return SIZE_MAX;
    if (j >= len || p[j] != ',')
      return j;
    j = skip_space(p, len, j + 1);
  }
}

/* What MLIR's parser would not survive, outside string literals and //
 * comments: 1 and the line and column (1-based) of the first bracket ({, (,
 * [, <) that opens level SGM_MAX_DEPTH + 1 ('->' closes nothing; a stray
 * closer only lowers the count, the parser rejects it), or 2 and those of the
 * first byte of a malformed dimensions / permutation list (bad_int_list); 0
 * when there is neither. */
static int check_text(const char *p, size_t len, unsigned *line, unsigned *col) {
  unsigned depth = 0, ln = 1, cl = 1;
  char prev = 0; /* the last byte before p[i] outside whitespace and comments */
  for (size_t i = 0; i < len; i++, cl++) {
    char c = p[i];
    if (c == '\n') {
      ln++;
      cl = 0;
    } else if (c == '"') { /* a string: up to the closing quote (\" escapes it) */
      for (i++, cl++; i < len && p[i] != '"' && p[i] != '\n'; i++, cl++)
        if (p[i] == '\\' && i + 1 < len && p[i + 1] != '\n')
          i++, cl++;
      if (i < len && p[i] == '\n')
        ln++, cl = 0;
    } else if (c == '/' && i + 1 < len && p[i + 1] == '/') {
      while (i + 1 < len && !comment_end(p[i + 1]))
        i++;
      continue; /* a comment: prev stays */
    } else if (((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) && (i == 0 || !ident_char(p[i - 1]))) {
      size_t bad = bad_int_list(p, len, i, prev);
      if (bad != SIZE_MAX) {
        position(p, bad, line, col);
        return 2;
      }
    } else if (c == '{' || c == '(' || c == '[' || c == '<') {
      if (++depth > SGM_MAX_DEPTH) {
        *line = ln;
        *col = cl;
        return 1;
      }
    } else if ((c == '}' || c == ')' || c == ']' || (c == '>' && (i == 0 || p[i - 1] != '-'))) &&
               depth) {
      depth--;
    }
    if (!lexer_space(c))
      prev = c; /* a string's opening quote stands for it */
  }
  return 0;
}

/* The first op of block b or of a later block of region r, or of a later
 * region of r's op; null when there is none. */
static MlirOperation first_op_from(MlirRegion r, MlirBlock b) {
  for (;;) {
    for (; !mlirBlockIsNull(b); b = mlirBlockGetNextInRegion(b))
      if (!mlirOperationIsNull(mlirBlockGetFirstOperation(b)))
        return mlirBlockGetFirstOperation(b);
    if (mlirRegionIsNull(r = mlirRegionGetNextInOperation(r)))
      return (MlirOperation){NULL};
    b = mlirRegionGetFirstBlock(r);
  }
}

/* The first op of root nested more than SGM_MAX_DEPTH ops deep, or null: a
 * walk in constant stack space (parent and sibling links, no recursion). */
static MlirOperation too_deep_module(MlirOperation root) {
  MlirOperation op = root;
  unsigned depth = 0;
  for (;;) {
    MlirRegion r = mlirOperationGetFirstRegion(op);
    MlirOperation child = mlirRegionIsNull(r) ? (MlirOperation){NULL}
                                              : first_op_from(r, mlirRegionGetFirstBlock(r));
    if (!mlirOperationIsNull(child)) { /* down */
      op = child;
      if (++depth > SGM_MAX_DEPTH)
        return op;
      continue;
    }
    for (;;) { /* across, or up until there is a next op */
      if (mlirOperationEqual(op, root))
        return (MlirOperation){NULL};
      MlirOperation next = mlirOperationGetNextInBlock(op);
      if (mlirOperationIsNull(next)) {
        MlirBlock b = mlirOperationGetBlock(op);
        next = first_op_from(mlirBlockGetParentRegion(b), mlirBlockGetNextInRegion(b));
      }
      if (!mlirOperationIsNull(next)) {
        op = next;
        break;
      }
      op = mlirOperationGetParentOperation(op);
      depth--;
    }
  }
}

/* compile_module with MLIR's diagnostics already captured. */
static sg_status compile(MlirModule module, const sg_mlir_options *opts, sg_mlir_report *report,
                         const char *file, sg_diag *diag) {
  static const sg_mlir_options defaults;
  sgm_state s;
  memset(&s, 0, sizeof s);
  s.ctx = mlirModuleGetContext(module);
  s.module = module;
  s.opts = opts ? opts : &defaults;
  s.report = report;
  s.file = file;
  sg_status st = SG_OK;
  if (s.opts->target && strcmp(s.opts->target, "nvptx") != 0 &&
      strcmp(s.opts->target, "amdgpu") != 0)
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED,
                       "the MLIR front end launches GPU kernels (gpu.launch_func): target nvptx "
                       "or amdgpu, not '%s'", s.opts->target);
  if (s.opts->max_n < 0 || s.opts->max_n > 2147483647)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "the longest N of a dynamic reduced dim "
                       "(max_n %lld) must be 1 to 2^31-1, or 0 for no bound",
                       (long long)s.opts->max_n);
  st = sgm_recognize(&s, diag);
  if (!st)
    st = sgm_import(&s, diag);
  /* the dialects the rewrite creates ops and attributes of */
  static const char *const needed[] = {"arith", "bufferization", "cf", "gpu", "llvm", "memref",
                                       "nvvm", "rocdl", "scf"};
  for (size_t i = 0; i < sizeof needed / sizeof needed[0] && !st && !s.opts->analyze_only; i++)
    if (mlirDialectIsNull(mlirContextGetOrLoadDialect(s.ctx, sgm_str(needed[i]))))
      st = sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT,
                       "the MLIR context has no '%s' dialect registered (the rewrite needs arith, "
                       "bufferization, cf, gpu, llvm, memref, nvvm, rocdl, scf)",
                       needed[i]);
  if (!st && !s.opts->analyze_only)
    st = sgm_kernels(&s, diag);
  if (!st && !s.opts->analyze_only)
    st = sgm_rewrite(&s, diag);
  if (!st && report->ncompiled && !mlirOperationVerify(mlirModuleGetOperation(module))) {
    char why[sizeof diag->message];
    snprintf(why, sizeof why, "%s", diag ? diag->message : "");
    st = sg_diag_set(diag, SG_ERR_CODEGEN, "the rewritten module does not verify: %s", why);
  }
  free(s.ops);
  free(s.sites);
  return st;
}

sg_status sg_mlir_compile_module(MlirModule module, const sg_mlir_options *opts,
                                 sg_mlir_report *report, sg_diag *diag) {
  sg_diag_clear(diag);
  if (!report)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_mlir_compile_module: null report");
  memset(report, 0, sizeof *report);
  if (mlirModuleIsNull(module))
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_mlir_compile_module: null module");
  MlirOperation deep = too_deep_module(mlirModuleGetOperation(module));
  if (!mlirOperationIsNull(deep)) {
    char where[512];
    sgm_location_format(mlirOperationGetLocation(deep), NULL, where, sizeof where);
    return sg_diag_set(diag, SG_ERR_UNSUPPORTED, "%s: ops nested more than %d deep: softgen "
                       "takes modules of at most %d levels (MLIR's walks recurse per level)",
                       where, SGM_MAX_DEPTH, SGM_MAX_DEPTH);
  }
  sgm_capture cap;
  sgm_capture_begin(&cap, mlirModuleGetContext(module), diag, NULL);
  sg_status st = compile(module, opts, report, NULL, diag);
  sgm_capture_end(&cap);
  return st;
}

typedef struct growbuf {
  sg_buffer *b;
  size_t cap;
  int failed;
} growbuf;

static void append(MlirStringRef s, void *user) {
  growbuf *g = user;
  if (g->failed)
    return;
  if (g->b->size + s.length + 1 > g->cap) {
    size_t cap = g->cap ? g->cap : 4096;
    while (cap < g->b->size + s.length + 1)
      cap *= 2;
    char *p = realloc(g->b->data, cap);
    if (!p) {
      g->failed = 1;
      return;
    }
    g->b->data = p;
    g->cap = cap;
  }
  memcpy(g->b->data + g->b->size, s.data, s.length);
  g->b->size += s.length;
  g->b->data[g->b->size] = '\0';
}

sg_status sg_mlir_check_text(const char *name, const char *text, size_t len, sg_diag *diag) {
  unsigned line, col;
  if (!text && len)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_mlir_check_text: null text");
  int why = check_text(text, len, &line, &col);
  if (why == 1)
    return sg_diag_set(diag, SG_ERR_PARSE, "%s:%u:%u: nested more than %d levels deep ({, (, "
                       "[, <): softgen takes MLIR text of at most %d levels (MLIR's parser "
                       "recurses per level and would overflow the stack)",
                       name ? name : "<mlir>", line, col, SGM_MAX_DEPTH, SGM_MAX_DEPTH);
  if (why == 2)
    return sg_diag_set(diag, SG_ERR_PARSE, "%s:%u:%u: expected an integer list [i, j, ...] "
                       "(of 64-bit integers) after 'dimensions =' or 'permutation =' (MLIR 22's "
                       "linalg parser crashes on a malformed one)", name ? name : "<mlir>", line,
                       col);
  return SG_OK;
}

sg_status sg_mlir_compile_text(const char *name, const char *text, size_t len,
                               const sg_mlir_options *opts, sg_buffer *out,
                               sg_mlir_report *report, sg_diag *diag) {
  sg_diag_clear(diag);
  if (out)
    memset(out, 0, sizeof *out);
  if (!report || (!text && len))
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_mlir_compile_text: null argument");
  memset(report, 0, sizeof *report);
  sg_status checked = sg_mlir_check_text(name, text, len, diag);
  if (checked)
    return checked;
  MlirDialectRegistry reg = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(reg);
  MlirContext ctx = mlirContextCreateWithRegistry(reg, false);
  mlirDialectRegistryDestroy(reg);
  /* MLIR's lexer reads up to a NUL, past the length it is given: parse a
   * NUL-terminated copy (test/fuzz/fuzz_mlir.c found the overrun) */
  char *copy = malloc(len + 1);
  if (!copy) {
    mlirContextDestroy(ctx);
    return sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory");
  }
  if (len)
    memcpy(copy, text, len);
  copy[len] = '\0';
  sgm_capture cap;
  sgm_capture_begin(&cap, ctx, diag, name ? name : "<mlir>");
  MlirModule m = mlirModuleCreateParse(ctx, (MlirStringRef){copy, len});
  sg_status st = SG_OK;
  if (mlirModuleIsNull(m)) {
    if (!cap.errors)
      sg_diag_set(diag, SG_ERR_PARSE, "%s: not a valid MLIR module", name ? name : "<mlir>");
    st = SG_ERR_PARSE;
  }
  if (!st)
    st = compile(m, opts, report, name ? name : "<mlir>", diag);
  if (!st && out) {
    growbuf g = {out, 0, 0};
    MlirOpPrintingFlags flags = mlirOpPrintingFlagsCreate();
    mlirOpPrintingFlagsEnableDebugInfo(flags, false, false);
    mlirOperationPrintWithFlags(mlirModuleGetOperation(m), flags, append, &g);
    mlirOpPrintingFlagsDestroy(flags);
    append((MlirStringRef){"\n", 1}, &g);
    if (g.failed)
      st = sg_diag_set(diag, SG_ERR_NO_MEMORY, "out of memory printing the module");
  }
  if (st && out)
    sg_buffer_free(out);
  if (!mlirModuleIsNull(m))
    mlirModuleDestroy(m);
  sgm_capture_end(&cap);
  mlirContextDestroy(ctx);
  free(copy);
  return st;
}
