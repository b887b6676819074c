/* overlap.c - refuses launches whose outputs overlap another tensor (overlap.h).
 *
 * Needs: softgen/runtime.h, softgen/meta.h. Produces: rt_check_overlap.
 *
 * As PyTorch: an output that is the very same view as an input (same data,
 * dtype, rows and strides) is computed in place; any other sharing of memory
 * between an output and another tensor, input or output, is refused, since the
 * kernel's blocks read and write rows in no fixed order (an output shifted by
 * a row from its input reads rows another block has already written).
 *
 * Why in place is safe: every thread reads the elements of its row that it
 * later writes, and each write's value depends on the reads of that row (an
 * elementwise op of the same element, or a reduction over the row): in
 * registers, staged in shared memory (the copy is waited for before the
 * reduction), tiled rows (host, inner layout, long rows: every read pass comes
 * before the one pass of the writes), clusters (a block writes only its own
 * columns) and persistent prefetch (the next row block is another block of
 * rows). Loads that go past M or N read a clamped address whose value is
 * discarded. With two outputs or more, a write need not depend on the input it
 * overwrites (y1 = f(z) while y2 = g(x)), and the kernels' pointers are
 * noalias: such kernels are refused in place.
 *
 * Exact for the rows layout when the two views have the same row pitch in
 * bytes (e.g. the two halves [M, N] of one [M, 2N] buffer interleave without
 * sharing a byte) or one of them has a single row; otherwise (the inner layout,
 * different pitches) two views overlap when their byte ranges do. */
#include "runtime/overlap.h"

#include <stdint.h>

typedef struct span {
  uint64_t lo, hi;   /* bytes [lo, hi) from the first element to past the last */
  uint64_t pitch;    /* bytes between rows (rows layout, more than one row), else 0 */
  uint64_t width;    /* bytes of a row (rows layout) */
  uint64_t rows;     /* rows of the view */
} span;

/* t's bytes. The sizes are bounded by check_tensors (rows x row_stride, outer x
 * row_stride and cols x n_stride at most INT64_MAX / 4 elements). */
static span span_of(const sg_meta *m, const sgrt_tensor *t) {
  uint64_t es = sg_dtype_size(t->dtype), cols = (uint64_t)t->cols, last;
  span s = {(uint64_t)(uintptr_t)t->data, 0, 0, cols * es, (uint64_t)t->rows};
  if (m->layout == SG_LAYOUT_INNER) {
    uint64_t inner = t->inner ? (uint64_t)t->inner : 1;
    uint64_t ns = t->n_stride ? (uint64_t)t->n_stride : inner, outer = (uint64_t)t->rows / inner;
    last = (outer - 1) * (uint64_t)t->row_stride + (cols - 1) * ns + inner - 1;
    s.rows = 0; /* no row pitch: byte ranges only */
  } else {
    last = (s.rows - 1) * (uint64_t)t->row_stride + cols - 1;
    s.pitch = s.rows > 1 ? (uint64_t)t->row_stride * es : 0;
  }
  uint64_t bytes = (last + 1) * es;
  s.hi = s.lo + bytes < s.lo ? UINT64_MAX : s.lo + bytes;
  return s;
}

/* Same view: same data, dtype and rows, and the same strides where they matter. */
static int same_view(const sg_meta *m, const sgrt_tensor *a, const sgrt_tensor *b) {
  if (a->data != b->data || a->dtype != b->dtype || a->rows != b->rows)
    return 0;
  if (m->layout != SG_LAYOUT_INNER)
    return a->rows <= 1 || a->row_stride == b->row_stride;
  int64_t ia = a->inner ? a->inner : 1, ib = b->inner ? b->inner : 1;
  int64_t na = a->n_stride ? a->n_stride : ia, nb = b->n_stride ? b->n_stride : ib;
  return ia == ib && (a->cols <= 1 || na == nb) &&
         (a->rows / ia <= 1 || a->row_stride == b->row_stride);
}

/* Whether the rows of a and b (a.lo <= b.lo, byte ranges intersecting) share a
 * byte: row r of a and row r' of b meet when, with k = r - r' and d = b.lo -
 * a.lo, k * pitch lies in (d - a.width, d + b.width). d < a.width: rows 0 meet;
 * else k >= 1, and the smallest k past the lower end decides. Byte ranges
 * when the pitches differ or the views have no rows (the inner layout). */
static int rows_meet(const span *a, const span *b) {
  uint64_t pitch = a->pitch ? a->pitch : b->pitch;
  if ((a->pitch && b->pitch && a->pitch != b->pitch) || (a->rows == 0 || b->rows == 0))
    return 1;
  if (!pitch || (a->rows <= 1 && b->rows <= 1))
    return 1; /* single rows: one interval each, and the ranges intersect */
  uint64_t d = b->lo - a->lo;
  if (d < a->width)
    return 1; /* row 0 of a and row 0 of b */
  uint64_t k = (d - a->width) / pitch + 1; /* the first k with k * pitch > d - width */
  return k <= a->rows - 1 && k * pitch < d + b->width;
}

static int overlap(const sg_meta *m, const sgrt_tensor *x, const sgrt_tensor *y) {
  span a = span_of(m, x), b = span_of(m, y);
  if (!(a.lo < b.hi && b.lo < a.hi))
    return 0;
  return a.lo <= b.lo ? rows_meet(&a, &b) : rows_meet(&b, &a);
}

sg_status rt_check_overlap(const sg_meta *m, const sgrt_tensor *t, sg_diag *diag) {
  int outputs = 0;
  for (int i = 0; i < m->ntensors; i++)
    outputs += m->tensors[i].is_output != 0;
  for (int i = 0; i < m->ntensors; i++) {
    if (!m->tensors[i].is_output || t[i].rows == 0)
      continue;
    for (int j = 0; j < m->ntensors; j++) {
      if (j == i || t[j].rows == 0 || (m->tensors[j].is_output && j < i))
        continue; /* a pair of outputs once */
      const char *yn = m->tensors[i].name, *xn = m->tensors[j].name;
      const char *role = m->tensors[j].is_output ? "output" : "input";
      if (same_view(m, &t[i], &t[j])) {
        if (m->tensors[j].is_output)
          return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT,
                             "tensor '%s' (#%d) is the same memory as output '%s' (#%d): two "
                             "outputs cannot share it", yn, i, xn, j);
        if (outputs > 1)
          return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT,
                             "tensor '%s' (#%d) is the same view as input '%s' (#%d): in place "
                             "needs a kernel with one output, kernel '%s' has %d", yn, i, xn, j,
                             m->kernel, outputs);
        continue; /* in place */
      }
      if (overlap(m, &t[i], &t[j]))
        return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT,
                           "tensor '%s' (#%d) overlaps %s '%s' (#%d): an output must be the same "
                           "view as an input (in place: same data, dtype, rows and strides) or "
                           "share no memory with any other tensor", yn, i, role, xn, j);
    }
  }
  return SG_OK;
}
