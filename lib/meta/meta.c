/* meta.c - writes, finds and parses the launch metadata of code objects
 * (include/softgen/meta.h). Needs only libc: shared by compiler and runtime.
 * Input may be hostile (any file a user names), so every read is bounded. */
#include "softgen/meta.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta/locate.h"

uint64_t sg_object_extent(const void *object) {
  const unsigned char *p = object;
  if (p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F') {
    uint64_t shoff, phoff, end = 64;
    uint16_t phentsize, phnum, shentsize, shnum;
    memcpy(&phoff, p + 32, 8);
    memcpy(&shoff, p + 40, 8);
    memcpy(&phentsize, p + 54, 2);
    memcpy(&phnum, p + 56, 2);
    memcpy(&shentsize, p + 58, 2);
    memcpy(&shnum, p + 60, 2);
    uint64_t sh = (uint64_t)shentsize * shnum, ph = (uint64_t)phentsize * phnum;
    if (shoff > UINT64_MAX - sh || phoff > UINT64_MAX - ph)
      return UINT64_MAX;
    end = shoff + sh > end ? shoff + sh : end;
    return phoff + ph > end ? phoff + ph : end;
  }
  if (p[0] == 0x50 && p[1] == 0xed && p[2] == 0x55 && p[3] == 0xba) {
    uint16_t header;
    uint64_t payload;
    memcpy(&header, p + 6, 2);
    memcpy(&payload, p + 8, 8);
    return payload > UINT64_MAX - header ? UINT64_MAX : header + payload;
  }
  return 0;
}

int sg_meta_tensor_index(const sg_meta *meta, const char *name) {
  for (int i = 0; i < meta->ntensors; i++)
    if (strcmp(meta->tensors[i].name, name) == 0)
      return i;
  return -1;
}

unsigned sg_meta_tensor_align(const sg_meta *meta, int i) {
  unsigned widest = 1, vb = meta->vector_bytes ? meta->vector_bytes : 1;
  for (int j = 0; j < meta->ntensors; j++)
    if (sg_dtype_size(meta->tensors[j].dtype) > widest)
      widest = sg_dtype_size(meta->tensors[j].dtype);
  unsigned a = vb * sg_dtype_size(meta->tensors[i].dtype) / widest;
  return a ? a : 1;
}

int sg_meta_scalar_index(const sg_meta *meta, const char *name) {
  for (int i = 0; i < meta->nscalars; i++)
    if (strcmp(meta->scalars[i].name, name) == 0)
      return i;
  return -1;
}

/* ---- formatting ---- */

typedef struct out_buf {
  char *p;
  size_t cap, len;
  int overflow;
} out_buf;

static void put(out_buf *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void put(out_buf *o, const char *fmt, ...) {
  va_list ap;
  size_t room = o->len < o->cap ? o->cap - o->len : 0;
  va_start(ap, fmt);
  int n = vsnprintf(o->p + (room ? o->len : 0), room, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= room)
    o->overflow = 1;
  else
    o->len += (size_t)n;
}

sg_status sg_meta_format(const sg_meta *m, char *buf, size_t cap, size_t *len, sg_diag *diag) {
  out_buf o = {buf, cap, 0, 0};
  if (!m || !buf || cap == 0)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_meta_format: null argument");
  put(&o, "%skernel %s\n", SG_META_MAGIC, m->kernel);
  if (m->template_name[0]) /* optional when parsing: an empty one would not parse back */
    put(&o, "template %s\n", m->template_name);
  put(&o, "target %s\narch %s\nn %lld\n", m->target, m->arch, (long long)m->n);
  if (m->n_min && m->n_min < m->n)
    put(&o, "n_min %lld\n", (long long)m->n_min);
  put(&o, "block %u\nrows_per_block %u\nsmem %u\ncluster %u\nvector_bytes %u\n", m->block,
      m->rows_per_block, m->smem, m->cluster, m->vector_bytes);
  if (m->persistent)
    put(&o, "persistent 1\n");
  if (m->dsmem)
    put(&o, "dsmem %u\n", m->dsmem);
  if (m->layout != SG_LAYOUT_ROWS)
    put(&o, "layout %s\n", sg_layout_name(m->layout));
  for (int i = 0; i < m->nvariants; i++) {
    const sg_meta_variant *v = &m->variants[i];
    if (v->split) /* a grid-split variant */
      put(&o, "variant grid kernel %s block %u rows_per_block %u smem %u split %u dsmem %u "
          "max_rows %lld workspace %llu\n", v->kernel, v->block, v->rows_per_block, v->smem,
          v->split, v->dsmem, (long long)v->max_rows, (unsigned long long)v->workspace);
    else
      put(&o, "variant few kernel %s block %u rows_per_block %u smem %u cluster %u dsmem %u "
          "max_rows %lld\n", v->kernel, v->block, v->rows_per_block, v->smem, v->cluster,
          v->dsmem, (long long)v->max_rows);
  }
  for (int i = 0; i < m->ntensors; i++)
    put(&o, "tensor %s %s %s\n", m->tensors[i].name, m->tensors[i].is_output ? "out" : "in",
        sg_dtype_name(m->tensors[i].dtype));
  for (int i = 0; i < m->nscalars; i++)
    put(&o, "scalar %s %s\n", m->scalars[i].name, m->scalars[i].is_i64 ? "i64" : "f32");
  for (int i = 0; i < m->nargs; i++) {
    const sg_meta_arg *a = &m->args[i];
    static const char *const kinds[] = {"tensor", "rows",   "stride", "inner",
                                        "nstride", "scalar", "cols"};
    if ((a->kind == SG_ARG_ROWS && a->tensor < 0) || a->kind == SG_ARG_INNER ||
        a->kind == SG_ARG_COLS)
      put(&o, "arg %s\n", kinds[a->kind]);
    else if (a->kind == SG_ARG_SCALAR && a->tensor >= 0 && a->tensor < m->nscalars)
      put(&o, "arg scalar %s\n", m->scalars[a->tensor].name);
    else if ((unsigned)a->kind < SG_ARG_SCALAR && a->tensor >= 0 && a->tensor < m->ntensors)
      put(&o, "arg %s %s\n", kinds[a->kind], m->tensors[a->tensor].name);
    else
      return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_meta_format: arg %d is invalid", i);
  }
  put(&o, "end\n");
  if (o.overflow)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "metadata does not fit in %zu bytes", cap);
  if (len)
    *len = o.len;
  return SG_OK;
}

/* ---- parsing ---- */

/* Copies word w (length n) into dst (capacity cap); fails when too long or empty. */
static int word_copy(char *dst, size_t cap, const char *w, size_t n) {
  if (n == 0 || n >= cap)
    return -1;
  for (size_t i = 0; i < n; i++)
    if (!isgraph((unsigned char)w[i]))
      return -1;
  memcpy(dst, w, n);
  dst[n] = '\0';
  return 0;
}

static int parse_u64(const char *s, unsigned long long max, unsigned long long *out) {
  char *end;
  if (!isdigit((unsigned char)s[0]))
    return -1;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end != '\0' || v > max)
    return -1;
  *out = v;
  return 0;
}

#define LINE_WORDS 5  /* the most words a line has, but "variant" */
#define FEW_WORDS 16  /* variant few kernel NAME and six "key value" pairs */
#define GRID_WORDS 18 /* variant grid kernel NAME and seven "key value" pairs */
#define MAX_WORDS GRID_WORDS
/* Splits a line (NUL-terminated, no newline) into at most MAX_WORDS words. */
static int split(char *line, char *words[MAX_WORDS]) {
  int n = 0;
  for (char *p = line; *p;) {
    while (*p == ' ' || *p == '\t')
      *p++ = '\0';
    if (!*p)
      break;
    if (n == MAX_WORDS)
      return -1;
    words[n++] = p;
    while (*p && *p != ' ' && *p != '\t')
      p++;
  }
  return n;
}

/* "variant few kernel NAME block B rows_per_block R smem S cluster C dsmem D
 * max_rows K" or "variant grid kernel NAME block B rows_per_block 1 smem S
 * split G dsmem D max_rows K workspace W": every word in this order, each
 * number in its range (meta.h). */
static sg_status parse_variant(sg_meta *m, char **w, int nw, int lineno, sg_diag *diag) {
  static const char *const few_keys[] = {"block", "rows_per_block", "smem", "cluster", "dsmem",
                                         "max_rows"};
  static const char *const grid_keys[] = {"block", "rows_per_block", "smem", "split", "dsmem",
                                          "max_rows", "workspace"};
  static const unsigned long long max[] = {1024, 1024, 1u << 24, 1024, 1u << 24,
                                           (1ull << 31) - 1, 1ull << 31};
  unsigned long long v[7] = {0};
#define BAD(...) sg_diag_set(diag, SG_ERR_PARSE, "metadata line " __VA_ARGS__)
  int grid = nw >= 2 && strcmp(w[1], "grid") == 0;
  if (nw >= 2 && !grid && strcmp(w[1], "few") != 0)
    return BAD("%d: unknown variant '%.64s' (the kinds of variant are 'few' and 'grid')", lineno,
               w[1]);
  if (nw > (grid ? GRID_WORDS : FEW_WORDS)) /* as any line with words past its last */
    return sg_diag_set(diag, SG_ERR_PARSE, "metadata line %d has too many words", lineno);
  if (!grid && (nw != FEW_WORDS || strcmp(w[2], "kernel") != 0))
    return BAD("%d: a variant must read 'variant few kernel NAME block B rows_per_block R smem "
               "S cluster C dsmem D max_rows K'", lineno);
  if (grid && (nw != GRID_WORDS || strcmp(w[2], "kernel") != 0))
    return BAD("%d: a variant must read 'variant grid kernel NAME block B rows_per_block 1 smem "
               "S split G dsmem D max_rows K workspace W'", lineno);
  const char *kind = grid ? "grid" : "few";
  const char *const *keys = grid ? grid_keys : few_keys;
  int nkeys = grid ? 7 : 6;
  if (m->nvariants == SG_META_MAX_VARIANTS)
    return BAD("%d: more than %d variants", lineno, SG_META_MAX_VARIANTS);
  sg_meta_variant *f = &m->variants[m->nvariants];
  memset(f, 0, sizeof *f);
  if (word_copy(f->kernel, sizeof f->kernel, w[3], strlen(w[3])))
    return BAD("%d: variant %s: kernel name too long", lineno, kind);
  for (int i = 0; i < nkeys; i++) {
    int bytes = i == 2 || i == 4; /* smem, dsmem: 0 allowed */
    if (strcmp(w[4 + 2 * i], keys[i]) != 0)
      return BAD("%d: variant %s: '%s' expected where '%.64s' is", lineno, kind, keys[i],
                 w[4 + 2 * i]);
    if (parse_u64(w[5 + 2 * i], max[i], &v[i]) || (v[i] == 0 && !bytes))
      return BAD("%d: variant %s: %s must be %s to %llu", lineno, kind, keys[i],
                 bytes ? "0" : "1", max[i]);
  }
  /* a grid variant's row block is one row, split over v[3] blocks that wait for each
   * other: a power of two of at least 2 (1 would be the kernel itself) */
  if (grid && v[1] != 1)
    return BAD("%d: variant grid: rows_per_block must be 1, got %llu", lineno, v[1]);
  if (grid && (v[3] < 2 || (v[3] & (v[3] - 1))))
    return BAD("%d: variant grid: split must be a power of two from 2 to %llu, got %llu", lineno,
               max[3], v[3]);
  /* the lines of a kind in increasing max_rows (the kinds in any order) */
  const sg_meta_variant *prev = NULL;
  for (int i = 0; i < m->nvariants; i++)
    if ((m->variants[i].split != 0) == grid)
      prev = &m->variants[i];
  if (prev && (int64_t)v[5] <= prev->max_rows)
    return BAD("%d: variant %s: max_rows %llu after %lld (the lines of a kind come in "
               "increasing max_rows)", lineno, kind, v[5], (long long)prev->max_rows);
  f->block = (unsigned)v[0];
  f->rows_per_block = (unsigned)v[1];
  f->smem = (unsigned)v[2];
  f->cluster = grid ? 1 : (unsigned)v[3];
  f->split = grid ? (unsigned)v[3] : 0;
  f->dsmem = (unsigned)v[4];
  f->max_rows = (int64_t)v[5];
  f->workspace = grid ? v[6] : 0;
  m->nvariants++;
  return SG_OK;
#undef BAD
}

enum { SEEN_KERNEL = 1, SEEN_TARGET = 2, SEEN_ARCH = 4, SEEN_N = 8, SEEN_BLOCK = 16, SEEN_ROWS = 32 };

static sg_status parse_line(sg_meta *m, char **w, int nw, unsigned *seen, int lineno,
                            sg_diag *diag) {
  unsigned long long v;
#define BAD(...) sg_diag_set(diag, SG_ERR_PARSE, "metadata line " __VA_ARGS__)
  const char *k = w[0];
  if (nw == 2 && strcmp(k, "checksum") == 0) { /* sg_meta_verify checks its value */
    if (lineno != 2)
      return BAD("%d: checksum must be the second line", lineno);
    if (strlen(w[1]) != SG_META_CHECKSUM_DIGITS ||
        strspn(w[1], "0123456789ABCDEF") != SG_META_CHECKSUM_DIGITS)
      return BAD("%d: checksum must be %d hex digits 0-9 A-F", lineno, SG_META_CHECKSUM_DIGITS);
  } else if (nw == 2 && strcmp(k, "kernel") == 0) {
    if (word_copy(m->kernel, sizeof m->kernel, w[1], strlen(w[1])))
      return BAD("%d: kernel name too long", lineno);
    *seen |= SEEN_KERNEL;
  } else if (nw == 2 && strcmp(k, "template") == 0) {
    if (word_copy(m->template_name, sizeof m->template_name, w[1], strlen(w[1])))
      return BAD("%d: template name too long", lineno);
  } else if (nw == 2 && strcmp(k, "target") == 0) {
    if (word_copy(m->target, sizeof m->target, w[1], strlen(w[1])))
      return BAD("%d: target name too long", lineno);
    *seen |= SEEN_TARGET;
  } else if (nw == 2 && strcmp(k, "arch") == 0) {
    if (word_copy(m->arch, sizeof m->arch, w[1], strlen(w[1])))
      return BAD("%d: arch name too long", lineno);
    *seen |= SEEN_ARCH;
  } else if (nw == 2 && strcmp(k, "n") == 0) {
    if (parse_u64(w[1], (1ull << 31) - 1, &v) || v == 0)
      return BAD("%d: n must be 1 to 2^31-1", lineno);
    m->n = (int64_t)v;
    *seen |= SEEN_N;
  } else if (nw == 2 && strcmp(k, "n_min") == 0) {
    if (parse_u64(w[1], (1ull << 31) - 1, &v) || v == 0)
      return BAD("%d: n_min must be 1 to 2^31-1", lineno);
    m->n_min = (int64_t)v;
  } else if (nw == 2 && (strcmp(k, "block") == 0 || strcmp(k, "rows_per_block") == 0 ||
                         strcmp(k, "cluster") == 0 || strcmp(k, "vector_bytes") == 0 ||
                         strcmp(k, "smem") == 0 || strcmp(k, "dsmem") == 0)) {
    int bytes = k[0] == 's' || k[0] == 'd'; /* smem, dsmem: 0 allowed */
    /* rows a block: up to 1024 threads, each up to 64 packed rows */
    unsigned long long max = bytes ? (1u << 24) : k[0] == 'r' ? 65536 : 1024;
    if (parse_u64(w[1], max, &v) || (v == 0 && !bytes))
      return BAD("%d: %s must be %s to %llu", lineno, k, bytes ? "0" : "1", max);
    unsigned u = (unsigned)v;
    if (k[0] == 'b') {
      m->block = u;
      *seen |= SEEN_BLOCK;
    } else if (k[0] == 'r') {
      m->rows_per_block = u;
      *seen |= SEEN_ROWS;
    } else if (k[0] == 'c')
      m->cluster = u;
    else if (k[0] == 'v') {
      if (u & (u - 1))
        return BAD("%d: vector_bytes must be a power of two", lineno);
      m->vector_bytes = u;
    } else if (k[0] == 'd')
      m->dsmem = u;
    else
      m->smem = u;
  } else if (nw == 2 && strcmp(k, "layout") == 0) {
    if (sg_layout_parse(w[1], &m->layout))
      return BAD("%d: layout must be 'rows' or 'inner'", lineno);
  } else if (nw == 2 && strcmp(k, "persistent") == 0) {
    if (strcmp(w[1], "0") != 0 && strcmp(w[1], "1") != 0)
      return BAD("%d: persistent must be 0 or 1", lineno);
    m->persistent = w[1][0] == '1';
  } else if (strcmp(k, "variant") == 0) {
    sg_status st = parse_variant(m, w, nw, lineno, diag);
    if (st)
      return st;
  } else if (nw == 4 && strcmp(k, "tensor") == 0) {
    if (m->ntensors == SG_META_MAX_TENSORS)
      return BAD("%d: more than %d tensors", lineno, SG_META_MAX_TENSORS);
    sg_meta_tensor *t = &m->tensors[m->ntensors];
    if (word_copy(t->name, sizeof t->name, w[1], strlen(w[1])))
      return BAD("%d: tensor name too long", lineno);
    if (sg_meta_tensor_index(m, t->name) >= 0)
      return BAD("%d: tensor '%s' declared twice", lineno, t->name);
    if (strcmp(w[2], "in") != 0 && strcmp(w[2], "out") != 0)
      return BAD("%d: tensor direction must be 'in' or 'out'", lineno);
    t->is_output = w[2][0] == 'o';
    if (sg_dtype_parse(w[3], &t->dtype))
      return BAD("%d: unknown dtype '%s'", lineno, w[3]);
    m->ntensors++;
  } else if (nw == 3 && strcmp(k, "scalar") == 0) {
    if (m->nscalars == SG_META_MAX_SCALARS)
      return BAD("%d: more than %d scalars", lineno, SG_META_MAX_SCALARS);
    sg_meta_scalar *s = &m->scalars[m->nscalars];
    if (word_copy(s->name, sizeof s->name, w[1], strlen(w[1])))
      return BAD("%d: scalar name too long", lineno);
    if (sg_meta_scalar_index(m, s->name) >= 0)
      return BAD("%d: scalar '%s' declared twice", lineno, s->name);
    if (strcmp(w[2], "f32") != 0 && strcmp(w[2], "i64") != 0)
      return BAD("%d: scalar type must be 'f32' or 'i64'", lineno);
    s->is_i64 = w[2][0] == 'i';
    m->nscalars++;
  } else if ((nw == 2 || nw == 3) && strcmp(k, "arg") == 0) {
    if (m->nargs == SG_META_MAX_ARGS)
      return BAD("%d: more than %d args", lineno, SG_META_MAX_ARGS);
    sg_meta_arg *a = &m->args[m->nargs];
    if (nw == 2 && (strcmp(w[1], "rows") == 0 || strcmp(w[1], "inner") == 0 ||
                    strcmp(w[1], "cols") == 0)) {
      a->kind = w[1][0] == 'r' ? SG_ARG_ROWS : w[1][0] == 'i' ? SG_ARG_INNER : SG_ARG_COLS;
      a->tensor = -1;
    } else if (nw == 3 && strcmp(w[1], "scalar") == 0) {
      a->kind = SG_ARG_SCALAR;
      a->tensor = sg_meta_scalar_index(m, w[2]);
      if (a->tensor < 0)
        return BAD("%d: arg names undeclared scalar '%s'", lineno, w[2]);
    } else if (nw == 3 && (strcmp(w[1], "tensor") == 0 || strcmp(w[1], "stride") == 0 ||
                           strcmp(w[1], "nstride") == 0 || strcmp(w[1], "rows") == 0)) {
      a->kind = w[1][0] == 't' ? SG_ARG_TENSOR : w[1][0] == 'r' ? SG_ARG_ROWS
                : w[1][0] == 's' ? SG_ARG_STRIDE : SG_ARG_NSTRIDE;
      a->tensor = sg_meta_tensor_index(m, w[2]);
      if (a->tensor < 0)
        return BAD("%d: arg names undeclared tensor '%s'", lineno, w[2]);
      if (a->kind == SG_ARG_ROWS && m->tensors[a->tensor].is_output)
        return BAD("%d: 'arg rows %s': only an input's rows may repeat", lineno, w[2]);
    } else
      return BAD("%d: arg must be 'rows', 'rows NAME', 'inner', 'cols', 'tensor NAME', "
                 "'stride NAME', 'nstride NAME' or 'scalar NAME'", lineno);
    m->nargs++;
  } else
    return BAD("%d: unknown or malformed entry '%s'", lineno, k);
  return SG_OK;
#undef BAD
}

/* The inner layout's arguments: "arg inner" exactly once and an "arg nstride"
 * for every tensor; a rows-layout kernel has neither. */
static sg_status check_layout(const sg_meta *m, sg_diag *diag) {
  int inner = 0, nstride[SG_META_MAX_TENSORS] = {0};
  for (int j = 0; j < m->nargs; j++) {
    const sg_meta_arg *a = &m->args[j];
    if (a->kind != SG_ARG_INNER && a->kind != SG_ARG_NSTRIDE)
      continue;
    if (m->layout != SG_LAYOUT_INNER)
      return sg_diag_set(diag, SG_ERR_PARSE, "metadata 'arg %s' needs 'layout inner'",
                         a->kind == SG_ARG_INNER ? "inner" : "nstride");
    if (a->kind == SG_ARG_INNER)
      inner++;
    else
      nstride[a->tensor]++;
  }
  if (m->layout != SG_LAYOUT_INNER)
    return SG_OK;
  if (inner != 1)
    return sg_diag_set(diag, SG_ERR_PARSE, "metadata of layout inner needs one 'arg inner', "
                       "got %d", inner);
  for (int i = 0; i < m->ntensors; i++)
    if (nstride[i] != 1)
      return sg_diag_set(diag, SG_ERR_PARSE, "metadata of layout inner needs one 'arg nstride "
                         "%s', got %d", m->tensors[i].name, nstride[i]);
  return SG_OK;
}

sg_status sg_meta_parse(const char *text, size_t len, sg_meta *out, sg_diag *diag) {
  size_t magic = strlen(SG_META_MAGIC);
  if (!text || !out)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_meta_parse: null argument");
  if (len < magic || memcmp(text, SG_META_MAGIC, magic) != 0)
    return sg_diag_set(diag, SG_ERR_PARSE, "metadata does not start with 'softgen-meta 1'");
  sg_meta m;
  memset(&m, 0, sizeof m);
  m.version = 1;
  m.cluster = 1;
  m.vector_bytes = 1;
  unsigned seen = 0;
  int lineno = 1, ended = 0;
  size_t pos = magic;
  while (pos < len && !ended) {
    char line[320]; /* a variant line with a 127-byte name and every number at its most: 256 */
    size_t n = 0;
    lineno++;
    while (pos < len && text[pos] != '\n' && text[pos] != '\0') {
      if (n + 1 >= sizeof line)
        return sg_diag_set(diag, SG_ERR_PARSE, "metadata line %d is too long", lineno);
      line[n++] = text[pos++];
    }
    if (pos >= len || text[pos] != '\n')
      return sg_diag_set(diag, SG_ERR_PARSE, "metadata is truncated at line %d", lineno);
    pos++;
    line[n] = '\0';
    char *w[MAX_WORDS];
    int nw = split(line, w);
    if (nw > LINE_WORDS && strcmp(w[0], "variant") != 0)
      nw = -1;
    if (nw < 0)
      return sg_diag_set(diag, SG_ERR_PARSE, "metadata line %d has too many words", lineno);
    if (nw == 0)
      continue;
    if (nw == 1 && strcmp(w[0], "end") == 0) {
      ended = 1;
      break;
    }
    sg_status st = parse_line(&m, w, nw, &seen, lineno, diag);
    if (st)
      return st;
  }
  if (!ended)
    return sg_diag_set(diag, SG_ERR_PARSE, "metadata has no 'end' line (truncated?)");
  unsigned need = SEEN_KERNEL | SEEN_TARGET | SEEN_ARCH | SEEN_N | SEEN_BLOCK | SEEN_ROWS;
  if ((seen & need) != need)
    return sg_diag_set(diag, SG_ERR_PARSE,
                       "metadata lacks one of kernel, target, arch, n, block, rows_per_block");
  if (m.ntensors == 0 || m.nargs == 0)
    return sg_diag_set(diag, SG_ERR_PARSE, "metadata declares no tensors or no args");
  for (int i = 0; i < m.ntensors; i++) {
    int passed = 0;
    for (int j = 0; j < m.nargs; j++)
      passed |= m.args[j].kind == SG_ARG_TENSOR && m.args[j].tensor == i;
    if (!passed)
      return sg_diag_set(diag, SG_ERR_PARSE, "metadata tensor '%s' is never passed as an arg",
                         m.tensors[i].name);
  }
  for (int i = 0; i < m.nscalars; i++) {
    int passed = 0;
    for (int j = 0; j < m.nargs; j++)
      passed += m.args[j].kind == SG_ARG_SCALAR && m.args[j].tensor == i;
    if (passed != 1)
      return sg_diag_set(diag, SG_ERR_PARSE, "metadata scalar '%s' is passed %d times (once "
                         "expected)", m.scalars[i].name, passed);
  }
  for (int i = 0; i < m.nvariants; i++) {
    const char *kind = m.variants[i].split ? "grid" : "few";
    if (strcmp(m.variants[i].kernel, m.kernel) == 0)
      return sg_diag_set(diag, SG_ERR_PARSE, "metadata variant %s names the kernel '%s' itself",
                         kind, m.kernel);
    for (int j = 0; j < i; j++)
      if (strcmp(m.variants[i].kernel, m.variants[j].kernel) == 0)
        return sg_diag_set(diag, SG_ERR_PARSE, "metadata variant %s '%s' declared twice", kind,
                           m.variants[i].kernel);
  }
  sg_status st = check_layout(&m, diag);
  if (st)
    return st;
  if (m.n_min > m.n)
    return sg_diag_set(diag, SG_ERR_PARSE, "metadata n_min %lld is over n %lld",
                       (long long)m.n_min, (long long)m.n);
  if (!m.n_min)
    m.n_min = m.n;
  int cols = 0;
  for (int j = 0; j < m.nargs; j++)
    cols += m.args[j].kind == SG_ARG_COLS;
  if (cols != (m.n_min < m.n))
    return sg_diag_set(diag, SG_ERR_PARSE, "metadata passes 'arg cols' %d times: once with an "
                       "n_min under n (a range of N), else never", cols);
  *out = m;
  return SG_OK;
}

/* ---- finding the metadata in a code object (meta/locate.h) ---- */

/* In PTX the metadata is a byte-list initializer:
 *   .global .align 1 .b8 softgen_meta[N] = {115, 111, ...};
 * Finds the first such global: the offset of the list's body (after '{') and N.
 * 0 when absent or malformed (no count, a count of 2^20 or more, no '{'). */
static int ptx_list(const char *p, size_t size, size_t *body, unsigned long *count) {
  static const char sym[] = SG_META_SYMBOL "[";
  const char *end = p + size;
  for (const char *s = p; s + sizeof sym < end; s++) {
    if (memcmp(s, sym, sizeof sym - 1) != 0 || (s > p && (isalnum((unsigned char)s[-1]) || s[-1] == '_')))
      continue;
    const char *q = s + sizeof sym - 1;
    unsigned long n = 0;
    while (q < end && isdigit((unsigned char)*q) && n < (1ul << 20))
      n = n * 10 + (unsigned long)(*q++ - '0');
    if (n == 0 || n >= (1ul << 20))
      return 0;
    while (q < end && *q != '{' && *q != ';')
      q++;
    if (q >= end || *q != '{')
      return 0;
    *body = (size_t)(q + 1 - p);
    *count = n;
    return 1;
  }
  return 0;
}

/* Reads the list entry at or after *q (separators skipped): its value and the
 * offset of its first digit; *q moves past it. 0 at the list's end or at an
 * entry that is not a decimal number up to 255. */
static int ptx_entry(const char *p, size_t size, size_t *q, unsigned *value, size_t *at) {
  size_t i = *q;
  while (i < size && (p[i] == ' ' || p[i] == ',' || p[i] == '\n' || p[i] == '\t' || p[i] == '\r'))
    i++;
  if (i >= size || !isdigit((unsigned char)p[i]))
    return 0;
  *at = i;
  unsigned v = 0;
  while (i < size && isdigit((unsigned char)p[i]) && v < 256)
    v = v * 10 + (unsigned)(p[i++] - '0');
  if (v > 255)
    return 0;
  *value = v;
  *q = i;
  return 1;
}

int sgmd_locate(const void *object, size_t size, sgmd_text *t) {
  const char *p = object;
  size_t magic = strlen(SG_META_MAGIC);
  memset(t, 0, sizeof *t);
  for (size_t i = 0; i + magic <= size; i++) {
    const char *hit = memchr(p + i, 's', size - i);
    if (!hit)
      break;
    i = (size_t)(hit - p);
    if (i + magic <= size && memcmp(hit, SG_META_MAGIC, magic) == 0) {
      t->text = hit;
      t->len = size - i;
      t->at = i;
      return 1;
    }
  }
  unsigned long count;
  size_t q;
  if (!ptx_list(p, size, &q, &count))
    return 0;
  char *buf = malloc(count + 1);
  if (!buf)
    return 0;
  t->body = q;
  t->ptx = 1;
  size_t n = 0, at;
  unsigned v;
  while (n < count && ptx_entry(p, size, &q, &v, &at))
    buf[n++] = (char)v; /* a malformed entry ends the text early: the parser says where */
  buf[n] = '\0';
  t->text = t->owned = buf;
  t->len = n;
  return 1;
}

int sgmd_ptx_entries(const void *object, size_t size, const sgmd_text *t, size_t first, size_t n,
                    size_t *at) {
  size_t q = t->body, where;
  unsigned v;
  for (size_t i = 0; i < first + n; i++) {
    if (!t->ptx || !ptx_entry(object, size, &q, &v, &where))
      return -1;
    if (i >= first)
      at[i - first] = where;
  }
  return 0;
}

sg_status sg_meta_find(const void *object, size_t size, sg_meta *out, sg_diag *diag) {
  if (!object)
    return sg_diag_set(diag, SG_ERR_INVALID_ARGUMENT, "sg_meta_find: null object");
  sgmd_text t;
  if (!sgmd_locate(object, size, &t))
    return sg_diag_set(diag, SG_ERR_PARSE,
                       "no softgen metadata ('" SG_META_SYMBOL "') in this code object");
  sg_status st = sg_meta_parse(t.text, t.len, out, diag);
  free(t.owned);
  return st;
}
