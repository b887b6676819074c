/* rows_registers.c - the registers row strategy (codegen/rows.h; neither
 * staged nor tiled): a thread loads its `chunks` vectors of the row once, at
 * the top of the row block, and holds them and every row value built from
 * them in registers across the reductions (SGC_BUILD_AT_OP). The same code
 * serves one row a block, several rows a block (a thread or a wave a row),
 * and a cluster's blocks sharing a row: those differ in addressing
 * (codegen/address.c) and in the reduction tree (codegen/reduce.c) only.
 * With prefetch (rows_in_flight 2, a persistent grid) the next row block is
 * loaded while this one computes: the loads of the first one before the
 * loop, of the next one at the top of each trip, carried by phis.
 *
 * Needs: codegen/address.c's loads. Produces: sgc_rows_registers. */
#include "codegen/rows.h"

typedef struct registers {
  LLVMValueRef *raw[SGT_MAX_OPS]; /* read ops: the loaded vectors of this row block */
  /* per read (in w->read_ops order), per chunk: this row block's loads and,
   * with prefetch, those before the loop and those of the next row block */
  LLVMValueRef cur[SGT_MAX_OPS][SGC_MAX_CHUNKS];
  LLVMValueRef first[SGT_MAX_OPS][SGC_MAX_CHUNKS], next[SGT_MAX_OPS][SGC_MAX_CHUNKS];
} registers;

static void entry(sgc_walk *w) {
  sgc_chunk_columns(w->cx, &w->a, NULL, w->cx->plan->chunks, (uint64_t)w->cx->plan->tile_n);
}

static void load_reads(sgc_walk *w, LLVMValueRef row, LLVMValueRef (*into)[SGC_MAX_CHUNKS]) {
  for (unsigned r = 0; r < w->nreads; r++)
    sgc_load_row(w->cx, &w->a, &w->cx->t->ops[w->read_ops[r]], row, into[r]);
}

static void ahead(sgc_walk *w, LLVMValueRef row) {
  load_reads(w, row, ((registers *)w->own)->first);
}

/* With prefetch, this row block's vectors are phis: the loads before the
 * loop, or those of the next row block in the last trip. */
static void phis(sgc_walk *w) {
  registers *s = w->own;
  for (unsigned r = 0; w->cx->plan->prefetch && r < w->nreads; r++)
    for (unsigned c = 0; c < w->cx->plan->chunks; c++)
      s->cur[r][c] = LLVMBuildPhi(w->cx->b, LLVMTypeOf(s->first[r][c]), "x.cur");
}

static void begin(sgc_walk *w, LLVMValueRef next, LLVMValueRef more) {
  registers *s = w->own;
  (void)more; /* on the last trip `next` is this row block again: loaded, unused */
  load_reads(w, next ? next : w->a.row_clamped, next ? s->next : s->cur);
  for (unsigned r = 0; r < w->nreads; r++)
    s->raw[w->read_ops[r]] = s->cur[r];
}

static void end(sgc_walk *w, LLVMBasicBlockRef from[2]) {
  registers *s = w->own;
  for (unsigned r = 0; w->cx->plan->prefetch && r < w->nreads; r++)
    for (unsigned c = 0; c < w->cx->plan->chunks; c++) {
      LLVMValueRef v[2] = {s->first[r][c], s->next[r][c]};
      LLVMAddIncoming(s->cur[r][c], v, from, 2);
    }
}

static LLVMValueRef read_raw(sgc_walk *w, const sgt_op *op, unsigned c) {
  return ((registers *)w->own)->raw[op - w->cx->t->ops][c];
}

const sgc_rows sgc_rows_registers = {
    .own_size = sizeof(registers),
    .build = SGC_BUILD_AT_OP,
    .entry = entry,
    .ahead = ahead,
    .phis = phis,
    .begin = begin,
    .walk = sgc_walk_ops,
    .end = end,
    .read = read_raw,
};
