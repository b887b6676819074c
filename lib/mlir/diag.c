/* diag.c - what every file of lib/mlir uses (the bottom of mlir_impl.h's
 * order): MLIR's diagnostics captured into an sg_diag, locations formatted as
 * file:line:col, and text from MLIR's printers into fixed buffers.
 *
 * Needs: the MLIR C API. Produces: sgm_capture_begin / sgm_capture_end,
 * sgm_location_format, sgm_text_put. Calls nothing else of lib/mlir. */
#include <stdio.h>
#include <string.h>

#include "mlir/mlir_impl.h"

void sgm_text_put(MlirStringRef s, void *user) {
  sgm_text *b = user;
  if (b->len + 1 >= b->cap)
    return;
  size_t n = s.length < b->cap - 1 - b->len ? s.length : b->cap - 1 - b->len;
  memcpy(b->buf + b->len, s.data, n);
  b->len += n;
  b->buf[b->len] = '\0';
}

/* The first location inside loc that is a file:line:col (or, with name, a
 * name), or 0. Bounded in depth (16) and in locations visited (*budget):
 * fused locations may share children, so a small module could otherwise make
 * the search exponential. */
static int find_loc(MlirLocation loc, int name, MlirLocation *out, int depth, int *budget) {
  if (depth > 16 || --*budget < 0 || mlirLocationIsNull(loc))
    return 0;
  if (name ? mlirLocationIsAName(loc) : mlirLocationIsAFileLineColRange(loc)) {
    *out = loc;
    return 1;
  }
  if (mlirLocationIsAName(loc))
    return find_loc(mlirLocationNameGetChildLoc(loc), name, out, depth + 1, budget);
  if (mlirLocationIsACallSite(loc))
    return find_loc(mlirLocationCallSiteGetCallee(loc), name, out, depth + 1, budget) ||
           find_loc(mlirLocationCallSiteGetCaller(loc), name, out, depth + 1, budget);
  if (mlirLocationIsAFused(loc)) {
    intptr_t n = mlirLocationFusedGetNumLocations(loc);
    if (n <= 0 || n > 64)
      return 0;
    MlirLocation locs[64];
    mlirLocationFusedGetLocations(loc, locs);
    for (intptr_t i = 0; i < n; i++)
      if (find_loc(locs[i], name, out, depth + 1, budget))
        return 1;
  }
  return 0;
}

/* MLIR names a file parsed from memory "-"; file (when given) replaces that.
 * A location with no file:line:col inside is given by its first name, or by
 * MLIR's text when it nests nothing (printing a fused or call-site location
 * prints every location under it, exponentially many when they share). */
void sgm_location_format(MlirLocation loc, const char *file, char *buf, size_t cap) {
  MlirLocation fl;
  if (cap == 0)
    return;
  buf[0] = '\0';
  int budget = 1024;
  if (find_loc(loc, 0, &fl, 0, &budget)) {
    MlirStringRef name = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(fl));
    int len = (int)(name.length < 400 ? name.length : 400);
    if (file && (len == 0 || (len == 1 && name.data[0] == '-'))) /* parsed text: no name */
      snprintf(buf, cap, "%s:%d:%d", file, mlirLocationFileLineColRangeGetStartLine(fl),
               mlirLocationFileLineColRangeGetStartColumn(fl));
    else
      snprintf(buf, cap, "%.*s:%d:%d", len, name.data,
               mlirLocationFileLineColRangeGetStartLine(fl),
               mlirLocationFileLineColRangeGetStartColumn(fl));
    return;
  }
  budget = 1024;
  if (find_loc(loc, 1, &fl, 0, &budget)) {
    MlirStringRef name = mlirIdentifierStr(mlirLocationNameGetName(fl));
    snprintf(buf, cap, "%s: \"%.*s\"", file ? file : "<unknown>",
             (int)(name.length < 400 ? name.length : 400), name.data);
    return;
  }
  sgm_text b = {buf, cap, 0};
  if (!mlirLocationIsNull(loc) && !mlirLocationIsAFused(loc) && !mlirLocationIsACallSite(loc))
    mlirLocationPrint(loc, sgm_text_put, &b);
  if (b.len == 0)
    snprintf(buf, cap, "%s", file ? file : "<unknown>");
}

static MlirLogicalResult capture_handler(MlirDiagnostic d, void *user) {
  sgm_capture *c = user;
  if (mlirDiagnosticGetSeverity(d) != MlirDiagnosticError)
    return mlirLogicalResultSuccess(); /* warnings, notes, remarks: dropped */
  if (c->errors++ == 0 && c->diag) {
    char where[512], text[700];
    sgm_text b = {text, sizeof text, 0};
    text[0] = '\0';
    sgm_location_format(mlirDiagnosticGetLocation(d), c->file, where, sizeof where);
    mlirDiagnosticPrint(d, sgm_text_put, &b);
    sg_diag_set(c->diag, SG_ERR_PARSE, "%s: %s", where, text);
  }
  return mlirLogicalResultSuccess();
}

void sgm_capture_begin(sgm_capture *c, MlirContext ctx, sg_diag *diag, const char *file) {
  c->ctx = ctx;
  c->diag = diag;
  c->file = file;
  c->errors = 0;
  c->id = mlirContextAttachDiagnosticHandler(ctx, capture_handler, c, NULL);
}

void sgm_capture_end(sgm_capture *c) { mlirContextDetachDiagnosticHandler(c->ctx, c->id); }
