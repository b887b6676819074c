/* rows_staged.c - the staged row strategy (codegen/rows.h; plan->stage): each
 * read's vectors are copied to shared memory first and read from there.
 *
 * The copies are the target's asynchronous ones; a thread copies exactly the
 * vectors it reads later, so waiting on its own copies suffices. They land in
 * up to plan->stage_groups groups in chunk order, each waited for before its first
 * read. Registers hold no row value across a reduction: one used after it is
 * rebuilt from shared memory (SGC_BUILD_PER_PASS), so a pass holds one chunk
 * at a time; except with plan->hold (PipelineConstraint(hold=1)), where the
 * online chain's exps of pass one stay in registers for the writes (walk.c,
 * codegen/reduce.c).
 * With one causal op in the template, a thread skips the chunks it masks
 * wholly (chunk_live; w->skip_op): no copy for the reads only it needs, no
 * reduction update, one per-row value stored (the walk's causal_skip); a
 * causal row reads only the columns it keeps.
 * With prefetch (rows_in_flight 2, a persistent grid) the next row block is
 * copied into a thread's slots as the template's last op (a write) frees
 * them, chunk by chunk (stage_next), so the next row's copies overlap this
 * row's stores; such rows are copied whole (no causal skipping).
 *
 * Peeled rows (plan->peel) copy the vectors that lie wholly in the row and
 * share its shift, and load the others (head, tail) element by element into
 * their slots (stage_peeled); a slot sits at the chunk's unshifted column.
 *
 * Needs: the target's stage_copy, stage_commit and stage_wait hooks; the
 * launch's dynamic shared memory (plan->stage_bytes, meta dsmem). Produces:
 * sgc_rows_staged. */
#include "codegen/rows.h"

typedef struct staged {
  LLVMValueRef stage;                 /* the shared-memory rows (i8 array) */
  unsigned stage_base[SGT_MAX_OPS];   /* read ops: byte offset of their rows in `stage` */
  unsigned landed;                    /* groups of chunks waited for so far */
  unsigned char only_causal[SGT_MAX_OPS]; /* read ops needed only where skip_op keeps */
  LLVMValueRef next_row, more;        /* prefetch: the next row block's row (clamped, i64;
                                         NULL: no prefetch) and whether there is one (i1) */
} staged;

/* The causal op whose wholly masked chunks staged plans skip: the template's
 * only one, its row count and offset kernel parameters; -1 when none. */
static int causal_skip_op(const sg_template *t) {
  int found = -1;
  for (int i = 0; i < t->nops; i++) {
    const sgt_op *o = &t->ops[i];
    if (o->code != SGT_CAUSAL)
      continue;
    if (found >= 0 || t->ops[o->operands[1]].code != SGT_PARAM ||
        t->ops[o->operands[2]].code != SGT_PARAM)
      return -1;
    found = i;
  }
  return found;
}

/* Shared-memory address of chunk c of this thread's row for read op `op`:
 * rows of plan->stage_pitch elements; chunk c at its column (a chunk past N
 * keeps its own slot, holding a copy of column 0). */
static LLVMValueRef stage_ptr(sgc_walk *w, const sgt_op *op, unsigned c) {
  sgc_ctx *cx = w->cx;
  staged *s = w->own;
  unsigned long long esize = sgc_elem_bytes(cx, op->tensor);
  LLVMValueRef row = LLVMBuildMul(cx->b, LLVMBuildZExt(cx->b, cx->row_in_block, cx->i64, ""),
                                  LLVMConstInt(cx->i64, cx->plan->stage_pitch, 0), "");
  /* peeled rows: the chunk's unshifted column (its vectors aligned in the row's
   * 16-byte frame, as in memory) */
  LLVMValueRef el = LLVMBuildAdd(cx->b, row, cx->plan->peel ? w->a.lane_col[c] : w->a.col[c], "");
  LLVMValueRef off = LLVMBuildAdd(cx->b, LLVMConstInt(cx->i64, s->stage_base[op - cx->t->ops], 0),
                                  LLVMBuildMul(cx->b, el, LLVMConstInt(cx->i64, esize, 0), ""),
                                  "stage.off");
  return LLVMBuildGEP2(cx->b, LLVMInt8TypeInContext(cx->ctx), s->stage, &off, 1, "stage.at");
}

/* This thread's chunks land in plan->stage_groups groups (or one each, when
 * fewer), in chunk order; the first read of a chunk waits for its group only,
 * so the first pass starts on chunk 0 while the rest are in flight (with one
 * block a multiprocessor nothing else would overlap the copies). A row
 * block's reads are built in straight-line code (stores branch only after
 * their value is built), so the wait before a group's first read dominates
 * every later read of that group. */
static unsigned stage_groups(const sgc_walk *w) {
  unsigned g = w->cx->plan->stage_groups;
  return w->a.nchunks < g ? w->a.nchunks : g;
}
static unsigned stage_group(const sgc_walk *w, unsigned c) {
  return c * stage_groups(w) / w->a.nchunks;
}

/* With a causal op (w->skip_op): 1 where chunk c keeps at least its first
 * lane (the limit falls with c, so the chunks kept are a prefix); a chunk it
 * masks wholly is neither copied (for the reads it alone needs), nor
 * reduced, nor computed: its output is one per-row value. NULL when nothing
 * is skipped. */
static LLVMValueRef chunk_live(sgc_walk *w, unsigned c) {
  if (w->skip_op < 0)
    return NULL;
  return LLVMBuildICmp(w->cx->b, LLVMIntSGE, w->causal_first, sgc_chunk_offset32(w->cx, c),
                       "chunk.live");
}

/* Waits for chunk c's group, the first time one of its chunks is needed. */
static void stage_wait_for(sgc_walk *w, unsigned c) {
  staged *s = w->own;
  unsigned g = stage_group(w, c);
  if (g >= s->landed) {
    w->cx->hooks->stage_wait(w->cx, stage_groups(w) - 1 - g);
    s->landed = g + 1;
  }
}

/* Copies this thread's chunk c of the read ops for row `row` (clamped like
 * sgc_load_row) into shared memory, committing a group after each group's
 * last chunk. */
static void stage_chunk(sgc_walk *w, LLVMValueRef row, unsigned c) {
  sgc_ctx *cx = w->cx;
  staged *s = w->own;
  const int *read_ops = w->read_ops;
  const sg_plan *pl = cx->plan;
  for (int only_causal = 0; only_causal < 2; only_causal++) { /* those copied always, then */
    LLVMBasicBlockRef join = NULL;
    for (unsigned r = 0; r < w->nreads; r++) {
      const sgt_op *op = &cx->t->ops[read_ops[r]];
      if ((w->skip_op >= 0 && s->only_causal[read_ops[r]]) != only_causal)
        continue;
      if (only_causal && !join) /* the chunk's first such read opens the branch */
        join = sgc_open_if(cx, chunk_live(w, c), "stage.live");
      unsigned bytes = pl->vec * sgc_elem_bytes(cx, op->tensor);
      LLVMValueRef fast = pl->peel ? sgc_peel_fast(cx, &w->a, op->tensor, c) : NULL;
      LLVMBasicBlockRef whole = fast ? sgc_open_if(cx, fast, "stage.whole") : NULL;
      cx->hooks->stage_copy(cx, stage_ptr(w, op, c),
                            sgc_element_ptr(cx, &w->a, op->tensor, row,
                                            pl->peel ? w->a.col[c] : sgc_clamped_col(cx, &w->a, c)),
                            bytes);
      if (whole)
        sgc_close_if(cx, whole);
    }
    if (join)
      sgc_close_if(cx, join);
  }
  if (c + 1 == w->a.nchunks || stage_group(w, c + 1) != stage_group(w, c))
    cx->hooks->stage_commit(cx);
}

/* Peeled rows: the chunks that are not one aligned vector of the row (the
 * head, a tail, a tensor whose row has another shift: sgc_peel_fast 0) are
 * loaded element by element and stored to their slots by this thread, after
 * every copy has been issued. A thread reads only its own slots, so no
 * barrier orders them. (Issuing these loads before the copies instead, so
 * that they return first, measured no better: tools/bench/RESULTS.md "Eighth
 * change".) */
static void stage_peeled(sgc_walk *w, LLVMValueRef row) {
  sgc_ctx *cx = w->cx;
  for (unsigned c = 0; c < w->a.nchunks; c++)
    for (unsigned r = 0; r < w->nreads; r++) {
      const sgt_op *op = &cx->t->ops[w->read_ops[r]];
      LLVMValueRef fast = sgc_peel_fast(cx, &w->a, op->tensor, c);
      if (!fast)
        continue;
      LLVMBasicBlockRef join = sgc_open_if(cx, LLVMBuildNot(cx->b, fast, ""), "stage.elements");
      LLVMValueRef v = sgc_peel_elements(cx, &w->a, op->tensor, row, c);
      LLVMValueRef st = LLVMBuildStore(cx->b, v, stage_ptr(w, op, c));
      LLVMSetAlignment(st, cx->plan->vec * sgc_elem_bytes(cx, op->tensor));
      sgc_close_if(cx, join);
    }
}

/* Copies this thread's vectors of the read ops for row `row`, chunk by chunk. */
static void stage_rows(sgc_walk *w, LLVMValueRef row) {
  for (unsigned c = 0; c < w->a.nchunks; c++)
    stage_chunk(w, row, c);
  if (w->cx->plan->peel)
    stage_peeled(w, row);
  ((staged *)w->own)->landed = 0;
}

/* The shared rows (dynamic shared memory: its size is the launch's, meta
 * dsmem) and each read's place in them; the causal op to skip. */
static sg_status declare(sgc_walk *w, sg_diag *diag) {
  sgc_ctx *cx = w->cx;
  const sg_plan *pl = cx->plan;
  const sg_template *t = cx->t;
  staged *s = w->own;
  if (pl->prefetch && (t->nops == 0 || t->ops[t->nops - 1].code != SGT_WRITE))
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "codegen: staged rows are copied ahead "
                       "after the template's last op, which must be a write");
  if (pl->prefetch && pl->peel) /* the next row's shift is another */
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "codegen: peeled rows are not copied "
                       "ahead");
  /* rows copied ahead (prefetch) are copied whole: no chunk skipping */
  w->skip_op = !pl->prefetch ? causal_skip_op(t) : -1;
  for (int i = 0; w->skip_op >= 0 && i < t->nops; i++)
    s->only_causal[i] = t->ops[i].code == SGT_READ && sgt_only_through_causal(t, i, w->skip_op);
  s->stage = sgc_stage_memory(cx);
  unsigned base = 0;
  for (int i = 0; i < t->nops; i++)
    if (t->ops[i].code == SGT_READ) {
      s->stage_base[i] = base;
      base += pl->rows_per_block * pl->stage_pitch * sgc_elem_bytes(cx, t->ops[i].tensor);
    }
  return SG_OK;
}

static void entry(sgc_walk *w) {
  sgc_chunk_columns(w->cx, &w->a, NULL, w->cx->plan->chunks, (uint64_t)w->cx->plan->tile_n);
}

static void ahead(sgc_walk *w, LLVMValueRef row) { stage_rows(w, row); }

/* Without prefetch this row block's copies, waited for chunk by chunk (read);
 * with it, the copies of the next one start as the writes free the slots
 * (stored), this one's having been issued before the loop or by the last trip. */
static void begin(sgc_walk *w, LLVMValueRef next, LLVMValueRef more) {
  sgc_ctx *cx = w->cx;
  staged *s = w->own;
  if (next) {
    s->next_row = next;
    s->more = more;
    s->landed = 0;
    return;
  }
  if (w->skip_op >= 0) { /* before the copies: stage_rows skips masked ones */
    const sgt_op *co = &cx->t->ops[w->skip_op];
    w->causal_first = sgc_causal_first32(w, cx->scalar_args[cx->t->ops[co->operands[1]].tensor],
                                         cx->scalar_args[cx->t->ops[co->operands[2]].tensor]);
  }
  stage_rows(w, w->a.row_clamped);
}

static LLVMValueRef read_slot(sgc_walk *w, const sgt_op *op, unsigned c) {
  sgc_ctx *cx = w->cx;
  LLVMTypeRef et = sgc_elem_type(cx, op->tensor);
  stage_wait_for(w, c);
  unsigned align = cx->plan->vec * sgc_elem_bytes(cx, op->tensor);
  LLVMValueRef v = LLVMBuildLoad2(cx->b, LLVMVectorType(et, cx->plan->vec), stage_ptr(w, op, c),
                                  "x.staged");
  LLVMSetAlignment(v, align);
  return v;
}

/* Where the walk skips chunk c: its group landed first (the wait must not be
 * first inside the skipped branch). */
static LLVMValueRef live(sgc_walk *w, unsigned c) {
  stage_wait_for(w, c);
  return chunk_live(w, c);
}

/* Prefetch (s->next_row): once the template's last op has stored chunk c, this
 * thread is done with chunk c's slots, so the next row block's copies into
 * them start there (when there is one), overlapping the rest of this row's
 * stores. A slot is only ever read by the thread that copies into it, and the
 * copy is issued after the store that consumed the slot's last read: no
 * barrier. */
static void stage_next(sgc_walk *w, unsigned c) {
  staged *s = w->own;
  if (!s->next_row)
    return;
  LLVMBasicBlockRef join = sgc_open_if(w->cx, s->more, "stage.next");
  stage_chunk(w, s->next_row, c);
  sgc_close_if(w->cx, join);
}

const sgc_rows sgc_rows_staged = {
    .own_size = sizeof(staged),
    .build = SGC_BUILD_PER_PASS,
    .declare = declare,
    .entry = entry,
    .ahead = ahead,
    .begin = begin,
    .walk = sgc_walk_ops,
    .read = read_slot,
    .live = live,
    .stored = stage_next,
};
